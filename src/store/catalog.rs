//! The in-memory view of HEAD: teams, projects and, once a project is first used, its keys.
//!
//! Only the writer thread changes the catalog. It applies each change of a batch as it stages
//! the change's commit, holding the write lock from the first change until the branch has
//! moved past the last, so a reader sees a change whole or not at all, and only once it is in
//! HEAD.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

mod saved;
mod search;
pub mod summaries;

pub use search::Keyword;
use search::{FIELD_SEPARATOR, Postings, SearchCache, lowered_text, pack_gram};

use crate::domain::model::{Key, Project, Team};
use crate::domain::names::{KeyName, ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo};

#[derive(Default)]
pub struct Catalog {
    pub teams: BTreeMap<TeamName, TeamEntry>,
    /// The commit this view is of (HEAD as readers see it).
    pub head: String,
}

pub struct TeamEntry {
    pub team: Team,
    pub projects: BTreeMap<ProjectName, ProjectEntry>,
}

pub struct ProjectEntry {
    pub project: Project,
    /// `None` until the project's keys are first needed.
    pub keys: Option<KeyIndex>,
    /// Summaries of the keys for completeness and quality reads, made when first asked for.
    pub quality: Arc<summaries::QualityCache>,
}

/// A project's keys, sorted by name in code point order, with what keyword search needs.
///
/// `entries` is the sorted list (a page is a slice of it, found by position); inserting into
/// the middle of 100,000 of them moves pointers, not whole entries.
///
/// Every entry also has an id (its slot in `slots`), given when it is added and never reused
/// until the index is rebuilt: an entry that is replaced or removed leaves a dead slot.
/// `grams` lists, for every three bytes that occur in some entry's lower-cased text, the ids
/// of those entries (delta-encoded); a keyword of three bytes or more is then looked up
/// through its rarest three bytes and only those entries are checked, instead of all of them.
///
/// The lower-cased text itself is not kept: at 50 languages it would be a second copy of
/// every text (233 MB at 100,000 keys). A check looks for the keyword in each field as it
/// is: without regard to ASCII case in an ASCII field, which is all a lower-cased ASCII field
/// can differ by, and in the lower-cased copy of any other field (see [`Keyword`]).
#[derive(Default)]
pub struct KeyIndex {
    entries: Vec<Arc<KeyEntry>>,
    slots: Vec<Slot>,
    /// Keyed by the three bytes, packed into a `u32`.
    grams: FxHashMap<u32, Postings>,
    /// Slots whose entry is gone; their ids stay in `grams` until the next rebuild.
    dead: usize,
    /// The keys whose file is not where the layout would put it (files made by hand), by file,
    /// to refuse a new key whose file is taken. A key in its own layout file needs no entry:
    /// another name maps to the same file only if 64 bits of SHA-256 collide, and leaving
    /// those keys out saves about 15 MB per 100,000 keys.
    owners: HashMap<String, KeyName>,
    /// The matches of the last few keywords searched for, emptied by every change: paging
    /// through the results of one search repeats the same keyword for every page.
    searches: Mutex<SearchCache>,
    /// Set on a [`snapshot`](Self::snapshot), whose entries are shared with the index it was
    /// taken from: a rebuild would give each a new id and so copy every key, so it keeps its
    /// dead slots instead (it is read, not changed for long). It keeps no postings either
    /// (see [`snapshot`](Self::snapshot)).
    keeps_slots: bool,
}

/// Indexes entries one by one as they arrive (a loader's parsing thread hands them to the
/// thread that builds the index), then sorts them by name once at the end. Of entries with the
/// same name, the first to arrive wins.
#[derive(Default)]
pub struct KeyIndexBuilder {
    index: KeyIndex,
    arrived: Vec<Arc<KeyEntry>>,
}

impl KeyIndexBuilder {
    pub fn push(&mut self, entry: KeyEntry) {
        let entry = self.index.add(entry);
        self.arrived.push(entry);
    }

    /// The index, and the entries left out because an earlier one had the same name.
    pub fn finish(self) -> (KeyIndex, Vec<Arc<KeyEntry>>) {
        let Self { mut index, mut arrived } = self;
        // Stable: the first of equal names stays first. Ids (slots) are in arrival order.
        arrived.sort_by(|a, b| a.key.name.cmp(&b.key.name).then(a.id.cmp(&b.id)));
        let mut duplicates = Vec::new();
        index.entries.reserve_exact(arrived.len());
        for entry in arrived {
            if index.entries.last().is_some_and(|last| last.key.name == entry.key.name) {
                duplicates.push(entry);
            } else {
                index.entries.push(entry);
            }
        }
        for duplicate in &duplicates {
            index.retire(duplicate);
        }
        index.tidy();
        (index, duplicates)
    }
}

