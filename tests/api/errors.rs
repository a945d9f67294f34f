use poem::http::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{ADMIN, TestApp, into_reply};

#[tokio::test]
async fn a_missing_or_unknown_token_is_unauthorized() {
    let app = TestApp::spawn().await;
    let reply = app.call(Method::GET, "/teams", None, None).await;
    assert_eq!(reply.error_code(StatusCode::UNAUTHORIZED), "unauthorized");
    let reply = app.call(Method::GET, "/teams", None, Some("lst_not-a-token")).await;
    assert_eq!(reply.error_code(StatusCode::UNAUTHORIZED), "unauthorized");
    let reply = app
        .call(
            Method::POST,
            "/teams",
            Some(json!({"name": "x", "displayName": "X"})),
            None,
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::UNAUTHORIZED), "unauthorized");
}

#[tokio::test]
async fn malformed_bodies_are_invalid_requests() {
    let app = TestApp::spawn().await;
    let send = |body: &'static str| {
        let app = &app;
        async move {
            let request = app
                .client
                .post("/teams")
                .header("X-Api-Token", ADMIN)
                .content_type("application/json")
                .body(body);
            into_reply(request.send().await).await
        }
    };
    for body in [
        "{\"name\":",
        "[]",
        "{\"name\": 5, \"displayName\": \"x\"}",
        "{\"displayName\": \"x\"}",
        "",
        "\u{0}",
    ] {
        let reply = send(body).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{body:?} -> {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{body:?}");
    }
    // Unknown fields are ignored and null means absent.
    send("{\"name\": \"acme\", \"displayName\": \"A\", \"color\": \"red\"}")
        .await
        .assert_ok(StatusCode::CREATED);
    let reply = app
        .patch("/teams/acme", json!({"name": null, "displayName": "B"}))
        .await;
    reply.assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), 3);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_an_unsupported_media_type() {
    let app = TestApp::spawn().await;
    let request = app
        .client
        .post("/teams")
        .header("X-Api-Token", ADMIN)
        .content_type("text/plain")
        .body("{\"name\": \"a\", \"displayName\": \"A\"}");
    let reply = into_reply(request.send().await).await;
    assert_eq!(
        reply.error_code(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        "unsupported_media_type"
    );
    let request = app
        .client
        .post("/teams")
        .header("X-Api-Token", ADMIN)
        .body("{\"name\": \"a\", \"displayName\": \"A\"}");
    let reply = into_reply(request.send().await).await;
    assert_eq!(
        reply.error_code(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        "unsupported_media_type"
    );
}

#[tokio::test]
async fn a_body_over_the_limit_is_payload_too_large() {
    let app = TestApp::spawn().await;
    let big = format!("{{\"name\": \"a\", \"displayName\": \"{}\"}}", "x".repeat(1024 * 1024));
    let request = app
        .client
        .post("/teams")
        .header("X-Api-Token", ADMIN)
        .content_type("application/json")
        .body(big);
    let reply = into_reply(request.send().await).await;
    assert_eq!(reply.error_code(StatusCode::PAYLOAD_TOO_LARGE), "payload_too_large");
    assert_eq!(app.commit_count(), 1);
}

#[tokio::test]
async fn unknown_routes_and_wrong_methods_answer_json() {
    let app = TestApp::spawn().await;
    assert_eq!(
        app.get("/nothing/here").await.error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
    assert_eq!(
        app.call(Method::PUT, "/teams", None, Some(ADMIN))
            .await
            .error_code(StatusCode::METHOD_NOT_ALLOWED),
        "method_not_allowed"
    );
    assert_eq!(
        app.get("/teams/ghost/projects").await.error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
    assert_eq!(
        app.get("/teams/acme/projects/ghost")
            .await
            .error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
}

#[tokio::test]
async fn every_response_carries_a_request_id_and_keeps_a_sane_one_given() {
    let app = TestApp::spawn().await;
    let reply = app.get("/teams").await;
    let first = reply.header("x-request-id").to_owned();
    let second = app.get("/teams").await.header("x-request-id").to_owned();
    for id in [&first, &second] {
        assert!(id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    }
    assert_ne!(first, second, "each request gets its own id");
    let request = app
        .client
        .get("/teams")
        .header("X-Api-Token", ADMIN)
        .header("X-Request-Id", "trace-42");
    let reply = into_reply(request.send().await).await;
    assert_eq!(reply.header("x-request-id"), "trace-42");
}

#[tokio::test]
async fn the_open_endpoints_need_no_token() {
    let app = TestApp::spawn().await;
    let health = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(health.assert_ok(StatusCode::OK), json!({"status": "ok"}));
    let spec = app.call(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(spec.assert_ok(StatusCode::OK)["info"]["title"], "locstore");
    let yaml = app.call(Method::GET, "/openapi.yaml", None, None).await;
    assert_eq!(yaml.status, StatusCode::OK);
    let docs = app.call(Method::GET, "/docs", None, None).await;
    assert_eq!(docs.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&docs.body).contains("swagger"));
}
