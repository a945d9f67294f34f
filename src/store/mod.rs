//! The store: teams, projects and keys kept as TOML files in a git repository, one commit per
//! change.
//!
//! [`Store`] is a cheap handle. Reads go to the in-memory catalog (a view of HEAD behind a
//! read-write lock); changes go over a channel to the one writer thread that owns the
//! repository ([`worker`]), which answers once the commit is in HEAD, the files are in the
//! working tree and, with [`Durability::Fsync`], both are on disk.

mod adopt;
mod at_commit;
pub mod branches;
mod catalog;
mod error;
pub mod etag;
mod files;
mod kept;
pub mod layout;
mod plan;
pub mod quality;
pub mod readers;
mod scan;
pub mod seen;
pub mod snapshots;
mod template;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

pub use adopt::Adoption;
pub use at_commit::ProjectAt;
pub use error::StoreError;
pub use files::read_key;
pub use kept::{Have, KeptBlob, KeptFile, KeysSince, Wanted};

/// How a replicator joins a fetched commit (see [`Store::adopter`]): the commit, a label for
/// the log, and whether to follow the remote's history as it is (a replica).
pub type Adopter = Box<dyn Fn(git2::Oid, String, bool) -> Result<Adoption, StoreError> + Send>;
pub use layout::MAX_PATH_LEN;
pub use plan::{Beside, BesideFiles, ImportCounts, ImportEntry, ImportMode, TextCounts};
pub use plan::{Change, KeyDraft, KeyPatch, NewProject, ProjectPatch, TextInput, TranslationInput};

use crate::domain::model::{Key, Project, Team};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo};
use crate::gitdb::follow::PackLog;
use crate::metrics::Metrics;
pub use catalog::KeyEntry;
use catalog::{Catalog, KeyIndex, ProjectEntry};
pub(crate) use plan::{key_not_found, quoted};
use plan::{project_not_found, team_not_found};
use worker::{Job, Worker};

/// When an acknowledged change is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Synced to disk before the answer (one `syncfs` per batch of queued changes).
    #[default]
    Fsync,
    /// Handed to the operating system; survives a crash of locstore, not of the machine.
    Os,
}

/// How a change ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Committed, with the new commit's id.
    Committed(String),
    /// The change would not alter anything, so nothing was committed.
    Unchanged,
}

/// What applying a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub outcome: Outcome,
    /// For an import: what it created, updated and left as it was.
    pub import: Option<ImportCounts>,
}

/// Keys to import into a project in one commit.
#[derive(Debug, Clone)]
pub struct Import {
    pub team: TeamName,
    pub project: ProjectName,
    pub mode: ImportMode,
    pub keys: Vec<ImportEntry>,
    /// Languages to add to the project in the same commit.
    pub add_languages: Vec<crate::domain::names::LanguageCode>,
    /// Base texts the import changes leave current translations current (typo fixes).
    pub keep_current: bool,
    /// The app's files kept beside the keys (an upload's), if any.
    pub beside: Option<plan::Beside>,
}

impl Import {
    fn into_change(self) -> Change {
        Change::ImportKeys {
            team: self.team,
            project: self.project,
            mode: self.mode,
            keys: self.keys,
            add_languages: self.add_languages,
            keep_current: self.keep_current,
            beside: self.beside,
        }
    }
}

/// What the writer published, as told to those who follow the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// The branch moved to new commits, written here or joined from elsewhere.
    Commits,
    /// A round of changes ended that committed nothing.
    Nothing,
    /// A snapshot's tag was made or deleted.
    Tags,
}

/// A function the writer calls after it publishes (once what it published is durable and
/// answered), on its own thread: keep it short (a nudge to a thread of the listener's own).
pub type Listener = Box<dyn Fn(Published) + Send + Sync>;

/// The listeners the writer tells, shared with the store handle that adds them.
#[derive(Clone, Default)]
pub(crate) struct Listeners(Arc<RwLock<Vec<Listener>>>);

impl Listeners {
    fn tell(&self, published: Published) {
        for listener in self.0.read().unwrap_or_else(|poison| poison.into_inner()).iter() {
            listener(published);
        }
    }
}

/// Handle to the store; clones share the same writer and catalog.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    listeners: Listeners,
    jobs: mpsc::Sender<Job>,
    metrics: Arc<Metrics>,
    catalog: Arc<RwLock<Catalog>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    root: PathBuf,
    pack_log: Arc<PackLog>,
}

