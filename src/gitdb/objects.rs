//! Where the writer builds new git objects: an object database of its own, in which new
//! objects go to memory and existing ones are read from the repository's packs and loose
//! objects. [`Staging::write_pack`] then writes everything new as one pack.
//!
//! libgit2 writes an object by first looking for it in every backend and, when it misses (a
//! new object always does), rescanning `objects/pack` and looking again; with a pack per
//! published batch that cost more than the rest of a commit. Here new objects are written
//! straight into memory ([`Staging::write`]), so writes never look anything up. Reads go to
//! one backend for the packs that existed at opening, and to one backend per pack written
//! since (the newest first), so that reading back a just-published object needs no rescan.
//! When maintenance merges packs and deletes them, a read can miss until the merged pack is
//! known; libgit2 then rescans the pack folder (through the backend of the packs found at
//! opening) and reads again. The writer reopens after each maintenance run and once
//! [`Staging::written_packs`] grows, which drops deleted packs and keeps the number of
//! backends a miss goes through small. The trees the writer edits are opened from the ones
//! it wrote, kept as bytes ([`super::tree_cache`]), and only otherwise read from there.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{CString, c_int};
use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use flate2::{Compress, Compression};
use git2::{Binding, Mempack, ObjectType, Odb, Oid, Repository};
use libgit2_sys as raw;

use super::GitError;
use super::delta;
use super::edit::TreeEdit;
use super::fresh::{FreshObjects, mempack_put};
use super::pack_writer::PackWriter;
use super::tree_cache::{self, TreeCache};

/// New objects go to memory first, ahead of every on-disk backend.
const MEMORY_PRIORITY: c_int = c_int::MAX;
/// Packs written since opening come after memory, the newest first (each gets the next
/// priority), since the objects a commit reads back are mostly the last commit's.
const FIRST_WRITTEN_PACK_PRIORITY: c_int = 3;
/// The packs that existed at opening, all in one backend.
const PACKS_PRIORITY: c_int = 2;
const LOOSE_PRIORITY: c_int = 1;
/// Objects from which a pack is written without looking for deltas (see
/// [`Staging::write_pack`]).
const PLAIN_PACK_OBJECTS: usize = 1024;

/// The longest chain of deltas in a batch's pack. Readers that go through a batch's commits
/// in order (the webhooks, the history) start from the oldest versions, the deepest: with
/// chains of up to 50 (git's default) a backlog of 10,000 commits took 6.1 s to deliver, with
/// 10 it takes 2.0 s, and the packs are as large after maintenance (BENCHMARKS.md).
const MOST_DELTA_DEPTH: usize = 10;

/// The bytes of objects read at a time for a plain pack (then compressed on every core).
const PLAIN_PACK_BATCH_BYTES: usize = 64 << 20;

/// The bytes of blobs from which a commit's blobs are hashed on every core ([`blob_ids`]).
const PARALLEL_HASH_BYTES: usize = 4 << 20;

const BLOB_MODE: i32 = 0o100644;
const TREE_MODE: i32 = 0o040000;

pub struct Staging {
    // The mempack belongs to `repo`'s object database, so it is declared (and dropped) first.
    mempack: <Mempack<'static> as Binding>::Raw,
    repo: Repository,
    pack_dir: PathBuf,
    /// Packs written since opening, each with a backend of its own.
    written_packs: usize,
    /// The objects staged since the last pack (the mempack cannot list them), in the order
    /// they were staged, with repeats.
    staged: RefCell<Vec<Staged>>,
    /// Whether a pack of whole objects was written since [`Self::take_plain_written`].
    plain_written: bool,
    /// The pack files written since [`Self::take_unsynced`], for the sync before an answer.
    unsynced: Vec<PathBuf>,
    /// The trees written, the newest version of each ([`tree_cache`]).
    trees: RefCell<TreeCache>,
    /// The older versions of the trees staged since the last pack, which the staged ones
    /// were edited from: handed over with the pack to those who follow the writer, who
    /// compare each commit's trees with its parent's.
    bases: RefCell<Vec<(Oid, Bytes)>>,
}

// SAFETY: a `Staging` is used by one thread at a time (it moves to the writer thread once and
// stays there); libgit2 objects may move between threads as long as no two use them at once.
unsafe impl Send for Staging {}

