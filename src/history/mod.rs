//! The history beside the store: reads of the past (a project, a key, a query or an export at
//! a snapshot, a commit or a time), snapshots listed and restored, what changed between two
//! states, a key's commits and a project's activity. It follows the store on its public API:
//! the index of the first-parent history ([`index`]) is caught up on a thread of its own each
//! time the writer publishes, and past states are read through
//! [`Store::project_at_commit`]; restoring a snapshot is a change applied through the store.

mod branch_line;
pub mod events;
mod index;
pub mod reads;
pub mod snapshots;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::domain::model::{Key, Project};
use crate::domain::names::{BranchName, KeyName, LanguageCode, ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo};
use crate::store::{Change, KeyEntry, Outcome, ProjectAt, Published, Store, StoreError, key_not_found, quoted, seen};
use branch_line::{BranchLine, OwnCache};
pub use events::KeyChange;
pub use index::CommitInfo;
use index::{Follower, HistoryIndex, Line};
pub use reads::ProjectEvent;

/// One commit of a key's history, as a page shows it.
pub struct KeyHistoryEntry {
    pub commit: CommitInfo,
    pub change: KeyChange,
    /// The key after the commit; `None` once deleted.
    pub key: Option<Key>,
}

/// A project as a past commit held it, answered under today's names.
struct PastProject {
    team: TeamName,
    name: ProjectName,
    at: ProjectAt,
}

/// The last few projects read at past commits: a client paging through an old state, or an
/// export at a release, reads the same commit again and again.
#[derive(Default)]
struct PastCache {
    recent: Mutex<Vec<Arc<PastProject>>>,
}

impl PastCache {
    /// How many past projects are kept (each as large as the project's keys).
    const SIZE: usize = 2;

    fn get(&self, commit: git2::Oid, team: &TeamName, project: &ProjectName) -> Option<Arc<PastProject>> {
        let recent = self.recent.lock().unwrap_or_else(|poison| poison.into_inner());
        recent
            .iter()
            .find(|past| past.at.commit == commit && &past.team == team && &past.name == project)
            .cloned()
    }

    fn put(&self, past: Arc<PastProject>) {
        let mut recent = self.recent.lock().unwrap_or_else(|poison| poison.into_inner());
        recent.insert(0, past);
        recent.truncate(Self::SIZE);
    }
}

/// How long an export waits for the history index (held while it catches up) to learn what
/// changed since its kept files were kept.
const KEPT_SINCE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// The lock of `mutex` when it can be had within `wait`.
fn lock_within<T>(mutex: &Mutex<T>, wait: std::time::Duration) -> Option<std::sync::MutexGuard<'_, T>> {
    let until = std::time::Instant::now() + wait;
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Some(guard),
            Err(std::sync::TryLockError::Poisoned(poison)) => return Some(poison.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    }
}

/// Handle to the history of a store; clones share the index and the cache.
#[derive(Clone)]
pub struct History {
    store: Store,
    /// The first-parent history, kept on disk and caught up after every publication and on
    /// every history read.
    index: Arc<Mutex<HistoryIndex>>,
    /// Projects as past commits held them, for reads with `at=`.
    past: Arc<PastCache>,
    /// Branches' own commits, for their history.
    branches: Arc<OwnCache>,
}

impl History {
    /// Starts following `store`: indexes its history on a thread of its own, now and after
    /// each publication.
    pub fn start(store: Store) -> Self {
        let index = Arc::new(Mutex::new(HistoryIndex::default()));
        let follower = Follower::start(store.root(), index.clone());
        store.listen(Box::new(move |published| {
            if published != Published::Tags {
                follower.nudge();
            }
        }));
        Self {
            store,
            index,
            past: Arc::default(),
            branches: Arc::default(),
        }
    }

