//! Planning an import: many keys created or updated (and languages added) as one commit,
//! for the bulk import and for file uploads. Like every plan it is pure: it reads the catalog
//! and writes nothing, and a bad entry refuses the whole import, naming its position.

use std::collections::{HashMap, HashSet};

use super::vocabulary::*;
use crate::domain::key_files::KeyFiles;
use crate::domain::model::{Key, Project, Translations, dedup_tags};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry, KeyIndex};
use crate::store::error::StoreError;
use crate::store::{files, layout};

/// What an import brings (see [`Change::ImportKeys`]).
pub(crate) struct Imported {
    pub mode: ImportMode,
    pub items: Vec<ImportEntry>,
    pub add_languages: Vec<LanguageCode>,
    pub keep_current: bool,
    pub beside: Option<Beside>,
}

pub(crate) fn plan_import(
    catalog: &Catalog,
    team: TeamName,
    project: ProjectName,
    imported: Imported,
) -> Result<Plan, StoreError> {
    let Imported {
        mode,
        items,
        add_languages,
        keep_current,
        beside,
    } = imported;
    let entry = project_entry(catalog, &team, &project)?;
    let keys = loaded_keys(entry)?;
    let keys_dir = layout::keys_dir(&team, &project);
    let mut counts = ImportCounts::default();
    let mut seen: HashSet<KeyName> = HashSet::with_capacity(items.len());
    let mut new_files: HashMap<String, KeyName> = HashMap::new();
    let mut edits = Vec::with_capacity(items.len() + 1);
    let settings = with_languages(&entry.project, add_languages)?;
    if let Some(settings) = &settings {
        edits.push(TreeEdit::Write {
            path: layout::project_file(&team, &project),
            contents: files::write_project(settings).into(),
        });
    }
    let project_settings = settings.as_ref().unwrap_or(&entry.project);
    let mut entries = Vec::with_capacity(items.len());
    for (position, item) in items.into_iter().enumerate() {
        let at = |err: StoreError| at_position(position, &item.name, err);
        if !seen.insert(item.name.clone()) {
            return Err(at(StoreError::Invalid(
                "the key appears earlier in the same import.".into(),
            )));
        }
        let (key, file) = match keys.get(&item.name) {
            Some(_) if mode == ImportMode::Create => {
                return Err(at(StoreError::Conflict(format!(
                    "a key with this name already exists in {team}/{project}."
                ))));
            }
            Some(existing) => {
                let mut key = existing.key.clone();
                if let Some(tags) = item.tags {
                    key.tags = dedup_tags(tags);
                }
                if !item.add_tags.is_empty() {
                    key.tags = dedup_tags(key.tags.into_iter().chain(item.add_tags).collect());
                }
                if let Some(description) = item.description {
                    key.description = description;
                }
                if let Some(markup) = item.markup {
                    key.set_markup(markup);
                }
                if let Some(plural) = item.plural {
                    key.set_plural(plural);
                }
                if let Some(translatable) = item.translatable {
                    key.translatable = translatable;
                }
                for (platform, file) in item.files {
                    key.files.set(platform, file);
                }
                if let Some(max_length) = item.max_length {
                    key.max_length = max_length;
                }
                if let Some(checks) = item.ignore_checks {
                    key.ignore_checks = sorted_checks(checks);
                }
                if let Some(xcode) = item.xcode {
                    key.xcode = xcode;
                }
                if let Some(syntax) = item.placeholders {
                    key.placeholders = Some(syntax);
                }
                if let Some(names) = item.placeholder_names {
                    key.placeholder_names = names;
                }
                merge_translations(project_settings, &mut key, item.translations).map_err(at)?;
                key.settle_bases(&project_settings.base_language, Some(&existing.key), keep_current);
                key.mark_outdated(&project_settings.base_language, &item.outdated);
                if key == existing.key {
                    counts.unchanged += 1;
                    continue;
                }
                counts.updated += 1;
                counts.count_texts(Some(&existing.key), &key);
                (key, existing.file())
            }
            None => {
                let mut key = Key {
                    name: item.name.clone(),
                    tags: dedup_tags(item.tags.unwrap_or_default().into_iter().chain(item.add_tags).collect()),
                    description: item.description.unwrap_or_default(),
                    plural: item.plural.unwrap_or(false),
                    markup: item.markup.unwrap_or(false),
                    translatable: item.translatable.unwrap_or(true),
                    files: KeyFiles::default(),
                    max_length: item.max_length.flatten(),
                    ignore_checks: sorted_checks(item.ignore_checks.unwrap_or_default()),
                    xcode: item.xcode.clone().unwrap_or_default(),
                    placeholders: item.placeholders.or(project_settings.placeholder_format),
                    placeholder_names: item.placeholder_names.clone().unwrap_or_default(),
                    translations: Translations::default(),
                };
                for (platform, file) in item.files {
                    key.files.set(platform, file);
                }
                merge_translations(project_settings, &mut key, item.translations).map_err(at)?;
                key.settle_bases(&project_settings.base_language, None, false);
                key.mark_outdated(&project_settings.base_language, &item.outdated);
                let file = layout::key_file(&key.name);
                ensure_file_is_free(keys, &file, &key.name).map_err(at)?;
                if let Some(other) = new_files.insert(file.clone(), key.name.clone()) {
                    return Err(at(StoreError::Conflict(format!(
                        "it would be stored in the same file as key {} of this import; choose another name.",
                        quoted(other.as_str())
                    ))));
                }
                counts.created += 1;
                counts.count_texts(None, &key);
                (key, file)
            }
        };
        edits.push(TreeEdit::Write {
            path: format!("{keys_dir}/{file}"),
            contents: files::write_key(&key).into(),
        });
        counts.written.push(key.name.clone());
        entries.push(KeyEntry::new(key, file));
    }
    if let Some(beside) = beside {
        let (kept_edits, mut kept) = kept_files(&team, &project, project_settings, keys, &entries, &beside)?;
        edits.extend(kept_edits);
        kept.sort();
        counts.kept = kept;
    }
    let mut subject = format!(
        "Import {} keys into {team}/{project} ({} created, {} updated)",
        counts.created + counts.updated,
        counts.created,
        counts.updated
    );
    if let Some(settings) = &settings {
        let added: Vec<&str> = settings.languages[entry.project.languages.len()..]
            .iter()
            .map(LanguageCode::as_str)
            .collect();
        subject.push_str(&format!(", adding {}", added.join(", ")));
    }
    counts.written.sort();
    Ok(Plan {
        subject,
        edits,
        update: CatalogUpdate::PutKeys {
            team,
            project,
            entries,
            settings,
        },
        import: Some(counts),
    })
}

