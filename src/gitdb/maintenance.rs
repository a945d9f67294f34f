//! Repository maintenance in the background: the small packs the writer publishes (one per
//! batch of changes) and any loose objects are merged, so that reads do not look through
//! hundreds of packs, without blocking the writer or readers.
//!
//! A run keeps the packs in a geometric progression, as `git repack --geometric=2` does (each
//! pack holds at least twice the objects of the next smaller one, so a run merges about what
//! was written since the last one), but lists the objects to merge itself, from the packs'
//! indexes, names them by their paths from the commits in the same packs, and hands the list
//! to `git pack-objects`. `git repack --geometric` walked from each commit in the merged packs
//! through its whole tree to name the objects, so every run cost as much as the repository is
//! big: with 100,000 keys, 0.66 s of CPU to merge 200 small packs, against 0.10 s from the
//! list; at 400 writes a second it took more CPU than the writer (BENCHMARKS.md). The merged
//! pack is complete before the packs it replaces are deleted, index first.
//!
//! After a large import or upload (a pack of whole objects), the next run when writes pause
//! is a full `git repack -a -d -l` instead, which names every object and finds their deltas.
//!
//! A run is a thread of its own and the `git` processes it starts (at nice 10, killed with
//! the server); the writer polls it and reopens the repository once it has ended.

use std::collections::{HashMap, HashSet};
use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// Packs published between two maintenance runs. Each pack costs every object lookup that
/// misses a little, and libgit2 keeps read packs open, so they should not pile up; a run
/// costs two process starts and a pass over the packs it merges.
const PACKS_PER_RUN: usize = 200;

/// Packs that, once writes pause, are worth a run.
const PACKS_BEFORE_IDLE_RUN: usize = 16;

/// A temporary file git left in the pack folder (a run killed at shutdown) is deleted by a
/// later run once it is this old: a git command of someone else's may be writing a young one.
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

/// Packs of at most this many objects have their objects named (see [`name_objects`]): the
/// writer's batches. A larger pack was made by an earlier merge, whose deltas are reused, or
/// is a bulk import's, which the full repack after it takes care of.
const MOST_NAMED_PACK_OBJECTS: u64 = 1024;

/// How often a run looks whether its `git` process has ended.
const CHILD_POLL: Duration = Duration::from_millis(10);

pub struct Maintenance {
    git_dir: PathBuf,
    running: Option<Run>,
    packs_since: usize,
    /// Set when a run ended and the writer has not yet been told.
    finished: bool,
    /// Set once `git` could not be started, so that it is not tried on every commit.
    unavailable: bool,
    /// Set when a pack of whole objects was published (a large import): the next run, when
    /// writes pause, is a full repack that finds their deltas. A merge of the smallest packs
    /// never rewrites the largest one, and such a pack is often the largest.
    full: bool,
}

/// A run on its thread, and the `git` process it waits for.
struct Run {
    thread: JoinHandle<Ended>,
    child: Arc<ChildSlot>,
    started: Instant,
}

/// What a run did.
struct Done {
    full: bool,
    /// Packs and loose objects merged, and the objects written.
    packs: usize,
    loose: usize,
    merged: u64,
}

/// The `git` process a run waits for, where [`Maintenance::stop`] can kill it.
#[derive(Default)]
struct ChildSlot(Mutex<SlotState>);

#[derive(Default)]
struct SlotState {
    child: Option<Child>,
    /// Set at shutdown: no further process is started.
    stopped: bool,
}

/// How a run ended.
enum Ended {
    /// What it did, for the log.
    Done(Done),
    Failed(String),
    /// `git` could not be started: later runs are not tried.
    NoGit(io::Error),
}

impl Maintenance {
    /// Maintenance of the repository whose working tree is `root` (or a bare one at `root`).
    pub fn new(root: PathBuf) -> Self {
        let dot_git = root.join(".git");
        Self {
            git_dir: if dot_git.is_dir() { dot_git } else { root },
            running: None,
            packs_since: 0,
            finished: false,
            unavailable: false,
            full: false,
        }
    }

