//! `If-Match`: a guarded change is planned only while its resource's entity tag is one the client named.

use super::vocabulary::*;
use crate::store::catalog::Catalog;
use crate::store::error::StoreError;
use crate::store::etag::{key, matches, project, team};

/// Refuses a guarded change whose resource's current entity tag is not one `if_match` names.
pub(crate) fn check_precondition(catalog: &Catalog, change: &Change, if_match: &str) -> Result<(), StoreError> {
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
