//! A repository handle for a thread that reads the writer's newest commits as they come (the
//! webhooks' feed), without rereading the pack folder for each.
//!
//! The writer publishes a pack per batch of changes, and up to a maintenance run's worth of
//! them pile up (see [`super::maintenance`]). A handle opened the usual way reads all packs
//! through one backend: a commit in a pack it does not know yet is a miss, and a miss makes
//! libgit2 reread the pack folder, comparing every file there with every pack it knows (the
//! cost grows with the square of the packs: at 700 commits a second, with a hundred packs or
//! so, it was half of the webhooks' CPU). Here, as in the writer's object database
//! ([`super::objects`]), the packs there were at opening are read through libgit2's backend
//! and each pack written since through a backend of its own, the newest first; a commit not
//! found sends one look at the folder for the packs not yet known ([`Follower::find`]), and
//! never a reread by libgit2. The handle starts over once maintenance has merged packs away
//! (to let go of the deleted ones) or [`MOST_ADDED`] packs were added.

use std::collections::HashSet;
use std::ffi::{OsString, c_int};
use std::path::{Path, PathBuf};

use git2::{Odb, OdbLookupFlags, Oid, Repository};

use super::GitError;
use super::objects::{add_alternates, add_loose_backend, add_pack_backend, add_packs_backend, index_names};

const LOOSE_PRIORITY: c_int = 1;
const PACKS_PRIORITY: c_int = 2;
/// The first pack added after opening; each later one gets the next.
const FIRST_ADDED_PRIORITY: c_int = 3;
/// Packs added one by one before the handle starts over (each is a backend that a lookup of
/// an older object goes through first).
const MOST_ADDED: usize = 32;

pub struct Follower {
    repo: Repository,
    pack_dir: PathBuf,
    /// The index files (`pack-*.idx`) read: at opening, and added since.
    known: HashSet<OsString>,
    added: usize,
}

impl Follower {
    /// Opens the repository whose working tree is `root`.
    pub fn open(root: &Path) -> Result<Self, GitError> {
        let repo = Repository::open(root).map_err(|err| GitError::internal("cannot open the repository", err))?;
        let pack_dir = repo.path().join("objects").join("pack");
        let mut follower = Self {
            repo,
            pack_dir,
            known: HashSet::new(),
            added: 0,
        };
        follower.start_over()?;
        Ok(follower)
    }

    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    /// Makes `id` readable when a pack written since holds it; whether it is.
    pub fn find(&mut self, id: Oid) -> Result<bool, GitError> {
        if self.has(id)? {
            return Ok(true);
        }
        self.catch_up()?;
        self.has(id)
    }

    /// Whether a known pack or a loose object holds `id` (without libgit2's reread).
    fn has(&self, id: Oid) -> Result<bool, GitError> {
        let odb = self
            .repo
            .odb()
            .map_err(|err| GitError::internal("cannot open the object database", err))?;
        Ok(odb.exists_ext(id, OdbLookupFlags::NO_REFRESH))
    }

    /// Reads the packs written since the last look; starts over when some of the known ones
    /// are gone (merged by maintenance) or many were added.
    fn catch_up(&mut self) -> Result<(), GitError> {
        let found = self.index_files()?;
        let new: Vec<OsString> = found
            .iter()
            .filter(|name| !self.known.contains(*name))
            .cloned()
            .collect();
        let names: HashSet<&OsString> = found.iter().collect();
        if self.known.iter().any(|name| !names.contains(name)) || self.added + new.len() > MOST_ADDED {
            return self.start_over();
        }
        let odb = self
            .repo
            .odb()
            .map_err(|err| GitError::internal("cannot open the object database", err))?;
        // A commit's objects are in its own pack or in packs written before it, all of which
        // are known once its own is.
        for name in new {
            let priority = c_int::try_from(self.added)
                .unwrap_or(c_int::MAX)
                .saturating_add(FIRST_ADDED_PRIORITY);
            // A pack deleted meanwhile (merged by maintenance) is passed over: its objects
            // are in the pack it was merged into, which the next look finds.
            if add_pack_backend(&odb, &self.pack_dir.join(&name), priority).is_ok() {
                self.added += 1;
                self.known.insert(name);
            }
        }
        Ok(())
    }

    /// A new object database: loose objects and libgit2's backend of every pack there is.
    fn start_over(&mut self) -> Result<(), GitError> {
        // Listed before libgit2's backend looks, so that a pack written in between is found
        // by both, never by neither.
        let known: HashSet<OsString> = self.index_files()?.into_iter().collect();
        let odb = Odb::new().map_err(|err| GitError::internal("cannot create an object database", err))?;
        add_loose_backend(&odb, self.repo.path(), LOOSE_PRIORITY)?;
        add_packs_backend(&odb, self.repo.path(), PACKS_PRIORITY)?;
        add_alternates(&odb, self.repo.path())?;
        self.repo
            .set_odb(&odb)
            .map_err(|err| GitError::internal("cannot use the object database", err))?;
        self.known = known;
        self.added = 0;
        Ok(())
    }

    /// The names of the pack folder's index files.
    fn index_files(&self) -> Result<Vec<OsString>, GitError> {
        index_names(&self.pack_dir).map_err(|err| GitError::internal("cannot list the packs", err))
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::gitdb::{packed_commit, run_git as git};

    #[test]
    fn commits_in_packs_written_after_opening_are_found_and_merged_packs_let_go() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let first = packed_commit(dir.path(), "a");
        let mut follower = Follower::open(dir.path()).unwrap();
        assert!(follower.find(first).unwrap());
        assert_eq!((follower.known.len(), follower.added), (1, 0));

        let second = packed_commit(dir.path(), "b");
        assert!(follower.find(second).unwrap(), "a pack written after opening");
        assert_eq!((follower.known.len(), follower.added), (2, 1));
        {
            let tree = follower.repo().find_commit(second).unwrap().tree().unwrap();
            assert!(tree.get_name("a").is_some() && tree.get_name("b").is_some());
        }

        // Maintenance merges every pack into one and deletes the others.
        git(dir.path(), &["repack", "-q", "-a", "-d"]);
        let third = packed_commit(dir.path(), "c");
        assert!(follower.find(third).unwrap());
        let packs = std::fs::read_dir(dir.path().join(".git/objects/pack"))
            .unwrap()
            .filter(|entry| entry.as_ref().unwrap().file_name().to_string_lossy().ends_with(".idx"))
            .count();
        assert_eq!(follower.known.len(), packs, "started over with the packs there are");
        assert_eq!(follower.added, 0);
        assert!(follower.find(first).unwrap() && follower.find(second).unwrap());

        assert!(!follower.find(Oid::from_str(&"1".repeat(40)).unwrap()).unwrap());
    }
}
