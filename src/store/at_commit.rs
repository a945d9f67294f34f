//! The store's files as a past commit holds them: a project's settings and keys, or one key,
//! read from the commit's tree in the store's layout and format. The history reads the past
//! through these; they block (call them on a blocking thread, with a repository handle of the
//! caller's own).

use std::path::Path;
use std::sync::{Arc, RwLock};

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

use super::catalog::{Catalog, KeyEntry, KeyIndex};
use super::error::StoreError;
use super::{Store, files, layout, scan, tagged};
use crate::domain::model::{Key, Project};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};
use crate::domain::query::{KeyQuery, PageInfo};
use crate::gitdb::tree_diff;

/// A project as a commit holds it, read only.
pub struct ProjectAt {
    pub commit: Oid,
    pub settings: Project,
    keys: KeyIndex,
    /// The project's kept folder under the names it had then.
    pub(super) kept_dir: String,
}

impl ProjectAt {
    pub fn key(&self, name: &KeyName) -> Option<&Key> {
        self.keys.get(name).map(|entry| &entry.key)
    }

    /// One page of the keys, as [`Store::query_keys`] pages HEAD's.
    pub fn query<T>(&self, query: &KeyQuery, render: impl FnOnce(&Project, &[&Key]) -> T) -> (T, PageInfo) {
        self.keys.query(query, |page| render(&self.settings, page))
    }

    /// The keys with at least one of `tags` (all when there are none), sorted by name.
    pub fn tagged(&self, tags: &[String]) -> Vec<Arc<KeyEntry>> {
        tagged(&self.keys, tags)
    }

    /// Every key with its file, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = &KeyEntry> {
        self.keys.iter()
    }
}

impl Store {
    /// The project `team/project` (the names it had then) as `commit` holds it; `NotFound`
    /// when it did not exist under those names. When HEAD's keys of the project are loaded,
    /// the past state is their copy with the files that differ applied, so the cost follows
    /// the files changed since rather than the keys. Blocking.
    pub fn project_at_commit(
        &self,
        repo: &Repository,
        commit: Oid,
        team: &TeamName,
        project: &ProjectName,
    ) -> Result<ProjectAt, StoreError> {
        let head = head_keys(&self.inner.catalog, repo, team, project);
        let (settings, keys) = project_at(repo, commit, team, project, head)?;
        Ok(ProjectAt {
            commit,
            settings,
            keys,
            kept_dir: layout::kept_dir(team, project),
        })
    }

    /// The key `name` of `team/project` as `commit` holds it in the file the layout gives it,
    /// if it is there (and its project with it), with the project's base language then: two
    /// blobs, not the whole project. Blocking.
    pub fn key_at_commit(
        &self,
        repo: &Repository,
        commit: Oid,
        team: &TeamName,
        project: &ProjectName,
        name: &KeyName,
    ) -> Option<(Key, LanguageCode)> {
        let tree = repo.find_commit(commit).ok()?.tree().ok()?;
        let settings = tree.get_path(Path::new(&layout::project_file(team, project))).ok()?;
        let settings = files::read_project(project.clone(), repo.find_blob(settings.id()).ok()?.content()).ok()?;
        let path = format!("{}/{}", layout::keys_dir(team, project), layout::key_file(name));
        let entry = tree.get_path(Path::new(&path)).ok()?;
        let blob = repo.find_blob(entry.id()).ok()?;
        let key = files::read_key(blob.content()).ok().filter(|key| &key.name == name)?;
        Some((key, settings.base_language))
    }
}

