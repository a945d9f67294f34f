//! What a webhook's deliveries have reached, on disk in `<data-dir>/webhooks/{id}/`:
//!
//! - `cursor`: the last commit the receiver acknowledged (or that had nothing for it), and
//!   since when the commit after it has been failing. Replaced whole (written, renamed) after
//!   every acknowledged delivery, so a crash at any moment leaves the old cursor or the new
//!   one: the delivery in flight is made again after a restart, never skipped.
//! - `branches`: per project branch of the team (its ref), the last commit on it done with:
//!   one `ref commit` line each, replaced whole after every acknowledged branch delivery.
//!   Missing (a webhook from before branches were delivered): made from the branches' heads,
//!   so that what they held before is not delivered.
//! - `deliveries.jsonl`: the recent attempts, one JSON line each, appended (through a buffer
//!   that the delivery thread flushes when it saves the cursor); cut back to the newest
//!   [`KEEP`] when it grows past [`TRIM_AT`] lines.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Attempts kept for `GET .../deliveries`.
pub const KEEP: usize = 100;
/// Lines the attempts file may reach before it is cut back.
const TRIM_AT: usize = 2_000;

/// The folder of a webhook's state.
pub fn dir(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join("webhooks").join(id)
}

/// Where a webhook's deliveries stand.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cursor {
    /// The last commit done with (hex); empty: none yet.
    pub commit: String,
    /// Seconds since the epoch of the first failed attempt at the next commit, while it fails.
    pub failing_since: Option<i64>,
}

impl Cursor {
    pub fn load(dir: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(dir.join("cursor")).ok()?;
        let mut lines = text.lines();
        let commit = lines.next()?.trim().to_owned();
        if commit.len() != 40 || !commit.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        let failing_since = lines
            .find_map(|line| line.strip_prefix("failing-since "))
            .and_then(|seconds| seconds.trim().parse().ok());
        Some(Self { commit, failing_since })
    }

    /// Replaces the file (no sync: after a machine crash an older cursor only means a
    /// delivery made again, which receivers deduplicate).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut text = format!("{}\n", self.commit);
        if let Some(seconds) = self.failing_since {
            text.push_str(&format!("failing-since {seconds}\n"));
        }
        let temporary = dir.join("cursor.tmp");
        std::fs::write(&temporary, text)?;
        std::fs::rename(temporary, dir.join("cursor"))
    }
}

/// Where a webhook's deliveries of project branches stand: per branch ref, the last commit
/// done with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchCursors {
    pub done: std::collections::BTreeMap<String, git2::Oid>,
}

impl BranchCursors {
    /// `None` when there is no file (or it cannot be read).
    pub fn load(dir: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(dir.join("branches")).ok()?;
        let done = text
            .lines()
            .filter_map(|line| {
                let (reference, commit) = line.rsplit_once(' ')?;
                Some((reference.to_owned(), git2::Oid::from_str(commit).ok()?))
            })
            .collect();
        Some(Self { done })
    }

    /// Replaces the file (no sync, as for [`Cursor::save`]).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let text: String = self
            .done
            .iter()
            .map(|(reference, commit)| format!("{reference} {commit}\n"))
            .collect();
        let temporary = dir.join("branches.tmp");
        std::fs::write(&temporary, text)?;
        std::fs::rename(temporary, dir.join("branches"))
    }
}

/// One attempt at a delivery, as `GET .../deliveries` answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// The commit delivered; `None` for a test delivery.
    pub commit: Option<String>,
    /// The `webhook-id` header sent.
    pub message_id: String,
    /// 1 for the first attempt at this message.
    pub attempt: u32,
    /// When it was sent (RFC 3339).
    pub at: String,
    /// The receiver's status; `None` when there was no answer.
    pub status: Option<u16>,
    pub ok: bool,
    /// From sending to the answer's end.
    pub duration_ms: u64,
    /// Why it failed, in words.
    pub error: Option<String>,
}

