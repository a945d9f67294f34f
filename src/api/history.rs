//! The git history as API features: what changed between two states.

use std::sync::Arc;

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::params::NamespaceParam;
use super::schema::{KeyItem, KeyNameParam, ProjectNameParam, TeamNameParam};
use super::{ApiTags, AppState};
use crate::domain::query::KeyQuery;
use crate::history::KeyChange;

pub struct HistoryApi {
    pub state: Arc<AppState>,
}

/// A key that differs between two states.
#[derive(Debug, Object)]
pub struct ChangeItem {
    /// The key's name (in the later state; for a deleted key, its last name).
    pub name: String,
    /// The key's namespace (`""`: the default one), in the later state.
    pub namespace: String,
    /// `created`, `updated`, `deleted` or `renamed`.
    pub change: String,
    /// For a renamed key, its name in the earlier state.
    #[oai(skip_serializing_if_is_none)]
    pub from: Option<String>,
    /// For a renamed key, its namespace in the earlier state.
    #[oai(rename = "fromNamespace", skip_serializing_if_is_none)]
    pub from_namespace: Option<String>,
}

/// One page of changed keys.
#[derive(Debug, Object)]
pub struct ChangeList {
    pub data: Vec<ChangeItem>,
}

/// A commit that changed a key.
#[derive(Debug, Object)]
pub struct KeyHistoryItem {
    pub commit: String,
    /// RFC 3339.
    pub time: String,
    /// The token that made the change.
    pub author: String,
    /// The commit's subject line.
    pub subject: String,
    /// `created`, `updated`, `renamed` or `deleted`.
    pub change: String,
    /// The key after the commit; `null` once deleted.
    #[oai(nullable)]
    pub key: Option<KeyItem>,
}

#[derive(Debug, Object)]
pub struct KeyHistoryList {
    pub data: Vec<KeyHistoryItem>,
}

/// A commit that changed a project.
#[derive(Debug, Object)]
pub struct ActivityItem {
    pub commit: String,
    /// RFC 3339.
    pub time: String,
    pub author: String,
    pub subject: String,
    /// How many keys the commit changed in the project.
    pub keys: u64,
}

#[derive(Debug, Object)]
pub struct ActivityList {
    pub data: Vec<ActivityItem>,
}

/// A page of a list (changes, a history), with the totals in headers.
#[derive(ApiResponse)]
pub enum Page<T: poem_openapi::types::ToJSON + poem_openapi::types::Type + Send + Sync> {
    /// The page.
    #[oai(status = 200)]
    Ok(
        Json<T>,
        /// Items on all pages.
        #[oai(header = "X-Pagination-Total-Count")]
        u64,
        /// The page number answered.
        #[oai(header = "X-Pagination-Page")]
        u64,
        /// The page size answered.
        #[oai(header = "X-Pagination-Limit")]
        u64,
        /// Number of pages.
        #[oai(header = "X-Pagination-Page-Count")]
        u64,
    ),
}

fn rfc3339(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(|time| time.to_string())
        .unwrap_or_default()
}

fn change_name(change: &KeyChange) -> &'static str {
    match change {
        KeyChange::Created => "created",
        KeyChange::Updated => "updated",
        KeyChange::Deleted => "deleted",
        KeyChange::Renamed(_) => "renamed",
    }
}

