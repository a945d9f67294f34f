//! Placeholder syntaxes end to end: keys and projects record them, exports convert them to
//! each format's syntax (or keep them), and say what they could not convert.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::platforms::download_export;

const KEYS: &str = "/teams/acme/projects/mobile/keys";

async fn app_with_android_key() -> TestApp {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        KEYS,
        json!({
            "name": "inbox",
            "placeholders": "printf",
            "translations": [
                {"language": "en", "content": "Hello %1$s, you have %2$d messages (100%%)"},
                {"language": "fr", "content": "%2$d messages pour %1$s (100%%)"}
            ]
        }),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app
}

/// The one file of `language` in `format`, as text, and the export's answer.
pub async fn exported(app: &TestApp, query: &str) -> (String, Value) {
    let reply = app
        .get(&format!("{KEYS}/export?{query}"))
        .await
        .assert_ok(StatusCode::OK);
    let (_, bytes) = download_export(app, &format!("{KEYS}/export?{query}")).await;
    (String::from_utf8(bytes).unwrap(), reply)
}

#[tokio::test]
async fn a_key_records_its_syntax_and_names_and_a_project_gives_new_keys_its_format() {
    let app = app_with_android_key().await;
    let key = app.get(&format!("{KEYS}/inbox")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["placeholders"], "printf");
    assert!(key["data"].get("placeholderNames").is_none(), "{key}");
    // The key's file says it, in the commit that created the key.
    let created = app.git(&["show", "HEAD"]);
    assert!(created.contains("+placeholders = \"printf\""), "{created}");

    app.patch(&format!("{KEYS}/inbox"), json!({"placeholderNames": ["name", "count"]}))
        .await
        .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{KEYS}/inbox")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["placeholderNames"], json!(["name", "count"]));

    // Bad names and syntaxes are refused, and change nothing.
    let commits = app.commit_count();
    for body in [
        json!({"placeholderNames": ["1st"]}),
        json!({"placeholderNames": ["a", "a"]}),
        json!({"placeholders": "java"}),
    ] {
        let reply = app.patch(&format!("{KEYS}/inbox"), body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
    }
    assert_eq!(app.commit_count(), commits);

    // A key created without a syntax has none, until the project names one for new keys.
    app.create_key("plain", &[], &[("en", "Hi {name}")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = app.get(&format!("{KEYS}/plain")).await.assert_ok(StatusCode::OK);
    assert!(key["data"].get("placeholders").is_none(), "{key}");
    app.patch("/teams/acme/projects/mobile", json!({"placeholderFormat": "icu"}))
        .await
        .assert_ok(StatusCode::OK);
    let project = app.get("/teams/acme/projects/mobile").await.assert_ok(StatusCode::OK);
    assert_eq!(project["data"]["placeholderFormat"], "icu", "{project}");
    app.create_key("web", &[], &[("en", "Hi {name}")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = app.get(&format!("{KEYS}/web")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["placeholders"], "icu");
}

#[tokio::test]
async fn an_android_key_exports_in_each_platforms_syntax_and_as_stored_with_keep() {
    let app = app_with_android_key().await;
    let (strings, reply) = exported(&app, "type=apple-strings&languages=fr").await;
    assert!(
        strings.contains("\"inbox\" = \"%2$lld messages pour %1$@ (100%%)\";"),
        "{strings}"
    );
    assert!(reply.get("warnings").is_none(), "{reply}");

    let (android, _) = exported(&app, "type=android-xml&languages=fr").await;
    assert!(android.contains("%2$d messages pour %1$s (100%%)"), "{android}");

    let (i18next, _) = exported(&app, "type=i18next&languages=en").await;
    let i18next: Value = serde_json::from_str(&i18next).unwrap();
    assert_eq!(i18next["inbox"], "Hello {{arg1}}, you have {{arg2}} messages (100%)");

    let (yaml, _) = exported(&app, "type=yaml&languages=fr").await;
    assert!(yaml.contains("%{arg2} messages pour %{arg1} (100%%)"), "{yaml}");

    let (arb, _) = exported(&app, "type=arb&languages=en").await;
    let arb: Value = serde_json::from_str(&arb).unwrap();
    assert_eq!(arb["inbox"], "Hello {arg1}, you have {arg2} messages (100%)");
    assert_eq!(
        arb["@inbox"]["placeholders"],
        json!({"arg1": {"type": "Object"}, "arg2": {"type": "Object"}})
    );

    // JSON writes texts as stored; so does every format with `placeholders=keep`.
    let (flat, _) = exported(&app, "type=json&languages=fr").await;
    let flat: Value = serde_json::from_str(&flat).unwrap();
    assert_eq!(flat["inbox"], "%2$d messages pour %1$s (100%%)");
    let (kept, _) = exported(&app, "type=apple-strings&languages=fr&placeholders=keep").await;
    assert!(
        kept.contains("\"inbox\" = \"%2$d messages pour %1$s (100%%)\";"),
        "{kept}"
    );
}

#[tokio::test]
async fn placeholder_names_name_the_arguments_of_named_syntaxes() {
    let app = app_with_android_key().await;
    app.patch(&format!("{KEYS}/inbox"), json!({"placeholderNames": ["name", "count"]}))
        .await
        .assert_ok(StatusCode::OK);
    let (i18next, _) = exported(&app, "type=i18next&languages=fr").await;
    let i18next: Value = serde_json::from_str(&i18next).unwrap();
    assert_eq!(i18next["inbox"], "{{count}} messages pour {{name}} (100%)");
}

#[tokio::test]
async fn what_cannot_convert_is_left_as_it_is_and_listed_in_the_exports_warnings() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        KEYS,
        json!({
            "name": "liked",
            "placeholders": "icu",
            "translations": [{"language": "en", "content": "{g, select, female {She} other {They}} liked {post}"}]
        }),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let (strings, reply) = exported(&app, "type=apple-strings&languages=en").await;
    assert!(
        strings.contains("\"liked\" = \"{g, select, female {She} other {They}} liked %1$@\";"),
        "{strings}"
    );
    let warnings = reply["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{reply}");
    assert_eq!(warnings[0]["key"], "liked");
    assert_eq!(warnings[0]["language"], "en");
    assert!(warnings[0]["message"].as_str().unwrap().contains("select"), "{reply}");
    // Asked again, the files are reused and the warnings still told.
    let again = app
        .get(&format!("{KEYS}/export?type=apple-strings&languages=en"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(again["warnings"], reply["warnings"]);
    let kept = app
        .get(&format!(
            "{KEYS}/export?type=apple-strings&languages=en&placeholders=keep"
        ))
        .await
        .assert_ok(StatusCode::OK);
    assert!(kept.get("warnings").is_none(), "{kept}");
}

#[tokio::test]
async fn android_markup_is_stripped_for_apple_and_kept_as_tags_for_the_web() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        KEYS,
        json!({
            "name": "tap",
            "placeholders": "printf",
            "markup": true,
            "translations": [{"language": "en", "content": "Tap <b>%1$s</b> &amp; go"}]
        }),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let (strings, reply) = exported(&app, "type=apple-strings&languages=en").await;
    assert!(strings.contains("\"tap\" = \"Tap %1$@ & go\";"), "{strings}");
    assert_eq!(
        reply["warnings"][0]["message"],
        "the markup tags are stripped: the format has none"
    );
    let (i18next, _) = exported(&app, "type=i18next&languages=en").await;
    let i18next: Value = serde_json::from_str(&i18next).unwrap();
    assert_eq!(i18next["tap"], "Tap <b>{{arg1}}</b> & go");
    let (android, _) = exported(&app, "type=android-xml&languages=en").await;
    assert!(android.contains("Tap <b>%1$s</b> &amp; go"), "{android}");
}

#[tokio::test]
async fn a_plural_android_key_exports_as_an_icu_plural_with_its_count() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        KEYS,
        json!({
            "name": "files",
            "plural": true,
            "placeholders": "printf",
            "translations": [{"language": "en", "forms": {"one": "%d file", "other": "%d files"}}]
        }),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let (arb, _) = exported(&app, "type=arb&languages=en").await;
    let arb: Value = serde_json::from_str(&arb).unwrap();
    assert_eq!(
        arb["files"],
        "{count, plural, one {{count} file} other {{count} files}}"
    );
    assert_eq!(arb["@files"]["placeholders"], json!({"count": {"type": "num"}}));
    let (i18next, _) = exported(&app, "type=i18next&languages=en").await;
    let i18next: Value = serde_json::from_str(&i18next).unwrap();
    assert_eq!(i18next["files_one"], "{{count}} file");
}

#[tokio::test]
async fn uploads_record_the_files_syntax_and_convert_another_platforms_texts_into_the_keys() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let android = br#"<resources><string name="inbox">Hello %1$s, you have %2$d messages</string></resources>"#;
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml&language=en",
        "application/xml",
        android.to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{KEYS}/inbox")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["placeholders"], "printf");

    // The iOS app's French file: its `%@` and `%lld` become the Android key's `%s` and `%d`.
    let strings = "\"inbox\" = \"%2$lld messages pour %1$@\";\n\"ios_only\" = \"Salut %@\";\n";
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=apple-strings&language=fr",
        "text/plain",
        strings.as_bytes().to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{KEYS}/inbox")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "%2$d messages pour %1$s");
    assert_eq!(key["data"]["placeholders"], "printf");
    let ios = app.get(&format!("{KEYS}/ios_only")).await.assert_ok(StatusCode::OK);
    assert_eq!(ios["data"]["placeholders"], "apple");
    // And the check reads both as one placeholder each.
    let checks = app
        .get("/teams/acme/projects/mobile/checks")
        .await
        .assert_ok(StatusCode::OK);
    assert!(!checks.to_string().contains("\"placeholders\""), "{checks}");

    // A PO entry's flag says its syntax, and the PO export writes it back.
    let po = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\n#, python-format\nmsgctxt \"greet\"\nmsgid \"Hi %(name)s\"\nmsgstr \"Salut %(name)s\"\n";
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=po&language=fr",
        "text/x-gettext-translation",
        po.as_bytes().to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    // (gettext names the key by its context and msgid together.)
    let keys = app.every_key("").await;
    let greet = keys
        .iter()
        .find(|key| key["name"].as_str().unwrap().starts_with("greet"))
        .unwrap();
    assert_eq!(greet["placeholders"], "python", "{greet}");
    let (po, _) = exported(&app, "type=po&languages=fr&layout=export").await;
    assert!(po.contains("#, python-format\nmsgctxt \"greet\""), "{po}");
    let (i18next, _) = exported(&app, "type=i18next&languages=fr").await;
    assert!(i18next.contains("\"Salut {{name}}\""), "{i18next}");
}
