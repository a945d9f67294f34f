//! Real apps' own resource folders (tests/fixtures, each with its source and licence) through
//! `locstore push` and `pull` with the real binary against a real server: the app's git working
//! tree stays clean, a server edit changes that entry's lines only, a key deleted on the
//! server goes, a key new on the server lands after its predecessor, a string added in the
//! app and not pushed yet stays, and aapt2 compiles and links the folder after every pull.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::helpers::git_in;
use crate::platforms::{build_apk, readback, write_manifest};
use crate::server::Server;

const TOKEN: &str = "app-files-token";

struct AppRepo {
    dir: tempfile::TempDir,
    server: Server,
    /// The app's repository (a git working tree).
    app: PathBuf,
}

impl AppRepo {
    /// A server with team `acme`, and an app repository holding the fixture's files under
    /// `into`, committed with the `.locstore.toml` that `locstore init` wrote. With
    /// `init_creates`, `locstore init --create` makes project `app` with the folders'
    /// languages; else the project is made in its base language `en` alone.
    fn new(fixture: &str, into: &str, init_creates: bool) -> Self {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        Self::of_folder(&source, into, init_creates)
    }

    /// An app of these files (path, text), through `locstore init --create`.
    fn of_files(files: &[(&str, &str)]) -> Self {
        let source = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = source.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self::of_folder(source.path(), "", true)
    }

    fn of_folder(source: &Path, into: &str, init_creates: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(&dir.path().join("data"), &[("LOCSTORE_API_TOKEN", TOKEN)]);
        let repo = AppRepo {
            app: dir.path().join("app"),
            dir,
            server,
        };
        repo.call("POST", "/teams", json!({"name": "acme", "displayName": "Acme"}));
        copy_tree(source, &repo.app.join(into));
        let mut init = vec!["init", "--project", "acme/app", "--server", &repo.server.base];
        if init_creates {
            init.push("--create");
        } else {
            let project = json!({"name": "app", "displayName": "App", "languagesISO": ["en"]});
            repo.call("POST", "/teams/acme/projects", project);
        }
        let init = repo.run(&init);
        assert_eq!(status(&init), 0, "{}", text(&init.stderr));
        if init_creates {
            assert!(
                text(&init.stdout).contains("created project acme/app ("),
                "{}",
                text(&init.stdout)
            );
        }
        git_in(&repo.app, &["init", "-q"]);
        repo.commit("the app as it is");
        repo
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_locstore"))
            .args(args)
            .current_dir(&self.app)
            .env("LOCSTORE_TOKEN", TOKEN)
            .output()
            .unwrap()
    }

    /// Runs a client command that must succeed; answers its standard output.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_eq!(
            status(&output),
            0,
            "locstore {args:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
        text(&output.stdout)
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = body.to_string();
        let (status, answer) = self.server.request(method, path, Some(TOKEN), Some(&body));
        assert!((200..300).contains(&status), "{method} {path}: {status} {answer}");
        serde_json::from_str(&answer).unwrap_or(Value::Null)
    }

    fn get(&self, path: &str) -> Value {
        let (status, answer) = self.server.request("GET", path, Some(TOKEN), None);
        assert_eq!(status, 200, "GET {path}: {answer}");
        serde_json::from_str(&answer).unwrap()
    }

    fn commit(&self, message: &str) {
        git_in(&self.app, &["add", "-A"]);
        git_in(&self.app, &["commit", "-qm", message, "--allow-empty"]);
    }

    fn porcelain(&self) -> String {
        git_in(&self.app, &["status", "--porcelain"])
    }

    /// A pull right after the push leaves the app's files as they are, and a second push
    /// finds nothing new or changed in the sets of `format` (`"yaml"`, `"csv-table"`).
    fn pull_then_push_change_nothing(&self, format: &str) {
        self.ok(&["pull"]);
        assert_eq!(self.porcelain(), "", "{}", git_in(&self.app, &["diff"]));
        let again = self.ok(&["push"]);
        let sets: Vec<&str> = again
            .lines()
            .filter(|line| line.contains(&format!("({format})")))
            .collect();
        assert!(!sets.is_empty(), "{again}");
        assert!(
            sets.iter().all(|line| line.contains(" 0 keys new, 0 changed,")),
            "{again}"
        );
    }

    /// `git diff --numstat`: (lines added, lines removed, path) per changed file.
    fn numstat(&self) -> Vec<(u32, u32, String)> {
        git_in(&self.app, &["diff", "--numstat"])
            .lines()
            .map(|line| {
                let mut parts = line.split('\t');
                let added = parts.next().unwrap().parse().unwrap();
                let removed = parts.next().unwrap().parse().unwrap();
                (added, removed, parts.next().unwrap().to_owned())
            })
            .collect()
    }

    fn read(&self, path: &str) -> String {
        String::from_utf8(std::fs::read(self.app.join(path)).unwrap()).unwrap()
    }

    /// Compiles and links the whole `res` folder with aapt2 (it fails the test when aapt2
    /// refuses), then answers what aapt2 built from one `values*` folder.
    fn aapt2(&self, res: &str, folder: &str) -> Value {
        let work = self.dir.path().join(format!("aapt2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        let manifest = write_manifest(&work);
        let values_only = work.join("res");
        for entry in std::fs::read_dir(self.app.join(res)).unwrap() {
            let entry = entry.unwrap().path();
            let name = entry.file_name().unwrap().to_str().unwrap().to_owned();
            if name.starts_with("values") {
                copy_tree(&entry, &values_only.join(&name));
            }
        }
        build_apk(&values_only, &manifest, work.join("all.zip"), work.join("all.apk"));
        let single = work.join("single");
        copy_tree(&self.app.join(res).join(folder), &single.join("values"));
        let apk = build_apk(&single, &manifest, work.join("single.zip"), work.join("single.apk"));
        readback("android", &apk)
    }
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap().path();
        let target = to.join(entry.file_name().unwrap());
        if entry.is_dir() {
            copy_tree(&entry, &target);
        } else {
            std::fs::copy(&entry, &target).unwrap();
        }
    }
}

