//! Exported files read back by the platforms' own parsers: Android's resource compiler
//! (aapt2, compile and link, values read from the built resource table), an independent port
//! of Apple's strings-file parser (openstep_plist), and Python's csv and json modules.
//! `scripts/test.sh` installs these tools; without them these tests fail and say so.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::TestApp;

/// Texts that translation services are known to get wrong.
pub const HARD_TEXTS: &[&str] = &[
    "apostrophe's",
    "'single quoted'",
    "\"double\" quotes",
    "back\\slash and ends with\\",
    "\\n is not a newline here",
    "@string/not_a_reference",
    "?attr/not_a_theme_attribute",
    "mid @ and ? stay",
    "100%",
    "%s",
    "%1$s and %2$d",
    "50% off %d items %",
    "line one\nline two",
    "tab\there",
    "  leading spaces",
    "trailing spaces  ",
    "a  b   c",
    " ",
    "<b>bold</b> and <xliff:g id=\"x\">markup</xliff:g>",
    "&amp; &lt; &#x41; & <",
    "🎉 emoji 👩‍👩‍👧",
    "עברית ومرحبا",
    "carriage\r\nreturn",
    "control \u{1} char",
    "#hash start",
    "{{curly}} ; semi \"=\" = ",
    "\"",
    "'",
    "@",
    "?",
];

pub fn python() -> String {
    std::env::var("LOCSTORE_TEST_PYTHON").unwrap_or_else(|_| {
        panic!("LOCSTORE_TEST_PYTHON is not set: run the tests with `bash scripts/test.sh`, which installs the readers")
    })
}

