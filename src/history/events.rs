//! What a commit changed, as events (`key.updated` of `fr` and `de`, `project.renamed`, ...):
//! from the difference between the commit's tree and its first parent's, so that a change
//! made through the API, an upload, a pulled commit, a merge and a commit made by hand all
//! read the same. Webhooks deliver them.
//!
//! The trees are compared level by level (teams, a team's projects, a project's keys), each
//! only where the two sides' ids differ, so the cost follows what changed. A team or project
//! whose file disappeared in the same commit as exactly one other appeared (what a rename
//! through the API does) is taken as renamed, and its contents are compared across the two
//! folders, so a rename is one event and not every key deleted and created again. A deleted
//! team or project is one event; the keys it held are not listed.

use std::collections::BTreeSet;
use std::sync::Arc;

use git2::{Oid, Repository};

use crate::domain::model::Key;
use crate::domain::names::KeyName;
use crate::gitdb::follow::{Follower, PackLog};
use crate::gitdb::raw_commit::first_parent;
use crate::gitdb::raw_tree::{Objects, RawTree};
use crate::gitdb::tree_diff::{self, FileDiff};
use crate::store::{StoreError, layout};

/// The kinds of event, as receivers see them (`key.updated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    TeamCreated,
    TeamUpdated,
    TeamRenamed,
    TeamDeleted,
    ProjectCreated,
    ProjectUpdated,
    ProjectRenamed,
    ProjectDeleted,
    KeyCreated,
    KeyUpdated,
    KeyRenamed,
    KeyDeleted,
}

