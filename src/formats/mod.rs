//! The file formats apps load: for each, a pure writer (project, keys and languages to files)
//! beside a pure reader (a file to entries), zip archives in and out ([`archive`]), the
//! mapping of upload paths to languages ([`upload`]), and the download folder.
//!
//! The readers and writers do no I/O; [`downloads`] is the only part that touches the file
//! system.

pub mod android;
pub mod apple;
pub mod archive;
pub mod csv;
pub mod downloads;
pub mod icu;
pub mod json;
pub mod upload;

use std::borrow::Borrow;
use std::collections::HashMap;

use crate::domain::model::{Key, PluralForms, Project, Text, TextRef};
use crate::domain::names::{KeyName, LanguageCode};

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

/// Renders the files of each language (one, or for Apple with plural keys two). `keys` are
/// sorted by name; a key without a translation in a language is left out of that language's
/// files.
pub fn render(
    format: ExportFormat,
    project: &Project,
    keys: &[impl Borrow<Key>],
    languages: &[LanguageCode],
) -> Result<Vec<ExportFile>, ExportError> {
    let export = Export::new(format, project, keys, languages)?;
    Ok(languages.iter().flat_map(|language| export.render(language)).collect())
}

/// An export checked and ready to render one language at a time, in any order and from
/// several threads: what every language's files share (Android's resource names, whether
/// Apple needs `.stringsdict` files) is worked out once.
pub struct Export<'a, K> {
    format: ExportFormat,
    base_language: &'a LanguageCode,
    keys: &'a [K],
    /// Android's resource name of every key some file holds.
    android_names: HashMap<KeyName, String>,
    has_plurals: bool,
}

impl<'a, K: Borrow<Key>> Export<'a, K> {
    /// Checks that the keys can be exported to `languages` (Android resource names must not
    /// clash).
    pub fn new(
        format: ExportFormat,
        project: &'a Project,
        keys: &'a [K],
        languages: &[LanguageCode],
    ) -> Result<Self, ExportError> {
        let android_names = if format == ExportFormat::AndroidXml {
            // Only keys that some file holds can clash in `R`.
            let written: Vec<&Key> = keys
                .iter()
                .map(Borrow::borrow)
                .filter(|key| {
                    languages
                        .iter()
                        .any(|language| key.translations.get(language).is_some())
                })
                .collect();
            android::resource_names(&written)?
        } else {
            HashMap::new()
        };
        Ok(Self {
            format,
            base_language: &project.base_language,
            keys,
            android_names,
            has_plurals: keys.iter().any(|key| key.borrow().plural),
        })
    }

    /// The paths of the files `language` renders to, in the order [`Export::render`] gives
    /// them.
    pub fn paths(&self, language: &LanguageCode) -> Vec<String> {
        match self.format {
            ExportFormat::Json => vec![json::path(language)],
            ExportFormat::Csv => vec![csv::path(language)],
            ExportFormat::AndroidXml => vec![android::path(language, language == self.base_language)],
            ExportFormat::AppleStrings => apple::paths(language, self.has_plurals),
        }
    }

    /// The files of one language.
    pub fn render(&self, language: &LanguageCode) -> Vec<ExportFile> {
        match self.format {
            ExportFormat::Json => vec![json::render(self.keys, language)],
            ExportFormat::Csv => vec![csv::render(self.keys, language)],
            ExportFormat::AndroidXml => vec![android::render(
                self.keys,
                &self.android_names,
                language,
                language == self.base_language,
            )],
            ExportFormat::AppleStrings => apple::render(self.keys, language, self.has_plurals),
        }
    }
}

/// One entry read from an uploaded file: a key's text in the file's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEntry {
    pub name: String,
    pub text: Text,
    /// The comment directly above the entry, if any.
    pub description: Option<String>,
    /// Whether the text is Android styled-string markup (see `Key::markup`).
    pub markup: bool,
    /// The line of the entry in its file (0 when unknown).
    pub line: usize,
}

impl ParsedEntry {
    pub fn plain(name: String, text: String) -> Self {
        Self {
            name,
            text: Text::Plain(text),
            description: None,
            markup: false,
            line: 0,
        }
    }

    pub fn plural(name: String, forms: PluralForms) -> Self {
        Self {
            text: Text::Plural(forms),
            ..Self::plain(name, String::new())
        }
    }

    pub fn at_line(self, line: usize) -> Self {
        Self { line, ..self }
    }
}

/// Why a file could not be read: a message, with the line when it is known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|line| format!("line {line}: ")).unwrap_or_default())]
pub struct ReadError {
    pub line: Option<usize>,
    pub message: String,
}

impl ReadError {
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            message: message.into(),
        }
    }

    pub fn unplaced(message: impl Into<String>) -> Self {
        Self {
            line: None,
            message: message.into(),
        }
    }
}

/// The texts of `language`, in key order, skipping keys without one.
fn texts<'a>(keys: &'a [impl Borrow<Key>], language: &'a LanguageCode) -> impl Iterator<Item = (&'a Key, TextRef<'a>)> {
    let mut hint = 0;
    keys.iter()
        .map(Borrow::borrow)
        .filter_map(move |key: &Key| key.translations.get_near(language, &mut hint).map(|text| (key, text)))
}
