//! The proof of "One project, every platform" (contract, issue #54): for every source syntax an
//! upload brings and every export format, texts with the hard cases (numbered, repeated and
//! reordered arguments in the translation, `%%`, a literal `{`, an apostrophe, a placeholder in
//! a plural form, markup around a placeholder, `%.2f`) are formatted by the source platform's own
//! formatter and, exported, by the target platform's, with the same sample arguments, and the
//! two must read the same. Formats without a placeholder syntax of their own (JSON, CSV, XLIFF,
//! and PO entries without a format flag) must keep the text as stored; a placeholder the target
//! cannot write must be named in the export's `warnings`.
//!
//! One test per source syntax; each starts every formatter once ([`Batch`]) for all ten formats.
//! A failure lists every pair that differs, with both texts.

use std::collections::BTreeMap;

use poem::http::StatusCode;
use serde_json::{Value, json};

use crate::formatters::{Batch, Platform, Ticket};
use crate::helpers::TestApp;
use crate::placeholder_cases::{
    Arg, Case, Source, android, apple, c_format, i18next, icu, python_brace, python_format, rails,
};
use crate::placeholder_files::{Export, Exported, SourceKey, Text, read_export};
use crate::platforms::{download_export, icu_plural_forms};
use crate::upload::zip_of_files;

/// The ten export formats.
pub const TARGETS: [&str; 10] = [
    "json",
    "csv",
    "android-xml",
    "apple-strings",
    "xcstrings",
    "i18next",
    "po",
    "arb",
    "xliff",
    "yaml",
];

// ----- The proof -----

fn category(count: i64) -> &'static str {
    if count == 1 { "one" } else { "other" }
}

/// The sample arguments as `platform` takes them: by position in the order of first appearance,
/// or by name (`arg1`... for numbered sources), with `count` beside them in a plural.
fn arguments(platform: Platform, case: &Case, count: Option<i64>) -> Value {
    let value = |arg: Arg| match arg {
        Arg::Str(text) => json!(text),
        Arg::Int(number) => json!(number),
        Arg::Float(number) => json!(number),
        Arg::Count => json!(count.expect("a count argument in a plural")),
    };
    if platform.positional() {
        return case.args.iter().map(|(_, arg)| value(*arg)).collect();
    }
    let mut named: serde_json::Map<String, Value> = case
        .args
        .iter()
        .map(|(name, arg)| ((*name).to_owned(), value(*arg)))
        .collect();
    if let Some(count) = count {
        named.entry("count").or_insert(json!(count));
    }
    Value::Object(named)
}

/// Adds the formatting of a text (one string, forms, or a whole ICU plural message) to the batch.
fn add(batch: &mut Batch, platform: Platform, case: &Case, text: &Text, count: Option<i64>) -> Result<Ticket, String> {
    let args = arguments(platform, case, count);
    match text {
        Text::One(text) => Ok(batch.add(platform, json!(text), args, count)),
        Text::Forms(forms) if platform.picks_plural_forms() => Ok(batch.add(platform, json!(forms), args, count)),
        Text::Forms(forms) => {
            let category = category(count.expect("a plural is formatted with a count"));
            let form = forms
                .get(category)
                .ok_or_else(|| format!("no `{category}` form in {forms:?}"))?;
            Ok(batch.add(platform, json!(form), args, count))
        }
    }
}

