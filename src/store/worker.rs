//! The one thread that owns the git repository.
//!
//! Changes arrive over a channel and are applied one at a time, each as its own commit, so
//! they are serialised without locks around git and git2 never blocks the async runtime.
//! Changes that queue up while one is being committed are taken as a batch: each is committed
//! in turn, then one `syncfs` makes all of them durable, then all of them are answered. That
//! keeps "acknowledged means on disk" without paying one fsync per request.

use std::collections::BTreeSet;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::catalog::Catalog;
use super::changes::{self, Change};
use super::error::StoreError;
use super::git::GitRepo;
use super::lock::OwnerLock;
use super::maintenance::Maintenance;
use super::{Applied, Durability, Outcome, layout, scan, worktree};
use crate::domain::names::{ProjectName, TeamName};
use crate::metrics::Metrics;

/// How long the writer waits without work before it brings the git index in line with HEAD.
const IDLE_AFTER: Duration = Duration::from_millis(500);
/// Most changes committed before their shared fsync and answers.
const MAX_BATCH: usize = 256;

pub enum Job {
    Apply {
        change: Change,
        author: String,
        reply: oneshot::Sender<Result<Applied, StoreError>>,
    },
    LoadKeys {
        team: TeamName,
        project: ProjectName,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

pub struct Worker {
    pub git: GitRepo,
    pub catalog: Arc<RwLock<Catalog>>,
    pub durability: Durability,
    pub lock: OwnerLock,
    /// Paths written since the index was last synced.
    pub touched: BTreeSet<String>,
    pub maintenance: Maintenance,
    pub metrics: Arc<Metrics>,
}

impl Worker {
    pub fn run(mut self, jobs: Receiver<Job>) {
        loop {
            let first = match jobs.recv_timeout(IDLE_AFTER) {
                Ok(job) => job,
                Err(RecvTimeoutError::Timeout) => {
                    self.on_idle();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            if let Some(reply) = self.run_batch(batch) {
                self.finish();
                let _ = reply.send(());
                return;
            }
        }
        self.finish();
    }

    /// Runs a batch of jobs; returns the shutdown reply when one of them asked to stop.
    fn run_batch(&mut self, batch: Vec<Job>) -> Option<oneshot::Sender<()>> {
        self.metrics.queue_depth.sub(batch.len() as i64);
        let mut answers = Vec::with_capacity(batch.len());
        let mut shutdown = None;
        for job in batch {
            match job {
                Job::Apply { change, author, reply } => {
                    let result = self.apply_guarded(change, &author);
                    answers.push((reply, result));
                }
                Job::LoadKeys { team, project, reply } => {
                    let _ = reply.send(self.ensure_keys(&team, &project));
                }
                Job::Shutdown { reply } => shutdown = Some(reply),
            }
        }
        let commits = answers
            .iter()
            .filter(|(_, result)| {
                matches!(
                    result,
                    Ok(Applied {
                        outcome: Outcome::Committed(_),
                        ..
                    })
                )
            })
            .count();
        if commits > 0 {
            self.maintenance.committed(commits);
        }
        let synced = if commits > 0 && self.durability == Durability::Fsync {
            self.sync_to_disk()
        } else {
            Ok(())
        };
        for (reply, result) in answers {
            let result = match (&synced, result) {
                (
                    Err(err),
                    Ok(Applied {
                        outcome: Outcome::Committed(_),
                        ..
                    }),
                ) => Err(StoreError::internal(
                    "the change was committed but could not be made durable",
                    err.to_string(),
                )),
                (_, result) => result,
            };
            let _ = reply.send(result);
        }
        shutdown
    }

    /// Applies one change; a panic is turned into an internal error and the state reloaded.
    fn apply_guarded(&mut self, change: Change, author: &str) -> Result<Applied, StoreError> {
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.apply(change, author))) {
            Ok(result) => result,
            Err(_) => {
                tracing::error!("the writer panicked while applying a change; reloading from HEAD");
                self.restore_from_head();
                Err(StoreError::internal("the writer panicked", "see the log"))
            }
        }
    }

    fn apply(&mut self, change: Change, author: &str) -> Result<Applied, StoreError> {
        let started = Instant::now();
        if let Some((team, project)) = change.needs_keys_of() {
            let (team, project) = (team.clone(), project.clone());
            self.ensure_keys(&team, &project)?;
        }
        let plan = changes::plan(
            &self.catalog.read().unwrap_or_else(|poison| poison.into_inner()),
            change,
        )?;
        let planned = started.elapsed();
        let bulk = plan.edits.len() >= super::git::BULK_WRITES;
        if bulk {
            // A bulk commit writes its own pack; a repack already running could not know it.
            self.maintenance.wait();
        }
        let prepared = self.git.prepare_commit(&plan.edits, &plan.subject, author)?;
        let committed = started.elapsed();
        let Some(commit) = prepared else {
            return Ok(Applied {
                outcome: Outcome::Unchanged,
                import: plan.import,
            });
        };
        let applied =
            worktree::apply(self.git.root(), &plan.edits).and_then(|()| self.git.advance_head(commit, &plan.subject));
        if let Err(err) = applied {
            // HEAD did not move, so the change was never made; put the files back as HEAD has them.
            self.restore_from_head();
            return Err(err);
        }
        let written = started.elapsed();
        self.touched
            .extend(worktree::touched_paths(&plan.edits).map(str::to_owned));
        plan.update
            .apply_to(&mut self.catalog.write().unwrap_or_else(|poison| poison.into_inner()));
        tracing::debug!(
            plan_ms = planned.as_secs_f64() * 1000.0,
            commit_ms = (committed - planned).as_secs_f64() * 1000.0,
            files_ms = (written - committed).as_secs_f64() * 1000.0,
            catalog_ms = (started.elapsed() - written).as_secs_f64() * 1000.0,
            "commit stages"
        );
        if bulk {
            release_freed_memory();
        }
        self.metrics.commits.inc();
        self.metrics.commit_seconds.observe(started.elapsed().as_secs_f64());
        tracing::info!(
            subject = %plan.subject,
            commit = %commit,
            author,
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "committed"
        );
        Ok(Applied {
            outcome: Outcome::Committed(commit.to_string()),
            import: plan.import,
        })
    }

    /// Loads a project's keys into the catalog unless they are loaded or the project is absent.
    fn ensure_keys(&mut self, team: &TeamName, project: &ProjectName) -> Result<(), StoreError> {
        let needed = self
            .catalog
            .read()
            .unwrap_or_else(|poison| poison.into_inner())
            .project(team, project)
            .is_some_and(|entry| entry.keys.is_none());
        if !needed {
            return Ok(());
        }
        let started = Instant::now();
        let keys = scan::load_keys(&self.git, team, project)?;
        tracing::info!(%team, %project, keys = keys.len(), duration_ms = started.elapsed().as_secs_f64() * 1000.0, "loaded keys");
        if let Some(entry) = self
            .catalog
            .write()
            .unwrap_or_else(|poison| poison.into_inner())
            .project_mut(team, project)
        {
            entry.keys = Some(keys);
        }
        release_freed_memory();
        Ok(())
    }

    /// With nothing to do: sync the git index, else load the keys of one more project so that
    /// the first query to it does not wait.
    fn on_idle(&mut self) {
        if !self.touched.is_empty() {
            self.sync_index();
            return;
        }
        let unloaded = {
            let catalog = self.catalog.read().unwrap_or_else(|poison| poison.into_inner());
            catalog.teams.values().find_map(|team| {
                team.projects
                    .values()
                    .find(|project| project.keys.is_none())
                    .map(|project| (team.team.name.clone(), project.project.name.clone()))
            })
        };
        if let Some((team, project)) = unloaded
            && let Err(err) = self.ensure_keys(&team, &project)
        {
            tracing::error!(%team, %project, error = %err, "cannot load keys");
        }
    }

    fn sync_index(&mut self) {
        let started = Instant::now();
        match self.git.sync_index(self.touched.iter().map(String::as_str)) {
            Ok(()) => {
                tracing::debug!(
                    paths = self.touched.len(),
                    duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "synced the git index"
                );
                self.touched.clear();
            }
            Err(err) => tracing::warn!(error = %err, "cannot sync the git index; will try again"),
        }
    }

    fn sync_to_disk(&self) -> Result<(), std::io::Error> {
        let root = File::open(self.git.git_dir())?;
        // SAFETY: syncfs takes an open file descriptor and has no memory-safety preconditions.
        if unsafe { libc::syncfs(root.as_raw_fd()) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// After a failed or panicked change: working tree, index and catalog back to HEAD.
    fn restore_from_head(&mut self) {
        if let Err(err) = self.git.reset_to_head(layout::TEAMS_DIR) {
            tracing::error!(error = %err, "cannot reset the working tree to HEAD");
        }
        self.touched.clear();
        match scan::load_catalog(&self.git) {
            Ok(catalog) => *self.catalog.write().unwrap_or_else(|poison| poison.into_inner()) = catalog,
            Err(err) => tracing::error!(error = %err, "cannot reload the catalog from HEAD"),
        }
    }

    /// At shutdown: the index in line with HEAD, and a note that the stop was clean.
    fn finish(&mut self) {
        self.maintenance.stop();
        self.sync_index();
        if self.touched.is_empty()
            && let Err(err) = std::fs::write(super::clean_marker(self.git.git_dir()), b"")
        {
            tracing::warn!(error = %err, "cannot record the clean shutdown");
        }
        let _ = &self.lock;
        tracing::info!(head = %self.git.head(), "the store is closed");
    }
}

/// Hands memory that libgit2 freed after a large import or load (packs, blobs, trees) back to
/// the operating system. libgit2 allocates through glibc, which keeps freed heap for reuse;
/// Rust's own allocations go through mimalloc, which returns memory by itself.
fn release_freed_memory() {
    // SAFETY: malloc_trim only releases free heap pages; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}
