//! The app's files kept beside a project's keys ([`layout::kept_dir`]), read from a commit's
//! tree: what an export patches instead of writing those files afresh.

use std::path::Path;

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

use super::error::StoreError;
use super::{ProjectAt, Store, layout};
use crate::domain::names::{ProjectName, TeamName};

/// A kept file: its path under its format's folder, and its bytes.
pub type KeptFile = (String, Vec<u8>);

/// A kept file as a commit holds it: its path under its format's folder, its blob's id (hex),
/// and its bytes unless the reader said it had that blob.
#[derive(Debug)]
pub struct KeptBlob {
    pub path: String,
    pub blob: String,
    pub bytes: Option<Vec<u8>>,
}

/// Which blobs (by hex id) a reader of kept files has already.
pub type Have = dyn Fn(&str) -> bool + Send + Sync;

/// What happened to a project's keys between the commit that first gave a kept file the bytes
/// it has and the commit exported: the keys whose files differ, by name. An export whose kept
/// file held every other key's entry as that commit's export wrote it need only patch these.
#[derive(Debug)]
pub struct KeysSince {
    /// That commit's id (hex): files of the same id were kept against the same keys.
    pub commit: String,
    /// Keys the exported commit has whose files differ from that commit's (changed, added or
    /// renamed to).
    pub changed: std::collections::HashSet<String>,
    /// Keys of that commit the exported commit has none of (deleted, or renamed from).
    pub deleted: std::collections::HashSet<String>,
}

/// Which kept files to read, by their path under their format's folder.
pub type Wanted = dyn Fn(&str) -> bool + Send + Sync;

impl Store {
    /// The files kept in `folder` (a format's) beside `team/project`'s keys that are
    /// `wanted`, as `commit` holds them (the one the keys were read at, so that both are of
    /// one state; the store's view when it is not a commit id), the blobs the reader `have`s
    /// not read. Blocking.
    pub fn kept_blobs(
        &self,
        commit: &str,
        team: &TeamName,
        project: &ProjectName,
        folder: &str,
        wanted: &Wanted,
        have: &Have,
    ) -> Result<Vec<KeptBlob>, StoreError> {
        let commit = match Oid::from_str(commit) {
            Ok(commit) => commit,
            Err(_) => match Oid::from_str(&self.read().head) {
                Ok(head) => head,
                Err(_) => return Ok(Vec::new()),
            },
        };
        let repo = open(self.root())?;
        read(&repo, commit, &layout::kept_dir(team, project), folder, wanted, have)
    }
}

impl ProjectAt {
    /// The files kept in `folder` (a format's; `""` for every format's) beside the project's
    /// keys at its commit that are `wanted`. Blocking.
    pub fn kept_files(&self, root: &Path, folder: &str, wanted: &Wanted) -> Result<Vec<KeptFile>, StoreError> {
        Ok(with_bytes(self.kept_blobs(root, folder, wanted, &|_| false)?))
    }

    /// [`ProjectAt::kept_files`], without reading the blobs the reader `have`s.
    pub fn kept_blobs(
        &self,
        root: &Path,
        folder: &str,
        wanted: &Wanted,
        have: &Have,
    ) -> Result<Vec<KeptBlob>, StoreError> {
        read(&open(root)?, self.commit, &self.kept_dir, folder, wanted, have)
    }
}

/// Kept files read whole, with their bytes.
fn with_bytes(blobs: Vec<KeptBlob>) -> Vec<KeptFile> {
    blobs
        .into_iter()
        .map(|blob| (blob.path, blob.bytes.unwrap_or_default()))
        .collect()
}

fn open(root: &Path) -> Result<Repository, StoreError> {
    Repository::open(root).map_err(|err| StoreError::internal("cannot open the repository to read kept files", err))
}

/// Every `wanted` file under `{kept_dir}/{folder}` at `commit`, by path relative to that
/// folder (only those are read, and of those the blobs the reader does not `have`).
fn read(
    repo: &Repository,
    commit: Oid,
    kept_dir: &str,
    folder: &str,
    wanted: &Wanted,
    have: &Have,
) -> Result<Vec<KeptBlob>, StoreError> {
    let fail = |err| StoreError::internal("cannot read kept files", err);
    let tree = repo
        .find_commit(commit)
        .and_then(|commit| commit.tree())
        .map_err(fail)?;
    let path = if folder.is_empty() {
        kept_dir.to_owned()
    } else {
        format!("{kept_dir}/{folder}")
    };
    let Ok(entry) = tree.get_path(Path::new(&path)) else {
        return Ok(Vec::new());
    };
    let Ok(folder_tree) = repo.find_tree(entry.id()) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    folder_tree
        .walk(TreeWalkMode::PreOrder, |parent, entry| {
            if let Ok(name) = entry.name()
                && entry.kind() == Some(ObjectType::Blob)
            {
                let path = format!("{parent}{name}");
                if wanted(&path) {
                    found.push((path, entry.id()));
                }
            }
            TreeWalkResult::Ok
        })
        .map_err(fail)?;
    let found: Vec<(String, Oid, bool)> = found
        .into_iter()
        .map(|(path, id)| {
            let had = have(&id.to_string());
            (path, id, had)
        })
        .collect();
    let ids: Vec<Oid> = found.iter().filter(|(_, _, had)| !had).map(|(_, id, _)| *id).collect();
    let mut blobs = crate::gitdb::blobs::read_all(repo.path(), &ids)
        .map_err(fail)?
        .into_iter();
    Ok(found
        .into_iter()
        .map(|(path, id, had)| KeptBlob {
            path,
            blob: id.to_string(),
            bytes: if had { None } else { blobs.next() },
        })
        .collect())
}
