//! Planning changes of projects: create and update (settings, languages, a rename).

use super::vocabulary::*;
use crate::domain::model::Project;
use crate::domain::names::{LanguageCode, ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry};
use crate::store::error::StoreError;
use crate::store::{files, layout};

pub(super) fn plan_create_project(catalog: &Catalog, team: TeamName, new: NewProject) -> Result<Plan, StoreError> {
    let team_entry = team_entry(catalog, &team)?;
    if let Some(existing) = team_entry.project_clashing_with(&new.name, None) {
        return Err(project_exists(&team, existing));
    }
    let base_language = new
        .base_language
        .unwrap_or_else(|| LanguageCode::parse("en").expect("'en' is a valid code"));
    let languages = checked_languages(&base_language, new.languages.unwrap_or_default())?;
    let project = Project {
        name: new.name,
        display_name: new.display_name,
        description: new.description.unwrap_or_default(),
        base_language,
        languages,
        placeholder_format: new.placeholder_format,
    };
    Ok(Plan {
        import: None,
        subject: format!("Create project {} in {team}", quoted(project.name.as_str())),
        edits: vec![TreeEdit::Write {
            path: layout::project_file(&team, &project.name),
            contents: files::write_project(&project).into(),
        }],
        update: CatalogUpdate::PutProject {
            team,
            old_name: None,
            project,
            rewritten_keys: Vec::new(),
        },
    })
}

pub(super) fn plan_update_project(
    catalog: &Catalog,
    team: TeamName,
    name: ProjectName,
    patch: ProjectPatch,
) -> Result<Plan, StoreError> {
    let team_entry = team_entry(catalog, &team)?;
    let entry = project_entry(catalog, &team, &name)?;
    let old = &entry.project;
    let new_name = patch.name.unwrap_or_else(|| name.clone());
    if let Some(existing) = team_entry.project_clashing_with(&new_name, Some(&name)) {
        return Err(project_exists(&team, existing));
    }
    let base_language = patch.base_language.unwrap_or_else(|| old.base_language.clone());
    let languages = checked_languages(&base_language, patch.languages.unwrap_or_else(|| old.languages.clone()))?;
    let project = Project {
        name: new_name.clone(),
        display_name: patch.display_name.unwrap_or_else(|| old.display_name.clone()),
        description: patch.description.unwrap_or_else(|| old.description.clone()),
        base_language,
        languages,
        placeholder_format: patch.placeholder_format.or(old.placeholder_format),
    };

    let mut edits = Vec::new();
    let subject = if new_name != name {
        edits.push(TreeEdit::Move {
            from: layout::project_dir(&team, &name),
            to: layout::project_dir(&team, &new_name),
        });
        format!(
            "Rename project {} to {} in {team}",
            quoted(name.as_str()),
            quoted(new_name.as_str())
        )
    } else {
        format!("Update project {} in {team}", quoted(name.as_str()))
    };
    edits.push(TreeEdit::Write {
        path: layout::project_file(&team, &new_name),
        contents: files::write_project(&project).into(),
    });

    // Translations in languages the project no longer has go in the same commit.
    let mut rewritten_keys = Vec::new();
    let keys_dir = layout::keys_dir(&team, &new_name);
    for entry in loaded_keys(entry)?.iter() {
        if entry
            .key
            .translations
            .keys()
            .all(|language| project.has_language(language))
        {
            continue;
        }
        let mut key = entry.key.clone();
        key.translations.retain(|language, _| project.has_language(language));
        edits.push(TreeEdit::Write {
            path: format!("{keys_dir}/{}", entry.file()),
            contents: files::write_key(&key).into(),
        });
        rewritten_keys.push(KeyEntry::new(key, entry.file()));
    }
    Ok(Plan {
        import: None,
        subject,
        edits,
        update: CatalogUpdate::PutProject {
            team,
            old_name: Some(name),
            project,
            rewritten_keys,
        },
    })
}
