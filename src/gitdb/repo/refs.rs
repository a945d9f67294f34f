//! Refs beside the branch the writer serves: other branches of the repository and lightweight
//! tags, read, made, moved and removed by name (full ref names, `refs/heads/...`). Commits on
//! them are built like the branch's (objects staged in memory) and published as one pack
//! before their ref moves, so a crash never leaves a ref naming a commit that is not on disk.

use std::sync::atomic::{AtomicU64, Ordering};

use git2::{ErrorCode, ObjectType, Oid, Signature};

use super::{COMMITTER, COMMITTER_EMAIL, GitRepo, build_commit};
use crate::gitdb::edit::TreeEdit;
use crate::gitdb::{GitError, git_error};

/// How many times refs other than the served branch's have been written, by any repository
/// of the process (counted before and after each write): a reader that remembers a ref's
/// target with the count it read before reading the ref knows the target is still the ref's
/// while the count is the same (see `store::branches::Store::branch_head`).
static REF_WRITES: AtomicU64 = AtomicU64::new(0);

/// The count of ref writes so far (see [`REF_WRITES`]).
pub fn ref_writes() -> u64 {
    REF_WRITES.load(Ordering::SeqCst)
}

/// Counts a write of refs; called before and after it.
pub fn refs_written() {
    REF_WRITES.fetch_add(1, Ordering::SeqCst);
}

/// Runs a write of refs between two counts.
fn counted<T>(write: impl FnOnce() -> T) -> T {
    refs_written();
    let done = write();
    refs_written();
    done
}

impl GitRepo {
    /// The commit the ref `name` points to, if it exists.
    pub fn ref_target(&self, name: &str) -> Result<Option<Oid>, GitError> {
        match self.repo.refname_to_id(name) {
            Ok(id) => Ok(Some(id)),
            Err(err) if err.code() == ErrorCode::NotFound => Ok(None),
            Err(err) => Err(git_error(format!("cannot read {name}"), err)),
        }
    }

    /// Every ref whose name starts with `prefix` (which ends with `/`), with its commit,
    /// sorted by name.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, Oid)>, GitError> {
        let references = self
            .repo
            .references_glob(&format!("{prefix}*"))
            .map_err(|err| git_error("cannot list refs", err))?;
        let mut found: Vec<(String, Oid)> = references
            .filter_map(Result::ok)
            .filter_map(|reference| Some((reference.name().ok()?.to_owned(), reference.target()?)))
            .collect();
        found.sort();
        Ok(found)
    }

    /// Makes the ref `name` point to `target`; a `Conflict` when it exists (or a ref above or
    /// below it in the folders of refs does).
    pub fn create_ref(&self, name: &str, target: Oid, message: &str) -> Result<(), GitError> {
        counted(|| self.repo.reference(name, target, false, message))
            .map(drop)
            .map_err(|err| match err.code() {
                ErrorCode::Exists => GitError::Conflict(format!("The ref {name} exists already.")),
                _ if self.clashes(name) => {
                    GitError::Conflict(format!("The ref {name} clashes with an existing ref in its folder."))
                }
                _ => git_error(format!("cannot create {name}"), err),
            })
    }

    /// Whether a ref exists at a folder of `name` or below it (git cannot hold both).
    fn clashes(&self, name: &str) -> bool {
        let mut parent = name;
        while let Some((up, _)) = parent.rsplit_once('/') {
            if self.repo.find_reference(up).is_ok() {
                return true;
            }
            parent = up;
        }
        self.repo
            .references_glob(&format!("{name}/*"))
            .map(|mut found| found.next().is_some())
            .unwrap_or(false)
    }

    /// Removes the ref `name`; `false` when there was none.
    pub fn delete_ref(&self, name: &str) -> Result<bool, GitError> {
        match self.repo.find_reference(name) {
            Ok(mut reference) => counted(|| reference.delete())
                .map(|()| true)
                .map_err(|err| git_error(format!("cannot delete {name}"), err)),
            Err(_) => Ok(false),
        }
    }

    /// Builds the commit for `edits` on top of `parent` (any commit, not the tip), its
    /// objects staged in memory; `None` when the edits change nothing.
    pub fn build_commit_on(
        &self,
        parent: Oid,
        edits: &[TreeEdit],
        subject: &str,
        author: &str,
    ) -> Result<Option<Oid>, GitError> {
        build_commit(&self.staging, parent, edits, subject, author)
    }

    /// Builds a merge commit whose first parent is `first` and second `second`, with the tree
    /// of `first` and `edits` applied, its objects staged in memory.
    pub fn build_merge_of(
        &self,
        first: Oid,
        second: Oid,
        edits: &[TreeEdit],
        subject: &str,
        author: &str,
    ) -> Result<Oid, GitError> {
        let repo = self.staging.repo();
        let read = |id: Oid| {
            repo.find_commit(id)
                .map_err(|err| git_error("cannot read a commit to merge", err))
        };
        let (ours, theirs) = (read(first)?, read(second)?);
        let tree = self.staging.edit_tree(ours.tree_id(), edits)?;
        let tree = repo
            .find_tree(tree)
            .map_err(|err| git_error("cannot read the merged tree", err))?;
        let author =
            Signature::now(author, &format!("{author}@locstore")).map_err(|err| git_error("invalid author", err))?;
        let committer =
            Signature::now(COMMITTER, COMMITTER_EMAIL).map_err(|err| git_error("invalid committer", err))?;
        let commit = repo
            .commit_create_buffer(&author, &committer, subject, &tree, &[&ours, &theirs])
            .map_err(|err| git_error("cannot write the merge commit", err))?;
        self.staging.write(ObjectType::Commit, &commit)
    }

    /// Writes what is staged as one pack, then moves the ref `name` from `old` to `new` (a
    /// commit built by [`Self::build_commit_on`] or [`Self::build_merge_of`]). Call it with
    /// nothing of the branch staged: the branch's own commits are published by
    /// [`Self::publish`].
    pub fn publish_ref(&mut self, name: &str, old: Oid, new: Oid, message: &str) -> Result<(), GitError> {
        self.write_pack()?;
        counted(|| self.repo.reference_matching(name, new, true, old, message))
            .map(drop)
            .map_err(|err| git_error(format!("cannot move {name}"), err))
    }
}
