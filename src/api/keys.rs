//! Key handlers: query, get, create, update, delete.

use std::fmt::Write as _;
use std::sync::Arc;

use poem_openapi::param::{Header, Path, Query};
use poem_openapi::types::MaybeUndefined;

use crate::store::{etag, seen};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Enum, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::json::{self, JsonBytes};
use super::pages::Page;
use super::params::names_of;
use super::params::{self, BranchNameParam, LanguageListParam};
use super::placeholders::checked_names;
use super::quality;
use super::schema::{
    Conditional, CreateKeyRequest, KeyData, KeyFilesInput, KeyItem, KeyList, KeyNameParam, NamespaceParam,
    ProjectNameParam, Success, TagParam, TeamNameParam, TranslationItem, UpdateKeyByBodyRequest, UpdateKeyRequest,
};
use super::teams::{Created, Done};
use super::warnings::{MOST_WARNINGS, WarningItem, parse_checks};
use super::{ApiTags, AppState};
use crate::domain::key_files::KeyFiles;
use crate::domain::names::{BranchName, KeyName, ProjectName, TeamName};
use crate::domain::query::KeyQuery;
use crate::store::quality::WorkFilter;
use crate::store::{Change, KeyDraft, KeyPatch, TranslationInput};
use crate::tokens::Access;

pub struct KeysApi {
    pub state: Arc<AppState>,
}

/// The page `query` asks for of the main line's newest commit, with no work filter: the
/// answer of `queryKeys` that [`super::fast::FastReads`] also gives, taken from the pages kept
/// ([`super::pages`]) when it was answered at this commit before.
pub async fn plain_page(
    state: &AppState,
    team: &TeamName,
    project: &ProjectName,
    query: &KeyQuery,
) -> Result<Arc<Page>, ApiError> {
    let asked = asked(team, project, query, &WorkFilter::default());
    let head = state.store.head();
    if let Some(page) = state.pages.get(&head, &asked) {
        return Ok(page);
    }
    let (body, info) = state.store.query_keys(team, project, query, json::key_list).await?;
    // The commit the query saw, which a change may have moved on from `head`.
    let commit = seen::current_commit().unwrap_or_default();
    let page = Arc::new(Page::new(body.into(), info, tag_at(&commit, &asked)));
    state.pages.put(&commit, asked, page.clone());
    Ok(page)
}

/// What a page was asked as: with the commit it was read at, all that the page depends on.
/// (Every field of the query is named, so a new one cannot be left out.)
fn asked(team: &TeamName, project: &ProjectName, query: &KeyQuery, work: &WorkFilter) -> String {
    let KeyQuery {
        keyword,
        page,
        limit,
        sort,
        namespace,
    } = query;
    let mut asked = format!("{team}/{project} {page} {limit} {sort:?} {keyword:?} {namespace:?}");
    if !work.is_empty() {
        let _ = write!(asked, " {work:?}");
    }
    asked
}

/// The entity tag of the page asked as `asked` and read at `commit`.
fn tag_at(commit: &str, asked: &str) -> String {
    etag::tag(format!("{commit} {asked}").as_bytes())
}

/// A page's entity tag, read at the commit this request saw.
fn page_tag(team: &TeamName, project: &ProjectName, query: &KeyQuery, work: &WorkFilter) -> String {
    let commit = seen::current_commit().unwrap_or_default();
    tag_at(&commit, &asked(team, project, query, work))
}

/// The order of a key query, by key name in code point order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum SortParam {
    Asc,
    Desc,
}

