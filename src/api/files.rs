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
use super::params::NamespaceParam;
use super::schema::{LanguageParam, ProjectNameParam, TeamNameParam};
use super::warnings::{MOST_WARNINGS, WarningItem};
use super::{ApiTags, AppState};
use crate::domain::model::{Key, Project};
use crate::domain::names::Tag;
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::formats;
use crate::formats::upload::{self, UploadError};
use crate::store::{Beside, Import, ImportMode, Outcome};
use crate::tokens::Access;

mod plan;
mod sets;

use plan::{KnownKey, UploadPlan};

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
    /// For an upload of several file sets, what it did per set, in the order of the
    /// manifest's `sets`; their files' and warnings' paths begin with the set's place
    /// (`0/values/strings.xml`).
    #[oai(skip_serializing_if_is_none)]
    pub sets: Option<Vec<SetResult>>,
}

/// What an upload of several file sets did to one set's keys.
#[derive(Debug, Object)]
pub struct SetResult {
    /// Keys of the set created.
    pub created: u64,
    /// Existing keys of the set changed.
    pub updated: u64,
    /// Existing keys of the set left as they were.
    pub unchanged: u64,
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
    /// `.stringsdict`, `{lang}.json`, `{lang}.csv`, a CSV table of every language (`csv-table`:
    /// its header of language codes names the columns; in a zip, `{lang}/{name}.csv` is a file
    /// of that language, whose `KEY;text` rows may have no header), `{table}.xcstrings` (an Xcode String
    /// Catalog names its own languages: `language` is not needed; `needs_review` marks the
    /// translation outdated), i18next's `{lang}.json` (`key_one`, `key_other` members are a
    /// plural key's forms), gettext's `{lang}.po` (`msgctxt` or else `msgid` names the key,
    /// `#, fuzzy` marks it outdated), Flutter's `app_{lang}.arb` (an ICU plural message is a
    /// plural key, `@key.description` its description), XLIFF 1.2 or 2.0 `{lang}.xliff` (the
    /// file's `target-language` names its language, so a single file needs no `language`;
    /// `<target>` is the text unless its state is `new` or `needs-translation`, a `needs-*`
    /// state marks it outdated, `<note>` is the description), Rails' `{lang}.yml` (its root keys
    /// name its languages, so a file named by none, `overrides.yml`, gives each root's texts to
    /// its language; a mapping of CLDR categories with `other` is a plural key, the `#` lines
    /// above a key its description). Values are read as the platform's own parser
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
        /// The format: `json`, `csv`, `csv-table`, `android-xml`, `apple-strings`, `xcstrings`, `i18next`, `po`,
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
        /// The namespace of the upload's keys, under which each file's own namespace (an
        /// i18next namespace, an Apple table, a gettext domain) goes: `core` and a file
        /// `fr/common.json` give `core/common`. `locstore push` sends a file set's `namespace`.
        namespace: Query<Option<NamespaceParam>>,
        /// Upload to this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
        body: UploadBody,
    ) -> Result<Json<UploadResult>, ApiError> {
        let branch = super::params::branch_of(branch.0);
        let namespace = namespace.0.map(|namespace| namespace.0).unwrap_or_default();
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let project_name = project_name.0.0;
        // Refuses an unknown project before the body is read.
        self.state.store.project(&team, &project_name)?;
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
        let (project, keys) = super::params::keys_on(&self.state, &team, &project_name, branch.as_ref()).await?;
        let add_languages = add_languages.0.unwrap_or(false);
        // Gathering 100,000 keys' texts across files is CPU work: off the runtime's workers.
        let plan = tokio::task::spawn_blocking(move || {
            let existing = KnownKey::of_keys(&keys, &project.base_language);
            UploadPlan::new(&project, &existing, upload, add_languages, &tags, &namespace, None)
        })
        .await
        .map_err(|join_error| {
            tracing::error!(error = %join_error, "the upload planning task failed");
            ApiError::internal()
        })??;
        let mut applying = Applying::new(mode.0, dry_run.0, keep_current.0);
        applying.branch = branch;
        let (result, _) = self.apply(&auth, team, project_name, plan, applying).await?;
        Ok(Json(result))
    }

    /// Upload several file sets
    ///
    /// Needs write access. The files of several file sets of one app (its modules, bundles,
    /// catalogs folders, or its Android and iOS apps) applied as ONE commit, as `locstore push`
    /// sends them: a zip holding `sets.json`, `{"sets": [{"type", "namespace"?, "tags"?,
    /// "file"?}, ...]}`, and each set's files under a folder named by its place in that
    /// list (`0/values/strings.xml`, `1/en.lproj/Localizable.strings`), laid out as an upload
    /// of its `type` lays them out. Each set is read as `uploadFiles` reads one upload with
    /// that `type`, `namespace` and `tags`. `file` puts sets in one key space apart, as a Rails
    /// app's locale files are (`"devise"` for `devise.{lang}.yml`, `""` for `{lang}.yml`): a
    /// new key takes the set's file, a key whose file is another set's keeps it and this
    /// set's text of it is passed over with a warning. Then the sets are joined in order (a
    /// key two sets hold takes the later set's texts of the languages it has) and applied as
    /// one import. The answer is `uploadFiles`'s, with the files' and warnings' paths beginning
    /// with their set's place, and `sets`: what the push did to each set's keys.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/files/sets",
        method = "post",
        operation_id = "uploadFileSets"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn upload_file_sets(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// `upsert` (default) or `create`.
        mode: Query<Option<UploadMode>>,
        /// `true`: answer the counts and commit nothing.
        #[oai(name = "dryRun")]
        dry_run: Query<Option<bool>>,
        /// `true`: languages the project lacks are added to it in the same commit, rather
        /// than refused.
        #[oai(name = "addLanguages")]
        add_languages: Query<Option<bool>>,
        /// As for `uploadFiles`.
        #[oai(name = "keepCurrent")]
        keep_current: Query<Option<bool>>,
        /// Upload to this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
        body: UploadBody,
    ) -> Result<Json<UploadResult>, ApiError> {
        let branch = super::params::branch_of(branch.0);
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let project_name = project_name.0.0;
        // Refuses an unknown project before the body is read.
        self.state.store.project(&team, &project_name)?;
        let max_unpacked = self.state.max_unpacked_bytes;
        let (read, strays) = tokio::task::spawn_blocking(move || sets::read(&body.0, max_unpacked))
            .await
            .map_err(|join_error| {
                tracing::error!(error = %join_error, "the upload task failed");
                ApiError::internal()
            })??;
        let (project, keys) = super::params::keys_on(&self.state, &team, &project_name, branch.as_ref()).await?;
        let add_languages = add_languages.0.unwrap_or(false);
        let (plan, set_keys) = tokio::task::spawn_blocking(move || {
            let existing = KnownKey::of_keys(&keys, &project.base_language);
            let mut joined: Option<UploadPlan> = None;
            // The error of one set of several says which.
            let several = read.len() > 1;
            let mut set_keys = Vec::with_capacity(read.len());
            for (place, set) in read.into_iter().enumerate() {
                let plan = UploadPlan::new(
                    &project,
                    &existing,
                    set.upload,
                    add_languages,
                    &set.tags,
                    &set.namespace,
                    set.file.as_deref(),
                )
                .map_err(|err| if several { err.in_set(place) } else { err })?;
                // Each key of the set, and whether the project had it before the push.
                set_keys.push(
                    plan.names()
                        .map(|name| (name.clone(), existing.contains_key(name.identity())))
                        .collect::<Vec<(KeyName, bool)>>(),
                );
                match &mut joined {
                    None => joined = Some(plan.into_set(place)),
                    Some(joined) => joined.absorb(plan, place),
                }
            }
            let mut plan = joined.ok_or_else(|| ApiError::invalid("sets.json lists no file set."))?;
            plan.ignored.extend(strays);
            Ok::<_, ApiError>((plan, set_keys))
        })
        .await
        .map_err(|join_error| {
            tracing::error!(error = %join_error, "the upload planning task failed");
            ApiError::internal()
        })??;
        let mut applying = Applying::new(mode.0, dry_run.0, keep_current.0);
        applying.branch = branch;
        let (mut result, written) = self.apply(&auth, team, project_name, plan, applying).await?;
        let written: rustc_hash::FxHashSet<KeyName> = written.into_iter().collect();
        result.sets = Some(
            set_keys
                .iter()
                .map(|names| {
                    let count = |wanted: fn(bool, bool) -> bool| {
                        names
                            .iter()
                            .filter(|(name, existed)| wanted(*existed, written.contains(name)))
                            .count() as u64
                    };
                    SetResult {
                        created: count(|existed, _| !existed),
                        updated: count(|existed, written| existed && written),
                        unchanged: count(|existed, written| existed && !written),
                    }
                })
                .collect(),
        );
        Ok(Json(result))
    }
}

