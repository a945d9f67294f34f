//! Applies tree edits to the working tree, so that the files on disk match HEAD.
//!
//! Files are rewritten in place, not written beside and renamed: a rename frees the old file's
//! inode, and on ext4 without a journal each recently freed inode slows the next file
//! creation down. A crash can leave half a file, which is harmless: the working tree is only
//! a copy of HEAD, and start-up after an unclean stop resets it to HEAD. Folders left empty by
//! a removal or a move are removed, as git would not track them anyway.

use std::fs;
use std::path::Path;

use super::GitError;
use super::edit::TreeEdit;
use super::runs;

/// Edits from which a list of new or rewritten files is written by two threads (an import of
/// 2,000 keys is 2,000 files; a thread costs far less than the hundred files it takes over).
const PARALLEL_WRITES: usize = 200;

/// What creating a file costs, about, in bytes written: tens of kilobytes' worth. Weighed
/// so, the thousands of small key files of an upload are shared by count, and a few files of
/// megabytes (its kept files) by their size.
const FILE_CREATION_BYTES: usize = 32 << 10;

/// Applies `edits` in order under `root`.
pub fn apply(root: &Path, edits: &[TreeEdit]) -> Result<(), GitError> {
    // A large list of writes only (an import, an upload) names each file once, so the order
    // does not matter; most of its time is the file system creating files, which two threads
    // overlap.
    let only_writes = edits.iter().all(|edit| matches!(edit, TreeEdit::Write { .. }));
    if edits.len() >= PARALLEL_WRITES && only_writes {
        // Halves of about the same work, a file's creation weighing as much as writing
        // [`FILE_CREATION_BYTES`]: an upload's kept files are a few large ones after thousands
        // of small key files.
        let work = |edit: &TreeEdit| edit.size() + FILE_CREATION_BYTES;
        return runs::on_threads(edits, 2, work, |half| apply_in_order(root, half))
            .into_iter()
            .collect();
    }
    apply_in_order(root, edits)
}

fn apply_in_order(root: &Path, edits: &[TreeEdit]) -> Result<(), GitError> {
    for edit in edits {
        match edit {
            TreeEdit::Write { path, contents } => write_file(root, path, contents)?,
            TreeEdit::Remove { path } => {
                let full = root.join(path);
                let result = if full.is_dir() {
                    fs::remove_dir_all(&full)
                } else {
                    fs::remove_file(&full)
                };
                match result {
                    Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                        return Err(GitError::io(full, err));
                    }
                    _ => remove_empty_parents(root, &full),
                }
            }
            TreeEdit::Move { from, to } => {
                let (from, to) = (root.join(from), root.join(to));
                create_parent(&to)?;
                fs::rename(&from, &to).map_err(|err| GitError::io(&from, err))?;
                remove_empty_parents(root, &from);
            }
        }
    }
    Ok(())
}

/// The paths an edit list touches, for the next index sync.
pub fn touched_paths(edits: &[TreeEdit]) -> impl Iterator<Item = &str> {
    edits
        .iter()
        .flat_map(|edit| match edit {
            TreeEdit::Write { path, .. } | TreeEdit::Remove { path } => [Some(path.as_str()), None],
            TreeEdit::Move { from, to } => [Some(from.as_str()), Some(to.as_str())],
        })
        .flatten()
}

fn write_file(root: &Path, path: &str, contents: &[u8]) -> Result<(), GitError> {
    let full = root.join(path);
    // The folder is there but for the first key in it: try the write first, and make the folder
    // only when it is missing (one system call per file rather than a `mkdir` that fails too).
    match fs::write(&full, contents) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            create_parent(&full)?;
            fs::write(&full, contents)
        }
        result => result,
    }
    .map_err(|err| GitError::io(&full, err))
}

fn create_parent(path: &Path) -> Result<(), GitError> {
    match path.parent() {
        Some(parent) => fs::create_dir_all(parent).map_err(|err| GitError::io(parent, err)),
        None => Ok(()),
    }
}

fn remove_empty_parents(root: &Path, removed: &Path) {
    let mut dir = removed.parent();
    while let Some(current) = dir {
        // `remove_dir` fails on a folder that still has entries, which is where we stop.
        if current == root || fs::remove_dir(current).is_err() {
            break;
        }
        dir = current.parent();
    }
}
