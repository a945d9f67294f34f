//! The writer's side of a project's branches: refs made and removed, changes committed on a
//! branch (built from its head's tree; the working tree and the catalog stay the main line's),
//! and merges (one merge commit; into the main line it is joined as a commit arriving from
//! outside is, so readers see it once it is HEAD).

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::domain::names::BranchName;
use crate::store::at_commit;
use crate::store::branches::{
    self, Branch, BranchAnswer, BranchOp, MergeOutcome, MergeRequest, deleted_tag, no_such_branch,
};
use crate::store::catalog::{ProjectEntry, TeamEntry};
use crate::store::plan::merge::{self, ThreeVersions};

/// The last branch a change was planned on, as a catalog of its one project: the next change
/// on the same head starts from it rather than from the main line's keys again.
pub struct BranchCache {
    reference: String,
    head: Oid,
    catalog: Catalog,
}

impl Worker {
    pub(super) fn branch(
        &mut self,
        team: TeamName,
        project: ProjectName,
        name: BranchName,
        op: BranchOp,
    ) -> Result<BranchAnswer, StoreError> {
        let reference = branches::branch_ref(&team, &project, &name);
        let answer = match op {
            BranchOp::Create { from } => {
                let head = match from {
                    None => self.git.head(),
                    Some(from) => self.resolve_from(&team, &project, &from)?,
                };
                self.git
                    .create_ref(&reference, head, "locstore: create a branch")
                    .map_err(|err| match err {
                        crate::gitdb::GitError::Conflict(_) => StoreError::Conflict(format!(
                            "Project {team}/{project} has a branch {:?} already (or one whose name it starts or extends by a '/').",
                            name.as_str()
                        )),
                        other => other.into(),
                    })?;
                let (ahead, behind) = self
                    .git
                    .objects()
                    .graph_ahead_behind(head, self.git.head())
                    .map_err(|err| StoreError::internal("cannot compare the branch with the main line", err))?;
                tracing::info!(%team, %project, branch = %name, %head, "created a branch");
                BranchAnswer::Created(Branch {
                    name,
                    head,
                    ahead,
                    behind,
                })
            }
            BranchOp::Delete => {
                let head = self
                    .git
                    .ref_target(&reference)?
                    .ok_or_else(|| no_such_branch(&team, &project, &name))?;
                let now = jiff::Timestamp::now().as_second();
                let kept = deleted_tag(&team, &project, &name, now);
                if let Err(err) = self.git.create_ref(&kept, head, "locstore: keep a deleted branch")
                    && !matches!(err, crate::gitdb::GitError::Conflict(_))
                {
                    return Err(err.into());
                }
                self.git.delete_ref(&reference)?;
                self.prune_deleted_branches(now);
                tracing::info!(%team, %project, branch = %name, %head, tag = kept, "deleted a branch");
                BranchAnswer::Deleted
            }
            BranchOp::Apply {
                change,
                author,
                dry_run,
            } => BranchAnswer::Applied(self.apply_on_branch(
                (&team, &project, &name),
                reference,
                *change,
                &author,
                dry_run,
            )?),
            BranchOp::Merge { request, author } => {
                BranchAnswer::Merged(self.merge_branch(&team, &project, &name, request, &author)?)
            }
            BranchOp::Follow { incoming } => {
                let head = self
                    .git
                    .ref_target(&reference)?
                    .ok_or_else(|| no_such_branch(&team, &project, &name))?;
                BranchAnswer::Followed(self.follow_branch(&reference, head, incoming)?)
            }
        };
        self.make_durable();
        // Refs moved beside the main line: the replicator pushes them. (A merge into the main
        // line told of its commit as it joined it.)
        self.listeners.tell(crate::store::Published::Tags);
        Ok(answer)
    }