impl EventKind {
    pub const ALL: [EventKind; 12] = [
        EventKind::TeamCreated,
        EventKind::TeamUpdated,
        EventKind::TeamRenamed,
        EventKind::TeamDeleted,
        EventKind::ProjectCreated,
        EventKind::ProjectUpdated,
        EventKind::ProjectRenamed,
        EventKind::ProjectDeleted,
        EventKind::KeyCreated,
        EventKind::KeyUpdated,
        EventKind::KeyRenamed,
        EventKind::KeyDeleted,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EventKind::TeamCreated => "team.created",
            EventKind::TeamUpdated => "team.updated",
            EventKind::TeamRenamed => "team.renamed",
            EventKind::TeamDeleted => "team.deleted",
            EventKind::ProjectCreated => "project.created",
            EventKind::ProjectUpdated => "project.updated",
            EventKind::ProjectRenamed => "project.renamed",
            EventKind::ProjectDeleted => "project.deleted",
            EventKind::KeyCreated => "key.created",
            EventKind::KeyUpdated => "key.updated",
            EventKind::KeyRenamed => "key.renamed",
            EventKind::KeyDeleted => "key.deleted",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// One thing a commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// The team's name after the commit (before it, for `team.deleted`).
    pub team: String,
    /// For project and key events: the project's name after the commit.
    pub project: Option<String>,
    /// For key events: the key's name after the commit.
    pub key: Option<String>,
    /// For key events: the key's namespace after the commit (`""`: the default one).
    pub namespace: Option<String>,
    /// For renames: the name before.
    pub from: Option<String>,
    /// For renames: the namespace before.
    pub from_namespace: Option<String>,
    /// The languages whose text (or whose being current) changed; for a key created or
    /// deleted, those it has or had; for a project updated, the languages added or removed.
    pub languages: Vec<String>,
}

/// A commit with what it changed.
#[derive(Debug, Clone)]
pub struct CommitEvents {
    pub commit: Oid,
    /// The first parent (`None` for the first commit).
    pub parent: Option<Oid>,
    /// Seconds since the epoch (the committer's time).
    pub time: i64,
    pub author: String,
    pub subject: String,
    pub events: Vec<Event>,
}

/// The events of `commit` (of `repo`), against its first parent; trees and files are read
/// from `objects` (the repository itself, or a [`Follower`] that has the writer's newest in
/// memory).
pub fn commit_events(
    repo: &Repository,
    objects: &(impl Objects + ?Sized),
    commit: Oid,
) -> Result<CommitEvents, StoreError> {
    let fail = |err| StoreError::internal("cannot read what a commit changed", err);
    let found = repo.find_commit(commit).map_err(fail)?;
    let parent = found.parent(0).ok();
    let new = RawTree::read(objects, found.tree_id()).map_err(fail)?;
    let old = parent
        .as_ref()
        .map(|parent| RawTree::read(objects, parent.tree_id()))
        .transpose()
        .map_err(fail)?;
    let mut events = Vec::new();
    let teams = |tree: Option<&RawTree>| subtree(objects, tree, layout::TEAMS_DIR);
    let (old_teams, new_teams) = (teams(old.as_ref()).map_err(fail)?, teams(Some(&new)).map_err(fail)?);
    let folders = changed_folders(objects, old_teams.as_ref(), new_teams.as_ref(), layout::TEAM_FILE).map_err(fail)?;
    let kinds = [EventKind::TeamCreated, EventKind::TeamRenamed, EventKind::TeamDeleted];
    let event = |kind, name: &str, from: Option<&str>| Event::of(kind, name, None, from);
    folder_events(
        sort_out(folders),
        kinds,
        event,
        &mut events,
        &mut |name, before, after, events| team_contents(objects, name, before, after, events),
    )
    .map_err(fail)?;
    Ok(CommitEvents {
        commit,
        parent: parent.map(|parent| parent.id()),
        time: found.time().seconds(),
        author: found.author().name().unwrap_or_default().to_owned(),
        subject: found.summary().ok().flatten().unwrap_or_default().to_owned(),
        events,
    })
}

/// A team's or project's folder that changed, holding its file before or after.
enum FolderChange {
    Created(String, RawTree),
    Deleted(String),
    Renamed {
        from: String,
        name: String,
        before: RawTree,
        after: RawTree,
    },
    Changed(String, RawTree, RawTree),
}

/// Sorts changed folders out: created, deleted, changed, and the one deleted and one created
/// of a commit paired as a rename.
fn sort_out(folders: Vec<Folder>) -> Vec<FolderChange> {
    let mut created = Vec::new();
    let mut deleted = Vec::new();
    let mut changes = Vec::new();
    for (name, before, after) in folders {
        match (before, after) {
            (None, Some(after)) => created.push((name, after)),
            (Some(before), None) => deleted.push((name, before)),
            (Some(before), Some(after)) => changes.push(FolderChange::Changed(name, before, after)),
            (None, None) => {}
        }
    }
    if created.len() == 1 && deleted.len() == 1 {
        let ((name, after), (from, before)) = (created.remove(0), deleted.remove(0));
        changes.insert(
            0,
            FolderChange::Renamed {
                from,
                name,
                before,
                after,
            },
        );
    }
    let created = created
        .into_iter()
        .map(|(name, after)| FolderChange::Created(name, after));
    let deleted = deleted.into_iter().map(|(name, _)| FolderChange::Deleted(name));
    created.chain(deleted).chain(changes).collect()
}

/// Pushes each changed folder's event (none for one only changed), then, through `contents`,
/// those of its contents (none for one deleted). `kinds`: created, renamed, deleted.
fn folder_events(
    changes: Vec<FolderChange>,
    [created, renamed, deleted]: [EventKind; 3],
    event: impl Fn(EventKind, &str, Option<&str>) -> Event,
    events: &mut Vec<Event>,
    contents: &mut Contents<'_>,
) -> Result<(), git2::Error> {
    for change in changes {
        match change {
            FolderChange::Created(name, after) => {
                events.push(event(created, &name, None));
                contents(&name, None, Some(&after), events)?;
            }
            FolderChange::Deleted(name) => events.push(event(deleted, &name, None)),
            FolderChange::Renamed {
                from,
                name,
                before,
                after,
            } => {
                events.push(event(renamed, &name, Some(&from)));
                contents(&name, Some(&before), Some(&after), events)?;
            }
            FolderChange::Changed(name, before, after) => contents(&name, Some(&before), Some(&after), events)?,
        }
    }
    Ok(())
}

/// The events within a folder: its name, the folder before and after.
type Contents<'a> =
    dyn FnMut(&str, Option<&RawTree>, Option<&RawTree>, &mut Vec<Event>) -> Result<(), git2::Error> + 'a;

impl Event {
    /// A team's (`project` `None`) or a project's event.
    fn of(kind: EventKind, team: &str, project: Option<&str>, from: Option<&str>) -> Self {
        Self {
            kind,
            team: team.to_owned(),
            project: project.map(str::to_owned),
            key: None,
            namespace: None,
            from: from.map(str::to_owned),
            from_namespace: None,
            languages: Vec::new(),
        }
    }
}

/// The events within a team's folder: its file, its projects.
fn team_contents(
    objects: &(impl Objects + ?Sized),
    team: &str,
    before: Option<&RawTree>,
    after: Option<&RawTree>,
    events: &mut Vec<Event>,
) -> Result<(), git2::Error> {
    if let (Some(before), Some(after)) = (before, after)
        && file_id(before, layout::TEAM_FILE) != file_id(after, layout::TEAM_FILE)
    {
        events.push(Event::of(EventKind::TeamUpdated, team, None, None));
    }
    let projects = |tree| subtree(objects, tree, layout::PROJECTS_DIR);
    let (old, new) = (projects(before)?, projects(after)?);
    let changes = sort_out(changed_folders(
        objects,
        old.as_ref(),
        new.as_ref(),
        layout::PROJECT_FILE,
    )?);
    let kinds = [
        EventKind::ProjectCreated,
        EventKind::ProjectRenamed,
        EventKind::ProjectDeleted,
    ];
    let event = |kind, name: &str, from: Option<&str>| Event::of(kind, team, Some(name), from);
    folder_events(changes, kinds, event, events, &mut |name, before, after, events| {
        project_contents(objects, team, name, before, after, events)
    })
}

/// The events within a project's folder: its file, its keys.
fn project_contents(
    objects: &(impl Objects + ?Sized),
    team: &str,
    project: &str,
    before: Option<&RawTree>,
    after: Option<&RawTree>,
    events: &mut Vec<Event>,
) -> Result<(), git2::Error> {
    if let (Some(before), Some(after)) = (before, after)
        && file_id(before, layout::PROJECT_FILE) != file_id(after, layout::PROJECT_FILE)
    {
        let mut updated = Event::of(EventKind::ProjectUpdated, team, Some(project), None);
        updated.languages = changed_languages(objects, before, after);
        events.push(updated);
    }
    let keys = |tree| subtree(objects, tree, layout::KEYS_DIR);
    let (old, new) = (keys(before)?, keys(after)?);
    let files = tree_diff::diff_raw(objects, old.as_ref(), new.as_ref())?;
    for delta in key_changes(objects, &files) {
        let (kind, from) = match delta.change {
            KeyChange::Created => (EventKind::KeyCreated, None),
            KeyChange::Updated => (EventKind::KeyUpdated, None),
            KeyChange::Deleted => (EventKind::KeyDeleted, None),
            KeyChange::Renamed(from) => (EventKind::KeyRenamed, Some(from)),
        };
        events.push(Event {
            kind,
            team: team.to_owned(),
            project: Some(project.to_owned()),
            key: Some(delta.name.as_str().to_owned()),
            namespace: Some(delta.name.namespace().to_owned()),
            from: from.as_ref().map(|from| from.as_str().to_owned()),
            from_namespace: from.as_ref().map(|from| from.namespace().to_owned()),
            languages: delta.languages,
        });
    }
    Ok(())
}

/// The languages a project gained or lost between its two project files.
fn changed_languages(objects: &(impl Objects + ?Sized), before: &RawTree, after: &RawTree) -> Vec<String> {
    let languages = |tree: &RawTree| -> BTreeSet<String> {
        let Some(id) = file_id(tree, layout::PROJECT_FILE) else {
            return BTreeSet::new();
        };
        let Ok(data) = objects.read(id) else {
            return BTreeSet::new();
        };
        let table: toml::Table = std::str::from_utf8(&data)
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or_default();
        let list = table.get("languages").and_then(|value| value.as_array());
        list.into_iter()
            .flatten()
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect()
    };
    let (old, new) = (languages(before), languages(after));
    old.symmetric_difference(&new).cloned().collect()
}

fn file_id(tree: &RawTree, name: &str) -> Option<Oid> {
    tree.get(name).map(|entry| entry.id)
}

/// A sub-folder that differs: its name, and the folder before and after (`None`: absent,
/// or without the level's file).
type Folder = (String, Option<RawTree>, Option<RawTree>);

/// The sub-folders of `old` and `new` whose ids differ, in name order.
fn changed_folders(
    objects: &(impl Objects + ?Sized),
    old: Option<&RawTree>,
    new: Option<&RawTree>,
    file: &str,
) -> Result<Vec<Folder>, git2::Error> {
    let folders = |tree: Option<&RawTree>| -> Vec<(String, Oid)> {
        tree.map(|tree| {
            tree.iter()
                .filter(|entry| entry.is_folder())
                .filter_map(|entry| Some((entry.name_str()?.to_owned(), entry.id)))
                .collect()
        })
        .unwrap_or_default()
    };
    let (before, after) = (folders(old), folders(new));
    let names: BTreeSet<&String> = before.iter().chain(&after).map(|(name, _)| name).collect();
    let id_of = |list: &[(String, Oid)], name: &str| list.iter().find(|(other, _)| other == name).map(|(_, id)| *id);
    let mut changed = Vec::new();
    for name in names {
        let (a, b) = (id_of(&before, name), id_of(&after, name));
        if a == b {
            continue;
        }
        let tree = |id: Option<Oid>| -> Result<Option<RawTree>, git2::Error> {
            let tree = id.map(|id| RawTree::read(objects, id)).transpose()?;
            Ok(tree.filter(|tree| tree.get(file).is_some()))
        };
        changed.push((layout::slug_from_component(name).to_owned(), tree(a)?, tree(b)?));
    }
    Ok(changed)
}

/// The folder `path` of `tree`, if there is one.
fn subtree(
    objects: &(impl Objects + ?Sized),
    tree: Option<&RawTree>,
    path: &str,
) -> Result<Option<RawTree>, git2::Error> {
    match tree {
        Some(tree) => tree.folder_at(objects, path),
        None => Ok(None),
    }
}

/// How a key differs between two states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyChange {
    Created,
    Updated,
    Deleted,
    /// Renamed from the name given, which may be in another namespace (its texts may have
    /// changed too).
    Renamed(KeyName),
}

