//! Uploaded files: one file, or a zip laid out as the export lays it out, read into entries
//! per language. Folders map to languages as the export's inverse (`values/` is the base
//! language, `values-pt-rBR/` is `pt-BR`, `values-b+zh+Hans/` is `zh-Hans`, `fr.lproj/` is
//! `fr`, `fr.json` is `fr`); other files are ignored and listed.
//!
//! A zip is unpacked in memory with every guard against hostile archives: no path that climbs
//! out or is absolute, no links, and no more than `max_unpacked` bytes in all, counted as the
//! bytes come out (not as the archive claims).

use std::io::{Cursor, Read};
use std::sync::Arc;

use super::in_order::make_in_order;
use super::{
    ExportFormat, ParsedEntry, ReadError, ReadWarning, android, apple, arb, csv, csv_table, i18next, json, patch, po,
    xcstrings, xliff, yaml,
};
use crate::domain::key_files::{FileName, Platform};
use crate::domain::names::LanguageCode;
pub use crate::formats::android::android_language;

pub use super::namespaces::namespace_of;

/// What an upload holds.
#[derive(Debug, Default)]
pub struct Upload {
    pub files: Vec<UploadedFile>,
    /// Files of the zip that are not of the format's layout.
    pub ignored: Vec<String>,
    /// Resources that are neither strings nor plurals (`<string-array>`, `<dimen>`, ...), and
    /// `.stringsdict` entries with several variables.
    pub skipped: usize,
    /// The files as the app wrote them, for the formats whose files are kept beside the keys
    /// ([`super::kept`]).
    pub originals: Vec<Original>,
}

/// An uploaded file as the app wrote it, with what places it among the export's files.
#[derive(Debug)]
pub struct Original {
    pub path: String,
    /// The language of its texts, as the file or its place names it (or [`BASE_LANGUAGE`]).
    pub language: String,
    /// As [`UploadedFile::file`].
    pub file: Option<(Platform, String)>,
    /// The format the export writes it in (XLIFF 1.2 or 2.0, as the file is).
    pub format: ExportFormat,
    pub bytes: bytes::Bytes,
    /// The file as its patcher reads it, when the reader's parse gave that too (XLIFF's):
    /// the upload's patch that finds what to keep, then exports, read it no more.
    pub prepared: Option<Arc<patch::Prepared>>,
}

/// One file read: its path, the language its place names (as written there, or
/// [`BASE_LANGUAGE`]), the key's file it stands for, and its entries.
#[derive(Debug)]
pub struct UploadedFile {
    pub path: String,
    pub language: String,
    /// The entry of a key's `files` this file gives (`plurals.xml`, the table `InfoPlist`,
    /// the namespace `common`), for the format's platform family; `None` for a web app's
    /// one file per language and for CSV.
    pub file: Option<(Platform, String)>,
    /// The key space the file's path gives its entries ([`namespace_of`]): `""`, or an
    /// i18next namespace, an Apple table other than `Localizable`, a gettext or XLIFF domain
    /// other than `messages`.
    pub namespace: String,
    pub entries: Vec<ParsedEntry>,
    /// Entries of the file that were passed over, with why.
    pub warnings: Vec<ReadWarning>,
    /// The base texts that XLIFF translation files carry as `<source>`: they give a key its
    /// base text only when the project has none yet and the upload has no file of the base
    /// language itself (a vendor's file never reverts a base text edited since).
    pub fills_gaps: bool,
    /// The placeholder syntax of the file's format (`printf` for Android, `apple` for Apple's
    /// files, `icu` for ARB, ...); `None` for formats that carry any (JSON, CSV, PO, XLIFF).
    pub placeholders: Option<crate::domain::placeholders::Syntax>,
}

/// The language of Android's `values/` and Apple's `Base.lproj/`: the project's base language.
pub const BASE_LANGUAGE: &str = "";

/// The name given to a CSV uploaded as a single file (not in a zip).
const SINGLE_CSV: &str = "upload.csv";

/// Why an upload cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    TooLarge(String),
}

