use super::*;

/// Writes `text` to `file` under `root`, making its folders.
fn write_file(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn init_finds_android_apple_and_web_files() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "app/src/main/res/values/strings.xml",
        "app/src/main/res/values-fr/strings.xml",
        "ios/App/Resources/en.lproj/Localizable.strings",
        "web/locales/en.json",
        "web/locales/fr.json",
        "web/package.json",
        "node_modules/lib/locales/en.json",
    ] {
        write_file(dir.path(), file, "x");
    }
    let (path, found) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    assert_eq!(
        found,
        [
            "android-xml: app/src/main/res",
            "apple-strings: ios/App/Resources",
            "json: web/locales/{lang}.json"
        ]
    );
    let settings = Settings::find(Some(&path), dir.path()).unwrap();
    assert_eq!(settings.file_sets.len(), 3);
    assert_eq!(
        settings.file_sets[2].tags,
        ["web"],
        "several kinds of files are told apart by tags"
    );
    let again = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap_err();
    assert!(again.0.contains("--force"), "{}", again.0);
}
#[test]
fn init_finds_rails_families_folders_per_language_and_vs_codes_families() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| write_file(dir.path(), file, text);
    // VS Code: `package.nls.json` beside `package.nls.{lang}.json`.
    write("c/package.nls.json", "{}");
    write("c/package.nls.de.json", "{}");
    write("c/package.nls.pt-br.json", "{}");
    write("c/tsconfig.json", "{}");
    write("c/tsconfig.app.json", "{}");
    // diaspora: `{lang}.yml` and `devise.{lang}.yml`; CodeOcean: `{lang}/**/{name}.yml`.
    write("a/config/locales/en.yml", "en:\n  x: X\n");
    write("a/config/locales/fr.yml", "fr:\n  x: X\n");
    write("a/config/locales/devise.en.yml", "en:\n  x: X\n");
    write("a/config/locales/devise.fr.yml", "---\nfr:\n  x: X\n");
    write("b/config/locales/de/exercise.yml", "---\nde:\n  x: X\n");
    write("b/config/locales/de/mailers/user_mailer.yml", "de:\n  x: X\n");
    write("b/config/locales/en/exercise.yml", "en:\n  x: X\n");
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    assert_eq!(
        found,
        [
            "yaml: a/config/locales/{lang}.yml",
            "yaml: a/config/locales/devise.{lang}.yml",
            "yaml: b/config/locales/{lang}/exercise.yml",
            "yaml: b/config/locales/{lang}/mailers/user_mailer.yml",
            "json: c/package.nls.{lang}.json"
        ]
    );
    // A Rails locale folder's files are one key space: no namespace apart within an app,
    // each family its `file`; the two apps' folders are two key spaces.
    let settings = Settings::find(None, dir.path()).unwrap();
    let sets: Vec<(&str, Option<&str>, Option<&str>)> = settings
        .file_sets
        .iter()
        .map(|set| (set.path.as_str(), set.namespace.as_deref(), set.file.as_deref()))
        .collect();
    assert_eq!(
        sets,
        [
            ("a/config/locales/{lang}.yml", Some("a.config"), Some("")),
            ("a/config/locales/devise.{lang}.yml", Some("a.config"), Some("devise")),
            (
                "b/config/locales/{lang}/exercise.yml",
                Some("b.config"),
                Some("exercise")
            ),
            (
                "b/config/locales/{lang}/mailers/user_mailer.yml",
                Some("b.config"),
                Some("mailers.user_mailer")
            ),
            ("c/package.nls.{lang}.json", None, None),
        ]
    );
}

#[test]
fn init_finds_flutters_arb_files_where_l10n_yaml_says() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| write_file(dir.path(), file, text);
    // FluffyChat: `intl_{lang}.arb` in the `arb-dir`; Flutter Gallery: no `arb-dir`, so
    // `lib/l10n`; a plain package: `app_{lang}.arb` anywhere; Fritter: the Flutter Intl
    // plugin's `intl_{lang}.arb` with no `l10n.yaml`.
    write(
        "chat/l10n.yaml",
        "# SPDX\narb-dir: lib/l10n\ntemplate-arb-file: intl_en.arb\n",
    );
    write("chat/lib/l10n/intl_en.arb", "{}");
    write("chat/lib/l10n/intl_pt_BR.arb", "{}");
    write(
        "gallery/l10n.yaml",
        "template-arb-file: intl_en.arb\nuse-deferred-loading: true",
    );
    write("gallery/lib/l10n/intl_en.arb", "{}");
    write("gallery/lib/l10n/intl_es_419.arb", "{}");
    write("plain/l10n/app_en.arb", "{}");
    write("fritter/lib/l10n/intl_en.arb", "{}");
    write("fritter/lib/l10n/intl_be_Latn.arb", "{}");
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    assert_eq!(
        found,
        [
            "arb: chat/lib/l10n/intl_{lang}.arb",
            "arb: fritter/lib/l10n/intl_{lang}.arb",
            "arb: gallery/lib/l10n/intl_{lang}.arb",
            "arb: plain/l10n/app_{lang}.arb"
        ]
    );
}

