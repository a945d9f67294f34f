//! Snapshots: annotated git tags `locstore/{team}/{project}/{name}` on the commit a project was
//! at. The tag's message is the description, then a trailer naming the project's folder when
//! it was taken (`Locstore-Project: team/project`), so a snapshot still reads after the team or
//! project is renamed: the tags move with the rename, the commit's tree keeps the old names.
//! The store writes the tags; the history (`crate::history::snapshots`) reads them.

use crate::domain::names::{ProjectName, TeamName};

const TRAILER: &str = "Locstore-Project: ";

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
pub fn parse_message(message: &str) -> (String, Option<(TeamName, ProjectName)>) {
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
