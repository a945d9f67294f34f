//! Completeness and quality: outdated translations, through the API, an upload, an import and
//! a commit made by hand.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, git_in};

const KEYS: &str = "/teams/acme/projects/mobile/keys";

async fn outdated(app: &TestApp, key: &str) -> Value {
    app.get(&format!("{KEYS}/{key}")).await.assert_ok(StatusCode::OK)["data"]["outdated"].clone()
}

/// Where the repository keeps a key's file.
fn key_path(app: &TestApp, key: &str) -> String {
    let files = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    files
        .lines()
        .find(|path| path.ends_with(&format!("/{key}.toml")))
        .unwrap_or_else(|| panic!("no file of {key} in {files}"))
        .to_owned()
}

async fn set(app: &TestApp, key: &str, language: &str, content: &str, query: &str) {
    app.patch(
        &format!("{KEYS}/{key}{query}"),
        json!({"translations": [{"language": language, "content": content}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
}

#[tokio::test]
async fn a_base_change_outdates_translations_until_they_are_written_or_confirmed() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key(
        "save",
        &[],
        &[("en", "Save"), ("fr", "Enregistrer"), ("pt-BR", "Salvar")],
    )
    .await
    .assert_ok(StatusCode::CREATED);
    assert_eq!(outdated(&app, "save").await, json!([]));

    set(&app, "save", "en", "Save all", "").await;
    assert_eq!(outdated(&app, "save").await, json!(["fr", "pt-BR"]));
    // The page of keys says the same.
    let page = app.get(KEYS).await.json();
    assert_eq!(page["data"][0]["outdated"], json!(["fr", "pt-BR"]));
    // The key file says which base text each translation was written against.
    let file = app.git(&["show", &format!("HEAD:{}", key_path(&app, "save"))]);
    assert!(file.contains("\n[based_on]\nfr = \""), "{file}");

    // Writing French makes it current, with no other change.
    set(&app, "save", "fr", "Tout enregistrer", "").await;
    assert_eq!(outdated(&app, "save").await, json!(["pt-BR"]));

    // Confirming keeps the text and makes it current: one commit, then none.
    let commits = app.commit_count();
    let confirmed = app
        .post(&format!("{KEYS}/save/confirm?language=pt-br"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(confirmed["data"]["outdated"], json!([]));
    assert_eq!(confirmed["data"]["translation"]["pt-BR"], "Salvar");
    assert_eq!(app.commit_count(), commits + 1);
    assert_eq!(
        app.git(&["log", "-1", "--format=%s"]).trim(),
        "Confirm key \"save\" in acme/mobile"
    );
    app.post(&format!("{KEYS}/save/confirm"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        app.commit_count(),
        commits + 1,
        "nothing left to confirm, nothing committed"
    );

    // Bad confirmations are refused and change nothing.
    let reply = app.post(&format!("{KEYS}/save/confirm?language=de"), json!(null)).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    app.create_key("only.en", &[], &[("en", "Hi")]).await;
    let reply = app
        .post(&format!("{KEYS}/only.en/confirm?language=fr"), json!(null))
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app.post(&format!("{KEYS}/missing/confirm"), json!(null)).await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
    let reply = app
        .call(
            poem::http::Method::POST,
            &format!("{KEYS}/save/confirm"),
            None,
            Some(&app.read_token),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn keep_current_fixes_a_typo_without_outdating_and_confirm_takes_several_languages() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("colour", &[], &[("en", "Colour"), ("fr", "Couleur"), ("pt-BR", "Cor")])
        .await;
    set(&app, "colour", "en", "Colours", "").await;
    app.post(&format!("{KEYS}/colour/confirm?language=fr"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // As a query parameter: French stays current, Portuguese stays outdated.
    set(&app, "colour", "en", "Colors", "?keepCurrent=true").await;
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // As a body field.
    app.patch(
        &format!("{KEYS}/colour"),
        json!({"translations": [{"language": "en", "content": "Colors!"}], "keepCurrent": true}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!(["pt-BR"]));
    // Without it, both are outdated; one request confirms both.
    set(&app, "colour", "en", "Colours?", "").await;
    assert_eq!(outdated(&app, "colour").await, json!(["fr", "pt-BR"]));
    app.post(
        &format!("{KEYS}/colour/confirm?language=fr&language=pt-BR"),
        json!(null),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "colour").await, json!([]));
}

#[tokio::test]
async fn imports_and_uploads_that_change_base_texts_outdate_the_others() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let import = |keys: Value, query: &str| {
        let app = &app;
        let path = format!("{KEYS}/import{query}");
        async move { app.post(&path, keys).await.assert_ok(StatusCode::OK) }
    };
    import(
        json!({"keys": [
            {"name": "a", "translations": [{"language": "en", "content": "One"}, {"language": "fr", "content": "Un"}]},
            {"name": "b", "translations": [{"language": "en", "content": "Two"}, {"language": "fr", "content": "Deux"}]},
        ]}),
        "",
    )
    .await;
    // An upload of the base language's file changes `a`: its French is outdated, `b`'s not.
    let en = br#"{"a": "One!", "b": "Two"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=en",
        "application/json",
        en,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "a").await, json!(["fr"]));
    assert_eq!(outdated(&app, "b").await, json!([]));
    // Uploading French with `a` unchanged does not make it current; a changed text does.
    let fr = br#"{"a": "Un", "b": "Deux !"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=fr",
        "application/json",
        fr,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "a").await, json!(["fr"]));
    assert_eq!(outdated(&app, "b").await, json!([]));
    // An upsert import with `keepCurrent` fixes `b`'s typo without outdating it.
    import(
        json!({"mode": "upsert", "keepCurrent": true, "keys": [{"name": "b", "translations": [{"language": "en", "content": "Two."}]}]}),
        "",
    )
    .await;
    assert_eq!(outdated(&app, "b").await, json!([]));
    import(
        json!({"mode": "upsert", "keys": [{"name": "b", "translations": [{"language": "en", "content": "Two!"}]}]}),
        "",
    )
    .await;
    assert_eq!(outdated(&app, "b").await, json!(["fr"]));
    // An upload with `keepCurrent=true` too.
    let en = br#"{"a": "One!", "b": "Two!!"}"#.to_vec();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=en&keepCurrent=true",
        "application/json",
        en,
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(outdated(&app, "b").await, json!(["fr"]), "outdated stays outdated");
}

#[tokio::test]
async fn a_base_text_changed_by_a_commit_made_outside_outdates_the_translations() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "Hello"), ("fr", "Bonjour")]).await;
    let path = key_path(&app, "k");
    let path = path.as_str();
    let dir = app.stop().await;

    // A reviewer edits the base text in the repository and commits; the record of French
    // stays as it was.
    let repo = dir.path().join("repo");
    let file = std::fs::read_to_string(repo.join(path)).unwrap();
    assert!(file.contains("en = \"Hello\""), "{file}");
    std::fs::write(repo.join(path), file.replace("en = \"Hello\"", "en = \"Hello there\"")).unwrap();
    git_in(&repo, &["commit", "-q", "-am", "Edit by hand"]);

    let app = TestApp::spawn_in(dir).await;
    assert_eq!(outdated(&app, "k").await, json!(["fr"]));
    // And back by hand: current again.
    let dir = app.stop().await;
    std::fs::write(repo.join(path), file).unwrap();
    git_in(&repo, &["commit", "-q", "-am", "Back by hand"]);
    let app = TestApp::spawn_in(dir).await;
    assert_eq!(outdated(&app, "k").await, json!([]));
}

