//! The in-memory view of HEAD: teams, projects and, once a project is first used, its keys.
//!
//! Only the writer thread changes the catalog. It applies each change of a batch as it stages
//! the change's commit, holding the write lock from the first change until the branch has
//! moved past the last, so a reader sees a change whole or not at all, and only once it is in
//! HEAD.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::domain::model::{Key, Project, Team};
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo, matches_keyword};

#[derive(Default)]
pub struct Catalog {
    pub teams: BTreeMap<TeamName, TeamEntry>,
}

pub struct TeamEntry {
    pub team: Team,
    pub projects: BTreeMap<ProjectName, ProjectEntry>,
}

pub struct ProjectEntry {
    pub project: Project,
    /// `None` until the project's keys are first needed.
    pub keys: Option<KeyIndex>,
}

/// A project's keys, sorted by name in code point order.
///
/// Entries are boxed so that inserting into the middle of 100,000 of them moves pointers, not
/// whole entries; a page is then a slice of the vector, found by position.
///
/// For keyword search, the lower-cased name and translations of every key live in one
/// contiguous arena, with a span per entry (same order as `entries`). A search then runs a
/// SIMD substring finder over memory that is mostly sequential, instead of chasing one heap
/// pointer per key. Replaced text stays in the arena as garbage until it is compacted.
#[derive(Default)]
pub struct KeyIndex {
    // Clippy's `vec_box` assumes small elements; a `KeyEntry` is a few hundred bytes, and moving
    // 100,000 of them per insertion is what the boxes avoid.
    #[allow(clippy::vec_box)]
    entries: Vec<Box<KeyEntry>>,
    /// Start and length in `arena` of each entry's lower-cased text.
    spans: Vec<(u32, u32)>,
    arena: Vec<u8>,
    /// Bytes of `arena` that no entry points to any more.
    garbage: usize,
    /// The keys whose file is not where the layout would put it (files made by hand), by file,
    /// to refuse a new key whose file is taken. A key in its own layout file needs no entry:
    /// another name maps to the same file only if 64 bits of SHA-256 collide, and leaving
    /// those keys out saves about 15 MB per 100,000 keys.
    owners: HashMap<String, KeyName>,
    /// The matches of the last few keywords searched for, emptied by every change: paging
    /// through the results of one search repeats the same keyword for every page.
    searches: Mutex<SearchCache>,
}

/// Keywords with the positions (in `KeyIndex::entries`) of the keys they match, most recent
/// first.
#[derive(Default)]
struct SearchCache {
    recent: VecDeque<(String, Arc<[u32]>)>,
}

/// Keywords whose matches are kept.
const CACHED_SEARCHES: usize = 16;

impl SearchCache {
    fn get(&mut self, keyword: &str) -> Option<Arc<[u32]>> {
        let position = self.recent.iter().position(|(cached, _)| cached == keyword)?;
        let hit = self.recent.remove(position)?;
        let matches = hit.1.clone();
        self.recent.push_front(hit);
        Some(matches)
    }

    fn insert(&mut self, keyword: &str, matches: Arc<[u32]>) {
        self.recent.retain(|(cached, _)| cached != keyword);
        self.recent.push_front((keyword.to_owned(), matches));
        self.recent.truncate(CACHED_SEARCHES);
    }
}

pub struct KeyEntry {
    pub key: Key,
    /// The key's file, relative to the project's `keys/` folder, when it is not the one the
    /// layout gives its name (a file made by hand); most keys need none stored.
    hand_made_file: Option<Box<str>>,
}

/// Separates the fields of a key in the search arena, so that a keyword cannot match across
/// the end of one translation and the start of the next.
const FIELD_SEPARATOR: char = '\0';

impl Catalog {
    pub fn team(&self, name: &TeamName) -> Option<&TeamEntry> {
        self.teams.get(name)
    }

    /// The team whose name equals `name` without regard to case, other than `except`.
    pub fn team_clashing_with(&self, name: &TeamName, except: Option<&TeamName>) -> Option<&TeamName> {
        let folded = name.folded();
        self.teams
            .keys()
            .find(|existing| Some(*existing) != except && existing.folded() == folded)
    }

    pub fn project(&self, team: &TeamName, name: &ProjectName) -> Option<&ProjectEntry> {
        self.teams.get(team)?.projects.get(name)
    }

