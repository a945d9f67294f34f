//! Request and response bodies as they travel over the wire (JSON field names), and their
//! conversions to and from domain types. `store` and `export` never see these types.

use std::collections::BTreeMap;

use poem_openapi::Object;

pub use super::params::{DisplayNameParam, KeyNameParam, LanguageParam, ProjectNameParam, TagParam, TeamNameParam};
pub use super::text::Text;
use crate::domain::model::{Key, Project, Team};

/// `{"success": true}`.
#[derive(Debug, Object)]
pub struct Success {
    /// Always `true`.
    pub success: bool,
}

impl Success {
    pub fn ok() -> Self {
        Self { success: true }
    }
}

/// The body of every error response.
#[derive(Debug, Object)]
pub struct ErrorBody {
    /// Always `false`.
    pub success: bool,
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Object)]
pub struct ErrorDetail {
    /// A stable, snake_case code: `invalid_request`, `unauthorized`, `forbidden`, `not_found`,
    /// `method_not_allowed`, `conflict`, `payload_too_large`, `unsupported_media_type` or `internal`.
    pub code: String,
    /// A sentence saying what to change.
    pub message: String,
}

// ----- Teams -----

/// A team.
#[derive(Debug, Object)]
pub struct TeamItem {
    /// The team identifier, used as `{teamName}` in paths.
    pub name: String,
    /// The human-readable team name.
    #[oai(rename = "displayName")]
    pub display_name: String,
}

/// The teams, sorted by name.
#[derive(Debug, Object)]
pub struct TeamList {
    pub data: Vec<TeamItem>,
}

/// A new team.
#[derive(Debug, Object)]
pub struct CreateTeamRequest {
    /// The team identifier: 1 to 64 ASCII letters, digits, `-`, `_` or `.`, starting with a
    /// letter or digit, unique without regard to case.
    pub name: TeamNameParam,
    /// The human-readable team name.
    #[oai(rename = "displayName")]
    pub display_name: DisplayNameParam,
}

/// Changes to a team; every field is optional.
#[derive(Debug, Object)]
pub struct UpdateTeamRequest {
    /// A new team identifier (renames the team).
    #[oai(nullable)]
    pub name: Option<TeamNameParam>,
    /// The same as `name`, as some clients send it; when both are given they must agree.
    #[oai(rename = "teamName")]
    #[oai(nullable)]
    pub team_name: Option<TeamNameParam>,
    /// A new human-readable name.
    #[oai(rename = "displayName")]
    #[oai(nullable)]
    pub display_name: Option<DisplayNameParam>,
}

impl From<Team> for TeamItem {
    fn from(team: Team) -> Self {
        Self {
            name: team.name.to_string(),
            display_name: team.display_name,
        }
    }
}

// ----- Projects -----

/// A project.
#[derive(Debug, Object)]
pub struct ProjectItem {
    /// The project identifier, used as `{projectName}` in paths.
    pub name: String,
    /// The human-readable project name.
    #[oai(rename = "displayName")]
    pub display_name: String,
    /// The project description (empty when none was given).
    pub description: String,
    /// The base language; it is always among `languagesISO`.
    #[oai(rename = "baseLanguageISO")]
    pub base_language: String,
    /// The project's languages, in the order given.
    #[oai(rename = "languagesISO")]
    pub languages: Vec<String>,
}

/// A team's projects, sorted by name.
#[derive(Debug, Object)]
pub struct ProjectList {
    pub data: Vec<ProjectItem>,
}

/// One project.
#[derive(Debug, Object)]
pub struct ProjectData {
    pub data: ProjectItem,
}

/// A new project.
#[derive(Debug, Object)]
pub struct CreateProjectRequest {
    /// The project identifier, with the same rules as a team name, unique in its team
    /// without regard to case.
    pub name: ProjectNameParam,
    /// The human-readable project name.
    #[oai(rename = "displayName")]
    pub display_name: DisplayNameParam,
    /// A description; empty when left out.
    #[oai(nullable)]
    pub description: Option<Text>,
    /// The base language, such as `en` or `pt-BR`; `en` when left out.
    #[oai(rename = "baseLanguageISO")]
    #[oai(nullable)]
    pub base_language: Option<LanguageParam>,
    /// The project's languages; the base language alone when left out, and the base language
    /// is added when the list leaves it out. Two codes may not differ only by case or by
    /// `-`/`_`.
    #[oai(rename = "languagesISO")]
    #[oai(nullable)]
    pub languages: Option<Vec<LanguageParam>>,
}