    /// Counts published packs; starts a run when enough have piled up.
    pub fn published(&mut self, packs: usize) {
        self.packs_since += packs;
        self.poll();
        if self.packs_since >= PACKS_PER_RUN && self.running.is_none() {
            self.start();
        }
    }

    /// When writes pause: starts a run if a few packs are waiting, so that a burst of writes
    /// does not leave up to [`PACKS_PER_RUN`] small packs behind for every read to look through.
    pub fn idle(&mut self) {
        self.poll();
        if (self.full || self.packs_since >= PACKS_BEFORE_IDLE_RUN) && self.running.is_none() {
            self.start();
        }
    }

    /// Asks for a full repack (`git repack -a -d`) when writes next pause.
    pub fn needs_full_repack(&mut self) {
        self.full = true;
    }

    /// Whether a run has ended since the last call (the writer then reopens the repository,
    /// so that libgit2 lets go of the packs the run deleted).
    pub fn take_finished(&mut self) -> bool {
        self.poll();
        std::mem::take(&mut self.finished)
    }

    /// At shutdown: lets a run finish for a few seconds, then stops it (git leaves only
    /// temporary files behind when interrupted, and a later run deletes them).
    pub fn stop(&mut self) {
        let Some(run) = self.running.take() else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while !run.thread.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        if !run.thread.is_finished() {
            let mut slot = run.child.lock();
            slot.stopped = true;
            if let Some(child) = slot.child.as_mut() {
                let _ = child.kill();
            }
            drop(slot);
            tracing::info!("stopping repository maintenance for shutdown");
        }
        self.end(run);
    }

    fn poll(&mut self) {
        if self.running.as_ref().is_some_and(|run| run.thread.is_finished()) {
            let run = self.running.take().expect("checked above");
            self.end(run);
            self.finished = true;
        }
    }

    /// Waits for the run's thread and logs how it ended.
    fn end(&mut self, run: Run) {
        let duration_ms = run.started.elapsed().as_secs_f64() * 1000.0;
        match run.thread.join() {
            Ok(Ended::Done(Done {
                full,
                packs,
                loose,
                merged,
            })) => tracing::info!(
                duration_ms,
                full,
                packs,
                loose,
                objects = merged,
                "repository maintenance done"
            ),
            Ok(Ended::Failed(why)) => tracing::warn!(duration_ms, why, "repository maintenance failed"),
            Ok(Ended::NoGit(err)) => {
                tracing::warn!(error = %err, "cannot run git for repository maintenance; packs will pile up");
                self.unavailable = true;
            }
            Err(_) => tracing::error!(duration_ms, "repository maintenance panicked"),
        }
    }

    fn start(&mut self) {
        if self.unavailable {
            return;
        }
        let (git_dir, full) = (self.git_dir.clone(), self.full);
        let child = Arc::new(ChildSlot::default());
        let slot = child.clone();
        let spawned = std::thread::Builder::new()
            .name("locstore-maintenance".into())
            .spawn(move || {
                // Merging packs can wait, answers not (its git processes are at nice 10 too).
                // SAFETY: gettid has no preconditions; setpriority with this thread's id
                // changes only this thread's nice value, and its failure is harmless.
                unsafe {
                    let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
                    libc::setpriority(libc::PRIO_PROCESS, thread, 10);
                }
                if full {
                    full_repack(&git_dir, &slot)
                } else {
                    merge_small_packs(&git_dir, &slot)
                }
            });
        match spawned {
            Ok(thread) => {
                tracing::debug!(packs = self.packs_since, full, "started repository maintenance");
                self.full = false;
                self.packs_since = 0;
                self.running = Some(Run {
                    thread,
                    child,
                    started: Instant::now(),
                });
            }
            Err(err) => tracing::warn!(error = %err, "cannot start a thread for repository maintenance"),
        }
    }
}

