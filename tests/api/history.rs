//! Git-native reads: the commit behind every answer, conditional requests, reads of the past.

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Reply, TestApp};

const KEYS: &str = "/teams/acme/projects/mobile/keys";

fn head(app: &TestApp) -> String {
    app.git(&["rev-parse", "HEAD"]).trim().to_owned()
}

#[tokio::test]
async fn every_answer_names_the_commit_it_made_or_read() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let created = app.create_key("title", &[], &[("en", "Title")]).await;
    created.assert_ok(StatusCode::CREATED);
    let made = created.header("x-locstore-commit").to_owned();
    assert_eq!(made, head(&app), "a change names the commit it made");

    for path in ["/teams", "/teams/acme/projects/mobile", &format!("{KEYS}/title"), KEYS] {
        let reply = app.get(path).await;
        assert_eq!(reply.header("x-locstore-commit"), made, "{path}");
    }
    // A change that changes nothing makes no commit and names none.
    let same = app
        .patch(
            &format!("{KEYS}/title"),
            json!({"translations": [{"language": "en", "content": "Title"}]}),
        )
        .await;
    same.assert_ok(StatusCode::OK);
    assert!(same.headers.get("x-locstore-commit").is_none(), "{:?}", same.headers);
    assert_eq!(head(&app), made);

    let changed = app
        .patch(
            &format!("{KEYS}/title"),
            json!({"translations": [{"language": "en", "content": "Heading"}]}),
        )
        .await;
    let second = changed.header("x-locstore-commit").to_owned();
    assert_ne!(second, made);
    assert_eq!(second, head(&app));
    // An export at the first commit names it.
    let export = app
        .get(&format!("{KEYS}/export?type=json&languages=en&at={made}"))
        .await;
    assert_eq!(export.header("x-locstore-commit"), made);
}

impl TestApp {
    /// Sends a request with one extra header (and the admin token).
    async fn with_header(
        &self,
        method: Method,
        path: &str,
        header: (&str, &str),
        body: Option<serde_json::Value>,
    ) -> Reply {
        let mut request = self
            .client
            .request(method, path)
            .header("X-Api-Token", crate::helpers::ADMIN)
            .header(header.0, header.1);
        if let Some(body) = body {
            request = request.body_json(&body);
        }
        crate::helpers::into_reply(request.send().await).await
    }
}

#[tokio::test]
async fn reads_answer_an_etag_and_304_while_it_still_holds() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &[], &[("en", "Title")])
        .await
        .assert_ok(StatusCode::CREATED);
    let reads = [
        "/teams/acme/projects/mobile".to_owned(),
        format!("{KEYS}/title"),
        format!("{KEYS}?keyword=tit&limit=5"),
        format!("{KEYS}/export?type=json&languages=en"),
    ];
    let mut tags = Vec::new();
    for path in &reads {
        let reply = app.get(path).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        let tag = reply.header("etag").to_owned();
        let again = app.with_header(Method::GET, path, ("If-None-Match", &tag), None).await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{path}");
        assert!(again.body.is_empty(), "{path}");
        assert_eq!(again.header("etag"), tag);
        let other = app
            .with_header(Method::GET, path, ("If-None-Match", "\"other\""), None)
            .await;
        assert_eq!(other.status, StatusCode::OK, "{path}");
        tags.push(tag);
    }
    // A change of the key changes the tags of the key, the query and the export, not the
    // project's.
    app.patch(&format!("{KEYS}/title"), json!({"tags": ["new"]}))
        .await
        .assert_ok(StatusCode::OK);
    for (path, old) in reads.iter().zip(&tags) {
        let reply = app.with_header(Method::GET, path, ("If-None-Match", old), None).await;
        let expected = if path.ends_with("/mobile") {
            StatusCode::NOT_MODIFIED
        } else {
            StatusCode::OK
        };
        assert_eq!(reply.status, expected, "{path}");
    }
}

