//! `locstore init`, `push` and `pull`: the real binary as the client of a real server on
//! loopback, on an app repository with Android, iOS and web files and files of its own.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::helpers::git_in;
use crate::server::Server;

const TOKEN: &str = "cli-admin-token";

const FILES: &[(&str, &str)] = &[
    (
        "app/src/main/res/values/strings.xml",
        r#"<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- The app's name -->
    <string name="app_name">Podcasts</string>
    <string name="play">Play \"now\"</string>
    <plurals name="episodes">
        <item quantity="one">%d episode</item>
        <item quantity="other">%d episodes</item>
    </plurals>
</resources>
"#,
    ),
    (
        "app/src/main/res/values-fr/strings.xml",
        r#"<resources><string name="app_name">Balados</string></resources>"#,
    ),
    // The app's own files, which no pull may touch.
    (
        "app/src/main/res/values/dimens.xml",
        "<resources><dimen name=\"m\">4dp</dimen></resources>",
    ),
    (
        "app/src/main/res/values-night/colors.xml",
        "<resources><color name=\"bg\">#000</color></resources>",
    ),
    (
        "ios/App/Resources/en.lproj/Localizable.strings",
        "\"settings.title\" = \"Settings\";\n",
    ),
    (
        "ios/App/Resources/fr.lproj/Localizable.strings",
        "\"settings.title\" = \"Réglages\";\n",
    ),
    ("ios/App/Resources/Base.lproj/Main.storyboard", "<document/>"),
    ("web/locales/en.json", "{\"home\": {\"title\": \"Home\"}}"),
    ("web/locales/fr.json", "{\"home\": {\"title\": \"Accueil\"}}"),
    ("web/package.json", "{\"name\": \"web\"}"),
];

/// What the app's own files hold before any pull.
const UNRELATED: &[&str] = &[
    "app/src/main/res/values/dimens.xml",
    "app/src/main/res/values-night/colors.xml",
    "ios/App/Resources/Base.lproj/Main.storyboard",
    "web/package.json",
];

struct Setup {
    _dir: tempfile::TempDir,
    server: Server,
    app: PathBuf,
    data: PathBuf,
    read_token: String,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let created = Command::new(env!("CARGO_BIN_EXE_locstore"))
            .args(["token", "create", "--name", "reader", "--access", "read", "--data-dir"])
            .arg(&data)
            .output()
            .unwrap();
        assert!(created.status.success(), "{created:?}");
        let read_token = String::from_utf8(created.stdout).unwrap().trim().to_owned();
        let server = Server::start(&data, &[("LOCSTORE_API_TOKEN", TOKEN)]);
        let (status, body) = server.request(
            "POST",
            "/teams",
            Some(TOKEN),
            Some(r#"{"name":"acme","displayName":"Acme"}"#),
        );
        assert_eq!(status, 201, "{body}");
        let project = r#"{"name":"mobile","displayName":"Mobile","languagesISO":["en","fr"]}"#;
        let (status, body) = server.request("POST", "/teams/acme/projects", Some(TOKEN), Some(project));
        assert_eq!(status, 201, "{body}");
        let app = dir.path().join("app-repo");
        for (path, text) in FILES {
            let path = app.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self {
            _dir: dir,
            server,
            app,
            data,
            read_token,
        }
    }

    /// Runs `locstore ARGS` in the app repository with `token` in LOCSTORE_TOKEN.
    fn run_with(&self, token: Option<&str>, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_locstore"));
        command.args(args).current_dir(&self.app).env_remove("LOCSTORE_TOKEN");
        if let Some(token) = token {
            command.env("LOCSTORE_TOKEN", token);
        }
        command.output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(Some(TOKEN), args)
    }

    fn init(&self) {
        let output = self.run(&["init", "--project", "acme/mobile", "--server", &self.server.base]);
        assert_eq!(status(&output), 0, "{}", text(&output.stderr));
        assert_eq!(
            text(&output.stdout).lines().skip(1).collect::<Vec<_>>(),
            [
                "  android-xml: app/src/main/res",
                "  apple-strings: ios/App/Resources",
                "  json: web/locales/{lang}.json"
            ]
        );
    }

    fn commits(&self) -> usize {
        git_in(&self.data.join("repo"), &["rev-list", "--count", "HEAD"])
            .trim()
            .parse()
            .unwrap()
    }

    fn read(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.app.join(path)).unwrap()
    }

    /// The files of an export of the keys with `tag`, as the server writes them, by their
    /// layout path.
    fn export(&self, format: &str, tag: &str) -> BTreeMap<String, Vec<u8>> {
        let (status, body) = self.server.request(
            "GET",
            &format!("/teams/acme/projects/mobile/keys/export?type={format}&tags={tag}"),
            Some(TOKEN),
            None,
        );
        assert_eq!(status, 200, "{body}");
        let address: serde_json::Value = serde_json::from_str(&body).unwrap();
        let zip = download(address["data"].as_str().unwrap());
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
        (0..archive.len())
            .map(|index| {
                let mut file = archive.by_index(index).unwrap();
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).unwrap();
                (file.name().to_owned(), bytes)
            })
            .collect()
    }
}

