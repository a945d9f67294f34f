use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::TestApp;

const KEYS: &str = "/teams/acme/projects/mobile/keys";

/// Percent-encodes a key name for one path segment.
fn encode(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn names(reply: &Value) -> Vec<String> {
    reply["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_key_is_created_read_updated_and_deleted() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key(
        "home.title",
        &["ui", "home", "ui"],
        &[("en", "Home"), ("fr", "Accueil")],
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let key = app.get(&format!("{KEYS}/home.title")).await.assert_ok(StatusCode::OK);
    assert_eq!(
        key,
        json!({"data": {"name": "home.title", "namespace": "", "tags": ["ui", "home"], "translation": {"en": "Home", "fr": "Accueil"}, "description": "", "plural": false, "markup": false, "translatable": true, "files": {}, "outdated": [], "ignoreChecks": []}})
    );

    let update = json!({"tags": ["b", "a"], "translations": [{"language": "fr", "content": ""}, {"language": "pt-BR", "content": "Início"}]});
    app.patch(&format!("{KEYS}/home.title"), update)
        .await
        .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{KEYS}/home.title")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["tags"], json!(["b", "a"]));
    assert_eq!(key["data"]["translation"], json!({"en": "Home", "pt-BR": "Início"}));

    app.patch(&format!("{KEYS}/home.title"), json!({"name": "home.heading"}))
        .await
        .assert_ok(StatusCode::OK);
    app.get(&format!("{KEYS}/home.title"))
        .await
        .error_code(StatusCode::NOT_FOUND);
    let key = app.get(&format!("{KEYS}/home.heading")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["en"], "Home");
    assert_eq!(
        app.git(&["log", "-1", "--format=%s"]).trim(),
        "Rename key \"home.title\" to \"home.heading\" in acme/mobile"
    );

    app.delete(&format!("{KEYS}/home.heading"))
        .await
        .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/home.heading"))
        .await
        .error_code(StatusCode::NOT_FOUND);
    assert_eq!(
        names(&app.get(KEYS).await.assert_ok(StatusCode::OK)),
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn key_names_may_be_any_text_and_are_percent_encoded_in_paths() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let hard = [
        "errors/network",
        "Hello, %@!",
        "say \"hi\"",
        "two words",
        "🎉 party",
        "..",
        "../../etc/passwd",
        "a\\b",
        "日本語のキー",
        &"ü".repeat(512),
    ];
    for name in hard {
        app.create_key(name, &[], &[("en", name)])
            .await
            .assert_ok(StatusCode::CREATED);
        let key = app
            .get(&format!("{KEYS}/{}", encode(name)))
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(key["data"]["name"], name);
        assert_eq!(key["data"]["translation"]["en"], name);
    }
    app.patch(
        &format!("{KEYS}/{}", encode("errors/network")),
        json!({"tags": ["net"]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/{}", encode("../../etc/passwd")))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        names(&app.get(&format!("{KEYS}?limit=100")).await.assert_ok(StatusCode::OK)).len(),
        hard.len() - 1
    );
    // Every file stayed inside the project's keys folder.
    let files = app.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    for file in files.lines().filter(|file| file.starts_with("teams/")) {
        assert!(file.starts_with("teams/acme/"), "{file}");
        assert!(file.len() <= 200, "{file}");
    }
}

#[tokio::test]
async fn names_differing_only_by_case_are_two_keys() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("Title", &[], &[("en", "Upper")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key("title", &[], &[("en", "Lower")])
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(
        app.get(&format!("{KEYS}/Title")).await.json()["data"]["translation"]["en"],
        "Upper"
    );
    assert_eq!(
        app.get(&format!("{KEYS}/title")).await.json()["data"]["translation"]["en"],
        "Lower"
    );
    let files = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    let folded: std::collections::HashSet<String> = files.lines().map(str::to_lowercase).collect();
    assert_eq!(
        folded.len(),
        2,
        "the two files must differ even on a case-insensitive file system: {files}"
    );
}

#[tokio::test]
async fn bad_keys_are_refused_with_reasons() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[]).await.assert_ok(StatusCode::CREATED);
    assert_eq!(
        app.create_key("k", &[], &[]).await.error_code(StatusCode::CONFLICT),
        "conflict"
    );
    let reply = app.create_key("x", &[], &[("de", "Hallo")]).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("en, fr, pt-BR"),
        "the message names the project's languages: {message}"
    );
    let reply = app.create_key("x", &[], &[("en", "a"), ("en", "b")]).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    for name in ["", "nul\0", &"x".repeat(16 * 1024 + 1)] {
        assert_eq!(
            app.create_key(name, &[], &[]).await.error_code(StatusCode::BAD_REQUEST),
            "invalid_request",
            "{name:?}"
        );
    }
    let reply = app.post(KEYS, json!({"tags": []})).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app
        .patch(
            &format!("{KEYS}/k"),
            json!({"name": "k2", "translations": [{"language": "xx", "content": "?"}]}),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    app.create_key("k2", &[], &[]).await.assert_ok(StatusCode::CREATED);
    assert_eq!(
        app.patch(&format!("{KEYS}/k"), json!({"name": "k2"}))
            .await
            .error_code(StatusCode::CONFLICT),
        "conflict"
    );
}

#[tokio::test]
async fn a_translation_may_name_a_language_in_another_case_or_separator() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("pt_br", "Olá")])
        .await
        .assert_ok(StatusCode::CREATED);
    let key = app.get(&format!("{KEYS}/k")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"], json!({"pt-BR": "Olá"}));
}

#[tokio::test]
async fn the_query_pages_in_code_point_order_both_ways_with_totals_in_headers() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for name in ["b", "a", "C", "é", "d"] {
        app.create_key(name, &[], &[("en", name)])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let reply = app.get(&format!("{KEYS}?page=1&limit=2")).await;
    assert_eq!(names(&reply.assert_ok(StatusCode::OK)), ["C", "a"]);
    assert_eq!(reply.header("x-pagination-total-count"), "5");
    assert_eq!(reply.header("x-pagination-page"), "1");
    assert_eq!(reply.header("x-pagination-limit"), "2");
    assert_eq!(reply.header("x-pagination-page-count"), "3");
    assert_eq!(names(&app.get(&format!("{KEYS}?page=3&limit=2")).await.json()), ["é"]);
    assert_eq!(
        names(&app.get(&format!("{KEYS}?page=1&limit=2&sort=desc")).await.json()),
        ["é", "d"]
    );
    assert_eq!(
        names(&app.get(&format!("{KEYS}?page=3&limit=2&sort=desc")).await.json()),
        ["C"]
    );
    let past = app.get(&format!("{KEYS}?page=9&limit=2")).await;
    assert_eq!(names(&past.assert_ok(StatusCode::OK)), Vec::<String>::new());
    assert_eq!(past.header("x-pagination-total-count"), "5");
    let default = app.get(KEYS).await;
    assert_eq!(default.header("x-pagination-limit"), "20");
    assert_eq!(default.header("x-pagination-page"), "1");
}

#[tokio::test]
async fn the_query_refuses_out_of_range_parameters() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for query in [
        "page=0",
        "page=-1",
        "limit=0",
        "limit=1001",
        "sort=up",
        "page=abc",
        "page=9223372036854775808",
        "limit=1.5",
    ] {
        let reply = app.get(&format!("{KEYS}?{query}")).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{query}");
    }
    app.get(&format!("{KEYS}?limit=1000&page=9223372036854775807"))
        .await
        .assert_ok(StatusCode::OK);
}

#[tokio::test]
async fn the_keyword_matches_names_and_translations_without_regard_to_case() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.TITLE", &[], &[("en", "Welcome")]).await;
    app.create_key("settings", &[], &[("fr", "Réglages ÉTÉ")]).await;
    app.create_key("other", &[], &[("en", "nothing")]).await;
    let search = |keyword: &'static str| {
        let app = &app;
        async move {
            names(
                &app.get(&format!("{KEYS}?keyword={keyword}"))
                    .await
                    .assert_ok(StatusCode::OK),
            )
        }
    };
    assert_eq!(search("title").await, ["home.TITLE"]);
    assert_eq!(search("wELCOME").await, ["home.TITLE"]);
    assert_eq!(search("%C3%A9t%C3%A9").await, ["settings"]);
    assert_eq!(search("o").await, ["home.TITLE", "other"]);
    let empty = app.get(&format!("{KEYS}?keyword=zzz")).await;
    assert_eq!(empty.header("x-pagination-total-count"), "0");
    assert_eq!(empty.header("x-pagination-page-count"), "0");
}

