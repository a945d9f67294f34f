//! Reads of the past: a reference (`at=`) resolved to a commit, and a project's keys as that
//! commit holds them. Each read opens a repository handle of its own on a blocking thread, so
//! the writer's handle is never shared and the catalog's lock is never taken.

use git2::{ObjectType, Oid, Repository, Sort, TreeWalkMode, TreeWalkResult};

use super::catalog::{KeyEntry, KeyIndex};
use super::error::StoreError;
use super::files;
use super::layout;
use super::snapshots;
use crate::domain::model::Project;
use crate::domain::names::{ProjectName, TeamName};

/// The fewest hex digits an abbreviated commit id may have.
const MIN_ABBREVIATION: usize = 7;

/// What a reference names: a commit, and the team and project names to read there (a
/// snapshot taken before a rename keeps the names of then).
pub struct Resolved {
    pub commit: Oid,
    pub team: TeamName,
    pub project: ProjectName,
}

/// The commit `reference` names, tried as the contract orders it: a snapshot of the project
/// (an annotated tag `locstore/{team}/{project}/{name}`), a commit id (full, or at least 7
/// hex digits), an RFC 3339 time (the last commit of the branch at or before it). A reference
/// that can be none of these is `Invalid`; one that could but names nothing is `NotFound`.
pub fn resolve(
    repo: &Repository,
    team: &TeamName,
    project: &ProjectName,
    reference: &str,
) -> Result<Resolved, StoreError> {
    if let Some(found) = snapshots::find(repo, team, project, reference)? {
        return Ok(Resolved {
            commit: found.commit,
            team: found.team,
            project: found.project,
        });
    }
    let commit = resolve_commit(repo, reference)?;
    Ok(Resolved {
        commit,
        team: team.clone(),
        project: project.clone(),
    })
}

fn resolve_commit(repo: &Repository, reference: &str) -> Result<Oid, StoreError> {
    let not_found = || {
        StoreError::NotFound(format!(
            "No commit, snapshot or time {reference:?} in this repository's history."
        ))
    };
    let is_hex = reference.len() >= MIN_ABBREVIATION
        && reference.len() <= 40
        && reference.bytes().all(|byte| byte.is_ascii_hexdigit());
    if is_hex {
        return match repo
            .revparse_single(reference)
            .and_then(|object| object.peel_to_commit())
        {
            Ok(commit) => Ok(commit.id()),
            Err(err) if err.code() == git2::ErrorCode::Ambiguous => Err(StoreError::Invalid(format!(
                "The abbreviated commit id {reference:?} names more than one object; give more digits."
            ))),
            Err(_) => Err(not_found()),
        };
    }
    if let Ok(time) = reference.parse::<jiff::Timestamp>() {
        return last_commit_at_or_before(repo, time.as_second()).and_then(|commit| commit.ok_or_else(not_found));
    }
    if ProjectName::parse(reference).is_ok() {
        return Err(not_found());
    }
    Err(StoreError::Invalid(format!(
        "{reference:?} is not a commit id (7 to 40 hex digits), a snapshot name or an RFC 3339 time (2026-11-01T12:00:00Z)."
    )))
}

