//! Completeness and quality reads: stats, the checks list, the work-queue filters of the key
//! query and the checks answered on writes, from the key summaries the catalog keeps
//! ([`super::catalog::summaries`]).

use std::sync::Arc;

pub use super::catalog::summaries::{KeySummary, LanguageSet, QualityCache, Summaries, summaries_of};
use super::catalog::{KeyEntry, KeyIndex};
use crate::domain::checks::{Check, Failure, Severity, check_key};
use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;
/// One language's completeness.
#[derive(Debug, Clone, PartialEq)]
pub struct LanguageStats {
    pub language: LanguageCode,
    pub translated: u64,
    pub missing: u64,
    pub outdated: u64,
    pub failing: u64,
    /// Of the keys that want a text in the language, the share translated, in percent (two
    /// decimals); 0 when no key wants one.
    pub translated_percent: f64,
    /// Words of the base texts of the keys missing in the language.
    pub missing_words: u64,
}

/// A project's completeness, per language in the project's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub keys: u64,
    pub base_words: u64,
    pub languages: Vec<LanguageStats>,
}

/// Counts the summaries of a project's keys (or of the keys a filter kept), in one pass over
/// them (each summary's sets are read together, rather than one pass per language).
pub fn stats<'a>(project: &Project, summaries: impl IntoIterator<Item = &'a KeySummary>) -> Stats {
    let count = project.languages.len();
    let base_position = project
        .languages
        .iter()
        .position(|language| *language == project.base_language)
        .unwrap_or(0);
    let (mut wanted, mut translated, mut outdated, mut failing, mut missing_words) = (
        vec![0u64; count],
        vec![0u64; count],
        vec![0u64; count],
        vec![0u64; count],
        vec![0u64; count],
    );
    let (mut keys, mut base_words) = (0u64, 0u64);
    for summary in summaries {
        keys += 1;
        base_words += u64::from(summary.base_words);
        for position in 0..count {
            if summary.wants(position, base_position) {
                wanted[position] += 1;
                if summary.translated.contains(position) {
                    translated[position] += 1;
                } else {
                    missing_words[position] += u64::from(summary.base_words);
                }
            }
            outdated[position] += u64::from(summary.outdated.contains(position));
            failing[position] += u64::from(summary.failing.contains(position));
        }
    }
    let languages = project
        .languages
        .iter()
        .enumerate()
        .map(|(position, language)| LanguageStats {
            language: language.clone(),
            translated: translated[position],
            missing: wanted[position] - translated[position],
            outdated: outdated[position],
            failing: failing[position],
            translated_percent: if wanted[position] == 0 {
                0.0
            } else {
                (translated[position] as f64 * 10_000.0 / wanted[position] as f64).round() / 100.0
            },
            missing_words: missing_words[position],
        })
        .collect();
    Stats {
        keys,
        base_words,
        languages,
    }
}

/// The work-queue filters of the key query: several values of one parameter match any of
/// them, different parameters must all match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkFilter {
    /// Keys with at least one of these tags.
    pub tags: Vec<String>,
    pub missing: Vec<LanguageCode>,
    pub outdated: Vec<LanguageCode>,
    pub failing: Vec<LanguageCode>,
    pub checks: Vec<Check>,
}

impl WorkFilter {
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
            && self.missing.is_empty()
            && self.outdated.is_empty()
            && self.failing.is_empty()
            && self.checks.is_empty()
    }

    /// The positions in the project's list of the languages named, refusing a language the
    /// project lacks.
    fn positions(project: &Project, languages: &[LanguageCode]) -> Result<Vec<usize>, String> {
        languages
            .iter()
            .map(|language| project.language_position(language))
            .collect()
    }

    /// A predicate on summaries for this filter in `project`.
    pub fn matcher(&self, project: &Project) -> Result<impl Fn(&KeySummary) -> bool + '_, String> {
        let base_position = project
            .languages
            .iter()
            .position(|language| *language == project.base_language)
            .unwrap_or(0);
        let missing = Self::positions(project, &self.missing)?;
        let outdated = Self::positions(project, &self.outdated)?;
        let failing = Self::positions(project, &self.failing)?;
        Ok(move |summary: &KeySummary| {
            (missing.is_empty() || missing.iter().any(|&at| summary.is_missing(at, base_position)))
                && (outdated.is_empty() || outdated.iter().any(|&at| summary.outdated.contains(at)))
                && (failing.is_empty() || failing.iter().any(|&at| summary.failing.contains(at)))
                && (self.checks.is_empty() || self.checks.iter().any(|check| summary.fails(Some(*check), None)))
        })
    }
}

