//! An index of the branch's first-parent history: for every commit, the files it changed
//! (with their blob ids before and after), and for every file and project folder, the commits
//! that changed it. Key history and project activity read it instead of walking the commits
//! per request.
//!
//! It is kept on disk beside the repository, in `.git/locstore/history`, so that a restart
//! reads it back instead of diffing every commit again: a header line, then one record per
//! commit, oldest first, each framed by its length and a CRC-32 and encoded with postcard.
//! Records are only ever appended; a torn last record (a crash while appending) is cut off
//! on load and indexed again. The file is a cache: deleting it only costs a rebuild.
//!
//! A follower thread catches the index up after published batches (at most once a second),
//! and every read
//! catches it up first (a commit made by hand or pulled in since): the walk back from HEAD
//! stops at the newest commit indexed. When that commit is no longer on the branch (history
//! was rewritten), the index is built again from the repository.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use crate::gitdb::tree_diff;
use crate::store::StoreError;

/// The file's first line; a file with another is built again.
const HEADER: &[u8] = b"locstore history index 1\n";
/// Commits diffed per batch while catching up: each batch is diffed on all cores, then
/// indexed and appended, so that memory stays bounded during a rebuild.
const BATCH: usize = 4096;
/// From this many new commits on (a rebuild, a large pull), git's own `git log --raw` lists
/// what they changed: it reads a large history about four times faster than libgit2 can
/// here, whose object cache thrashes on it. Fewer are diffed in process.
const BULK_FROM: usize = 256;

/// One commit of the first-parent line.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub id: Oid,
    pub time: i64,
    pub author: String,
    pub subject: String,
}

/// A file a commit changed: its blob before and after (`None`: absent).
#[derive(Debug, Clone, Copy)]
pub struct FileChange {
    pub path: u32,
    pub old: Option<Oid>,
    pub new: Option<Oid>,
}

/// A commit as the file keeps it.
#[derive(Serialize, Deserialize)]
struct Record {
    id: Vec<u8>,
    time: i64,
    author: String,
    subject: String,
    files: Vec<RecordFile>,
}

#[derive(Serialize, Deserialize)]
struct RecordFile {
    path: String,
    old: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
}

#[derive(Default)]
pub struct HistoryIndex {
    /// Oldest first.
    commits: Vec<CommitInfo>,
    /// Per commit (same positions), the files it changed.
    changes: Vec<Vec<FileChange>>,
    /// Per commit, how many files it added and how many it deleted.
    counts: Vec<(u32, u32)>,
    paths: Vec<String>,
    path_ids: HashMap<String, u32>,
    /// File → positions of the commits that changed it, ascending.
    by_path: HashMap<u32, Vec<u32>>,
    /// Project folder (`teams/{team}/projects/{project}`) → positions, ascending.
    by_project: HashMap<String, Vec<u32>>,
    /// Where the index is kept; `None` until loaded.
    file: Option<IndexFile>,
}

/// The index's file, open for appending (`None` once writing failed: the index then lives
/// in memory only, and the next start builds it again).
struct IndexFile {
    path: PathBuf,
    append: Option<File>,
}

impl HistoryIndex {
    /// Brings the index up to the branch's HEAD, reading the kept file first if it has not
    /// been read yet.
    pub fn catch_up(&mut self, repo: &Repository) -> Result<(), StoreError> {
        if self.file.is_none() {
            self.load(repo.path());
        }
        let fail = |err| StoreError::internal("cannot index the history", err);
        let tip = self.commits.last().map(|commit| commit.id);
        let mut walk = repo.revwalk().map_err(fail)?;
        walk.push_head().map_err(fail)?;
        walk.simplify_first_parent().map_err(fail)?;
        let mut new = Vec::new();
        let mut reached_tip = tip.is_none();
        for id in walk {
            let id = id.map_err(fail)?;
            if Some(id) == tip {
                reached_tip = true;
                break;
            }
            new.push(id);
        }
        if !reached_tip {
            tracing::info!("the branch no longer holds the indexed history; indexing it again");
            self.start_over(repo.path());
            return self.catch_up(repo);
        }
        new.reverse();
        if new.len() >= BULK_FROM {
            tracing::info!(commits = new.len(), "indexing the history");
            match self.add_from_git_log(repo, tip, &new) {
                Ok(()) => return Ok(()),
                Err(err) => tracing::warn!(error = %err, "cannot list the history with git; reading it in process"),
            }
        }
        // After the commits `git log` indexed before it failed, if any.
        let done = self
            .commits
            .last()
            .and_then(|last| new.iter().position(|id| *id == last.id))
            .map_or(0, |at| at + 1);
        for batch in new[done..].chunks(BATCH) {
            let records = batch
                .iter()
                .map(|id| diff_commit(repo, *id))
                .collect::<Result<Vec<_>, _>>()?;
            self.add_all(records);
        }
        Ok(())
    }

