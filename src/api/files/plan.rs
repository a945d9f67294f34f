//! An upload turned into import entries ([`UploadPlan`]): the files' languages resolved
//! against the project, each key's texts gathered across languages, and what is passed over
//! as warnings.

use super::UploadedFileItem;
use crate::api::error::ApiError;
use crate::api::warnings::WarningItem;
use crate::domain::model::{Project, Text};
use crate::domain::names::{Description, KeyName, LanguageCode, quote_for_message};
use crate::formats::upload::{BASE_LANGUAGE, Original, Upload, UploadedFile};
use crate::store::{ImportEntry, TextInput, TranslationInput};

/// What decided whether an uploaded key is plain or plural.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decided {
    /// Its entry in the base language's files.
    Base,
    /// The key on the server (the upload has no base text of it).
    Server,
    /// The first file read (a new key without a base text).
    FirstFile,
}

/// The kind an entry's texts must have, and whether other languages may have texts.
#[derive(Debug, Clone, Copy)]
struct EntryKind {
    plural: bool,
    translatable: bool,
    decided: Decided,
}

/// What the server knows of a key that an upload may lack the base text of.
#[derive(Debug, Clone, Copy)]
pub(super) struct KnownKey {
    pub(super) plural: bool,
    pub(super) translatable: bool,
    /// Whether the key has a base text.
    pub(super) has_base: bool,
}

/// An upload turned into import entries: the files' languages resolved against the project,
/// each key's texts gathered across languages, and the entries passed over as warnings.
pub(super) struct UploadPlan {
    pub(super) entries: Vec<ImportEntry>,
    /// Per entry, the kind its texts must have.
    kinds: Vec<EntryKind>,
    pub(super) add_languages: Vec<LanguageCode>,
    pub(super) files: Vec<UploadedFileItem>,
    pub(super) ignored: Vec<String>,
    pub(super) skipped: usize,
    pub(super) warnings: Vec<WarningItem>,
    /// The app's files as it wrote them, with their languages (see [`formats::kept`]).
    pub(super) originals: Vec<(LanguageCode, Original)>,
}

