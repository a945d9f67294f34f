//! Entity tags of teams, projects and keys: a hash of the file the resource is stored as, so
//! that a tag changes exactly when the resource does, and the writer can compare a client's
//! `If-Match` with the current state while it plans the change (no lost update in between).

use sha2::{Digest, Sha256};

use super::catalog::Catalog;
use super::changes::{Change, loaded_keys, project_entry, quoted, team_entry};
use super::error::StoreError;
use super::files;
use crate::domain::model::{Key, Project, Team};

pub fn team(team: &Team) -> String {
    tag(&files::write_team(team))
}

pub fn project(project: &Project) -> String {
    tag(&files::write_project(project))
}

pub fn key(key: &Key) -> String {
    tag(&files::write_key(key))
}

/// A strong tag for any bytes: the first 128 bits of their SHA-256, quoted.
pub fn tag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest[..16].iter().map(|byte| format!("{byte:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether an `If-Match` or `If-None-Match` value names `current`: `*`, or a list of tags of
/// which one is it (a weak `W/` prefix compares as the tag).
pub fn matches(header: &str, current: &str) -> bool {
    header
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == current)
}

/// Refuses a guarded change whose resource's current entity tag is not one `if_match` names.
pub(super) fn check_precondition(catalog: &Catalog, change: &Change, if_match: &str) -> Result<(), StoreError> {
    let current = match change {
        Change::UpdateTeam { name, .. } | Change::DeleteTeam { name } => team(&team_entry(catalog, name)?.team),
        Change::UpdateProject { team, name, .. } | Change::DeleteProject { team, name } => {
            project(&project_entry(catalog, team, name)?.project)
        }
        Change::UpdateKey {
            team, project, name, ..
        }
        | Change::DeleteKey { team, project, name } => {
            let keys = loaded_keys(project_entry(catalog, team, project)?)?;
            let entry = keys.get(name).ok_or_else(|| {
                StoreError::NotFound(format!(
                    "Key {} does not exist in {team}/{project}.",
                    quoted(name.as_str())
                ))
            })?;
            key(&entry.key)
        }
        _ => return Ok(()),
    };
    if matches(if_match, &current) {
        Ok(())
    } else {
        Err(StoreError::PreconditionFailed(format!(
            "The resource changed since you read it (If-Match {if_match}; it is now {current}); read it again and retry."
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_stars_and_weak_tags_match() {
        let current = tag(b"x");
        assert!(matches(&current, &current));
        assert!(matches("*", &current));
        assert!(matches(&format!("\"other\", W/{current}"), &current));
        assert!(!matches("\"other\"", &current));
    }
}
