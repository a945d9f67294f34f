//! i18next JSON (format v4): `{lang}.json`, or `{lang}/{namespace}.json` for a key with a web
//! namespace. Names are nested at `.` (`home.title` is `{"home": {"title": ...}}`), and a plural
//! key's forms are sibling keys with the CLDR category as suffix (`files_one`, `files_other`),
//! which is how i18next's `t(key, {count})` finds them.
//!
//! Reading flattens nested objects with `.` and gathers `NAME_{category}` members into a plural
//! key `NAME` when `NAME_other` is among them (as i18next needs it to resolve any count);
//! other members with such a suffix are plain keys. Values that are not strings (arrays,
//! numbers, objects for `returnObjects`) are passed over with a warning. A name that cannot
//! nest because a shorter name holds a text at its prefix (`a` and `a.b`) is written whole
//! inside the deepest object there is: i18next finds such a dotted member too.

use std::borrow::Borrow;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use super::{ExportFile, ParsedEntry, ReadError, ReadWarning, json, written_texts};
use crate::domain::model::{Key, PluralCategory, PluralForms, TextRef};
use crate::domain::names::LanguageCode;

/// A language's file, at the path JSON's export gives it.
pub fn render(keys: &[impl Borrow<Key>], language: &LanguageCode, namespace: Option<&str>) -> ExportFile {
    // Sorted by name, the keys under one prefix come together: a prefix's object, when it
    // has one, is the last member of its parent.
    debug_assert!(keys.is_sorted_by(|a, b| a.borrow().name < b.borrow().name));
    let mut root = Tree::default();
    for (key, text) in written_texts(keys, language) {
        match text {
            TextRef::Plain(value) => root.insert(key.name.as_str().to_owned(), value),
            TextRef::Plural(forms) => {
                for (category, value) in forms.iter() {
                    root.insert(form_name(key.name.as_str(), category), value);
                }
            }
        }
    }
    let mut bytes = Vec::with_capacity(keys.len() * 64);
    serde_json::to_writer_pretty(&mut bytes, &root).expect("a tree of strings serialises to JSON");
    bytes.push(b'\n');
    ExportFile {
        path: json::path(language, namespace),
        bytes,
    }
}

/// An object of the file: its members in the order they were first given.
#[derive(Default)]
struct Tree<'a> {
    members: Vec<(String, Member<'a>)>,
}

enum Member<'a> {
    Text(&'a str),
    Object(Tree<'a>),
}

impl<'a> Tree<'a> {
    /// Puts `value` at the path `name` leads to, nesting at each `.` that it can.
    fn insert(&mut self, name: String, value: &'a str) {
        let mut tree = self;
        let mut rest = name.as_str();
        loop {
            let split = rest
                .split_once('.')
                .filter(|(head, tail)| !head.is_empty() && !tail.is_empty());
            let Some((head, tail)) = split else {
                tree.members.push((rest.to_owned(), Member::Text(value)));
                return;
            };
            match tree.members.last() {
                Some((last, Member::Object(_))) if last == head => {}
                // A text holds the prefix: the rest of the name is one dotted member here.
                Some((last, Member::Text(_))) if last == head => {
                    tree.members.push((rest.to_owned(), Member::Text(value)));
                    return;
                }
                _ => tree.members.push((head.to_owned(), Member::Object(Tree::default()))),
            }
            let Some((_, Member::Object(inner))) = tree.members.last_mut() else {
                unreachable!("the last member is the prefix's object")
            };
            tree = inner;
            rest = tail;
        }
    }
}

impl Serialize for Tree<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.members.len()))?;
        for (name, member) in &self.members {
            match member {
                Member::Text(value) => map.serialize_entry(name, value)?,
                Member::Object(tree) => map.serialize_entry(name, tree)?,
            }
        }
        map.end()
    }
}

/// The member name of a plural key's form: the form `one` of `files` is `files_one`.
fn form_name(name: &str, category: PluralCategory) -> String {
    format!("{name}_{}", category.name())
}

/// The entries with each plural entry `split` names (given its name and whether the file has
/// a plain entry of that name too) turned back into a plain entry per form, named as the file
/// names the form's member (`X_one`, `X_other`): for a name the key space holds as a plain
/// text (AFFiNE's `t(X)` beside `t(X, {count})`).
pub fn plain_forms(entries: Vec<ParsedEntry>, split: impl Fn(&str, bool) -> bool) -> Vec<ParsedEntry> {
    let plain: std::collections::HashSet<&str> = entries
        .iter()
        .filter(|entry| entry.text.as_plain().is_some())
        .map(|entry| entry.name.as_str())
        .collect();
    let split: std::collections::HashSet<String> = entries
        .iter()
        .filter(|entry| entry.text.as_plural().is_some())
        .filter(|entry| split(&entry.name, plain.contains(entry.name.as_str())))
        .map(|entry| entry.name.clone())
        .collect();
    if split.is_empty() {
        return entries;
    }
    let mut out = Vec::with_capacity(entries.len() + split.len() * 2);
    for entry in entries {
        match entry.text.as_plural() {
            Some(forms) if split.contains(&entry.name) => {
                for (category, text) in forms.iter() {
                    let mut form = entry.clone();
                    form.name = form_name(&entry.name, category);
                    form.text = crate::domain::model::Text::Plain(text.to_owned());
                    out.push(form);
                }
            }
            _ => out.push(entry),
        }
    }
    out
}

