//! The one thread that owns the git repository.
//!
//! Changes arrive over a channel and are applied one at a time, each as its own commit, so
//! they are serialised without locks around git and git2 never blocks the async runtime.
//! Changes that queue up while one is being committed are taken as a batch: each is committed
//! in turn, then one `syncfs` makes all of them durable, then all of them are answered. That
//! keeps "acknowledged means on disk" without paying one fsync per request. Those who follow
//! the store (webhooks, the replicator, the history) are told only then, so that they never
//! pass on a commit a crash could still take back.

mod branches;
mod join;
mod saved_keys;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use git2::Oid;
use tokio::sync::oneshot;

use super::adopt::{self, Adoption};
use super::catalog::Catalog;
use super::error::StoreError;
use super::plan::{self, Change};
use super::{Applied, Durability, Outcome, layout, scan, snapshots};
use crate::domain::names::{ProjectName, TeamName};
use crate::gitdb::lock::OwnerLock;
use crate::gitdb::maintenance::Maintenance;
use crate::gitdb::{GitRepo, SyncScope, TreeEdit};
use crate::gitdb::{tree_diff, worktree};
use crate::metrics::Metrics;
use saved_keys::{SAVE_KEYS_AFTER_PARSING, SAVE_KEYS_FROM};

/// How long the writer waits without work before it brings the git index in line with HEAD.
const IDLE_AFTER: Duration = Duration::from_millis(500);
/// Most changes committed before their shared fsync and answers.
const MAX_BATCH: usize = 256;
/// Most commits staged before they are published, which bounds how long readers wait for the
/// catalog lock.
const MAX_STAGED: usize = 32;

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
    Snapshot {
        op: SnapshotOp,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
    /// Join a commit fetched from the remote with the branch.
    Adopt {
        incoming: Oid,
        /// Where it came from, for the merge commit's subject (`origin/main`).
        label: String,
        /// Follow it as a read replica does: its state wins, never a merge.
        follow: bool,
        reply: oneshot::Sender<Result<Adoption, StoreError>>,
    },
    /// A change of a project's branches: made, deleted, committed on, merged.
    Branch {
        team: TeamName,
        project: ProjectName,
        name: crate::domain::names::BranchName,
        op: super::branches::BranchOp,
        reply: oneshot::Sender<Result<super::branches::BranchAnswer, StoreError>>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

/// A change of a project's snapshots (tags; no commit).
pub enum SnapshotOp {
    Create {
        team: TeamName,
        project: ProjectName,
        name: ProjectName,
        description: String,
        author: String,
    },
    Delete {
        team: TeamName,
        project: ProjectName,
        name: ProjectName,
    },
}

type Reply = oneshot::Sender<Result<Applied, StoreError>>;

/// What happened to the changes of one batch so far.
#[derive(Default)]
struct Round {
    answers: Vec<(Reply, Result<Applied, StoreError>)>,
    /// Positions in `answers` of the commits staged but not yet published.
    staged: Vec<usize>,
    last_subject: String,
    /// Whether a staged change was an import, whose memory is handed back once published.
    bulk: bool,
    /// Packs written.
    published: usize,
    /// Commits published.
    committed: usize,
    /// Tags to move (or delete, `None`) once the staged commits are published: snapshots
    /// follow their team or project.
    tag_moves: Vec<(String, Option<String>)>,
    /// Whether published commits moved snapshots.
    moved_tags: bool,
    /// Whether an import or upload was published.
    wrote_bulk: bool,
}

enum Staged {
    /// A commit, staged.
    Commit {
        applied: Applied,
        subject: String,
        bulk: bool,
        tags: Option<(String, Option<String>)>,
    },
    /// Nothing to commit.
    Plain(Applied),
}

enum Failure {
    /// The change was refused before anything was written.
    Refused(StoreError),
    /// Writing it failed part way.
    Broken(StoreError),
}

pub struct Worker {
    pub git: GitRepo,
    pub catalog: Arc<RwLock<Catalog>>,
    pub durability: Durability,
    pub lock: OwnerLock,
    /// Paths written since the index was last synced.
    pub touched: BTreeSet<String>,
    /// The keys tree of each project's saved index on disk, where this process knows it.
    pub saved_keys: HashMap<(TeamName, ProjectName), Oid>,
    pub maintenance: Maintenance,
    pub metrics: Arc<Metrics>,
    /// Told each time the writer publishes (the history indexes the new commits, the
    /// replicator pushes them); the writer knows them only as functions.
    pub listeners: super::Listeners,
    /// The project of the branch changed last, as its head holds it.
    pub branch_cache: Option<branches::BranchCache>,
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
    ///
    /// Changes are staged one after the other, each its own commit on top of the last, with
    /// the catalog write lock held, so that each is planned against the ones before it while
    /// readers still see only what is in the branch. Then one pack and one move of the branch
    /// publish them, the lock is released, one `syncfs` makes them durable, all are answered,
    /// and the listeners are told.
    fn run_batch(&mut self, batch: Vec<Job>) -> Option<oneshot::Sender<()>> {
        self.metrics.queue_depth.sub(batch.len() as i64);
        let mut round = Round::default();
        let mut shutdown = None;
        let catalog = self.catalog.clone();
        let mut guard: Option<RwLockWriteGuard<'_, Catalog>> = None;
        self.pick_up_hand_commits();
        for job in batch {
            match job {
                Job::Apply { change, author, reply } => {
                    let needs_keys = change
                        .needs_keys_of()
                        .map(|(team, project)| (team.clone(), project.clone()));
                    if let Some((team, project)) = needs_keys {
                        let loaded = match &guard {
                            Some(catalog) => keys_loaded(catalog, &team, &project),
                            None => keys_loaded(&read(&catalog), &team, &project),
                        };
                        if !loaded {
                            // Loading takes a while: publish what is staged and let readers in.
                            self.publish(&mut round, guard.take());
                            if let Err(err) = self.ensure_keys(&team, &project) {
                                round.answers.push((reply, Err(err)));
                                continue;
                            }
                        }
                    }
                    if round.staged.len() >= MAX_STAGED {
                        self.publish(&mut round, guard.take());
                    }
                    let catalog = guard.get_or_insert_with(|| write(&catalog));
                    let result = self.stage_guarded(change, &author, catalog, &mut round);
                    round.answers.push((reply, result));
                }
                Job::LoadKeys { team, project, reply } => {
                    self.publish(&mut round, guard.take());
                    let _ = reply.send(self.ensure_keys(&team, &project));
                }
                Job::Snapshot { op, reply } => {
                    // A snapshot is of HEAD as readers see it: what is staged goes first.
                    self.publish(&mut round, guard.take());
                    let result = self.snapshot(op, &catalog);
                    let _ = reply.send(result);
                }
                Job::Adopt {
                    incoming,
                    label,
                    follow,
                    reply,
                } => {
                    self.publish(&mut round, guard.take());
                    let on_disk = self.git.head();
                    let started = Instant::now();
                    let adoption = self.adopt(incoming, on_disk, &label, follow);
                    if matches!(adoption, Ok(Adoption::FastForward(_) | Adoption::Merged(_))) {
                        self.metrics.join_seconds.observe(started.elapsed().as_secs_f64());
                        // A fetch stores what it brings as a pack of its own: merged by
                        // maintenance like the writer's, or a replica's packs would pile up
                        // (hundreds within minutes at four fetches a second) and every
                        // object lookup would look through them all.
                        self.maintenance.published(1);
                    }
                    let _ = reply.send(adoption);
                }
                Job::Branch {
                    team,
                    project,
                    name,
                    op,
                    reply,
                } => {
                    // A branch starts from, and merges into, the main line as readers see it.
                    self.publish(&mut round, guard.take());
                    let _ = reply.send(self.branch(team, project, name, op));
                }
                Job::Shutdown { reply } => shutdown = Some(reply),
            }
        }
        self.publish(&mut round, guard.take());
        if round.published > 0 {
            if self.git.take_plain_written() {
                self.maintenance.needs_full_repack();
            }
            self.maintenance.published(round.published);
        }
        let sync = if round.committed == 0 || self.durability != Durability::Fsync {
            SyncScope::Not
        } else if round.wrote_bulk && !round.moved_tags {
            // An import or upload: a `syncfs` would wait for its thousands of new working-tree
            // files (a quarter of an import's time).
            SyncScope::OwnFiles
        } else {
            // Cheaper than the seven syncs of the files when little else is waiting (a create
            // from one client: 306 against 246 changes/s), and it covers moved snapshots too.
            SyncScope::FileSystem
        };
        let synced = self.git.sync_published(sync);
        for (reply, result) in round.answers {
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
        self.listeners.tell(if round.committed > 0 {
            super::Published::Commits
        } else {
            super::Published::Nothing
        });
        // After maintenance merged packs (libgit2 would keep the deleted ones open), or once
        // enough packs were written to slow down reads, start over with the packs on disk.
        if (self.maintenance.take_finished() || self.git.should_reopen())
            && let Err(err) = self.git.reopen()
        {
            tracing::warn!(error = %err, "cannot reopen the repository");
        }
        shutdown
    }

    /// Writes the staged commits of `round` as one pack and moves the branch to the last of
    /// them, then lets readers in (`guard`, which held them off while commits were staged).
    /// When publishing fails, every staged change is answered with the error and the store is
    /// put back to HEAD.
    fn publish(&mut self, round: &mut Round, mut guard: Option<RwLockWriteGuard<'_, Catalog>>) {
        let published = self.publish_staged(round);
        if let Some(catalog) = guard.as_mut() {
            catalog.head = self.git.head().to_string();
        }
        drop(guard);
        if published.is_err() {
            self.restore_from_head();
        }
        if std::mem::take(&mut round.bulk) {
            round.wrote_bulk = true;
            release_freed_memory();
        }
    }

    /// Publishes what `round` has staged, if anything, and records the outcome in `round`.
    fn publish_staged(&mut self, round: &mut Round) -> Result<(), StoreError> {
        let staged = std::mem::take(&mut round.staged);
        if staged.is_empty() {
            return Ok(());
        }
        let message = match staged.len() {
            1 => round.last_subject.clone(),
            count => format!("{count} commits, the last: {}", round.last_subject),
        };
        let started = Instant::now();
        match self.git.publish(&message).map_err(StoreError::from) {
            Ok(()) => {
                round.published += 1;
                round.committed += staged.len();
                round.moved_tags |= !round.tag_moves.is_empty();
                for (from, to) in std::mem::take(&mut round.tag_moves) {
                    if let Err(err) = self.git.move_tags(&from, to.as_deref()) {
                        tracing::error!(error = %err, from, "cannot move snapshots after a rename or deletion");
                    }
                }
                tracing::debug!(
                    commits = staged.len(),
                    duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "published staged commits"
                );
                Ok(())
            }
            Err(err) => {
                round.tag_moves.clear();
                tracing::error!(error = %err, "cannot publish the staged commits; back to HEAD");
                for position in staged {
                    round.answers[position].1 = Err(err.clone());
                }
                Err(err)
            }
        }
    }

    /// Stages one change; a panic or a failure after files were written is turned into an
    /// internal error, with what was staged before it published and the rest put back to HEAD.
    fn stage_guarded(
        &mut self,
        change: Change,
        author: &str,
        catalog: &mut RwLockWriteGuard<'_, Catalog>,
        round: &mut Round,
    ) -> Result<Applied, StoreError> {
        let good_tip = self.git.tip();
        let staged = std::panic::catch_unwind(AssertUnwindSafe(|| self.stage(change, author, catalog)));
        let error = match staged {
            Ok(Ok(Staged::Plain(applied))) => return Ok(applied),
            Ok(Ok(Staged::Commit {
                applied,
                subject,
                bulk,
                tags,
            })) => {
                round.staged.push(round.answers.len());
                round.last_subject = subject;
                round.bulk |= bulk;
                round.tag_moves.extend(tags);
                return Ok(applied);
            }
            Ok(Err(Failure::Refused(err))) => return Err(err),
            Ok(Err(Failure::Broken(err))) => err,
            Err(_) => {
                tracing::error!("the writer panicked while applying a change");
                StoreError::internal("the writer panicked", "see the log")
            }
        };
        // The failed change may have left files or catalog entries half done; the changes
        // staged before it are whole, so they are published first, then everything else goes
        // back to HEAD.
        self.git.rewind_tip(good_tip);
        let _ = self.publish_staged(round);
        self.restore_from_head_locked(catalog);
        Err(error)
    }

    /// Refuses to rename or delete the team or project whose snapshot prefix is `prefix`
    /// while it has project branches: their commits hold it under its name, and a branch left
    /// under a name that no longer exists could be neither read nor merged.
    fn refuse_with_branches(&self, prefix: &str, renamed: bool) -> Result<(), Failure> {
        let branches = self
            .git
            .refs_under(&format!("refs/heads/{prefix}/"))
            .map_err(|err| Failure::Broken(err.into()))?;
        if branches.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = branches
            .iter()
            .map(|(name, _)| name.strip_prefix("refs/heads/locstore/").unwrap_or(name))
            .collect();
        Err(Failure::Refused(StoreError::Conflict(format!(
            "{} cannot be {} while it has branches ({}): merge or delete them first.",
            prefix.strip_prefix("locstore/").unwrap_or(prefix),
            if renamed { "renamed" } else { "deleted" },
            names.join(", ")
        ))))
    }

    fn stage(
        &mut self,
        change: Change,
        author: &str,
        catalog: &mut RwLockWriteGuard<'_, Catalog>,
    ) -> Result<Staged, Failure> {
        let started = Instant::now();
        let tags = plan::follow(&change);
        if let Some((from, to)) = &tags {
            self.refuse_with_branches(from, to.is_some())?;
        }
        let plan = plan::plan(catalog, change).map_err(Failure::Refused)?;
        let planned = started.elapsed();
        let bulk = plan.edits.len() >= crate::gitdb::BULK_WRITES;
        let built = self
            .git
            .build_commit(&plan.edits, &plan.subject, author)
            .map_err(|err| Failure::Broken(err.into()))?;
        let committed = started.elapsed();
        let Some(commit) = built else {
            return Ok(Staged::Plain(Applied {
                outcome: Outcome::Unchanged,
                import: plan.import,
            }));
        };
        worktree::apply(self.git.root(), &plan.edits).map_err(|err| Failure::Broken(err.into()))?;
        self.git.stage(commit);
        let written = started.elapsed();
        self.touched
            .extend(worktree::touched_paths(&plan.edits).map(str::to_owned));
        plan.update.apply_to(catalog);
        tracing::debug!(
            plan_ms = planned.as_secs_f64() * 1000.0,
            commit_ms = (committed - planned).as_secs_f64() * 1000.0,
            files_ms = (written - committed).as_secs_f64() * 1000.0,
            catalog_ms = (started.elapsed() - written).as_secs_f64() * 1000.0,
            "commit stages"
        );
        self.metrics.commits.inc();
        self.metrics.commit_seconds.observe(started.elapsed().as_secs_f64());
        tracing::info!(
            subject = %plan.subject,
            commit = %commit,
            author,
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "committed"
        );
        Ok(Staged::Commit {
            applied: Applied {
                outcome: Outcome::Committed(commit.to_string()),
                import: plan.import,
            },
            subject: plan.subject,
            bulk,
            tags,
        })
    }

    /// Creates or deletes a snapshot (a tag), durable before it is answered.
    fn snapshot(&mut self, op: SnapshotOp, catalog: &Arc<RwLock<Catalog>>) -> Result<(), StoreError> {
        let exists = |team: &TeamName, project: &ProjectName| {
            let catalog = read(catalog);
            super::plan::project_entry(&catalog, team, project).map(|_| ())
        };
        match op {
            SnapshotOp::Create {
                team,
                project,
                name,
                description,
                author,
            } => {
                exists(&team, &project)?;
                let tag = snapshots::tag_name(&team, &project, &name);
                self.git
                    .create_tag(&tag, &author, &snapshots::message(&description, &team, &project))?;
                tracing::info!(%team, %project, snapshot = %name, author, "created a snapshot");
            }
            SnapshotOp::Delete { team, project, name } => {
                exists(&team, &project)?;
                if !self.git.delete_tag(&snapshots::tag_name(&team, &project, &name))? {
                    return Err(StoreError::NotFound(format!(
                        "Project {team}/{project} has no snapshot {:?}.",
                        name.as_str()
                    )));
                }
                tracing::info!(%team, %project, snapshot = %name, "deleted a snapshot");
            }
        }
        if self.durability == Durability::Fsync {
            self.git
                .sync_file_system()
                .map_err(|err| StoreError::internal("the snapshot could not be made durable", err))?;
        }
        self.listeners.tell(super::Published::Tags);
        Ok(())
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
        let loaded = scan::load_keys(&self.git, team, project)?;
        tracing::info!(
            %team,
            %project,
            keys = loaded.index.len(),
            parsed_files = loaded.parsed,
            from_saved = loaded.saved_tree.is_some(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            search_postings_mb = loaded.index.search_bytes() as f64 / 1e6,
            "loaded keys"
        );
        self.metrics.key_files_read.inc_by(loaded.parsed as u64);
        let key = (team.clone(), project.clone());
        if let Some(saved) = loaded.saved_tree {
            self.saved_keys.insert(key.clone(), saved);
        }
        let worth_saving = loaded.index.len() >= SAVE_KEYS_FROM && loaded.parsed >= SAVE_KEYS_AFTER_PARSING;
        if let Some(entry) = write(&self.catalog).project_mut(team, project) {
            entry.keys = Some(loaded.index);
        }
        if worth_saving && let Some(tree) = loaded.tree {
            self.save_keys(team, project, tree);
        }
        // Loading read every file of the project from the packs, which libgit2 keeps mapped
        // (and resident) for as long as the repository is open; reopening lets go of them.
        if let Err(err) = self.git.reopen() {
            tracing::warn!(error = %err, "cannot reopen the repository after loading keys");
        }
        release_freed_memory();
        Ok(())
    }

    /// With nothing to do: sync the git index and trim the heap, else load the keys of one
    /// more project so that the first query to it does not wait.
    fn on_idle(&mut self) {
        // A maintenance run that ended while no writes came: reap it, and let go of the packs
        // it deleted (their disk space is not freed while libgit2 keeps them open). Then merge
        // the packs the last burst of writes left, if there are a few.
        // The small packs of the burst are joined (in the reopen) before maintenance looks.
        let finished = self.maintenance.take_finished();
        if (finished || self.git.packs_to_join() > 0)
            && let Err(err) = self.git.reopen()
        {
            tracing::warn!(error = %err, "cannot reopen the repository");
        }
        self.maintenance.idle();
        self.pick_up_hand_commits();
        if !self.touched.is_empty() {
            self.sync_index();
            // The end of a burst of writes: hand back what libgit2 freed meanwhile (staged
            // objects, pack buffers).
            release_freed_memory();
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
            Ok(whole_tree) => {
                tracing::debug!(
                    paths = self.touched.len(),
                    whole_tree,
                    duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "synced the git index"
                );
                self.touched.clear();
            }
            Err(err) => tracing::warn!(error = %err, "cannot sync the git index; will try again"),
        }
    }

    /// After a failed change: working tree, index and catalog back to HEAD.
    fn restore_from_head(&mut self) {
        let catalog = self.catalog.clone();
        self.restore_from_head_locked(&mut write(&catalog));
    }

    fn restore_from_head_locked(&mut self, catalog: &mut Catalog) {
        if let Err(err) = self.git.reset_to_head(layout::TEAMS_DIR) {
            tracing::error!(error = %err, "cannot reset the working tree to HEAD");
        }
        self.touched.clear();
        match scan::load_catalog(&self.git) {
            Ok(fresh) => *catalog = fresh,
            Err(err) => tracing::error!(error = %err, "cannot reload the catalog from HEAD"),
        }
    }

    /// At shutdown: the index in line with HEAD, the keys of big projects saved, and a note
    /// that the stop was clean.
    fn finish(&mut self) {
        self.maintenance.stop();
        self.sync_index();
        self.save_changed_keys();
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

fn read(catalog: &RwLock<Catalog>) -> RwLockReadGuard<'_, Catalog> {
    catalog.read().unwrap_or_else(|poison| poison.into_inner())
}

fn write(catalog: &RwLock<Catalog>) -> RwLockWriteGuard<'_, Catalog> {
    catalog.write().unwrap_or_else(|poison| poison.into_inner())
}

fn keys_loaded(catalog: &Catalog, team: &TeamName, project: &ProjectName) -> bool {
    // An absent project needs no loading: planning the change will say it is absent.
    catalog.project(team, project).is_none_or(|entry| entry.keys.is_some())
}
