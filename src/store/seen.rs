//! The commit a request saw, for its answer's `X-Locstore-Commit`: the one a change made, or
//! the HEAD a read saw. The HTTP layer opens a scope per request ([`scope`]); the store records
//! the commit while it holds the catalog's lock, so it is the one the answer came from.
//! Outside a scope (tests of the store, the CLI) recording does nothing.

use std::cell::RefCell;
use std::future::Future;

tokio::task_local! {
    static SEEN: RefCell<Record>;
}

/// The commit a request saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Seen {
    /// Nothing recorded.
    #[default]
    Nothing,
    /// A read saw this HEAD (or, for a read of the past, this commit).
    Read(String),
    /// A change was applied: the commit it made, or `None` when it changed nothing. A change
    /// wins over the reads made while planning it.
    Wrote(Option<String>),
}

/// Everything recorded for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub commit: Seen,
}

impl Record {
    /// The commit to name in `X-Locstore-Commit`, if any.
    pub fn commit(&self) -> Option<&str> {
        match &self.commit {
            Seen::Read(commit) | Seen::Wrote(Some(commit)) => Some(commit),
            _ => None,
        }
    }
}

/// Runs `future` with a fresh record; answers what it recorded.
pub async fn scope<F: Future>(future: F) -> (F::Output, Record) {
    SEEN.scope(RefCell::new(Record::default()), async move {
        let output = future.await;
        let record = SEEN.with(|seen| seen.borrow().clone());
        (output, record)
    })
    .await
}

/// The commit recorded so far in this request's scope.
pub fn current_commit() -> Option<String> {
    SEEN.try_with(|seen| seen.borrow().commit().map(str::to_owned))
        .ok()
        .flatten()
}

/// Records that a read saw `head`, unless a change was recorded already.
pub fn read(head: &str) {
    let _ = SEEN.try_with(|seen| {
        let mut seen = seen.borrow_mut();
        if !matches!(seen.commit, Seen::Wrote(_)) {
            seen.commit = Seen::Read(head.to_owned());
        }
    });
}

/// Records the outcome of a change.
pub(super) fn wrote(commit: Option<&str>) {
    let _ = SEEN.try_with(|seen| seen.borrow_mut().commit = Seen::Wrote(commit.map(str::to_owned)));
}
