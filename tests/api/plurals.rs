//! Plural keys and descriptions through the key endpoints: what a client sends, what it reads
//! back, what the TOML file says, and what is refused.

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;

const KEYS: &str = "/teams/acme/projects/mobile/keys";

/// The key's TOML file, wherever the layout put it.
fn key_file(app: &TestApp, name: &str) -> String {
    let file_name = format!("{name}.toml");
    let path = walkdir::WalkDir::new(app.repo().join("teams/acme/projects/mobile/keys"))
        .into_iter()
        .map(Result::unwrap)
        .find(|entry| entry.file_name().to_str() == Some(file_name.as_str()))
        .unwrap_or_else(|| panic!("no file for {name}"));
    std::fs::read_to_string(path.path()).unwrap()
}

async fn key(app: &TestApp, name: &str) -> Value {
    app.get(&format!("{KEYS}/{name}")).await.assert_ok(StatusCode::OK)["data"].clone()
}

#[tokio::test]
async fn a_plural_key_keeps_its_forms_and_description_through_create_patch_and_query() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let create = json!({
        "name": "episodes.count",
        "description": "Shown under a podcast's title.\nKeep it short.",
        "plural": true,
        "translations": [
            {"language": "en", "forms": {"one": "%d episode", "other": "%d episodes"}},
            {"language": "fr", "forms": {"one": "%d épisode", "many": "%d d’épisodes", "other": "%d épisodes", "few": ""}},
        ]
    });
    app.post(KEYS, create).await.assert_ok(StatusCode::CREATED);
    assert_eq!(
        key(&app, "episodes.count").await,
        json!({
            "name": "episodes.count",
            "namespace": "",
            "tags": [],
            "translation": {
                "en": {"one": "%d episode", "other": "%d episodes"},
                "fr": {"one": "%d épisode", "many": "%d d’épisodes", "other": "%d épisodes"},
            },
            "description": "Shown under a podcast's title.\nKeep it short.",
            "plural": true,
            "markup": false,
            "translatable": true,
            "files": {},
            "outdated": [],
            "ignoreChecks": [],
        })
    );
    // One line per form, in CLDR order, so that a diff shows which form changed.
    let file = key_file(&app, "episodes.count");
    let fr = file.find("[translations.fr]").expect(&file);
    let (one, many, other) = (
        file.find("one = \"%d épisode\"").unwrap(),
        file.find("many = ").unwrap(),
        file.find("other = \"%d épisodes\"").unwrap(),
    );
    assert!(fr < one && one < many && many < other, "{file}");

    // Forms given replace that language's forms; other languages keep theirs; an empty object
    // removes the translation.
    let patch = json!({"translations": [
        {"language": "fr", "forms": {"one": "%d épisode", "other": "%d épisodes !"}},
        {"language": "en", "forms": {}},
        {"language": "pt-BR", "forms": {"other": "%d episódios"}},
    ]});
    app.patch(&format!("{KEYS}/episodes.count"), patch)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        key(&app, "episodes.count").await["translation"],
        json!({"fr": {"one": "%d épisode", "other": "%d épisodes !"}, "pt-BR": {"other": "%d episódios"}})
    );

    // The keyword finds forms and descriptions, and the query shows the same fields.
    for keyword in ["EPISÓDIOS", "under a podcast"] {
        let page = app
            .get(&format!(
                "{KEYS}?keyword={}",
                keyword.replace(' ', "%20").replace('Ó', "%C3%93")
            ))
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(page["data"].as_array().unwrap().len(), 1, "{keyword}: {page}");
        assert_eq!(page["data"][0], key(&app, "episodes.count").await);
    }

    // `""` clears the description, and the file no longer mentions it.
    app.patch(&format!("{KEYS}/episodes.count"), json!({"description": ""}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key(&app, "episodes.count").await["description"], "");
    assert!(!key_file(&app, "episodes.count").contains("description"));
}

