//! Export: pure writers from a project, its keys and a list of languages to files, zipping,
//! and the download folder.
//!
//! The writers do no I/O; [`downloads`] is the only part that touches the file system.

pub mod android;
pub mod apple;
pub mod archive;
pub mod csv;
pub mod downloads;
pub mod json;

use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;

/// The file formats apps load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Csv,
    AndroidXml,
    AppleStrings,
}

impl ExportFormat {
    pub const NAMES: &'static str = "json, csv, android-xml, apple-strings";

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            "android-xml" => Some(Self::AndroidXml),
            "apple-strings" => Some(Self::AppleStrings),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Csv => "csv",
            Self::AndroidXml => "android-xml",
            Self::AppleStrings => "apple-strings",
        }
    }
}

/// One exported file: its path inside the export (also inside the zip) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Why an export cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Two keys map to the same Android resource name.
    #[error("{0}")]
    NameClash(String),
}

/// Renders one file per language. `keys` are sorted by name; a key without a translation in a
/// language is left out of that language's file.
pub fn render(
    format: ExportFormat,
    project: &Project,
    keys: &[Key],
    languages: &[LanguageCode],
) -> Result<Vec<ExportFile>, ExportError> {
    match format {
        ExportFormat::Json => Ok(languages.iter().map(|language| json::render(keys, language)).collect()),
        ExportFormat::Csv => Ok(languages.iter().map(|language| csv::render(keys, language)).collect()),
        ExportFormat::AndroidXml => {
            let names = android::resource_names(keys)?;
            Ok(languages
                .iter()
                .map(|language| android::render(keys, &names, language, *language == project.base_language))
                .collect())
        }
        ExportFormat::AppleStrings => Ok(languages.iter().map(|language| apple::render(keys, language)).collect()),
    }
}

/// The texts of `language`, in key order, skipping keys without one.
fn texts<'a>(keys: &'a [Key], language: &'a LanguageCode) -> impl Iterator<Item = (&'a Key, &'a str)> {
    keys.iter()
        .filter_map(move |key| key.translations.get(language).map(|text| (key, text.as_str())))
}
