//! The hard cases of the placeholder proof (`placeholder_pairs.rs`), written in each source syntax
//! an upload brings: numbered, repeated and reordered arguments in the translation, `%%` (or
//! the syntax's literal `%`), a literal `{`, an apostrophe, a placeholder in a plural form,
//! Android markup around a placeholder and `%.2f`, with their sample arguments.

use serde_json::json;

use crate::formatters::Platform;
use crate::placeholder_files::{
    SourceKey, Text, android_files, apple_files, arb_files, i18next_files, po_files, rails_files,
};

/// A sample argument, in the order of its first appearance in the base text.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    Str(&'static str),
    Int(i64),
    Float(f64),
    /// A plural's count: the count the test formats with.
    Count,
}

/// A text of the hard cases, as the source platform reads it, in English and French.
pub struct Case {
    pub id: &'static str,
    pub en: Text,
    pub fr: Text,
    /// The arguments by name (named syntaxes) or by number (`arg1`, `arg2`... for numbered ones).
    pub args: Vec<(&'static str, Arg)>,
    /// A plural key (an ICU source holds it as one message, the others as forms).
    pub plural: bool,
    /// Android markup around a placeholder.
    pub markup: bool,
}

/// Writes an upload's files (path, bytes) from its keys.
pub type SourceFiles = Box<dyn Fn(&[SourceKey]) -> Vec<(String, Vec<u8>)>>;

/// A source syntax: the upload that brings it and its platform.
pub struct Source {
    /// The source's name in failures: the upload type, with the PO flag.
    pub label: &'static str,
    pub upload_type: &'static str,
    pub platform: Platform,
    /// Keys named by their English text (gettext), not by the case's id.
    pub keyed_by_text: bool,
    pub cases: Vec<Case>,
    pub files: SourceFiles,
}

fn one(text: &str) -> Text {
    Text::One(text.to_owned())
}

fn forms(one: &str, other: &str) -> Text {
    Text::Forms(
        [
            ("one".to_owned(), one.to_owned()),
            ("other".to_owned(), other.to_owned()),
        ]
        .into(),
    )
}

fn case(id: &'static str, en: Text, fr: Text, args: &[(&'static str, Arg)]) -> Case {
    let plural = matches!(en, Text::Forms(_));
    Case {
        id,
        en,
        fr,
        args: args.to_vec(),
        plural,
        markup: false,
    }
}

const ANA: Arg = Arg::Str("Ana");
const LYON: Arg = Arg::Str("Lyon");

/// The hard cases in a numbered printf syntax; `s` is the string conversion (`s` for Android,
/// `@` for Apple) and `d` the integer one (`d`, `lld`).
fn numbered_cases(s: &str, d: &str) -> Vec<Case> {
    let t = |text: &str| one(&text.replace("{s}", s).replace("{d}", d));
    let f = |first: &str, second: &str| {
        forms(
            &first.replace("{s}", s).replace("{d}", d),
            &second.replace("{s}", s).replace("{d}", d),
        )
    };
    vec![
        case(
            "greeting",
            t("Hello %1${s}, you have %2${d} new messages"),
            t("%2${d} nouveaux messages pour %1${s}"),
            &[("arg1", ANA), ("arg2", Arg::Int(3))],
        ),
        case(
            "repeated",
            t("%1${s} and %1${s} again, then %2${s}"),
            t("%2${s}, puis %1${s} et encore %1${s}"),
            &[("arg1", ANA), ("arg2", LYON)],
        ),
        case(
            "sequential",
            t("%{s} has %{d} files"),
            t("%{s} a %{d} fichiers"),
            &[("arg1", ANA), ("arg2", Arg::Int(3))],
        ),
        case(
            "percent",
            t("%1${d}%% done"),
            t("%1${d} %% terminé"),
            &[("arg1", Arg::Int(42))],
        ),
        case(
            "brace",
            t("Use {braces} or {0} for %1${s}"),
            t("Utilisez {accolades} pour %1${s}"),
            &[("arg1", ANA)],
        ),
        case(
            "apostrophe",
            t("Don't forget %1${s}'s file"),
            // French elides before a placeholder: `d'%1$s` (ICU must double that apostrophe).
            t("N'oubliez pas le fichier d'%1${s}"),
            &[("arg1", ANA)],
        ),
        case(
            "decimal",
            t("%1$.2f km to %2${s}"),
            t("%2${s} à %1$.2f km"),
            &[("arg1", Arg::Float(2.5)), ("arg2", LYON)],
        ),
        case(
            "files",
            f("%1${d} file in %2${s}", "%1${d} files in %2${s}"),
            f("%1${d} fichier dans %2${s}", "%1${d} fichiers dans %2${s}"),
            &[("arg1", Arg::Count), ("arg2", LYON)],
        ),
    ]
}

/// The hard cases in a named syntax, written by `w` from a template where `<name>` is a
/// placeholder (`w` also writes the syntax's literal `%` and `{`).
fn named_cases(w: &dyn Fn(&str) -> String, plural: &dyn Fn(&str, &str) -> Text) -> Vec<Case> {
    let t = |text: &str| one(&w(text));
    vec![
        case(
            "greeting",
            t("Hello <name>, you have <n> new messages"),
            t("<n> nouveaux messages pour <name>"),
            &[("name", ANA), ("n", Arg::Int(3))],
        ),
        case(
            "repeated",
            t("<name> and <name> again, then <city>"),
            t("<city>, puis <name> et encore <name>"),
            &[("name", ANA), ("city", LYON)],
        ),
        case("percent", t("<n>% done"), t("<n> % terminé"), &[("n", Arg::Int(42))]),
        case(
            "brace",
            t("Use {braces} for <name>"),
            t("Utilisez {accolades} pour <name>"),
            &[("name", ANA)],
        ),
        case(
            "apostrophe",
            t("Don't forget <name>'s file"),
            t("N'oubliez pas le fichier d'<name>"),
            &[("name", ANA)],
        ),
        case(
            "files",
            plural("<count> file in <city>", "<count> files in <city>"),
            plural("<count> fichier dans <city>", "<count> fichiers dans <city>"),
            &[("count", Arg::Count), ("city", LYON)],
        ),
    ]
}

