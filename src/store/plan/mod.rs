//! Changes as values: what a client asked for, checked against the catalog and turned into a
//! plan of file edits, a commit subject, and the catalog update to make once it is committed.
//!
//! Planning is pure: it reads the catalog and writes nothing, so a refused change leaves no
//! trace, and the writer can commit the plan as one unit. [`vocabulary`] holds what every
//! planner shares; one module per kind of change plans it; none imports another.

mod import;
mod keys;
pub mod merge;
mod preconditions;
mod projects;
mod restore;
mod snapshot_tags;
mod teams;
pub mod vocabulary;

pub use snapshot_tags::follow;
pub use vocabulary::*;

use crate::gitdb::TreeEdit;
use crate::store::catalog::Catalog;
use crate::store::error::StoreError;
use crate::store::layout;

/// Checks `change` against the catalog and plans it.
pub fn plan(catalog: &Catalog, change: Change) -> Result<Plan, StoreError> {
    match change {
        Change::Guarded { if_match, change } => {
            preconditions::check_precondition(catalog, &change, &if_match)?;
            plan(catalog, *change)
        }
        Change::RestoreProject {
            team,
            project,
            snapshot,
            settings,
            keys,
            kept,
        } => restore::plan_restore(
            catalog,
            team,
            project,
            &snapshot,
            restore::Restored { settings, keys, kept },
        ),
        Change::CreateTeam(team) => teams::plan_create_team(catalog, team),
        Change::UpdateTeam {
            name,
            new_name,
            display_name,
        } => teams::plan_update_team(catalog, name, new_name, display_name),
        Change::DeleteTeam { name } => {
            team_entry(catalog, &name)?;
            Ok(Plan {
                import: None,
                subject: format!("Delete team {}", quoted(name.as_str())),
                edits: vec![TreeEdit::Remove {
                    path: layout::team_dir(&name),
                }],
                update: CatalogUpdate::RemoveTeam(name),
            })
        }
        Change::CreateProject { team, project } => projects::plan_create_project(catalog, team, project),
        Change::UpdateProject { team, name, patch } => projects::plan_update_project(catalog, team, name, patch),
        Change::DeleteProject { team, name } => {
            project_entry(catalog, &team, &name)?;
            Ok(Plan {
                import: None,
                subject: format!("Delete project {} in {team}", quoted(name.as_str())),
                edits: vec![TreeEdit::Remove {
                    path: layout::project_dir(&team, &name),
                }],
                update: CatalogUpdate::RemoveProject { team, name },
            })
        }
        Change::CreateKey { team, project, key } => keys::plan_create_key(catalog, team, project, key),
        Change::UpdateKey {
            team,
            project,
            name,
            patch,
        } => keys::plan_update_key(catalog, team, project, name, patch),
        Change::ImportKeys {
            team,
            project,
            mode,
            keys,
            add_languages,
            keep_current,
            beside,
        } => import::plan_import(
            catalog,
            team,
            project,
            import::Imported {
                mode,
                items: keys,
                add_languages,
                keep_current,
                beside,
            },
        ),
        Change::ConfirmKey {
            team,
            project,
            name,
            languages,
        } => keys::plan_confirm_key(catalog, team, project, name, languages),
        Change::DeleteKey { team, project, name } => {
            let keys = loaded_keys(project_entry(catalog, &team, &project)?)?;
            let entry = keys.get(&name).ok_or_else(|| key_not_found(&team, &project, &name))?;
            Ok(Plan {
                import: None,
                subject: format!("Delete key {} in {team}/{project}", quoted(name.as_str())),
                edits: vec![TreeEdit::Remove {
                    path: format!("{}/{}", layout::keys_dir(&team, &project), entry.file()),
                }],
                update: CatalogUpdate::RemoveKey { team, project, name },
            })
        }
    }
}
