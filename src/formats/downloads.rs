//! The download folder: each export is written under `<exports-dir>/<id>/`, where `id` is 128
//! random bits in hex, and lives until its expiry time, kept beside it in `<id>.expires`.
//!
//! Download paths are resolved component by component inside the export's folder, so no
//! request path can reach outside the exports directory.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::archive::ExportedFile;

/// The time source of expiry: the system clock, or a manual one that tests move forward.
#[derive(Clone)]
pub struct Clock(Arc<Mutex<Option<SystemTime>>>);

impl Clock {
    pub fn system() -> Self {
        Self(Arc::new(Mutex::new(None)))
    }

    /// A clock that stands still at `start` until [`Clock::advance`] moves it.
    pub fn manual(start: SystemTime) -> Self {
        Self(Arc::new(Mutex::new(Some(start))))
    }

    pub fn now(&self) -> SystemTime {
        self.0
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .unwrap_or_else(SystemTime::now)
    }

    /// Moves a manual clock forward; a system clock ignores it.
    pub fn advance(&self, by: Duration) {
        if let Some(now) = self.0.lock().unwrap_or_else(|poison| poison.into_inner()).as_mut() {
            *now += by;
        }
    }
}

/// A stored export, as `GET /exports/{id}/{path}` finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    pub id: String,
    /// The path after the id, such as `fr.json` or `mobile-json.zip`.
    pub path: String,
}

/// The exports directory.
#[derive(Clone)]
pub struct Downloads {
    dir: PathBuf,
    ttl: Duration,
    clock: Clock,
    /// Recent exports by what they were made from (the commit and the parameters), so that
    /// the same export asked for again (a CI job's `locstore pull` with nothing changed) is
    /// answered with the stored file instead of being rendered again: exports are byte-stable.
    recent: Arc<Mutex<HashMap<String, (Download, SystemTime)>>>,
}

/// Most recent exports remembered for reuse.
const RECENT_EXPORTS: usize = 64;

impl Downloads {
    pub fn new(dir: PathBuf, ttl: Duration, clock: Clock) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        Ok(Self {
            dir,
            ttl,
            clock,
            recent: Arc::default(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Writes `file` under a new id. Blocking.
    pub fn store(&self, file: &impl ExportedFile) -> std::io::Result<Download> {
        let id = new_id()?;
        let folder = self.dir.join(&id);
        let target = folder.join(file.path());
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::io::BufWriter::with_capacity(1 << 20, File::create(&target)?);
        file.write(&mut out)?;
        out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        self.expire_later(&id)?;
        Ok(Download {
            id,
            path: file.path().to_owned(),
        })
    }

    /// Writes the file `path` under a new id through `write`, which gets it open and empty.
    /// Blocking. When `write` fails, nothing of it is left.
    pub fn store_with(&self, path: &str, write: impl FnOnce(File) -> std::io::Result<()>) -> std::io::Result<Download> {
        self.store_as(path, path, write)
    }

    /// [`Downloads::store_with`] for a file that `write` writes gzip-compressed: it is kept
    /// as `{path}.gz` and downloaded as `path` (see [`Downloads::find`]).
    pub fn store_gzip_with(
        &self,
        path: &str,
        write: impl FnOnce(File) -> std::io::Result<()>,
    ) -> std::io::Result<Download> {
        self.store_as(path, &format!("{path}.gz"), write)
    }

    fn store_as(
        &self,
        path: &str,
        on_disk: &str,
        write: impl FnOnce(File) -> std::io::Result<()>,
    ) -> std::io::Result<Download> {
        let id = new_id()?;
        let folder = self.dir.join(&id);
        let target = folder.join(on_disk);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let written = File::create(&target).and_then(write);
        if let Err(err) = written {
            let _ = std::fs::remove_dir_all(&folder);
            return Err(err);
        }
        self.expire_later(&id)?;
        Ok(Download {
            id,
            path: path.to_owned(),
        })
    }

    fn expire_later(&self, id: &str) -> std::io::Result<()> {
        let expires = self.clock.now() + self.ttl;
        let seconds = expires.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
        std::fs::write(self.dir.join(format!("{id}.expires")), seconds.to_string())
    }

    /// A stored export made from `made_of` (a commit and the export's parameters) that has
    /// at least half its lifetime left and is still on disk. Blocking.
    pub fn reusable(&self, made_of: &str) -> Option<Download> {
        let found = self
            .recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(made_of)
            .cloned();
        let (download, stored) = found?;
        let fresh = self.clock.now().duration_since(stored).unwrap_or_default() < self.ttl / 2;
        (fresh && self.find(&download.id, &download.path).is_some()).then_some(download)
    }

    /// Remembers a stored export as made from `made_of`, for [`Downloads::reusable`].
    pub fn remember(&self, made_of: String, download: &Download) {
        let now = self.clock.now();
        let mut recent = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if recent.len() >= RECENT_EXPORTS {
            let ttl = self.ttl;
            recent.retain(|_, (_, stored)| now.duration_since(*stored).unwrap_or_default() < ttl / 2);
            if recent.len() >= RECENT_EXPORTS
                && let Some(oldest) = recent
                    .iter()
                    .min_by_key(|(_, (_, stored))| *stored)
                    .map(|(key, _)| key.clone())
            {
                recent.remove(&oldest);
            }
        }
        recent.insert(made_of, (download.clone(), now));
    }

    /// The file behind a download address and whether it is kept gzip-compressed
    /// ([`Downloads::store_gzip_with`]). Blocking.
    pub fn find(&self, id: &str, path: &str) -> Option<(PathBuf, bool)> {
        if let Some(file) = self.resolve(id, path) {
            return Some((file, false));
        }
        self.resolve(id, &format!("{path}.gz")).map(|file| (file, true))
    }

    /// The file behind a download address, if the address is well-formed, not expired, and
    /// names a file of that export. Blocking.
    pub fn resolve(&self, id: &str, path: &str) -> Option<PathBuf> {
        if !is_id(id) || self.is_expired(id) {
            return None;
        }
        let mut resolved = self.dir.join(id);
        for component in path.split('/') {
            let safe = !component.is_empty()
                && component != "."
                && component != ".."
                && !component.contains(['\\', '\0', ':'])
                && !component.starts_with('.');
            if !safe {
                return None;
            }
            resolved.push(component);
        }
        let metadata = std::fs::symlink_metadata(&resolved).ok()?;
        metadata.is_file().then_some(resolved)
    }

    /// Deletes every expired export. Blocking.
    pub fn sweep(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut removed = 0;
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".expires").filter(|id| is_id(id)) else {
                continue;
            };
            if self.is_expired(id) {
                let folder = self.dir.join(id);
                if folder.exists()
                    && let Err(err) = std::fs::remove_dir_all(&folder)
                {
                    tracing::warn!(folder = %folder.display(), error = %err, "cannot remove an expired export");
                    continue;
                }
                let _ = std::fs::remove_file(entry.path());
                removed += 1;
            }
        }
        removed
    }

    fn is_expired(&self, id: &str) -> bool {
        let expires = std::fs::read_to_string(self.dir.join(format!("{id}.expires")))
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
            .map(|seconds| UNIX_EPOCH + Duration::from_secs(seconds));
        expires.is_none_or(|expires| self.clock.now() >= expires)
    }
}

/// The content type of an exported file, by its extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("json" | "xcstrings" | "arb") => "application/json; charset=utf-8",
        Some("csv") => "text/csv; charset=utf-8",
        Some("xml" | "stringsdict") => "application/xml; charset=utf-8",
        Some("xliff") => "application/xliff+xml; charset=utf-8",
        Some("po" | "pot") => "text/x-gettext-translation; charset=utf-8",
        Some("yml" | "yaml") => "application/yaml; charset=utf-8",
        Some("strings") => "text/plain; charset=utf-8",
        Some("zip") => "application/zip",
        _ => "application/octet-stream",
    }
}