/// The plural key a member's name is a form of: `files_one` is the form `one` of `files`.
pub fn plural_form(name: &str) -> Option<(&str, PluralCategory)> {
    let (base, suffix) = name.rsplit_once('_')?;
    let category = PluralCategory::parse(suffix)?;
    (!base.is_empty()).then_some((base, category))
}

/// Reads a file into entries (in the file's order of first appearance) and the members passed
/// over.
pub fn read(bytes: &[u8]) -> Result<(Vec<ParsedEntry>, Vec<ReadWarning>), ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|err| ReadError::at(err.line(), err.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ReadError::at(1, "an i18next file is one JSON object"));
    };
    let mut leaves = Vec::new();
    let mut warnings = Vec::new();
    flatten("", object, &mut leaves, &mut warnings);
    let others: std::collections::HashSet<String> = leaves
        .iter()
        .filter_map(|(name, _)| name.strip_suffix("_other").map(str::to_owned))
        .collect();
    let is_plural = |base: &str| others.contains(base);
    // Each key's forms gathered first: a key's entry is made once all its forms are read.
    type Pending = (String, Option<String>, Vec<(PluralCategory, String)>);
    let mut pending: Vec<Pending> = Vec::new();
    let mut plurals: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (name, text) in leaves {
        match plural_form(&name).filter(|(base, _)| is_plural(base)) {
            Some((base, category)) => {
                let position = *plurals.entry(base.to_owned()).or_insert_with(|| {
                    pending.push((base.to_owned(), None, Vec::new()));
                    pending.len() - 1
                });
                pending[position].2.push((category, text));
            }
            None => pending.push((name, Some(text), Vec::new())),
        }
    }
    let mut entries = Vec::with_capacity(pending.len());
    for (name, plain, forms) in pending {
        match plain {
            Some(text) => entries.push(ParsedEntry::plain(name, text)),
            None => match PluralForms::new(forms) {
                Ok(forms) => entries.push(ParsedEntry::plural(name, forms)),
                Err(why) => warnings.push(ReadWarning {
                    line: 0,
                    message: format!("{name:?}: {why}; the key is passed over"),
                    key: name,
                }),
            },
        }
    }
    Ok((entries, warnings))
}

fn flatten(
    prefix: &str,
    object: serde_json::Map<String, Value>,
    leaves: &mut Vec<(String, String)>,
    warnings: &mut Vec<ReadWarning>,
) {
    for (name, value) in object {
        let name = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            Value::String(text) => leaves.push((name, text)),
            Value::Object(object) => flatten(&name, object, leaves, warnings),
            other => warnings.push(ReadWarning {
                line: 0,
                message: format!(
                    "{name:?} holds {} rather than a text, and is passed over",
                    match other {
                        Value::Array(_) => "an array",
                        Value::Number(_) => "a number",
                        Value::Bool(_) => "a boolean",
                        _ => "null",
                    }
                ),
                key: name,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::Text;
    use crate::domain::names::KeyName;

    fn key(name: &str, text: Text) -> Key {
        let mut key = Key::named(KeyName::parse(name).unwrap());
        key.plural = matches!(text, Text::Plural(_));
        key.translations = [(LanguageCode::parse("en").unwrap(), text)].into_iter().collect();
        key
    }

    #[test]
    fn names_nest_at_dots_and_plurals_are_suffixed_siblings() {
        let forms = PluralForms::new([
            (PluralCategory::One, "one file".to_owned()),
            (PluralCategory::Other, "{{count}} files".to_owned()),
        ])
        .unwrap();
        let plural = Text::Plural(forms.clone());
        let keys = [
            key("a", Text::Plain("A".into())),
            key("a.b", Text::Plain("A.B".into())),
            key("home.files", Text::Plural(forms)),
            key("home.title", Text::Plain("Home".into())),
            key("trailing.", Text::Plain("T".into())),
        ];
        let file = render(&keys, &LanguageCode::parse("en").unwrap(), None);
        let written: Value = serde_json::from_slice(&file.bytes).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"a": "A", "a.b": "A.B", "home": {"files_one": "one file", "files_other": "{{count}} files", "title": "Home"}, "trailing.": "T"})
        );
        let (entries, warnings) = read(&file.bytes).unwrap();
        assert!(warnings.is_empty());
        let names: Vec<&str> = entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["a", "a.b", "home.files", "home.title", "trailing."]);
        assert_eq!(entries[2].text, plural);
    }

    #[test]
    fn a_suffix_without_its_other_form_is_a_plain_key_and_non_texts_are_passed_over() {
        let (entries, warnings) =
            read(br#"{"count_one": "x", "list": ["a"], "n": 3, "ordinal_ordinal_one": "1st"}"#).unwrap();
        let names: Vec<&str> = entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["count_one", "ordinal_ordinal_one"]);
        assert_eq!(warnings.len(), 2);
        assert!(read(b"[]").is_err());
    }
}