impl Staging {
    /// The object database of the repository whose git folder is `git_dir`.
    pub fn open(git_dir: &Path) -> Result<Self, GitError> {
        let odb = Odb::new().map_err(|err| git_error("cannot create an object database", err))?;
        let mempack = odb
            .add_new_mempack_backend(MEMORY_PRIORITY)
            .map_err(|err| git_error("cannot add an in-memory object store", err))?
            .raw();
        add_loose_backend(&odb, git_dir, LOOSE_PRIORITY)?;
        add_packs_backend(&odb, git_dir, PACKS_PRIORITY)?;
        add_alternates(&odb, git_dir)?;
        let repo = Repository::from_odb(odb).map_err(|err| git_error("cannot wrap the object database", err))?;
        Ok(Self {
            mempack,
            repo,
            pack_dir: git_dir.join("objects").join("pack"),
            written_packs: 0,
            staged: RefCell::default(),
            plain_written: false,
            unsynced: Vec::new(),
            trees: RefCell::default(),
            bases: RefCell::default(),
        })
    }

    /// Takes over the trees `older` (the object database this one replaces) kept.
    pub fn keep_trees_of(&mut self, older: &mut Staging) {
        self.trees = std::mem::take(&mut older.trees);
    }

    /// The repository to build objects in (it has an object database and nothing else).
    pub fn repo(&self) -> &Repository {
        &self.repo
    }

