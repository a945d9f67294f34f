//! Flutter ARB files (`app_{lang}.arb`, `pt_BR` with an underscore as Flutter names them): a
//! JSON object with `@@locale`, each key's text, and beside it in the base language's file (the
//! template Flutter generates code from) `@key` with its `description`.
//!
//! A plural key's text is an ICU message, `{count, plural, one{...} other{...}}`, and its
//! `@key` declares the `count` placeholder (`"type": "num"`); an uploaded text that is wholly a
//! plural message becomes a plural key (any argument name). Other texts are written as they
//! are: ARB texts are ICU messages already (`{name}` is a placeholder). Keys Flutter's
//! generator takes must be Dart identifiers; the export writes names as they are.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::{ExportFile, ParsedEntry, ReadError, ReadWarning, icu, written_texts};
use crate::domain::model::{Key, Syntax, Text, TextRef};
use crate::domain::names::LanguageCode;

/// A language's file: `app_fr.arb`, `app_pt_BR.arb`.
pub fn path(language: &LanguageCode) -> String {
    format!("app_{}.arb", language.as_str().replace('-', "_"))
}

/// The language a file name gives: what follows the first `_` that leaves a language code
/// (`app_pt_BR.arb` is `pt-BR`, `intl_messages_fr.arb` is `fr`).
pub fn language_of(file: &str) -> Option<String> {
    let stem = file.strip_suffix(".arb")?;
    stem.match_indices('_').find_map(|(at, _)| {
        let candidate = stem[at + 1..].replace('_', "-");
        LanguageCode::parse(&candidate).ok().map(|_| candidate)
    })
}

pub fn render(keys: &[impl Borrow<Key>], language: &LanguageCode, is_template: bool) -> ExportFile {
    // Each `@key` right after its key, as Flutter's files have them.
    let mut object: Vec<(String, Value)> = Vec::with_capacity(keys.len() + 1);
    object.push(("@@locale".into(), json!(language.as_str().replace('-', "_"))));
    for (key, text) in written_texts(keys, language) {
        let name = key.name.as_str();
        let value = match text {
            // A text that is no ICU message (literal braces, from another format) is quoted
            // as ICU and Flutter's `use-escaping: true` read it; a message stays as it is.
            TextRef::Plain(value) if !icu::is_message(value) => icu::quote_literal(value),
            TextRef::Plain(value) => value.to_owned(),
            TextRef::Plural(forms) => icu::write_plural(forms),
        };
        object.push((name.to_owned(), json!(value)));
        if !is_template {
            continue;
        }
        let mut meta = Map::new();
        if !key.description.is_empty() {
            meta.insert("description".into(), json!(key.description));
        }
        if text.as_plural().is_some() {
            meta.insert("placeholders".into(), json!({"count": {"type": "num"}}));
        } else if let (Some(Syntax::Icu), TextRef::Plain(value)) = (key.placeholders, text) {
            // Flutter's generator needs each placeholder's type.
            let declared = super::placeholders::arb_declarations(value);
            if !declared.is_empty() {
                let mut placeholders = Map::new();
                for (name, kind) in declared {
                    placeholders.insert(name, json!({"type": kind}));
                }
                meta.insert("placeholders".into(), Value::Object(placeholders));
            }
        }
        if !meta.is_empty() {
            object.push((format!("@{name}"), Value::Object(meta)));
        }
    }
    let mut bytes = serde_json::to_vec_pretty(&Ordered(object)).expect("JSON values serialise");
    bytes.push(b'\n');
    ExportFile {
        path: path(language),
        bytes,
    }
}

/// A JSON object of members in the order given.
struct Ordered(Vec<(String, Value)>);

impl serde::Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