impl ChildSlot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.0.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// Starts `command` here, unless the server is stopping; `feed` then writes its input.
    /// Answers its output, to read (it has ended, and succeeded).
    fn run(
        &self,
        mut command: Command,
        feed: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<Option<ChildStdout>, Ended> {
        let mut slot = self.lock();
        if slot.stopped {
            return Err(Ended::Failed("stopped for shutdown".into()));
        }
        let mut child = command.spawn().map_err(|err| match err.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => Ended::NoGit(err),
            _ => Ended::Failed(format!("cannot start git: {err}")),
        })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        slot.child = Some(child);
        drop(slot);
        // The input ends when `stdin` is dropped. A process killed at shutdown meanwhile makes
        // the write fail; one that must not go on with half its input is killed here.
        let fed = stdin.map_or(Ok(()), |mut stdin| feed(&mut stdin));
        if let Err(err) = fed {
            if let Some(child) = self.lock().child.as_mut() {
                let _ = child.kill();
            }
            let _ = self.wait();
            return Err(Ended::Failed(format!("cannot give git the objects: {err}")));
        }
        self.wait()?;
        Ok(stdout)
    }

    /// Waits for the process started by [`Self::run`]; whether it succeeded.
    fn wait(&self) -> Result<(), Ended> {
        loop {
            let mut slot = self.lock();
            let Some(child) = slot.child.as_mut() else {
                return Err(Ended::Failed("no git process to wait for".into()));
            };
            let ended = child.try_wait();
            if !matches!(ended, Ok(None)) {
                // Ended (reaped: `wait` answers at once), or not to be waited for: killed.
                if ended.is_err() {
                    let _ = child.kill();
                }
                let status = child.wait();
                slot.child = None;
                return match status {
                    Ok(status) if status.success() => Ok(()),
                    Ok(status) => Err(Ended::Failed(format!("git ended with {status}"))),
                    Err(err) => Err(Ended::Failed(format!("cannot wait for git: {err}"))),
                };
            }
            drop(slot);
            std::thread::sleep(CHILD_POLL);
        }
    }
}

/// `git` on the repository, at nice 10, dying with the thread that started it.
fn git(git_dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("--git-dir")
        .arg(git_dir)
        .args(["-c", "pack.threads=1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // A run must not outlive the server: after a crash the next start (and whoever checks
    // the repository) would otherwise race a git still deleting packs. git leaves only
    // temporary files behind when killed, never a pack it has not finished. It also yields
    // the CPU to the server (nice 10): merging packs can wait, answers not.
    // SAFETY: prctl and setpriority are async-signal-safe and touch no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            libc::setpriority(libc::PRIO_PROCESS, 0, 10);
            Ok(())
        });
    }
    command
}

fn full_repack(git_dir: &Path, child: &ChildSlot) -> Ended {
    let mut command = git(git_dir);
    command.args(["repack", "-a", "-d", "-l", "-q"]);
    match child.run(command, |_| Ok(())) {
        Ok(_) => Ended::Done(Done {
            full: true,
            packs: 0,
            loose: 0,
            merged: 0,
        }),
        Err(ended) => ended,
    }
}

/// A pack in the pack folder: its path without the extension, and how many objects it holds.
#[derive(Debug, Clone, PartialEq)]
struct Pack {
    stem: PathBuf,
    objects: u64,
}

/// The extensions of a pack's files, the index first: a pack is read only while its index is
/// there, so it is deleted first.
const PACK_FILES: [&str; 5] = ["idx", "pack", "rev", "bitmap", "mtimes"];