fn strip_tags(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The target's platform, or `None` when the format keeps texts as stored (JSON, CSV, XLIFF,
/// and PO entries whose flags name no syntax).
fn target_platform(target: &str, flags: &[String]) -> Option<Platform> {
    match target {
        "android-xml" => Some(Platform::Java),
        "apple-strings" | "xcstrings" => Some(Platform::Foundation),
        "i18next" => Some(Platform::I18next),
        "arb" => Some(Platform::Icu),
        "yaml" => Some(Platform::Rails),
        "po" => flags.iter().find_map(|flag| match flag.as_str() {
            "c-format" | "objc-format" => Some(Platform::Foundation),
            "python-format" => Some(Platform::PythonPercent),
            "python-brace-format" => Some(Platform::PythonBrace),
            "java-format" | "java-printf-format" => Some(Platform::Java),
            _ => None,
        }),
        _ => None,
    }
}

/// One comparison: what the source's formatter gave and what the target's must give.
struct Pair {
    target: &'static str,
    case: usize,
    language: &'static str,
    count: Option<i64>,
    expected: Ticket,
    actual: Ticket,
}

/// Counts of the proof of one source, for the test's output and its assertion.
#[derive(Default)]
struct Outcome {
    equal: usize,
    warned: Vec<String>,
    failures: Vec<String>,
}

/// Uploads the source's texts, exports them in every format, formats both sides and compares.
/// A project in `en` and `fr` holding the source's cases, uploaded as the source's files:
/// the app, each case's key name, and each key's translations as the server holds them.
/// A server with the team `acme` and its project `mobile` in English and French.
async fn app_with_project() -> TestApp {
    let app = TestApp::spawn().await;
    app.post("/teams", json!({"name": "acme", "displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects",
        json!({"name": "mobile", "displayName": "Mobile", "languagesISO": ["en", "fr"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app
}

async fn upload_source(source: &Source) -> (TestApp, Vec<String>, BTreeMap<String, Value>) {
    let app = app_with_project().await;

    let name_of = |case: &Case| -> String {
        match (&case.en, source.keyed_by_text) {
            (_, false) => case.id.to_owned(),
            (Text::One(text), true) => text.clone(),
            (Text::Forms(forms), true) => forms["one"].clone(),
        }
    };
    let names: Vec<String> = source.cases.iter().map(name_of).collect();
    let keys: Vec<SourceKey> = source
        .cases
        .iter()
        .zip(&names)
        .map(|(case, name)| SourceKey {
            name,
            texts: vec![("en", &case.en), ("fr", &case.fr)],
        })
        .collect();
    let files = (source.files)(&keys);
    let reply = app
        .post_bytes(
            &format!("/teams/acme/projects/mobile/files?type={}", source.upload_type),
            "application/zip",
            zip_of_files(&files),
        )
        .await;
    let upload = reply.assert_ok(StatusCode::OK);
    let stored: BTreeMap<String, Value> = app
        .every_key("")
        .await
        .into_iter()
        .map(|key| (key["name"].as_str().unwrap().to_owned(), key["translation"].clone()))
        .collect();
    for name in &names {
        assert!(
            stored.contains_key(name),
            "the upload made no key {name:?}: {upload}\nkeys: {stored:?}"
        );
    }
    (app, names, stored)
}

async fn prove(source: Source) {
    let (app, names, stored) = upload_source(&source).await;

    let mut batch = Batch::default();
    let mut pairs = Vec::new();
    let mut outcome = Outcome::default();
    let mut warnings_of: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let work = tempfile::tempdir().unwrap();
    for target in TARGETS {
        let (export, warnings) = export_of(&app, target, work.path()).await;
        warnings_of.insert(target, warnings.clone());
        let named_in_warning = |name: &str| warnings.iter().any(|warning| warning.to_string().contains(name));
        // The forms of the ICU plural cells that CSV and XLIFF write for plural keys.
        let cells = plural_cells(&export, target, &source, &names);
        for (index, case) in source.cases.iter().enumerate() {
            let name = &names[index];
            let label = format!("{} -> {target}: {}", source.label, case.id);
            if target == "arb" {
                check_arb_declarations(&mut outcome, &label, &export, name);
            }
            if case.markup && target == "apple-strings" && !named_in_warning(name) {
                outcome
                    .failures
                    .push(format!("{label}: markup stripped without a warning ({warnings:?})"));
            }
            for (language, text) in [("en", &case.en), ("fr", &case.fr)] {
                let Some(exported) = export.find(language, name) else {
                    outcome
                        .failures
                        .push(format!("{label} [{language}]: not in the export"));
                    continue;
                };
                let platform = target_platform(target, export.flags_of(name));
                let exported: Text = match exported {
                    Exported::Text(text) if case.plural && platform.is_none() && source.platform != Platform::Icu => {
                        match cells.get(&(language, name.clone())) {
                            Some(forms) => Text::Forms(forms.clone()),
                            None => Text::One(text.clone()),
                        }
                    }
                    Exported::Text(text) => Text::One(text.clone()),
                    Exported::Forms(forms) => Text::Forms(forms.clone()),
                    Exported::Styled(text, spans) => {
                        if case.markup && spans.as_array().is_none_or(Vec::is_empty) {
                            outcome
                                .failures
                                .push(format!("{label} [{language}]: aapt2 read no span"));
                        }
                        Text::One(text.clone())
                    }
                };
                if platform.is_none() {
                    check_stored(&mut outcome, &label, language, &exported, &stored[name][language]);
                }
                if matches!(target, "apple-strings" | "xcstrings") && uses_c_string(&exported, case) {
                    outcome.failures.push(format!(
                        "{label} [{language}]: a string argument as a C string `%s`: {exported:?}"
                    ));
                }
                let platform = platform.unwrap_or(source.platform);
                let counts: &[Option<i64>] = if case.plural { &[Some(1), Some(5)] } else { &[None] };
                for count in counts {
                    let expected = add(&mut batch, source.platform, case, text, *count).unwrap();
                    match add(&mut batch, platform, case, &exported, *count) {
                        Ok(actual) => pairs.push(Pair {
                            target,
                            case: index,
                            language,
                            count: *count,
                            expected,
                            actual,
                        }),
                        Err(error) => outcome.failures.push(format!("{label} [{language}]: {error}")),
                    }
                }
            }
        }
    }

    let answers = batch.run();
    for pair in pairs {
        let case = &source.cases[pair.case];
        let name = &names[pair.case];
        let label = format!(
            "{} -> {}: {} [{}{}]",
            source.label,
            pair.target,
            case.id,
            pair.language,
            pair.count.map(|count| format!(", count {count}")).unwrap_or_default()
        );
        let expected = answers.get(pair.expected);
        let actual = answers.get(pair.actual);
        let expected = match expected {
            Ok(text) => text,
            Err(error) => {
                outcome
                    .failures
                    .push(format!("{label}: the source's own formatter refused its text: {error}"));
                continue;
            }
        };
        let same = match &actual {
            Ok(actual) if case.markup => strip_tags(actual) == strip_tags(&expected),
            Ok(actual) => *actual == expected,
            Err(_) => false,
        };
        if case.markup && matches!(pair.target, "i18next" | "arb") {
            if let Ok(actual) = &actual {
                if !actual.contains(">Ana</") {
                    outcome.failures.push(format!(
                        "{label}: the markup around the placeholder is lost: {actual:?}"
                    ));
                }
            }
        }
        // Every target writes plural forms and the placeholders in them (`<plurals>`, a
        // stringsdict, `key_one`, a YAML mapping, ICU): a plural is never a text a target has
        // "no way to write", so a warning does not excuse it.
        let warned = !case.plural
            && warnings_of[pair.target]
                .iter()
                .any(|warning| warning.to_string().contains(name.as_str()));
        match (same, warned) {
            (true, _) => outcome.equal += 1,
            (false, true) => outcome.warned.push(format!("{label}: {expected:?} vs {actual:?}")),
            (false, false) => outcome
                .failures
                .push(format!("{label}: {expected:?} formatted, {actual:?} exported")),
        }
    }
    eprintln!(
        "{}: {} texts format the same, {} differ with a warning:\n  {}",
        source.label,
        outcome.equal,
        outcome.warned.len(),
        outcome.warned.join("\n  ")
    );
    assert!(
        outcome.failures.is_empty(),
        "{} of the {} source's pairs fail:\n  {}",
        outcome.failures.len(),
        source.label,
        outcome.failures.join("\n  ")
    );
}

/// Exports every language in `target`, reads the files back and answers the export's warnings.
async fn export_of(app: &TestApp, target: &str, work: &std::path::Path) -> (Export, Vec<Value>) {
    export_with(app, target, "", work).await
}

/// [`export_of`] with more parameters (`&placeholders=keep`).
async fn export_with(app: &TestApp, target: &str, parameters: &str, work: &std::path::Path) -> (Export, Vec<Value>) {
    let query = format!("/teams/acme/projects/mobile/keys/export?type={target}{parameters}");
    let reply = app.get(&query).await.assert_ok(StatusCode::OK);
    let warnings = reply["warnings"].as_array().cloned().unwrap_or_default();
    let (name, bytes) = download_export(app, &query).await;
    let dir = tempfile::tempdir_in(work).unwrap();
    if name.ends_with(".zip") || bytes.starts_with(b"PK\x03\x04") {
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        archive.extract(dir.path()).unwrap();
    } else {
        std::fs::write(dir.path().join(&name), bytes).unwrap();
    }
    (read_export(target, dir.path(), work), warnings)
}

/// The forms of each plural key's ICU message in a CSV or XLIFF export, read by FormatJS's
/// parser, by (language, key name).
fn plural_cells(
    export: &Export,
    target: &str,
    source: &Source,
    names: &[String],
) -> BTreeMap<(&'static str, String), BTreeMap<String, String>> {
    if !matches!(target, "csv" | "xliff") || source.platform == Platform::Icu {
        return BTreeMap::new();
    }
    let mut wanted = Vec::new();
    for (case, name) in source.cases.iter().zip(names) {
        for language in ["en", "fr"] {
            if let (true, Some(Exported::Text(message))) = (case.plural, export.find(language, name)) {
                wanted.push(((language, name.clone()), message.clone()));
            }
        }
    }
    let messages: Vec<String> = wanted.iter().map(|(_, message)| message.clone()).collect();
    let forms = if messages.is_empty() {
        Vec::new()
    } else {
        icu_plural_forms(&messages)
    };
    wanted
        .into_iter()
        .zip(forms)
        .map(|((at, _), forms)| (at, serde_json::from_value(forms).unwrap()))
        .collect()
}

/// An ARB template declares each argument of a message in `@key.placeholders`, with a type.
fn check_arb_declarations(outcome: &mut Outcome, label: &str, export: &Export, name: &str) {
    let Some(Exported::Text(message)) = export.find("en", name) else {
        return;
    };
    let declared = export.arb_metadata.get(name).map(|metadata| &metadata["placeholders"]);
    for argument in icu_arguments(message) {
        match declared.map(|declared| &declared[&argument]) {
            Some(Value::Object(placeholder)) if placeholder.get("type").is_some_and(Value::is_string) => {}
            _ => outcome.failures.push(format!(
                "{label}: `{argument}` of {message:?} is not declared with a type: {declared:?}"
            )),
        }
    }
}

/// The argument names of an ICU message (the plural's own included), read with ICU's quoting:
/// `''` is an apostrophe, and an apostrophe before `{`, `}` or `#` quotes up to the next one.
fn icu_arguments(message: &str) -> Vec<String> {
    let chars: Vec<char> = message.chars().collect();
    let mut names = Vec::new();
    let mut i = 0;
    // What each open brace opened: an argument whose name is being read, the rest of an
    // argument (`, plural, one {...}`), or a submessage of it.
    enum Open {
        Name(String),
        Style,
        Message,
    }
    let mut stack: Vec<Open> = Vec::new();
    while i < chars.len() {
        match (chars[i], stack.last_mut()) {
            ('\'', _) if chars.get(i + 1) == Some(&'\'') => i += 1,
            ('\'', _) if matches!(chars.get(i + 1), Some('{' | '}' | '#' | '|')) => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            ('{', Some(Open::Style)) => stack.push(Open::Message),
            ('{', _) => stack.push(Open::Name(String::new())),
            (',', Some(Open::Name(name))) => {
                names.push(name.trim().to_owned());
                *stack.last_mut().unwrap() = Open::Style;
            }
            ('}', Some(Open::Name(name))) => {
                names.push(name.trim().to_owned());
                stack.pop();
            }
            ('}', _) => {
                stack.pop();
            }
            (c, Some(Open::Name(name))) => name.push(c),
            _ => {}
        }
        i += 1;
    }
    names.sort();
    names.dedup();
    names
}

/// A format that keeps texts as stored must write what the server holds.
fn check_stored(outcome: &mut Outcome, label: &str, language: &str, exported: &Text, stored: &Value) {
    let same = match (exported, stored) {
        (Text::One(text), Value::String(stored)) => text == stored,
        (Text::Forms(forms), Value::Object(stored)) => {
            forms.len() == stored.len() && forms.iter().all(|(category, form)| stored[category] == json!(form))
        }
        _ => false,
    };
    if !same {
        outcome.failures.push(format!(
            "{label} [{language}]: not kept as stored: {exported:?}, stored {stored}"
        ));
    }
}

/// Whether an Apple text passes a string argument with `%s` (a C string: what a Swift `String`
/// is not).
fn uses_c_string(text: &Text, case: &Case) -> bool {
    let texts: Vec<&String> = match text {
        Text::One(text) => vec![text],
        Text::Forms(forms) => forms.values().collect(),
    };
    let has_string_argument = case.args.iter().any(|(_, arg)| matches!(arg, Arg::Str(_)));
    has_string_argument
        && texts.iter().any(|text| {
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '%' {
                    continue;
                }
                let mut conversion = String::new();
                while let Some(&next) = chars.peek() {
                    chars.next();
                    if next.is_ascii_alphabetic() && !"hlqLzjt".contains(next) || next == '%' || next == '@' {
                        conversion.push(next);
                        break;
                    }
                }
                if conversion == "s" {
                    return true;
                }
            }
            false
        })
}

#[tokio::test]
async fn an_export_with_placeholders_keep_writes_every_text_as_stored() {
    // Android texts, kept as printf in every format: what `placeholders=keep` promises.
    let source = android();
    let (app, names, stored) = upload_source(&source).await;
    let work = tempfile::tempdir().unwrap();
    let mut outcome = Outcome::default();
    for target in TARGETS {
        let (export, _) = export_with(&app, target, "&placeholders=keep", work.path()).await;
        for (case, name) in source.cases.iter().zip(&names) {
            // Plural keys are ICU messages in some formats, and markup is Android's own: the
            // texts compared are the plain ones.
            if case.plural || case.markup {
                continue;
            }
            for language in ["en", "fr"] {
                let label = format!("keep -> {target}: {}", case.id);
                match export.find(language, name) {
                    Some(Exported::Text(text)) => check_stored(
                        &mut outcome,
                        &label,
                        language,
                        &Text::One(text.clone()),
                        &stored[name][language],
                    ),
                    other => outcome.failures.push(format!("{label} [{language}]: {other:?}")),
                }
            }
        }
    }
    assert!(
        outcome.failures.is_empty(),
        "texts not kept as stored:\n  {}",
        outcome.failures.join("\n  ")
    );
}

#[test]
fn icu_arguments_are_read_with_icus_quoting() {
    assert_eq!(
        icu_arguments("{count, plural, one {# file in {city}} other {# files in '{'{city}'}'}} for {name}, don't"),
        ["city", "count", "name"]
    );
    assert_eq!(icu_arguments("Use '{braces}' or it''s {n, number}"), ["n"]);
}

#[tokio::test]
async fn android_printf_texts_format_the_same_in_every_export() {
    prove(android()).await;
}

#[tokio::test]
async fn apple_texts_format_the_same_in_every_export() {
    prove(apple()).await;
}

#[tokio::test]
async fn arb_icu_texts_format_the_same_in_every_export() {
    prove(icu()).await;
}

#[tokio::test]
async fn i18next_texts_format_the_same_in_every_export() {
    prove(i18next()).await;
}

#[tokio::test]
async fn rails_texts_format_the_same_in_every_export() {
    prove(rails()).await;
}

#[tokio::test]
async fn gettext_python_format_texts_format_the_same_in_every_export() {
    prove(python_format()).await;
}

#[tokio::test]
async fn gettext_python_brace_format_texts_format_the_same_in_every_export() {
    prove(python_brace()).await;
}

#[tokio::test]
async fn gettext_c_format_texts_format_the_same_in_every_export() {
    prove(c_format()).await;
}

/// An ARB plural with ICU's exact values (`=0`, `=1`, as Flutter apps write them) exported to
/// formats that only have CLDR's categories: `=1` becomes `one` where `one` is exactly 1
/// (English), every other exact value is left out of the forms, and the export's answer names
/// each one left out, by key and language. The ARB export writes the message as stored.
#[tokio::test]
async fn icu_exact_values_go_where_a_format_has_them_and_are_named_where_it_has_not() {
    let app = app_with_project().await;
    let en = "{count, plural, =0{No items} =1{One item} other{{count} items}}";
    let fr = "{count, plural, =0{Aucun élément} =1{Un élément} one{{count} élément} other{{count} éléments}}";
    let files = vec![
        (
            "lib/l10n/app_en.arb".to_owned(),
            serde_json::to_vec_pretty(&json!({
                "@@locale": "en",
                "title": "Items",
                "items": en,
                "@items": {"placeholders": {"count": {"type": "int"}}}
            }))
            .unwrap(),
        ),
        (
            "lib/l10n/app_fr.arb".to_owned(),
            serde_json::to_vec_pretty(&json!({"@@locale": "fr", "title": "Éléments", "items": fr})).unwrap(),
        ),
    ];
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=arb",
        "application/zip",
        zip_of_files(&files),
    )
    .await
    .assert_ok(StatusCode::OK);
    let work = tempfile::tempdir().unwrap();

    for target in ["android-xml", "apple-strings", "i18next", "yaml"] {
        let (export, warnings) = export_of(&app, target, work.path()).await;
        let Some(Exported::Forms(english)) = export.find("en", "items") else {
            panic!("{target}: {:?}", export.find("en", "items"));
        };
        let Some(Exported::Forms(french)) = export.find("fr", "items") else {
            panic!("{target}: {:?}", export.find("fr", "items"));
        };
        // English's `one` is exactly 1: `=1` is its `one`. French's `one` also holds 0 and
        // 1.5, so its own `one` stays and its `=1` is left out.
        assert_eq!(english.get("one").map(String::as_str), Some("One item"), "{target}");
        assert!(
            french["one"].contains("élément") && !french["one"].contains("Un élément"),
            "{target}: {french:?}"
        );
        assert!(
            english["other"].contains("items") && french["other"].contains("éléments"),
            "{target}"
        );
        assert!(
            !english
                .values()
                .chain(french.values())
                .any(|form| form.contains("No items") || form.contains("Aucun")),
            "{target}: no category holds `=0`: {english:?} {french:?}"
        );
        let named = |language: &str, case: &str| {
            warnings.iter().any(|warning| {
                warning["key"] == "items"
                    && warning["language"] == language
                    && warning["message"].as_str().unwrap_or_default().contains(case)
            })
        };
        assert!(
            named("en", "=0") && named("fr", "=0") && named("fr", "=1"),
            "{target}: {warnings:?}"
        );
        assert!(
            !named("en", "=1"),
            "{target}: English's `=1` is its `one`: {warnings:?}"
        );
    }

    // ARB has exact values: the messages come back as stored, without a warning.
    let (export, warnings) = export_of(&app, "arb", work.path()).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    for (language, message) in [("en", en), ("fr", fr)] {
        match export.find(language, "items") {
            Some(Exported::Text(text)) => assert_eq!(text, message),
            other => panic!("arb {language}: {other:?}"),
        }
    }
}
