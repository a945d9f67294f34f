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
//!
//! The writer logs each pack it writes ([`PackLog`]); a follower given the log adds the
//! packs written since it last looked from there, before it looks for a commit, and lists the
//! folder only when the log does not have the commit (a pack maintenance merged, a commit
//! made by another process). In a profile of webhook threads that had nothing to deliver, the
//! listing for each new commit had been a quarter of their samples (ext4 builds a tree of all
//! the folder's entries for each) and the miss before it, through every pack, an eighth.
//!
//! While a follower is open, the writer also logs a batch's objects as they were before it
//! compressed them ([`FreshObjects`]), and the follower puts those into memory, read ahead of
//! every pack, instead of opening the batch's pack: a commit the writer has just made is then
//! read without finding it in a pack's index, inflating it, or undoing deltas (a third of the
//! webhook threads' CPU under load had been reading the commits they deliver, half of it in
//! packs).

use std::collections::{HashSet, VecDeque};
use std::ffi::{OsString, c_int};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use git2::{Binding, Odb, OdbLookupFlags, Oid, Repository};
use libgit2_sys as raw;

use super::GitError;
pub use super::fresh::FreshObjects;
use super::fresh::mempack_put;
use super::objects::{add_alternates, add_loose_backend, add_pack_backend, add_packs_backend, index_names};

const LOOSE_PRIORITY: c_int = 1;
const PACKS_PRIORITY: c_int = 2;
/// The objects the writer handed over are read before any pack.
const MEMORY_PRIORITY: c_int = c_int::MAX;
/// The first pack added after opening; each later one gets the next.
const FIRST_ADDED_PRIORITY: c_int = 3;
/// Packs added one by one before the handle starts over (each is a backend that a lookup of
/// an older object goes through first).
const MOST_ADDED: usize = 32;
/// Pack names the log keeps: a follower further behind than that lists the folder.
const LOGGED: usize = 1024;
/// The newest logged packs whose objects the log keeps in memory too (a follower further
/// behind opens the packs); at a few dozen kilobytes a batch, about a megabyte or two.
const FRESH_KEPT: usize = 64;
/// The bytes of handed-over objects a follower holds before it starts over (which empties
/// its memory; the objects are in the packs on disk).
const MOST_IN_MEMORY: usize = 32 << 20;

/// A logged pack: its index file's name, and its objects while they are among the newest.
type LoggedPack = (OsString, Option<Arc<FreshObjects>>);

/// The index files (`pack-*.idx`) of the packs a writer wrote, in order.
#[derive(Default)]
pub struct PackLog {
    log: Mutex<Logged>,
    /// Followers open on the log: without any, the writer hands over no objects.
    followers: AtomicUsize,
}

#[derive(Default)]
struct Logged {
    /// The position of the first name kept (each name logged takes the next).
    first: u64,
    names: VecDeque<LoggedPack>,
    /// How many times the writer started over with the packs on disk (after maintenance).
    reopened: u64,
    /// The writer's small packs not joined yet ([`super::join`]), which maintenance leaves
    /// alone.
    held: HashSet<OsString>,
}

impl PackLog {
    pub fn push(&self, index: OsString) {
        self.push_with(index, None);
    }

    /// Logs the pack `index` with its objects, for the followers to read from memory.
    pub fn push_with(&self, index: OsString, fresh: Option<FreshObjects>) {
        let mut log = self.lock();
        log.names.push_back((index, fresh.map(Arc::new)));
        if log.names.len() > LOGGED {
            log.names.pop_front();
            log.first += 1;
        }
        if let Some(older) = log.names.len().checked_sub(FRESH_KEPT + 1) {
            log.names[older].1 = None;
        }
    }

    /// Whether a follower reads the packs logged (the writer hands their objects over then).
    pub fn followed(&self) -> bool {
        self.followers.load(Ordering::Relaxed) > 0
    }

