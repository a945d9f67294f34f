//! Repository maintenance in the background: `git repack --geometric=2 -d -l` as a child
//! process, so that the loose objects each commit writes are packed and the repository stays
//! small, without blocking the writer or readers.
//!
//! Geometric repacking rolls loose objects and small packs into one pack and leaves the large
//! packs alone, so a run costs about as much as the objects written since the last one. It
//! packs loose objects whether reachable or not and touches no ref, so a commit being written
//! meanwhile is never at risk.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Commits between two maintenance runs.
const COMMITS_PER_RUN: usize = 500;

pub struct Maintenance {
    root: PathBuf,
    running: Option<(Child, Instant)>,
    commits_since: usize,
    /// Set once `git` could not be started, so that it is not tried on every commit.
    unavailable: bool,
}

impl Maintenance {
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            running: None,
            commits_since: 0,
            unavailable: false,
        }
    }

    /// Counts a commit; starts a run when enough commits have piled up.
    pub fn committed(&mut self, commits: usize) {
        self.commits_since += commits;
        self.poll();
        if self.commits_since >= COMMITS_PER_RUN && self.running.is_none() {
            self.start();
        }
    }

    /// Waits for a run to end: a bulk commit writes its own pack, which a run started before
    /// it could not know about.
    pub fn wait(&mut self) {
        if let Some((mut child, started)) = self.running.take() {
            let status = child.wait();
            log_end(status.ok(), started);
        }
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
        }
    }

    fn start(&mut self) {
        if self.unavailable {
            return;
        }
        let spawned = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["-c", "pack.threads=1", "repack", "--geometric=2", "-d", "-l", "-q"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match spawned {
            Ok(child) => {
                tracing::debug!(commits = self.commits_since, "started repository maintenance");
                self.running = Some((child, Instant::now()));
                self.commits_since = 0;
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot run git for repository maintenance; loose objects will pile up");
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
