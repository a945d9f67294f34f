//! The formats beyond the first four, each read back by a reader that is not ours and round
//! tripped on a real app's files: Xcode String Catalogs (PyPI `string-catalog`'s models).

use std::path::Path;
use std::process::Command;

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::platforms::{HARD_TEXTS, python};

/// The name and bytes of an export of acme/mobile that is one file (not a zip).
async fn download(app: &TestApp, query: &str) -> (String, Vec<u8>) {
    crate::platforms::download_export(app, &format!("/teams/acme/projects/mobile/keys/export?{query}")).await
}

async fn project(app: &TestApp, languages: &[&str]) {
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects",
        json!({"name": "mobile", "displayName": "Mobile", "languagesISO": languages}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
}

/// A key for each hard text the API takes (it refuses some control characters), named by
/// `name`, described by `describe` (when it gives a description), with the text in `en` and
/// "{text} ({language})" in `language`: answers the keys made as (index, name, text).
async fn hard_keys(
    app: &TestApp,
    language: &str,
    name: impl Fn(usize) -> String,
    describe: impl Fn(usize, &str) -> Option<String>,
) -> Vec<(usize, String, String)> {
    let mut made = Vec::new();
    for (index, text) in HARD_TEXTS.iter().enumerate() {
        let mut key = json!({"name": name(index), "translations": [
            {"language": "en", "content": text},
            {"language": language, "content": format!("{text} ({language})")},
        ]});
        if let Some(description) = describe(index, text) {
            key["description"] = json!(description);
        }
        let created = app.post("/teams/acme/projects/mobile/keys", key).await;
        if created.status == StatusCode::CREATED {
            made.push((index, name(index), text.to_string()));
        }
    }
    made
}

/// A key whose `language` text was written against the base text `old`, which then became
/// `new`: the translation is outdated.
async fn outdated_key(app: &TestApp, name: &str, language: &str, (old, new): (&str, &str), translation: &str) {
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": name, "translations": [{"language": "en", "content": old}, {"language": language, "content": translation}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("/teams/acme/projects/mobile/keys/{name}"),
        json!({"translations": [{"language": "en", "content": new}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
}

/// Uploads `files` (path, bytes) as a zip of `format` into acme/mobile; answers the upload's
/// answer.
async fn upload_zip(app: &TestApp, format: &str, files: &[(String, Vec<u8>)]) -> Value {
    app.post_bytes(
        &format!("/teams/acme/projects/mobile/files?type={format}"),
        "application/zip",
        crate::upload::zip_of_files(files),
    )
    .await
    .assert_ok(StatusCode::OK)
}

/// Uploads `files` (an export, read back) and checks that nothing changed: no commit, every
/// key as it was. The upload's answer.
async fn upload_changes_nothing(app: &TestApp, format: &str, files: &[(String, Vec<u8>)]) -> Value {
    let before = app.every_key("").await;
    let commits = app.commit_count();
    let answer = upload_zip(app, format, files).await;
    assert_eq!(app.commit_count(), commits, "{answer}");
    assert_eq!(app.every_key("").await, before, "{answer}");
    answer
}

/// A plural key `name` with the forms of every plural case's language.
async fn plural_key(app: &TestApp, name: &str, description: Option<&str>, cases: &[PluralCase]) {
    let translations: Vec<Value> = cases
        .iter()
        .map(|(language, forms, _)| json!({"language": language, "forms": forms}))
        .collect();
    let mut key = json!({"name": name, "plural": true, "translations": translations});
    if let Some(description) = description {
        key["description"] = json!(description);
    }
    app.post("/teams/acme/projects/mobile/keys", key)
        .await
        .assert_ok(StatusCode::CREATED);
}

/// A catalog as PyPI `string-catalog`'s pydantic models read it (tests/tools/xcstrings_read.py).
pub fn read_catalog_bytes(bytes: &[u8]) -> Value {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/xcstrings_read.py");
    let output = Command::new(python()).arg(script).arg(file.path()).output().unwrap();
    assert!(
        output.status.success(),
        "string-catalog refused the catalog: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A path segment: every byte but the unreserved ones percent-encoded.
fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

fn unit(value: &str) -> Value {
    json!({"state": "translated", "value": value})
}

#[tokio::test]
async fn a_real_xcode_catalog_uploads_and_exports_byte_for_byte() {
    let original = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/apps/xcstrings/icecubes/IceCubesApp/Resources/Localization/Localizable.xcstrings"),
    )
    .unwrap();
    let app = TestApp::spawn().await;
    project(&app, &["en"]).await;
    let commits = app.commit_count();
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=xcstrings&addLanguages=true",
            "application/json",
            original.clone(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1, "{answer}");
    // Read as JSON: the strict String Catalog models refuse Xcode's own file (its
    // substitutions leave out `argNum`).
    let read: Value = serde_json::from_slice(&original).unwrap();
    let strings = read["strings"].as_object().unwrap();
    // Every key but the empty one, which no key can be named.
    assert!(strings.contains_key(""));
    assert_eq!(answer["created"], strings.len() - 1, "{answer}");
    assert_eq!(answer["skipped"], 1, "{answer}");

    // Xcode's `needs_review` is an outdated translation.
    let (name, entry) = strings
        .iter()
        .find(|(_, entry)| entry["localizations"]["pl"]["stringUnit"]["state"] == "needs_review")
        .expect("the fixture has a Polish translation to review");
    let key = app
        .get(&format!("/teams/acme/projects/mobile/keys/{}", encode(name)))
        .await
        .assert_ok(StatusCode::OK);
    assert!(
        key["data"]["outdated"].as_array().unwrap().contains(&json!("pl")),
        "{name}: {key} ({entry})"
    );

    // The export writes the project's keys: Xcode's file but for the empty key's entry (a
    // pull, which patches the app's file, leaves that entry where it is).
    let text = String::from_utf8(original).unwrap();
    let start = text.find("\n    \"\" : {").unwrap();
    let end = start + 1 + text[start + 1..].find("\n    },").unwrap() + "\n    },".len();
    let original = format!("{}{}", &text[..start], &text[end..]).into_bytes();
    let (path, exported) = download(&app, "type=xcstrings").await;
    assert_eq!(path, "Localizable.xcstrings");
    if exported != original {
        let at = exported.iter().zip(&original).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "the export differs from Xcode's file at byte {at}: {:?}",
            String::from_utf8_lossy(&exported[at.saturating_sub(200)..(at + 200).min(exported.len())])
        );
    }
}

#[tokio::test]
async fn a_catalog_holds_the_hard_texts_and_plurals_as_a_strict_reader_reads_them() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja"]).await;
    let mut expected = serde_json::Map::new();
    let made = hard_keys(
        &app,
        "ja",
        |index| format!("hard.{index:02}"),
        |index, text| Some(format!("Case {index}: {text}")),
    )
    .await;
    for (index, name, text) in made {
        let text = text.as_str();
        expected.insert(
            name,
            json!({"comment": format!("Case {index}: {text}"), "shouldTranslate": null, "extractionState": null,
                   "localizations": {"en": unit(text), "ja": unit(&format!("{text} (ja)"))}}),
        );
    }
    let forms = |language: &str| match language {
        "en" => json!({"one": "%lld file", "other": "%lld files"}),
        "pl" => json!({"one": "%lld plik", "few": "%lld pliki", "many": "%lld plików", "other": "%lld pliku"}),
        "ar" => {
            json!({"zero": "لا ملفات", "one": "ملف واحد", "two": "ملفان", "few": "%lld ملفات", "many": "%lld ملفًا", "other": "%lld ملف"})
        }
        _ => json!({"other": "%lld 個のファイル"}),
    };
    let translations: Vec<Value> = ["en", "pl", "ar", "ja"]
        .iter()
        .map(|language| json!({"language": language, "forms": forms(language)}))
        .collect();
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "files.count", "plural": true, "translations": translations}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let plural_of = |language: &str| {
        let forms = forms(language);
        let forms: serde_json::Map<String, Value> = forms
            .as_object()
            .unwrap()
            .iter()
            .map(|(category, text)| (category.clone(), unit(text.as_str().unwrap())))
            .collect();
        json!({"plural": forms})
    };
    expected.insert(
        "files.count".into(),
        json!({"comment": null, "shouldTranslate": null, "extractionState": null,
               "localizations": {"en": plural_of("en"), "pl": plural_of("pl"), "ar": plural_of("ar"), "ja": plural_of("ja")}}),
    );
    // Not translated: the base language only, marked so.
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "brand", "translatable": false, "translations": [{"language": "en", "content": "IceCubes"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    expected.insert(
        "brand".into(),
        json!({"comment": null, "shouldTranslate": false, "extractionState": null, "localizations": {"en": unit("IceCubes")}}),
    );

    let (_, exported) = download(&app, "type=xcstrings").await;
    let read = read_catalog_bytes(&exported);
    assert_eq!(read["sourceLanguage"], "en");
    assert_eq!(read["strings"], Value::Object(expected.clone()));

    // What the export wrote, uploaded, changes no text (the keys learn their table), and
    // exports to the same bytes; uploaded again, it changes nothing.
    let upload = || async {
        app.post_bytes(
            "/teams/acme/projects/mobile/files?type=xcstrings",
            "application/json",
            exported.clone(),
        )
        .await
        .assert_ok(StatusCode::OK)
    };
    let answer = upload().await;
    let texts: Vec<&Value> = answer["texts"].as_array().unwrap().iter().collect();
    assert!(
        texts
            .iter()
            .all(|counts| counts["created"] == 0 && counts["updated"] == 0 && counts["removed"] == 0),
        "{answer}"
    );
    assert_eq!(download(&app, "type=xcstrings").await.1, exported);
    let commits = app.commit_count();
    let answer = upload().await;
    assert_eq!(answer["unchanged"], expected.len(), "{answer}");
    assert_eq!(app.commit_count(), commits);
}

#[tokio::test]
async fn substitutions_and_device_variations_are_held_whole_and_round_trip_byte_for_byte() {
    // As Xcode writes them: two plural variables in one text (CotEditor), a text per device
    // (Ice Cubes), beside a plain key.
    let original = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"%lld files in %lld folders\" : {\n      \"localizations\" : {\n        \"en\" : {\n          \"stringUnit\" : {\n            \"state\" : \"new\",\n            \"value\" : \"%#@files@ in %#@folders@\"\n          },\n          \"substitutions\" : {\n            \"files\" : {\n              \"argNum\" : 1,\n              \"formatSpecifier\" : \"lld\",\n              \"variations\" : {\n                \"plural\" : {\n                  \"one\" : {\n                    \"stringUnit\" : {\n                      \"state\" : \"new\",\n                      \"value\" : \"%arg file\"\n                    }\n                  },\n                  \"other\" : {\n                    \"stringUnit\" : {\n                      \"state\" : \"new\",\n                      \"value\" : \"%arg files\"\n                    }\n                  }\n                }\n              }\n            },\n            \"folders\" : {\n              \"argNum\" : 2,\n              \"formatSpecifier\" : \"lld\"\n            }\n          }\n        },\n        \"fr\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"%lld fichiers\"\n          }\n        }\n      }\n    },\n    \"Click\" : {\n      \"localizations\" : {\n        \"fr\" : {\n          \"variations\" : {\n            \"device\" : {\n              \"iphone\" : {\n                \"stringUnit\" : {\n                  \"state\" : \"translated\",\n                  \"value\" : \"Touchez\"\n                }\n              },\n              \"mac\" : {\n                \"stringUnit\" : {\n                  \"state\" : \"translated\",\n                  \"value\" : \"Cliquez\"\n                }\n              }\n            }\n          }\n        }\n      }\n    },\n    \"Plain\" : {\n      \"localizations\" : {\n        \"fr\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"Simple\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}";
    let app = TestApp::spawn().await;
    project(&app, &["en", "fr"]).await;
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=xcstrings",
            "application/json",
            original.as_bytes().to_vec(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 3, "{answer}");
    assert_eq!(answer["skipped"], 0, "{answer}");
    // Each language's localization is one text: the catalog's JSON of it.
    let key = app
        .get("/teams/acme/projects/mobile/keys/%25lld%20files%20in%20%25lld%20folders")
        .await
        .assert_ok(StatusCode::OK);
    let text_of = |key: &Value, language: &str| -> Value {
        let text = key["data"]["translation"][language]
            .as_str()
            .unwrap_or_else(|| panic!("no {language} in {key}"));
        serde_json::from_str(text).unwrap()
    };
    let en = text_of(&key, "en");
    assert_eq!(
        en["substitutions"]["files"]["variations"]["plural"]["other"]["stringUnit"]["value"],
        "%arg files"
    );
    assert_eq!(
        text_of(&key, "fr"),
        json!({"stringUnit": {"state": "translated", "value": "%lld fichiers"}})
    );
    let click = app
        .get("/teams/acme/projects/mobile/keys/Click")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        text_of(&click, "fr")["variations"]["device"]["mac"]["stringUnit"]["value"],
        "Cliquez"
    );

    // The export is the catalog, byte for byte.
    let (_, exported) = download(&app, "type=xcstrings").await;
    assert_eq!(String::from_utf8(exported).unwrap(), original);

    // A translator's edit of the JSON reaches the catalog.
    let mut fr = text_of(&click, "fr");
    fr["variations"]["device"]["iphone"]["stringUnit"]["value"] = json!("Appuyez");
    app.patch(
        "/teams/acme/projects/mobile/keys/Click",
        json!({"translations": [{"language": "fr", "content": fr.to_string()}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let (_, exported) = download(&app, "type=xcstrings").await;
    // string-catalog's models know every member written; they do not give device variations.
    read_catalog_bytes(&exported);
    let read: Value = serde_json::from_slice(&exported).unwrap();
    assert_eq!(
        read["strings"]["Click"]["localizations"]["fr"]["variations"]["device"]["iphone"]["stringUnit"]["value"],
        "Appuyez"
    );

    // A format that cannot say it leaves the key out, and says so; the plain key is written.
    let reply = app
        .get("/teams/acme/projects/mobile/keys/export?type=apple-strings&languages=fr")
        .await
        .assert_ok(StatusCode::OK);
    let mut left_out: Vec<&str> = reply["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|warning| warning["key"].as_str().unwrap())
        .collect();
    left_out.sort();
    assert_eq!(left_out, ["%lld files in %lld folders", "Click"], "{reply}");
    let (_, strings) = download(&app, "type=apple-strings&languages=fr").await;
    let strings = String::from_utf8(strings).unwrap();
    assert!(strings.contains("\"Plain\" = \"Simple\";"), "{strings}");
    assert!(!strings.contains("Click"), "{strings}");
}

#[tokio::test]
async fn a_catalog_this_server_cannot_read_is_a_400_that_names_why_and_writes_nothing() {
    let app = TestApp::spawn().await;
    project(&app, &["en"]).await;
    let commits = app.commit_count();
    for (body, why) in [
        (
            r#"{"sourceLanguage": "en", "version": "1.0", "strings": {"a": 1}}"#,
            "key \"a\"",
        ),
        ("not json", "Localizable.xcstrings"),
    ] {
        let reply = app
            .post_bytes(
                "/teams/acme/projects/mobile/files?type=xcstrings",
                "application/json",
                body.as_bytes().to_vec(),
            )
            .await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{body}");
        assert!(
            reply.json()["error"]["message"].as_str().unwrap().contains(why),
            "{body}: {}",
            reply.json()
        );
    }
    assert_eq!(app.commit_count(), commits);

    // A version this server has not seen (Xcode 26 writes 1.2) is read, and said.
    let reply = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=xcstrings",
            "application/json",
            br#"{"sourceLanguage": "en", "version": "3.0", "strings": {"a": {"localizations": {"en": {"stringUnit": {"state": "translated", "value": "A"}}}}}}"#.to_vec(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(reply["created"], 1, "{reply}");
    assert!(
        reply["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|warning| warning["message"].as_str().unwrap().contains("version \"3.0\"")),
        "{reply}"
    );
}

/// Answers `t(key, {lng, ns, count})` with i18next itself (tests/tools/i18next.mjs) over the
/// files of an export folder (`{lang}.json`).
fn i18next_answers(folder: &Path, queries: &[Value]) -> Vec<Value> {
    let mut resources = serde_json::Map::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let language = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        resources.insert(language, json!({"translation": file}));
    }
    run_i18next(Value::Object(resources), queries)
}

/// The same over a folder of `{lang}/{namespace}.json` files.
pub fn i18next_answers_in(folder: &Path, namespace: &str, queries: &[Value]) -> Vec<Value> {
    let mut resources = serde_json::Map::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path().join(format!("{namespace}.json"));
        if !path.is_file() {
            continue;
        }
        let language = path.parent().unwrap().file_name().unwrap().to_str().unwrap().to_owned();
        let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        resources.insert(language, json!({ namespace: file }));
    }
    run_i18next(Value::Object(resources), queries)
}

fn run_i18next(resources: Value, queries: &[Value]) -> Vec<Value> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools");
    assert!(
        tools.join("node_modules/i18next").is_dir(),
        "i18next is not installed: run the tests with `bash scripts/test.sh`"
    );
    let input = json!({"resources": resources, "queries": queries}).to_string();
    let mut child = Command::new("node")
        .arg(tools.join("i18next.mjs"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice::<Vec<Value>>(&output.stdout).unwrap()
}

/// A language, its forms, and the form each count takes by CLDR's rules.
type PluralCase = (&'static str, Value, Vec<(f64, &'static str)>);

/// Plural forms of Polish, Arabic and Japanese (and English), with counts for each form.
fn plural_cases() -> Vec<PluralCase> {
    vec![
        (
            "en",
            json!({"one": "one file", "other": "many files"}),
            vec![(1.0, "one"), (0.0, "other"), (2.0, "other")],
        ),
        (
            "pl",
            json!({"one": "jeden plik", "few": "kilka plików (few)", "many": "wiele plików", "other": "pliku"}),
            vec![
                (1.0, "one"),
                (2.0, "few"),
                (5.0, "many"),
                (22.0, "few"),
                (12.0, "many"),
                (1.5, "other"),
            ],
        ),
        (
            "ar",
            json!({"zero": "لا ملفات", "one": "ملف واحد", "two": "ملفان", "few": "ملفات", "many": "ملفًا", "other": "ملف"}),
            vec![
                (0.0, "zero"),
                (1.0, "one"),
                (2.0, "two"),
                (3.0, "few"),
                (11.0, "many"),
                (100.0, "other"),
            ],
        ),
        ("ja", json!({"other": "ファイル"}), vec![(1.0, "other"), (7.0, "other")]),
    ]
}

#[tokio::test]
async fn i18next_itself_answers_every_text_and_plural_form_of_the_export() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja"]).await;
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for (_, name, text) in hard_keys(&app, "ja", |index| format!("hard.{index:02}"), |_, _| None).await {
        queries.push(json!({"lng": "en", "ns": "translation", "key": name}));
        expected.push(json!(text));
        queries.push(json!({"lng": "ja", "ns": "translation", "key": name}));
        expected.push(json!(format!("{text} (ja)")));
    }
    // A name that is also the prefix of another, and a deep one.
    for (name, text) in [("menu", "Menu"), ("menu.open", "Open"), ("a.b.c.d", "Deep")] {
        app.post(
            "/teams/acme/projects/mobile/keys",
            json!({"name": name, "translations": [{"language": "en", "content": text}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
        queries.push(json!({"lng": "en", "ns": "translation", "key": name}));
        expected.push(json!(text));
    }
    let cases = plural_cases();
    plural_key(&app, "files.count", None, &cases).await;
    for (language, forms, counts) in &cases {
        for (count, category) in counts {
            queries.push(json!({"lng": language, "ns": "translation", "key": "files.count", "count": count}));
            expected.push(forms[category].clone());
        }
    }

    let exported = crate::platforms::export_project(&app, "acme/mobile", "i18next").await;
    assert_eq!(i18next_answers(exported.path(), &queries), expected);
    let en: Value = serde_json::from_slice(&std::fs::read(exported.path().join("en.json")).unwrap()).unwrap();
    assert_eq!(
        en["files"]["count_one"], "one file",
        "nested at dots, forms as suffixed members: {en}"
    );

    // Uploaded back, the files are the project they came from.
    let mut files = Vec::new();
    for language in ["en", "pl", "ar", "ja"] {
        let bytes = std::fs::read(exported.path().join(format!("{language}.json"))).unwrap();
        files.push((format!("locales/{language}.json"), bytes));
    }
    let answer = upload_changes_nothing(&app, "i18next", &files).await;
    assert_eq!(answer["created"], 0, "{answer}");
    assert_eq!(answer["skipped"], 0, "{answer}");
}

/// A PO file as polib reads it (tests/tools/po_read.py).
fn read_po(path: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/po_read.py");
    let output = Command::new(python()).arg(script).arg(path).output().unwrap();
    assert!(
        output.status.success(),
        "polib: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// `msgfmt --check` on a PO file: gettext's own compiler must take it without a word. A
/// template's header has no language yet, so it is checked for all but its header.
pub fn msgfmt_check(path: &Path) {
    let checks: &[&str] = if path.extension().is_some_and(|extension| extension == "pot") {
        &["--check-format", "--check-domain"]
    } else {
        &["--check"]
    };
    let output = Command::new("msgfmt")
        .args(checks)
        .arg("--output-file=/dev/null")
        .arg(path)
        .output()
        .expect("msgfmt is installed by scripts/test.sh (gettext)");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "msgfmt --check {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn po_files_pass_msgfmt_check_and_polib_reads_every_form_in_the_formulas_order() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja"]).await;
    let mut expected: Vec<(String, String, String)> = Vec::new(); // (language, key, text)
    let made = hard_keys(
        &app,
        "pl",
        |index| format!("hard.{index:02}"),
        |index, _| Some(format!("Case {index}")),
    )
    .await;
    for (_, name, text) in made {
        expected.push(("pl".into(), name.clone(), format!("{text} (pl)")));
        expected.push(("en".into(), name, text));
    }
    let cases = plural_cases();
    plural_key(&app, "files.count", None, &cases).await;
    // Outdated: the base text changes after the Polish translation was written.
    outdated_key(&app, "stale", "pl", ("Old", "New"), "Stary").await;

    let exported = crate::platforms::export_project(&app, "acme/mobile", "po").await;
    for file in ["en.po", "pl.po", "ar.po", "ja.po", "template.pot"] {
        msgfmt_check(&exported.path().join(file));
    }
    let read: std::collections::HashMap<&str, Value> = ["en", "pl", "ar", "ja"]
        .into_iter()
        .map(|language| (language, read_po(&exported.path().join(format!("{language}.po")))))
        .collect();
    let entry = |language: &str, key: &str| -> Value {
        read[language]["entries"]
            .as_array()
            .unwrap()
            .iter()
            // A key's name is its entry's identity: here, without a context, its msgid.
            .find(|entry| entry["msgid"] == key && entry["msgctxt"].is_null())
            .cloned()
            .unwrap_or_else(|| panic!("{language}.po has no {key}"))
    };
    for (language, key, text) in &expected {
        let found = entry(language, key);
        assert_eq!(found["msgstr"], json!(text), "{language} {key}");
    }
    assert_eq!(entry("pl", "hard.00")["comment"], "Case 0");
    assert_eq!(entry("pl", "stale")["fuzzy"], true);
    assert_eq!(entry("en", "stale")["fuzzy"], false);
    // Each msgstr[n] holds the form of the counts gettext's formula sends to n.
    let forms_by_index = [
        ("en", "nplurals=2; plural=(n != 1);", vec!["one", "other"]),
        (
            "pl",
            "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2);",
            vec!["one", "few", "many"],
        ),
        (
            "ar",
            "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5);",
            vec!["zero", "one", "two", "few", "many", "other"],
        ),
        ("ja", "nplurals=1; plural=0;", vec!["other"]),
    ];
    for (language, header, categories) in forms_by_index {
        assert_eq!(read[language]["pluralForms"], header);
        let forms = &cases.iter().find(|(own, _, _)| *own == language).unwrap().1;
        let plural = entry(language, "files.count");
        assert_eq!(plural["msgid"], "files.count");
        assert_eq!(plural["msgid_plural"], "many files");
        let by_index: serde_json::Map<String, Value> = categories
            .iter()
            .enumerate()
            .map(|(index, category)| (index.to_string(), forms[category].clone()))
            .collect();
        assert_eq!(plural["msgstr_plural"], Value::Object(by_index), "{language}");
    }

    // Uploaded back, the files change no text, description or outdated mark but one: Polish
    // `other` (fractions) has no index in gettext's formula, so it comes back as the last
    // form, `many`.
    let mut before = app.every_key("").await;
    for key in before.iter_mut().filter(|key| key["name"] == "files.count") {
        let many = key["translation"]["pl"]["many"].clone();
        key["translation"]["pl"]["other"] = many;
    }
    let mut files = Vec::new();
    for language in ["en", "pl", "ar", "ja"] {
        let bytes = std::fs::read(exported.path().join(format!("{language}.po"))).unwrap();
        files.push((format!("locale/{language}.po"), bytes));
    }
    files.push((
        "locale/template.pot".into(),
        std::fs::read(exported.path().join("template.pot")).unwrap(),
    ));
    let commits = app.commit_count();
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=po",
            "application/zip",
            crate::upload::zip_of_files(&files),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["updated"], 1, "{answer}");
    assert_eq!(answer["ignored"], json!(["locale/template.pot"]), "{answer}");
    assert_eq!(app.commit_count(), commits + 1, "{answer}");
    assert_eq!(app.every_key("").await, before);
}

#[tokio::test]
async fn arb_plural_messages_read_back_in_an_icu_parser_and_descriptions_in_the_template() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja", "pt-BR"]).await;
    let plain: Vec<(String, String)> = hard_keys(&app, "pt-BR", |index| format!("hard{index:02}"), |_, _| None)
        .await
        .into_iter()
        .map(|(_, name, text)| (name, text))
        .collect();
    let mut cases = plural_cases();
    // Forms with what ICU quotes: apostrophes, braces, `#`.
    cases[0].1 = json!({"one": "it's {one} file #1", "other": "'{n}' files # ''"});
    plural_key(&app, "filesCount", Some("Files in a folder"), &cases).await;

    let exported = crate::platforms::export_project(&app, "acme/mobile", "arb").await;
    let file =
        |name: &str| -> Value { serde_json::from_slice(&std::fs::read(exported.path().join(name)).unwrap()).unwrap() };
    let template = file("app_en.arb");
    assert_eq!(template["@@locale"], "en");
    assert_eq!(
        template["@filesCount"],
        json!({"description": "Files in a folder", "placeholders": {"count": {"type": "num"}}})
    );
    let portuguese = file("app_pt_BR.arb");
    assert_eq!(portuguese["@@locale"], "pt_BR");
    assert!(
        portuguese.get("@filesCount").is_none(),
        "metadata lives in the template"
    );
    // A text that is no ICU message (literal braces) is quoted as ICU reads it (Flutter's
    // `use-escaping: true`): FormatJS's parser reads back the text itself.
    let mut quoted = Vec::new();
    for (name, text) in &plain {
        for (file, expected) in [(&template, text.clone()), (&portuguese, format!("{text} (pt-BR)"))] {
            let written = file[name].as_str().unwrap().to_owned();
            if written != expected {
                assert!(!expected.contains('#'), "{name}: {written:?} for {expected:?}");
                quoted.push((format!("{{n, plural, other {{{written}}}}}"), expected));
            }
        }
    }
    let (messages, expected): (Vec<String>, Vec<String>) = quoted.into_iter().unzip();
    let read = crate::platforms::icu_plural_forms(&messages);
    for (forms, expected) in read.iter().zip(&expected) {
        assert_eq!(forms["other"], json!(expected));
    }
    let messages: Vec<String> = cases
        .iter()
        .map(|(language, _, _)| {
            file(&format!("app_{language}.arb"))["filesCount"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let read = crate::platforms::icu_plural_forms(&messages);
    let expected: Vec<Value> = cases.iter().map(|(_, forms, _)| forms.clone()).collect();
    assert_eq!(read, expected);

    // Uploaded back, nothing changes.
    let mut files = Vec::new();
    for language in ["en", "pl", "ar", "ja", "pt_BR"] {
        let name = format!("app_{language}.arb");
        files.push((
            format!("lib/l10n/{name}"),
            std::fs::read(exported.path().join(&name)).unwrap(),
        ));
    }
    let answer = upload_changes_nothing(&app, "arb", &files).await;
    assert_eq!(answer["unchanged"], plain.len() + 1, "{answer}");
}

/// An XLIFF file as translate-toolkit reads it (tests/tools/xliff_read.py).
pub fn read_xliff(path: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/xliff_read.py");
    let output = Command::new(python()).arg(script).arg(path).output().unwrap();
    assert!(
        output.status.success(),
        "translate-toolkit: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Validates an XLIFF file against its version's schema (XLIFF 1.2 strict or 2.0, as Debian
/// ships them; scripts/test.sh unpacks them into target/xliff-schemas) with xmllint.
pub fn xmllint_xliff(path: &Path) {
    let schemas = std::env::var_os("LOCSTORE_XLIFF_SCHEMAS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/xliff-schemas"),
        std::path::PathBuf::from,
    );
    let text = std::fs::read_to_string(path).unwrap();
    let schema = if text.contains("urn:oasis:names:tc:xliff:document:2.0") {
        "xliff-core-2.0.xsd"
    } else {
        "xliff-core-1.2-strict.xsd"
    };
    let output = Command::new("xmllint")
        .args(["--noout", "--nonet", "--schema"])
        .arg(schemas.join(schema))
        .arg(path)
        .output()
        .expect("xmllint is installed by scripts/test.sh (libxml2-utils)");
    assert!(
        output.status.success(),
        "xmllint --schema {schema} {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn xliff_exports_are_valid_against_the_schemas_and_read_back_by_translate_toolkit() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja", "fr"]).await;
    let plain: Vec<(String, String)> = hard_keys(
        &app,
        "fr",
        |index| format!("hard {index:02} \"{index}\""),
        |index, _| Some(format!("Context <{index}> & more")),
    )
    .await
    .into_iter()
    .map(|(_, name, text)| (name, text))
    .collect();
    let cases = plural_cases();
    plural_key(&app, "files.count", Some("Files in a folder"), &cases).await;
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "brand", "translatable": false, "translations": [{"language": "en", "content": "Acme"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    // The base text changes after French was written: the French text is outdated.
    outdated_key(&app, "greeting", "fr", ("Hello", "Hello there"), "Bonjour").await;

    // XML 1.0 has no place for U+0001: 2.0 writes it as `<cp>`, 1.2 leaves it out.
    let control = "control \u{1} char";
    for version in ["1.2", "2.0"] {
        let exported = crate::platforms::export_project(&app, "acme/mobile", &format!("xliff&version={version}")).await;
        for language in ["en", "pl", "ar", "ja", "fr"] {
            xmllint_xliff(&exported.path().join(format!("{language}.xliff")));
        }
        let read = |language: &str| read_xliff(&exported.path().join(format!("{language}.xliff")));
        let unit = |file: &Value, name: &str| -> Value {
            file["units"]
                .as_array()
                .unwrap()
                .iter()
                .find(|unit| unit["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("{name} in {file}"))
        };
        let french = read("fr");
        assert_eq!(french["version"], version);
        assert_eq!(
            (french["sourceLanguage"].as_str(), french["targetLanguage"].as_str()),
            (Some("en"), Some("fr"))
        );
        for (name, text) in &plain {
            let read = unit(&french, name);
            // 1.2 leaves U+0001 out; translate-toolkit passes over 2.0's `<cp>` (the upload
            // below reads it back).
            let expected = text.replace('\u{1}', "");
            assert_eq!(read["source"], json!(expected), "{version} {name}");
            assert_eq!(read["target"], json!(format!("{expected} (fr)")), "{version} {name}");
            assert_eq!(read["fuzzy"], false, "{version} {name}");
            assert!(
                read["notes"]
                    .as_str()
                    .is_some_and(|notes| notes.starts_with("Context <")),
                "{read}"
            );
        }
        assert!(plain.iter().any(|(_, text)| text == control));
        assert_eq!(unit(&french, "greeting")["fuzzy"], true, "{version}");
        assert_eq!(unit(&french, "greeting")["source"], "Hello there");
        // A key kept in the base language is in the base file only; a key without a French
        // text is there to translate, without a target.
        assert!(
            french["units"]
                .as_array()
                .unwrap()
                .iter()
                .all(|unit| unit["name"] != "brand")
        );
        let english = read("en");
        assert_eq!(unit(&english, "brand")["translatable"], false);
        let untranslated = unit(&read("ja"), &plain[0].0);
        assert_eq!(untranslated["target"], Value::Null);
        assert_eq!(untranslated["source"], json!(plain[0].1));
        // Plural keys are ICU plural messages: FormatJS's parser reads every form back.
        let messages: Vec<String> = cases
            .iter()
            .map(|(language, _, _)| {
                unit(&read(language), "files.count")["target"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        let forms = crate::platforms::icu_plural_forms(&messages);
        let expected: Vec<Value> = cases.iter().map(|(_, forms, _)| forms.clone()).collect();
        assert_eq!(forms, expected, "{version}");

        // Uploaded back (2.0's files hold every text as it was), nothing changes.
        if version == "2.0" {
            let mut files = Vec::new();
            for language in ["en", "pl", "ar", "ja", "fr"] {
                files.push((
                    format!("Localizations/{language}.xliff"),
                    std::fs::read(exported.path().join(format!("{language}.xliff"))).unwrap(),
                ));
            }
            upload_changes_nothing(&app, "xliff", &files).await;
        }
    }

    // A single file names its language itself; `version` is for XLIFF only.
    let (name, bytes) = download(&app, "type=xliff&languages=fr").await;
    assert_eq!(name, "fr.xliff");
    let edited = String::from_utf8(bytes).unwrap().replace(
        "<target state=\"translated\">apostrophe's (fr)</target>",
        "<target state=\"needs-review-translation\">apostrophe (fr)</target>",
    );
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=xliff",
            "application/xml",
            edited.into_bytes(),
        )
        .await
        .assert_ok(StatusCode::OK);
    // The edited unit, and the text whose U+0001 XLIFF 1.2 could not carry.
    assert_eq!(answer["updated"], 2, "{answer}");
    let key = app
        .get(&format!("/teams/acme/projects/mobile/keys/{}", encode(&plain[0].0)))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "apostrophe (fr)", "{key}");
    assert_eq!(key["data"]["outdated"], json!(["fr"]), "{key}");
    let wrong = app
        .get("/teams/acme/projects/mobile/keys/export?type=json&version=2.0")
        .await;
    assert_eq!(wrong.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}

/// Answers `I18n.t(key, locale:, count:)` with Ruby's i18n gem over Rails locale files
/// (tests/tools/rails_i18n.rb).
pub fn rails_answers(files: &[std::path::PathBuf], queries: &[Value]) -> Vec<Value> {
    use std::io::Write;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/rails_i18n.rb");
    let mut child = Command::new("ruby")
        .arg(script)
        .args(files)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ruby and ruby-i18n are installed by scripts/test.sh");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::from(queries.to_vec()).to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "rails_i18n.rb: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A count as Ruby should see it: an integer when it is whole (CLDR's rules tell `2` from `2.0`).
fn ruby_count(count: f64) -> Value {
    if count.fract() == 0.0 {
        json!(count as i64)
    } else {
        json!(count)
    }
}

#[tokio::test]
async fn rails_yaml_is_read_back_by_rubys_i18n_gem_for_every_text_and_plural_form() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "pl", "ar", "ja", "fr"]).await;
    let mut plain: Vec<(String, String)> = hard_keys(
        &app,
        "fr",
        |index| format!("hard.text{index:02}"),
        |index, _| Some(format!("Hard text {index}\nsecond line")),
    )
    .await
    .into_iter()
    .map(|(_, name, text)| (name, text))
    .collect();
    // Words YAML 1.1 reads as booleans, numbers and null stay texts, as do names like them.
    for (name, text) in [
        ("yes", "no"),
        ("on", "off"),
        ("number", "3"),
        ("nothing", "~"),
        ("no", "null"),
    ] {
        app.post(
            "/teams/acme/projects/mobile/keys",
            json!({"name": format!("words.{name}"), "translations": [{"language": "en", "content": text}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
        plain.push((format!("words.{name}"), text.to_owned()));
    }
    let cases = plural_cases();
    plural_key(&app, "files.count", Some("Files in a folder"), &cases).await;

    let exported = crate::platforms::export_project(&app, "acme/mobile", "yaml").await;
    let files: Vec<std::path::PathBuf> = ["en", "pl", "ar", "ja", "fr"]
        .iter()
        .map(|language| exported.path().join(format!("{language}.yml")))
        .collect();
    let english = std::fs::read_to_string(&files[0]).unwrap();
    assert!(english.starts_with("en:\n"), "{english}");
    assert!(
        english.contains("    # Files in a folder\n    count:\n      one: \"one file\"\n"),
        "{english}"
    );
    let mut queries = Vec::new();
    let mut expected = Vec::new();
    for (name, text) in &plain {
        queries.push(json!({"locale": "en", "key": name}));
        expected.push(json!(text));
        if name.starts_with("hard.") {
            queries.push(json!({"locale": "fr", "key": name}));
            expected.push(json!(format!("{text} (fr)")));
        }
    }
    for (language, forms, counts) in &cases {
        for (count, category) in counts {
            queries.push(json!({"locale": language, "key": "files.count", "count": ruby_count(*count)}));
            expected.push(forms[*category].clone());
        }
    }
    let answers = rails_answers(&files, &queries);
    for ((query, answer), expected) in queries.iter().zip(&answers).zip(&expected) {
        assert_eq!(answer, expected, "{query}");
    }

    // Uploaded back, nothing changes.
    let mut zipped = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        zipped.push((format!("config/locales/{name}"), std::fs::read(path).unwrap()));
    }
    upload_changes_nothing(&app, "yaml", &zipped).await;
}

/// A file downloaded is served under its format's media type, and a client that uploads it
/// back under that type (as `curl -H "Content-Type: ..."` in a CI job would) is understood.
#[tokio::test]
async fn each_formats_file_is_served_under_its_media_type_and_taken_back_under_it() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "fr"]).await;
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "home.title", "translations": [
            {"language": "en", "content": "Welcome"}, {"language": "fr", "content": "Bienvenue"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let cases = [
        ("xcstrings", "Localizable.xcstrings", "application/json"),
        ("i18next", "fr.json", "application/json"),
        ("po", "fr.po", "text/x-gettext-translation"),
        ("xliff", "fr.xliff", "application/xliff+xml"),
        ("arb", "app_fr.arb", "application/json"),
        ("yaml", "fr.yml", "application/yaml"),
    ];
    for (format, file, media_type) in cases {
        let reply = app
            .get(&format!(
                "/teams/acme/projects/mobile/keys/export?type={format}&languages=fr"
            ))
            .await
            .assert_ok(StatusCode::OK);
        let address = reply["data"].as_str().unwrap();
        assert!(address.ends_with(&format!("/{file}")), "{format}: {address}");
        let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
        let download = app.call(Method::GET, &path, None, None).await;
        assert_eq!(download.status, StatusCode::OK, "{format}");
        let served = download.headers["content-type"].to_str().unwrap();
        assert_eq!(served.split(';').next(), Some(media_type), "{format}");

        // Taken back, no text changes (the key may learn which file it is in).
        let language = if format == "xcstrings" { "" } else { "&language=fr" };
        let answer = app
            .post_bytes(
                &format!("/teams/acme/projects/mobile/files?type={format}{language}"),
                media_type,
                download.body,
            )
            .await
            .assert_ok(StatusCode::OK);
        let texts = answer["texts"].as_array().unwrap();
        assert!(
            texts
                .iter()
                .all(|counts| counts["created"] == 0 && counts["updated"] == 0 && counts["removed"] == 0),
            "{format}: {answer}"
        );
        assert_eq!(answer["skipped"], 0, "{format}: {answer}");
    }
    let en = app
        .get("/teams/acme/projects/mobile/keys/home.title")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(en["data"]["translation"]["en"], "Welcome", "{en}");
    // The unregistered names tools still send are taken too.
    for media_type in ["text/x-po", "application/x-yaml", "text/yaml"] {
        let reply = app
            .post_bytes(
                "/teams/acme/projects/mobile/files?type=json&language=fr",
                media_type,
                br#"{"home.title": "Bienvenue"}"#.to_vec(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{media_type}");
    }
}

/// A String Catalog is kept gzip-compressed: a client that accepts gzip gets those bytes with
/// `Content-Encoding: gzip`, any other client the catalog itself, decompressed as it is sent,
/// with its length. The catalog is large enough to be made in several pieces (1,024 keys
/// each), which must join into one gzip stream that gzip itself reads.
#[tokio::test]
async fn a_string_catalog_goes_gzip_compressed_to_clients_that_accept_it() {
    let app = TestApp::spawn().await;
    project(&app, &["en", "fr"]).await;
    let texts: serde_json::Map<String, Value> = (0..2_500)
        .map(|index| {
            (
                format!("screen{}.label{index}", index % 40),
                json!(format!("Text \"{index}\" ✓")),
            )
        })
        .collect();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=fr",
        "application/json",
        serde_json::to_vec(&texts).unwrap(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let reply = app
        .get("/teams/acme/projects/mobile/keys/export?type=xcstrings")
        .await
        .assert_ok(StatusCode::OK);
    let address = reply["data"].as_str().unwrap();
    let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
    let fetch = |accept: Option<&'static str>| {
        let mut request = app.client.get(&path);
        if let Some(accept) = accept {
            request = request.header("Accept-Encoding", accept);
        }
        async move { crate::helpers::into_reply(request.send().await).await }
    };

    let plain = fetch(None).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(plain.headers.get("content-encoding").is_none());
    assert_eq!(
        plain.headers["content-length"].to_str().unwrap(),
        plain.body.len().to_string()
    );
    assert_eq!(plain.headers["vary"], "accept-encoding");
    let catalog: Value = serde_json::from_slice(&plain.body).unwrap();
    let strings = catalog["strings"].as_object().unwrap();
    assert_eq!(strings.len(), 2_500);
    assert_eq!(
        strings["screen7.label7"]["localizations"]["fr"]["stringUnit"]["value"],
        "Text \"7\" ✓"
    );

    let compressed = fetch(Some("br, gzip;q=0.8, deflate")).await;
    assert_eq!(compressed.status, StatusCode::OK);
    assert_eq!(compressed.headers["content-encoding"], "gzip");
    assert_eq!(
        compressed.headers["content-length"].to_str().unwrap(),
        compressed.body.len().to_string()
    );
    assert!(
        compressed.body.len() * 5 < plain.body.len(),
        "{} bytes",
        compressed.body.len()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Localizable.xcstrings.gz"), &compressed.body).unwrap();
    let output = Command::new("gzip")
        .arg("-dc")
        .arg(dir.path().join("Localizable.xcstrings.gz"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout == plain.body, "gzip reads the catalog back");

    // gzip refused with q=0 is not gzip.
    let refused = fetch(Some("gzip;q=0, identity")).await;
    assert!(refused.headers.get("content-encoding").is_none());
    assert!(refused.body == plain.body);
}

/// A gettext app keys its entries by msgid (Gradia, as most GNOME, Django and WordPress apps)
/// and looks them up by msgid alone: `gettext("New Window")`. Its files uploaded and exported
/// must be found so: compiled by `msgfmt` and read by Python's `gettext`, every translated entry
/// of the original gives its translation (an exported `msgctxt` would hide every one of them).
#[tokio::test]
async fn a_gettext_apps_export_is_found_by_msgid_as_the_app_looks_it_up() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gradia-po/po");
    let app = TestApp::spawn().await;
    project(&app, &["en"]).await;
    let names = ["gradia.pot", "pl.po", "de.po", "uk.po", "ar.po", "pt_BR.po"];
    let files: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|name| (name.to_string(), std::fs::read(root.join(name)).unwrap()))
        .collect();
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=po&addLanguages=true",
        "application/zip",
        crate::upload::zip_of_files(&files),
    )
    .await
    .assert_ok(StatusCode::OK);
    let exported = crate::platforms::export_project(&app, "acme/mobile", "po").await;
    let script = r#"
import gettext, json, polib, sys
original = polib.pofile(sys.argv[1])
catalog = gettext.GNUTranslations(open(sys.argv[2], "rb"))
checked, wrong = 0, []
for entry in original.translated_entries():
    if entry.msgid_plural or entry.msgctxt:
        continue
    found = catalog.gettext(entry.msgid)
    if found != entry.msgstr:
        wrong.append([entry.msgid, entry.msgstr, found])
    checked += 1
print(json.dumps({"checked": checked, "wrong": wrong}))
"#;
    // gettext's own names: `pt_BR.po`.
    for (language, file) in [("pl", "pl.po"), ("de", "de.po"), ("pt-BR", "pt_BR.po")] {
        let compiled = exported.path().join(format!("{language}.mo"));
        let output = Command::new("msgfmt")
            .arg("-o")
            .arg(&compiled)
            .arg(exported.path().join(file))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "msgfmt {file}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let original = root.join(file);
        let output = Command::new(python())
            .args(["-c", script])
            .arg(&original)
            .arg(&compiled)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(answer["checked"].as_u64().unwrap() >= 20, "{language}: {answer}");
        assert_eq!(answer["wrong"], json!([]), "{language}");
    }
}
