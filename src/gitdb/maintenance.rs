//! Repository maintenance in the background: `git repack --geometric=2 -d -l` as a child
//! process, so that the small packs the writer publishes (one per batch of changes) are
//! merged and the repository stays small, without blocking the writer or readers.
//!
//! Geometric repacking rolls small packs (and any loose objects) into one pack and leaves the
//! large packs alone, so a run costs about as much as the objects written since the last one.
//! It decides which packs to merge when it starts and touches no ref, so a pack the writer
//! publishes meanwhile is left as it is, never at risk.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Packs published between two maintenance runs. Each pack costs every object lookup that
/// misses a little, and libgit2 keeps read packs open, so they should not pile up; a run
/// costs a process start and a pass over the packs it merges.
const PACKS_PER_RUN: usize = 200;

/// Packs that, once writes pause, are worth a run.
const PACKS_BEFORE_IDLE_RUN: usize = 16;

pub struct Maintenance {
    root: PathBuf,
    running: Option<(Child, Instant)>,
    packs_since: usize,
    /// Set when a run ended and the writer has not yet been told.
    finished: bool,
    /// Set once `git` could not be started, so that it is not tried on every commit.
    unavailable: bool,
    /// Set when a pack of whole objects was published (a large import): the next run, when
    /// writes pause, is a full repack that finds their deltas. A geometric run never rewrites
    /// the largest pack, and such a pack is often the largest.
    full: bool,
}

impl Maintenance {
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
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
    /// temporary files behind when interrupted, and the next run cleans them up).
    pub fn stop(&mut self) {
        let Some((mut child, started)) = self.running.take() else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                log_end(Some(status), started);
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        tracing::info!("stopped repository maintenance for shutdown");
    }

    fn poll(&mut self) {
        if let Some((child, started)) = &mut self.running
            && let Ok(Some(status)) = child.try_wait()
        {
            log_end(Some(status), *started);
            self.running = None;
            self.finished = true;
        }
    }

    fn start(&mut self) {
        if self.unavailable {
            return;
        }
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.root)
            .args(["-c", "pack.threads=1", "repack", "-d", "-l", "-q"])
            .arg(if self.full { "-a" } else { "--geometric=2" })
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // A run must not outlive the server: after a crash the next start (and whoever checks
        // the repository) would otherwise race a repack still deleting packs. git leaves only
        // temporary files behind when killed, never a pack it has not finished.
        // It also yields the CPU to the server (nice 10): merging packs can wait, answers not.
        // SAFETY: prctl and setpriority are async-signal-safe and touch no memory of the parent.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::setpriority(libc::PRIO_PROCESS, 0, 10);
                Ok(())
            });
        }
        let spawned = command.spawn();
        match spawned {
            Ok(child) => {
                tracing::debug!(
                    packs = self.packs_since,
                    full = self.full,
                    "started repository maintenance"
                );
                self.full = false;
                self.running = Some((child, Instant::now()));
                self.packs_since = 0;
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot run git for repository maintenance; packs will pile up");
                self.unavailable = true;
            }
        }
    }
}

fn log_end(status: Option<std::process::ExitStatus>, started: Instant) {
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    match status {
        Some(status) if status.success() => tracing::info!(duration_ms, "repository maintenance done"),
        Some(status) => tracing::warn!(%status, duration_ms, "repository maintenance failed"),
        None => tracing::warn!(duration_ms, "repository maintenance ended in an unknown state"),
    }
}