impl Store {
    /// Opens (or creates) the repository and starts the writer. Blocking: call it before the
    /// server starts or from `spawn_blocking`.
    pub fn open(repo_dir: &Path, durability: Durability, metrics: Arc<Metrics>) -> Result<Self, StoreError> {
        let (mut git, created) = crate::gitdb::GitRepo::open_or_init(repo_dir, template::FILES)?;
        let lock = crate::gitdb::lock::OwnerLock::acquire(git.git_dir())?;
        if created {
            tracing::info!(repo = %git.root().display(), "created the data repository from the template");
        } else {
            recover(&mut git)?;
        }
        let catalog = Arc::new(RwLock::new(scan::load_catalog(&git)?));
        let root = git.root().to_path_buf();
        let pack_log = git.pack_log();
        let listeners = Listeners::default();
        let (jobs, receiver) = mpsc::channel();
        let worker = Worker {
            listeners: listeners.clone(),
            git,
            catalog: catalog.clone(),
            durability,
            lock,
            touched: Default::default(),
            saved_keys: Default::default(),
            maintenance: crate::gitdb::maintenance::Maintenance::new(root.clone(), pack_log.clone()),
            metrics: metrics.clone(),
            branch_cache: None,
        };
        let handle = std::thread::Builder::new()
            .name("locstore-writer".into())
            .spawn(move || worker.run(receiver))
            .map_err(|err| StoreError::internal("cannot start the writer thread", err))?;
        Ok(Self {
            inner: Arc::new(Inner {
                listeners,
                jobs,
                metrics,
                catalog,
                worker: Mutex::new(Some(handle)),
                root,
                pack_log,
            }),
        })
    }

    /// The repository's working tree.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The log of the packs the writer writes, for threads that follow the branch
    /// ([`crate::gitdb::follow::Follower`]).
    pub fn pack_log(&self) -> Arc<PackLog> {
        self.inner.pack_log.clone()
    }

    /// Has `listener` told each time the writer publishes from now on (the history and the
    /// replicator follow the store so; it knows them only as these functions).
    pub fn listen(&self, listener: Listener) {
        let mut listeners = self
            .inner
            .listeners
            .0
            .write()
            .unwrap_or_else(|poison| poison.into_inner());
        listeners.push(listener);
    }

    /// Applies one change as one commit (or none, when it changes nothing).
    pub async fn apply(&self, change: Change, author: &str) -> Result<Outcome, StoreError> {
        Ok(self.apply_returning(change, author).await?.outcome)
    }

    /// Imports keys as one commit (none when nothing changes) and counts what it did;
    /// `add_languages` are added to the project in the same commit.
    pub async fn import(&self, import: Import, author: &str) -> Result<(Outcome, ImportCounts), StoreError> {
        let applied = self.apply_returning(import.into_change(), author).await?;
        Ok((applied.outcome, applied.import.unwrap_or_default()))
    }

    /// Checks an import as [`Store::import`] would and counts what it would do, committing
    /// nothing (a dry run). Planning is pure, so it runs on the catalog under the read lock,
    /// on a blocking thread (a large import's plan, and an upload's kept files, are CPU work).
    pub async fn plan_import(&self, import: Import) -> Result<ImportCounts, StoreError> {
        let (team, project) = (import.team.clone(), import.project.clone());
        // Loads the project's keys when they are not yet.
        self.with_keys(&team, &project, |_, _| ()).await?;
        drop(self.read()); // records the state the answer is of
        let catalog = self.inner.catalog.clone();
        tokio::task::spawn_blocking(move || {
            let catalog = catalog.read().unwrap_or_else(|poison| poison.into_inner());
            let plan = plan::plan(&catalog, import.into_change())?;
            Ok(plan.import.unwrap_or_default())
        })
        .await
        .map_err(|err| StoreError::internal("the import's dry run failed", err))?
    }

