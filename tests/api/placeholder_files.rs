//! Files for the placeholder proof (`placeholder_pairs.rs`): the source files an app of each
//! platform would upload, written from a case's texts with the format's own escaping, and the
//! exported files read back by readers that are not locstore's (aapt2's resource table,
//! GNUstep's strings parser, plistlib, polib, translate-toolkit, Psych, JSON and CSV readers).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::formats::read_xliff;
use crate::formatters::gnustep_strings;
use crate::platforms::{python, readback};

/// A text as its platform reads it: one string, or plural forms by CLDR category.
#[derive(Clone, Debug, PartialEq)]
pub enum Text {
    One(String),
    Forms(BTreeMap<String, String>),
}

/// What an export holds for a key in one language, as a reader of the format read it.
#[derive(Clone, Debug)]
pub enum Exported {
    /// A text (for ARB, CSV and XLIFF plural keys: an ICU plural message).
    Text(String),
    /// Plural forms by category.
    Forms(BTreeMap<String, String>),
    /// An Android styled string: its text without the tags, and its spans (tag, first, last).
    Styled(String, Value),
}

/// An export read back: per language, per name as the file writes it, what it holds; and the
/// gettext flags of PO entries (`c-format`, `python-format`, ...), by name.
#[derive(Default, Debug)]
pub struct Export {
    pub texts: BTreeMap<String, BTreeMap<String, Exported>>,
    pub flags: BTreeMap<String, Vec<String>>,
    /// An ARB template's `@key` metadata, by key name.
    pub arb_metadata: BTreeMap<String, Value>,
}

/// A key's name as an Android export writes it (contract: "Export"): characters outside
/// `[A-Za-z0-9_.]` become `_`, a leading digit or `.` gets a leading `_` (no case here is
/// named like a Java keyword).
pub fn android_name(name: &str) -> String {
    let mut mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if mapped.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        mapped.insert(0, '_');
    }
    mapped
}

impl Export {
    /// What the export holds for the key `name` in `language`, found by its name or by the
    /// name an Android export gives it.
    pub fn find(&self, language: &str, name: &str) -> Option<&Exported> {
        let texts = self.texts.get(language)?;
        texts.get(name).or_else(|| texts.get(&android_name(name)))
    }

    pub fn flags_of(&self, name: &str) -> &[String] {
        self.flags
            .get(name)
            .or_else(|| self.flags.get(&android_name(name)))
            .map_or(&[], Vec::as_slice)
    }
}

// ----- Source files -----

/// A key of an upload: its name and its text in each language.
pub struct SourceKey<'a> {
    pub name: &'a str,
    pub texts: Vec<(&'a str, &'a Text)>,
}

