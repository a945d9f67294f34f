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

mod merge;

use super::follow::PackLog;

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Packs published between two maintenance runs. Each pack costs every object lookup that
/// misses a little, and libgit2 keeps read packs open, so they should not pile up; a run
/// costs two process starts and a pass over the packs it merges.
const PACKS_PER_RUN: usize = 200;

/// Packs that, once writes pause, are worth a run.
const PACKS_BEFORE_IDLE_RUN: usize = 16;

/// How often a run looks whether its `git` process has ended.
const CHILD_POLL: Duration = Duration::from_millis(10);

pub struct Maintenance {
    git_dir: PathBuf,
    /// The writer's log of packs: the small ones it will join itself are left alone.
    pack_log: Arc<PackLog>,
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
    /// Maintenance of the repository whose working tree is `root` (or a bare one at `root`),
    /// whose writer logs its packs in `pack_log`.
    pub fn new(root: PathBuf, pack_log: Arc<PackLog>) -> Self {
        let dot_git = root.join(".git");
        Self {
            git_dir: if dot_git.is_dir() { dot_git } else { root },
            pack_log,
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
        let (git_dir, full, pack_log) = (self.git_dir.clone(), self.full, self.pack_log.clone());
        let child = Arc::new(ChildSlot::default());
        let slot = child.clone();
        let spawned = std::thread::Builder::new()
            .name("locstore-maintenance".into())
            .spawn(move || {
                // Merging packs can wait, answers not (its git processes are at nice 10 too).
                crate::thread_priority::lower_this_thread(10);
                if full {
                    full_repack(&git_dir, &slot)
                } else {
                    merge::merge_small_packs(&git_dir, &slot, &pack_log)
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

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::SystemTime;

    use super::merge::{STALE_TEMPORARY, loose_objects};
    use crate::gitdb::{packed_commit, run_git};

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

    /// A repository of `count` one-commit packs (`file0`, `file1`, ...).
    fn repository_of_packs(count: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        run_git(dir.path(), &["init", "-q"]);
        for index in 0..count {
            packed_commit(dir.path(), &format!("file{index}"));
        }
        dir
    }

    /// Runs maintenance on `dir` now and waits for it to end.
    fn run(dir: &Path, full: bool) {
        run_with(dir, full, Arc::default());
    }

    fn run_with(dir: &Path, full: bool, pack_log: Arc<PackLog>) {
        let mut maintenance = Maintenance::new(dir.to_path_buf(), pack_log);
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
        let dir = repository_of_packs(12);
        let dir = dir.path();
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
        let dir = repository_of_packs(3);
        let dir = dir.path();
        run(dir, true);
        assert_eq!(files_in(&dir.join(".git/objects/pack"), ".pack"), 1);
        run_git(dir, &["fsck", "--strict", "--no-dangling"]);
    }

    #[test]
    fn packs_the_writer_holds_for_joining_are_left_alone() {
        let dir = repository_of_packs(6);
        let dir = dir.path();
        let pack_dir = dir.join(".git/objects/pack");
        let names = crate::gitdb::objects::index_names(&pack_dir).unwrap();
        let log = Arc::new(PackLog::default());
        for name in &names[..4] {
            log.hold(name.clone());
        }
        run_with(dir, false, log.clone());
        let after = crate::gitdb::objects::index_names(&pack_dir).unwrap();
        assert_eq!(after.len(), 5, "two merged into one, four held: {after:?}");
        assert!(names[..4].iter().all(|held| after.contains(held)));
        run_git(dir, &["fsck", "--strict", "--no-dangling"]);

        log.release(&names[..4]);
        run_with(dir, false, log);
        assert_eq!(files_in(&pack_dir, ".pack"), 1, "released, all merged");
    }
}