    /// Moves the branch `reference` from `head` to the remote's `incoming` when it descends
    /// from it and every file it changes is valid; a branch that moved on both sides is left
    /// as it is (merge the remote's commits into it there, and push).
    fn follow_branch(&mut self, reference: &str, head: Oid, incoming: Oid) -> Result<Adoption, StoreError> {
        Ok(match adopt::relation(self.git.objects(), head, incoming)? {
            adopt::Relation::Held => Adoption::Held,
            adopt::Relation::Diverged => Adoption::Refused(format!(
                "{reference} has commits here and on the remote that the other lacks: merge this server's into the remote's there and push"
            )),
            adopt::Relation::Ahead => {
                let diff = adopt::diff_commits(self.git.objects(), head, incoming)?;
                if let Err(why) = adopt::validate(self.git.objects(), &diff) {
                    return Ok(Adoption::Refused(why));
                }
                self.git.publish_ref(
                    reference,
                    head,
                    incoming,
                    "locstore: take the remote's commits of a branch",
                )?;
                tracing::info!(branch = reference, %head, %incoming, "took the remote's commits of a branch");
                Adoption::FastForward(incoming)
            }
        })
    }

    /// `from` as a commit: a branch of the project, one of its snapshots, or a commit id.
    fn resolve_from(&self, team: &TeamName, project: &ProjectName, from: &str) -> Result<Oid, StoreError> {
        if let Ok(branch) = BranchName::parse(from) {
            if branch.is_main() {
                return Ok(self.git.head());
            }
            if let Some(head) = self.git.ref_target(&branches::branch_ref(team, project, &branch))? {
                return Ok(head);
            }
        }
        // Refs are read through the repository; the staging one holds objects only.
        let repo = self.git.repository();
        if let Ok(name) = ProjectName::parse(from) {
            let tag = format!("refs/tags/{}", snapshots::tag_name(team, project, &name));
            if let Ok(commit) = repo.find_reference(&tag).and_then(|tag| tag.peel_to_commit()) {
                return Ok(commit.id());
            }
        }
        let is_hex = (7..=40).contains(&from.len()) && from.bytes().all(|byte| byte.is_ascii_hexdigit());
        if is_hex && let Ok(commit) = repo.revparse_single(from).and_then(|object| object.peel_to_commit()) {
            return Ok(commit.id());
        }
        Err(StoreError::NotFound(format!(
            "No branch, snapshot or commit {from:?} to start a branch of {team}/{project} from."
        )))
    }

    /// Removes the tags of branches deleted more than 30 days before `now`.
    fn prune_deleted_branches(&mut self, now: i64) {
        let prefix = format!("refs/tags/{}/", branches::DELETED_PREFIX);
        let Ok(tags) = self.git.refs_under(&prefix) else { return };
        let oldest = now - branches::KEEP_DELETED_DAYS * 24 * 3600;
        for (name, _) in tags {
            let deleted_at = name.rsplit('/').next().and_then(|seconds| seconds.parse::<i64>().ok());
            if deleted_at.is_some_and(|seconds| seconds < oldest)
                && let Err(err) = self.git.delete_ref(&name)
            {
                tracing::warn!(tag = name, error = %err, "cannot remove the tag of an old deleted branch");
            }
        }
    }

    fn make_durable(&self) {
        if self.durability == Durability::Fsync
            && let Err(err) = self.git.sync_file_system()
        {
            tracing::warn!(error = %err, "cannot sync the branch's change");
        }
    }

