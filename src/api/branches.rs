//! A project's branches: created from the main line, a snapshot or a commit, listed with how
//! far they are ahead and behind, deleted, and merged key by key into the main line or into
//! another branch. Every project and key route reads and writes a branch with `?branch=`.

use std::sync::Arc;

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Enum, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::params::{BranchNameParam, KeyNameParam, LanguageParam, NamespaceParam, ProjectNameParam, TeamNameParam};
use super::schema::{ErrorDetail, Success};
use super::teams::Done;
use super::{ApiTags, AppState};
use crate::domain::model::Text;
use crate::store::branches::{
    Branch, KeyMerge, MergeConflict, MergeOutcome, MergeRequest, MergeStrategy, Resolution, Settle,
};
use crate::tokens::Access;

pub struct BranchesApi {
    pub state: Arc<AppState>,
}

/// A new branch of the project.
#[derive(Debug, Object)]
pub struct CreateBranchRequest {
    /// The branch's name, unique in the project (`feature/login`, `release-2.3`; not `main`).
    pub name: BranchNameParam,
    /// Where it starts: a branch of the project, a snapshot name or a commit id (7 or more hex
    /// digits). Default: the main line's newest commit.
    #[oai(default, nullable)]
    pub from: Option<String>,
}

/// A branch of the project.
#[derive(Debug, Object)]
pub struct BranchItem {
    pub name: String,
    /// Its newest commit.
    pub head: String,
    /// Commits on the branch that the main line does not have.
    pub ahead: u64,
    /// Commits on the main line that the branch does not have.
    pub behind: u64,
}

/// A branch, as created.
#[derive(Debug, Object)]
pub struct BranchData {
    /// Always `true`.
    pub success: bool,
    pub data: BranchItem,
}

/// The project's branches, by name.
#[derive(Debug, Object)]
pub struct BranchList {
    pub data: Vec<BranchItem>,
}

/// Which side wins every conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum StrategyParam {
    /// The line merged into.
    Ours,
    /// The branch merged.
    Theirs,
}

/// A conflict settled by hand.
#[derive(Debug, Object)]
pub struct ResolutionItem {
    /// The key's namespace (default: the default namespace, `""`).
    #[oai(default, nullable)]
    pub namespace: Option<NamespaceParam>,
    pub key: KeyNameParam,
    pub language: LanguageParam,
    /// The text the language gets; `null` removes it (when every conflict of a key one side
    /// deleted is `null`, the key is deleted). Plural keys are settled by `strategy`.
    #[oai(nullable)]
    pub content: Option<String>,
}

/// A merge of the branch.
#[derive(Debug, Object, Default)]
pub struct MergeBranchRequest {
    /// The branch to merge into (default: the main line; `main` names it too).
    #[oai(default, nullable)]
    pub into: Option<BranchNameParam>,
    /// Settle every conflict for one side: `ours` (the line merged into) or `theirs` (the
    /// branch). Resolutions come first.
    #[oai(default, nullable)]
    pub strategy: Option<super::params::NullableEnum<StrategyParam>>,
    /// Conflicts settled one by one, each with its text.
    #[oai(default, nullable)]
    pub resolutions: Option<Vec<ResolutionItem>>,
    /// Only answer what would merge and what conflicts; write nothing.
    #[oai(rename = "dryRun", default, nullable)]
    pub dry_run: Option<bool>,
}

/// A key the merge adds, updates or deletes in the line merged into.
#[derive(Debug, Object)]
pub struct MergedKeyItem {
    pub namespace: String,
    pub key: String,
    /// `added`, `updated` or `deleted`.
    pub change: String,
}

/// A text both sides changed differently since their common ancestor (or a key one side
/// deleted and the other changed). Texts are strings, or for plural keys objects of forms;
/// `null` where there is none.
#[derive(Debug, Object)]
pub struct ConflictItem {
    pub namespace: String,
    pub key: String,
    pub language: String,
    #[oai(nullable)]
    pub base: Option<serde_json::Value>,
    /// The line merged into.
    #[oai(nullable)]
    pub ours: Option<serde_json::Value>,
    /// The branch.
    #[oai(nullable)]
    pub theirs: Option<serde_json::Value>,
}

/// A project setting both sides changed differently since their common ancestor: only a
/// `strategy` settles it. Languages are listed joined with `, `.
#[derive(Debug, Object)]
pub struct SettingConflictItem {
    /// `displayName`, `description`, `baseLanguageISO`, `languagesISO` or
    /// `placeholderFormat`.
    pub field: String,
    pub base: String,
    /// The line merged into.
    pub ours: String,
    /// The branch.
    pub theirs: String,
}