    fn add_all(&mut self, records: Vec<Record>) {
        self.append(&records);
        for record in records {
            self.add(record);
        }
    }

    /// Indexes `new` (oldest first, the commits after `tip` on the branch) from the output of
    /// `git log --first-parent --raw`, a batch at a time. What it added stays when it fails
    /// part way.
    fn add_from_git_log(&mut self, repo: &Repository, tip: Option<Oid>, new: &[Oid]) -> Result<(), StoreError> {
        let last = new.last().expect("called with commits");
        let range = match tip {
            Some(tip) => format!("{tip}..{last}"),
            None => last.to_string(),
        };
        let mut child = Command::new("git")
            .arg("--git-dir")
            .arg(repo.path())
            .args([
                "-c",
                "log.showRoot=true",
                "-c",
                "core.quotePath=false",
                "log",
                "--first-parent",
            ])
            .args([
                "--diff-merges=first-parent",
                "--reverse",
                "--raw",
                "-z",
                "--no-renames",
                "--no-abbrev",
                "--no-color",
            ])
            .args(["--format=%x01%H %ct%x00%an%x00%s", &range, "--"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| StoreError::internal("cannot run git", err))?;
        let stdout = child.stdout.take().expect("piped");
        let read = self.read_git_log(BufReader::with_capacity(1 << 16, stdout), new);
        let status = child.wait();
        read?;
        match status {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(StoreError::internal("git log failed", status.to_string())),
            Err(err) => Err(StoreError::internal("git log failed", err)),
        }
    }

    fn read_git_log(&mut self, mut output: impl BufRead, new: &[Oid]) -> Result<(), StoreError> {
        let fail = |what: &str| StoreError::internal("cannot read git log's output", what.to_owned());
        let mut expected = new.iter();
        let mut batch: Vec<Record> = Vec::new();
        let mut token = Vec::new();
        let mut next = |token: &mut Vec<u8>| -> Result<bool, StoreError> {
            token.clear();
            let read = output
                .read_until(0, token)
                .map_err(|err| StoreError::internal("cannot read git log's output", err))?;
            if token.last() == Some(&0) {
                token.pop();
            }
            if token.first() == Some(&b'\n') {
                token.remove(0);
            }
            Ok(read > 0)
        };
        let mut more = next(&mut token)?;
        while more {
            // `\x01{id} {time}`, then the author and the subject.
            let header = std::str::from_utf8(token.strip_prefix(b"\x01").ok_or_else(|| fail("a commit"))?)
                .map_err(|_| fail("a commit line"))?;
            let (id, time) = header.split_once(' ').ok_or_else(|| fail("a commit line"))?;
            let id = Oid::from_str(id).map_err(|_| fail("a commit id"))?;
            if expected.next() != Some(&id) {
                return Err(fail("a commit that is not on the branch"));
            }
            let time = time.parse().map_err(|_| fail("a commit time"))?;
            next(&mut token)?;
            let author = String::from_utf8_lossy(&token).into_owned();
            next(&mut token)?;
            let subject = String::from_utf8_lossy(&token).into_owned();
            let mut files = Vec::new();
            // `:{mode} {mode} {blob} {blob} {status}`, then the path; until the next commit.
            loop {
                more = next(&mut token)?;
                if !more || token.first() != Some(&b':') {
                    break;
                }
                let meta = std::str::from_utf8(&token[1..]).map_err(|_| fail("a raw diff line"))?;
                let fields: Vec<&str> = meta.split(' ').collect();
                let [old_mode, new_mode, old, new, _status] = fields[..] else {
                    return Err(fail("a raw diff line"));
                };
                let blob = |mode: &str, id: &str| -> Result<Option<Vec<u8>>, StoreError> {
                    // Files and symbolic links; not folders or submodules.
                    if !matches!(mode, "100644" | "100755" | "120000") {
                        return Ok(None);
                    }
                    let id = Oid::from_str(id).map_err(|_| fail("a blob id"))?;
                    Ok(Some(id.as_bytes().to_vec()).filter(|_| !id.is_zero()))
                };
                let (old, new) = (blob(old_mode, old)?, blob(new_mode, new)?);
                next(&mut token)?;
                let path = String::from_utf8(std::mem::take(&mut token)).map_err(|_| fail("a path"))?;
                if old.is_some() || new.is_some() {
                    files.push(RecordFile { path, old, new });
                }
            }
            files.sort_by(|a, b| a.path.cmp(&b.path));
            batch.push(Record {
                id: id.as_bytes().to_vec(),
                time,
                author,
                subject,
                files,
            });
            if batch.len() == BATCH {
                self.add_all(std::mem::take(&mut batch));
            }
        }
        self.add_all(batch);
        if expected.next().is_some() {
            return Err(fail("fewer commits than the branch holds"));
        }
        Ok(())
    }

    /// Reads the kept file into the (empty) index, cutting off a torn or unreadable end.
    fn load(&mut self, git_dir: &Path) {
        let path = git_dir.join("locstore").join("history");
        let bytes = match std::fs::read(&path) {
            Ok(bytes) if bytes.starts_with(HEADER) => bytes,
            Ok(_) => {
                tracing::info!(file = %path.display(), "the history index is of another version; building it again");
                Vec::new()
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => {
                tracing::warn!(file = %path.display(), error = %err, "cannot read the history index; building it again");
                Vec::new()
            }
        };
        let mut good = 0;
        if !bytes.is_empty() {
            let mut rest = &bytes[HEADER.len()..];
            good = HEADER.len();
            while let Some((record, length)) = next_record(rest) {
                self.add(record);
                rest = &rest[length..];
                good += length;
            }
            if !rest.is_empty() {
                tracing::warn!(
                    file = %path.display(),
                    bytes = rest.len(),
                    "the history index ends in a torn record; indexing its commits again"
                );
            }
        }
        self.file = Some(IndexFile {
            append: open_for_append(&path, good),
            path,
        });
        if !self.commits.is_empty() {
            tracing::info!(commits = self.commits.len(), "read the history index");
        }
    }

    /// Empties the index and its file.
    fn start_over(&mut self, git_dir: &Path) {
        let path = git_dir.join("locstore").join("history");
        *self = Self::default();
        self.file = Some(IndexFile {
            append: open_for_append(&path, 0),
            path,
        });
    }

    /// Appends records to the file; on failure the index goes on in memory only.
    fn append(&mut self, records: &[Record]) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let Some(append) = file.append.as_mut() else {
            return;
        };
        let mut bytes = Vec::new();
        for record in records {
            let payload = postcard::to_stdvec(record).expect("a record always encodes");
            bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
            bytes.extend_from_slice(&payload);
        }
        if let Err(err) = append.write_all(&bytes) {
            tracing::warn!(file = %file.path.display(), error = %err, "cannot write the history index; it is kept in memory only");
            file.append = None;
        }
    }

    fn add(&mut self, record: Record) {
        let position = self.commits.len() as u32;
        let oid = |bytes: Option<&[u8]>| bytes.and_then(|bytes| Oid::from_bytes(bytes).ok());
        let mut changes = Vec::with_capacity(record.files.len());
        let (mut added, mut deleted) = (0, 0);
        for file in &record.files {
            let path_id = self.path_id(&file.path);
            self.by_path.entry(path_id).or_default().push(position);
            if let Some(project) = project_folder(&file.path) {
                let positions = self.by_project.entry(project.to_owned()).or_default();
                if positions.last() != Some(&position) {
                    positions.push(position);
                }
            }
            let change = FileChange {
                path: path_id,
                old: oid(file.old.as_deref()),
                new: oid(file.new.as_deref()),
            };
            added += u32::from(change.old.is_none());
            deleted += u32::from(change.new.is_none());
            changes.push(change);
        }
        self.commits.push(CommitInfo {
            id: oid(Some(&record.id)).unwrap_or(Oid::ZERO_SHA1),
            time: record.time,
            author: record.author,
            subject: record.subject,
        });
        self.changes.push(changes);
        self.counts.push((added, deleted));
    }

    fn path_id(&mut self, path: &str) -> u32 {
        if let Some(id) = self.path_ids.get(path) {
            return *id;
        }
        let id = self.paths.len() as u32;
        self.paths.push(path.to_owned());
        self.path_ids.insert(path.to_owned(), id);
        id
    }

    /// The position of commit `id`, looked for from the newest back.
    pub fn position_of(&self, id: Oid) -> Option<u32> {
        self.commits
            .iter()
            .rposition(|commit| commit.id == id)
            .map(|position| position as u32)
    }

    /// Indexes `ids` (oldest first, each diffed against its first parent) in memory only:
    /// a branch's own commits, read per request and never kept on disk.
    pub fn of_commits(repo: &Repository, ids: &[Oid]) -> Result<Self, StoreError> {
        let mut index = Self::default();
        for id in ids {
            let record = diff_commit(repo, *id)?;
            index.add(record);
        }
        Ok(index)
    }
}

/// A first-parent line of commits as history reads walk it, positions oldest first: the main
/// line's index, or a branch's own commits over the main line up to where the branch left it
/// ([`super::branch_line::BranchLine`]).
pub trait Line {
    /// How many commits the line has (positions are `0..len`).
    fn len(&self) -> usize;
    fn commit(&self, position: u32) -> &CommitInfo;
    /// The positions of the commits that changed `path`, before `upper`, newest first.
    fn file_commits(&self, path: &str, upper: u32) -> Vec<u32>;
    /// How many files commit `position` added, and how many it deleted.
    fn added_and_deleted(&self, position: u32) -> (u32, u32);
    /// What commit `position` did to `path`.
    fn change(&self, position: u32, path: &str) -> Option<FileChange>;
    /// The files commit `position` changed under `prefix` (a folder, ending in `/`), with
    /// their paths.
    fn changes_under(&self, position: u32, prefix: &str) -> Vec<(&str, FileChange)>;
    /// The commits that changed a project folder, newest first.
    fn project_commits(&self, project_dir: &str) -> Vec<u32>;
}

impl Line for HistoryIndex {
    fn len(&self) -> usize {
        self.commits.len()
    }