/// What applies to every file of an upload.
struct Applying {
    mode: ImportMode,
    dry_run: bool,
    keep_current: bool,
    /// The branch written, `None` for the main line.
    branch: Option<crate::domain::names::BranchName>,
}

impl Applying {
    /// From the query parameters: `upsert`, no dry run and outdating by default.
    fn new(mode: Option<UploadMode>, dry_run: Option<bool>, keep_current: Option<bool>) -> Self {
        Self {
            mode: match mode.unwrap_or(UploadMode::Upsert) {
                UploadMode::Create => ImportMode::Create,
                UploadMode::Upsert => ImportMode::Upsert,
            },
            dry_run: dry_run.unwrap_or(false),
            keep_current: keep_current.unwrap_or(false),
            branch: None,
        }
    }
}

impl FilesApi {
    /// Applies an upload's plan as one import (one commit, none when nothing changes, or a
    /// dry run) and answers what it did, with the keys it wrote.
    async fn apply(
        &self,
        auth: &TokenAuth,
        team: TeamName,
        project_name: ProjectName,
        plan: UploadPlan,
        applying: Applying,
    ) -> Result<(UploadResult, Vec<KeyName>), ApiError> {
        // The kept files as the upload read them, for exports (held once their blobs are known).
        let read_ahead: Arc<std::sync::Mutex<formats::kept::ReadAhead>> = Arc::default();
        let import = Import {
            team,
            project: project_name,
            mode: applying.mode,
            keys: plan.entries,
            add_languages: plan.add_languages.clone(),
            keep_current: applying.keep_current,
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
        let dry_run = applying.dry_run;
        let (team, project) = (import.team.clone(), import.project.clone());
        let branch = applying.branch.as_ref();
        let counts = if dry_run {
            match branch {
                None => self.state.store.plan_import(import).await?,
                Some(branch) => self.state.store.plan_import_on_branch(branch, import).await?,
            }
        } else {
            let (outcome, counts) = super::params::import_on(&self.state, branch, import, auth.author()).await?;
            if let Outcome::Committed(commit) = outcome {
                let read = std::mem::take(&mut *read_ahead.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
                hold_kept_files(&self.state, &team, &project, commit, read).await;
            }
            counts
        };
        let mut warnings = plan.warnings;
        if !dry_run {
            let (failures, total) =
                super::params::failures_on(&self.state, &team, &project, branch, &counts.written, MOST_WARNINGS)
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
        let written = counts.written.clone();
        Ok((
            UploadResult {
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
                sets: None,
            },
            written,
        ))
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
        Ok(Ok(usage)) => state.metrics.kept_cache(usage),
        Ok(Err(err)) => tracing::warn!(error = %err, "the kept files the upload read are not held for exports"),
        Err(err) => tracing::warn!(error = %err, "holding the kept files the upload read failed"),
    }
}
