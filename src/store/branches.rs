//! A project's branches: real git branches of the data repository,
//! `refs/heads/locstore/{team}/{project}/{branch}` (beside the main line `main`, and named like
//! the snapshot tags `locstore/{team}/{project}/{name}`, so a reviewer on the git host sees
//! whose branch it is). Creating one is one ref; a change on one is one commit on it, built
//! from its head's tree without the working tree (which is the main line's); a merge is one
//! merge commit planned key by key ([`super::plan::merge`]). A deleted branch's head stays
//! reachable from the tag `deleted-branches/{team}/{project}/{branch}/{time}` for 30 days.
//!
//! Reads of a branch are reads of its head commit ([`Store::project_at_commit`]): the main
//! line's keys with the files that differ applied, so a branch costs what it changed.

pub use super::plan::merge::{KeyMerge, MergeConflict, MergeStrategy, Resolution, SettingConflict, Settle};
use super::{Applied, Change, Store, StoreError};
use crate::domain::names::{BranchName, KeyName, ProjectName, TeamName};
use git2::{Oid, Repository};

/// How long a deleted branch's commits are kept by its tag.
pub const KEEP_DELETED_DAYS: i64 = 30;
/// Tags of deleted branches live under this prefix (without `refs/tags/`).
pub const DELETED_PREFIX: &str = "deleted-branches";

/// Takes a project branch's commits fetched from the remote: team, project, branch, the
/// remote's commit; what was done.
pub type BranchFollower =
    Box<dyn Fn(TeamName, ProjectName, BranchName, Oid) -> Result<super::Adoption, StoreError> + Send>;

/// The ref of a project's branch.
pub fn branch_ref(team: &TeamName, project: &ProjectName, branch: &BranchName) -> String {
    format!("{}{branch}", project_prefix(team, project))
}

/// The folder of refs holding a project's branches (ends with `/`).
pub fn project_prefix(team: &TeamName, project: &ProjectName) -> String {
    format!("refs/heads/locstore/{team}/{project}/")
}

/// The tag that keeps a deleted branch's head, `seconds` the Unix time of the deletion.
pub fn deleted_tag(team: &TeamName, project: &ProjectName, branch: &BranchName, seconds: i64) -> String {
    format!("refs/tags/{DELETED_PREFIX}/{team}/{project}/{branch}/{seconds}")
}

/// A branch of a project, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    pub name: BranchName,
    /// Its head commit.
    pub head: Oid,
    /// Commits it has that the main line lacks, and the other way round.
    pub ahead: usize,
    pub behind: usize,
}

/// A merge asked for: into the main line or another branch, settled how, or only tried.
#[derive(Debug, Clone, Default)]
pub struct MergeRequest {
    pub into: Option<BranchName>,
    pub settle: Settle,
    pub dry_run: bool,
}

/// What a merge did (or, tried, would do).
#[derive(Debug, Clone, Default)]
pub struct MergeOutcome {
    /// The merge commit; `None` for a dry run, with conflicts, or when there was nothing to
    /// merge (the target holds the branch already).
    pub commit: Option<String>,
    pub keys: Vec<(KeyName, KeyMerge)>,
    /// Conflicts left unsettled: with any, nothing was written.
    pub conflicts: Vec<MergeConflict>,
    /// Project settings both sides changed differently, left unsettled (no strategy): with
    /// any, nothing was written.
    pub settings: Vec<SettingConflict>,
}

/// A job on a project's branches, for the writer.
pub enum BranchOp {
    Create {
        from: Option<String>,
    },
    Delete,
    /// The change boxed: it is far larger than the other jobs. A dry run plans the change
    /// and commits nothing.
    Apply {
        change: Box<Change>,
        author: String,
        dry_run: bool,
    },
    Merge {
        request: MergeRequest,
        author: String,
    },
    /// Takes the remote's commits of the branch (fetched by the replicator): a fast-forward
    /// to `incoming` when it descends from the branch's head and every file it changes is
    /// valid.
    Follow {
        incoming: Oid,
    },
}

/// What the writer answers a [`BranchOp`].
pub enum BranchAnswer {
    Created(Branch),
    Deleted,
    Applied(Applied),
    Merged(MergeOutcome),
    Followed(super::Adoption),
}

impl Store {
    /// Creates the branch `name` of a project at `from` (a branch of the project, a snapshot,
    /// or a commit id; default the main line's head): one ref, no copy.
    pub async fn create_branch(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: BranchName,
        from: Option<String>,
    ) -> Result<Branch, StoreError> {
        if name.is_main() {
            return Err(StoreError::Invalid(
                "\"main\" names the main line; choose another branch name.".to_owned(),
            ));
        }
        match self.branch_job(team, project, name, BranchOp::Create { from }).await? {
            BranchAnswer::Created(branch) => Ok(branch),
            _ => Err(unexpected()),
        }
    }

    /// Deletes a branch; its head stays reachable from a `deleted-branches/...` tag.
    pub async fn delete_branch(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: BranchName,
    ) -> Result<(), StoreError> {
        self.branch_job(team, project, name, BranchOp::Delete).await.map(drop)
    }

    /// Applies a change to a project's keys or settings as one commit on a branch.
    pub async fn apply_on_branch(
        &self,
        branch: &BranchName,
        change: Change,
        author: &str,
    ) -> Result<Applied, StoreError> {
        let (team, project) = change
            .needs_keys_of()
            .map(|(team, project)| (team.clone(), project.clone()))
            .ok_or_else(|| StoreError::Invalid("Only a project's keys and settings change on a branch.".to_owned()))?;
        let op = BranchOp::Apply {
            change: Box::new(change),
            author: author.to_owned(),
            dry_run: false,
        };
        match self.branch_job(&team, &project, branch.clone(), op).await? {
            BranchAnswer::Applied(applied) => {
                if let super::Outcome::Committed(commit) = &applied.outcome {
                    super::seen::read(commit);
                }
                Ok(applied)
            }
            _ => Err(unexpected()),
        }
    }