/// Reads an upload of `format`. `zip` says the body is a zip (by its content type or its
/// first bytes); a single file needs `language` (except CSV, whose header names it).
pub fn read(
    format: ExportFormat,
    body: &[u8],
    zip: bool,
    language: Option<&str>,
    max_unpacked: usize,
) -> Result<Upload, UploadError> {
    let mut upload = Upload::default();
    if zip || body.starts_with(b"PK\x03\x04") {
        return read_unzipped(format, unzip(body, max_unpacked)?);
    }
    let (path, place) = match (format, language) {
        (ExportFormat::Csv, language) => (SINGLE_CSV.to_owned(), language.unwrap_or_default().to_owned()),
        // A table names its languages in its header.
        (ExportFormat::CsvTable, _) => (csv_table::PATH.to_owned(), BASE_LANGUAGE.to_owned()),
        // A catalog names its languages itself.
        (ExportFormat::Xcstrings, _) => (xcstrings::path("Localizable"), BASE_LANGUAGE.to_owned()),
        // An XLIFF file names its language itself (`target-language`, `trgLang`).
        // A Rails file names its languages by its root keys.
        (ExportFormat::Yaml, language) => ("upload.yml".to_owned(), language.unwrap_or_default().to_owned()),
        (ExportFormat::Xliff | ExportFormat::Xliff2, language) => {
            ("upload.xliff".to_owned(), language.unwrap_or_default().to_owned())
        }
        (_, None) => {
            return Err(UploadError::Invalid(
                "A single file needs the `language` parameter; a zip names its languages by its folders.".into(),
            ));
        }
        (ExportFormat::Json | ExportFormat::I18next, Some(language)) => {
            (format!("{language}.json"), language.to_owned())
        }
        (ExportFormat::AndroidXml, Some(language)) => ("strings.xml".to_owned(), language.to_owned()),
        (ExportFormat::Po, Some(language)) => (format!("{language}.po"), language.to_owned()),
        (ExportFormat::Arb, Some(language)) => (format!("app_{}.arb", language.replace('-', "_")), language.to_owned()),
        (ExportFormat::AppleStrings, Some(language)) => {
            let name = if apple::is_property_list(body) {
                "Localizable.stringsdict"
            } else {
                "Localizable.strings"
            };
            (name.to_owned(), language.to_owned())
        }
    };
    let file = locate(format, &path).and_then(|(_, file)| file);
    read_file(format, &path, &place, file, body.to_vec(), &mut upload)?;
    Ok(upload)
}