/// `query` with every match on one page, in name order: for the names its keyword matches.
pub fn every_match(query: &KeyQuery) -> KeyQuery {
    KeyQuery {
        keyword: query.keyword.clone(),
        page: 1,
        limit: u64::MAX,
        sort: crate::domain::query::SortOrder::Asc,
        namespace: query.namespace.clone(),
    }
}

/// The addresses of a page of keys (to find them again among the entries they are in).
pub fn addresses_of(page: &[&Key]) -> Vec<usize> {
    page.iter().map(|key| *key as *const Key as usize).collect()
}

/// The keys of `entries` (in name order, with their `summaries`) that `filter` keeps and,
/// when `named` is given (the addresses of a keyword's matches among `entries`, in name
/// order), that it names.
pub fn select_work<'a>(
    project: &Project,
    entries: &'a [Arc<KeyEntry>],
    summaries: &[Arc<KeySummary>],
    named: Option<&[usize]>,
    filter: &WorkFilter,
) -> Result<Vec<&'a Key>, String> {
    let matcher = filter.matcher(project)?;
    let tagged = |key: &Key| filter.tags.is_empty() || key.tags.iter().any(|tag| filter.tags.contains(tag));
    let keeps = |entry: &Arc<KeyEntry>, summary: &Arc<KeySummary>| tagged(&entry.key) && matcher(summary);
    Ok(match named {
        None => entries
            .iter()
            .zip(summaries)
            .filter(|(entry, summary)| keeps(entry, summary))
            .map(|(entry, _)| &entry.key)
            .collect(),
        Some(named) => {
            // Both lists are in name order and `named` holds the entries' own keys: one walk,
            // comparing addresses.
            let mut named = named.iter().peekable();
            let mut found = Vec::new();
            for (entry, summary) in entries.iter().zip(summaries) {
                let Some(next) = named.peek() else { break };
                if **next == &entry.key as *const Key as usize {
                    named.next();
                    if keeps(entry, summary) {
                        found.push(&entry.key);
                    }
                }
            }
            found
        }
    })
}

/// One failing check of a key, as `GET .../checks` lists it.
#[derive(Debug, Clone)]
pub struct KeyFailure {
    pub key: crate::domain::names::KeyName,
    pub failure: Failure,
}

/// Which failures `GET .../checks` lists.
#[derive(Debug, Clone, Default)]
pub struct FailureFilter {
    pub language: Vec<LanguageCode>,
    pub check: Vec<Check>,
    pub severity: Option<Severity>,
}

impl FailureFilter {
    pub fn keeps(&self, failure: &Failure) -> bool {
        (self.language.is_empty() || self.language.iter().any(|language| language.same_as(&failure.language)))
            && (self.check.is_empty() || self.check.contains(&failure.check))
            && self.severity.is_none_or(|severity| severity == failure.severity)
    }
}

