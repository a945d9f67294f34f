//! Snapshots read: the tags the store writes (`store::snapshots` names them and writes their
//! messages), found by name and listed.

use git2::{Oid, Repository};

use crate::domain::names::{ProjectName, TeamName};
use crate::store::StoreError;
use crate::store::snapshots::{parse_message, project_prefix, tag_name};

/// A snapshot as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub name: String,
    pub description: String,
    pub commit: String,
    /// When it was taken (RFC 3339, UTC).
    pub time: String,
    /// The token name that took it.
    pub author: String,
}

/// Where a snapshot's project is: its commit, and the team and project names it had there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub commit: Oid,
    pub team: TeamName,
    pub project: ProjectName,
}

/// The snapshot `name` of a project, if there is one.
pub fn find(
    repo: &Repository,
    team: &TeamName,
    project: &ProjectName,
    name: &str,
) -> Result<Option<Found>, StoreError> {
    let Ok(name) = ProjectName::parse(name) else {
        return Ok(None);
    };
    let Ok(reference) = repo.find_reference(&format!("refs/tags/{}", tag_name(team, project, &name))) else {
        return Ok(None);
    };
    let fail = |err| StoreError::internal("cannot read a snapshot", err);
    let commit = reference.peel_to_commit().map_err(fail)?.id();
    let message = reference
        .peel_to_tag()
        .ok()
        .and_then(|tag| tag.message().ok().flatten().map(str::to_owned))
        .unwrap_or_default();
    let (team_then, project_then) = parse_message(&message)
        .1
        .unwrap_or_else(|| (team.clone(), project.clone()));
    Ok(Some(Found {
        commit,
        team: team_then,
        project: project_then,
    }))
}

/// A project's snapshots, newest first.
pub fn list(repo: &Repository, team: &TeamName, project: &ProjectName) -> Result<Vec<Snapshot>, StoreError> {
    let fail = |err| StoreError::internal("cannot list snapshots", err);
    let prefix = format!("refs/tags/{}/", project_prefix(team, project));
    let mut snapshots = Vec::new();
    for reference in repo.references_glob(&format!("{prefix}*")).map_err(fail)? {
        let reference = reference.map_err(fail)?;
        let Ok(full_name) = reference.name() else {
            continue;
        };
        let name = full_name[prefix.len()..].to_owned();
        let commit = reference.peel_to_commit().map_err(fail)?;
        let (description, time, author) = match reference.peel_to_tag() {
            Ok(tag) => {
                let (description, _) = parse_message(tag.message().ok().flatten().unwrap_or_default());
                let tagger = tag.tagger();
                let time = tagger.as_ref().map(|tagger| tagger.when().seconds());
                let author = tagger
                    .as_ref()
                    .and_then(|tagger| tagger.name().ok().map(str::to_owned))
                    .unwrap_or_default();
                (description, time.unwrap_or(commit.time().seconds()), author)
            }
            // A lightweight tag someone made by hand: the commit's time and author.
            Err(_) => (
                String::new(),
                commit.time().seconds(),
                commit.author().name().unwrap_or_default().to_owned(),
            ),
        };
        snapshots.push((time, name, description, commit.id(), author));
    }
    snapshots.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    Ok(snapshots
        .into_iter()
        .map(|(time, name, description, commit, author)| Snapshot {
            name,
            description,
            commit: commit.to_string(),
            time: jiff::Timestamp::from_second(time)
                .map(|time| time.to_string())
                .unwrap_or_default(),
            author,
        })
        .collect())
}