fn download(url: &str) -> Vec<u8> {
    let output = Command::new("curl").args(["-sf", url]).output().expect("curl runs");
    assert!(output.status.success(), "curl {url}");
    output.stdout
}

fn status(output: &Output) -> i32 {
    output.status.code().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn push_then_pull_leaves_the_apps_files_as_they_were_and_writes_the_ones_it_lacks() {
    let setup = Setup::new();
    setup.init();
    let before: Vec<Vec<u8>> = UNRELATED.iter().map(|path| setup.read(path)).collect();

    // A dry run counts and commits nothing.
    let commits = setup.commits();
    let dry = setup.run(&["push", "--dry-run", "--fail-on-change"]);
    assert_eq!(
        status(&dry),
        1,
        "a dry run that would change something: {}",
        text(&dry.stderr)
    );
    assert!(
        text(&dry.stdout).contains("dry run, nothing committed"),
        "{}",
        text(&dry.stdout)
    );
    assert_eq!(setup.commits(), commits);

    let push = setup.run(&["push"]);
    assert_eq!(status(&push), 0, "{}", text(&push.stderr));
    let printed = text(&push.stdout);
    assert!(
        printed.contains("app/src/main/res (android-xml): 3 files, 3 keys new"),
        "{printed}"
    );
    assert!(printed.contains("  fr: 3 new, 0 changed"), "{printed}");
    assert_eq!(
        setup.commits(),
        commits + 1,
        "one commit for the push, whatever its sets"
    );

    // The app's files are a git working tree: push then pull leaves it clean, since every
    // file the app has already holds the server's values, whatever its own formatting.
    git_in(&setup.app, &["init", "-q"]);
    git_in(&setup.app, &["add", "-A"]);
    git_in(&setup.app, &["commit", "-qm", "the app"]);
    let pull = setup.run(&["pull"]);
    assert_eq!(status(&pull), 0, "{}", text(&pull.stderr));
    assert_eq!(
        git_in(&setup.app, &["status", "--porcelain"]),
        "",
        "{}",
        text(&pull.stdout)
    );
    // A file the app lacks, of a language it has, is not written: pull adds nothing the
    // app lacks.
    let french = "ios/App/Resources/fr.lproj/Localizable.strings";
    std::fs::remove_file(setup.app.join(french)).unwrap();
    assert_eq!(status(&setup.run(&["pull"])), 0);
    assert!(!setup.app.join(french).exists());
    git_in(&setup.app, &["checkout", "--", french]);
    // A language new on the server brings its files, written as the export writes them.
    let (status_code, body) = setup.server.request(
        "PATCH",
        "/teams/acme/projects/mobile",
        Some(TOKEN),
        Some(r#"{"languagesISO":["en","fr","de"]}"#),
    );
    assert_eq!(status_code, 200, "{body}");
    assert_eq!(status(&setup.run(&["pull"])), 0);
    let german = "ios/App/Resources/de.lproj/Localizable.strings";
    assert_eq!(
        setup.read(german),
        setup.export("apple-strings", "ios")["de.lproj/Localizable.strings"]
    );
    for path in ["app/src/main/res/values-de/strings.xml", "web/locales/de.json"] {
        assert!(setup.app.join(path).exists(), "{path}");
    }
    let (status_code, body) = setup.server.request(
        "PATCH",
        "/teams/acme/projects/mobile",
        Some(TOKEN),
        Some(r#"{"languagesISO":["en","fr"]}"#),
    );
    assert_eq!(status_code, 200, "{body}");
    for path in [german, "app/src/main/res/values-de/strings.xml", "web/locales/de.json"] {
        std::fs::remove_file(setup.app.join(path)).unwrap();
    }
    std::fs::remove_dir_all(setup.app.join("ios/App/Resources/de.lproj")).unwrap();
    std::fs::remove_dir_all(setup.app.join("app/src/main/res/values-de")).unwrap();
    let after: Vec<Vec<u8>> = UNRELATED.iter().map(|path| setup.read(path)).collect();
    assert_eq!(after, before, "the app's own files are untouched");

    // Nothing changed since: pull writes nothing, --check agrees, and a push changes nothing.
    let again = setup.run(&["pull"]);
    assert_eq!(text(&again.stdout), "up to date\n");
    assert_eq!(status(&setup.run(&["pull", "--check"])), 0);
    let push_again = setup.run(&["push", "--fail-on-change"]);
    assert_eq!(status(&push_again), 0, "{}", text(&push_again.stdout));
    // A file that is byte for byte the server's export is not sent again (both .strings
    // files are); the others are, and change nothing.
    let report = setup.run(&["push", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    let apple = &report["sets"][1];
    assert_eq!(apple["format"], "apple-strings");
    assert_eq!(apple["unchangedFiles"], 2, "{report}");
    assert_eq!(apple["answer"], serde_json::Value::Null, "{report}");
    assert_eq!(report["sets"][0]["answer"]["unchanged"], 3, "{report}");
}

#[test]
fn pull_check_finds_a_change_made_on_the_server_and_pull_brings_it() {
    let setup = Setup::new();
    setup.init();
    assert_eq!(status(&setup.run(&["push"])), 0);
    assert_eq!(status(&setup.run(&["pull"])), 0);
    let before_change = git_in(&setup.data.join("repo"), &["rev-parse", "HEAD"])
        .trim()
        .to_owned();
    let (status_code, body) = setup.server.request(
        "PATCH",
        "/teams/acme/projects/mobile/keys/app_name",
        Some(TOKEN),
        Some(r#"{"translations":[{"language":"fr","content":"Balados !"}]}"#),
    );
    assert_eq!(status_code, 200, "{body}");
    let french = "app/src/main/res/values-fr/strings.xml";
    let old = setup.read(french);

    let check = setup.run(&["pull", "--check"]);
    assert_eq!(status(&check), 1);
    assert_eq!(text(&check.stdout), format!("differs: {french}\n"));
    assert_eq!(setup.read(french), old, "--check writes nothing");

    let json = setup.run(&["pull", "--json"]);
    assert_eq!(status(&json), 0);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["changed"], true);
    assert_eq!(report["sets"][0]["files"][0]["change"], "updated");
    assert!(text(&setup.read(french)).contains("Balados !"));

    // `--at` pulls the state of an earlier commit.
    let back = setup.run(&["pull", "--at", &before_change]);
    assert_eq!(status(&back), 0, "{}", text(&back.stderr));
    assert_eq!(setup.read(french), old);
    let unknown = setup.run(&["pull", "--at", "0000000"]);
    assert_eq!(status(&unknown), 2);
    assert!(text(&unknown.stderr).contains("No commit"), "{}", text(&unknown.stderr));
}

#[test]
fn errors_say_what_to_do_and_exit_with_status_two() {
    let setup = Setup::new();
    setup.init();
    let expect = |output: Output, says: &[&str]| {
        assert_eq!(status(&output), 2, "{}", text(&output.stderr));
        let message = text(&output.stderr);
        for part in says {
            assert!(message.contains(part), "{part:?} not in {message}");
        }
    };
    expect(setup.run_with(None, &["push"]), &["LOCSTORE_TOKEN"]);
    expect(setup.run_with(Some("wrong"), &["push"]), &["refused the token", "401"]);
    expect(
        setup.run_with(Some(&setup.read_token), &["push"]),
        &["may not write to acme/mobile", "403"],
    );

    // A file that does not parse: the server's message names the file and the line.
    let french = setup.app.join("app/src/main/res/values-fr/strings.xml");
    std::fs::write(&french, "<resources>\n<string name=\"a\">x</strin>\n</resources>").unwrap();
    expect(setup.run(&["push"]), &["values-fr/strings.xml: line 2"]);
    std::fs::remove_file(&french).unwrap();

    let settings = setup.app.join(".locstore.toml");
    let original = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, original.replace("acme/mobile", "acme/nope")).unwrap();
    expect(setup.run(&["pull"]), &["not found", "nope", "404"]);

    // A server that is not there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    std::fs::write(&settings, original.replace(&setup.server.base, &address)).unwrap();
    expect(setup.run(&["pull"]), &["cannot reach", &address]);

    std::fs::remove_file(&settings).unwrap();
    expect(setup.run(&["push"]), &["no .locstore.toml", "locstore init"]);
    assert!(Path::new(&setup.app).join("web/package.json").exists());
}

#[test]
fn a_web_apps_nested_json_is_patched_in_place_and_keeps_a_string_not_pushed_yet() {
    let setup = Setup::new();
    setup.init();
    assert_eq!(status(&setup.run(&["push"])), 0);
    let french = "web/locales/fr.json";
    std::fs::write(
        setup.app.join(french),
        "{\"home\": {\"title\": \"Accueil\", \"mine\": \"Pas encore envoyé\"}}",
    )
    .unwrap();
    let (status_code, body) = setup.server.request(
        "PATCH",
        "/teams/acme/projects/mobile/keys/home.title",
        Some(TOKEN),
        Some(r#"{"translations":[{"language":"fr","content":"Maison"}]}"#),
    );
    assert_eq!(status_code, 200, "{body}");
    let pull = setup.run(&["pull"]);
    assert_eq!(status(&pull), 0, "{}", text(&pull.stderr));
    assert_eq!(
        text(&setup.read(french)),
        "{\"home\": {\"title\": \"Maison\", \"mine\": \"Pas encore envoyé\"}}"
    );
}