impl super::Store {
    /// Runs `read` under the read lock on the project, its keys and their summaries. When
    /// keys changed since the last read, the new ones are summarized first: on a blocking
    /// thread with the catalog free (all of them, the first time), then what changed in the
    /// meantime under the lock.
    async fn with_summaries<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        read: impl FnOnce(&Project, &KeyIndex, &[Arc<KeySummary>]) -> T,
    ) -> Result<T, StoreError> {
        let mut read = Some(read);
        let ready = self
            .with_keys(team, project, |entry, keys| {
                let summaries = entry.quality.aligned(&entry.project, keys.entries())?;
                let read = read.take()?;
                Some(read(&entry.project, keys, &summaries))
            })
            .await?;
        if let Some(value) = ready {
            return Ok(value);
        }
        let (settings, entries, cache) = self
            .with_keys(team, project, |entry, keys| {
                (entry.project.clone(), keys.entries().to_vec(), entry.quality.clone())
            })
            .await?;
        tokio::task::spawn_blocking(move || {
            cache.summaries(&settings, &entries, true);
        })
        .await
        .map_err(|err| StoreError::internal("summarizing the keys failed", err))?;
        let read = read.take().expect("not taken: the first read found no summaries");
        self.with_keys(team, project, |entry, keys| {
            let summaries = entry.quality.summaries(&entry.project, keys.entries(), true);
            read(&entry.project, keys, &summaries)
        })
        .await
    }

    /// Completeness per language of a project's keys (those with one of `tags`, or all).
    pub async fn stats(&self, team: &TeamName, project: &ProjectName, tags: &[String]) -> Result<Stats, StoreError> {
        self.with_summaries(team, project, |settings, keys, summaries| {
            let kept = keys
                .entries()
                .iter()
                .zip(summaries)
                .filter(|(entry, _)| tags.is_empty() || entry.key.tags.iter().any(|tag| tags.contains(tag)))
                .map(|(_, summary)| summary.as_ref());
            stats(settings, kept)
        })
        .await
    }

    /// One page of a project's failing checks that `filter` keeps, in key order (then
    /// language and check order), with the totals.
    pub async fn failures(
        &self,
        team: &TeamName,
        project: &ProjectName,
        filter: &FailureFilter,
        query: &KeyQuery,
    ) -> Result<(Vec<KeyFailure>, PageInfo), StoreError> {
        self.with_summaries(team, project, |_, keys, summaries| {
            failure_page(keys.entries(), summaries, filter, query)
        })
        .await
    }

    /// [`Store::query_keys`] with the work-queue filters: the keys the keyword (if any) and
    /// `filter` both match, paged and sorted as the query says.
    pub async fn query_work<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        query: &KeyQuery,
        filter: &WorkFilter,
        render: impl FnOnce(&Project, &[&Key]) -> T,
    ) -> Result<(T, PageInfo), StoreError> {
        self.with_summaries(team, project, |settings, keys, summaries| {
            let named = query
                .keyword
                .as_ref()
                .map(|_| keys.query(&every_match(query), addresses_of).0);
            let kept = select_work(settings, keys.entries(), summaries, named.as_deref(), filter)?;
            let page: Vec<&Key> = query.select(&kept).into_iter().copied().collect();
            Ok((render(settings, &page), query.page_info(kept.len())))
        })
        .await?
        .map_err(StoreError::Invalid)
    }

    /// The failing checks of the keys `names` (sorted) of a project as it is now (after a
    /// write), in key order, at most `most` of them, and how many there are in all.
    pub async fn failures_of(
        &self,
        team: &TeamName,
        project: &ProjectName,
        names: &[crate::domain::names::KeyName],
        most: usize,
    ) -> Result<(Vec<KeyFailure>, usize), StoreError> {
        if names.is_empty() {
            return Ok((Vec::new(), 0));
        }
        // A few keys are checked under the read lock (microseconds); many are taken as shared
        // handles and checked on a blocking thread.
        let (settings, entries, few) = self
            .with_keys(team, project, |entry, keys| {
                if names.len() < 64 {
                    let named = names.iter().filter_map(|name| keys.get(name)).map(|found| &found.key);
                    let few = failures_in(named, &entry.project.base_language, most);
                    return (entry.project.clone(), Vec::new(), Some(few));
                }
                let entries: Vec<Arc<KeyEntry>> = keys
                    .shared()
                    .filter(|entry| names.binary_search(&entry.key.name).is_ok())
                    .cloned()
                    .collect();
                (entry.project.clone(), entries, None)
            })
            .await?;
        if let Some(few) = few {
            return Ok(few);
        }
        let check = move || failures_in(entries.iter().map(|entry| &entry.key), &settings.base_language, most);
        tokio::task::spawn_blocking(check)
            .await
            .map_err(|err| StoreError::internal("checking the keys failed", err))
    }
}

use super::error::StoreError;
use crate::domain::names::{ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo};

/// The page `query` asks for of the failures `filter` keeps, in key order: each entry's
/// failures from its summary (the summaries in the entries' order).
/// The failing checks of `keys`, in their order, at most `most` of them, and how many there
/// are in all.
pub fn failures_in<'a>(
    keys: impl IntoIterator<Item = &'a Key>,
    base_language: &LanguageCode,
    most: usize,
) -> (Vec<KeyFailure>, usize) {
    let mut found = Vec::new();
    let mut total = 0;
    for key in keys {
        for failure in check_key(key, base_language) {
            total += 1;
            if found.len() < most {
                found.push(KeyFailure {
                    key: key.name.clone(),
                    failure,
                });
            }
        }
    }
    (found, total)
}

pub fn failure_page(
    entries: &[Arc<KeyEntry>],
    summaries: &[Arc<KeySummary>],
    filter: &FailureFilter,
    query: &KeyQuery,
) -> (Vec<KeyFailure>, PageInfo) {
    let all: Vec<(&Arc<KeyEntry>, &Failure)> = entries
        .iter()
        .zip(summaries)
        .flat_map(|(entry, summary)| summary.failures.iter().map(move |failure| (entry, failure)))
        .filter(|(_, failure)| filter.keeps(failure))
        .collect();
    let page = query
        .select(&all)
        .into_iter()
        .map(|(entry, failure)| KeyFailure {
            key: entry.key.name.clone(),
            failure: (*failure).clone(),
        })
        .collect();
    (page, query.page_info(all.len()))
}