    /// Like [`Store::keys_for_export`], at the commit `reference` names (a snapshot, a commit
    /// id, an RFC 3339 time).
    pub async fn keys_for_export_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        tags: &[String],
        reference: &str,
    ) -> Result<(Project, Vec<Arc<KeyEntry>>), StoreError> {
        let past = self.past(team, project, reference).await?;
        Ok((past.settings(), past.at.tagged(tags)))
    }

    /// The app's files kept in `folder` (a format's) beside a project's keys at the commit
    /// `reference` names, those `wanted` (without reading the blobs the reader `have`s).
    pub async fn kept_blobs_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        folder: &str,
        wanted: Box<crate::store::Wanted>,
        have: Box<crate::store::Have>,
    ) -> Result<Vec<crate::store::KeptBlob>, StoreError> {
        let past = self.past(team, project, reference).await?;
        let (root, folder) = (self.store.root().to_path_buf(), folder.to_owned());
        tokio::task::spawn_blocking(move || past.at.kept_blobs(&root, &folder, &wanted, &have))
            .await
            .map_err(|err| StoreError::internal("the read of kept files failed", err))?
    }

    /// For each of the kept files `paths` (under a format's `folder`) at commit `at`: what
    /// happened to the project's keys since the commit that first gave it its bytes (see
    /// [`reads::kept_since`]); files without an answer are left out.
    pub async fn kept_since(
        &self,
        team: &TeamName,
        project: &ProjectName,
        at: git2::Oid,
        folder: &str,
        paths: Vec<String>,
    ) -> Result<HashMap<String, Arc<crate::store::KeysSince>>, StoreError> {
        let (team, project, folder) = (team.clone(), project.clone(), folder.to_owned());
        // An export does not wait long for the index (its rebuild after a restart can take a
        // while): without it, the files are patched with the whole export.
        let since = self
            .with_history_within(Some(KEPT_SINCE_WAIT), move |repo, index| {
                reads::kept_since(repo, index, at, (&team, &project), &folder, &paths)
            })
            .await?;
        Ok(since.unwrap_or_default())
    }

    /// The commit `reference` names for a project (as [`History::keys_for_export_at`] reads
    /// it).
    pub async fn commit_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
    ) -> Result<git2::Oid, StoreError> {
        Ok(self.past(team, project, reference).await?.at.commit)
    }

    /// A project's settings at the commit `reference` names.
    pub async fn project_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
    ) -> Result<Project, StoreError> {
        Ok(self.past(team, project, reference).await?.settings())
    }

    /// A key at the commit `reference` names, and its project's base language then.
    pub async fn key_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: &KeyName,
        reference: &str,
    ) -> Result<(Key, LanguageCode), StoreError> {
        // The key's file where the layout puts it: one blob, not the whole project. A key in a
        // hand-made place, or a project not there, falls back to reading the project.
        let store = self.store.clone();
        let (team_owned, project_owned, name_owned, reference_owned) =
            (team.clone(), project.clone(), name.clone(), reference.to_owned());
        let direct = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(store.root())
                .map_err(|err| StoreError::internal("cannot open the repository to read the past", err))?;
            let resolved = reads::resolve(&repo, &team_owned, &project_owned, &reference_owned)?;
            let key = store.key_at_commit(&repo, resolved.commit, &resolved.team, &resolved.project, &name_owned);
            Ok::<_, StoreError>((resolved.commit, key))
        })
        .await
        .map_err(|err| StoreError::internal("the read of the past failed", err))??;
        if let (commit, Some(key)) = direct {
            seen::read(&commit.to_string());
            return Ok(key);
        }
        let past = self.past(team, project, reference).await?;
        past.at
            .key(name)
            .map(|key| (key.clone(), past.at.settings.base_language.clone()))
            .ok_or_else(|| key_not_found(team, project, name))
    }

    /// [`Store::query_keys`] at the commit `reference` names.
    pub async fn query_keys_at<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        query: &KeyQuery,
        render: impl FnOnce(&Project, &[&Key]) -> T,
    ) -> Result<(T, PageInfo), StoreError> {
        let past = self.past(team, project, reference).await?;
        Ok(past.at.query(query, render))
    }

    /// [`Store::query_work`] at the commit `reference` names.
    pub async fn query_work_at<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        query: &KeyQuery,
        filter: &crate::store::quality::WorkFilter,
        render: impl FnOnce(&Project, &[&Key]) -> T,
    ) -> Result<(T, PageInfo), StoreError> {
        use crate::store::quality::{addresses_of, every_match, select_work, summaries_of};
        let past = self.past(team, project, reference).await?;
        let settings = past.settings();
        // Every key: the keyword's matches are found among them, and the filter picks the tags.
        let entries = past.at.tagged(&[]);
        let (entries, summaries) = {
            let settings = settings.clone();
            tokio::task::spawn_blocking(move || {
                let summaries = summaries_of(&settings, &entries);
                (entries, summaries)
            })
            .await
            .map_err(|err| StoreError::internal("summarizing a past state failed", err))?
        };
        let named = query
            .keyword
            .as_ref()
            .map(|_| past.at.query(&every_match(query), |_, page| addresses_of(page)).0);
        let kept =
            select_work(&settings, &entries, &summaries, named.as_deref(), filter).map_err(StoreError::Invalid)?;
        let page: Vec<&Key> = query.select(&kept).into_iter().copied().collect();
        Ok((render(&settings, &page), query.page_info(kept.len())))
    }

    /// Completeness per language of the project as the commit `reference` names holds it
    /// (its keys with one of `tags`, or all).
    pub async fn stats_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        tags: &[String],
        reference: &str,
    ) -> Result<crate::store::quality::Stats, StoreError> {
        let past = self.past(team, project, reference).await?;
        let tags = tags.to_vec();
        tokio::task::spawn_blocking(move || {
            let settings = past.settings();
            let summaries = crate::store::quality::summaries_of(&settings, &past.at.tagged(&tags));
            crate::store::quality::stats(&settings, summaries.iter().map(|summary| summary.as_ref()))
        })
        .await
        .map_err(|err| StoreError::internal("counting a past state failed", err))
    }

    /// [`Store::failures_of`] at the commit `reference` names: the failing checks of the keys
    /// `names` there (a branch's head after a write on it).
    pub async fn failures_of_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        names: &[KeyName],
        most: usize,
    ) -> Result<(Vec<crate::store::quality::KeyFailure>, usize), StoreError> {
        if names.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let past = self.past(team, project, reference).await?;
        let names = names.to_vec();
        tokio::task::spawn_blocking(move || {
            let keys = names.iter().filter_map(|name| past.at.key(name));
            crate::store::quality::failures_in(keys, &past.at.settings.base_language, most)
        })
        .await
        .map_err(|err| StoreError::internal("checking a branch's keys failed", err))
    }

    /// [`Store::failures`] at the commit `reference` names (a branch's head, a past state).
    pub async fn failures_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        filter: &crate::store::quality::FailureFilter,
        query: &KeyQuery,
    ) -> Result<(Vec<crate::store::quality::KeyFailure>, PageInfo), StoreError> {
        let past = self.past(team, project, reference).await?;
        let (filter, query) = (filter.clone(), query.clone());
        tokio::task::spawn_blocking(move || {
            let settings = past.settings();
            let entries = past.at.tagged(&[]);
            let summaries = crate::store::quality::summaries_of(&settings, &entries);
            crate::store::quality::failure_page(&entries, &summaries, &filter, &query)
        })
        .await
        .map_err(|err| StoreError::internal("listing a past state's checks failed", err))
    }

    /// A project's snapshots, newest first.
    pub async fn snapshots(
        &self,
        team: &TeamName,
        project: &ProjectName,
    ) -> Result<Vec<snapshots::Snapshot>, StoreError> {
        self.store.project(team, project)?;
        let root = self.store.root().to_path_buf();
        let (team, project) = (team.clone(), project.clone());
        tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to list snapshots", err))?;
            snapshots::list(&repo, &team, &project)
        })
        .await
        .map_err(|err| StoreError::internal("listing snapshots failed", err))?
    }

    /// Sets the project's settings and keys back to the snapshot's, as one commit.
    pub async fn restore_snapshot(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: &str,
        author: &str,
    ) -> Result<Outcome, StoreError> {
        self.store.project(team, project)?;
        let store = self.store.clone();
        let (team_then, project_then, snapshot) = (team.clone(), project.clone(), name.to_owned());
        let past = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(store.root())
                .map_err(|err| StoreError::internal("cannot open the repository to read a snapshot", err))?;
            let found = snapshots::find(&repo, &team_then, &project_then, &snapshot)?.ok_or_else(|| {
                StoreError::NotFound(format!(
                    "Project {team_then}/{project_then} has no snapshot {snapshot:?}."
                ))
            })?;
            let past = store.project_at_commit(&repo, found.commit, &found.team, &found.project)?;
            let kept = past.kept_files(store.root(), "", &|_| true)?;
            Ok::<_, StoreError>((past, kept))
        })
        .await
        .map_err(|err| StoreError::internal("reading the snapshot failed", err))??;
        let (past, kept) = past;
        let change = Change::RestoreProject {
            team: team.clone(),
            project: project.clone(),
            snapshot: name.to_owned(),
            keys: past.entries().cloned().collect(),
            settings: past.settings,
            kept,
        };
        self.store.apply(change, author).await
    }

    /// The keys that differ between the states `since` and `until` (HEAD when `None`) name,
    /// sorted by name; answers the `until` commit too, recorded as what the request saw.
    pub async fn changes(
        &self,
        team: &TeamName,
        project: &ProjectName,
        since: &str,
        until: Option<&str>,
    ) -> Result<(git2::Oid, Vec<(KeyName, KeyChange)>), StoreError> {
        self.store.project(team, project)?;
        let head = self.store.head();
        let root = self.store.root().to_path_buf();
        let (team, project) = (team.clone(), project.clone());
        let (since, until) = (since.to_owned(), until.unwrap_or(&head).to_owned());
        let (until, changes) = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to compare states", err))?;
            let since = reads::resolve(&repo, &team, &project, &since)?;
            let until = reads::resolve(&repo, &team, &project, &until)?;
            let changes = reads::changes(&repo, &since, &until)?;
            Ok::<_, StoreError>((until.commit, changes))
        })
        .await
        .map_err(|err| StoreError::internal("comparing states failed", err))??;
        seen::read(&until.to_string());
        Ok((until, changes))
    }

    /// One page of the commits that changed a key on the main line or on `branch`, newest
    /// first, following renames, with the total; `NotFound` when no key of that name ever
    /// existed in the project there.
    pub async fn key_history(
        &self,
        team: &TeamName,
        project: &ProjectName,
        branch: Option<&BranchName>,
        name: &KeyName,
        query: &KeyQuery,
    ) -> Result<(Vec<KeyHistoryEntry>, PageInfo), StoreError> {
        let (owned_team, owned_project, name, query) = (team.clone(), project.clone(), name.clone(), query.clone());
        self.with_line(team, project, branch, move |repo, line| {
            let (team, project) = (owned_team, owned_project);
            let events = reads::key_history(repo, line, &team, &project, &name);
            if events.is_empty() {
                return Err(StoreError::NotFound(format!(
                    "No key named {} ever existed in {team}/{project}.",
                    quoted(name.as_str())
                )));
            }
            let info = query.page_info(events.len());
            let page = query
                .select(&events)
                .into_iter()
                .map(|event| KeyHistoryEntry {
                    commit: line.commit(event.position).clone(),
                    change: event.change.clone(),
                    key: reads::key_after(repo, event),
                })
                .collect();
            Ok((page, info))
        })
        .await
    }

    /// One page of the commits that changed a project on the main line or on `branch`,
    /// newest first, with the total.
    pub async fn project_activity(
        &self,
        team: &TeamName,
        project: &ProjectName,
        branch: Option<&BranchName>,
        query: &KeyQuery,
    ) -> Result<(Vec<ProjectEvent>, PageInfo), StoreError> {
        let (owned_team, owned_project, query) = (team.clone(), project.clone(), query.clone());
        self.with_line(team, project, branch, move |_, line| {
            let (team, project) = (owned_team, owned_project);
            let positions = reads::project_commits(line, &team, &project);
            let info = query.page_info(positions.len());
            let page = query
                .select(&positions)
                .into_iter()
                .map(|position| reads::project_event(line, &team, &project, *position))
                .collect();
            Ok((page, info))
        })
        .await
    }

    /// Runs `read` on a blocking thread over the main line's history or `branch`'s (its own
    /// commits over the main line's before it left it), for a project that exists.
    async fn with_line<T: Send + 'static>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        branch: Option<&BranchName>,
        read: impl FnOnce(&git2::Repository, &dyn Line) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.store.project(team, project)?;
        let Some(branch) = branch else {
            return self.with_history(move |repo, index| read(repo, index)).await;
        };
        let head = self.store.branch_head(team, project, branch).await?;
        let branches = self.branches.clone();
        self.with_history(move |repo, index| {
            let own = branches.get(repo, index, head)?;
            let line = match BranchLine::new(index, &own) {
                Some(line) => line,
                None => {
                    return Err(StoreError::internal(
                        "a branch's history",
                        "the main line no longer holds the commit the branch left from",
                    ));
                }
            };
            read(repo, &line)
        })
        .await
    }

    /// Runs `read` on a blocking thread with a repository handle and the history index,
    /// caught up with HEAD first.
    async fn with_history<T: Send + 'static>(
        &self,
        read: impl FnOnce(&git2::Repository, &HistoryIndex) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let read = self.with_history_within(None, read).await?;
        Ok(read.expect("a read that waits for the index always gets it"))
    }

    /// [`History::with_history`], giving up (`None`) when the index is not free within `wait`
    /// (`None`: as long as it takes).
    async fn with_history_within<T: Send + 'static>(
        &self,
        wait: Option<std::time::Duration>,
        read: impl FnOnce(&git2::Repository, &HistoryIndex) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<Option<T>, StoreError> {
        let root = self.store.root().to_path_buf();
        let index = self.index.clone();
        tokio::task::spawn_blocking(move || {
            let mut index = match wait {
                None => index.lock().unwrap_or_else(|poison| poison.into_inner()),
                Some(wait) => match lock_within(&index, wait) {
                    Some(index) => index,
                    None => return Ok(None),
                },
            };
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to read history", err))?;
            index.catch_up(&repo)?;
            read(&repo, &index).map(Some)
        })
        .await
        .map_err(|err| StoreError::internal("reading history failed", err))?
    }

    /// A project as the commit `reference` names holds it, read on a blocking thread with a
    /// repository handle of its own, or from the cache of recent past reads. The commit is
    /// recorded as what the request saw.
    async fn past(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
    ) -> Result<Arc<PastProject>, StoreError> {
        let store = self.store.clone();
        let cache = self.past.clone();
        // A commit id read before (a branch's head, read at each request) is answered from
        // the cache without a trip to a blocking thread.
        if reference.len() == 40
            && let Ok(commit) = git2::Oid::from_str(reference)
            && let Some(past) = cache.get(commit, team, project)
        {
            seen::read(&past.at.commit.to_string());
            return Ok(past);
        }
        let (team, project, reference) = (team.clone(), project.clone(), reference.to_owned());
        let past = tokio::task::spawn_blocking(move || {
            crate::store::readers::with_repository(store.root(), |repo| {
                let resolved = reads::resolve(repo, &team, &project, &reference)?;
                if let Some(past) = cache.get(resolved.commit, &team, &project) {
                    return Ok(past);
                }
                // Read under the names of then; answered under today's.
                let at = store.project_at_commit(repo, resolved.commit, &resolved.team, &resolved.project)?;
                let past = Arc::new(PastProject {
                    team,
                    name: project,
                    at,
                });
                cache.put(past.clone());
                Ok::<_, StoreError>(past)
            })
        })
        .await
        .map_err(|err| StoreError::internal("the read of the past failed", err))??;
        seen::read(&past.at.commit.to_string());
        Ok(past)
    }
}

impl PastProject {
    /// The project's settings then, under today's name.
    fn settings(&self) -> Project {
        Project {
            name: self.name.clone(),
            ..self.at.settings.clone()
        }
    }
}