/// Changes to a project; every field is optional. Removing a language removes the keys'
/// translations in it (git history keeps them).
#[derive(Debug, Object)]
pub struct UpdateProjectRequest {
    /// A new project identifier (renames the project).
    #[oai(nullable)]
    pub name: Option<ProjectNameParam>,
    /// A new human-readable name.
    #[oai(rename = "displayName")]
    #[oai(nullable)]
    pub display_name: Option<DisplayNameParam>,
    /// A new description.
    #[oai(nullable)]
    pub description: Option<Text>,
    /// A new base language; it is added to the languages when they leave it out.
    #[oai(rename = "baseLanguageISO")]
    #[oai(nullable)]
    pub base_language: Option<LanguageParam>,
    /// The new list of languages (replaces the old one).
    #[oai(rename = "languagesISO")]
    #[oai(nullable)]
    pub languages: Option<Vec<LanguageParam>>,
}

impl From<Project> for ProjectItem {
    fn from(project: Project) -> Self {
        Self {
            name: project.name.to_string(),
            display_name: project.display_name,
            description: project.description,
            base_language: project.base_language.to_string(),
            languages: project.languages.iter().map(ToString::to_string).collect(),
        }
    }
}

// ----- Keys -----

/// A key with its translations.
#[derive(Debug, Object)]
pub struct KeyItem {
    /// The key identifier (any text; percent-encode it in paths).
    pub name: String,
    /// The key's tags, in the order given.
    pub tags: Vec<String>,
    /// The translations: language code to text. Languages without a translation are absent.
    pub translation: BTreeMap<String, String>,
}

/// One page of keys; the totals are in the `X-Pagination-*` headers.
#[derive(Debug, Object)]
pub struct KeyList {
    pub data: Vec<KeyItem>,
}

/// One key.
#[derive(Debug, Object)]
pub struct KeyData {
    pub data: KeyItem,
}

/// A translation to set.
#[derive(Debug, Object)]
pub struct TranslationItem {
    /// A language of the project, such as `en` or `pt-BR` (any case or separator).
    pub language: LanguageParam,
    /// The text; an empty string removes the translation in this language.
    pub content: Text,
}

/// A new key.
#[derive(Debug, Object)]
pub struct CreateKeyRequest {
    /// The key identifier: 1 to 1024 bytes, no control characters, no leading or trailing
    /// white space; unique in the project (case-sensitive).
    pub name: KeyNameParam,
    /// Tags; repeated tags are dropped.
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// One translation per language at most.
    #[oai(nullable)]
    pub translations: Option<Vec<TranslationItem>>,
}

/// Changes to a key; every field is optional.
#[derive(Debug, Object)]
pub struct UpdateKeyRequest {
    /// A new key identifier (renames the key).
    #[oai(nullable)]
    pub name: Option<KeyNameParam>,
    /// The new tag list (replaces the old one).
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// Translations to set; languages not listed keep their text, an empty `content` removes one.
    #[oai(nullable)]
    pub translations: Option<Vec<TranslationItem>>,
}

/// Changes to the key named by `name` (the deprecated form without `{keyName}` in the path).
#[derive(Debug, Object)]
pub struct UpdateKeyByBodyRequest {
    /// The key to change.
    pub name: KeyNameParam,
    /// The new tag list (replaces the old one).
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// Translations to set.
    #[oai(nullable)]
    pub translations: Option<Vec<TranslationItem>>,
}

impl From<Key> for KeyItem {
    fn from(key: Key) -> Self {
        Self {
            name: key.name.to_string(),
            tags: key.tags,
            translation: key
                .translations
                .into_iter()
                .map(|(language, text)| (language.to_string(), text))
                .collect(),
        }
    }
}

// ----- Export -----

/// Where to download the export.
#[derive(Debug, Object)]
pub struct ExportResult {
    /// Always `true`.
    pub success: bool,
    /// The download address: the file itself when one language is exported, a zip archive
    /// of one file per language otherwise. It expires after the server's export TTL.
    pub data: String,
}
