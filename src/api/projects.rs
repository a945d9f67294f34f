//! Project handlers.

use std::sync::Arc;

use poem_openapi::OpenApi;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{
    CreateProjectRequest, ProjectData, ProjectList, Success, Text, UpdateProjectRequest,
};
use super::teams::{Created, Done, display_name};
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
    #[oai(
        path = "/teams/:teamName/projects",
        method = "get",
        operation_id = "listProjects"
    )]
    async fn list_projects(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<String>,
    ) -> Result<Json<ProjectList>, ApiError> {
        let team = auth.team(&team_name)?;
        Ok(Json(self.project_list(&team)?))
    }

    /// Create a project
    ///
    /// Needs write access. `baseLanguageISO` defaults to `en`, `languagesISO` to the base
    /// language alone; the base language is added to a list that leaves it out.
    #[oai(
        path = "/teams/:teamName/projects",
        method = "post",
        operation_id = "createProject"
    )]
    async fn create_project(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<String>,
        body: Json<CreateProjectRequest>,
    ) -> Result<Created, ApiError> {
        let team = auth.team(&team_name)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let project = NewProject {
            name: ProjectName::parse(&body.name)?,
            display_name: display_name(&body.display_name)?,
            description: body.description.map(String::from),
            base_language: body
                .base_language
                .as_deref()
                .map(LanguageCode::parse)
                .transpose()?,
            languages: body.languages.as_deref().map(parse_languages).transpose()?,
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
        #[oai(name = "teamName")] team_name: Path<String>,
        #[oai(name = "projectName")] project_name: Path<String>,
    ) -> Result<Json<ProjectData>, ApiError> {
        let team = auth.team(&team_name)?;
        let project = self
            .state
            .store
            .project(&team, &ProjectName::parse(&project_name)?)?;
        Ok(Json(ProjectData {
            data: project.into(),
        }))
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
        #[oai(name = "teamName")] team_name: Path<String>,
        #[oai(name = "projectName")] project_name: Path<String>,
        body: Json<UpdateProjectRequest>,
    ) -> Result<Json<ProjectList>, ApiError> {
        let team = auth.team(&team_name)?;
        auth.require(Access::Write)?;
        let name = ProjectName::parse(&project_name)?;
        let body = body.0;
        let patch = ProjectPatch {
            name: body.name.as_deref().map(ProjectName::parse).transpose()?,
            display_name: body.display_name.as_deref().map(display_name).transpose()?,
            description: body.description.map(String::from),
            base_language: body
                .base_language
                .as_deref()
                .map(LanguageCode::parse)
                .transpose()?,
            languages: body.languages.as_deref().map(parse_languages).transpose()?,
        };
        self.state
            .store
            .apply(
                Change::UpdateProject {
                    team: team.clone(),
                    name,
                    patch,
                },
                auth.author(),
            )
            .await?;
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
        #[oai(name = "teamName")] team_name: Path<String>,
        #[oai(name = "projectName")] project_name: Path<String>,
    ) -> Result<Done, ApiError> {
        self.delete(auth, &team_name, &project_name).await
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
        #[oai(name = "teamName")] team_name: Path<String>,
        #[oai(name = "projectName")] project_name: Path<String>,
    ) -> Result<Done, ApiError> {
        self.delete(auth, &team_name, &project_name).await
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
        team_name: &str,
        project_name: &str,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name)?;
        auth.require(Access::Write)?;
        let name = ProjectName::parse(project_name)?;
        self.state
            .store
            .apply(Change::DeleteProject { team, name }, auth.author())
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }
}

fn parse_languages(raw: &[Text]) -> Result<Vec<LanguageCode>, ApiError> {
    Ok(raw
        .iter()
        .map(|code| LanguageCode::parse(code))
        .collect::<Result<_, _>>()?)
}
