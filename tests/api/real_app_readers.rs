//! The `readers` step of the real-apps test: every text an independent reader finds in an
//! app's files is held by the server after `push`, under the key, namespace and language the
//! docs give it.
//!
//! The readers are not locstore's: `tests/tools/read_texts.py` (ElementTree with aapt2's
//! value rules, openstep_plist and plistlib, the json module with i18next's plural suffixes,
//! polib, translate-toolkit, the csv module) and `tests/tools/read_yaml.rb` (Psych). Each
//! reads all the files of one format of an app in one process and prints
//! `[{file, key, language?, text | forms}]`.
//!
//! This side maps each file to its language and namespace as docs/ describe (the file set's
//! `{lang}` and `{ns}`, `values-pt-rBR/`, `pt-BR.lproj/`, a table or domain other than the
//! default one, a set's own `namespace` above the file's), reads every key the server holds
//! (all pages of the query) and compares texts. Differences of representation the contract
//! allows are normalised here, each said where it is done:
//! - a plain text in a plural key is held as that language's `other` form;
//! - an Android string with inline tags, and an XLIFF source or target with inline elements
//!   (`<x/>`, `<g>`, `<ph>`, `<pc>`), is held as an XML fragment with its tags: compared
//!   without the tags, entities read;
//! - PO plural forms are numbered by the file's formula, the server's are CLDR categories:
//!   every numbered form's text must be one of the server's forms;
//! - a String Catalog localization with `substitutions` or device variations is held whole as
//!   one text (the catalog's JSON of it): compared as JSON values;
//! - the base texts PO `msgid`s and XLIFF `<source>`s give are checked only where the app has
//!   no file of the base language of its own (the base file's text wins);
//! - an entry the server names in the push's `warnings` (key and language) was passed over as
//!   the contract allows ("kept in the app's file and named in warnings"): counted, not a
//!   failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::server::Server;

/// A text's place on the server: namespace, key name, language.
type Place = (String, String, String);

/// An entry the readers found, the file it is in, and whether it is a source text (a PO
/// `msgid`, an XLIFF `<source>`) standing for the base language.
type Found<'a> = (&'a Value, &'a str, bool);

/// One file set of the app's `.locstore.toml`.
struct FileSet {
    format: String,
    path: String,
    namespace: String,
    /// Whether `.locstore.toml` gives the set a namespace (`init` gives a PO or XLIFF set of
    /// `{domain}.{lang}.po` its domain's).
    named: bool,
}

/// A file of the app, with the language its path names (`None` where the file names its own
/// languages) and the namespace its keys are in.
struct AppFile {
    format: String,
    path: String,
    language: Option<String>,
    namespace: String,
}

/// What the readers found that the server lacks or holds otherwise, one line each, and how
/// many texts were compared and passed over with a warning.
pub struct Findings {
    /// Each with the construct the reader named for its entry (`substitutions`), else `other`.
    pub problems: Vec<(String, String)>,
    pub compared: usize,
    pub warned: usize,
}

fn sets(work: &Path) -> Vec<FileSet> {
    let text = std::fs::read_to_string(work.join(".locstore.toml")).unwrap_or_default();
    let settings: toml::Table = toml::from_str(&text).unwrap_or_default();
    settings
        .get("files")
        .and_then(|files| files.as_array())
        .into_iter()
        .flatten()
        .map(|set| FileSet {
            format: set
                .get("format")
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned(),
            path: set.get("path").and_then(|v| v.as_str()).unwrap_or_default().to_owned(),
            namespace: set
                .get("namespace")
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned(),
            named: set.get("namespace").is_some(),
        })
        .collect()
}

/// Every file below `root`, as paths relative to `work` with `/`.
fn walk(work: &Path, root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| {
            let relative = entry.path().strip_prefix(work).ok()?;
            Some(relative.to_string_lossy().replace('\\', "/"))
        })
        .filter(|path| !path.starts_with(".git/"))
        .collect()
}

