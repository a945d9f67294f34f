//! The commit a request saw, for the `X-Locstore-Commit` header: the commit a change made, or
//! the HEAD a read saw. The HTTP layer opens a scope per request ([`scope`]); the store records
//! into it while it holds the catalog's lock, so the commit is the one the answer came from.
//! Outside a scope (tests of the store, the CLI) recording does nothing.

use std::cell::RefCell;
use std::future::Future;

tokio::task_local! {
    static SEEN: RefCell<Seen>;
}

/// What a request saw so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Seen {
    /// Nothing recorded.
    #[default]
    Nothing,
    /// A read saw this HEAD.
    Read(String),
    /// A change was applied: the commit it made, or `None` when it changed nothing. A change
    /// wins over the reads made while planning it.
    Wrote(Option<String>),
}

/// Runs `future` with a fresh record; answers what it recorded.
pub async fn scope<F: Future>(future: F) -> (F::Output, Seen) {
    SEEN.scope(RefCell::new(Seen::Nothing), async move {
        let output = future.await;
        let seen = SEEN.with(|seen| seen.borrow().clone());
        (output, seen)
    })
    .await
}

/// Records that a read saw `head`, unless a change was recorded already.
pub(super) fn read(head: &str) {
    let _ = SEEN.try_with(|seen| {
        let mut seen = seen.borrow_mut();
        if !matches!(*seen, Seen::Wrote(_)) {
            *seen = Seen::Read(head.to_owned());
        }
    });
}

/// Records the outcome of a change.
pub(super) fn wrote(commit: Option<&str>) {
    let _ = SEEN.try_with(|seen| *seen.borrow_mut() = Seen::Wrote(commit.map(str::to_owned)));
}
