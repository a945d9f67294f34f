use poem::http::{Method, StatusCode};
use serde_json::json;

use crate::helpers::TestApp;

#[tokio::test]
async fn created_teams_are_listed_sorted_by_name_with_display_names() {
    let app = TestApp::spawn().await;
    for (name, display) in [("zeta", "Zeta"), ("Acme", "Acme Inc."), ("beta", "Beta")] {
        let reply = app.post("/teams", json!({"name": name, "displayName": display})).await;
        assert_eq!(reply.assert_ok(StatusCode::CREATED), json!({"success": true}));
    }
    let list = app.get("/teams").await.assert_ok(StatusCode::OK);
    assert_eq!(
        list,
        json!({"data": [
            {"name": "Acme", "displayName": "Acme Inc."},
            {"name": "beta", "displayName": "Beta"},
            {"name": "zeta", "displayName": "Zeta"},
        ]})
    );
}

#[tokio::test]
async fn a_team_name_taken_in_any_case_is_a_conflict() {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "Acme", "displayName": "A"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let reply = app.post("/teams", json!({"name": "acme", "displayName": "B"})).await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
}

#[tokio::test]
async fn invalid_team_names_are_refused() {
    let app = TestApp::spawn().await;
    for name in ["", "-x", ".x", "a/b", "a b", "é", "..", &"x".repeat(65)] {
        let reply = app.post("/teams", json!({"name": name, "displayName": "X"})).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{name}");
    }
    let reply = app.post("/teams", json!({"name": "ok", "displayName": "  "})).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert_eq!(app.commit_count(), 1);
}

#[tokio::test]
async fn a_team_is_renamed_by_name_or_team_name_and_keeps_its_projects() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.patch("/teams/acme", json!({"name": "acme2", "displayName": "Acme 2"}))
        .await
        .assert_ok(StatusCode::OK);
    app.patch("/teams/acme2", json!({"teamName": "acme3"}))
        .await
        .assert_ok(StatusCode::OK);
    let list = app.get("/teams").await.assert_ok(StatusCode::OK);
    assert_eq!(list, json!({"data": [{"name": "acme3", "displayName": "Acme 2"}]}));
    let projects = app.get("/teams/acme3/projects").await.assert_ok(StatusCode::OK);
    assert_eq!(projects["data"][0]["name"], "mobile");
    app.get("/teams/acme/projects").await.error_code(StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_rename_with_two_different_new_names_or_onto_another_team_is_refused() {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "A"})).await;
    app.post("/teams", json!({"name": "other", "displayName": "O"})).await;
    let reply = app.patch("/teams/acme", json!({"name": "x", "teamName": "y"})).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app.patch("/teams/acme", json!({"name": "OTHER"})).await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    // Changing only the case of one's own name is allowed.
    app.patch("/teams/acme", json!({"name": "ACME"}))
        .await
        .assert_ok(StatusCode::OK);
}

#[tokio::test]
async fn updating_or_deleting_a_missing_team_is_not_found() {
    let app = TestApp::spawn().await;
    assert_eq!(
        app.patch("/teams/ghost", json!({"displayName": "G"}))
            .await
            .error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
    assert_eq!(
        app.delete("/teams/ghost").await.error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
}

#[tokio::test]
async fn deleting_a_team_deletes_its_projects_and_keys_in_one_commit() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home")])
        .await
        .assert_ok(StatusCode::CREATED);
    let before = app.commit_count();
    app.delete("/teams/acme").await.assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before + 1);
    assert!(!app.repo().join("teams/acme").exists());
    assert_eq!(app.get("/teams").await.assert_ok(StatusCode::OK), json!({"data": []}));
    assert_eq!(app.git(&["log", "-1", "--format=%s"]).trim(), "Delete team \"acme\"");
}

#[tokio::test]
async fn team_changes_need_admin_access() {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "A"})).await;
    let body = json!({"name": "new", "displayName": "N"});
    let reply = app
        .call(Method::POST, "/teams", Some(body), Some(&app.write_token))
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    let reply = app
        .call(Method::DELETE, "/teams/acme", None, Some(&app.write_token))
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    let reply = app.call(Method::GET, "/teams", None, Some(&app.read_token)).await;
    assert_eq!(reply.assert_ok(StatusCode::OK)["data"][0]["name"], "acme");
}
