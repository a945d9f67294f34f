//! Loads the catalog from HEAD: teams and projects at start, a project's keys on first use.
//!
//! It reads HEAD's tree rather than walking the working tree: after start-up recovery the two
//! hold the same files, and reading blobs from git's packs stays fast with a cold page cache,
//! where opening 100,000 small files does not. Files that do not parse are skipped with a
//! warning, so that one bad hand edit does not take the whole service down.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{Oid, Repository};
use rustc_hash::FxHashSet;
use sha2::{Digest, Sha256};

use super::catalog::{Catalog, KeyEntry, KeyIndex, ProjectEntry, TeamEntry};
use super::error::StoreError;
use super::files::{self, FileError};
use super::layout;
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::gitdb::GitRepo;
use crate::gitdb::cli as git_cli;
use crate::gitdb::tree_diff;

/// Reads every team and project (not their keys) from HEAD.
pub fn load_catalog(git: &GitRepo) -> Result<Catalog, StoreError> {
    let mut catalog = Catalog {
        head: git.head().to_string(),
        ..Catalog::default()
    };
    for component in git.subfolders(layout::TEAMS_DIR)? {
        let Ok(name) = TeamName::parse(layout::slug_from_component(&component)) else {
            tracing::warn!(folder = %component, "skipping a team folder whose name is not a valid team name");
            continue;
        };
        let Some(bytes) = git.read_file(&layout::team_file(&name))? else {
            tracing::warn!(folder = %component, "skipping a team folder without {}", layout::TEAM_FILE);
            continue;
        };
        let team = match files::read_team(name.clone(), &bytes) {
            Ok(team) => team,
            Err(err) => {
                tracing::warn!(team = %name, error = %err, "skipping a team whose file does not parse");
                continue;
            }
        };
        let projects = load_projects(git, &name)?;
        catalog.teams.insert(name, TeamEntry { team, projects });
    }
    Ok(catalog)
}

fn load_projects(git: &GitRepo, team: &TeamName) -> Result<BTreeMap<ProjectName, ProjectEntry>, StoreError> {
    let mut projects = BTreeMap::new();
    for component in git.subfolders(&layout::projects_dir(team))? {
        let Ok(name) = ProjectName::parse(layout::slug_from_component(&component)) else {
            tracing::warn!(%team, folder = %component, "skipping a project folder whose name is not a valid project name");
            continue;
        };
        let Some(bytes) = git.read_file(&layout::project_file(team, &name))? else {
            tracing::warn!(%team, folder = %component, "skipping a project folder without {}", layout::PROJECT_FILE);
            continue;
        };
        match files::read_project(name.clone(), &bytes) {
            Ok(project) => {
                projects.insert(
                    name,
                    ProjectEntry {
                        project,
                        keys: None,
                        quality: Default::default(),
                    },
                );
            }
            Err(err) => {
                tracing::warn!(%team, project = %name, error = %err, "skipping a project whose file does not parse")
            }
        }
    }
    Ok(projects)
}

/// A project's keys as loaded, and how.
pub struct LoadedKeys {
    pub index: KeyIndex,
    /// The project's keys tree at HEAD (`None`: the project has no keys folder).
    pub tree: Option<Oid>,
    /// The keys tree of the saved index it started from, if any.
    pub saved_tree: Option<Oid>,
    /// How many key files were parsed: all of them, or those changed since the saved index.
    pub parsed: usize,
}

/// Reads a project's keys at HEAD: from its saved index ([`KeyIndex::save`]) with the key
/// files changed since applied on top, or, when there is none or it does not check out,
/// from every key file.
pub fn load_keys(git: &GitRepo, team: &TeamName, project: &ProjectName) -> Result<LoadedKeys, StoreError> {
    let keys_dir = layout::keys_dir(team, project);
    let tree = git.subtree_id(&keys_dir)?;
    if let Some(tree) = tree {
        let path = saved_keys_path(git.git_dir(), team, project);
        match from_saved(git.repository(), &path, tree) {
            Ok(Some(loaded)) => return Ok(loaded),
            Ok(None) => {}
            Err(why) => {
                tracing::warn!(%team, %project, file = %path.display(), %why, "reading every key file instead of the saved keys")
            }
        }
    }
    let files = git.files_under(&keys_dir)?;
    let parsed = files.len();
    let (index, duplicates) = index_key_files(
        git.repository(),
        files,
        |file, err| tracing::warn!(file = %format!("{keys_dir}/{file}"), error = %err, "skipping a key file that does not parse"),
    )?;
    for duplicate in duplicates {
        tracing::warn!(
            file = %format!("{keys_dir}/{}", duplicate.file()),
            key = %duplicate.key.name,
            "skipping a second file for the same key name"
        );
    }
    Ok(LoadedKeys {
        index,
        tree,
        saved_tree: None,
        parsed,
    })
}