struct Slot {
    /// `None` once the entry was replaced or removed.
    entry: Option<Arc<KeyEntry>>,
}

/// Below this many dead slots the index is never rebuilt.
const REBUILD_MIN_DEAD: usize = 4096;

#[derive(Debug, Clone)]
pub struct KeyEntry {
    pub key: Key,
    /// The entry's slot in its index (set when it is added).
    id: u32,
    /// The key's file, relative to the project's `keys/` folder, when it is not the one the
    /// layout gives its name (a file made by hand); most keys need none stored.
    hand_made_file: Option<Box<str>>,
}

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

    /// Starts an index that takes entries in any order, as they are read: see
    /// [`KeyIndexBuilder`].
    pub fn builder() -> KeyIndexBuilder {
        KeyIndexBuilder::default()
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
        let mut incoming = entries;
        // A stable sort keeps the first of equal names first.
        incoming.sort_by(|a, b| a.key.name.cmp(&b.key.name));
        let mut duplicates = Vec::new();
        let mut unique: Vec<KeyEntry> = Vec::with_capacity(incoming.len());
        for entry in incoming {
            if unique.last().is_some_and(|last| last.key.name == entry.key.name) {
                duplicates.push(entry);
            } else {
                unique.push(entry);
            }
        }
        // Merge two sorted runs; on equal names the incoming entry replaces the old one.
        let old_entries = std::mem::take(&mut self.entries);
        self.entries.reserve(old_entries.len() + unique.len());
        let mut old = old_entries.into_iter().peekable();
        let mut new = unique.into_iter().peekable();
        loop {
            let take_old = match (old.peek(), new.peek()) {
                (Some(a), Some(b)) => match a.key.name.cmp(&b.key.name) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Greater => false,
                    std::cmp::Ordering::Equal => {
                        let replaced = old.next().expect("peeked");
                        self.retire(&replaced);
                        false
                    }
                },
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let entry = if take_old {
                old.next().expect("peeked")
            } else {
                self.add(new.next().expect("peeked"))
            };
            self.entries.push(entry);
        }
        self.tidy();
        duplicates
    }

    /// The key made by hand whose file is `file`, if any.
    pub fn file_owner(&self, file: &str) -> Option<&KeyName> {
        self.owners.get(file)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes held by the postings lists of the search.
    pub fn search_bytes(&self) -> usize {
        self.grams
            .values()
            .map(|postings| postings.bytes.len() + std::mem::size_of::<(u32, Postings)>())
            .sum()
    }

    pub fn get(&self, name: &KeyName) -> Option<&KeyEntry> {
        self.position(name).ok().map(|index| self.entries[index].as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = &KeyEntry> {
        self.entries.iter().map(Arc::as_ref)
    }

    /// The entries as shared handles, which stay valid (and unchanged) after the index
    /// changes: a long read such as an export takes them and lets writers go on.
    pub fn shared(&self) -> impl Iterator<Item = &Arc<KeyEntry>> {
        self.entries.iter()
    }

    /// The entries in name order, as shared handles.
    pub fn entries(&self) -> &[Arc<KeyEntry>] {
        &self.entries
    }

    /// Inserts or replaces the entry with the same name.
    pub fn put(&mut self, entry: KeyEntry) {
        self.changed();
        let position = self.position(&entry.key.name);
        let entry = self.add(entry);
        match position {
            Ok(index) => {
                let old = std::mem::replace(&mut self.entries[index], entry);
                self.retire(&old);
            }
            Err(index) => self.entries.insert(index, entry),
        }
        self.tidy();
    }

    pub fn remove(&mut self, name: &KeyName) -> Option<KeyEntry> {
        let index = self.position(name).ok()?;
        self.changed();
        let entry = self.entries.remove(index);
        self.retire(&entry);
        self.tidy();
        Some(Arc::unwrap_or_clone(entry))
    }

    /// Removes the entries `gone` picks, in one pass (not one shift of the list per entry).
    pub fn remove_where(&mut self, gone: impl Fn(&KeyEntry) -> bool) {
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|entry| gone(entry));
        self.entries = kept;
        if gone.is_empty() {
            return;
        }
        self.changed();
        for entry in &gone {
            self.retire(entry);
        }
        self.tidy();
    }

    /// The first of `incoming` (sorted by name) whose name an entry has already, with that
    /// entry: one walk along both sorted lists rather than a search per incoming name.
    pub fn first_clash<'a>(&'a self, incoming: &'a [KeyEntry]) -> Option<(&'a KeyEntry, &'a KeyEntry)> {
        let mut entries = self.entries.iter().peekable();
        for new in incoming {
            while entries.next_if(|entry| entry.key.name < new.key.name).is_some() {}
            match entries.peek() {
                Some(entry) if entry.key.name == new.key.name => return Some((entry, new)),
                Some(_) => {}
                None => return None,
            }
        }
        None
    }

    /// A copy to change on its own (a past state built from this one, a branch's): the
    /// entries are shared, and the search postings left out. A copy of the postings was most
    /// of a branch's memory (about 9 MB at 100,000 keys in 5 languages), while a past state
    /// is read by page far more than searched; its keyword searches check every entry (about
    /// as long as building the postings would take, and remembered per keyword).
    pub fn snapshot(&self) -> KeyIndex {
        KeyIndex {
            entries: self.entries.clone(),
            slots: self
                .slots
                .iter()
                .map(|slot| Slot {
                    entry: slot.entry.clone(),
                })
                .collect(),
            grams: FxHashMap::default(),
            dead: self.dead,
            owners: self.owners.clone(),
            searches: Mutex::default(),
            keeps_slots: true,
        }
    }

    /// Runs the query (keyword filter, order, page) and hands the page's keys to `render`,
    /// so that a page is turned into an answer without copying the keys.
    pub fn query<T>(&self, query: &KeyQuery, render: impl FnOnce(&[&Key]) -> T) -> (T, PageInfo) {
        let Some(keyword) = &query.keyword else {
            // Without a keyword the page is a slice of the sorted entries: no pass over all keys.
            let entries = self.of_namespace(query.namespace.as_deref());
            let page: Vec<&Key> = query.select(entries).into_iter().map(|entry| &entry.key).collect();
            return (render(&page), query.page_info(entries.len()));
        };
        let mut matches = self.matching(keyword);
        if query.namespace.is_some() {
            matches = matches
                .iter()
                .copied()
                .filter(|&id| {
                    self.slots[id as usize]
                        .entry
                        .as_ref()
                        .is_some_and(|entry| query.takes_namespace(entry.key.name.namespace()))
                })
                .collect();
        }
        let page: Vec<&Key> = query
            .select(&matches)
            .into_iter()
            .filter_map(|&id| self.slots[id as usize].entry.as_ref())
            .map(|entry| &entry.key)
            .collect();
        (render(&page), query.page_info(matches.len()))
    }

    /// The entries of one namespace (`None`: all), a slice of the sorted list: keys are sorted
    /// by namespace first, so each namespace's keys are together.
    fn of_namespace(&self, namespace: Option<&str>) -> &[Arc<KeyEntry>] {
        let Some(namespace) = namespace else {
            return &self.entries;
        };
        let start = self
            .entries
            .partition_point(|entry| entry.key.name.namespace() < namespace);
        let end = start + self.entries[start..].partition_point(|entry| entry.key.name.namespace() == namespace);
        &self.entries[start..end]
    }

    /// The ids of the entries that `keyword` (lower-cased) matches, in name order.
    fn matching(&self, keyword: &str) -> Arc<[u32]> {
        let cache = || self.searches.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(matches) = cache().get(keyword) {
            return matches;
        }
        let finder = Keyword::new(keyword);
        let matches = |entry: &KeyEntry| finder.matches(&entry.key);
        let matches: Arc<[u32]> = match self.candidates(keyword) {
            Some(candidates) => {
                let mut found: Vec<&KeyEntry> = candidates
                    .into_iter()
                    .filter_map(|id| self.slots[id as usize].entry.as_deref())
                    .filter(|entry| matches(entry))
                    .collect();
                found.sort_unstable_by(|a, b| a.key.name.cmp(&b.key.name));
                found.iter().map(|entry| entry.id).collect()
            }
            None => self
                .entries
                .iter()
                .filter(|entry| matches(entry))
                .map(|entry| entry.id)
                .collect(),
        };
        cache().insert(keyword, matches.clone());
        matches
    }

    /// The ids of the entries that may match `keyword`: those holding its rarest three bytes.
    /// `None` when every entry must be checked: a keyword too short to look up, one with the
    /// field separator, or one whose every three bytes are common (a scan is faster then).
    fn candidates(&self, keyword: &str) -> Option<Vec<u32>> {
        let bytes = keyword.as_bytes();
        if self.keeps_slots || bytes.len() < 3 || bytes.contains(&(FIELD_SEPARATOR as u8)) {
            return None;
        }
        let mut rarest: Option<&Postings> = None;
        for gram in bytes.windows(3) {
            match self.grams.get(&pack_gram(gram)) {
                None => return Some(Vec::new()),
                Some(postings) if rarest.is_none_or(|rarest| postings.count < rarest.count) => {
                    rarest = Some(postings);
                }
                Some(_) => {}
            }
        }
        let rarest = rarest?;
        if rarest.count as usize * 4 > self.entries.len() {
            return None;
        }
        Some(rarest.ids().collect())
    }

    /// Records the file of a key that lives outside its layout file.
    fn note_owner(&mut self, entry: &KeyEntry) {
        if let Some(file) = &entry.hand_made_file {
            self.owners.insert(file.to_string(), entry.key.name.clone());
        }
    }

    /// Gives `entry` an id and its three-byte sequences postings.
    fn add(&mut self, mut entry: KeyEntry) -> Arc<KeyEntry> {
        self.note_owner(&entry);
        let id = u32::try_from(self.slots.len()).expect("fewer than 2^32 keys");
        entry.id = id;
        if !self.keeps_slots {
            let mut text = String::new();
            lowered_text(&entry.key, &mut text);
            self.index_grams(id, text.as_bytes());
        }
        let entry = Arc::new(entry);
        self.slots.push(Slot {
            entry: Some(entry.clone()),
        });
        entry
    }

    /// Marks the slot of an entry that was replaced or removed as dead.
    fn retire(&mut self, entry: &KeyEntry) {
        let slot = &mut self.slots[entry.id as usize];
        slot.entry = None;
        self.dead += 1;
        if let Some(file) = &entry.hand_made_file {
            // The file is free again unless the entry's replacement kept it.
            let kept = self
                .get(&entry.key.name)
                .is_some_and(|current| current.hand_made_file == entry.hand_made_file);
            if !kept {
                self.owners.remove(&**file);
            }
        }
    }

    fn index_grams(&mut self, id: u32, text: &[u8]) {
        for gram in text.windows(3) {
            if gram.contains(&(FIELD_SEPARATOR as u8)) {
                continue;
            }
            let postings = self.grams.entry(pack_gram(gram)).or_default();
            // Ids arrive in ascending order, so a sequence seen twice in this text has this id
            // last already.
            if postings.count == 0 || postings.next != id + 1 {
                postings.push(id);
            }
        }
    }

    fn position(&self, name: &KeyName) -> Result<usize, usize> {
        self.entries.binary_search_by(|entry| entry.key.name.cmp(name))
    }

    /// Rebuilds ids and postings once dead slots outnumber live ones.
    fn tidy(&mut self) {
        if !self.keeps_slots && self.dead >= REBUILD_MIN_DEAD && self.dead > self.entries.len() {
            self.rebuild();
        }
    }

    /// Gives every live entry a new id in name order and indexes it afresh.
    fn rebuild(&mut self) {
        let entries = std::mem::take(&mut self.entries);
        self.slots = Vec::with_capacity(entries.len());
        self.grams = FxHashMap::default();
        self.dead = 0;
        self.entries = entries
            .into_iter()
            .map(|entry| self.add(Arc::unwrap_or_clone(entry)))
            .collect();
    }
}

impl KeyEntry {
    pub fn new(key: Key, file: String) -> Self {
        let hand_made_file = (file != super::layout::key_file(&key.name)).then(|| file.into_boxed_str());
        Self {
            key,
            id: 0,
            hand_made_file,
        }
    }

    /// The key's file, relative to the project's `keys/` folder.
    pub fn file(&self) -> String {
        match &self.hand_made_file {
            Some(file) => file.to_string(),
            None => super::layout::key_file(&self.key.name),
        }
    }
}

#[cfg(test)]
mod tests;