fn status(output: &Output) -> i32 {
    output.status.code().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const LIBRA: &str = "app/src/main/res";

#[test]
fn an_android_app_with_plurals_in_their_own_file_goes_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("libra-android/res", LIBRA, true);
    let project = repo.get("/teams/acme/projects/app");
    assert_eq!(
        project["data"]["languagesISO"],
        json!(["en", "bg", "de", "es", "fr", "nl", "pt-BR", "ru", "uk"])
    );
    repo.ok(&["push"]);
    let plural = repo.get("/teams/acme/projects/app/keys/minutes_ago");
    assert_eq!(plural["data"]["files"], json!({"android": "plurals.xml"}));
    assert_eq!(plural["data"]["translation"]["ru"]["few"], "%d минуты назад");

    // Push then pull with nothing changed: every file of the app is byte for byte as it was.
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
    assert_eq!(repo.ok(&["pull", "--check"]), "up to date\n");
    let german = repo.aapt2(LIBRA, "values-de");
    assert_eq!(german["yes"], "Ja");
    assert_eq!(german["minutes_ago"]["plural"]["one"], "Vor %d Minute");

    // A text changed on the server changes that entry's line and nothing else.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/yes",
        json!({"translations": [{"language": "de", "content": "Jawohl"}]}),
    );
    let check = repo.run(&["pull", "--check"]);
    assert_eq!(status(&check), 1, "{}", text(&check.stdout));
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, format!("{LIBRA}/values-de/strings.xml"))]);
    assert!(
        repo.read(&format!("{LIBRA}/values-de/strings.xml"))
            .contains("\t<string name=\"yes\">Jawohl</string>\n")
    );
    assert_eq!(repo.aapt2(LIBRA, "values-de")["yes"], "Jawohl");
    repo.commit("pulled");

    // One plural form changed on the server: that item's line only.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/minutes_ago",
        json!({"translations": [{"language": "ru", "forms": {"one": "%d минуту назад", "few": "%d минуты тому назад", "many": "%d минут назад", "other": "%d минуты назад"}}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(2, 2, format!("{LIBRA}/values-ru/plurals.xml"))]);
    let russian = repo.aapt2(LIBRA, "values-ru");
    assert_eq!(russian["minutes_ago"]["plural"]["few"], "%d минуты тому назад");
    assert_eq!(russian["minutes_ago"]["plural"]["many"], "%d минут назад");
    repo.commit("pulled");

    // A string added in the app and not pushed yet survives a pull; a key deleted on the
    // server goes from every language; a key new on the server lands after its
    // predecessor of the base file, with the file's tab indentation.
    let base = format!("{LIBRA}/values/strings.xml");
    let added = repo.read(&base).replace(
        "\t<string name=\"yes\">Yes</string>\n",
        "\t<string name=\"yes\">Yes</string>\n\t<string name=\"not_pushed_yet\">Mine</string>\n",
    );
    std::fs::write(repo.app.join(&base), added).unwrap();
    repo.commit("a new string in the app");
    let (status_code, body) = repo
        .server
        .request("DELETE", "/teams/acme/projects/app/keys/maybe", Some(TOKEN), None);
    assert_eq!(status_code, 200, "{body}");
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "zzz_later", "translations": [{"language": "en", "content": "Later"}, {"language": "de", "content": "Später"}]}),
    );
    // The folders whose strings.xml has `maybe`: each loses that line (German gains the new key too).
    let mut expected: Vec<(u32, u32, String)> = std::fs::read_dir(repo.app.join(LIBRA))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|folder| {
            repo.read(&format!("{LIBRA}/{folder}/strings.xml"))
                .contains("name=\"maybe\"")
        })
        .map(|folder| {
            let added = u32::from(folder == "values" || folder == "values-de");
            (added, 1, format!("{LIBRA}/{folder}/strings.xml"))
        })
        .collect();
    expected.sort_by(|a, b| a.2.cmp(&b.2));
    assert!(expected.len() >= 4, "{expected:?}");
    repo.ok(&["pull"]);
    let mut changes = repo.numstat();
    changes.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(changes, expected);
    let base_text = repo.read(&base);
    assert!(
        base_text.contains("\t<string name=\"not_pushed_yet\">Mine</string>\n"),
        "{base_text}"
    );
    assert!(!base_text.contains("name=\"maybe\""));
    assert!(base_text.contains("\t<string name=\"enter_file_name\">Enter a file name</string>\n\t<string name=\"zzz_later\">Later</string>\n</resources>"), "{base_text}");
    let german_text = repo.read(&format!("{LIBRA}/values-de/strings.xml"));
    assert!(!german_text.contains("name=\"maybe\""));
    assert!(
        german_text.contains("\t<string name=\"zzz_later\">Später</string>\n"),
        "{german_text}"
    );
    let german = repo.aapt2(LIBRA, "values-de");
    assert_eq!(german["zzz_later"], "Später");
    assert_eq!(german.get("maybe"), None);
    assert_eq!(repo.aapt2(LIBRA, "values")["not_pushed_yet"], "Mine");
    repo.commit("pulled");

    // A key moved on the server to a file the app lacks stays where the app has it (pull
    // creates no file for a language the app has)...
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/just_now",
        json!({"files": {"android": "time.xml"}}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
    // ... and to a file the app has, it leaves its old file in every language and lands in
    // the new one: the folder never defines it twice.
    for folder in ["values", "values-de", "values-pt-rBR", "values-ru"] {
        let path = repo.app.join(format!("{LIBRA}/{folder}/time.xml"));
        std::fs::write(
            path,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n</resources>\n",
        )
        .unwrap();
    }
    repo.commit("time.xml");
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/just_now",
        json!({"files": {"android": "time.xml"}}),
    );
    repo.ok(&["pull"]);
    for folder in ["values", "values-de", "values-pt-rBR", "values-ru"] {
        let strings = repo.read(&format!("{LIBRA}/{folder}/strings.xml"));
        assert!(!strings.contains("name=\"just_now\""), "{folder}: {strings}");
        let moved = repo.read(&format!("{LIBRA}/{folder}/time.xml"));
        assert!(moved.contains("name=\"just_now\""), "{folder}: {moved}");
    }
    assert_eq!(repo.aapt2(LIBRA, "values-de")["just_now"], "Gerade eben");
}

const NOTES: &str = "app/src/main/res";

#[test]
fn an_android_studio_app_with_translatable_false_strings_and_transifex_translations_stays_byte_identical() {
    let repo = AppRepo::new("nextcloud-notes-android/res", NOTES, false);
    let pushed = repo.ok(&["push"]);
    // Every language folder's language, `values-b+en+001` as `en-001`.
    let added = pushed
        .lines()
        .find_map(|line| line.trim().strip_prefix("added languages: "))
        .unwrap_or_default();
    assert_eq!(added.split(", ").count(), 53, "{pushed}");
    assert!(
        added.starts_with("ar, ast, en-001, ") && added.contains(", fr, "),
        "{added}"
    );
    let url = repo.get("/teams/acme/projects/app/keys/url_source");
    assert_eq!(url["data"]["translatable"], false);
    assert_eq!(url["data"]["files"], json!({"android": "strings.xml"}));
    let plural = repo.get("/teams/acme/projects/app/keys/share_download_limit_description");
    assert_eq!(plural["data"]["plural"], true);
    assert!(plural["data"]["translation"]["ar"]["other"].is_string());

    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
    let base = repo.aapt2(NOTES, "values");
    assert_eq!(base["app_name"], "Notes");

    // The French file is in Transifex's order, not the base file's: one edit, one line.
    let before = repo.get("/teams/acme/projects/app/keys/simple_cancel");
    assert!(before["data"]["translation"]["fr"].is_string());
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/simple_cancel",
        json!({"translations": [{"language": "fr", "content": "Annuler l'action"}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, format!("{NOTES}/values-fr/strings.xml"))]);
    assert_eq!(repo.aapt2(NOTES, "values-fr")["simple_cancel"], "Annuler l'action");
    // A push of what was pulled changes nothing.
    repo.commit("pulled");
    let again = repo.run(&["push", "--fail-on-change"]);
    assert_eq!(status(&again), 0, "{}", text(&again.stdout));
}

const IOS: &str = "ios/Supporting Files";

