//! The shared vocabulary of planning: the changes a client may ask for (as values), the
//! plan every planner makes of one (file edits, a commit subject, the catalog update), and
//! the lookups and checks every planner uses. No planner imports another; each uses this.

use std::collections::BTreeMap;

use crate::domain::key_files::{KeyFiles, Platform};
use crate::domain::model::{Check, Key, PluralCategory, Project, Syntax, Team, XcodeEntry, normalize_languages};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName, quote_for_message};
use crate::gitdb::TreeEdit;
use crate::store::catalog::{Catalog, KeyEntry, ProjectEntry};
use crate::store::error::StoreError;

mod translations;
pub(crate) use translations::merge_translations;

/// The app's own files an upload keeps beside a project's keys (in the layout the app wrote
/// them in), worked out from the project as the import leaves it. The store does not read
/// formats; the caller that does gives this.
#[derive(Clone)]
pub struct Beside(pub std::sync::Arc<BesideFn>);

/// What [`Beside`] holds: given the project's settings and every key after the import, by
/// name, the files to write or remove.
pub type BesideFn = dyn Fn(&Project, &[&Key]) -> BesideFiles + Send + Sync;

/// Files kept beside a project's keys: each a path under the project's kept folder
/// ([`crate::store::layout::kept_dir`]) with its contents, or `None` to remove what is there;
/// and, for the answer, the paths of the app's files among them.
#[derive(Debug, Default)]
pub struct BesideFiles {
    pub edits: Vec<(String, Option<bytes::Bytes>)>,
    pub kept: Vec<String>,
}

impl std::fmt::Debug for Beside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Beside(..)")
    }
}

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
        /// Base texts changed by the import leave the translations that were current current
        /// (typo fixes) rather than outdated.
        keep_current: bool,
        /// The app's files the import keeps beside the keys, if any.
        beside: Option<Beside>,
    },
    /// Translations marked as written against the key's base text as it is now (all of them
    /// when `languages` is empty), their texts unchanged.
    ConfirmKey {
        team: TeamName,
        project: ProjectName,
        name: KeyName,
        languages: Vec<LanguageCode>,
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
        /// The app's files the snapshot kept beside the keys, by path under the kept folder.
        kept: Vec<(String, Vec<u8>)>,
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
    pub placeholder_format: Option<Syntax>,
}

#[derive(Debug, Clone, Default)]
pub struct ProjectPatch {
    pub name: Option<ProjectName>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    pub base_language: Option<LanguageCode>,
    pub languages: Option<Vec<LanguageCode>>,
    pub placeholder_format: Option<Syntax>,
}

/// A translation as sent.
#[derive(Debug, Clone)]
pub struct TranslationInput {
    pub language: LanguageCode,
    pub text: TextInput,
    /// The text is literal even if the key holds markup texts (an uploaded string without
    /// tags): it is escaped when stored in a markup key.
    pub literal: bool,
    /// The text comes from a file whose format cannot express every CLDR category of the
    /// language (a PO file's `Plural-Forms` formula has no index for French `many`): the
    /// key's forms of categories the input does not give are kept, never deleted.
    pub keeps_unexpressed_forms: bool,
    /// The text comes from a file whose platform reads each language on its own (Rails YAML,
    /// i18next, ARB, String Catalogs, PO): a text of the other kind than the key's is held as
    /// written (a plain text of a plural key as its `other` form), not refused.
    pub kind_as_written: bool,
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
    pub max_length: Option<u32>,
    pub ignore_checks: Vec<Check>,
    /// The placeholder syntax; `None`: the project's `placeholderFormat`, if any.
    pub placeholders: Option<Syntax>,
    pub placeholder_names: Vec<String>,
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
    /// `Some(None)` removes the limit.
    pub max_length: Option<Option<u32>>,
    /// Replaces the key's list.
    pub ignore_checks: Option<Vec<Check>>,
    pub placeholders: Option<Syntax>,
    pub placeholder_names: Option<Vec<String>>,
    pub translations: Vec<TranslationInput>,
    /// A changed base text leaves the translations that were current current (a typo fix)
    /// rather than outdated.
    pub keep_current: bool,
}