/// One page of keys, with the totals in headers.
#[derive(ApiResponse)]
pub enum KeyPage {
    /// The page (an empty list past the last page).
    #[oai(status = 200)]
    Ok(
        JsonBytes<KeyList>,
        /// Keys matching the query, on all pages.
        #[oai(header = "X-Pagination-Total-Count")]
        u64,
        /// The page number answered.
        #[oai(header = "X-Pagination-Page")]
        u64,
        /// The page size answered.
        #[oai(header = "X-Pagination-Limit")]
        u64,
        /// Number of pages (0 when nothing matches).
        #[oai(header = "X-Pagination-Page-Count")]
        u64,
        /// The page's entity tag: it changes when the project's keys do.
        #[oai(header = "ETag")]
        String,
    ),
    /// The same page as for the tag given in `If-None-Match`; no body.
    #[oai(status = 304)]
    NotModified(#[oai(header = "ETag")] String),
}

#[OpenApi(tag = "ApiTags::Keys")]
impl KeysApi {
    /// Query keys
    ///
    /// A page of the project's keys, sorted by namespace, then by name in code point order
    /// (`namespace` limits it to one namespace). `keyword` matches,
    /// without regard to case, part of the key name, its description or any translation (each
    /// plural form). The totals are in
    /// the `X-Pagination-Total-Count`, `-Page`, `-Limit` and `-Page-Count` headers.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys",
        method = "get",
        operation_id = "queryKeys"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn query_keys(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Text to look for, without regard to case, in key names and translations.
        keyword: Query<Option<String>>,
        /// Page number, from 1 (default 1).
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Keys per page, 1 to 1000 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "1000")))]
        limit: Query<Option<i64>>,
        /// `asc` (default) or `desc`, by key name.
        sort: Query<Option<SortParam>>,
        /// Answer `304 Not Modified`, with no body, when this names the current `ETag`.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
        /// Read the state at this commit id (7 or more hex digits), snapshot name or RFC 3339
        /// time (the last commit at or before it) rather than the newest.
        at: Query<Option<String>>,
        /// Only keys with at least one of these tags (repeat or separate with commas).
        tags: Query<Option<Vec<String>>>,
        /// Only keys that want a text in one of these languages and have none.
        missing: Query<Option<Vec<LanguageListParam>>>,
        /// Only keys whose translation in one of these languages is outdated.
        outdated: Query<Option<Vec<LanguageListParam>>>,
        /// Only keys with a failing check in one of these languages.
        failing: Query<Option<Vec<LanguageListParam>>>,
        /// Only keys that fail one of these checks (in any language).
        check: Query<Option<Vec<String>>>,
        /// Only the keys of this namespace (`namespace=` with no value: the default one);
        /// absent: the keys of every namespace.
        namespace: Query<Option<NamespaceParam>>,
        /// Read this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<KeyPage, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let at = Query(params::read_at(&self.state, &team, &project_name.0.0, branch.0, at.0).await?);
        let sort = sort.0.map(|sort| if sort == SortParam::Desc { "desc" } else { "asc" });
        let query = KeyQuery::new(keyword.0.as_deref(), page.0, limit.0, sort)
            .map_err(ApiError::invalid)?
            .in_namespace(namespace.0.map(|namespace| namespace.0.as_str().to_owned()));
        let work = WorkFilter {
            tags: quality::listed(tags.0),
            missing: quality::languages(missing.0),
            outdated: quality::languages(outdated.0),
            failing: quality::languages(failing.0),
            checks: quality::checks(check.0)?,
        };
        let (body, info, tag) = match at.0 {
            None if work.is_empty() => {
                let page = plain_page(&self.state, &team, &project_name.0.0, &query).await?;
                (page.body.clone(), page.info, page.tag.clone())
            }
            at => {
                let (state, project) = (&self.state, &project_name.0.0);
                let (body, info) = match at {
                    Some(reference) if !work.is_empty() => {
                        (state.history)
                            .query_work_at(&team, project, &reference, &query, &work, json::key_list)
                            .await?
                    }
                    Some(reference) => {
                        (state.history)
                            .query_keys_at(&team, project, &reference, &query, json::key_list)
                            .await?
                    }
                    None => {
                        (state.store)
                            .query_work(&team, project, &query, &work, json::key_list)
                            .await?
                    }
                };
                (body.into(), info, page_tag(&team, project, &query, &work))
            }
        };
        if if_none_match.0.is_some_and(|header| etag::matches(&header, &tag)) {
            return Ok(KeyPage::NotModified(tag));
        }
        Ok(KeyPage::Ok(
            JsonBytes::new(body),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
            tag,
        ))
    }

    /// Create a key
    ///
    /// Needs write access. Only `name` is required. Each translation's language must be one of
    /// the project's; a plain key takes `content` (an empty one stores no translation), a plural
    /// key (`plural: true`) takes `forms` such as `{"one": "%d file", "other": "%d files"}`.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys",
        method = "post",
        operation_id = "createKey"
    )]
    async fn create_key(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<CreateKeyRequest>,
        /// Create it on this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<Created, ApiError> {
        let (team, project) = writable_project(&auth, team_name.0.0, project_name.0.0)?;
        let branch = params::branch_of(branch.0);
        let body = body.0;
        let key = KeyDraft {
            name: in_namespace(body.name.0, body.namespace),
            tags: tags(body.tags.unwrap_or_default()),
            description: body.description.map(|param| param.0.into_string()).unwrap_or_default(),
            plural: body.plural.unwrap_or(false),
            markup: body.markup.unwrap_or(false),
            translatable: body.translatable.unwrap_or(true),
            files: key_files(body.files)?,
            max_length: body.max_length,
            ignore_checks: parse_checks("ignoreChecks", &body.ignore_checks.unwrap_or_default())
                .map_err(ApiError::invalid)?,
            placeholders: body.placeholders.map(|syntax| syntax.0.into()),
            placeholder_names: checked_names(names_of(body.placeholder_names.unwrap_or_default()))
                .map_err(ApiError::invalid)?,
            translations: translations(body.translations.unwrap_or_default()),
        };
        let name = key.name.clone();
        let change = Change::CreateKey {
            team: team.clone(),
            project: project.clone(),
            key,
        };
        params::apply_on(&self.state, branch.as_ref(), change, auth.author()).await?;
        Ok(Created::Created(Json(
            self.checked(&team, &project, name, branch.as_ref()).await?,
        )))
    }

    /// Get a key
    ///
    /// Percent-encode the key name in the path (`errors%2Fnetwork`). A key named `export`
    /// cannot be read here, since that path is the export; find it with the query.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/:keyName",
        method = "get",
        operation_id = "getKey"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    async fn get_key(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "keyName")] key_name: Path<KeyNameParam>,
        /// Answer `304 Not Modified`, with no body, when this names the current `ETag`.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
        /// Read the state at this commit id (7 or more hex digits), snapshot name or RFC 3339
        /// time (the last commit at or before it) rather than the newest.
        at: Query<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
        /// Read this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<Conditional<KeyData>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let at = params::read_at(&self.state, &team, &project_name.0.0, branch.0, at.0).await?;
        self.get(
            auth,
            team,
            project_name.0.0,
            in_namespace(key_name.0.0, namespace.0),
            if_none_match.0,
            at,
        )
        .await
    }

    /// Update a key
    ///
    /// Needs write access. `name` renames the key and `namespace` moves it to another
    /// namespace (both in one commit, as a rename), `tags` replaces the tag list, `description`
    /// replaces the description (`""` clears it), `plural` switches the key to or from plural
    /// forms (a text becomes the `other` form, and back), and `translations` sets each language
    /// given (an empty `content` or `forms` removes it) and leaves the others as they are.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/:keyName",
        method = "patch",
        operation_id = "updateKey"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    async fn update_key(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "keyName")] key_name: Path<KeyNameParam>,
        body: Json<UpdateKeyRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// As the body's `keepCurrent` (either sets it).
        #[oai(name = "keepCurrent")]
        keep_current: Query<Option<bool>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
        /// Change it on this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<Done, ApiError> {
        let mut body = body.0;
        if keep_current.0 == Some(true) {
            body.keep_current = Some(true);
        }
        let name = in_namespace(key_name.0.0, namespace.0);
        let branch = params::branch_of(branch.0);
        self.update(auth, team_name.0.0, project_name.0.0, name, body, if_match.0, branch)
            .await
    }

    /// Confirm translations
    ///
    /// Needs write access. Marks the key's translations in each `language` given (every
    /// translation when none is given) as written against its base-language text as it is
    /// now, so they are no longer `outdated`, without changing their texts: one commit, or
    /// none when nothing was outdated. A language the project lacks, or one the key has no
    /// text in, is refused with 400.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/:keyName/confirm",
        method = "post",
        operation_id = "confirmKey"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    async fn confirm_key(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "keyName")] key_name: Path<KeyNameParam>,
        /// A language to confirm (repeat the parameter, or separate with commas).
        language: Query<Option<Vec<LanguageListParam>>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
        /// Confirm them on this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<Conditional<KeyData>, ApiError> {
        let (team, project) = writable_project(&auth, team_name.0.0, project_name.0.0)?;
        let name = in_namespace(key_name.0.0, namespace.0);
        let languages = quality::languages(language.0);
        let branch = params::branch_of(branch.0);
        let change = Change::ConfirmKey {
            team: team.clone(),
            project: project.clone(),
            name: name.clone(),
            languages,
        };
        params::apply_on(&self.state, branch.as_ref(), change, auth.author()).await?;
        let (key, base) = match &branch {
            None => self.state.store.key(&team, &project, &name).await?,
            Some(branch) => {
                let head = self.state.store.branch_head(&team, &project, branch).await?;
                let head = head.to_string();
                self.state.history.key_at(&team, &project, &name, &head).await?
            }
        };
        let tag = etag::key(&key);
        Ok(Conditional::Ok(
            Json(KeyData {
                data: KeyItem::of(key, &base),
            }),
            tag,
        ))
    }

    /// Update a key (deprecated path)
    ///
    /// The same as `PATCH .../keys/{keyName}` with the key named by the body's `name`, for
    /// clients built from an early sample. It cannot rename a key.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys",
        method = "patch",
        operation_id = "updateKeyDeprecated",
        deprecated
    )]
    async fn update_key_deprecated(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<UpdateKeyByBodyRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
    ) -> Result<Done, ApiError> {
        let body = body.0;
        let update = UpdateKeyRequest {
            name: None,
            namespace: None,
            tags: body.tags,
            description: body.description,
            plural: body.plural,
            markup: body.markup,
            translatable: body.translatable,
            files: body.files,
            translations: body.translations,
            keep_current: body.keep_current,
            max_length: body.max_length,
            ignore_checks: body.ignore_checks,
            placeholders: body.placeholders,
            placeholder_names: body.placeholder_names,
        };
        let name = in_namespace(body.name.0, body.namespace);
        self.update(auth, team_name.0.0, project_name.0.0, name, update, if_match.0, None)
            .await
    }

    /// Delete a key
    ///
    /// Needs write access.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/:keyName",
        method = "delete",
        operation_id = "deleteKey"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    async fn delete_key(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "keyName")] key_name: Path<KeyNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
        /// Delete it on this branch of the project (default: the main line).
        branch: Query<Option<BranchNameParam>>,
    ) -> Result<Done, ApiError> {
        let name = in_namespace(key_name.0.0, namespace.0);
        let branch = params::branch_of(branch.0);
        self.delete(auth, team_name.0.0, project_name.0.0, name, if_match.0, branch)
            .await
    }
}