#[test]
fn an_ios_apps_tables_and_stringsdict_go_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("nextcloud-ios", IOS, false);
    repo.ok(&["push"]);
    let info = repo.get("/teams/acme/projects/app/keys/NSCameraUsageDescription?namespace=InfoPlist");
    assert_eq!(info["data"]["namespace"], "InfoPlist");
    let plural = repo.get("/teams/acme/projects/app/keys/_remaining_share_downloads_");
    assert_eq!(
        plural["data"]["translation"]["en"]["zero"],
        "No remaining downloads allowed"
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");

    // One edit changes that entry's line, in the app's own alignment.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/_cancel_",
        json!({"translations": [{"language": "en", "content": "Cancel \"now\""}]}),
    );
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/NSMicrophoneUsageDescription?namespace=InfoPlist",
        json!({"translations": [{"language": "en", "content": "The microphone records voice notes."}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(
        repo.numstat(),
        [
            (1, 1, format!("{IOS}/en.lproj/InfoPlist.strings")),
            (1, 1, format!("{IOS}/en.lproj/Localizable.strings")),
        ]
    );
    let strings = repo.read(&format!("{IOS}/en.lproj/Localizable.strings"));
    assert!(
        strings.contains("\n\"_cancel_\"                  = \"Cancel \\\"now\\\"\";\n"),
        "{strings}"
    );
    let read = readback("strings", &repo.app.join(IOS).join("en.lproj/InfoPlist.strings"));
    assert_eq!(
        read["NSMicrophoneUsageDescription"],
        "The microphone records voice notes."
    );
    repo.commit("pulled");

    // One plural form changed on the server: that form's line only, in the entry's own
    // variable (`downloads`, where the export writes `value`).
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/_remaining_share_downloads_",
        json!({"translations": [{"language": "en", "forms": {"zero": "No remaining downloads allowed", "one": "One more download allowed", "other": "%d remaining downloads allowed"}}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(
        repo.numstat(),
        [(1, 1, format!("{IOS}/en.lproj/Localizable.stringsdict"))]
    );
    let plural = readback("plist", &repo.app.join(IOS).join("en.lproj/Localizable.stringsdict"));
    assert_eq!(
        plural["_remaining_share_downloads_"]["downloads"]["one"],
        "One more download allowed"
    );
}

#[test]
fn utf16_strings_files_in_old_xcode_folders_stay_utf16_through_push_and_pull() {
    let repo = AppRepo::new("gnumail-lproj", "Resources", true);
    repo.ok(&["push"]);
    repo.ok(&["pull"]);
    assert_eq!(
        repo.porcelain(),
        "",
        "English.lproj and French.lproj are pulled into themselves"
    );
    let french = "Resources/French.lproj/Localizable.strings";
    let before = std::fs::read(repo.app.join(french)).unwrap();
    assert_eq!(&before[..2], [0xff, 0xfe], "UTF-16 with a byte order mark");
    let key = readback("strings", &repo.app.join(french));
    let (name, _) = key.as_object().unwrap().iter().next().unwrap();
    repo.call(
        "PATCH",
        &format!("/teams/acme/projects/app/keys/{}", urlencode(name)),
        json!({"translations": [{"language": "fr", "content": "Texte changé"}]}),
    );
    repo.ok(&["pull"]);
    let after = std::fs::read(repo.app.join(french)).unwrap();
    assert_eq!(&after[..2], [0xff, 0xfe]);
    assert_eq!(readback("strings", &repo.app.join(french))[name], "Texte changé");
    assert_eq!(repo.porcelain(), format!(" M {french}\n"));
}

pub(crate) fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(byte).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[test]
fn a_stale_translation_is_a_warning_with_file_and_line_and_strict_or_no_add_languages_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("res");
    let write = |path: &str, text: &str| {
        let path = fixture.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "values/plurals.xml",
        "<resources>\n    <plurals name=\"songs\">\n        <item quantity=\"one\">%d song</item>\n        <item quantity=\"other\">%d songs</item>\n    </plurals>\n</resources>\n",
    );
    write(
        "values/strings.xml",
        "<resources>\n    <string name=\"title\">Music</string>\n</resources>\n",
    );
    write(
        "values-zh-rCN/strings.xml",
        "<resources>\n    <string name=\"title\">音乐</string>\n    <string name=\"songs\">%d 首歌曲</string>\n</resources>\n",
    );
    let repo = AppRepo::new(fixture.to_str().unwrap(), "res", false);

    let refused = repo.run(&["push", "--no-add-languages"]);
    assert_eq!(status(&refused), 2, "{}", text(&refused.stdout));
    assert!(text(&refused.stderr).contains("zh-CN"), "{}", text(&refused.stderr));
    let strict = repo.run(&["push", "--strict"]);
    assert_eq!(status(&strict), 2, "{}", text(&strict.stdout));
    assert!(
        text(&strict.stderr).contains("warning: res/values-zh-rCN/strings.xml:3:"),
        "{}",
        text(&strict.stderr)
    );
    assert_eq!(
        repo.get("/teams/acme/projects/app/keys?limit=10")["data"],
        json!([]),
        "--strict pushed nothing"
    );

    let pushed = repo.run(&["push"]);
    assert_eq!(status(&pushed), 0, "{}", text(&pushed.stderr));
    assert!(
        text(&pushed.stdout).contains("added languages: zh-CN"),
        "{}",
        text(&pushed.stdout)
    );
    assert!(
        text(&pushed.stderr).contains("warning: res/values-zh-rCN/strings.xml:3:"),
        "{}",
        text(&pushed.stderr)
    );
    let songs = repo.get("/teams/acme/projects/app/keys/songs");
    assert_eq!(songs["data"]["plural"], true);
    assert_eq!(songs["data"]["files"], json!({"android": "plurals.xml"}));
    // The stale string is the app's own: a pull keeps it, and the folder still builds.
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
    assert_eq!(repo.aapt2("res", "values-zh-rCN")["title"], "音乐");
}

#[test]
fn a_web_app_with_i18next_namespaces_goes_through_push_and_pull_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("locales");
    let write = |path: &str, text: &str| {
        let path = fixture.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "en/common.json",
        "{\n  \"save\": \"Save\",\n  \"items\": {\n    \"one\": \"{{count}} item\",\n    \"other\": \"{{count}} items\"\n  }\n}\n",
    );
    write(
        "en/settings.json",
        "{\n  \"title\": \"Settings\",\n  \"privacy\": {\n    \"title\": \"Privacy\"\n  }\n}\n",
    );
    write("fr/common.json", "{\n  \"save\": \"Enregistrer\"\n}\n");
    let repo = AppRepo::new(fixture.to_str().unwrap(), "public/locales", false);
    assert!(
        repo.read(".locstore.toml")
            .contains("path = \"public/locales/{lang}/{ns}.json\""),
        "init finds i18next's layout"
    );

    let pushed = repo.ok(&["push"]);
    assert!(pushed.contains("added languages: fr"), "{pushed}");
    let key = repo.get("/teams/acme/projects/app/keys/privacy.title?namespace=settings");
    assert_eq!(key["data"]["namespace"], "settings");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "namespaced files pulled into themselves");

    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/privacy.title?namespace=settings",
        json!({"translations": [{"language": "fr", "content": "Confidentialité"}]}),
    );
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/save?namespace=common",
        json!({"translations": [{"language": "fr", "content": "Sauvegarder"}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, "public/locales/fr/common.json".to_owned())]);
    assert!(
        !repo.app.join("public/locales/fr/settings.json").exists(),
        "pull adds no namespace file the app lacks for a language it has"
    );
}

/// The checks on real apps' files: what they find there is what is wrong there, and their
/// placeholders (`%1$s`, `%d`, plural forms that show the number or not) raise no error.
#[test]
fn checks_on_real_apps_files_find_their_real_mistakes_and_nothing_else() {
    let repo = AppRepo::new("libra-android/res", LIBRA, true);
    repo.ok(&["push"]);
    let found = |repo: &AppRepo, query: &str| -> Vec<String> {
        let checks = repo.get(&format!("/teams/acme/projects/app/checks?limit=1000{query}"));
        checks["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                format!(
                    "{} {} {}",
                    item["key"].as_str().unwrap(),
                    item["language"].as_str().unwrap(),
                    item["check"].as_str().unwrap()
                )
            })
            .collect()
    };
    // Libra's Portuguese plurals lack CLDR's `many` (1,000,000 "de" dias); one Russian
    // sentence lost its final full stop. Russian `one` showing `%d` is right (21 день).
    // (The languages read through here; the app has more.)
    assert_eq!(
        found(&repo, "&language=de,pt-BR,ru"),
        [
            "days_ago pt-BR plural_forms",
            "hours_ago pt-BR plural_forms",
            "minutes_ago pt-BR plural_forms",
            "no_issues_saved ru end_punctuation",
        ]
    );
    let stats = repo.get("/teams/acme/projects/app/stats");
    let failing: Vec<(&str, u64)> = stats["data"]["languages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|language| {
            (
                language["language"].as_str().unwrap(),
                language["failing"].as_u64().unwrap(),
            )
        })
        .filter(|(language, _)| ["en", "de", "pt-BR", "ru"].contains(language))
        .collect();
    assert_eq!(failing, [("en", 0), ("de", 0), ("pt-BR", 3), ("ru", 1)]);

    // Nextcloud Notes: 64 placeholders in its English strings, none broken in French, German
    // or Arabic; what the checks find are its real slips.
    let repo = AppRepo::new("nextcloud-notes-android/res", NOTES, true);
    repo.ok(&["push"]);
    assert_eq!(
        found(
            &repo,
            "&check=placeholders,markup,plural_forms,empty_form&language=ar,de,fr"
        ),
        Vec::<String>::new()
    );
    let found = found(&repo, "");
    for expected in [
        // Arabic starts these with a space the English does not have.
        "listview_updated_this_month ar whitespace",
        // "…:" in English, "…." in French.
        "formatting_help_code_body_2 fr end_punctuation",
        // Left in English.
        "ecosystem_apps_talk fr same_as_base",
    ] {
        assert!(found.contains(&expected.to_owned()), "{expected} in {found:#?}");
    }
}

