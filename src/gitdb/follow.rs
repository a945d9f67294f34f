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
//! never a reread by libgit2. The handle starts over once maintenance has merged away packs
//! whose files it reads (to let go of the deleted ones), [`MOST_ADDED`] packs were added, or
//! it holds [`MOST_IN_MEMORY`] of the writer's objects.
//!
//! The writer logs each pack it writes ([`PackLog`]); a follower given the log adds the
//! packs written since it last looked from there, before it looks for a commit, and lists the
//! folder only when the log does not have the commit (a pack maintenance merged, a commit
//! made by another process). In a profile of webhook threads that had nothing to deliver, the
//! listing for each new commit had been a quarter of their samples (ext4 builds a tree of all
//! the folder's entries for each) and the miss before it, through every pack, an eighth.
//!
//! While a follower is open, the writer also logs a batch's objects as they were before it
//! compressed them ([`FreshObjects`]), and the follower keeps those in memory, read ahead of
//! every pack, instead of opening the batch's pack: a commit the writer has just made is then
//! read without finding it in a pack's index, inflating it, or undoing deltas (a third of the
//! webhook threads' CPU under load had been reading the commits they deliver, half of it in
//! packs). The commits go into libgit2's in-memory backend; the trees and files are read as
//! bytes ([`Objects`], [`super::raw_tree`]), shared with the log, and outlive a start-over
//! (the newest of them), since the folders a commit changes were mostly changed by one of the
//! commits before it. The older versions of the folders a batch rewrote come with it too
//! (those the pack before did not bring), so a commit is compared with its parent from
//! memory also when a folder was last written long before, or before the follower opened.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::{OsString, c_int};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use git2::{Binding, ObjectType, Odb, OdbLookupFlags, Oid, Repository};
use libgit2_sys as raw;

use super::GitError;
pub use super::fresh::FreshObjects;
use super::fresh::mempack_put;
use super::objects::{add_alternates, add_loose_backend, add_pack_backend, add_packs_backend, index_names};
use super::raw_tree::Objects;

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
/// The bytes of objects the log keeps in memory for the newest packs (a follower further
/// behind opens the packs). Kept for the newest 64 packs only, a follower on a busy machine
/// (its threads at the lowest priority) fell behind them often, and then read the older
/// folders from the packs, which held it back further: with three webhooks that follow
/// 20,000 creates on tmpfs, their threads' CPU went from 1.29-1.38 s to 0.55-0.67 s.
const FRESH_KEPT_BYTES: usize = 8 << 20;
/// Why a follower starts over when a pack whose file it reads was merged away.
const GONE: &str = "a pack it reads is gone";
/// The bytes of handed-over objects a follower holds before it starts over (which keeps the
/// newest half of them; all are in the packs on disk).
const MOST_IN_MEMORY: usize = 32 << 20;

/// A logged pack.
#[derive(Clone)]
pub(super) struct LoggedPack {
    /// Its index file's name.
    pub(super) name: OsString,
    /// Its objects, while it is among the newest.
    pub(super) fresh: Option<Arc<FreshObjects>>,
    /// For a pack the writer joined from its small ones ([`super::join`]), their index
    /// files' names (deleted once this one was written).
    joined: Vec<OsString>,
}

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
    /// The bytes of the objects kept with the names, and the position from which names may
    /// have them.
    fresh_bytes: usize,
    fresh_from: u64,
    /// How many times the writer started over with the packs on disk (after maintenance, and
    /// every few dozen packs it writes, when it joins its small ones).
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
        self.log_pack(LoggedPack {
            name: index,
            fresh: fresh.map(Arc::new),
            joined: Vec::new(),
        });
    }

    /// Logs the pack `index` that joined the writer's packs `joined` (deleted since): a
    /// follower that holds all of those in memory has its objects and need not open it.
    pub fn push_joined(&self, index: OsString, joined: Vec<OsString>) {
        self.log_pack(LoggedPack {
            name: index,
            fresh: None,
            joined,
        });
    }

    fn log_pack(&self, pack: LoggedPack) {
        let mut log = self.lock();
        log.fresh_bytes += pack.fresh.as_ref().map_or(0, |fresh| fresh.bytes());
        log.names.push_back(pack);
        if log.names.len() > LOGGED
            && let Some(gone) = log.names.pop_front()
        {
            log.first += 1;
            log.fresh_bytes -= gone.fresh.map_or(0, |fresh| fresh.bytes());
        }
        // The oldest packs' objects go, never the newest's.
        log.fresh_from = log.fresh_from.max(log.first);
        let newest = log.first + log.names.len() as u64 - 1;
        while log.fresh_bytes > FRESH_KEPT_BYTES && log.fresh_from < newest {
            let at = (log.fresh_from - log.first) as usize;
            if let Some(fresh) = log.names[at].fresh.take() {
                log.fresh_bytes -= fresh.bytes();
            }
            log.fresh_from += 1;
        }
    }

    /// Whether a follower reads the packs logged (the writer hands their objects over then).
    pub fn followed(&self) -> bool {
        self.followers.load(Ordering::Relaxed) > 0
    }

    /// Tells followers that the writer started over with the packs on disk: after maintenance
    /// merged packs, those that read some of the deleted ones let go of them as it does,
    /// rather than when they next start over on their own (freeing them at any moment, each a
    /// file the allocator of ext4 without a journal looks past for a while). Packs a follower
    /// holds in memory (the writer's, joined since) do not make it start over: a start-over
    /// drops everything it holds and read, and the writer reopens every few dozen packs.
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
        packs.into_iter().map(|pack| pack.name).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Logged> {
        self.log.lock().unwrap_or_else(|poison| poison.into_inner())
    }
}

