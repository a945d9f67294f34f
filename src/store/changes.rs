//! Changes as values: what a client asked for, checked against the catalog and turned into a
//! plan of file edits, a commit subject, and the catalog update to make once it is committed.
//!
//! Planning is pure: it reads the catalog and writes nothing, so a refused change leaves no
//! trace, and the writer can commit the plan as one unit.

use std::collections::BTreeMap;

use super::catalog::{Catalog, KeyEntry, ProjectEntry};
use super::error::StoreError;
use super::files;
use super::import::{ImportCounts, ImportEntry, ImportMode};
use super::layout;
use crate::domain::key_files::{KeyFiles, Platform};
use crate::domain::model::{
    Key, PluralCategory, PluralForms, Project, Team, Text, Translations, dedup_tags, normalize_languages,
};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName, quote_for_message};
use crate::gitdb::TreeEdit;

/// A change a client asked for, in domain terms.
#[derive(Debug, Clone)]
pub enum Change {
    CreateTeam(Team),
    UpdateTeam {
        name: TeamName,
        new_name: Option<TeamName>,
        display_name: Option<String>,
    },
    DeleteTeam {
        name: TeamName,
    },
    CreateProject {
        team: TeamName,
        project: NewProject,
    },
    UpdateProject {
        team: TeamName,
        name: ProjectName,
        patch: ProjectPatch,
    },
    DeleteProject {
        team: TeamName,
        name: ProjectName,
    },
    CreateKey {
        team: TeamName,
        project: ProjectName,
        key: KeyDraft,
    },
    UpdateKey {
        team: TeamName,
        project: ProjectName,
        name: KeyName,
        patch: KeyPatch,
    },
    DeleteKey {
        team: TeamName,
        project: ProjectName,
        name: KeyName,
    },
    ImportKeys {
        team: TeamName,
        project: ProjectName,
        mode: ImportMode,
        keys: Vec<ImportEntry>,
        /// Languages to add to the project in the same commit (a file upload with
        /// `addLanguages=true`).
        add_languages: Vec<LanguageCode>,
    },
    /// A change of a team, project or key made only when that resource's entity tag is one
    /// `if_match` names (an `If-Match` header), checked as the change is planned.
    Guarded {
        if_match: String,
        change: Box<Change>,
    },
    /// The project's settings and keys set back to a snapshot's, as one commit.
    RestoreProject {
        team: TeamName,
        project: ProjectName,
        snapshot: String,
        settings: Project,
        keys: Vec<KeyEntry>,
    },
}

impl Change {
    /// The change, made only when `if_match` (if given) names the resource's current tag.
    pub fn if_match(self, if_match: Option<String>) -> Self {
        match if_match {
            Some(if_match) => Change::Guarded {
                if_match,
                change: Box::new(self),
            },
            None => self,
        }
    }
}

#[derive(Debug, Clone)]
pub struct NewProject {
    pub name: ProjectName,
    pub display_name: String,
    pub description: Option<String>,
    pub base_language: Option<LanguageCode>,
    pub languages: Option<Vec<LanguageCode>>,
}

#[derive(Debug, Clone, Default)]
pub struct ProjectPatch {
    pub name: Option<ProjectName>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub base_language: Option<LanguageCode>,
    pub languages: Option<Vec<LanguageCode>>,
}

/// A translation as sent.
#[derive(Debug, Clone)]
pub struct TranslationInput {
    pub language: LanguageCode,
    pub text: TextInput,
    /// The text is literal even if the key holds markup texts (an uploaded string without
    /// tags): it is escaped when stored in a markup key.
    pub literal: bool,
}

/// The text of a translation as sent: `content` for a plain key, `forms` for a plural one.
/// An empty `content`, or no forms at all, means "no translation in this language".
#[derive(Debug, Clone)]
pub enum TextInput {
    Content(String),
    Forms(Vec<(PluralCategory, String)>),
}

