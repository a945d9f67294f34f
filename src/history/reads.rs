//! Reads of the past: a reference (`at=`) resolved to a commit, what changed between two
//! states, a key's commits and a project's. Each read runs on a blocking thread with a
//! repository handle of its own, so the writer's handle is never shared.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use git2::{Oid, Repository, Sort};

use super::events::{self, KeyChange};
use super::index::{HistoryIndex, Line};
use super::snapshots;
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::gitdb::tree_diff;
use crate::store::{KeysSince, StoreError, layout};

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

/// The keys that differ between the project at `since` and at `until`, sorted by name, from a
/// diff of the two commits' key folders (its cost follows the files that differ, not the
/// keys); renames as [`events::key_changes`] finds them.
pub fn changes(repo: &Repository, since: &Resolved, until: &Resolved) -> Result<Vec<(KeyName, KeyChange)>, StoreError> {
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
    let diff = tree_diff::diff(repo, old.as_ref(), new.as_ref()).map_err(fail)?;
    Ok(events::key_changes(repo, &diff)
        .into_iter()
        .map(|delta| (delta.name, delta.change))
        .collect())
}

/// For each of the kept files `paths` (under `folder`, a format's folder of the project's
/// kept folder) that `at` holds: what happened to the project's keys since the oldest commit
/// that gave the file the bytes it has at `at` (its upload; a restore or a later upload of the
/// same bytes gives them again). A file has none when the index does not know `at`, when that
/// commit made the project's folder (a rename, a copy by hand) or is a merge (what the file
/// was written against is not known then), or when the project's settings differ between
/// the two commits.
pub fn kept_since(
    repo: &Repository,
    index: &HistoryIndex,
    at: Oid,
    (team, project): (&TeamName, &ProjectName),
    folder: &str,
    paths: &[String],
) -> Result<HashMap<String, Arc<KeysSince>>, StoreError> {
    let fail = |err| StoreError::internal("cannot read what changed since a kept file", err);
    let mut found = HashMap::new();
    let Some(position) = index.position_of(at) else {
        return Ok(found);
    };
    let tree = repo.find_commit(at).and_then(|commit| commit.tree()).map_err(fail)?;
    let dir = format!("{}/{folder}", layout::kept_dir(team, project));
    let mut by_commit: HashMap<u32, Option<Arc<KeysSince>>> = HashMap::new();
    for path in paths {
        let full = format!("{dir}/{path}");
        let Ok(entry) = tree.get_path(Path::new(&full)) else {
            continue;
        };
        let first = index
            .file_commits(&full, position + 1)
            .into_iter()
            .rev()
            .find(|&earlier| {
                index
                    .change(earlier, &full)
                    .is_some_and(|change| change.new == Some(entry.id()))
            });
        let Some(first) = first else { continue };
        let since = match by_commit.get(&first) {
            Some(since) => since.clone(),
            None => {
                let since = keys_since(repo, index, first, &tree, (team, project))?.map(Arc::new);
                by_commit.insert(first, since.clone());
                since
            }
        };
        if let Some(since) = since {
            found.insert(path.clone(), since);
        }
    }
    Ok(found)
}

/// What happened to the project's keys between commit `position` and the commit whose tree
/// is `tree` (see [`kept_since`]).
fn keys_since(
    repo: &Repository,
    index: &HistoryIndex,
    position: u32,
    tree: &git2::Tree<'_>,
    (team, project): (&TeamName, &ProjectName),
) -> Result<Option<KeysSince>, StoreError> {
    let fail = |err| StoreError::internal("cannot read what changed since a kept file", err);
    let project_file = layout::project_file(team, project);
    if index
        .change(position, &project_file)
        .is_some_and(|change| change.old.is_none())
    {
        return Ok(None);
    }
    let commit = index.commit(position).id;
    let then = repo.find_commit(commit).map_err(fail)?;
    // A merge brings the file together with keys changed on the other side: the file was
    // kept against neither side's keys alone.
    if then.parent_count() > 1 {
        return Ok(None);
    }
    let then = then.tree().map_err(fail)?;
    let blob = |tree: &git2::Tree<'_>, path: &str| tree.get_path(Path::new(path)).ok().map(|entry| entry.id());
    if blob(&then, &project_file) != blob(tree, &project_file) {
        return Ok(None);
    }
    let keys_dir = layout::keys_dir(team, project);
    let keys_tree = |tree: &git2::Tree<'_>| -> Result<Option<git2::Tree<'_>>, StoreError> {
        match blob(tree, &keys_dir) {
            Some(id) => repo.find_tree(id).map(Some).map_err(fail),
            None => Ok(None),
        }
    };
    let (old, new) = (keys_tree(&then)?, keys_tree(tree)?);
    let diff = tree_diff::diff(repo, old.as_ref(), new.as_ref()).map_err(fail)?;
    let name = |blob: Option<Oid>| -> Result<Option<String>, ()> {
        let Some(blob) = blob else { return Ok(None) };
        let blob = repo.find_blob(blob).map_err(|_| ())?;
        crate::store::read_key(blob.content())
            .map(|key| Some(key.name.as_str().to_owned()))
            .map_err(|_| ())
    };
    let mut since = KeysSince {
        commit: commit.to_string(),
        changed: Default::default(),
        deleted: Default::default(),
    };
    let mut gone = Vec::new();
    for file in &diff {
        // A file that is not a key's (or not one any more) leaves the answer unknown.
        let (Ok(old), Ok(new)) = (name(file.old), name(file.new)) else {
            return Ok(None);
        };
        gone.extend(old);
        since.changed.extend(new);
    }
    since.deleted = gone.into_iter().filter(|name| !since.changed.contains(name)).collect();
    Ok(Some(since))
}

