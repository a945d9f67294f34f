//! Translations as they travel over the wire: a text or plural forms as read
//! ([`TranslationValue`]), and a translation to set ([`TranslationItem`]), each with the
//! schema written by hand that a `oneOf` of a text and an object needs.

use std::borrow::Cow;

use poem_openapi::Object;
use poem_openapi::registry::{MetaSchema, MetaSchemaRef, Registry};
use poem_openapi::types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type};
use serde_json::Value;

use super::{LanguageParam, Text};
use crate::domain::model::{PluralCategory, Text as DomainText};
use crate::domain::names::quote_for_message;
use crate::store::{TextInput, TranslationInput};

/// A translation as it is read: a text, or the plural forms of a plural key.
///
/// Its schema is written by hand: poem-openapi's `Union` says `"type": "object"` beside the
/// `oneOf`, which a text then breaks (schemathesis checks answers against it).
#[derive(Debug)]
pub enum TranslationValue {
    Text(String),
    Forms(PluralFormsItem),
}

impl Type for TranslationValue {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "TranslationValue".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Reference(Self::name().into_owned())
    }

    fn register(registry: &mut Registry) {
        registry.create_schema::<Self, _>(Self::name().into_owned(), |registry| {
            PluralFormsItem::register(registry);
            MetaSchema {
                description: Some("A translation as it is read: a text, or the plural forms of a plural key."),
                one_of: vec![String::schema_ref(), PluralFormsItem::schema_ref()],
                ..MetaSchema::ANY
            }
        });
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for TranslationValue {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(text)) => Ok(Self::Text(text)),
            Some(forms @ Value::Object(_)) => PluralFormsItem::parse_from_json(Some(forms))
                .map(Self::Forms)
                .map_err(ParseError::propagate),
            other => Err(ParseError::expected_type(other.unwrap_or_default())),
        }
    }
}

impl ToJSON for TranslationValue {
    fn to_json(&self) -> Option<Value> {
        match self {
            Self::Text(text) => Some(Value::String(text.clone())),
            Self::Forms(forms) => forms.to_json(),
        }
    }
}

/// Plural forms by CLDR category. `other` is required in a translation and every form is
/// non-empty; an empty form given in a request counts as absent.
#[derive(Debug, Object, serde::Deserialize)]
#[oai(deny_unknown_fields)]
#[serde(deny_unknown_fields)]
pub struct PluralFormsItem {
    #[oai(skip_serializing_if_is_none, nullable)]
    pub zero: Option<Text>,
    #[oai(skip_serializing_if_is_none, nullable)]
    pub one: Option<Text>,
    #[oai(skip_serializing_if_is_none, nullable)]
    pub two: Option<Text>,
    #[oai(skip_serializing_if_is_none, nullable)]
    pub few: Option<Text>,
    #[oai(skip_serializing_if_is_none, nullable)]
    pub many: Option<Text>,
    #[oai(skip_serializing_if_is_none, nullable)]
    pub other: Option<Text>,
}

/// A translation to set: `{language, content}` for a plain key, `{language, forms}` for a
/// plural key. The schema is `oneOf` the two shapes, so a request with both or neither is
/// invalid before the store sees it; the parser says which of the two was wrong.
#[derive(Debug)]
pub enum TranslationItem {
    Content(ContentTranslation),
    Forms(FormsTranslation),
}

/// The text of a plain key in one language.
#[derive(Debug, Object)]
pub struct ContentTranslation {
    /// A language of the project, such as `en` or `pt-BR` (any case or separator).
    pub language: LanguageParam,
    /// The text; an empty string removes the translation in this language.
    pub content: Text,
}

/// The forms of a plural key in one language.
#[derive(Debug, Object)]
pub struct FormsTranslation {
    /// A language of the project, such as `en` or `pt-BR` (any case or separator).
    pub language: LanguageParam,
    /// The forms; they replace the language's old forms, and an empty object removes the
    /// translation.
    pub forms: PluralFormsItem,
}

