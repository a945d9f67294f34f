//! File upload: real app resource files in, exports out, both read by the platforms' own
//! parsers (aapt2 and a resource-table reader, openstep_plist, plistlib), which must agree.

use std::io::Write;
use std::path::Path;

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::platforms::{build_apk, export_all, export_project, readback, write_manifest};

/// An Android `res/` tree written the way app developers write it (not the way locstore
/// exports it): quotes, escapes, entities, CDATA, collapsing white space, inline markup,
/// xliff placeholders, plurals, comments, and resources that are not strings.
const ANDROID_TREE: &[(&str, &str)] = &[
    (
        "res/values/strings.xml",
        r#"<?xml version="1.0" encoding="utf-8"?>
<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <!-- The app's name on the launcher -->
    <string name="app_name">Podcasts</string>
    <string name="quoted">"  two  spaces  "</string>
    <string name="collapsed">  many
        lines   collapse  </string>
    <string name="escapes">It\'s \"fine\" \\ \u0041\u00e9 \@home \?attr</string>
    <string name="entities">Tom &amp; Jerry &lt;3 &#169; &gt;</string>
    <string name="cdata"><![CDATA[<b>not bold</b> & raw]]></string>
    <string name="styled">Tap <b>here</b> to <i>start</i>, <u>now</u></string>
    <string name="xliff">Played <xliff:g id="count" example="3">%1$d</xliff:g> times</string>
    <string name="link">Read the <a href="https://example.org/terms">terms</a> &amp; more</string>
    <string name="percent" formatted="false">100% sure, %s</string>
    <string name="emoji">🎉 עברית</string>
    <plurals name="episodes">
        <!-- not a description: inside the element -->
        <item quantity="one">%d episode</item>
        <item quantity="other">%d episodes</item>
    </plurals>
    <plurals name="styled_plural">
        <item quantity="one"><b>%d</b> new</item>
        <item quantity="other"><b>%d</b> new ones</item>
    </plurals>
    <string-array name="speeds"><item>1x</item><item>2x</item></string-array>
    <dimen name="margin">4dp</dimen>
</resources>
"#,
    ),
    (
        "res/values/plurals.xml",
        r#"<resources>
    <!-- Hours left in a download -->
    <plurals name="hours">
        <item quantity="one">one hour</item>
        <item quantity="other">%d hours</item>
    </plurals>
</resources>
"#,
    ),
    (
        "res/values-fr/strings.xml",
        r#"<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="app_name">Balados</string>
    <string name="escapes">C\'est \"bien\"</string>
    <string name="styled">Touchez <b>ici</b></string>
    <string name="entities">Tom &amp; Jerry</string>
    <plurals name="episodes">
        <item quantity="one">%d épisode</item>
        <item quantity="many">%d d\'épisodes</item>
        <item quantity="other">%d épisodes</item>
    </plurals>
</resources>
"#,
    ),
    (
        "res/values-pt-rBR/strings.xml",
        r#"<resources><string name="app_name">"Podcasts "</string></resources>"#,
    ),
    (
        "res/values-b+zh+Hans/strings.xml",
        r#"<resources><string name="app_name">播客</string><plurals name="hours"><item quantity="other">%d 小时</item></plurals></resources>"#,
    ),
    (
        "res/values-night/colors.xml",
        r#"<resources><color name="bg">#000</color></resources>"#,
    ),
    ("README.md", "not a resource"),
];

/// Language of each values folder, as the export names it.
const FOLDERS: &[&str] = &["values", "values-fr", "values-pt-rBR", "values-b+zh+Hans"];

pub fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, bytes) in files {
        archive
            .start_file(*path, zip::write::SimpleFileOptions::default())
            .unwrap();
        archive.write_all(bytes).unwrap();
    }
    archive.finish().unwrap().into_inner()
}

/// [`zip_of`] for files read into owned paths and bytes.
pub fn zip_of_files(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    zip_of(&files)
}

fn android_zip() -> Vec<u8> {
    let files: Vec<(&str, &[u8])> = ANDROID_TREE
        .iter()
        .map(|(path, text)| (*path, text.as_bytes()))
        .collect();
    zip_of(&files)
}

