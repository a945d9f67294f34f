//! File upload: an app's own resource files (one file or a zip of a whole tree) read into
//! keys and applied as one commit.

use std::collections::HashMap;
use std::sync::Arc;

use poem::Request;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef};
use poem_openapi::{ApiExtractor, ApiExtractorType, Enum, ExtractParamOptions, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::export::ExportType;
use super::schema::{LanguageParam, ProjectNameParam, TeamNameParam};
use super::warnings::{MOST_WARNINGS, WarningItem};
use super::{ApiTags, AppState};
use crate::domain::model::{Key, Project, Text};
use crate::domain::names::{Description, KeyName, LanguageCode, Tag, quote_for_message};
use crate::domain::names::{ProjectName, TeamName};
use crate::formats;
use crate::formats::upload::{self, BASE_LANGUAGE, Original, Upload, UploadError, UploadedFile};
use crate::store::{Beside, Import, ImportEntry, ImportMode, Outcome, TextInput, TranslationInput};
use crate::tokens::Access;

pub struct FilesApi {
    pub state: Arc<AppState>,
}

/// How an upload treats keys that exist already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum UploadMode {
    /// Every key must be new; existing ones fail the upload with 409, naming them.
    Create,
    /// New keys are created; existing keys get the uploaded languages' texts.
    Upsert,
}

/// What an upload did (or, with `dryRun`, would do).
#[derive(Debug, Object)]
pub struct UploadResult {
    /// Always `true`.
    pub success: bool,
    /// Keys created.
    pub created: u64,
    /// Existing keys changed.
    pub updated: u64,
    /// Existing keys the upload left as they were.
    pub unchanged: u64,
    /// The files read, each with the language it maps to and its number of keys.
    pub files: Vec<UploadedFileItem>,
    /// Files of the zip that are not of the format's layout; they were not read.
    pub ignored: Vec<String>,
    /// Resources read but not kept: Android resources other than `<string>` and `<plurals>`
    /// (`<string-array>`, `<dimen>`, ...) and `.stringsdict` entries with several variables.
    pub skipped: u64,
    /// Whether this was a dry run (nothing committed).
    #[oai(rename = "dryRun")]
    pub dry_run: bool,
    /// Per language of the files read, the texts the upload added, changed or removed.
    pub texts: Vec<LanguageTextsItem>,
    /// Entries passed over, each with its file, line, key, language and why (the rest of
    /// the upload was taken); then the failing checks of the keys the upload created or
    /// changed, each with its key, language, check and severity.
    pub warnings: Vec<WarningItem>,
    /// Languages of the files that the project lacked and the upload added
    /// (`addLanguages=true`), in the order added.
    #[oai(rename = "addedLanguages")]
    pub added_languages: Vec<String>,
    /// The app's files kept as written (i18next, PO, ARB, XLIFF, YAML files that the export
    /// would write otherwise), by the format's folder and the path the export gives them
    /// (`po/pl.po`): that format's export gives them back with the texts patched in.
    pub kept: Vec<String>,
}

/// What an upload did to the texts of one language.
#[derive(Debug, Object)]
pub struct LanguageTextsItem {
    /// A project language.
    pub language: String,
    /// Texts added (the key had none in this language, or is new).
    pub created: u64,
    /// Texts changed.
    pub updated: u64,
    /// Texts removed.
    pub removed: u64,
}

/// One file of an upload.
#[derive(Debug, Object)]
pub struct UploadedFileItem {
    /// The path in the zip (or the file's name in the layout, for a single file).
    pub path: String,
    /// The project language it maps to.
    pub language: String,
    /// Entries read from it.
    pub keys: u64,
}

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
struct KnownKey {
    plural: bool,
    translatable: bool,
    /// Whether the key has a base text.
    has_base: bool,
}

/// The uploaded file or zip, sent as the request body.
pub struct UploadBody(pub Vec<u8>);

