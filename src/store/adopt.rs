//! Commits that arrive from outside the writer: the branch moved by hand in the server's own
//! repository, or a commit fetched from the remote. The writer checks every file they change,
//! joins them with its history (a fast-forward when it can, else a merge commit in which the
//! incoming side wins every file both sides changed), and updates the catalog by the
//! difference between the two trees, so that the cost follows the files changed, not the keys.

use std::collections::BTreeSet;

use git2::{Oid, Repository};

use crate::domain::names::{ProjectName, TeamName};
use crate::gitdb::TreeEdit;
use crate::gitdb::tree_diff::{self, FileDiff};
use crate::store::catalog::{Catalog, KeyEntry, KeyIndex};
use crate::store::error::StoreError;
use crate::store::files;
use crate::store::layout;

/// What joining an incoming commit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adoption {
    /// The branch already held it.
    Held,
    /// The branch moved forward to it.
    FastForward(Oid),
    /// A merge commit joined it with commits of ours.
    Merged(Oid),
    /// A file it changes is invalid: it is not served. Why, in words.
    Refused(String),
}

/// How an incoming commit relates to the branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// The branch already holds it.
    Held,
    /// It is a descendant of the branch's head.
    Ahead,
    /// Both sides have commits the other lacks.
    Diverged,
}

pub fn relation(repo: &Repository, head: Oid, incoming: Oid) -> Result<Relation, StoreError> {
    let fail = |err| StoreError::internal("cannot compare the incoming commit with HEAD", err);
    if incoming == head || repo.graph_descendant_of(head, incoming).map_err(fail)? {
        return Ok(Relation::Held);
    }
    if repo.graph_descendant_of(incoming, head).map_err(fail)? {
        return Ok(Relation::Ahead);
    }
    Ok(Relation::Diverged)
}

/// Whether `head` is a repository's first commit and holds no data (no `teams/` folder): a
/// new server's own start, which an incoming history may replace instead of merging with it
/// (they share no commit, and there is nothing of ours to keep).
pub fn holds_no_data(repo: &Repository, head: Oid) -> Result<bool, StoreError> {
    let commit = repo
        .find_commit(head)
        .map_err(|err| StoreError::internal("cannot read HEAD", err))?;
    if commit.parent_count() > 0 {
        return Ok(false);
    }
    let tree = commit
        .tree()
        .map_err(|err| StoreError::internal("cannot read HEAD's tree", err))?;
    Ok(tree.get_name(layout::TEAMS_DIR).is_none())
}

/// The files that differ between the trees of two commits.
pub fn diff_commits(repo: &Repository, old: Oid, new: Oid) -> Result<Vec<FileDiff>, StoreError> {
    let fail = |err| StoreError::internal("cannot compare two commits", err);
    let tree = |id: Oid| repo.find_commit(id).and_then(|commit| commit.tree()).map_err(fail);
    let (old, new) = (tree(old)?, tree(new)?);
    tree_diff::diff(repo, Some(&old), Some(&new)).map_err(fail)
}

/// The edits that put the incoming side's version of every file it changed since the merge
/// base onto the branch: the incoming side wins where both changed a file.
pub fn merge_edits(repo: &Repository, head: Oid, incoming: Oid) -> Result<Vec<TreeEdit>, StoreError> {
    let base = repo
        .merge_base(head, incoming)
        .map_err(|err| StoreError::internal("the incoming history shares no commit with ours", err))?;
    diff_commits(repo, base, incoming)?
        .into_iter()
        .map(|file| match file.new {
            Some(blob) => Ok(TreeEdit::Write {
                contents: read_blob(repo, blob)?.into(),
                path: file.path,
            }),
            None => Ok(TreeEdit::Remove { path: file.path }),
        })
        .collect()
}

fn read_blob(repo: &Repository, id: Oid) -> Result<Vec<u8>, StoreError> {
    repo.find_blob(id)
        .map(|blob| blob.content().to_vec())
        .map_err(|err| StoreError::internal("cannot read an incoming file", err))
}

/// Where a file of the repository sits in the data layout.
enum Place {
    Team(TeamName),
    Project(ProjectName),
    /// A key file, relative to the project's `keys/` folder.
    Key(TeamName, ProjectName, String),
    /// Anything else (a README, a file of the template): not data.
    Other,
}

