//! An index of the branch's first-parent history: for every commit, the files it changed
//! (with their blob ids before and after), and for every file and project folder, the commits
//! that changed it. Key history and project activity read it instead of walking the commits
//! per request.
//!
//! It lives in memory, is built from the repository on the first history read, and is caught
//! up with the commits made since (by this server, by hand, or pulled in) at the start of every
//! read: the walk back from HEAD stops at the newest commit it has. When that commit is no
//! longer on the branch (history was rewritten), it is rebuilt.

use std::collections::HashMap;

use git2::{Delta, Oid, Repository};

use super::error::StoreError;

/// One commit of the first-parent line.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub id: Oid,
    pub time: i64,
    pub author: String,
    pub subject: String,
}

/// A file a commit changed: its blob before and after (`None`: absent).
#[derive(Debug, Clone, Copy)]
pub struct FileChange {
    pub path: u32,
    pub old: Option<Oid>,
    pub new: Option<Oid>,
}

#[derive(Default)]
pub struct HistoryIndex {
    /// Oldest first.
    commits: Vec<CommitInfo>,
    /// Per commit (same positions), the files it changed.
    changes: Vec<Vec<FileChange>>,
    paths: Vec<String>,
    path_ids: HashMap<String, u32>,
    /// File → positions of the commits that changed it, ascending.
    by_path: HashMap<u32, Vec<u32>>,
    /// Project folder (`teams/{team}/projects/{project}`) → positions, ascending.
    by_project: HashMap<String, Vec<u32>>,
}

impl HistoryIndex {
    /// Brings the index up to the branch's HEAD.
    pub fn catch_up(&mut self, repo: &Repository) -> Result<(), StoreError> {
        let fail = |err| StoreError::internal("cannot index the history", err);
        let tip = self.commits.last().map(|commit| commit.id);
        let mut walk = repo.revwalk().map_err(fail)?;
        walk.push_head().map_err(fail)?;
        walk.simplify_first_parent().map_err(fail)?;
        let mut new = Vec::new();
        let mut reached_tip = tip.is_none();
        for id in walk {
            let id = id.map_err(fail)?;
            if Some(id) == tip {
                reached_tip = true;
                break;
            }
            new.push(id);
        }
        if !reached_tip {
            tracing::info!("the branch no longer holds the indexed history; indexing it again");
            *self = Self::default();
            return self.catch_up(repo);
        }
        for id in new.into_iter().rev() {
            self.add(repo, id)?;
        }
        Ok(())
    }

    fn add(&mut self, repo: &Repository, id: Oid) -> Result<(), StoreError> {
        let fail = |err| StoreError::internal("cannot index a commit", err);
        let commit = repo.find_commit(id).map_err(fail)?;
        let tree = commit.tree().map_err(fail)?;
        let parent_tree = commit.parent(0).ok().and_then(|parent| parent.tree().ok());
        let diff = repo
            .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
            .map_err(fail)?;
        let position = self.commits.len() as u32;
        let mut changes = Vec::new();
        for delta in diff.deltas() {
            let blob = |file: git2::DiffFile<'_>, present: bool| (present && !file.id().is_zero()).then(|| file.id());
            let (old, new) = match delta.status() {
                Delta::Added => (None, blob(delta.new_file(), true)),
                Delta::Deleted => (blob(delta.old_file(), true), None),
                _ => (blob(delta.old_file(), true), blob(delta.new_file(), true)),
            };
            let Some(path) = delta
                .new_file()
                .path()
                .or_else(|| delta.old_file().path())
                .and_then(|path| path.to_str())
            else {
                continue;
            };
            let path_id = self.path_id(path);
            self.by_path.entry(path_id).or_default().push(position);
            if let Some(project) = project_folder(path) {
                let positions = self.by_project.entry(project.to_owned()).or_default();
                if positions.last() != Some(&position) {
                    positions.push(position);
                }
            }
            changes.push(FileChange {
                path: path_id,
                old,
                new,
            });
        }
        self.commits.push(CommitInfo {
            id,
            time: commit.time().seconds(),
            author: commit.author().name().unwrap_or_default().to_owned(),
            subject: commit.summary().ok().flatten().unwrap_or_default().to_owned(),
        });
        self.changes.push(changes);
        Ok(())
    }

    fn path_id(&mut self, path: &str) -> u32 {
        if let Some(id) = self.path_ids.get(path) {
            return *id;
        }
        let id = self.paths.len() as u32;
        self.paths.push(path.to_owned());
        self.path_ids.insert(path.to_owned(), id);
        id
    }

    pub fn commit(&self, position: u32) -> &CommitInfo {
        &self.commits[position as usize]
    }

    pub fn path(&self, id: u32) -> &str {
        &self.paths[id as usize]
    }

    /// The commits that changed a project folder, newest first.
    pub fn project_commits(&self, project_dir: &str) -> Vec<u32> {
        let mut positions = self.by_project.get(project_dir).cloned().unwrap_or_default();
        positions.reverse();
        positions
    }

    /// The positions of the commits that changed `path`, before `upper`, newest first.
    pub fn file_commits(&self, path: &str, upper: u32) -> Vec<u32> {
        let Some(id) = self.path_ids.get(path) else {
            return Vec::new();
        };
        self.by_path
            .get(id)
            .map(|positions| {
                positions
                    .iter()
                    .rev()
                    .copied()
                    .filter(|position| *position < upper)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What commit `position` did to `path`.
    pub fn change(&self, position: u32, path: &str) -> Option<FileChange> {
        let id = *self.path_ids.get(path)?;
        self.changes[position as usize]
            .iter()
            .copied()
            .find(|change| change.path == id)
    }

    /// The files commit `position` changed under `prefix` (a folder, ending in `/`).
    pub fn changes_under(&self, position: u32, prefix: &str) -> impl Iterator<Item = FileChange> + '_ {
        let prefix = prefix.to_owned();
        self.changes[position as usize]
            .iter()
            .copied()
            .filter(move |change| self.paths[change.path as usize].starts_with(&prefix))
    }

    pub fn len(&self) -> usize {
        self.commits.len()
    }
}

/// `teams/{team}/projects/{project}` of a path under a project's folder.
fn project_folder(path: &str) -> Option<&str> {
    let mut slashes = path.match_indices('/').map(|(index, _)| index);
    let _team = slashes.next()?;
    let _projects = slashes.next()?;
    let _project = slashes.next()?;
    let end = slashes.next().unwrap_or(path.len());
    let folder = &path[..end];
    let mut parts = folder.split('/');
    (parts.next() == Some("teams") && parts.nth(1) == Some("projects")).then_some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_project_folder() {
        assert_eq!(
            project_folder("teams/acme/projects/mobile/keys/a/b/c/k.toml"),
            Some("teams/acme/projects/mobile")
        );
        assert_eq!(
            project_folder("teams/acme/projects/mobile/project.toml"),
            Some("teams/acme/projects/mobile")
        );
        assert_eq!(project_folder("teams/acme/team.toml"), None);
        assert_eq!(project_folder("README.md"), None);
    }
}