/// Reads the files of an unpacked zip (path, bytes) laid out as `format`'s export lays them
/// out; files of other names are listed as ignored.
pub fn read_unzipped(format: ExportFormat, files: Vec<Unzipped>) -> Result<Upload, UploadError> {
    let mut upload = Upload::default();
    // Each file read on a core of its own (an XLIFF or PO file of 100,000 entries takes a
    // while), then gathered in the zip's order as if read one after the other.
    let files: Vec<std::sync::Mutex<Option<Unzipped>>> = files
        .into_iter()
        .map(|file| std::sync::Mutex::new(Some(file)))
        .collect();
    let read_one = |index: usize| {
        let taken = files[index]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let (path, bytes) = taken.expect("each file is read once");
        let mut part = Upload::default();
        match locate(format, &path) {
            Some((place, file)) => read_file(format, &path, &place, file, bytes, &mut part)?,
            None => part.ignored.push(path),
        }
        Ok(part)
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
    make_in_order(
        files.len(),
        threads,
        2 * threads,
        read_one,
        |part: Result<Upload, UploadError>| {
            upload.gather(part?);
            Ok::<(), UploadError>(())
        },
    )?;
    if format == ExportFormat::AppleStrings {
        apple::tables::drop_stand_ins(&mut upload.files);
    }
    Ok(upload)
}

impl Upload {
    /// Adds what another file of the same upload read, as reading it after this one's files
    /// would have: its files at the end, but the sources of XLIFF translation files joined
    /// with those of the same language already gathered.
    fn gather(&mut self, part: Upload) {
        for file in part.files {
            if file.fills_gaps {
                join_sources(self, file);
            } else {
                self.files.push(file);
            }
        }
        self.ignored.extend(part.ignored);
        self.skipped += part.skipped;
        self.originals.extend(part.originals);
    }
}

/// The language a path names for `format`, or `None` when the file is not of its layout.
pub fn place(format: ExportFormat, path: &str) -> Option<String> {
    locate(format, path).map(|(language, _)| language)
}

/// The language a path names for `format` and the key file it stands for (see
/// [`UploadedFile::file`]), or `None` when the file is not of the format's layout:
/// Android's `values*/NAME.xml`, Apple's `*.lproj/TABLE.strings` and `.stringsdict`, JSON's
/// `{lang}.json` and `{lang}/NAMESPACE.json`, CSV's `*.csv`.
pub fn locate(format: ExportFormat, path: &str) -> Option<(String, Option<(Platform, String)>)> {
    let mut parts = path.rsplit('/');
    let file = parts.next()?;
    let folder = parts.next().unwrap_or_default();
    let named = |platform: Platform, name: &str| FileName::parse(platform, name).ok().map(|name| (platform, name));
    match format {
        ExportFormat::Json | ExportFormat::I18next => {
            let stem = file.strip_suffix(".json")?;
            // `fr.json` is a language's one file; `fr/common.json` a namespace of `fr`. When
            // both names could be language codes (`en/app.json`, `src/en.json`), the one with
            // the shorter language subtag is the language: two-letter codes are the common ones.
            let primary = |name: &str| {
                LanguageCode::parse(name)
                    .ok()
                    .map(|_| name.split(['-', '_']).next().unwrap_or_default().len())
            };
            let folder_is_language = match (primary(folder), primary(stem)) {
                (Some(_), None) => true,
                (Some(in_folder), Some(in_stem)) => in_folder < in_stem,
                _ => false,
            };
            if folder_is_language {
                return Some((folder.to_owned(), Some(named(Platform::Web, stem)?)));
            }
            // A nested namespace, `fr/settings/profile.json` (i18next's, or plain JSON's in the
            // same layout): the nearest folder above that is a language code is the language,
            // by the same rule against the file's name (`fr/modules/app-shelf.json` is `fr`).
            let above = path
                .split('/')
                .rev()
                .skip(2)
                .find_map(|part| primary(part).map(|length| (part, length)));
            match (above, primary(stem)) {
                (Some((language, _)), None) => return Some((language.to_owned(), Some(named(Platform::Web, stem)?))),
                (Some((language, in_folder)), Some(in_stem)) if in_folder < in_stem => {
                    return Some((language.to_owned(), Some(named(Platform::Web, stem)?)));
                }
                (None, None) if format == ExportFormat::I18next => return None,
                _ => {}
            }
            Some((stem.to_owned(), None))
        }
        ExportFormat::Csv => file.strip_suffix(".csv").map(|stem| (stem.to_owned(), None)),
        // A table holds every language; its place is the base language's. A file of one
        // language (`fr_FR/menus.csv`, a game's file per language) is in its language's folder.
        ExportFormat::CsvTable if file.ends_with(".csv") => Some(match LanguageCode::parse(folder) {
            Ok(_) => (folder.to_owned(), None),
            Err(_) => (BASE_LANGUAGE.to_owned(), None),
        }),
        ExportFormat::CsvTable => None,
        // `fr.xliff`, `Localized Contents/fr.xliff`, `messages.fr.xlf`: the file's own
        // `target-language` names its language; the name is the fallback.
        ExportFormat::Xliff | ExportFormat::Xliff2 if xliff::is_xliff(file) => Some((
            named_language(file.rsplit_once('.').map_or(file, |(stem, _)| stem)),
            None,
        )),
        // `fr.yml`, `devise.fr.yml`: the root keys name the languages; the name is the fallback.
        ExportFormat::Yaml => {
            let stem = file.strip_suffix(".yml").or_else(|| file.strip_suffix(".yaml"))?;
            Some((named_language(stem), None))
        }
        // `app_fr.arb`, `app_pt_BR.arb`.
        ExportFormat::Arb => arb::language_of(file).map(|language| (language, None)),
        // `fr.po`; a template (`template.pot`, `django.pot`) holds the base texts as msgids.
        ExportFormat::Po if file.ends_with(".pot") => Some((BASE_LANGUAGE.to_owned(), None)),
        // `fr.po`, `sr@latin.po`, Django's `fr/LC_MESSAGES/django.po`, `doublecmd.fr.po`.
        ExportFormat::Po => {
            let stem = file.strip_suffix(".po")?;
            let named = if folder == "LC_MESSAGES" {
                path.rsplit('/').nth(2).unwrap_or_default()
            } else {
                stem.rsplit_once('.')
                    .map(|(_, last)| last)
                    .filter(|last| po::locale_language(last).is_some())
                    .unwrap_or(stem)
            };
            Some((po::locale_language(named).unwrap_or_else(|| named.to_owned()), None))
        }
        ExportFormat::AndroidXml if file.ends_with(".xml") => {
            Some((android_language(folder)?, Some(named(Platform::Android, file)?)))
        }
        ExportFormat::AppleStrings => {
            let table = file
                .strip_suffix(".strings")
                .or_else(|| file.strip_suffix(".stringsdict"))?;
            let language = match folder.strip_suffix(".lproj")? {
                "Base" => BASE_LANGUAGE.to_owned(),
                name => apple_legacy_language(name).unwrap_or(name).to_owned(),
            };
            Some((language, Some(named(Platform::Apple, table)?)))
        }
        // A catalog holds every language; its place is the base language's.
        ExportFormat::Xcstrings => {
            let table = file.strip_suffix(".xcstrings")?;
            Some((BASE_LANGUAGE.to_owned(), Some(named(Platform::Apple, table)?)))
        }
        _ => None,
    }
}

/// The language a file name's last dotted part names (`fr` of `messages.fr`), for formats
/// whose files name their languages themselves; else the base language's place.
fn named_language(stem: &str) -> String {
    let language = stem.rsplit('.').next().unwrap_or(stem);
    if LanguageCode::parse(language).is_ok() {
        language.to_owned()
    } else {
        BASE_LANGUAGE.to_owned()
    }
}

/// The code of a language that old Xcode projects (and GNUstep apps) name in English:
/// `English.lproj` is `en`, `French.lproj` is `fr`. `None` for a folder named by its code.
fn apple_legacy_language(name: &str) -> Option<&'static str> {
    const NAMES: &[(&str, &str)] = &[
        ("Arabic", "ar"),
        ("Chinese", "zh-Hans"),
        ("Czech", "cs"),
        ("Danish", "da"),
        ("Dutch", "nl"),
        ("English", "en"),
        ("Finnish", "fi"),
        ("French", "fr"),
        ("German", "de"),
        ("Greek", "el"),
        ("Hebrew", "he"),
        ("Hungarian", "hu"),
        ("Italian", "it"),
        ("Japanese", "ja"),
        ("Korean", "ko"),
        ("Norwegian", "nb"),
        ("Polish", "pl"),
        ("Portuguese", "pt"),
        ("Russian", "ru"),
        ("SimplifiedChinese", "zh-Hans"),
        ("Spanish", "es"),
        ("Swedish", "sv"),
        ("TraditionalChinese", "zh-Hant"),
        ("Turkish", "tr"),
        ("Ukrainian", "uk"),
    ];
    NAMES
        .iter()
        .find(|(english, _)| *english == name)
        .map(|(_, code)| *code)
}

