//! Loads the catalog from HEAD: teams and projects at start, a project's keys on first use.
//!
//! It reads HEAD's tree rather than walking the working tree: after start-up recovery the two
//! hold the same files, and reading blobs from git's packs stays fast with a cold page cache,
//! where opening 100,000 small files does not. Files that do not parse are skipped with a
//! warning, so that one bad hand edit does not take the whole service down.

use std::collections::BTreeMap;

use super::catalog::{Catalog, KeyEntry, KeyIndex, ProjectEntry, TeamEntry};
use super::error::StoreError;
use super::files;
use super::git::GitRepo;
use super::layout;
use crate::domain::names::{ProjectName, TeamName};

/// Reads every team and project (not their keys) from HEAD.
pub fn load_catalog(git: &GitRepo) -> Result<Catalog, StoreError> {
    let mut catalog = Catalog {
        head: git.head().to_string(),
        ..Catalog::default()
    };
    for component in git.subfolders(layout::TEAMS_DIR)? {
        let Ok(name) = TeamName::parse(layout::slug_from_component(&component)) else {
            tracing::warn!(folder = %component, "skipping a team folder whose name is not a valid team name");
            continue;
        };
        let Some(bytes) = git.read_file(&layout::team_file(&name))? else {
            tracing::warn!(folder = %component, "skipping a team folder without {}", layout::TEAM_FILE);
            continue;
        };
        let team = match files::read_team(name.clone(), &bytes) {
            Ok(team) => team,
            Err(err) => {
                tracing::warn!(team = %name, error = %err, "skipping a team whose file does not parse");
                continue;
            }
        };
        let projects = load_projects(git, &name)?;
        catalog.teams.insert(name, TeamEntry { team, projects });
    }
    Ok(catalog)
}

fn load_projects(git: &GitRepo, team: &TeamName) -> Result<BTreeMap<ProjectName, ProjectEntry>, StoreError> {
    let mut projects = BTreeMap::new();
    for component in git.subfolders(&layout::projects_dir(team))? {
        let Ok(name) = ProjectName::parse(layout::slug_from_component(&component)) else {
            tracing::warn!(%team, folder = %component, "skipping a project folder whose name is not a valid project name");
            continue;
        };
        let Some(bytes) = git.read_file(&layout::project_file(team, &name))? else {
            tracing::warn!(%team, folder = %component, "skipping a project folder without {}", layout::PROJECT_FILE);
            continue;
        };
        match files::read_project(name.clone(), &bytes) {
            Ok(project) => {
                projects.insert(name, ProjectEntry { project, keys: None });
            }
            Err(err) => {
                tracing::warn!(%team, project = %name, error = %err, "skipping a project whose file does not parse")
            }
        }
    }
    Ok(projects)
}

/// Reads every key file of a project from HEAD.
pub fn load_keys(git: &GitRepo, team: &TeamName, project: &ProjectName) -> Result<KeyIndex, StoreError> {
    let keys_dir = layout::keys_dir(team, project);
    let mut entries = Vec::new();
    git.for_each_file_under(&keys_dir, |file, bytes| {
        if !file.ends_with(".toml") {
            return;
        }
        match files::read_key(bytes) {
            Ok(key) => entries.push(KeyEntry::new(key, file.to_owned())),
            Err(err) => tracing::warn!(file = %format!("{keys_dir}/{file}"), error = %err, "skipping a key file that does not parse"),
        }
    })?;
    let (index, duplicates) = KeyIndex::from_entries(entries);
    for duplicate in duplicates {
        tracing::warn!(
            file = %format!("{keys_dir}/{}", duplicate.file()),
            key = %duplicate.key.name,
            "skipping a second file for the same key name"
        );
    }
    Ok(index)
}
