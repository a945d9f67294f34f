//! Names as they arrive in paths and bodies: poem-openapi types that parse straight into the
//! validated domain names and publish the rules (pattern, length) in the OpenAPI schema, so
//! that clients and fuzzers know what is valid before they send it.

use std::borrow::Cow;

use poem_openapi::registry::{MetaSchema, MetaSchemaRef};
use poem_openapi::types::{ParseError, ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type};
use serde_json::Value;

use crate::domain::names::{
    BranchName, Description, DisplayName, KeyName, LanguageCode, Namespace, ProjectName, Tag, TeamName,
};

/// The rules as JSON Schema patterns. They are written so that Rust's, Python's and
/// JavaScript's regular expressions read them the same way.
pub const SLUG_PATTERN: &str = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";
pub const LANGUAGE_PATTERN: &str = r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$";
pub const KEY_PATTERN: &str = r"^[^\u0000]+$";
pub const NAMESPACE_PATTERN: &str = r#"^(?!.*//)(?!(?:.*/)?\.\.?(?:/|$))(?:[^\s/\u0000-\u001f\u007f-\u009f\\:*?"<>|](?:[^\u0000-\u001f\u007f-\u009f\\:*?"<>|]*[^\s/\u0000-\u001f\u007f-\u009f\\:*?"<>|])?)?$"#;
pub const DISPLAY_NAME_PATTERN: &str = r"^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*$";
pub const BRANCH_PATTERN: &str = r"^(?!.*\.\.)(?!.*\.lock(?:/|$))(?!.*\.(?:/|$))[A-Za-z0-9][A-Za-z0-9._-]{0,63}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,63})*$";
pub const TAG_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]+$";
pub const ARGUMENT_PATTERN: &str = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$";
pub const DESCRIPTION_PATTERN: &str = r"^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*$";
/// Key names may be up to 16,384 bytes of UTF-8, a bound JSON Schema cannot state; 16,384
/// characters is that bound for ASCII names, and the description says the rest.
const KEY_SCHEMA_MAX_CHARS: usize = 16 * 1024;