    fn odb(&self) -> Result<Odb<'_>, GitError> {
        self.repo
            .odb()
            .map_err(|err| git_error("cannot open the object database", err))
    }

    /// Writes every object staged in memory as one pack next to the repository's others and
    /// keeps reading them from there; memory is then emptied. Answers the pack's name, if one
    /// was written (nothing staged, nothing written).
    ///
    /// A pack of many objects (an import, an upload: thousands of new key files) is written
    /// whole, without deltas ([`Self::write_plain_pack`]): a delta search took most of a bulk
    /// import's time on both cores, and maintenance finds the deltas later, in the
    /// background. Other packs (a batch of ordinary changes) are written with the deltas the
    /// writer knows of, those between the versions of a tree it rewrote within the batch
    /// ([`Self::write_batch_pack`]); with `hand_over`, their objects come back too, as they
    /// were before compression, for the followers ([`FreshObjects`]), with the older versions
    /// of the trees the batch rewrote that the pack before did not bring (the parent's side
    /// of each commit's comparison).
    pub fn write_pack(&mut self, hand_over: bool) -> Result<Option<(String, Option<FreshObjects>)>, GitError> {
        let mut staged = std::mem::take(&mut *self.staged.borrow_mut());
        let mut seen = HashSet::with_capacity(staged.len());
        staged.retain(|object| seen.insert(object.id));
        // Objects libgit2 wrote itself (the first commit's tree builder) are not in the list;
        // libgit2's pack builder, which asks the mempack, takes care of those.
        let mut in_memory = 0usize;
        // SAFETY: the mempack is alive (see `discard`); `in_memory` is a valid place for the count.
        let counted = unsafe { git_mempack_object_count(&raw mut in_memory, self.mempack.cast()) };
        let mut fresh = hand_over.then(FreshObjects::default);
        let name = if in_memory == 0 && counted == 0 {
            None
        } else if counted != 0 || in_memory != staged.len() {
            fresh = None;
            self.write_libgit2_pack()?
        } else if staged.len() >= PLAIN_PACK_OBJECTS {
            self.plain_written = true;
            fresh = None;
            Some(self.write_plain_pack(&staged)?)
        } else {
            let name = self.write_batch_pack(&staged, fresh.as_mut())?;
            if let Some(fresh) = fresh.as_mut() {
                for (base, data) in self.bases.borrow().iter() {
                    if seen.insert(*base) {
                        fresh.add(*base, ObjectType::Tree, data);
                    }
                }
            }
            Some(name)
        };
        if let Some(name) = &name {
            self.add_written_pack(name)?;
            self.trees.borrow_mut().pack_written();
        }
        self.discard().map(|()| name.map(|name| (name, fresh)))
    }

    /// Writes the mempack's objects with libgit2's pack builder (deltas and all).
    fn write_libgit2_pack(&self) -> Result<Option<String>, GitError> {
        let mut builder = self
            .repo
            .packbuilder()
            .map_err(|err| git_error("cannot start a pack", err))?;
        // Only what is staged goes in: libgit2's own mempack dump walks each staged commit's
        // whole tree, which would put every file of a large project into every pack.
        // SAFETY: both pointers are live libgit2 objects; the function only inserts the ids of
        // the mempack's objects into the builder.
        let inserted = unsafe { git_mempack_write_thin_pack(self.mempack.cast(), builder.raw().cast()) };
        if inserted < 0 {
            return Err(git_error(
                "cannot pack the new objects",
                git2::Error::last_error(inserted),
            ));
        }
        if builder.object_count() == 0 {
            return Ok(None);
        }
        builder
            .write(&self.pack_dir, 0)
            .map_err(|err| git_error("cannot write a pack", err))?;
        builder
            .name()
            .ok()
            .flatten()
            .map(|name| Some(name.to_owned()))
            .ok_or_else(|| GitError::internal("cannot write a pack", "the pack has no name"))
    }

    /// Writes `objects` (staged, no repeats, in the order staged) as a pack with its index,
    /// a tree that the batch rewrote later as a delta of its later version; returns the
    /// pack's name.
    ///
    /// The objects go in the reverse of the order they were staged, so that the newest
    /// version of a tree is whole and the older ones deltas, each of the version that
    /// followed it (what git's pack builder does too: the newest objects are the ones read
    /// most, the next commit's edits start from them). A chain of deltas stops at
    /// [`MOST_DELTA_DEPTH`], and a delta that saves less than half is not kept. Each object
    /// is also copied into `fresh`, if given.
    fn write_batch_pack(&self, objects: &[Staged], mut fresh: Option<&mut FreshObjects>) -> Result<String, GitError> {
        let fail = |err: std::io::Error| GitError::internal("cannot write a pack", err);
        let odb = self.odb()?;
        // The later version of each tree the batch rewrote (the first, if several start
        // from it).
        let ids: HashSet<Oid> = objects.iter().map(|object| object.id).collect();
        let mut next_version = HashMap::new();
        for object in objects {
            if let Some(base) = object.base.filter(|base| ids.contains(base)) {
                next_version.entry(base).or_insert(object.id);
            }
        }
        let mut pack = PackWriter::create(&self.pack_dir, objects.len()).map_err(fail)?;
        // zlib's fastest level: for objects this small its fixed cost of building Huffman
        // tables at the default level was a tenth of the writer's time (20,000 creates: the
        // server's CPU 419 → 370 µs a write, the packs 2% larger after maintenance).
        let mut zlib = Compress::new(Compression::fast(), true);
        // The trees written whose older version is still to come: where each starts, its
        // depth in a chain of deltas, and its content (taken by that older version).
        let mut trees: HashMap<Oid, (u64, usize, Vec<u8>)> = HashMap::new();
        for object in objects.iter().rev() {
            let read = odb
                .read(object.id)
                .map_err(|err| git_error("cannot read a staged object", err))?;
            let data = read.data();
            if let Some(fresh) = fresh.as_deref_mut() {
                fresh.add(object.id, object.kind, data);
            }
            let later = next_version.get(&object.id).and_then(|later| trees.remove(later));
            let delta = later
                .filter(|(_, depth, _)| *depth < MOST_DELTA_DEPTH)
                .and_then(|(at, depth, base)| Some((at, depth, delta::encode(&base, data)?)))
                .filter(|(_, _, delta)| delta.len() < data.len() / 2);
            let (at, depth) = match delta {
                Some((base_at, depth, delta)) => {
                    let at = pack.add_delta(&mut zlib, object.id, base_at, &delta).map_err(fail)?;
                    (at, depth + 1)
                }
                None => (
                    pack.add_whole(&mut zlib, object.id, object.kind, data).map_err(fail)?,
                    0,
                ),
            };
            if object
                .base
                .is_some_and(|base| next_version.get(&base) == Some(&object.id))
            {
                trees.insert(object.id, (at, depth, data.to_vec()));
            }
        }
        pack.finish().map_err(fail)
    }

    /// Writes `objects` (staged, no repeats) as a pack of whole objects with its index into
    /// the pack folder ([`PackWriter`]); returns the pack's name.
    fn write_plain_pack(&self, objects: &[Staged]) -> Result<String, GitError> {
        let fail = |err: std::io::Error| GitError::internal("cannot write a pack", err);
        let odb = self.odb()?;
        let mut pack = PackWriter::create(&self.pack_dir, objects.len()).map_err(fail)?;
        // Compressing is most of the work: the objects go in batches, each compressed on
        // every core (an upload's kept files are a few large blobs among many small ones).
        let threads = super::runs::threads();
        let (mut batch, mut bytes) = (Vec::new(), 0);
        for &Staged { id, kind, .. } in objects {
            let object = odb
                .read(id)
                .map_err(|err| git_error("cannot read a staged object", err))?;
            bytes += object.len();
            batch.push((id, kind, object.data().to_vec()));
            if bytes >= PLAIN_PACK_BATCH_BYTES {
                pack.add_all(&batch, threads).map_err(fail)?;
                (batch, bytes) = (Vec::new(), 0);
            }
        }
        pack.add_all(&batch, threads).map_err(fail)?;
        pack.finish().map_err(fail)
    }

    /// Writes an object into memory. This does not go through libgit2's object database,
    /// which first looks for the object in every backend and, missing it (a new object always
    /// misses), rescans and looks again: most of a commit's time with many packs.
    pub fn write(&self, kind: ObjectType, data: &[u8]) -> Result<Oid, GitError> {
        let id = Oid::hash_object(kind, data).map_err(|err| git_error("cannot hash an object", err))?;
        self.write_as(id, kind, data, None)
    }

    /// [`Self::write`] of an object whose id (its hash) is known; `base` is the tree it is a
    /// new version of, if it is one.
    fn write_as(&self, id: Oid, kind: ObjectType, data: &[u8], base: Option<Oid>) -> Result<Oid, GitError> {
        // SAFETY: the mempack is alive (see `discard`).
        unsafe { mempack_put(self.mempack, id, kind, data)? };
        self.staged.borrow_mut().push(Staged { id, kind, base });
        Ok(id)
    }

    /// Applies `edits` in order to the tree `base` and stages the trees and blobs that change;
    /// returns the new tree's id (`base` itself when nothing changed).
    ///
    /// libgit2's tree builders write through the object database (see [`Self::write`]), so the
    /// trees are edited here: entries of the trees on the edited paths are loaded, changed in
    /// memory, and written in git's tree format once all edits are in.
    pub fn edit_tree(&self, base: Oid, edits: &[TreeEdit]) -> Result<Oid, GitError> {
        let mut root = self.open_tree(base)?;
        let ids = blob_ids(edits)?;
        for (index, edit) in edits.iter().enumerate() {
            match edit {
                TreeEdit::Write { path, contents } => {
                    let id = match ids.get(index) {
                        Some(&id) => self.write_as(id, ObjectType::Blob, contents, None)?,
                        None => self.write(ObjectType::Blob, contents)?,
                    };
                    self.put(&mut root, path, Entry::Stored { id, mode: BLOB_MODE })?;
                }
                TreeEdit::Remove { path } => {
                    self.take(&mut root, path)?;
                }
                TreeEdit::Move { from, to } => {
                    if let Some(entry) = self.take(&mut root, from)? {
                        self.put(&mut root, to, entry)?;
                    }
                }
            }
        }
        match self.write_tree(root)? {
            Some(id) => Ok(id),
            None => self.write(ObjectType::Tree, &[]),
        }
    }

    /// Opens the tree `id` for editing: from the trees written, else from the object
    /// database.
    fn open_tree(&self, id: Oid) -> Result<OpenTree, GitError> {
        let cached = self.trees.borrow().get(id);
        let (data, handed_over) = match cached {
            Some(cached) => (cached.data, cached.in_last_pack),
            None => {
                let odb = self.odb()?;
                let object = odb.read(id).map_err(|err| git_error("cannot read a tree", err))?;
                if object.kind() != ObjectType::Tree {
                    return Err(GitError::internal(
                        "cannot read a tree",
                        format!("{id} is a {}", object.kind()),
                    ));
                }
                (Bytes::copy_from_slice(object.data()), false)
            }
        };
        let entries = tree_cache::entries(id, data.clone())
            .ok_or_else(|| GitError::internal("cannot read a tree", format!("the tree {id} is malformed")))?
            .into_iter()
            .map(|(name, mode, id)| (name, Entry::Stored { id, mode }))
            .collect();
        Ok(OpenTree {
            base: Some((id, (!handed_over).then_some(data))),
            entries,
            changed: false,
        })
    }

    /// The subtree `name` of `tree`, opened for editing; a file of that name is replaced by
    /// an empty folder, as git would.
    fn open_dir<'t>(&self, tree: &'t mut OpenTree, name: &str) -> Result<&'t mut OpenTree, GitError> {
        let slot = tree
            .entries
            .entry(name.as_bytes().to_vec())
            .or_insert_with(|| Entry::Open(OpenTree::default()));
        if let Entry::Stored { id, mode } = *slot {
            *slot = Entry::Open(if mode == TREE_MODE {
                self.open_tree(id)?
            } else {
                OpenTree::default()
            });
        }
        match slot {
            Entry::Open(subtree) => Ok(subtree),
            Entry::Stored { .. } => unreachable!("opened just above"),
        }
    }

    fn put(&self, tree: &mut OpenTree, path: &str, entry: Entry) -> Result<(), GitError> {
        tree.changed = true;
        match path.split_once('/') {
            None => {
                tree.entries.insert(path.as_bytes().to_vec(), entry);
                Ok(())
            }
            Some((dir, rest)) => {
                let subtree = self.open_dir(tree, dir)?;
                self.put(subtree, rest, entry)
            }
        }
    }

    /// Removes and returns the entry at `path`, if there is one.
    fn take(&self, tree: &mut OpenTree, path: &str) -> Result<Option<Entry>, GitError> {
        let taken = match path.split_once('/') {
            None => tree.entries.remove(path.as_bytes()),
            Some((dir, rest)) => match tree.entries.get(dir.as_bytes()) {
                Some(Entry::Open(_)) | Some(Entry::Stored { mode: TREE_MODE, .. }) => {
                    let subtree = self.open_dir(tree, dir)?;
                    self.take(subtree, rest)?
                }
                _ => None,
            },
        };
        if taken.is_some() {
            tree.changed = true;
        }
        Ok(taken)
    }

    /// Stages an edited tree and the edited trees in it; `None` when it ends up empty (git
    /// keeps no empty folders).
    fn write_tree(&self, tree: OpenTree) -> Result<Option<Oid>, GitError> {
        if !tree.changed
            && let Some((base, _)) = tree.base
        {
            return Ok(Some(base));
        }
        let mut entries = Vec::with_capacity(tree.entries.len());
        for (name, entry) in tree.entries {
            match entry {
                Entry::Stored { id, mode } => entries.push((name, id, mode)),
                Entry::Open(subtree) => {
                    if let Some(id) = self.write_tree(subtree)? {
                        entries.push((name, id, TREE_MODE));
                    }
                }
            }
        }
        if entries.is_empty() {
            return Ok(None);
        }
        // git orders entries by name, a folder's name read as if it ended in `/`.
        entries.sort_by(|a, b| git_order(&a.0, a.2, &b.0, b.2));
        let mut data = Vec::with_capacity(entries.iter().map(|(name, ..)| name.len() + 28).sum());
        for (name, id, mode) in &entries {
            // An octal mode, a space, the name, a NUL and the id.
            write!(data, "{mode:o} ").map_err(|err| GitError::internal("cannot write a tree", err))?;
            data.extend_from_slice(name);
            data.push(0);
            data.extend_from_slice(id.as_bytes());
        }
        let id = Oid::hash_object(ObjectType::Tree, &data).map_err(|err| git_error("cannot hash an object", err))?;
        let base = tree.base.map(|(base, base_data)| {
            if let Some(data) = base_data {
                self.bases.borrow_mut().push((base, data));
            }
            base
        });
        self.write_as(id, ObjectType::Tree, &data, base)?;
        self.trees.borrow_mut().replace(base, id, Bytes::from(data));
        Ok(Some(id))
    }

    /// Drops the objects staged in memory.
    pub fn discard(&self) -> Result<(), GitError> {
        self.staged.borrow_mut().clear();
        self.bases.borrow_mut().clear();
        // SAFETY: the mempack belongs to `self.repo`'s object database, which is alive.
        unsafe { Mempack::from_raw(self.mempack) }
            .reset()
            .map_err(|err| git_error("cannot drop the staged objects", err))
    }

    /// The pack files (`.pack` and `.idx`) written since the last call.
    pub fn take_unsynced(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.unsynced)
    }

    /// The folder packs are written to.
    pub fn pack_dir(&self) -> &Path {
        &self.pack_dir
    }

    /// Whether a pack of whole objects was written since the last call: the repository is
    /// then larger than it needs to be until a full repack finds the deltas.
    pub fn take_plain_written(&mut self) -> bool {
        std::mem::take(&mut self.plain_written)
    }

    /// Packs written since opening (each a backend that a read may go through).
    pub fn written_packs(&self) -> usize {
        self.written_packs
    }

    /// Reads the new pack `pack-{name}` from now on, and notes its files for the next sync.
    fn add_written_pack(&mut self, name: &str) -> Result<(), GitError> {
        let index = self.pack_dir.join(format!("pack-{name}.idx"));
        self.unsynced.push(self.pack_dir.join(format!("pack-{name}.pack")));
        self.unsynced.push(index.clone());
        self.add_pack(index)
    }

    fn add_pack(&mut self, index: PathBuf) -> Result<(), GitError> {
        let odb = self.odb()?;
        let priority = c_int::try_from(self.written_packs)
            .unwrap_or(c_int::MAX)
            .saturating_add(FIRST_WRITTEN_PACK_PRIORITY)
            .min(MEMORY_PRIORITY - 1);
        add_pack_backend(&odb, &index, priority)?;
        drop(odb);
        self.written_packs += 1;
        Ok(())
    }
}

