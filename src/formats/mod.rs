//! The file formats apps load: for each, a pure writer (project, keys and languages to files)
//! beside a pure reader (a file to entries), zip archives in and out ([`archive`]), the
//! mapping of upload paths to languages ([`upload`]), and the download folder.
//!
//! The readers and writers do no I/O; [`downloads`] is the only part that touches the file
//! system.

pub mod android;
pub mod apple;
pub mod arb;
pub mod archive;
pub mod chunked;
pub mod csv;
pub mod csv_table;
pub mod downloads;
pub mod escape;
pub mod gzip;
pub mod i18next;
pub mod icu;
pub mod in_order;
pub mod json;
pub mod kept;
pub mod namespaces;
pub mod patch;
pub mod placeholders;
pub mod po;
pub mod upload;
pub mod xcstrings;
pub mod xliff;
pub mod yaml;

use std::borrow::Borrow;
use std::collections::HashMap;

use crate::domain::key_files::Platform;
use crate::domain::model::{Key, PluralForms, Project, Text, TextRef, XcodeEntry};
use crate::domain::names::{KeyName, LanguageCode};

/// The file formats apps load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Csv,
    /// One CSV file with every language as a column (Godot's translation tables).
    CsvTable,
    AndroidXml,
    AppleStrings,
    /// Xcode String Catalogs: one file per table for every language.
    Xcstrings,
    /// i18next JSON v4: nested at `.`, plural forms as `_one`/`_other` siblings.
    I18next,
    /// gettext `{lang}.po` and `template.pot`.
    Po,
    /// Flutter `app_{lang}.arb`.
    Arb,
    /// XLIFF 1.2 `{lang}.xliff`, as Xcode exports it.
    Xliff,
    /// XLIFF 2.0 `{lang}.xliff` (the API's `type=xliff&version=2.0`).
    Xliff2,
    /// Rails i18n `{lang}.yml`.
    Yaml,
}

impl ExportFormat {
    pub const NAMES: &'static str =
        "json, csv, csv-table, android-xml, apple-strings, xcstrings, i18next, po, arb, xliff, xliff2, yaml";

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            "csv-table" => Some(Self::CsvTable),
            "android-xml" => Some(Self::AndroidXml),
            "apple-strings" => Some(Self::AppleStrings),
            "xcstrings" => Some(Self::Xcstrings),
            "i18next" => Some(Self::I18next),
            "po" => Some(Self::Po),
            "arb" => Some(Self::Arb),
            "xliff" => Some(Self::Xliff),
            "xliff2" => Some(Self::Xliff2),
            "yaml" => Some(Self::Yaml),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Csv => "csv",
            Self::CsvTable => "csv-table",
            Self::AndroidXml => "android-xml",
            Self::AppleStrings => "apple-strings",
            Self::Xcstrings => "xcstrings",
            Self::I18next => "i18next",
            Self::Po => "po",
            Self::Arb => "arb",
            Self::Xliff => "xliff",
            Self::Xliff2 => "xliff2",
            Self::Yaml => "yaml",
        }
    }

    /// The API's parameters naming the format: `type=xliff&version=2.0` for XLIFF 2.0, else
    /// `type=` the name.
    pub fn api_query(self) -> String {
        match self {
            Self::Xliff2 => "type=xliff&version=2.0".to_owned(),
            format => format!("type={}", format.name()),
        }
    }

    /// Whether an app's files of the format are found by a pattern with `{lang}` (one file per
    /// language), rather than by the platform's folders (Android, Apple) or as catalogs.
    pub fn uses_pattern(self) -> bool {
        !matches!(
            self,
            Self::AndroidXml | Self::AppleStrings | Self::Xcstrings | Self::CsvTable
        )
    }

    /// Whether one file holds every language (String Catalogs, CSV tables): such an export is
    /// made by [`Export::render_all`], not language by language.
    pub fn is_multilingual(self) -> bool {
        matches!(self, Self::Xcstrings | Self::CsvTable)
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
/// Apple needs `.stringsdict` files, which key goes to which file) is worked out once.
pub struct Export<'a, K> {
    format: ExportFormat,
    /// The project's name (PO headers' `Project-Id-Version`).
    project_name: &'a str,
    base_language: &'a LanguageCode,
    keys: &'a [K],
    /// Android's resource name of every key some file holds.
    android_names: HashMap<KeyName, String>,
    has_plurals: bool,
    /// The files each language is written to, in path order: the format's default file (for
    /// every key without a file of this platform) and one per file that keys name.
    groups: Vec<Group<'a>>,
    /// Whether some key is `translatable: false` (left out of every language but the base).
    has_untranslatable: bool,
    /// Whether the Apple `.strings` writer converts the Java printf keys left in their syntax
    /// (see [`placeholders::converted`]'s `on_write`).
    converting_on_write: bool,
}

