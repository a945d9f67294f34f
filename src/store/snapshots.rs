//! Snapshots: annotated git tags `locstore/{team}/{project}/{name}` on the commit a project was
//! at. The tag's message is the description, then a trailer naming the project's folder when
//! it was taken (`Locstore-Project: team/project`), so a snapshot still reads after the team or
//! project is renamed: the tags move with the rename, the commit's tree keeps the old names.

use git2::{Oid, Repository};

use super::error::StoreError;
use crate::domain::names::{ProjectName, TeamName};

const TRAILER: &str = "Locstore-Project: ";

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

/// The tags of a team's projects live under this prefix (without `refs/tags/`).
pub fn team_prefix(team: &TeamName) -> String {
    format!("locstore/{team}")
}

/// The tags of one project live under this prefix (without `refs/tags/`).
pub fn project_prefix(team: &TeamName, project: &ProjectName) -> String {
    format!("locstore/{team}/{project}")
}

pub fn tag_name(team: &TeamName, project: &ProjectName, name: &ProjectName) -> String {
    format!("{}/{name}", project_prefix(team, project))
}

/// The tag message: the description, then the trailer.
pub fn message(description: &str, team: &TeamName, project: &ProjectName) -> String {
    if description.is_empty() {
        format!("{TRAILER}{team}/{project}\n")
    } else {
        format!("{description}\n\n{TRAILER}{team}/{project}\n")
    }
}

/// Splits a tag message into the description and the names in its trailer.
fn parse_message(message: &str) -> (String, Option<(TeamName, ProjectName)>) {
    let mut description = message.trim_end().to_owned();
    let mut names = None;
    if let Some(position) = description.rfind(TRAILER) {
        let line_start = position == 0 || description[..position].ends_with('\n');
        if line_start {
            let trailer = description[position + TRAILER.len()..].trim().to_owned();
            names = trailer
                .split_once('/')
                .and_then(|(team, project)| Some((TeamName::parse(team).ok()?, ProjectName::parse(project).ok()?)));
            description.truncate(position);
            description = description.trim_end().to_owned();
        }
    }
    (description, names)
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
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_keeps_the_description_and_the_names_of_then() {
        let team = TeamName::parse("acme").unwrap();
        let project = ProjectName::parse("mobile").unwrap();
        for description in ["", "Release 2.3", "Two lines\nof text"] {
            let (read, names) = parse_message(&message(description, &team, &project));
            assert_eq!(read, description);
            assert_eq!(names, Some((team.clone(), project.clone())));
        }
        assert_eq!(parse_message("by hand"), ("by hand".to_owned(), None));
    }
}