    async fn apply_returning(&self, change: Change, author: &str) -> Result<Applied, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Apply {
            change,
            author: author.to_owned(),
            reply,
        })?;
        let applied = answer.await.map_err(|_| writer_gone())??;
        seen::wrote(match &applied.outcome {
            Outcome::Committed(commit) => Some(commit),
            Outcome::Unchanged => None,
        });
        Ok(applied)
    }

    /// Finishes the changes already queued, syncs the index, and stops the writer.
    pub async fn shutdown(&self) {
        let (reply, answer) = oneshot::channel();
        if self.send(Job::Shutdown { reply }).is_ok() {
            let _ = answer.await;
        }
        let handle = self
            .inner
            .worker
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take();
        if let Some(handle) = handle {
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
    }

    pub fn teams(&self) -> Vec<Team> {
        self.read().teams.values().map(|entry| entry.team.clone()).collect()
    }

    pub fn team(&self, name: &TeamName) -> Result<Team, StoreError> {
        self.read()
            .team(name)
            .map(|entry| entry.team.clone())
            .ok_or_else(|| team_not_found(name))
    }

    pub fn projects(&self, team: &TeamName) -> Result<Vec<Project>, StoreError> {
        let catalog = self.read();
        let entry = catalog.team(team).ok_or_else(|| team_not_found(team))?;
        Ok(entry.projects.values().map(|entry| entry.project.clone()).collect())
    }

    pub fn project(&self, team: &TeamName, name: &ProjectName) -> Result<Project, StoreError> {
        let catalog = self.read();
        project_in(&catalog, team, name).map(|entry| entry.project.clone())
    }

    /// One page of a project's keys.
    /// Runs `query` and hands the project and the page's keys to `render` (under the read
    /// lock, so keep it short: it turns a page into an answer).
    pub async fn query_keys<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        query: &KeyQuery,
        render: impl FnOnce(&Project, &[&Key]) -> T,
    ) -> Result<(T, PageInfo), StoreError> {
        self.with_keys(team, project, |entry, keys| {
            keys.query(query, |page| render(&entry.project, page))
        })
        .await
    }

    /// A key, and its project's base language (which its outdated translations are told by).
    pub async fn key(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: &KeyName,
    ) -> Result<(Key, LanguageCode), StoreError> {
        self.with_keys(team, project, |entry, keys| {
            let key = keys.get(name)?.key.clone();
            Some((key, entry.project.base_language.clone()))
        })
        .await?
        .ok_or_else(|| key_not_found(team, project, name))
    }

    /// Takes a snapshot of a project as HEAD holds it: an annotated tag.
    pub async fn create_snapshot(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: ProjectName,
        description: String,
        author: &str,
    ) -> Result<(), StoreError> {
        let (team, project) = (team.clone(), project.clone());
        self.snapshot_job(worker::SnapshotOp::Create {
            team,
            project,
            name,
            description,
            author: author.to_owned(),
        })
        .await
    }

    pub async fn delete_snapshot(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: ProjectName,
    ) -> Result<(), StoreError> {
        let (team, project) = (team.clone(), project.clone());
        self.snapshot_job(worker::SnapshotOp::Delete { team, project, name })
            .await
    }

    async fn snapshot_job(&self, op: worker::SnapshotOp) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Snapshot { op, reply })?;
        answer.await.map_err(|_| writer_gone())?
    }

    /// The project and its keys (sorted by name) that carry at least one of `tags`, or all
    /// keys when `tags` is empty: what an export reads.
    pub async fn keys_for_export(
        &self,
        team: &TeamName,
        project: &ProjectName,
        tags: &[String],
    ) -> Result<(Project, Vec<Arc<KeyEntry>>), StoreError> {
        self.with_keys(team, project, |entry, keys| (entry.project.clone(), tagged(keys, tags)))
            .await
    }

    /// Runs `read` on a project's keys, asking the writer to load them first if needed.
    async fn with_keys<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        read: impl FnOnce(&ProjectEntry, &catalog::KeyIndex) -> T,
    ) -> Result<T, StoreError> {
        let mut read = Some(read);
        for _ in 0..2 {
            {
                let catalog = self.read();
                let entry = project_in(&catalog, team, project)?;
                if let Some(keys) = &entry.keys
                    && let Some(read) = read.take()
                {
                    return Ok(read(entry, keys));
                }
            }
            let (reply, answer) = oneshot::channel();
            self.send(Job::LoadKeys {
                team: team.clone(),
                project: project.clone(),
                reply,
            })?;
            answer.await.map_err(|_| writer_gone())??;
        }
        // Loaded twice and unloaded both times: only a reload of the whole catalog after a
        // writer failure does that, so report it rather than loop.
        Err(StoreError::internal(
            "the project's keys could not be loaded",
            "they were replaced while loading",
        ))
    }

    /// Hands a job on a project's branches to the writer ([`branches`]).
    async fn branch_job(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: crate::domain::names::BranchName,
        op: branches::BranchOp,
    ) -> Result<branches::BranchAnswer, StoreError> {
        self.project(team, project)?;
        let (reply, answer) = oneshot::channel();
        self.send(Job::Branch {
            team: team.clone(),
            project: project.clone(),
            name,
            op,
            reply,
        })?;
        answer.await.map_err(|_| writer_gone())?
    }

    /// The catalog for a read; the HEAD it is of is recorded as what the request saw.
    fn read(&self) -> RwLockReadGuard<'_, Catalog> {
        let catalog = self.inner.catalog.read().unwrap_or_else(|poison| poison.into_inner());
        seen::read(&catalog.head);
        catalog
    }

    fn send(&self, job: Job) -> Result<(), StoreError> {
        self.inner.jobs.send(job).map_err(|_| writer_gone())?;
        self.inner.metrics.queue_depth.inc();
        Ok(())
    }

    /// The commit readers see now.
    pub fn head(&self) -> String {
        self.read().head.clone()
    }

    /// What a replicator calls to join a commit it fetched with the branch: the writer checks
    /// it and answers what it did. Blocking (it waits for the writer).
    pub fn adopter(&self) -> Adopter {
        let jobs = self.inner.jobs.clone();
        let queue = self.inner.metrics.clone();
        Box::new(move |incoming, label, follow| {
            let (reply, answer) = oneshot::channel();
            jobs.send(Job::Adopt {
                incoming,
                label,
                follow,
                reply,
            })
            .map_err(|_| writer_gone())?;
            queue.queue_depth.inc();
            answer.blocking_recv().map_err(|_| writer_gone())?
        })
    }

    /// What a primary's replicator calls to take a project branch's commits it fetched from
    /// the remote (see [`BranchOp::Follow`]). Blocking: it waits for the writer.
    pub fn branch_follower(&self) -> branches::BranchFollower {
        let store = self.clone();
        Box::new(move |team, project, name, incoming| {
            store.project(&team, &project)?;
            let (reply, answer) = tokio::sync::oneshot::channel();
            store.send(Job::Branch {
                team,
                project,
                name,
                op: branches::BranchOp::Follow { incoming },
                reply,
            })?;
            match answer.blocking_recv().map_err(|_| writer_gone())?? {
                branches::BranchAnswer::Followed(adoption) => Ok(adoption),
                _ => Err(branches::unexpected()),
            }
        })
    }

    /// Sets the keys-per-project gauge from the catalog (for a metrics scrape).
    pub fn record_key_counts(&self) {
        let catalog = self.read();
        for team in catalog.teams.values() {
            for project in team.projects.values() {
                if let Some(keys) = &project.keys {
                    let labels = [team.team.name.as_str(), project.project.name.as_str()];
                    self.inner
                        .metrics
                        .keys
                        .with_label_values(&labels)
                        .set(keys.len() as i64);
                }
            }
        }
    }
}