/// What a merge did, or (`dryRun`) would do.
#[derive(Debug, Object)]
pub struct MergeResult {
    /// Always `true`.
    pub success: bool,
    /// The merge commit; `null` for a dry run or when the target held the branch already.
    #[oai(nullable)]
    pub commit: Option<String>,
    pub merged: Vec<MergedKeyItem>,
    /// For a dry run, the conflicts a merge would meet (none were settled).
    pub conflicts: Vec<ConflictItem>,
    /// For a dry run, the project settings both sides changed differently (left out when
    /// none).
    #[oai(rename = "settingConflicts", default, skip_serializing_if_is_empty)]
    pub setting_conflicts: Vec<SettingConflictItem>,
}

/// The conflicts that stopped a merge.
#[derive(Debug, Object)]
pub struct MergeConflicts {
    /// Always `false`.
    pub success: bool,
    pub error: ErrorDetail,
    pub conflicts: Vec<ConflictItem>,
    /// Project settings both sides changed differently (left out when none).
    #[oai(rename = "settingConflicts", default, skip_serializing_if_is_empty)]
    pub setting_conflicts: Vec<SettingConflictItem>,
}

/// The answer to a merge.
#[derive(ApiResponse)]
pub enum MergeAnswer {
    /// Merged (or, with `dryRun`, what would be).
    #[oai(status = 200)]
    Ok(Json<MergeResult>),
    /// `merge_conflict`: texts changed differently on both sides and nothing settled them;
    /// nothing was written. Settle them with `strategy` or `resolutions`.
    #[oai(status = 409)]
    Conflict(Json<MergeConflicts>),
}

/// A branch created.
#[derive(ApiResponse)]
pub enum BranchCreated {
    /// Created.
    #[oai(status = 201)]
    Created(Json<BranchData>),
}

#[OpenApi(tag = "ApiTags::Projects")]
impl BranchesApi {
    /// Create a branch
    ///
    /// Needs write access. A real git branch of the data repository
    /// (`locstore/{team}/{project}/{name}`) at the main line's newest commit, or at `from`: a
    /// branch, a snapshot or a commit. No copy is made. Read and change it with `?branch=` on
    /// every project and key route; merge it back with `.../merge`.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/branches",
        method = "post",
        operation_id = "createBranch"
    )]
    async fn create_branch(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<CreateBranchRequest>,
    ) -> Result<BranchCreated, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let branch = self
            .state
            .store
            .create_branch(&team, &project_name.0.0, body.name.0, body.from)
            .await?;
        Ok(BranchCreated::Created(Json(BranchData {
            success: true,
            data: branch.into(),
        })))
    }

    /// List branches
    ///
    /// The project's branches by name, each with its newest commit and how many commits it
    /// is ahead of the main line and behind it.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/branches",
        method = "get",
        operation_id = "listBranches"
    )]
    async fn list_branches(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
    ) -> Result<Json<BranchList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let branches = self.state.store.list_branches(&team, &project_name.0.0).await?;
        Ok(Json(BranchList {
            data: branches.into_iter().map(Into::into).collect(),
        }))
    }

    /// Delete a branch
    ///
    /// Needs write access. Removes the branch; its commits stay reachable from the tag
    /// `deleted-branches/{team}/{project}/{name}/{unix time}` for 30 days.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/branches/:branchName",
        method = "delete",
        operation_id = "deleteBranch"
    )]
    async fn delete_branch(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "branchName")] branch_name: Path<BranchNameParam>,
    ) -> Result<Done, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        self.state
            .store
            .delete_branch(&team, &project_name.0.0, branch_name.0.0)
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }

    /// Merge a branch
    ///
    /// Needs write access. Merges the branch into the main line (or `into`) as one merge
    /// commit whose first parent is the line merged into. Keys are merged one by one, and a
    /// key's texts one language at a time, against the two lines' common ancestor: a text
    /// changed on one side only is taken; both sides changing one text differently, or one
    /// deleting a key the other changed, is a conflict. Conflicts answer `409` with their list
    /// and nothing is written, unless `strategy` or `resolutions` settles each. A rename on the
    /// branch merges as a rename. `dryRun` (in the body or the query) answers what would merge.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/branches/:branchName/merge",
        method = "post",
        operation_id = "mergeBranch"
    )]
    async fn merge_branch(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        #[oai(name = "branchName")] branch_name: Path<BranchNameParam>,
        body: Json<MergeBranchRequest>,
        /// As the body's `dryRun` (either sets it).
        #[oai(name = "dryRun")]
        dry_run: Query<Option<bool>>,
    ) -> Result<MergeAnswer, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let dry_run = body.dry_run.unwrap_or(false) || dry_run.0.unwrap_or(false);
        let resolutions = body
            .resolutions
            .unwrap_or_default()
            .into_iter()
            .map(|item| Resolution {
                key: match item.namespace {
                    Some(namespace) => item.key.0.in_namespace(&namespace.0),
                    None => item.key.0,
                },
                language: item.language.0,
                content: item.content,
            })
            .collect();
        let request = MergeRequest {
            into: body.into.map(|param| param.0),
            settle: Settle {
                strategy: body.strategy.map(|strategy| match strategy.0 {
                    StrategyParam::Ours => MergeStrategy::Ours,
                    StrategyParam::Theirs => MergeStrategy::Theirs,
                }),
                resolutions,
            },
            dry_run,
        };
        let outcome = self
            .state
            .store
            .merge_branch(&team, &project_name.0.0, branch_name.0.0, request, auth.author())
            .await?;
        Ok(answer(outcome, dry_run))
    }
}

