use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{ADMIN, TestApp, into_reply};

const IMPORT: &str = "/teams/acme/projects/mobile/keys/import";

fn entries(count: usize) -> Vec<Value> {
    (0..count)
        .map(|index| json!({"name": format!("bulk.{index:05}"), "tags": ["bulk"], "translations": [{"language": "en", "content": format!("Text {index}")}]}))
        .collect()
}

#[tokio::test]
async fn an_import_creates_many_keys_in_one_commit() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let before = app.commit_count();
    let reply = app.post(IMPORT, json!({"keys": entries(500)})).await;
    assert_eq!(
        reply.assert_ok(StatusCode::OK),
        json!({"success": true, "created": 500, "updated": 0, "unchanged": 0})
    );
    assert_eq!(app.commit_count(), before + 1);
    assert_eq!(
        app.git(&["log", "-1", "--format=%s"]).trim(),
        "Import 500 keys into acme/mobile (500 created, 0 updated)"
    );
    let page = app.get("/teams/acme/projects/mobile/keys?limit=1&page=500").await;
    assert_eq!(page.header("x-pagination-total-count"), "500");
    assert_eq!(page.json()["data"][0]["translation"]["en"], "Text 499");
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
    app.git(&["fsck", "--strict"]);
    // 500 new files went into a pack rather than 500 loose objects.
    let counts = app.git(&["count-objects", "-v"]);
    assert!(counts.starts_with("count: 0\n"), "{counts}");
}

/// A large import is written as one pack of whole objects (no delta search, which cost most
/// of a bulk import): git must read it as its own, and so must a restarted server; once
/// writes pause, maintenance repacks the repository with deltas.
#[tokio::test]
async fn a_large_import_is_read_back_by_git_and_a_restart_and_repacked_with_deltas() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let keys: Vec<Value> = (0..1500)
        .map(|index| {
            json!({"name": format!("screen{}.item{index:04}", index % 9), "translations": [
                {"language": "en", "content": format!("Text {index} of a screen, a few words")},
                {"language": "fr", "content": format!("Texte {index} d'un écran")},
            ]})
        })
        .collect();
    app.post(IMPORT, json!({"keys": keys})).await.assert_ok(StatusCode::OK);
    let before_restart = app.every_key("").await;
    assert_eq!(before_restart.len(), 1500);
    // Maintenance runs a full repack once writes pause: wait for one pack with deltas.
    let pack_dir = app.repo().join(".git/objects/pack");
    let mut verified = String::new();
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let indexes: Vec<std::path::PathBuf> = std::fs::read_dir(&pack_dir)
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "idx"))
            .collect();
        if let [index] = indexes.as_slice() {
            verified = app.git(&["verify-pack", "-v", index.to_str().unwrap()]);
            if verified.contains("chain length") {
                break;
            }
        }
    }
    assert!(
        verified.contains("chain length"),
        "no single pack with deltas:\n{verified}"
    );
    app.git(&["fsck", "--strict", "--full"]);
    assert_eq!(app.clean_status().await, "");
    let dir = app.stop().await;
    let app = TestApp::spawn_in(dir).await;
    assert_eq!(app.every_key("").await, before_restart);
}

#[tokio::test]
async fn create_mode_refuses_existing_names_and_upsert_merges() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &["old"], &[("en", "Home"), ("fr", "Accueil")])
        .await;
    let before = app.commit_count();
    let keys = json!([
        {"name": "new.key", "translations": [{"language": "en", "content": "New"}]},
        {"name": "home.title", "translations": [{"language": "fr", "content": "Maison"}]},
    ]);
    let reply = app.post(IMPORT, json!({"mode": "create", "keys": keys.clone()})).await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("keys[1] (\"home.title\")"),
        "{}",
        reply.json()
    );
    assert_eq!(app.commit_count(), before, "nothing was applied");
    app.get("/teams/acme/projects/mobile/keys/new.key")
        .await
        .error_code(StatusCode::NOT_FOUND);

    let reply = app.post(IMPORT, json!({"mode": "upsert", "keys": keys.clone()})).await;
    assert_eq!(
        reply.assert_ok(StatusCode::OK),
        json!({"success": true, "created": 1, "updated": 1, "unchanged": 0})
    );
    let key = app.get("/teams/acme/projects/mobile/keys/home.title").await.json();
    assert_eq!(
        key["data"],
        json!({"name": "home.title", "namespace": "", "tags": ["old"], "translation": {"en": "Home", "fr": "Maison"}, "description": "", "plural": false, "markup": false, "translatable": true, "files": {}, "outdated": [], "ignoreChecks": []})
    );
    assert_eq!(app.commit_count(), before + 1);

    let reply = app.post(IMPORT, json!({"mode": "upsert", "keys": keys})).await;
    assert_eq!(
        reply.assert_ok(StatusCode::OK),
        json!({"success": true, "created": 0, "updated": 0, "unchanged": 2})
    );
    assert_eq!(
        app.commit_count(),
        before + 1,
        "an import that changes nothing commits nothing"
    );
}