/// The recent attempts of one webhook: in memory, newest last, and in the file.
pub struct Attempts {
    recent: VecDeque<Attempt>,
    path: PathBuf,
    file: Option<BufWriter<File>>,
    lines: usize,
}

impl Attempts {
    pub fn open(dir: &Path) -> Self {
        let path = dir.join("deliveries.jsonl");
        let mut recent = VecDeque::new();
        let mut lines = 0;
        if let Ok(file) = File::open(&path) {
            for line in BufReader::new(file).lines().map_while(Result::ok) {
                lines += 1;
                if let Ok(attempt) = serde_json::from_str(&line) {
                    recent.push_back(attempt);
                    if recent.len() > KEEP {
                        recent.pop_front();
                    }
                }
            }
        }
        Self {
            recent,
            path,
            file: None,
            lines,
        }
    }

    /// Newest first.
    pub fn list(&self) -> Vec<Attempt> {
        self.recent.iter().rev().cloned().collect()
    }

    /// Writes the attempts recorded since the last flush to the file.
    pub fn flush(&mut self) {
        if let Some(file) = self.file.as_mut()
            && let Err(err) = file.flush()
        {
            tracing::warn!(file = %self.path.display(), error = %err, "cannot record webhook deliveries");
            self.file = None;
        }
    }

    pub fn record(&mut self, attempt: Attempt) {
        self.recent.push_back(attempt.clone());
        if self.recent.len() > KEEP {
            self.recent.pop_front();
        }
        if let Err(err) = self.append(&attempt) {
            tracing::warn!(file = %self.path.display(), error = %err, "cannot record a webhook delivery");
            self.file = None;
        }
    }

    fn append(&mut self, attempt: &Attempt) -> std::io::Result<()> {
        if self.lines >= TRIM_AT {
            self.flush();
            self.file = None;
            let mut text = String::new();
            for kept in &self.recent {
                text.push_str(&serde_json::to_string(kept).unwrap_or_default());
                text.push('\n');
            }
            let temporary = self.path.with_extension("jsonl.tmp");
            std::fs::write(&temporary, text)?;
            std::fs::rename(&temporary, &self.path)?;
            self.lines = self.recent.len();
            return Ok(());
        }
        if self.file.is_none() {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            self.file = Some(BufWriter::new(
                OpenOptions::new().create(true).append(true).open(&self.path)?,
            ));
        }
        let mut line = serde_json::to_string(attempt).unwrap_or_default();
        line.push('\n');
        if let Some(file) = self.file.as_mut() {
            file.write_all(line.as_bytes())?;
        }
        self.lines += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(number: u32) -> Attempt {
        Attempt {
            commit: Some(format!("{number:040x}")),
            message_id: format!("m{number}"),
            attempt: 1,
            at: "2026-11-25T12:00:00Z".into(),
            status: Some(200),
            ok: true,
            duration_ms: 1,
            error: None,
        }
    }

    #[test]
    fn a_cursor_round_trips_and_a_torn_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Cursor::load(dir.path()), None);
        let cursor = Cursor {
            commit: "a".repeat(40),
            failing_since: Some(1_700_000_000),
        };
        cursor.save(dir.path()).unwrap();
        assert_eq!(Cursor::load(dir.path()), Some(cursor));
        std::fs::write(dir.path().join("cursor"), "abc").unwrap();
        assert_eq!(Cursor::load(dir.path()), None);
    }

    #[test]
    fn attempts_survive_a_reopen_and_the_file_is_cut_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut attempts = Attempts::open(dir.path());
        for number in 0..(TRIM_AT as u32 + 10) {
            attempts.record(attempt(number));
        }
        let newest = attempts.list();
        assert_eq!(newest.len(), KEEP);
        assert_eq!(newest[0], attempt(TRIM_AT as u32 + 9));
        attempts.flush();
        let lines = std::fs::read_to_string(dir.path().join("deliveries.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert!(lines < TRIM_AT, "{lines}");
        assert_eq!(Attempts::open(dir.path()).list(), newest);
    }
}