/// One file of each language: its name (see [`KeyFiles`]) and its keys; `keys` is `None` for
/// the default file when no key names another, so the common case copies nothing.
struct Group<'a> {
    file: Option<&'a str>,
    keys: Option<Vec<&'a Key>>,
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
            project_name: project.name.as_str(),
            base_language: &project.base_language,
            keys,
            android_names,
            has_plurals: keys.iter().any(|key| key.borrow().plural),
            groups: groups(format, keys),
            has_untranslatable: keys.iter().any(|key| !key.borrow().translatable),
            converting_on_write: false,
        })
    }

    /// The export with an Apple `.strings` writer that converts the keys
    /// [`placeholders::converted`] left to it (`on_write`) as it escapes their texts.
    pub fn converting_on_write(mut self) -> Self {
        self.converting_on_write = self.format == ExportFormat::AppleStrings;
        self
    }

    pub fn format(&self) -> ExportFormat {
        self.format
    }

    pub fn base_language(&self) -> &LanguageCode {
        self.base_language
    }

    /// The paths of the files `language` may render to, in the order [`Export::render`] gives
    /// them (it leaves out a named file that has no text in the language).
    pub fn paths(&self, language: &LanguageCode) -> Vec<String> {
        self.groups
            .iter()
            .flat_map(|group| self.group_paths(group, language))
            .collect()
    }

    /// The paths of the files [`Export::render`] gives for `language`, in its order, without
    /// rendering them.
    pub fn rendered_paths(&self, language: &LanguageCode) -> Vec<String> {
        self.groups
            .iter()
            .filter(|group| self.renders_group(group, language))
            .flat_map(|group| self.group_paths(group, language))
            .collect()
    }

    /// Whether [`Export::render`] writes `group`'s files for `language`.
    fn renders_group(&self, group: &Group<'_>, language: &LanguageCode) -> bool {
        if self.always_rendered(group) {
            return true;
        }
        let leave_out = self.has_untranslatable && language != self.base_language && !self.renders_together();
        let has_text = |key: &Key| (!leave_out || key.translatable) && key.translations.get(language).is_some();
        match &group.keys {
            Some(keys) => keys.iter().any(|key| has_text(key)),
            None => self.keys.iter().any(|key| has_text(key.borrow())),
        }
    }

    /// Whether `group`'s files are written in every language, with or without texts: Android's
    /// and Apple's default files always, as before keys remembered files, and so is the web's
    /// `{lang}.json` while no key names a namespace.
    fn always_rendered(&self, group: &Group<'_>) -> bool {
        self.groups.len() == 1
            || (!matches!(self.format, ExportFormat::Json | ExportFormat::I18next)
                && is_default(self.format, group.file))
    }

    fn group_paths(&self, group: &Group<'_>, language: &LanguageCode) -> Vec<String> {
        let is_base = language == self.base_language;
        match self.format {
            ExportFormat::Json | ExportFormat::I18next => vec![json::path(language, group.file)],
            ExportFormat::Csv => vec![csv::path(language)],
            // The base language's files bring the template along.
            ExportFormat::Po if is_base => vec![po::path(language), po::TEMPLATE.to_owned()],
            ExportFormat::Po => vec![po::path(language)],
            ExportFormat::Arb => vec![arb::path(language)],
            ExportFormat::Xliff | ExportFormat::Xliff2 => vec![xliff::path(language)],
            ExportFormat::Yaml => vec![yaml::path(language)],
            ExportFormat::AndroidXml => vec![android::path(language, is_base, group_file(group))],
            ExportFormat::AppleStrings => {
                let table = group_file(group);
                let (strings, plurals) = self.apple_files(group, table);
                apple::paths(language, table, strings, plurals)
            }
            ExportFormat::Xcstrings => vec![xcstrings::path(group_file(group))],
            ExportFormat::CsvTable => vec![csv_table::PATH.to_owned()],
        }
    }

    /// The files of a format that holds every language in one file ([`ExportFormat::
    /// is_multilingual`]): one String Catalog per table, in path order.
    pub fn render_all(&self, languages: &[LanguageCode]) -> Vec<ExportFile> {
        if self.format == ExportFormat::CsvTable {
            // One table, the base language's column first.
            let mut columns: Vec<LanguageCode> = vec![self.base_language.clone()];
            columns.extend(
                languages
                    .iter()
                    .filter(|language| *language != self.base_language)
                    .cloned(),
            );
            return vec![csv_table::render(self.keys, &columns, csv_table::PATH)];
        }
        self.groups
            .iter()
            .map(|group| match &group.keys {
                Some(keys) => xcstrings::render(keys, self.base_language, languages, group_file(group)),
                None => xcstrings::render(self.keys, self.base_language, languages, group_file(group)),
            })
            .collect()
    }

    /// The path of the one file of a format that holds every language in one file, when its
    /// keys all go to one table: [`Export::write_single_gzip`] writes it.
    pub fn single_file(&self) -> Option<String> {
        match self.groups.as_slice() {
            _ if self.format == ExportFormat::CsvTable => Some(csv_table::PATH.to_owned()),
            [group] if self.format.is_multilingual() => Some(xcstrings::path(group_file(group))),
            _ => None,
        }
    }

    /// Whether [`Export::write_together`] renders several languages in one pass over the
    /// keys (formats whose every file repeats the base text: PO and XLIFF), so that a thread
    /// should take a few languages at once rather than one.
    pub fn renders_together(&self) -> bool {
        matches!(
            self.format,
            ExportFormat::Po | ExportFormat::Xliff | ExportFormat::Xliff2
        )
    }

    /// The files of `languages`, in their order, each written into the writer `open` makes
    /// for its path: what [`Export::render`] gives for each language, but where
    /// [`Export::renders_together`] in one pass over the keys and into the writers as it is
    /// made (see [`chunked`]), never whole in memory.
    pub fn write_together<W: std::io::Write>(
        &self,
        languages: &[&LanguageCode],
        mut open: impl FnMut(&str) -> std::io::Result<W>,
    ) -> std::io::Result<Vec<(String, W)>> {
        let base = self.base_language;
        match self.format {
            // One file set for every key (no platform files), so `groups` is one group of all.
            ExportFormat::Po => {
                let files = po::files_of(languages, base);
                let paths: Vec<String> = files.iter().map(po::FileOf::path).collect();
                let sinks = files
                    .into_iter()
                    .zip(&paths)
                    .map(|(file, path)| Ok((file, open(path)?)))
                    .collect::<std::io::Result<_>>()?;
                let written = po::write_each(self.keys, base, sinks, self.project_name)?;
                Ok(paths.into_iter().zip(written).collect())
            }
            ExportFormat::Xliff | ExportFormat::Xliff2 => {
                let paths: Vec<String> = languages.iter().map(|language| xliff::path(language)).collect();
                let sinks = languages
                    .iter()
                    .zip(&paths)
                    .map(|(&language, path)| Ok((language, open(path)?)))
                    .collect::<std::io::Result<_>>()?;
                let written = xliff::write_each(self.keys, base, sinks, self.project_name, self.xliff_version())?;
                Ok(paths.into_iter().zip(written).collect())
            }
            _ => {
                let mut written = Vec::new();
                for language in languages {
                    for file in self.render(language) {
                        let mut sink = open(&file.path)?;
                        sink.write_all(&file.bytes)?;
                        written.push((file.path, sink));
                    }
                }
                Ok(written)
            }
        }
    }

    fn xliff_version(&self) -> xliff::Version {
        if self.format == ExportFormat::Xliff2 {
            xliff::Version::V2
        } else {
            xliff::Version::V1
        }
    }

    /// Writes the file [`Export::single_file`] names into `out` as it is made, gzip-compressed
    /// (see [`xcstrings::write_gzip`]): what [`Export::render_all`] gives as that file, never
    /// whole in memory.
    pub fn write_single_gzip(&self, languages: &[LanguageCode], mut out: impl std::io::Write) -> std::io::Result<()> {
        if self.format == ExportFormat::CsvTable {
            // A table is small beside a catalog: made whole, then compressed.
            use std::io::Write as _;
            let mut encoder = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
            for file in self.render_all(languages) {
                encoder.write_all(&file.bytes)?;
            }
            encoder.finish()?;
            return Ok(());
        }
        match self.groups.as_slice() {
            [Group { keys: Some(keys), .. }] => xcstrings::write_gzip(keys, self.base_language, languages, out),
            _ => xcstrings::write_gzip(self.keys, self.base_language, languages, out),
        }
    }

    /// The files of one language.
    pub fn render(&self, language: &LanguageCode) -> Vec<ExportFile> {
        let is_base = language == self.base_language;
        // PO and XLIFF leave base-only keys out of the other languages' files themselves,
        // rendering several languages in one pass (and XLIFF 2.0's unit ids are given over
        // all keys, the same in every file).
        let leaves_out_itself = self.renders_together();
        let mut files = Vec::new();
        for group in &self.groups {
            let rendered = match (&group.keys, self.has_untranslatable && !is_base && !leaves_out_itself) {
                (None, false) => self.render_group(self.keys, group, language),
                (Some(keys), false) => self.render_group(keys, group, language),
                (keys, true) => {
                    let translatable: Vec<&Key> = match keys {
                        Some(keys) => keys.iter().copied().filter(|key| key.translatable).collect(),
                        None => self
                            .keys
                            .iter()
                            .map(Borrow::borrow)
                            .filter(|key| key.translatable)
                            .collect(),
                    };
                    self.render_group(&translatable, group, language)
                }
            };
            files.extend(rendered);
        }
        files
    }

    /// The files of one language that [`Export::render`] gives at `paths`, rendering only
    /// those (PO's base language writes its `.po` and the template).
    pub fn render_only(&self, language: &LanguageCode, paths: &[&str]) -> Vec<ExportFile> {
        if self.format == ExportFormat::Po {
            let files = po::files_of(&[language], self.base_language)
                .into_iter()
                .filter(|file| paths.contains(&file.path().as_str()))
                .collect();
            return po::render_files(self.keys, self.base_language, files, self.project_name);
        }
        let mut files = self.render(language);
        files.retain(|file| paths.contains(&file.path.as_str()));
        files
    }

    fn render_group<B: Borrow<Key>>(&self, keys: &[B], group: &Group<'_>, language: &LanguageCode) -> Vec<ExportFile> {
        // A file a key names is written only in the languages it has texts in.
        if !self.always_rendered(group) && texts(keys, language).next().is_none() {
            return Vec::new();
        }
        match self.format {
            ExportFormat::Json => vec![json::render(keys, language, group.file)],
            ExportFormat::I18next => vec![i18next::render(keys, language, group.file)],
            ExportFormat::Csv => vec![csv::render(keys, language)],
            // A table holds every language: [`Export::render_all`] writes it.
            ExportFormat::CsvTable => vec![csv_table::render(keys, std::slice::from_ref(language), csv_table::PATH)],
            ExportFormat::Arb => vec![arb::render(keys, language, language == self.base_language)],
            ExportFormat::Yaml => vec![yaml::render(keys, language)],
            ExportFormat::Xliff | ExportFormat::Xliff2 => vec![xliff::render(
                keys,
                self.base_language,
                language,
                self.project_name,
                self.xliff_version(),
            )],
            ExportFormat::Po => po::render_each(keys, self.base_language, &[language], self.project_name),
            ExportFormat::AndroidXml => vec![android::render(
                keys,
                &self.android_names,
                language,
                language == self.base_language,
                group_file(group),
            )],
            ExportFormat::AppleStrings => {
                let table = group_file(group);
                let (strings, plurals) = self.apple_files(group, table);
                apple::render(keys, language, table, (strings, plurals), self.converting_on_write)
            }
            ExportFormat::Xcstrings => vec![xcstrings::render(
                keys,
                self.base_language,
                std::slice::from_ref(language),
                group_file(group),
            )],
        }
    }

    /// Whether a table's `.strings` and `.stringsdict` are written: `Localizable.strings`
    /// always and its `.stringsdict` when the project has plural keys (as before tables);
    /// another table's files when it has keys of their kind.
    fn apple_files(&self, group: &Group<'_>, table: &str) -> (bool, bool) {
        if table == apple::DEFAULT_TABLE {
            return (true, self.has_plurals);
        }
        let keys = group.keys.iter().flatten();
        let plurals = keys.clone().any(|key| key.plural);
        let strings = keys.clone().any(|key| !key.plural);
        (strings, plurals)
    }
}