/// Warnings of a write's answer as `key language check` strings.
fn warnings(answer: &Value) -> Vec<String> {
    answer["warnings"]
        .as_array()
        .map(|warnings| {
            warnings
                .iter()
                .filter(|warning| warning["check"].is_string())
                .map(|warning| {
                    format!(
                        "{} {} {}",
                        warning["key"].as_str().unwrap(),
                        warning["language"].as_str().unwrap(),
                        warning["check"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn every_write_answers_the_failing_checks_of_the_keys_it_wrote_and_is_made_all_the_same() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    // Create: French lost a placeholder (an error), Portuguese its final `?` (a warning).
    let created = app
        .create_key(
            "delete.confirm",
            &[],
            &[
                ("en", "Delete %d files?"),
                ("fr", "Supprimer les fichiers ?"),
                ("pt-BR", "Excluir %d arquivos"),
            ],
        )
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(created["success"], true);
    assert_eq!(
        warnings(&created),
        ["delete.confirm fr placeholders", "delete.confirm pt-BR end_punctuation"]
    );
    let first = &created["warnings"][0];
    assert_eq!(first["severity"], "error");
    assert!(first["message"].as_str().unwrap().contains("%d"), "{first}");
    assert!(first.get("path").is_none() && first.get("form").is_none(), "{first}");
    // The write was made.
    let key = app
        .get(&format!("{KEYS}/delete.confirm"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "Supprimer les fichiers ?");

    // PATCH: fixed French, and the key's ignoreChecks silences the punctuation.
    let patched = app
        .patch(
            &format!("{KEYS}/delete.confirm"),
            json!({"translations": [{"language": "fr", "content": "Supprimer %d fichiers ?"}], "ignoreChecks": ["end_punctuation"]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(patched, json!({"success": true}), "no warnings: none listed");
    let key = app
        .get(&format!("{KEYS}/delete.confirm"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["ignoreChecks"], json!(["end_punctuation"]));
    let file = app.git(&["show", &format!("HEAD:{}", key_path(&app, "delete.confirm"))]);
    assert!(file.contains("ignore_checks = [\"end_punctuation\"]\n"), "{file}");

    // maxLength, in grapheme clusters, applies to every language.
    let patched = app
        .patch(&format!("{KEYS}/delete.confirm"), json!({"maxLength": 20}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        warnings(&patched),
        ["delete.confirm fr max_length"],
        "\"Supprimer %d fichiers ?\" is 23"
    );
    let key = app
        .get(&format!("{KEYS}/delete.confirm"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["maxLength"], 20);
    app.patch(&format!("{KEYS}/delete.confirm"), json!({"maxLength": null}))
        .await
        .assert_ok(StatusCode::OK);
    let key = app
        .get(&format!("{KEYS}/delete.confirm"))
        .await
        .assert_ok(StatusCode::OK);
    assert!(key["data"].get("maxLength").is_none(), "{key}");

    // Bad values are refused and change nothing.
    let commits = app.commit_count();
    let reply = app
        .patch(&format!("{KEYS}/delete.confirm"), json!({"ignoreChecks": ["spelling"]}))
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app
        .patch(&format!("{KEYS}/delete.confirm"), json!({"maxLength": 0}))
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert_eq!(app.commit_count(), commits);

    // Import: the keys it created or updated, not the ones it left alone.
    let imported = app
        .post(
            &format!("{KEYS}/import"),
            json!({"mode": "upsert", "keys": [
                {"name": "delete.confirm", "translations": [{"language": "en", "content": "Delete %d files?"}]},
                {"name": "greeting", "translations": [{"language": "en", "content": "Hello, {name}!"}, {"language": "fr", "content": "Bonjour !"}]},
            ]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(imported["unchanged"], 1);
    assert_eq!(warnings(&imported), ["greeting fr placeholders"]);

    // Upload: an Android file with a Russian plural missing its `few` and `many` forms.
    let en = br#"<resources><plurals name="songs"><item quantity="one">%d song</item><item quantity="other">%d songs</item></plurals></resources>"#;
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml&language=en",
        "application/xml",
        en.to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let ru = r#"<resources><plurals name="songs"><item quantity="one">%d песня</item><item quantity="other">%d песен</item></plurals></resources>"#;
    let uploaded = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml&language=ru&addLanguages=true",
            "application/xml",
            ru.as_bytes().to_vec(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(warnings(&uploaded), ["songs ru plural_forms"], "{uploaded}");
}

/// Every key of the project, read through the query.
async fn every_key(app: &TestApp) -> Vec<Value> {
    let page = app.get(&format!("{KEYS}?limit=1000")).await.assert_ok(StatusCode::OK);
    page["data"].as_array().unwrap().clone()
}

/// A small project with every kind of state: translated, missing, outdated, failing, tagged,
/// not translatable.
async fn varied_project(app: &TestApp) {
    app.seed_project().await;
    let keys = json!({"keys": [
        {"name": "a.ok", "tags": ["web"], "translations": [
            {"language": "en", "content": "Open the file"}, {"language": "fr", "content": "Ouvrir le fichier"},
            {"language": "pt-BR", "content": "Abrir o arquivo"}]},
        {"name": "b.missing", "tags": ["web", "ios"], "translations": [
            {"language": "en", "content": "Save your work now"}, {"language": "fr", "content": "Enregistrez"}]},
        {"name": "c.placeholder", "tags": ["ios"], "translations": [
            {"language": "en", "content": "%d new messages"}, {"language": "fr", "content": "Nouveaux messages"},
            {"language": "pt-BR", "content": "%d novas mensagens"}]},
        {"name": "d.same", "translations": [
            {"language": "en", "content": "Sign in now"}, {"language": "fr", "content": "Sign in now"}]},
        {"name": "e.only.en", "translatable": false, "translations": [{"language": "en", "content": "locstore"}]},
        {"name": "f.empty"},
        {"name": "g.outdated", "tags": ["web"], "translations": [
            {"language": "en", "content": "Colour"}, {"language": "fr", "content": "Couleur"},
            {"language": "pt-BR", "content": "Cor"}]},
    ]});
    app.post(&format!("{KEYS}/import"), keys)
        .await
        .assert_ok(StatusCode::OK);
    app.patch(
        &format!("{KEYS}/g.outdated"),
        json!({"translations": [{"language": "en", "content": "Colours"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
}

/// The stats a test counts from the keys themselves, as the API answers them.
fn counted(keys: &[Value], failing: &dyn Fn(&str, &str) -> bool) -> Value {
    let words = |text: &str| text.split_whitespace().count() as u64;
    let base_words: u64 = keys
        .iter()
        .filter_map(|key| key["translation"]["en"].as_str())
        .map(words)
        .sum();
    let languages: Vec<Value> = ["en", "fr", "pt-BR"]
        .iter()
        .map(|language| {
            let wants: Vec<&Value> = keys
                .iter()
                .filter(|key| *language == "en" || key["translatable"] == true)
                .collect();
            let translated = wants.iter().filter(|key| key["translation"].get(*language).is_some()).count() as u64;
            let missing_words: u64 = wants
                .iter()
                .filter(|key| key["translation"].get(*language).is_none())
                .filter_map(|key| key["translation"]["en"].as_str())
                .map(words)
                .sum();
            let outdated = keys
                .iter()
                .filter(|key| key["outdated"].as_array().unwrap().iter().any(|l| l == language))
                .count();
            let failing = keys
                .iter()
                .filter(|key| failing(key["name"].as_str().unwrap(), language))
                .count();
            let percent = if wants.is_empty() {
                0.0
            } else {
                (translated as f64 * 10_000.0 / wants.len() as f64).round() / 100.0
            };
            json!({"language": language, "translated": translated, "missing": wants.len() as u64 - translated,
                   "outdated": outdated, "failing": failing, "translatedPercent": percent, "missingWords": missing_words})
        })
        .collect();
    json!({"keys": keys.len(), "baseWords": base_words, "languages": languages})
}

#[tokio::test]
async fn stats_equal_a_count_made_from_the_keys_and_follow_tags_and_past_states() {
    let app = TestApp::spawn().await;
    varied_project(&app).await;
    let keys = every_key(&app).await;
    // Which keys fail a check in a language, from the project's checks list.
    let checks = app
        .get("/teams/acme/projects/mobile/checks?limit=1000")
        .await
        .assert_ok(StatusCode::OK);
    let failures: Vec<(String, String)> = checks["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["key"].as_str().unwrap().to_owned(),
                item["language"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let failing = |key: &str, language: &str| failures.iter().any(|(k, l)| k == key && l == language);
    let stats = app
        .get("/teams/acme/projects/mobile/stats")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"], counted(&keys, &failing));
    // Spot checks against what the project holds.
    let fr = &stats["data"]["languages"][1];
    assert_eq!(
        (
            fr["translated"].as_u64(),
            fr["missing"].as_u64(),
            fr["outdated"].as_u64()
        ),
        (Some(5), Some(1), Some(1))
    );

    // Tags count only their keys.
    let web: Vec<Value> = keys
        .iter()
        .filter(|key| key["tags"].as_array().unwrap().iter().any(|tag| tag == "web"))
        .cloned()
        .collect();
    let stats = app
        .get("/teams/acme/projects/mobile/stats?tags=web")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"], counted(&web, &failing));

    // A past state: before the base text of g.outdated changed, nothing was outdated.
    let before = app.git(&["rev-parse", "HEAD~1"]).trim().to_owned();
    let stats = app
        .get(&format!("/teams/acme/projects/mobile/stats?at={before}"))
        .await
        .assert_ok(StatusCode::OK);
    assert!(
        stats["data"]["languages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|language| language["outdated"] == 0),
        "{stats}"
    );

    // And after more changes, the counts follow.
    app.post(&format!("{KEYS}/g.outdated/confirm"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    app.delete(&format!("{KEYS}/c.placeholder"))
        .await
        .assert_ok(StatusCode::OK);
    let keys = every_key(&app).await;
    let stats = app
        .get("/teams/acme/projects/mobile/stats")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"], counted(&keys, &failing));
}

#[tokio::test]
async fn the_checks_list_is_paged_in_key_order_and_filtered() {
    let app = TestApp::spawn().await;
    varied_project(&app).await;
    let list = |query: &str| {
        let app = &app;
        let path = format!("/teams/acme/projects/mobile/checks{query}");
        async move { app.get(&path).await }
    };
    let all = list("?limit=1000").await;
    let total: u64 = all.header("x-pagination-total-count").parse().unwrap();
    let all = all.assert_ok(StatusCode::OK);
    let items = all["data"].as_array().unwrap();
    assert_eq!(items.len() as u64, total);
    let rows: Vec<String> = items
        .iter()
        .map(|item| {
            format!(
                "{} {} {} {}",
                item["key"], item["language"], item["check"], item["severity"]
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "\"c.placeholder\" \"fr\" \"placeholders\" \"error\"",
            "\"d.same\" \"fr\" \"same_as_base\" \"warning\"",
        ]
    );
    // Filters: by check, by severity, by language; paging.
    let only = list("?check=placeholders").await.assert_ok(StatusCode::OK);
    assert_eq!(only["data"].as_array().unwrap().len(), 1);
    let warnings = list("?severity=warning").await.assert_ok(StatusCode::OK);
    assert_eq!(warnings["data"].as_array().unwrap().len(), 1);
    let pt = list("?language=pt-br").await.assert_ok(StatusCode::OK);
    assert_eq!(pt["data"], json!([]));
    let second = list("?limit=1&page=2").await;
    assert_eq!(second.header("x-pagination-page-count"), "2");
    assert_eq!(second.assert_ok(StatusCode::OK)["data"][0]["key"], "d.same");
    // Bad filters are 400.
    for bad in ["?check=spelling", "?severity=fatal", "?language=de", "?language=%20x"] {
        assert_eq!(
            list(bad).await.error_code(StatusCode::BAD_REQUEST),
            "invalid_request",
            "{bad}"
        );
    }
}

#[tokio::test]
async fn work_queue_filters_combine_and_match_a_count_made_by_the_test() {
    let app = TestApp::spawn().await;
    varied_project(&app).await;
    let keys = every_key(&app).await;
    let checks = app
        .get("/teams/acme/projects/mobile/checks?limit=1000")
        .await
        .assert_ok(StatusCode::OK);
    let failures: Vec<(String, String, String)> = checks["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["key"].as_str().unwrap().to_owned(),
                item["language"].as_str().unwrap().to_owned(),
                item["check"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let has = |key: &Value, language: &str| key["translation"].get(language).is_some();
    let missing =
        |key: &Value, language: &str| (language == "en" || key["translatable"] == true) && !has(key, language);
    let outdated = |key: &Value, language: &str| key["outdated"].as_array().unwrap().iter().any(|l| l == language);
    let failing = |key: &Value, language: &str| {
        failures
            .iter()
            .any(|(k, l, _)| k == key["name"].as_str().unwrap() && l == language)
    };
    let fails = |key: &Value, check: &str| {
        failures
            .iter()
            .any(|(k, _, c)| k == key["name"].as_str().unwrap() && c == check)
    };
    let tagged = |key: &Value, tag: &str| key["tags"].as_array().unwrap().iter().any(|t| t == tag);

    type Filter<'a> = (&'a str, Box<dyn Fn(&Value) -> bool + 'a>);
    let filters: Vec<Filter> = vec![
        ("missing=fr", Box::new(|key: &Value| missing(key, "fr"))),
        (
            "missing=fr&missing=pt-BR",
            Box::new(|key: &Value| missing(key, "fr") || missing(key, "pt-BR")),
        ),
        (
            "missing=fr,pt-BR",
            Box::new(|key: &Value| missing(key, "fr") || missing(key, "pt-BR")),
        ),
        ("missing=en", Box::new(|key: &Value| missing(key, "en"))),
        ("outdated=fr", Box::new(|key: &Value| outdated(key, "fr"))),
        ("failing=fr", Box::new(|key: &Value| failing(key, "fr"))),
        ("check=placeholders", Box::new(|key: &Value| fails(key, "placeholders"))),
        (
            "check=placeholders&check=same_as_base",
            Box::new(|key: &Value| fails(key, "placeholders") || fails(key, "same_as_base")),
        ),
        (
            "missing=pt-BR&tags=web",
            Box::new(|key: &Value| missing(key, "pt-BR") && tagged(key, "web")),
        ),
        (
            "failing=fr&missing=pt-BR",
            Box::new(|key: &Value| failing(key, "fr") && missing(key, "pt-BR")),
        ),
        (
            "outdated=pt-BR&keyword=col",
            Box::new(|key: &Value| outdated(key, "pt-BR") && key["name"].as_str().unwrap().contains("outdated")),
        ),
        (
            "missing=pt-BR&keyword=e",
            Box::new(|key: &Value| {
                missing(key, "pt-BR") && serde_json::to_string(key).unwrap().to_lowercase().contains('e')
            }),
        ),
        ("tags=ios", Box::new(|key: &Value| tagged(key, "ios"))),
    ];
    for (query, keep) in &filters {
        let expected: Vec<&str> = keys
            .iter()
            .filter(|key| keep(key))
            .map(|key| key["name"].as_str().unwrap())
            .collect();
        for (sort, limit) in [("asc", 1000), ("desc", 1000), ("asc", 2)] {
            let reply = app.get(&format!("{KEYS}?{query}&sort={sort}&limit={limit}")).await;
            assert_eq!(
                reply.header("x-pagination-total-count"),
                expected.len().to_string(),
                "{query}"
            );
            let body = reply.assert_ok(StatusCode::OK);
            let names: Vec<&str> = body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|key| key["name"].as_str().unwrap())
                .collect();
            let mut want: Vec<&str> = expected.clone();
            if sort == "desc" {
                want.reverse();
            }
            want.truncate(limit);
            assert_eq!(names, want, "{query} sort={sort} limit={limit}");
        }
    }
    assert!(!keys.is_empty());
    // Unknown languages and checks are 400.
    for bad in ["missing=de", "outdated=x", "check=spelling"] {
        assert_eq!(
            app.get(&format!("{KEYS}?{bad}"))
                .await
                .error_code(StatusCode::BAD_REQUEST),
            "invalid_request",
            "{bad}"
        );
    }
    // At a past state, the filters read that state.
    let before = app.git(&["rev-parse", "HEAD~1"]).trim().to_owned();
    let reply = app.get(&format!("{KEYS}?outdated=fr&at={before}")).await;
    assert_eq!(reply.header("x-pagination-total-count"), "0");
}