#[test]
fn init_finds_xliff_catalogs_rails_locales_and_not_workflow_files() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| write_file(dir.path(), file, text);
    let v2 = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\"/>";
    write(
        "Localizations/de.xcloc/Localized Contents/de.xliff",
        "<xliff version=\"1.2\"/>",
    );
    write(
        "Localizations/fr.xcloc/Localized Contents/fr.xliff",
        "<xliff version=\"1.2\"/>",
    );
    write("vendor/de.xliff", v2);
    write("vendor/fr.xliff", v2);
    write(
        "config/locales/en.yml",
        "# The English texts\n---\nen:\n  hello: Hello\n",
    );
    write("config/locales/fr.yml", "fr:\n  hello: Bonjour\n");
    // Two-letter workflow files are not locale files: their root key is not their name.
    write(".github/workflows/ci.yml", "name: CI\non: push\n");
    write(".github/workflows/pr.yml", "name: PR\n");
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    assert_eq!(
        found,
        [
            "xliff: Localizations/{lang}.xcloc/Localized Contents/{lang}.xliff",
            "yaml: config/locales/{lang}.yml",
            "xliff2: vendor/{lang}.xliff"
        ]
    );
}

#[test]
fn modules_of_one_format_get_a_namespace_each() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "app/src/main/res/values/strings.xml",
        "app/src/debug/res/values/strings.xml",
        "feature/account/common/src/main/res/values/strings.xml",
        "core/ui/res/values/strings.xml",
        "ios/App/Resources/en.lproj/Localizable.strings",
    ] {
        write_file(dir.path(), file, "<resources/>");
    }
    let (path, _) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    let settings = Settings::find(Some(&path), dir.path()).unwrap();
    let sets: Vec<(String, Option<String>)> = settings
        .file_sets
        .iter()
        .map(|set| (set.path.clone(), set.namespace.clone()))
        .collect();
    assert_eq!(
        sets,
        [
            ("app/src/debug/res".to_owned(), Some("app.debug".to_owned())),
            ("app/src/main/res".to_owned(), Some("app".to_owned())),
            ("core/ui/res".to_owned(), Some("core.ui".to_owned())),
            (
                "feature/account/common/src/main/res".to_owned(),
                Some("feature.account.common".to_owned())
            ),
            // The only set of its format shares the project's key spaces.
            ("ios/App/Resources".to_owned(), None),
        ]
    );
}

#[test]
fn an_apple_extensions_own_tables_are_a_bundle_apart_from_the_apps_catalogs() {
    // Ice Cubes: the app's String Catalogs, and an action extension whose `.lproj` folders
    // hold only `InfoPlist.strings`. Both are found, each a key space of its own, so the
    // extension's pull never writes the app's `Localizable` keys into new files.
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        ("IceCubesApp/Resources/Localization/Localizable.xcstrings", "{}"),
        (
            "IceCubesActionExtension/en.lproj/InfoPlist.strings",
            "\"CFBundleName\" = \"Ice\";\n",
        ),
        ("Widget/de.lproj/Widget.stringsdict", "<plist/>"),
        ("Docs/en.lproj/notes.txt", "not a table"),
    ] {
        write_file(dir.path(), file, text);
    }
    let (path, _) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    let settings = Settings::find(Some(&path), dir.path()).unwrap();
    let sets: Vec<(String, Option<String>)> = settings
        .file_sets
        .iter()
        .map(|set| (set.path.clone(), set.namespace.clone()))
        .collect();
    assert_eq!(
        sets,
        [
            (
                "IceCubesActionExtension".to_owned(),
                Some("IceCubesActionExtension".to_owned())
            ),
            (
                "IceCubesApp/Resources/Localization".to_owned(),
                Some("IceCubesApp".to_owned())
            ),
            ("Widget".to_owned(), Some("Widget".to_owned())),
        ]
    );
}

