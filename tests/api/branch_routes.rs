//! `?branch=` on the project routes beyond the keys: the project, imports, uploads, exports,
//! stats and changes read and write the branch and leave the main line as it is.

use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::TestApp;
use crate::sync::{GitDaemon, spawn_replicating};

const PROJECT: &str = "/teams/acme/projects/mobile";

async fn app_with_branch() -> TestApp {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home"), ("fr", "Accueil")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(&format!("{PROJECT}/branches"), json!({"name": "feature"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app
}

/// The body of a one-language JSON export: `{key: text}`.
async fn exported(app: &TestApp, query: &str) -> serde_json::Value {
    let reply = app
        .get(&format!("{PROJECT}/keys/export?type=json&languages=fr{query}"))
        .await;
    let address = reply.assert_ok(StatusCode::OK)["data"].as_str().unwrap().to_owned();
    let path = address
        .split_once("/exports/")
        .map(|(_, rest)| format!("/exports/{rest}"))
        .unwrap();
    serde_json::from_slice(&app.get(&path).await.body).unwrap()
}

#[tokio::test]
async fn imports_uploads_and_project_settings_change_the_branch_only() {
    let app = app_with_branch().await;
    let main = app.git(&["rev-parse", "main"]);

    let import = json!({"keys": [{"name": "imported", "translations": [{"language": "fr", "content": "Importé"}]}]});
    let reply = app.post(&format!("{PROJECT}/keys/import?branch=feature"), import).await;
    assert_eq!(reply.assert_ok(StatusCode::OK)["created"], 1);
    let upload = r#"{"uploaded": "Envoyé"}"#.as_bytes().to_vec();
    let reply = app
        .post_bytes(
            &format!("{PROJECT}/files?type=json&language=fr&branch=feature"),
            "application/json",
            upload,
        )
        .await;
    assert_eq!(reply.assert_ok(StatusCode::OK)["created"], 1);
    app.patch(
        &format!("{PROJECT}?branch=feature"),
        json!({"languagesISO": ["en", "fr", "pt-BR", "de"]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let renamed = app
        .patch(&format!("{PROJECT}?branch=feature"), json!({"name": "other"}))
        .await;
    assert_eq!(renamed.error_code(StatusCode::BAD_REQUEST), "invalid_request");

    assert_eq!(app.git(&["rev-parse", "main"]), main, "the main line did not move");
    let on_branch = app
        .get(&format!("{PROJECT}?branch=feature"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(on_branch["data"]["languagesISO"], json!(["en", "fr", "pt-BR", "de"]));
    let on_main = app.get(PROJECT).await.assert_ok(StatusCode::OK);
    assert_eq!(on_main["data"]["languagesISO"], json!(["en", "fr", "pt-BR"]));

    assert_eq!(
        exported(&app, "&branch=feature").await,
        json!({"home.title": "Accueil", "imported": "Importé", "uploaded": "Envoyé"})
    );
    assert_eq!(exported(&app, "").await, json!({"home.title": "Accueil"}));

    let stats = app
        .get(&format!("{PROJECT}/stats?branch=feature"))
        .await
        .assert_ok(StatusCode::OK);
    let fr = stats["data"]["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == "fr")
        .unwrap()
        .clone();
    assert_eq!(fr["translated"], 3, "{stats}");

    let changes = app
        .get(&format!("{PROJECT}/changes?since={}&branch=feature", main.trim()))
        .await
        .assert_ok(StatusCode::OK);
    let names: Vec<&str> = changes["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["imported", "uploaded"]);
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn at_and_branch_together_are_refused() {
    let app = app_with_branch().await;
    let reply = app.get(&format!("{PROJECT}/keys?branch=feature&at=HEAD")).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}

const FEATURE_REF: &str = "refs/heads/locstore/acme/mobile/feature";

/// A server replicating to `daemon`'s remote, with the key `home.title` and the branch
/// `feature`, where its French was changed.
async fn replicated_branch(daemon: &GitDaemon) -> TestApp {
    let app = spawn_replicating(daemon, std::time::Duration::from_millis(300)).await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home"), ("fr", "Accueil")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(&format!("{PROJECT}/branches"), json!({"name": "feature"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("{PROJECT}/keys/home.title?branch=feature"),
        json!({"translations": [{"language": "fr", "content": "Maison"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app
}

/// The commit `reference` names in the daemon's remote (empty when none).
fn remote_commit(daemon: &GitDaemon, reference: &str) -> String {
    let output = crate::helpers::hermetic_git(&daemon.bare())
        .args(["rev-parse", "--verify", "-q", reference])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// Waits until the remote holds the branch `feature` and the main line as the server does.
async fn on_the_remote(app: &TestApp, daemon: &GitDaemon) {
    let (head, main) = (
        app.git(&["rev-parse", FEATURE_REF]),
        app.git(&["rev-parse", "refs/heads/main"]),
    );
    for _ in 0..100 {
        if remote_commit(daemon, FEATURE_REF) == head && remote_commit(daemon, "refs/heads/main") == main {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        remote_commit(daemon, FEATURE_REF),
        head,
        "the branch reached the remote"
    );
    assert_eq!(
        remote_commit(daemon, "refs/heads/main"),
        main,
        "the main line reached the remote"
    );
}

/// A branch is pushed to the remote beside the main line; merged there with `git merge` (a
/// pull request merged on the git host), it comes back as any commit does.
#[tokio::test]
async fn a_branch_pushed_to_the_remote_and_merged_there_comes_back_to_the_main_line() {
    use crate::helpers::git_in;
    use std::time::Duration;

    let daemon = GitDaemon::start();
    let app = replicated_branch(&daemon).await;
    app.post(
        &format!("{PROJECT}/keys?branch=feature"),
        json!({"name": "login.title", "translations": [{"language": "en", "content": "Log in"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    // Both the branch and the main line's newest commit: a clone taken before the main line
    // arrives would be refused its push of the merge.
    on_the_remote(&app, &daemon).await;

    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    git_in(
        &clone,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "Merge pull request: feature",
            "origin/locstore/acme/mobile/feature",
        ],
    );
    git_in(&clone, &["push", "-q", "origin", "main"]);
    let merged = git_in(&clone, &["rev-parse", "HEAD"]);

    for _ in 0..100 {
        if app.git(&["rev-parse", "main"]) == merged {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        app.git(&["rev-parse", "main"]),
        merged,
        "fetched back as a fast-forward"
    );
    let key = app
        .get(&format!("{PROJECT}/keys/home.title"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "Maison");
    app.get(&format!("{PROJECT}/keys/login.title"))
        .await
        .assert_ok(StatusCode::OK);
    let list = app.get(&format!("{PROJECT}/branches")).await.assert_ok(StatusCode::OK);
    assert_eq!(list["data"][0]["ahead"], 0, "the main line holds the branch");
}

/// The commit ids of a page of `history` answers.
fn commits_of(reply: &serde_json::Value) -> Vec<String> {
    reply["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["commit"].as_str().unwrap().to_owned())
        .collect()
}

/// A branch's history is its own commits, then the main line's before the branch left it:
/// what `git log --first-parent` of the branch's ref shows, renames followed; a commit made
/// on the main line since is not in it.
#[tokio::test]
async fn key_history_and_activity_on_a_branch_are_the_branchs_line() {
    let app = app_with_branch().await;
    let keys = format!("{PROJECT}/keys");
    app.patch(
        &format!("{keys}/home.title?branch=feature"),
        json!({"translations": [{"language": "fr", "content": "Maison"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch(
        &format!("{keys}/home.title?branch=feature"),
        json!({"name": "home.heading"}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch(
        &format!("{keys}/home.title"),
        json!({"translations": [{"language": "en", "content": "Start"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let branch_ref = "refs/heads/locstore/acme/mobile/feature";
    let log = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["log", "--first-parent", "--format=%H"];
        full.extend_from_slice(args);
        app.git(&full).lines().map(str::to_owned).collect()
    };

    let history = app
        .get(&format!("{keys}/home.heading/history?branch=feature"))
        .await
        .assert_ok(StatusCode::OK);
    let changes: Vec<&str> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["renamed", "updated", "created"], "{history}");
    assert_eq!(history["data"][0]["key"]["name"], "home.heading");
    assert_eq!(history["data"][1]["key"]["translation"]["fr"], "Maison");
    assert_eq!(history["data"][2]["key"]["translation"]["fr"], "Accueil");
    let expected = log(&[branch_ref, "--", "teams/acme/projects/mobile/keys"]);
    assert_eq!(commits_of(&history), expected);

    let on_main = app
        .get(&format!("{keys}/home.title/history"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(on_main["data"][0]["key"]["translation"]["en"], "Start");
    assert_eq!(on_main["data"].as_array().unwrap().len(), 2, "{on_main}");
    let missing = app.get(&format!("{keys}/home.heading/history")).await;
    assert_eq!(missing.error_code(StatusCode::NOT_FOUND), "not_found");

    let activity = app
        .get(&format!("{PROJECT}/history?branch=feature&limit=1000"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        commits_of(&activity),
        log(&[branch_ref, "--", "teams/acme/projects/mobile"])
    );
    assert_eq!(activity["data"][0]["keys"], 2, "a rename deletes one file and adds one");
    let main_activity = app
        .get(&format!("{PROJECT}/history?limit=1000"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        commits_of(&main_activity),
        log(&["main", "--", "teams/acme/projects/mobile"])
    );

    let unknown = app.get(&format!("{PROJECT}/history?branch=nope")).await;
    assert_eq!(unknown.error_code(StatusCode::NOT_FOUND), "not_found");
    let unknown = app.get(&format!("{keys}/home.title/history?branch=nope")).await;
    assert_eq!(unknown.error_code(StatusCode::NOT_FOUND), "not_found");
}

/// The checks a write answers, as `key language check`.
fn failing_checks(answer: &serde_json::Value) -> Vec<String> {
    answer["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|warning| warning["check"].is_string())
        .map(|warning| format!("{} {} {}", warning["key"], warning["language"], warning["check"]).replace('"', ""))
        .collect()
}

/// Writes on a branch answer the failing checks of the keys they wrote, judged as the branch
/// holds them; an upload's dry run on a branch is planned on the branch and writes nothing.
#[tokio::test]
async fn writes_on_a_branch_answer_its_checks_and_an_upload_tries_there() {
    let app = app_with_branch().await;
    let keys = format!("{PROJECT}/keys");
    // The branch's English gains a placeholder the French lacks; the main line's does not.
    let patched = app
        .patch(
            &format!("{keys}/home.title?branch=feature"),
            json!({"translations": [{"language": "en", "content": "Home of %s"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(failing_checks(&patched), ["home.title fr placeholders"], "{patched}");
    let on_main = app
        .patch(
            &format!("{keys}/home.title"),
            json!({"translations": [{"language": "fr", "content": "Page d’accueil"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(failing_checks(&on_main), Vec::<String>::new(), "{on_main}");
    let created = app
        .post(
            &format!("{keys}?branch=feature"),
            json!({"name": "greeting", "translations": [{"language": "en", "content": "Hello, {name}!"}, {"language": "fr", "content": "Bonjour !"}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(failing_checks(&created), ["greeting fr placeholders"]);
    let imported = app
        .post(
            &format!("{keys}/import?branch=feature"),
            json!({"keys": [{"name": "bye", "translations": [{"language": "en", "content": "Bye %d"}, {"language": "fr", "content": "Salut"}]}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(failing_checks(&imported), ["bye fr placeholders"]);

    let head = app.git(&["rev-parse", "refs/heads/locstore/acme/mobile/feature"]);
    let upload = br#"{"home.title": "Accueil de %s", "farewell": "Adieu"}"#.to_vec();
    let tried = app
        .post_bytes(
            &format!("{PROJECT}/files?type=json&language=fr&branch=feature&dryRun=true"),
            "application/json",
            upload.clone(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(tried["dryRun"], true);
    assert_eq!(
        (tried["created"].as_u64(), tried["updated"].as_u64()),
        (Some(1), Some(1)),
        "{tried}"
    );
    assert_eq!(app.git(&["rev-parse", "refs/heads/locstore/acme/mobile/feature"]), head);
    let missing = app.get(&format!("{keys}/farewell?branch=feature")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    // On the main line the same file finds the main line's keys.
    let on_main = app
        .post_bytes(
            &format!("{PROJECT}/files?type=json&language=fr&dryRun=true"),
            "application/json",
            upload.clone(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        (on_main["created"].as_u64(), on_main["updated"].as_u64()),
        (Some(1), Some(1))
    );
    let uploaded = app
        .post_bytes(
            &format!("{PROJECT}/files?type=json&language=fr&branch=feature"),
            "application/json",
            upload,
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(failing_checks(&uploaded), Vec::<String>::new(), "{uploaded}");
    let unknown = app
        .post_bytes(
            &format!("{PROJECT}/files?type=json&language=fr&branch=nope&dryRun=true"),
            "application/json",
            b"{}".to_vec(),
        )
        .await;
    assert_eq!(unknown.error_code(StatusCode::NOT_FOUND), "not_found");
    assert_eq!(app.clean_status().await, "");
}

/// A commit pushed onto a project branch on the git host (a fix made in the pull request) is
/// taken by the primary at its next fetch: the branch moves forward to it. One whose files are
/// invalid is not taken, and the replication status says why.
#[tokio::test]
async fn commits_pushed_to_a_branch_on_the_remote_are_taken_by_the_primary() {
    use crate::helpers::git_in;
    use std::time::Duration;

    let daemon = GitDaemon::start();
    let app = replicated_branch(&daemon).await;
    let reference = FEATURE_REF;
    on_the_remote(&app, &daemon).await;

    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    git_in(
        &clone,
        &["switch", "-q", "-c", "fix", "origin/locstore/acme/mobile/feature"],
    );
    let file = git_in(&clone, &["ls-files", "teams/acme/projects/mobile/keys"])
        .lines()
        .find(|path| path.contains("home.title"))
        .unwrap()
        .to_owned();
    let path = clone.join(&file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("Maison"), "{text}");
    std::fs::write(&path, text.replace("Maison", "Foyer")).unwrap();
    git_in(&clone, &["commit", "-qam", "A reviewer's fix"]);
    git_in(&clone, &["push", "-q", "origin", "HEAD:locstore/acme/mobile/feature"]);
    let fixed = git_in(&clone, &["rev-parse", "HEAD"]);
    for _ in 0..100 {
        if app.git(&["rev-parse", reference]) == fixed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(app.git(&["rev-parse", reference]), fixed, "the branch moved to the fix");
    let key = app
        .get(&format!("{PROJECT}/keys/home.title?branch=feature"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "Foyer");
    let on_main = app
        .get(&format!("{PROJECT}/keys/home.title"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(on_main["data"]["translation"]["fr"], "Accueil");

    // An invalid file is not taken.
    std::fs::write(&path, "this is [not a key").unwrap();
    git_in(&clone, &["commit", "-qam", "A broken file"]);
    git_in(&clone, &["push", "-q", "origin", "HEAD:locstore/acme/mobile/feature"]);
    let mut error = String::new();
    for _ in 0..100 {
        let sync = app.get("/sync").await.assert_ok(StatusCode::OK);
        error = sync["lastError"].as_str().unwrap_or_default().to_owned();
        if error.contains("not taken") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(error.contains("locstore/acme/mobile/feature"), "{error}");
    assert_eq!(app.git(&["rev-parse", reference]), fixed, "the branch stays at the fix");
    // A write on the branch still works; the status says the branch moved on both sides.
    app.patch(
        &format!("{PROJECT}/keys/home.title?branch=feature"),
        json!({"translations": [{"language": "en", "content": "Start"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(app.clean_status().await, "");
}
