//! Real apps' files through upload then export: every format of the contract's "More formats"
//! gives the app's own files back byte for byte (their order, comments, quoting, wrapping,
//! headers), and a change made since changes that entry only.

use std::path::Path;

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;

/// A real app's files of one format: the fixture, the upload's type, and each file's path in
/// the app with the path the export gives it.
struct RealApp {
    fixture: &'static str,
    format: &'static str,
    files: Vec<(String, String)>,
}

fn real_apps() -> Vec<RealApp> {
    let each = |languages: &[&str], app: &dyn Fn(&str) -> String, export: &dyn Fn(&str) -> String| {
        languages
            .iter()
            .map(|language| (app(language), export(language)))
            .collect::<Vec<_>>()
    };
    vec![
        RealApp {
            fixture: "rallly-i18next",
            format: "i18next",
            files: each(
                &["en", "de", "pl", "pt-BR", "zh"],
                &|language| format!("{language}/app.json"),
                &|language| format!("{language}/app.json"),
            ),
        },
        RealApp {
            fixture: "gradia-po",
            format: "po",
            files: [("gradia.pot", "template.pot")]
                .into_iter()
                .chain([
                    ("pl.po", "pl.po"),
                    ("de.po", "de.po"),
                    ("uk.po", "uk.po"),
                    ("ar.po", "ar.po"),
                    ("pt_BR.po", "pt_BR.po"),
                ])
                .map(|(app, export)| (format!("po/{app}"), export.to_owned()))
                .collect(),
        },
        RealApp {
            fixture: "keepingyouawake-xliff",
            format: "xliff",
            files: each(
                &["de", "fr", "ja", "pl"],
                &|language| format!("Localizations/{language}.xcloc/Localized Contents/{language}.xliff"),
                &|language| format!("{language}.xliff"),
            ),
        },
        RealApp {
            fixture: "yubioath-arb",
            format: "arb",
            files: each(
                &["en", "de", "fr", "ja", "pl"],
                &|language| format!("lib/l10n/app_{language}.arb"),
                &|language| format!("app_{language}.arb"),
            ),
        },
        RealApp {
            fixture: "24pullrequests-yaml",
            format: "yaml",
            files: each(
                &["en", "de", "fr", "ja", "pl"],
                &|language| format!("config/locales/{language}.yml"),
                &|language| format!("{language}.yml"),
            ),
        },
    ]
}

impl RealApp {
    fn bytes(&self, app_path: &str) -> Vec<u8> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(self.fixture);
        std::fs::read(root.join(app_path)).unwrap()
    }

    /// Creates the project `name` (base language English) and uploads every file in one zip.
    async fn upload(&self, app: &TestApp, name: &str) -> Value {
        self.upload_with(app, name, "").await
    }

    /// [`RealApp::upload`] with more of the upload's parameters (`&tags=app`).
    async fn upload_with(&self, app: &TestApp, name: &str, parameters: &str) -> Value {
        app.post(
            "/teams/acme/projects",
            json!({"name": name, "displayName": name, "languagesISO": ["en"]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
        let files: Vec<(String, Vec<u8>)> = self
            .files
            .iter()
            .map(|(path, _)| (path.clone(), self.bytes(path)))
            .collect();
        app.post_bytes(
            &format!(
                "/teams/acme/projects/{name}/files?type={}&addLanguages=true{parameters}",
                self.format
            ),
            "application/zip",
            crate::upload::zip_of_files(&files),
        )
        .await
        .assert_ok(StatusCode::OK)
    }
}

async fn team(app: &TestApp) {
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::CREATED);
}

/// Every file of an export of `project` (a zip), by path.
async fn exported(app: &TestApp, project: &str, query: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let (_, bytes) =
        crate::platforms::download_export(app, &format!("/teams/acme/projects/{project}/keys/export?{query}")).await;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut files = std::collections::BTreeMap::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).unwrap();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).unwrap();
        files.insert(file.name().to_owned(), bytes);
    }
    files
}