fn read_file(
    format: ExportFormat,
    path: &str,
    place: &str,
    file: Option<(Platform, String)>,
    owned: Vec<u8>,
    upload: &mut Upload,
) -> Result<(), UploadError> {
    let bytes = owned.as_slice();
    let invalid = |err: ReadError| UploadError::Invalid(format!("{path}: {err}"));
    // The format and language the app's file is kept under, where it is kept.
    let mut kept = matches!(format, ExportFormat::I18next | ExportFormat::Po | ExportFormat::Arb)
        .then(|| (format, place.to_owned()));
    let mut prepared = None;
    let mut warnings = Vec::new();
    let namespace = namespace_of(format, path, file.as_ref());
    let mut push = |language: String, entries: Vec<ParsedEntry>, warnings: &mut Vec<ReadWarning>| {
        upload.files.push(UploadedFile {
            path: path.to_owned(),
            language,
            file: file.clone(),
            namespace: namespace.clone(),
            entries,
            warnings: std::mem::take(warnings),
            fills_gaps: false,
            placeholders: super::placeholders::source(format),
        })
    };
    match format {
        ExportFormat::Json => push(place.to_owned(), json::read(bytes).map_err(invalid)?, &mut warnings),
        ExportFormat::I18next => {
            let (entries, passed_over) = i18next::read(bytes).map_err(invalid)?;
            upload.skipped += passed_over.len();
            warnings = passed_over;
            push(place.to_owned(), entries, &mut warnings);
        }
        ExportFormat::CsvTable => {
            let named = (place != BASE_LANGUAGE).then_some(place);
            let read = csv_table::read_in(bytes, named).map_err(invalid)?;
            warnings = read.warnings;
            for (language, entries) in read.columns {
                push(language, entries, &mut warnings);
            }
        }
        ExportFormat::Csv => {
            let columns = csv::read(bytes).map_err(invalid)?;
            let single = columns.len() == 1;
            for (language, entries) in columns {
                // A single file's `language` parameter wins over a one-language header.
                let language = if single && path == SINGLE_CSV && !place.is_empty() {
                    place.to_owned()
                } else {
                    language
                };
                push(language, entries, &mut warnings);
            }
        }
        ExportFormat::AndroidXml => {
            let read = android::read(bytes).map_err(invalid)?;
            upload.skipped += read.skipped;
            warnings = read.warnings;
            push(place.to_owned(), read.entries, &mut warnings);
        }
        ExportFormat::AppleStrings if path.ends_with(".stringsdict") => {
            let (entries, passed_over) = apple::read_stringsdict(bytes).map_err(invalid)?;
            upload.skipped += passed_over.len();
            warnings = passed_over;
            push(place.to_owned(), entries, &mut warnings);
        }
        ExportFormat::AppleStrings => push(
            place.to_owned(),
            apple::read_strings(bytes).map_err(invalid)?,
            &mut warnings,
        ),
        ExportFormat::Arb => {
            let (entries, passed_over) = arb::read(bytes).map_err(invalid)?;
            warnings = passed_over;
            push(place.to_owned(), entries, &mut warnings);
        }
        ExportFormat::Po if path.ends_with(".pot") => push(
            place.to_owned(),
            po::read_template(bytes).map_err(invalid)?,
            &mut warnings,
        ),
        ExportFormat::Po => {
            let language = LanguageCode::parse(place).map_err(|_| {
                UploadError::Invalid(format!(
                    "{path}: {place:?} is not a language code, so the file's plural forms are unknown."
                ))
            })?;
            let read = po::read_with_sources(bytes, &language).map_err(invalid)?;
            warnings = read.warnings;
            push(place.to_owned(), read.entries, &mut warnings);
            // The msgids are the source texts: the base texts of an app without a template.
            add_sources(upload, path, BASE_LANGUAGE.to_owned(), namespace, read.sources);
        }
        ExportFormat::Xliff | ExportFormat::Xliff2 => {
            let path_language = (place != BASE_LANGUAGE).then_some(place);
            let read = xliff::read_in(bytes, path_language).map_err(invalid)?;
            let written_as = match read.version {
                xliff::Version::V1 => ExportFormat::Xliff,
                xliff::Version::V2 => ExportFormat::Xliff2,
            };
            // The path's language wins (`validators.no.xlf` saying `target-language="nb"`,
            // Angular's `messages.es.xlf` saying none): it is the one the app's build reads.
            // A path that names none (`upload.xliff`, Angular's source `messages.xlf`) leaves
            // it to the file.
            let language = read.language.unwrap_or_else(|| place.to_owned());
            kept = Some((written_as, language.clone()));
            upload.skipped += read.warnings.len();
            warnings = read.warnings;
            push(language, read.entries, &mut warnings);
            match read.source_language.filter(|_| !read.sources.is_empty()) {
                Some(language) if po::locale_language(&language).is_some() => {
                    add_sources(upload, path, language, namespace, read.sources);
                }
                // A source language that names none (an Angular tool's `srcLang="undefined"`):
                // the sources are no language's texts; the file's targets are still read.
                Some(language) => warnings.push(ReadWarning {
                    line: 0,
                    key: String::new(),
                    message: format!(
                        "the source language {} is not a language code, so the file's sources are not read as any language's texts",
                        crate::domain::names::quote_for_message(&language)
                    ),
                }),
                None => {}
            }
            prepared = Some(Arc::new(patch::Prepared::Xliff(patch::xliff::Local::of(read.document))));
        }
        ExportFormat::Yaml => {
            let named = (place != BASE_LANGUAGE && !place.is_empty()).then_some(place);
            let mut read = yaml::read_in(bytes, named).map_err(invalid)?;
            if let [(language, _)] = read.languages.as_mut_slice() {
                // A file of one language: the path's language wins over its root key (a
                // `de-DE/` folder whose files say `de:`), as the app's file set names it; the
                // file keeps its own root key. A path that names none (`upload.yml`) leaves it
                // to the file.
                if place != BASE_LANGUAGE && !place.is_empty() {
                    *language = place.to_owned();
                }
                // The export writes a file per language.
                kept = Some((format, language.clone()));
            }
            upload.skipped += read.warnings.len();
            warnings = read.warnings;
            for (language, entries) in read.languages {
                push(language, entries, &mut warnings);
            }
        }
        ExportFormat::Xcstrings => {
            let catalog = xcstrings::read(bytes).map_err(invalid)?;
            upload.skipped += catalog.skipped;
            warnings = catalog.warnings;
            for (language, entries) in catalog.languages {
                push(language, entries, &mut warnings);
            }
        }
    }
    upload.originals.extend(kept.map(|(written_as, language)| Original {
        path: path.to_owned(),
        language,
        file,
        format: written_as,
        bytes: owned.into(),
        prepared,
    }));
    Ok(())
}