    /// Tells followers that the writer started over with the packs on disk: after maintenance
    /// merged packs, they let go of the deleted ones as it does, rather than when they next
    /// start over on their own (freeing them at any moment, each a file the allocator of
    /// ext4 without a journal looks past for a while).
    pub fn reopened(&self) {
        self.lock().reopened += 1;
    }

    /// Marks the writer's pack `index` as one it will join with others: maintenance leaves it
    /// alone until [`Self::release`].
    pub(super) fn hold(&self, index: OsString) {
        self.lock().held.insert(index);
    }

    pub(super) fn release(&self, indexes: &[OsString]) {
        let mut log = self.lock();
        for index in indexes {
            log.held.remove(index);
        }
    }

    /// The packs (index names) maintenance is to leave alone now.
    pub fn held(&self) -> HashSet<OsString> {
        self.lock().held.clone()
    }

    fn reopened_count(&self) -> u64 {
        self.lock().reopened
    }

    /// The position after the last name logged.
    pub(super) fn end(&self) -> u64 {
        let log = self.lock();
        log.first + log.names.len() as u64
    }

    /// The packs logged from position `from` on, and the position after them; `None` when
    /// some of them are no longer kept.
    pub(super) fn since(&self, from: u64) -> Option<(Vec<LoggedPack>, u64)> {
        let log = self.lock();
        let end = log.first + log.names.len() as u64;
        let skip = usize::try_from(from.checked_sub(log.first)?).ok()?;
        Some((log.names.iter().skip(skip).cloned().collect(), end.max(from)))
    }

