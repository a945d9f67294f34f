//! A change to a tree as a value: what the object staging writes into a commit's tree and
//! the working-tree sync writes into the files, both from the same list.

/// One change to a tree, applied both to the commit's tree and to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEdit {
    /// Create or replace a file.
    Write { path: String, contents: bytes::Bytes },
    /// Remove a file or a whole folder.
    Remove { path: String },
    /// Move a folder (a rename of a team or project).
    Move { from: String, to: String },
}

impl TreeEdit {
    /// The bytes the edit writes (none but a write's contents).
    pub fn size(&self) -> usize {
        match self {
            TreeEdit::Write { contents, .. } => contents.len(),
            TreeEdit::Remove { .. } | TreeEdit::Move { .. } => 0,
        }
    }
}