fn new_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|err| std::io::Error::other(err.to_string()))?;
    Ok(hex::encode(bytes))
}

fn is_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ExportFile;

    fn downloads(clock: Clock) -> (tempfile::TempDir, Downloads) {
        let dir = tempfile::tempdir().unwrap();
        let downloads = Downloads::new(dir.path().join("exports"), Duration::from_secs(3600), clock).unwrap();
        (dir, downloads)
    }

    #[test]
    fn a_stored_file_resolves_until_it_expires_and_is_then_swept() {
        let clock = Clock::manual(UNIX_EPOCH + Duration::from_secs(1_000_000));
        let (_dir, downloads) = downloads(clock.clone());
        let download = downloads
            .store(&ExportFile {
                path: "values-fr/strings.xml".into(),
                bytes: b"x".to_vec(),
            })
            .unwrap();
        assert!(downloads.resolve(&download.id, &download.path).is_some());
        clock.advance(Duration::from_secs(3599));
        assert_eq!(downloads.sweep(), 0);
        assert!(downloads.resolve(&download.id, &download.path).is_some());
        clock.advance(Duration::from_secs(1));
        assert!(downloads.resolve(&download.id, &download.path).is_none());
        assert_eq!(downloads.sweep(), 1);
        assert!(!downloads.dir().join(&download.id).exists());
    }

    #[test]
    fn paths_that_climb_out_or_hide_do_not_resolve() {
        let (_dir, downloads) = downloads(Clock::system());
        let download = downloads
            .store(&ExportFile {
                path: "en.json".into(),
                bytes: b"{}".to_vec(),
            })
            .unwrap();
        for path in [
            "../x",
            "..",
            "a/../../en.json",
            "",
            "/etc/passwd",
            ".",
            "en.json/",
            "..\\en.json",
        ] {
            assert!(downloads.resolve(&download.id, path).is_none(), "{path}");
        }
        assert!(downloads.resolve("../exports", "en.json").is_none());
        assert!(downloads.resolve(&download.id.to_uppercase(), "en.json").is_none());
        std::fs::write(downloads.dir().join("secret.txt"), "no").unwrap();
        assert!(downloads.resolve(&download.id, "../secret.txt").is_none());
    }
}
