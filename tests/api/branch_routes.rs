//! `?branch=` on the project routes beyond the keys: the project, imports, uploads, exports,
//! stats and changes read and write the branch and leave the main line as it is.

use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::TestApp;

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
