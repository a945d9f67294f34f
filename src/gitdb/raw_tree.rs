//! Git trees read from their bytes, without libgit2's objects: a tree is its data, shared,
//! and its entries are found by walking that data. Comparing two commits' trees this way
//! makes nothing but the bytes (libgit2 copies each object out of its store, parses its
//! entries into an array of their own and keeps it in a cache for the process, all freed one
//! by one later); the webhooks' feed, which compares every new commit with its parent, spent
//! most of its time there.

use bytes::Bytes;
use git2::{Oid, Repository};

/// Where objects' bytes are read from.
pub trait Objects {
    /// The data of the object `id` (without git's header).
    fn read(&self, id: Oid) -> Result<Bytes, git2::Error>;
}

impl Objects for Repository {
    fn read(&self, id: Oid) -> Result<Bytes, git2::Error> {
        let odb = self.odb()?;
        let object = odb.read(id)?;
        Ok(Bytes::copy_from_slice(object.data()))
    }
}

/// A tree's mode for a folder.
const FOLDER: u32 = 0o040000;
/// The mode bits that say what an entry is.
const KIND: u32 = 0o170000;
const FILE: u32 = 0o100000;
const LINK: u32 = 0o120000;

/// A tree as its bytes: entries of `<octal mode> <name>\0<20-byte id>`, in git's order.
#[derive(Clone, Debug)]
pub struct RawTree {
    id: Oid,
    data: Bytes,
}

impl RawTree {
    /// The tree `id` whose bytes are `data`.
    pub fn new(id: Oid, data: Bytes) -> Self {
        Self { id, data }
    }

    pub fn read(objects: &(impl Objects + ?Sized), id: Oid) -> Result<Self, git2::Error> {
        Ok(Self {
            id,
            data: objects.read(id)?,
        })
    }

    pub fn id(&self) -> Oid {
        self.id
    }

    /// The entries in order. Data that is no tree ends them early (git writes none such).
    pub fn iter(&self) -> Entries<'_> {
        Entries { rest: &self.data }
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<Entry<'_>> {
        self.iter().find(|entry| entry.name == name.as_bytes())
    }

    /// The folder at `path` (`/`-separated) under this tree, if there is one.
    pub fn folder_at(&self, objects: &(impl Objects + ?Sized), path: &str) -> Result<Option<Self>, git2::Error> {
        match self.get_path(objects, path)? {
            Some((FOLDER, id)) => Self::read(objects, id).map(Some),
            _ => Ok(None),
        }
    }

    /// The entry at `path` (`/`-separated) under this tree, reading the folders on the way:
    /// its mode and id.
    pub fn get_path(&self, objects: &(impl Objects + ?Sized), path: &str) -> Result<Option<(u32, Oid)>, git2::Error> {
        let mut parts = path.split('/');
        let Some(first) = parts.next() else { return Ok(None) };
        let Some(entry) = self.get(first) else { return Ok(None) };
        let mut found = (entry.mode, entry.id);
        for part in parts {
            if found.0 != FOLDER {
                return Ok(None);
            }
            let folder = Self::read(objects, found.1)?;
            let Some(entry) = folder.get(part) else { return Ok(None) };
            found = (entry.mode, entry.id);
        }
        Ok(Some(found))
    }
}

/// One entry of a tree, borrowed from its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'t> {
    pub name: &'t [u8],
    pub mode: u32,
    pub id: Oid,
}

impl<'t> Entry<'t> {
    pub fn is_folder(&self) -> bool {
        self.mode == FOLDER
    }

    /// A file or a symbolic link (a blob, as libgit2 has them).
    pub fn is_blob(&self) -> bool {
        matches!(self.mode & KIND, FILE | LINK)
    }

    /// The name, when it is UTF-8.
    pub fn name_str(&self) -> Option<&'t str> {
        std::str::from_utf8(self.name).ok()
    }
}

/// The entries of a [`RawTree`].
pub struct Entries<'t> {
    rest: &'t [u8],
}

