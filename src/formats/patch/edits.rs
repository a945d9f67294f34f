//! The edits a patcher makes to an app's file, and the patched file as those edits over the
//! file's bytes: a file of tens of MB with a few entries changed is written out from the file
//! and its few edits, never copied whole into a new one.

use std::io::Write;
use std::ops::Range;

/// Replacements in a text, gathered in any order: each a range of the text and its new text.
/// Insertions are empty ranges; several at one place keep the order they were added in.
#[derive(Default)]
pub(super) struct Edits {
    edits: Vec<(Range<usize>, String)>,
}

impl Edits {
    pub(super) fn replace(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.edits.push((range, text.into()));
    }

    pub(super) fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.replace(at..at, text);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The edits of a text that is the file's bytes from `offset` on (the file's text after
    /// its byte order mark), in order and as ranges of the file's bytes. Overlapping edits are
    /// a bug of the patcher: the later of two is dropped rather than corrupting the file.
    pub(super) fn of_file(mut self, offset: usize) -> Edited {
        // Stable: insertions at one place stay in the order added.
        self.edits.sort_by_key(|(range, _)| (range.start, range.end));
        let mut end = 0;
        let mut edits = Vec::with_capacity(self.edits.len());
        for (range, replacement) in self.edits {
            if range.start < end {
                debug_assert!(false, "overlapping edits at {range:?}");
                continue;
            }
            end = range.end;
            edits.push((range.start + offset..range.end + offset, replacement));
        }
        Edited { edits }
    }

    /// The text with every edit made.
    pub(super) fn apply(self, text: &str) -> String {
        let bytes = self.of_file(0).to_bytes(text.as_bytes());
        // Every range was sliced at characters by the patcher, every replacement is text.
        String::from_utf8(bytes).expect("edits at character boundaries")
    }
}

/// An app's file with edits made to its bytes, in order and not overlapping; none is the file
/// as it is.
#[derive(Default)]
pub struct Edited {
    edits: Vec<(Range<usize>, String)>,
}

impl Edited {
    /// Writes the edited `file` (the file these edits were made to) into `out`.
    pub fn write(&self, file: &[u8], out: &mut dyn Write) -> std::io::Result<()> {
        let mut at = 0;
        for (range, replacement) in &self.edits {
            out.write_all(&file[at..range.start])?;
            out.write_all(replacement.as_bytes())?;
            at = range.end;
        }
        out.write_all(&file[at..])
    }

    /// The edited `file`'s bytes.
    pub fn to_bytes(&self, file: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len(file));
        self.write(file, &mut out).expect("writing into memory does not fail");
        out
    }

    /// The length of the edited `file`.
    pub fn len(&self, file: &[u8]) -> usize {
        let removed: usize = self.edits.iter().map(|(range, _)| range.len()).sum();
        let added: usize = self.edits.iter().map(|(_, replacement)| replacement.len()).sum();
        file.len() - removed + added
    }

    /// Whether the edited `file` has the file's own bytes (no edit, or each one putting back
    /// what it replaces).
    pub fn keeps(&self, file: &[u8]) -> bool {
        self.edits
            .iter()
            .all(|(range, replacement)| file[range.clone()] == *replacement.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_of_a_text_after_a_byte_order_mark_are_made_to_the_files_bytes() {
        let file = "\u{feff}one two three".as_bytes();
        let text = std::str::from_utf8(&file[3..]).unwrap();
        let mut edits = Edits::default();
        // Out of order, an insertion before a replacement at the same place, a deletion.
        edits.replace(8..13, "3");
        edits.insert(4, "and ");
        edits.replace(4..7, "2");
        edits.replace(0..4, "");
        let edited = edits.of_file(file.len() - text.len());
        let bytes = edited.to_bytes(file);
        assert_eq!(String::from_utf8(bytes.clone()).unwrap(), "\u{feff}and 2 3");
        assert_eq!(edited.len(file), bytes.len());
        let mut written = Vec::new();
        edited.write(file, &mut written).unwrap();
        assert_eq!(written, bytes);
        assert!(!edited.keeps(file));
    }

    #[test]
    fn edits_that_put_back_what_they_replace_keep_the_file() {
        let file = b"a = 1\nb = 2\n";
        let mut edits = Edits::default();
        edits.replace(4..5, "1");
        assert!(edits.of_file(0).keeps(file));
        assert!(Edited::default().keeps(file));
        assert_eq!(Edited::default().to_bytes(file), file);
        let mut edits = Edits::default();
        edits.insert(12, "c = 3\n");
        assert!(!edits.of_file(0).keeps(file));
    }
}