/// One commit of a key's history: where it is in the index, what it did, and the blob of
/// the key after it (`None` once deleted), read only for the page answered.
#[derive(Debug, Clone)]
pub struct KeyEvent {
    pub position: u32,
    pub change: KeyChange,
    pub blob: Option<Oid>,
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

fn read_key(repo: &Repository, blob: Option<Oid>) -> Option<crate::domain::model::Key> {
    let blob = repo.find_blob(blob?).ok()?;
    crate::store::read_key(blob.content()).ok()
}

fn same_content(a: &crate::domain::model::Key, b: &crate::domain::model::Key) -> bool {
    a.tags == b.tags && a.description == b.description && a.plural == b.plural && a.translations == b.translations
}

/// The commits that changed the key `name`, newest first, following renames back to the
/// key's earlier names: a commit that adds the key's file and deletes another key's file with
/// the same texts (or deletes only that one while adding only this one) renamed that key.
pub fn key_history(
    repo: &Repository,
    index: &dyn Line,
    team: &TeamName,
    project: &ProjectName,
    name: &KeyName,
) -> Vec<KeyEvent> {
    let keys_dir = format!("{}/", layout::keys_dir(team, project));
    let mut path = format!("{keys_dir}{}", layout::key_file(name));
    let mut upper = index.len() as u32;
    let mut events = Vec::new();
    'paths: loop {
        for position in index.file_commits(&path, upper) {
            let Some(change) = index.change(position, &path) else {
                continue;
            };
            let (files_added, files_deleted) = index.added_and_deleted(position);
            let others = |added: bool| -> Vec<(String, Option<Oid>)> {
                // Most commits add or delete no other file: no pass over their changes.
                if (added && files_added == 0) || (!added && files_deleted == 0) {
                    return Vec::new();
                }
                index
                    .changes_under(position, &keys_dir)
                    .into_iter()
                    .filter(|(other_path, _)| *other_path != path)
                    .filter(|(_, other)| {
                        if added {
                            other.old.is_none() && other.new.is_some()
                        } else {
                            other.new.is_none() && other.old.is_some()
                        }
                    })
                    .map(|(other_path, other)| (other_path.to_owned(), if added { other.new } else { other.old }))
                    .collect()
            };
            match (change.old, change.new) {
                (None, Some(_)) => {
                    // Created here, or renamed here from a key whose file this commit deleted.
                    let deleted = others(false);
                    let key = read_key(repo, change.new).filter(|_| !deleted.is_empty());
                    let from = key.as_ref().and_then(|key| {
                        let added_elsewhere = others(true);
                        let matching = deleted.iter().find(|(_, blob)| {
                            read_key(repo, *blob).is_some_and(|old| old.name != key.name && same_content(&old, key))
                        });
                        let only = (deleted.len() == 1 && added_elsewhere.is_empty()).then(|| &deleted[0]);
                        let (old_path, blob) = matching.or(only)?;
                        Some((old_path.clone(), read_key(repo, *blob)?.name))
                    });
                    match from {
                        Some((old_path, old_name)) => {
                            events.push(KeyEvent {
                                position,
                                change: KeyChange::Renamed(old_name),
                                blob: change.new,
                            });
                            // Older commits are the history of the old name.
                            path = old_path;
                            upper = position;
                            continue 'paths;
                        }
                        None => events.push(KeyEvent {
                            position,
                            change: KeyChange::Created,
                            blob: change.new,
                        }),
                    }
                }
                (Some(_), None) => {
                    // Deleted, or renamed away to a key this commit added.
                    let added = others(true);
                    let old = read_key(repo, change.old).filter(|_| !added.is_empty());
                    let to = old.as_ref().and_then(|old| {
                        let deleted_elsewhere = others(false);
                        let matching = added.iter().find(|(_, blob)| {
                            read_key(repo, *blob).is_some_and(|new| new.name != old.name && same_content(old, &new))
                        });
                        let only = (added.len() == 1 && deleted_elsewhere.is_empty()).then(|| &added[0]);
                        matching.or(only).map(|(_, blob)| *blob)
                    });
                    events.push(match to {
                        Some(blob) => KeyEvent {
                            position,
                            change: KeyChange::Renamed(name.clone()),
                            blob,
                        },
                        None => KeyEvent {
                            position,
                            change: KeyChange::Deleted,
                            blob: None,
                        },
                    });
                }
                _ => events.push(KeyEvent {
                    position,
                    change: KeyChange::Updated,
                    blob: change.new,
                }),
            }
        }
        break;
    }
    events
}

/// The key a history event left behind.
pub fn key_after(repo: &Repository, event: &KeyEvent) -> Option<crate::domain::model::Key> {
    read_key(repo, event.blob)
}

/// The positions of the commits that changed the project (its settings or keys), newest
/// first.
pub fn project_commits(index: &dyn Line, team: &TeamName, project: &ProjectName) -> Vec<u32> {
    index.project_commits(&layout::project_dir(team, project))
}

/// What commit `position` did to the project, with the number of key files it changed.
pub fn project_event(index: &dyn Line, team: &TeamName, project: &ProjectName, position: u32) -> ProjectEvent {
    let keys_dir = format!("{}/", layout::keys_dir(team, project));
    let commit = index.commit(position);
    ProjectEvent {
        commit: commit.id,
        time: commit.time,
        author: commit.author.clone(),
        subject: commit.subject.clone(),
        keys: index.changes_under(position, &keys_dir).len(),
    }
}
