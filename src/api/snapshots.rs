//! Snapshots of a project: named states (annotated git tags) to export, read with `at=`, and
//! restore.

use std::sync::Arc;

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{DescriptionParam, ProjectNameParam, Success, TeamNameParam};
use super::teams::{Created, Done};
use super::{ApiTags, AppState};
use crate::history::snapshots::Snapshot;
use crate::tokens::Access;

pub struct SnapshotsApi {
    pub state: Arc<AppState>,
}

/// A new snapshot of the project as it is now.
#[derive(Debug, Object)]
pub struct CreateSnapshotRequest {
    /// The snapshot's name, unique in the project: 1 to 64 ASCII letters, digits, `-`, `_` or
    /// `.`, starting with a letter or digit (`v2.3`, `release-2026-11`).
    pub name: ProjectNameParam,
    /// What the snapshot is for.
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
}

/// A snapshot.
#[derive(Debug, Object)]
pub struct SnapshotItem {
    pub name: String,
    pub description: String,
    /// The commit the snapshot names.
    pub commit: String,
    /// When it was taken (RFC 3339).
    pub time: String,
    /// The token that took it.
    pub author: String,
}

/// A project's snapshots, newest first.
#[derive(Debug, Object)]
pub struct SnapshotList {
    pub data: Vec<SnapshotItem>,
}

impl From<Snapshot> for SnapshotItem {
    fn from(snapshot: Snapshot) -> Self {
        Self {
            name: snapshot.name,
            description: snapshot.description,
            commit: snapshot.commit,
            time: snapshot.time,
            author: snapshot.author,
        }
    }
}

#[OpenApi(tag = "ApiTags::Projects")]
impl SnapshotsApi {
    /// Take a snapshot
    ///
    /// Needs write access. Names the project's current state (an annotated git tag
    /// `locstore/{team}/{project}/{name}` on HEAD; no commit). Export it or read it with
    /// `at={name}`, restore it later. A snapshot follows renames of its team and project and
    /// goes when they are deleted.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/snapshots",
        method = "post",
        operation_id = "createSnapshot"
    )]
    async fn create_snapshot(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<CreateSnapshotRequest>,
    ) -> Result<Created, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let description = body.description.map(|param| param.0.into_string()).unwrap_or_default();
        self.state
            .store
            .create_snapshot(&team, &project_name.0.0, body.name.0, description, auth.author())
            .await?;
        Ok(Created::Created(Json(Success::ok())))
    }

    /// List snapshots
    ///
    /// The project's snapshots, newest first.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/snapshots",
        method = "get",
        operation_id = "listSnapshots"
    )]
    async fn list_snapshots(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
    ) -> Result<Json<SnapshotList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let snapshots = self.state.history.snapshots(&team, &project_name.0.0).await?;
        Ok(Json(SnapshotList {
            data: snapshots.into_iter().map(Into::into).collect(),
        }))
    }

    /// Delete a snapshot
    ///
    /// Needs write access. Removes the tag; the commits stay.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/snapshots/:snapshotName",
        method = "delete",
        operation_id = "deleteSnapshot"
    )]
    async fn delete_snapshot(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "snapshotName")] snapshot_name: Path<ProjectNameParam>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        self.state
            .store
            .delete_snapshot(&team, &project_name.0.0, snapshot_name.0.0)
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }

    /// Restore a snapshot
    ///
    /// Needs write access. Sets the project's settings and keys back to the snapshot's as one
    /// commit (keys added since are removed, changed ones set back, removed ones return); no
    /// commit when the project already is that state.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/snapshots/:snapshotName/restore",
        method = "post",
        operation_id = "restoreSnapshot"
    )]
    async fn restore_snapshot(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "snapshotName")] snapshot_name: Path<ProjectNameParam>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        self.state
            .history
            .restore_snapshot(&team, &project_name.0.0, snapshot_name.0.0.as_str(), auth.author())
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }
}