#[tokio::test]
async fn the_deprecated_patch_names_the_key_in_the_body() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("errors/network", &[], &[("en", "Down")]).await;
    let body = json!({"name": "errors/network", "translations": [{"language": "fr", "content": "En panne"}]});
    app.patch(KEYS, body).await.assert_ok(StatusCode::OK);
    let key = app
        .get(&format!("{KEYS}/errors%2Fnetwork"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"], json!({"en": "Down", "fr": "En panne"}));
    assert_eq!(
        app.patch(KEYS, json!({"name": "ghost"}))
            .await
            .error_code(StatusCode::NOT_FOUND),
        "not_found"
    );
}

#[tokio::test]
async fn a_key_named_export_is_found_through_the_query_and_changed_by_its_path() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("export", &[], &[("en", "Export")])
        .await
        .assert_ok(StatusCode::CREATED);
    let found = app
        .get(&format!("{KEYS}?keyword=export"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(names(&found), ["export"]);
    app.patch(&format!("{KEYS}/export"), json!({"tags": ["x"]}))
        .await
        .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/export")).await.assert_ok(StatusCode::OK);
    assert_eq!(names(&app.get(KEYS).await.json()), Vec::<String>::new());
}

/// The record of a base text, as key files keep it: the first four bytes of its SHA-256.
fn base_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    digest[..4].iter().map(|byte| format!("{byte:02x}")).collect()
}

#[tokio::test]
async fn key_files_are_written_for_review() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &["ui"], &[("pt-BR", "Início"), ("en", "Two\nlines")])
        .await;
    let path = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    let path = path.trim();
    assert!(path.ends_with("/home.title.toml"), "{path}");
    let text = std::fs::read_to_string(app.repo().join(path)).unwrap();
    assert_eq!(
        text,
        format!(
            "name = \"home.title\"\ntags = [\"ui\"]\n\n[translations]\nen = \"\"\"\nTwo\nlines\"\"\"\npt-BR = \"Início\"\n\n[based_on]\npt-BR = \"{}\"\n",
            base_hash("Two\nlines")
        )
    );
    app.create_key("Hello, %@!", &[], &[]).await;
    let files = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    assert!(
        files
            .lines()
            .any(|file| file.ends_with("/hello_____~92793b91c8dd9871.toml")),
        "{files}"
    );
}

