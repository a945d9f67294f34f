//! The in-memory view of HEAD: teams, projects and, once a project is first used, its keys.
//!
//! Only the writer thread changes the catalog, and only after the commit that the change
//! describes is in HEAD, under the write lock, so a reader sees a change whole or not at all.

use std::collections::{BTreeMap, HashMap};

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
#[derive(Default)]
pub struct KeyIndex {
    // Clippy's `vec_box` assumes small elements; a `KeyEntry` is a few hundred bytes, and moving
    // 100,000 of them per insertion is what the boxes avoid.
    #[allow(clippy::vec_box)]
    entries: Vec<Box<KeyEntry>>,
    /// Which key each file belongs to, to refuse a new key whose file is taken.
    owners: HashMap<String, KeyName>,
}

pub struct KeyEntry {
    pub key: Key,
    /// The key's file, relative to the project's `keys/` folder.
    pub file: String,
    /// The name and every translation, lower-cased and joined by NUL, so that a keyword
    /// search compares without lower-casing anything per request.
    lowered: String,
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

    /// Inserts or replaces many entries at once (sorting once, not once per entry). Of
    /// entries with the same name among `entries`, the first wins and the rest are returned.
    pub fn put_many(&mut self, entries: Vec<KeyEntry>) -> Vec<KeyEntry> {
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
                let old_file = old.file.clone();
                self.owners.remove(&old_file);
            }
            self.owners.insert(entry.file.clone(), entry.key.name.clone());
        }
        // Merge two sorted runs; on equal names the incoming entry replaces the old one.
        let old = std::mem::take(&mut self.entries);
        let mut merged = Vec::with_capacity(old.len() + unique.len());
        let (mut old, mut new) = (old.into_iter().peekable(), unique.into_iter().peekable());
        loop {
            let next = match (old.peek(), new.peek()) {
                (Some(a), Some(b)) => match a.key.name.cmp(&b.key.name) {
                    std::cmp::Ordering::Less => old.next(),
                    std::cmp::Ordering::Greater => new.next(),
                    std::cmp::Ordering::Equal => {
                        old.next();
                        new.next()
                    }
                },
                (Some(_), None) => old.next(),
                (None, Some(_)) => new.next(),
                (None, None) => break,
            };
            merged.extend(next);
        }
        self.entries = merged;
        duplicates
    }

    /// The key whose file is `file`, if any.
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
        self.owners.insert(entry.file.clone(), entry.key.name.clone());
        match self.position(&entry.key.name) {
            Ok(index) => {
                let old = std::mem::replace(&mut self.entries[index], Box::new(entry));
                if old.file != self.entries[index].file {
                    self.owners.remove(&old.file);
                }
            }
            Err(index) => self.entries.insert(index, Box::new(entry)),
        }
    }

    pub fn remove(&mut self, name: &KeyName) -> Option<KeyEntry> {
        let entry = self.position(name).ok().map(|index| *self.entries.remove(index))?;
        self.owners.remove(&entry.file);
        Some(entry)
    }

    /// Runs the query: keyword filter, order, page.
    pub fn query(&self, query: &KeyQuery) -> (Vec<Key>, PageInfo) {
        let matching: Vec<&KeyEntry> = match &query.keyword {
            None => self.entries.iter().map(Box::as_ref).collect(),
            Some(keyword) => self
                .entries
                .iter()
                .map(Box::as_ref)
                .filter(|entry| entry.matches(keyword))
                .collect(),
        };
        let page = query
            .select(&matching)
            .into_iter()
            .map(|entry| entry.key.clone())
            .collect();
        (page, query.page_info(matching.len()))
    }

    fn position(&self, name: &KeyName) -> Result<usize, usize> {
        self.entries.binary_search_by(|entry| entry.key.name.cmp(name))
    }
}

const FIELD_SEPARATOR: char = '\0';

impl KeyEntry {
    pub fn new(key: Key, file: String) -> Self {
        let mut lowered = key.name.as_str().to_lowercase();
        for text in key.translations.values() {
            lowered.push(FIELD_SEPARATOR);
            lowered.push_str(&text.to_lowercase());
        }
        Self { key, file, lowered }
    }

    /// Whether the lower-cased keyword occurs in the name or in a translation.
    pub fn matches(&self, keyword: &str) -> bool {
        if keyword.contains(FIELD_SEPARATOR) {
            // The joined text could match across two fields; compare field by field instead.
            let lowered: Vec<String> = std::iter::once(self.key.name.as_str())
                .chain(self.key.translations.values().map(String::as_str))
                .map(str::to_lowercase)
                .collect();
            return matches_keyword(keyword, lowered.iter().map(String::as_str));
        }
        self.lowered.contains(keyword)
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

    fn names(keys: &[Key]) -> Vec<&str> {
        keys.iter().map(|key| key.name.as_str()).collect()
    }

    #[test]
    fn entries_stay_sorted_by_code_point_and_duplicates_are_reported() {
        let (mut index, duplicates) =
            KeyIndex::from_entries(vec![entry("b", &[]), entry("B", &[]), entry("a", &[]), entry("b", &[])]);
        assert_eq!(duplicates.len(), 1);
        index.put(entry("ä", &[]));
        index.put(entry("A", &[]));
        let all = KeyQuery::new(None, None, None, None).unwrap();
        assert_eq!(names(&index.query(&all).0), ["A", "B", "a", "b", "ä"]);
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
            names(&index.query(&query).0)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(search("title"), ["home.TITLE"]);
        assert_eq!(search("WELCOME"), ["home.TITLE"]);
        assert_eq!(search("straße"), ["bye"]);
        assert!(search("x\0y").is_empty(), "a keyword may not match across two fields");
    }
}
