//! The export handler: filters, renders and stores the files, answers the download address.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::Arc;

use poem::Request;
use poem_openapi::param::{Header, Path, Query};

use crate::store::{etag, seen};
use poem_openapi::payload::Json;
use poem_openapi::{Enum, OpenApi};

use super::auth::TokenAuth;
use super::error::{ApiError, error_chain};
use super::keys::{KeysApi, reserved_key_name};
use super::params::LanguageListParam;
use super::params::NamespaceParam;
use super::schema::{Conditional, ExportResult, ProjectNameParam, TeamNameParam, UpdateKeyRequest};
use super::teams::Done;
use super::warnings::{MOST_WARNINGS, WarningItem};
use super::{ApiTags, AppState};
use crate::domain::key_files::{FileName, Platform};
use crate::domain::model::{Key, Project};
use crate::domain::names::{LanguageCode, quote_for_message};
use crate::formats::downloads::{Download, Downloads};
use crate::formats::{self, ExportError, ExportFormat, archive};

pub struct ExportApi {
    pub state: Arc<AppState>,
}

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ExportType {
    /// `{lang}.json`: a flat object of key to text.
    #[oai(rename = "json")]
    Json,
    /// `{lang}.csv`: RFC 4180 with the header `key,{lang}`.
    #[oai(rename = "csv")]
    Csv,
    /// `table.csv`: one CSV table with every exported language as a column, the header
    /// `key,{base},{lang},...` (Godot's translation tables). An upload reads a table's header
    /// of language codes, which may follow a row of language names.
    #[oai(rename = "csv-table")]
    CsvTable,
    /// Android `values*/strings.xml`.
    #[oai(rename = "android-xml")]
    AndroidXml,
    /// Apple `{lang}.lproj/Localizable.strings`.
    #[oai(rename = "apple-strings")]
    AppleStrings,
    /// Xcode String Catalog `Localizable.xcstrings`: every language in one file.
    #[oai(rename = "xcstrings")]
    Xcstrings,
    /// i18next JSON v4 `{lang}.json`: nested at `.`, plural forms as `key_one`, `key_other`.
    #[oai(rename = "i18next")]
    I18next,
    /// gettext `{lang}.po` (and `template.pot` with the base language).
    #[oai(rename = "po")]
    Po,
    /// Flutter `app_{lang}.arb`: plural keys as ICU plural messages.
    #[oai(rename = "arb")]
    Arb,
    /// XLIFF `{lang}.xliff` (1.2 as Xcode exports it; `version=2.0` for XLIFF 2.0): every key
    /// with its base text as source and the language's text as target.
    #[oai(rename = "xliff")]
    Xliff,
    /// Rails i18n `{lang}.yml`: the language as root key, nested at `.`, plural keys as
    /// mappings of categories, descriptions as `#` comments.
    #[oai(rename = "yaml")]
    Yaml,
}

/// An XLIFF version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum XliffVersion {
    /// XLIFF 1.2, as Xcode's "Export Localizations" writes it.
    #[oai(rename = "1.2")]
    V1,
    /// XLIFF 2.0.
    #[oai(rename = "2.0")]
    V2,
}

/// What an export does with placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ExportPlaceholders {
    /// Convert each key's placeholders to the format's syntax (the default).
    #[oai(rename = "convert")]
    Convert,
    /// Write every text as stored.
    #[oai(rename = "keep")]
    Keep,
}

/// Whose layout an export's files have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
pub enum ExportLayout {
    /// The app's own files where an upload kept them, else the export's.
    #[oai(rename = "app")]
    App,
    /// The export's own layout for every file.
    #[oai(rename = "export")]
    Export,
}

impl ExportType {
    pub fn format(self) -> ExportFormat {
        match self {
            Self::Json => ExportFormat::Json,
            Self::Csv => ExportFormat::Csv,
            Self::CsvTable => ExportFormat::CsvTable,
            Self::AndroidXml => ExportFormat::AndroidXml,
            Self::AppleStrings => ExportFormat::AppleStrings,
            Self::Xcstrings => ExportFormat::Xcstrings,
            Self::I18next => ExportFormat::I18next,
            Self::Po => ExportFormat::Po,
            Self::Arb => ExportFormat::Arb,
            Self::Xliff => ExportFormat::Xliff,
            Self::Yaml => ExportFormat::Yaml,
        }
    }
}

