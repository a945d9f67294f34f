//! Real apps across platforms (issue #54): a real Android app's strings exported to Apple and
//! read by GNUstep's own `.strings` parser, and a real iOS app's strings exported to Android
//! and compiled by aapt2; in both, every text with placeholders is formatted by the app's
//! platform from its original file and by the other platform from the export, with the same
//! arguments (typed as the original's placeholders say), and the two must read the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::formatters::{Batch, Platform, Ticket, gnustep_strings};
use crate::helpers::TestApp;
use crate::placeholder_files::{Exported, android_name};
use crate::platforms::{download_export, readback};
use crate::upload::{aapt2_values, zip_of_files};

fn app_folder(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/apps")
        .join(path)
}

/// The printf conversions of a text, `(argument number, conversion)` in order (`%%` is none),
/// or `None` when a `%` starts no conversion (a text that is not a format string).
pub fn printf_conversions(text: &str) -> Option<Vec<(usize, char)>> {
    let chars: Vec<char> = text.chars().collect();
    let mut conversions = Vec::new();
    let mut next = 1;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            i += 1;
            continue;
        }
        i += 1;
        if chars.get(i) == Some(&'%') {
            i += 1;
            continue;
        }
        let start = i;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        let number = if chars.get(i) == Some(&'$') && i > start {
            let number: usize = chars[start..i].iter().collect::<String>().parse().ok()?;
            i += 1;
            number
        } else {
            i = start;
            next += 1;
            next - 1
        };
        while chars
            .get(i)
            .is_some_and(|c| "-+ #0,(".contains(*c) || c.is_ascii_digit() || *c == '.')
        {
            i += 1;
        }
        while chars.get(i).is_some_and(|c| "hlqLzjt".contains(*c)) {
            i += 1;
        }
        let conversion = *chars.get(i)?;
        if !"diouxXfFeEgGaAs@".contains(conversion) {
            return None;
        }
        conversions.push((number, conversion));
        i += 1;
    }
    Some(conversions)
}

/// Sample arguments for conversions: a whole number for an integer conversion, 2.4567 for a
/// float, a word for a string or object; one per argument number up to the highest.
fn sample_arguments(conversions: &[(usize, char)]) -> Value {
    let highest = conversions.iter().map(|(number, _)| *number).max().unwrap_or(0);
    (1..=highest)
        .map(|number| {
            match conversions
                .iter()
                .find(|(used, _)| *used == number)
                .map(|(_, conversion)| *conversion)
            {
                Some(c) if "diouxX".contains(c) => json!(6 + number),
                // Not a tie at any precision: C rounds a tie to even, Java's Formatter up.
                Some(c) if "fFeEgGaA".contains(c) => json!(2.4567),
                _ => json!(format!("word{number}")),
            }
        })
        .collect()
}

/// A text per name, or plural forms, in one language.
type Texts = BTreeMap<String, Exported>;

/// The comparisons of one app: texts for the formatters, both sides of each comparison,
/// failures found, and plural forms passed over.
#[derive(Default)]
struct Comparison {
    batch: Batch,
    compared: Vec<Compared>,
    failures: Vec<String>,
    skipped_forms: usize,
}

/// Both sides of a comparison: the original text's answer and the export's.
struct Compared {
    label: String,
    original: Ticket,
    exported: Ticket,
}

