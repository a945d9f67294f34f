//! Reads of the past: a project, a key, a query or an export at a snapshot, a commit or a
//! time; snapshots taken, listed, deleted and restored; what changed between two states; a
//! key's history and a project's activity.

use super::*;

/// A project as a past commit held it.
pub(super) struct PastProject {
    commit: git2::Oid,
    team: TeamName,
    project: Project,
    keys: catalog::KeyIndex,
}

/// The last few projects read at past commits: a client paging through an old state, or an
/// export at a release, reads the same commit again and again.
#[derive(Default)]
pub(super) struct PastCache {
    recent: Mutex<Vec<Arc<PastProject>>>,
}

impl PastCache {
    /// How many past projects are kept (each as large as the project's keys).
    const SIZE: usize = 2;

    pub(super) fn get(&self, commit: git2::Oid, team: &TeamName, project: &ProjectName) -> Option<Arc<PastProject>> {
        let recent = self.recent.lock().unwrap_or_else(|poison| poison.into_inner());
        recent
            .iter()
            .find(|past| past.commit == commit && &past.team == team && &past.project.name == project)
            .cloned()
    }

    pub(super) fn put(&self, past: Arc<PastProject>) {
        let mut recent = self.recent.lock().unwrap_or_else(|poison| poison.into_inner());
        recent.insert(0, past);
        recent.truncate(Self::SIZE);
    }
}

