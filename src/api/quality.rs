//! Completeness and quality: a project's statistics per language and its failing checks.

use std::sync::Arc;

use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::export::split_list;
use super::history::Page;
use super::params::LanguageListParam;
use super::schema::{ProjectNameParam, TeamNameParam};
use super::warnings::parse_checks;
use super::{ApiTags, AppState};
use crate::domain::checks::{Check, Severity};
use crate::domain::names::LanguageCode;
use crate::domain::query::KeyQuery;
use crate::store::quality::{FailureFilter, Stats};

pub struct QualityApi {
    pub state: Arc<AppState>,
}

/// One language's completeness.
#[derive(Debug, Object)]
pub struct LanguageStatsItem {
    /// The language, as the project spells it.
    pub language: String,
    /// Keys with a text in this language.
    pub translated: u64,
    /// Keys that want a text in this language and have none (in languages other than the
    /// base, keys with `translatable: false` want none).
    pub missing: u64,
    /// Keys whose translation in this language is outdated.
    pub outdated: u64,
    /// Keys with at least one failing check in this language.
    pub failing: u64,
    /// `translated` of the keys that want a text, in percent (two decimals); 0 without keys.
    #[oai(rename = "translatedPercent")]
    pub translated_percent: f64,
    /// Words of the base texts of the missing keys: the work left.
    #[oai(rename = "missingWords")]
    pub missing_words: u64,
}

/// A project's completeness.
#[derive(Debug, Object)]
pub struct StatsItem {
    /// Keys counted (those with one of `tags`, or all).
    pub keys: u64,
    /// Words of their base texts (a plural key's `other` form).
    #[oai(rename = "baseWords")]
    pub base_words: u64,
    /// Per language, in the project's order.
    pub languages: Vec<LanguageStatsItem>,
}

#[derive(Debug, Object)]
pub struct StatsData {
    pub data: StatsItem,
}

impl From<Stats> for StatsItem {
    fn from(stats: Stats) -> Self {
        Self {
            keys: stats.keys,
            base_words: stats.base_words,
            languages: stats
                .languages
                .into_iter()
                .map(|language| LanguageStatsItem {
                    language: language.language.to_string(),
                    translated: language.translated,
                    missing: language.missing,
                    outdated: language.outdated,
                    failing: language.failing,
                    translated_percent: language.translated_percent,
                    missing_words: language.missing_words,
                })
                .collect(),
        }
    }
}

/// A failing check of a key's translation.
#[derive(Debug, Object)]
pub struct CheckItem {
    pub key: String,
    /// The key's namespace (`""`: the default one).
    pub namespace: String,
    pub language: String,
    /// The check's name.
    pub check: String,
    /// `error` or `warning`.
    pub severity: String,
    /// The plural form concerned; absent when the failure is not one form's.
    #[oai(skip_serializing_if_is_none)]
    pub form: Option<String>,
    pub message: String,
}

#[derive(Debug, Object)]
pub struct CheckList {
    pub data: Vec<CheckItem>,
}

/// Values of a repeatable query parameter, also taken comma-separated.
pub fn listed(values: Option<Vec<String>>) -> Vec<String> {
    split_list(values.unwrap_or_default())
}

/// The codes of a repeatable language-list parameter.
pub fn languages(values: Option<Vec<LanguageListParam>>) -> Vec<LanguageCode> {
    values.unwrap_or_default().into_iter().flat_map(|list| list.0).collect()
}

pub fn checks(values: Option<Vec<String>>) -> Result<Vec<Check>, ApiError> {
    parse_checks("check", &listed(values)).map_err(ApiError::invalid)
}

#[OpenApi(tag = "ApiTags::Keys")]
impl QualityApi {
    /// Project statistics
    ///
    /// Per language: keys translated, missing, outdated and failing checks, the percent
    /// translated and the words left, counted from the catalog (kept current as keys change,
    /// by the API or by commits from outside). `tags` counts only the keys with one of them;
    /// `at` counts a past state.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/stats",
        method = "get",
        operation_id = "projectStats"
    )]
    async fn stats(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Count only keys with at least one of these tags (repeat or separate with commas).
        tags: Query<Option<Vec<String>>>,
        /// Count the state at this commit id, snapshot name or RFC 3339 time.
        at: Query<Option<String>>,
        /// Count this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Json<StatsData>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let project = project_name.0.0;
        let tags = listed(tags.0);
        let at = super::params::read_at(&self.state, &team, &project, branch.0, at.0).await?;
        let stats = match at {
            Some(reference) => self.state.history.stats_at(&team, &project, &tags, &reference).await?,
            None => self.state.store.stats(&team, &project, &tags).await?,
        };
        Ok(Json(StatsData { data: stats.into() }))
    }

    /// Failing checks
    ///
    /// Every failing check of the project's translations, in key order (then language and
    /// check), paged, with the totals in the `X-Pagination-*` headers. `language`, `check`
    /// (several values match any of them) and `severity` narrow the list; `branch` lists a
    /// branch's, `at` a past state's.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/checks",
        method = "get",
        operation_id = "projectChecks"
    )]
    #[allow(clippy::too_many_arguments, reason = "one argument per documented query parameter")]
    async fn checks(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Only failures in these languages (repeat or separate with commas).
        language: Query<Option<Vec<LanguageListParam>>>,
        /// Only these checks: `placeholders`, `plural_forms`, `markup`, `max_length`,
        /// `whitespace`, `end_punctuation`, `same_as_base`, `empty_form`.
        check: Query<Option<Vec<String>>>,
        /// Only `error` or only `warning`.
        severity: Query<Option<String>>,
        /// Page number, from 1 (default 1).
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Failures per page, 1 to 1000 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "1000")))]
        limit: Query<Option<i64>>,
        /// List the failures of the state at this commit id, snapshot name or RFC 3339 time.
        at: Query<Option<String>>,
        /// List the failures of this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Page<CheckList>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        let filter = FailureFilter {
            language: languages(language.0),
            check: checks(check.0)?,
            severity: match severity.0.as_deref() {
                None | Some("") => None,
                Some(name) => Some(Severity::parse(name).ok_or_else(|| {
                    ApiError::invalid(format!("severity: {name:?} is neither `error` nor `warning`."))
                })?),
            },
        };
        let query = KeyQuery::new(None, page.0, limit.0, None).map_err(ApiError::invalid)?;
        let project = project_name.0.0;
        let known = self.state.store.project(&team, &project)?;
        for language in &filter.language {
            known.language_position(language).map_err(ApiError::invalid)?;
        }
        let at = super::params::read_at(&self.state, &team, &project, branch.0, at.0).await?;
        let (failures, info) = match at {
            Some(reference) => {
                self.state
                    .history
                    .failures_at(&team, &project, &reference, &filter, &query)
                    .await?
            }
            None => self.state.store.failures(&team, &project, &filter, &query).await?,
        };
        let data = failures
            .into_iter()
            .map(|found| CheckItem {
                key: found.key.to_string(),
                namespace: found.key.namespace().to_owned(),
                language: found.failure.language.to_string(),
                check: found.failure.check.name().to_owned(),
                severity: found.failure.severity.name().to_owned(),
                form: found.failure.form.map(|form| form.name().to_owned()),
                message: found.failure.message,
            })
            .collect();
        Ok(Page::Ok(
            Json(CheckList { data }),
            info.total_count,
            info.page,
            info.limit,
            info.page_count,
        ))
    }
}