/// Content types an upload may carry: the formats' own (with the unregistered names tools
/// still send for PO and YAML), `application/octet-stream` and `application/zip`.
const UPLOAD_TYPES: &[&str] = &[
    "application/octet-stream",
    "application/zip",
    "application/x-zip-compressed",
    "application/xml",
    "text/xml",
    "application/json",
    "text/csv",
    "text/plain",
    "application/x-plist",
    "application/xliff+xml",
    "text/x-gettext-translation",
    "text/x-po",
    "application/x-po",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
    "text/x-yaml",
];

impl UploadBody {
    fn accepts(content_type: &str) -> bool {
        let media_type = content_type.split(';').next().unwrap_or_default().trim();
        UPLOAD_TYPES.iter().any(|known| media_type.eq_ignore_ascii_case(known))
    }
}

/// Documented as one binary body under each accepted content type, but for JSON, whose files
/// are one object.
impl<'a> ApiExtractor<'a> for UploadBody {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn request_meta() -> Option<MetaRequest> {
        let schema = |content_type: &str| {
            let schema = if content_type == "application/json" {
                MetaSchema {
                    description: Some(
                        "A JSON file: key names to texts, or to plural form objects; other nested objects are flattened into dotted key names.",
                    ),
                    ..MetaSchema::new("object")
                }
            } else {
                MetaSchema::new_with_format("string", "binary")
            };
            MetaSchemaRef::Inline(Box::new(schema))
        };
        Some(MetaRequest {
            description: Some("The file, or a zip of files laid out as the export lays them out."),
            content: UPLOAD_TYPES
                .iter()
                .map(|content_type| MetaMediaType {
                    content_type,
                    schema: schema(content_type),
                })
                .collect(),
            required: true,
        })
    }

    async fn from_request(
        request: &'a Request,
        body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        super::body_of_type(request, body, Self::accepts).await.map(Self)
    }
}