/// The newest commit on the branch's first-parent line whose commit time is at or before
/// `seconds` (Unix time); `None` when the history starts after it.
fn last_commit_at_or_before(repo: &Repository, seconds: i64) -> Result<Option<Oid>, StoreError> {
    let fail = |err| StoreError::internal("cannot walk the history", err);
    let mut walk = repo.revwalk().map_err(fail)?;
    walk.push_head().map_err(fail)?;
    walk.simplify_first_parent().map_err(fail)?;
    walk.set_sorting(Sort::NONE).map_err(fail)?;
    for id in walk {
        let id = id.map_err(fail)?;
        let commit = repo.find_commit(id).map_err(fail)?;
        if commit.time().seconds() <= seconds {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// The project's settings and keys as `commit` holds them. A project that did not exist
/// under this name then is `NotFound`.
pub fn project_at(
    repo: &Repository,
    commit: Oid,
    team: &TeamName,
    project: &ProjectName,
) -> Result<(Project, KeyIndex), StoreError> {
    let fail = |err| StoreError::internal("cannot read a past commit", err);
    let tree = repo
        .find_commit(commit)
        .and_then(|commit| commit.tree())
        .map_err(fail)?;
    let missing = || StoreError::NotFound(format!("Project {team}/{project} did not exist at commit {commit}."));
    let project_file = layout::project_file(team, project);
    let entry = tree
        .get_path(std::path::Path::new(&project_file))
        .map_err(|_| missing())?;
    let blob = repo.find_blob(entry.id()).map_err(|_| missing())?;
    let settings = files::read_project(project.clone(), blob.content())
        .map_err(|err| StoreError::internal("cannot read a past project file", err))?;
    let mut entries = Vec::new();
    let keys_dir = layout::keys_dir(team, project);
    if let Ok(entry) = tree.get_path(std::path::Path::new(&keys_dir)) {
        let keys_tree = repo.find_tree(entry.id()).map_err(fail)?;
        let mut failure = None;
        keys_tree
            .walk(TreeWalkMode::PreOrder, |parent, entry| {
                let Ok(name) = entry.name() else {
                    return TreeWalkResult::Ok;
                };
                if entry.kind() != Some(ObjectType::Blob) || !name.ends_with(".toml") {
                    return TreeWalkResult::Ok;
                }
                match repo.find_blob(entry.id()) {
                    Ok(blob) => match files::read_key(blob.content()) {
                        Ok(key) => entries.push(KeyEntry::new(key, format!("{parent}{name}"))),
                        Err(err) => {
                            tracing::warn!(%commit, error = %err, "skipping a past key file that does not parse")
                        }
                    },
                    Err(err) => {
                        failure = Some(err);
                        return TreeWalkResult::Abort;
                    }
                }
                TreeWalkResult::Ok
            })
            .map_err(fail)?;
        if let Some(err) = failure {
            return Err(fail(err));
        }
    }
    let (index, _) = KeyIndex::from_entries(entries);
    Ok((settings, index))
}

/// How a key differs between two states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyChange {
    Created,
    Updated,
    Deleted,
    /// Renamed from the name given (its texts may have changed too).
    Renamed(String),
}

/// The keys that differ between the project at `since` and at `until`, sorted by name, from a
/// diff of the two commits' key folders (its cost follows the files that differ, not the
/// keys). A key deleted and another created with the same tags, description and texts in
/// between is taken as renamed.
pub fn changes(repo: &Repository, since: &Resolved, until: &Resolved) -> Result<Vec<(String, KeyChange)>, StoreError> {
    let fail = |err| StoreError::internal("cannot compare two commits", err);
    let keys_tree = |resolved: &Resolved| -> Result<Option<git2::Tree<'_>>, StoreError> {
        let tree = repo
            .find_commit(resolved.commit)
            .and_then(|commit| commit.tree())
            .map_err(fail)?;
        let dir = layout::keys_dir(&resolved.team, &resolved.project);
        match tree.get_path(std::path::Path::new(&dir)) {
            Ok(entry) => repo.find_tree(entry.id()).map(Some).map_err(fail),
            Err(_) => Ok(None),
        }
    };
    let (old, new) = (keys_tree(since)?, keys_tree(until)?);
    let diff = repo.diff_tree_to_tree(old.as_ref(), new.as_ref(), None).map_err(fail)?;
    let read = |id: Oid| -> Option<crate::domain::model::Key> {
        let blob = repo.find_blob(id).ok()?;
        files::read_key(blob.content()).ok()
    };
    let mut created = Vec::new();
    let mut deleted = Vec::new();
    let mut changed = Vec::new();
    for delta in diff.deltas() {
        let is_key = |file: &git2::DiffFile<'_>| {
            file.path()
                .and_then(|path| path.to_str())
                .is_some_and(|path| path.ends_with(".toml"))
        };
        match delta.status() {
            git2::Delta::Added if is_key(&delta.new_file()) => created.extend(read(delta.new_file().id())),
            git2::Delta::Deleted if is_key(&delta.old_file()) => deleted.extend(read(delta.old_file().id())),
            git2::Delta::Modified if is_key(&delta.new_file()) => {
                match (read(delta.old_file().id()), read(delta.new_file().id())) {
                    (Some(old), Some(new)) if old.name != new.name => {
                        deleted.push(old);
                        created.push(new);
                    }
                    (_, Some(new)) => changed.push((new.name.to_string(), KeyChange::Updated)),
                    (Some(old), None) => changed.push((old.name.to_string(), KeyChange::Deleted)),
                    (None, None) => {}
                }
            }
            _ => {}
        }
    }
    // A name both deleted and created (a file moved by hand) is an update.
    let mut result = changed;
    let same_content = |a: &crate::domain::model::Key, b: &crate::domain::model::Key| {
        a.tags == b.tags && a.description == b.description && a.plural == b.plural && a.translations == b.translations
    };
    let mut unmatched_deleted = Vec::new();
    for old in deleted {
        if let Some(position) = created.iter().position(|new| new.name == old.name) {
            let new = created.remove(position);
            if new != old {
                result.push((new.name.to_string(), KeyChange::Updated));
            }
        } else {
            unmatched_deleted.push(old);
        }
    }
    for new in created {
        match unmatched_deleted.iter().position(|old| same_content(old, &new)) {
            Some(position) => {
                let old = unmatched_deleted.remove(position);
                result.push((new.name.to_string(), KeyChange::Renamed(old.name.to_string())));
            }
            None => result.push((new.name.to_string(), KeyChange::Created)),
        }
    }
    result.extend(
        unmatched_deleted
            .into_iter()
            .map(|old| (old.name.to_string(), KeyChange::Deleted)),
    );
    result.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(result)
}