async fn app_with_languages() -> TestApp {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let project = json!({"name": "mobile", "displayName": "M", "languagesISO": ["en", "fr", "pt-BR", "zh-Hans"]});
    app.post("/teams/acme/projects", project)
        .await
        .assert_ok(StatusCode::CREATED);
    app
}

/// What aapt2 makes of one values folder: every string and plurals with its spans.
pub fn aapt2_values(folder: &Path, work: &Path, label: &str) -> Value {
    let res = work.join(format!("{label}-res"));
    std::fs::create_dir_all(res.join("values")).unwrap();
    for file in std::fs::read_dir(folder).unwrap() {
        let file = file.unwrap().path();
        std::fs::copy(&file, res.join("values").join(file.file_name().unwrap())).unwrap();
    }
    let manifest = write_manifest(work);
    let apk = build_apk(
        &res,
        &manifest,
        work.join(format!("{label}-compiled.zip")),
        work.join(format!("{label}.apk")),
    );
    readback("android", &apk)
}

#[tokio::test]
async fn an_android_tree_uploads_in_one_commit_and_exports_to_what_aapt2_read_from_the_original() {
    let app = app_with_languages().await;
    let commits = app.commit_count();
    let reply = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml",
            "application/zip",
            android_zip(),
        )
        .await;
    let answer = reply.assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 14, "{answer}");
    assert_eq!(answer["skipped"], 2, "the string-array and the dimen: {answer}");
    assert_eq!(answer["ignored"], json!(["README.md", "res/values-night/colors.xml"]));
    let languages: Vec<&str> = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["language"].as_str().unwrap())
        .collect();
    assert_eq!(languages, ["zh-Hans", "fr", "pt-BR", "en", "en"]);
    assert_eq!(
        answer["texts"],
        json!([
            {"language": "en", "created": 14, "updated": 0, "removed": 0},
            {"language": "fr", "created": 5, "updated": 0, "removed": 0},
            {"language": "pt-BR", "created": 1, "updated": 0, "removed": 0},
            {"language": "zh-Hans", "created": 2, "updated": 0, "removed": 0},
        ])
    );
    assert_eq!(app.commit_count(), commits + 1, "one commit for the whole upload");

    let key = app
        .get("/teams/acme/projects/mobile/keys/hours")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["description"], "Hours left in a download");
    assert_eq!(key["data"]["plural"], true);
    assert_eq!(key["data"]["translation"]["zh-Hans"], json!({"other": "%d 小时"}));
    let app_name = app
        .get("/teams/acme/projects/mobile/keys/app_name")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app_name["data"]["description"], "The app's name on the launcher");
    assert_eq!(app_name["data"]["translation"]["pt-BR"], "Podcasts ");

    // Every string and plural reads back in aapt2 as it read from the original files.
    let original = tempfile::tempdir().unwrap();
    for (path, text) in ANDROID_TREE {
        let target = original.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text).unwrap();
    }
    let exported = export_all(&app, "android-xml").await;
    let work = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for folder in FOLDERS {
        let before = aapt2_values(
            &original.path().join("res").join(folder),
            work.path(),
            &format!("{folder}-a"),
        );
        let after = aapt2_values(&exported.path().join(folder), work.path(), &format!("{folder}-b"));
        assert_eq!(after, before, "{folder}");
        compared += before.as_object().unwrap().len();
    }
    assert_eq!(compared, 14 + 5 + 1 + 2);

    // The same upload again changes nothing and makes no commit.
    let again = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml",
            "application/zip",
            android_zip(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        (again["created"].clone(), again["updated"].clone()),
        (json!(0), json!(0))
    );
    assert_eq!(again["unchanged"], 14);
    assert_eq!(app.commit_count(), commits + 1);
}

#[tokio::test]
async fn dry_runs_count_without_committing_and_create_mode_names_existing_keys() {
    let app = app_with_languages().await;
    let commits = app.commit_count();
    let path = "/teams/acme/projects/mobile/files?type=android-xml&dryRun=true";
    let answer = app
        .post_bytes(path, "application/zip", android_zip())
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        (answer["created"].clone(), answer["dryRun"].clone()),
        (json!(14), json!(true))
    );
    assert_eq!(app.commit_count(), commits);
    let single = r#"<resources><string name="app_name">Mine</string></resources>"#;
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml&language=fr",
        "application/xml",
        single.as_bytes().to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let reply = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml&language=en&mode=create",
            "application/xml",
            single.as_bytes().to_vec(),
        )
        .await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    assert!(reply.json()["error"]["message"].as_str().unwrap().contains("app_name"));
    assert_eq!(app.commit_count(), commits + 1);
}