    fn commit(&self, position: u32) -> &CommitInfo {
        &self.commits[position as usize]
    }

    fn file_commits(&self, path: &str, upper: u32) -> Vec<u32> {
        let Some(id) = self.path_ids.get(path) else {
            return Vec::new();
        };
        self.by_path
            .get(id)
            .map(|positions| {
                positions
                    .iter()
                    .rev()
                    .copied()
                    .filter(|position| *position < upper)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn added_and_deleted(&self, position: u32) -> (u32, u32) {
        self.counts[position as usize]
    }

    fn change(&self, position: u32, path: &str) -> Option<FileChange> {
        let id = *self.path_ids.get(path)?;
        self.changes[position as usize]
            .iter()
            .copied()
            .find(|change| change.path == id)
    }

    fn changes_under(&self, position: u32, prefix: &str) -> Vec<(&str, FileChange)> {
        self.changes[position as usize]
            .iter()
            .map(|change| (self.paths[change.path as usize].as_str(), *change))
            .filter(|(path, _)| path.starts_with(prefix))
            .collect()
    }

    fn project_commits(&self, project_dir: &str) -> Vec<u32> {
        let mut positions = self.by_project.get(project_dir).cloned().unwrap_or_default();
        positions.reverse();
        positions
    }
}

/// The next well-formed record of `bytes` and the bytes it takes, or `None` at the end or at
/// a torn or damaged record.
fn next_record(bytes: &[u8]) -> Option<(Record, usize)> {
    let length = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let checksum = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
    let payload = bytes.get(8..8 + length)?;
    if crc32fast::hash(payload) != checksum {
        return None;
    }
    let record = postcard::from_bytes(payload).ok()?;
    Some((record, 8 + length))
}

/// Opens the index file for appending after its first `keep` bytes (0: a new file with
/// only the header). `None` when it cannot be written.
fn open_for_append(path: &Path, keep: usize) -> Option<File> {
    let opened = (|| -> std::io::Result<File> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)?;
        if keep < HEADER.len() {
            file.set_len(0)?;
            file.write_all(HEADER)?;
        } else {
            file.set_len(keep as u64)?;
        }
        let mut file = OpenOptions::new().append(true).open(path)?;
        file.flush()?;
        Ok(file)
    })();
    match opened {
        Ok(file) => Some(file),
        Err(err) => {
            tracing::warn!(file = %path.display(), error = %err, "cannot keep the history index on disk; it is kept in memory only");
            None
        }
    }
}

fn diff_commit(repo: &Repository, id: Oid) -> Result<Record, StoreError> {
    let fail = |err| StoreError::internal("cannot index a commit", err);
    let commit = repo.find_commit(id).map_err(fail)?;
    let tree = commit.tree().map_err(fail)?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree().map_err(fail)?),
        Err(_) => None,
    };
    let files = tree_diff::diff(repo, parent_tree.as_ref(), Some(&tree))
        .map_err(fail)?
        .into_iter()
        .map(|file| RecordFile {
            path: file.path,
            old: file.old.map(|id| id.as_bytes().to_vec()),
            new: file.new.map(|id| id.as_bytes().to_vec()),
        })
        .collect();
    Ok(Record {
        id: id.as_bytes().to_vec(),
        time: commit.time().seconds(),
        author: commit.author().name().unwrap_or_default().to_owned(),
        subject: commit.summary().ok().flatten().unwrap_or_default().to_owned(),
        files,
    })
}

