//! `Text`: a JSON string field that accepts only JSON strings.
//!
//! poem-openapi's `String` also takes numbers and booleans (`5` becomes `"5"`); the contract
//! wants a mistyped field to be a 400, so request bodies use this type instead.

use std::borrow::Cow;
use std::ops::Deref;

use poem_openapi::registry::MetaSchemaRef;
use poem_openapi::types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type};
use serde_json::Value;

/// Read by serde too (the bulk import's body), as a string and nothing else.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Text(pub String);

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.0
    }
}

impl Type for Text {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "string".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        String::schema_ref()
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for Text {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            Some(Value::String(text)) => Ok(Self(text)),
            other => Err(ParseError::expected_type(other.unwrap_or_default())),
        }
    }
}

impl ToJSON for Text {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}
