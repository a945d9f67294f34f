//! Bulk import: many keys in one request and one commit.

use std::sync::Arc;

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{ProjectNameParam, TeamNameParam, Text};
use super::{ApiTags, AppState};
use crate::domain::names::{KeyName, LanguageCode, Tag, quote_for_message};
use crate::store::{ImportEntry, ImportMode, TranslationInput};
use crate::tokens::Access;

pub struct ImportApi {
    pub state: Arc<AppState>,
}

/// How an import treats keys that exist already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ImportModeParam {
    /// Every key must be new; an existing name fails the whole import (409).
    Create,
    /// New keys are created; existing keys get the tags given (when given) and their
    /// translations merged, as by a key update.
    Upsert,
}

/// Keys to import.
#[derive(Debug, Object)]
pub struct ImportRequest {
    /// `create` (the default) or `upsert`.
    #[oai(nullable)]
    pub mode: Option<ImportModeParam>,
    /// The keys, in the shape of a key creation. Names may not repeat.
    pub keys: Vec<ImportKeyItem>,
}

/// One key of an import. Its fields are checked by the server, which names the position of
/// the first bad entry.
#[derive(Debug, Object)]
pub struct ImportKeyItem {
    /// The key name (see createKey).
    pub name: Text,
    /// Tags; for an existing key in `upsert` mode they replace the old ones when given.
    #[oai(nullable)]
    pub tags: Option<Vec<Text>>,
    /// Translations; an empty `content` removes one.
    #[oai(nullable)]
    pub translations: Option<Vec<ImportTranslationItem>>,
}

/// A translation of an imported key.
#[derive(Debug, Object)]
pub struct ImportTranslationItem {
    /// A language of the project.
    pub language: Text,
    /// The text; an empty string removes the translation in this language.
    pub content: Text,
}

/// What the import did.
#[derive(Debug, Object)]
pub struct ImportResult {
    /// Always `true`.
    pub success: bool,
    /// Keys created.
    pub created: u64,
    /// Existing keys changed (upsert only).
    pub updated: u64,
    /// Existing keys the import left as they were (upsert only).
    pub unchanged: u64,
}

#[OpenApi(tag = "ApiTags::Keys")]
impl ImportApi {
    /// Import keys
    ///
    /// Needs write access. Creates (and with `mode: upsert`, updates) many keys as one
    /// commit, or none when nothing changes. The whole import is refused when any entry is
    /// bad, with the position of the first bad one (`keys[17]`): an invalid name, tag or
    /// language, a language the project does not have, a name given twice, or (in `create`
    /// mode) a name that exists. The body limit is the server's import limit (64 MiB by
    /// default), not the general one.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/import",
        method = "post",
        operation_id = "importKeys"
    )]
    async fn import_keys(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<ImportRequest>,
    ) -> Result<Json<ImportResult>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let body = body.0;
        let mode = match body.mode.unwrap_or(ImportModeParam::Create) {
            ImportModeParam::Create => ImportMode::Create,
            ImportModeParam::Upsert => ImportMode::Upsert,
        };
        let keys = body
            .keys
            .into_iter()
            .enumerate()
            .map(|(position, item)| parse_item(position, item))
            .collect::<Result<_, _>>()?;
        let (_, counts) = self
            .state
            .store
            .import(team, project_name.0.0, mode, keys, auth.author())
            .await?;
        Ok(Json(ImportResult {
            success: true,
            created: counts.created as u64,
            updated: counts.updated as u64,
            unchanged: counts.unchanged as u64,
        }))
    }
}

/// Checks one entry, naming its position when it is bad.
fn parse_item(position: usize, item: ImportKeyItem) -> Result<ImportEntry, ApiError> {
    let at = |message: String| {
        ApiError::invalid(format!(
            "keys[{position}] ({}): {message}",
            quote_for_message(&item.name)
        ))
    };
    let name = KeyName::parse(&item.name).map_err(|err| at(err.0))?;
    let tags = item
        .tags
        .map(|tags| {
            tags.iter()
                .map(|tag| Tag::parse(tag).map(Tag::into_string))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()
        .map_err(|err| at(err.0))?;
    let translations = item
        .translations
        .unwrap_or_default()
        .into_iter()
        .map(|translation| {
            let language = LanguageCode::parse(&translation.language)?;
            Ok(TranslationInput {
                language,
                content: translation.content.into(),
            })
        })
        .collect::<Result<Vec<_>, crate::domain::names::NameError>>()
        .map_err(|err| at(err.0))?;
    Ok(ImportEntry {
        name,
        tags,
        translations,
    })
}