/// A key that differs, with the languages that differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDelta {
    pub name: KeyName,
    pub change: KeyChange,
    pub languages: Vec<String>,
}

/// The keys that differ between two key folders, from the files that differ (their blobs
/// before and after), sorted by name. A key deleted and another created with the same tags,
/// description and texts is taken as renamed; a name both deleted and created (a file moved
/// by hand) as updated.
pub fn key_changes(objects: &(impl Objects + ?Sized), files: &[FileDiff]) -> Vec<KeyDelta> {
    let read = |id: Oid| -> Option<Key> { crate::store::read_key(&objects.read(id).ok()?).ok() };
    let mut created = Vec::new();
    let mut deleted = Vec::new();
    let mut result = Vec::new();
    for file in files.iter().filter(|file| file.path.ends_with(".toml")) {
        match (file.old, file.new) {
            (None, Some(new)) => created.extend(read(new)),
            (Some(old), None) => deleted.extend(read(old)),
            (Some(old), Some(new)) => match (read(old), read(new)) {
                (Some(old), Some(new)) if old.name != new.name => {
                    deleted.push(old);
                    created.push(new);
                }
                (old, Some(new)) => result.push(delta(&new, KeyChange::Updated, old.as_ref())),
                (Some(old), None) => result.push(delta(&old, KeyChange::Deleted, None)),
                (None, None) => {}
            },
            (None, None) => {}
        }
    }
    let same_content = |a: &Key, b: &Key| {
        a.tags == b.tags && a.description == b.description && a.plural == b.plural && a.translations == b.translations
    };
    let mut unmatched_deleted = Vec::new();
    for old in deleted {
        if let Some(position) = created.iter().position(|new| new.name == old.name) {
            let new = created.remove(position);
            if new != old {
                result.push(delta(&new, KeyChange::Updated, Some(&old)));
            }
        } else {
            unmatched_deleted.push(old);
        }
    }
    for new in created {
        match unmatched_deleted.iter().position(|old| same_content(old, &new)) {
            Some(position) => {
                let old = unmatched_deleted.remove(position);
                result.push(delta(&new, KeyChange::Renamed(old.name.clone()), Some(&old)));
            }
            None => result.push(delta(&new, KeyChange::Created, None)),
        }
    }
    result.extend(unmatched_deleted.iter().map(|old| delta(old, KeyChange::Deleted, None)));
    result.sort_by(|a, b| a.name.cmp(&b.name));
    result
}