/// A pattern's `{lang}` and `{ns}` matched against a whole path: literal parts must match,
/// `{lang}` is a piece of one path part (the same each time it is named), `{ns}` one or more
/// parts. Answers the language and namespace written.
fn pattern_match(pattern: &str, path: &str) -> Option<(String, String)> {
    fn go(pattern: &str, path: &str, lang: Option<&str>, ns: Option<&str>) -> Option<(String, String)> {
        if pattern.is_empty() {
            return path
                .is_empty()
                .then(|| (lang.unwrap_or_default().to_owned(), ns.unwrap_or_default().to_owned()));
        }
        for marker in ["{lang}", "{ns}"] {
            let Some(rest) = pattern.strip_prefix(marker) else {
                continue;
            };
            let earlier = if marker == "{lang}" { lang } else { ns };
            return (1..=path.len())
                .rev()
                .filter(|end| path.is_char_boundary(*end))
                .find_map(|end| {
                    let piece = &path[..end];
                    if (marker == "{lang}" && piece.contains('/')) || earlier.is_some_and(|earlier| earlier != piece) {
                        return None;
                    }
                    if marker == "{lang}" {
                        go(rest, &path[end..], Some(piece), ns)
                    } else {
                        go(rest, &path[end..], lang, Some(piece))
                    }
                });
        }
        let next = pattern.chars().next()?;
        if !path.starts_with(next) {
            return None;
        }
        go(&pattern[next.len_utf8()..], &path[next.len_utf8()..], lang, ns)
    }
    go(pattern, path, None, None)
}

fn android_language_folder(folder: &str) -> bool {
    let Some(qualifier) = folder.strip_prefix("values") else {
        return false;
    };
    let Some(qualifier) = qualifier.strip_prefix('-') else {
        return qualifier.is_empty();
    };
    if qualifier.starts_with("b+") {
        return true;
    }
    let (language, region) = qualifier.split_once("-r").unwrap_or((qualifier, ""));
    (2..=3).contains(&language.len())
        && language.chars().all(|c| c.is_ascii_lowercase())
        && (region.is_empty() || (region.len() == 2 && region.chars().all(|c| c.is_ascii_uppercase())))
}

/// The domain of `{domain}.{lang}.po` / `.xlf` and Django's `LC_MESSAGES/{domain}.po`,
/// `""` for `messages` and files without one (docs/formats/README.md, "Namespaces").
fn domain_of(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or_default();
    let folder = parts.next().unwrap_or_default();
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    let domain = if folder == "LC_MESSAGES" {
        stem.to_owned()
    } else {
        match stem.rsplit_once('.') {
            Some((domain, language)) if looks_like_language(language) => domain.to_owned(),
            _ => String::new(),
        }
    };
    if domain == "messages" { String::new() } else { domain }
}

fn looks_like_language(text: &str) -> bool {
    let mut parts = text.split(['-', '_', '@']);
    let first = parts.next().unwrap_or_default();
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|part| (2..=8).contains(&part.len()) && part.chars().all(|c| c.is_ascii_alphanumeric()))
}

fn under(set: &str, file: &str) -> String {
    match (set.is_empty(), file.is_empty()) {
        (true, _) => file.to_owned(),
        (false, true) => set.to_owned(),
        (false, false) => format!("{set}/{file}"),
    }
}

