//! Namespaces and key names as real apps write them, through the API: a key is its namespace
//! and its name; the same name in two namespaces is two keys, each in a file of its own.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;

const KEYS: &str = "/teams/acme/projects/mobile/keys";

async fn create_in(app: &TestApp, namespace: &str, name: &str, english: &str) {
    app.post(
        KEYS,
        json!({"name": name, "namespace": namespace, "translations": [{"language": "en", "content": english}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
}

/// `(namespace, name)` of every key a query answers, in its order.
async fn listed(app: &TestApp, query: &str) -> Vec<(String, String)> {
    let reply = app
        .get(&format!("{KEYS}?limit=1000&{query}"))
        .await
        .assert_ok(StatusCode::OK);
    reply["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| {
            (
                key["namespace"].as_str().unwrap().to_owned(),
                key["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[tokio::test]
async fn the_same_name_in_two_namespaces_is_two_keys_each_in_its_own_file() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    create_in(&app, "", "No", "No").await;
    create_in(&app, "glossary", "No", "No (the word)").await;
    create_in(&app, "app", "No", "Nope").await;
    // The same name in the same namespace is still a conflict.
    let again = app.post(KEYS, json!({"name": "No", "namespace": "glossary"})).await;
    assert_eq!(again.error_code(StatusCode::CONFLICT), "conflict");

    let default = app.get(&format!("{KEYS}/No")).await.assert_ok(StatusCode::OK);
    assert_eq!(default["data"]["namespace"], "");
    assert_eq!(default["data"]["translation"]["en"], "No");
    let glossary = app
        .get(&format!("{KEYS}/No?namespace=glossary"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(glossary["data"]["namespace"], "glossary");
    assert_eq!(glossary["data"]["translation"]["en"], "No (the word)");
    app.get(&format!("{KEYS}/No?namespace=missing"))
        .await
        .error_code(StatusCode::NOT_FOUND);

    // Each key is a file under its namespace's folder, and the TOML names the namespace.
    let files = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    let files: Vec<&str> = files.lines().collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files.iter().any(|file| file.contains("/keys/@glossary/")), "{files:?}");
    assert!(files.iter().any(|file| file.contains("/keys/@app/")), "{files:?}");
    let glossary_file = files.iter().find(|file| file.contains("@glossary")).unwrap();
    let text = app.git(&["show", &format!("HEAD:{glossary_file}")]);
    assert!(text.starts_with("name = \"No\"\nnamespace = \"glossary\"\n"), "{text}");
    let default_file = files.iter().find(|file| !file.contains('@')).unwrap();
    assert!(
        !app.git(&["show", &format!("HEAD:{default_file}")])
            .contains("namespace")
    );

    // A change to one leaves the others; a delete takes only the one named.
    app.patch(
        &format!("{KEYS}/No?namespace=glossary"),
        json!({"translations": [{"language": "fr", "content": "Non"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let app_key = app
        .get(&format!("{KEYS}/No?namespace=app"))
        .await
        .assert_ok(StatusCode::OK);
    assert!(app_key["data"]["translation"].get("fr").is_none());
    app.delete(&format!("{KEYS}/No?namespace=app"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(listed(&app, "").await, pairs(&[("", "No"), ("glossary", "No")]));
    assert_eq!(app.clean_status().await, "");
    app.git(&["fsck", "--strict"]);
}

#[tokio::test]
async fn the_query_sorts_by_namespace_then_name_and_filters_by_namespace() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for (namespace, name) in [
        ("settings", "title"),
        ("", "zeta"),
        ("common", "title"),
        ("", "alpha"),
        ("common", "cancel"),
        ("settings/profile", "title"),
    ] {
        create_in(&app, namespace, name, &format!("{namespace}:{name}")).await;
    }
    let every = pairs(&[
        ("", "alpha"),
        ("", "zeta"),
        ("common", "cancel"),
        ("common", "title"),
        ("settings", "title"),
        ("settings/profile", "title"),
    ]);
    assert_eq!(listed(&app, "").await, every);
    let mut reversed = every.clone();
    reversed.reverse();
    assert_eq!(listed(&app, "sort=desc").await, reversed);
    // An empty value names the default namespace; a value names one namespace.
    assert_eq!(listed(&app, "namespace=").await, pairs(&[("", "alpha"), ("", "zeta")]));
    assert_eq!(
        listed(&app, "namespace=common").await,
        pairs(&[("common", "cancel"), ("common", "title")])
    );
    assert_eq!(
        listed(
            &app,
            &format!("namespace={}", crate::app_files::urlencode("settings/profile"))
        )
        .await,
        pairs(&[("settings/profile", "title")])
    );
    assert_eq!(listed(&app, "namespace=none").await, pairs(&[]));
    // With a keyword, and paged: the totals count the namespace's keys only.
    assert_eq!(
        listed(&app, "namespace=common&keyword=TITLE").await,
        pairs(&[("common", "title")])
    );
    let page = app.get(&format!("{KEYS}?namespace=common&limit=1&page=2")).await;
    assert_eq!(page.header("x-pagination-total-count"), "2");
    assert_eq!(page.json()["data"][0]["name"], "title");
    // A malformed namespace is refused.
    let bad = app
        .get(&format!("{KEYS}?namespace={}", crate::app_files::urlencode("/lead")))
        .await;
    assert_eq!(bad.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}

#[tokio::test]
async fn a_key_moves_to_another_namespace_as_a_rename_with_its_history() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    create_in(&app, "", "title", "Title").await;
    create_in(&app, "settings", "title", "Settings").await;
    // The target exists: a conflict, nothing changes.
    let clash = app
        .patch(&format!("{KEYS}/title"), json!({"namespace": "settings"}))
        .await;
    assert_eq!(clash.error_code(StatusCode::CONFLICT), "conflict");
    let before = app.commit_count();
    let moved = app
        .patch(
            &format!("{KEYS}/title"),
            json!({"namespace": "common", "name": "heading"}),
        )
        .await;
    moved.assert_ok(StatusCode::OK);
    let since = moved.header("x-locstore-commit").to_owned();
    assert_eq!(app.commit_count(), before + 1);
    assert_eq!(
        listed(&app, "").await,
        pairs(&[("common", "heading"), ("settings", "title")])
    );
    let key = app
        .get(&format!("{KEYS}/heading?namespace=common"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["en"], "Title");

    // The key's history follows it back across the move.
    let history = app
        .get(&format!("{KEYS}/heading/history?namespace=common"))
        .await
        .assert_ok(StatusCode::OK);
    let changes: Vec<&str> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["renamed", "created"]);
    assert_eq!(history["data"][0]["key"]["namespace"], "common");
    assert_eq!(history["data"][1]["key"]["namespace"], "");

    // Changes name both sides of the move.
    let first = app.git(&["rev-list", "--max-parents=0", "HEAD"]);
    let changes = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={}", first.trim()))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        changes["data"],
        json!([
            {"name": "heading", "namespace": "common", "change": "created"},
            {"name": "title", "namespace": "settings", "change": "created"},
        ])
    );
    let parent = app.git(&["rev-parse", &format!("{since}^")]);
    let changes = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={}", parent.trim()))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        changes["data"],
        json!([{"name": "heading", "namespace": "common", "change": "renamed", "from": "title", "fromNamespace": ""}])
    );
    // Moving back to the default namespace with an empty value.
    app.patch(&format!("{KEYS}/heading?namespace=common"), json!({"namespace": ""}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(listed(&app, "").await, pairs(&[("", "heading"), ("settings", "title")]));
}

#[tokio::test]
async fn names_with_outer_spaces_line_breaks_and_percent_signs_are_keys_like_any_other() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let names = [
        " (%@)",
        "trailing space ",
        "Failed to connect…\r\n",
        "two\nlines",
        "100%",
        "%lld. ",
        "tab\there",
        "  ⸱  ",
    ];
    for name in names {
        create_in(&app, "", name, &format!("text of {name}")).await;
        create_in(&app, "Localizable", name, "in a table").await;
    }
    for name in names {
        let reply = app
            .get(&format!("{KEYS}/{}", crate::app_files::urlencode(name)))
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(reply["data"]["name"], name);
        assert_eq!(
            reply["data"]["translation"]["en"],
            Value::from(format!("text of {name}"))
        );
        let reply = app
            .get(&format!(
                "{KEYS}/{}?namespace=Localizable",
                crate::app_files::urlencode(name)
            ))
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(reply["data"]["translation"]["en"], "in a table");
        app.patch(
            &format!("{KEYS}/{}", crate::app_files::urlencode(name)),
            json!({"translations": [{"language": "fr", "content": "fr"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    }
    let mut expected: Vec<String> = names.iter().map(|name| name.to_string()).collect();
    expected.sort();
    let default: Vec<String> = listed(&app, "namespace=")
        .await
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(default, expected);
    // The keyword finds a name by a part with a line break or a percent sign.
    assert_eq!(app.key_names("namespace=&keyword=o%0Al").await, ["two\nlines"]);
    assert_eq!(app.key_names("namespace=&keyword=100%25").await, ["100%"]);
    // The files hold the exact names, and read back after a restart.
    assert_eq!(app.clean_status().await, "");
    let dir = app.stop().await;
    let app = TestApp::spawn_in(dir).await;
    for name in names {
        let reply = app
            .get(&format!("{KEYS}/{}", crate::app_files::urlencode(name)))
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(reply["data"]["translation"]["fr"], "fr", "{name:?}");
    }
    assert_eq!(listed(&app, "namespace=Localizable").await.len(), names.len());
}

#[tokio::test]
async fn an_import_takes_the_same_name_in_several_namespaces() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let body = json!({"mode": "upsert", "keys": [
        {"name": "OK", "translations": [{"language": "en", "content": "OK"}]},
        {"name": "OK", "namespace": "alerts", "translations": [{"language": "en", "content": "Got it"}]},
        {"name": "OK", "namespace": "InfoPlist", "translations": [{"language": "en", "content": "Fine"}]},
    ]});
    let reply = app
        .post(&format!("{KEYS}/import"), body)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(reply["created"], 3);
    assert_eq!(
        listed(&app, "").await,
        pairs(&[("", "OK"), ("InfoPlist", "OK"), ("alerts", "OK")])
    );
    let twice = json!({"keys": [
        {"name": "dup", "namespace": "alerts"},
        {"name": "dup", "namespace": "alerts"},
    ]});
    let reply = app.post(&format!("{KEYS}/import"), twice).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}