impl From<DomainText> for TranslationValue {
    fn from(text: DomainText) -> Self {
        match text {
            DomainText::Plain(text) => TranslationValue::Text(text),
            DomainText::Plural(forms) => {
                let form = |category| forms.get(category).map(|text| Text(text.to_owned()));
                TranslationValue::Forms(PluralFormsItem {
                    zero: form(PluralCategory::Zero),
                    one: form(PluralCategory::One),
                    two: form(PluralCategory::Two),
                    few: form(PluralCategory::Few),
                    many: form(PluralCategory::Many),
                    other: form(PluralCategory::Other),
                })
            }
        }
    }
}

impl PluralFormsItem {
    /// The forms given, by category.
    pub fn into_forms(self) -> Vec<(PluralCategory, String)> {
        [
            (PluralCategory::Zero, self.zero),
            (PluralCategory::One, self.one),
            (PluralCategory::Two, self.two),
            (PluralCategory::Few, self.few),
            (PluralCategory::Many, self.many),
            (PluralCategory::Other, self.other),
        ]
        .into_iter()
        .filter_map(|(category, text)| Some((category, text?.0)))
        .collect()
    }
}

impl TranslationItem {
    /// The translation as the store takes it.
    pub fn into_input(self) -> TranslationInput {
        let (language, text) = match self {
            Self::Content(item) => (item.language.0, TextInput::Content(item.content.0)),
            Self::Forms(item) => (item.language.0, TextInput::Forms(item.forms.into_forms())),
        };
        TranslationInput {
            language,
            text,
            literal: false,
            keeps_unexpressed_forms: false,
            kind_as_written: false,
        }
    }
}

/// Checks that a translation gives exactly one of `content` and `forms`; the message names the
/// language as the client wrote it.
pub fn check_translation_shape(language: &str, content: bool, forms: bool) -> Result<(), String> {
    let language = quote_for_message(language);
    match (content, forms) {
        (true, true) => Err(format!(
            "The translation in {language} has both `content` and `forms`; give `content` for a plain key or `forms` for a plural one."
        )),
        (false, false) => Err(format!(
            "The translation in {language} needs `content` (a plain key) or `forms` (a plural key)."
        )),
        _ => Ok(()),
    }
}

impl Type for TranslationItem {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "TranslationItem".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            description: Some(
                "A translation to set: `{language, content}` for a plain key, `{language, forms}` for a plural key.",
            ),
            one_of: vec![ContentTranslation::schema_ref(), FormsTranslation::schema_ref()],
            ..MetaSchema::ANY
        }))
    }

    fn register(registry: &mut Registry) {
        ContentTranslation::register(registry);
        FormsTranslation::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for TranslationItem {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        let Some(Value::Object(object)) = &value else {
            return Err(ParseError::expected_type(value.unwrap_or_default()));
        };
        // Exactly one shape must fit, as `oneOf` says; when none does and one field was
        // given, that shape's own error is the useful one.
        let content = ContentTranslation::parse_from_json(value.clone());
        let forms = FormsTranslation::parse_from_json(value.clone());
        let given = |field: &str| object.get(field).is_some_and(|value| !value.is_null());
        let language = object.get("language").and_then(Value::as_str).unwrap_or_default();
        match (content, forms) {
            (Ok(content), Err(_)) => Ok(Self::Content(content)),
            (Err(_), Ok(forms)) => Ok(Self::Forms(forms)),
            (Err(err), Err(_)) if given("content") && !given("forms") => Err(ParseError::propagate(err)),
            (Err(_), Err(err)) if given("forms") && !given("content") => Err(ParseError::propagate(err)),
            _ => Err(ParseError::custom(
                check_translation_shape(language, given("content"), given("forms"))
                    .err()
                    .unwrap_or_else(|| "The translation has neither a valid `content` nor valid `forms`.".to_owned()),
            )),
        }
    }
}

impl ToJSON for TranslationItem {
    fn to_json(&self) -> Option<Value> {
        match self {
            Self::Content(item) => item.to_json(),
            Self::Forms(item) => item.to_json(),
        }
    }
}