macro_rules! name_param {
    ($(#[$doc:meta])* $param:ident, $domain:ty, $type_name:literal, $pattern:expr, $max:expr, $example:literal, $description:literal) => {
        name_param!($(#[$doc])* $param, $domain, $type_name, $pattern, Some(1), $max, $example, $description);
    };
    ($(#[$doc:meta])* $param:ident, $domain:ty, $type_name:literal, $pattern:expr, $min:expr, $max:expr, $example:literal, $description:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $param(pub $domain);

        impl Type for $param {
            const IS_REQUIRED: bool = true;
            type RawValueType = Self;
            type RawElementValueType = Self;

            fn name() -> Cow<'static, str> {
                $type_name.into()
            }

            fn schema_ref() -> MetaSchemaRef {
                MetaSchemaRef::Inline(Box::new(MetaSchema {
                    description: Some($description),
                    pattern: Some($pattern.to_owned()),
                    min_length: $min,
                    max_length: $max,
                    example: Some(Value::String($example.to_owned())),
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

        impl ParseFromParameter for $param {
            fn parse_from_parameter(value: &str) -> ParseResult<Self> {
                <$domain>::parse(value).map(Self).map_err(|err| ParseError::custom(err.0))
            }
        }

        impl ParseFromJSON for $param {
            fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
                match value {
                    Some(Value::String(text)) => <$domain>::parse(&text).map(Self).map_err(|err| ParseError::custom(err.0)),
                    other => Err(ParseError::expected_type(other.unwrap_or_default())),
                }
            }
        }

        impl ToJSON for $param {
            fn to_json(&self) -> Option<Value> {
                Some(Value::String(self.0.to_string()))
            }
        }
    };
}

name_param!(
    /// A team name in a path or body.
    TeamNameParam, TeamName, "team_name", SLUG_PATTERN, Some(64), "acme",
    "A team identifier: 1 to 64 ASCII letters, digits, '-', '_' or '.', starting with a letter or digit; unique without regard to case."
);
name_param!(
    /// A project name in a path or body.
    ProjectNameParam, ProjectName, "project_name", SLUG_PATTERN, Some(64), "mobile",
    "A project identifier: 1 to 64 ASCII letters, digits, '-', '_' or '.', starting with a letter or digit; unique in its team without regard to case."
);
name_param!(
    /// A key name in a path or body.
    KeyNameParam, KeyName, "key_name", KEY_PATTERN, Some(KEY_SCHEMA_MAX_CHARS), "home.title",
    "A key identifier: any text of 1 to 16,384 bytes of UTF-8 but NUL (spaces at the ends, line breaks and '%' included); case-sensitive. Percent-encode it in paths (errors%2Fnetwork, %20(%25%40))."
);
name_param!(
    /// A key namespace in a query or body.
    NamespaceParam, Namespace, "namespace", NAMESPACE_PATTERN, Some(0), Some(Namespace::MAX_BYTES), "common",
    "A key space of the project: empty for the default one, else up to 255 bytes without control characters, white space or '/' at either end, '.' or '..' parts, or any of \\ : * ? \" < > | (common, InfoPlist, django, settings/profile)."
);
name_param!(
    /// A language code in a body.
    LanguageParam, LanguageCode, "language_code", LANGUAGE_PATTERN, None, "pt-BR",
    "A language code such as en, en-US, pt_BR or zh-Hans."
);
name_param!(
    /// A display name in a body.
    DisplayNameParam, DisplayName, "display_name", DISPLAY_NAME_PATTERN, Some(DisplayName::MAX_CHARS), "Acme Inc.",
    "A human-readable name: 1 to 256 characters, not blank, without control characters other than line breaks and tabs."
);
name_param!(
    /// A project branch's name in a path, query or body.
    BranchNameParam, BranchName, "branch_name", BRANCH_PATTERN, Some(BranchName::MAX_CHARS), "feature/login",
    "A branch of the project: parts of 1 to 64 ASCII letters, digits, '-', '_' or '.' joined by '/' (feature/login, release-2.3), each starting with a letter or digit and not ending in '.' or '.lock'; at most 200 characters, no '..'. `main` names the main line. Percent-encode '/' in paths (feature%2Flogin)."
);
name_param!(
    /// A tag in a body.
    TagParam, Tag, "tag", TAG_PATTERN, Some(Tag::MAX_CHARS), "onboarding",
    "A tag: 1 to 128 characters without control characters."
);

name_param!(
    /// A numbered argument's name in a key's `placeholderNames`.
    ArgumentNameParam, crate::domain::placeholders::ArgumentName, "argument_name", ARGUMENT_PATTERN, Some(64), "count",
    "A name for a numbered argument: 1 to 64 ASCII letters, digits and '_', not starting with a digit."
);

name_param!(
    /// A key description in a body.
    DescriptionParam, Description, "description", DESCRIPTION_PATTERN, None, Some(Description::MAX_CHARS), "Title of the home screen.",
    "Context for translators: at most 4,000 characters, no control characters but line breaks and tabs; an empty string clears it."
);

/// An enumeration written out where it is used rather than referred to, so that a nullable
/// field of it is one schema (`{"type": "string", "enum": [...], "nullable": true}`). A
/// reference beside `nullable` needs an `allOf`, which client generators (openapi-python-client)
/// cannot read. `NULLABLE`: `null` is one of its values (OpenAPI 3.0 lets a nullable
/// enumeration be null only when its list says so), which the server takes as left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct InlineEnum<T, const NULLABLE: bool = false>(pub T);

/// A nullable field's [`InlineEnum`].
pub type NullableEnum<T> = InlineEnum<T, true>;

impl<T: Type, const NULLABLE: bool> Type for InlineEnum<T, NULLABLE> {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        let mut registry = poem_openapi::registry::Registry::new();
        T::register(&mut registry);
        let mut schema = registry
            .schemas
            .remove(T::name().as_ref())
            .unwrap_or_else(|| MetaSchema::new("string"));
        if NULLABLE {
            schema.nullable = true;
            schema.enum_items.push(Value::Null);
        }
        MetaSchemaRef::Inline(Box::new(schema))
    }

    fn register(_registry: &mut poem_openapi::registry::Registry) {}

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl<T: ParseFromJSON, const NULLABLE: bool> ParseFromJSON for InlineEnum<T, NULLABLE> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        T::parse_from_json(value).map(Self).map_err(ParseError::propagate)
    }
}

impl<T: ToJSON, const NULLABLE: bool> ToJSON for InlineEnum<T, NULLABLE> {
    fn to_json(&self) -> Option<Value> {
        self.0.to_json()
    }
}

/// Language codes in a query parameter: one code or several separated by commas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanguageListParam(pub Vec<LanguageCode>);

pub const LANGUAGE_LIST_PATTERN: &str =
    r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*(,[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)*$";

impl Type for LanguageListParam {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "language_list".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            description: Some("One language code, or several separated by commas."),
            pattern: Some(LANGUAGE_LIST_PATTERN.to_owned()),
            example: Some(Value::String("en,pt-BR".to_owned())),
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

impl ParseFromParameter for LanguageListParam {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        value
            .split(',')
            .map(str::trim)
            .filter(|code| !code.is_empty())
            .map(LanguageCode::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
            .map_err(|err| ParseError::custom(err.0))
    }
}

/// `?branch=` as the store takes it: `None` for the main line (absent, or `main`).
pub fn branch_of(param: Option<BranchNameParam>) -> Option<BranchName> {
    param.map(|param| param.0).filter(|branch| !branch.is_main())
}

/// What a read of the past or of a branch reads at: `at` as given on the main line, or the
/// head commit of the branch (`NotFound` for a branch the project does not have). A branch
/// read is a read of its head commit, so every `at=` read serves branches too.
pub async fn read_at(
    state: &super::AppState,
    team: &crate::domain::names::TeamName,
    project: &crate::domain::names::ProjectName,
    branch: Option<BranchNameParam>,
    at: Option<String>,
) -> Result<Option<String>, super::error::ApiError> {
    let Some(branch) = branch_of(branch) else {
        return Ok(at);
    };
    if at.is_some() {
        return Err(super::error::ApiError::invalid(
            "Give either `at` or `branch`, not both: a branch is read at its head.",
        ));
    }
    let head = state.store.branch_head(team, project, &branch).await?;
    Ok(Some(head.to_string()))
}

/// A project's settings and every key (sorted by name) on the main line or a branch: what
/// an upload is planned against.
pub async fn keys_on(
    state: &super::AppState,
    team: &crate::domain::names::TeamName,
    project: &crate::domain::names::ProjectName,
    branch: Option<&BranchName>,
) -> Result<
    (
        crate::domain::model::Project,
        Vec<std::sync::Arc<crate::store::KeyEntry>>,
    ),
    super::error::ApiError,
> {
    Ok(match branch {
        None => state.store.keys_for_export(team, project, &[]).await?,
        Some(branch) => {
            let head = state.store.branch_head(team, project, branch).await?.to_string();
            state.history.keys_for_export_at(team, project, &[], &head).await?
        }
    })
}

/// The failing checks of the keys `names` (sorted) as the main line or `branch` holds them
/// now (after a write), at most `most` of them, and how many there are in all.
pub async fn failures_on(
    state: &super::AppState,
    team: &crate::domain::names::TeamName,
    project: &crate::domain::names::ProjectName,
    branch: Option<&BranchName>,
    names: &[crate::domain::names::KeyName],
    most: usize,
) -> Result<(Vec<crate::store::quality::KeyFailure>, usize), super::error::ApiError> {
    Ok(match branch {
        None => state.store.failures_of(team, project, names, most).await?,
        Some(branch) => {
            let head = state.store.branch_head(team, project, branch).await?.to_string();
            state.history.failures_of_at(team, project, &head, names, most).await?
        }
    })
}

/// Imports keys on the main line, or as one commit on a branch.
pub async fn import_on(
    state: &super::AppState,
    branch: Option<&BranchName>,
    import: crate::store::Import,
    author: &str,
) -> Result<(crate::store::Outcome, crate::store::ImportCounts), super::error::ApiError> {
    Ok(match branch {
        None => state.store.import(import, author).await?,
        Some(branch) => state.store.import_on_branch(branch, import, author).await?,
    })
}

/// Applies a change on the main line, or as one commit on a branch; what happened.
pub async fn apply_on(
    state: &super::AppState,
    branch: Option<&BranchName>,
    change: crate::store::Change,
    author: &str,
) -> Result<crate::store::Outcome, super::error::ApiError> {
    Ok(match branch {
        None => state.store.apply(change, author).await?,
        Some(branch) => state.store.apply_on_branch(branch, change, author).await?.outcome,
    })
}

/// The names of a request's `placeholderNames`, each already an [`ArgumentName`].
pub fn names_of(names: Vec<ArgumentNameParam>) -> Vec<String> {
    names.into_iter().map(|name| name.0.0).collect()
}
