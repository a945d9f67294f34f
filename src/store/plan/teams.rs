//! Planning changes of teams: create and update (a rename moves the folder).

use super::vocabulary::*;
use crate::domain::model::Team;
use crate::domain::names::TeamName;
use crate::gitdb::TreeEdit;
use crate::store::catalog::Catalog;
use crate::store::error::StoreError;
use crate::store::{files, layout};

pub(super) fn plan_create_team(catalog: &Catalog, team: Team) -> Result<Plan, StoreError> {
    if let Some(existing) = catalog.team_clashing_with(&team.name, None) {
        return Err(StoreError::Conflict(format!(
            "A team named {} already exists.",
            quoted(existing.as_str())
        )));
    }
    Ok(Plan {
        import: None,
        subject: format!("Create team {}", quoted(team.name.as_str())),
        edits: vec![TreeEdit::Write {
            path: layout::team_file(&team.name),
            contents: files::write_team(&team).into(),
        }],
        update: CatalogUpdate::PutTeam { old_name: None, team },
    })
}

pub(super) fn plan_update_team(
    catalog: &Catalog,
    name: TeamName,
    new_name: Option<TeamName>,
    display_name: Option<String>,
) -> Result<Plan, StoreError> {
    let old = &team_entry(catalog, &name)?.team;
    let new_name = new_name.unwrap_or_else(|| name.clone());
    if let Some(existing) = catalog.team_clashing_with(&new_name, Some(&name)) {
        return Err(StoreError::Conflict(format!(
            "A team named {} already exists.",
            quoted(existing.as_str())
        )));
    }
    let team = Team {
        name: new_name.clone(),
        display_name: display_name.unwrap_or_else(|| old.display_name.clone()),
    };
    let mut edits = Vec::new();
    let subject = if new_name != name {
        edits.push(TreeEdit::Move {
            from: layout::team_dir(&name),
            to: layout::team_dir(&new_name),
        });
        format!("Rename team {} to {}", quoted(name.as_str()), quoted(new_name.as_str()))
    } else {
        format!("Update team {}", quoted(name.as_str()))
    };
    edits.push(TreeEdit::Write {
        path: layout::team_file(&new_name),
        contents: files::write_team(&team).into(),
    });
    Ok(Plan {
        import: None,
        subject,
        edits,
        update: CatalogUpdate::PutTeam {
            old_name: Some(name),
            team,
        },
    })
}