/// A `.strings` file as Xcode writes it: UTF-16 with a byte order mark, comments, escapes.
const STRINGS_EN: &str = "/* Title of the main screen */\n\"main.title\" = \"Library\";\n\n/* Shown when empty */\n\"empty\" = \"No \\\"episodes\\\" yet.\\nPull to refresh.\";\n\"unicode\" = \"caf\\U00e9 \\UD83C\\UDF89\";\nunquoted = value;\n\"tab\" = \"a\\tb \\\\ c\";\n";
const STRINGS_FR: &str = "\"main.title\" = \"Bibliothèque\";\n// a line comment\n\"empty\" = \"Aucun épisode.\";\n";
const STRINGSDICT_EN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>episodes.count</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>%#@value@</string>
		<key>value</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>ld</string>
			<key>one</key>
			<string>%ld episode</string>
			<key>other</key>
			<string>%ld episodes</string>
		</dict>
	</dict>
</dict>
</plist>
"#;

fn utf16_with_bom(text: &str) -> Vec<u8> {
    [0xff, 0xfe]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect()
}

#[tokio::test]
async fn apple_lproj_folders_upload_and_export_to_what_apples_parsers_read_from_the_original() {
    let app = app_with_languages().await;
    let en = utf16_with_bom(STRINGS_EN);
    let files: Vec<(&str, &[u8])> = vec![
        ("App/en.lproj/Localizable.strings", &en),
        ("App/en.lproj/Localizable.stringsdict", STRINGSDICT_EN.as_bytes()),
        ("App/fr.lproj/Localizable.strings", STRINGS_FR.as_bytes()),
        ("App/en.lproj/InfoPlist.strings", b"\"CFBundleName\" = \"x\";"),
    ];
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=apple-strings",
            "application/zip",
            zip_of(&files),
        )
        .await
        .assert_ok(StatusCode::OK);
    // Every table of a folder is read, InfoPlist too.
    assert_eq!(answer["created"], 7, "{answer}");
    assert_eq!(answer["ignored"], json!([]));
    let key = app
        .get("/teams/acme/projects/mobile/keys/empty")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["description"], "Shown when empty");

    let original = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = original.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let exported = export_all(&app, "apple-strings").await;
    let strings =
        |dir: &Path, language: &str| readback("strings", &dir.join(format!("{language}.lproj/Localizable.strings")));
    assert_eq!(
        strings(exported.path(), "en"),
        readback("strings", &write("en.strings", STRINGS_EN.as_bytes()))
    );
    assert_eq!(
        strings(exported.path(), "fr"),
        readback("strings", &write("fr.strings", STRINGS_FR.as_bytes()))
    );
    let plural = readback("plist", &exported.path().join("en.lproj/Localizable.stringsdict"));
    let expected = readback("plist", &write("en.stringsdict", STRINGSDICT_EN.as_bytes()));
    assert_eq!(plural, expected);
    // Languages without plural texts still get a (valid, empty) .stringsdict.
    assert_eq!(
        readback("plist", &exported.path().join("fr.lproj/Localizable.stringsdict")),
        json!({})
    );
    let exported_strings = std::fs::read_to_string(exported.path().join("en.lproj/Localizable.strings")).unwrap();
    assert!(
        exported_strings.contains("/* Shown when empty */\n\"empty\" = "),
        "{exported_strings}"
    );
}

#[tokio::test]
async fn json_and_csv_files_with_plurals_round_trip() {
    let app = app_with_languages().await;
    let json_file = json!({
        "home": {"title": "Bienvenue"},
        "episodes": {"one": "{n} épisode", "other": "# épisodes l'été"},
        "plain": "It's {ok}"
    });
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=fr",
        "application/json",
        serde_json::to_vec(&json_file).unwrap(),
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app
        .get("/teams/acme/projects/mobile/keys/episodes")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], json_file["episodes"]);
    let exported = export_all(&app, "csv").await;
    let csv = std::fs::read(exported.path().join("fr.csv")).unwrap();
    // The CSV export uploads back to the same keys: ICU plural cells read back exactly.
    let reply = app
        .post_bytes("/teams/acme/projects/mobile/files?type=csv", "text/csv", csv)
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        (reply["unchanged"].clone(), reply["updated"].clone()),
        (json!(3), json!(0)),
        "{reply}"
    );
    let exported = export_all(&app, "json").await;
    let read = readback("json", &exported.path().join("fr.json"));
    assert_eq!(read["home.title"], "Bienvenue");
    assert_eq!(read["episodes"], json_file["episodes"]);
}