const XCODE: &str = "IceCubesApp/Resources/Localization";

/// A catalog's JSON (members sorted by name: serde_json keeps no order).
fn catalog_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_xcode_string_catalog_goes_through_push_and_pull_unchanged() {
    let repo = AppRepo::new(
        "apps/xcstrings/icecubes/IceCubesApp/Resources/Localization",
        XCODE,
        true,
    );
    assert!(
        repo.read(".locstore.toml").contains("format = \"xcstrings\""),
        "{}",
        repo.read(".locstore.toml")
    );
    let catalog = format!("{XCODE}/Localizable.xcstrings");
    repo.ok(&["push"]);
    let key = repo.get("/teams/acme/projects/app/keys/account.blocked");
    assert_eq!(key["data"]["files"], json!({"apple": "Localizable"}));
    assert_eq!(key["data"]["outdated"], json!(["be", "ca", "ja", "nb", "pl"]));
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");

    // One translation edited on the server: that value's line, and its state's (the
    // translation is current again), nothing else.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/account.blocked",
        json!({"translations": [{"language": "be", "content": "Заблакаваныя \"акаўнты\""}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(2, 2, catalog.clone())]);
    // Read as JSON: the strict String Catalog models refuse Xcode's own file (its
    // substitutions leave out `argNum`).
    let read = catalog_json(&repo.app.join(&catalog));
    assert_eq!(
        read["strings"]["account.blocked"]["localizations"]["be"]["stringUnit"],
        json!({"state": "translated", "value": "Заблакаваныя \"акаўнты\""})
    );
    repo.commit("pulled");

    // A key deleted on the server goes, a key new on the server lands in Xcode's order, and a
    // key added in the app (not pushed yet) stays where it is.
    let (status, _) = repo.server.request(
        "DELETE",
        "/teams/acme/projects/app/keys/account.muted",
        Some(TOKEN),
        None,
    );
    assert_eq!(status, 200);
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "account.added", "translations": [{"language": "en", "content": "Added"}, {"language": "de", "content": "Hinzugefügt"}]}),
    );
    let local = repo.read(&catalog);
    let app_key = "    \"zzz.app-only\" : {\n      \"extractionState\" : \"manual\",\n      \"localizations\" : {\n        \"en\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"Only in the app\"\n          }\n        }\n      }\n    }\n  },\n  \"version\"";
    let local = local.replacen("\n  },\n  \"version\"", &format!(",\n{app_key}"), 1);
    std::fs::write(repo.app.join(&catalog), &local).unwrap();
    repo.commit("a string added in the app");
    repo.ok(&["pull"]);
    let read = catalog_json(&repo.app.join(&catalog));
    let names: Vec<&String> = read["strings"].as_object().unwrap().keys().collect();
    assert!(!names.iter().any(|name| *name == "account.muted"));
    assert_eq!(
        read["strings"]["zzz.app-only"]["localizations"]["en"]["stringUnit"]["value"],
        "Only in the app"
    );
    // In the file's order: the key after the new one is the one Xcode's order puts there.
    let pulled = repo.read(&catalog);
    let keys_in_order: Vec<&str> = pulled
        .lines()
        .filter_map(|line| line.strip_prefix("    \"")?.strip_suffix("\" : {"))
        .collect();
    let added = keys_in_order.iter().position(|name| *name == "account.added").unwrap();
    assert_eq!(keys_in_order[added + 1], "account.blocked");
    let (added_lines, removed_lines) = repo
        .numstat()
        .iter()
        .fold((0, 0), |sums, (added, removed, _)| (sums.0 + added, sums.1 + removed));
    // The new key's 18 lines in (git's diff matches 2 of them, closing braces, to its
    // neighbour's), the deleted key's lines out; nothing else moves.
    let deleted = local
        .split("    \"account.muted\" : {")
        .nth(1)
        .unwrap()
        .split("\n    \"")
        .next()
        .unwrap()
        .lines()
        .count();
    assert_eq!(
        (added_lines, removed_lines),
        (16, deleted as u32),
        "{}",
        git_in(&repo.app, &["diff"])
    );

    // Pulled again, nothing changes; and the catalog reads as Xcode's model reads it.
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

const RALLLY: &str = "apps/web/public/locales";

/// Every key of the app's `{lang}/app.json` files, asked of i18next in every language.
fn i18next_queries(app: &Path) -> Vec<Value> {
    let mut queries = Vec::new();
    for language in ["en", "de", "pl", "pt-BR", "zh"] {
        let file: Value =
            serde_json::from_slice(&std::fs::read(app.join(RALLLY).join(language).join("app.json")).unwrap()).unwrap();
        for name in file.as_object().unwrap().keys() {
            queries.push(json!({"lng": language, "ns": "app", "key": name}));
        }
    }
    queries
}

