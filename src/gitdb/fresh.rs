//! The objects a batch's pack holds, as they were before compression, which the writer hands
//! to those who follow it ([`super::follow`]) so that they read them from memory; and putting
//! an object into libgit2's in-memory backend under its known id.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use git2::{Binding, ObjectType, Oid};
use libgit2_sys as raw;

use super::{GitError, git_error};

/// The objects of a pack the writer wrote, uncompressed, each with its id and type.
#[derive(Default)]
pub struct FreshObjects {
    data: Vec<u8>,
    objects: Vec<(Oid, ObjectType, Range<usize>)>,
}

impl FreshObjects {
    pub(super) fn add(&mut self, id: Oid, kind: ObjectType, data: &[u8]) {
        let start = self.data.len();
        self.data.extend_from_slice(data);
        self.objects.push((id, kind, start..self.data.len()));
    }

    /// The bytes of all the objects.
    pub(super) fn bytes(&self) -> usize {
        self.data.len()
    }

    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (Oid, ObjectType, &[u8])> {
        self.objects
            .iter()
            .map(|(id, kind, range)| (*id, *kind, &self.data[range.clone()]))
    }

    /// The objects, each one's bytes a share of the whole (nothing copied).
    pub(super) fn shared(self: &Arc<Self>) -> impl Iterator<Item = (Oid, ObjectType, Bytes)> + '_ {
        let all = Bytes::from_owner(Whole(self.clone()));
        self.objects
            .iter()
            .map(move |(id, kind, range)| (*id, *kind, all.slice(range.clone())))
    }
}

/// The bytes of all the objects, as [`Bytes`] share them.
struct Whole(Arc<FreshObjects>);

impl AsRef<[u8]> for Whole {
    fn as_ref(&self) -> &[u8] {
        &self.0.data
    }
}

/// Puts the object `id` (whose hash is known, so libgit2 does not compute it) into the
/// in-memory backend `mempack`, which copies it.
///
/// # Safety
/// `mempack` must be a live mempack backend (one of `git_mempack_new`'s).
pub(super) unsafe fn mempack_put(
    mempack: *mut raw::git_odb_backend,
    id: Oid,
    kind: ObjectType,
    data: &[u8],
) -> Result<(), GitError> {
    let raw_kind = match kind {
        ObjectType::Blob => raw::GIT_OBJECT_BLOB,
        ObjectType::Tree => raw::GIT_OBJECT_TREE,
        ObjectType::Commit => raw::GIT_OBJECT_COMMIT,
        ObjectType::Tag => raw::GIT_OBJECT_TAG,
        _ => return Err(GitError::internal("cannot write an object", "unexpected object type")),
    };
    // SAFETY: the caller vouches for the backend, whose `write` copies the data; the id and
    // data pointers are valid for the call.
    let written = unsafe {
        match (*mempack).write {
            Some(write) => write(mempack, id.raw(), data.as_ptr().cast(), data.len(), raw_kind),
            None => -1,
        }
    };
    if written < 0 {
        return Err(git_error(
            "cannot put an object into memory",
            git2::Error::last_error(written),
        ));
    }
    Ok(())
}
