//! Token rights for every endpoint and access level.

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{ADMIN, TestApp};

/// One operation, with the lowest access level that may do it.
struct Operation {
    method: Method,
    path: &'static str,
    body: Option<Value>,
    needs: &'static str,
}

fn operations() -> Vec<Operation> {
    let op = |method: Method, path: &'static str, body: Option<Value>, needs: &'static str| Operation {
        method,
        path,
        body,
        needs,
    };
    vec![
        op(Method::GET, "/teams", None, "read"),
        op(
            Method::POST,
            "/teams",
            Some(json!({"name": "acme-new", "displayName": "N"})),
            "admin",
        ),
        op(
            Method::PATCH,
            "/teams/acme",
            Some(json!({"displayName": "Renamed"})),
            "admin",
        ),
        op(Method::GET, "/teams/acme/projects", None, "read"),
        op(
            Method::POST,
            "/teams/acme/projects",
            Some(json!({"name": "p2", "displayName": "P"})),
            "write",
        ),
        op(Method::GET, "/teams/acme/projects/mobile", None, "read"),
        op(
            Method::PATCH,
            "/teams/acme/projects/mobile",
            Some(json!({"description": "d"})),
            "write",
        ),
        op(Method::GET, "/teams/acme/projects/mobile/keys", None, "read"),
        op(
            Method::POST,
            "/teams/acme/projects/mobile/keys",
            Some(json!({"name": "new.key"})),
            "write",
        ),
        op(Method::GET, "/teams/acme/projects/mobile/keys/k", None, "read"),
        op(
            Method::PATCH,
            "/teams/acme/projects/mobile/keys/k",
            Some(json!({"tags": ["x"]})),
            "write",
        ),
        op(
            Method::PATCH,
            "/teams/acme/projects/mobile/keys",
            Some(json!({"name": "k", "tags": ["y"]})),
            "write",
        ),
        op(
            Method::GET,
            "/teams/acme/projects/mobile/keys/export?type=json",
            None,
            "read",
        ),
        op(Method::DELETE, "/teams/acme/projects/mobile/keys/k", None, "write"),
        op(Method::DELETE, "/teams/acme/projects/mobile", None, "write"),
        op(Method::DELETE, "/teams/acme/other", None, "write"),
        op(Method::DELETE, "/teams/acme", None, "admin"),
    ]
}

fn rank(level: &str) -> u8 {
    match level {
        "read" => 1,
        "write" => 2,
        "admin" => 3,
        _ => 0,
    }
}

/// A fresh app with team `acme` (projects `mobile` with key `k`, and `other`) and team `beta`.
async fn fresh() -> TestApp {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "K")]).await;
    app.post("/teams/acme/projects", json!({"name": "other", "displayName": "O"}))
        .await;
    app.post("/teams", json!({"name": "beta", "displayName": "B"})).await;
    app
}

#[tokio::test]
async fn each_access_level_may_do_exactly_what_it_should_on_every_endpoint() {
    for (level, pick) in [("read", 0), ("write", 1), ("admin", 2)] {
        // Operations change state, so each runs on a fresh app.
        for operation in operations() {
            let app = fresh().await;
            let token = [app.read_token.clone(), app.write_token.clone(), ADMIN.to_owned()][pick].clone();
            let before = app.commit_count();
            let reply = app
                .call(
                    operation.method.clone(),
                    operation.path,
                    operation.body.clone(),
                    Some(&token),
                )
                .await;
            let name = format!("{level} {} {}", operation.method, operation.path);
            if rank(level) >= rank(operation.needs) {
                assert!(
                    reply.status.is_success(),
                    "{name}: {} {}",
                    reply.status,
                    String::from_utf8_lossy(&reply.body)
                );
            } else {
                assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden", "{name}");
                assert_eq!(app.commit_count(), before, "{name} committed nothing");
            }
        }
    }
}

#[tokio::test]
async fn without_a_token_every_endpoint_is_unauthorized() {
    let app = fresh().await;
    for operation in operations() {
        let reply = app
            .call(operation.method.clone(), operation.path, operation.body.clone(), None)
            .await;
        assert_eq!(
            reply.error_code(StatusCode::UNAUTHORIZED),
            "unauthorized",
            "{} {}",
            operation.method,
            operation.path
        );
    }
}

#[tokio::test]
async fn a_team_limited_token_sees_other_teams_as_absent() {
    let app = fresh().await;
    for operation in operations() {
        let path = operation.path.replacen("/teams/acme", "/teams/beta", 1);
        if path == operation.path {
            continue;
        }
        let reply = app
            .call(
                operation.method.clone(),
                &path,
                operation.body.clone(),
                Some(&app.acme_token),
            )
            .await;
        assert_eq!(
            reply.error_code(StatusCode::NOT_FOUND),
            "not_found",
            "{} {path}",
            operation.method
        );
    }
    let reply = app
        .call(
            Method::GET,
            "/teams/acme/projects/mobile/keys/k",
            None,
            Some(&app.acme_token),
        )
        .await;
    reply.assert_ok(StatusCode::OK);
}
