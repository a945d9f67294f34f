//! Project handlers.

use std::sync::Arc;

use poem_openapi::OpenApi;
use poem_openapi::param::{Header, Path, Query};

use crate::store::etag;
use poem_openapi::payload::Json;

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{
    Conditional, CreateProjectRequest, LanguageParam, ProjectData, ProjectList, ProjectNameParam, Success,
    TeamNameParam, UpdateProjectRequest,
};
use super::teams::{Created, Done};
use super::{ApiTags, AppState};
use crate::domain::names::{LanguageCode, ProjectName, TeamName};
use crate::store::{Change, NewProject, ProjectPatch};
use crate::tokens::Access;

pub struct ProjectsApi {
    pub state: Arc<AppState>,
}

#[OpenApi(tag = "ApiTags::Projects")]
impl ProjectsApi {
    /// List a team's projects
    ///
    /// The team's projects, sorted by name, with all their fields.
    #[oai(path = "/teams/:teamName/projects", method = "get", operation_id = "listProjects")]
    async fn list_projects(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
    ) -> Result<Json<ProjectList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        Ok(Json(self.project_list(&team)?))
    }

    /// Create a project
    ///
    /// Needs write access. `baseLanguageISO` defaults to `en`, `languagesISO` to the base
    /// language alone; the base language is added to a list that leaves it out.
    #[oai(path = "/teams/:teamName/projects", method = "post", operation_id = "createProject")]
    async fn create_project(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        body: Json<CreateProjectRequest>,
    ) -> Result<Created, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let project = NewProject {
            name: body.name.0,
            display_name: body.display_name.0.into_string(),
            description: body.description.map(String::from),
            base_language: body.base_language.map(|param| param.0),
            languages: body.languages.map(languages),
            placeholder_format: body.placeholder_format.map(|syntax| syntax.0.into()),
        };
        self.state
            .store
            .apply(Change::CreateProject { team, project }, auth.author())
            .await?;
        Ok(Created::Created(Json(Success::ok())))
    }

    /// Get a project
    #[oai(
        path = "/teams/:teamName/projects/:projectName",
        method = "get",
        operation_id = "getProject"
    )]
    async fn get_project(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Answer `304 Not Modified`, with no body, when this names the current `ETag`.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
        /// Read the state at this commit id (7 or more hex digits), snapshot name or RFC 3339
        /// time (the last commit at or before it) rather than the newest.
        at: Query<Option<String>>,
        /// Read this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Conditional<ProjectData>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let at = super::params::read_at(&self.state, &team, &project_name.0.0, branch.0, at.0).await?;
        let project = match at {
            Some(reference) => {
                self.state
                    .history
                    .project_at(&team, &project_name.0.0, &reference)
                    .await?
            }
            None => self.state.store.project(&team, &project_name.0.0)?,
        };
        let tag = etag::project(&project);
        if if_none_match.0.is_some_and(|header| etag::matches(&header, &tag)) {
            return Ok(Conditional::NotModified(tag));
        }
        Ok(Conditional::Ok(Json(ProjectData { data: project.into() }), tag))
    }

    /// Update a project
    ///
    /// Needs write access. `name` renames the project (its folder moves in one commit).
    /// Removing a language from `languagesISO` removes the keys' translations in it in the
    /// same commit. Answers the team's project list.
    #[oai(
        path = "/teams/:teamName/projects/:projectName",
        method = "patch",
        operation_id = "updateProject"
    )]
    async fn update_project(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<UpdateProjectRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// Change the project's settings on this branch (default: the main line); a branch
        /// does not take a rename.
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Json<ProjectList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let branch = super::params::branch_of(branch.0);
        let body = body.0;
        let patch = ProjectPatch {
            name: body.name.map(|param| param.0),
            display_name: body.display_name.map(|param| param.0.into_string()),
            description: body.description.map(String::from),
            base_language: body.base_language.map(|param| param.0),
            languages: body.languages.map(languages),
            placeholder_format: body.placeholder_format.map(|syntax| syntax.0.into()),
        };
        let change = Change::UpdateProject {
            team: team.clone(),
            name: project_name.0.0,
            patch,
        }
        .if_match(if_match.0);
        super::params::apply_on(&self.state, branch.as_ref(), change, auth.author()).await?;
        Ok(Json(self.project_list(&team)?))
    }

    /// Delete a project
    ///
    /// Needs write access. Deletes the project and its keys in one commit.
    #[oai(
        path = "/teams/:teamName/projects/:projectName",
        method = "delete",
        operation_id = "deleteProject"
    )]
    async fn delete_project(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
    ) -> Result<Done, ApiError> {
        self.delete(auth, team_name.0.0, project_name.0.0, if_match.0).await
    }

    /// Delete a project (deprecated path)
    ///
    /// The same as `DELETE /teams/{teamName}/projects/{projectName}`, for clients built from
    /// an early sample that left out the `projects` segment.
    #[oai(
        path = "/teams/:teamName/:projectName",
        method = "delete",
        operation_id = "deleteProjectDeprecated",
        deprecated
    )]
    async fn delete_project_deprecated(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
    ) -> Result<Done, ApiError> {
        self.delete(auth, team_name.0.0, project_name.0.0, if_match.0).await
    }
}

impl ProjectsApi {
    fn project_list(&self, team: &TeamName) -> Result<ProjectList, ApiError> {
        let projects = self.state.store.projects(team)?;
        Ok(ProjectList {
            data: projects.into_iter().map(Into::into).collect(),
        })
    }

    async fn delete(
        &self,
        auth: TokenAuth,
        team: TeamName,
        name: ProjectName,
        if_match: Option<String>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team)?;
        auth.require(Access::Write)?;
        self.state
            .store
            .apply(Change::DeleteProject { team, name }.if_match(if_match), auth.author())
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }
}

fn languages(params: Vec<LanguageParam>) -> Vec<LanguageCode> {
    params.into_iter().map(|param| param.0).collect()
}