/// An object staged for the next pack.
struct Staged {
    id: Oid,
    kind: ObjectType,
    /// For a tree: the tree it was edited from.
    base: Option<Oid>,
}

/// A tree being edited: its entries, with the subtrees on edited paths opened in turn.
#[derive(Default)]
struct OpenTree {
    /// The tree it was opened from; `None` for a new folder. With its bytes, unless it went
    /// into the last pack (which those who follow the writer got or read).
    base: Option<(Oid, Option<Bytes>)>,
    entries: BTreeMap<Vec<u8>, Entry>,
    changed: bool,
}

enum Entry {
    Stored { id: Oid, mode: i32 },
    Open(OpenTree),
}

/// The ids of the blobs a large list of edits writes, by edit (an edit that writes nothing
/// gets a placeholder), hashed on every core: hashing (SHA-1 with collision detection) was
/// about half of an upload's staging time. Empty for a short list, whose blobs are hashed as
/// they are written.
fn blob_ids(edits: &[TreeEdit]) -> Result<Vec<Oid>, GitError> {
    let bytes: usize = edits.iter().map(TreeEdit::size).sum();
    if edits.len() < super::BULK_WRITES && bytes < PARALLEL_HASH_BYTES {
        return Ok(Vec::new());
    }
    let hashed = super::runs::on_threads(edits, super::runs::threads(), TreeEdit::size, |run| {
        run.iter()
            .map(|edit| match edit {
                TreeEdit::Write { contents, .. } => Oid::hash_object(ObjectType::Blob, contents),
                TreeEdit::Remove { .. } | TreeEdit::Move { .. } => Ok(Oid::ZERO_SHA1),
            })
            .collect::<Result<Vec<Oid>, git2::Error>>()
    });
    let mut ids = Vec::with_capacity(edits.len());
    for run in hashed {
        ids.extend(run.map_err(|err| git_error("cannot hash an object", err))?);
    }
    Ok(ids)
}

