//! Request and response bodies as they travel over the wire (JSON field names), and their
//! conversions to and from domain types. `store` and `export` never see these types.

use std::collections::BTreeMap;

use poem_openapi::payload::Json;
use poem_openapi::types::MaybeUndefined;
use poem_openapi::{ApiResponse, Object};

pub use super::params::{
    DescriptionParam, DisplayNameParam, KeyNameParam, LanguageParam, NamespaceParam, ProjectNameParam, TagParam,
    TeamNameParam,
};
use super::placeholders::PlaceholderSyntax;
pub use super::text::Text;
use super::warnings::WarningItem;
use crate::domain::key_files::{FileName, KeyFiles, Platform};
use crate::domain::model::{Key, Project, Team};
use crate::domain::names::{LanguageCode, NameError};

mod translations;
pub use translations::{
    ContentTranslation, FormsTranslation, PluralFormsItem, TranslationItem, TranslationValue, check_translation_shape,
};

/// `{"success": true}`, and for a write of keys the failing checks of the keys written.
#[derive(Debug, Object)]
pub struct Success {
    /// Always `true`.
    pub success: bool,
    /// Failing checks of the keys written (the change is made all the same); absent if none.
    #[oai(default, skip_serializing_if_is_empty)]
    pub warnings: Vec<WarningItem>,
}

impl Success {
    pub fn ok() -> Self {
        Self {
            success: true,
            warnings: Vec::new(),
        }
    }

    pub fn with_warnings(warnings: Vec<WarningItem>) -> Self {
        Self {
            success: true,
            warnings,
        }
    }
}

/// The body of every error response.
#[derive(Debug, Object)]
#[oai(example)]
pub struct ErrorBody {
    /// Always `false`.
    pub success: bool,
    pub error: ErrorDetail,
}

impl poem_openapi::types::Example for ErrorBody {
    fn example() -> Self {
        Self {
            success: false,
            error: ErrorDetail {
                code: "not_found".into(),
                message: "There is no team named \"acme\".".into(),
            },
        }
    }
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
    /// The placeholder syntax new keys take when created without one (absent: none).
    #[oai(rename = "placeholderFormat", skip_serializing_if_is_none)]
    pub placeholder_format: Option<super::params::InlineEnum<PlaceholderSyntax>>,
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
    /// The placeholder syntax keys created without one take (by the API or an upload whose
    /// format does not say): `printf`, `apple`, `icu`, `i18next`, `rails`, `python`,
    /// `python-brace`, `symfony` or `none`.
    #[oai(rename = "placeholderFormat", nullable)]
    pub placeholder_format: Option<super::params::NullableEnum<PlaceholderSyntax>>,
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
    /// A new placeholder syntax for keys created from now on (keys already there keep theirs).
    #[oai(rename = "placeholderFormat", nullable)]
    pub placeholder_format: Option<super::params::NullableEnum<PlaceholderSyntax>>,
}

impl From<Project> for ProjectItem {
    fn from(project: Project) -> Self {
        Self {
            name: project.name.to_string(),
            display_name: project.display_name,
            description: project.description,
            base_language: project.base_language.to_string(),
            languages: project.languages.iter().map(ToString::to_string).collect(),
            placeholder_format: project
                .placeholder_format
                .map(|syntax| super::params::InlineEnum(syntax.into())),
        }
    }
}

// ----- Keys -----