#[test]
fn an_i18next_web_app_goes_through_push_and_pull_unchanged_and_i18next_reads_the_export_alike() {
    let repo = AppRepo::new("rallly-i18next", RALLLY, true);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains(&format!("path = \"{RALLLY}/{{lang}}/{{ns}}.json\"")),
        "{settings}"
    );
    // Rallly writes no `_one`/`_other` members, so init cannot tell i18next from plain JSON;
    // the developer says which.
    std::fs::write(
        repo.app.join(".locstore.toml"),
        settings.replace("format = \"json\"", "format = \"i18next\""),
    )
    .unwrap();
    repo.commit("i18next");
    repo.ok(&["push"]);
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");

    // i18next answers every key alike from the app's files and from the server's export.
    let queries = i18next_queries(&repo.app);
    let from_app = crate::formats::i18next_answers_in(&repo.app.join(RALLLY), "app", &queries);
    let exported = tempfile::tempdir().unwrap();
    let (status, answer) = repo.server.request(
        "GET",
        "/teams/acme/projects/app/keys/export?type=i18next",
        Some(TOKEN),
        None,
    );
    assert_eq!(status, 200, "{answer}");
    let address: Value = serde_json::from_str(&answer).unwrap();
    // The download, as the server stores it (<data-dir>/exports/{id}/{file}).
    let stored = address["data"]
        .as_str()
        .unwrap()
        .split_once("/exports/")
        .unwrap()
        .1
        .to_owned();
    let zip = std::fs::read(repo.dir.path().join("data/exports").join(stored)).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    archive.extract(exported.path()).unwrap();
    let from_export = crate::formats::i18next_answers_in(exported.path(), "app", &queries);
    assert_eq!(from_export, from_app);
    assert!(from_app.iter().all(|answer| answer != "" && answer.as_str().is_some()));

    // A server edit changes its line; a new plural key lands as i18next's suffixed members,
    // after its predecessor, and i18next picks each form by count.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/account?namespace=app",
        json!({"translations": [{"language": "pl", "content": "Twoje konto"}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, format!("{RALLLY}/pl/app.json"))]);
    repo.commit("pulled");
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "accountVotes", "plural": true, "namespace": "app", "translations": [
            {"language": "en", "forms": {"one": "{{count}} vote", "other": "{{count}} votes"}},
            {"language": "pl", "forms": {"one": "{{count}} głos", "few": "{{count}} głosy", "many": "{{count}} głosów", "other": "{{count}} głosu"}}]}),
    );
    repo.ok(&["pull"]);
    // New members go in, and only the line before them gains a comma (the base file gets
    // a new key at its end, and the translations follow it).
    assert_eq!(
        repo.numstat(),
        [
            (3, 1, format!("{RALLLY}/en/app.json")),
            (5, 1, format!("{RALLLY}/pl/app.json"))
        ],
        "{}",
        git_in(&repo.app, &["diff"])
    );
    let counts = [
        (1, "{{count}} głos"),
        (3, "{{count}} głosy"),
        (5, "{{count}} głosów"),
        (22, "{{count}} głosy"),
    ];
    let queries: Vec<Value> = counts
        .iter()
        .map(|(count, _)| json!({"lng": "pl", "ns": "app", "key": "accountVotes", "count": count}))
        .collect();
    let answers = crate::formats::i18next_answers_in(&repo.app.join(RALLLY), "app", &queries);
    let expected: Vec<Value> = counts.iter().map(|(_, form)| json!(form)).collect();
    assert_eq!(answers, expected);
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

#[test]
fn a_gnome_apps_po_files_go_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("gradia-po", "", true);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("format = \"po\"") && settings.contains("path = \"po/{lang}.po\""),
        "{settings}"
    );
    repo.ok(&["push"]);
    // Entries are named by their msgid; the template gives the English texts.
    let key = repo.get("/teams/acme/projects/app/keys/New%20Window");
    assert_eq!(key["data"]["translation"]["en"], "New Window");
    assert_eq!(key["data"]["translation"]["pl"], "Nowe okno");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));

    // A server edit changes that entry's msgstr line in the app's file, and nothing else.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/New%20Window",
        json!({"translations": [{"language": "pl", "content": "Nowe \"okienko\""}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, "po/pl.po".to_owned())]);
    assert!(
        repo.read("po/pl.po")
            .contains("msgid \"New Window\"\nmsgstr \"Nowe \\\"okienko\\\"\"\n")
    );
    for file in ["gradia.pot", "pl.po", "de.po", "uk.po", "ar.po", "pt_BR.po"] {
        crate::formats::msgfmt_check(&repo.app.join("po").join(file));
    }
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

/// Where Xcode's "Export Localizations" writes each language's XLIFF file.
const XCLOC: &str = "Localizations/{lang}.xcloc/Localized Contents/{lang}.xliff";