/// The platform family whose key files a format writes.
pub fn platform(format: ExportFormat) -> Option<Platform> {
    match format {
        ExportFormat::AndroidXml => Some(Platform::Android),
        ExportFormat::AppleStrings | ExportFormat::Xcstrings => Some(Platform::Apple),
        ExportFormat::Json | ExportFormat::I18next => Some(Platform::Web),
        ExportFormat::Csv
        | ExportFormat::CsvTable
        | ExportFormat::Po
        | ExportFormat::Arb
        | ExportFormat::Xliff
        | ExportFormat::Xliff2
        | ExportFormat::Yaml => None,
    }
}

fn is_default(format: ExportFormat, file: Option<&str>) -> bool {
    platform(format).is_none_or(|platform| file == platform.default_file())
}

fn group_file<'b>(group: &Group<'b>) -> &'b str {
    group.file.unwrap_or_default()
}

/// The keys of each file, in file name order.
fn groups<'a, K: Borrow<Key>>(format: ExportFormat, keys: &'a [K]) -> Vec<Group<'a>> {
    let Some(platform) = platform(format) else {
        return vec![Group { file: None, keys: None }];
    };
    let default = platform.default_file();
    if keys.iter().all(|key| key.borrow().file_for(platform) == default) {
        return vec![Group {
            file: default,
            keys: None,
        }];
    }
    let mut by_file: std::collections::BTreeMap<Option<&'a str>, Vec<&'a Key>> = std::collections::BTreeMap::new();
    by_file.insert(default, Vec::new());
    for key in keys.iter().map(Borrow::borrow) {
        by_file.entry(key.file_for(platform)).or_default().push(key);
    }
    // In name order, which is their paths' order (`fr.json`, the web's default, sorts
    // before `fr/common.json`).
    by_file
        .into_iter()
        .map(|(file, keys)| Group { file, keys: Some(keys) })
        .collect()
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
    /// `false` for Android's `translatable="false"`.
    pub translatable: bool,
    /// The line of the entry in its file (0 when unknown).
    pub line: usize,
    /// Whether the file marks the translation as outdated (Xcode's `needs_review`).
    pub outdated: bool,
    /// For a String Catalog's source-language entry, what Xcode recorded of the key.
    pub xcode: Option<XcodeEntry>,
    /// The placeholder syntax the entry says it is in (a PO entry's `c-format`,
    /// `python-format` or `python-brace-format` flag); `None`: the file's format's.
    pub placeholders: Option<crate::domain::placeholders::Syntax>,
}