#[tokio::test]
async fn bad_uploads_are_refused_with_a_clear_error_and_change_nothing() {
    let app = app_with_languages().await;
    let commits = app.commit_count();
    let upload = |query: &str, content_type: &str, body: Vec<u8>| {
        let path = format!("/teams/acme/projects/mobile/files?{query}");
        let content_type = content_type.to_owned();
        let app = &app;
        async move { app.post_bytes(&path, &content_type, body).await }
    };
    let message = |reply: &crate::helpers::Reply| reply.json()["error"]["message"].as_str().unwrap().to_owned();

    let reply = upload(
        "type=android-xml&language=en",
        "application/xml",
        b"<resources><string name=\"a\">x</strin>".to_vec(),
    )
    .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert!(message(&reply).contains("strings.xml: line 1"), "{}", message(&reply));

    let reply = upload(
        "type=android-xml",
        "application/zip",
        b"PK\x03\x04 not really a zip".to_vec(),
    )
    .await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");

    let climbing = zip_of(&[("../../etc/values/strings.xml", b"<resources/>")]);
    let reply = upload("type=android-xml", "application/zip", climbing).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert!(message(&reply).contains("leaves"), "{}", message(&reply));

    let unknown = zip_of(&[(
        "res/values-de/strings.xml",
        b"<resources><string name=\"a\">x</string></resources>",
    )]);
    let reply = upload("type=android-xml", "application/zip", unknown).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    assert!(
        message(&reply).contains("\"de\"") && message(&reply).contains("addLanguages"),
        "{}",
        message(&reply)
    );

    let reply = upload("type=json", "application/json", b"{\"a\": \"b\"}".to_vec()).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");

    let reply = upload("type=json&language=en", "application/json", b"{\"a\": 5}".to_vec()).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");

    // A zip bomb: 200 MB of zeros packed into a small archive, over the 64 MiB import limit.
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    archive
        .start_file("res/values/strings.xml", zip::write::SimpleFileOptions::default())
        .unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..200 {
        archive.write_all(&zeros).unwrap();
    }
    let bomb = archive.finish().unwrap().into_inner();
    assert!(bomb.len() < 1 << 20, "the bomb is small on the wire");
    let reply = upload("type=android-xml", "application/zip", bomb).await;
    assert_eq!(reply.error_code(StatusCode::PAYLOAD_TOO_LARGE), "payload_too_large");

    assert_eq!(app.commit_count(), commits, "no bad upload made a commit");
    assert_eq!(app.clean_status().await, "");
}

