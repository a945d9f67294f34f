use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::TestApp;

#[tokio::test]
async fn a_project_gets_default_languages_and_is_listed_with_every_field() {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"})).await;
    app.post("/teams/acme/projects", json!({"name": "web", "displayName": "Web"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects",
        json!({"name": "app", "displayName": "App", "description": "Phones", "baseLanguageISO": "de", "languagesISO": ["fr"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let list = app.get("/teams/acme/projects").await.assert_ok(StatusCode::OK);
    assert_eq!(
        list,
        json!({"data": [
            {"name": "app", "displayName": "App", "description": "Phones", "baseLanguageISO": "de", "languagesISO": ["de", "fr"]},
            {"name": "web", "displayName": "Web", "description": "", "baseLanguageISO": "en", "languagesISO": ["en"]},
        ]})
    );
    let one = app.get("/teams/acme/projects/app").await.assert_ok(StatusCode::OK);
    assert_eq!(one["data"]["languagesISO"], json!(["de", "fr"]));
}

#[tokio::test]
async fn project_names_clash_without_regard_to_case_and_languages_are_checked() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let reply = app
        .post("/teams/acme/projects", json!({"name": "MOBILE", "displayName": "M"}))
        .await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    for languages in [
        json!(["en", "EN"]),
        json!(["pt-BR", "pt_br"]),
        json!(["english"]),
        json!(["e"]),
    ] {
        let reply = app
            .post(
                "/teams/acme/projects",
                json!({"name": "x", "displayName": "X", "languagesISO": languages}),
            )
            .await;
        assert_eq!(
            reply.error_code(StatusCode::BAD_REQUEST),
            "invalid_request",
            "{languages}"
        );
    }
    let reply = app
        .post(
            "/teams/acme/projects",
            json!({"name": "x", "displayName": "X", "baseLanguageISO": "e-"}),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app
        .post("/teams/ghost/projects", json!({"name": "x", "displayName": "X"}))
        .await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
}

#[tokio::test]
async fn updating_a_project_answers_the_team_project_list_and_a_rename_moves_its_folder() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home")]).await;
    let reply = app
        .patch(
            "/teams/acme/projects/mobile",
            json!({"name": "phone", "description": "New"}),
        )
        .await;
    let list = reply.assert_ok(StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["name"], "phone");
    assert_eq!(list["data"][0]["description"], "New");
    assert!(app.repo().join("teams/acme/projects/phone/project.toml").exists());
    assert!(!app.repo().join("teams/acme/projects/mobile").exists());
    let keys = app
        .get("/teams/acme/projects/phone/keys")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(keys["data"][0]["name"], "home.title");
}

#[tokio::test]
async fn a_new_base_language_is_added_to_the_languages() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let list = app
        .patch("/teams/acme/projects/mobile", json!({"baseLanguageISO": "de"}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(list["data"][0]["languagesISO"], json!(["de", "en", "fr", "pt-BR"]));
    let list = app
        .patch("/teams/acme/projects/mobile", json!({"languagesISO": ["fr"]}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(list["data"][0]["languagesISO"], json!(["de", "fr"]));
}

#[tokio::test]
async fn removing_a_language_removes_its_translations_in_the_same_commit() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("a", &[], &[("en", "A"), ("fr", "Ah")]).await;
    app.create_key("b", &[], &[("en", "B")]).await;
    let before = app.commit_count();
    app.patch("/teams/acme/projects/mobile", json!({"languagesISO": ["en", "pt-BR"]}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before + 1);
    let key = app
        .get("/teams/acme/projects/mobile/keys/a")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"], json!({"en": "A"}));
    let changed = app.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        changed.lines().count(),
        2,
        "project.toml and the one key that had French: {changed}"
    );
    // History keeps the removed translation.
    assert!(app.git(&["log", "-p", "--format="]).contains("fr = \"Ah\""));
}

#[tokio::test]
async fn a_project_is_deleted_by_its_path_and_by_the_deprecated_path() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post("/teams/acme/projects", json!({"name": "web", "displayName": "Web"}))
        .await;
    assert_eq!(
        app.delete("/teams/acme/projects/mobile")
            .await
            .assert_ok(StatusCode::OK),
        json!({"success": true})
    );
    assert_eq!(
        app.delete("/teams/acme/web").await.assert_ok(StatusCode::OK),
        json!({"success": true})
    );
    assert_eq!(
        app.get("/teams/acme/projects").await.assert_ok(StatusCode::OK),
        json!({"data": []})
    );
    assert_eq!(
        app.delete("/teams/acme/projects/mobile")
            .await
            .error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
    assert!(!app.repo().join("teams/acme/projects").exists());
}

#[tokio::test]
async fn project_changes_need_write_access_and_a_visible_team() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post("/teams", json!({"name": "other", "displayName": "O"})).await;
    let body = json!({"name": "x", "displayName": "X"});
    let reply = app
        .call(
            poem::http::Method::POST,
            "/teams/acme/projects",
            Some(body.clone()),
            Some(&app.read_token),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    let reply = app
        .call(
            poem::http::Method::POST,
            "/teams/acme/projects",
            Some(body.clone()),
            Some(&app.acme_token),
        )
        .await;
    reply.assert_ok(StatusCode::CREATED);
    let reply = app
        .call(
            poem::http::Method::POST,
            "/teams/other/projects",
            Some(body),
            Some(&app.acme_token),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
    let reply = app
        .call(poem::http::Method::GET, "/teams", None, Some(&app.acme_token))
        .await;
    assert_eq!(
        reply.assert_ok(StatusCode::OK),
        json!({"data": [{"name": "acme", "displayName": "Acme"}]})
    );
}
