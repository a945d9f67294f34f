//! Per key entry, what completeness and quality reads need: which languages are translated,
//! outdated and failing, its failures, the words of its base text.
//!
//! Entries are immutable and shared ([`KeyEntry`] behind an `Arc`): a change of a key, whether
//! the writer made it, a join brought it or a hand commit did, puts a new entry in the index.
//! The cache keeps each entry's summary under the entry's address, so after a change only the
//! new entries are summarized; entries no longer in the index are dropped when they outnumber
//! a quarter of it. A summary depends on the project's base language and languages too: when
//! they change, the cache starts again.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use unicode_segmentation::UnicodeSegmentation;

use super::KeyEntry;
use crate::domain::checks::{Check, Failure, check_key};
use crate::domain::model::{Key, Project, TextRef};
use crate::domain::names::LanguageCode;

/// A set of the project's languages, by position in its list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanguageSet(Box<[u64]>);

impl LanguageSet {
    fn with_capacity(languages: usize) -> Self {
        Self(vec![0; languages.div_ceil(64)].into_boxed_slice())
    }

    fn insert(&mut self, position: usize) {
        self.0[position / 64] |= 1 << (position % 64);
    }

    pub fn contains(&self, position: usize) -> bool {
        self.0
            .get(position / 64)
            .is_some_and(|word| word & (1 << (position % 64)) != 0)
    }
}

/// One key as the quality reads see it.
#[derive(Debug)]
pub struct KeySummary {
    /// Words of the base text (its `other` form for a plural key); 0 without one.
    pub base_words: u32,
    pub translatable: bool,
    pub translated: LanguageSet,
    pub outdated: LanguageSet,
    /// Languages with at least one failing check.
    pub failing: LanguageSet,
    /// Every failing check, in language order.
    pub failures: Box<[Failure]>,
}

impl KeySummary {
    pub fn of(key: &Key, project: &Project) -> Self {
        let base = &project.base_language;
        let count = project.languages.len();
        let position = |language: &LanguageCode| {
            project
                .languages
                .iter()
                .position(|own| own == language)
                .or_else(|| project.languages.iter().position(|own| own.same_as(language)))
        };
        let mut translated = LanguageSet::with_capacity(count);
        let mut outdated = LanguageSet::with_capacity(count);
        let mut failing = LanguageSet::with_capacity(count);
        for language in key.translations.keys() {
            if let Some(index) = position(language) {
                translated.insert(index);
            }
        }
        for language in key.outdated(base) {
            if let Some(index) = position(language) {
                outdated.insert(index);
            }
        }
        let failures = check_key(key, base);
        for failure in &failures {
            if let Some(index) = position(&failure.language) {
                failing.insert(index);
            }
        }
        let base_words = key.translations.get(base).map_or(0, |text| {
            let text = match text {
                TextRef::Plain(text) => text,
                TextRef::Plural(forms) => forms.other_form(),
            };
            text.unicode_words().count() as u32
        });
        Self {
            base_words,
            translatable: key.translatable,
            translated,
            outdated,
            failing,
            failures: failures.into_boxed_slice(),
        }
    }

    /// Whether the key asks for a text in the language at `position` of the project's list:
    /// every key in the base language, translatable ones in the others.
    pub fn wants(&self, position: usize, base_position: usize) -> bool {
        position == base_position || self.translatable
    }

    pub fn is_missing(&self, position: usize, base_position: usize) -> bool {
        self.wants(position, base_position) && !self.translated.contains(position)
    }

    /// Whether the key fails `check` (any check when `None`) in the language at `position`
    /// (any language when `None`).
    pub fn fails(&self, check: Option<Check>, language: Option<&LanguageCode>) -> bool {
        self.failures.iter().any(|failure| {
            check.is_none_or(|check| failure.check == check)
                && language.is_none_or(|language| failure.language.same_as(language))
        })
    }
}

/// The summaries of a project's keys, cached per key entry (see the module's text).
#[derive(Default)]
pub struct QualityCache {
    cached: Mutex<Option<Cached>>,
}

struct Cached {
    base: LanguageCode,
    languages: Vec<LanguageCode>,
    by_entry: FxHashMap<usize, (Arc<KeyEntry>, Arc<KeySummary>)>,
    /// The last answer for the whole index: the entries' addresses and their summaries. While
    /// no key changes, the next read compares addresses instead of looking each one up.
    last: Option<(Vec<usize>, Summaries)>,
}