/// The lines of `after` that differ from `before`'s (as a line diff would count them: removed,
/// added).
fn changed_lines(before: &[u8], after: &[u8]) -> (Vec<String>, Vec<String>) {
    let lines = |bytes: &[u8]| -> Vec<String> { String::from_utf8_lossy(bytes).lines().map(str::to_owned).collect() };
    let (before, after) = (lines(before), lines(after));
    let common_start = before.iter().zip(&after).take_while(|(a, b)| a == b).count();
    let common_end = before[common_start..]
        .iter()
        .rev()
        .zip(after[common_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (
        before[common_start..before.len() - common_end].to_vec(),
        after[common_start..after.len() - common_end].to_vec(),
    )
}

#[tokio::test]
async fn a_real_apps_files_upload_then_export_byte_for_byte_in_every_format() {
    let app = TestApp::spawn().await;
    team(&app).await;
    for real in real_apps() {
        let project = real.format.to_owned();
        let answer = real.upload(&app, &project).await;
        // The answer names the files kept, in their format's folder (the type's name; these
        // XLIFF files are 1.2) as the export names them.
        let kept: Vec<String> = serde_json::from_value(answer["kept"].clone()).unwrap();
        let exported_paths: Vec<String> = real
            .files
            .iter()
            .map(|(_, path)| format!("{}/{path}", real.format))
            .collect();
        assert!(exported_paths.iter().all(|path| kept.contains(path)), "{kept:?}");
        if real.format == "i18next" {
            // Rallly's ICU plural texts are texts to i18next's JSON v4: nothing passed over.
            assert_eq!(answer["skipped"], 0, "{answer}");
        }
        let files = exported(&app, &project, &format!("type={}", real.format)).await;
        for (app_path, export_path) in &real.files {
            let exported = files
                .get(export_path)
                .unwrap_or_else(|| panic!("{}: no {export_path} in {:?}", real.fixture, files.keys()));
            assert!(
                *exported == real.bytes(app_path),
                "{}: {export_path} differs from {app_path}:\n{}",
                real.fixture,
                String::from_utf8_lossy(exported)
            );
        }
        // One language alone is that file itself (the one file of the download when it is one).
        let (app_path, export_path) = real.files.last().unwrap();
        let language = export_path
            .trim_start_matches("app_")
            .split(['/', '.'])
            .next()
            .unwrap()
            .replace('_', "-");
        let (name, bytes) = crate::platforms::download_export(
            &app,
            &format!(
                "/teams/acme/projects/{project}/keys/export?type={}&languages={language}",
                real.format
            ),
        )
        .await;
        // (A language of namespaced i18next files may have several: then it is a zip.)
        let file = if name.ends_with(".zip") {
            let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
            let mut file = Vec::new();
            std::io::Read::read_to_end(&mut archive.by_name(export_path).unwrap(), &mut file).unwrap();
            file
        } else {
            assert_eq!(Some(name.as_str()), export_path.rsplit('/').next(), "{}", real.fixture);
            bytes
        };
        assert!(file == real.bytes(app_path), "{}: {name}", real.fixture);
    }
    // What was kept is in the data repository beside the keys, in the upload's commit.
    let kept = app.git(&["ls-tree", "-r", "--name-only", "HEAD", "teams/acme/projects/po/files"]);
    assert!(kept.contains("teams/acme/projects/po/files/po/pt_BR.po"), "{kept}");
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test]
async fn an_export_of_a_kept_file_changes_only_the_entries_changed_since() {
    let app = TestApp::spawn().await;
    team(&app).await;
    let apps = real_apps();
    let gettext = apps.iter().find(|real| real.format == "po").unwrap();
    gettext.upload(&app, "po").await;
    let upload_commit = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let original = gettext.bytes("po/pl.po");
    app.patch(
        "/teams/acme/projects/po/keys/New%20Window",
        json!({"translations": [{"language": "pl", "content": "Nowe \"okienko\""}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let files = exported(&app, "po", "type=po").await;
    let (removed, added) = changed_lines(&original, &files["pl.po"]);
    assert_eq!(
        removed,
        ["msgstr \"Nowe okno\""],
        "{}",
        String::from_utf8_lossy(&files["pl.po"])
    );
    assert_eq!(added, ["msgstr \"Nowe \\\"okienko\\\"\""]);
    // The other languages' files are as the app wrote them.
    assert!(files["de.po"] == gettext.bytes("po/de.po"));
    // The export of the upload's commit is the app's file as it was.
    let then = exported(&app, "po", &format!("type=po&at={upload_commit}")).await;
    assert!(then["pl.po"] == original);

    // Rails: a deleted key's line goes, a new key lands in its mapping, in the app's style.
    let rails = apps.iter().find(|real| real.format == "yaml").unwrap();
    rails.upload(&app, "yaml").await;
    app.delete("/teams/acme/projects/yaml/keys/about_us")
        .await
        .assert_ok(StatusCode::OK);
    app.post(
        "/teams/acme/projects/yaml/keys",
        json!({"name": "organisations.stats.added", "description": "A new line", "translations": [{"language": "en", "content": "Added"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let files = exported(&app, "yaml", "type=yaml").await;
    let english = String::from_utf8(files["en.yml"].clone()).unwrap();
    assert!(!english.contains("about_us:"), "{english}");
    assert!(
        english.contains(
            "    title: \"%{count} Organisations involved\"\n    stats:\n      # A new line\n      added: \"Added\"\n"
        ),
        "{english}"
    );
    let (removed, added) = changed_lines(&rails.bytes("config/locales/de.yml"), &files["de.yml"]);
    assert_eq!((removed.len(), added.len()), (1, 0), "{removed:?} {added:?}");
    assert!(removed[0].trim_start().starts_with("about_us:"), "{removed:?}");
    // One language alone is its patched file itself, as the zip has it.
    for language in ["en", "de"] {
        let (name, bytes) = crate::platforms::download_export(
            &app,
            &format!("/teams/acme/projects/yaml/keys/export?type=yaml&languages={language}"),
        )
        .await;
        assert_eq!(name, format!("{language}.yml"));
        assert!(bytes == files[&name], "{language}: {}", String::from_utf8_lossy(&bytes));
    }

    // Flutter: plural messages held whole stay in the export as written.
    let flutter = apps.iter().find(|real| real.format == "arb").unwrap();
    let answer = flutter.upload(&app, "arb").await;
    // Held whole as written (`=1`, the count inside each case), and compared case by case: no
    // check takes Polish's extra forms for other placeholders.
    let held = app
        .get("/teams/acme/projects/arb/keys/l_attempts_remaining")
        .await
        .assert_ok(StatusCode::OK);
    assert!(
        held["data"]["translation"]["pl"]
            .as_str()
            .is_some_and(|message| message.starts_with("{retries, plural, few {")),
        "{held}"
    );
    assert!(
        !answer["warnings"].to_string().contains("attempts_remaining"),
        "{answer}"
    );
    let files = exported(&app, "arb", "type=arb").await;
    assert!(files["app_pl.arb"] == flutter.bytes("lib/l10n/app_pl.arb"));
    assert!(String::from_utf8_lossy(&files["app_pl.arb"]).contains("\"l_attempts_remaining\""));
    // A new key lands in each file it has a text in, in the file's own indentation, after its
    // nearest neighbour in the base language's file; nothing else moves.
    app.post(
        "/teams/acme/projects/arb/keys",
        json!({"name": "zz_new_string", "translations": [{"language": "en", "content": "New"}, {"language": "pl", "content": "Nowy"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let files = exported(&app, "arb", "type=arb").await;
    let (removed, added) = changed_lines(&flutter.bytes("lib/l10n/app_pl.arb"), &files["app_pl.arb"]);
    assert!(removed.len() <= 1, "{removed:?}");
    assert!(
        added.contains(&"    \"zz_new_string\": \"Nowy\"".to_owned())
            || added.contains(&"    \"zz_new_string\": \"Nowy\",".to_owned()),
        "{added:?}"
    );
    assert!(files["app_de.arb"] == flutter.bytes("lib/l10n/app_de.arb"));
    serde_json::from_slice::<Value>(&files["app_pl.arb"]).unwrap();
}

#[tokio::test]
async fn files_the_export_wrote_itself_are_not_kept() {
    let app = TestApp::spawn().await;
    team(&app).await;
    app.post(
        "/teams/acme/projects",
        json!({"name": "web", "displayName": "Web", "languagesISO": ["en", "fr"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    for (name, en, fr) in [("a.title", "Title", "Titre"), ("b", "Bee", "Abeille")] {
        app.post(
            "/teams/acme/projects/web/keys",
            json!({"name": name, "translations": [{"language": "en", "content": en}, {"language": "fr", "content": fr}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
    }
    for format in ["i18next", "po", "arb", "xliff", "yaml"] {
        let files = exported(&app, "web", &format!("type={format}")).await;
        let files: Vec<(String, Vec<u8>)> = files.into_iter().collect();
        let commits = app.commit_count();
        let answer = app
            .post_bytes(
                &format!("/teams/acme/projects/web/files?type={format}"),
                "application/zip",
                crate::upload::zip_of_files(&files),
            )
            .await
            .assert_ok(StatusCode::OK);
        assert_eq!(app.commit_count(), commits, "{format}");
        assert_eq!(answer["kept"], json!([]), "{format}");
    }
    assert_eq!(
        app.git(&["ls-tree", "-r", "--name-only", "HEAD", "teams/acme/projects/web/files"]),
        ""
    );

    // A file in the app's own layout is kept; the export's own file uploaded later replaces it
    // (nothing kept then).
    let canonical = exported(&app, "web", "type=i18next").await;
    let own = b"{\n    \"b\": \"Abeille\",\n    \"a\": {\"title\": \"Titre\"}\n}\n".to_vec();
    app.post_bytes(
        "/teams/acme/projects/web/files?type=i18next&language=fr",
        "application/json",
        own.clone(),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(
        app.git(&["ls-tree", "-r", "--name-only", "HEAD", "teams/acme/projects/web/files"])
            .trim(),
        "teams/acme/projects/web/files/i18next/fr.json\nteams/acme/projects/web/files/i18next/fr.json.locstore.json"
    );
    // Beside it, the fingerprint of the export's file it was found unchanged by.
    let meta: Value = serde_json::from_str(&app.git(&[
        "show",
        "HEAD:teams/acme/projects/web/files/i18next/fr.json.locstore.json",
    ]))
    .unwrap();
    assert_eq!(meta["exportSha256"].as_str().map(str::len), Some(64), "{meta}");
    let (_, bytes) =
        crate::platforms::download_export(&app, "/teams/acme/projects/web/keys/export?type=i18next&languages=fr").await;
    assert_eq!(String::from_utf8_lossy(&bytes), String::from_utf8_lossy(&own));
    // `layout=export` writes the export's own layout all the same.
    assert_eq!(exported(&app, "web", "type=i18next&layout=export").await, canonical);
    app.post_bytes(
        "/teams/acme/projects/web/files?type=i18next&language=fr",
        "application/json",
        canonical["fr.json"].clone(),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(
        app.git(&["ls-tree", "-r", "--name-only", "HEAD", "teams/acme/projects/web/files"]),
        ""
    );
    assert_eq!(exported(&app, "web", "type=i18next").await, canonical);
}

#[tokio::test]
async fn a_restored_snapshot_brings_back_the_files_it_kept() {
    let app = TestApp::spawn().await;
    team(&app).await;
    let apps = real_apps();
    let rails = apps.iter().find(|real| real.format == "yaml").unwrap();
    rails.upload(&app, "yaml").await;
    app.post("/teams/acme/projects/yaml/snapshots", json!({"name": "v1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let kept = exported(&app, "yaml", "type=yaml").await;
    // The export's own files uploaded: nothing kept any more.
    let own: Vec<(String, Vec<u8>)> = exported(&app, "yaml", "type=yaml&layout=export")
        .await
        .into_iter()
        .collect();
    app.post_bytes(
        "/teams/acme/projects/yaml/files?type=yaml",
        "application/zip",
        crate::upload::zip_of_files(&own),
    )
    .await
    .assert_ok(StatusCode::OK);
    let kept_files = || app.git(&["ls-tree", "-r", "--name-only", "HEAD", "teams/acme/projects/yaml/files"]);
    assert_eq!(kept_files(), "");
    assert!(exported(&app, "yaml", "type=yaml").await != kept);

    app.post("/teams/acme/projects/yaml/snapshots/v1/restore", json!({}))
        .await
        .assert_ok(StatusCode::OK);
    assert!(
        kept_files().contains("teams/acme/projects/yaml/files/yaml/de.yml\n"),
        "{}",
        kept_files()
    );
    assert!(exported(&app, "yaml", "type=yaml").await == kept);
    // Restored again, nothing differs: no commit.
    let commits = app.commit_count();
    app.post("/teams/acme/projects/yaml/snapshots/v1/restore", json!({}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), commits);
}

/// How many kept files exports gave each way, from `/metrics`: as kept, patched with the keys
/// changed since, patched with the whole export.
async fn kept_files_given(app: &TestApp) -> [u64; 3] {
    let metrics = app.get("/metrics").await;
    let text = String::from_utf8(metrics.body).unwrap();
    ["as_kept", "changed_keys", "whole_export"].map(|how| {
        let line = format!("locstore_kept_files_exported_total{{how=\"{how}\"}} ");
        text.lines()
            .find_map(|found| found.strip_prefix(line.as_str()))
            .map_or(0, |count| count.parse().unwrap())
    })
}

/// How many kept files the server holds in memory for exports, from `/metrics`.
async fn kept_files_held(app: &TestApp) -> u64 {
    let metrics = app.get("/metrics").await;
    let text = String::from_utf8(metrics.body).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("locstore_kept_cache_files "))
        .map_or(0, |count| count.parse().unwrap())
}

#[tokio::test]
async fn patching_with_the_keys_changed_since_gives_what_patching_with_the_whole_export_does() {
    // Every key tagged: an export of the tag patches each kept file with the whole export (it
    // leaves keys out, in general); one of every key patches it with the keys changed since
    // the upload only. Both must give the same bytes after every kind of change.
    let app = TestApp::spawn().await;
    team(&app).await;
    for real in real_apps() {
        let project = real.format;
        let held = kept_files_held(&app).await;
        real.upload_with(&app, project, "&tags=app").await;
        // The upload's kept files are held for exports as the upload read them.
        assert_eq!(kept_files_held(&app).await, held + real.files.len() as u64, "{project}");
        let keys = app
            .get(&format!("/teams/acme/projects/{project}/keys?limit=1000"))
            .await
            .json();
        let names: Vec<String> = keys["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|key| key["plural"] != true)
            .map(|key| key["name"].as_str().unwrap().to_owned())
            .collect();
        assert!(names.len() > 10, "{}: {names:?}", real.fixture);
        // The fixtures' keys are of one namespace each (Rallly's i18next files: `app`).
        let namespace = keys["data"][0]["namespace"].as_str().unwrap().to_owned();
        let key_path = |name: &str| {
            format!(
                "/teams/acme/projects/{project}/keys/{}?namespace={}",
                crate::app_files::urlencode(name),
                crate::app_files::urlencode(&namespace)
            )
        };
        let kept_files = real.files.len() as u64;
        let mut step = 0;
        let mut same = async |what: &str| {
            step += 1;
            let before = kept_files_given(&app).await;
            let quick = exported(&app, project, &format!("type={project}")).await;
            let after = kept_files_given(&app).await;
            let whole = exported(&app, project, &format!("type={project}&tags=app")).await;
            assert_eq!(
                quick.keys().collect::<Vec<_>>(),
                whole.keys().collect::<Vec<_>>(),
                "{project}: {what}"
            );
            for (path, bytes) in &quick {
                assert!(
                    bytes == &whole[path],
                    "{project}, after {what}: {path} differs:\n{}\n---- the whole export's patch:\n{}",
                    String::from_utf8_lossy(bytes),
                    String::from_utf8_lossy(&whole[path])
                );
            }
            // Every kept file given without the whole export (as kept, or patched with the keys
            // changed): Gradia's Ukrainian file too, whose plural formula is not the export's
            // (its forms are compared and written through its own formula).
            let whole = 0;
            let counts: Vec<u64> = after.iter().zip(before).map(|(after, before)| after - before).collect();
            assert_eq!(counts[2], whole, "{project}, after {what} (step {step}): {counts:?}");
            assert_eq!(
                counts[0] + counts[1],
                kept_files - whole,
                "{project}, after {what}: {counts:?}"
            );
            (quick, counts)
        };
        let (uploaded, counts) = same("the upload").await;
        assert_eq!(counts[0], kept_files, "{project}: {counts:?}");
        for (app_path, export_path) in &real.files {
            assert!(
                uploaded[export_path] == real.bytes(app_path),
                "{project}: {export_path}"
            );
        }
        // A key with its base text only: no entry of it in the translations' files of PO, ARB
        // and YAML, which are given as kept (Rallly's i18next files are its `app` namespace's,
        // and a new key goes to the default one). What changed since the upload adds up: this
        // key stays among the keys changed below.
        app.post(
            &format!("/teams/acme/projects/{project}/keys"),
            json!({"name": "zzz_base_only", "tags": ["app"], "translations": [{"language": "en", "content": "Base only"}]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
        let (_, counts) = same("a key with its base text only").await;
        match project {
            "po" | "arb" | "yaml" => assert_eq!(counts[..2], [kept_files - 1, 1], "{project}: {counts:?}"),
            "i18next" => assert_eq!(counts[..2], [kept_files, 0], "{project}: {counts:?}"),
            _ => assert!(counts[1] >= 1, "{project}: {counts:?}"),
        }
        // A translation changed, a base text changed (every translation's outdated state).
        app.patch(
            &key_path(&names[1]),
            json!({"translations": [{"language": "de", "content": "Geändert \"hier\"\nzwei Zeilen"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
        app.patch(
            &key_path(&names[3]),
            json!({"translations": [{"language": "en", "content": "A changed base text"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
        let (_, counts) = same("two texts changed").await;
        assert!(counts[1] >= 1, "{project}: {counts:?}");
        // A key deleted, and new keys: one beside an existing key, one at the end.
        app.delete(&key_path(&names[5])).await.assert_ok(StatusCode::OK);
        for name in [format!("{}_added", names[7]), "zzz_added_last".to_owned()] {
            app.post(
                &format!("/teams/acme/projects/{project}/keys"),
                json!({"name": name, "namespace": namespace, "tags": ["app"], "description": "Added since",
                       "translations": [{"language": "en", "content": "Added"}, {"language": "de", "content": "Hinzugefügt"}]}),
            )
            .await
            .assert_ok(StatusCode::CREATED);
        }
        let (_, counts) = same("a key deleted and two added").await;
        assert!(counts[1] >= 1, "{project}: {counts:?}");
    }
}

#[tokio::test]
async fn a_kept_file_a_merge_brought_is_patched_with_the_whole_export() {
    // Another server's upload joined as a merge whose first parent is this server's line:
    // the history's first commit with the kept file is the merge, which also brings a key
    // changed on this side. Patching with the keys changed since that merge would miss it.
    let app = TestApp::spawn().await;
    team(&app).await;
    let flutter = real_apps().into_iter().find(|real| real.format == "arb").unwrap();
    flutter.upload_with(&app, "arb", "&tags=app").await;
    app.settle().await;
    let repo = app.repo();
    let git = |args: &[&str], index: &Path| {
        crate::helpers::git_in_env(&repo, &[("GIT_INDEX_FILE", index.as_os_str())], args)
            .trim()
            .to_owned()
    };
    let scratch = tempfile::tempdir().unwrap();
    let index = scratch.path().join("index");
    let upload = git(&["rev-parse", "HEAD"], &index);
    // This side: a key added (by hand, in a file of its own) on the commit before the upload.
    let key = "teams/acme/projects/arb/keys/zzz_this_side.toml";
    let file = scratch.path().join("key.toml");
    std::fs::write(
        &file,
        "name = \"zzz_this_side\"\ntags = [\"app\"]\n\n[translations]\nen = \"This side\"\nde = \"Diese Seite\"\n",
    )
    .unwrap();
    let blob = git(&["hash-object", "-w", file.to_str().unwrap()], &index);
    let with_edit = |base: &str| {
        git(&["read-tree", base], &index);
        git(
            &["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{key}")],
            &index,
        );
        git(&["write-tree"], &index)
    };
    let ours = git(
        &[
            "commit-tree",
            &with_edit(&format!("{upload}^")),
            "-p",
            &format!("{upload}^"),
            "-m",
            "Edit on this side",
        ],
        &index,
    );
    let merge = git(
        &[
            "commit-tree",
            &with_edit(&upload),
            "-p",
            &ours,
            "-p",
            &upload,
            "-m",
            "Merge the other server's upload",
        ],
        &index,
    );
    crate::helpers::git_in(&repo, &["merge", "--ff-only", "-q", &merge]);
    for _ in 0..50 {
        if app.get("/teams/acme/projects/arb/keys/zzz_this_side").await.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let before = kept_files_given(&app).await;
    let files = exported(&app, "arb", "type=arb").await;
    let after = kept_files_given(&app).await;
    let german = String::from_utf8(files["app_de.arb"].clone()).unwrap();
    assert!(german.contains("\"zzz_this_side\": \"Diese Seite\""), "{german}");
    assert_eq!(files, exported(&app, "arb", "type=arb&tags=app").await);
    assert_eq!(after[2] - before[2], flutter.files.len() as u64, "{before:?} {after:?}");
}

#[tokio::test]
async fn a_server_holding_no_kept_files_in_memory_exports_the_same_files() {
    // The cache changes what an export reads, never what it gives: with `--kept-cache-bytes 0`
    // every export reads each kept file from git and parses it again.
    let held = TestApp::spawn().await;
    let none = TestApp::spawn_with(tempfile::tempdir().unwrap(), |config| config.kept_cache_bytes = 0).await;
    for app in [&held, &none] {
        team(app).await;
    }
    for real in real_apps() {
        let project = real.format;
        for app in [&held, &none] {
            real.upload_with(app, project, "").await;
        }
        let same = async |what: &str| {
            let (cached, read) = (
                exported(&held, project, &format!("type={project}")).await,
                exported(&none, project, &format!("type={project}")).await,
            );
            assert!(cached == read, "{project}, {what}: the exports differ");
        };
        same("after the upload").await;
        let first = held
            .get(&format!("/teams/acme/projects/{project}/keys?limit=1"))
            .await
            .json()["data"][0]
            .clone();
        let (first, namespace) = (first["name"].as_str().unwrap(), first["namespace"].as_str().unwrap());
        for app in [&held, &none] {
            app.post(
                &format!("/teams/acme/projects/{project}/keys"),
                json!({"name": "zzz_new", "namespace": namespace, "translations": [{"language": "en", "content": "New \"one\""}]}),
            )
            .await
            .assert_ok(StatusCode::CREATED);
            app.delete(&format!(
                "/teams/acme/projects/{project}/keys/{}?namespace={}",
                crate::app_files::urlencode(first),
                crate::app_files::urlencode(namespace)
            ))
            .await
            .assert_ok(StatusCode::OK);
        }
        same("after a key was added and one deleted").await;
    }
    assert!(kept_files_held(&held).await > 0);
    assert_eq!(kept_files_held(&none).await, 0);
}