/// One commit of a key's history.
#[derive(Debug, Clone)]
pub struct KeyEvent {
    pub commit: Oid,
    /// Unix seconds.
    pub time: i64,
    pub author: String,
    pub subject: String,
    pub change: KeyChange,
    /// The key after the commit; `None` once deleted.
    pub key: Option<crate::domain::model::Key>,
}

/// One commit of a project's activity.
#[derive(Debug, Clone)]
pub struct ProjectEvent {
    pub commit: Oid,
    pub time: i64,
    pub author: String,
    pub subject: String,
    /// Key files the commit changed in the project.
    pub keys: usize,
}

fn blob_at(tree: Option<&git2::Tree<'_>>, path: &str) -> Option<Oid> {
    let entry = tree?.get_path(std::path::Path::new(path)).ok()?;
    (entry.kind() == Some(ObjectType::Blob)).then(|| entry.id())
}

fn subtree_at(tree: Option<&git2::Tree<'_>>, path: &str) -> Option<Oid> {
    let entry = tree?.get_path(std::path::Path::new(path)).ok()?;
    (entry.kind() == Some(ObjectType::Tree)).then(|| entry.id())
}

/// The branch's first-parent commits, newest first, each with its tree and its parent's.
fn first_parent_line(repo: &Repository) -> Result<Vec<git2::Commit<'_>>, StoreError> {
    let fail = |err| StoreError::internal("cannot walk the history", err);
    let mut walk = repo.revwalk().map_err(fail)?;
    walk.push_head().map_err(fail)?;
    walk.simplify_first_parent().map_err(fail)?;
    walk.map(|id| id.and_then(|id| repo.find_commit(id)).map_err(fail))
        .collect()
}

fn signature_name(commit: &git2::Commit<'_>) -> String {
    commit.author().name().unwrap_or_default().to_owned()
}

/// The key files a commit added and deleted in a keys folder, parsed.
fn key_files_changed(
    repo: &Repository,
    old: Option<&git2::Tree<'_>>,
    new: Option<&git2::Tree<'_>>,
    keys_dir: &str,
) -> (Vec<crate::domain::model::Key>, Vec<crate::domain::model::Key>) {
    let (Some(old_keys), Some(new_keys)) = (
        subtree_at(old, keys_dir).and_then(|id| repo.find_tree(id).ok()),
        subtree_at(new, keys_dir).and_then(|id| repo.find_tree(id).ok()),
    ) else {
        return (Vec::new(), Vec::new());
    };
    let Ok(diff) = repo.diff_tree_to_tree(Some(&old_keys), Some(&new_keys), None) else {
        return (Vec::new(), Vec::new());
    };
    let read = |id: Oid| {
        repo.find_blob(id)
            .ok()
            .and_then(|blob| files::read_key(blob.content()).ok())
    };
    let (mut added, mut deleted) = (Vec::new(), Vec::new());
    for delta in diff.deltas() {
        match delta.status() {
            git2::Delta::Added => added.extend(read(delta.new_file().id())),
            git2::Delta::Deleted => deleted.extend(read(delta.old_file().id())),
            _ => {}
        }
    }
    (added, deleted)
}

fn same_content(a: &crate::domain::model::Key, b: &crate::domain::model::Key) -> bool {
    a.tags == b.tags && a.description == b.description && a.plural == b.plural && a.translations == b.translations
}