fn git_order(a: &[u8], a_mode: i32, b: &[u8], b_mode: i32) -> Ordering {
    let suffix = |mode| if mode == TREE_MODE { &b"/"[..] } else { &b""[..] };
    a.iter().chain(suffix(a_mode)).cmp(b.iter().chain(suffix(b_mode)))
}

unsafe extern "C" {
    /// Inserts every object of a mempack backend into a pack builder, without walking trees.
    /// Part of libgit2 (since 1.9, which git2 vendors) but not of libgit2-sys's bindings.
    fn git_mempack_write_thin_pack(backend: *mut std::ffi::c_void, builder: *mut std::ffi::c_void) -> c_int;
    /// How many objects a mempack backend holds (libgit2 1.9, not in libgit2-sys either).
    fn git_mempack_object_count(count: *mut usize, backend: *mut std::ffi::c_void) -> c_int;
}

/// Reads the loose objects of the repository whose git folder is `git_dir`.
pub(super) fn add_loose_backend(odb: &Odb<'_>, git_dir: &Path, priority: c_int) -> Result<(), GitError> {
    let objects_path = c_path(&git_dir.join("objects"))?;
    add_backend(odb, priority, |out| {
        // SAFETY: `out` is a valid place for the new backend; the path is a C string.
        // Arguments: default compression, no fsync, default folder and file modes.
        unsafe { raw::git_odb_backend_loose(out, objects_path.as_ptr(), -1, 0, 0, 0) }
    })
}