#[test]
fn an_xcode_localization_export_goes_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("keepingyouawake-xliff", "", true);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("format = \"xliff\"") && settings.contains(&format!("path = \"{XCLOC}\"")),
        "{settings}"
    );
    let file = |language: &str| XCLOC.replace("{lang}", language);
    repo.ok(&["push"]);
    // A unit is a key by its id: the units' sources are the English texts, the German target
    // the German text, the note the description.
    let key = repo.get("/teams/acme/projects/app/keys/Cancel");
    assert_eq!(key["data"]["translation"]["en"], "Cancel");
    assert_eq!(key["data"]["translation"]["de"], "Abbrechen");
    // A unit without a target is not translated (Japanese has none here).
    assert_eq!(key["data"]["translation"].get("ja"), None, "{key}");
    assert_eq!(key["data"]["description"], "Cancel");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));

    // A server edit changes that target's line, and nothing else.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/Cancel",
        json!({"translations": [{"language": "de", "content": "Abbrechen & \"zurück\""}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, file("de"))]);
    assert!(
        repo.read(&file("de"))
            .contains("        <target state=\"translated\">Abbrechen &amp; \"zurück\"</target>\n")
    );
    repo.commit("pulled");

    // A key deleted on the server loses its unit in every file; a new key's unit lands in
    // every file (with a target where it has a text); a unit added in the app stays.
    let (status, _) = repo
        .server
        .request("DELETE", "/teams/acme/projects/app/keys/Default", Some(TOKEN), None);
    assert_eq!(status, 200);
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "Added", "translations": [{"language": "en", "content": "Added"}, {"language": "de", "content": "Hinzugefügt"}]}),
    );
    // Every catalog of the app, each a language.
    let mut languages: Vec<String> = std::fs::read_dir(repo.app.join("Localizations"))
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".xcloc").map(str::to_owned)
        })
        .collect();
    languages.sort();
    assert!(languages.len() > 20, "{languages:?}");
    let before: Vec<String> = languages.iter().map(|language| repo.read(&file(language))).collect();
    let french = repo.read(&file("fr"));
    let app_unit = "      <trans-unit id=\"Only in the app\" xml:space=\"preserve\">\n        <source>Only in the app</source>\n        <target state=\"translated\">Seulement dans l'app</target>\n      </trans-unit>\n";
    let at = french.rfind("    </body>").unwrap();
    std::fs::write(
        repo.app.join(file("fr")),
        format!("{}{app_unit}{}", &french[..at], &french[at..]),
    )
    .unwrap();
    repo.commit("a string added in the app");
    repo.ok(&["pull"]);
    for language in languages.iter().map(String::as_str) {
        let text = repo.read(&file(language));
        assert!(!text.contains("<trans-unit id=\"Default\""), "{language}");
        let read = crate::formats::read_xliff(&repo.app.join(file(language)));
        let added = read["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|unit| unit["name"] == "Added")
            .unwrap_or_else(|| panic!("Added in {language}"));
        assert_eq!(added["source"], "Added");
        let target = if language == "de" {
            json!("Hinzugefügt")
        } else {
            Value::Null
        };
        assert_eq!(added["target"], target, "{language}");
    }
    assert!(repo.read(&file("fr")).contains(app_unit));
    // Each file: the deleted unit's lines out, the new unit's lines in (with a target in German).
    let mut changes = repo.numstat();
    changes.sort_by(|a, b| a.2.cmp(&b.2));
    let mut expected: Vec<(u32, u32, String)> = languages
        .iter()
        .zip(&before)
        .map(|(language, text)| {
            let unit = text.split("      <trans-unit id=\"Default\"").nth(1).unwrap();
            let removed = unit.split("</trans-unit>").next().unwrap().lines().count() as u32;
            (if language == "de" { 4 } else { 3 }, removed, file(language))
        })
        .collect();
    expected.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(changes, expected, "{}", git_in(&repo.app, &["diff"]));

    // Pulled again, nothing changes.
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

#[test]
fn a_rails_apps_locale_files_go_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("24pullrequests-yaml", "", true);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("format = \"yaml\"") && settings.contains("path = \"config/locales/{lang}.yml\""),
        "{settings}"
    );
    repo.ok(&["push"]);
    let key = repo.get("/teams/acme/projects/app/keys/organisations.members");
    assert_eq!(
        key["data"]["translation"]["en"],
        json!({"one": "1 Member", "other": "%{count} Members"})
    );
    let key = repo.get("/teams/acme/projects/app/keys/about.idea");
    assert_eq!(
        key["data"]["translation"]["en"],
        "The idea is simple: 'Send 24 pull requests between December 1st and December 24th', encouraging contributors to give back to open source projects with little gifts of code throughout December."
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));

    // A server edit changes that value, and nothing else.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/about_us",
        json!({"translations": [{"language": "de", "content": "Über \"uns\""}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, "config/locales/de.yml".to_owned())]);
    assert!(
        repo.read("config/locales/de.yml")
            .contains("\n  about_us: \"Über \\\"uns\\\"\"\n")
    );
    repo.commit("pulled");

    // A deleted key's line goes from every file; a new key lands at the end of its mapping
    // (with the mapping it needs); a key added in the app stays.
    let (status, _) = repo
        .server
        .request("DELETE", "/teams/acme/projects/app/keys/about_us", Some(TOKEN), None);
    assert_eq!(status, 200);
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "organisations.stats.added", "description": "A new line", "translations": [{"language": "en", "content": "Added"}, {"language": "pl", "content": "Dodane"}]}),
    );
    let french = repo
        .read("config/locales/fr.yml")
        .replacen("  or: ", "  only_here: Seulement ici\n  or: ", 1);
    std::fs::write(repo.app.join("config/locales/fr.yml"), &french).unwrap();
    repo.commit("a string added in the app");
    // Every locale's file that had `about_us` (all but those that never translated it).
    let had: Vec<String> = std::fs::read_dir(repo.app.join("config/locales"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| repo.read(&format!("config/locales/{name}")).contains("\n  about_us: "))
        .collect();
    assert!(had.len() >= 5, "{had:?}");
    repo.ok(&["pull"]);
    let mut changes = repo.numstat();
    changes.sort_by(|a, b| a.2.cmp(&b.2));
    let mut expected: Vec<(u32, u32, String)> = had
        .iter()
        .map(|name| {
            let added = if name == "en.yml" || name == "pl.yml" { 3 } else { 0 };
            (added, 1, format!("config/locales/{name}"))
        })
        .collect();
    expected.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(changes, expected, "{}", git_in(&repo.app, &["diff"]));
    assert!(
        repo.read("config/locales/en.yml").contains(
            "    title: \"%{count} Organisations involved\"\n    stats:\n      # A new line\n      added: \"Added\"\n"
        ),
        "{}",
        repo.read("config/locales/en.yml")
    );
    assert!(
        repo.read("config/locales/fr.yml")
            .contains("  only_here: Seulement ici\n")
    );

    // Ruby's i18n gem reads every file after the pull.
    let files: Vec<PathBuf> = ["en", "pl", "ja", "fr", "de"]
        .iter()
        .map(|language| repo.app.join(format!("config/locales/{language}.yml")))
        .collect();
    let answers = crate::formats::rails_answers(
        &files,
        &[
            json!({"locale": "pl", "key": "organisations.stats.added"}),
            // The app's Polish forms lack `many` (Ruby refuses a count of 5): 1 is `one`.
            json!({"locale": "pl", "key": "organisations.members", "count": 1}),
            json!({"locale": "fr", "key": "only_here"}),
            json!({"locale": "de", "key": "about_us"}),
        ],
    );
    assert_eq!(
        answers,
        [json!("Dodane"), json!("1 Członek"), json!("Seulement ici"), Value::Null]
    );

    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

/// Foodsoft's `config/locales/overrides.yml`: one Rails file holding `en:` and `nl:`, which
/// Rails merges with `en.yml` and `nl.yml`. Its texts are held, and each pull patches each
/// language's part of it.
#[test]
fn a_rails_file_of_several_languages_is_pushed_whole_and_pulled_root_by_root() {
    let overrides = "# Overrides that do not go through the translation service.\nen:\n  number:\n    currency:\n      format:\n        unit: ! \"€\\u202f\"\nnl:\n  number:\n    currency:\n      format:\n        delimiter: ! \"\\u202f\"\n        unit: ! \"€\\u202f\"\n";
    let repo = AppRepo::of_files(&[
        ("config/locales/en.yml", "en:\n  hello: Hello\n  bye: Bye\n"),
        ("config/locales/nl.yml", "nl:\n  hello: Hallo\n  bye: Doei\n"),
        ("config/locales/de.yml", "de:\n  hello: Hallo\n"),
        ("config/locales/overrides.yml", overrides),
        // A YAML file whose roots are no languages is no locale file.
        ("config/locales/settings.yml", "production:\n  host: example.org\n"),
    ]);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("path = \"config/locales/overrides.yml\"\n") && settings.contains("file = \"overrides\""),
        "{settings}"
    );
    assert!(!settings.contains("settings.yml"), "{settings}");
    let pushed = repo.ok(&["push"]);
    assert!(pushed.contains("config/locales/overrides.yml"), "{pushed}");
    let key = repo.get("/teams/acme/projects/app/keys/number.currency.format.unit");
    assert_eq!(
        key["data"]["translation"],
        json!({"en": "€\u{202f}", "nl": "€\u{202f}"})
    );
    assert_eq!(key["data"]["files"], json!({"web": "overrides"}));
    // A key only the Dutch part has is held with its Dutch text.
    let key = repo.get("/teams/acme/projects/app/keys/number.currency.format.delimiter");
    assert_eq!(key["data"]["translation"]["nl"], "\u{202f}");
    assert_eq!(
        repo.get("/teams/acme/projects/app/keys/hello")["data"]["files"],
        json!({})
    );
    repo.pull_then_push_change_nothing("yaml");

    // A Dutch edit changes one line of the Dutch part; a German text of an override adds no
    // German part (the file holds the languages its app chose), and no key to de.yml.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/number.currency.format.unit",
        json!({"translations": [{"language": "nl", "content": "EUR "}, {"language": "de", "content": "€"}]}),
    );
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/bye",
        json!({"translations": [{"language": "nl", "content": "Tot ziens"}]}),
    );
    repo.ok(&["pull"]);
    let mut changes = repo.numstat();
    changes.sort_by(|a, b| a.2.cmp(&b.2));
    assert_eq!(
        changes,
        [
            (1, 1, "config/locales/nl.yml".to_owned()),
            (1, 1, "config/locales/overrides.yml".to_owned()),
        ],
        "{}",
        git_in(&repo.app, &["diff"])
    );
    let (english, dutch) = overrides.split_at(overrides.find("nl:").unwrap());
    assert_eq!(
        repo.read("config/locales/overrides.yml"),
        format!("{english}{}", dutch.replace("€\\u202f", "EUR "))
    );
    // Ruby's i18n gem merges the files as the app does.
    let files: Vec<PathBuf> = ["en.yml", "nl.yml", "de.yml", "overrides.yml"]
        .iter()
        .map(|file| repo.app.join("config/locales").join(file))
        .collect();
    let answers = crate::formats::rails_answers(
        &files,
        &[
            json!({"locale": "nl", "key": "number.currency.format.unit"}),
            json!({"locale": "en", "key": "number.currency.format.unit"}),
            json!({"locale": "nl", "key": "bye"}),
        ],
    );
    assert_eq!(answers, [json!("EUR "), json!("€\u{202f}"), json!("Tot ziens")]);
    repo.commit("pulled");

    // A key deleted on the server leaves the part of each language that had it.
    let (status, _) = repo.server.request(
        "DELETE",
        "/teams/acme/projects/app/keys/number.currency.format.delimiter",
        Some(TOKEN),
        None,
    );
    assert_eq!(status, 200);
    repo.ok(&["pull"]);
    assert_eq!(
        repo.numstat(),
        [(0, 1, "config/locales/overrides.yml".to_owned())],
        "{}",
        git_in(&repo.app, &["diff"])
    );
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

