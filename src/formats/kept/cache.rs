//! Kept files held in memory between exports. A kept file changes only when an upload or a
//! restore gives it other bytes (a blob of its own), yet every export of its project patches
//! it: so the bytes of each blob, and the file as its patcher reads it, are kept here by blob
//! and read from git and parsed once, while they fit in the cache's budget (the least
//! recently used go first).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::formats::ExportFormat;
use crate::formats::archive::Zipped;
use crate::formats::patch::{self, Prepared};
use crate::store::{Have, KeptBlob};

/// Kept files by blob, up to a budget of bytes.
pub struct Cache {
    budget: usize,
    held: Mutex<Held>,
}

struct Held {
    files: lru::LruCache<String, Arc<Cached>>,
    /// The sum of the files' [`Cached::cost`].
    used: usize,
}

/// A kept file's bytes, and what its patcher reads of them (read when first patched).
pub struct Cached {
    format: ExportFormat,
    bytes: bytes::Bytes,
    prepared: OnceLock<Option<Arc<Prepared>>>,
    /// The file zipped, when an export gave it as it is.
    zipped: Zipped,
}

impl Cached {
    /// A file of `format` read from its blob, not held by any cache.
    pub fn new(format: ExportFormat, bytes: impl Into<bytes::Bytes>) -> Self {
        Self {
            format,
            bytes: bytes.into(),
            prepared: OnceLock::new(),
            zipped: Zipped::default(),
        }
    }

    /// A file of `format` with what its patcher read of it already (by [`patch::prepare`], or
    /// by the upload's reader).
    pub fn read_ahead(format: ExportFormat, bytes: bytes::Bytes, prepared: Option<Arc<Prepared>>) -> Self {
        let file = Self::new(format, bytes);
        if let Some(prepared) = prepared {
            let _ = file.prepared.set(Some(prepared));
        }
        file
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where the file zipped as it is is kept.
    pub fn zipped(&self) -> &Zipped {
        &self.zipped
    }

    /// The file as its patcher reads it, read on first use.
    pub fn prepared(&self) -> Option<&Prepared> {
        self.prepared
            .get_or_init(|| patch::prepare(self.format, &self.bytes).map(Arc::new))
            .as_deref()
    }

    /// What holding it costs, about: its bytes, and for a file its patcher reads ahead (an
    /// entry's names, values and places) as much again twice.
    fn cost(&self) -> usize {
        if patch::prepares(self.format) {
            3 * self.bytes.len()
        } else {
            self.bytes.len()
        }
    }
}

impl Cache {
    /// A cache of at most `budget` bytes (0: none is held).
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            held: Mutex::new(Held {
                files: lru::LruCache::unbounded(),
                used: 0,
            }),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        lock(&self.held)
    }

    /// The file of `format` whose blob is `blob`, when held.
    pub fn get(&self, format: ExportFormat, blob: &str) -> Option<Arc<Cached>> {
        self.held().files.get(&key(format, blob)).cloned()
    }

    /// `bytes`, the blob `blob` of a file of `format`, held while it fits (the least recently
    /// used files making room for it).
    pub fn hold(&self, format: ExportFormat, blob: &str, bytes: Vec<u8>) -> Arc<Cached> {
        let file = Arc::new(Cached::new(format, bytes));
        self.put(blob, file.clone());
        file
    }

    /// `file`, the blob `blob`, held while it fits (as [`Cache::hold`]).
    pub fn put(&self, blob: &str, file: Arc<Cached>) {
        let cost = file.cost();
        if cost > self.budget {
            return;
        }
        let mut held = self.held();
        if let Some(before) = held.files.put(key(file.format, blob), file) {
            held.used -= before.cost();
        }
        held.used += cost;
        while held.used > self.budget {
            let Some((_, out)) = held.files.pop_lru() else { break };
            held.used -= out.cost();
        }
    }

    /// How many files it holds, and their cost in bytes.
    pub fn usage(&self) -> (usize, usize) {
        let held = self.held();
        (held.files.len(), held.used)
    }
}

/// A read of kept files through a cache: the files whose blobs it holds are not read from git,
/// and are held for the read's export whatever the cache lets go meanwhile.
pub struct Reading {
    cache: Arc<Cache>,
    format: ExportFormat,
    had: Arc<Mutex<HashMap<String, Arc<Cached>>>>,
}

impl Reading {
    pub fn new(cache: Arc<Cache>, format: ExportFormat) -> Self {
        Self {
            cache,
            format,
            had: Arc::default(),
        }
    }

    /// Which blobs the read need not read (for [`crate::store::Store::kept_blobs`]).
    pub fn have(&self) -> Box<Have> {
        let (cache, format, had) = (self.cache.clone(), self.format, self.had.clone());
        Box::new(move |blob: &str| match cache.get(format, blob) {
            Some(file) => {
                lock(&had).insert(blob.to_owned(), file);
                true
            }
            None => false,
        })
    }

    /// The files read, by path: each read from git held by the cache from now on.
    pub fn files(self, blobs: Vec<KeptBlob>) -> Vec<(String, Arc<Cached>)> {
        let had = lock(&self.had);
        blobs
            .into_iter()
            .filter_map(|KeptBlob { path, blob, bytes }| {
                let file = match bytes {
                    Some(bytes) => self.cache.hold(self.format, &blob, bytes),
                    None => had.get(&blob).cloned().or_else(|| self.cache.get(self.format, &blob))?,
                };
                Some((path, file))
            })
            .collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn key(format: ExportFormat, blob: &str) -> String {
    format!("{}:{blob}", format.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_files_make_room_within_the_budget() {
        let cache = Cache::new(100);
        cache.hold(ExportFormat::Csv, "a", vec![b'a'; 40]);
        cache.hold(ExportFormat::Csv, "b", vec![b'b'; 40]);
        assert!(cache.get(ExportFormat::Csv, "a").is_some());
        cache.hold(ExportFormat::Csv, "c", vec![b'c'; 40]);
        assert!(cache.get(ExportFormat::Csv, "b").is_none(), "b was used least recently");
        assert_eq!(cache.get(ExportFormat::Csv, "a").unwrap().bytes(), &[b'a'; 40][..]);
        assert_eq!(cache.usage(), (2, 80));
        // The same blob of another format is another file.
        assert!(cache.get(ExportFormat::AndroidXml, "a").is_none());
        // A file over the budget is given, not held.
        let big = cache.hold(ExportFormat::Csv, "d", vec![0; 101]);
        assert_eq!(big.bytes().len(), 101);
        assert!(cache.get(ExportFormat::Csv, "d").is_none());
        assert_eq!(cache.usage(), (2, 80));
    }

    #[test]
    fn a_file_its_patcher_reads_ahead_costs_three_times_its_bytes() {
        let cache = Cache::new(1000);
        cache.hold(ExportFormat::Xliff, "x", vec![b'x'; 100]);
        assert_eq!(cache.usage(), (1, 300));
    }
}