#[test]
fn an_android_flavour_with_strings_in_another_file_of_values_is_a_module() {
    // Wikipedia's `alpha` flavour keeps its `app_name` in `strings_no_translate.xml`.
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        ("app/src/main/res/values/strings.xml", "<resources/>"),
        (
            "app/src/alpha/res/values/strings_no_translate.xml",
            "<resources>\n    <string name=\"app_name\" translatable=\"false\">W</string>\n</resources>\n",
        ),
        ("app/src/beta/res/values/colors.xml", "<resources/>"),
    ] {
        write_file(dir.path(), file, text);
    }
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/mobile", false).unwrap();
    assert_eq!(
        found,
        ["android-xml: app/src/alpha/res", "android-xml: app/src/main/res"]
    );
}

#[test]
fn csv_translation_tables_are_found_file_by_file() {
    // Godot's table, Blender's, and a CSV that is no translation table.
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        (
            "translations/translations.csv",
            "\"\",\"en\",\"de\"\r\n\"YES\",\"YES\",\"JA\"\r\n",
        ),
        ("resources/translations.csv", "name,en_US,ja_JP\nA,a,\n"),
        ("data/prices.csv", "id,name,price\n1,apple,3\n"),
        // TM:PE's tables, one named so that it could pass for a language with a subtag.
        (
            "mod/Translations/AI_Car.csv",
            "\"\",\"de\",\"en\"\n\"Label\",\"Fährt\",\"Drives\"\n",
        ),
        (
            "mod/Translations/AI_Citizen.csv",
            "\"\",\"de\",\"en\"\n\"Label\",\"Steigt ein\",\"Enters\"\n",
        ),
        (
            "mod/Translations/Menu.csv",
            "\"\",\"de\",\"en\"\n\"Menu\",\"Menü\",\"Menu\"\n",
        ),
        // OpenVic's table with Godot's `;` delimiter.
        ("game/helpers.csv", "keys;en;fr\nHELLO;Hello;Bonjour\n"),
    ] {
        write_file(dir.path(), file, text);
    }
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/game", false).unwrap();
    assert_eq!(
        found,
        [
            "csv-table: game/helpers.csv",
            "csv-table: mod/Translations/AI_Car.csv",
            "csv-table: mod/Translations/AI_Citizen.csv",
            "csv-table: mod/Translations/Menu.csv",
            "csv-table: resources/translations.csv",
            "csv-table: translations/translations.csv"
        ]
    );
}

#[test]
fn kodis_language_folders_are_one_po_set() {
    // A Kodi add-on: `resource.language.{locale}/strings.po`, Serbian's with a modifier.
    let dir = tempfile::tempdir().unwrap();
    for locale in ["en_gb", "de_de", "sr_rs@latin"] {
        let file = format!("resources/language/resource.language.{locale}/strings.po");
        write_file(dir.path(), &file, "msgid \"\"\nmsgstr \"\"\n");
    }
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/addon", false).unwrap();
    assert_eq!(found, ["po: resources/language/resource.language.{lang}/strings.po"]);
}

#[test]
fn folders_of_files_named_by_language_are_namespaces_not_languages() {
    // Folo: `locales/{ns}/{lang}.json`, whose namespace folders `ai/`, `app/` are shaped like
    // language codes; beside an i18next app's `public/locales/{lang}/{ns}.json`.
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "locales/ai/en.json",
        "locales/ai/ja.json",
        "locales/app/en.json",
        "locales/app/ja.json",
        "public/locales/en/common.json",
        "public/locales/de/common.json",
    ] {
        write_file(dir.path(), file, "{}");
    }
    let (_, found) = init(dir.path(), "http://localhost:8080", "acme/web", false).unwrap();
    assert_eq!(
        found,
        [
            "json: locales/ai/{lang}.json",
            "json: locales/app/{lang}.json",
            "json: public/locales/{lang}/{ns}.json"
        ]
    );
}

#[test]
fn a_lone_other_suffix_is_no_i18next_plural() {
    // Formbricks' `add_other` ("Add Other") beside `add`: its plurals are ICU messages.
    assert!(!super::super::domains::has_plural_pair(
        "{\"add\": \"Add\", \"add_other\": \"Add Other\"}"
    ));
    assert!(super::super::domains::has_plural_pair(
        "{\"rows_one\": \"a row\",\n  \"rows_other\" : \"rows\"}"
    ));
    // A nested plural key's forms are named by their last part.
    assert!(super::super::domains::has_plural_pair(
        "{\"list\": {\"item_other\": \"items\", \"item_few\": \"x\"}}"
    ));
}