/// Reads a file into entries (in name order) and the values passed over.
pub fn read(bytes: &[u8]) -> Result<(Vec<ParsedEntry>, Vec<ReadWarning>), ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|err| ReadError::at(err.line(), err.to_string()))?;
    let Value::Object(object) = value else {
        return Err(ReadError::at(1, "an ARB file is one JSON object"));
    };
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (name, value) in &object {
        if name.starts_with('@') {
            continue;
        }
        let Value::String(text) = value else {
            warnings.push(ReadWarning {
                line: 0,
                key: name.clone(),
                message: format!("{name:?} is not a text, and is passed over"),
            });
            continue;
        };
        // A plural message whose cases a key's CLDR forms cannot hold (ICU's exact values
        // `=0`, an argument or `#` inside a case, `offset:`), a `select` and a message nested
        // in another are held whole as one text, as the file writes it: Flutter reads each
        // language's file on its own, and the text goes back byte for byte.
        let text = match icu::read_plural(text) {
            Some(Ok(forms)) => Text::Plural(forms),
            None | Some(Err(_)) => Text::Plain(icu::unquote_literal(text).unwrap_or_else(|| text.clone())),
        };
        let mut entry = ParsedEntry::plain(name.clone(), String::new());
        entry.text = text;
        entry.description = object
            .get(&format!("@{name}"))
            .and_then(|meta| meta.get("description"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        entries.push(entry);
    }
    Ok((entries, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_flutters_locales() {
        assert_eq!(language_of("app_pt_BR.arb").as_deref(), Some("pt-BR"));
        assert_eq!(language_of("intl_messages_fr.arb").as_deref(), Some("fr"));
        assert_eq!(language_of("app_zh_Hant_TW.arb").as_deref(), Some("zh-Hant-TW"));
        assert_eq!(language_of("app.arb"), None);
        assert_eq!(path(&LanguageCode::parse("pt-BR").unwrap()), "app_pt_BR.arb");
    }

    #[test]
    fn plural_messages_are_plural_keys_and_descriptions_are_read() {
        let file = br#"{"@@locale": "pl", "files": "{count, plural, one{plik} few{pliki} many{plikow} other{pliku}}", "@files": {"description": "Files", "placeholders": {"count": {}}}, "hello": "Hi {name}", "list": ["a"], "other": "{n, plural, one{plik} other{pliku}}"}"#;
        let (entries, warnings) = read(file).unwrap();
        assert_eq!(entries.len(), 3);
        assert!(matches!(entries[0].text, Text::Plural(_)));
        assert_eq!(entries[0].description.as_deref(), Some("Files"));
        assert_eq!(entries[1].text, Text::Plain("Hi {name}".into()));
        // A plural of another argument is held as written: forms would be written back with
        // `count`, which the app's `@other` placeholders do not name.
        assert_eq!(
            entries[2].text,
            Text::Plain("{n, plural, one{plik} other{pliku}}".into())
        );
        assert_eq!(warnings.len(), 1, "the list is passed over");
    }

    #[test]
    fn exact_values_selects_and_nested_messages_are_held_whole_as_one_text() {
        // Finamp's and Flutter Gallery's plurals, and Finamp's select with an empty branch.
        let messages = [
            "{count,plural, =0{No missing images found} =1{Downloaded {count} missing image} other{Downloaded {count} missing images}}",
            "{count,plural,=1{{count} item} other{{count} items}}",
            "{quantity, plural, =0{NO ITEMS} =1{1 ITEM} other{{quantity} ITEMS}}",
            "Delete the {itemType, select, album{album} track{song} other{}} '{itemName}'?",
            "{gender, select, female{{n, plural, one{her file} other{her files}}} other{their files}}",
        ];
        for message in messages {
            let file = serde_json::to_vec(&json!({ "k": message, "@k": {"placeholders": {"count": {"type": "int"}}} }))
                .unwrap();
            let (entries, warnings) = read(&file).unwrap();
            assert!(warnings.is_empty(), "{message}: {warnings:?}");
            assert_eq!(entries[0].text, Text::Plain(message.into()), "{message}");
        }
    }
}