#[OpenApi(tag = "ApiTags::Keys")]
impl HistoryApi {
    /// History of a key
    ///
    /// The commits that changed the key, newest first, each with the key as it was after the
    /// commit (`null` once deleted). Renames are followed back to the key's earlier names. A
    /// key name that never existed in the project is 404.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/:keyName/history",
        method = "get",
        operation_id = "keyHistory"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented parameter")]
    async fn key_history(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "keyName")] key_name: Path<KeyNameParam>,
        /// Page number, from 1 (default 1).
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Commits per page, 1 to 1000 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "1000")))]
        limit: Query<Option<i64>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
        /// The key's history on this branch (default: the main line's): the branch's own
        /// commits, then the main line's before the branch left it.
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Page<KeyHistoryList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let query = KeyQuery::new(None, page.0, limit.0, None).map_err(ApiError::invalid)?;
        let (events, info) = self
            .state
            .history
            .key_history(
                &team,
                &project_name.0.0,
                super::params::branch_of(branch.0).as_ref(),
                &super::keys::in_namespace(key_name.0.0, namespace.0),
                &query,
            )
            .await?;
        // Each state's outdated translations are told against today's base language.
        let base = self.state.store.project(&team, &project_name.0.0)?.base_language;
        let data = events
            .into_iter()
            .map(|event| KeyHistoryItem {
                commit: event.commit.id.to_string(),
                time: rfc3339(event.commit.time),
                author: event.commit.author,
                subject: event.commit.subject,
                change: change_name(&event.change).to_owned(),
                key: event.key.map(|key| KeyItem::of(key, &base)),
            })
            .collect();
        Ok(Page::Ok(
            Json(KeyHistoryList { data }),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
        ))
    }

    /// Project activity
    ///
    /// The commits that changed the project (settings or keys), newest first, with how many
    /// keys each changed there.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/history",
        method = "get",
        operation_id = "projectHistory",
        tag = "ApiTags::Projects"
    )]
    async fn project_history(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Page number, from 1 (default 1).
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Commits per page, 1 to 1000 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "1000")))]
        limit: Query<Option<i64>>,
        /// The activity on this branch (default: the main line's): the branch's own commits,
        /// then the main line's before the branch left it.
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Page<ActivityList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let query = KeyQuery::new(None, page.0, limit.0, None).map_err(ApiError::invalid)?;
        let (events, info) = self
            .state
            .history
            .project_activity(
                &team,
                &project_name.0.0,
                super::params::branch_of(branch.0).as_ref(),
                &query,
            )
            .await?;
        let data = events
            .into_iter()
            .map(|event| ActivityItem {
                commit: event.commit.to_string(),
                time: rfc3339(event.time),
                author: event.author,
                subject: event.subject,
                keys: event.keys as u64,
            })
            .collect();
        Ok(Page::Ok(
            Json(ActivityList { data }),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
        ))
    }

    /// Keys changed between two states
    ///
    /// The keys that differ between the project at `since` and at `until` (default: now),
    /// sorted by name: `created`, `updated`, `deleted`, or `renamed` with `from`. A state is a
    /// commit id (7 or more hex digits), a snapshot name or an RFC 3339 time. The answer's
    /// `X-Locstore-Commit` is the `until` commit: pass it as `since` next time to sync only
    /// what changed. A rename is recognised when a key is deleted and another created with the
    /// same tags, description and texts.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/changes",
        method = "get",
        operation_id = "listChanges"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn list_changes(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// The earlier state.
        since: Query<String>,
        /// The later state (default: now).
        until: Query<Option<String>>,
        /// Page number, from 1 (default 1).
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Keys per page, 1 to 1000 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "1000")))]
        limit: Query<Option<i64>>,
        /// Compare with this branch's newest state (default: the main line's): `until`
        /// defaults to the branch's head.
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Page<ChangeList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let query = KeyQuery::new(None, page.0, limit.0, None).map_err(ApiError::invalid)?;
        let until = match (until.0, super::params::branch_of(branch.0)) {
            (Some(until), _) => Some(until),
            (None, Some(branch)) => Some(
                self.state
                    .store
                    .branch_head(&team, &project_name.0.0, &branch)
                    .await?
                    .to_string(),
            ),
            (None, None) => None,
        };
        let (_, changes) = self
            .state
            .history
            .changes(&team, &project_name.0.0, &since.0, until.as_deref())
            .await?;
        let info = query.page_info(changes.len());
        let data = query
            .select(&changes)
            .into_iter()
            .map(|(name, change)| {
                let from = match change {
                    KeyChange::Renamed(from) => Some(from),
                    _ => None,
                };
                ChangeItem {
                    name: name.as_str().to_owned(),
                    namespace: name.namespace().to_owned(),
                    change: change_name(change).to_owned(),
                    from: from.map(|from| from.as_str().to_owned()),
                    from_namespace: from.map(|from| from.namespace().to_owned()),
                }
            })
            .collect();
        Ok(Page::Ok(
            Json(ChangeList { data }),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
        ))
    }
}