#[tokio::test]
async fn if_match_refuses_a_stale_change_of_a_team_project_or_key() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &[], &[("en", "Title")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = format!("{KEYS}/title");
    let fresh = app.get(&key).await.header("etag").to_owned();
    let project = "/teams/acme/projects/mobile";
    let project_tag = app.get(project).await.header("etag").to_owned();

    // The key changes under the client's feet.
    app.patch(&key, json!({"tags": ["x"]})).await.assert_ok(StatusCode::OK);
    let commits = app.commit_count();
    let stale = [
        (Method::PATCH, key.clone(), Some(json!({"tags": ["mine"]}))),
        (Method::DELETE, key.clone(), None),
    ];
    for (method, path, body) in stale {
        let reply = app.with_header(method.clone(), &path, ("If-Match", &fresh), body).await;
        assert_eq!(
            reply.error_code(StatusCode::PRECONDITION_FAILED),
            "precondition_failed",
            "{method} {path}"
        );
    }
    assert_eq!(app.commit_count(), commits, "a refused change commits nothing");

    // With the current tag the change goes through, and `*` matches any existing key.
    let current = app.get(&key).await.header("etag").to_owned();
    app.with_header(
        Method::PATCH,
        &key,
        ("If-Match", &current),
        Some(json!({"tags": ["mine"]})),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.with_header(Method::PATCH, &key, ("If-Match", "*"), Some(json!({"tags": ["star"]})))
        .await
        .assert_ok(StatusCode::OK);

    // Projects and teams too.
    app.patch(project, json!({"displayName": "Renamed"}))
        .await
        .assert_ok(StatusCode::OK);
    let reply = app
        .with_header(
            Method::PATCH,
            project,
            ("If-Match", &project_tag),
            Some(json!({"displayName": "Mine"})),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::PRECONDITION_FAILED), "precondition_failed");
    let reply = app
        .with_header(Method::DELETE, project, ("If-Match", &project_tag), None)
        .await;
    assert_eq!(reply.error_code(StatusCode::PRECONDITION_FAILED), "precondition_failed");
    let reply = app
        .with_header(Method::DELETE, "/teams/acme", ("If-Match", "\"not-the-tag\""), None)
        .await;
    assert_eq!(reply.error_code(StatusCode::PRECONDITION_FAILED), "precondition_failed");
    assert_eq!(
        app.get(project).await.assert_ok(StatusCode::OK)["data"]["displayName"],
        "Renamed"
    );
}

/// Two editors read the same key and both save: one wins, the other is told, and the key
/// holds the winner's text.
#[tokio::test]
async fn of_two_concurrent_editors_with_the_same_tag_one_wins_and_one_gets_412() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &[], &[("en", "Title")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = format!("{KEYS}/title");
    for round in 0..10 {
        let tag = app.get(&key).await.header("etag").to_owned();
        let edit = |text: String| {
            let (app, key, tag) = (&app, &key, &tag);
            async move {
                let body = json!({"translations": [{"language": "en", "content": text}]});
                (
                    text,
                    app.with_header(Method::PATCH, key, ("If-Match", tag), Some(body)).await,
                )
            }
        };
        let (first, second) = tokio::join!(edit(format!("A{round}")), edit(format!("B{round}")));
        let statuses = [first.1.status, second.1.status];
        assert!(
            statuses.contains(&StatusCode::OK) && statuses.contains(&StatusCode::PRECONDITION_FAILED),
            "{statuses:?}"
        );
        let winner = if first.1.status == StatusCode::OK {
            &first.0
        } else {
            &second.0
        };
        assert_eq!(app.get(&key).await.json()["data"]["translation"]["en"], winner.as_str());
    }
}

