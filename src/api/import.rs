//! Bulk import: many keys in one request and one commit.

use std::sync::Arc;

use std::borrow::Cow;

use poem::Request;
use poem_openapi::param::{Header, Path, Query};
use poem_openapi::payload::{Json, Payload};
use poem_openapi::registry::{MetaMediaType, MetaRequest, MetaSchema, MetaSchemaRef, Registry};
use poem_openapi::types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type};
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions, Object, OpenApi};
use serde_json::Value;

use super::auth::TokenAuth;
use super::error::ApiError;
use super::keys::{KeysApi, reserved_key_name};
use super::params::NamespaceParam;
use super::schema::{
    Conditional, KeyData, KeyFilesInput, KeyNameParam, PluralFormsItem, ProjectNameParam, TeamNameParam, Text,
    UpdateKeyRequest, check_translation_shape,
};
use super::teams::Done;
use super::warnings::{MOST_WARNINGS, WarningItem, parse_checks};
use super::{ApiTags, AppState};
use crate::domain::names::{Description, KeyName, LanguageCode, Namespace, Tag, quote_for_message};
use crate::store::{Import, ImportEntry, ImportMode, TextInput, TranslationInput};
use crate::tokens::Access;

pub struct ImportApi {
    pub state: Arc<AppState>,
}

/// How an import treats keys that exist already: `create` (every key must be new; an
/// existing name fails the whole import with 409) or `upsert` (existing keys get the tags
/// given, when given, and their translations merged, as by a key update).
///
/// An inline string enum rather than a schema of its own, so that `mode` can be nullable
/// without a `$ref` wrapped in `allOf`, which client generators handle badly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportModeParam(pub ImportMode);

impl Type for ImportModeParam {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "import_mode".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            // OpenAPI 3.0 reads `nullable` together with `enum` only when the enum lists null.
            enum_items: vec![Value::from("create"), Value::from("upsert"), Value::Null],
            ..MetaSchema::new("string")
        }))
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for ImportModeParam {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value.as_ref().and_then(Value::as_str) {
            Some("create") => Ok(Self(ImportMode::Create)),
            Some("upsert") => Ok(Self(ImportMode::Upsert)),
            _ => Err(ParseError::custom("mode must be \"create\" or \"upsert\"")),
        }
    }
}

impl<'de> serde::Deserialize<'de> for ImportModeParam {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match &*Cow::<str>::deserialize(deserializer)? {
            "create" => Ok(Self(ImportMode::Create)),
            "upsert" => Ok(Self(ImportMode::Upsert)),
            _ => Err(serde::de::Error::custom("mode must be \"create\" or \"upsert\"")),
        }
    }
}

impl ToJSON for ImportModeParam {
    fn to_json(&self) -> Option<Value> {
        Some(Value::from(match self.0 {
            ImportMode::Create => "create",
            ImportMode::Upsert => "upsert",
        }))
    }
}

// poem-openapi documents it; serde reads it (see `ImportBody`), with the same field names.
/// Keys to import.
#[derive(Debug, Object, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRequest {
    /// `create` (the default) or `upsert`.
    #[oai(nullable)]
    pub mode: Option<ImportModeParam>,
    /// The keys, in the shape of a key creation. A name may not repeat in one namespace.
    pub keys: Vec<ImportKeyItem>,
    /// Base-language texts the import changes leave the other languages' translations that
    /// were current current (typo fixes) instead of marking them outdated.
    #[oai(rename = "keepCurrent", nullable)]
    #[serde(default)]
    pub keep_current: Option<bool>,
}