impl UploadedFile {
    /// Whether the file is a gettext translation's msgids standing in for base texts (see
    /// [`add_sources`]): they give a key its base text only while it has none.
    pub fn is_msgid_sources(&self) -> bool {
        self.fills_gaps && self.path.ends_with(&format!(".po{SOURCES_SUFFIX}"))
    }

    /// The path of the `.po` file whose msgids these are (each file's are kept apart).
    pub fn msgid_sources_of(&self) -> Option<&str> {
        self.path
            .strip_suffix(SOURCES_SUFFIX)
            .filter(|path| self.fills_gaps && path.ends_with(".po"))
    }
}

/// What [`add_sources`] adds to the path of the file its sources come from.
const SOURCES_SUFFIX: &str = " (sources)";

/// Adds an XLIFF translation file's sources to the upload's base texts of `language` (one
/// file of them, each key's first source kept).
fn add_sources(upload: &mut Upload, path: &str, language: String, namespace: String, sources: Vec<ParsedEntry>) {
    let sources = UploadedFile {
        path: format!("{path}{SOURCES_SUFFIX}"),
        language,
        file: None,
        namespace,
        entries: sources,
        warnings: Vec::new(),
        fills_gaps: true,
        placeholders: None,
    };
    join_sources(upload, sources);
}