    /// One change as one commit on a branch, planned on the branch's state of the project;
    /// only planned for a dry run.
    fn apply_on_branch(
        &mut self,
        (team, project, name): (&TeamName, &ProjectName, &BranchName),
        reference: String,
        change: Change,
        author: &str,
        dry_run: bool,
    ) -> Result<Applied, StoreError> {
        refuse_off_branch(&change)?;
        let head = self
            .git
            .ref_target(&reference)?
            .ok_or_else(|| no_such_branch(team, project, name))?;
        let mut catalog = self.branch_catalog(team, project, &reference, head)?;
        let plan = plan::plan(&catalog, change)?;
        let built = match dry_run {
            true => None,
            false => self.git.build_commit_on(head, &plan.edits, &plan.subject, author)?,
        };
        let Some(commit) = built else {
            self.branch_cache = Some(BranchCache {
                reference,
                head,
                catalog,
            });
            return Ok(Applied {
                outcome: Outcome::Unchanged,
                import: plan.import,
            });
        };
        self.git
            .publish_ref(&reference, head, commit, &format!("locstore: {}", plan.subject))?;
        plan.update.apply_to(&mut catalog);
        catalog.head = commit.to_string();
        self.branch_cache = Some(BranchCache {
            reference,
            head: commit,
            catalog,
        });
        self.metrics.commits.inc();
        tracing::info!(subject = %plan.subject, %commit, branch = %name, author, "committed on a branch");
        Ok(Applied {
            outcome: Outcome::Committed(commit.to_string()),
            import: plan.import,
        })
    }

    /// A catalog of the one project as the branch's head holds it (the team as the main line
    /// has it): what a change on the branch is planned against.
    fn branch_catalog(
        &mut self,
        team: &TeamName,
        project: &ProjectName,
        reference: &str,
        head: Oid,
    ) -> Result<Catalog, StoreError> {
        if let Some(cache) = self.branch_cache.take()
            && cache.reference == reference
            && cache.head == head
        {
            return Ok(cache.catalog);
        }
        self.ensure_keys(team, project)?;
        let team_settings = read(&self.catalog)
            .team(team)
            .map(|entry| entry.team.clone())
            .ok_or_else(|| plan::team_not_found(team))?;
        let repo = self.git.objects();
        let from_head = at_commit::head_keys(&self.catalog, repo, team, project);
        let (settings, keys) = at_commit::project_at(repo, head, team, project, from_head)?;
        let entry = ProjectEntry {
            project: settings,
            keys: Some(keys),
            quality: Default::default(),
        };
        let team_entry = TeamEntry {
            team: team_settings,
            projects: BTreeMap::from([(project.clone(), entry)]),
        };
        Ok(Catalog {
            teams: BTreeMap::from([(team.clone(), team_entry)]),
            head: head.to_string(),
        })
    }

    /// Merges a branch into the main line or another branch: planned key by key against the
    /// merge base, then one merge commit, unless conflicts remain or it is a dry run.
    fn merge_branch(
        &mut self,
        team: &TeamName,
        project: &ProjectName,
        name: &BranchName,
        request: MergeRequest,
        author: &str,
    ) -> Result<MergeOutcome, StoreError> {
        let source = self
            .git
            .ref_target(&branches::branch_ref(team, project, name))?
            .ok_or_else(|| no_such_branch(team, project, name))?;
        let (target_ref, target, target_name) = match &request.into {
            Some(into) if !into.is_main() => {
                let reference = branches::branch_ref(team, project, into);
                let head = self
                    .git
                    .ref_target(&reference)?
                    .ok_or_else(|| no_such_branch(team, project, into))?;
                (Some(reference), head, format!("branch {into}"))
            }
            _ => (None, self.git.head(), "main".to_owned()),
        };
        let fail = |err| StoreError::internal("cannot compare the branch with its target", err);
        let repo = self.git.objects();
        if source == target || repo.graph_descendant_of(target, source).map_err(fail)? {
            return Ok(MergeOutcome::default()); // the target holds the branch already
        }
        let base = repo
            .merge_base(target, source)
            .map_err(|err| StoreError::Invalid(format!("The branch shares no history with {target_name}: {err}")))?;
        let project_dir = layout::project_dir(team, project);
        let changed = three_versions(repo, &project_dir, base, target, source)?;
        let base_language = read(&self.catalog)
            .project(team, project)
            .map(|entry| entry.project.base_language.clone())
            .ok_or_else(|| plan::project_not_found(team, project))?;
        let planned = merge::plan_merge(changed, &request.settle, &base_language);
        let mut outcome = MergeOutcome {
            commit: None,
            keys: planned.keys,
            conflicts: planned.conflicts,
            settings: planned.settings,
        };
        if !outcome.conflicts.is_empty() || !outcome.settings.is_empty() || request.dry_run {
            return Ok(outcome);
        }
        let edits: Vec<TreeEdit> = planned
            .edits
            .into_iter()
            .map(|edit| match edit {
                TreeEdit::Write { path, contents } => TreeEdit::Write {
                    path: format!("{project_dir}/{path}"),
                    contents,
                },
                TreeEdit::Remove { path } => TreeEdit::Remove {
                    path: format!("{project_dir}/{path}"),
                },
                moved @ TreeEdit::Move { .. } => moved,
            })
            .collect();
        let subject = format!("Merge branch {name} of {team}/{project} into {target_name}");
        let merge = self.git.build_merge_of(target, source, &edits, &subject, author)?;
        match target_ref {
            Some(reference) => {
                self.git
                    .publish_ref(&reference, target, merge, &format!("locstore: {subject}"))?;
            }
            None => {
                self.git.stage(merge);
                let on_disk = self.git.branch_target()?;
                if let Adoption::Refused(why) = self.adopt(merge, on_disk, &format!("branch {name}"), false)? {
                    return Err(StoreError::Invalid(format!("The merged files are not valid: {why}")));
                }
            }
        }
        self.metrics.commits.inc();
        tracing::info!(%subject, commit = %merge, author, keys = outcome.keys.len(), "merged a branch");
        outcome.commit = Some(merge.to_string());
        Ok(outcome)
    }
}