/// A game's files of one language each, without a header (OpenVic's
/// `locales/en_GB/menus.csv` of `KEY;text` rows and `;;` comments): a table per language,
/// each file name a key space of its own.
#[test]
fn a_games_files_of_one_language_each_go_through_push_and_pull_row_by_row() {
    let english = "\n;; Main Menu\nMAINMENU_TITLE;OpenVic\nMAINMENU_NEW_GAME;New Game\nMAINMENU_EXIT;Exit\nHELP;Use the \"search-path\" option\n";
    let french = "\n;; Main Menu\nMAINMENU_TITLE;OpenVic\nMAINMENU_NEW_GAME;Nouveau Jeu\nMAINMENU_EXIT;Quitter\n";
    let repo = AppRepo::of_files(&[
        ("locales/en_GB/menus.csv", english),
        ("locales/fr_FR/menus.csv", french),
        ("locales/en_GB/goods.csv", ";; Goods\ngood_coal;Coal\n"),
    ]);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("format = \"csv-table\"\npath = \"locales/{lang}/menus.csv\"\nnamespace = \"menus\"")
            && settings.contains("path = \"locales/{lang}/goods.csv\"\nnamespace = \"goods\""),
        "{settings}"
    );
    let pushed = repo.run(&["push"]);
    assert_eq!(status(&pushed), 0, "{}", text(&pushed.stderr));
    // Comment rows are no keys and no warnings.
    assert!(!text(&pushed.stderr).contains("warning"), "{}", text(&pushed.stderr));
    let key = repo.get("/teams/acme/projects/app/keys/MAINMENU_NEW_GAME?namespace=menus");
    assert_eq!(
        key["data"]["translation"],
        json!({"en_GB": "New Game", "fr_FR": "Nouveau Jeu"})
    );
    let key = repo.get("/teams/acme/projects/app/keys/HELP?namespace=menus");
    assert_eq!(
        key["data"]["translation"],
        json!({"en_GB": "Use the \"search-path\" option"})
    );
    assert_eq!(
        repo.get("/teams/acme/projects/app/keys/good_coal?namespace=goods")["data"]["translation"],
        json!({"en_GB": "Coal"})
    );
    repo.pull_then_push_change_nothing("csv-table");

    // A French edit is one row; a key deleted on the server loses its rows; a new key with a
    // French text gets a row in both files, one with an English text only in the English
    // file; German, new on the server, gets its own file of its texts alone.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/MAINMENU_EXIT?namespace=menus",
        json!({"translations": [{"language": "fr_FR", "content": "Quitter le jeu"}]}),
    );
    let (status_code, _) = repo.server.request(
        "DELETE",
        "/teams/acme/projects/app/keys/MAINMENU_TITLE?namespace=menus",
        Some(TOKEN),
        None,
    );
    assert_eq!(status_code, 200);
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "MAINMENU_OPTIONS", "namespace": "menus", "translations": [{"language": "en_GB", "content": "Options"}, {"language": "fr_FR", "content": "Options; réglages"}]}),
    );
    repo.call(
        "POST",
        "/teams/acme/projects/app/keys",
        json!({"name": "MAINMENU_CREDITS", "namespace": "menus", "translations": [{"language": "en_GB", "content": "Credits"}]}),
    );
    repo.call(
        "PATCH",
        "/teams/acme/projects/app",
        json!({"languagesISO": ["en_GB", "fr_FR", "de"]}),
    );
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/MAINMENU_NEW_GAME?namespace=menus",
        json!({"translations": [{"language": "de", "content": "Neues Spiel"}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(
        repo.read("locales/fr_FR/menus.csv"),
        "\n;; Main Menu\nMAINMENU_NEW_GAME;Nouveau Jeu\nMAINMENU_EXIT;Quitter le jeu\nMAINMENU_OPTIONS;\"Options; réglages\"\n"
    );
    assert_eq!(
        repo.read("locales/en_GB/menus.csv"),
        "\n;; Main Menu\nMAINMENU_NEW_GAME;New Game\nMAINMENU_EXIT;Exit\nHELP;Use the \"search-path\" option\nMAINMENU_CREDITS;Credits\nMAINMENU_OPTIONS;Options\n"
    );
    assert_eq!(repo.read("locales/de/menus.csv"), "MAINMENU_NEW_GAME;Neues Spiel\n");
    // No German goods: no file for them.
    assert!(!repo.app.join("locales/de/goods.csv").exists());
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

#[test]
fn a_flutter_apps_arb_files_go_through_push_and_pull_unchanged() {
    let repo = AppRepo::new("yubioath-arb", "", true);
    let settings = repo.read(".locstore.toml");
    assert!(
        settings.contains("format = \"arb\"") && settings.contains("path = \"lib/l10n/app_{lang}.arb\""),
        "{settings}"
    );
    let pushed = repo.run(&["push"]);
    assert_eq!(status(&pushed), 0, "{}", text(&pushed.stderr));
    // Plural messages with `=1` cases and the count inside the forms are held whole, as one
    // text each (the contract's "Real apps, whole": exact values are held, not dropped).
    let warnings = text(&pushed.stderr);
    assert!(
        !warnings
            .lines()
            .any(|line| line.starts_with("warning:") && line.contains("l_attempts_remaining")),
        "nothing of it is passed over: {warnings}"
    );
    let held = repo.get("/teams/acme/projects/app/keys/l_attempts_remaining");
    assert!(
        held["data"]["translation"]["pl"].as_str().unwrap().contains("plural"),
        "{held}"
    );
    let key = repo.get("/teams/acme/projects/app/keys/native_language_name");
    assert_eq!(key["data"]["translation"]["pl"], "Polski");
    assert!(
        key["data"]["description"]
            .as_str()
            .unwrap()
            .starts_with("IMPORTANT: This is the name of YOUR language"),
        "{key}"
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));

    // A server edit changes that member's line only.
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/s_quit",
        json!({"translations": [{"language": "de", "content": "Beenden \"jetzt\""}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, "lib/l10n/app_de.arb".to_owned())]);
    assert!(
        repo.read("lib/l10n/app_de.arb")
            .contains("\n    \"s_quit\": \"Beenden \\\"jetzt\\\"\",\n")
    );
    repo.commit("pulled");

    // A key deleted on the server goes from every file, its `@key` object with it.
    let (status, _) = repo.server.request(
        "DELETE",
        "/teams/acme/projects/app/keys/native_language_name",
        Some(TOKEN),
        None,
    );
    assert_eq!(status, 200);
    repo.ok(&["pull"]);
    for language in ["en", "de", "fr", "ja", "pl"] {
        let text = repo.read(&format!("lib/l10n/app_{language}.arb"));
        assert!(!text.contains("native_language_name"), "{language}: {text}");
        serde_json::from_str::<Value>(&text).unwrap();
    }
    repo.commit("pulled");
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "");
}

#[test]
fn a_plural_of_another_argument_than_count_keeps_its_argument_through_an_edit_and_pull() {
    // Flutter generates code from the argument a template names (`howMany` here); Angular's
    // XLIFF names it `VAR_PLURAL`. Such messages are held as written, and an edit is written
    // back with the app's argument, not the `count` of forms written anew.
    let flutter = [
        (
            "lib/l10n/app_en.arb",
            "{\n  \"@@locale\": \"en\",\n  \"files\": \"{howMany, plural, one {One file} other {Some files}}\",\n  \"@files\": {\"placeholders\": {\"howMany\": {\"type\": \"int\"}}}\n}\n",
        ),
        (
            "lib/l10n/app_fr.arb",
            "{\n  \"@@locale\": \"fr\",\n  \"files\": \"{howMany, plural, one {Un fichier} other {Des fichiers}}\"\n}\n",
        ),
    ];
    let unit = |target: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n  <file source-language=\"en\" datatype=\"plaintext\" original=\"ng2.template\"{}>\n    <body>\n      <trans-unit id=\"people\" datatype=\"html\">\n        <source>{{VAR_PLURAL, plural, one {{participant}} other {{participants}}}}</source>\n{target}      </trans-unit>\n    </body>\n  </file>\n</xliff>\n",
            if target.is_empty() {
                ""
            } else {
                " target-language=\"fr\""
            }
        )
    };
    let angular = [
        ("src/locale/messages.xlf", unit("")),
        (
            "src/locale/messages.fr.xlf",
            unit(
                "        <target state=\"translated\">{VAR_PLURAL, plural, one {participant} other {participants}}</target>\n",
            ),
        ),
    ];
    let angular: Vec<(&str, &str)> = angular.iter().map(|(path, text)| (*path, text.as_str())).collect();
    for (files, key, text, changed) in [
        (
            &flutter[..],
            "files",
            "{howMany, plural, one {Un seul fichier} other {Des fichiers}}",
            "lib/l10n/app_fr.arb",
        ),
        (
            &angular[..],
            "people",
            "{VAR_PLURAL, plural, one {participant·e} other {participant·es}}",
            "src/locale/messages.fr.xlf",
        ),
    ] {
        let repo = AppRepo::of_files(files);
        repo.ok(&["push"]);
        repo.ok(&["pull"]);
        assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));
        let path = format!("/teams/acme/projects/app/keys/{key}");
        repo.call(
            "PATCH",
            &path,
            json!({"translations": [{"language": "fr", "content": text}]}),
        );
        repo.ok(&["pull"]);
        assert_eq!(repo.numstat(), [(1, 1, changed.to_owned())]);
        let written = repo.read(changed);
        assert!(written.contains(text), "{written}");
        assert!(
            !written.contains("{VAR_PLURAL")
                || written.contains("<source>{VAR_PLURAL, plural, one {participant} other {participants}}</source>"),
            "{written}"
        );
    }
}