/// Joins a file of sources (see [`add_sources`]) with the upload's one of the same language,
/// or adds it when there is none yet; each key's first source is kept.
fn join_sources(upload: &mut Upload, mut sources: UploadedFile) {
    // A gettext file's msgids stay a file of their own: which file named a key decides
    // whether it gets a base text from them (see the files' plan).
    if sources.is_msgid_sources() {
        upload.files.push(sources);
        return;
    }
    let entries = std::mem::take(&mut sources.entries);
    let gathered = match upload.files.iter_mut().position(|file| {
        file.fills_gaps
            && !file.is_msgid_sources()
            && file.language == sources.language
            && file.namespace == sources.namespace
    }) {
        Some(at) => &mut upload.files[at],
        None => {
            upload.files.push(sources);
            upload.files.last_mut().expect("just pushed")
        }
    };
    // Which entries are new, found by borrowed names (a fast hash: every translation file of
    // an XLIFF upload brings its 100,000 sources again, nearly all of them known).
    let new: Vec<bool> = {
        let mut known: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        known.reserve(gathered.entries.len());
        known.extend(gathered.entries.iter().map(|entry| entry.name.as_str()));
        entries.iter().map(|entry| known.insert(entry.name.as_str())).collect()
    };
    gathered.entries.extend(
        entries
            .into_iter()
            .zip(new)
            .filter_map(|(entry, new)| new.then_some(entry)),
    );
}

/// Most entries a zip may have.
const MAX_ZIP_ENTRIES: usize = 100_000;

/// A file of a zip: its path and bytes.
pub type Unzipped = (String, Vec<u8>);