/// Catches the shared index up on a thread of its own: once at start (reading the kept file,
/// or building it), then after the batches the writer publishes, at most once a second, so
/// that history reads rarely find many commits to index.
#[derive(Clone)]
pub struct Follower {
    nudge: SyncSender<()>,
}

impl Follower {
    pub fn start(root: &Path, index: Arc<Mutex<HistoryIndex>>) -> Self {
        let (nudge, nudged) = std::sync::mpsc::sync_channel(1);
        let root = root.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("locstore-history".into())
            .spawn(move || follow(&root, &index, &nudged));
        if let Err(err) = spawned {
            tracing::warn!(error = %err, "cannot start indexing the history; reads will");
        }
        Self { nudge }
    }

    /// Says that the branch moved; never blocks.
    pub fn nudge(&self) {
        match self.nudge.try_send(()) {
            Ok(()) | Err(TrySendError::Full(())) | Err(TrySendError::Disconnected(())) => {}
        }
    }
}

/// How long the follower waits after a nudge, for the burst to land.
const SETTLE: Duration = Duration::from_millis(50);
/// The shortest time between two rounds of the follower.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

fn follow(root: &Path, index: &Mutex<HistoryIndex>, nudged: &Receiver<()>) {
    // A handle per round: one kept open would keep the packs that maintenance deletes.
    let catch_up = || {
        let repo = Repository::open(root)
            .map_err(|err| StoreError::internal("cannot open the repository to index its history", err))?;
        index
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .catch_up(&repo)
    };
    let started = std::time::Instant::now();
    match catch_up() {
        Ok(()) => tracing::info!(
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "the history index is up to date"
        ),
        Err(err) => tracing::warn!(error = %err, "cannot index the history; the first history read will"),
    }
    let mut last_round = std::time::Instant::now();
    while nudged.recv().is_ok() {
        // Lets a burst of commits land, then indexes them together; under a steady stream of
        // writes, at most one round a second, so that indexing (and the appends that the
        // writer's next syncfs has to flush) stays a small share of the writer's disk and
        // cores. A read finding the index behind catches it up itself.
        let pause = FOLLOW_EVERY.saturating_sub(last_round.elapsed()).max(SETTLE);
        std::thread::sleep(pause);
        while nudged.try_recv().is_ok() {}
        if let Err(err) = catch_up() {
            tracing::debug!(error = %err, "cannot catch the history index up; the next read will");
        }
        last_round = std::time::Instant::now();
    }
}

/// `teams/{team}/projects/{project}` of a path under a project's folder.
fn project_folder(path: &str) -> Option<&str> {
    let mut slashes = path.match_indices('/').map(|(index, _)| index);
    let _team = slashes.next()?;
    let _projects = slashes.next()?;
    let _project = slashes.next()?;
    let end = slashes.next().unwrap_or(path.len());
    let folder = &path[..end];
    let mut parts = folder.split('/');
    (parts.next() == Some("teams") && parts.nth(1) == Some("projects")).then_some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_project_folder() {
        assert_eq!(
            project_folder("teams/acme/projects/mobile/keys/a/b/c/k.toml"),
            Some("teams/acme/projects/mobile")
        );
        assert_eq!(
            project_folder("teams/acme/projects/mobile/project.toml"),
            Some("teams/acme/projects/mobile")
        );
        assert_eq!(project_folder("teams/acme/team.toml"), None);
        assert_eq!(project_folder("README.md"), None);
    }
}