pub struct Follower {
    repo: Repository,
    pack_dir: PathBuf,
    /// The index files (`pack-*.idx`) of the packs whose objects it reads: from memory or
    /// from the pack.
    known: HashSet<OsString>,
    /// Those of them whose files it reads (there at its start-over, or added since); the
    /// others it holds in memory.
    opened: HashSet<OsString>,
    /// Of the packs there at its start-over, the writer's small ones that it will join and
    /// delete: read after that (libgit2 holds them open) until the next start-over, rather
    /// than starting over at every join.
    to_be_joined: HashSet<OsString>,
    added: usize,
    /// The writer's log, the position in it up to which the packs are known, and the writer's
    /// count of start-overs when this handle last looked at the folder for deleted packs.
    log: Arc<PackLog>,
    logged: u64,
    reopened: u64,
    /// Listings of the pack folder so far.
    listings: usize,
    /// The in-memory backend of `repo`'s object database that holds the commits handed over
    /// by the writer since the last start-over.
    memory: *mut raw::git_odb_backend,
    /// The trees and files handed over by the writer, read as bytes ([`Objects`]); and,
    /// oldest first, each handed-over pack's trees and files held there with the bytes that
    /// keep them (the pack's objects, shared), `in_memory` in all.
    fresh: HashMap<Oid, Bytes>,
    held: VecDeque<(Vec<Oid>, usize)>,
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
            opened: HashSet::new(),
            to_be_joined: HashSet::new(),
            added: 0,
            log,
            logged: 0,
            reopened: 0,
            listings: 0,
            memory: std::ptr::null_mut(),
            fresh: HashMap::new(),
            held: VecDeque::new(),
            in_memory: 0,
        };
        follower.start_over("opened")?;
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
        let reopened = self.log.reopened_count();
        if reopened != self.reopened {
            self.reopened = reopened;
            if self.reads_deleted_packs()? {
                return self.start_over(GONE);
            }
        }
        match self.log.since(self.logged) {
            Some((packs, end)) => {
                self.logged = end;
                self.add_logged_packs(packs)
            }
            None => self.catch_up(),
        }
    }

    /// Whether a pack whose file this handle reads is gone from the folder (one listing).
    fn reads_deleted_packs(&mut self) -> Result<bool, GitError> {
        let found = self.index_files()?;
        Ok(self.reads_one_of_gone(&found.iter().collect()))
    }

    /// Whether a pack whose file this handle reads is not among `found`, merged away by
    /// maintenance (the writer's joined packs aside).
    fn reads_one_of_gone(&self, found: &HashSet<&OsString>) -> bool {
        self.opened
            .iter()
            .any(|name| !found.contains(name) && !self.to_be_joined.contains(name))
    }

    /// Whether a known pack or a loose object holds `id` (without libgit2's reread).
    fn has(&self, id: Oid) -> Result<bool, GitError> {
        let odb = self
            .repo
            .odb()
            .map_err(|err| GitError::internal("cannot open the object database", err))?;
        Ok(odb.exists_ext(id, OdbLookupFlags::NO_REFRESH))
    }

    /// Reads the packs written since the last look; starts over when some of those it reads
    /// are gone (merged by maintenance) or many were added.
    fn catch_up(&mut self) -> Result<(), GitError> {
        // Read before the listing, so that a pack logged in between is in both.
        let logged = self.log.end();
        let found = self.index_files()?;
        let names: HashSet<&OsString> = found.iter().collect();
        if self.reads_one_of_gone(&names) {
            return self.start_over(GONE);
        }
        self.logged = self.logged.max(logged);
        self.add(found)
    }

    /// Adds the logged packs not known yet: those whose objects came with them into memory,
    /// a pack that joined packs held in memory as known already, the others as packs. Starts
    /// over first when memory would hold more than [`MOST_IN_MEMORY`].
    fn add_logged_packs(&mut self, packs: Vec<LoggedPack>) -> Result<(), GitError> {
        let handed: usize = packs
            .iter()
            .filter_map(|pack| pack.fresh.as_ref())
            .map(|fresh| fresh.bytes())
            .sum();
        if self.in_memory + handed > MOST_IN_MEMORY {
            self.start_over("memory full")?;
        }
        let mut on_disk = Vec::new();
        for pack in packs {
            if self.known.contains(&pack.name) {
                continue;
            }
            if let Some(fresh) = pack.fresh {
                let mut ids = Vec::new();
                for (id, kind, data) in fresh.shared() {
                    if matches!(kind, ObjectType::Tree | ObjectType::Blob) {
                        // A tree may come again: the older versions of the trees a batch
                        // rewrote come along ([`super::objects::Staging::write_pack`]), and
                        // one may still be held from a pack before the last.
                        if let Entry::Vacant(vacant) = self.fresh.entry(id) {
                            vacant.insert(data);
                            ids.push(id);
                        }
                    } else {
                        // SAFETY: `memory` is the in-memory backend of the object database
                        // `self.repo` holds (set by `start_over`).
                        unsafe { mempack_put(self.memory, id, kind, &data)? };
                    }
                }
                self.in_memory += fresh.bytes();
                self.held.push_back((ids, fresh.bytes()));
                self.known.insert(pack.name);
            } else if !pack.joined.is_empty() && pack.joined.iter().all(|joined| self.in_memory_only(joined)) {
                self.known.insert(pack.name);
            } else {
                on_disk.push(pack.name);
            }
        }
        self.add(on_disk)
    }

    /// Whether the objects of the pack `name` are held in memory (and its file not read).
    fn in_memory_only(&self, name: &OsString) -> bool {
        self.known.contains(name) && !self.opened.contains(name)
    }

    /// Adds the packs of `names` not known yet, newest last; starts over instead when that
    /// would make more than [`MOST_ADDED`].
    fn add(&mut self, names: Vec<OsString>) -> Result<(), GitError> {
        let new: Vec<OsString> = names.into_iter().filter(|name| !self.known.contains(name)).collect();
        if new.is_empty() {
            return Ok(());
        }
        if self.added + new.len() > MOST_ADDED {
            return self.start_over("many packs added");
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
                self.known.insert(name.clone());
                self.opened.insert(name);
            }
        }
        Ok(())
    }

    /// A new handle with a new object database: loose objects, libgit2's backend of every
    /// pack there is, and memory for the commits the writer hands over. The new handle's cache
    /// of parsed objects starts empty: a follower reads each commit once, and the cache of one
    /// kept for good grew to libgit2's limit (256 MB for the process) with objects it never
    /// read again. The trees and files handed over are kept, the newest up to half of
    /// [`MOST_IN_MEMORY`]: the next commits' parents' folders are mostly among them (the
    /// packs on disk hold them all too), where a start-over that dropped them had the feed
    /// read each older folder from a pack again (a fifth of its time).
    fn start_over(&mut self, why: &'static str) -> Result<(), GitError> {
        tracing::debug!(why, "the follower starts over");
        // The log's end is read before the folder is listed, and the folder before libgit2's
        // backend looks, so that a pack written in between is found twice, never not at all.
        let (logged, reopened) = (self.log.end(), self.log.reopened_count());
        let known: HashSet<OsString> = self.index_files()?.into_iter().collect();
        let to_be_joined = self.log.held().intersection(&known).cloned().collect();
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
        self.opened = known.clone();
        self.to_be_joined = to_be_joined;
        self.known = known;
        self.added = 0;
        self.memory = memory;
        self.keep_newest(MOST_IN_MEMORY / 2);
        (self.logged, self.reopened) = (logged, reopened);
        Ok(())
    }

    /// Lets go of the oldest handed-over trees and files until at most `bytes` are held. An
    /// object two packs brought (the same file written twice) goes with the older one and is
    /// read from its pack after that.
    fn keep_newest(&mut self, bytes: usize) {
        while self.in_memory > bytes
            && let Some((ids, size)) = self.held.pop_front()
        {
            for id in ids {
                self.fresh.remove(&id);
            }
            self.in_memory -= size;
        }
    }

    /// The names of the pack folder's index files.
    fn index_files(&mut self) -> Result<Vec<OsString>, GitError> {
        self.listings += 1;
        index_names(&self.pack_dir).map_err(|err| GitError::internal("cannot list the packs", err))
    }
}

/// Trees and files: those the writer handed over from memory, the others from the object
/// database.
impl Objects for Follower {
    fn read(&self, id: Oid) -> Result<Bytes, git2::Error> {
        match self.fresh.get(&id) {
            Some(data) => Ok(data.clone()),
            None => self.repo.read(id),
        }
    }
}

#[cfg(test)]
mod tests;