impl Change {
    /// The project whose keys must be loaded before this change can be planned.
    pub fn needs_keys_of(&self) -> Option<(&TeamName, &ProjectName)> {
        match self {
            Change::UpdateProject { team, name, .. } => Some((team, name)),
            Change::CreateKey { team, project, .. }
            | Change::UpdateKey { team, project, .. }
            | Change::DeleteKey { team, project, .. }
            | Change::ConfirmKey { team, project, .. }
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
    /// The entry boxed: a key is far larger than the other updates.
    PutKey {
        team: TeamName,
        project: ProjectName,
        old_name: Option<KeyName>,
        entry: Box<KeyEntry>,
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

/// How an import treats keys that exist already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportMode {
    /// Every key must be new; an existing name fails the whole import.
    Create,
    /// New keys are created; existing keys are updated as by a key update.
    Upsert,
}

/// One key of an import: tags, description and the plural and markup flags replace the old
/// ones when given; translations are merged.
#[derive(Debug, Clone)]
pub struct ImportEntry {
    pub name: KeyName,
    pub tags: Option<Vec<String>>,
    pub description: Option<String>,
    pub plural: Option<bool>,
    pub markup: Option<bool>,
    pub translatable: Option<bool>,
    /// Per platform family, the key's file set (`Some`) or removed (`None`); others are kept.
    pub files: Vec<(Platform, Option<String>)>,
    /// `Some(None)` removes the limit.
    pub max_length: Option<Option<u32>>,
    /// Replaces the key's list.
    pub ignore_checks: Option<Vec<Check>>,
    /// Replaces the key's placeholder syntax; a new key without one takes the project's
    /// `placeholderFormat`.
    pub placeholders: Option<Syntax>,
    pub placeholder_names: Option<Vec<String>>,
    pub translations: Vec<TranslationInput>,
    /// Tags added to the key's own (a file upload's `tags`).
    pub add_tags: Vec<String>,
    /// Replaces what an Xcode String Catalog recorded of the key.
    pub xcode: Option<XcodeEntry>,
    /// Languages whose translation the file marks as outdated (Xcode's `needs_review`).
    pub outdated: Vec<LanguageCode>,
}

/// What an import did: keys, and texts per language.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportCounts {
    pub created: usize,
    pub updated: usize,
    pub unchanged: usize,
    /// By language (as the project spells it), the texts the import added, changed or removed.
    pub texts: BTreeMap<String, TextCounts>,
    /// The keys created or updated, sorted by name (whose checks the answer reports).
    pub written: Vec<KeyName>,
    /// The app's files the import keeps beside the keys (see [`Beside`]), by path under the
    /// project's kept folder, sorted.
    pub kept: Vec<String>,
}

/// Texts of one language that an import added, changed or removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextCounts {
    pub created: usize,
    pub updated: usize,
    pub removed: usize,
}

impl ImportCounts {
    /// Counts the texts that differ between a key before (none when it is new) and after.
    pub(crate) fn count_texts(&mut self, before: Option<&Key>, after: &Key) {
        for (language, text, _) in after.translations.iter_written() {
            let old = before.and_then(|key| key.translations.get_written(language).map(|(text, _)| text));
            let counts = self.texts.entry(language.to_string()).or_default();
            match old {
                None => counts.created += 1,
                Some(old) if old != text => counts.updated += 1,
                Some(_) => {}
            }
        }
        for (language, _) in before.iter().flat_map(|key| key.translations.iter()) {
            if after.translations.get(language).is_none() {
                self.texts.entry(language.to_string()).or_default().removed += 1;
            }
        }
    }
}

/// The project's languages with the base language added, refusing two codes that differ only
/// by case or separator.
pub(crate) fn checked_languages(
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
pub(crate) fn ensure_file_is_free(
    keys: &crate::store::catalog::KeyIndex,
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

pub(crate) fn team_entry<'a>(
    catalog: &'a Catalog,
    name: &TeamName,
) -> Result<&'a crate::store::catalog::TeamEntry, StoreError> {
    catalog.team(name).ok_or_else(|| team_not_found(name))
}

pub(crate) fn project_entry<'a>(
    catalog: &'a Catalog,
    team: &TeamName,
    name: &ProjectName,
) -> Result<&'a ProjectEntry, StoreError> {
    team_entry(catalog, team)?;
    catalog.project(team, name).ok_or_else(|| project_not_found(team, name))
}

/// The writer loads a project's keys before planning a change that needs them
/// ([`Change::needs_keys_of`]); planning on an unloaded project would miss existing keys.
pub(crate) fn loaded_keys(entry: &ProjectEntry) -> Result<&crate::store::catalog::KeyIndex, StoreError> {
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

pub(crate) fn project_exists(team: &TeamName, existing: &ProjectName) -> StoreError {
    StoreError::Conflict(format!(
        "A project named {} already exists in team {team}.",
        quoted(existing.as_str())
    ))
}

/// Checks in check order, each once.
pub(crate) fn sorted_checks(mut checks: Vec<Check>) -> Vec<Check> {
    checks.sort();
    checks.dedup();
    checks
}

pub(crate) fn quoted(name: &str) -> String {
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
                    .insert(team.name.clone(), crate::store::catalog::TeamEntry { team, projects });
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
                team_entry.projects.insert(
                    project.name.clone(),
                    ProjectEntry {
                        project,
                        keys,
                        quality: Default::default(),
                    },
                );
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
                    keys.put(*entry);
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
                    let (keys, _) = crate::store::catalog::KeyIndex::from_entries(entries);
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