fn xml_text(text: &str, markup: bool) -> String {
    let mut out = String::new();
    for (index, c) in text.chars().enumerate() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' | '>' if markup => out.push(c),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '@' | '?' if index == 0 => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `values/strings.xml` and `values-fr/strings.xml`; tags in a text are kept as markup.
pub fn android_files(keys: &[SourceKey]) -> Vec<(String, Vec<u8>)> {
    let mut files: BTreeMap<&str, String> = BTreeMap::new();
    for key in keys {
        for (language, text) in &key.texts {
            let file = files.entry(language).or_default();
            match text {
                Text::One(text) => file.push_str(&format!(
                    "    <string name=\"{}\">{}</string>\n",
                    key.name,
                    xml_text(text, true)
                )),
                Text::Forms(forms) => {
                    file.push_str(&format!("    <plurals name=\"{}\">\n", key.name));
                    for (category, form) in forms {
                        file.push_str(&format!(
                            "        <item quantity=\"{category}\">{}</item>\n",
                            xml_text(form, true)
                        ));
                    }
                    file.push_str("    </plurals>\n");
                }
            }
        }
    }
    files
        .into_iter()
        .map(|(language, body)| {
            let folder = if language == "en" {
                "values".to_owned()
            } else {
                format!("values-{language}")
            };
            (
                format!("{folder}/strings.xml"),
                format!("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n{body}</resources>\n").into_bytes(),
            )
        })
        .collect()
}

fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `{lang}.lproj/Localizable.strings`, and `Localizable.stringsdict` for plural keys (one
/// variable, `%#@value@`, its value type from the first conversion of the `other` form).
pub fn apple_files(keys: &[SourceKey]) -> Vec<(String, Vec<u8>)> {
    let mut strings: BTreeMap<&str, String> = BTreeMap::new();
    let mut dicts: BTreeMap<&str, String> = BTreeMap::new();
    for key in keys {
        for (language, text) in &key.texts {
            match text {
                Text::One(text) => strings.entry(language).or_default().push_str(&format!(
                    "{} = {};\n",
                    quoted(key.name),
                    quoted(text)
                )),
                Text::Forms(forms) => {
                    let value_type = if forms["other"].contains("lld") { "lld" } else { "d" };
                    let mut entry = format!(
                        "  <key>{}</key>\n  <dict>\n    <key>NSStringLocalizedFormatKey</key>\n    <string>%#@value@</string>\n    <key>value</key>\n    <dict>\n      <key>NSStringFormatSpecTypeKey</key>\n      <string>NSStringPluralRuleType</string>\n      <key>NSStringFormatValueTypeKey</key>\n      <string>{value_type}</string>\n",
                        xml_escape(key.name)
                    );
                    for (category, form) in forms {
                        entry.push_str(&format!(
                            "      <key>{category}</key>\n      <string>{}</string>\n",
                            xml_escape(form)
                        ));
                    }
                    entry.push_str("    </dict>\n  </dict>\n");
                    dicts.entry(language).or_default().push_str(&entry);
                }
            }
        }
    }
    let mut files: Vec<(String, Vec<u8>)> = strings
        .into_iter()
        .map(|(language, body)| (format!("{language}.lproj/Localizable.strings"), body.into_bytes()))
        .collect();
    files.extend(dicts.into_iter().map(|(language, body)| {
        (
            format!("{language}.lproj/Localizable.stringsdict"),
            format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n{body}</dict>\n</plist>\n").into_bytes(),
        )
    }));
    files
}

/// `app_{lang}.arb`: ICU messages; the template (`en`) declares each placeholder with its type.
pub fn arb_files(keys: &[SourceKey], placeholders: &dyn Fn(&str) -> Value) -> Vec<(String, Vec<u8>)> {
    let mut files: BTreeMap<&str, serde_json::Map<String, Value>> = BTreeMap::new();
    for key in keys {
        for (language, text) in &key.texts {
            let file = files
                .entry(language)
                .or_insert_with(|| [("@@locale".to_owned(), json!(language))].into_iter().collect());
            let Text::One(text) = text else {
                panic!("an ARB plural is one ICU message")
            };
            file.insert(key.name.to_owned(), json!(text));
            if *language == "en" {
                file.insert(
                    format!("@{}", key.name),
                    json!({"placeholders": placeholders(key.name)}),
                );
            }
        }
    }
    files
        .into_iter()
        .map(|(language, file)| {
            (
                format!("app_{language}.arb"),
                serde_json::to_vec_pretty(&Value::Object(file)).unwrap(),
            )
        })
        .collect()
}

/// `{lang}.json` of i18next v4: plural keys as `key_one`, `key_other`.
pub fn i18next_files(keys: &[SourceKey]) -> Vec<(String, Vec<u8>)> {
    let mut files: BTreeMap<&str, serde_json::Map<String, Value>> = BTreeMap::new();
    for key in keys {
        for (language, text) in &key.texts {
            let file = files.entry(language).or_default();
            match text {
                Text::One(text) => {
                    file.insert(key.name.to_owned(), json!(text));
                }
                Text::Forms(forms) => {
                    for (category, form) in forms {
                        file.insert(format!("{}_{category}", key.name), json!(form));
                    }
                }
            }
        }
    }
    files
        .into_iter()
        .map(|(language, file)| {
            (
                format!("{language}.json"),
                serde_json::to_vec_pretty(&Value::Object(file)).unwrap(),
            )
        })
        .collect()
}

/// `{lang}.yml` of Rails: double-quoted scalars, plural keys as a mapping of categories.
pub fn rails_files(keys: &[SourceKey]) -> Vec<(String, Vec<u8>)> {
    let mut files: BTreeMap<&str, String> = BTreeMap::new();
    for key in keys {
        for (language, text) in &key.texts {
            let file = files.entry(language).or_insert_with(|| format!("{language}:\n"));
            match text {
                Text::One(text) => file.push_str(&format!("  {}: {}\n", key.name, quoted(text))),
                Text::Forms(forms) => {
                    file.push_str(&format!("  {}:\n", key.name));
                    for (category, form) in forms {
                        file.push_str(&format!("    {category}: {}\n", quoted(form)));
                    }
                }
            }
        }
    }
    files
        .into_iter()
        .map(|(language, body)| (format!("{language}.yml"), body.into_bytes()))
        .collect()
}

/// `{lang}.po` of a gettext app keyed by source text (no template): `msgid` the English text,
/// each entry flagged `flag` (`python-format`, ...); plural forms in French's formula order.
pub fn po_files(keys: &[SourceKey], flag: &str) -> Vec<(String, Vec<u8>)> {
    let header = |language: &str| {
        let forms = if language == "fr" {
            "nplurals=2; plural=(n > 1);"
        } else {
            "nplurals=2; plural=(n != 1);"
        };
        format!(
            "msgid \"\"\nmsgstr \"\"\n\"Language: {language}\\n\"\n\"MIME-Version: 1.0\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Content-Transfer-Encoding: 8bit\\n\"\n\"Plural-Forms: {forms}\\n\"\n"
        )
    };
    let mut files: BTreeMap<&str, String> = BTreeMap::new();
    for key in keys {
        let base = key.texts.iter().find(|(language, _)| *language == "en").unwrap().1;
        for (language, text) in &key.texts {
            let file = files.entry(language).or_insert_with(|| header(language));
            file.push_str(&format!("\n#, {flag}\n"));
            match (base, text) {
                (Text::One(base), Text::One(text)) => {
                    file.push_str(&format!("msgid {}\nmsgstr {}\n", quoted(base), quoted(text)))
                }
                (Text::Forms(base), Text::Forms(forms)) => {
                    file.push_str(&format!(
                        "msgid {}\nmsgid_plural {}\nmsgstr[0] {}\nmsgstr[1] {}\n",
                        quoted(&base["one"]),
                        quoted(&base["other"]),
                        quoted(&forms["one"]),
                        quoted(&forms["other"])
                    ));
                }
                _ => panic!("a key is plural in every language or in none"),
            }
        }
    }
    files
        .into_iter()
        .map(|(language, body)| (format!("{language}.po"), body.into_bytes()))
        .collect()
}

// ----- Exports read back -----

/// Reads an unpacked export of `format` with a reader of the platform's (or an independent
/// one), for the languages `en` and `fr`.
pub fn read_export(format: &str, dir: &Path, work: &Path) -> Export {
    let mut export = Export::default();
    for language in ["en", "fr"] {
        let texts = match format {
            "json" => read_json_file(&dir.join(format!("{language}.json")))
                .as_object()
                .unwrap()
                .iter()
                .map(|(name, value)| (name.clone(), exported_of(value)))
                .collect(),
            "csv" => read_csv(&dir.join(format!("{language}.csv")), language),
            "android-xml" => read_android(dir, language, work),
            "apple-strings" => read_apple(dir, language),
            "xcstrings" => read_xcstrings(dir, language),
            "i18next" => {
                let mut texts = BTreeMap::new();
                flatten(&read_json_file(&dir.join(format!("{language}.json"))), "", &mut texts);
                group_suffixed_forms(texts)
            }
            "arb" => {
                let file = read_json_file(&dir.join(format!("app_{language}.arb")));
                let file = file.as_object().unwrap();
                if language == "en" {
                    export.arb_metadata = file
                        .iter()
                        .filter_map(|(name, value)| Some((name.strip_prefix('@')?.to_owned(), value.clone())))
                        .filter(|(name, _)| !name.starts_with('@'))
                        .collect();
                }
                file.iter()
                    .filter(|(name, _)| !name.starts_with('@'))
                    .map(|(name, value)| (name.clone(), exported_of(value)))
                    .collect()
            }
            "yaml" => {
                let file = read_yaml(&dir.join(format!("{language}.yml")));
                let mut texts = BTreeMap::new();
                flatten(&file[language], "", &mut texts);
                texts
            }
            "po" => read_po(&dir.join(format!("{language}.po")), language, &mut export.flags),
            "xliff" => read_xliff(&dir.join(format!("{language}.xliff")))["units"]
                .as_array()
                .unwrap()
                .iter()
                .map(|unit| {
                    let text = if unit["target"].is_string() {
                        &unit["target"]
                    } else {
                        &unit["source"]
                    };
                    (
                        unit["name"].as_str().unwrap().to_owned(),
                        Exported::Text(text.as_str().unwrap().to_owned()),
                    )
                })
                .collect(),
            other => panic!("no reader for {other}"),
        };
        export.texts.insert(language.to_owned(), texts);
    }
    export
}

fn read_json_file(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn exported_of(value: &Value) -> Exported {
    match value {
        Value::String(text) => Exported::Text(text.clone()),
        Value::Object(forms) => Exported::Forms(
            forms
                .iter()
                .map(|(category, form)| (category.clone(), form.as_str().unwrap_or_default().to_owned()))
                .collect(),
        ),
        other => Exported::Text(other.to_string()),
    }
}

const CATEGORIES: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// Nested objects or mappings flattened to dotted names; a mapping of CLDR categories is a
/// plural key's forms.
fn flatten(value: &Value, prefix: &str, out: &mut BTreeMap<String, Exported>) {
    let Some(object) = value.as_object() else { return };
    for (name, value) in object {
        let full = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            Value::Object(inner) if !inner.is_empty() && inner.keys().all(|key| CATEGORIES.contains(&key.as_str())) => {
                out.insert(full, exported_of(value));
            }
            Value::Object(_) => flatten(value, &full, out),
            other => {
                out.insert(full, exported_of(other));
            }
        }
    }
}

/// i18next's `key_one`, `key_other` entries as one plural key's forms.
fn group_suffixed_forms(texts: BTreeMap<String, Exported>) -> BTreeMap<String, Exported> {
    let mut out = BTreeMap::new();
    for (name, value) in texts {
        let plural = name
            .rsplit_once('_')
            .filter(|(_, category)| CATEGORIES.contains(category));
        match (plural, value) {
            (Some((base, category)), Exported::Text(form)) => {
                let entry = out
                    .entry(base.to_owned())
                    .or_insert_with(|| Exported::Forms(BTreeMap::new()));
                if let Exported::Forms(forms) = entry {
                    forms.insert(category.to_owned(), form);
                }
            }
            (_, value) => {
                out.insert(name, value);
            }
        }
    }
    out
}

fn read_csv(path: &Path, language: &str) -> BTreeMap<String, Exported> {
    let rows = readback("csv", path);
    let rows = rows.as_array().unwrap();
    let header: Vec<&str> = rows[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| cell.as_str().unwrap())
        .collect();
    let key = header.iter().position(|column| *column == "key").unwrap();
    let text = header.iter().position(|column| *column == language).unwrap();
    rows[1..]
        .iter()
        .map(|row| {
            (
                row[key].as_str().unwrap().to_owned(),
                Exported::Text(row[text].as_str().unwrap().to_owned()),
            )
        })
        .collect()
}

fn read_android(dir: &Path, language: &str, work: &Path) -> BTreeMap<String, Exported> {
    let folder = if language == "en" {
        "values".to_owned()
    } else {
        format!("values-{language}")
    };
    let values = crate::upload::aapt2_values(&dir.join(folder), work, &format!("android-{language}"));
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
                Value::Object(object) => {
                    Exported::Styled(object["text"].as_str().unwrap().to_owned(), object["spans"].clone())
                }
                other => panic!("aapt2 read {other}"),
            };
            (name.clone(), exported)
        })
        .collect()
}