impl TextInput {
    /// Whether the input sets a text (rather than removing the language's translation).
    pub fn has_text(&self) -> bool {
        match self {
            TextInput::Content(content) => !content.is_empty(),
            TextInput::Forms(forms) => !forms.is_empty(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct KeyDraft {
    pub name: KeyName,
    pub tags: Vec<String>,
    pub description: String,
    pub plural: bool,
    pub markup: bool,
    pub translatable: bool,
    pub files: KeyFiles,
    pub translations: Vec<TranslationInput>,
}

#[derive(Debug, Clone, Default)]
pub struct KeyPatch {
    pub name: Option<KeyName>,
    pub tags: Option<Vec<String>>,
    pub description: Option<String>,
    pub plural: Option<bool>,
    pub markup: Option<bool>,
    pub translatable: Option<bool>,
    /// Per platform family: `Some(file)` sets the key's file, `None` removes its entry;
    /// families not listed keep theirs.
    pub files: Vec<(Platform, Option<String>)>,
    pub translations: Vec<TranslationInput>,
}

impl Change {
    /// The project whose keys must be loaded before this change can be planned.
    pub fn needs_keys_of(&self) -> Option<(&TeamName, &ProjectName)> {
        match self {
            Change::UpdateProject { team, name, .. } => Some((team, name)),
            Change::CreateKey { team, project, .. }
            | Change::UpdateKey { team, project, .. }
            | Change::DeleteKey { team, project, .. }
            | Change::ImportKeys { team, project, .. } => Some((team, project)),
            Change::RestoreProject { team, project, .. } => Some((team, project)),
            Change::Guarded { change, .. } => change.needs_keys_of(),
            _ => None,
        }
    }
}

/// What committing a change means: file edits, the subject, and the catalog update.
pub struct Plan {
    pub subject: String,
    pub edits: Vec<TreeEdit>,
    pub update: CatalogUpdate,
    /// For an import: what it creates, updates and leaves.
    pub import: Option<ImportCounts>,
}

/// How the catalog changes once the plan is committed.
pub enum CatalogUpdate {
    PutTeam {
        old_name: Option<TeamName>,
        team: Team,
    },
    RemoveTeam(TeamName),
    PutProject {
        team: TeamName,
        old_name: Option<ProjectName>,
        project: Project,
        rewritten_keys: Vec<KeyEntry>,
    },
    RemoveProject {
        team: TeamName,
        name: ProjectName,
    },
    PutKey {
        team: TeamName,
        project: ProjectName,
        old_name: Option<KeyName>,
        entry: KeyEntry,
    },
    RemoveKey {
        team: TeamName,
        project: ProjectName,
        name: KeyName,
    },
    PutKeys {
        team: TeamName,
        project: ProjectName,
        entries: Vec<KeyEntry>,
        /// The project's new settings, when the import added languages.
        settings: Option<Project>,
    },
    /// The project's settings and all its keys replaced (a restored snapshot).
    ReplaceProject {
        team: TeamName,
        settings: Project,
        entries: Vec<KeyEntry>,
    },
}

/// Checks `change` against the catalog and plans it.
pub fn plan(catalog: &Catalog, change: Change) -> Result<Plan, StoreError> {
    match change {
        Change::Guarded { if_match, change } => {
            super::etag::check_precondition(catalog, &change, &if_match)?;
            plan(catalog, *change)
        }
        Change::RestoreProject {
            team,
            project,
            snapshot,
            settings,
            keys,
        } => super::snapshots::plan_restore(catalog, team, project, &snapshot, settings, keys),
        Change::CreateTeam(team) => plan_create_team(catalog, team),
        Change::UpdateTeam {
            name,
            new_name,
            display_name,
        } => plan_update_team(catalog, name, new_name, display_name),
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
        Change::CreateProject { team, project } => plan_create_project(catalog, team, project),
        Change::UpdateProject { team, name, patch } => plan_update_project(catalog, team, name, patch),
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
        Change::CreateKey { team, project, key } => plan_create_key(catalog, team, project, key),
        Change::UpdateKey {
            team,
            project,
            name,
            patch,
        } => plan_update_key(catalog, team, project, name, patch),
        Change::ImportKeys {
            team,
            project,
            mode,
            keys,
            add_languages,
        } => super::import::plan_import(catalog, team, project, mode, keys, add_languages),
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

fn plan_create_team(catalog: &Catalog, team: Team) -> Result<Plan, StoreError> {
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
            contents: files::write_team(&team),
        }],
        update: CatalogUpdate::PutTeam { old_name: None, team },
    })
}

fn plan_update_team(
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
        contents: files::write_team(&team),
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

fn plan_create_project(catalog: &Catalog, team: TeamName, new: NewProject) -> Result<Plan, StoreError> {
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
    };
    Ok(Plan {
        import: None,
        subject: format!("Create project {} in {team}", quoted(project.name.as_str())),
        edits: vec![TreeEdit::Write {
            path: layout::project_file(&team, &project.name),
            contents: files::write_project(&project),
        }],
        update: CatalogUpdate::PutProject {
            team,
            old_name: None,
            project,
            rewritten_keys: Vec::new(),
        },
    })
}

fn plan_update_project(
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
        contents: files::write_project(&project),
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
            contents: files::write_key(&key),
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

fn plan_create_key(
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
        translations: Translations::default(),
    };
    merge_translations(&entry.project, &mut key, draft.translations)?;
    let file = layout::key_file(&key.name);
    ensure_file_is_free(keys, &file, &key.name)?;
    Ok(Plan {
        import: None,
        subject: format!("Create key {} in {team}/{project}", quoted(key.name.as_str())),
        edits: vec![TreeEdit::Write {
            path: format!("{}/{file}", layout::keys_dir(&team, &project)),
            contents: files::write_key(&key),
        }],
        update: CatalogUpdate::PutKey {
            team,
            project,
            old_name: None,
            entry: KeyEntry::new(key, file),
        },
    })
}

fn plan_update_key(
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
    merge_translations(&entry.project, &mut key, patch.translations)?;

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
        contents: files::write_key(&key),
    });
    Ok(Plan {
        import: None,
        subject,
        edits,
        update: CatalogUpdate::PutKey {
            team,
            project,
            old_name: Some(name),
            entry: KeyEntry::new(key, file),
        },
    })
}