/// A real app's resources: Android's own framework strings in six languages, whole (AOSP,
/// Apache-2.0; see `tests/fixtures/apps/android/aosp-framework/SOURCE.md`), with product variants,
/// `<xliff:g>`, spans with white space at their ends, a resource reference, escapes and the
/// plural forms of Arabic and Russian.
#[tokio::test]
async fn a_real_apps_android_resources_upload_and_export_to_what_aapt2_read_from_the_original() {
    const FOLDERS: &[&str] = &[
        "values",
        "values-fr",
        "values-pt-rBR",
        "values-b+sr+Latn",
        "values-ar",
        "values-ru",
    ];
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps/android/aosp-framework/core/res/res");
    let files: Vec<(String, Vec<u8>)> = FOLDERS
        .iter()
        .map(|folder| {
            let path = format!("res/{folder}/strings.xml");
            (path, std::fs::read(fixture.join(folder).join("strings.xml")).unwrap())
        })
        .collect();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();

    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "aosp", "displayName": "AOSP"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let project = json!({"name": "framework", "displayName": "Framework", "languagesISO": ["en", "fr", "pt-BR", "sr-Latn", "ar", "ru"]});
    app.post("/teams/aosp/projects", project)
        .await
        .assert_ok(StatusCode::CREATED);
    let commits = app.commit_count();
    let answer = app
        .post_bytes(
            "/teams/aosp/projects/framework/files?type=android-xml",
            "application/zip",
            zip_of(&files),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1, "{answer}");
    assert!(
        answer["skipped"].as_u64().unwrap() > 0,
        "the product variants: {answer}"
    );

    let exported = export_project(&app, "aosp/framework", "android-xml").await;

    let work = tempfile::tempdir().unwrap();
    let (mut strings, mut plurals, mut empty, mut references) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for folder in FOLDERS {
        let before = aapt2_values(&fixture.join(folder), work.path(), &format!("{folder}-a"));
        let after = aapt2_values(&exported.path().join(folder), work.path(), &format!("{folder}-b"));
        for (name, value) in before.as_object().unwrap() {
            // An empty text is no translation (the contract), so an empty string is not exported.
            if value == "" {
                assert_eq!(after.get(name), None, "{folder}: {name}");
                empty += 1;
                continue;
            }
            // A reference to another resource is no text: passed over, named in the warnings.
            if value.get("reference").is_some() {
                assert_eq!(after.get(name), None, "{folder}: {name}");
                assert!(
                    answer["warnings"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|warning| warning["key"] == name.as_str()
                            && warning["message"].as_str().unwrap().contains("reference")),
                    "{folder}: {name}: {answer}"
                );
                references += 1;
                continue;
            }
            if after.get(name) != Some(value) {
                mismatches.push(format!("{folder}: {name}: {value} became {:?}", after.get(name)));
            }
            if value.get("plural").is_some() {
                plurals += 1;
            } else {
                strings += 1;
            }
        }
        let left_out = before
            .as_object()
            .unwrap()
            .values()
            .filter(|value| *value == "" || value.get("reference").is_some())
            .count();
        assert_eq!(
            after.as_object().unwrap().len(),
            before.as_object().unwrap().len() - left_out,
            "{folder}"
        );
    }
    assert!(
        mismatches.is_empty(),
        "{} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    eprintln!(
        "aapt2 read {strings} strings and {plurals} plurals alike from the original and the export ({empty} empty strings and {references} references left out)"
    );
    assert_eq!(
        (strings, plurals, empty, references),
        (10402, 216, 13, 1),
        "every string and plural of the fixture was compared"
    );
}

/// A real app's `.lproj` folders: GNUMail's strings, whole (GPL-2.0-or-later; see
/// `tests/fixtures/gnumail-lproj/SOURCE.md`), UTF-16 with a byte-order mark, in folders named
/// the old Xcode way (`English.lproj`), keys with line breaks among them.
#[tokio::test]
async fn a_real_apps_lproj_folders_upload_and_export_to_what_a_corefoundation_reader_read_from_the_original() {
    const FOLDERS: &[(&str, &str)] = &[
        ("English", "en"),
        ("French", "fr"),
        ("Russian", "ru"),
        ("Spanish", "es"),
        ("Arabic", "ar"),
    ];
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gnumail-lproj");
    let original = |folder: &str| fixture.join(format!("{folder}.lproj/Localizable.strings"));
    let files: Vec<(String, Vec<u8>)> = FOLDERS
        .iter()
        .map(|(folder, _)| {
            let path = format!("GNUMail.app/Resources/{folder}.lproj/Localizable.strings");
            (path, std::fs::read(original(folder)).unwrap())
        })
        .collect();
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();

    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "gnustep", "displayName": "GNUstep"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let project = json!({"name": "gnumail", "displayName": "GNUMail", "languagesISO": ["en", "fr", "ru", "es", "ar"]});
    app.post("/teams/gnustep/projects", project)
        .await
        .assert_ok(StatusCode::CREATED);
    let commits = app.commit_count();
    let answer = app
        .post_bytes(
            "/teams/gnustep/projects/gnumail/files?type=apple-strings",
            "application/zip",
            zip_of(&files),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits + 1, "{answer}");

    let exported = export_project(&app, "gnustep/gnumail", "apple-strings").await;
    let mut compared = 0;
    for (folder, language) in FOLDERS {
        let before = readback("strings", &original(folder));
        let after = readback(
            "strings",
            &exported.path().join(format!("{language}.lproj/Localizable.strings")),
        );
        // An empty text is no translation (the contract), so an empty value is not exported.
        let kept: serde_json::Map<String, Value> = before
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, value)| *value != "")
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        assert_eq!(after, Value::Object(kept.clone()), "{folder}");
        compared += kept.len();
    }
    eprintln!("openstep_plist read {compared} strings alike from the original and the export");
    assert_eq!(compared, 2368, "every string of the fixture was compared");
}