    pub fn project_mut(&mut self, team: &TeamName, name: &ProjectName) -> Option<&mut ProjectEntry> {
        self.teams.get_mut(team)?.projects.get_mut(name)
    }
}

impl TeamEntry {
    pub fn project_clashing_with(&self, name: &ProjectName, except: Option<&ProjectName>) -> Option<&ProjectName> {
        let folded = name.folded();
        self.projects
            .keys()
            .find(|existing| Some(*existing) != except && existing.folded() == folded)
    }
}

impl KeyIndex {
    /// Builds the index from unsorted entries; a name seen twice keeps its first entry.
    pub fn from_entries(entries: Vec<KeyEntry>) -> (Self, Vec<KeyEntry>) {
        let mut index = Self::default();
        let duplicates = index.put_many(entries);
        (index, duplicates)
    }

    /// Forgets cached searches; every change to the entries calls it.
    fn changed(&mut self) {
        self.searches
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner())
            .recent
            .clear();
    }

    /// Inserts or replaces many entries at once (sorting once, not once per entry). Of
    /// entries with the same name among `entries`, the first wins and the rest are returned.
    pub fn put_many(&mut self, entries: Vec<KeyEntry>) -> Vec<KeyEntry> {
        self.changed();
        let mut incoming: Vec<Box<KeyEntry>> = entries.into_iter().map(Box::new).collect();
        // A stable sort keeps the first of equal names first.
        incoming.sort_by(|a, b| a.key.name.cmp(&b.key.name));
        let mut duplicates = Vec::new();
        let mut unique: Vec<Box<KeyEntry>> = Vec::with_capacity(incoming.len());
        for entry in incoming {
            if unique.last().is_some_and(|last| last.key.name == entry.key.name) {
                duplicates.push(*entry);
            } else {
                unique.push(entry);
            }
        }
        for entry in &unique {
            if let Some(old) = self.get(&entry.key.name) {
                if let Some(old_file) = old.hand_made_file.clone() {
                    self.owners.remove(&*old_file);
                }
            }
            self.note_owner(entry);
        }
        // Merge two sorted runs into a fresh arena in name order; on equal names the incoming
        // entry replaces the old one.
        let old_entries = std::mem::take(&mut self.entries);
        let old_spans = std::mem::take(&mut self.spans);
        let old_arena = std::mem::take(&mut self.arena);
        self.garbage = 0;
        self.entries.reserve(old_entries.len() + unique.len());
        self.spans.reserve(old_entries.len() + unique.len());
        self.arena.reserve(old_arena.len() + unique.len() * 128);
        let mut old = old_entries.into_iter().zip(old_spans).peekable();
        let mut new = unique.into_iter().peekable();
        loop {
            let take_old = match (old.peek(), new.peek()) {
                (Some((a, _)), Some(b)) => match a.key.name.cmp(&b.key.name) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Equal => {
                        old.next();
                        false
                    }
                },
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_old {
                let (entry, (start, len)) = old.next().expect("peeked");
                let text = &old_arena[start as usize..(start + len) as usize];
                let span = self.append_text(text);
                self.entries.push(entry);
                self.spans.push(span);
            } else {
                let entry = new.next().expect("peeked");
                let span = self.append_text(lowered_text(&entry.key).as_bytes());
                self.entries.push(entry);
                self.spans.push(span);
            }
        }
        duplicates
    }

    /// The key made by hand whose file is `file`, if any.
    pub fn file_owner(&self, file: &str) -> Option<&KeyName> {
        self.owners.get(file)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, name: &KeyName) -> Option<&KeyEntry> {
        self.position(name).ok().map(|index| self.entries[index].as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = &KeyEntry> {
        self.entries.iter().map(Box::as_ref)
    }

    /// Inserts or replaces the entry with the same name.
    pub fn put(&mut self, entry: KeyEntry) {
        self.changed();
        self.note_owner(&entry);
        let span = self.append_text(lowered_text(&entry.key).as_bytes());
        match self.position(&entry.key.name) {
            Ok(index) => {
                let old = std::mem::replace(&mut self.entries[index], Box::new(entry));
                if let Some(old_file) = &old.hand_made_file
                    && old.hand_made_file != self.entries[index].hand_made_file
                {
                    self.owners.remove(&**old_file);
                }
                let (_, old_len) = std::mem::replace(&mut self.spans[index], span);
                self.garbage += old_len as usize;
            }
            Err(index) => {
                self.entries.insert(index, Box::new(entry));
                self.spans.insert(index, span);
            }
        }
        self.compact_if_wasteful();
    }

    pub fn remove(&mut self, name: &KeyName) -> Option<KeyEntry> {
        let index = self.position(name).ok()?;
        self.changed();
        let entry = *self.entries.remove(index);
        let (_, len) = self.spans.remove(index);
        self.garbage += len as usize;
        if let Some(file) = &entry.hand_made_file {
            self.owners.remove(&**file);
        }
        self.compact_if_wasteful();
        Some(entry)
    }

    /// Runs the query (keyword filter, order, page) and hands the page's keys to `render`,
    /// so that a page is turned into an answer without copying the keys.
    pub fn query<T>(&self, query: &KeyQuery, render: impl FnOnce(&[&Key]) -> T) -> (T, PageInfo) {
        let Some(keyword) = &query.keyword else {
            // Without a keyword the page is a slice of the sorted entries: no pass over all keys.
            let page: Vec<&Key> = query
                .select(&self.entries)
                .into_iter()
                .map(|entry| &entry.key)
                .collect();
            return (render(&page), query.page_info(self.entries.len()));
        };
        let matches = self.matching(keyword);
        let page: Vec<&Key> = query
            .select(&matches)
            .into_iter()
            .map(|&position| &self.entries[position as usize].key)
            .collect();
        (render(&page), query.page_info(matches.len()))
    }

    /// The positions of the entries that `keyword` (lower-cased) matches, in name order.
    fn matching(&self, keyword: &str) -> Arc<[u32]> {
        let cache = || self.searches.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(matches) = cache().get(keyword) {
            return matches;
        }
        let finder = Keyword::new(keyword);
        let matches: Arc<[u32]> = self
            .entries
            .iter()
            .zip(&self.spans)
            .enumerate()
            .filter(|(_, (entry, span))| finder.matches(&entry.key, self.text(**span)))
            .map(|(position, _)| position as u32)
            .collect();
        cache().insert(keyword, matches.clone());
        matches
    }

    /// Records the file of a key that lives outside its layout file.
    fn note_owner(&mut self, entry: &KeyEntry) {
        if let Some(file) = &entry.hand_made_file {
            self.owners.insert(file.to_string(), entry.key.name.clone());
        }
    }

    fn position(&self, name: &KeyName) -> Result<usize, usize> {
        self.entries.binary_search_by(|entry| entry.key.name.cmp(name))
    }

    fn text(&self, (start, len): (u32, u32)) -> &[u8] {
        &self.arena[start as usize..(start + len) as usize]
    }

    fn append_text(&mut self, text: &[u8]) -> (u32, u32) {
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(text);
        (start, text.len() as u32)
    }

    /// Rewrites the arena in entry order once more than half of it is garbage.
    fn compact_if_wasteful(&mut self) {
        if self.garbage < 1 << 20 || self.garbage * 2 < self.arena.len() {
            return;
        }
        let mut arena = Vec::with_capacity(self.arena.len() - self.garbage);
        for span in &mut self.spans {
            let (start, len) = *span;
            let new_start = arena.len() as u32;
            arena.extend_from_slice(&self.arena[start as usize..(start + len) as usize]);
            *span = (new_start, len);
        }
        self.arena = arena;
        self.garbage = 0;
    }
}

impl KeyEntry {
    pub fn new(key: Key, file: String) -> Self {
        let hand_made_file = (file != super::layout::key_file(&key.name)).then(|| file.into_boxed_str());
        Self { key, hand_made_file }
    }

    /// The key's file, relative to the project's `keys/` folder.
    pub fn file(&self) -> String {
        match &self.hand_made_file {
            Some(file) => file.to_string(),
            None => super::layout::key_file(&self.key.name),
        }
    }
}

/// The name and every translation of a key, lower-cased and joined by the field separator.
fn lowered_text(key: &Key) -> String {
    let mut lowered = key.name.as_str().to_lowercase();
    for text in key.translations.values() {
        lowered.push(FIELD_SEPARATOR);
        lowered.push_str(&text.to_lowercase());
    }
    lowered
}

/// A lower-cased keyword, prepared once per query: a SIMD substring finder over the joined
/// text, or (for a keyword holding the separator itself) a field-by-field comparison.
#[allow(clippy::large_enum_variant, reason = "one per query, on the stack")]
pub enum Keyword<'a> {
    Plain(memchr::memmem::Finder<'a>),
    WithSeparator(&'a str),
}

impl<'a> Keyword<'a> {
    pub fn new(lowered: &'a str) -> Self {
        if lowered.contains(FIELD_SEPARATOR) {
            Self::WithSeparator(lowered)
        } else {
            Self::Plain(memchr::memmem::Finder::new(lowered.as_bytes()))
        }
    }

    /// Whether the keyword occurs in the key's name or one of its translations; `joined` is
    /// the key's text in the search arena.
    fn matches(&self, key: &Key, joined: &[u8]) -> bool {
        match self {
            Self::Plain(finder) => finder.find(joined).is_some(),
            Self::WithSeparator(keyword) => {
                let lowered: Vec<String> = std::iter::once(key.name.as_str())
                    .chain(key.translations.values().map(String::as_str))
                    .map(str::to_lowercase)
                    .collect();
                matches_keyword(keyword, lowered.iter().map(String::as_str))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::names::LanguageCode;

    fn entry(name: &str, texts: &[(&str, &str)]) -> KeyEntry {
        let key = Key {
            name: KeyName::parse(name).unwrap(),
            tags: vec![],
            translations: texts
                .iter()
                .map(|(l, t)| (LanguageCode::parse(l).unwrap(), t.to_string()))
                .collect(),
        };
        KeyEntry::new(key, format!("{name}.toml"))
    }

    fn page_names(index: &KeyIndex, query: &KeyQuery) -> Vec<String> {
        index
            .query(query, |keys| keys.iter().map(|key| key.name.to_string()).collect())
            .0
    }

    #[test]
    fn entries_stay_sorted_by_code_point_and_duplicates_are_reported() {
        let (mut index, duplicates) =
            KeyIndex::from_entries(vec![entry("b", &[]), entry("B", &[]), entry("a", &[]), entry("b", &[])]);
        assert_eq!(duplicates.len(), 1);
        index.put(entry("ä", &[]));
        index.put(entry("A", &[]));
        let all = KeyQuery::new(None, None, None, None).unwrap();
        assert_eq!(page_names(&index, &all), ["A", "B", "a", "b", "ä"]);
        index.remove(&KeyName::parse("B").unwrap());
        assert_eq!(index.len(), 4);
    }

    #[test]
    fn keyword_matches_names_and_translations_without_regard_to_case() {
        let (index, _) = KeyIndex::from_entries(vec![
            entry("home.TITLE", &[("en", "Welcome")]),
            entry("bye", &[("de", "STRAßE")]),
            entry("other", &[("en", "x"), ("fr", "y")]),
        ]);
        let search = |keyword: &str| {
            let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
            page_names(&index, &query)
        };
        assert_eq!(search("title"), ["home.TITLE"]);
        assert_eq!(search("WELCOME"), ["home.TITLE"]);
        assert_eq!(search("straße"), ["bye"]);
        assert!(search("x\0y").is_empty(), "a keyword may not match across two fields");
        assert_eq!(search("ß"), ["bye"]);
    }

    #[test]
    fn search_stays_right_through_replacements_removals_and_compaction() {
        let mut index = KeyIndex::default();
        let padding = "x".repeat(500);
        for round in 0..3000 {
            index.put(entry("k", &[("en", &format!("round {round} {padding}"))]));
        }
        index.put(entry("other", &[("en", "plain")]));
        assert!(index.arena.len() < 3000 * 400, "replaced text was compacted away");
        let search = |index: &KeyIndex, keyword: &str| {
            let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
            page_names(index, &query)
        };
        assert_eq!(search(&index, "round 2999 "), ["k"]);
        assert!(search(&index, "round 10 ").is_empty());
        // The same keywords again, after changes: cached matches must not outlive them.
        assert_eq!(search(&index, "plain"), ["other"]);
        index.put(entry("another", &[("en", "plain too")]));
        assert_eq!(search(&index, "plain"), ["another", "other"]);
        index.remove(&KeyName::parse("k").unwrap());
        assert!(search(&index, "round").is_empty());
        assert_eq!(search(&index, "PLAIN"), ["another", "other"]);
        index.put_many(vec![entry("zed", &[("en", "plain three")])]);
        assert_eq!(search(&index, "plain"), ["another", "other", "zed"]);
        let (merged, _) = KeyIndex::from_entries(vec![entry("b", &[("en", "bee")]), entry("a", &[("en", "ay")])]);
        assert_eq!(search(&merged, "ee"), ["b"]);
    }
}