/// The files of each set, with their languages and namespaces as the docs give them.
fn app_files(work: &Path) -> Vec<AppFile> {
    let mut files = Vec::new();
    for set in sets(work) {
        let format = set.format.as_str();
        // A table per language (`locales/{lang}/menus.csv`) is found by its pattern.
        let folder_set = matches!(format, "android-xml" | "apple-strings" | "xcstrings")
            || (format == "csv-table" && !set.path.contains("{lang}"));
        if folder_set {
            let root = work.join(&set.path);
            let candidates = if root.is_file() {
                vec![set.path.clone()]
            } else {
                walk(work, &root)
            };
            for path in candidates {
                let relative = path.strip_prefix(&format!("{}/", set.path)).unwrap_or(&path);
                let parts: Vec<&str> = relative.split('/').collect();
                let file_name = *parts.last().unwrap();
                let folder = if parts.len() >= 2 { parts[parts.len() - 2] } else { "" };
                let (language, namespace) = match format {
                    // `values/`, `values-fr/`, `values-pt-rBR/`, `values-b+sr+Latn/`; folders of
                    // other qualifiers (`values-sw600dp/`, `values-night/`) are no language's
                    // and the docs say they are ignored.
                    "android-xml"
                        if parts.len() == 2 && android_language_folder(folder) && file_name.ends_with(".xml") =>
                    {
                        (Some(folder.to_owned()), String::new())
                    }
                    "apple-strings"
                        if parts.len() == 2
                            && folder.ends_with(".lproj")
                            && (file_name.ends_with(".strings") || file_name.ends_with(".stringsdict")) =>
                    {
                        let table = file_name.rsplit_once('.').unwrap().0;
                        let table = if table == "Localizable" { "" } else { table };
                        (Some(folder.to_owned()), table.to_owned())
                    }
                    "xcstrings" if parts.len() == 1 && file_name.ends_with(".xcstrings") => {
                        let table = file_name.strip_suffix(".xcstrings").unwrap();
                        let table = if table == "Localizable" { "" } else { table };
                        (None, table.to_owned())
                    }
                    "csv-table" if path == set.path => (None, String::new()),
                    _ => continue,
                };
                files.push(AppFile {
                    format: set.format.clone(),
                    path,
                    language,
                    namespace: under(&set.namespace, &namespace),
                });
            }
            continue;
        }
        // A pattern: the folder before its first `{` is walked.
        let fixed = set.path.split('{').next().unwrap_or_default();
        let root = fixed.rsplit_once('/').map_or("", |(root, _)| root);
        let mut patterns = vec![set.path.clone()];
        if let Some(template) = set_template(work, &set) {
            patterns.push(template);
        }
        for path in walk(work, &work.join(root)) {
            for pattern in &patterns {
                let Some((language, ns)) = pattern_match(pattern, &path) else {
                    continue;
                };
                let file_namespace = match format {
                    "json" | "i18next" => ns,
                    // A set named by its domain has it already; otherwise the file's.
                    "po" | "xliff" | "xliff2" if !set.named => domain_of(&path),
                    _ => String::new(),
                };
                let language = (!language.is_empty()).then_some(language);
                files.push(AppFile {
                    format: set.format.clone(),
                    path: path.clone(),
                    // A template (`.pot`) gives the base texts of its msgids only.
                    language: if pattern == &set.path {
                        language
                    } else {
                        Some("@template".into())
                    },
                    namespace: under(&set.namespace, &file_namespace),
                });
                break;
            }
        }
    }
    files
}

/// A JSON or XLIFF set's base-language file; a PO set's template: its domain's `.pot`, or for a
/// pattern without a domain the first `.pot` by name, in the folder of the pattern's `{lang}`
/// part (docs/formats/po.md), else Lazarus' `{domain}.po` beside `{domain}.{lang}.po`.
fn set_template(work: &Path, set: &FileSet) -> Option<String> {
    // docs/cli.md: a JSON or XLIFF set's base-language file is the pattern without `.{lang}`
    // (VS Code's `package.nls.json`, Angular's source `messages.xlf`).
    if matches!(set.format.as_str(), "json" | "xliff" | "xliff2") && !set.path.contains("{ns}") {
        let (before, after) = set.path.split_once("{lang}")?;
        // docs/cli.md: TYPO3's `de.locallang.xlf` has `locallang.xlf` beside it.
        if set.format != "json" && (before.is_empty() || before.ends_with('/')) {
            let base = format!("{before}{}", after.strip_prefix('.')?);
            return (!after.contains('/') && work.join(&base).is_file()).then_some(base);
        }
        let before = before.strip_suffix('.')?;
        let base = format!("{before}{after}");
        return (!after.contains('/') && !before.ends_with('/') && work.join(&base).is_file()).then_some(base);
    }
    if set.format != "po" {
        return None;
    }
    let before = set.path.split("{lang}").next().unwrap_or_default();
    let folder = before.rsplit_once('/').map_or("", |(folder, _)| folder);
    let mut templates: Vec<String> = std::fs::read_dir(work.join(folder))
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .filter(|name| name.ends_with(".pot"))
        .collect();
    templates.sort();
    // docs/formats/po.md: a pattern that names a domain (`.../LC_MESSAGES/django.po`,
    // `doublecmd.{lang}.po`) takes that domain's template.
    let file = set.path.rsplit('/').next().unwrap_or_default();
    let domain = file
        .strip_suffix(".po")
        .map(|stem| stem.replace(".{lang}", ""))
        .filter(|domain| !domain.is_empty() && !domain.contains("{lang}"));
    let chosen = match domain {
        Some(domain) => templates.into_iter().find(|name| *name == format!("{domain}.pot")),
        None => templates.into_iter().next(),
    };
    match chosen {
        Some(first) => Some(if folder.is_empty() {
            first
        } else {
            format!("{folder}/{first}")
        }),
        // Lazarus names its template as the pattern's file without the language: `zip.po`.
        None => {
            let lazarus = set.path.replacen(".{lang}.po", ".po", 1);
            (lazarus != set.path && work.join(&lazarus).is_file()).then_some(lazarus)
        }
    }
}

