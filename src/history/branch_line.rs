//! A project branch's history: its own commits (the first-parent line from its head back to
//! the first commit the main line has, where it left the main line) over the main line's
//! commits up to that one. Key history and project activity walk it as they walk the main
//! line. The branch's own commits are diffed per head and kept for the last few heads read,
//! never on disk: a branch is short-lived and usually holds few commits of its own.

use std::sync::{Arc, Mutex};

use git2::{Oid, Repository};

use super::index::{CommitInfo, FileChange, HistoryIndex, Line};
use crate::store::StoreError;

/// A branch's own commits, as of one head.
pub struct OwnCommits {
    head: Oid,
    /// The main-line commit the branch left from; `None` when its line never meets the main
    /// line's.
    fork: Option<Oid>,
    commits: HistoryIndex,
}

impl OwnCommits {
    /// Walks the first-parent line back from `head` to the first commit `main` has.
    fn read(repo: &Repository, main: &HistoryIndex, head: Oid) -> Result<Self, StoreError> {
        let fail = |err| StoreError::internal("cannot read a branch's history", err);
        let mut walk = repo.revwalk().map_err(fail)?;
        walk.push(head).map_err(fail)?;
        walk.simplify_first_parent().map_err(fail)?;
        let mut own = Vec::new();
        let mut fork = None;
        for id in walk {
            let id = id.map_err(fail)?;
            if main.position_of(id).is_some() {
                fork = Some(id);
                break;
            }
            own.push(id);
        }
        own.reverse();
        Ok(Self {
            head,
            fork,
            commits: HistoryIndex::of_commits(repo, &own)?,
        })
    }
}

/// The own commits of the branch heads read last (a client paging through a branch's history
/// reads the same head again and again).
#[derive(Default)]
pub struct OwnCache {
    recent: Mutex<Vec<Arc<OwnCommits>>>,
}

impl OwnCache {
    const SIZE: usize = 4;

    /// The own commits of the branch whose head is `head`, read now or kept from before
    /// (read again when the main line no longer holds the commit they left it from: its
    /// history was rewritten, a replica following a remote that was pushed with force).
    pub fn get(&self, repo: &Repository, main: &HistoryIndex, head: Oid) -> Result<Arc<OwnCommits>, StoreError> {
        let lock = || self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let kept = lock().iter().find(|own| own.head == head).cloned();
        if let Some(own) = kept.filter(|own| own.fork.is_none_or(|fork| main.position_of(fork).is_some())) {
            return Ok(own);
        }
        let own = Arc::new(OwnCommits::read(repo, main, head)?);
        let mut recent = lock();
        recent.retain(|kept| kept.head != head);
        recent.insert(0, own.clone());
        recent.truncate(Self::SIZE);
        Ok(own)
    }
}

/// A branch's line: the main line's positions `0..fork`, then the branch's own commits.
pub struct BranchLine<'a> {
    main: &'a HistoryIndex,
    own: &'a HistoryIndex,
    /// How many main-line commits the line holds: up to and with the fork.
    fork: u32,
}

impl<'a> BranchLine<'a> {
    /// The line of the branch whose own commits are `own`; `None` when the main line no
    /// longer holds the fork (history rewritten since `own` was read).
    pub fn new(main: &'a HistoryIndex, own: &'a OwnCommits) -> Option<Self> {
        let fork = match own.fork {
            Some(fork) => main.position_of(fork)? + 1,
            None => 0,
        };
        Some(Self {
            main,
            own: &own.commits,
            fork,
        })
    }

    /// The position of `position` among the branch's own commits, if it is one.
    fn own_position(&self, position: u32) -> Option<u32> {
        position.checked_sub(self.fork)
    }
}

impl Line for BranchLine<'_> {
    fn len(&self) -> usize {
        self.fork as usize + self.own.len()
    }

    fn commit(&self, position: u32) -> &CommitInfo {
        match self.own_position(position) {
            Some(own) => self.own.commit(own),
            None => self.main.commit(position),
        }
    }

    fn file_commits(&self, path: &str, upper: u32) -> Vec<u32> {
        let mut positions: Vec<u32> = match self.own_position(upper) {
            Some(own_upper) => self
                .own
                .file_commits(path, own_upper)
                .into_iter()
                .map(|own| own + self.fork)
                .collect(),
            None => Vec::new(),
        };
        positions.extend(self.main.file_commits(path, upper.min(self.fork)));
        positions
    }

    fn added_and_deleted(&self, position: u32) -> (u32, u32) {
        match self.own_position(position) {
            Some(own) => self.own.added_and_deleted(own),
            None => self.main.added_and_deleted(position),
        }
    }

    fn change(&self, position: u32, path: &str) -> Option<FileChange> {
        match self.own_position(position) {
            Some(own) => self.own.change(own, path),
            None => self.main.change(position, path),
        }
    }

    fn changes_under(&self, position: u32, prefix: &str) -> Vec<(&str, FileChange)> {
        match self.own_position(position) {
            Some(own) => self.own.changes_under(own, prefix),
            None => self.main.changes_under(position, prefix),
        }
    }

    fn project_commits(&self, project_dir: &str) -> Vec<u32> {
        let mut positions: Vec<u32> = self
            .own
            .project_commits(project_dir)
            .into_iter()
            .map(|own| own + self.fork)
            .collect();
        positions.extend(
            self.main
                .project_commits(project_dir)
                .into_iter()
                .filter(|position| *position < self.fork),
        );
        positions
    }
}