#[test]
fn init_create_takes_the_base_language_the_source_file_declares_and_pull_adds_no_file() {
    // Angular's source file says `en-US`; its translations have no file of that language.
    let file = |target: Option<&str>| {
        let (language, unit) = match target {
            Some(text) => (
                " target-language=\"fr\"",
                format!("<target state=\"translated\">{text}</target>"),
            ),
            None => ("", String::new()),
        };
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n  <file source-language=\"en-US\" datatype=\"plaintext\" original=\"ng2.template\"{language}>\n    <body>\n      <trans-unit id=\"hello\" datatype=\"html\">\n        <source>Hello</source>{unit}\n      </trans-unit>\n      <trans-unit id=\"the\" datatype=\"html\">\n        <source>the</source>{}\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n",
            if target.is_some() {
                "<target state=\"translated\"/>"
            } else {
                ""
            }
        )
    };
    let (source, french) = (file(None), file(Some("Bonjour")));
    let repo = AppRepo::of_files(&[
        ("src/locale/messages.xlf", &source),
        ("src/locale/messages.fr.xlf", &french),
    ]);
    let project = repo.get("/teams/acme/projects/app");
    assert_eq!(project["data"]["baseLanguageISO"], "en-US", "{project}");
    repo.ok(&["push"]);
    assert_eq!(
        repo.get("/teams/acme/projects/app/keys/hello")["data"]["translation"],
        json!({"en-US": "Hello", "fr": "Bonjour"})
    );
    // No `messages.en-US.xlf`, and French's empty target (no text to the server) stays.
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));
}

#[test]
fn an_angular_units_inline_elements_are_held_as_markup_and_an_edit_keeps_them() {
    let unit = |target: Option<&str>| {
        let (language, target) = match target {
            Some(text) => (
                " target-language=\"fr\"",
                format!("\n        <target state=\"translated\">{text}</target>"),
            ),
            None => ("", String::new()),
        };
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n  <file source-language=\"en\" datatype=\"plaintext\" original=\"ng2.template\"{language}>\n    <body>\n      <trans-unit id=\"days\" datatype=\"html\">\n        <source>Last <x id=\"INTERPOLATION\" equiv-text=\"{{{{ numberOfDays }}}}\"/> days &amp; <x id=\"START_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;strong&gt;\"/>more<x id=\"CLOSE_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;/strong&gt;\"/></source>{target}\n      </trans-unit>\n    </body>\n  </file>\n</xliff>\n"
        )
    };
    let french = "<x id=\"INTERPOLATION\" equiv-text=\"{{ numberOfDays }}\"/> derniers jours &amp; <x id=\"START_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;strong&gt;\"/>plus<x id=\"CLOSE_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;/strong&gt;\"/>";
    let (source, translated) = (unit(None), unit(Some(french)));
    let repo = AppRepo::of_files(&[
        ("src/locale/messages.xlf", &source),
        ("src/locale/messages.fr.xlf", &translated),
    ]);
    let pushed = repo.ok(&["push"]);
    assert!(!pushed.contains("passed over"), "{pushed}");
    // Held as the unit's XML content: a markup text, elements and references as written.
    let key = repo.get("/teams/acme/projects/app/keys/days")["data"].clone();
    assert_eq!(key["markup"], true, "{key}");
    assert_eq!(key["translation"]["fr"], french);
    repo.ok(&["pull"]);
    assert_eq!(repo.porcelain(), "", "{}", git_in(&repo.app, &["diff"]));

    // A translator moves the placeholder: the target changes, elements and all.
    let edited = "Les <x id=\"INTERPOLATION\" equiv-text=\"{{ numberOfDays }}\"/> derniers jours &amp; <x id=\"START_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;strong&gt;\"/>plus<x id=\"CLOSE_TAG_STRONG\" ctype=\"x-strong\" equiv-text=\"&lt;/strong&gt;\"/>";
    repo.call(
        "PATCH",
        "/teams/acme/projects/app/keys/days",
        json!({"translations": [{"language": "fr", "content": edited}]}),
    );
    repo.ok(&["pull"]);
    assert_eq!(repo.numstat(), [(1, 1, "src/locale/messages.fr.xlf".to_owned())]);
    assert_eq!(repo.read("src/locale/messages.fr.xlf"), unit(Some(edited)));
}