#[tokio::test]
async fn a_bad_entry_is_named_by_position_and_nothing_is_applied() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let before = app.commit_count();
    let cases = [
        (json!({"name": "nul\u{0}"}), StatusCode::BAD_REQUEST),
        (
            json!({"name": "x", "translations": [{"language": "de", "content": "nein"}]}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"name": "x", "translations": [{"language": "e", "content": "?"}]}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"name": "x", "tags": [""]}), StatusCode::BAD_REQUEST),
        (json!({"name": "bulk.00001"}), StatusCode::BAD_REQUEST),
    ];
    for (bad, status) in cases {
        let mut keys = entries(3);
        keys.insert(2, bad.clone());
        let reply = app.post(IMPORT, json!({"keys": keys})).await;
        reply.error_code(status);
        let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.starts_with("keys[2] "), "{bad}: {message}");
    }
    let reply = app.post(IMPORT, json!({"mode": "merge", "keys": []})).await;
    reply.error_code(StatusCode::BAD_REQUEST);
    // A mistyped field is named by its place in the body.
    let mut keys = entries(3);
    keys.insert(
        1,
        json!({"name": "x", "translations": [{"language": "en", "content": 5}]}),
    );
    let reply = app.post(IMPORT, json!({"keys": keys})).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("keys[1].translations[0].content"), "{message}");
    assert_eq!(app.commit_count(), before);
    assert_eq!(
        app.get("/teams/acme/projects/mobile/keys")
            .await
            .header("x-pagination-total-count"),
        "0"
    );
}

#[tokio::test]
async fn imports_have_their_own_body_limit_and_need_write_access() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    // About 1.5 MiB: over the general limit, well under the import limit.
    let reply = app.post(IMPORT, json!({"keys": entries(20_000)})).await;
    assert_eq!(reply.assert_ok(StatusCode::OK)["created"], 20_000);
    // So many files are written by two threads; the working tree must still be HEAD exactly.
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
    let tracked = app.git(&["ls-files", "teams/acme/projects/mobile/keys"]);
    assert_eq!(tracked.lines().count(), 20_000);
    let big = json!({"name": "k", "displayName": "x".repeat(2 * 1024 * 1024)});
    let request = app.client.post("/teams").header("X-Api-Token", ADMIN).body_json(&big);
    assert_eq!(
        into_reply(request.send().await)
            .await
            .error_code(StatusCode::PAYLOAD_TOO_LARGE),
        "payload_too_large"
    );
    let reply = app
        .call(
            Method::POST,
            IMPORT,
            Some(json!({"keys": entries(1)})),
            Some(&app.read_token),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    // Rights are checked before the body is read.
    let reply = app
        .call(Method::POST, IMPORT, Some(json!({"keys": 5})), Some(&app.read_token))
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    let request = app
        .client
        .post(IMPORT)
        .header("X-Api-Token", ADMIN)
        .content_type("text/plain")
        .body(r#"{"keys": []}"#);
    assert_eq!(
        into_reply(request.send().await)
            .await
            .error_code(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        "unsupported_media_type"
    );
}

#[tokio::test]
async fn keys_named_like_fixed_path_segments_are_reachable() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("import", &[], &[("en", "Import")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = app
        .get("/teams/acme/projects/mobile/keys/import")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["en"], "Import");
    app.patch("/teams/acme/projects/mobile/keys/import", json!({"tags": ["x"]}))
        .await
        .assert_ok(StatusCode::OK);
    app.delete("/teams/acme/projects/mobile/keys/import")
        .await
        .assert_ok(StatusCode::OK);
}