/// Names a path of the data layout; `Err` for a path under `teams/` that breaks its rules.
fn place(path: &str) -> Result<Place, String> {
    let Some(rest) = path.strip_prefix(&format!("{}/", layout::TEAMS_DIR)) else {
        return Ok(Place::Other);
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let team = || {
        TeamName::parse(layout::slug_from_component(parts[0]))
            .map_err(|_| format!("{path}: the folder {:?} is not a valid team name", parts[0]))
    };
    let project = || {
        ProjectName::parse(layout::slug_from_component(parts[2]))
            .map_err(|_| format!("{path}: the folder {:?} is not a valid project name", parts[2]))
    };
    match parts.as_slice() {
        [_, file] if *file == layout::TEAM_FILE => Ok(Place::Team(team()?)),
        [_, "projects", _, file] if *file == layout::PROJECT_FILE => {
            team()?;
            Ok(Place::Project(project()?))
        }
        [_, "projects", _, "keys", file @ ..] if !file.is_empty() && path.ends_with(".toml") => {
            Ok(Place::Key(team()?, project()?, file.join("/")))
        }
        _ => Ok(Place::Other),
    }
}

/// Checks every file `diff` adds or changes: team, project and key files must parse, and
/// their folders must be valid names. Returns why the first bad file is refused.
pub fn validate(repo: &Repository, diff: &[FileDiff]) -> Result<(), String> {
    for file in diff {
        let Some(blob) = file.new else { continue };
        let place = place(&file.path)?;
        if matches!(place, Place::Other) {
            continue;
        }
        let bytes = read_blob(repo, blob).map_err(|err| format!("{}: {err}", file.path))?;
        let parsed = match place {
            Place::Team(team) => files::read_team(team, &bytes).map(drop),
            Place::Project(project) => files::read_project(project, &bytes).map(drop),
            Place::Key(..) => files::read_key(&bytes).map(drop),
            Place::Other => Ok(()),
        };
        parsed.map_err(|err| format!("{}: {err}", file.path))?;
    }
    Ok(())
}

/// Brings `catalog` (the view of the commit before `diff`) to the commit after it, whose
/// tree HEAD now holds: key files of projects whose keys are loaded are read or dropped one
/// by one; a change to any team or project file reloads the list of teams and projects
/// (`reload`), keeping the loaded keys of the projects that remain.
pub fn update_catalog(
    repo: &Repository,
    catalog: &mut Catalog,
    diff: &[FileDiff],
    reload: impl FnOnce() -> Result<Catalog, StoreError>,
) -> Result<(), StoreError> {
    let mut settings_changed = false;
    let mut reloaded_projects = BTreeSet::new();
    for file in diff {
        match place(&file.path) {
            Ok(Place::Team(..)) | Ok(Place::Project(..)) => settings_changed = true,
            Ok(Place::Key(team, project, relative)) => {
                let Some(entry) = catalog.project_mut(&team, &project) else {
                    continue; // a new project: read with the list below
                };
                let Some(keys) = entry.keys.as_mut() else {
                    continue; // not loaded: read from HEAD when first needed
                };
                if let Err(err) = update_key(repo, keys, file, &relative) {
                    // A key that cannot be placed by its file (two files of one name): the
                    // project's keys are read again from HEAD when next needed.
                    tracing::warn!(file = %file.path, error = %err, "reading the project's keys again");
                    entry.keys = None;
                    reloaded_projects.insert((team, project));
                }
            }
            Ok(Place::Other) | Err(_) => {}
        }
    }
    if settings_changed {
        let mut fresh = reload()?;
        for (team_name, team) in &mut fresh.teams {
            for (project_name, project) in &mut team.projects {
                project.keys = catalog
                    .project_mut(team_name, project_name)
                    .and_then(|old| old.keys.take());
            }
        }
        let head = std::mem::take(&mut catalog.head);
        *catalog = fresh;
        catalog.head = head;
    }
    Ok(())
}

/// Applies one key file's change to a loaded project's keys.
fn update_key(repo: &Repository, keys: &mut KeyIndex, file: &FileDiff, relative: &str) -> Result<(), String> {
    let read = |blob: Oid| -> Option<crate::domain::model::Key> {
        let bytes = read_blob(repo, blob).ok()?;
        files::read_key(&bytes).ok()
    };
    if let Some(old) = file.old.and_then(read)
        && keys.get(&old.name).is_some_and(|entry| entry.file() == relative)
    {
        keys.remove(&old.name);
    }
    if let Some(blob) = file.new {
        let key = read(blob).ok_or_else(|| "the key file does not parse".to_owned())?;
        if let Some(existing) = keys.get(&key.name)
            && existing.file() != relative
        {
            return Err(format!(
                "the key {:?} also has the file {}",
                key.name.as_str(),
                existing.file()
            ));
        }
        keys.put(KeyEntry::new(key, relative.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_placed_in_the_layout() {
        assert!(matches!(place("teams/acme/team.toml"), Ok(Place::Team(_))));
        assert!(matches!(
            place("teams/acme/projects/mobile/project.toml"),
            Ok(Place::Project(..))
        ));
        match place("teams/acme/projects/mobile/keys/a/b/c/k.toml") {
            Ok(Place::Key(_, _, relative)) => assert_eq!(relative, "a/b/c/k.toml"),
            _ => panic!("a key file"),
        }
        assert!(matches!(place("README.md"), Ok(Place::Other)));
        assert!(matches!(
            place("teams/acme/projects/mobile/keys/notes.txt"),
            Ok(Place::Other)
        ));
        assert!(place("teams/Not A Team!/team.toml").is_err());
        assert!(place("teams/acme/projects/bad name/project.toml").is_err());
    }
}
