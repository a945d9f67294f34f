//! JSON answers written straight from the store's data.
//!
//! poem-openapi's `Json<T>` turns `T` into a `serde_json::Value` tree and then into text: for
//! a page of keys that is most of the request's work. [`JsonBytes`] carries text serialised
//! once, from borrowed data, while the OpenAPI document still describes it as `T`; the views
//! here write exactly the fields of the documented objects (`tests/api/openapi.rs` and the
//! schemathesis run check the answers against the document).

use std::marker::PhantomData;

use bytes::Bytes;
use poem::{IntoResponse, Response};
use poem_openapi::payload::Payload;
use poem_openapi::registry::{MetaSchemaRef, Registry};
use poem_openapi::types::Type;
use serde::Serialize;
use serde::ser::SerializeMap;

use crate::domain::model::{FormsRef, Key, KeyFiles, Project, TextRef};
use crate::domain::names::LanguageCode;

/// A JSON body serialised ahead of time, documented as `T`.
pub struct JsonBytes<T> {
    bytes: Bytes,
    schema: PhantomData<fn() -> T>,
}

impl<T> JsonBytes<T> {
    pub fn new(bytes: impl Into<Bytes>) -> Self {
        Self {
            bytes: bytes.into(),
            schema: PhantomData,
        }
    }
}

pub const CONTENT_TYPE: &str = "application/json; charset=utf-8";

impl<T: Type> Payload for JsonBytes<T> {
    const CONTENT_TYPE: &'static str = CONTENT_TYPE;

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T> IntoResponse for JsonBytes<T> {
    fn into_response(self) -> Response {
        Response::builder().content_type(CONTENT_TYPE).body(self.bytes)
    }
}

/// A page of keys as `KeyList` (`{"data": [KeyItem, ...]}`).
pub fn key_list(project: &Project, keys: &[&Key]) -> Vec<u8> {
    #[derive(Serialize)]
    struct KeyList<'a> {
        data: Vec<KeyItem<'a>>,
    }
    let list = KeyList {
        data: keys.iter().map(|key| KeyItem(key, &project.base_language)).collect(),
    };
    let mut body = Vec::with_capacity(64 + keys.len() * 320);
    serde_json::to_writer(&mut body, &list).expect("a key list serialises");
    body
}

/// A key as `KeyItem` (`{"name", "namespace", "tags", "translation": {language: text or forms},
/// "description", "plural", "markup", "translatable", "files", "outdated"}`), its outdated
/// translations told against the base language.
struct KeyItem<'a>(&'a Key, &'a LanguageCode);

impl Serialize for KeyItem<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Item<'a> {
            name: &'a str,
            namespace: &'a str,
            tags: &'a [String],
            translation: Translations<'a>,
            description: &'a str,
            plural: bool,
            markup: bool,
            translatable: bool,
            files: Files<'a>,
            outdated: Outdated<'a>,
            #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
            max_length: Option<u32>,
            #[serde(rename = "ignoreChecks")]
            ignore_checks: Vec<&'static str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            placeholders: Option<&'static str>,
            #[serde(rename = "placeholderNames", skip_serializing_if = "<[String]>::is_empty")]
            placeholder_names: &'a [String],
        }
        Item {
            name: self.0.name.as_str(),
            namespace: self.0.name.namespace(),
            tags: &self.0.tags,
            translation: Translations(self.0),
            description: &self.0.description,
            plural: self.0.plural,
            markup: self.0.markup,
            translatable: self.0.translatable,
            files: Files(&self.0.files),
            outdated: Outdated(self.0, self.1),
            max_length: self.0.max_length,
            ignore_checks: self.0.ignore_checks.iter().map(|check| check.name()).collect(),
            placeholders: self.0.placeholders.map(|syntax| syntax.name()),
            placeholder_names: &self.0.placeholder_names,
        }
        .serialize(serializer)
    }
}

/// The languages of a key's outdated translations, as a JSON array.
struct Outdated<'a>(&'a Key, &'a LanguageCode);

impl Serialize for Outdated<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.outdated(self.1).map(LanguageCode::as_str))
    }
}

/// A key's files as `KeyFilesItem`: the families that have an entry.
struct Files<'a>(&'a KeyFiles);

impl Serialize for Files<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (platform, file) in self.0.iter() {
            map.serialize_entry(platform.name(), file)?;
        }
        map.end()
    }
}

struct Translations<'a>(&'a Key);

impl Serialize for Translations<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.translations.len()))?;
        for (language, text) in self.0.translations.iter_in_full() {
            match text {
                TextRef::Plain(text) => map.serialize_entry(language.as_str(), text)?,
                TextRef::Plural(forms) => map.serialize_entry(language.as_str(), &Forms(forms))?,
            }
        }
        map.end()
    }
}

/// Plural forms as a JSON object in CLDR order (`PluralFormsItem`).
pub struct Forms<'a>(pub FormsRef<'a>);

impl Serialize for Forms<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (category, text) in self.0.iter() {
            map.serialize_entry(category.name(), text)?;
        }
        map.end()
    }
}
