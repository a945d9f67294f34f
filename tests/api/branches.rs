//! Branches of a project: real git branches of the data repository, read and written with
//! `?branch=`, merged key by key into the main line. Each test reads the refs back with the git
//! CLI.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;

const BRANCHES: &str = "/teams/acme/projects/mobile/branches";
const KEYS: &str = "/teams/acme/projects/mobile/keys";
const REF: &str = "refs/heads/locstore/acme/mobile";

async fn app_with_branch(name: &str) -> TestApp {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home"), ("fr", "Accueil")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(BRANCHES, json!({"name": name}))
        .await
        .assert_ok(StatusCode::CREATED);
    app
}

fn rev(app: &TestApp, reference: &str) -> String {
    app.git(&["rev-parse", reference]).trim().to_owned()
}

async fn text_of(app: &TestApp, key: &str, language: &str, branch: Option<&str>) -> Option<String> {
    let query = branch.map(|branch| format!("?branch={branch}")).unwrap_or_default();
    let reply = app.get(&format!("{KEYS}/{key}{query}")).await;
    if reply.status == StatusCode::NOT_FOUND {
        return None;
    }
    let json = reply.assert_ok(StatusCode::OK);
    json["data"]["translation"][language].as_str().map(str::to_owned)
}

async fn set_text(app: &TestApp, key: &str, language: &str, text: &str, branch: Option<&str>) {
    let query = branch.map(|branch| format!("?branch={branch}")).unwrap_or_default();
    app.patch(
        &format!("{KEYS}/{key}{query}"),
        json!({"translations": [{"language": language, "content": text}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
}

async fn merge(app: &TestApp, branch: &str, body: Value) -> (StatusCode, Value) {
    let reply = app.post(&format!("{BRANCHES}/{branch}/merge"), body).await;
    (reply.status, reply.json())
}

#[tokio::test]
async fn a_branch_is_a_ref_at_the_main_line_listed_and_deleted_with_a_tag_that_keeps_it() {
    let app = app_with_branch("feature/login").await;
    let main = rev(&app, "refs/heads/main");
    assert_eq!(rev(&app, &format!("{REF}/feature/login")), main);
    let commits = app.commit_count();

    let list = app.get(BRANCHES).await.assert_ok(StatusCode::OK);
    assert_eq!(list["data"][0]["name"], "feature/login");
    assert_eq!(list["data"][0]["head"], main.as_str());
    assert_eq!(list["data"][0]["ahead"], 0);
    assert_eq!(list["data"][0]["behind"], 0);

    set_text(&app, "home.title", "fr", "Maison", Some("feature%2Flogin")).await;
    app.create_key("main.only", &[], &[("en", "Main")])
        .await
        .assert_ok(StatusCode::CREATED);
    let list = app.get(BRANCHES).await.assert_ok(StatusCode::OK);
    assert_eq!(
        (list["data"][0]["ahead"].as_u64(), list["data"][0]["behind"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        app.commit_count(),
        commits + 1,
        "the branch's commit is not on the main line"
    );

    let head = rev(&app, &format!("{REF}/feature/login"));
    app.delete(&format!("{BRANCHES}/feature%2Flogin"))
        .await
        .assert_ok(StatusCode::OK);
    assert!(app.git(&["for-each-ref", "refs/heads/locstore"]).is_empty());
    let kept = app.git(&[
        "for-each-ref",
        "--format=%(objectname) %(refname)",
        "refs/tags/deleted-branches",
    ]);
    assert!(
        kept.starts_with(&format!("{head} refs/tags/deleted-branches/acme/mobile/feature/login/")),
        "{kept}"
    );
    assert!(
        app.get(BRANCHES).await.assert_ok(StatusCode::OK)["data"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn bad_branch_requests_get_clear_errors_and_change_nothing() {
    let app = app_with_branch("feature").await;
    let refs = app.git(&["for-each-ref"]);
    let existing = app.post(BRANCHES, json!({"name": "feature"})).await;
    assert_eq!(existing.error_code(StatusCode::CONFLICT), "conflict");
    for bad in ["main", "a..b", "x.lock", "-x", "a//b"] {
        let reply = app.post(BRANCHES, json!({"name": bad})).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{bad}");
    }
    let from_nowhere = app
        .post(BRANCHES, json!({"name": "other", "from": "no-such-thing"}))
        .await;
    assert_eq!(from_nowhere.error_code(StatusCode::NOT_FOUND), "not_found");
    let unknown = app.get(&format!("{KEYS}?branch=nope")).await;
    assert_eq!(unknown.error_code(StatusCode::NOT_FOUND), "not_found");
    let unknown_write = app.create_key_on("x", "nope").await;
    assert_eq!(unknown_write.error_code(StatusCode::NOT_FOUND), "not_found");
    let deleted = app.delete(&format!("{BRANCHES}/nope")).await;
    assert_eq!(deleted.error_code(StatusCode::NOT_FOUND), "not_found");
    let no_project = app
        .post("/teams/acme/projects/nope/branches", json!({"name": "b"}))
        .await;
    assert_eq!(no_project.error_code(StatusCode::NOT_FOUND), "not_found");
    assert_eq!(app.git(&["for-each-ref"]), refs);
}

impl TestApp {
    async fn create_key_on(&self, name: &str, branch: &str) -> crate::helpers::Reply {
        self.post(
            &format!("{KEYS}?branch={branch}"),
            json!({"name": name, "translations": [{"language": "en", "content": name}]}),
        )
        .await
    }
}

#[tokio::test]
async fn a_branch_starts_from_a_snapshot_a_commit_or_another_branch() {
    let app = app_with_branch("first").await;
    let then = rev(&app, "refs/heads/main");
    app.post("/teams/acme/projects/mobile/snapshots", json!({"name": "v1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key("later", &[], &[("en", "Later")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key_on("on.first", "first")
        .await
        .assert_ok(StatusCode::CREATED);

    app.post(BRANCHES, json!({"name": "from-snapshot", "from": "v1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(BRANCHES, json!({"name": "from-commit", "from": &then[..10]}))
        .await
        .assert_ok(StatusCode::CREATED);
    let created = app
        .post(BRANCHES, json!({"name": "from-branch", "from": "first"}))
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(rev(&app, &format!("{REF}/from-snapshot")), then);
    assert_eq!(rev(&app, &format!("{REF}/from-commit")), then);
    assert_eq!(
        rev(&app, &format!("{REF}/from-branch")),
        rev(&app, &format!("{REF}/first"))
    );
    assert_eq!(created["data"]["head"], rev(&app, &format!("{REF}/first")).as_str());
    assert_eq!(created["data"]["ahead"], 1);
}

#[tokio::test]
async fn writes_on_a_branch_are_commits_on_it_and_leave_the_main_line_and_working_tree_alone() {
    let app = app_with_branch("feature").await;
    let main = rev(&app, "refs/heads/main");

    app.create_key_on("login.title", "feature")
        .await
        .assert_ok(StatusCode::CREATED);
    set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
    app.call(
        poem::http::Method::DELETE,
        &format!("{KEYS}/login.title?branch=feature"),
        None,
        Some(crate::helpers::ADMIN),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.create_key_on("login.button", "feature")
        .await
        .assert_ok(StatusCode::CREATED);

    assert_eq!(rev(&app, "refs/heads/main"), main, "the main line did not move");
    let log = app.git(&["log", "--format=%s", &format!("{main}..{REF}/feature")]);
    let subjects: Vec<&str> = log.lines().collect();
    assert_eq!(subjects.len(), 4, "{log}");
    assert!(subjects[3].starts_with("Create key"), "{log}");
    assert!(subjects[0].starts_with("Create key"), "{log}");
    assert_eq!(app.clean_status().await, "", "the working tree is the main line's");

    // Reads: the branch sees its changes, the main line does not.
    assert_eq!(
        text_of(&app, "home.title", "fr", Some("feature")).await.as_deref(),
        Some("Maison")
    );
    assert_eq!(
        text_of(&app, "home.title", "fr", None).await.as_deref(),
        Some("Accueil")
    );
    assert_eq!(
        text_of(&app, "home.title", "fr", Some("main")).await.as_deref(),
        Some("Accueil")
    );
    let on_branch = app.key_names("branch=feature").await;
    assert_eq!(on_branch, ["home.title", "login.button"]);
    assert_eq!(app.key_names("").await, ["home.title"]);
    let searched = app.key_names("branch=feature&keyword=maison").await;
    assert_eq!(searched, ["home.title"]);
}

#[tokio::test]
async fn a_branchs_checks_and_stats_are_its_own() {
    let app = app_with_branch("feature").await;
    // A trailing space the base text lacks, on the branch only.
    set_text(&app, "home.title", "fr", "Maison ", Some("feature")).await;
    let failing = |query: &'static str| {
        let app = &app;
        async move {
            let reply = app
                .get(&format!("/teams/acme/projects/mobile/checks{query}"))
                .await
                .assert_ok(StatusCode::OK);
            reply["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| {
                    format!(
                        "{} {} {}",
                        item["key"].as_str().unwrap(),
                        item["language"].as_str().unwrap(),
                        item["check"].as_str().unwrap()
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(failing("?branch=feature").await, ["home.title fr whitespace"]);
    assert!(failing("").await.is_empty());
    assert!(failing("?branch=main").await.is_empty());
    let stats = app
        .get("/teams/acme/projects/mobile/stats?branch=feature")
        .await
        .assert_ok(StatusCode::OK);
    let fr = stats["data"]["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|language| language["language"] == "fr")
        .cloned()
        .unwrap();
    assert_eq!(fr["failing"], 1, "{stats}");
    let reply = app.get("/teams/acme/projects/mobile/checks?branch=nope").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn different_languages_of_one_key_merge_clean_into_one_merge_commit_on_the_main_line() {
    let app = app_with_branch("feature").await;
    set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
    app.create_key_on("login.title", "feature")
        .await
        .assert_ok(StatusCode::CREATED);
    set_text(&app, "home.title", "pt-BR", "Início", None).await;
    let main = rev(&app, "refs/heads/main");
    let branch = rev(&app, &format!("{REF}/feature"));

    let (dry_status, dry) = merge(&app, "feature", json!({"dryRun": true})).await;
    assert_eq!(dry_status, StatusCode::OK, "{dry}");
    assert_eq!(dry["commit"], Value::Null);
    assert_eq!(dry["merged"].as_array().unwrap().len(), 2, "{dry}");
    assert_eq!(rev(&app, "refs/heads/main"), main, "a dry run writes nothing");

    let (status, merged) = merge(&app, "feature", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    let commit = merged["commit"].as_str().unwrap().to_owned();
    assert_eq!(rev(&app, "refs/heads/main"), commit);
    let parents = app.git(&["rev-list", "--parents", "-n1", &commit]);
    assert_eq!(
        parents.split_whitespace().collect::<Vec<_>>(),
        [commit.as_str(), &main, &branch]
    );
    let graph = app.git(&["log", "--graph", "--oneline", "-n5"]);
    assert!(graph.contains("|\\") || graph.contains("|/"), "{graph}");

    assert_eq!(text_of(&app, "home.title", "fr", None).await.as_deref(), Some("Maison"));
    assert_eq!(
        text_of(&app, "home.title", "pt-BR", None).await.as_deref(),
        Some("Início")
    );
    assert_eq!(
        text_of(&app, "login.title", "en", None).await.as_deref(),
        Some("login.title")
    );
    assert_eq!(app.clean_status().await, "", "the working tree follows the merge");
    let list = app.get(BRANCHES).await.assert_ok(StatusCode::OK);
    assert_eq!(list["data"][0]["ahead"], 0);
}

#[tokio::test]
async fn one_text_changed_differently_on_both_sides_is_a_conflict_until_settled() {
    let app = app_with_branch("feature").await;
    set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
    set_text(&app, "home.title", "fr", "Page d'accueil", None).await;
    let main = rev(&app, "refs/heads/main");

    let (status, conflict) = merge(&app, "feature", json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(conflict["success"], false);
    assert_eq!(conflict["error"]["code"], "merge_conflict");
    assert_eq!(
        conflict["conflicts"],
        json!([{"namespace": "", "key": "home.title", "language": "fr",
                "base": "Accueil", "ours": "Page d'accueil", "theirs": "Maison"}])
    );
    assert_eq!(rev(&app, "refs/heads/main"), main, "nothing written");

    let (dry_status, dry) = merge(&app, "feature", json!({"dryRun": true})).await;
    assert_eq!(dry_status, StatusCode::OK);
    assert_eq!(dry["conflicts"].as_array().unwrap().len(), 1);

    let resolutions = json!({"resolutions": [{"key": "home.title", "language": "fr", "content": "Accueil !"}]});
    let (status, merged) = merge(&app, "feature", resolutions).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    assert_eq!(
        text_of(&app, "home.title", "fr", None).await.as_deref(),
        Some("Accueil !")
    );
}

#[tokio::test]
async fn a_strategy_settles_every_conflict_for_one_side() {
    for (strategy, expected) in [("ours", "Page d'accueil"), ("theirs", "Maison")] {
        let app = app_with_branch("feature").await;
        set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
        set_text(&app, "home.title", "fr", "Page d'accueil", None).await;
        let (status, merged) = merge(&app, "feature", json!({"strategy": strategy})).await;
        assert_eq!(status, StatusCode::OK, "{merged}");
        assert_eq!(
            text_of(&app, "home.title", "fr", None).await.as_deref(),
            Some(expected),
            "{strategy}"
        );
    }
}

#[tokio::test]
async fn deleting_a_key_the_other_side_changed_is_a_conflict() {
    let app = app_with_branch("feature").await;
    app.delete(&format!("{KEYS}/home.title"))
        .await
        .assert_ok(StatusCode::OK);
    set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
    let (status, conflict) = merge(&app, "feature", json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(
        conflict["conflicts"],
        json!([{"namespace": "", "key": "home.title", "language": "fr",
                "base": "Accueil", "ours": null, "theirs": "Maison"}])
    );
    let (status, _) = merge(&app, "feature", json!({"strategy": "theirs"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(text_of(&app, "home.title", "fr", None).await.as_deref(), Some("Maison"));
}

#[tokio::test]
async fn a_rename_on_a_branch_merges_as_a_rename() {
    let app = app_with_branch("feature").await;
    app.patch(
        &format!("{KEYS}/home.title?branch=feature"),
        json!({"name": "home.heading"}),
    )
    .await
    .assert_ok(StatusCode::OK);
    set_text(&app, "home.title", "pt-BR", "Início", None).await;
    let (status, merged) = merge(&app, "feature", json!({})).await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a rename against a change of the old key: {merged}"
    );
    let (status, merged) = merge(&app, "feature", json!({"strategy": "theirs"})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    assert_eq!(app.key_names("").await, ["home.heading"]);
    assert_eq!(
        text_of(&app, "home.heading", "fr", None).await.as_deref(),
        Some("Accueil")
    );

    let clean = app_with_branch("feature").await;
    clean
        .patch(
            &format!("{KEYS}/home.title?branch=feature"),
            json!({"name": "home.heading"}),
        )
        .await
        .assert_ok(StatusCode::OK);
    let (status, merged) = merge(&clean, "feature", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    assert_eq!(clean.key_names("").await, ["home.heading"]);
}

#[tokio::test]
async fn a_branch_merges_into_another_branch() {
    let app = app_with_branch("feature").await;
    app.post(BRANCHES, json!({"name": "release"}))
        .await
        .assert_ok(StatusCode::CREATED);
    set_text(&app, "home.title", "fr", "Maison", Some("feature")).await;
    let main = rev(&app, "refs/heads/main");
    let release = rev(&app, &format!("{REF}/release"));
    let (status, merged) = merge(&app, "feature", json!({"into": "release"})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    let commit = merged["commit"].as_str().unwrap();
    assert_eq!(rev(&app, &format!("{REF}/release")), commit);
    assert_eq!(rev(&app, &format!("{commit}^1")), release);
    assert_eq!(rev(&app, "refs/heads/main"), main);
    assert_eq!(
        text_of(&app, "home.title", "fr", Some("release")).await.as_deref(),
        Some("Maison")
    );
    assert_eq!(
        text_of(&app, "home.title", "fr", None).await.as_deref(),
        Some("Accueil")
    );
}

/// The real binary is killed (SIGKILL) while it merges a branch that changes 1,000 keys:
/// after the restart the main line is either before the merge or the whole merge, the
/// served keys agree with it, and the working tree is HEAD's.
#[test]
fn a_kill_9_during_a_merge_leaves_nothing_half_merged() {
    use crate::server::{Server, try_http};
    const TOKEN: &str = "merge-crash-token";
    const COUNT: usize = 1000;
    let dir = tempfile::tempdir().unwrap();
    let env = [("LOCSTORE_API_TOKEN", TOKEN)];
    let server = Server::start_with(dir.path(), &env, &[]);
    let call = |server: &Server, method: &str, path: &str, body: Value| {
        let (status, body) = server.request(method, path, Some(TOKEN), Some(&body.to_string()));
        assert!(status < 300, "{method} {path}: {status} {body}");
    };
    call(&server, "POST", "/teams", json!({"name": "acme", "displayName": "A"}));
    call(
        &server,
        "POST",
        "/teams/acme/projects",
        json!({"name": "mobile", "displayName": "M", "languagesISO": ["en", "fr"]}),
    );
    let keys = |text: &str| -> Value {
        let keys: Vec<Value> = (0..COUNT)
            .map(|index| json!({"name": format!("k{index:05}"), "translations": [{"language": "fr", "content": format!("{text} {index}")}]}))
            .collect();
        json!({"mode": "upsert", "keys": keys})
    };
    call(
        &server,
        "POST",
        "/teams/acme/projects/mobile/keys/import",
        keys("avant"),
    );
    call(&server, "POST", BRANCHES, json!({"name": "big"}));
    call(
        &server,
        "POST",
        "/teams/acme/projects/mobile/keys/import?branch=big",
        keys("après"),
    );
    let repo = dir.path().join("repo");
    let before = crate::helpers::git_in(&repo, &["rev-parse", "main"]).trim().to_owned();

    let base = server.base.clone();
    let merging =
        std::thread::spawn(move || try_http(&format!("{base}{BRANCHES}/big/merge"), "POST", Some(TOKEN), Some("{}")));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    std::thread::sleep(std::time::Duration::from_millis(u64::from(nanos % 1200)));
    let mut server = server;
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
    let _ = merging.join().unwrap();

    crate::helpers::git_in(&repo, &["fsck", "--strict"]);
    let server = Server::start_with(dir.path(), &env, &[]);
    let head = crate::helpers::git_in(&repo, &["rev-parse", "main"]).trim().to_owned();
    let parents = crate::helpers::git_in(&repo, &["rev-list", "--parents", "-n1", &head]);
    let merged = head != before;
    if merged {
        assert_eq!(parents.split_whitespace().nth(1), Some(before.as_str()), "{parents}");
    }
    eprintln!(
        "killed {} the merge",
        if merged { "after" } else { "before the end of" }
    );
    let expected = if merged { "après" } else { "avant" };
    let mut seen = 0;
    for page in 1..=1 {
        let (status, body) = server.request(
            "GET",
            &format!("/teams/acme/projects/mobile/keys?limit=1000&page={page}"),
            Some(TOKEN),
            None,
        );
        assert_eq!(status, 200, "{body}");
        let json: Value = serde_json::from_str(&body).unwrap();
        for key in json["data"].as_array().unwrap() {
            let text = key["translation"]["fr"].as_str().unwrap();
            assert!(text.starts_with(expected), "merged: {merged}, {key}");
            seen += 1;
        }
    }
    assert_eq!(seen, COUNT);
    assert_eq!(
        crate::helpers::git_in(&repo, &["status", "--porcelain"]),
        "",
        "the working tree is HEAD's"
    );
    server.terminate();
}

/// The project's settings merge field by field: languages added on both sides are all kept;
/// a name changed differently on both sides is a conflict (409, nothing written) that a
/// strategy settles.
#[tokio::test]
async fn project_settings_changed_on_both_sides_merge_field_by_field() {
    let app = app_with_branch("feature").await;
    let project = "/teams/acme/projects/mobile";
    let languages = |list: &[&str]| json!({"languagesISO": list});
    app.patch(project, languages(&["en", "fr", "pt-BR", "de"]))
        .await
        .assert_ok(StatusCode::OK);
    app.patch(
        &format!("{project}?branch=feature"),
        languages(&["en", "fr", "pt-BR", "ja"]),
    )
    .await
    .assert_ok(StatusCode::OK);
    let (status, merged) = merge(&app, "feature", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    let settings = app.get(project).await.assert_ok(StatusCode::OK);
    assert_eq!(
        settings["data"]["languagesISO"],
        json!(["en", "fr", "pt-BR", "de", "ja"])
    );

    app.post(BRANCHES, json!({"name": "rename"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(project, json!({"displayName": "Mobile app"}))
        .await
        .assert_ok(StatusCode::OK);
    app.patch(&format!("{project}?branch=rename"), json!({"displayName": "Phone"}))
        .await
        .assert_ok(StatusCode::OK);
    let main = rev(&app, "refs/heads/main");
    let (status, refused) = merge(&app, "rename", json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"]["code"], "merge_conflict");
    assert_eq!(
        refused["settingConflicts"],
        json!([{"field": "displayName", "base": "Mobile", "ours": "Mobile app", "theirs": "Phone"}])
    );
    assert_eq!(refused["conflicts"], json!([]));
    assert_eq!(rev(&app, "refs/heads/main"), main, "nothing written");
    let (status, tried) = merge(&app, "rename", json!({"dryRun": true})).await;
    assert_eq!(status, StatusCode::OK, "{tried}");
    assert_eq!(tried["settingConflicts"][0]["field"], "displayName");
    let (status, merged) = merge(&app, "rename", json!({"strategy": "theirs"})).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    let settings = app.get(project).await.assert_ok(StatusCode::OK);
    assert_eq!(settings["data"]["displayName"], "Phone");
    assert_eq!(
        settings["data"]["languagesISO"],
        json!(["en", "fr", "pt-BR", "de", "ja"])
    );
}

/// A project or team with branches is neither renamed nor deleted (the branches hold it under
/// its name): 409 naming them, nothing written; once they are gone it is.
#[tokio::test]
async fn a_project_with_branches_is_not_renamed_or_deleted_until_they_are_gone() {
    let app = app_with_branch("feature/inbox").await;
    let project = "/teams/acme/projects/mobile";
    let commits = app.commit_count();
    let renamed = app.patch(project, json!({"name": "phone"})).await;
    assert_eq!(renamed.error_code(StatusCode::CONFLICT), "conflict");
    assert!(
        renamed.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("acme/mobile/feature/inbox"),
        "{}",
        renamed.json()
    );
    let deleted = app.delete(project).await;
    assert_eq!(deleted.error_code(StatusCode::CONFLICT), "conflict");
    let team = app.patch("/teams/acme", json!({"name": "acme2"})).await;
    assert_eq!(team.error_code(StatusCode::CONFLICT), "conflict");
    assert_eq!(app.commit_count(), commits, "nothing written");
    // Other settings still change.
    app.patch(project, json!({"displayName": "Phone"}))
        .await
        .assert_ok(StatusCode::OK);

    app.delete(&format!("{BRANCHES}/feature%2Finbox"))
        .await
        .assert_ok(StatusCode::OK);
    app.patch(project, json!({"name": "phone"}))
        .await
        .assert_ok(StatusCode::OK);
    app.get("/teams/acme/projects/phone").await.assert_ok(StatusCode::OK);
}
