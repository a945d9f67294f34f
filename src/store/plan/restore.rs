//! Planning a restore: a project's settings and keys set back to a snapshot's, one commit.

use std::collections::HashSet;

use super::vocabulary::*;
use crate::domain::model::Project;
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry};
use crate::store::error::StoreError;
use crate::store::{files, layout};

/// Sets a project back to a snapshot: its settings file and every key file as the snapshot
/// has them, the keys it lacks removed; one commit, none when nothing differs.
pub(crate) fn plan_restore(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    snapshot: &str,
    mut settings: Project,
    keys: Vec<KeyEntry>,
) -> Result<Plan, StoreError> {
    let entry = project_entry(catalog, &team, &project)?;
    let current = loaded_keys(entry)?;
    settings.name = project.clone();
    let keys_dir = layout::keys_dir(&team, &project);
    let mut edits = Vec::new();
    if settings != entry.project {
        edits.push(TreeEdit::Write {
            path: layout::project_file(&team, &project),
            contents: files::write_project(&settings),
        });
    }
    let wanted: HashSet<&KeyName> = keys.iter().map(|entry| &entry.key.name).collect();
    for existing in current.iter() {
        let moved = keys
            .iter()
            .find(|entry| entry.key.name == existing.key.name)
            .is_some_and(|entry| entry.file() != existing.file());
        if !wanted.contains(&existing.key.name) || moved {
            edits.push(TreeEdit::Remove {
                path: format!("{keys_dir}/{}", existing.file()),
            });
        }
    }
    for restored in &keys {
        let same = current
            .get(&restored.key.name)
            .is_some_and(|existing| existing.key == restored.key && existing.file() == restored.file());
        if !same {
            edits.push(TreeEdit::Write {
                path: format!("{keys_dir}/{}", restored.file()),
                contents: files::write_key(&restored.key),
            });
        }
    }
    Ok(Plan {
        subject: format!("Restore {team}/{project} to snapshot {}", quoted(snapshot)),
        edits,
        update: CatalogUpdate::ReplaceProject {
            team,
            settings,
            entries: keys,
        },
        import: None,
    })
}