/// The app's files of the formats' own extensions that no file set takes (a source
/// `messages.xlf`, a module init did not find): their texts reach no server.
fn uncovered(work: &Path, files: &[AppFile]) -> Vec<String> {
    let taken: BTreeSet<&str> = files.iter().map(|file| file.path.as_str()).collect();
    walk(work, work)
        .into_iter()
        .filter(|path| {
            [
                ".xlf",
                ".xliff",
                ".po",
                ".pot",
                ".strings",
                ".stringsdict",
                ".xcstrings",
                ".arb",
                ".csv",
            ]
            .iter()
            .any(|extension| path.ends_with(extension))
        })
        .filter(|path| !taken.contains(path.as_str()))
        .collect()
}

/// The readers' entries for every file, one process per format.
fn read_all(work: &Path, files: &[AppFile]) -> Result<Vec<Value>, String> {
    let mut by_format: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for file in files {
        by_format
            .entry(file.format.as_str())
            .or_default()
            .push(file.path.as_str());
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools");
    let mut entries = Vec::new();
    for (format, paths) in by_format {
        let output = if format == "yaml" {
            Command::new("ruby")
                .arg(tools.join("read_yaml.rb"))
                .args(&paths)
                .current_dir(work)
                .output()
        } else {
            Command::new(crate::platforms::python())
                .arg(tools.join("read_texts.py"))
                .arg(format)
                .args(&paths)
                .current_dir(work)
                .output()
        }
        .map_err(|err| format!("the {format} reader did not start: {err}"))?;
        if !output.status.success() {
            return Err(format!(
                "the {format} reader failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let found: Vec<Value> = serde_json::from_slice(&output.stdout).map_err(|err| err.to_string())?;
        entries.extend(found);
    }
    Ok(entries)
}

/// Every key the server holds: `(namespace, name)` to the key object.
fn server_keys(server: &Server, token: &str) -> BTreeMap<(String, String), Value> {
    let mut keys = BTreeMap::new();
    for page in 1.. {
        let (status, answer) = server.request(
            "GET",
            &format!("/teams/acme/projects/app/keys?limit=1000&page={page}"),
            Some(token),
            None,
        );
        assert_eq!(status, 200, "{answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        let data = answer["data"].as_array().cloned().unwrap_or_default();
        if data.is_empty() {
            break;
        }
        for key in data {
            let id = (
                key["namespace"].as_str().unwrap_or_default().to_owned(),
                key["name"].as_str().unwrap_or_default().to_owned(),
            );
            keys.insert(id, key);
        }
    }
    keys
}

/// The ways the ecosystems write a language, brought to one form (lower case, `-`) as the
/// docs map them: Android's `values-pt-rBR`, `values-b+sr+Latn` and its old codes (`iw` is
/// `he`, `in` is `id`, `ji` is `yi`, Wikimedia's `be-x-old` is `be-tarask`), Apple's
/// `pt_BR.lproj`, `Base.lproj` and old names (`English.lproj`), gettext's modifiers
/// (`sr@latin` is `sr-Latn`, `sr_RS@latin` is `sr-Latn-RS`, `ca@valencia` is `ca-valencia`).
fn normal_language(written: &str, base: &str) -> String {
    let mut code = written.trim_end_matches(".lproj").to_owned();
    if let Some(qualifier) = code.strip_prefix("values") {
        let qualifier = qualifier.trim_start_matches('-');
        code = if qualifier.is_empty() {
            base.to_owned()
        } else if let Some(bcp) = qualifier.strip_prefix("b+") {
            bcp.replace('+', "-")
        } else {
            qualifier.replacen("-r", "-", 1)
        };
        for (old, new) in [("iw", "he"), ("in", "id"), ("ji", "yi"), ("be-x-old", "be-tarask")] {
            if code == old || code.starts_with(&format!("{old}-")) && old.len() == 2 {
                code = format!("{new}{}", &code[old.len()..]);
            }
        }
    }
    let old_names = [
        ("Base", base),
        ("English", "en"),
        ("French", "fr"),
        ("German", "de"),
        ("Japanese", "ja"),
        ("Spanish", "es"),
        ("Italian", "it"),
        ("Dutch", "nl"),
    ];
    if let Some((_, code_of)) = old_names.iter().find(|(name, _)| *name == code) {
        code = (*code_of).to_owned();
    }
    if let Some((locale, modifier)) = code.clone().split_once('@') {
        let script = match modifier.to_ascii_lowercase().as_str() {
            "latin" | "latn" => "Latn".to_owned(),
            "cyrillic" | "cyrl" => "Cyrl".to_owned(),
            other => other.to_owned(),
        };
        code = match locale.split_once(['_', '-']) {
            Some((language, region)) => format!("{language}-{script}-{region}"),
            None => format!("{locale}-{script}"),
        };
    }
    code.replace('_', "-").to_lowercase()
}

/// Whether the server's value holds the reader's entry, with the normalisations the module's
/// documentation lists.
fn holds(entry: &Value, held: &Value) -> bool {
    if let Some(whole) = entry.get("whole") {
        return match held.as_str().map(serde_json::from_str::<Value>) {
            Some(Ok(value)) => &value == whole,
            _ => held.to_string().contains(&whole.to_string()),
        };
    }
    // An ICU plural the forms cannot hold (`=0`, an argument inside a case) is held whole as
    // the message (docs/formats/arb.md).
    if let (Some(message), Some(server)) = (entry["message"].as_str(), held.as_str()) {
        return message == server;
    }
    let markup = entry["markup"] == true;
    let same = |file: &str, server: &str| file == server || (markup && without_tags(server) == file);
    if let Some(text) = entry["text"].as_str() {
        return match held {
            Value::String(server) => same(text, server),
            Value::Object(forms) => forms
                .get("other")
                .and_then(Value::as_str)
                .is_some_and(|other| same(text, other)),
            _ => false,
        };
    }
    let (Some(forms), Some(server)) = (entry["forms"].as_object(), held.as_object()) else {
        return false;
    };
    let numbered = forms.keys().all(|form| form.parse::<u32>().is_ok());
    forms.iter().all(|(form, text)| {
        let text = text.as_str().unwrap_or_default();
        if numbered {
            server
                .values()
                .any(|value| value.as_str().is_some_and(|server| same(text, server)))
        } else {
            server
                .get(form)
                .and_then(Value::as_str)
                .is_some_and(|server| same(text, server))
        }
    })
}

/// Whether `key` is `NAME_{category}` and the server holds `NAME` in `language` with that
/// form's text the reader found.
fn form_of_plural(
    keys: &BTreeMap<(String, String), Value>,
    namespace: &str,
    key: &str,
    language: &str,
    entry: &Value,
) -> bool {
    let Some((name, category)) = key.rsplit_once('_') else {
        return false;
    };
    if !["zero", "one", "two", "few", "many", "other"].contains(&category) {
        return false;
    }
    keys.get(&(namespace.to_owned(), name.to_owned()))
        .and_then(|held| held["translation"][language][category].as_str())
        .is_some_and(|form| entry["text"].as_str() == Some(form))
}

/// Whether every form of the reader's plural `key` is held by the server as the plain key
/// `{key}_{category}` in `language`.
fn forms_as_keys(
    keys: &BTreeMap<(String, String), Value>,
    namespace: &str,
    key: &str,
    language: &str,
    entry: &Value,
) -> bool {
    let Some(forms) = entry["forms"].as_object() else {
        return false;
    };
    !forms.is_empty()
        && forms.iter().all(|(category, text)| {
            keys.get(&(namespace.to_owned(), format!("{key}_{category}")))
                .is_some_and(|held| held["translation"][language] == *text)
        })
}

/// An XML fragment's text: tags left out (a `>` inside a quoted attribute value, as Angular
/// writes `equiv-text="&lt;fa-icon ...>"`, is in the tag), the five entities read.
fn without_tags(fragment: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    let mut quote = None;
    for char in fragment.chars() {
        match char {
            '<' if !in_tag => in_tag = true,
            '"' | '\'' if in_tag => match quote {
                None => quote = Some(char),
                Some(open) if open == char => quote = None,
                Some(_) => {}
            },
            '>' if in_tag && quote.is_none() => in_tag = false,
            _ if !in_tag => text.push(char),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The readers' check of one app whose files were pushed to `acme/app`; `warnings` is the
/// push's answer's warnings (`[{path, key, language, ...}]`).
pub fn check(app: &str, server: &Server, token: &str, work: &Path, warnings: &[Value]) -> Findings {
    let mut findings = Findings {
        problems: Vec::new(),
        compared: 0,
        warned: 0,
    };
    let files = app_files(work);
    if files.is_empty() {
        findings
            .problems
            .push(("other".into(), "no files found from .locstore.toml".into()));
        return findings;
    }
    for path in uncovered(work, &files) {
        findings.problems.push((
            "uncovered-file".into(),
            format!("{path}: in no file set of .locstore.toml"),
        ));
    }
    let entries = match read_all(work, &files) {
        Ok(entries) => entries,
        Err(why) => {
            findings.problems.push(("other".into(), why));
            return findings;
        }
    };
    let (_, project) = server.request("GET", "/teams/acme/projects/app", Some(token), None);
    let project: Value = serde_json::from_str(&project).unwrap();
    let base = project["data"]["baseLanguageISO"].as_str().unwrap_or("en").to_owned();
    let languages: BTreeMap<String, String> = project["data"]["languagesISO"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|code| (normal_language(code, &base), code.to_owned()))
        .collect();
    let keys = server_keys(server, token);
    let by_path: BTreeMap<&str, &AppFile> = files.iter().map(|file| (file.path.as_str(), file)).collect();
    let warned_keys: BTreeSet<&str> = warnings.iter().filter_map(|warning| warning["key"].as_str()).collect();
    let warned: BTreeSet<(String, String)> = warnings
        .iter()
        .map(|warning| {
            (
                warning["key"].as_str().unwrap_or_default().to_owned(),
                warning["language"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    // Base texts from sources count only where no file of the base language is the app's.
    let base_files: BTreeSet<&str> = files
        .iter()
        .filter(|file| {
            file.language
                .as_deref()
                .is_some_and(|language| normal_language(language, &base) == normal_language(&base, &base))
        })
        .map(|file| file.namespace.as_str())
        .collect();
    // Entries of one key and language in several files (`Base.lproj` and `en.lproj`, a name
    // defined twice): the server holds one of them, so one that it holds is enough.
    let mut places: BTreeMap<Place, Vec<Found>> = BTreeMap::new();
    for entry in &entries {
        let path = entry["file"].as_str().unwrap_or_default();
        if let Some(error) = entry.get("error") {
            findings
                .problems
                .push(("other".into(), format!("{path}: the reader refused it: {error}")));
            continue;
        }
        if entry.get("skipped").is_some() {
            continue;
        }
        let Some(file) = by_path.get(path) else {
            findings
                .problems
                .push(("other".into(), format!("{path}: read but in no file set")));
            continue;
        };
        // The path's language wins over a Rails file's root key (a `de-DE/` folder whose
        // files say `de:`); elsewhere the reader's language is the file's own statement.
        let written = if file.format == "yaml" && file.language.is_some() {
            file.language.clone()
        } else {
            entry["language"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| file.language.clone())
        };
        let from_source = matches!(written.as_deref(), Some("@source" | "@template"))
            || file.language.as_deref() == Some("@template");
        if from_source && base_files.contains(file.namespace.as_str()) {
            continue;
        }
        let written = if from_source {
            base.clone()
        } else {
            written.unwrap_or_default()
        };
        let key = entry["key"].as_str().unwrap_or_default();
        let Some(language) = languages.get(&normal_language(&written, &base)) else {
            findings.problems.push((
                "other".into(),
                format!("{path}: {key:?}: the language {written} is not the project's"),
            ));
            continue;
        };
        places
            .entry((file.namespace.clone(), key.to_owned(), language.clone()))
            .or_default()
            .push((entry, path, from_source));
    }
    for ((namespace, key, language), found) in &places {
        findings.compared += 1;
        let held = keys
            .get(&(namespace.clone(), key.clone()))
            .map(|found| &found["translation"][language]);
        let (entry, path, from_source) = found[found.len() - 1];
        let construct = entry["construct"].as_str().unwrap_or("other").to_owned();
        match held {
            Some(held) if found.iter().any(|(entry, _, _)| holds(entry, held)) => {}
            _ if warned.contains(&(key.clone(), language.clone())) => findings.warned += 1,
            // A translation file's source of a unit passed over is named in the warning of
            // that file's language.
            _ if from_source && warned_keys.contains(key.as_str()) => findings.warned += 1,
            // The empty name cannot be addressed: its entry stays in the app's file.
            None if key.is_empty() => findings.warned += 1,
            // i18next's suffixed forms of a language whose plural rules have no such category
            // (Japanese `X_one` beside `X_other`): the reader takes them for plain keys i18next
            // never looks up; the server holds them as forms of `X`, as the file writes them.
            None if form_of_plural(&keys, namespace, key, language, entry) => {}
            // i18next forms of a name the base language holds as a plain text: the server
            // holds each as a plain key named as the file names it (docs/formats/i18next.md).
            _ if forms_as_keys(&keys, namespace, key, language, entry) => {}
            None => {
                let elsewhere: Vec<&str> = keys
                    .keys()
                    .filter(|(_, name)| name == key)
                    .map(|(namespace, _)| namespace.as_str())
                    .collect();
                findings.problems.push((
                    construct,
                    format!(
                        "{path}: {key:?} ({language}): no key in namespace {namespace:?}{}",
                        if elsewhere.is_empty() {
                            String::new()
                        } else {
                            format!(" (it is in {elsewhere:?})")
                        }
                    ),
                ));
            }
            Some(held) => {
                let mut said = entry.clone();
                if let Some(said) = said.as_object_mut() {
                    said.remove("file");
                    said.remove("key");
                }
                findings.problems.push((
                    construct,
                    format!("{path}: {key:?} ({language}) in {namespace:?}: the server holds {held}, the reader found {said}"),
                ));
            }
        }
    }
    // `LOCSTORE_REAL_APPS_DUMP=DIR` writes every finding and the server's key names there.
    if let Ok(dump) = std::env::var("LOCSTORE_REAL_APPS_DUMP") {
        let name = app.replace('/', "_");
        let _ = std::fs::create_dir_all(&dump);
        let lines: Vec<String> = findings
            .problems
            .iter()
            .map(|(construct, line)| format!("[{construct}] {line}"))
            .collect();
        let _ = std::fs::write(Path::new(&dump).join(format!("{name}.problems")), lines.join("\n"));
        let names: Vec<String> = keys
            .keys()
            .map(|(namespace, name)| format!("{namespace:?} {name:?}"))
            .collect();
        let _ = std::fs::write(Path::new(&dump).join(format!("{name}.keys")), names.join("\n"));
        let said: Vec<String> = warnings.iter().map(Value::to_string).collect();
        let _ = std::fs::write(Path::new(&dump).join(format!("{name}.warnings")), said.join("\n"));
    }
    findings
}

/// After a server edit pulled into `path`: the reader of its format finds `text` under `key`
/// in it (in `language` where the file names its languages).
pub fn finds_text(work: &Path, path: &str, key: &str, language: &str, text: &str) -> Result<(), String> {
    let files = app_files(work);
    let Some(file) = files.iter().find(|file| file.path == path) else {
        return Err(format!("{path} is in no file set"));
    };
    let entries = read_all(work, std::slice::from_ref(file))?;
    let found = entries.iter().any(|entry| {
        entry["key"] == key
            && entry["language"]
                .as_str()
                // A Symfony YAML file's reader names no language: its path does.
                .filter(|written| !written.is_empty())
                .is_none_or(|written| normal_language(written, "") == normal_language(language, ""))
            && (entry["text"] == text
                || entry["forms"]
                    .as_object()
                    .is_some_and(|forms| forms.values().any(|form| form == text)))
    });
    if found {
        Ok(())
    } else {
        let near: Vec<&Value> = entries.iter().filter(|entry| entry["key"] == key).collect();
        Err(format!(
            "the reader does not find {text:?} for {key:?} ({language}) in {path}: {near:?}"
        ))
    }
}