    /// The names logged from position `from` on.
    #[cfg(test)]
    pub(super) fn names_since(&self, from: u64) -> Vec<OsString> {
        let packs = self.since(from).map(|(packs, _)| packs).unwrap_or_default();
        packs.into_iter().map(|(name, _)| name).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Logged> {
        self.log.lock().unwrap_or_else(|poison| poison.into_inner())
    }
}

pub struct Follower {
    repo: Repository,
    pack_dir: PathBuf,
    /// The index files (`pack-*.idx`) read: at opening, and added since.
    known: HashSet<OsString>,
    added: usize,
    /// The writer's log, the position in it up to which the packs are known, and the writer's
    /// count of start-overs when this handle last started over.
    log: Arc<PackLog>,
    logged: u64,
    reopened: u64,
    /// Listings of the pack folder so far.
    listings: usize,
    /// The in-memory backend of `repo`'s object database that holds the objects handed over
    /// by the writer, and how many bytes it holds.
    memory: *mut raw::git_odb_backend,
    in_memory: usize,
}

// SAFETY: `memory` points into the object database `repo` owns and is only used through
// `&mut self`; libgit2 objects may move between threads as long as no two use them at once.
unsafe impl Send for Follower {}

impl Drop for Follower {
    fn drop(&mut self) {
        self.log.followers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Follower {
    /// Opens the repository whose working tree is `root`; `log` is the log of the packs its
    /// writer writes (packs of other processes are found in the folder).
    pub fn open(root: &Path, log: Arc<PackLog>) -> Result<Self, GitError> {
        let repo = Repository::open(root).map_err(|err| GitError::internal("cannot open the repository", err))?;
        let pack_dir = repo.path().join("objects").join("pack");
        log.followers.fetch_add(1, Ordering::Relaxed);
        let mut follower = Self {
            repo,
            pack_dir,
            known: HashSet::new(),
            added: 0,
            log,
            logged: 0,
            reopened: 0,
            listings: 0,
            memory: std::ptr::null_mut(),
            in_memory: 0,
        };
        follower.start_over()?;
        Ok(follower)
    }

    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    /// Makes `id` readable when a pack written since holds it; whether it is.
    pub fn find(&mut self, id: Oid) -> Result<bool, GitError> {
        self.add_logged()?;
        if self.has(id)? {
            return Ok(true);
        }
        self.catch_up()?;
        self.has(id)
    }

    /// Adds the packs the writer logged since the last look (none: one lock and a
    /// comparison); lists the folder when the log no longer has them all.
    fn add_logged(&mut self) -> Result<(), GitError> {
        if self.log.reopened_count() != self.reopened {
            return self.start_over();
        }
        match self.log.since(self.logged) {
            Some((packs, end)) => {
                self.logged = end;
                self.add_logged_packs(packs)
            }
            None => self.catch_up(),
        }
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
        // Read before the listing, so that a pack logged in between is in both.
        let logged = self.log.end();
        let found = self.index_files()?;
        let names: HashSet<&OsString> = found.iter().collect();
        if self.known.iter().any(|name| !names.contains(name)) {
            return self.start_over();
        }
        self.logged = self.logged.max(logged);
        self.add(found)
    }

    /// Adds the logged packs not known yet: those whose objects came with them into memory,
    /// the others as packs. Starts over first when memory would hold more than
    /// [`MOST_IN_MEMORY`].
    fn add_logged_packs(&mut self, packs: Vec<LoggedPack>) -> Result<(), GitError> {
        let handed: usize = packs
            .iter()
            .filter_map(|(_, fresh)| fresh.as_ref())
            .map(|fresh| fresh.bytes())
            .sum();
        if self.in_memory + handed > MOST_IN_MEMORY {
            self.start_over()?;
        }
        let mut on_disk = Vec::new();
        for (name, fresh) in packs {
            match fresh {
                Some(fresh) if !self.known.contains(&name) => {
                    for (id, kind, data) in fresh.iter() {
                        // SAFETY: `memory` is the in-memory backend of the object database
                        // `self.repo` holds (set by `start_over`).
                        unsafe { mempack_put(self.memory, id, kind, data)? };
                    }
                    self.in_memory += fresh.bytes();
                    self.known.insert(name);
                }
                _ => on_disk.push(name),
            }
        }
        self.add(on_disk)
    }

    /// Adds the packs of `names` not known yet, newest last; starts over instead when that
    /// would make more than [`MOST_ADDED`].
    fn add(&mut self, names: Vec<OsString>) -> Result<(), GitError> {
        let new: Vec<OsString> = names.into_iter().filter(|name| !self.known.contains(name)).collect();
        if new.is_empty() {
            return Ok(());
        }
        if self.added + new.len() > MOST_ADDED {
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

    /// A new handle with a new object database: loose objects, libgit2's backend of every
    /// pack there is, and memory for what the writer hands over. The new handle's cache of
    /// parsed objects starts empty: a follower reads each commit once, and the cache of one
    /// kept for good grew to libgit2's limit (256 MB for the process) with objects it never
    /// read again.
    fn start_over(&mut self) -> Result<(), GitError> {
        // The log's end is read before the folder is listed, and the folder before libgit2's
        // backend looks, so that a pack written in between is found twice, never not at all.
        let (logged, reopened) = (self.log.end(), self.log.reopened_count());
        let known: HashSet<OsString> = self.index_files()?.into_iter().collect();
        let odb = Odb::new().map_err(|err| GitError::internal("cannot create an object database", err))?;
        let memory = odb
            .add_new_mempack_backend(MEMORY_PRIORITY)
            .map_err(|err| GitError::internal("cannot add an in-memory object store", err))?
            .raw();
        add_loose_backend(&odb, self.repo.path(), LOOSE_PRIORITY)?;
        add_packs_backend(&odb, self.repo.path(), PACKS_PRIORITY)?;
        add_alternates(&odb, self.repo.path())?;
        let repo = Repository::open(self.repo.path())
            .map_err(|err| GitError::internal("cannot open the repository again", err))?;
        repo.set_odb(&odb)
            .map_err(|err| GitError::internal("cannot use the object database", err))?;
        // The old handle goes with the objects it parsed and cached, and the packs only it
        // still held.
        self.repo = repo;
        self.known = known;
        self.added = 0;
        (self.memory, self.in_memory) = (memory, 0);
        (self.logged, self.reopened) = (logged, reopened);
        Ok(())
    }

    /// The names of the pack folder's index files.
    fn index_files(&mut self) -> Result<Vec<OsString>, GitError> {
        self.listings += 1;
        index_names(&self.pack_dir).map_err(|err| GitError::internal("cannot list the packs", err))
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    use git2::ObjectType;

    use crate::gitdb::{packed_commit, run_git as git};

    #[test]
    fn commits_in_packs_written_after_opening_are_found_and_merged_packs_let_go() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let first = packed_commit(dir.path(), "a");
        // Nothing logged: every pack is found in the folder, as another process's would be.
        let mut follower = Follower::open(dir.path(), Arc::default()).unwrap();
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

    /// The index files in `dir`'s pack folder.
    fn indexes(dir: &Path) -> HashSet<OsString> {
        index_names(&dir.join(".git/objects/pack"))
            .unwrap()
            .into_iter()
            .collect()
    }

    /// A commit in a pack of its own, and that pack's index file.
    fn commit_and_pack(dir: &Path, name: &str) -> (Oid, OsString) {
        let before = indexes(dir);
        let commit = packed_commit(dir, name);
        let new: Vec<OsString> = indexes(dir).difference(&before).cloned().collect();
        assert_eq!(new.len(), 1);
        (commit, new[0].clone())
    }

    #[test]
    fn packs_the_writer_logged_are_added_without_listing_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        packed_commit(dir.path(), "a");
        let log = Arc::new(PackLog::default());
        let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
        assert_eq!(follower.listings, 1);

        let (second, pack) = commit_and_pack(dir.path(), "b");
        log.push(pack);
        assert!(follower.find(second).unwrap());
        assert_eq!((follower.listings, follower.added), (1, 1), "added from the log");

        // A commit made by another process: its pack is not in the log, the folder is listed.
        let (third, _) = commit_and_pack(dir.path(), "c");
        assert!(follower.find(third).unwrap());
        assert_eq!(follower.listings, 2);

        // A logged pack that maintenance merged away before the follower looked.
        let (fourth, pack) = commit_and_pack(dir.path(), "d");
        log.push(pack);
        git(dir.path(), &["repack", "-q", "-a", "-d"]);
        assert!(follower.find(fourth).unwrap());
        assert!(follower.find(second).unwrap() && follower.find(third).unwrap());
        let tree = follower.repo().find_commit(fourth).unwrap().tree().unwrap();
        assert_eq!(tree.len(), 4);
    }

    #[test]
    fn a_follower_lets_go_of_merged_packs_once_the_writer_has() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let first = packed_commit(dir.path(), "a");
        let log = Arc::new(PackLog::default());
        let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
        let (second, pack) = commit_and_pack(dir.path(), "b");
        log.push(pack);
        assert!(follower.find(second).unwrap() && follower.find(first).unwrap());
        assert_eq!(follower.known.len(), 2);
        // Both packs read from, so both are open.
        for commit in [first, second] {
            follower.repo().find_commit(commit).unwrap();
        }

        // Maintenance merges both packs into one; the writer reopens and says so.
        git(dir.path(), &["repack", "-q", "-a", "-d"]);
        assert!(follower.find(first).unwrap());
        assert_eq!(follower.known.len(), 2, "still reading the merged packs it has open");
        log.reopened();
        assert!(follower.find(first).unwrap());
        assert_eq!(
            follower.known,
            indexes(dir.path()),
            "started over with the one pack there is"
        );
        assert!(follower.find(second).unwrap());
    }

    #[test]
    fn the_log_keeps_the_newest_names_and_says_when_older_ones_are_gone() {
        let log = PackLog::default();
        for number in 0..LOGGED + 2 {
            log.push(format!("pack-{number}.idx").into());
        }
        assert_eq!(log.end(), LOGGED as u64 + 2);
        assert!(log.since(0).is_none() && log.since(1).is_none());
        let (packs, end) = log.since(LOGGED as u64).unwrap();
        let names: Vec<OsString> = packs.into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            names,
            vec![
                OsString::from(format!("pack-{LOGGED}.idx")),
                OsString::from(format!("pack-{}.idx", LOGGED + 1))
            ]
        );
        assert_eq!(end, LOGGED as u64 + 2);
        let (none, same) = log.since(end).unwrap();
        assert!(none.is_empty() && same == end);
    }

    /// Every object of `commit` that `pack` holds (`git show-index` lists them), as the writer
    /// would hand them over.
    fn objects_of(dir: &Path, pack: &OsString) -> FreshObjects {
        let index = dir.join(".git/objects/pack").join(pack);
        let listing = std::process::Command::new("git")
            .args(["show-index"])
            .stdin(std::fs::File::open(&index).unwrap())
            .output()
            .unwrap();
        let repo = Repository::open(dir).unwrap();
        let odb = repo.odb().unwrap();
        let mut fresh = FreshObjects::default();
        for line in String::from_utf8(listing.stdout).unwrap().lines() {
            let id = Oid::from_str(line.split_whitespace().nth(1).unwrap()).unwrap();
            let object = odb.read(id).unwrap();
            fresh.add(id, object.kind(), object.data());
        }
        fresh
    }

    #[test]
    fn objects_handed_over_with_a_logged_pack_are_read_from_memory_and_let_go_at_a_start_over() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        packed_commit(dir.path(), "a");
        let log = Arc::new(PackLog::default());
        assert!(!log.followed(), "no follower, no objects handed over");
        let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
        assert!(log.followed());

        let (second, pack) = commit_and_pack(dir.path(), "b");
        let fresh = objects_of(dir.path(), &pack);
        assert_eq!(fresh.iter().count(), 3, "the commit, its tree and the new blob");
        // The pack moved away: only memory can hold the commit now.
        let pack_dir = dir.path().join(".git/objects/pack");
        let aside = tempfile::tempdir().unwrap();
        let files = ["idx", "pack"].map(|kind| pack.to_string_lossy().replace(".idx", &format!(".{kind}")));
        for file in &files {
            std::fs::rename(pack_dir.join(file), aside.path().join(file)).unwrap();
        }
        log.push_with(pack.clone(), Some(fresh));
        assert!(follower.find(second).unwrap());
        assert_eq!(
            (follower.added, follower.listings),
            (0, 1),
            "no pack opened, no listing"
        );
        assert!(follower.known.contains(&pack));
        {
            let commit = follower.repo().find_commit(second).unwrap();
            let blob = commit.tree().unwrap().get_name("b").unwrap().id();
            assert_eq!(follower.repo().find_blob(blob).unwrap().content(), b"b");
        }
        assert!(follower.in_memory > 0);
        for file in &files {
            std::fs::rename(aside.path().join(file), pack_dir.join(file)).unwrap();
        }

        // A start-over empties memory and reads what is on disk.
        log.reopened();
        let (third, third_pack) = commit_and_pack(dir.path(), "c");
        log.push(third_pack);
        assert!(follower.find(third).unwrap());
        assert_eq!(follower.in_memory, 0);
        assert!(follower.find(second).unwrap(), "read from its pack again");
        assert!(follower.known.contains(&pack));

        drop(follower);
        assert!(!log.followed());
    }

    #[test]
    fn the_log_keeps_the_objects_of_its_newest_packs_only() {
        let log = PackLog::default();
        for number in 0..FRESH_KEPT + 3 {
            let mut fresh = FreshObjects::default();
            fresh.add(
                Oid::hash_object(ObjectType::Blob, b"x").unwrap(),
                ObjectType::Blob,
                b"x",
            );
            log.push_with(format!("pack-{number}.idx").into(), Some(fresh));
        }
        let (packs, _) = log.since(0).unwrap();
        let kept: Vec<bool> = packs.iter().map(|(_, fresh)| fresh.is_some()).collect();
        assert_eq!(kept.iter().filter(|kept| **kept).count(), FRESH_KEPT);
        assert!(!kept[2] && kept[3], "the oldest three let go");
    }
}