/// `key`'s delta: against `before` when there is one, else all its languages.
fn delta(key: &Key, change: KeyChange, before: Option<&Key>) -> KeyDelta {
    let languages = match before {
        None => key.translations.keys().map(ToString::to_string).collect(),
        Some(before) => {
            let codes: BTreeSet<_> = key.translations.keys().chain(before.translations.keys()).collect();
            codes
                .into_iter()
                .filter(|code| {
                    // As written: a text that went from one kind to the other changed its file.
                    key.translations.get_written(code) != before.translations.get_written(code)
                        || key.translations.base_of(code) != before.translations.base_of(code)
                })
                .map(ToString::to_string)
                .collect()
        }
    };
    KeyDelta {
        name: key.name.clone(),
        change,
        languages,
    }
}

/// The branch read commit by commit, for those who follow it (webhooks), on a repository
/// handle of its own (which they share) that finds the writer's new packs without rereading
/// the pack folder for every commit ([`Follower`]).
pub struct Feed {
    follower: Follower,
}

impl Feed {
    /// Opens the repository whose working tree is `root`; `log` is its writer's log of packs.
    pub fn open(root: &std::path::Path, log: Arc<PackLog>) -> Result<Self, StoreError> {
        Ok(Self {
            follower: Follower::open(root, log)?,
        })
    }