/// The commits that changed the key `name`, newest first, following renames back to the
/// key's earlier names. Empty when no key of that name ever existed.
pub fn key_history(
    repo: &Repository,
    team: &TeamName,
    project: &ProjectName,
    name: &crate::domain::names::KeyName,
) -> Result<Vec<KeyEvent>, StoreError> {
    let keys_dir = layout::keys_dir(team, project);
    let mut path = format!("{keys_dir}/{}", layout::key_file(name));
    let mut events = Vec::new();
    let commits = first_parent_line(repo)?;
    for commit in &commits {
        let tree = commit.tree().ok();
        let parent_tree = commit.parent(0).ok().and_then(|parent| parent.tree().ok());
        let (now, before) = (blob_at(tree.as_ref(), &path), blob_at(parent_tree.as_ref(), &path));
        if now == before {
            continue;
        }
        let read = |id: Oid| {
            repo.find_blob(id)
                .ok()
                .and_then(|blob| files::read_key(blob.content()).ok())
        };
        let key = now.and_then(read);
        let change = match (before, &key) {
            (None, Some(key)) => {
                // Created, or renamed here from a key whose file this commit deleted.
                let (added, deleted) = key_files_changed(repo, parent_tree.as_ref(), tree.as_ref(), &keys_dir);
                // The key that left: one with the same texts, or the only one, when this
                // commit added only this key (a rename that also changed texts).
                let renamed_from = deleted
                    .iter()
                    .find(|old| old.name != key.name && same_content(old, key))
                    .or_else(|| (added.len() == 1 && deleted.len() == 1).then(|| &deleted[0]));
                match renamed_from {
                    Some(old) => {
                        // Older commits are the history of the old name.
                        path = format!("{keys_dir}/{}", layout::key_file(&old.name));
                        KeyChange::Renamed(old.name.to_string())
                    }
                    None => KeyChange::Created,
                }
            }
            (Some(_), Some(_)) => KeyChange::Updated,
            (_, None) => {
                // Deleted, or renamed away to a key this commit added.
                let old = before.and_then(read);
                let (added, deleted) = key_files_changed(repo, parent_tree.as_ref(), tree.as_ref(), &keys_dir);
                let only_one = added.len() == 1 && deleted.len() == 1;
                let renamed_to = old.and_then(|old| {
                    let position = added
                        .iter()
                        .position(|new| new.name != old.name && same_content(&old, new))
                        .or(only_one.then_some(0))?;
                    Some(added[position].clone())
                });
                match renamed_to {
                    Some(renamed) => {
                        events.push(KeyEvent {
                            commit: commit.id(),
                            time: commit.time().seconds(),
                            author: signature_name(commit),
                            subject: commit.summary().ok().flatten().unwrap_or_default().to_owned(),
                            change: KeyChange::Renamed(name.to_string()),
                            key: Some(renamed),
                        });
                        continue;
                    }
                    None => KeyChange::Deleted,
                }
            }
        };
        events.push(KeyEvent {
            commit: commit.id(),
            time: commit.time().seconds(),
            author: signature_name(commit),
            subject: commit.summary().ok().flatten().unwrap_or_default().to_owned(),
            change,
            key,
        });
    }
    Ok(events)
}

/// The commits that changed the project (its settings or keys), newest first. Finding them
/// compares one tree id per commit; counting the keys each changed takes a diff, so it is left
/// to [`count_changed_keys`] for the commits a page shows.
pub fn project_activity(
    repo: &Repository,
    team: &TeamName,
    project: &ProjectName,
) -> Result<Vec<ProjectEvent>, StoreError> {
    let project_dir = layout::project_dir(team, project);
    let mut events = Vec::new();
    for commit in first_parent_line(repo)? {
        let tree = commit.tree().ok();
        let parent_tree = commit.parent(0).ok().and_then(|parent| parent.tree().ok());
        if subtree_at(tree.as_ref(), &project_dir) == subtree_at(parent_tree.as_ref(), &project_dir) {
            continue;
        }
        events.push(ProjectEvent {
            commit: commit.id(),
            time: commit.time().seconds(),
            author: signature_name(&commit),
            subject: commit.summary().ok().flatten().unwrap_or_default().to_owned(),
            keys: 0,
        });
    }
    Ok(events)
}

/// How many key files of the project `commit` changed (compared with its first parent).
pub fn count_changed_keys(repo: &Repository, team: &TeamName, project: &ProjectName, commit: Oid) -> usize {
    let keys_dir = layout::keys_dir(team, project);
    let Ok(commit) = repo.find_commit(commit) else {
        return 0;
    };
    let tree = commit.tree().ok();
    let parent_tree = commit.parent(0).ok().and_then(|parent| parent.tree().ok());
    let old_keys = subtree_at(parent_tree.as_ref(), &keys_dir).and_then(|id| repo.find_tree(id).ok());
    let new_keys = subtree_at(tree.as_ref(), &keys_dir).and_then(|id| repo.find_tree(id).ok());
    repo.diff_tree_to_tree(old_keys.as_ref(), new_keys.as_ref(), None)
        .map(|diff| diff.deltas().count())
        .unwrap_or(0)
}