/// Changes a branch does not take: those of teams, whole projects, and a project's rename.
fn refuse_off_branch(change: &Change) -> Result<(), StoreError> {
    match change {
        Change::Guarded { change, .. } => refuse_off_branch(change),
        Change::UpdateProject { patch, .. } if patch.name.is_some() => Err(StoreError::Invalid(
            "A project is renamed on the main line, not on a branch.".to_owned(),
        )),
        _ => Ok(()),
    }
}

/// Every file of the project folder `project_dir` that the target or the branch changed since
/// `base`, with its three versions, paths relative to the folder.
fn three_versions(
    repo: &git2::Repository,
    project_dir: &str,
    base: Oid,
    target: Oid,
    source: Oid,
) -> Result<Vec<ThreeVersions>, StoreError> {
    let fail = |err| StoreError::internal("cannot read the commits to merge", err);
    let folder = |commit: Oid| -> Result<Option<git2::Tree<'_>>, StoreError> {
        let tree = repo
            .find_commit(commit)
            .and_then(|commit| commit.tree())
            .map_err(fail)?;
        match tree.get_path(std::path::Path::new(project_dir)) {
            Ok(entry) => repo.find_tree(entry.id()).map(Some).map_err(fail),
            Err(_) => Ok(None),
        }
    };
    let (base, ours, theirs) = (folder(base)?, folder(target)?, folder(source)?);
    let mut paths = BTreeSet::new();
    for side in [&ours, &theirs] {
        let diff = tree_diff::diff(repo, base.as_ref(), side.as_ref()).map_err(fail)?;
        paths.extend(diff.into_iter().map(|file| file.path));
    }
    let bytes = |tree: &Option<git2::Tree<'_>>, path: &str| -> Result<Option<Vec<u8>>, StoreError> {
        let Some(tree) = tree else { return Ok(None) };
        let Ok(entry) = tree.get_path(std::path::Path::new(path)) else {
            return Ok(None);
        };
        repo.find_blob(entry.id())
            .map(|blob| Some(blob.content().to_vec()))
            .map_err(fail)
    };
    paths
        .into_iter()
        .map(|path| {
            Ok(ThreeVersions {
                base: bytes(&base, &path)?,
                ours: bytes(&ours, &path)?,
                theirs: bytes(&theirs, &path)?,
                path,
            })
        })
        .collect()
}
