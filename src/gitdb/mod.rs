//! The git engine: a repository with a working tree kept as one writer thread needs it, and
//! nothing that knows what the files mean. It opens and initialises the repository, stages
//! objects and commits them (in memory, then as a pack a batch, written by hand), keeps the index
//! and the working tree in step with HEAD, diffs trees, runs git's own command where it is
//! faster, maintains the object database, and holds the lock that keeps a second process off.
//!
//! It imports nothing from `domain` or `store`: paths are paths and files are bytes. The store
//! (teams, projects and keys as TOML files) is built on top of it.

pub mod blobs;
pub mod cli;
mod delta;
mod edit;
pub mod follow;
mod fresh;
mod index;
mod join;
pub mod lock;
pub mod maintenance;
mod objects;
mod pack_writer;
pub mod raw_commit;
pub mod raw_tree;
pub mod repo;
mod runs;
mod settings;
mod tree_cache;
pub mod tree_diff;
pub mod worktree;

use std::path::PathBuf;
use std::sync::Arc;

pub use edit::TreeEdit;
pub use repo::{BULK_WRITES, COMMITTER, GitRepo, SyncScope, ref_writes, refs_written};

/// What can go wrong in the git engine. The store turns it into its own error: a
/// `Conflict` (another process holds the repository, a branch moved under a snapshot)
/// keeps its message for the user; `Internal` is for the log.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GitError {
    #[error("{0}")]
    Conflict(String),
    #[error("{context}")]
    Internal {
        context: String,
        #[source]
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
}

impl GitError {
    pub fn internal(context: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal {
            context: context.into(),
            source: Arc::from(source.into()),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        Self::internal(format!("file system operation on {} failed", path.display()), source)
    }
}

/// A libgit2 failure as an internal error with what was being done.
fn git_error(context: impl Into<String>, err: git2::Error) -> GitError {
    GitError::internal(context, err)
}

/// Runs the `git` CLI in `dir` as a test's hand would (a fixed author, no signing); its
/// output. Panics when git fails.
#[cfg(test)]
pub(crate) fn run_git(dir: &std::path::Path, args: &[&str]) -> String {
    String::from_utf8(run_git_bytes(dir, args)).unwrap()
}

/// [`run_git`] for output that need not be text (a blob's content).
#[cfg(test)]
pub(crate) fn run_git_bytes(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let output = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// In a test's repository at `dir`: a commit of one new file, packed on its own as the writer
/// publishes; its id.
#[cfg(test)]
pub(crate) fn packed_commit(dir: &std::path::Path, name: &str) -> git2::Oid {
    std::fs::write(dir.join(name), name).unwrap();
    run_git(dir, &["add", name]);
    run_git(dir, &["commit", "-q", "-m", name]);
    // A pack of what is loose, the loose copies then removed: as a pack the writer adds.
    run_git(dir, &["repack", "-q", "-d"]);
    git2::Oid::from_str(run_git(dir, &["rev-parse", "HEAD"]).trim()).unwrap()
}

#[cfg(test)]
mod tests {
    /// The engine's invariant, checked on its source: no `gitdb` file imports from the
    /// store, the domain or the API, or names a team, project or key type. (The names are
    /// put together here so that this file does not hold them.)
    #[test]
    fn the_engine_knows_nothing_of_the_store_or_the_domain() {
        let forbidden: Vec<String> = ["store", "domain", "api"]
            .iter()
            .map(|module| format!("crate::{module}"))
            .chain(["Key", "Team", "Project"].iter().map(|name| format!("{name}Name")))
            .collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gitdb");
        let mut files = Vec::new();
        let mut folders = vec![dir];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        assert!(files.len() >= 10, "the engine's files are found: {files:?}");
        for path in files {
            let source = std::fs::read_to_string(&path).unwrap();
            for name in &forbidden {
                let used = source
                    .lines()
                    .filter(|line| !line.trim_start().starts_with("//"))
                    .any(|line| line.contains(name.as_str()));
                assert!(!used, "{} uses {name}", path.display());
            }
        }
    }
}