impl ParsedEntry {
    pub fn plain(name: String, text: String) -> Self {
        Self {
            name,
            text: Text::Plain(text),
            description: None,
            markup: false,
            translatable: true,
            line: 0,
            outdated: false,
            xcode: None,
            placeholders: None,
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

/// An entry of a file that a reader passed over, and why (the upload goes on without it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWarning {
    pub line: usize,
    pub key: String,
    pub message: String,
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

/// The texts of `language` as their apps write them, in key order, skipping keys without
/// one: for the formats whose platforms read each language on its own (a plain text of a
/// plural key is written as the plain entry it was).
fn written_texts<'a>(
    keys: &'a [impl Borrow<Key>],
    language: &'a LanguageCode,
) -> impl Iterator<Item = (&'a Key, TextRef<'a>)> {
    let mut hint = 0;
    keys.iter().map(Borrow::borrow).filter_map(move |key: &Key| {
        key.translations
            .get_near_written(language, &mut hint)
            .map(|(text, _)| (key, text))
    })
}

/// The texts of `language`, in key order, skipping keys without one.
fn texts<'a>(keys: &'a [impl Borrow<Key>], language: &'a LanguageCode) -> impl Iterator<Item = (&'a Key, TextRef<'a>)> {
    let mut hint = 0;
    keys.iter()
        .map(Borrow::borrow)
        .filter_map(move |key: &Key| key.translations.get_near(language, &mut hint).map(|text| (key, text)))
}