/// Where a project's saved index is kept: under `.git/locstore/keys/`, named by a hash of the
/// team and project names.
pub fn saved_keys_path(git_dir: &Path, team: &TeamName, project: &ProjectName) -> PathBuf {
    let digest = Sha256::digest(format!("{team}/{project}").as_bytes());
    let name = hex::encode(&digest[..16]);
    saved_keys_dir(git_dir).join(name)
}

pub fn saved_keys_dir(git_dir: &Path) -> PathBuf {
    git_dir.join("locstore").join("keys")
}

/// The saved index brought to the keys tree `tree`: `Ok(None)` when there is none, or when so
/// much changed that reading every file is as quick.
fn from_saved(repo: &Repository, path: &Path, tree: Oid) -> Result<Option<LoadedKeys>, String> {
    let (saved_tree, mut index) = match KeyIndex::load_saved(path) {
        Ok(saved) => saved,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("the saved keys do not read back: {err}")),
    };
    let mut parsed = 0;
    if saved_tree != tree {
        let find = |id| {
            repo.find_tree(id)
                .map_err(|err| format!("cannot read the keys tree {id}: {err}"))
        };
        let (old, new) = (find(saved_tree)?, find(tree)?);
        let diff = tree_diff::diff(repo, Some(&old), Some(&new))
            .map_err(|err| format!("cannot compare the keys trees: {err}"))?;
        if diff.len() > index.len() / 2 {
            return Ok(None);
        }
        parsed = apply_key_diff(repo, &mut index, &diff)?;
    }
    Ok(Some(LoadedKeys {
        index,
        tree: Some(tree),
        saved_tree: Some(saved_tree),
        parsed,
    }))
}

/// Brings an index from one keys tree to another, given the files that differ between them
/// (paths relative to the keys folder): entries of changed or deleted files go, the changed
/// and new files are parsed and put. The list of entries is rewritten once, not once per
/// file. Returns how many key files it read; an `Err` (a file that does not parse, two files
/// of one name) says to read every file instead.
pub fn apply_key_diff(repo: &Repository, index: &mut KeyIndex, diff: &[tree_diff::FileDiff]) -> Result<usize, String> {
    let changed: Vec<&tree_diff::FileDiff> = diff.iter().filter(|file| file.path.ends_with(".toml")).collect();
    if changed.is_empty() {
        return Ok(0);
    }
    let new_files: Vec<(&str, Oid)> = changed
        .iter()
        .filter_map(|file| Some((file.path.as_str(), file.new?)))
        .collect();
    let mut added = read_key_blobs(repo, &new_files)?;
    // The entries of the changed files go: found by the key each old file held when few
    // changed, else by the file of every entry (a hash of its name), which costs less than
    // parsing thousands of old files.
    let changed_files: FxHashSet<&str> = changed.iter().map(|file| file.path.as_str()).collect();
    if changed.len() <= 64 {
        let held: FxHashSet<KeyName> = changed
            .iter()
            .filter_map(|file| repo.find_blob(file.old?).ok())
            .filter_map(|blob| files::read_key(blob.content()).ok())
            .map(|key| key.name)
            .collect();
        index.remove_where(|entry| held.contains(&entry.key.name) && changed_files.contains(entry.file().as_str()));
    } else {
        index.remove_where(|entry| changed_files.contains(entry.file().as_str()));
    }
    added.sort_by(|a, b| a.key.name.cmp(&b.key.name));
    if let Some((kept, new)) = index.first_clash(&added) {
        return Err(format!(
            "{}: the key {:?} also has the file {}",
            new.file(),
            new.key.name.as_str(),
            kept.file()
        ));
    }
    if let Some(duplicate) = index.put_many(added).first() {
        return Err(format!(
            "two changed files hold the key {:?}",
            duplicate.key.name.as_str()
        ));
    }
    Ok(changed.len())
}