/// One key of an import, in the shape of a key creation. Its fields are checked by the
/// server, which names the position of the first bad entry.
#[derive(Debug, Object, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportKeyItem {
    /// The key name (the rules of createKey).
    pub name: ImportKeyName,
    /// The key's namespace (default `""`); a name may repeat in different namespaces.
    #[oai(nullable)]
    pub namespace: Option<Text>,
    /// Tags; for an existing key in `upsert` mode they replace the old ones when given.
    #[oai(nullable)]
    pub tags: Option<Vec<Text>>,
    /// Context for translators; for an existing key it replaces the old one when given.
    #[oai(nullable)]
    pub description: Option<Text>,
    /// Whether the key is plural; for an existing key it switches the key when given.
    #[oai(nullable)]
    pub plural: Option<bool>,
    /// Whether the texts hold Android styled-string markup.
    #[oai(nullable)]
    pub markup: Option<bool>,
    /// `false` keeps the key in the base language only; for an existing key it replaces the
    /// old setting when given.
    #[oai(nullable)]
    pub translatable: Option<bool>,
    /// The app file the key lives in, per platform family; for an existing key the families
    /// given replace theirs (an empty string removes one).
    #[oai(nullable)]
    pub files: Option<KeyFilesInput>,
    /// The most characters (grapheme clusters) a text may have; for an existing key it
    /// replaces the old limit when given.
    #[oai(rename = "maxLength", nullable, validator(minimum(value = "1")))]
    #[serde(rename = "maxLength", default)]
    pub max_length: Option<u32>,
    /// Checks not run on this key; for an existing key it replaces the old list when given.
    #[oai(rename = "ignoreChecks", nullable)]
    #[serde(rename = "ignoreChecks", default)]
    pub ignore_checks: Option<Vec<String>>,
    /// The placeholder syntax of the texts (see createKey); for an existing key it replaces
    /// the old one when given; a new key without one takes the project's `placeholderFormat`.
    #[oai(nullable)]
    #[serde(default)]
    pub placeholders: Option<super::params::NullableEnum<super::placeholders::PlaceholderSyntax>>,
    /// Names of the numbered arguments; for an existing key they replace the old ones when
    /// given.
    #[oai(rename = "placeholderNames", nullable)]
    #[serde(rename = "placeholderNames", default)]
    pub placeholder_names: Option<Vec<String>>,
    /// Translations: `content` for a plain key, `forms` for a plural one; an empty `content`
    /// or `forms` removes one.
    #[oai(nullable)]
    pub translations: Option<Vec<ImportTranslationItem>>,
}

/// A translation of an imported key.
#[derive(Debug, Object, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportTranslationItem {
    /// A language of the project.
    pub language: Text,
    /// The text of a plain key; an empty string removes the translation in this language.
    #[oai(nullable)]
    pub content: Option<Text>,
    /// The forms of a plural key.
    #[oai(nullable)]
    pub forms: Option<PluralFormsItem>,
}

/// A key name in an import: documented with the key name rules, but checked by the handler
/// so that a bad one is reported with its position in the list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct ImportKeyName(pub Text);

impl Type for ImportKeyName {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "import_key_name".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        KeyNameParam::schema_ref()
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for ImportKeyName {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Text::parse_from_json(value).map(Self).map_err(ParseError::propagate)
    }
}

impl ToJSON for ImportKeyName {
    fn to_json(&self) -> Option<Value> {
        self.0.to_json()
    }
}

/// The body of an import, documented as [`ImportRequest`] but read by serde straight into
/// it. poem-openapi's `Json` builds a `serde_json::Value` tree of the whole body first and then
/// converts it: for 2,000 keys in 50 languages that was about a sixth of the import's time.
pub struct ImportBody(pub Vec<u8>);

impl<'a> ApiExtractor<'a> for ImportBody {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        ImportRequest::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: <Json<ImportRequest> as Payload>::CONTENT_TYPE,
                schema: ImportRequest::schema_ref(),
            }],
            required: true,
        })
    }

    async fn from_request(
        request: &'a Request,
        body: &mut poem::RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        super::body_of_type(request, body, <Json<ImportRequest> as Payload>::check_content_type)
            .await
            .map(Self)
    }
}