#[tokio::test]
async fn switching_a_key_to_and_from_plural_converts_its_texts_in_one_commit() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("inbox", &[], &[("en", "Messages"), ("fr", "Messages reçus")])
        .await
        .assert_ok(StatusCode::CREATED);
    let commits = app.commit_count();
    app.patch(&format!("{KEYS}/inbox"), json!({"plural": true}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1);
    assert_eq!(
        key(&app, "inbox").await["translation"],
        json!({"en": {"other": "Messages"}, "fr": {"other": "Messages reçus"}})
    );

    // The translations of the same request follow the new setting.
    app.patch(
        &format!("{KEYS}/inbox"),
        json!({"plural": false, "translations": [{"language": "en", "content": "Inbox"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let inbox = key(&app, "inbox").await;
    assert_eq!(inbox["plural"], false);
    assert_eq!(inbox["translation"], json!({"en": "Inbox", "fr": "Messages reçus"}));
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn the_wrong_shape_of_translation_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("title", &[], &[("en", "Title")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        KEYS,
        json!({"name": "count", "plural": true, "translations": [{"language": "en", "forms": {"other": "%d"}}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let commits = app.commit_count();
    let refused = [
        // Forms on a plain key and content on a plural key.
        ("title", json!({"language": "en", "forms": {"other": "x"}})),
        ("count", json!({"language": "en", "content": "x"})),
        // Both, neither, and both null.
        (
            "title",
            json!({"language": "en", "content": "x", "forms": {"other": "x"}}),
        ),
        ("title", json!({"language": "en"})),
        ("title", json!({"language": "en", "content": null, "forms": null})),
        // Forms without `other`, an unknown category, a form that is not text.
        ("count", json!({"language": "en", "forms": {"one": "%d"}})),
        (
            "count",
            json!({"language": "en", "forms": {"other": "%d", "several": "%d"}}),
        ),
        ("count", json!({"language": "en", "forms": {"other": 3}})),
    ];
    for (name, translation) in refused {
        let reply = app
            .patch(
                &format!("{KEYS}/{name}"),
                json!({"translations": [translation.clone()]}),
            )
            .await;
        assert_eq!(
            reply.error_code(StatusCode::BAD_REQUEST),
            "invalid_request",
            "{translation}"
        );
    }
    // A description past 4,000 characters or with a control character.
    for description in ["x".repeat(4001), "bell\u{7}".to_owned()] {
        let reply = app
            .patch(&format!("{KEYS}/title"), json!({"description": description}))
            .await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    }
    assert_eq!(app.commit_count(), commits);
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn a_refused_shape_names_the_language_and_what_to_send() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let reply = app
        .post(
            KEYS,
            json!({"name": "a", "translations": [{"language": "pt-BR", "content": null, "forms": null}]}),
        )
        .await;
    reply.error_code(StatusCode::BAD_REQUEST);
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("pt-BR") && message.contains("`forms`"), "{message}");
}

#[tokio::test]
async fn a_markup_keys_texts_must_be_well_formed_fragments() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        KEYS,
        json!({"name": "styled", "markup": true, "translations": [{"language": "en", "content": "Tap <b>here</b> &amp; go"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let commits = app.commit_count();
    for bad in ["Tap <b>here", "a < b", "Tom & Jerry", "&nbsp;", "</i>"] {
        let reply = app
            .patch(
                &format!("{KEYS}/styled"),
                json!({"translations": [{"language": "fr", "content": bad}]}),
            )
            .await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{bad}");
    }
    assert_eq!(app.commit_count(), commits);
    // Turning the flag on escapes the old texts, which are then fragments.
    app.create_key("plain", &[], &[("en", "a < b & c")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(&format!("{KEYS}/plain"), json!({"markup": true}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key(&app, "plain").await["translation"]["en"], "a &lt; b &amp; c");
}

/// Rails reads each language's file on its own: a French plain text where English has plural
/// forms, and Brazilian forms where English has one text, are what those languages show.
const RAILS_KINDS: &[(&str, &str)] = &[
    (
        "config/locales/en.yml",
        "en:\n  items:\n    one: \"%{count} item\"\n    other: \"%{count} items\"\n  title: Inbox\n",
    ),
    (
        "config/locales/fr.yml",
        "fr:\n  items: \"%{count} éléments\"\n  title: Boîte\n",
    ),
    (
        "config/locales/pt-BR.yml",
        "pt-BR:\n  items:\n    one: \"%{count} item\"\n    other: \"%{count} itens\"\n  title:\n    one: Caixa única\n    other: Caixas\n",
    ),
];

#[tokio::test]
async fn a_translation_of_the_other_kind_is_held_as_its_app_writes_it_where_languages_are_read_apart() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let files: Vec<(&str, &[u8])> = RAILS_KINDS
        .iter()
        .map(|(path, text)| (*path, text.as_bytes()))
        .collect();
    let zip = crate::upload::zip_of(&files);
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=yaml",
            "application/zip",
            zip.clone(),
        )
        .await
        .assert_ok(StatusCode::OK);
    // Nothing is passed over, and French's one text is missing no form: Rails shows it for
    // every count (the check names Brazilian `many`, which its forms lack).
    let warned: Vec<(&str, &str, &str)> = answer["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|warning| {
            let field = |name: &str| warning[name].as_str().unwrap_or_default();
            (field("key"), field("language"), field("check"))
        })
        .collect();
    assert_eq!(warned, [("items", "pt-BR", "plural_forms")], "{answer}");
    // French's one text is the plural key's `other` form; the plain key shows Brazilian forms.
    let items = key(&app, "items").await;
    assert_eq!(items["plural"], true);
    assert_eq!(items["translation"]["fr"], json!({"other": "%{count} éléments"}));
    let title = key(&app, "title").await;
    assert_eq!(title["plural"], false);
    assert_eq!(
        title["translation"]["pt-BR"],
        json!({"one": "Caixa única", "other": "Caixas"})
    );
    // The key files say each as written: a string in a plural key, a table in a plain one.
    assert!(
        key_file(&app, "items").contains("fr = \"%{count} éléments\"\n"),
        "{}",
        key_file(&app, "items")
    );
    assert!(key_file(&app, "title").contains("[translations.pt-BR]\none = \"Caixa única\"\nother = \"Caixas\"\n"));
    // The Rails export writes each as its file did; Android, which looks keys up by the base
    // language's kind, writes French's text as the `other` form and Brazilian's `other` form.
    let (yaml, _) = crate::placeholders::exported(&app, "type=yaml&languages=fr").await;
    assert!(yaml.contains("  items: \"%{count} éléments\"\n"), "{yaml}");
    let (yaml, _) = crate::placeholders::exported(&app, "type=yaml&languages=pt-BR").await;
    assert!(
        yaml.contains("  title:\n    one: Caixa única\n    other: Caixas\n"),
        "{yaml}"
    );
    let (xml, _) = crate::placeholders::exported(&app, "type=android-xml&languages=fr").await;
    assert!(xml.contains("<item quantity=\"other\">%1$s éléments</item>"), "{xml}");
    let (xml, _) = crate::placeholders::exported(&app, "type=android-xml&languages=pt-BR").await;
    assert!(xml.contains("<string name=\"title\">Caixas</string>"), "{xml}");
    // A keyword finds every form a translation is written with.
    let found = app
        .get(&format!("{KEYS}?keyword=%C3%BAnica"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(found["data"][0]["name"], "title", "{found}");
    // The same files again change nothing.
    let commits = app.commit_count();
    let again = app
        .post_bytes("/teams/acme/projects/mobile/files?type=yaml", "application/zip", zip)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits, "{again}");
    // A client writing back the `other` form alone keeps French one text; forms for the
    // Brazilian translation of the plain key are forms still; a text of the key's kind
    // with more forms replaces the written one.
    let patch = json!({"translations": [{"language": "fr", "forms": {"other": "%{count} objets"}}]});
    app.patch(&format!("{KEYS}/items"), patch)
        .await
        .assert_ok(StatusCode::OK);
    assert!(key_file(&app, "items").contains("fr = \"%{count} objets\"\n"));
    let patch = json!({"translations": [{"language": "pt-BR", "forms": {"one": "Caixa", "other": "Caixas!"}}]});
    app.patch(&format!("{KEYS}/title"), patch)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        key(&app, "title").await["translation"]["pt-BR"],
        json!({"one": "Caixa", "other": "Caixas!"})
    );
    let patch =
        json!({"translations": [{"language": "fr", "forms": {"one": "%{count} objet", "other": "%{count} objets"}}]});
    app.patch(&format!("{KEYS}/items"), patch)
        .await
        .assert_ok(StatusCode::OK);
    let (yaml, _) = crate::placeholders::exported(&app, "type=yaml&languages=fr").await;
    assert!(
        yaml.contains("  items:\n    one: \"%{count} objet\"\n    other: \"%{count} objets\"\n"),
        "{yaml}"
    );
    let patch = json!({"translations": [{"language": "pt-BR", "content": "Caixa de entrada"}]});
    app.patch(&format!("{KEYS}/title"), patch)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key(&app, "title").await["translation"]["pt-BR"], "Caixa de entrada");
    // A plain key still refuses forms for a language it holds as one text.
    let patch = json!({"translations": [{"language": "fr", "forms": {"other": "Boîtes"}}]});
    let reply = app.patch(&format!("{KEYS}/title"), patch).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}

#[tokio::test]
async fn i18next_and_string_catalog_translations_of_the_other_kind_are_exported_as_their_files_wrote_them() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    // i18next: French `files` as one text where English has forms.
    let tree = crate::upload::zip_of(&[
        (
            "en.json",
            br#"{"files_one": "one file", "files_other": "{{count}} files"}"#,
        ),
        ("fr.json", br#"{"files": "des fichiers"}"#),
    ]);
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=i18next",
            "application/zip",
            tree,
        )
        .await
        .assert_ok(StatusCode::OK);
    assert!(
        !answer.to_string().contains("passed over"),
        "French's one text is taken: {answer}"
    );
    assert_eq!(
        key(&app, "files").await["translation"]["fr"],
        json!({"other": "des fichiers"})
    );
    let (json, _) = crate::placeholders::exported(&app, "type=i18next&languages=fr").await;
    assert_eq!(
        serde_json::from_str::<Value>(&json).unwrap(),
        json!({"files": "des fichiers"})
    );
    // A String Catalog: Brazilian as one `stringUnit` where English has plural variations.
    let catalog = json!({
        "sourceLanguage": "en",
        "strings": {
            "songs_count": {
                "localizations": {
                    "en": {"variations": {"plural": {
                        "one": {"stringUnit": {"state": "translated", "value": "%lld song"}},
                        "other": {"stringUnit": {"state": "translated", "value": "%lld songs"}},
                    }}},
                    "pt-BR": {"stringUnit": {"state": "translated", "value": "músicas: %lld"}},
                }
            }
        },
        "version": "1.0"
    });
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=xcstrings",
        "application/json",
        serde_json::to_vec_pretty(&catalog).unwrap(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let songs = key(&app, "songs_count").await;
    assert_eq!(songs["plural"], true, "{songs}");
    assert_eq!(songs["translation"]["pt-BR"], json!({"other": "músicas: %lld"}));
    let (exported, _) = crate::placeholders::exported(&app, "type=xcstrings").await;
    let exported: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(
        exported["strings"]["songs_count"]["localizations"]["pt-BR"],
        json!({"stringUnit": {"state": "translated", "value": "músicas: %lld"}}),
        "{exported}"
    );
}
