//! Git-native reads: the commit behind every answer, conditional requests, reads of the past.

use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::TestApp;

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