fn project_in<'a>(catalog: &'a Catalog, team: &TeamName, name: &ProjectName) -> Result<&'a ProjectEntry, StoreError> {
    if catalog.team(team).is_none() {
        return Err(team_not_found(team));
    }
    catalog.project(team, name).ok_or_else(|| project_not_found(team, name))
}

/// The keys with at least one of `tags` (all keys when there are none), as shared handles.
fn tagged(keys: &KeyIndex, tags: &[String]) -> Vec<Arc<KeyEntry>> {
    keys.shared()
        .filter(|entry| tags.is_empty() || entry.key.tags.iter().any(|tag| tags.contains(tag)))
        .cloned()
        .collect()
}

fn writer_gone() -> StoreError {
    StoreError::internal("the writer has stopped", "the store is shutting down")
}

/// The file whose presence says the last stop was clean, so start-up can skip recovery.
/// The note a clean stop leaves in the git directory (also left by a fresh clone, whose
/// working tree and index are HEAD's): without it, a start resets both to HEAD.
fn clean_marker(git_dir: &Path) -> PathBuf {
    git_dir.join("locstore-clean-shutdown")
}

/// Notes that the repository in `git_dir` was just cloned, working tree and index in line
/// with HEAD, so that the first start need not reset them.
pub(crate) fn mark_clean(git_dir: &Path) -> std::io::Result<()> {
    std::fs::write(clean_marker(git_dir), b"")
}

/// Start-up after a crash (no clean-shutdown note): stale git locks removed, working tree and
/// index reset to HEAD. A change that was not in HEAD was never acknowledged.
fn recover(git: &mut crate::gitdb::GitRepo) -> Result<(), StoreError> {
    let marker = clean_marker(git.git_dir());
    if marker.exists() {
        std::fs::remove_file(&marker).map_err(|err| StoreError::io(&marker, err))?;
        // Durable before any write: an import's working-tree files are not synced with its
        // commit, so a crash must always find the note gone and reset them.
        std::fs::File::open(git.git_dir())
            .and_then(|dir| dir.sync_all())
            .map_err(|err| StoreError::io(git.git_dir(), err))?;
        return Ok(());
    }
    for stale in stale_git_locks(git.git_dir()) {
        tracing::warn!(path = %stale.display(), "removing a lock file left by a stopped process");
        std::fs::remove_file(&stale).map_err(|err| StoreError::io(&stale, err))?;
    }
    // The index may lag HEAD by design (it is synced when idle), so after an unclean stop it
    // is reset along with the working tree rather than reported.
    tracing::warn!("the last stop was not clean; bringing the working tree and index back to HEAD");
    git.reset_to_head(layout::TEAMS_DIR)?;
    Ok(())
}

fn stale_git_locks(git_dir: &Path) -> Vec<PathBuf> {
    let top = ["index.lock", "HEAD.lock", "packed-refs.lock", "config.lock"].map(|name| git_dir.join(name));
    let refs = walkdir::WalkDir::new(git_dir.join("refs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file() && entry.path().extension().is_some_and(|ext| ext == "lock"))
        .map(|entry| entry.into_path());
    top.into_iter().filter(|path| path.exists()).chain(refs).collect()
}