#[tokio::test]
async fn one_stale_translation_never_keeps_an_app_out_and_each_entry_passed_over_is_a_warning() {
    let app = app_with_languages().await;
    let commits = app.commit_count();
    let tree = zip_of(&[
        (
            "res/values/strings.xml",
            b"<resources xmlns:tools=\"http://schemas.android.com/tools\">\n    <string name=\"app_name\" translatable=\"false\">Tusky</string>\n    <string name=\"title\">Home</string>\n</resources>\n",
        ),
        (
            "res/values/plurals.xml",
            b"<resources>\n    <plurals name=\"files\">\n        <item quantity=\"one\">%d file</item>\n        <item quantity=\"other\">%d files</item>\n    </plurals>\n    <plurals name=\"broken\">\n        <item quantity=\"one\">only one</item>\n    </plurals>\n</resources>\n",
        ),
        (
            "res/values-fr/strings.xml",
            b"<resources>\n    <string name=\"app_name\">Tusky FR</string>\n    <string name=\"title\">Accueil</string>\n    <string name=\"files\">fichiers (old)</string>\n</resources>\n",
        ),
    ]);
    let reply = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml",
            "application/zip",
            tree,
        )
        .await;
    let answer = reply.assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 3, "{answer}");
    let warnings = answer["warnings"].as_array().unwrap();
    let seen: Vec<(&str, u64, &str, &str)> = warnings
        .iter()
        .map(|warning| {
            (
                warning["path"].as_str().unwrap(),
                warning["line"].as_u64().unwrap(),
                warning["key"].as_str().unwrap(),
                warning["language"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("res/values/plurals.xml", 6, "broken", "en"),
            ("res/values-fr/strings.xml", 2, "app_name", "fr"),
            ("res/values-fr/strings.xml", 4, "files", "fr"),
        ],
        "{answer}"
    );
    assert_eq!(app.commit_count(), commits + 1);

    // The base language decided: `files` stays plural, in plurals.xml, without the stale text.
    let files = app
        .get("/teams/acme/projects/mobile/keys/files")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(files["data"]["plural"], true);
    assert_eq!(files["data"]["files"], json!({"android": "plurals.xml"}));
    assert_eq!(files["data"]["translation"]["fr"], Value::Null);
    let name = app
        .get("/teams/acme/projects/mobile/keys/app_name")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(name["data"]["translatable"], false);
    assert_eq!(name["data"]["translation"], json!({"en": "Tusky"}));
    let title = app
        .get("/teams/acme/projects/mobile/keys/title")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(title["data"]["files"], json!({"android": "strings.xml"}));

    // A name defined twice takes the last definition, as the platforms do, with a warning
    // naming both places.
    let twice =
        b"<resources>\n<string name=\"twice\">x</string>\n<string name=\"twice\">y</string>\n</resources>".to_vec();
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml&language=en",
            "text/xml",
            twice,
        )
        .await
        .assert_ok(StatusCode::OK);
    let warning = answer["warnings"][0]["message"].as_str().unwrap();
    assert!(
        warning.contains("defined twice") && warning.contains("line 2"),
        "{answer}"
    );
    assert_eq!(answer["warnings"][0]["line"], 3, "{answer}");
    let twice = app
        .get("/teams/acme/projects/mobile/keys/twice")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(twice["data"]["translation"]["en"], "y");

    // A key name with a line break (as old Apple apps have) is a key like any other; a name
    // the rules refuse (the empty one) is passed over with its file and line, and the rest of
    // the file is taken.
    let newline_key = b"/* ok */\n\"fine\" = \"x\";\n\"\" = \"y\";\n".to_vec();
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=apple-strings&language=en",
            "text/plain",
            newline_key,
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 1, "{answer}");
    assert_eq!(answer["warnings"][0]["line"], 3, "{answer}");
    assert!(
        answer["warnings"][0]["message"].as_str().unwrap().contains("empty"),
        "{answer}"
    );
}

