//! The REST API: poem-openapi handlers joined into one service, and the state they share.
//!
//! Handlers parse the request into domain values, make one store or export call, and map the
//! result; they know nothing of git, files or paths.

pub mod auth;
pub mod branches;
pub mod error;
pub mod export;
pub mod fast;
pub mod files;
pub mod history;
pub mod import;
pub mod json;
pub mod keys;
pub mod pages;
pub mod params;
pub mod placeholders;
pub mod projects;
pub mod quality;
pub mod schema;
pub mod snapshots;
pub mod sync;
pub mod teams;
pub mod text;
pub mod warnings;
pub mod webhooks;

use std::sync::Arc;

use poem_openapi::{OpenApiService, Tags};

use crate::formats::downloads::Downloads;
use crate::store::Store;

/// What every handler can reach.
pub struct AppState {
    pub store: Store,
    /// Reads of the past, snapshots, history.
    pub history: crate::history::History,
    /// Replication through a git remote, when one is set.
    pub remote: Option<crate::sync::Remote>,
    /// The teams' webhooks and their deliveries.
    pub webhooks: crate::webhooks::Webhooks,
    pub downloads: Downloads,
    /// `--public-url`, without a trailing slash; `None` means "use the request's Host".
    pub public_url: Option<String>,
    /// Most bytes an uploaded zip may unpack to (`--max-import-bytes`).
    pub max_unpacked_bytes: usize,
    /// What `POST /hooks/git` must carry (`--hook-secret`).
    pub hook_secret: Option<String>,
    /// A read replica answers every change with 405 `read_only`, naming `primary_url`.
    pub read_only: bool,
    pub primary_url: Option<String>,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The app's kept files that exports patch, held between exports.
    pub kept_cache: Arc<crate::formats::kept::Cache>,
    /// The pages of keys answered at the newest commit.
    pub pages: pages::Pages,
}

#[derive(Tags)]
pub enum ApiTags {
    /// Teams own projects.
    Teams,
    /// Projects own keys and list their languages.
    Projects,
    /// Keys (text entries) with their tags and translations.
    Keys,
    /// Export a project's keys as files for apps.
    Export,
    /// Replication through a git remote.
    Replication,
    /// Receivers of a team's commits, signed and in order.
    Webhooks,
}

pub type Api = (
    teams::TeamsApi,
    projects::ProjectsApi,
    keys::KeysApi,
    import::ImportApi,
    files::FilesApi,
    export::ExportApi,
    snapshots::SnapshotsApi,
    branches::BranchesApi,
    history::HistoryApi,
    quality::QualityApi,
    sync::SyncApi,
    webhooks::WebhooksApi,
);

/// The OpenAPI service of the whole API.
pub fn service(state: Arc<AppState>) -> OpenApiService<Api, ()> {
    let api = (
        teams::TeamsApi { state: state.clone() },
        projects::ProjectsApi { state: state.clone() },
        keys::KeysApi { state: state.clone() },
        import::ImportApi { state: state.clone() },
        files::FilesApi { state: state.clone() },
        export::ExportApi { state: state.clone() },
        snapshots::SnapshotsApi { state: state.clone() },
        branches::BranchesApi { state: state.clone() },
        history::HistoryApi { state: state.clone() },
        quality::QualityApi { state: state.clone() },
        sync::SyncApi { state: state.clone() },
        webhooks::WebhooksApi { state },
    );
    OpenApiService::new(api, "locstore", env!("CARGO_PKG_VERSION")).description(DESCRIPTION)
}

const DESCRIPTION: &str = "\
Localization text management: teams own projects, projects own keys, and a key has tags and \
one translation per language. Every change is one commit in a git repository.

Send the header `X-Api-Token` with every request (use **Authorize** above). Errors answer \
`{\"success\": false, \"error\": {\"code\", \"message\"}}`.";

/// A request body read whole, when its content type is one `accepts` takes; poem-openapi's own
/// content-type errors (415) otherwise. For the bodies read by hand (uploads, imports).
pub async fn body_of_type(
    request: &poem::Request,
    body: &mut poem::RequestBody,
    accepts: impl Fn(&str) -> bool,
) -> poem::Result<Vec<u8>> {
    use poem_openapi::error::ContentTypeError;
    match request.content_type() {
        Some(content_type) if accepts(content_type) => Ok(body.take()?.into_vec().await?),
        Some(content_type) => Err(ContentTypeError::NotSupported {
            content_type: content_type.to_owned(),
        }
        .into()),
        None => Err(ContentTypeError::ExpectContentType.into()),
    }
}
