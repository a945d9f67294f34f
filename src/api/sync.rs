//! Replication: the state of the git remote (`GET /sync`) and the hook a git host calls when
//! the remote branch moved (`POST /hooks/git`).

use std::sync::Arc;
use std::time::SystemTime;

use poem_openapi::param::Header;
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};
use subtle::ConstantTimeEq;

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::Success;
use super::{ApiTags, AppState};
use crate::sync::SyncStatus;
use crate::tokens::Access;

pub struct SyncApi {
    pub state: Arc<AppState>,
}

/// The state of replication through the git remote.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SyncState {
    /// The remote's URL, without credentials; `null` when no remote is set.
    #[oai(nullable)]
    pub remote: Option<String>,
    #[oai(nullable)]
    pub branch: Option<String>,
    /// The commit the server serves.
    pub head: String,
    /// The remote branch's commit as last fetched or pushed.
    #[oai(nullable)]
    pub remote_head: Option<String>,
    /// Commits of ours the remote lacks.
    pub ahead: u64,
    /// Commits of the remote's we lack.
    pub behind: u64,
    /// Seconds the oldest commit the remote lacks has waited.
    pub lag_seconds: f64,
    /// When the last push the remote took ended (RFC 3339).
    #[oai(nullable)]
    pub last_push: Option<String>,
    /// When the last fetch ended (RFC 3339).
    #[oai(nullable)]
    pub last_pull: Option<String>,
    /// Why the last push or fetch failed, or a fetched commit was refused; `null` after a
    /// push succeeds.
    #[oai(nullable)]
    pub last_error: Option<String>,
    pub pushes: u64,
    pub push_failures: u64,
    pub pulls: u64,
    pub pull_failures: u64,
}

impl SyncState {
    pub fn new(status: Option<SyncStatus>, served: String) -> Self {
        let time = |at: Option<SystemTime>| {
            at.and_then(|at| jiff::Timestamp::try_from(at).ok())
                .map(|at| at.to_string())
        };
        match status {
            Some(status) => Self {
                remote: Some(status.remote.clone()),
                branch: Some(status.branch.clone()),
                head: served,
                remote_head: status.remote_head.clone(),
                ahead: status.ahead as u64,
                behind: status.behind as u64,
                lag_seconds: status.lag_seconds(),
                last_push: time(status.last_push),
                last_pull: time(status.last_pull),
                last_error: status.last_error,
                pushes: status.pushes,
                push_failures: status.push_failures,
                pulls: status.pulls,
                pull_failures: status.pull_failures,
            },
            None => Self {
                remote: None,
                branch: None,
                head: served,
                remote_head: None,
                ahead: 0,
                behind: 0,
                lag_seconds: 0.0,
                last_push: None,
                last_pull: None,
                last_error: None,
                pushes: 0,
                push_failures: 0,
                pulls: 0,
                pull_failures: 0,
            },
        }
    }
}

#[derive(ApiResponse)]
pub enum HookAccepted {
    /// A fetch from the remote is on its way.
    #[oai(status = 202)]
    Accepted(Json<Success>),
}

#[OpenApi(tag = "ApiTags::Replication")]
impl SyncApi {
    /// Replication state
    ///
    /// Needs admin access. The git remote, the commit served and the remote's, how far apart
    /// they are, and when the last push and fetch happened.
    #[oai(path = "/sync", method = "get", operation_id = "getSync")]
    async fn sync(&self, auth: TokenAuth) -> Result<Json<SyncState>, ApiError> {
        auth.require(Access::Admin)?;
        let store = &self.state.store;
        let status = self.state.remote.as_ref().map(crate::sync::Remote::status);
        Ok(Json(SyncState::new(status, store.head())))
    }

    /// Git host hook
    ///
    /// Called by the git host when the remote branch moved (a merged review, a push from a
    /// clone): triggers a fetch now instead of at the next interval. Needs no token, but the
    /// header `X-Locstore-Hook-Secret` must equal the server's `--hook-secret`.
    #[oai(path = "/hooks/git", method = "post", operation_id = "gitHook")]
    async fn hook(
        &self,
        #[oai(name = "X-Locstore-Hook-Secret")] secret: Header<Option<String>>,
    ) -> Result<HookAccepted, ApiError> {
        let expected = self.state.hook_secret.as_deref().unwrap_or_default();
        let given = secret.0.unwrap_or_default();
        if expected.is_empty() || !bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
            return Err(ApiError::unauthorized_because(
                "Send the server's hook secret in the X-Locstore-Hook-Secret header.",
            ));
        }
        let Some(remote) = &self.state.remote else {
            return Err(ApiError::not_found("This server has no git remote to fetch."));
        };
        remote.fetch_now();
        Ok(HookAccepted::Accepted(Json(Success::ok())))
    }
}