/// Reads and checks an import's body: its mode and its entries, or the first problem, named by
/// its place in the body (`keys[17].tags[0]: invalid type ...`, `keys[17] ("name"): ...`).
fn read_import(body: &[u8]) -> Result<(ImportMode, Vec<ImportEntry>, bool), ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let request: ImportRequest = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let place = err.path().to_string();
        let err = err.into_inner();
        if place == "." {
            ApiError::invalid(format!("The request body is not a valid import: {err}."))
        } else {
            ApiError::invalid(format!("The request body is not a valid import at {place}: {err}."))
        }
    })?;
    deserializer
        .end()
        .map_err(|err| ApiError::invalid(format!("The request body is not a valid import: {err}.")))?;
    let mode = request.mode.map_or(ImportMode::Create, |mode| mode.0);
    let keys = request
        .keys
        .into_iter()
        .enumerate()
        .map(|(position, item)| parse_item(position, item))
        .collect::<Result<_, _>>()?;
    Ok((mode, keys, request.keep_current.unwrap_or(false)))
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
    /// The failing checks of the keys the import created or updated (at most 1,000, then
    /// one counting the rest); absent when there are none.
    #[oai(default, skip_serializing_if_is_empty)]
    pub warnings: Vec<WarningItem>,
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
        body: ImportBody,
        /// As the body's `keepCurrent` (either sets it).
        #[oai(name = "keepCurrent")]
        keep_current: Query<Option<bool>>,
        /// Import on this branch of the project (default: the main line).
        branch: Query<Option<super::params::BranchNameParam>>,
    ) -> Result<Json<ImportResult>, ApiError> {
        let team = auth.team(team_name.0.0)?;
        auth.require(Access::Write)?;
        let branch = super::params::branch_of(branch.0);
        // Up to the import limit of JSON (64 MiB by default): read and checked off the runtime.
        let (mode, keys, keep_body) = tokio::task::spawn_blocking(move || read_import(&body.0))
            .await
            .map_err(|join_error| {
                tracing::error!(error = %join_error, "the import's parse task failed");
                ApiError::internal()
            })??;
        let import = Import {
            team,
            project: project_name.0.0,
            mode,
            keys,
            add_languages: Vec::new(),
            keep_current: keep_body || keep_current.0.unwrap_or(false),
            beside: None,
        };
        let (team, project) = (import.team.clone(), import.project.clone());
        let (_, counts) = super::params::import_on(&self.state, branch.as_ref(), import, auth.author()).await?;
        let (failures, total) = super::params::failures_on(
            &self.state,
            &team,
            &project,
            branch.as_ref(),
            &counts.written,
            MOST_WARNINGS,
        )
        .await?;
        Ok(Json(ImportResult {
            success: true,
            created: counts.created as u64,
            updated: counts.updated as u64,
            unchanged: counts.unchanged as u64,
            warnings: WarningItem::of_checks(failures, total),
        }))
    }
    /// Update the key named `import`
    ///
    /// The same as `PATCH .../keys/{keyName}` for the key named `import`, whose path is also
    /// the import's (`POST`).
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/import",
        method = "patch",
        operation_id = "updateKeyNamedImport"
    )]
    async fn update_key_named_import(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        body: Json<UpdateKeyRequest>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
    ) -> Result<Done, ApiError> {
        self.keys()
            .update(
                auth,
                team_name.0.0,
                project_name.0.0,
                super::keys::in_namespace(reserved_key_name("import"), namespace.0),
                body.0,
                if_match.0,
                None,
            )
            .await
    }

    /// Delete the key named `import`
    ///
    /// The same as `DELETE .../keys/{keyName}` for the key named `import`.
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/import",
        method = "delete",
        operation_id = "deleteKeyNamedImport"
    )]
    async fn delete_key_named_import(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Change only if the resource's current `ETag` is one of these (else 412
        /// `precondition_failed`); from a `GET` of it.
        #[oai(name = "If-Match")]
        if_match: Header<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
    ) -> Result<Done, ApiError> {
        self.keys()
            .delete(
                auth,
                team_name.0.0,
                project_name.0.0,
                super::keys::in_namespace(reserved_key_name("import"), namespace.0),
                if_match.0,
                None,
            )
            .await
    }

    /// Get the key named `import`
    ///
    /// The same as `GET .../keys/{keyName}` for the key named `import`, whose path is also the
    /// import's (`POST`).
    #[oai(
        path = "/teams/:teamName/projects/:projectName/keys/import",
        method = "get",
        operation_id = "getKeyNamedImport"
    )]
    async fn get_key_named_import(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "projectName")] project_name: Path<ProjectNameParam>,
        /// Answer `304 Not Modified`, with no body, when this names the current `ETag`.
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
        /// Read the state at this commit id (7 or more hex digits), snapshot name or RFC 3339
        /// time (the last commit at or before it) rather than the newest.
        at: Query<Option<String>>,
        /// The key's namespace (default: the default namespace, `""`).
        namespace: Query<Option<NamespaceParam>>,
    ) -> Result<Conditional<KeyData>, ApiError> {
        self.keys()
            .get(
                auth,
                team_name.0.0,
                project_name.0.0,
                super::keys::in_namespace(reserved_key_name("import"), namespace.0),
                if_none_match.0,
                at.0,
            )
            .await
    }
}

