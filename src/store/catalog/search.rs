//! What keyword searches run on: a key's searched fields lower-cased, the keyword as it is
//! looked for in them, the postings of the three-byte sequences that narrow the keys to look
//! at, and the recent searches' matches.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::domain::model::{Key, TextRef};
use crate::domain::query::matches_keyword;

/// The ids of the entries whose text holds one three-byte sequence, ascending, each stored as
/// a varint of its distance from the previous one.
#[derive(Default)]
pub(super) struct Postings {
    pub(super) bytes: Vec<u8>,
    /// One past the last id pushed.
    pub(super) next: u32,
    pub(super) count: u32,
}

impl Postings {
    pub(super) fn push(&mut self, id: u32) {
        let mut delta = id - self.next;
        loop {
            let low = (delta & 0x7f) as u8;
            delta >>= 7;
            if delta == 0 {
                self.bytes.push(low);
                break;
            }
            self.bytes.push(low | 0x80);
        }
        self.next = id + 1;
        self.count += 1;
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        let mut bytes = self.bytes.iter();
        let mut next = 0u32;
        std::iter::from_fn(move || {
            let mut delta = 0u32;
            let mut shift = 0;
            loop {
                let byte = *bytes.next()?;
                delta |= u32::from(byte & 0x7f) << shift;
                if byte & 0x80 == 0 {
                    break;
                }
                shift += 7;
            }
            let id = next + delta;
            next = id + 1;
            Some(id)
        })
    }
}

pub(super) fn pack_gram(gram: &[u8]) -> u32 {
    u32::from_le_bytes([gram[0], gram[1], gram[2], 0])
}

/// Keywords with the ids of the entries they match (in name order), most recent first.
#[derive(Default)]
pub(super) struct SearchCache {
    pub(super) recent: VecDeque<(String, Arc<[u32]>)>,
}

/// Keywords whose matches are kept.
pub(super) const CACHED_SEARCHES: usize = 16;

impl SearchCache {
    pub(super) fn get(&mut self, keyword: &str) -> Option<Arc<[u32]>> {
        let position = self.recent.iter().position(|(cached, _)| cached == keyword)?;
        let hit = self.recent.remove(position)?;
        let matches = hit.1.clone();
        self.recent.push_front(hit);
        Some(matches)
    }

    pub(super) fn insert(&mut self, keyword: &str, matches: Arc<[u32]>) {
        self.recent.retain(|(cached, _)| cached != keyword);
        self.recent.push_front((keyword.to_owned(), matches));
        self.recent.truncate(CACHED_SEARCHES);
    }
}

/// Separates the fields of a key in its lower-cased text, so that a keyword cannot match across
/// the end of one translation and the start of the next.
pub(super) const FIELD_SEPARATOR: char = '\0';

/// The fields a keyword is looked for in: the name, the description, and every text as
/// written (each plural form on its own).
pub(super) fn searched_fields(key: &Key) -> impl Iterator<Item = &str> {
    std::iter::once(key.name.as_str())
        .chain((!key.description.is_empty()).then_some(key.description.as_str()))
        .chain(
            key.translations
                .iter_written()
                .flat_map(|(_, text, _)| TextRef::strings(text)),
        )
}

/// The searched fields of a key, lower-cased and joined by the field separator, into `out`
/// (emptied first).
pub(super) fn lowered_text(key: &Key, out: &mut String) {
    out.clear();
    for (index, field) in searched_fields(key).enumerate() {
        if index > 0 {
            out.push(FIELD_SEPARATOR);
        }
        if field.is_ascii() {
            let start = out.len();
            out.push_str(field);
            out[start..].make_ascii_lowercase();
        } else {
            out.push_str(&field.to_lowercase());
        }
    }
}

/// A lower-cased keyword, prepared once per query, and how it is looked for in a key's
/// searched fields.
#[allow(clippy::large_enum_variant, reason = "one per query, on the stack")]
pub enum Keyword<'a> {
    Plain {
        /// Finds the keyword in a lower-cased field.
        lowered: memchr::memmem::Finder<'a>,
        /// The keyword's bytes, looked for in an ASCII field without regard to ASCII case, so
        /// that the field need not be lower-cased first.
        keyword: &'a [u8],
        /// Whether the keyword is ASCII: no ASCII field holds one that is not.
        ascii: bool,
    },
    /// A keyword holding the field separator, checked field by field.
    WithSeparator(&'a str),
}

impl<'a> Keyword<'a> {
    pub fn new(lowered: &'a str) -> Self {
        if lowered.contains(FIELD_SEPARATOR) {
            return Self::WithSeparator(lowered);
        }
        Self::Plain {
            lowered: memchr::memmem::Finder::new(lowered.as_bytes()),
            keyword: lowered.as_bytes(),
            ascii: lowered.is_ascii(),
        }
    }

    /// Whether the keyword occurs in the key's name, description or one of its texts.
    pub(super) fn matches(&self, key: &Key) -> bool {
        match self {
            Self::Plain {
                lowered,
                keyword,
                ascii,
            } => searched_fields(key).any(|field| {
                if field.is_ascii() {
                    *ascii && contains_ignoring_ascii_case(field.as_bytes(), keyword)
                } else {
                    lowered.find(field.to_lowercase().as_bytes()).is_some()
                }
            }),
            Self::WithSeparator(keyword) => {
                let lowered: Vec<String> = searched_fields(key).map(str::to_lowercase).collect();
                matches_keyword(keyword, lowered.iter().map(String::as_str))
            }
        }
    }
}

/// Whether `haystack` holds `lowered` (lower-case ASCII) without regard to ASCII
/// case: each place where its first byte starts, in either case, is compared.
pub(super) fn contains_ignoring_ascii_case(haystack: &[u8], lowered: &[u8]) -> bool {
    let Some((&first, rest)) = lowered.split_first() else {
        return true;
    };
    let last_start = match haystack.len().checked_sub(lowered.len()) {
        Some(last_start) => last_start,
        None => return false,
    };
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), &haystack[..=last_start])
        .any(|start| haystack[start + 1..start + lowered.len()].eq_ignore_ascii_case(rest))
}