impl KeysApi {
    /// Reads one key: for `getKey`, and for keys named like a fixed path segment.
    pub(super) async fn get(
        &self,
        auth: TokenAuth,
        team: TeamName,
        project: ProjectName,
        name: KeyName,
        if_none_match: Option<String>,
        at: Option<String>,
    ) -> Result<Conditional<KeyData>, ApiError> {
        let team = auth.team(team)?;
        let (key, base) = match at {
            Some(reference) => self.state.history.key_at(&team, &project, &name, &reference).await?,
            None => self.state.store.key(&team, &project, &name).await?,
        };
        let tag = etag::key(&key);
        if if_none_match.is_some_and(|header| etag::matches(&header, &tag)) {
            return Ok(Conditional::NotModified(tag));
        }
        Ok(Conditional::Ok(
            Json(KeyData {
                data: KeyItem::of(key, &base),
            }),
            tag,
        ))
    }

    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    pub(super) async fn update(
        &self,
        auth: TokenAuth,
        team: TeamName,
        project: ProjectName,
        name: KeyName,
        body: UpdateKeyRequest,
        if_match: Option<String>,
        branch: Option<BranchName>,
    ) -> Result<Done, ApiError> {
        let (team, project) = writable_project(&auth, team, project)?;
        // A new name, a new namespace or both: one rename, the part not given kept.
        let renamed = match (body.name, body.namespace) {
            (None, None) => None,
            (new_name, new_namespace) => {
                let new_name = new_name.map_or_else(|| name.clone(), |param| param.0);
                let namespace = new_namespace.map_or_else(|| name.namespace_name(), |param| param.0);
                Some(new_name.in_namespace(&namespace))
            }
        };
        let patch = KeyPatch {
            name: renamed,
            tags: body.tags.map(tags),
            description: body.description.map(|param| param.0.into_string()),
            plural: body.plural,
            markup: body.markup,
            translatable: body.translatable,
            files: match body.files {
                Some(files) => files.parse().map_err(|err| ApiError::invalid(err.0))?,
                None => Vec::new(),
            },
            max_length: match body.max_length {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(max) => Some(Some(max)),
            },
            ignore_checks: body
                .ignore_checks
                .as_deref()
                .map(|names| parse_checks("ignoreChecks", names))
                .transpose()
                .map_err(ApiError::invalid)?,
            placeholders: body.placeholders.map(|syntax| syntax.0.into()),
            placeholder_names: body
                .placeholder_names
                .map(|names| checked_names(names_of(names)))
                .transpose()
                .map_err(ApiError::invalid)?,
            translations: translations(body.translations.unwrap_or_default()),
            keep_current: body.keep_current.unwrap_or(false),
        };
        let written = patch.name.clone().unwrap_or_else(|| name.clone());
        let change = Change::UpdateKey {
            team: team.clone(),
            project: project.clone(),
            name,
            patch,
        }
        .if_match(if_match);
        params::apply_on(&self.state, branch.as_ref(), change, auth.author()).await?;
        Ok(Done::Ok(Json(
            self.checked(&team, &project, written, branch.as_ref()).await?,
        )))
    }