/// Applies translations as sent to the key: each language is set, or removed when its content
/// (or its set of forms) is empty. The project's own spelling of a language is used, and each
/// text must be of the key's kind: `content` for a plain key, `forms` for a plural one.
pub(super) fn merge_translations(
    project: &Project,
    key: &mut Key,
    inputs: Vec<TranslationInput>,
) -> Result<(), StoreError> {
    // Which of the project's languages the inputs named so far. Inputs mostly come in the
    // project's order (an import of 50 languages per key), so the language after the last one
    // found is tried first.
    let mut seen = vec![false; project.languages.len()];
    let mut next = 0;
    let mut changes = Vec::with_capacity(inputs.len());
    for input in inputs {
        let found = project
            .languages
            .get(next)
            .filter(|language| language.same_as(&input.language))
            .map(|_| next)
            .or_else(|| {
                project
                    .languages
                    .iter()
                    .position(|language| language.same_as(&input.language))
            });
        let Some(index) = found else {
            return Err(StoreError::Invalid(format!(
                "Project {} has no language {}; its languages are: {}.",
                quoted(project.name.as_str()),
                quoted(input.language.as_str()),
                project.languages_list()
            )));
        };
        if std::mem::replace(&mut seen[index], true) {
            return Err(StoreError::Invalid(format!(
                "The language {} appears more than once in translations.",
                quoted(input.language.as_str())
            )));
        }
        next = index + 1;
        let language = &project.languages[index];
        if !key.translatable && *language != project.base_language && input.text.has_text() {
            return Err(StoreError::Invalid(format!(
                "Key {} is not translatable (`translatable: false`): it takes a text in the base language {} only, not in {}.",
                quoted(key.name.as_str()),
                quoted(project.base_language.as_str()),
                quoted(language.as_str())
            )));
        }
        let literal = input.literal && key.markup;
        let text = match (input.text, key.plural) {
            (TextInput::Content(content), false) => (!content.is_empty()).then_some(Text::Plain(content)),
            (TextInput::Forms(forms), true) if forms.is_empty() => None,
            (TextInput::Forms(forms), true) => Some(Text::Plural(PluralForms::new(forms).map_err(|err| {
                StoreError::Invalid(format!("The forms for language {}: {err}.", quoted(language.as_str())))
            })?)),
            (TextInput::Content(_), true) => {
                return Err(StoreError::Invalid(format!(
                    "Key {} is plural: give its translation in {} as `forms` ({}), not `content`.",
                    quoted(key.name.as_str()),
                    quoted(language.as_str()),
                    PluralCategory::NAMES
                )));
            }
            (TextInput::Forms(_), false) => {
                return Err(StoreError::Invalid(format!(
                    "Key {} is not plural: give its translation in {} as `content`, or set `plural: true`.",
                    quoted(key.name.as_str()),
                    quoted(language.as_str())
                )));
            }
        };
        let text = if literal {
            text.map(|text| text.map_strings(crate::domain::model::escape_markup))
        } else {
            text
        };
        let malformed = key.markup
            && text.as_ref().is_some_and(|text| {
                text.strings()
                    .any(|string| !crate::domain::model::is_markup_fragment(string))
            });
        if malformed {
            return Err(StoreError::Invalid(format!(
                "Key {} holds Android markup (`markup: true`), and its text in {} is not a well-formed fragment: close every tag, and write a literal `<` as `&lt;` and `&` as `&amp;`.",
                quoted(key.name.as_str()),
                quoted(language.as_str())
            )));
        }
        changes.push((language, text));
    }
    key.translations.apply(changes);
    Ok(())
}