/// A key with its translations.
#[derive(Debug, Object)]
pub struct KeyItem {
    /// The key identifier (any text; percent-encode it in paths).
    pub name: String,
    /// The key's namespace: `""` for the default one, else the key space the app's files
    /// give it (an i18next namespace, an Apple table, a gettext domain, a module).
    pub namespace: String,
    /// The key's tags, in the order given.
    pub tags: Vec<String>,
    /// The translations: language code to text, or, for a plural key, to its plural forms.
    /// Languages without a translation are absent. Where the app's file writes a language in
    /// the other kind (Rails, i18next, ARB, String Catalogs and PO read each language on its
    /// own), a plain key's translation written as forms is shown as its forms, and a plural
    /// key's written as one text as its `other` form; exports to those formats write each
    /// as it was.
    pub translation: BTreeMap<String, TranslationValue>,
    /// Context for translators (empty when there is none).
    pub description: String,
    /// Whether the key's translations are sets of plural forms.
    pub plural: bool,
    /// Whether the texts hold Android styled-string markup (`<b>`, `<xliff:g>`, ...; `&lt;`
    /// and `&amp;` for literal `<` and `&`), as uploaded from a `strings.xml`.
    pub markup: bool,
    /// `false` for a key kept in the base language only (Android's `translatable="false"`):
    /// it takes no text in other languages and exports write it in the base language only.
    pub translatable: bool,
    /// The app file the key lives in, per platform family (`{}` when none is known): set by
    /// uploads from where the key was found, used by exports and `locstore pull`.
    pub files: KeyFilesItem,
    /// The languages whose translation is outdated: written against a base text that has
    /// changed since (`[]` when none). Writing the translation, or `POST .../confirm`, makes
    /// it current again.
    pub outdated: Vec<String>,
    /// The most characters (grapheme clusters) a text may have; absent when there is no limit.
    #[oai(rename = "maxLength", skip_serializing_if_is_none)]
    pub max_length: Option<u32>,
    /// Checks not run on this key.
    #[oai(rename = "ignoreChecks")]
    pub ignore_checks: Vec<String>,
    /// The syntax the texts write placeholders in, which exports convert from; absent for a
    /// key that has none recorded (its texts are exported as stored).
    #[oai(skip_serializing_if_is_none)]
    pub placeholders: Option<super::params::InlineEnum<PlaceholderSyntax>>,
    /// Names of the numbered arguments, in order, for the syntaxes that name them; absent
    /// when none are given (`arg1`, `arg2`, ...).
    #[oai(rename = "placeholderNames", default, skip_serializing_if_is_empty)]
    pub placeholder_names: Vec<String>,
}

/// A key's file per platform family, each a name relative to a language's folder. A family
/// without an entry uses its default: Android `strings.xml`, Apple `Localizable`, web the
/// language's one file.
#[derive(Debug, Object, Default)]
pub struct KeyFilesItem {
    /// The Android resource file in `values*/`, such as `plurals.xml`.
    #[oai(skip_serializing_if_is_none)]
    pub android: Option<String>,
    /// The Apple strings table: the `.strings` / `.stringsdict` file name without its
    /// extension, such as `InfoPlist`.
    #[oai(skip_serializing_if_is_none)]
    pub apple: Option<String>,
    /// The web namespace: the JSON file name without `.json`, such as `common`
    /// (`{lang}/common.json`).
    #[oai(skip_serializing_if_is_none)]
    pub web: Option<String>,
}

/// A key's files to set, per platform family: a name sets the family's entry, an empty
/// string removes it (the family's default file applies again), a family left out keeps its
/// entry.
#[derive(Debug, Object, serde::Deserialize)]
pub struct KeyFilesInput {
    /// The Android resource file in `values*/`, such as `plurals.xml`.
    #[oai(nullable)]
    pub android: Option<Text>,
    /// The Apple strings table, such as `InfoPlist` (no extension).
    #[oai(nullable)]
    pub apple: Option<Text>,
    /// The web namespace, such as `common` (no `.json`).
    #[oai(nullable)]
    pub web: Option<Text>,
}

impl KeyFilesInput {
    /// The entries given, checked: `Some(file)` to set, `None` to remove.
    pub fn parse(self) -> Result<Vec<(Platform, Option<String>)>, NameError> {
        [
            (Platform::Android, self.android),
            (Platform::Apple, self.apple),
            (Platform::Web, self.web),
        ]
        .into_iter()
        .filter_map(|(platform, file)| Some((platform, file?.0)))
        .map(|(platform, file)| match file.as_str() {
            "" => Ok((platform, None)),
            name => FileName::parse(platform, name).map(|name| (platform, Some(name))),
        })
        .collect()
    }
}