fn aapt2() -> PathBuf {
    ["/usr/bin/aapt2", "/usr/lib/android-sdk/build-tools/debian/aapt2"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("aapt2 is not installed: run the tests with `bash scripts/test.sh`, which installs it")
}

fn framework_res() -> PathBuf {
    let path = PathBuf::from("/usr/share/android-framework-res/framework-res.apk");
    assert!(
        path.exists(),
        "android-framework-res is not installed: run the tests with `bash scripts/test.sh`"
    );
    path
}

pub fn readback(kind: &str, path: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/readback.py");
    let output = Command::new(python()).arg(script).arg(kind).arg(path).output().unwrap();
    assert!(
        output.status.success(),
        "readback {kind} {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Parses ICU MessageFormat plural messages with FormatJS's parser (tests/tools/icu.mjs) and
/// returns each one's forms.
pub fn icu_plural_forms(messages: &[String]) -> Vec<Value> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools");
    assert!(
        tools.join("node_modules/@formatjs/icu-messageformat-parser").is_dir(),
        "the ICU parser is not installed: run the tests with `bash scripts/test.sh`"
    );
    let mut child = Command::new("node")
        .arg(tools.join("icu.mjs"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), messages).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "icu.mjs: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn run(command: &mut Command) {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A project in `en` (base), `fr`, `pt-BR` and `zh-Hans`; key `t00`, `t01`, ... holds the
/// n-th hard text in every language (with a language marker after it in all but `en`).
async fn hard_app() -> (TestApp, BTreeMap<String, BTreeMap<String, String>>) {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"})).await;
    let project = json!({"name": "mobile", "displayName": "M", "languagesISO": ["en", "fr", "pt-BR", "zh-Hans"]});
    app.post("/teams/acme/projects", project)
        .await
        .assert_ok(StatusCode::CREATED);
    let mut expected: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (index, text) in HARD_TEXTS.iter().enumerate() {
        let name = format!("t{index:02}");
        let mut translations = Vec::new();
        for language in ["en", "fr", "pt-BR", "zh-Hans"] {
            let content = if language == "en" {
                text.to_string()
            } else {
                format!("{text} [{language}]")
            };
            expected
                .entry(language.to_owned())
                .or_default()
                .insert(name.clone(), content.clone());
            translations.push(json!({"language": language, "content": content}));
        }
        app.post(
            "/teams/acme/projects/mobile/keys",
            json!({"name": name, "translations": translations}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
    }
    (app, expected)
}

/// Exports every language as a zip and unpacks it into a temporary folder.
pub async fn export_all(app: &TestApp, format: &str) -> tempfile::TempDir {
    export_project(app, "acme/mobile", format).await
}

/// Asks for an export (`export_path`, the request's path and query) and downloads it: the
/// downloaded file's name and bytes.
pub async fn download_export(app: &TestApp, export_path: &str) -> (String, Vec<u8>) {
    let reply = app.get(export_path).await.assert_ok(StatusCode::OK);
    let address = reply["data"].as_str().unwrap();
    let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
    let download = app.call(Method::GET, &path, None, None).await;
    assert_eq!(download.status, StatusCode::OK);
    (path.rsplit('/').next().unwrap().to_owned(), download.body)
}

/// Exports every language of `team/project` and unpacks the zip into a temporary folder.
pub async fn export_project(app: &TestApp, project: &str, format: &str) -> tempfile::TempDir {
    let (team, project) = project.split_once('/').unwrap();
    let (_, bytes) = download_export(
        app,
        &format!("/teams/{team}/projects/{project}/keys/export?type={format}"),
    )
    .await;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).unwrap();
        let target = dir.path().join(file.enclosed_name().unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    dir
}

/// An app manifest for aapt2 to link against.
pub fn write_manifest(dir: &Path) -> PathBuf {
    let manifest = dir.join("AndroidManifest.xml");
    std::fs::write(
        &manifest,
        "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.example.locstore\"/>\n",
    )
    .unwrap();
    manifest
}

/// Compiles a `res` folder with aapt2 and links it against the Android framework into `apk`.
pub fn build_apk(res: &Path, manifest: &Path, compiled: PathBuf, apk: PathBuf) -> PathBuf {
    run(Command::new(aapt2())
        .arg("compile")
        .arg("--dir")
        .arg(res)
        .arg("-o")
        .arg(&compiled));
    run(Command::new(aapt2())
        .arg("link")
        .arg("-I")
        .arg(framework_res())
        .arg("--manifest")
        .arg(manifest)
        .arg("-o")
        .arg(&apk)
        .arg(&compiled));
    apk
}

fn as_map(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, text)| (key.clone(), text.as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn json_files_read_back_exactly_in_python() {
    let (app, expected) = hard_app().await;
    let dir = export_all(&app, "json").await;
    for (language, texts) in &expected {
        let read = readback("json", &dir.path().join(format!("{language}.json")));
        assert_eq!(&as_map(&read), texts, "{language}");
    }
}

#[tokio::test]
async fn csv_files_read_back_exactly_in_python() {
    let (app, expected) = hard_app().await;
    let dir = export_all(&app, "csv").await;
    for (language, texts) in &expected {
        let rows = readback("csv", &dir.path().join(format!("{language}.csv")));
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
        assert_eq!(rows[0], ["key", language.as_str()]);
        let read: BTreeMap<String, String> = rows[1..].iter().map(|row| (row[0].clone(), row[1].clone())).collect();
        assert_eq!(&read, texts, "{language}");
    }
    let raw = std::fs::read(dir.path().join("en.csv")).unwrap();
    assert!(raw.ends_with(b"\r\n"), "RFC 4180 line ends");
}

/// Plural keys' CSV cells are ICU MessageFormat plurals that an independent ICU parser reads
/// back form by form, whatever the forms hold (apostrophes, braces, `#`, quotes, newlines).
#[tokio::test]
async fn csv_plural_cells_read_back_exactly_in_an_icu_parser() {
    let (app, _) = hard_app().await;
    let mut expected = BTreeMap::new();
    for (index, text) in HARD_TEXTS.iter().enumerate() {
        let name = format!("p{index:02}");
        let forms = json!({"one": format!("one: {text}"), "other": text});
        app.post(
            "/teams/acme/projects/mobile/keys",
            json!({"name": name, "plural": true, "translations": [{"language": "fr", "forms": forms}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
        expected.insert(name, forms);
    }
    let dir = export_all(&app, "csv").await;
    let rows = readback("csv", &dir.path().join("fr.csv"));
    let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
    let plural_rows: Vec<&Vec<String>> = rows.iter().filter(|row| row[0].starts_with('p')).collect();
    let cells: Vec<String> = plural_rows.iter().map(|row| row[1].clone()).collect();
    let read: BTreeMap<String, Value> = plural_rows
        .iter()
        .map(|row| row[0].clone())
        .zip(icu_plural_forms(&cells))
        .collect();
    assert_eq!(read, expected);
}

#[tokio::test]
async fn apple_strings_files_read_back_exactly_in_apples_parser() {
    let (app, expected) = hard_app().await;
    let dir = export_all(&app, "apple-strings").await;
    for (language, texts) in &expected {
        let read = readback(
            "strings",
            &dir.path().join(format!("{language}.lproj/Localizable.strings")),
        );
        assert_eq!(&as_map(&read), texts, "{language}");
    }
}

#[tokio::test]
async fn android_files_compile_link_and_read_back_exactly_in_aapt2() {
    let (app, expected) = hard_app().await;
    let dir = export_all(&app, "android-xml").await;
    let folders = ["values", "values-fr", "values-pt-rBR", "values-b+zh+Hans"];
    let work = tempfile::tempdir().unwrap();
    let manifest = write_manifest(work.path());

    // All languages together: the qualifiers are valid and the files link into one app.
    let res = work.path().join("res");
    for folder in folders {
        std::fs::create_dir_all(res.join(folder)).unwrap();
        std::fs::copy(
            dir.path().join(folder).join("strings.xml"),
            res.join(folder).join("strings.xml"),
        )
        .unwrap();
    }
    build_apk(
        &res,
        &manifest,
        work.path().join("all.zip"),
        work.path().join("all.apk"),
    );

    // One language at a time as the default configuration, to read its values back.
    for (folder, language) in folders.iter().zip(["en", "fr", "pt-BR", "zh-Hans"]) {
        let single = work.path().join(format!("single-{language}"));
        std::fs::create_dir_all(single.join("values")).unwrap();
        std::fs::copy(
            dir.path().join(folder).join("strings.xml"),
            single.join("values/strings.xml"),
        )
        .unwrap();
        let apk = build_apk(
            &single,
            &manifest,
            work.path().join(format!("{language}.zip")),
            work.path().join(format!("{language}.apk")),
        );
        let read = readback("android", &apk);
        assert_eq!(&as_map(&read), &expected[language], "{language}");
    }
}

#[tokio::test]
async fn android_resource_names_are_mapped_and_still_compile() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let names = [
        ("errors/network", "errors_network"),
        ("1st.place", "_1st.place"),
        ("class", "class_"),
        ("Hello, %@!", "Hello_____"),
        ("ünïcode", "_n_code"),
    ];
    for (name, _) in names {
        app.create_key(name, &[], &[("en", name)])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let reply = app
        .get("/teams/acme/projects/mobile/keys/export?type=android-xml&languages=en")
        .await
        .assert_ok(StatusCode::OK);
    let address = reply["data"].as_str().unwrap();
    let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
    let xml = app.call(Method::GET, &path, None, None).await.body;

    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("res/values")).unwrap();
    std::fs::write(work.path().join("res/values/strings.xml"), xml).unwrap();
    let manifest = write_manifest(work.path());
    let apk = build_apk(
        &work.path().join("res"),
        &manifest,
        work.path().join("c.zip"),
        work.path().join("a.apk"),
    );
    let read = as_map(&readback("android", &apk));
    let expected: BTreeMap<String, String> = names
        .iter()
        .map(|(name, mapped)| (mapped.to_string(), name.to_string()))
        .collect();
    assert_eq!(read, expected);
}