impl ImportApi {
    /// The key handlers, for the keys named like this path's fixed segment.
    fn keys(&self) -> KeysApi {
        KeysApi {
            state: self.state.clone(),
        }
    }
}

/// Checks one entry, naming its position when it is bad.
fn parse_item(position: usize, item: ImportKeyItem) -> Result<ImportEntry, ApiError> {
    let at = |message: String| {
        ApiError::invalid(format!(
            "keys[{position}] ({}): {message}",
            quote_for_message(&item.name.0)
        ))
    };
    let namespace = Namespace::parse(item.namespace.as_deref().unwrap_or_default()).map_err(|err| at(err.0))?;
    let name = KeyName::parse_in(&namespace, &item.name.0).map_err(|err| at(err.0))?;
    let description = item
        .description
        .map(|text| Description::parse(&text).map(Description::into_string))
        .transpose()
        .map_err(|err| at(err.0))?;
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
            check_translation_shape(
                &translation.language,
                translation.content.is_some(),
                translation.forms.is_some(),
            )?;
            let language = LanguageCode::parse(&translation.language).map_err(|err| err.0)?;
            let text = match (translation.content, translation.forms) {
                (Some(content), _) => TextInput::Content(content.0),
                (_, forms) => TextInput::Forms(forms.map(PluralFormsItem::into_forms).unwrap_or_default()),
            };
            Ok(TranslationInput {
                language,
                text,
                literal: false,
                keeps_unexpressed_forms: false,
                kind_as_written: false,
            })
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(at)?;
    Ok(ImportEntry {
        name,
        tags,
        description,
        plural: item.plural,
        markup: item.markup,
        translatable: item.translatable,
        files: match item.files {
            Some(files) => files.parse().map_err(|err| at(err.0))?,
            None => Vec::new(),
        },
        max_length: match item.max_length {
            Some(0) => return Err(at("maxLength must be at least 1.".to_owned())),
            Some(max) => Some(Some(max)),
            None => None,
        },
        ignore_checks: item
            .ignore_checks
            .as_deref()
            .map(|names| parse_checks("ignoreChecks", names))
            .transpose()
            .map_err(at)?,
        placeholders: item.placeholders.map(|syntax| syntax.0.into()),
        placeholder_names: item
            .placeholder_names
            .map(super::placeholders::checked_names)
            .transpose()
            .map_err(at)?,
        translations,
        add_tags: Vec::new(),
        xcode: None,
        outdated: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn serde_and_the_documented_schema_agree_on_what_an_import_body_is() {
        let bodies = [
            (json!({"keys": []}), true),
            (json!({"mode": null, "keys": []}), true),
            (
                json!({"mode": "upsert", "unknown": 1, "keys": [{"name": "a", "tags": null, "description": null,
                    "plural": true, "markup": false, "extra": [1],
                    "translations": [{"language": "en", "forms": {"one": "x", "other": "y"}},
                                     {"language": "de", "content": "z", "forms": null}]}]}),
                true,
            ),
            // The shape of a translation is checked after the types, with the entry's position.
            (
                json!({"keys": [{"name": "a", "translations": [{"language": "en"}]}]}),
                true,
            ),
            (json!({"mode": "merge", "keys": []}), false),
            (json!({"mode": 1, "keys": []}), false),
            (json!({}), false),
            (json!({"keys": null}), false),
            (json!(null), false),
            (json!([]), false),
            (json!({"keys": [{"name": 5}]}), false),
            (json!({"keys": [{"tags": ["x"]}]}), false),
            (json!({"keys": [{"name": "a", "tags": "x"}]}), false),
            (json!({"keys": [{"name": "a", "tags": [true]}]}), false),
            (json!({"keys": [{"name": "a", "plural": "yes"}]}), false),
            (json!({"keys": [{"name": "a", "description": 3}]}), false),
            (json!({"keys": [{"name": "a", "translations": {"en": "x"}}]}), false),
            (
                json!({"keys": [{"name": "a", "translations": [{"language": "en", "content": 5}]}]}),
                false,
            ),
            (
                json!({"keys": [{"name": "a", "translations": [{"content": "x"}]}]}),
                false,
            ),
            (
                json!({"keys": [{"name": "a", "translations": [{"language": "en", "forms": {"several": "x"}}]}]}),
                false,
            ),
            (
                json!({"keys": [{"name": "a", "translations": [{"language": "en", "forms": {"other": 1}}]}]}),
                false,
            ),
        ];
        for (body, valid) in bodies {
            let by_serde = serde_json::from_value::<ImportRequest>(body.clone()).is_ok();
            let by_schema = ImportRequest::parse_from_json(Some(body.clone())).is_ok();
            assert_eq!((by_serde, by_schema), (valid, valid), "{body}");
            if !valid {
                assert!(read_import(body.to_string().as_bytes()).is_err(), "{body}");
            }
        }
    }

    fn message(err: ApiError) -> String {
        match err {
            ApiError::InvalidRequest(body) => body.0.error.message,
            _ => panic!("not a 400"),
        }
    }

    #[test]
    fn a_mistyped_field_is_named_by_its_place_in_the_body() {
        let err = read_import(br#"{"keys": [{"name": "a"}, {"name": "b", "tags": ["t", 7]}]}"#).unwrap_err();
        let text = message(err);
        assert!(text.contains("at keys[1].tags[1]: invalid type: integer `7`"), "{text}");
        let text = message(read_import(br#"{"keys": []} {"keys": []}"#).unwrap_err());
        assert!(text.contains("trailing characters"), "{text}");
        let text = message(read_import(b"").unwrap_err());
        assert!(text.contains("EOF"), "{text}");
        let text = message(read_import(br#"{"keys": [{"name": "a\u0000"}]}"#).unwrap_err());
        assert!(text.starts_with("keys[0] "), "{text}");
        let text = message(
            read_import(br#"{"keys": [{"name": "a"}, {"name": "b", "translations": [{"language": "en"}]}]}"#)
                .unwrap_err(),
        );
        assert!(
            text.starts_with(r#"keys[1] ("b"): The translation in "en" needs `content`"#),
            "{text}"
        );
        let (mode, keys, _) =
            read_import(br#"{"mode": "upsert", "keys": [{"name": "a\u00e9", "tags": ["x"]}]}"#).unwrap();
        assert_eq!(mode, ImportMode::Upsert);
        assert_eq!(keys[0].name.as_str(), "aé");
        assert_eq!(keys[0].tags.as_deref(), Some(&["x".to_owned()][..]));
    }
}
