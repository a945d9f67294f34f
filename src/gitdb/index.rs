//! The git index kept in step with HEAD entry by entry: each touched path's entry taken from
//! the tree, with its file's status in the working tree, so that `git status` (and the next
//! sync) need not hash the file.

use std::path::Path;

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

use super::{GitError, git_error};

/// Makes the index's entries at `path` (a file, or every file under a folder) those of `tree`,
/// each with its file's status in the working tree at `root`.
pub(super) fn update_index_entry(
    repo: &Repository,
    root: &Path,
    index: &mut git2::Index,
    tree: &git2::Tree<'_>,
    path: &str,
) -> Result<(), GitError> {
    let fail = |err: git2::Error| git_error(format!("cannot update the index at {path}"), err);
    let blob_entry = |path: String, id: Oid, mode: i32| {
        let mut entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: mode as u32,
            uid: 0,
            gid: 0,
            file_size: 0,
            id,
            flags: 0,
            flags_extended: 0,
            path: Vec::new(),
        };
        if let Ok(meta) = std::fs::symlink_metadata(root.join(&path)) {
            set_file_status(&mut entry, &meta);
        }
        entry.path = path.into_bytes();
        entry
    };
    // Whatever else was there before goes: a folder's files, or the file where a folder is
    // now. (Removing an entry moves every entry after it, so a file HEAD still has is
    // replaced in place instead.)
    index.remove_dir(Path::new(path), 0).map_err(fail)?;
    let entry = tree.get_path(Path::new(path)).ok();
    if entry.as_ref().and_then(git2::TreeEntry::kind) != Some(ObjectType::Blob) {
        let _ = index.remove_path(Path::new(path));
    }
    let Some(entry) = entry else {
        return Ok(());
    };
    match entry.kind() {
        Some(ObjectType::Blob) => index
            .add(&blob_entry(path.to_owned(), entry.id(), entry.filemode()))
            .map_err(fail),
        Some(ObjectType::Tree) => {
            let folder = entry
                .to_object(repo)
                .and_then(|object| object.peel_to_tree())
                .map_err(fail)?;
            let mut failed = None;
            folder
                .walk(TreeWalkMode::PreOrder, |parent, file| {
                    if file.kind() == Some(ObjectType::Blob) {
                        let path = format!("{path}/{parent}{}", String::from_utf8_lossy(file.name_bytes()));
                        if let Err(err) = index.add(&blob_entry(path, file.id(), file.filemode())) {
                            failed = Some(err);
                            return TreeWalkResult::Abort;
                        }
                    }
                    TreeWalkResult::Ok
                })
                .map_err(fail)?;
            failed.map_or(Ok(()), |err| Err(fail(err)))
        }
        _ => Ok(()),
    }
}

/// Records a file's status in its index entry, if the index has one (HEAD holds the file).
pub(super) fn refresh_entry(index: &mut git2::Index, relative: &Path, full: &Path) -> Result<(), GitError> {
    let Some(mut entry) = index.get_path(relative, 0) else {
        return Ok(());
    };
    let Ok(meta) = std::fs::symlink_metadata(full) else {
        return Ok(());
    };
    set_file_status(&mut entry, &meta);
    index
        .add(&entry)
        .map_err(|err| git_error(format!("cannot update the index entry of {}", relative.display()), err))
}

/// Copies a file's status into its index entry, so that `git status` need not hash the file.
fn set_file_status(entry: &mut git2::IndexEntry, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;

    // The index stores 32-bit fields; git truncates the same way.
    entry.ctime = git2::IndexTime::new(meta.ctime() as i32, meta.ctime_nsec() as u32);
    entry.mtime = git2::IndexTime::new(meta.mtime() as i32, meta.mtime_nsec() as u32);
    entry.dev = meta.dev() as u32;
    entry.ino = meta.ino() as u32;
    entry.uid = meta.uid();
    entry.gid = meta.gid();
    entry.file_size = meta.len() as u32;
}
