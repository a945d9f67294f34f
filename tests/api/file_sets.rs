//! The upload of several file sets in one request (`POST .../files/sets`, what `locstore push`
//! sends): one commit for all of them, each set under its namespace and tags; and what an
//! upload keeps of what its format cannot say.

use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::TestApp;
use crate::upload::zip_of;

const SETS: &str = "/teams/acme/projects/mobile/files/sets";

#[tokio::test]
async fn several_file_sets_are_one_commit_each_set_in_its_namespace() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let manifest = json!({"sets": [
        {"type": "android-xml", "namespace": "app", "tags": ["android"]},
        {"type": "android-xml", "namespace": "feature.login", "tags": ["android"]},
        {"type": "apple-strings", "tags": ["ios"]},
        {"type": "android-xml"},
    ]})
    .to_string();
    let zip = zip_of(&[
        ("sets.json", manifest.as_bytes()),
        (
            "0/values/strings.xml",
            b"<resources><string name=\"app_name\">Acme</string></resources>",
        ),
        (
            "0/values-fr/strings.xml",
            b"<resources><string name=\"app_name\">Acme FR</string></resources>",
        ),
        (
            "1/values/strings.xml",
            b"<resources><string name=\"app_name\">Log in</string></resources>",
        ),
        (
            "2/en.lproj/Localizable.strings",
            b"\"title\" = \"Title\";\n\"ok\" = \"OK\";\n",
        ),
        (
            "3/values/strings.xml",
            b"<resources><string name=\"title\">Title (Android)</string></resources>",
        ),
        (
            "3/values-fr/strings.xml",
            b"<resources><string name=\"title\">Titre</string></resources>",
        ),
        ("elsewhere/readme.txt", b"not a set's"),
    ]);
    let before = app.commit_count();
    let answer = app
        .post_bytes(SETS, "application/zip", zip.clone())
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before + 1, "one commit for every set: {answer}");
    assert_eq!(answer["created"], 4, "{answer}");
    assert_eq!(
        answer["sets"],
        json!([
            {"created": 1, "updated": 0, "unchanged": 0},
            {"created": 1, "updated": 0, "unchanged": 0},
            {"created": 2, "updated": 0, "unchanged": 0},
            {"created": 1, "updated": 0, "unchanged": 0},
        ])
    );
    let paths: Vec<&str> = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"1/values/strings.xml") && paths.contains(&"2/en.lproj/Localizable.strings"),
        "{paths:?}"
    );
    assert_eq!(answer["ignored"], json!(["elsewhere/readme.txt"]));

    // The modules' `app_name`s are two keys; the Android and iOS `title` one, the later set's
    // English text and the earlier's other texts kept.
    let key = |path: &str| {
        let app = &app;
        let path = path.to_owned();
        async move {
            app.get(&format!("/teams/acme/projects/mobile/keys/{path}"))
                .await
                .assert_ok(StatusCode::OK)
        }
    };
    assert_eq!(
        key("app_name?namespace=app").await["data"]["translation"],
        json!({"en": "Acme", "fr": "Acme FR"})
    );
    let login = key("app_name?namespace=feature.login").await;
    assert_eq!(login["data"]["translation"], json!({"en": "Log in"}));
    assert_eq!(login["data"]["tags"], json!(["android"]));
    let title = key("title").await;
    assert_eq!(
        title["data"]["translation"],
        json!({"en": "Title (Android)", "fr": "Titre"})
    );
    assert_eq!(title["data"]["tags"], json!(["ios"]));

    // The same push again changes nothing: no commit, every key unchanged.
    let again = app
        .post_bytes(SETS, "application/zip", zip)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before + 1);
    assert_eq!(again["sets"][2], json!({"created": 0, "updated": 0, "unchanged": 2}));
}