fn merge_small_packs(git_dir: &Path, child: &ChildSlot) -> Ended {
    let objects_dir = git_dir.join("objects");
    let pack_dir = objects_dir.join("pack");
    remove_stale_temporaries(&pack_dir);
    let packs = match list_packs(&pack_dir) {
        Ok(packs) => packs,
        Err(err) => return Ended::Failed(format!("cannot list the packs: {err}")),
    };
    let loose = loose_objects(&objects_dir);
    let merged = packs_to_merge(packs, loose.len());
    let mut done = Done {
        full: false,
        packs: 0,
        loose: 0,
        merged: 0,
    };
    if merged.len() < 2 && loose.is_empty() {
        return Ended::Done(done);
    }
    let mut ids = Vec::new();
    let mut names = HashMap::new();
    for pack in &merged {
        let index = pack.stem.with_extension("idx");
        match index_ids(&index) {
            Ok(found) => {
                if pack.objects <= MOST_NAMED_PACK_OBJECTS {
                    name_objects(&index, &found, &mut names);
                }
                ids.extend(found);
            }
            Err(err) => return Ended::Failed(format!("cannot read {}: {err}", pack.stem.display())),
        }
    }

    let mut command = git(git_dir);
    command
        .args(["pack-objects", "--local", "--quiet", "--delta-base-offset"])
        .arg(pack_dir.join("pack"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let feed = |input: &mut dyn Write| {
        let mut input = io::BufWriter::new(input);
        for id in &ids {
            match names.get(id) {
                Some(path) => writeln!(input, "{} {path}", hex::encode(id))?,
                None => writeln!(input, "{}", hex::encode(id))?,
            }
        }
        for id in &loose {
            writeln!(input, "{id}")?;
        }
        input.flush()
    };
    let output = match child.run(command, feed) {
        Ok(output) => output,
        Err(ended) => return ended,
    };
    // pack-objects answers the new pack's name.
    let mut name = String::new();
    if let Some(mut stdout) = output
        && let Err(err) = stdout.read_to_string(&mut name)
    {
        return Ended::Failed(format!("cannot read git's answer: {err}"));
    }
    let new = pack_dir.join(format!("pack-{}", name.trim()));
    if !new.with_extension("idx").is_file() {
        return Ended::Failed(format!("git wrote no pack {}", new.display()));
    }
    for pack in merged.iter().filter(|pack| pack.stem != new) {
        for extension in PACK_FILES {
            match std::fs::remove_file(pack.stem.with_extension(extension)) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => {
                    return Ended::Failed(format!("cannot delete {}: {err}", pack.stem.display()));
                }
                _ => {}
            }
        }
    }
    if !loose.is_empty() {
        // The loose objects now packed: `git prune-packed` deletes those (and only those).
        let mut command = git(git_dir);
        command.args(["prune-packed", "-q"]);
        if let Err(ended) = child.run(command, |_| Ok(())) {
            return ended;
        }
    }
    done.packs = merged.len();
    done.loose = loose.len();
    done.merged = (ids.len() + loose.len()) as u64;
    Ended::Done(done)
}

/// Names the trees and files of the pack whose index is `index` by their paths, as far as
/// its commits show them. `git pack-objects` looks for a delta between objects of the same
/// name first (a folder's or a key file's versions), and given none it paired objects of
/// about the same size: its merged packs were a third larger than `git repack
/// --geometric`'s, and later repacks keep the deltas they find. A commit's new trees and
/// files are in the same pack as the commit (the writer publishes a batch as one pack, and a
/// merge keeps them together), so each pack is read on its own, and only its own objects:
/// the cost follows what was written, where `git repack --geometric` read every commit's
/// whole tree. Objects no commit of the pack leads to go without a name.
fn name_objects(index: &Path, ids: &[[u8; ID_LEN]], names: &mut HashMap<[u8; ID_LEN], String>) {
    let mut read = || -> Result<(), git2::Error> {
        let odb = git2::Odb::new()?;
        super::objects::add_pack_backend(&odb, index, 1).map_err(|err| git2::Error::from_str(&err.to_string()))?;
        let repo = git2::Repository::from_odb(odb)?;
        let odb = repo.odb()?;
        let in_pack: HashSet<[u8; ID_LEN]> = ids.iter().copied().collect();
        for id in ids {
            let id = git2::Oid::from_bytes(id)?;
            if odb.read_header(id)?.1 != git2::ObjectType::Commit {
                continue;
            }
            if let Ok(tree) = repo.find_commit(id).and_then(|commit| commit.tree()) {
                name_tree(&repo, &tree, &mut String::new(), &in_pack, names);
            }
        }
        Ok(())
    };
    if let Err(err) = read() {
        tracing::debug!(error = %err, index = %index.display(), "cannot name a pack's objects");
    }
}

/// Names the entries of `tree` that are in the pack, and reads on into those subtrees only
/// (the others were written before).
fn name_tree(
    repo: &git2::Repository,
    tree: &git2::Tree<'_>,
    prefix: &mut String,
    in_pack: &HashSet<[u8; ID_LEN]>,
    names: &mut HashMap<[u8; ID_LEN], String>,
) {
    for entry in tree.iter() {
        let (Ok(id), Ok(name)) = (<[u8; ID_LEN]>::try_from(entry.id().as_bytes()), entry.name()) else {
            continue;
        };
        if !in_pack.contains(&id) || names.contains_key(&id) || name.contains('\n') {
            continue;
        }
        let length = prefix.len();
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(name);
        names.insert(id, prefix.clone());
        if entry.kind() == Some(git2::ObjectType::Tree)
            && let Ok(subtree) = repo.find_tree(entry.id())
        {
            name_tree(repo, &subtree, prefix, in_pack, names);
        }
        prefix.truncate(length);
    }
}

/// Which packs to merge: the smallest ones, so that each pack left (the merged one
/// included) holds at least twice the objects of the next smaller one; loose objects, if
/// any, are merged whatever their number.
fn packs_to_merge(mut packs: Vec<Pack>, loose: usize) -> Vec<Pack> {
    // Loose objects stand in the progression as a pack of their own with no files.
    let loose_stand_in = Pack {
        stem: PathBuf::new(),
        objects: loose as u64,
    };
    if loose > 0 {
        packs.push(loose_stand_in.clone());
    }
    packs.sort_by_key(|pack| pack.objects);
    let counts: Vec<u64> = packs.iter().map(|pack| pack.objects).collect();
    let mut merged = packs;
    merged.truncate(merge_count(&counts));
    merged.retain(|pack| *pack != loose_stand_in);
    merged
}

/// Of pack sizes sorted smallest first: how many of the smallest to merge into one so that
/// every size left is at least twice the next smaller one (git's geometric progression with
/// factor 2). Everything up to the last place where the progression breaks is merged, then
/// the next packs while the merged one is more than half of them.
fn merge_count(counts: &[u64]) -> usize {
    let mut merge = counts
        .windows(2)
        .rposition(|pair| pair[1] < 2 * pair[0])
        .map_or(0, |at| at + 2);
    let mut total: u64 = counts[..merge].iter().sum();
    while merge < counts.len() && counts[merge] < 2 * total {
        total += counts[merge];
        merge += 1;
    }
    merge
}

/// The packs there are, each with its index (a pack is used once its index is there), but
/// not those marked to be kept (`.keep`, `.promisor`) nor those with an index of another
/// version than 2.
fn list_packs(pack_dir: &Path) -> io::Result<Vec<Pack>> {
    let entries = match std::fs::read_dir(pack_dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut packs = Vec::new();
    for entry in entries {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        let Some(stem) = name.strip_suffix(".idx").filter(|stem| stem.starts_with("pack-")) else {
            continue;
        };
        let stem = pack_dir.join(stem);
        if !stem.with_extension("pack").is_file()
            || stem.with_extension("keep").exists()
            || stem.with_extension("promisor").exists()
        {
            continue;
        }
        // A pack merged and deleted by someone else meanwhile is passed over.
        if let Ok(Some(objects)) = index_count(&stem.with_extension("idx")) {
            packs.push(Pack { stem, objects });
        }
    }
    Ok(packs)
}

/// A version 2 pack index (git's `gitformat-pack`): a magic number and version, 256 fan-out
/// counts (the last is the number of objects), then the sorted ids.
const INDEX_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];
const INDEX_IDS_AT: usize = 8 + 256 * 4;
const ID_LEN: usize = 20;

/// The number of objects in the index at `path`; `None` when it is not a version 2 index.
fn index_count(path: &Path) -> io::Result<Option<u64>> {
    let mut head = [0u8; INDEX_IDS_AT];
    std::fs::File::open(path)?.read_exact(&mut head)?;
    Ok(count_in_header(&head))
}

fn count_in_header(head: &[u8]) -> Option<u64> {
    if head.len() < INDEX_IDS_AT || head[..4] != INDEX_MAGIC || head[4..8] != 2u32.to_be_bytes() {
        return None;
    }
    let last: [u8; 4] = head[INDEX_IDS_AT - 4..INDEX_IDS_AT].try_into().expect("four bytes");
    Some(u64::from(u32::from_be_bytes(last)))
}

/// The ids of the objects in the pack index at `path`.
fn index_ids(path: &Path) -> io::Result<Vec<[u8; ID_LEN]>> {
    let index = std::fs::read(path)?;
    let count = count_in_header(&index).ok_or_else(|| io::Error::other("not a version 2 pack index"))? as usize;
    let ids = index
        .get(INDEX_IDS_AT..INDEX_IDS_AT + count * ID_LEN)
        .ok_or_else(|| io::Error::other("the pack index is cut short"))?;
    Ok(ids
        .chunks_exact(ID_LEN)
        .map(|id| id.try_into().expect("chunks of the id's length"))
        .collect())
}

/// The ids of the loose objects (`objects/ab/cdef...`), as hex.
fn loose_objects(objects_dir: &Path) -> Vec<String> {
    let Ok(folders) = std::fs::read_dir(objects_dir) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for folder in folders.filter_map(Result::ok) {
        let prefix = folder.file_name().to_string_lossy().into_owned();
        if prefix.len() != 2 || !prefix.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(folder.path()) else {
            continue;
        };
        for file in files.filter_map(Result::ok) {
            let rest = file.file_name().to_string_lossy().into_owned();
            if rest.len() == 2 * ID_LEN - 2 && rest.bytes().all(|byte| byte.is_ascii_hexdigit()) {
                ids.push(format!("{prefix}{rest}"));
            }
        }
    }
    ids
}

/// Deletes the temporary files `git pack-objects` leaves in the pack folder when killed
/// (`tmp_pack_*`, `tmp_idx_*`, `tmp_rev_*`), once they are [`STALE_TEMPORARY`] old.
fn remove_stale_temporaries(pack_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(pack_dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !["tmp_pack_", "tmp_idx_", "tmp_rev_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() >= STALE_TEMPORARY);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::gitdb::run_git;

    #[test]
    fn the_smallest_packs_are_merged_until_each_is_twice_the_next_smaller() {
        // Already a progression: nothing.
        assert_eq!(merge_count(&[1, 2, 4, 100]), 0);
        assert_eq!(merge_count(&[]), 0);
        assert_eq!(merge_count(&[7]), 0);
        // Small packs of a burst under a large one: the small ones.
        assert_eq!(merge_count(&[3, 3, 3, 1000]), 3);
        // The merged pack would be more than half of the next: that one too.
        assert_eq!(merge_count(&[3, 3, 3, 10, 1000]), 4);
        assert_eq!(merge_count(&[5, 5, 5, 20]), 4);
        // A break high up merges everything below it.
        assert_eq!(merge_count(&[1, 10, 30, 40, 500]), 4);
    }

    #[test]
    fn loose_objects_are_merged_whatever_their_number() {
        let pack = |name: &str, objects| Pack {
            stem: PathBuf::from(name),
            objects,
        };
        let packs = vec![pack("big", 1000), pack("a", 10), pack("b", 12)];
        let merged = packs_to_merge(packs.clone(), 0);
        assert_eq!(merged, vec![pack("a", 10), pack("b", 12)]);
        // Loose objects in a progression that holds: merged alone.
        assert_eq!(packs_to_merge(vec![pack("big", 1000), pack("a", 10)], 1), vec![]);
        // Loose objects among the small packs: merged with them.
        let merged = packs_to_merge(packs, 11);
        assert_eq!(merged, vec![pack("a", 10), pack("b", 12)]);
    }

    /// A commit of one new file, packed on its own as the writer publishes.
    fn packed_commit(dir: &Path, name: &str) {
        std::fs::write(dir.join(name), name).unwrap();
        run_git(dir, &["add", name]);
        run_git(dir, &["commit", "-q", "-m", name]);
        run_git(dir, &["repack", "-q", "-d"]);
    }

    fn files_in(dir: &Path, extension: &str) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|entry| {
                entry
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(extension)
            })
            .count()
    }

    /// Runs maintenance on `dir` now and waits for it to end.
    fn run(dir: &Path, full: bool) {
        let mut maintenance = Maintenance::new(dir.to_path_buf());
        if full {
            maintenance.needs_full_repack();
        }
        maintenance.packs_since = PACKS_BEFORE_IDLE_RUN;
        maintenance.idle();
        assert!(maintenance.running.is_some(), "a run started");
        let deadline = Instant::now() + Duration::from_secs(60);
        while !maintenance.take_finished() {
            assert!(Instant::now() < deadline, "maintenance did not end");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!maintenance.unavailable);
    }

    #[test]
    fn small_packs_and_loose_objects_are_merged_into_one_pack_and_nothing_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        run_git(dir, &["init", "-q"]);
        for index in 0..12 {
            packed_commit(dir, &format!("file{index}"));
        }
        // A commit made by hand, left loose.
        std::fs::write(dir.join("by-hand"), "by hand").unwrap();
        run_git(dir, &["add", "by-hand"]);
        run_git(dir, &["commit", "-q", "-m", "by hand"]);
        let pack_dir = dir.join(".git/objects/pack");
        assert_eq!(files_in(&pack_dir, ".pack"), 12);
        assert!(!loose_objects(&dir.join(".git/objects")).is_empty());
        // A temporary file a killed git left long ago, and one someone's git is writing now.
        let stale = pack_dir.join("tmp_pack_stale");
        std::fs::write(&stale, "x").unwrap();
        let long_ago = SystemTime::now() - STALE_TEMPORARY - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        let young = pack_dir.join("tmp_pack_young");
        std::fs::write(&young, "x").unwrap();
        let log = run_git(dir, &["log", "--format=%H %s"]);

        run(dir, false);

        assert_eq!(
            files_in(&pack_dir, ".pack"),
            1,
            "the twelve packs and the loose objects merged"
        );
        assert_eq!(files_in(&pack_dir, ".idx"), 1);
        assert!(loose_objects(&dir.join(".git/objects")).is_empty());
        assert!(!stale.exists() && young.exists());
        run_git(dir, &["fsck", "--strict", "--no-dangling"]);
        assert_eq!(run_git(dir, &["log", "--format=%H %s"]), log);
        assert_eq!(run_git(dir, &["show", "HEAD:file3"]), "file3");

        // A pack of a later burst, beside the large one: merged only once it is worth it.
        packed_commit(dir, "later");
        run(dir, false);
        assert_eq!(
            files_in(&pack_dir, ".pack"),
            2,
            "one small pack under a large one stays"
        );
        run_git(dir, &["fsck", "--strict", "--no-dangling"]);
    }

    #[test]
    fn a_full_repack_leaves_one_pack() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        run_git(dir, &["init", "-q"]);
        for index in 0..3 {
            packed_commit(dir, &format!("file{index}"));
        }
        run(dir, true);
        assert_eq!(files_in(&dir.join(".git/objects/pack"), ".pack"), 1);
        run_git(dir, &["fsck", "--strict", "--no-dangling"]);
    }
}