    /// Imports keys as one commit on a branch (none when nothing changes), as
    /// [`Store::import`] does on the main line.
    pub async fn import_on_branch(
        &self,
        branch: &BranchName,
        import: super::Import,
        author: &str,
    ) -> Result<(super::Outcome, super::ImportCounts), StoreError> {
        let applied = self.apply_on_branch(branch, import.into_change(), author).await?;
        Ok((applied.outcome, applied.import.unwrap_or_default()))
    }

    /// What importing keys on a branch would do, planned on the branch's head; nothing is
    /// written (as [`Store::plan_import`] on the main line).
    pub async fn plan_import_on_branch(
        &self,
        branch: &BranchName,
        import: super::Import,
    ) -> Result<super::ImportCounts, StoreError> {
        let (team, project) = (import.team.clone(), import.project.clone());
        let op = BranchOp::Apply {
            change: Box::new(import.into_change()),
            author: String::new(),
            dry_run: true,
        };
        match self.branch_job(&team, &project, branch.clone(), op).await? {
            BranchAnswer::Applied(applied) => Ok(applied.import.unwrap_or_default()),
            _ => Err(unexpected()),
        }
    }

    /// Merges a branch into the main line (or `request.into`) as one merge commit.
    pub async fn merge_branch(
        &self,
        team: &TeamName,
        project: &ProjectName,
        name: BranchName,
        request: MergeRequest,
        author: &str,
    ) -> Result<MergeOutcome, StoreError> {
        let op = BranchOp::Merge {
            request,
            author: author.to_owned(),
        };
        match self.branch_job(team, project, name, op).await? {
            BranchAnswer::Merged(outcome) => Ok(outcome),
            _ => Err(unexpected()),
        }
    }

    /// A project's branches, sorted by name, with how far each is ahead of the main line
    /// and behind it.
    pub async fn list_branches(&self, team: &TeamName, project: &ProjectName) -> Result<Vec<Branch>, StoreError> {
        self.project(team, project)?;
        let main = Oid::from_str(&self.head()).map_err(|err| StoreError::internal("cannot read HEAD", err))?;
        let (root, prefix) = (self.root().to_path_buf(), project_prefix(team, project));
        blocking(move || {
            let repo = open(&root)?;
            let fail = |err| StoreError::internal("cannot list the branches", err);
            let mut branches = Vec::new();
            for reference in repo.references_glob(&format!("{prefix}*")).map_err(fail)? {
                let reference = reference.map_err(fail)?;
                let (Ok(name), Some(head)) = (reference.name(), reference.target()) else {
                    continue;
                };
                let Ok(name) = BranchName::parse(&name[prefix.len()..]) else {
                    continue; // made by hand under our folder
                };
                let (ahead, behind) = repo.graph_ahead_behind(head, main).map_err(fail)?;
                branches.push(Branch {
                    name,
                    head,
                    ahead,
                    behind,
                });
            }
            branches.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(branches)
        })
        .await
    }

    /// The head commit of a project's branch; `NotFound` for a branch the project does not
    /// have. Blocking work on a blocking thread.
    pub async fn branch_head(
        &self,
        team: &TeamName,
        project: &ProjectName,
        branch: &BranchName,
    ) -> Result<Oid, StoreError> {
        self.project(team, project)?;
        let (root, reference) = (self.root().to_path_buf(), branch_ref(team, project, branch));
        // A head read since the last write of any ref is still the head: a page read on a
        // branch does not wait for a blocking thread to read the ref again.
        let writes = crate::gitdb::ref_writes();
        let place = (root, reference);
        if let Some(&(read_at, head)) = known_heads().get(&place)
            && read_at == writes
        {
            return Ok(head);
        }
        let missing = no_such_branch(team, project, branch);
        let (root, reference) = place.clone();
        let head = blocking(move || {
            super::readers::with_repository(&root, |repo| repo.refname_to_id(&reference).map_err(|_| missing))
        })
        .await?;
        let mut known = known_heads();
        if known.len() >= 4096 {
            known.clear();
        }
        known.insert(place, (writes, head));
        Ok(head)
    }
}

/// Branch heads as last read, by repository folder and ref, with the count of ref writes
/// read before the ref was (see [`crate::gitdb::ref_writes`]).
type KnownHeads = std::collections::HashMap<(std::path::PathBuf, String), (u64, Oid)>;

fn known_heads() -> std::sync::MutexGuard<'static, KnownHeads> {
    static KNOWN: std::sync::LazyLock<std::sync::Mutex<KnownHeads>> = std::sync::LazyLock::new(Default::default);
    KNOWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The error for a branch a project does not have.
pub fn no_such_branch(team: &TeamName, project: &ProjectName, branch: &BranchName) -> StoreError {
    StoreError::NotFound(format!("Project {team}/{project} has no branch {:?}.", branch.as_str()))
}

pub(super) fn unexpected() -> StoreError {
    StoreError::internal("the writer answered another job", "a branch job")
}

fn open(root: &std::path::Path) -> Result<Repository, StoreError> {
    Repository::open(root).map_err(|err| StoreError::internal("cannot open the repository", err))
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| StoreError::internal("a read of the branches failed", err))?
}