#[tokio::test]
async fn exports_write_each_key_into_the_file_it_came_from() {
    let app = app_with_languages().await;
    let tree = zip_of(&[
        (
            "res/values/strings.xml",
            b"<resources>\n    <string name=\"title\">Home</string>\n</resources>\n",
        ),
        (
            "res/values/plurals.xml",
            b"<resources>\n    <plurals name=\"files\">\n        <item quantity=\"one\">%d file</item>\n        <item quantity=\"other\">%d files</item>\n    </plurals>\n</resources>\n",
        ),
        (
            "res/values-fr/plurals.xml",
            b"<resources>\n    <plurals name=\"files\">\n        <item quantity=\"one\">%d fichier</item>\n        <item quantity=\"other\">%d fichiers</item>\n    </plurals>\n</resources>\n",
        ),
    ]);
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml",
        "application/zip",
        tree,
    )
    .await
    .assert_ok(StatusCode::OK);
    let dir = export_all(&app, "android-xml").await;
    for path in ["values/plurals.xml", "values/strings.xml", "values-fr/plurals.xml"] {
        assert!(dir.path().join(path).is_file(), "{path}");
    }
    let base_strings = std::fs::read_to_string(dir.path().join("values/strings.xml")).unwrap();
    assert!(
        !base_strings.contains("plurals"),
        "no plural is defined twice: {base_strings}"
    );

    // An Apple table other than Localizable is a namespace of its own, written back as its
    // table.
    let lproj = zip_of(&[
        ("en.lproj/InfoPlist.strings", b"\"CFBundleDisplayName\" = \"Acme\";\n"),
        ("en.lproj/Localizable.strings", b"\"greeting\" = \"Hi\";\n"),
    ]);
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=apple-strings",
        "application/zip",
        lproj,
    )
    .await
    .assert_ok(StatusCode::OK);
    let key = app
        .get("/teams/acme/projects/mobile/keys/CFBundleDisplayName?namespace=InfoPlist")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["namespace"], "InfoPlist");
    assert_eq!(key["data"]["files"], json!({}));
    let dir = export_all(&app, "apple-strings").await;
    let info = std::fs::read_to_string(dir.path().join("en.lproj/InfoPlist.strings")).unwrap();
    assert_eq!(info, "\"CFBundleDisplayName\" = \"Acme\";\n");
}

#[tokio::test]
async fn a_translations_file_uploaded_alone_never_changes_a_keys_kind() {
    let app = app_with_languages().await;
    let base = b"<resources>\n    <plurals name=\"files\">\n        <item quantity=\"one\">%d file</item>\n        <item quantity=\"other\">%d files</item>\n    </plurals>\n</resources>\n";
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml&language=en",
        "text/xml",
        base.to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    // A stale plain string in French, uploaded on its own: the project's key decides.
    let stale = b"<resources>\n    <string name=\"files\">fichiers</string>\n</resources>\n";
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=android-xml&language=fr",
            "text/xml",
            stale.to_vec(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["unchanged"], 1, "{answer}");
    assert_eq!(answer["warnings"][0]["key"], "files", "{answer}");
    assert!(
        answer["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("the project"),
        "{answer}"
    );
    let key = app
        .get("/teams/acme/projects/mobile/keys/files")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["plural"], true);
    assert_eq!(key["data"]["translation"]["fr"], Value::Null);
}