/// Rails merges a locale's files (`en.yml`, `devise.en.yml`): their sets share one key space,
/// each set's `file` telling its keys apart, and an export of one file takes only its keys.
#[tokio::test]
async fn rails_families_share_one_key_space_and_export_apart() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let manifest = json!({"sets": [{"type": "yaml", "file": ""}, {"type": "yaml", "file": "devise"}]}).to_string();
    let main = b"en:\n  title: Title\n  shared: Main\n".as_slice();
    let zip = |main: &[u8]| {
        zip_of(&[
            ("sets.json", manifest.as_bytes()),
            ("0/en.yml", main),
            ("0/fr.yml", b"fr:\n  title: Titre\n"),
            (
                "1/en.yml",
                b"en:\n  devise:\n    signed_in: Signed in.\n  shared: Devise\n",
            ),
        ])
    };
    let answer = app
        .post_bytes(SETS, "application/zip", zip(main))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 3, "{answer}");
    let key = |name: &str| {
        let app = &app;
        let name = name.to_owned();
        async move {
            app.get(&format!("/teams/acme/projects/mobile/keys/{name}"))
                .await
                .assert_ok(StatusCode::OK)
        }
    };
    // One key space: the default namespace, each key with its family's file.
    let signed_in = key("devise.signed_in").await;
    assert_eq!(signed_in["data"]["namespace"], "");
    assert_eq!(signed_in["data"]["files"], json!({"web": "devise"}));
    assert_eq!(key("title").await["data"]["files"], json!({}));
    // A key both families define is the later set's, as one definition.
    let shared = key("shared").await;
    assert_eq!(shared["data"]["translation"], json!({"en": "Devise"}));
    assert_eq!(shared["data"]["files"], json!({"web": "devise"}));

    // A key made on the server belongs to no family: `{lang}.yml`'s.
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "made.here", "translations": [{"language": "en", "content": "Made here"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let export = |file: &str| {
        let app = &app;
        let file = file.to_owned();
        async move {
            let (_, bytes) = crate::platforms::download_export(
                app,
                &format!("/teams/acme/projects/mobile/keys/export?type=yaml&languages=en&file={file}"),
            )
            .await;
            String::from_utf8(bytes).unwrap()
        }
    };
    let main_export = export("").await;
    assert!(
        main_export.contains("title: \"Title\"") && main_export.contains("here: \"Made here\""),
        "{main_export}"
    );
    assert!(
        !main_export.contains("signed_in") && !main_export.contains("shared"),
        "{main_export}"
    );
    let devise_export = export("devise").await;
    assert!(
        devise_export.contains("signed_in") && devise_export.contains("shared: \"Devise\""),
        "{devise_export}"
    );
    assert!(!devise_export.contains("title"), "{devise_export}");

    // The main family's file still defines `shared`: pushed again (its file differs from its
    // export), that text is passed over with a warning, and nothing is committed.
    let before = app.commit_count();
    let again = app
        .post_bytes(
            SETS,
            "application/zip",
            zip(b"en:\n  title: Title\n  shared: Main again\n"),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before, "{again}");
    let warned: Vec<&str> = again["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|warning| warning["key"].as_str())
        .collect();
    assert!(warned.contains(&"shared"), "{again}");
    assert_eq!(key("shared").await["data"]["translation"], json!({"en": "Devise"}));

    // A file that could climb out is refused.
    let reply = app
        .get("/teams/acme/projects/mobile/keys/export?type=yaml&file=..%2Fx")
        .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
}

#[tokio::test]
async fn a_bad_manifest_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let before = app.commit_count();
    for (manifest, says) in [
        (None, "sets.json"),
        (Some("{\"sets\": [{\"type\": \"toml\"}]}"), "unknown type"),
        (
            Some("{\"sets\": [{\"type\": \"json\", \"namespace\": \"/x\"}]}"),
            "namespace",
        ),
        (Some("[1, 2]"), "not a list of file sets"),
        (
            Some("{\"sets\": [{\"type\": \"yaml\", \"file\": \"../up\"}]}"),
            "files.web",
        ),
    ] {
        let mut files: Vec<(&str, &[u8])> = vec![("0/en.json", b"{\"a\": \"b\"}")];
        if let Some(manifest) = manifest {
            files.push(("sets.json", manifest.as_bytes()));
        }
        let reply = app.post_bytes(SETS, "application/zip", zip_of(&files)).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
        let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.contains(says), "{message}");
    }
    assert_eq!(app.commit_count(), before);
}