/// The keys tree of a project's keys as loaded (HEAD's), and a way to copy them; `None` when
/// they are not loaded. The copy is refused (`None`) if HEAD has moved on meanwhile.
pub(super) fn head_keys<'a>(
    catalog: &'a RwLock<Catalog>,
    repo: &Repository,
    team: &TeamName,
    project: &ProjectName,
) -> Option<(Oid, impl FnOnce() -> Option<KeyIndex> + 'a)> {
    let head = {
        let catalog = catalog.read().unwrap_or_else(|poison| poison.into_inner());
        catalog.project(team, project)?.keys.as_ref()?;
        catalog.head.clone()
    };
    let keys_tree = repo
        .find_commit(Oid::from_str(&head).ok()?)
        .and_then(|commit| commit.tree())
        .ok()?
        .get_path(Path::new(&layout::keys_dir(team, project)))
        .ok()?
        .id();
    let (team, project) = (team.clone(), project.clone());
    let snapshot = move || {
        let catalog = catalog.read().unwrap_or_else(|poison| poison.into_inner());
        if catalog.head != head {
            return None;
        }
        Some(catalog.project(&team, &project)?.keys.as_ref()?.snapshot())
    };
    Some((keys_tree, snapshot))
}

/// The project's settings and keys as `commit` holds them. A project that did not exist
/// under this name then is `NotFound`.
///
/// `head` gives, when the project's keys are loaded, the keys tree they are of and a way to
/// copy them: the past state is then that copy with the files that differ applied, unless most
/// files differ.
pub(super) fn project_at(
    repo: &Repository,
    commit: Oid,
    team: &TeamName,
    project: &ProjectName,
    head: Option<(Oid, impl FnOnce() -> Option<KeyIndex>)>,
) -> Result<(Project, KeyIndex), StoreError> {
    let fail = |err| StoreError::internal("cannot read a past commit", err);
    let tree = repo
        .find_commit(commit)
        .and_then(|commit| commit.tree())
        .map_err(fail)?;
    let missing = || StoreError::NotFound(format!("Project {team}/{project} did not exist at commit {commit}."));
    let project_file = layout::project_file(team, project);
    let entry = tree.get_path(Path::new(&project_file)).map_err(|_| missing())?;
    let blob = repo.find_blob(entry.id()).map_err(|_| missing())?;
    let settings = files::read_project(project.clone(), blob.content())
        .map_err(|err| StoreError::internal("cannot read a past project file", err))?;
    let keys_dir = layout::keys_dir(team, project);
    let Ok(entry) = tree.get_path(Path::new(&keys_dir)) else {
        return Ok((settings, KeyIndex::default()));
    };
    let keys_tree = repo.find_tree(entry.id()).map_err(fail)?;
    if let Some((head_tree, snapshot)) = head
        && let Some(index) = from_head(repo, head_tree, &keys_tree, snapshot)
    {
        return Ok((settings, index));
    }
    let mut files = Vec::new();
    keys_tree
        .walk(TreeWalkMode::PreOrder, |parent, entry| {
            if let Ok(name) = entry.name()
                && entry.kind() == Some(ObjectType::Blob)
                && name.ends_with(".toml")
            {
                files.push((format!("{parent}{name}"), entry.id()));
            }
            TreeWalkResult::Ok
        })
        .map_err(fail)?;
    let (index, _) = scan::index_key_files(
        repo,
        files,
        |file, err| tracing::warn!(%commit, %file, error = %err, "skipping a past key file that does not parse"),
    )?;
    Ok((settings, index))
}

/// HEAD's keys brought back to `past` by the files that differ; `None` when that does not
/// pay or does not work out (the caller reads every file then).
fn from_head(
    repo: &Repository,
    head_tree: Oid,
    past: &git2::Tree<'_>,
    snapshot: impl FnOnce() -> Option<KeyIndex>,
) -> Option<KeyIndex> {
    let head_tree = repo.find_tree(head_tree).ok()?;
    let diff = tree_diff::diff(repo, Some(&head_tree), Some(past)).ok()?;
    let mut index = snapshot()?;
    if diff.len() > index.len() / 2 {
        return None;
    }
    match scan::apply_key_diff(repo, &mut index, &diff) {
        Ok(_) => Some(index),
        Err(why) => {
            tracing::warn!(%why, "reading every past key file instead of starting from HEAD's");
            None
        }
    }
}
