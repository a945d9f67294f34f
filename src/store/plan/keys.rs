//! Planning changes of keys: create and update (texts, flags, files, a rename).

use super::vocabulary::*;
use crate::domain::model::{Key, Translations, dedup_tags};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry};
use crate::store::error::StoreError;
use crate::store::{files, layout};

pub(super) fn plan_create_key(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    draft: KeyDraft,
) -> Result<Plan, StoreError> {
    let entry = project_entry(catalog, &team, &project)?;
    let keys = loaded_keys(entry)?;
    if keys.get(&draft.name).is_some() {
        return Err(StoreError::Conflict(format!(
            "A key named {} already exists in {team}/{project}.",
            quoted(draft.name.as_str())
        )));
    }
    let mut key = Key {
        name: draft.name,
        tags: dedup_tags(draft.tags),
        description: draft.description,
        plural: draft.plural,
        markup: draft.markup,
        translatable: draft.translatable,
        files: draft.files,
        max_length: draft.max_length,
        ignore_checks: sorted_checks(draft.ignore_checks),
        xcode: Default::default(),
        placeholders: draft.placeholders.or(entry.project.placeholder_format),
        placeholder_names: draft.placeholder_names,
        translations: Translations::default(),
    };
    merge_translations(&entry.project, &mut key, draft.translations)?;
    key.settle_bases(&entry.project.base_language, None, false);
    let file = layout::key_file(&key.name);
    ensure_file_is_free(keys, &file, &key.name)?;
    let subject = format!("Create key {} in {team}/{project}", quoted(key.name.as_str()));
    Ok(write_in_place(team, project, None, subject, key, file))
}

/// The plan of a key written to `file` (its place stays), as one commit.
fn write_in_place(
    team: TeamName,
    project: ProjectName,
    old_name: Option<KeyName>,
    subject: String,
    key: Key,
    file: String,
) -> Plan {
    Plan {
        import: None,
        subject,
        edits: vec![TreeEdit::Write {
            path: format!("{}/{file}", layout::keys_dir(&team, &project)),
            contents: files::write_key(&key).into(),
        }],
        update: CatalogUpdate::PutKey {
            team,
            project,
            old_name,
            entry: Box::new(KeyEntry::new(key, file)),
        },
    }
}

pub(super) fn plan_update_key(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    name: KeyName,
    patch: KeyPatch,
) -> Result<Plan, StoreError> {
    let entry = project_entry(catalog, &team, &project)?;
    let keys = loaded_keys(entry)?;
    let old = keys.get(&name).ok_or_else(|| key_not_found(&team, &project, &name))?;
    let mut key = old.key.clone();
    if let Some(tags) = patch.tags {
        key.tags = dedup_tags(tags);
    }
    if let Some(description) = patch.description {
        key.description = description;
    }
    if let Some(markup) = patch.markup {
        key.set_markup(markup);
    }
    if let Some(plural) = patch.plural {
        key.set_plural(plural);
    }
    if let Some(translatable) = patch.translatable {
        key.translatable = translatable;
    }
    for (platform, file) in patch.files {
        key.files.set(platform, file);
    }
    if let Some(max_length) = patch.max_length {
        key.max_length = max_length;
    }
    if let Some(checks) = patch.ignore_checks {
        key.ignore_checks = sorted_checks(checks);
    }
    if let Some(syntax) = patch.placeholders {
        key.placeholders = Some(syntax);
    }
    if let Some(names) = patch.placeholder_names {
        key.placeholder_names = names;
    }
    merge_translations(&entry.project, &mut key, patch.translations)?;
    key.settle_bases(&entry.project.base_language, Some(&old.key), patch.keep_current);

    let keys_dir = layout::keys_dir(&team, &project);
    let mut edits = Vec::new();
    let (subject, file) = match patch.name.filter(|new_name| *new_name != name) {
        Some(new_name) => {
            if keys.get(&new_name).is_some() {
                return Err(StoreError::Conflict(format!(
                    "Cannot rename key {} to {}: a key with that name already exists in {team}/{project}.",
                    quoted(name.as_str()),
                    quoted(new_name.as_str())
                )));
            }
            let file = layout::key_file(&new_name);
            ensure_file_is_free(keys, &file, &new_name)?;
            edits.push(TreeEdit::Remove {
                path: format!("{keys_dir}/{}", old.file()),
            });
            let subject = format!(
                "Rename key {} to {} in {team}/{project}",
                quoted(name.as_str()),
                quoted(new_name.as_str())
            );
            key.name = new_name;
            (subject, file)
        }
        None => (
            format!("Update key {} in {team}/{project}", quoted(name.as_str())),
            old.file(),
        ),
    };
    edits.push(TreeEdit::Write {
        path: format!("{keys_dir}/{file}"),
        contents: files::write_key(&key).into(),
    });
    Ok(Plan {
        import: None,
        subject,
        edits,
        update: CatalogUpdate::PutKey {
            team,
            project,
            old_name: Some(name),
            entry: Box::new(KeyEntry::new(key, file)),
        },
    })
}

/// Confirms translations of a key: marks them written against its base text as it is now.
/// A language the project does not have, or one the key has no text in, is refused.
pub(super) fn plan_confirm_key(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    name: KeyName,
    languages: Vec<LanguageCode>,
) -> Result<Plan, StoreError> {
    let entry = project_entry(catalog, &team, &project)?;
    let keys = loaded_keys(entry)?;
    let old = keys.get(&name).ok_or_else(|| key_not_found(&team, &project, &name))?;
    let settings = &entry.project;
    let mut named = Vec::with_capacity(languages.len());
    for language in &languages {
        let own = &settings.languages[settings.language_position(language).map_err(StoreError::Invalid)?];
        if old.key.translations.get(own).is_none() {
            return Err(StoreError::Invalid(format!(
                "Key {} has no text in {} to confirm.",
                quoted(name.as_str()),
                quoted(own.as_str())
            )));
        }
        named.push(own.clone());
    }
    if old.key.translations.get(&settings.base_language).is_none() {
        return Err(StoreError::Invalid(format!(
            "Key {} has no text in the base language {}: there is nothing to confirm against.",
            quoted(name.as_str()),
            quoted(settings.base_language.as_str())
        )));
    }
    let mut key = old.key.clone();
    key.confirm(&settings.base_language, &named);
    let (file, subject) = (
        old.file(),
        format!("Confirm key {} in {team}/{project}", quoted(name.as_str())),
    );
    Ok(write_in_place(team, project, Some(name), subject, key, file))
}