/// `at=` reads a project, a key and the key query (keyword, paging, sort) as a past commit,
/// an abbreviated one or a time holds them.
#[tokio::test]
async fn reads_at_a_past_commit_see_the_state_of_then() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for index in 0..5 {
        app.create_key(&format!("k{index}"), &[], &[("en", &format!("old {index}"))])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let then = head(&app);
    let then_time = app
        .git(&["log", "-1", "--format=%cI", &then])
        .trim()
        .replace('+', "%2B");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    app.patch(
        &format!("{KEYS}/k1"),
        json!({"translations": [{"language": "en", "content": "new 1"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/k2")).await.assert_ok(StatusCode::OK);
    app.create_key("k9", &[], &[("en", "new 9")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch("/teams/acme/projects/mobile", json!({"displayName": "Renamed"}))
        .await
        .assert_ok(StatusCode::OK);

    for at in [then.clone(), then[..8].to_owned(), then_time.clone()] {
        let key = app.get(&format!("{KEYS}/k1?at={at}")).await;
        assert_eq!(
            key.assert_ok(StatusCode::OK)["data"]["translation"]["en"],
            "old 1",
            "{at}"
        );
        assert_eq!(key.header("x-locstore-commit"), then);
        app.get(&format!("{KEYS}/k2?at={at}")).await.assert_ok(StatusCode::OK);
        app.get(&format!("{KEYS}/k9?at={at}"))
            .await
            .error_code(StatusCode::NOT_FOUND);
        let project = app.get(&format!("/teams/acme/projects/mobile?at={at}")).await;
        assert_eq!(project.assert_ok(StatusCode::OK)["data"]["displayName"], "Mobile");

        let page = app
            .get(&format!("{KEYS}?at={at}&keyword=OLD&limit=2&page=2&sort=desc"))
            .await;
        assert_eq!(page.header("x-pagination-total-count"), "5");
        let names: Vec<String> = page.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|key| key["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["k2", "k1"], "{at}");
    }
    // Now: k2 is gone, k9 is there.
    let now = app.get(&format!("{KEYS}?keyword=new")).await;
    assert_eq!(now.header("x-pagination-total-count"), "2");

    for (at, status) in [
        ("1970-01-01T00:00:00Z", StatusCode::NOT_FOUND),
        ("0123456789abcdef", StatusCode::NOT_FOUND),
        ("bad ref!", StatusCode::BAD_REQUEST),
    ] {
        let at = at.replace(' ', "%20");
        app.get(&format!("{KEYS}/k1?at={at}")).await.error_code(status);
        app.get(&format!("{KEYS}?at={at}")).await.error_code(status);
        app.get(&format!("/teams/acme/projects/mobile?at={at}"))
            .await
            .error_code(status);
    }
}

const SNAPSHOTS: &str = "/teams/acme/projects/mobile/snapshots";

fn names(reply: &serde_json::Value) -> Vec<String> {
    reply["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn snapshots_are_taken_listed_read_restored_and_deleted() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &["ui"], &[("en", "Title"), ("fr", "Titre")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key("gone", &[], &[("en", "Gone later")])
        .await
        .assert_ok(StatusCode::CREATED);
    let then = head(&app);
    let commits = app.commit_count();
    app.post(SNAPSHOTS, json!({"name": "v1.0", "description": "First release"}))
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(app.commit_count(), commits, "a snapshot is a tag, not a commit");
    assert_eq!(app.git(&["tag", "-l"]).trim(), "locstore/acme/mobile/v1.0");
    assert_eq!(
        app.git(&["cat-file", "-t", "locstore/acme/mobile/v1.0"]).trim(),
        "tag",
        "annotated"
    );

    let list = app.get(SNAPSHOTS).await.assert_ok(StatusCode::OK);
    let item = &list["data"][0];
    assert_eq!(
        (&item["name"], &item["description"], &item["commit"]),
        (&json!("v1.0"), &json!("First release"), &json!(then))
    );
    assert!(item["time"].as_str().unwrap().ends_with('Z'), "{item}");
    assert!(!item["author"].as_str().unwrap().is_empty());

    // Refused: a taken name, a bad name, an unknown project.
    app.post(SNAPSHOTS, json!({"name": "v1.0"}))
        .await
        .error_code(StatusCode::CONFLICT);
    app.post(SNAPSHOTS, json!({"name": "no spaces"}))
        .await
        .error_code(StatusCode::BAD_REQUEST);
    app.post("/teams/acme/projects/nope/snapshots", json!({"name": "x"}))
        .await
        .error_code(StatusCode::NOT_FOUND);

    // Later changes: one key changed, one deleted, one added, the settings changed.
    app.patch(
        &format!("{KEYS}/title"),
        json!({"translations": [{"language": "fr", "content": "Titre 2"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/gone")).await.assert_ok(StatusCode::OK);
    app.create_key("added", &[], &[("en", "Added")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch("/teams/acme/projects/mobile", json!({"displayName": "Changed"}))
        .await
        .assert_ok(StatusCode::OK);
    app.post(SNAPSHOTS, json!({"name": "v1.1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(
        names(&app.get(SNAPSHOTS).await.json()),
        ["v1.1", "v1.0"],
        "newest first"
    );

    // Reads and exports at the snapshot.
    let key = app.get(&format!("{KEYS}/title?at=v1.0")).await;
    assert_eq!(key.assert_ok(StatusCode::OK)["data"]["translation"]["fr"], "Titre");
    let export = app.get(&format!("{KEYS}/export?type=json&languages=en&at=v1.0")).await;
    assert_eq!(export.header("x-locstore-commit"), then);

    // Restore: exactly one commit, and the project is as it was.
    let commits = app.commit_count();
    let restored = app.post(&format!("{SNAPSHOTS}/v1.0/restore"), json!({})).await;
    restored.assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1);
    assert_eq!(restored.header("x-locstore-commit"), head(&app));
    let page = app.get(KEYS).await.assert_ok(StatusCode::OK);
    assert_eq!(names(&page), ["gone", "title"], "the key added later is removed");
    assert_eq!(page["data"][1]["translation"]["fr"], "Titre");
    assert_eq!(
        app.get("/teams/acme/projects/mobile").await.json()["data"]["displayName"],
        "Mobile"
    );
    assert_eq!(
        app.git(&["diff", "--stat", &then, "HEAD", "--", "teams"]).trim(),
        "",
        "the tree of the project is the snapshot's"
    );
    // Restoring again changes nothing and makes no commit.
    app.post(&format!("{SNAPSHOTS}/v1.0/restore"), json!({}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1);
    app.post(&format!("{SNAPSHOTS}/nope/restore"), json!({}))
        .await
        .error_code(StatusCode::NOT_FOUND);

    app.delete(&format!("{SNAPSHOTS}/v1.1")).await.assert_ok(StatusCode::OK);
    app.delete(&format!("{SNAPSHOTS}/v1.1"))
        .await
        .error_code(StatusCode::NOT_FOUND);
    assert_eq!(names(&app.get(SNAPSHOTS).await.json()), ["v1.0"]);
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn snapshots_follow_renames_survive_restarts_and_go_with_deletions() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &[], &[("en", "Title")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(SNAPSHOTS, json!({"name": "v1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("{KEYS}/title"),
        json!({"translations": [{"language": "en", "content": "New"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);

    // The project and then its team are renamed: the snapshot goes along and still reads.
    app.patch("/teams/acme/projects/mobile", json!({"name": "app"}))
        .await
        .assert_ok(StatusCode::OK);
    app.patch("/teams/acme", json!({"name": "corp"}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.git(&["tag", "-l"]).trim(), "locstore/corp/app/v1");
    let moved = "/teams/corp/projects/app";
    assert_eq!(names(&app.get(&format!("{moved}/snapshots")).await.json()), ["v1"]);
    let key = app.get(&format!("{moved}/keys/title?at=v1")).await;
    assert_eq!(key.assert_ok(StatusCode::OK)["data"]["translation"]["en"], "Title");

    // A restart keeps it, and a restore after the renames writes the new folders.
    let dir = app.stop().await;
    let app = TestApp::spawn_in(dir).await;
    app.post(&format!("{moved}/snapshots/v1/restore"), json!({}))
        .await
        .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{moved}/keys/title")).await;
    assert_eq!(key.assert_ok(StatusCode::OK)["data"]["translation"]["en"], "Title");
    assert!(
        app.git(&["ls-files", "teams/acme"]).trim().is_empty(),
        "nothing under the old name"
    );

    // Deleting the project deletes its snapshots.
    app.delete(moved).await.assert_ok(StatusCode::OK);
    assert_eq!(app.git(&["tag", "-l"]).trim(), "");
}

#[tokio::test]
async fn changes_list_the_keys_created_updated_deleted_and_renamed_between_two_states() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for name in ["same", "edited", "removed", "old.name"] {
        app.create_key(name, &["t"], &[("en", &format!("text of {name}"))])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let since = head(&app);
    app.patch(
        &format!("{KEYS}/edited"),
        json!({"translations": [{"language": "en", "content": "new"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/removed")).await.assert_ok(StatusCode::OK);
    app.patch(&format!("{KEYS}/old.name"), json!({"name": "new.name"}))
        .await
        .assert_ok(StatusCode::OK);
    app.create_key("added", &[], &[("en", "Added")])
        .await
        .assert_ok(StatusCode::CREATED);
    // Created and deleted in between: not a change between the two states.
    app.create_key("ephemeral", &[], &[("en", "x")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.delete(&format!("{KEYS}/ephemeral")).await.assert_ok(StatusCode::OK);
    let until = head(&app);

    let reply = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={since}"))
        .await;
    let page = reply.assert_ok(StatusCode::OK);
    assert_eq!(reply.header("x-locstore-commit"), until);
    assert_eq!(reply.header("x-pagination-total-count"), "4");
    assert_eq!(
        page["data"],
        json!([
            {"name": "added", "namespace": "", "change": "created"},
            {"name": "edited", "namespace": "", "change": "updated"},
            {"name": "new.name", "namespace": "", "change": "renamed", "from": "old.name", "fromNamespace": ""},
            {"name": "removed", "namespace": "", "change": "deleted"},
        ])
    );
    // Paged, and the other way round.
    let second = app
        .get(&format!(
            "/teams/acme/projects/mobile/changes?since={since}&limit=3&page=2"
        ))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        second["data"],
        json!([{"name": "removed", "namespace": "", "change": "deleted"}])
    );
    let back = app
        .get(&format!(
            "/teams/acme/projects/mobile/changes?since={until}&until={}",
            &since[..10]
        ))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        back["data"],
        json!([
            {"name": "added", "namespace": "", "change": "deleted"},
            {"name": "edited", "namespace": "", "change": "updated"},
            {"name": "old.name", "namespace": "", "change": "renamed", "from": "new.name", "fromNamespace": ""},
            {"name": "removed", "namespace": "", "change": "created"},
        ])
    );
    // Nothing changed since now; unknown and malformed states.
    let none = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={until}"))
        .await;
    assert_eq!(none.assert_ok(StatusCode::OK)["data"], json!([]));
    app.get("/teams/acme/projects/mobile/changes?since=0000000")
        .await
        .error_code(StatusCode::NOT_FOUND);
    app.get("/teams/acme/projects/mobile/changes?since=bad%20ref")
        .await
        .error_code(StatusCode::BAD_REQUEST);
}

fn changes_of(reply: &serde_json::Value) -> Vec<(String, Option<String>)> {
    reply["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            (
                event["change"].as_str().unwrap().to_owned(),
                event["key"]["name"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_keys_history_follows_updates_renames_deletion_and_re_creation() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("a", &[], &[("en", "one")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("{KEYS}/a"),
        json!({"translations": [{"language": "en", "content": "two"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch(&format!("{KEYS}/a"), json!({"name": "b"}))
        .await
        .assert_ok(StatusCode::OK);
    // A rename that also changes the text is followed too.
    app.patch(
        &format!("{KEYS}/b"),
        json!({"name": "c", "translations": [{"language": "en", "content": "three"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.create_key("other", &[], &[("en", "unrelated")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(&format!("{KEYS}/c"), json!({"name": "a"}))
        .await
        .assert_ok(StatusCode::OK);

    let history = app.get(&format!("{KEYS}/a/history")).await;
    let page = history.assert_ok(StatusCode::OK);
    assert_eq!(history.header("x-pagination-total-count"), "5");
    assert_eq!(
        changes_of(&page),
        [
            ("renamed".to_owned(), Some("a".to_owned())),
            ("renamed".to_owned(), Some("c".to_owned())),
            ("renamed".to_owned(), Some("b".to_owned())),
            ("updated".to_owned(), Some("a".to_owned())),
            ("created".to_owned(), Some("a".to_owned())),
        ]
    );
    let newest = &page["data"][0];
    assert_eq!(newest["commit"], head(&app));
    assert_eq!(newest["key"]["translation"]["en"], "three");
    assert!(newest["subject"].as_str().unwrap().contains("Rename"), "{newest}");
    assert!(newest["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(page["data"][4]["key"]["translation"]["en"], "one");

    // Deleted, then created again under the same name.
    app.delete(&format!("{KEYS}/a")).await.assert_ok(StatusCode::OK);
    app.create_key("a", &[], &[("en", "again")])
        .await
        .assert_ok(StatusCode::CREATED);
    let page = app.get(&format!("{KEYS}/a/history?limit=3")).await;
    assert_eq!(page.header("x-pagination-total-count"), "7");
    let page = page.json();
    assert_eq!(
        changes_of(&page),
        [
            ("created".to_owned(), Some("a".to_owned())),
            ("deleted".to_owned(), None),
            ("renamed".to_owned(), Some("a".to_owned())),
        ]
    );
    assert_eq!(page["data"][1]["key"], serde_json::Value::Null);

    app.get(&format!("{KEYS}/never/history"))
        .await
        .error_code(StatusCode::NOT_FOUND);
    app.get("/teams/acme/projects/nope/keys/a/history")
        .await
        .error_code(StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn project_activity_lists_the_commits_that_changed_it_newest_first() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        "/teams/acme/projects",
        json!({"name": "web", "displayName": "Web", "languagesISO": ["en"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    for index in 0..3 {
        app.create_key(&format!("k{index}"), &[], &[("en", "x")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    app.post(
        "/teams/acme/projects/web/keys",
        json!({"name": "elsewhere", "translations": [{"language": "en", "content": "x"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects/mobile/keys/import",
        json!({"keys": [{"name": "i1"}, {"name": "i2"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);

    let reply = app.get("/teams/acme/projects/mobile/history?limit=2").await;
    let page = reply.assert_ok(StatusCode::OK);
    // The project's creation, three creates, the import; not the other project's commit.
    assert_eq!(reply.header("x-pagination-total-count"), "5");
    assert_eq!(reply.header("x-pagination-page-count"), "3");
    assert_eq!(page["data"][0]["commit"], head(&app));
    assert_eq!(page["data"][0]["keys"], 2);
    assert_eq!(page["data"][1]["keys"], 1);
    assert!(
        page["data"][0]["subject"].as_str().unwrap().starts_with("Import"),
        "{page}"
    );
    let last = app
        .get("/teams/acme/projects/mobile/history?limit=2&page=3")
        .await
        .json();
    assert_eq!(last["data"][0]["keys"], 0, "the project's creation changed no key");
}

/// The history index is caught up with every commit: the server's own since the last read,
/// and a hand commit made while the server was stopped (after a restart, which starts with no
/// index), and it is built again when the branch was rewritten.
#[tokio::test]
async fn history_sees_new_commits_hand_edits_and_rewritten_history() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "one")])
        .await
        .assert_ok(StatusCode::CREATED);
    let total = |reply: &Reply| reply.header("x-pagination-total-count").to_owned();
    assert_eq!(total(&app.get(&format!("{KEYS}/k/history")).await), "1");
    app.patch(
        &format!("{KEYS}/k"),
        json!({"translations": [{"language": "en", "content": "two"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(total(&app.get(&format!("{KEYS}/k/history")).await), "2", "caught up");

    let dir = app.stop().await;
    let repo = dir.path().join("repo");
    let file = crate::helpers::git_in(
        &repo,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            "HEAD",
            "teams/acme/projects/mobile/keys",
        ],
    )
    .trim()
    .to_owned();
    std::fs::write(repo.join(&file), "name = \"k\"\n\n[translations]\nen = \"by hand\"\n").unwrap();
    crate::helpers::git_in(&repo, &["commit", "-qam", "Edit by hand"]);
    let app = TestApp::spawn_in(dir).await;
    let history = app.get(&format!("{KEYS}/k/history")).await.assert_ok(StatusCode::OK);
    assert_eq!(history["data"][0]["subject"], "Edit by hand");
    assert_eq!(history["data"][0]["author"], "Hand Editor");
    assert_eq!(history["data"][0]["key"]["translation"]["en"], "by hand");

    // The branch is rewritten (two commits dropped by hand): the index is built again.
    let dir = app.stop().await;
    let repo = dir.path().join("repo");
    crate::helpers::git_in(&repo, &["reset", "-q", "--hard", "HEAD~2"]);
    let app = TestApp::spawn_in(dir).await;
    let history = app.get(&format!("{KEYS}/k/history")).await;
    assert_eq!(total(&history), "1");
    assert_eq!(history.json()["data"][0]["key"]["translation"]["en"], "one");
}

/// The history index is kept beside the repository (`.git/locstore/history`), so a restart
/// reads it back; a torn last record is indexed again, and a deleted index is built again.
#[tokio::test]
async fn the_kept_history_index_survives_a_torn_end_and_is_rebuilt_when_deleted() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "one")])
        .await
        .assert_ok(StatusCode::CREATED);
    for text in ["two", "three"] {
        app.patch(
            &format!("{KEYS}/k"),
            json!({"translations": [{"language": "en", "content": text}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    }
    let texts = |history: &serde_json::Value| -> Vec<String> {
        history["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["key"]["translation"]["en"].as_str().unwrap().to_owned())
            .collect()
    };
    let expected = vec!["three", "two", "one"];
    assert_eq!(texts(&app.get(&format!("{KEYS}/k/history")).await.json()), expected);
    let activity = app.get("/teams/acme/projects/mobile/history").await.json();

    let dir = app.stop().await;
    let index = dir.path().join("repo/.git/locstore/history");
    let kept = std::fs::read(&index).expect("the index is kept on disk");
    assert!(kept.len() > 100, "{} bytes", kept.len());
    // A crash while appending leaves a torn record at the end.
    std::fs::write(&index, &kept[..kept.len() - 7]).unwrap();
    let app = TestApp::spawn_in(dir).await;
    assert_eq!(texts(&app.get(&format!("{KEYS}/k/history")).await.json()), expected);
    assert_eq!(app.get("/teams/acme/projects/mobile/history").await.json(), activity);

    let dir = app.stop().await;
    assert_eq!(
        std::fs::read(&index).unwrap(),
        kept,
        "the torn commit was indexed again"
    );
    std::fs::remove_file(&index).unwrap();
    let app = TestApp::spawn_in(dir).await;
    assert_eq!(texts(&app.get(&format!("{KEYS}/k/history")).await.json()), expected);
    assert_eq!(app.get("/teams/acme/projects/mobile/history").await.json(), activity);
    let _dir = app.stop().await;
    assert_eq!(std::fs::read(&index).unwrap(), kept, "built again, the same");
}

/// A past state of a large project (read through `git cat-file`, not libgit2) holds exactly
/// the keys and texts of then.
#[tokio::test]
async fn a_large_project_reads_back_exactly_at_a_past_commit() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let keys: Vec<serde_json::Value> = (0..5000)
        .map(|index| {
            json!({"name": format!("bulk.{index:05}"), "tags": ["bulk"],
                   "translations": [{"language": "en", "content": format!("Text {index}")}]})
        })
        .collect();
    let imported = app
        .post(&format!("{KEYS}/import"), json!({"mode": "upsert", "keys": keys}))
        .await;
    imported.assert_ok(StatusCode::OK);
    let then = imported.header("x-locstore-commit").to_owned();
    app.patch(
        &format!("{KEYS}/bulk.01234"),
        json!({"translations": [{"language": "en", "content": "changed"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/bulk.04999"))
        .await
        .assert_ok(StatusCode::OK);

    let page = app
        .get(&format!("{KEYS}?at={then}&keyword=Text%201234&limit=5"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(page["data"][0]["name"], "bulk.01234");
    assert_eq!(page["data"][0]["translation"]["en"], "Text 1234");
    let all = app.get(&format!("{KEYS}?at={then}&limit=1&page=5000")).await;
    assert_eq!(all.header("x-pagination-total-count"), "5000");
    assert_eq!(all.json()["data"][0]["name"], "bulk.04999");
    let now = app.get(&format!("{KEYS}?limit=1")).await;
    assert_eq!(now.header("x-pagination-total-count"), "4999");
}

#[tokio::test]
async fn a_past_state_read_from_the_loaded_keys_and_the_files_changed_since_is_the_state_then() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let text = |n: usize, round: &str| {
        json!([{"language": "en", "content": format!("{round} text {n}")},
               {"language": "fr", "content": format!("{round} texte {n}")}])
    };
    let keys: Vec<serde_json::Value> = (0..600)
        .map(
            |n| json!({"name": format!("k.{n:03}"), "tags": [format!("t{}", n % 3)], "translations": text(n, "first")}),
        )
        .collect();
    let imported = app.post(&format!("{KEYS}/import"), json!({"keys": keys})).await;
    imported.assert_ok(StatusCode::OK);
    let then = imported.header("x-locstore-commit").to_owned();
    let before = app.every_key("").await;
    assert_eq!(before.len(), 600);

    // Since then: 150 keys updated in one commit (more than a handful of files), some
    // deleted, renamed (one to a name that was deleted), created, and one re-created.
    let updates: Vec<serde_json::Value> = (0..150)
        .map(|n| json!({"name": format!("k.{:03}", n * 4), "translations": text(n, "second")}))
        .collect();
    app.post(&format!("{KEYS}/import"), json!({"mode": "upsert", "keys": updates}))
        .await
        .assert_ok(StatusCode::OK);
    for n in [1, 5, 9, 13] {
        app.delete(&format!("{KEYS}/k.{n:03}")).await.assert_ok(StatusCode::OK);
    }
    app.patch(&format!("{KEYS}/k.002"), json!({"name": "k.001"}))
        .await
        .assert_ok(StatusCode::OK);
    app.patch(&format!("{KEYS}/k.003"), json!({"name": "renamed.three"}))
        .await
        .assert_ok(StatusCode::OK);
    let created: Vec<serde_json::Value> = (0..80)
        .map(|n| json!({"name": format!("new.{n:02}"), "translations": text(n, "new")}))
        .collect();
    app.post(&format!("{KEYS}/import"), json!({"keys": created}))
        .await
        .assert_ok(StatusCode::OK);
    app.create_key("k.005", &[], &[("en", "back again")]).await;
    let now = app.every_key("").await;
    assert_ne!(now, before);

    // HEAD's keys are loaded, so the past is built from them and the files that differ.
    assert_eq!(app.every_key(&format!("&at={then}")).await, before);
    let search = |keyword: &str| {
        let query = format!("at={then}&keyword={keyword}");
        let app = &app;
        async move { app.key_names(&query).await }
    };

    assert_eq!(search("first%20text%20400").await, ["k.400"]);
    assert!(search("second").await.is_empty());
    assert!(search("renamed").await.is_empty());
    assert_eq!(
        search("first%20texte%203").await.len(),
        111,
        "k.003 and k.030..k.039, k.300..k.399"
    );
    // And a state after some of the changes, read once HEAD has moved on again.
    let middle = app
        .patch(
            &format!("{KEYS}/k.599"),
            json!({"translations": [{"language": "en", "content": "middle"}]}),
        )
        .await;
    let middle_commit = middle.header("x-locstore-commit").to_owned();
    let at_middle = app.every_key(&format!("&at={middle_commit}")).await;
    app.delete(&format!("{KEYS}/k.599")).await.assert_ok(StatusCode::OK);
    assert_eq!(app.every_key(&format!("&at={middle_commit}")).await, at_middle);
    let mut expected = now.clone();
    let last = expected.iter_mut().find(|key| key["name"] == "k.599").unwrap();
    last["translation"]["en"] = json!("middle");
    // A new base text: every other language's translation is outdated then.
    let others: Vec<Value> = last["translation"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|language| *language != "en")
        .map(|language| json!(language))
        .collect();
    last["outdated"] = Value::Array(others);
    assert_eq!(at_middle, expected);
}