#[tokio::test]
async fn i18next_forms_beside_a_plain_key_of_their_name_are_keys_of_their_own_as_the_base_file_says() {
    let app = app_with_languages().await;
    // AFFiNE's base file: `t(\"tags\")` reads the plain text, `t(\"tags\", {count})` the
    // forms. Grist's German: a stale plain `files` beside the forms the base language has.
    let tree = zip_of(&[
        (
            "en.json",
            br#"{"tags": "{{count}} doc", "tags_one": "{{count}} doc", "tags_other": "{{count}} docs", "tags_zero": "no doc", "files_one": "one file", "files_other": "{{count}} files"}"#,
        ),
        (
            "fr.json",
            br#"{"tags_one": "{{count}} doc", "tags_other": "{{count}} docs", "files": "fichiers (old)", "files_one": "un fichier", "files_other": "{{count}} fichiers"}"#,
        ),
    ]);
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=i18next",
            "application/zip",
            tree,
        )
        .await
        .assert_ok(StatusCode::OK);
    let passed_over: Vec<(&str, &str)> = answer["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|warning| warning["message"].as_str().unwrap().contains("passed over"))
        .map(|warning| (warning["key"].as_str().unwrap(), warning["language"].as_str().unwrap()))
        .collect();
    assert_eq!(passed_over, [("files", "fr")], "{answer}");
    let key = |name: &str| {
        let app = &app;
        let path = format!("/teams/acme/projects/mobile/keys/{name}");
        async move { app.get(&path).await.assert_ok(StatusCode::OK)["data"].clone() }
    };
    let tags = key("tags").await;
    assert_eq!(tags["plural"], false);
    assert_eq!(tags["translation"], json!({"en": "{{count}} doc"}));
    for (name, en, fr) in [
        ("tags_one", json!("{{count}} doc"), json!("{{count}} doc")),
        ("tags_other", json!("{{count}} docs"), json!("{{count}} docs")),
        ("tags_zero", json!("no doc"), Value::Null),
    ] {
        let form = key(name).await;
        assert_eq!(form["plural"], false, "{name}");
        assert_eq!(form["translation"]["en"], en, "{name}");
        assert_eq!(form["translation"]["fr"], fr, "{name}");
    }
    let files = key("files").await;
    assert_eq!(files["plural"], true);
    assert_eq!(
        files["translation"]["fr"],
        json!({"one": "un fichier", "other": "{{count}} fichiers"})
    );
}

#[tokio::test]
async fn a_translations_copy_of_a_group_comment_is_no_description_when_the_base_file_has_none() {
    // AntennaPod: the group comment stands above a `translatable="false"` entry in the base
    // file, and above the group's first translated entry in a translation's file.
    let app = app_with_languages().await;
    let base = b"<resources>\n    <!-- Activity titles -->\n    <string name=\"authority\" translatable=\"false\">a.b</string>\n    <string name=\"update\">Update</string>\n</resources>\n";
    let french =
        b"<resources>\n    <!--Activity titles-->\n  <string name=\"update\">Actualiser</string>\n</resources>\n";
    let zip = zip_of(&[("res/values-fr/strings.xml", french), ("res/values/strings.xml", base)]);
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=android-xml",
        "application/zip",
        zip,
    )
    .await
    .assert_ok(StatusCode::OK);
    let update = app
        .get("/teams/acme/projects/mobile/keys/update")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(update["data"]["translation"]["fr"], "Actualiser");
    assert_eq!(update["data"]["description"], "", "{update}");
    let authority = app
        .get("/teams/acme/projects/mobile/keys/authority")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(authority["data"]["description"], "Activity titles");
}

#[tokio::test]
async fn a_csv_table_uploads_every_language_column_and_exports_as_one_table_pythons_csv_reads() {
    // Twill's layout: a byte order mark, a row of language names above the row of codes.
    let app = app_with_languages().await;
    let table = "\u{feff}Language,English,French\nISO639-1Code,en,fr\nhome.title,Welcome,\"Bienvenue, \"\"ami\"\"\"\nbye,\"two\nlines\",\n";
    let answer = app
        .post_bytes(
            "/teams/acme/projects/mobile/files?type=csv-table",
            "text/csv",
            table.as_bytes().to_vec(),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(answer["created"], 2, "{answer}");
    let key = app
        .get("/teams/acme/projects/mobile/keys/home.title")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["fr"], "Bienvenue, \"ami\"");
    let (_, bytes) = crate::platforms::download_export(
        &app,
        "/teams/acme/projects/mobile/keys/export?type=csv-table&languages=en,fr",
    )
    .await;
    let exported = String::from_utf8(bytes).unwrap();
    assert_eq!(
        exported,
        "key,en,fr\r\nbye,\"two\nlines\",\r\nhome.title,Welcome,\"Bienvenue, \"\"ami\"\"\"\r\n"
    );
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("table.csv");
    std::fs::write(&file, &exported).unwrap();
    let read = std::process::Command::new(crate::platforms::python())
        .args([
            "-c",
            "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let rows: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(
        rows,
        json!([
            ["key", "en", "fr"],
            ["bye", "two\nlines", ""],
            ["home.title", "Welcome", "Bienvenue, \"ami\""]
        ])
    );
}