/// The project's languages with the base language added, refusing two codes that differ only
/// by case or separator.
pub(super) fn checked_languages(
    base: &LanguageCode,
    languages: Vec<LanguageCode>,
) -> Result<Vec<LanguageCode>, StoreError> {
    let mut seen: BTreeMap<String, LanguageCode> = BTreeMap::new();
    let mut unique = Vec::new();
    for language in languages {
        match seen.get(&language.folded()) {
            Some(existing) if *existing == language => {}
            Some(existing) => {
                return Err(StoreError::Invalid(format!(
                    "The languages {} and {} differ only by case or separator; keep one of them.",
                    quoted(existing.as_str()),
                    quoted(language.as_str())
                )));
            }
            None => {
                seen.insert(language.folded(), language.clone());
                unique.push(language);
            }
        }
    }
    if let Some(existing) = seen.get(&base.folded())
        && existing != base
    {
        return Err(StoreError::Invalid(format!(
            "The base language {} and the language {} differ only by case or separator; spell them the same.",
            quoted(base.as_str()),
            quoted(existing.as_str())
        )));
    }
    Ok(normalize_languages(base, unique))
}

/// Refuses a new key whose file is already a hand-made file of another key. (A key in its
/// own layout file shares it with another name only if 64 bits of SHA-256 collide.)
pub(super) fn ensure_file_is_free(
    keys: &super::catalog::KeyIndex,
    file: &str,
    name: &KeyName,
) -> Result<(), StoreError> {
    match keys.file_owner(file) {
        Some(other) if other != name => Err(StoreError::Conflict(format!(
            "The key {} would be stored in the file of key {}; choose another name.",
            quoted(name.as_str()),
            quoted(other.as_str())
        ))),
        _ => Ok(()),
    }
}

pub(super) fn team_entry<'a>(
    catalog: &'a Catalog,
    name: &TeamName,
) -> Result<&'a super::catalog::TeamEntry, StoreError> {
    catalog.team(name).ok_or_else(|| team_not_found(name))
}

pub(super) fn project_entry<'a>(
    catalog: &'a Catalog,
    team: &TeamName,
    name: &ProjectName,
) -> Result<&'a ProjectEntry, StoreError> {
    team_entry(catalog, team)?;
    catalog.project(team, name).ok_or_else(|| project_not_found(team, name))
}