#[OpenApi(tag = "ApiTags::Keys")]
impl FilesApi {
    /// Upload files
    ///
    /// Needs write access. Reads an app's resource files and applies them as one commit (none
    /// when nothing changes). The body is one file (then `language` names its language) or a
    /// zip laid out as the export lays it out: `values*/*.xml` (every `<string>` and
    /// `<plurals>` of every file; `values/` is the base language, `values-pt-rBR/` is `pt-BR`,
    /// `values-b+zh+Hans/` is `zh-Hans`), `{lang}.lproj/Localizable.strings` and
    /// `.stringsdict`, `{lang}.json`, `{lang}.csv`, `{table}.xcstrings` (an Xcode String
    /// Catalog names its own languages: `language` is not needed; `needs_review` marks the
    /// translation outdated), i18next's `{lang}.json` (`key_one`, `key_other` members are a
    /// plural key's forms), gettext's `{lang}.po` (`msgctxt` or else `msgid` names the key,
    /// `#, fuzzy` marks it outdated), Flutter's `app_{lang}.arb` (an ICU plural message is a
    /// plural key, `@key.description` its description), XLIFF 1.2 or 2.0 `{lang}.xliff` (the
    /// file's `target-language` names its language, so a single file needs no `language`;
    /// `<target>` is the text unless its state is `new` or `needs-translation`, a `needs-*`
    /// state marks it outdated, `<note>` is the description), Rails' `{lang}.yml` (its root keys
    /// name its languages; a mapping of CLDR categories with `other` is a plural key, the `#`
    /// lines above a key its description). Values are read as the platform's own parser
    /// reads them; `<plurals>`, `.stringsdict` entries, JSON form objects and ICU plural cells
    /// become plural keys; the comment directly above an entry becomes the key's description;
    /// Android inline markup is kept (the key's `markup` flag). Send the file's own content
    /// type, `application/octet-stream` or `application/zip`. A file that does not parse is a
    /// 400 naming the file and line; nothing is written then. i18next, PO, ARB, XLIFF and
    /// single-language YAML files that the export would write otherwise (the app's order,
    /// comments, quoting, header) are kept in the same commit, and that format's export gives
    /// them back as the app wrote them, with the texts changed since changed in place.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/files",
        method = "post",
        operation_id = "uploadFiles"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn upload_files(
        &self,
        request: &Request,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// The format: `json`, `csv`, `android-xml`, `apple-strings`, `xcstrings`, `i18next`, `po`,
        /// `arb`, `xliff` (1.2 and 2.0 alike) or `yaml`.
        #[oai(name = "type")]
        format: Query<ExportType>,
        /// The language of a single file that is not a zip (a project language).
        language: Query<Option<LanguageParam>>,
        /// `upsert` (default) or `create`.
        mode: Query<Option<UploadMode>>,
        /// `true`: answer the counts and commit nothing.
        #[oai(name = "dryRun")]
        dry_run: Query<Option<bool>>,
        /// `true`: languages the project lacks are added to it in the same commit, rather
        /// than refused.
        #[oai(name = "addLanguages")]
        add_languages: Query<Option<bool>>,
        /// Tags added to every key of the upload (repeat the parameter or separate with
        /// commas), so that an export with `tags` gives back this platform's keys.
        tags: Query<Option<Vec<String>>>,
        /// `true`: base-language texts the upload changes leave the other languages'
        /// translations that were current current (typo fixes) instead of marking them
        /// outdated.
        #[oai(name = "keepCurrent")]
        keep_current: Query<Option<bool>>,
        body: UploadBody,
    ) -> Result<Json<UploadResult>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let project_name = project_name.0.0;
        let project = self.state.store.project(&team, &project_name)?;
        let is_zip = request
            .content_type()
            .is_some_and(|content_type| content_type.contains("zip"));
        let format = format.0.format();
        let max_unpacked = self.state.max_unpacked_bytes;
        let language = language.0.map(|language| language.0.to_string());
        let upload = tokio::task::spawn_blocking(move || {
            upload::read(format, &body.0, is_zip, language.as_deref(), max_unpacked)
        })
        .await
        .map_err(|join_error| {
            tracing::error!(error = %join_error, "the upload task failed");
            ApiError::internal()
        })?
        .map_err(|err| match err {
            UploadError::Invalid(message) => ApiError::invalid(message),
            UploadError::TooLarge(message) => ApiError::payload_too_large(message),
        })?;
        let tags = super::export::split_list(tags.0.unwrap_or_default())
            .into_iter()
            .map(|tag| {
                Tag::parse(&tag)
                    .map(Tag::into_string)
                    .map_err(|err| ApiError::invalid(err.0))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (_, keys) = self.state.store.keys_for_export(&team, &project_name, &[]).await?;
        let add_languages = add_languages.0.unwrap_or(false);
        // Gathering 100,000 keys' texts across files is CPU work: off the runtime's workers.
        let plan = tokio::task::spawn_blocking(move || {
            let existing: rustc_hash::FxHashMap<&str, KnownKey> = keys
                .iter()
                .map(|entry| {
                    let known = KnownKey {
                        plural: entry.key.plural,
                        translatable: entry.key.translatable,
                        has_base: entry.key.translations.get(&project.base_language).is_some(),
                    };
                    (entry.key.name.as_str(), known)
                })
                .collect();
            UploadPlan::new(&project, &existing, upload, add_languages, &tags)
        })
        .await
        .map_err(|join_error| {
            tracing::error!(error = %join_error, "the upload planning task failed");
            ApiError::internal()
        })??;
        // The kept files as the upload read them, for exports (held once their blobs are known).
        let read_ahead: Arc<std::sync::Mutex<formats::kept::ReadAhead>> = Arc::default();
        let import = Import {
            team,
            project: project_name,
            mode: match mode.0.unwrap_or(UploadMode::Upsert) {
                UploadMode::Create => ImportMode::Create,
                UploadMode::Upsert => ImportMode::Upsert,
            },
            keys: plan.entries,
            add_languages: plan.add_languages.clone(),
            keep_current: keep_current.0.unwrap_or(false),
            beside: (!plan.originals.is_empty()).then(|| {
                let (originals, read) = (plan.originals, read_ahead.clone());
                Beside(Arc::new(move |project: &Project, keys: &[&Key]| {
                    let keeping = formats::kept::beside(&originals, project, keys);
                    *read.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = keeping.read;
                    keeping.files
                }))
            }),
        };
        let added_languages = plan.add_languages;
        let dry_run = dry_run.0.unwrap_or(false);
        let (team, project) = (import.team.clone(), import.project.clone());
        let counts = if dry_run {
            self.state.store.plan_import(import).await?
        } else {
            let (outcome, counts) = self.state.store.import(import, auth.author()).await?;
            if let Outcome::Committed(commit) = outcome {
                let read = std::mem::take(&mut *read_ahead.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
                hold_kept_files(&self.state, &team, &project, commit, read).await;
            }
            counts
        };
        let mut warnings = plan.warnings;
        if !dry_run {
            let (failures, total) = self
                .state
                .store
                .failures_of(&team, &project, &counts.written, MOST_WARNINGS)
                .await?;
            warnings.extend(WarningItem::of_checks(failures, total));
        }
        let mut languages: Vec<String> = plan.files.iter().map(|file| file.language.clone()).collect();
        languages.extend(counts.texts.keys().cloned());
        languages.sort();
        languages.dedup();
        let texts = languages
            .into_iter()
            .map(|language| {
                let language_counts = counts.texts.get(&language).copied().unwrap_or_default();
                LanguageTextsItem {
                    language,
                    created: language_counts.created as u64,
                    updated: language_counts.updated as u64,
                    removed: language_counts.removed as u64,
                }
            })
            .collect();
        Ok(Json(UploadResult {
            success: true,
            texts,
            created: counts.created as u64,
            updated: counts.updated as u64,
            unchanged: counts.unchanged as u64,
            files: plan.files,
            ignored: plan.ignored,
            skipped: plan.skipped as u64,
            dry_run,
            warnings,
            added_languages: added_languages.iter().map(ToString::to_string).collect(),
            kept: counts.kept,
        }))
    }
}

/// An upload turned into import entries: the files' languages resolved against the project,
/// each key's texts gathered across languages, and the entries passed over as warnings.
struct UploadPlan {
    entries: Vec<ImportEntry>,
    /// Per entry, the kind its texts must have.
    kinds: Vec<EntryKind>,
    add_languages: Vec<LanguageCode>,
    files: Vec<UploadedFileItem>,
    ignored: Vec<String>,
    skipped: usize,
    warnings: Vec<WarningItem>,
    /// The app's files as it wrote them, with their languages (see [`formats::kept`]).
    originals: Vec<(LanguageCode, Original)>,
}

impl UploadPlan {
    /// Reads the base language's files first, so that the base language decides each key's
    /// kind (plain or plural), its file and whether it is translatable; an entry of another
    /// language that disagrees is passed over with a warning, never a refusal.
    fn new(
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

/// Holds the kept files an upload committed (`read`, by path under the kept folder, as the
/// upload read them) in the cache under their blobs, so that the first export patches them
/// without reading them again. Only a tree is read (the blobs are not); a failure costs the
/// first export that read, nothing else.
async fn hold_kept_files(
    state: &AppState,
    team: &TeamName,
    project: &ProjectName,
    commit: String,
    read: formats::kept::ReadAhead,
) {
    if read.is_empty() {
        return;
    }
    let (store, cache) = (state.store.clone(), state.kept_cache.clone());
    let (team, project) = (team.clone(), project.clone());
    let held = tokio::task::spawn_blocking(move || {
        let mut read: HashMap<String, Arc<formats::kept::Cached>> = read.into_iter().collect();
        let blobs = store.kept_blobs(&commit, &team, &project, "", &|_| true, &|_| true)?;
        for blob in blobs {
            if let Some(file) = read.remove(&blob.path) {
                cache.put(&blob.blob, file);
            }
        }
        Ok::<_, crate::store::StoreError>(cache.usage())
    })
    .await;
    match held {
        Ok(Ok((files, cost))) => {
            state.metrics.kept_cache_files.set(files as i64);
            state.metrics.kept_cache_bytes.set(cost as i64);
        }
        Ok(Err(err)) => tracing::warn!(error = %err, "the kept files the upload read are not held for exports"),
        Err(err) => tracing::warn!(error = %err, "holding the kept files the upload read failed"),
    }
}
