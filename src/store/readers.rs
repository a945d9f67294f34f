//! The data repository as readers open it: one handle per thread, opened once and kept.
//!
//! Opening a repository reads its config files and finds its object database, about a tenth
//! of a millisecond, which a read of a branch (its head, then the state at that commit) paid
//! twice a request. A thread's handle is reused for every read it makes of the same folder;
//! refs and objects are read afresh each time (libgit2 re-reads a ref's file and rescans the
//! object database when an object is missing), so a kept handle sees every commit.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use git2::Repository;

use super::StoreError;

thread_local! {
    static KEPT: RefCell<Option<(PathBuf, Repository)>> = const { RefCell::new(None) };
}

/// Runs `read` with this thread's handle on the repository at `root`.
pub fn with_repository<T>(
    root: &Path,
    read: impl FnOnce(&Repository) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.as_ref().is_none_or(|(path, _)| path != root) {
            let repo = Repository::open(root).map_err(|err| StoreError::internal("cannot open the repository", err))?;
            *kept = Some((root.to_path_buf(), repo));
        }
        let (_, repo) = kept.as_ref().expect("opened above");
        read(repo)
    })
}