/// The edits of the app's files an import keeps, and their paths under the kept folder:
/// `beside` is given the project's keys as the import leaves them, by name.
fn kept_files(
    team: &TeamName,
    project: &ProjectName,
    settings: &Project,
    keys: &KeyIndex,
    written: &[KeyEntry],
    beside: &Beside,
) -> Result<(Vec<TreeEdit>, Vec<String>), StoreError> {
    let changed: HashMap<&KeyName, &Key> = written.iter().map(|entry| (&entry.key.name, &entry.key)).collect();
    let mut after: Vec<&Key> = keys
        .iter()
        .map(|entry| changed.get(&entry.key.name).copied().unwrap_or(&entry.key))
        .collect();
    let known = after.len();
    after.extend(
        written
            .iter()
            .filter(|entry| keys.get(&entry.key.name).is_none())
            .map(|entry| &entry.key),
    );
    if after.len() > known {
        after.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let dir = layout::kept_dir(team, project);
    let files = (beside.0)(settings, &after);
    let edits = files
        .edits
        .into_iter()
        .map(|(path, contents)| {
            if !layout::is_kept_path(&path) {
                return Err(StoreError::internal(
                    "cannot keep an app's file",
                    format!("{path:?} is not a path a kept file may have"),
                ));
            }
            let path = format!("{dir}/{path}");
            Ok(match contents {
                Some(contents) => TreeEdit::Write { path, contents },
                None => TreeEdit::Remove { path },
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((edits, files.kept))
}

/// The project with `languages` added at the end (those it lacks); `None` when it has them all.
fn with_languages(project: &Project, languages: Vec<LanguageCode>) -> Result<Option<Project>, StoreError> {
    let mut settings = project.clone();
    for language in languages {
        if !settings.languages.iter().any(|known| known.same_as(&language)) {
            settings.languages.push(language);
        }
    }
    if settings.languages.len() == project.languages.len() {
        return Ok(None);
    }
    settings.languages = checked_languages(&settings.base_language, settings.languages)?;
    Ok(Some(settings))
}

/// Puts the position of an import entry in front of an error's message.
fn at_position(position: usize, name: &KeyName, err: StoreError) -> StoreError {
    let prefix = format!("keys[{position}] ({}): ", quoted(name.as_str()));
    match err {
        StoreError::NotFound(message) => StoreError::NotFound(prefix + &message),
        StoreError::Conflict(message) => StoreError::Conflict(prefix + &message),
        StoreError::Invalid(message) => StoreError::Invalid(prefix + &message),
        internal => internal,
    }
}
