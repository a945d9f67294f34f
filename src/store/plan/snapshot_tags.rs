//! What a change does to the snapshot tags of the teams and projects it renames or deletes.

use super::vocabulary::Change;
use crate::store::snapshots::{project_prefix, team_prefix};

/// What a change does to the tags once it is committed: a renamed team or project takes its
/// snapshots along (`Some(to)`), a deleted one takes them away (`None`).
pub fn follow(change: &Change) -> Option<(String, Option<String>)> {
    match change {
        Change::Guarded { change, .. } => follow(change),
        Change::UpdateTeam {
            name,
            new_name: Some(new_name),
            ..
        } if new_name != name => Some((team_prefix(name), Some(team_prefix(new_name)))),
        Change::DeleteTeam { name } => Some((team_prefix(name), None)),
        Change::UpdateProject { team, name, patch } => match &patch.name {
            Some(new_name) if new_name != name => {
                Some((project_prefix(team, name), Some(project_prefix(team, new_name))))
            }
            _ => None,
        },
        Change::DeleteProject { team, name } => Some((project_prefix(team, name), None)),
        _ => None,
    }
}