    /// The branch's newest commit (`None` before the first), read from the reference alone.
    pub fn head(&self) -> Option<Oid> {
        self.follower.repo().refname_to_id("HEAD").ok()
    }

    /// The commits of the branch's first-parent line after `cursor` up to `head`, oldest
    /// first (from where the line left `cursor` when it is no longer on the line); `None`
    /// when the repository does not hold `cursor`.
    pub fn after(&mut self, cursor: Oid, head: Oid) -> Result<Option<Vec<Oid>>, StoreError> {
        if !self.follower.find(cursor)? {
            return Ok(None);
        }
        self.follower.find(head)?;
        if let Some(line) = self.line_down_to(cursor, head) {
            return Ok(Some(line));
        }
        let repo = self.follower.repo();
        if repo.find_commit(cursor).is_err() {
            return Ok(None);
        }
        let fail = |err| StoreError::internal("cannot walk the branch", err);
        let mut walk = repo.revwalk().map_err(fail)?;
        walk.simplify_first_parent().map_err(fail)?;
        walk.push(head).map_err(fail)?;
        walk.hide(cursor).map_err(fail)?;
        let mut commits = walk.collect::<Result<Vec<Oid>, _>>().map_err(fail)?;
        commits.reverse();
        Ok(Some(commits))
    }