impl From<&KeyFiles> for KeyFilesItem {
    fn from(files: &KeyFiles) -> Self {
        Self {
            android: files.android.clone(),
            apple: files.apple.clone(),
            web: files.web.clone(),
        }
    }
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

/// A new key.
#[derive(Debug, Object)]
pub struct CreateKeyRequest {
    /// The key identifier: 1 to 16,384 bytes of any text but NUL; unique in its namespace
    /// (case-sensitive).
    pub name: KeyNameParam,
    /// The key's namespace (default `""`); the same name may be a key in several namespaces.
    #[oai(nullable)]
    pub namespace: Option<NamespaceParam>,
    /// Tags; repeated tags are dropped.
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// Context for translators.
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
    /// `true` for a key whose translations are plural forms (default `false`).
    #[oai(nullable)]
    pub plural: Option<bool>,
    /// `true` when the texts hold Android styled-string markup (default `false`).
    #[oai(nullable)]
    pub markup: Option<bool>,
    /// `false` keeps the key in the base language only (default `true`); texts in other
    /// languages are then refused.
    #[oai(nullable)]
    pub translatable: Option<bool>,
    /// The app file the key lives in, per platform family.
    #[oai(nullable)]
    pub files: Option<KeyFilesInput>,
    /// The most characters (grapheme clusters) a text may have in any language: the
    /// `max_length` check (default: no limit).
    #[oai(rename = "maxLength", nullable, validator(minimum(value = "1")))]
    pub max_length: Option<u32>,
    /// Checks not run on this key, by name.
    #[oai(rename = "ignoreChecks", nullable)]
    pub ignore_checks: Option<Vec<String>>,
    /// The placeholder syntax of the texts (`printf`, `apple`, `icu`, `i18next`, `rails`,
    /// `python`, `python-brace`, `symfony`, `none`); exports convert from it. Default: the
    /// project's `placeholderFormat`, else none (texts exported as stored).
    #[oai(nullable)]
    pub placeholders: Option<super::params::NullableEnum<PlaceholderSyntax>>,
    /// Names for the numbered arguments, in order (`%1$s` takes the first), used where a
    /// syntax names its arguments (`{name}`, `{{name}}`, `%{name}`); default `arg1`, `arg2`...
    #[oai(rename = "placeholderNames", nullable)]
    pub placeholder_names: Option<Vec<super::params::ArgumentNameParam>>,
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
    /// A new namespace (moves the key there, with `name` or its own name).
    #[oai(nullable)]
    pub namespace: Option<NamespaceParam>,
    /// The new tag list (replaces the old one).
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// The new description; an empty string clears it.
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
    /// `true` makes each text the `other` form of a plural; `false` keeps each language's
    /// `other` form as its text. Translations in the same request follow the new setting.
    #[oai(nullable)]
    pub plural: Option<bool>,
    /// Whether the texts hold Android styled-string markup.
    #[oai(nullable)]
    pub markup: Option<bool>,
    /// `false` keeps the key in the base language only (default `true`); texts in other
    /// languages are then refused.
    #[oai(nullable)]
    pub translatable: Option<bool>,
    /// The app file the key lives in, per platform family.
    #[oai(nullable)]
    pub files: Option<KeyFilesInput>,
    /// A new limit of characters (grapheme clusters) per text; `null` removes it.
    #[oai(rename = "maxLength", nullable, validator(minimum(value = "1")))]
    pub max_length: MaybeUndefined<u32>,
    /// Replaces the checks not run on this key.
    #[oai(rename = "ignoreChecks", nullable)]
    pub ignore_checks: Option<Vec<String>>,
    /// A new placeholder syntax for the texts (they are kept as written).
    #[oai(nullable)]
    pub placeholders: Option<super::params::NullableEnum<PlaceholderSyntax>>,
    /// Replaces the names of the numbered arguments.
    #[oai(rename = "placeholderNames", nullable)]
    pub placeholder_names: Option<Vec<super::params::ArgumentNameParam>>,
    /// Translations to set; languages not listed keep their text, an empty `content` (or
    /// `forms` object) removes one.
    #[oai(nullable)]
    pub translations: Option<Vec<TranslationItem>>,
    /// With a changed base-language text: leave the other languages' translations that were
    /// current current (a typo fix) instead of marking them outdated. Also taken as the
    /// query parameter `keepCurrent`.
    #[oai(rename = "keepCurrent", nullable)]
    pub keep_current: Option<bool>,
}

/// Changes to the key named by `name` (the deprecated form without `{keyName}` in the path).
#[derive(Debug, Object)]
pub struct UpdateKeyByBodyRequest {
    /// The key to change.
    pub name: KeyNameParam,
    /// The namespace of the key to change (default `""`).
    #[oai(nullable)]
    pub namespace: Option<NamespaceParam>,
    /// The new tag list (replaces the old one).
    #[oai(nullable)]
    pub tags: Option<Vec<TagParam>>,
    /// The new description.
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
    /// Whether the key is plural.
    #[oai(nullable)]
    pub plural: Option<bool>,
    /// Whether the texts hold Android styled-string markup.
    #[oai(nullable)]
    pub markup: Option<bool>,
    /// `false` keeps the key in the base language only (default `true`); texts in other
    /// languages are then refused.
    #[oai(nullable)]
    pub translatable: Option<bool>,
    /// The app file the key lives in, per platform family.
    #[oai(nullable)]
    pub files: Option<KeyFilesInput>,
    /// A new limit of characters (grapheme clusters) per text; `null` removes it.
    #[oai(rename = "maxLength", nullable, validator(minimum(value = "1")))]
    pub max_length: MaybeUndefined<u32>,
    /// Replaces the checks not run on this key.
    #[oai(rename = "ignoreChecks", nullable)]
    pub ignore_checks: Option<Vec<String>>,
    /// A new placeholder syntax for the texts (they are kept as written).
    #[oai(nullable)]
    pub placeholders: Option<super::params::NullableEnum<PlaceholderSyntax>>,
    /// Replaces the names of the numbered arguments.
    #[oai(rename = "placeholderNames", nullable)]
    pub placeholder_names: Option<Vec<super::params::ArgumentNameParam>>,
    /// Translations to set.
    #[oai(nullable)]
    pub translations: Option<Vec<TranslationItem>>,
    /// As in `PATCH .../keys/{keyName}`.
    #[oai(rename = "keepCurrent", nullable)]
    pub keep_current: Option<bool>,
}

impl KeyItem {
    /// The key as answered, its outdated translations told against the base language `base`.
    pub fn of(key: Key, base: &LanguageCode) -> Self {
        let outdated = key.outdated(base).map(ToString::to_string).collect();
        Self {
            name: key.name.to_string(),
            namespace: key.name.namespace().to_owned(),
            tags: key.tags,
            translation: key
                .translations
                .iter_in_full()
                .map(|(language, text)| (language.to_string(), TranslationValue::from(text.to_owned())))
                .collect(),
            description: key.description,
            plural: key.plural,
            markup: key.markup,
            translatable: key.translatable,
            files: KeyFilesItem::from(&key.files),
            outdated,
            max_length: key.max_length,
            ignore_checks: key.ignore_checks.iter().map(|check| check.name().to_owned()).collect(),
            placeholders: key.placeholders.map(|syntax| super::params::InlineEnum(syntax.into())),
            placeholder_names: key.placeholder_names,
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
    /// What the export could not convert to the format's placeholder syntax (left as it
    /// is), or lost converting (a float's precision, markup tags): one per key, language and
    /// problem; absent when there is none.
    #[oai(default, skip_serializing_if_is_empty)]
    pub warnings: Vec<WarningItem>,
}

// ----- Conditional reads -----

/// A resource with its entity tag, or `304` when `If-None-Match` names that tag.
#[derive(ApiResponse)]
pub enum Conditional<T: poem_openapi::types::ToJSON + poem_openapi::types::Type + Send + Sync> {
    /// The resource.
    #[oai(status = 200)]
    Ok(
        Json<T>,
        /// The entity tag, for `If-None-Match` (and, for a project or key, `If-Match`). A
        /// project's or key's changes when the resource does; a query's or export's with
        /// every commit.
        #[oai(header = "ETag")]
        String,
    ),
    /// Unchanged since the tag given in `If-None-Match`; no body (and, for an export, no new
    /// files).
    #[oai(status = 304)]
    NotModified(#[oai(header = "ETag")] String),
}