impl UploadPlan {
    /// Reads the base language's files first, so that the base language decides each key's
    /// kind (plain or plural), its file and whether it is translatable; an entry of another
    /// language that disagrees is passed over with a warning, never a refusal.
    pub(super) fn new(
        project: &Project,
        existing: &rustc_hash::FxHashMap<&str, KnownKey>,
        upload: Upload,
        add_languages: bool,
        tags: &[String],
    ) -> Result<Self, ApiError> {
        let mut plan = UploadPlan {
            entries: Vec::new(),
            kinds: Vec::new(),
            add_languages: Vec::new(),
            files: Vec::new(),
            ignored: upload.ignored,
            skipped: upload.skipped,
            warnings: Vec::new(),
            originals: Vec::new(),
        };
        let mut files = Vec::with_capacity(upload.files.len());
        // A gettext template gives the base texts only when the upload has no `.po` file of
        // the base language (which has them too, with the base language's own texts).
        let base_po = upload.files.iter().any(|file| {
            file.path.ends_with(".po")
                && LanguageCode::parse(&file.language).is_ok_and(|code| code.same_as(&project.base_language))
        });
        // XLIFF translation files' sources likewise, when the upload has its language's own file.
        let own_languages: Vec<String> = upload
            .files
            .iter()
            .filter(|file| !file.fills_gaps)
            .map(|file| file.language.to_ascii_lowercase())
            .collect();
        for original in upload.originals {
            let language = plan.language(project, &original.path, &original.language, add_languages)?;
            plan.originals.push((language, original));
        }
        let mut upload_files = upload.files;
        upload_files.retain(|file| !(file.fills_gaps && own_languages.contains(&file.language.to_ascii_lowercase())));
        let (templates, upload_files): (Vec<UploadedFile>, Vec<UploadedFile>) = upload_files
            .into_iter()
            .partition(|file| base_po && file.path.ends_with(".pot"));
        plan.ignored.extend(templates.into_iter().map(|file| file.path));
        for file in upload_files {
            let language = plan.language(project, &file.path, &file.language, add_languages)?;
            plan.files.push(UploadedFileItem {
                path: file.path.clone(),
                language: language.to_string(),
                keys: file.entries.len() as u64,
            });
            files.push((language, file));
        }
        files.sort_by_key(|(language, _)| *language != project.base_language);
        // Key name → position in `entries`; (key, language) → where it was defined (the file's
        // place in `paths`, and the line). Fast hashes: an upload of 100,000 keys in five
        // languages goes through half a million entries.
        let paths: Vec<String> = files.iter().map(|(_, file)| file.path.clone()).collect();
        let mut positions: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
        let mut defined: rustc_hash::FxHashMap<(String, LanguageCode), (usize, usize)> =
            rustc_hash::FxHashMap::default();
        for (file_index, (language, file)) in files.into_iter().enumerate() {
            let is_base = language == project.base_language;
            for warning in file.warnings {
                plan.warn(&file.path, warning.line, &warning.key, &language, warning.message);
            }
            for parsed in file.entries {
                // Sources give base texts only to keys without one.
                if file.fills_gaps && existing.get(parsed.name.as_str()).is_some_and(|known| known.has_base) {
                    continue;
                }
                let place = (file_index, parsed.line);
                if let Some((other_file, other_line)) = defined.insert((parsed.name.clone(), language.clone()), place) {
                    let other_path = &paths[other_file];
                    return Err(ApiError::invalid(format!(
                        "{}: {} is defined twice for language {} (also in {other_path}{}).",
                        file.path,
                        quote_for_message(&parsed.name),
                        language,
                        if other_line > 0 {
                            format!(" line {other_line}")
                        } else {
                            String::new()
                        }
                    )));
                }
                let name = match KeyName::parse(&parsed.name) {
                    Ok(name) => name,
                    Err(err) => {
                        plan.warn(&file.path, parsed.line, &parsed.name, &language, err.0);
                        continue;
                    }
                };
                let plural = matches!(parsed.text, Text::Plural(_));
                let position = match positions.get(&parsed.name) {
                    Some(position) => *position,
                    None => {
                        // The kind is the base language's; for a key the upload has no base
                        // text of, the server's key's; for a new one, the first file's.
                        let known = existing.get(parsed.name.as_str()).copied();
                        let decided = if is_base {
                            Decided::Base
                        } else if known.is_some() {
                            Decided::Server
                        } else {
                            Decided::FirstFile
                        };
                        let (kind, translatable) = match (decided, known) {
                            (Decided::Server, Some(known)) => (known.plural, known.translatable),
                            _ => (plural, !is_base || parsed.translatable),
                        };
                        plan.entries.push(ImportEntry {
                            name,
                            tags: None,
                            description: None,
                            plural: (decided != Decided::Server).then_some(kind),
                            markup: None,
                            translatable: is_base.then_some(parsed.translatable),
                            files: file
                                .file
                                .iter()
                                .map(|(platform, name)| (*platform, Some(name.clone())))
                                .collect(),
                            max_length: None,
                            ignore_checks: None,
                            translations: Vec::new(),
                            add_tags: tags.to_vec(),
                            xcode: None,
                            outdated: Vec::new(),
                        });
                        plan.kinds.push(EntryKind {
                            plural: kind,
                            translatable,
                            decided,
                        });
                        positions.insert(parsed.name.clone(), plan.entries.len() - 1);
                        plan.entries.len() - 1
                    }
                };
                let kind = plan.kinds[position];
                if kind.plural != plural {
                    let message = format!(
                        "{} is {} in {}, and this {} is passed over; make it {} in every language.",
                        quote_for_message(&parsed.name),
                        if plural { "a plain string" } else { "a plural" },
                        match kind.decided {
                            Decided::Base => "the base language",
                            Decided::Server => "the project",
                            Decided::FirstFile => "the language read first",
                        },
                        if plural { "plural" } else { "plain string" },
                        if plural { "a plain string" } else { "a plural" },
                    );
                    plan.warn(&file.path, parsed.line, &parsed.name, &language, message);
                    continue;
                }
                if !kind.translatable && !is_base {
                    let message = format!(
                        "{} is not translatable (translatable=\"false\" in the base language); this translation is passed over.",
                        quote_for_message(&parsed.name)
                    );
                    plan.warn(&file.path, parsed.line, &parsed.name, &language, message);
                    continue;
                }
                let entry = &mut plan.entries[position];
                // The base language's comment wins; otherwise the first one found.
                if let Some(description) = parsed.description.filter(|text| !text.is_empty())
                    && (entry.description.is_none() || is_base)
                {
                    entry.description = Some(
                        description
                            .chars()
                            .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                            .take(Description::MAX_CHARS)
                            .collect(),
                    );
                }
                if parsed.markup {
                    entry.markup = Some(true);
                }
                if is_base && parsed.xcode.is_some() {
                    entry.xcode = parsed.xcode;
                }
                if parsed.outdated && !is_base {
                    entry.outdated.push(language.clone());
                }
                let text = match parsed.text {
                    Text::Plain(text) => TextInput::Content(text),
                    Text::Plural(forms) => TextInput::Forms(
                        forms
                            .iter()
                            .map(|(category, text)| (category, text.to_owned()))
                            .collect(),
                    ),
                };
                entry.translations.push(TranslationInput {
                    language: language.clone(),
                    text,
                    literal: !parsed.markup,
                });
            }
        }
        Ok(plan)
    }

    fn warn(&mut self, path: &str, line: usize, key: &str, language: &LanguageCode, message: String) {
        self.warnings.push(WarningItem {
            message,
            key: Some(key.to_owned()),
            namespace: None,
            language: Some(language.to_string()),
            path: Some(path.to_owned()),
            line: Some(line as u64),
            check: None,
            severity: None,
            form: None,
        });
    }

    /// The project language a file's place names; one the project lacks is added (with
    /// `addLanguages`) or refused.
    fn language(&mut self, project: &Project, path: &str, raw: &str, add: bool) -> Result<LanguageCode, ApiError> {
        if raw == BASE_LANGUAGE {
            return Ok(project.base_language.clone());
        }
        let code = LanguageCode::parse(raw).map_err(|_| {
            ApiError::invalid(format!(
                "{path}: {} is not a language code, so the file's language is unknown.",
                quote_for_message(raw)
            ))
        })?;
        if let Some(known) = project
            .languages
            .iter()
            .chain(&self.add_languages)
            .find(|language| language.same_as(&code))
        {
            return Ok(known.clone());
        }
        if !add {
            return Err(ApiError::invalid(format!(
                "{path}: project {} has no language {}; its languages are: {}. Add it to the project, or upload with addLanguages=true.",
                project.name,
                quote_for_message(code.as_str()),
                project.languages_list()
            )));
        }
        self.add_languages.push(code.clone());
        Ok(code)
    }
}