    /// The first-parent line from `head` down to `cursor` (left out), oldest first, from
    /// the commits' own bytes: the newest commits are held in memory (handed over by the
    /// writer), where a walk of the branch looked each up in the packs. `None` when the line
    /// does not pass `cursor`, or a commit on it cannot be read (the walk of the branch then
    /// has the last word, as it knows a shallow clone's boundary).
    fn line_down_to(&self, cursor: Oid, head: Oid) -> Option<Vec<Oid>> {
        let mut line = Vec::new();
        let mut at = head;
        while at != cursor {
            line.push(at);
            at = first_parent(&self.follower.read(at).ok()?).ok()??;
        }
        line.reverse();
        Some(line)
    }

    /// The refs under `prefix` (a folder of project branches) and their commits.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, Oid)>, StoreError> {
        let fail = |err| StoreError::internal("cannot list the project branches", err);
        let repo = self.follower.repo();
        let mut found = Vec::new();
        for reference in repo.references_glob(&format!("{prefix}*")).map_err(fail)? {
            let reference = reference.map_err(fail)?;
            if let (Ok(name), Some(target)) = (reference.name(), reference.target()) {
                found.push((name.to_owned(), target));
            }
        }
        Ok(found)
    }

    /// A project branch's commits after `known` up to `head`, oldest first, at most `most`
    /// (the newest): its first-parent line from `head` back to `known`, or else (a branch new
    /// to the reader, or one moved elsewhere) back to where that line meets the main line's
    /// first-parent line: the branch's own commits, also once a merge has brought them to the
    /// main line before the reader looked.
    pub fn branch_commits(&mut self, head: Oid, known: Option<Oid>, most: usize) -> Result<Vec<Oid>, StoreError> {
        self.follower.find(head)?;
        let main = self.head();
        let fail = |err| StoreError::internal("cannot walk a project branch", err);
        let repo = self.follower.repo();
        let from_known = known.is_some_and(|known| repo.graph_descendant_of(head, known).unwrap_or(false));
        let mut line = Vec::new();
        for id in first_parent_line(repo, head).map_err(fail)? {
            let id = id.map_err(fail)?;
            if Some(id) == known || line.len() == most {
                break;
            }
            line.push(id);
        }
        if !from_known && let Some(main) = main {
            let on_line: std::collections::HashMap<Oid, usize> =
                line.iter().enumerate().map(|(at, id)| (*id, at)).collect();
            let meets = first_parent_line(repo, main)
                .map_err(fail)?
                .take(MAIN_LINE_WALK)
                .find_map(|id| on_line.get(&id.ok()?).copied());
            // Lines that do not meet within the walk: the commits the main line lacks.
            let own = meets.unwrap_or_else(|| {
                line.iter()
                    .position(|&id| main == id || repo.graph_descendant_of(main, id).unwrap_or(false))
                    .unwrap_or(line.len())
            });
            line.truncate(own);
        }
        line.reverse();
        Ok(line)
    }

    pub fn events(&mut self, commit: Oid) -> Result<CommitEvents, StoreError> {
        self.follower.find(commit)?;
        commit_events(self.follower.repo(), &self.follower, commit)
    }
}

/// How far back the main line's first parent line is followed to find where a branch left it.
const MAIN_LINE_WALK: usize = 10_000;

/// The first-parent line from `from` back, newest first.
fn first_parent_line(repo: &Repository, from: Oid) -> Result<git2::Revwalk<'_>, git2::Error> {
    let mut walk = repo.revwalk()?;
    walk.simplify_first_parent()?;
    walk.push(from)?;
    Ok(walk)
}

#[cfg(test)]
mod tests;