#[OpenApi(tag = "ApiTags::Export")]
impl ExportApi {
    /// Export keys
    ///
    /// Writes the project's keys as files apps load, one file per language, and answers the
    /// address to download them from: the file itself when one language is exported, a zip
    /// archive of all files otherwise. The address needs no token and expires after the
    /// server's export TTL (1 hour by default).
    ///
    /// Paths: `json` `{lang}.json`; `csv` `{lang}.csv`; `csv-table` `table.csv`, every exported
    /// language a column; `android-xml` `values/strings.xml` for
    /// the base language and `values-{qualifier}/strings.xml` for the others;
    /// `apple-strings` `{lang}.lproj/Localizable.strings`; `xcstrings` `Localizable.xcstrings`,
    /// one Xcode String Catalog holding every exported language (and one per table that keys
    /// name in `files.apple`, zipped together); `i18next` `{lang}.json` (`{lang}/{ns}.json` for
    /// keys with a namespace), nested at `.`, with plural forms as `key_one`, `key_other`; `po`
    /// `{lang}.po` (gettext; `msgctxt` is the key, plural forms in the order of the language's
    /// `Plural-Forms`) and `template.pot` beside the base language's; `arb` `app_{lang}.arb`
    /// (Flutter; plural keys as ICU plural messages, `@key` descriptions in the base file);
    /// `xliff` `{lang}.xliff` (every key with its base text as `<source>`, the language's text
    /// as `<target>` where it has one, `state="needs-review-translation"` when outdated, the
    /// description as `<note>`; plural keys as ICU plural messages; XLIFF 2.0 with
    /// `version=2.0`); `yaml` `{lang}.yml` (Rails i18n: the language as root key, names nested at
    /// `.`, plural keys as mappings of CLDR categories, descriptions as `#` comments). A file
    /// an upload kept (an app's own i18next, PO, ARB, XLIFF or YAML file) is that file with
    /// the project's texts patched in: entries changed since get their new text in the file's
    /// style, deleted keys' entries go, new keys' entries are inserted; every other byte stays.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/export",
        method = "get",
        operation_id = "exportKeys"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn export_keys(
        &self,
        request: &Request,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// The format: `json`, `csv`, `csv-table`, `android-xml`, `apple-strings`, `xcstrings`, `i18next`, `po`,
        /// `arb`, `xliff` or `yaml`.
        #[oai(name = "type")]
        format: Query<ExportType>,
        /// For `type=xliff`: the XLIFF version, `1.2` (the default, as Xcode writes it) or `2.0`.
        version: Query<Option<XliffVersion>>,
        /// Export only keys with at least one of these tags (repeat the parameter or separate
        /// with commas). All keys when left out.
        tags: Query<Option<Vec<String>>>,
        /// Export only these languages (repeat the parameter or separate with commas). All of
        /// the project's languages when left out.
        languages: Query<Option<Vec<LanguageListParam>>>,
        /// Export the project as it was at this state: a snapshot name, a commit id (full,
        /// or at least 7 hex digits) or an RFC 3339 time (the last commit at or before it).
        at: Query<Option<String>>,
        /// `app` (the default): where an upload kept the app's own i18next, PO, ARB, XLIFF or
        /// YAML files, those files with the project's texts patched in; `export`: the export's
        /// own layout for every file (to bring an app's files into it).
        layout: Query<Option<ExportLayout>>,
        /// Answer `304 Not Modified`, with no body, when this names the current `ETag`.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
        /// Export one namespace: its keys and, for formats whose files name namespaces
        /// (i18next, JSON, Apple, PO, XLIFF), those of the namespaces under it
        /// (`namespace=core` takes `core` and `core/common`), written as if it were the default
        /// namespace; `namespace=` with no value takes the default namespace's keys only. All
        /// keys when left out: a format without namespaces (Android, ARB, CSV, PO, XLIFF,
        /// YAML, flat JSON without namespaces) then writes a key of another namespace as
        /// `{namespace}:{name}`.
        namespace: Query<Option<NamespaceParam>>,
        /// `convert` (the default): each key's placeholders are written in the format's
        /// syntax (Android `printf`, Apple `apple`, ARB `icu`, i18next `i18next`, Rails YAML
        /// `rails`; JSON, CSV, PO and XLIFF write texts as stored), from the key's own
        /// `placeholders` syntax; `keep`: every text as stored.
        placeholders: Query<Option<ExportPlaceholders>>,
        /// Export this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
        /// Export only the keys of this web file (a Rails locale file's family, as a file
        /// set's `file` pushed them: `devise` for `devise.{lang}.yml`); `file=` with no value
        /// takes the keys of none. All keys when left out.
        file: Query<Option<String>>,
    ) -> Result<Conditional<ExportResult>, ApiError> {
        if let Some(file) = file.0.as_deref().filter(|file| !file.is_empty()) {
            FileName::parse(Platform::Web, file).map_err(|err| ApiError::invalid(err.0))?;
        }
        let team = auth.team(team_name.0.0)?;
        let project_name = project_name.0.0;
        let at = Query(super::params::read_at(&self.state, &team, &project_name, branch.0, at.0).await?);
        let within = namespace.0.map(|namespace| namespace.0);
        let format = match (format.0, version.0) {
            (ExportType::Xliff, Some(XliffVersion::V2)) => ExportFormat::Xliff2,
            (ExportType::Xliff, _) => ExportFormat::Xliff,
            (_, Some(_)) => {
                return Err(ApiError::invalid("The `version` parameter is for `type=xliff` only."));
            }
            (format, None) => format.format(),
        };
        let tags = split_list(tags.0.unwrap_or_default());
        let (project, keys) = match &at.0 {
            Some(reference) => {
                self.state
                    .history
                    .keys_for_export_at(&team, &project_name, &tags, reference)
                    .await?
            }
            None => self.state.store.keys_for_export(&team, &project_name, &tags).await?,
        };
        let keys = match file.0.as_deref() {
            Some(file) => keys
                .into_iter()
                .filter(|entry| entry.key.files.web.as_deref().unwrap_or_default() == file)
                .collect(),
            None => keys,
        };
        let requested = languages
            .0
            .unwrap_or_default()
            .into_iter()
            .flat_map(|list| list.0)
            .collect();
        let languages = chosen_languages(&project, requested)?;
        // The files are a function of the commit they were read at and the parameters.
        // The app's files an upload kept are the whole project's: an export of one namespace
        // is written in the export's own layout.
        let own_layout = layout.0 == Some(ExportLayout::Export) || within.is_some() || file.0.is_some();
        let commit = seen::current_commit().unwrap_or_default();
        let keep = placeholders.0 == Some(ExportPlaceholders::Keep);
        let parameters = format!(
            "{commit} {team}/{project_name} {} {tags:?} {languages:?} {own_layout} {within:?} {keep} {:?}",
            format.name(),
            file.0
        );
        let tag = etag::tag(parameters.as_bytes());
        if if_none_match.0.is_some_and(|header| etag::matches(&header, &tag)) {
            return Ok(Conditional::NotModified(tag));
        }
        // The app's own files an upload kept, which the export patches rather than writes.
        let wanted = formats::kept::wanted(format, &project.base_language, &languages);
        let folder = formats::kept::folder(format).filter(|_| !own_layout);
        let reading = formats::kept::Reading::new(self.state.kept_cache.clone(), format);
        let kept = match (folder, &at.0) {
            (None, _) => Vec::new(),
            (Some(folder), Some(reference)) => {
                let blobs = self
                    .state
                    .history
                    .kept_blobs_at(&team, &project_name, reference, folder, wanted, reading.have())
                    .await?;
                reading.files(blobs)
            }
            (Some(folder), None) => {
                let store = self.state.store.clone();
                let (team, project_name, commit) = (team.clone(), project_name.clone(), commit.clone());
                tokio::task::spawn_blocking(move || {
                    let blobs = store.kept_blobs(&commit, &team, &project_name, folder, &wanted, &*reading.have())?;
                    Ok::<_, crate::store::StoreError>(reading.files(blobs))
                })
                .await
                .map_err(|join_error| {
                    tracing::error!(error = %join_error, "the read of kept files failed");
                    ApiError::internal()
                })??
            }
        };
        // What happened to the keys since each file was kept, so that the files need patching
        // with the keys changed since only (not known for an export of some keys' tags).
        let since = match folder {
            Some(folder) if !kept.is_empty() && tags.is_empty() => {
                let at_commit = match &at.0 {
                    Some(reference) => Some(self.state.history.commit_at(&team, &project_name, reference).await?),
                    None => git2::Oid::from_str(&commit).ok(),
                };
                match at_commit {
                    Some(at_commit) => {
                        let paths = kept.iter().map(|(path, _)| path.clone()).collect();
                        self.state
                            .history
                            .kept_since(&team, &project_name, at_commit, folder, paths)
                            .await?
                    }
                    None => HashMap::new(),
                }
            }
            _ => HashMap::new(),
        };

        let downloads = self.state.downloads.clone();
        let metrics = self.state.metrics.clone();
        let kept_cache = self.state.kept_cache.clone();
        let given = formats::kept::Given::default();
        let bundle_name = format!("{project_name}-{}.zip", format.name());
        // A whole export's Apple `.strings` writer converts the common keys itself; the app's
        // own files are patched with keys converted before.
        let on_write = !keep && kept.is_empty();
        let stored = tokio::task::spawn_blocking(move || {
            let keys: Vec<&Key> = keys.iter().map(|entry| &entry.key).collect();
            // Placeholders in the format's syntax (its warnings are answered even when the
            // files are reused).
            let (converted, warnings) = if keep {
                (
                    keys.iter().map(|key| std::borrow::Cow::Borrowed(*key)).collect(),
                    Vec::new(),
                )
            } else {
                formats::placeholders::converted(&keys, format, &project.base_language, on_write)
            };
            let (converted, warnings) =
                formats::xcstrings::leave_out_whole(converted, warnings, format, &project.base_language);
            // The same export of the same commit is the same bytes: the stored one is reused.
            if let Some(download) = downloads.reusable(&parameters) {
                return Ok((download, warnings));
            }
            let keys: Vec<&Key> = converted.iter().map(|key| key.as_ref()).collect();
            let written = formats::namespaces::exported(&keys, format, within.as_ref());
            let keys: Vec<&Key> = written.iter().map(|key| key.as_ref()).collect();
            let mut export = formats::Export::new(format, &project, &keys, &languages)?;
            if on_write {
                export = export.converting_on_write();
            }
            let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
            // One language of one file is that file itself; anything else a zip.
            let one_file = matches!(languages.as_slice(), [language] if export.paths(language).len() == 1);
            let download = if !kept.is_empty() {
                // The app's own files, patched.
                let patching = formats::kept::Patching {
                    project: &project,
                    keys: &keys,
                    kept,
                    since,
                    threads,
                    given: &given,
                };
                let download = store_kept(&downloads, &export, &languages, patching, one_file, &bundle_name)?;
                for (how, count) in [
                    ("as_kept", &given.as_kept),
                    ("changed_keys", &given.changed_keys),
                    ("whole_export", &given.whole_export),
                ] {
                    let count = count.load(std::sync::atomic::Ordering::Relaxed) as u64;
                    metrics.kept_files_exported.with_label_values(&[how]).inc_by(count);
                }
                metrics.kept_cache(kept_cache.usage());
                download
            } else if let Some(path) = export.single_file() {
                // Written as it is made, and kept gzip-compressed: a catalog of every language
                // can be tens of MB (a tenth of that compressed).
                downloads.store_gzip_with(&path, |file| {
                    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
                    export.write_single_gzip(&languages, &mut out)?;
                    std::io::Write::flush(&mut out)
                })?
            } else if format.is_multilingual() {
                let files = export.render_all(&languages);
                let bytes = archive::zip(&files).map_err(std::io::Error::other)?;
                downloads.store(&formats::ExportFile {
                    path: bundle_name,
                    bytes,
                })?
            } else if one_file {
                let file = export.render(&languages[0]).pop().expect("one file");
                downloads.store(&file)?
            } else {
                // Written as it is made, both cores rendering and compressing languages.
                store_zip(&downloads, &bundle_name, |out| {
                    archive::write_zip(&export, &languages, out, threads)
                })?
            };
            downloads.remember(parameters, &download);
            Ok::<_, StoreFailure>((download, warnings))
        })
        .await;
        let (download, warnings) = match stored {
            Ok(Ok(stored)) => stored,
            Ok(Err(StoreFailure::Export(ExportError::NameClash(message)))) => {
                return Err(ApiError::conflict(message));
            }
            Ok(Err(StoreFailure::Io(err))) => {
                tracing::error!(error = %error_chain(&err), "cannot write an export");
                return Err(ApiError::internal());
            }
            Err(join_error) => {
                tracing::error!(error = %join_error, "the export task failed");
                return Err(ApiError::internal());
            }
        };
        let base = self.state.public_url.clone().unwrap_or_else(|| request_base(request));
        Ok(Conditional::Ok(
            Json(ExportResult {
                success: true,
                data: format!("{base}/exports/{}/{}", download.id, download.path),
                warnings: conversion_warnings(warnings),
            }),
            tag,
        ))
    }
    /// Update the key named `export`
    ///
    /// The same as `PATCH .../keys/{keyName}` for the key named `export`, whose path is also
    /// the export (`GET`).
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/export",
        method = "patch",
        operation_id = "updateKeyNamedExport"
    )]
    async fn update_key_named_export(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<UpdateKeyRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
    ) -> Result<Done, ApiError> {
        self.keys()
            .update(
                auth,
                team_name.0.0,
                project_name.0.0,
                super::keys::in_namespace(reserved_key_name("export"), namespace.0),
                body.0,
                if_match.0,
                None,
            )
            .await
    }

    /// Delete the key named `export`
    ///
    /// The same as `DELETE .../keys/{keyName}` for the key named `export`.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/export",
        method = "delete",
        operation_id = "deleteKeyNamedExport"
    )]
    async fn delete_key_named_export(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
    ) -> Result<Done, ApiError> {
        self.keys()
            .delete(
                auth,
                team_name.0.0,
                project_name.0.0,
                super::keys::in_namespace(reserved_key_name("export"), namespace.0),
                if_match.0,
                None,
            )
            .await
    }
}