/// Adds each text with placeholders of `original` (one language) and its counterpart in
/// `exported` to the batch; a text missing from the export is a failure.
fn compare_language(
    label: &str,
    (from, original): (Platform, &Texts),
    (to, exported): (Platform, &Texts),
    exported_name: &dyn Fn(&str) -> String,
    comparison: &mut Comparison,
) {
    let Comparison {
        batch,
        compared,
        failures,
        skipped_forms,
    } = comparison;
    for (name, text) in original {
        let texts: Vec<(String, String)> = match text {
            Exported::Text(text) | Exported::Styled(text, _) => vec![(String::new(), text.clone())],
            Exported::Forms(forms) => forms
                .iter()
                .map(|(category, form)| (category.clone(), form.clone()))
                .collect(),
        };
        // The arguments of a plural key are those of all its forms: an app passes them all.
        let Some(conversions) = texts
            .iter()
            .map(|(_, text)| printf_conversions(text))
            .collect::<Option<Vec<_>>>()
            .map(|all| all.concat())
        else {
            continue;
        };
        if conversions.is_empty() {
            continue;
        }
        let args = sample_arguments(&conversions);
        let counterpart = exported.get(&exported_name(name));
        for (category, text) in texts {
            if text.is_empty() {
                continue;
            }
            // A plural form that leaves out an argument of its key (`%2$s has a new episode`):
            // Apple takes the count's type from the stringsdict, but GNUstep's formatter, given
            // the form alone, cannot step over an argument of unknown type. Not compared.
            let used: Vec<usize> = printf_conversions(&text)
                .unwrap_or_default()
                .iter()
                .map(|(n, _)| *n)
                .collect();
            let highest = conversions.iter().map(|(number, _)| *number).max().unwrap_or(0);
            if [from, to].contains(&Platform::Foundation) && (1..=highest).any(|n| !used.contains(&n)) {
                *skipped_forms += 1;
                continue;
            }
            let exported_text = match (counterpart, category.as_str()) {
                (Some(Exported::Text(text) | Exported::Styled(text, _)), "") => text.clone(),
                (Some(Exported::Forms(forms)), category) if forms.contains_key(category) => forms[category].clone(),
                _ => {
                    failures.push(format!(
                        "{label} {name} {category}: not in the export ({counterpart:?})"
                    ));
                    continue;
                }
            };
            if to == Platform::Foundation && uses_c_string(&exported_text) {
                failures.push(format!(
                    "{label} {name} {category}: a string argument as a C string `%s`: {exported_text:?}"
                ));
            }
            compared.push(Compared {
                label: format!("{label} {name} {category}: {text:?} -> {exported_text:?}"),
                original: batch.add(from, json!(text), args.clone(), None),
                exported: batch.add(to, json!(exported_text), args.clone(), None),
            });
        }
    }
}

/// Whether a text passes an argument with `%s`: a C string on Apple, never what an app that
/// formats a Swift `String` or an `NSString` passes.
fn uses_c_string(text: &str) -> bool {
    printf_conversions(text).is_some_and(|conversions| conversions.iter().any(|(_, c)| *c == 's'))
}

/// Runs the batch: texts the original platform refuses are not format strings of the app (and
/// are skipped); the others must read the same from the export. Answers (compared, skipped).
fn judge(comparison: &mut Comparison) -> (usize, usize) {
    let batch = std::mem::take(&mut comparison.batch);
    let compared = std::mem::take(&mut comparison.compared);
    let failures = &mut comparison.failures;
    let answers = batch.run();
    let (mut same, mut skipped) = (0, 0);
    for pair in compared {
        let Ok(original) = answers.get(pair.original) else {
            skipped += 1;
            continue;
        };
        match answers.get(pair.exported) {
            Ok(exported) if exported == original => same += 1,
            answer => failures.push(format!("{}: {original:?} formatted, {answer:?} exported", pair.label)),
        }
    }
    (same, skipped)
}

