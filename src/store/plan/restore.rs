//! Planning a restore: a project's settings and keys set back to a snapshot's, one commit.

use std::collections::HashSet;

use super::vocabulary::*;
use crate::domain::model::Project;
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry};
use crate::store::error::StoreError;
use crate::store::{files, layout};

/// What a snapshot holds of a project (see [`Change::RestoreProject`]).
pub(crate) struct Restored {
    pub settings: Project,
    pub keys: Vec<KeyEntry>,
    pub kept: Vec<(String, Vec<u8>)>,
}

/// Sets a project back to a snapshot: its settings file, every key file and the app's kept
/// files as the snapshot has them, the keys and kept files it lacks removed; one commit, none
/// when nothing differs.
pub(crate) fn plan_restore(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    snapshot: &str,
    restored: Restored,
) -> Result<Plan, StoreError> {
    let Restored {
        mut settings,
        keys,
        kept,
    } = restored;
    let entry = project_entry(catalog, &team, &project)?;
    let current = loaded_keys(entry)?;
    settings.name = project.clone();
    let keys_dir = layout::keys_dir(&team, &project);
    let mut edits = Vec::new();
    if settings != entry.project {
        edits.push(TreeEdit::Write {
            path: layout::project_file(&team, &project),
            contents: files::write_project(&settings).into(),
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
                contents: files::write_key(&restored.key).into(),
            });
        }
    }
    // The kept folder as the snapshot has it (a commit of the same tree is none).
    let kept_dir = layout::kept_dir(&team, &project);
    edits.push(TreeEdit::Remove { path: kept_dir.clone() });
    for (path, contents) in kept {
        if !layout::is_kept_path(&path) {
            return Err(StoreError::internal(
                "cannot restore a kept file",
                format!("{path:?} is not a path a kept file may have"),
            ));
        }
        edits.push(TreeEdit::Write {
            path: format!("{kept_dir}/{path}"),
            contents: contents.into(),
        });
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