/// The files of a zip with their paths, refusing climbing paths, links and too many bytes.
pub fn unzip(body: &[u8], max_unpacked: usize) -> Result<Vec<Unzipped>, UploadError> {
    let not_zip =
        |err: zip::result::ZipError| UploadError::Invalid(format!("The body is not a readable zip archive: {err}."));
    let mut archive = zip::ZipArchive::new(Cursor::new(body)).map_err(not_zip)?;
    if archive.len() > MAX_ZIP_ENTRIES {
        return Err(UploadError::TooLarge(format!(
            "The zip holds {} entries; at most {MAX_ZIP_ENTRIES} are read.",
            archive.len()
        )));
    }
    let mut files = Vec::new();
    let mut unpacked = 0usize;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(not_zip)?;
        let name = entry.name().to_owned();
        if entry.enclosed_name().is_none() || name.split(['/', '\\']).any(|part| part == "..") {
            return Err(UploadError::Invalid(format!(
                "The zip entry {name:?} has a path that leaves the archive's folder."
            )));
        }
        if entry.is_symlink() {
            return Err(UploadError::Invalid(format!(
                "The zip entry {name:?} is a link; links are not accepted."
            )));
        }
        if entry.is_dir() {
            continue;
        }
        let room = max_unpacked.saturating_sub(unpacked);
        // Sized once by what the archive says (within the room left): a large file read into
        // a growing buffer is copied again at every doubling.
        let declared = usize::try_from(entry.size()).unwrap_or(usize::MAX);
        let mut bytes = Vec::with_capacity(declared.min(room.saturating_add(1)));
        (&mut entry)
            .take(room as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|err| UploadError::Invalid(format!("The zip entry {name:?} cannot be unpacked: {err}.")))?;
        if bytes.len() > room {
            return Err(UploadError::TooLarge(format!(
                "The zip unpacks to more than {max_unpacked} bytes, the import size limit."
            )));
        }
        unpacked += bytes.len();
        files.push((name.replace('\\', "/"), bytes));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apple_and_json_paths_map_to_languages() {
        assert_eq!(
            place(ExportFormat::AppleStrings, "App/pt-BR.lproj/Localizable.strings").as_deref(),
            Some("pt-BR")
        );
        assert_eq!(
            place(ExportFormat::AppleStrings, "Base.lproj/Localizable.stringsdict").as_deref(),
            Some("")
        );
        assert_eq!(
            locate(ExportFormat::AppleStrings, "fr.lproj/InfoPlist.strings"),
            Some(("fr".into(), Some((Platform::Apple, "InfoPlist".into()))))
        );
        assert_eq!(place(ExportFormat::AppleStrings, "fr.lproj/Info.plist"), None);
        assert_eq!(
            locate(ExportFormat::Json, "locales/fr/common.json"),
            Some(("fr".into(), Some((Platform::Web, "common".into()))))
        );
        assert_eq!(locate(ExportFormat::Json, "locales/fr.json"), Some(("fr".into(), None)));
        // A namespace that could be a language code, and a folder that could be one.
        assert_eq!(
            locate(ExportFormat::I18next, "locales/en/app.json"),
            Some(("en".into(), Some((Platform::Web, "app".into()))))
        );
        assert_eq!(locate(ExportFormat::Json, "src/en.json"), Some(("en".into(), None)));
        assert_eq!(
            locate(ExportFormat::AndroidXml, "res/values-fr/plurals.xml"),
            Some(("fr".into(), Some((Platform::Android, "plurals.xml".into()))))
        );
        assert_eq!(
            place(ExportFormat::AppleStrings, "App.app/English.lproj/Localizable.strings").as_deref(),
            Some("en")
        );
        assert_eq!(
            place(
                ExportFormat::AppleStrings,
                "TraditionalChinese.lproj/Localizable.strings"
            )
            .as_deref(),
            Some("zh-Hant")
        );
        assert_eq!(place(ExportFormat::Json, "locales/fr.json").as_deref(), Some("fr"));
        assert_eq!(place(ExportFormat::Json, "README.md"), None);
    }

    #[test]
    fn gettext_paths_name_their_language_and_domain_as_the_ecosystems_write_them() {
        let po = |path: &str| {
            (
                place(ExportFormat::Po, path).unwrap(),
                namespace_of(ExportFormat::Po, path, None),
            )
        };
        assert_eq!(po("po/sr@latin.po"), ("sr-Latn".into(), String::new()));
        assert_eq!(po("po/sr_RS@latin.po"), ("sr-Latn-RS".into(), String::new()));
        assert_eq!(
            po("locale/zh_Hans/LC_MESSAGES/djangojs.po"),
            ("zh_Hans".into(), "djangojs".into())
        );
        assert_eq!(po("language/doublecmd.be.po"), ("be".into(), "doublecmd".into()));
        assert_eq!(po("po/quodlibet.pot"), (BASE_LANGUAGE.into(), String::new()));
    }
}