fn answer(outcome: MergeOutcome, dry_run: bool) -> MergeAnswer {
    let conflicts: Vec<ConflictItem> = outcome.conflicts.into_iter().map(Into::into).collect();
    let setting_conflicts: Vec<SettingConflictItem> = outcome
        .settings
        .into_iter()
        .map(|conflict| SettingConflictItem {
            field: conflict.field.to_owned(),
            base: conflict.base,
            ours: conflict.ours,
            theirs: conflict.theirs,
        })
        .collect();
    let conflicting = !conflicts.is_empty() || !setting_conflicts.is_empty();
    if !dry_run && conflicting {
        let message = match (conflicts.len(), setting_conflicts.len()) {
            (texts, 0) => format!(
                "{texts} text(s) changed differently on both sides; settle them with `strategy` or `resolutions`. Nothing was merged."
            ),
            (0, settings) => format!(
                "{settings} project setting(s) changed differently on both sides; settle them with `strategy`. Nothing was merged."
            ),
            (texts, settings) => format!(
                "{texts} text(s) and {settings} project setting(s) changed differently on both sides; settle the texts with `strategy` or `resolutions`, the settings with `strategy`. Nothing was merged."
            ),
        };
        return MergeAnswer::Conflict(Json(MergeConflicts {
            success: false,
            error: ErrorDetail {
                code: "merge_conflict".into(),
                message,
            },
            conflicts,
            setting_conflicts,
        }));
    }
    MergeAnswer::Ok(Json(MergeResult {
        success: true,
        commit: outcome.commit,
        merged: outcome
            .keys
            .into_iter()
            .map(|(name, change)| MergedKeyItem {
                namespace: name.namespace().to_owned(),
                key: name.as_str().to_owned(),
                change: match change {
                    KeyMerge::Added => "added",
                    KeyMerge::Updated => "updated",
                    KeyMerge::Deleted => "deleted",
                }
                .to_owned(),
            })
            .collect(),
        conflicts,
        setting_conflicts,
    }))
}

impl From<Branch> for BranchItem {
    fn from(branch: Branch) -> Self {
        Self {
            name: branch.name.as_str().to_owned(),
            head: branch.head.to_string(),
            ahead: branch.ahead as u64,
            behind: branch.behind as u64,
        }
    }
}

impl From<MergeConflict> for ConflictItem {
    fn from(conflict: MergeConflict) -> Self {
        Self {
            namespace: conflict.key.namespace().to_owned(),
            key: conflict.key.as_str().to_owned(),
            language: conflict.language.to_string(),
            base: conflict.base.as_ref().map(text_value),
            ours: conflict.ours.as_ref().map(text_value),
            theirs: conflict.theirs.as_ref().map(text_value),
        }
    }
}

/// A text as JSON: a string, or an object of plural forms.
fn text_value(text: &Text) -> serde_json::Value {
    match text {
        Text::Plain(text) => serde_json::Value::String(text.clone()),
        Text::Plural(forms) => serde_json::Value::Object(
            forms
                .as_ref()
                .iter()
                .map(|(category, text)| (category.name().to_owned(), serde_json::Value::String(text.to_owned())))
                .collect(),
        ),
    }
}