/// The summaries of a project's keys, in the keys' order.
pub type Summaries = Arc<[Arc<KeySummary>]>;

impl QualityCache {
    /// The summaries of `entries` (all of the project's keys) if no key changed since the
    /// last whole read: a comparison of addresses, no lookups.
    pub fn aligned(&self, project: &Project, entries: &[Arc<KeyEntry>]) -> Option<Arc<[Arc<KeySummary>]>> {
        let cached = self.cached.lock().unwrap_or_else(|poison| poison.into_inner());
        let cached = cached.as_ref()?;
        if cached.base != project.base_language || cached.languages != project.languages {
            return None;
        }
        let (addresses, summaries) = cached.last.as_ref()?;
        let same = addresses.len() == entries.len()
            && addresses
                .iter()
                .zip(entries)
                .all(|(known, entry)| *known == Arc::as_ptr(entry) as usize);
        same.then(|| summaries.clone())
    }

    /// The summary of each of `entries`, in their order, summarizing on both cores the ones
    /// not summarized yet; `whole` when `entries` are all of the project's keys (only then
    /// are entries no longer among them dropped). Blocking: keep it off the runtime for a
    /// large project.
    pub fn summaries(&self, project: &Project, entries: &[Arc<KeyEntry>], whole: bool) -> Arc<[Arc<KeySummary>]> {
        let mut cached = self.cached.lock().unwrap_or_else(|poison| poison.into_inner());
        let fits = cached
            .as_ref()
            .is_some_and(|cached| cached.base == project.base_language && cached.languages == project.languages);
        if !fits {
            *cached = Some(Cached {
                base: project.base_language.clone(),
                languages: project.languages.clone(),
                by_entry: FxHashMap::default(),
                last: None,
            });
        }
        let cached = cached.as_mut().expect("set above");
        let address = |entry: &Arc<KeyEntry>| Arc::as_ptr(entry) as usize;
        if whole
            && let Some((addresses, summaries)) = &cached.last
            && addresses.len() == entries.len()
            && addresses
                .iter()
                .zip(entries)
                .all(|(known, entry)| *known == address(entry))
        {
            return summaries.clone();
        }
        let missing: Vec<&Arc<KeyEntry>> = entries
            .iter()
            .filter(|entry| !cached.by_entry.contains_key(&address(entry)))
            .collect();
        for (entry, summary) in summarize(project, &missing) {
            cached.by_entry.insert(address(entry), (entry.clone(), summary));
        }
        let summaries: Arc<[Arc<KeySummary>]> = entries
            .iter()
            .map(|entry| cached.by_entry[&address(entry)].1.clone())
            .collect();
        if whole {
            if cached.by_entry.len() > entries.len() + entries.len() / 4 + 256 {
                let current: std::collections::HashSet<usize> = entries.iter().map(address).collect();
                cached.by_entry.retain(|address, _| current.contains(address));
            }
            cached.last = Some((entries.iter().map(address).collect(), summaries.clone()));
        }
        summaries
    }
}

/// Summaries of `entries`, in their order, without the cache (a past state read once).
pub fn summaries_of(project: &Project, entries: &[Arc<KeyEntry>]) -> Vec<Arc<KeySummary>> {
    let entries: Vec<&Arc<KeyEntry>> = entries.iter().collect();
    summarize(project, &entries)
        .into_iter()
        .map(|(_, summary)| summary)
        .collect()
}

/// Summaries of `entries`, on two threads when there are many.
fn summarize<'a>(project: &Project, entries: &[&'a Arc<KeyEntry>]) -> Vec<(&'a Arc<KeyEntry>, Arc<KeySummary>)> {
    let one = |entries: &[&'a Arc<KeyEntry>]| {
        entries
            .iter()
            .map(|entry| (*entry, Arc::new(KeySummary::of(&entry.key, project))))
            .collect::<Vec<_>>()
    };
    if entries.len() < 2_000 {
        return one(entries);
    }
    let (first, second) = entries.split_at(entries.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| one(second));
        let mut done = one(first);
        done.extend(other.join().expect("summarizing keys does not panic"));
        done
    })
}
