//! The trees the writer wrote, as bytes by id, and a tree's entries read from its bytes as
//! libgit2 reads them.
//!
//! Each commit rewrites the trees on the paths it edits, from the root down to the key's
//! folder, and the next commit opens most of them again: without this cache each was read
//! back from the pack just written (a lookup through the packs, inflated, parsed by libgit2)
//! and each key folder, when its version was older, from a pack further down. The cache keeps
//! the newest version of every tree the writer wrote (a tree's older version goes when a newer
//! one is written), so it holds about as much as the repository's trees do, up to
//! [`MOST_BYTES`]. The older versions the commits were edited from are also what those who
//! follow the writer compare each commit with: they are handed over with the new objects
//! ([`super::objects::Staging::write_pack`]).

use std::collections::HashMap;

use bytes::Bytes;
use git2::Oid;

use super::raw_tree::RawTree;

/// The most bytes of trees kept; past it the cache starts again from empty.
const MOST_BYTES: usize = 32 << 20;

/// Trees by id, each with the pack it went into (counted from the cache's start), `bytes`
/// in all.
#[derive(Default)]
pub(super) struct TreeCache {
    trees: HashMap<Oid, (Bytes, u64)>,
    bytes: usize,
    /// The pack being staged.
    pack: u64,
}

/// A tree read from the cache.
pub(super) struct Cached {
    pub data: Bytes,
    /// Whether it went into the pack before the one being staged.
    pub in_last_pack: bool,
}

impl TreeCache {
    pub(super) fn get(&self, id: Oid) -> Option<Cached> {
        self.trees.get(&id).map(|(data, pack)| Cached {
            data: data.clone(),
            in_last_pack: *pack + 1 == self.pack,
        })
    }

    /// Keeps `data`, the tree `id` written as a new version of `base` (which goes).
    pub(super) fn replace(&mut self, base: Option<Oid>, id: Oid, data: Bytes) {
        if let Some((old, _)) = base.and_then(|base| self.trees.remove(&base)) {
            self.bytes -= old.len();
        }
        if self.bytes + data.len() > MOST_BYTES {
            self.trees.clear();
            self.bytes = 0;
        }
        self.bytes += data.len();
        if let Some((old, _)) = self.trees.insert(id, (data, self.pack)) {
            self.bytes -= old.len();
        }
    }

    /// The pack being staged was written: the trees kept from now on go into the next.
    pub(super) fn pack_written(&mut self) {
        self.pack += 1;
    }

    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The entries of the tree `id` whose bytes are `data`: name, mode (as libgit2 answers it,
/// [`normalized`]) and id, in the tree's order; `None` when the data is no well-formed tree.
pub(super) fn entries(id: Oid, data: Bytes) -> Option<Vec<(Vec<u8>, i32, Oid)>> {
    let tree = RawTree::new(id, data);
    let mut iter = tree.iter();
    let entries = iter
        .by_ref()
        .map(|entry| (entry.name.to_vec(), normalized(entry.mode), entry.id))
        .collect();
    iter.is_done().then_some(entries)
}

/// A mode as libgit2 answers it for a tree's entry: old versions of git wrote modes such as
/// `100664`, read as a plain file, and any mode with the owner's execute bit as an
/// executable one.
fn normalized(mode: u32) -> i32 {
    const KIND: u32 = 0o170000;
    const FOLDER: u32 = 0o040000;
    const SUBMODULE: u32 = 0o160000;
    const LINK: u32 = 0o120000;
    let normal = if mode & KIND == FOLDER {
        FOLDER
    } else if mode & 0o100 != 0 {
        0o100755
    } else if mode & KIND == SUBMODULE {
        SUBMODULE
    } else if mode & KIND == LINK {
        LINK
    } else {
        0o100644
    };
    normal as i32
}

#[cfg(test)]
mod tests {
    use git2::{ObjectType, Repository};

    use super::*;

    fn id(byte: u8) -> Oid {
        Oid::from_bytes(&[byte; 20]).unwrap()
    }

    #[test]
    fn a_newer_version_replaces_the_older_and_the_cache_empties_past_its_size() {
        let mut cache = TreeCache::default();
        cache.replace(None, id(1), Bytes::from_static(b"one"));
        cache.replace(Some(id(1)), id(2), Bytes::from_static(b"second"));
        assert!(cache.get(id(1)).is_none());
        assert_eq!(cache.get(id(2)).unwrap().data, &b"second"[..]);
        assert!(!cache.get(id(2)).unwrap().in_last_pack);
        cache.pack_written();
        assert!(cache.get(id(2)).unwrap().in_last_pack);
        cache.pack_written();
        assert!(!cache.get(id(2)).unwrap().in_last_pack);
        assert_eq!(cache.bytes(), 6);
        cache.replace(None, id(2), Bytes::from_static(b"second"));
        assert_eq!(cache.bytes(), 6, "the same tree written twice is counted once");
        cache.replace(None, id(3), Bytes::from(vec![0; MOST_BYTES - 6]));
        assert_eq!(cache.bytes(), MOST_BYTES);
        cache.replace(None, id(4), Bytes::from_static(b"four"));
        assert!(cache.get(id(2)).is_none() && cache.get(id(3)).is_none());
        assert_eq!(cache.bytes(), 4);
    }

    /// The entries and modes read from a tree's bytes are libgit2's, also for the modes old
    /// versions of git wrote, which libgit2 reads as today's.
    #[test]
    fn entries_and_modes_are_read_as_libgit2_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let blob = repo.blob(b"text").unwrap();
        let mut data = Vec::new();
        for (mode, name) in [
            ("100644", "a.toml"),
            ("100664", "b-group-writable"),
            ("100755", "c-run"),
            ("100744", "d-owner-runs"),
            ("120000", "e-link"),
            ("160000", "f-module"),
            ("40000", "g-folder"),
        ] {
            data.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            data.extend_from_slice(blob.as_bytes());
        }
        let tree_id = repo.odb().unwrap().write(ObjectType::Tree, &data).unwrap();
        let read = entries(tree_id, Bytes::from(data.clone())).unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        let expected: Vec<(Vec<u8>, i32, Oid)> = tree
            .iter()
            .map(|entry| (entry.name_bytes().to_vec(), entry.filemode(), entry.id()))
            .collect();
        assert_eq!(read, expected);
        assert_eq!(read[1].1, 0o100644);
        assert_eq!(read[3].1, 0o100755);

        data.truncate(data.len() - 3);
        assert!(entries(tree_id, Bytes::from(data)).is_none(), "a cut tree is no tree");
    }
}