/// Reads every pack of the repository whose git folder is `git_dir` (libgit2 rereads the
/// folder when a lookup misses).
pub(super) fn add_packs_backend(odb: &Odb<'_>, git_dir: &Path, priority: c_int) -> Result<(), GitError> {
    let objects_path = c_path(&git_dir.join("objects"))?;
    add_backend(odb, priority, |out| {
        // SAFETY: `out` is a valid place for the new backend; the path is a C string.
        unsafe { raw::git_odb_backend_pack(out, objects_path.as_ptr()) }
    })
}

/// The names of the pack folder's index files (`pack-*.idx`), sorted; none when there is no
/// folder.
pub(super) fn index_names(pack_dir: &Path) -> std::io::Result<Vec<std::ffi::OsString>> {
    let entries = match std::fs::read_dir(pack_dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut found = Vec::new();
    for entry in entries {
        let name = entry?.file_name();
        let text = name.to_string_lossy();
        if text.starts_with("pack-") && text.ends_with(".idx") {
            found.push(name);
        }
    }
    found.sort();
    Ok(found)
}

/// Reads the one pack whose index is `index`.
pub(super) fn add_pack_backend(odb: &Odb<'_>, index: &Path, priority: c_int) -> Result<(), GitError> {
    let index_path = c_path(index)?;
    add_backend(odb, priority, |out| {
        // SAFETY: `out` is a valid place for the new backend; the path is a C string.
        unsafe { raw::git_odb_backend_one_pack(out, index_path.as_ptr()) }
    })
}

/// Reads the objects a repository cloned with `--shared` or `--reference` borrows from others.
pub(super) fn add_alternates(odb: &Odb<'_>, git_dir: &Path) -> Result<(), GitError> {
    let alternates = std::fs::read_to_string(git_dir.join("objects/info/alternates")).unwrap_or_default();
    for alternate in alternates.lines().map(str::trim) {
        if alternate.is_empty() || alternate.starts_with('#') {
            continue;
        }
        let path = git_dir.join("objects").join(alternate);
        odb.add_disk_alternate(&path.to_string_lossy())
            .map_err(|err| git_error(format!("cannot read the alternate objects in {alternate}"), err))?;
    }
    Ok(())
}

/// Makes a backend with `make` and hands it to `odb`, which then owns it.
fn add_backend(
    odb: &Odb<'_>,
    priority: c_int,
    make: impl FnOnce(*mut *mut raw::git_odb_backend) -> c_int,
) -> Result<(), GitError> {
    let mut backend = std::ptr::null_mut();
    let made = make(&mut backend);
    if made < 0 {
        return Err(git_error("cannot open objects", git2::Error::last_error(made)));
    }
    // SAFETY: `backend` was just made by libgit2 and is owned by nobody yet.
    let added = unsafe { raw::git_odb_add_backend(odb.raw(), backend, priority) };
    if added < 0 {
        // SAFETY: the object database did not take the backend, so it is still ours to free.
        unsafe {
            if let Some(free) = (*backend).free {
                free(backend);
            }
        }
        return Err(git_error("cannot open objects", git2::Error::last_error(added)));
    }
    Ok(())
}

fn c_path(path: &Path) -> Result<CString, GitError> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|err| GitError::internal(format!("{} cannot be passed to libgit2", path.display()), err))
}

fn git_error(context: impl Into<String>, err: git2::Error) -> GitError {
    GitError::internal(context, err)
}