async fn project(app: &TestApp) {
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects",
        json!({"name": "mobile", "displayName": "Mobile", "languagesISO": ["en"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
}

/// Uploads files laid out as an export of `format` (adding their languages) and answers each
/// uploaded path's language.
async fn upload(app: &TestApp, format: &str, files: &[(String, Vec<u8>)]) -> BTreeMap<String, String> {
    upload_naming_passed_over(app, format, files).await.0
}

/// [`upload`], and the (key, language) of each entry the upload passed over with a warning
/// (kept in the app's file, so in no export: BookPlayer's Romanian plurals whose `other` form
/// is empty).
async fn upload_naming_passed_over(
    app: &TestApp,
    format: &str,
    files: &[(String, Vec<u8>)],
) -> (BTreeMap<String, String>, std::collections::BTreeSet<(String, String)>) {
    let reply = app
        .post_bytes(
            &format!("/teams/acme/projects/mobile/files?type={format}&addLanguages=true"),
            "application/zip",
            zip_of_files(files),
        )
        .await
        .assert_ok(StatusCode::OK);
    let languages = reply["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["path"].as_str().unwrap().to_owned(),
                file["language"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let passed_over = reply["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|warning| {
            Some((
                warning["key"].as_str()?.to_owned(),
                warning["language"].as_str()?.to_owned(),
            ))
        })
        .collect();
    (languages, passed_over)
}

/// Exports every language in `format` into a temporary folder, with the export's warnings.
async fn export(app: &TestApp, format: &str) -> (tempfile::TempDir, Vec<Value>) {
    let query = format!("/teams/acme/projects/mobile/keys/export?type={format}");
    let reply = app.get(&query).await.assert_ok(StatusCode::OK);
    let (_, bytes) = download_export(app, &query).await;
    let dir = tempfile::tempdir().unwrap();
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .unwrap()
        .extract(dir.path())
        .unwrap();
    (dir, reply["warnings"].as_array().cloned().unwrap_or_default())
}

fn android_texts(values: &Value) -> Texts {
    values
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, value)| {
            let exported = match value {
                Value::String(text) => Exported::Text(text.clone()),
                Value::Object(object) if object.contains_key("plural") => Exported::Forms(
                    object["plural"]
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(category, form)| {
                            let text = form.as_str().or_else(|| form["text"].as_str()).unwrap();
                            (category.clone(), text.to_owned())
                        })
                        .collect(),
                ),
                Value::Object(object) => Exported::Text(object["text"].as_str().unwrap().to_owned()),
                other => panic!("aapt2 read {other}"),
            };
            (name.clone(), exported)
        })
        .collect()
}

/// A `.lproj` folder's texts as Apple's platform reads them: `Localizable.strings` by GNUstep's
/// own parser (which must read it), `Localizable.stringsdict`'s forms by plistlib.
fn apple_texts(lproj: &Path) -> Result<Texts, String> {
    let mut texts = Texts::new();
    let strings = lproj.join("Localizable.strings");
    if strings.is_file() {
        let read = gnustep_strings(&[strings]).remove(0)?;
        texts.extend(read.into_iter().map(|(name, text)| (name, Exported::Text(text))));
    }
    let dict = lproj.join("Localizable.stringsdict");
    if dict.is_file() {
        for (name, entry) in readback("plist", &dict).as_object().unwrap() {
            let format = entry["NSStringLocalizedFormatKey"].as_str().unwrap_or_default();
            let Some(variable) = format.split("%#@").nth(1).and_then(|rest| rest.split('@').next()) else {
                continue;
            };
            let forms = entry[variable]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(category, _)| ["zero", "one", "two", "few", "many", "other"].contains(&category.as_str()))
                .map(|(category, form)| (category.clone(), form.as_str().unwrap_or_default().to_owned()))
                .collect();
            texts.insert(name.clone(), Exported::Forms(forms));
        }
    }
    Ok(texts)
}

/// The folder of `dir` whose name is `language` in the export's spelling (`pt-BR.lproj`).
fn lproj_of(dir: &Path, language: &str) -> PathBuf {
    dir.join(format!("{}.lproj", language.replace('_', "-")))
}