    /// `{"success": true}` with the failing checks of the key just written, as the main line
    /// or the branch written holds it.
    async fn checked(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: KeyName,
        branch: Option<&BranchName>,
    ) -> Result<Success, ApiError> {
        let (failures, total) = params::failures_on(&self.state, team, project, branch, &[name], MOST_WARNINGS).await?;
        Ok(Success::with_warnings(WarningItem::of_checks(failures, total)))
    }

    pub(super) async fn delete(
        &self,
        auth: TokenAuth,
        team: TeamName,
        project: ProjectName,
        name: KeyName,
        if_match: Option<String>,
        branch: Option<BranchName>,
    ) -> Result<Done, ApiError> {
        let (team, project) = writable_project(&auth, team, project)?;
        let change = Change::DeleteKey { team, project, name }.if_match(if_match);
        params::apply_on(&self.state, branch.as_ref(), change, auth.author()).await?;
        Ok(Done::Ok(Json(Success::ok())))
    }
}

fn writable_project(
    auth: &TokenAuth,
    team: TeamName,
    project: ProjectName,
) -> Result<(TeamName, ProjectName), ApiError> {
    let team = auth.team(team)?;
    auth.require(Access::Write)?;
    Ok((team, project))
}

/// A key name from a path or body, in the namespace a parameter or field names (the default
/// one when none does).
pub(super) fn in_namespace(name: KeyName, namespace: Option<NamespaceParam>) -> KeyName {
    match namespace {
        Some(namespace) if !namespace.0.is_default() => name.in_namespace(&namespace.0),
        _ => name,
    }
}

/// A key name that is also a fixed path segment (`export`, `import`).
pub(super) fn reserved_key_name(name: &str) -> KeyName {
    KeyName::parse(name).expect("reserved path segments are valid key names")
}

fn tags(params: Vec<TagParam>) -> Vec<String> {
    params.into_iter().map(|param| param.0.into_string()).collect()
}

fn translations(items: Vec<TranslationItem>) -> Vec<TranslationInput> {
    items.into_iter().map(TranslationItem::into_input).collect()
}

/// A new key's files: the entries given (an empty name gives none).
fn key_files(files: Option<KeyFilesInput>) -> Result<KeyFiles, ApiError> {
    let mut key_files = KeyFiles::default();
    for (platform, file) in files
        .map(KeyFilesInput::parse)
        .transpose()
        .map_err(|err| ApiError::invalid(err.0))?
        .into_iter()
        .flatten()
    {
        key_files.set(platform, file);
    }
    Ok(key_files)
}