/// The writer loads a project's keys before planning a change that needs them
/// ([`Change::needs_keys_of`]); planning on an unloaded project would miss existing keys.
pub(super) fn loaded_keys(entry: &ProjectEntry) -> Result<&super::catalog::KeyIndex, StoreError> {
    entry.keys.as_ref().ok_or_else(|| {
        StoreError::internal(
            format!("the keys of project {} are not loaded", entry.project.name),
            "planning needs them",
        )
    })
}

pub fn team_not_found(name: &TeamName) -> StoreError {
    StoreError::NotFound(format!("There is no team named {}.", quoted(name.as_str())))
}

pub fn project_not_found(team: &TeamName, name: &ProjectName) -> StoreError {
    StoreError::NotFound(format!(
        "There is no project named {} in team {team}.",
        quoted(name.as_str())
    ))
}

pub fn key_not_found(team: &TeamName, project: &ProjectName, name: &KeyName) -> StoreError {
    StoreError::NotFound(format!(
        "There is no key named {} in {team}/{project}.",
        quoted(name.as_str())
    ))
}

fn project_exists(team: &TeamName, existing: &ProjectName) -> StoreError {
    StoreError::Conflict(format!(
        "A project named {} already exists in team {team}.",
        quoted(existing.as_str())
    ))
}

pub(super) fn quoted(name: &str) -> String {
    quote_for_message(name)
}

impl CatalogUpdate {
    /// Makes the catalog match HEAD after the plan's commit.
    pub fn apply_to(self, catalog: &mut Catalog) {
        match self {
            CatalogUpdate::PutTeam { old_name, team } => {
                let projects = old_name
                    .and_then(|old| catalog.teams.remove(&old))
                    .map(|entry| entry.projects)
                    .unwrap_or_default();
                catalog
                    .teams
                    .insert(team.name.clone(), super::catalog::TeamEntry { team, projects });
            }
            CatalogUpdate::RemoveTeam(name) => {
                catalog.teams.remove(&name);
            }
            CatalogUpdate::PutProject {
                team,
                old_name,
                project,
                rewritten_keys,
            } => {
                let Some(team_entry) = catalog.teams.get_mut(&team) else {
                    return;
                };
                let mut keys = old_name
                    .and_then(|old| team_entry.projects.remove(&old))
                    .and_then(|entry| entry.keys);
                if let Some(keys) = keys.as_mut() {
                    rewritten_keys.into_iter().for_each(|entry| keys.put(entry));
                }
                team_entry
                    .projects
                    .insert(project.name.clone(), ProjectEntry { project, keys });
            }
            CatalogUpdate::RemoveProject { team, name } => {
                if let Some(team_entry) = catalog.teams.get_mut(&team) {
                    team_entry.projects.remove(&name);
                }
            }
            CatalogUpdate::PutKey {
                team,
                project,
                old_name,
                entry,
            } => {
                if let Some(keys) = catalog
                    .project_mut(&team, &project)
                    .and_then(|project| project.keys.as_mut())
                {
                    if let Some(old_name) = old_name.filter(|old| *old != entry.key.name) {
                        keys.remove(&old_name);
                    }
                    keys.put(entry);
                }
            }
            CatalogUpdate::PutKeys {
                team,
                project,
                entries,
                settings,
            } => {
                if let Some(entry) = catalog.project_mut(&team, &project) {
                    if let Some(settings) = settings {
                        entry.project = settings;
                    }
                    if let Some(keys) = entry.keys.as_mut() {
                        keys.put_many(entries);
                    }
                }
            }
            CatalogUpdate::ReplaceProject {
                team,
                settings,
                entries,
            } => {
                if let Some(entry) = catalog.project_mut(&team, &settings.name) {
                    let (keys, _) = super::catalog::KeyIndex::from_entries(entries);
                    entry.keys = Some(keys);
                    entry.project = settings;
                }
            }
            CatalogUpdate::RemoveKey { team, project, name } => {
                if let Some(keys) = catalog
                    .project_mut(&team, &project)
                    .and_then(|project| project.keys.as_mut())
                {
                    keys.remove(&name);
                }
            }
        }
    }
}
