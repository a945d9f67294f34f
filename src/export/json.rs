//! `{lang}.json`: one flat object of key name to text, keys sorted, UTF-8 without BOM.

use std::collections::BTreeMap;

use super::{ExportFile, texts};
use crate::domain::model::Key;
use crate::domain::names::LanguageCode;

pub fn render(keys: &[Key], language: &LanguageCode) -> ExportFile {
    let object: BTreeMap<&str, &str> = texts(keys, language)
        .map(|(key, text)| (key.name.as_str(), text))
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&object).expect("a map of strings serialises to JSON");
    bytes.push(b'\n');
    ExportFile {
        path: format!("{language}.json"),
        bytes,
    }
}