#[tokio::test]
async fn key_changes_need_write_access() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let body = json!({"name": "k"});
    let reply = app
        .call(Method::POST, KEYS, Some(body.clone()), Some(&app.read_token))
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    app.call(Method::POST, KEYS, Some(body), Some(&app.write_token))
        .await
        .assert_ok(StatusCode::CREATED);
    app.call(Method::GET, &format!("{KEYS}/k"), None, Some(&app.read_token))
        .await
        .assert_ok(StatusCode::OK);
    let reply = app
        .call(Method::DELETE, &format!("{KEYS}/k"), None, Some(&app.read_token))
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    assert_eq!(app.git(&["log", "-1", "--format=%an"]).trim(), "writer");
}

#[tokio::test]
async fn a_keys_files_and_translatable_flag_are_set_shown_and_checked() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let create = json!({"name": "app_name", "translatable": false, "files": {"android": "donottranslate.xml", "apple": "InfoPlist", "web": ""},
        "translations": [{"language": "en", "content": "Acme"}]});
    app.post(KEYS, create).await.assert_ok(StatusCode::CREATED);
    let key = app.get(&format!("{KEYS}/app_name")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translatable"], false);
    assert_eq!(
        key["data"]["files"],
        json!({"android": "donottranslate.xml", "apple": "InfoPlist"})
    );
    let commits = app.commit_count();

    // A key kept in the base language takes no other language's text.
    let reply = app
        .patch(
            &format!("{KEYS}/app_name"),
            json!({"translations": [{"language": "fr", "content": "Acmé"}]}),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not translatable")
    );
    // No file name may leave a language's folder.
    for files in [
        json!({"android": "../strings.xml"}),
        json!({"android": "strings"}),
        json!({"apple": "a/b"}),
        json!({"web": "common.json"}),
    ] {
        let reply = app.patch(&format!("{KEYS}/app_name"), json!({"files": files})).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{files}");
    }
    assert_eq!(app.commit_count(), commits, "refused changes commit nothing");

    // PATCH sets the families it names and removes one with "".
    app.patch(
        &format!("{KEYS}/app_name"),
        json!({"translatable": true, "files": {"android": "", "web": "common"}}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch(
        &format!("{KEYS}/app_name"),
        json!({"translations": [{"language": "fr", "content": "Acmé"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app.get(&format!("{KEYS}/app_name")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["files"], json!({"apple": "InfoPlist", "web": "common"}));
    assert_eq!(key["data"]["translation"]["fr"], "Acmé");
    let query = app
        .get(&format!("{KEYS}?keyword=app_name"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        query["data"][0]["files"],
        json!({"apple": "InfoPlist", "web": "common"})
    );
}

/// The plain page is answered beside poem-openapi's dispatch (src/api/fast.rs); a conditional
/// request always goes through the OpenAPI handler. Both must answer alike, headers and body,
/// for every query the fast path takes, and it must leave to the handler what it cannot take.
#[tokio::test]
async fn a_page_answered_by_the_fast_path_is_the_openapi_handlers_answer() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for name in ["b", "a", "C", "é", " spaced ", "line\nbreak", "100%"] {
        app.create_key(name, &["ui"], &[("en", name), ("fr", "Bonjour")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    app.post(
        KEYS,
        json!({"name": "b", "namespace": "glossary", "translations": [{"language": "en", "content": "B"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let conditional = |path: String| {
        let app = &app;
        async move {
            let request = app
                .client
                .request(Method::GET, &path)
                .header("X-Api-Token", crate::helpers::ADMIN)
                .header("If-None-Match", "\"another page\"");
            crate::helpers::into_reply(request.send().await).await
        }
    };
    for query in [
        "",
        "?",
        "?page=2&limit=3",
        "?limit=1000&page=9223372036854775807",
        "?sort=desc&limit=2",
        "?keyword=BONJ",
        "?keyword=%C3%A9",
        "?keyword=",
        "?namespace=",
        "?namespace=glossary",
        "?namespace=missing",
        "?page=0",
        "?limit=1001",
        "?sort=up",
        "?page=x",
        "?page=1&page=2",
        "?tags=ui",
        "?unknown=1",
    ] {
        let path = format!("{KEYS}{query}");
        let fast = app.get(&path).await;
        let handler = conditional(path).await;
        assert_eq!(fast.status, handler.status, "{query}");
        assert_eq!(fast.body, handler.body, "{query}");
        let headers = |reply: &crate::helpers::Reply| {
            let mut headers: Vec<(String, String)> = reply
                .headers
                .iter()
                .filter(|(name, _)| name.as_str() != "x-request-id")
                .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
                .collect();
            headers.sort();
            headers
        };
        assert_eq!(headers(&fast), headers(&handler), "{query}");
    }
    // A page kept from an earlier commit is never answered after a change.
    let before = app.get(&format!("{KEYS}?limit=2")).await;
    assert_eq!(names(&before.json()), [" spaced ", "100%"]);
    app.create_key(" a", &[], &[("en", "first")])
        .await
        .assert_ok(StatusCode::CREATED);
    let after = app.get(&format!("{KEYS}?limit=2")).await;
    assert_eq!(names(&after.json()), [" a", " spaced "]);
    assert_ne!(before.header("etag"), after.header("etag"));
    assert_eq!(after.header("x-pagination-total-count"), "9");
    // Another team's token and an unknown token get the handler's answers.
    app.call(Method::GET, KEYS, None, Some("not-a-token"))
        .await
        .error_code(StatusCode::UNAUTHORIZED);
    app.call(
        Method::GET,
        "/teams/other/projects/mobile/keys",
        None,
        Some(&app.acme_token),
    )
    .await
    .error_code(StatusCode::NOT_FOUND);
    app.get("/teams/acme/projects/missing/keys")
        .await
        .error_code(StatusCode::NOT_FOUND);
}