#[tokio::test]
async fn a_real_android_apps_strings_exported_to_apple_are_read_by_gnustep_and_format_the_same() {
    // AntennaPod's strings: its ui/i18n module holds every text of the app, in 12 languages.
    let res = app_folder("android/antennapod/ui/i18n/src/main/res");
    let mut files = Vec::new();
    for folder in std::fs::read_dir(&res).unwrap() {
        let folder = folder.unwrap().path();
        let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
        for file in std::fs::read_dir(&folder).unwrap() {
            let file = file.unwrap().path();
            let path = format!("{name}/{}", file.file_name().unwrap().to_str().unwrap());
            files.push((path, std::fs::read(&file).unwrap()));
        }
    }
    files.sort();
    let app = TestApp::spawn().await;
    project(&app).await;
    let languages = upload(&app, "android-xml", &files).await;
    let (exported, _warnings) = export(&app, "apple-strings").await;

    let work = tempfile::tempdir().unwrap();
    let mut comparison = Comparison::default();
    let base = android_texts(&aapt2_values(&res.join("values"), work.path(), "values"));
    for (path, language) in &languages {
        let folder = path.split('/').next().unwrap();
        let mut original = android_texts(&aapt2_values(&res.join(folder), work.path(), folder));
        // A translation that is a <string> where the base has <plurals> (zh-rCN's
        // mobile_download_notice) is passed over by the upload, as the contract says.
        original.retain(|name, text| {
            base.get(name)
                .is_none_or(|base| matches!(base, Exported::Forms(_)) == matches!(text, Exported::Forms(_)))
        });
        let apple = match apple_texts(&lproj_of(exported.path(), language)) {
            Ok(texts) => texts,
            Err(error) => {
                comparison
                    .failures
                    .push(format!("{language}: GNUstep cannot read the exported strings: {error}"));
                continue;
            }
        };
        compare_language(
            language,
            (Platform::Java, &original),
            (Platform::Foundation, &apple),
            &|name| name.to_owned(),
            &mut comparison,
        );
    }
    let (same, skipped) = judge(&mut comparison);
    let failures = comparison.failures;
    eprintln!(
        "AntennaPod -> Apple: {same} texts format the same; {skipped} not format strings in Java; {} plural forms leave out an argument",
        comparison.skipped_forms
    );
    assert!(same > 100, "too few texts with placeholders compared: {same}");
    assert!(
        failures.is_empty(),
        "{} of AntennaPod's texts differ on Apple:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[tokio::test]
async fn a_real_ios_apps_strings_exported_to_android_compile_in_aapt2_and_format_the_same() {
    // BookPlayer's main table, `Localizable.strings` and `.stringsdict`, in every language.
    let root = app_folder("apple-strings/bookplayer/BookPlayer");
    let mut files = Vec::new();
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        let name = folder.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".lproj") || name == "Base.lproj" {
            continue;
        }
        for table in ["Localizable.strings", "Localizable.stringsdict"] {
            if folder.join(table).is_file() {
                files.push((format!("{name}/{table}"), std::fs::read(folder.join(table)).unwrap()));
            }
        }
    }
    files.sort();
    let app = TestApp::spawn().await;
    project(&app).await;
    let (languages, passed_over) = upload_naming_passed_over(&app, "apple-strings", &files).await;
    let (exported, _warnings) = export(&app, "android-xml").await;

    let work = tempfile::tempdir().unwrap();
    let mut comparison = Comparison::default();
    let mut done = std::collections::BTreeSet::new();
    for language in languages.values() {
        if !done.insert(language.clone()) {
            continue;
        }
        let mut original = apple_texts(&root.join(format!("{language}.lproj"))).expect("GNUstep reads the original");
        original.retain(|name, _| !passed_over.contains(&(name.clone(), language.clone())));
        let folder = if language == "en" {
            "values".to_owned()
        } else {
            android_folder(language)
        };
        // aapt2 compiles and links the exported folder: the app builds.
        let android = android_texts(&aapt2_values(&exported.path().join(&folder), work.path(), &folder));
        compare_language(
            language,
            (Platform::Foundation, &original),
            (Platform::Java, &android),
            &|name| android_name(name),
            &mut comparison,
        );
    }
    let (same, skipped) = judge(&mut comparison);
    let failures = comparison.failures;
    eprintln!(
        "BookPlayer -> Android: {same} texts format the same; {skipped} not format strings in Foundation; {} plural forms leave out an argument",
        comparison.skipped_forms
    );
    assert!(same > 50, "too few texts with placeholders compared: {same}");
    assert!(
        failures.is_empty(),
        "{} of BookPlayer's texts differ on Android:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// The values folder of a language, as the Android export names it (contract: "Export").
fn android_folder(language: &str) -> String {
    let parts: Vec<&str> = language.split(['-', '_']).collect();
    match parts.as_slice() {
        [language] => format!("values-{language}"),
        [language, region] if region.len() == 2 => format!("values-{language}-r{}", region.to_uppercase()),
        _ => format!("values-b+{}", parts.join("+")),
    }
}