impl Store {
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
        Ok((past.project.clone(), tagged(&past.keys, tags)))
    }

    /// A project's settings at the commit `reference` names.
    pub async fn project_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
    ) -> Result<Project, StoreError> {
        Ok(self.past(team, project, reference).await?.project.clone())
    }

    /// A key at the commit `reference` names.
    pub async fn key_at(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: &KeyName,
        reference: &str,
    ) -> Result<Key, StoreError> {
        // The key's file where the layout puts it: one blob, not the whole project. A key in a
        // hand-made place, or a project not there, falls back to reading the project.
        let root = self.inner.root.clone();
        let (team_owned, project_owned, name_owned, reference_owned) =
            (team.clone(), project.clone(), name.clone(), reference.to_owned());
        let direct = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to read the past", err))?;
            let resolved = history::resolve(&repo, &team_owned, &project_owned, &reference_owned)?;
            Ok::<_, StoreError>((resolved.commit, history::key_file_at(&repo, &resolved, &name_owned)))
        })
        .await
        .map_err(|err| StoreError::internal("the read of the past failed", err))??;
        if let (commit, Some(key)) = direct {
            seen::read(&commit.to_string());
            return Ok(key);
        }
        let past = self.past(team, project, reference).await?;
        past.keys
            .get(name)
            .map(|entry| entry.key.clone())
            .ok_or_else(|| key_not_found(team, project, name))
    }

    /// [`Store::query_keys`] at the commit `reference` names.
    pub async fn query_keys_at<T>(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        query: &KeyQuery,
        render: impl FnOnce(&[&Key]) -> T,
    ) -> Result<(T, PageInfo), StoreError> {
        let past = self.past(team, project, reference).await?;
        Ok(past.keys.query(query, render))
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

    pub(super) async fn snapshot_job(&self, op: worker::SnapshotOp) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.send(Job::Snapshot { op, reply })?;
        answer.await.map_err(|_| writer_gone())?
    }

    /// A project's snapshots, newest first.
    pub async fn snapshots(
        &self,
        team: &TeamName,
        project: &ProjectName,
    ) -> Result<Vec<snapshots::Snapshot>, StoreError> {
        self.project(team, project)?;
        let root = self.inner.root.clone();
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
        self.project(team, project)?;
        let root = self.inner.root.clone();
        let (team_then, project_then, snapshot) = (team.clone(), project.clone(), name.to_owned());
        let (settings, keys) = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to read a snapshot", err))?;
            let found = snapshots::find(&repo, &team_then, &project_then, &snapshot)?.ok_or_else(|| {
                StoreError::NotFound(format!(
                    "Project {team_then}/{project_then} has no snapshot {snapshot:?}."
                ))
            })?;
            history::project_at(&repo, found.commit, &found.team, &found.project, None::<NoHeadKeys>)
        })
        .await
        .map_err(|err| StoreError::internal("reading the snapshot failed", err))??;
        let change = Change::RestoreProject {
            team: team.clone(),
            project: project.clone(),
            snapshot: name.to_owned(),
            settings,
            keys: keys.iter().cloned().collect(),
        };
        self.apply(change, author).await
    }

    /// The keys that differ between the states `since` and `until` (HEAD when `None`) name,
    /// sorted by name; answers the `until` commit too, recorded as what the request saw.
    pub async fn changes(
        &self,
        team: &TeamName,
        project: &ProjectName,
        since: &str,
        until: Option<&str>,
    ) -> Result<(git2::Oid, Vec<(String, history::KeyChange)>), StoreError> {
        self.project(team, project)?;
        let head = self.read().head.clone();
        let root = self.inner.root.clone();
        let (team, project) = (team.clone(), project.clone());
        let (since, until) = (since.to_owned(), until.unwrap_or(&head).to_owned());
        let (until, changes) = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to compare states", err))?;
            let since = history::resolve(&repo, &team, &project, &since)?;
            let until = history::resolve(&repo, &team, &project, &until)?;
            let changes = history::changes(&repo, &since, &until)?;
            Ok::<_, StoreError>((until.commit, changes))
        })
        .await
        .map_err(|err| StoreError::internal("comparing states failed", err))??;
        seen::read(&until.to_string());
        Ok((until, changes))
    }

    /// One page of the commits that changed a key, newest first, following renames, with the
    /// total; `NotFound` when no key of that name ever existed in the project.
    pub async fn key_history(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: &KeyName,
        query: &KeyQuery,
    ) -> Result<(Vec<KeyHistoryEntry>, PageInfo), StoreError> {
        self.project(team, project)?;
        let (team, project, name, query) = (team.clone(), project.clone(), name.clone(), query.clone());
        self.with_history(move |repo, index| {
            let events = history::key_history(repo, index, &team, &project, &name);
            if events.is_empty() {
                return Err(StoreError::NotFound(format!(
                    "No key named {} ever existed in {team}/{project}.",
                    plan::quoted(name.as_str())
                )));
            }
            let info = query.page_info(events.len());
            let page = query
                .select(&events)
                .into_iter()
                .map(|event| KeyHistoryEntry {
                    commit: index.commit(event.position).clone(),
                    change: event.change.clone(),
                    key: history::key_after(repo, event),
                })
                .collect();
            Ok((page, info))
        })
        .await
    }

    /// One page of the commits that changed a project, newest first, with the total.
    pub async fn project_activity(
        &self,
        team: &TeamName,
        project: &ProjectName,
        query: &KeyQuery,
    ) -> Result<(Vec<history::ProjectEvent>, PageInfo), StoreError> {
        self.project(team, project)?;
        let (team, project, query) = (team.clone(), project.clone(), query.clone());
        self.with_history(move |_, index| {
            let positions = history::project_commits(index, &team, &project);
            let info = query.page_info(positions.len());
            let page = query
                .select(&positions)
                .into_iter()
                .map(|position| history::project_event(index, &team, &project, *position))
                .collect();
            Ok((page, info))
        })
        .await
    }

    /// Runs `read` on a blocking thread with a repository handle and the history index,
    /// caught up with HEAD first.
    pub(super) async fn with_history<T: Send + 'static>(
        &self,
        read: impl FnOnce(&git2::Repository, &history_index::HistoryIndex) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let root = self.inner.root.clone();
        let index = self.inner.history.clone();
        tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to read history", err))?;
            let mut index = index.lock().unwrap_or_else(|poison| poison.into_inner());
            index.catch_up(&repo)?;
            read(&repo, &index)
        })
        .await
        .map_err(|err| StoreError::internal("reading history failed", err))?
    }

    /// A project as the commit `reference` names holds it, read on a blocking thread with a
    /// repository handle of its own, or from the cache of recent past reads. The commit is
    /// recorded as what the request saw.
    pub(super) async fn past(
        &self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
    ) -> Result<Arc<PastProject>, StoreError> {
        let root = self.inner.root.clone();
        let cache = self.inner.past.clone();
        let catalog = self.inner.catalog.clone();
        let (team, project, reference) = (team.clone(), project.clone(), reference.to_owned());
        let past = tokio::task::spawn_blocking(move || {
            let repo = git2::Repository::open(&root)
                .map_err(|err| StoreError::internal("cannot open the repository to read the past", err))?;
            let resolved = history::resolve(&repo, &team, &project, &reference)?;
            let commit = resolved.commit;
            if let Some(past) = cache.get(commit, &team, &project) {
                return Ok(past);
            }
            let head = head_keys(&catalog, &repo, &team, &project);
            let (mut settings, keys) = history::project_at(&repo, commit, &resolved.team, &resolved.project, head)?;
            // Read under the names of then; answered under today's.
            settings.name = project.clone();
            let past = Arc::new(PastProject {
                commit,
                team,
                project: settings,
                keys,
            });
            cache.put(past.clone());
            Ok::<_, StoreError>(past)
        })
        .await
        .map_err(|err| StoreError::internal("the read of the past failed", err))??;
        seen::read(&past.commit.to_string());
        Ok(past)
    }
}
