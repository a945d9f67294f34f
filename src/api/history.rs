//! The git history as API features: what changed between two states.

use std::sync::Arc;

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{ProjectNameParam, TeamNameParam};
use super::{ApiTags, AppState};
use crate::domain::query::KeyQuery;
use crate::store::history::KeyChange;

pub struct HistoryApi {
    pub state: Arc<AppState>,
}

/// A key that differs between two states.
#[derive(Debug, Object)]
pub struct ChangeItem {
    /// The key's name (in the later state; for a deleted key, its last name).
    pub name: String,
    /// `created`, `updated`, `deleted` or `renamed`.
    pub change: String,
    /// For a renamed key, its name in the earlier state.
    #[oai(skip_serializing_if_is_none)]
    pub from: Option<String>,
}

/// One page of changed keys.
#[derive(Debug, Object)]
pub struct ChangeList {
    pub data: Vec<ChangeItem>,
}

/// A page of changed keys, with the totals in headers.
#[derive(ApiResponse)]
pub enum ChangePage {
    /// The page.
    #[oai(status = 200)]
    Ok(
        Json<ChangeList>,
        /// Changed keys on all pages.
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

#[OpenApi(tag = "ApiTags::Keys")]
impl HistoryApi {
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
    ) -> Result<ChangePage, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let query = KeyQuery::new(None, page.0, limit.0, None).map_err(ApiError::invalid)?;
        let (_, changes) = self
            .state
            .store
            .changes(&team, &project_name.0.0, &since.0, until.0.as_deref())
            .await?;
        let info = query.page_info(changes.len());
        let data = query
            .select(&changes)
            .into_iter()
            .map(|(name, change)| {
                let (change, from) = match change {
                    KeyChange::Created => ("created", None),
                    KeyChange::Updated => ("updated", None),
                    KeyChange::Deleted => ("deleted", None),
                    KeyChange::Renamed(from) => ("renamed", Some(from.clone())),
                };
                ChangeItem {
                    name: name.clone(),
                    change: change.to_owned(),
                    from,
                }
            })
            .collect();
        Ok(ChangePage::Ok(
            Json(ChangeList { data }),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
        ))
    }
}