/// A PO file's `Plural-Forms` formula cannot express every CLDR category (French `many`): an
/// upload of one never deletes the forms the project holds of the categories it lacks.
#[tokio::test]
async fn a_po_upload_keeps_the_plural_forms_its_formula_cannot_express() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        "/teams/acme/projects/mobile/keys",
        json!({"name": "%d file", "plural": true, "translations": [
            {"language": "en", "forms": {"one": "%d file", "other": "%d files"}},
            {"language": "fr", "forms": {"one": "%d fichier", "many": "%d de fichiers", "other": "%d fichiers"}}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let french = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\"\n\n\
        msgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d fichier\"\nmsgstr[1] \"%d dossiers\"\n";
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=po&language=fr",
        "text/x-po",
        french.as_bytes().to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app
        .get("/teams/acme/projects/mobile/keys/%25d%20file")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        key["data"]["translation"]["fr"],
        json!({"one": "%d fichier", "many": "%d de fichiers", "other": "%d dossiers"}),
        "the changed form is taken, the one the file cannot say is kept"
    );
}

/// A gettext app without a template takes base texts from its msgids; one that keeps its
/// base language's own `.po` names there the keys it has (django CMS's English catalogue,
/// Askbot's with every `msgstr` empty). A translation's entry the base file does not name
/// gets no base text (so that a pull adds nothing to the base file), unless it is fuzzy:
/// an outdated mark needs a base text.
#[tokio::test]
async fn a_translations_msgid_is_a_base_text_only_where_the_base_po_names_it_or_it_is_fuzzy() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let header = |language: &str| {
        format!(
            "msgid \"\"\nmsgstr \"\"\n\"Language: {language}\\n\"\n\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\"\n\n"
        )
    };
    let english = format!(
        "{}msgid \"Save\"\nmsgstr \"\"\n\nmsgid \"Open\"\nmsgstr \"Open it\"\n",
        header("en")
    );
    let french = format!(
        "{}msgid \"Save\"\nmsgstr \"Enregistrer\"\n\nmsgid \"Open\"\nmsgstr \"Ouvrir\"\n\nmsgid \"Stale\"\nmsgstr \"Périmé\"\n\n#, fuzzy\nmsgid \"Fuzzy\"\nmsgstr \"Flou\"\n",
        header("fr")
    );
    let zip = crate::upload::zip_of(&[("en.po", english.as_bytes()), ("fr.po", french.as_bytes())]);
    app.post_bytes("/teams/acme/projects/mobile/files?type=po", "application/zip", zip)
        .await
        .assert_ok(StatusCode::OK);
    let key = |name: &'static str| format!("/teams/acme/projects/mobile/keys/{name}");
    let save = app.get(&key("Save")).await.assert_ok(StatusCode::OK);
    assert_eq!(save["data"]["translation"], json!({"en": "Save", "fr": "Enregistrer"}));
    let open = app.get(&key("Open")).await.assert_ok(StatusCode::OK);
    assert_eq!(open["data"]["translation"]["en"], "Open it");
    let stale = app.get(&key("Stale")).await.assert_ok(StatusCode::OK);
    assert_eq!(stale["data"]["translation"], json!({"fr": "Périmé"}));
    let fuzzy = app.get(&key("Fuzzy")).await.assert_ok(StatusCode::OK);
    assert_eq!(fuzzy["data"]["translation"], json!({"en": "Fuzzy", "fr": "Flou"}));
    assert_eq!(fuzzy["data"]["outdated"], json!(["fr"]));
}

/// `locstore push` sends an app's every file in one request: a zip over the general body
/// limit (1 MiB) is under the uploads' own (as for `.../files` and imports). Askbot's PO files
/// came to more than 1 MiB zipped, and its first push was refused with 413.
#[tokio::test]
async fn a_push_of_files_over_the_general_body_limit_is_taken() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let manifest = json!({"sets": [{"type": "android-xml"}]}).to_string();
    // 1.5 MiB that does not compress (xorshift), beside the set's file.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let noise: Vec<u8> = (0..3 << 19)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let zip = zip_of(&[
        ("sets.json", manifest.as_bytes()),
        (
            "0/values/strings.xml",
            b"<resources><string name=\"title\">Title</string></resources>",
        ),
        ("elsewhere/noise.bin", &noise),
    ]);
    assert!(zip.len() > 1 << 20, "{} bytes", zip.len());
    let answer = app
        .post_bytes(SETS, "application/zip", zip)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 1, "{answer}");
}