/// Replaces each `<name>` of a template with `open` name `close`.
fn fill(template: &str, open: &str, close: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('>').unwrap() + start;
        out.push_str(open);
        out.push_str(&rest[start + 1..end]);
        out.push_str(close);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

pub fn android() -> Source {
    let mut cases = numbered_cases("s", "d");
    let mut markup = case(
        "markup",
        one("Tap <b>%1$s</b> to start"),
        one("Touchez <b>%1$s</b> pour commencer"),
        &[("arg1", ANA)],
    );
    markup.markup = true;
    cases.push(markup);
    Source {
        label: "android-xml",
        upload_type: "android-xml",
        platform: Platform::Java,
        keyed_by_text: false,
        cases,
        files: Box::new(android_files),
    }
}

pub fn apple() -> Source {
    Source {
        label: "apple-strings",
        upload_type: "apple-strings",
        platform: Platform::Foundation,
        keyed_by_text: false,
        cases: numbered_cases("@", "lld"),
        files: Box::new(apple_files),
    }
}

pub fn icu() -> Source {
    // ICU quotes a literal `{` with apostrophes; a lone apostrophe before a letter is literal,
    // one before an argument's brace is doubled (`d''{name}`).
    let w = |text: &str| {
        fill(
            &text
                .replace("'<", "''<")
                .replace("{braces}", "'{braces}'")
                .replace("{accolades}", "'{accolades}'"),
            "{",
            "}",
        )
    };
    let plural = |one: &str, other: &str| {
        let form = |text: &str| fill(&text.replace("<count>", "#"), "{", "}");
        Text::One(format!(
            "{{count, plural, one {{{}}} other {{{}}}}}",
            form(one),
            form(other)
        ))
    };
    let mut cases = named_cases(&w, &plural);
    for case in &mut cases {
        case.plural = case.id == "files";
    }
    let placeholders = |name: &str| match name {
        "greeting" => json!({"name": {"type": "String"}, "n": {"type": "int"}}),
        "repeated" => json!({"name": {"type": "String"}, "city": {"type": "String"}}),
        "percent" => json!({"n": {"type": "int"}}),
        "files" => json!({"count": {"type": "int"}, "city": {"type": "String"}}),
        _ => json!({"name": {"type": "String"}}),
    };
    Source {
        label: "arb",
        upload_type: "arb",
        platform: Platform::Icu,
        keyed_by_text: false,
        cases,
        files: Box::new(move |keys| arb_files(keys, &placeholders)),
    }
}

pub fn i18next() -> Source {
    let w = |text: &str| fill(text, "{{", "}}");
    let plural = |one: &str, other: &str| forms(&w(one), &w(other));
    Source {
        label: "i18next",
        upload_type: "i18next",
        platform: Platform::I18next,
        keyed_by_text: false,
        cases: named_cases(&w, &plural),
        files: Box::new(i18next_files),
    }
}

pub fn rails() -> Source {
    // I18n.interpolate reads `%%` as `%`, and leaves a `%` that starts no placeholder alone.
    let w = |text: &str| fill(&text.replace("<n> % terminé", "<n> %% terminé"), "%{", "}");
    let plural = |one: &str, other: &str| forms(&w(one), &w(other));
    Source {
        label: "yaml",
        upload_type: "yaml",
        platform: Platform::Rails,
        keyed_by_text: false,
        cases: named_cases(&w, &plural),
        files: Box::new(rails_files),
    }
}

pub fn python_format() -> Source {
    let w = |text: &str| {
        let text = fill(&text.replace('%', "%%"), "%(", ")s");
        text.replace("%(n)s", "%(n)d").replace("%(count)s", "%(count)d")
    };
    let plural = |one: &str, other: &str| forms(&w(one), &w(other));
    let mut cases = named_cases(&w, &plural);
    cases.push(case(
        "decimal",
        one("%(km).2f km to %(city)s"),
        one("%(city)s à %(km).2f km"),
        &[("km", Arg::Float(2.5)), ("city", LYON)],
    ));
    Source {
        label: "po python-format",
        upload_type: "po",
        platform: Platform::PythonPercent,
        keyed_by_text: true,
        cases,
        files: Box::new(|keys| po_files(keys, "python-format")),
    }
}

pub fn python_brace() -> Source {
    let w = |text: &str| fill(&text.replace('{', "{{").replace('}', "}}"), "{", "}");
    let plural = |one: &str, other: &str| forms(&w(one), &w(other));
    let mut cases = named_cases(&w, &plural);
    cases.push(case(
        "decimal",
        one("{km:.2f} km to {city}"),
        one("{city} à {km:.2f} km"),
        &[("km", Arg::Float(2.5)), ("city", LYON)],
    ));
    Source {
        label: "po python-brace-format",
        upload_type: "po",
        platform: Platform::PythonBrace,
        keyed_by_text: true,
        cases,
        files: Box::new(|keys| po_files(keys, "python-brace-format")),
    }
}

pub fn c_format() -> Source {
    Source {
        label: "po c-format",
        upload_type: "po",
        platform: Platform::Foundation,
        keyed_by_text: true,
        cases: numbered_cases("s", "d"),
        files: Box::new(|keys| po_files(keys, "c-format")),
    }
}
