//! Team handlers.

use std::sync::Arc;

use poem_openapi::param::{Header, Path};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{CreateTeamRequest, Success, TeamList, TeamNameParam, UpdateTeamRequest};
use super::{ApiTags, AppState};
use crate::domain::model::Team;
use crate::store::Change;
use crate::tokens::Access;

pub struct TeamsApi {
    pub state: Arc<AppState>,
}

/// `{"success": true}` with 201 Created.
#[derive(ApiResponse)]
pub enum Created {
    /// Created.
    #[oai(status = 201)]
    Created(Json<Success>),
}

/// `{"success": true}`.
#[derive(ApiResponse)]
pub enum Done {
    /// Done (also when the request changed nothing).
    #[oai(status = 200)]
    Ok(Json<Success>),
}

#[OpenApi(tag = "ApiTags::Teams")]
impl TeamsApi {
    /// List teams
    ///
    /// Every team the token can see, sorted by name, with its display name.
    #[oai(path = "/teams", method = "get", operation_id = "listTeams")]
    async fn list_teams(&self, auth: TokenAuth) -> Result<Json<TeamList>, ApiError> {
        let teams = self
            .state
            .store
            .teams()
            .into_iter()
            .filter(|team| auth.0.sees_team(&team.name));
        Ok(Json(TeamList {
            data: teams.map(Into::into).collect(),
        }))
    }

    /// Create a team
    ///
    /// Needs admin access. The name must be unique without regard to case.
    #[oai(path = "/teams", method = "post", operation_id = "createTeam")]
    async fn create_team(&self, auth: TokenAuth, body: Json<CreateTeamRequest>) -> Result<Created, ApiError> {
        auth.require(Access::Admin)?;
        let body = body.0;
        let name = body.name.0;
        if !auth.0.sees_team(&name) {
            return Err(ApiError::forbidden(format!(
                "The token {:?} may not create the team {name}.",
                auth.0.name
            )));
        }
        let team = Team {
            name,
            display_name: body.display_name.0.into_string(),
        };
        self.state.store.apply(Change::CreateTeam(team), auth.author()).await?;
        Ok(Created::Created(Json(Success::ok())))
    }

    /// Update a team
    ///
    /// Needs admin access. `name` (or `teamName`) renames the team, which moves its folder
    /// with all projects and keys in one commit; `displayName` changes the display name.
    #[oai(path = "/teams/:teamName", method = "patch", operation_id = "updateTeam")]
    async fn update_team(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        body: Json<UpdateTeamRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Admin)?;
        let body = body.0;
        let new_name = match (body.name, body.team_name) {
            (Some(a), Some(b)) if a != b => {
                return Err(ApiError::invalid(
                    "Give the new team name as either name or teamName, not two different values.",
                ));
            }
            (a, b) => a.or(b).map(|param| param.0),
        };
        if let Some(new_name) = &new_name
            && !auth.0.sees_team(new_name)
        {
            return Err(ApiError::forbidden(format!(
                "The token {:?} may not rename a team to {new_name}.",
                auth.0.name
            )));
        }
        let display_name = body.display_name.map(|param| param.0.into_string());
        self.state
            .store
            .apply(
                Change::UpdateTeam {
                    name: team,
                    new_name,
                    display_name,
                }
                .if_match(if_match.0),
                auth.author(),
            )
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }

    /// Delete a team
    ///
    /// Needs admin access. Deletes the team with all its projects and keys in one commit
    /// (git history keeps them).
    #[oai(path = "/teams/:teamName", method = "delete", operation_id = "deleteTeam")]
    async fn delete_team(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Admin)?;
        self.state
            .store
            .apply(Change::DeleteTeam { name: team }.if_match(if_match.0), auth.author())
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }
}
