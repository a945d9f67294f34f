//! Completeness and quality: outdated translations, through the API, an upload, an import and
//! a commit made by hand.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, git_in};

const KEYS: &str = "/teams/acme/projects/mobile/keys";

async fn outdated(app: &TestApp, key: &str) -> Value {
    app.get(&format!("{KEYS}/{key}")).await.assert_ok(StatusCode::OK)["data"]["outdated"].clone()
}

/// Where the repository keeps a key's file.
fn key_path(app: &TestApp, key: &str) -> String {
    let files = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    files
        .lines()
        .find(|path| path.ends_with(&format!("/{key}.toml")))
        .unwrap_or_else(|| panic!("no file of {key} in {files}"))
        .to_owned()
}

async fn set(app: &TestApp, key: &str, language: &str, content: &str, query: &str) {
    app.patch(
        &format!("{KEYS}/{key}{query}"),
        json!({"translations": [{"language": language, "content": content}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
}

#[tokio::test]
async fn a_base_change_outdates_translations_until_they_are_written_or_confirmed() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key(
        "save",
        &[],
        &[("en", "Save"), ("fr", "Enregistrer"), ("pt-BR", "Salvar")],
    )
    .await
    .assert_ok(StatusCode::CREATED);
    assert_eq!(outdated(&app, "save").await, json!([]));

    set(&app, "save", "en", "Save all", "").await;
    assert_eq!(outdated(&app, "save").await, json!(["fr", "pt-BR"]));
    // The page of keys says the same.
    let page = app.get(KEYS).await.json();
    assert_eq!(page["data"][0]["outdated"], json!(["fr", "pt-BR"]));
    // The key file says which base text each translation was written against.
    let file = app.git(&["show", &format!("HEAD:{}", key_path(&app, "save"))]);
    assert!(file.contains("\n[based_on]\nfr = \""), "{file}");

    // Writing French makes it current, with no other change.
    set(&app, "save", "fr", "Tout enregistrer", "").await;
    assert_eq!(outdated(&app, "save").await, json!(["pt-BR"]));

    // Confirming keeps the text and makes it current: one commit, then none.
    let commits = app.commit_count();
    let confirmed = app
        .post(&format!("{KEYS}/save/confirm?language=pt-br"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(confirmed["data"]["outdated"], json!([]));
    assert_eq!(confirmed["data"]["translation"]["pt-BR"], "Salvar");
    assert_eq!(app.commit_count(), commits + 1);
    assert_eq!(
        app.git(&["log", "-1", "--format=%s"]).trim(),
        "Confirm key \"save\" in acme/mobile"
    );
    app.post(&format!("{KEYS}/save/confirm"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        app.commit_count(),
        commits + 1,
        "nothing left to confirm, nothing committed"
    );

    // Bad confirmations are refused and change nothing.
    let reply = app.post(&format!("{KEYS}/save/confirm?language=de"), json!(null)).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    app.create_key("only.en", &[], &[("en", "Hi")]).await;
    let reply = app
        .post(&format!("{KEYS}/only.en/confirm?language=fr"), json!(null))
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app.post(&format!("{KEYS}/missing/confirm"), json!(null)).await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
    let reply = app
        .call(
            poem::http::Method::POST,
            &format!("{KEYS}/save/confirm"),
            None,
            Some(&app.read_token),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    app.settle().await;
    assert_eq!(app.git(&["status", "--porcelain"]), "");
}

#[tokio::test]
async fn keep_current_fixes_a_typo_without_outdating_and_confirm_takes_several_languages() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("colour", &[], &[("en", "Colour"), ("fr", "Couleur"), ("pt-BR", "Cor")])
        .await;
    set(&app, "colour", "en", "Colours", "").await;
    app.post(&format!("{KEYS}/colour/confirm?language=fr"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // As a query parameter: French stays current, Portuguese stays outdated.
    set(&app, "colour", "en", "Colors", "?keepCurrent=true").await;
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // As a body field.
    app.patch(
        &format!("{KEYS}/colour"),
        json!({"translations": [{"language": "en", "content": "Colors!"}], "keepCurrent": true}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // Without it, both are outdated; one request confirms both.
    set(&app, "colour", "en", "Colours?", "").await;
    assert_eq!(outdated(&app, "colour").await, json!(["fr", "pt-BR"]));
    app.post(
        &format!("{KEYS}/colour/confirm?language=fr&language=pt-BR"),
        json!(null),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!([]));
}

#[tokio::test]
async fn imports_and_uploads_that_change_base_texts_outdate_the_others() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let import = |keys: Value, query: &str| {
        let app = &app;
        let path = format!("{KEYS}/import{query}");
        async move { app.post(&path, keys).await.assert_ok(StatusCode::OK) }
    };
    import(
        json!({"keys": [
            {"name": "a", "translations": [{"language": "en", "content": "One"}, {"language": "fr", "content": "Un"}]},
            {"name": "b", "translations": [{"language": "en", "content": "Two"}, {"language": "fr", "content": "Deux"}]},
        ]}),
        "",
    )
    .await;
    // An upload of the base language's file changes `a`: its French is outdated, `b`'s not.
    let en = br#"{"a": "One!", "b": "Two"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=en",
        "application/json",
        en,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "a").await, json!(["fr"]));
    assert_eq!(outdated(&app, "b").await, json!([]));
    // Uploading French with `a` unchanged does not make it current; a changed text does.
    let fr = br#"{"a": "Un", "b": "Deux !"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=fr",
        "application/json",
        fr,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "a").await, json!(["fr"]));
    assert_eq!(outdated(&app, "b").await, json!([]));
    // An upsert import with `keepCurrent` fixes `b`'s typo without outdating it.
    import(
        json!({"mode": "upsert", "keepCurrent": true, "keys": [{"name": "b", "translations": [{"language": "en", "content": "Two."}]}]}),
        "",
    )
    .await;
    assert_eq!(outdated(&app, "b").await, json!([]));
    import(
        json!({"mode": "upsert", "keys": [{"name": "b", "translations": [{"language": "en", "content": "Two!"}]}]}),
        "",
    )
    .await;
    assert_eq!(outdated(&app, "b").await, json!(["fr"]));
    // An upload with `keepCurrent=true` too.
    let en = br#"{"a": "One!", "b": "Two!!"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=en&keepCurrent=true",
        "application/json",
        en,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "b").await, json!(["fr"]), "outdated stays outdated");
}

#[tokio::test]
async fn a_base_text_changed_by_a_commit_made_outside_outdates_the_translations() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "Hello"), ("fr", "Bonjour")]).await;
    let path = key_path(&app, "k");
    let path = path.as_str();
    let dir = app.stop().await;

    // A reviewer edits the base text in the repository and commits; the record of French
    // stays as it was.
    let repo = dir.path().join("repo");
    let file = std::fs::read_to_string(repo.join(path)).unwrap();
    assert!(file.contains("en = \"Hello\""), "{file}");
    std::fs::write(repo.join(path), file.replace("en = \"Hello\"", "en = \"Hello there\"")).unwrap();
    git_in(&repo, &["commit", "-q", "-am", "Edit by hand"]);

    let app = TestApp::spawn_in(dir).await;
    assert_eq!(outdated(&app, "k").await, json!(["fr"]));
    // And back by hand: current again.
    let dir = app.stop().await;
    std::fs::write(repo.join(path), file).unwrap();
    git_in(&repo, &["commit", "-q", "-am", "Back by hand"]);
    let app = TestApp::spawn_in(dir).await;
    assert_eq!(outdated(&app, "k").await, json!([]));
}