impl Entries<'_> {
    /// Whether the tree's data was read to its end (not stopped early by data that is no
    /// tree's).
    pub fn is_done(&self) -> bool {
        self.rest.is_empty()
    }
}

impl<'t> Iterator for Entries<'t> {
    type Item = Entry<'t>;

    fn next(&mut self) -> Option<Entry<'t>> {
        let space = self.rest.iter().position(|&byte| byte == b' ')?;
        let mode = self.rest[..space].iter().try_fold(0u32, |mode, &digit| {
            (b'0'..=b'7')
                .contains(&digit)
                .then(|| (mode << 3) | u32::from(digit - b'0'))
        })?;
        let after_mode = &self.rest[space + 1..];
        let nul = after_mode.iter().position(|&byte| byte == 0)?;
        let (name, after_name) = (&after_mode[..nul], &after_mode[nul + 1..]);
        let id = Oid::from_bytes(after_name.get(..20)?).ok()?;
        self.rest = &after_name[20..];
        Some(Entry { name, mode, id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::gitdb::run_git as git;

    /// Every entry libgit2 reads from a tree (files, folders, a link, an executable, names
    /// with spaces and non-ASCII), read the same from its bytes.
    #[test]
    fn entries_read_from_the_bytes_are_libgit2s() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        for (path, text) in [("a b", "1"), ("dir/é.toml", "2"), ("dir/sub/x", "3"), ("run.sh", "4")] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::os::unix::fs::symlink("a b", root.join("link")).unwrap();
        git(root, &["add", "-A"]);
        git(root, &["update-index", "--chmod=+x", "run.sh"]);
        git(root, &["commit", "-qm", "one"]);

        let repo = Repository::open(root).unwrap();
        let tree = repo.head().unwrap().peel_to_tree().unwrap();
        let raw = RawTree::read(&repo, tree.id()).unwrap();
        let ours: Vec<(Vec<u8>, u32, Oid, bool, bool)> = raw
            .iter()
            .map(|entry| {
                (
                    entry.name.to_vec(),
                    entry.mode,
                    entry.id,
                    entry.is_folder(),
                    entry.is_blob(),
                )
            })
            .collect();
        let theirs: Vec<(Vec<u8>, u32, Oid, bool, bool)> = tree
            .iter()
            .map(|entry| {
                let kind = entry.kind();
                (
                    entry.name_bytes().to_vec(),
                    entry.filemode() as u32,
                    entry.id(),
                    kind == Some(git2::ObjectType::Tree),
                    kind == Some(git2::ObjectType::Blob),
                )
            })
            .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 4);

        let path = |path: &str| raw.get_path(&repo, path).unwrap().map(|(_, id)| id);
        let entry = |path: &str| tree.get_path(std::path::Path::new(path)).ok().map(|entry| entry.id());
        for probe in [
            "dir/sub/x",
            "dir/é.toml",
            "dir/sub",
            "link",
            "dir/missing",
            "a b/x",
            "missing/x",
        ] {
            assert_eq!(path(probe), entry(probe), "{probe}");
        }
        assert_eq!(raw.get("run.sh").unwrap().mode, 0o100755);
        assert!(raw.get("dir").unwrap().is_folder());
    }

    #[test]
    fn data_that_is_no_tree_ends_the_entries() {
        let tree = |data: &'static [u8]| RawTree {
            id: Oid::ZERO_SHA1,
            data: Bytes::from_static(data),
        };
        assert_eq!(tree(b"").iter().count(), 0);
        assert_eq!(tree(b"100644 a\0short").iter().count(), 0);
        assert_eq!(tree(b"10064x a\0aaaaaaaaaaaaaaaaaaaa").iter().count(), 0);
        let mut one = b"100644 a\0".to_vec();
        one.extend([7; 20]);
        one.extend(b"100644 b");
        let one: &'static [u8] = one.leak();
        assert_eq!(tree(one).iter().map(|entry| entry.name).collect::<Vec<_>>(), [b"a"]);
    }
}