impl ExportApi {
    /// The key handlers, for the keys named like this path's fixed segment.
    fn keys(&self) -> KeysApi {
        KeysApi {
            state: self.state.clone(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum StoreFailure {
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Stores an export of kept files: one language's one file as it is, else a zip of every
/// file, each zipped on the thread that made it (and dropped then) and the archive written
/// from those. A language without a text in its one file gives an empty zip, as it does
/// without kept files.
fn store_kept(
    downloads: &Downloads,
    export: &formats::Export<'_, &Key>,
    languages: &[LanguageCode],
    patching: formats::kept::Patching<'_>,
    one_file: bool,
    bundle_name: &str,
) -> std::io::Result<Download> {
    if one_file {
        let stored = formats::kept::render(export, languages, patching, |file| downloads.store(file));
        return match stored.into_iter().next() {
            Some(download) => download,
            None => store_zip(downloads, bundle_name, |out| archive::write_singles(Vec::new(), out)),
        };
    }
    let singles = formats::kept::render(export, languages, patching, archive::zip_alone)
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(std::io::Error::other)?;
    store_zip(downloads, bundle_name, |out| archive::write_singles(singles, out))
}

/// Stores the zip `write` writes (through a buffer) as the download `path`.
fn store_zip(
    downloads: &Downloads,
    path: &str,
    write: impl FnOnce(BufWriter<File>) -> Result<BufWriter<File>, zip::result::ZipError>,
) -> std::io::Result<Download> {
    downloads.store_with(path, |file| {
        let out = write(BufWriter::with_capacity(1 << 20, file)).map_err(std::io::Error::other)?;
        out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        Ok(())
    })
}

/// An export's conversion warnings as the API's warnings, at most [`MOST_WARNINGS`] and a
/// last one counting those left out.
fn conversion_warnings(warnings: Vec<formats::placeholders::Warning>) -> Vec<WarningItem> {
    let total = warnings.len();
    let mut items: Vec<WarningItem> = warnings
        .into_iter()
        .take(MOST_WARNINGS)
        .map(|warning| WarningItem {
            message: warning.message,
            key: Some(warning.key.to_string()),
            namespace: Some(warning.key.namespace().to_owned()).filter(|namespace| !namespace.is_empty()),
            language: Some(warning.language.to_string()),
            path: None,
            line: None,
            check: None,
            severity: None,
            form: None,
        })
        .collect();
    if total > MOST_WARNINGS {
        items.push(WarningItem::about_all(format!(
            "{} more conversion warnings are left out.",
            total - MOST_WARNINGS
        )));
    }
    items
}

/// Accepts both `tags=a&tags=b` and `tags=a,b`.
pub(super) fn split_list(values: Vec<String>) -> Vec<String> {
    values
        .iter()
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The project's own spelling of each requested language, in the order asked, without repeats;
/// all of the project's languages when none are asked for.
fn chosen_languages(project: &Project, requested: Vec<LanguageCode>) -> Result<Vec<LanguageCode>, ApiError> {
    if requested.is_empty() {
        return Ok(project.languages.clone());
    }
    let mut chosen: Vec<LanguageCode> = Vec::new();
    for requested in requested {
        let language = project
            .languages
            .iter()
            .find(|language| language.same_as(&requested))
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "Project {} has no language {}; its languages are: {}.",
                    project.name,
                    quote_for_message(requested.as_str()),
                    project.languages_list()
                ))
            })?;
        if !chosen.contains(language) {
            chosen.push(language.clone());
        }
    }
    Ok(chosen)
}

/// `http://{Host}` of the request, for download addresses when no public URL is set.
fn request_base(request: &Request) -> String {
    let host = request
        .headers()
        .get(poem::http::header::HOST)
        .and_then(|host| host.to_str().ok())
        .filter(|host| !host.is_empty() && host.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(ToString::to_string))
        .unwrap_or_else(|| "localhost".to_owned());
    format!("http://{host}")
}