/// Reads and parses key files (path under `keys/`, blob id), on two threads when there are
/// many (the second with its own handle on the repository, as libgit2's are not shared).
fn read_key_blobs(repo: &Repository, files: &[(&str, Oid)]) -> Result<Vec<KeyEntry>, String> {
    const TWO_THREADS_FROM: usize = 1024;
    let read = |repo: &Repository, files: &[(&str, Oid)]| -> Result<Vec<KeyEntry>, String> {
        files
            .iter()
            .map(|&(path, id)| {
                let blob = repo
                    .find_blob(id)
                    .map_err(|err| format!("{path}: cannot read: {err}"))?;
                let key = files::read_key(blob.content()).map_err(|err| format!("{path}: {err}"))?;
                Ok(KeyEntry::new(key, path.to_owned()))
            })
            .collect()
    };
    if files.len() < TWO_THREADS_FROM {
        return read(repo, files);
    }
    let (first, second) = files.split_at(files.len() / 2);
    let git_dir = repo.path().to_owned();
    std::thread::scope(|scope| {
        let other = scope.spawn(move || {
            let repo = Repository::open(&git_dir).map_err(|err| format!("cannot open the repository: {err}"))?;
            read(&repo, second)
        });
        let mut entries = read(repo, first)?;
        let rest = other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        entries.extend(rest);
        Ok(entries)
    })
}

/// Reads, parses and indexes key files (path under `keys/`, blob id; other files than
/// `.toml` are passed over), in three stages that run at once: many files are read by
/// `git cat-file --batch` ([`git_cli::cat_blobs`], its own process), parsed on this thread,
/// and indexed on another ([`KeyIndexBuilder`]). At 100,000 keys this takes a first load
/// from one core to two. A file that does not parse goes to `skipped` and is left out.
pub fn index_key_files(
    repo: &Repository,
    files: Vec<(String, Oid)>,
    skipped: impl Fn(&str, &FileError),
) -> Result<(KeyIndex, Vec<Arc<KeyEntry>>), StoreError> {
    const THROUGH_GIT_FROM: usize = 4096;
    const BATCH: usize = 256;
    let files: Vec<(String, Oid)> = files.into_iter().filter(|(path, _)| path.ends_with(".toml")).collect();
    std::thread::scope(|scope| {
        let (sender, batches) = std::sync::mpsc::sync_channel::<Vec<KeyEntry>>(32);
        let builder = std::thread::Builder::new()
            .name("locstore-index".into())
            .spawn_scoped(scope, move || {
                let mut builder = KeyIndex::builder();
                for batch in batches {
                    batch.into_iter().for_each(|entry| builder.push(entry));
                }
                builder.finish()
            })
            .map_err(|err| StoreError::internal("cannot start a thread to index keys", err))?;
        let mut batch = Vec::with_capacity(BATCH);
        let mut parse = |path: &str, bytes: &[u8]| {
            match files::read_key(bytes) {
                Ok(key) => batch.push(KeyEntry::new(key, path.to_owned())),
                Err(err) => skipped(path, &err),
            }
            if batch.len() == BATCH {
                // The builder only stops early by panicking, which join reports.
                let _ = sender.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
            }
        };
        // Files before `next` are read; git answers in the order asked.
        let mut next = 0;
        if files.len() >= THROUGH_GIT_FROM {
            let ids: Vec<Oid> = files.iter().map(|(_, id)| *id).collect();
            let read = git_cli::cat_blobs(repo.path(), &ids, |position, bytes| {
                parse(&files[position].0, bytes);
                next = position + 1;
            });
            if let Err(err) = read {
                tracing::warn!(error = %err, "cannot read key files with git cat-file; reading the rest in process");
            }
        }
        let mut failure = None;
        for (path, id) in &files[next..] {
            match repo.find_blob(*id) {
                Ok(blob) => parse(path, blob.content()),
                Err(err) => {
                    failure = Some(StoreError::internal("cannot read a key file", err));
                    break;
                }
            }
        }
        if !batch.is_empty() {
            let _ = sender.send(batch);
        }
        drop(sender);
        let built = builder.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match failure {
            Some(err) => Err(err),
            None => Ok(built),
        }
    })
}