fn read_apple(dir: &Path, language: &str) -> BTreeMap<String, Exported> {
    let lproj = dir.join(format!("{language}.lproj"));
    let strings = gnustep_strings(&[lproj.join("Localizable.strings")]);
    let strings = strings
        .into_iter()
        .next()
        .unwrap()
        .unwrap_or_else(|err| panic!("GNUstep: {err}"));
    let mut texts: BTreeMap<String, Exported> = strings
        .into_iter()
        .map(|(name, text)| (name, Exported::Text(text)))
        .collect();
    let dict = lproj.join("Localizable.stringsdict");
    if dict.is_file() {
        for (name, entry) in readback("plist", &dict).as_object().unwrap() {
            let format = entry["NSStringLocalizedFormatKey"].as_str().unwrap();
            let variable = format
                .split("%#@")
                .nth(1)
                .and_then(|rest| rest.split('@').next())
                .unwrap_or_else(|| panic!("{name}: no variable in {format}"));
            let forms = entry[variable]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(category, _)| CATEGORIES.contains(&category.as_str()))
                .map(|(category, form)| (category.clone(), form.as_str().unwrap().to_owned()))
                .collect();
            texts.insert(name.clone(), Exported::Forms(forms));
        }
    }
    texts
}

fn read_xcstrings(dir: &Path, language: &str) -> BTreeMap<String, Exported> {
    let catalog = read_json_file(&dir.join("Localizable.xcstrings"));
    let mut texts = BTreeMap::new();
    for (name, entry) in catalog["strings"].as_object().unwrap() {
        let localization = &entry["localizations"][language];
        if let Some(value) = localization["stringUnit"]["value"].as_str() {
            texts.insert(name.clone(), Exported::Text(value.to_owned()));
        } else if let Some(plural) = localization["variations"]["plural"].as_object() {
            let forms = plural
                .iter()
                .map(|(category, form)| {
                    (
                        category.clone(),
                        form["stringUnit"]["value"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            texts.insert(name.clone(), Exported::Forms(forms));
        }
    }
    texts
}

/// A Rails YAML file as Ruby's own reader (Psych, under the i18n gem) reads it.
fn read_yaml(path: &Path) -> Value {
    let output = Command::new("ruby")
        .args(["-ryaml", "-rjson", "-e", "puts JSON.generate(YAML.load_file(ARGV[0]))"])
        .arg(path)
        .output()
        .expect("ruby is installed by scripts/test.sh");
    assert!(
        output.status.success(),
        "Psych: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A PO file read by polib: each entry by its key name (`msgid`, or `msgctxt` U+0004 `msgid`),
/// plural forms mapped from the French or English formula (`n > 1`, `n != 1`: index 0 is
/// `one`, 1 is `other`); flags by name into `flags`.
fn read_po(path: &Path, language: &str, flags: &mut BTreeMap<String, Vec<String>>) -> BTreeMap<String, Exported> {
    let script = "import json, sys, polib\n\
        po = polib.pofile(sys.argv[1], wrapwidth=0)\n\
        json.dump([{'msgctxt': e.msgctxt, 'msgid': e.msgid, 'msgid_plural': e.msgid_plural or None, \
        'msgstr': e.msgstr, 'msgstr_plural': {str(k): v for k, v in e.msgstr_plural.items()}, 'flags': e.flags} \
        for e in po if not e.obsolete], sys.stdout, ensure_ascii=False)";
    let output = Command::new(python()).args(["-c", script]).arg(path).output().unwrap();
    assert!(
        output.status.success(),
        "polib: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let entries: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut texts = BTreeMap::new();
    for entry in entries.as_array().unwrap() {
        let msgid = entry["msgid"].as_str().unwrap();
        let name = match entry["msgctxt"].as_str() {
            Some(context) => format!("{context}\u{4}{msgid}"),
            None => msgid.to_owned(),
        };
        let entry_flags = entry["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|flag| flag.as_str().unwrap().to_owned());
        flags.entry(name.clone()).or_default().extend(entry_flags);
        let exported = if entry["msgid_plural"].is_string() {
            let plural = &entry["msgstr_plural"];
            let pick = |index: &str, fallback: &Value| {
                let text = plural[index].as_str().unwrap_or_default();
                if text.is_empty() && language == "en" {
                    fallback.as_str().unwrap().to_owned()
                } else {
                    text.to_owned()
                }
            };
            Exported::Forms(
                [
                    ("one".to_owned(), pick("0", &entry["msgid"])),
                    ("other".to_owned(), pick("1", &entry["msgid_plural"])),
                ]
                .into(),
            )
        } else {
            let text = entry["msgstr"].as_str().unwrap();
            Exported::Text(if text.is_empty() && language == "en" {
                msgid.to_owned()
            } else {
                text.to_owned()
            })
        };
        texts.insert(name, exported);
    }
    texts
}
