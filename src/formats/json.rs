//! `{lang}.json`: one object of key name to text, keys sorted, UTF-8 without BOM; a plural
//! key's value is an object of its forms in CLDR order.
//!
//! Reading takes the same shape, and also nested objects that are not plural forms
//! (`{"home": {"title": "..."}}`), whose names are joined with `.` (`home.title`).

use std::borrow::Borrow;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use super::{ExportFile, ParsedEntry, ReadError, written_texts};
use crate::domain::model::{Key, PluralCategory, PluralForms, TextRef};
use crate::domain::names::LanguageCode;

/// A language's file: `{lang}.json`, or `{lang}/{namespace}.json` for a web namespace.
pub fn render(keys: &[impl Borrow<Key>], language: &LanguageCode, namespace: Option<&str>) -> ExportFile {
    // The keys come sorted by name, the order a map of names has, so they are written as
    // they come.
    debug_assert!(keys.is_sorted_by(|a, b| a.borrow().name < b.borrow().name));
    let object = InOrder(|| written_texts(keys, language).map(|(key, text)| (key.name.as_str(), JsonText(text))));
    let mut bytes = Vec::with_capacity(keys.len() * 64);
    serde_json::to_writer_pretty(&mut bytes, &object).expect("a map of strings serialises to JSON");
    bytes.push(b'\n');
    ExportFile {
        path: path(language, namespace),
        bytes,
    }
}

/// The file a language's texts go to: `fr.json`, or `fr/common.json` for a namespace.
pub fn path(language: &LanguageCode, namespace: Option<&str>) -> String {
    match namespace {
        Some(namespace) => format!("{language}/{namespace}.json"),
        None => format!("{language}.json"),
    }
}

/// A JSON object of the entries an iterator gives, in its order.
struct InOrder<F>(F);

impl<'a, F, I> Serialize for InOrder<F>
where
    F: Fn() -> I,
    I: Iterator<Item = (&'a str, JsonText<'a>)>,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0())
    }
}

struct JsonText<'a>(TextRef<'a>);

impl Serialize for JsonText<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            TextRef::Plain(text) => serializer.serialize_str(text),
            TextRef::Plural(forms) => {
                let mut map = serializer.serialize_map(Some(forms.iter().count()))?;
                for (category, text) in forms.iter() {
                    map.serialize_entry(category.name(), text)?;
                }
                map.end()
            }
        }
    }
}

/// Reads a `{lang}.json` file into entries, in the file's order of names.
pub fn read(bytes: &[u8]) -> Result<Vec<ParsedEntry>, ReadError> {
    read_object(bytes, true)
}

/// The texts of a JSON file of another format (ARB, i18next, an app's file patched), passing
/// over the members that hold none (a `null`, a number), which those files may have.
pub fn read_texts(bytes: &[u8]) -> Result<Vec<ParsedEntry>, ReadError> {
    read_object(bytes, false)
}

/// The texts of a file holding one JSON object; members of other types are refused when
/// `strict`, else passed over.
fn read_object(bytes: &[u8], strict: bool) -> Result<Vec<ParsedEntry>, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|err| ReadError::at(err.line(), err.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ReadError::at(
            1,
            "the file must hold one JSON object of key names to texts",
        ));
    };
    let mut entries = Vec::new();
    flatten("", object, &mut entries, strict)?;
    Ok(entries)
}

/// Adds the texts of `object` to `entries`, named by their paths; a member of another type is
/// refused when `strict`, else passed over.
fn flatten(
    prefix: &str,
    object: serde_json::Map<String, Value>,
    entries: &mut Vec<ParsedEntry>,
    strict: bool,
) -> Result<(), ReadError> {
    for (name, value) in object {
        let name = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            Value::String(text) => entries.push(ParsedEntry::plain(name, text)),
            Value::Object(object) if is_forms(&object) => {
                let forms = object
                    .into_iter()
                    .map(|(category, text)| (PluralCategory::parse(&category).expect("checked"), text))
                    .map(|(category, text)| (category, text.as_str().unwrap_or_default().to_owned()));
                let forms =
                    PluralForms::new(forms).map_err(|err| ReadError::unplaced(format!("key {name:?}: {err}")))?;
                entries.push(ParsedEntry::plural(name, forms));
            }
            Value::Object(object) => flatten(&name, object, entries, strict)?,
            _ if !strict => {}
            other => {
                return Err(ReadError::unplaced(format!(
                    "key {name:?} has a {} where a text or an object belongs",
                    json_type(&other)
                )));
            }
        }
    }
    Ok(())
}

/// An object whose every member is a CLDR form name with a string, `other` among them.
fn is_forms(object: &serde_json::Map<String, Value>) -> bool {
    object.contains_key("other")
        && object
            .iter()
            .all(|(name, value)| PluralCategory::parse(name).is_some() && value.is_string())
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surrogate_pair_written_as_two_escapes_is_one_character() {
        let entries = read(br#"{"run": "\uD83C\uDFC3 go"}"#).unwrap();
        assert_eq!(
            entries[0].text,
            crate::domain::model::Text::Plain("\u{1F3C3} go".into())
        );
    }
}
