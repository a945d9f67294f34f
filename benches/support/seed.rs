//! What the in-process benches seed a store with: a team and a project in given languages.

use locstore::domain::model::Team;
use locstore::domain::names::{LanguageCode, ProjectName, TeamName};
use locstore::store::{Change, NewProject, Store};

/// Creates the team `team` and its project `project` in `languages` (the first is the base).
pub async fn team_and_project(store: &Store, team: &TeamName, project: &ProjectName, languages: &[&str]) {
    let team_change = Change::CreateTeam(Team {
        name: team.clone(),
        display_name: "Acme".into(),
    });
    store.apply(team_change, "bench").await.unwrap();
    let languages: Vec<LanguageCode> = languages
        .iter()
        .map(|code| LanguageCode::parse(code).unwrap())
        .collect();
    let new_project = NewProject {
        name: project.clone(),
        display_name: "Big".into(),
        description: None,
        base_language: languages.first().cloned(),
        languages: Some(languages),
        placeholder_format: None,
    };
    let project_change = Change::CreateProject {
        team: team.clone(),
        project: new_project,
    };
    store.apply(project_change, "bench").await.unwrap();
}
