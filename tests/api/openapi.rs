use std::path::Path;

use poem::http::{Method, StatusCode};

use crate::helpers::TestApp;

/// The checked-in OpenAPI documents must match what the handlers generate. When they drift,
/// this test rewrites them and fails, so that the change shows up in review.
#[tokio::test]
async fn the_checked_in_openapi_documents_match_the_handlers() {
    let app = TestApp::spawn().await;
    let mut drifted = Vec::new();
    for (route, file) in [
        ("/openapi.json", "openapi/openapi.json"),
        ("/openapi.yaml", "openapi/openapi.yaml"),
    ] {
        let reply = app.call(Method::GET, route, None, None).await;
        assert_eq!(reply.status, StatusCode::OK);
        let mut generated = String::from_utf8(reply.body).unwrap();
        if !generated.ends_with('\n') {
            generated.push('\n');
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            std::fs::write(&path, &generated).unwrap();
            drifted.push(file);
        }
    }
    assert!(
        drifted.is_empty(),
        "{drifted:?} did not match the handlers and were rewritten; review and commit them"
    );
}

#[tokio::test]
async fn every_operation_has_an_id_a_summary_and_documented_errors() {
    let app = TestApp::spawn().await;
    let spec = app.call(Method::GET, "/openapi.json", None, None).await.json();
    let mut operations = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            operations += 1;
            let name = format!("{method} {path}");
            assert!(operation["operationId"].is_string(), "{name} has no operationId");
            assert!(operation["summary"].is_string(), "{name} has no summary");
            // The git host's hook carries a secret of its own instead of a token.
            if name != "post /hooks/git" {
                assert_eq!(
                    operation["security"][0]["TokenAuth"],
                    serde_json::json!([]),
                    "{name} is not secured"
                );
            }
            for status in ["400", "401", "403", "404", "500"] {
                assert!(
                    operation["responses"][status].is_object(),
                    "{name} does not document {status}"
                );
            }
        }
    }
    assert!(operations >= 15, "only {operations} operations");
    assert!(spec["components"]["securitySchemes"]["TokenAuth"]["name"] == "X-Api-Token");
}
