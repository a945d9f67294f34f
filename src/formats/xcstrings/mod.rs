//! Xcode String Catalogs (`{table}.xcstrings`): one JSON file holding every language of a
//! strings table.
//!
//! The mapping (contract, "More formats"): `sourceLanguage` is the project's base language;
//! per key `comment` is the description, `shouldTranslate: false` is `translatable: false`,
//! `localizations.{lang}.stringUnit` is `{state, value}` with the state `translated`, or
//! `needs_review` for an outdated translation; a plural key's forms are under
//! `variations.plural.{category}.stringUnit`. `extractionState` is kept with the key (see
//! [`XcodeEntry`]). A key without a value in the source language is its own source text, as
//! it is for Xcode at run time; the export leaves that value out again while it is still the
//! key name.
//!
//! A key whose localizations the server cannot hold as a text or plural forms (`substitutions`:
//! several plural variables in one text; device variations; variations nested in a form; a
//! shape Xcode may add later) is held whole: each language's text is the catalog's JSON of
//! that localization, compact and in the file's member order, and the key is marked
//! [`XcodeEntry::whole`]. The export writes the JSON back as the localization, so the catalog
//! round trips byte for byte and an edit of the JSON on the server reaches the app. An App
//! Shortcut's `stringSet` is not text of the app's: it is passed over, counted, and stays in
//! the catalog as it is.
//!
//! Files are written as Xcode writes them, so that Xcode's next save changes nothing: `"key" :
//! value`, two-space indentation, an empty object as `{` blank line `}`, no final newline, and
//! every object's keys in Xcode's order, the Unicode collation of the root locale with numbers
//! compared by value ([`xcode_order`]).

use serde::Deserialize;

use super::{ParsedEntry, ReadError, ReadWarning};
use crate::domain::checks::plural_categories;
use crate::domain::model::{PluralCategory, PluralForms, Text, XcodeEntry};
use crate::domain::names::LanguageCode;

mod kept;
mod order;
mod write;

pub use order::{sort_in_xcode_order, xcode_order};
pub use write::{Layout, render, write, write_gzip, write_node, write_node_in};

/// The keys an export of `format` writes: a key held whole ([`XcodeEntry::whole`]) is a
/// String Catalog's localizations as JSON, which only String Catalogs (and CSV, a table of
/// what the server holds, read back as it is) write; any other format leaves it out, named
/// in `warnings`.
pub fn leave_out_whole<'a>(
    keys: Vec<std::borrow::Cow<'a, crate::domain::model::Key>>,
    mut warnings: Vec<crate::formats::placeholders::Warning>,
    format: crate::formats::ExportFormat,
    base: &LanguageCode,
) -> (
    Vec<std::borrow::Cow<'a, crate::domain::model::Key>>,
    Vec<crate::formats::placeholders::Warning>,
) {
    use crate::formats::ExportFormat;
    if matches!(
        format,
        ExportFormat::Xcstrings | ExportFormat::Csv | ExportFormat::CsvTable
    ) || !keys.iter().any(|key| key.xcode.whole)
    {
        return (keys, warnings);
    }
    let (whole, written): (Vec<_>, Vec<_>) = keys.into_iter().partition(|key| key.xcode.whole);
    warnings.extend(whole.iter().map(|key| crate::formats::placeholders::Warning {
        key: key.name.clone(),
        language: base.clone(),
        message: format!(
            "left out: the key is held whole as a String Catalog's localizations (substitutions or device variations), which {} cannot write",
            format.name()
        ),
    }));
    (written, warnings)
}

/// A catalog's file name: `Localizable.xcstrings` for the table `Localizable`.
pub fn path(table: &str) -> String {
    format!("{table}.xcstrings")
}

/// The versions of the format read (and `1.0` written).
const VERSIONS: [&str; 4] = ["1.0", "1.1", "1.2", "1.3"];

// ---------------------------------------------------------------------------------------
// Reading

/// A JSON value with its objects' members in the file's order (which the patcher keeps).
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    pub fn get(&self, name: &str) -> Option<&Node> {
        match self {
            Node::Object(members) => members
                .iter()
                .find(|(member, _)| member == name)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn members(&self) -> &[(String, Node)] {
        match self {
            Node::Object(members) => members,
            _ => &[],
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "boolean",
            Node::Number(_) => "number",
            Node::String(_) => "string",
            Node::Array(_) => "array",
            Node::Object(_) => "object",
        }
    }
}

impl serde::Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Node::Null => serializer.serialize_unit(),
            Node::Bool(value) => serializer.serialize_bool(*value),
            Node::Number(number) => number.serialize(serializer),
            Node::String(text) => serializer.serialize_str(text),
            Node::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Node::Object(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, value) in members {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

impl Node {
    /// The node as compact JSON, members in their order: how a localization held whole is
    /// stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a node is JSON")
    }

    /// The localization a text held whole stands for: `None` for a text that is not a JSON
    /// object (an edit that wrote a plain text into a key held whole).
    pub fn from_whole_text(text: &str) -> Option<Node> {
        match serde_json::from_str::<Node>(text) {
            Ok(node @ Node::Object(_)) => Some(node),
            _ => None,
        }
    }

    /// Equal as JSON values: objects compared whatever their members' order.
    pub fn same_value(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Object(mine), Node::Object(theirs)) => {
                mine.len() == theirs.len()
                    && mine.iter().all(|(name, value)| {
                        theirs
                            .iter()
                            .any(|(their_name, their_value)| their_name == name && value.same_value(their_value))
                    })
            }
            (Node::Array(mine), Node::Array(theirs)) => {
                mine.len() == theirs.len() && mine.iter().zip(theirs).all(|(a, b)| a.same_value(b))
            }
            _ => self == other,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Node;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_bool<E>(self, value: bool) -> Result<Node, E> {
                Ok(Node::Bool(value))
            }
            fn visit_i64<E>(self, value: i64) -> Result<Node, E> {
                Ok(Node::Number(value.into()))
            }
            fn visit_u64<E>(self, value: u64) -> Result<Node, E> {
                Ok(Node::Number(value.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Node, E> {
                serde_json::Number::from_f64(value)
                    .map(Node::Number)
                    .ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E>(self, value: &str) -> Result<Node, E> {
                Ok(Node::String(value.to_owned()))
            }
            fn visit_string<E>(self, value: String) -> Result<Node, E> {
                Ok(Node::String(value))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut members: Vec<(String, Node)> = Vec::new();
                // Positions by name, to find a name given twice (the last value wins, as in
                // Foundation's reader): made once an object is too long to search.
                let mut positions: Option<std::collections::HashMap<String, usize>> = None;
                while let Some((name, value)) = map.next_entry::<String, Node>()? {
                    if positions.is_none() && members.len() >= 16 {
                        positions = Some(
                            members
                                .iter()
                                .enumerate()
                                .map(|(position, (member, _))| (member.clone(), position))
                                .collect(),
                        );
                    }
                    let found = match &mut positions {
                        Some(positions) => match positions.get(&name) {
                            Some(position) => Some(*position),
                            None => {
                                positions.insert(name.clone(), members.len());
                                None
                            }
                        },
                        None => members.iter().position(|(member, _)| *member == name),
                    };
                    match found {
                        Some(position) => members[position].1 = value,
                        None => members.push((name, value)),
                    }
                }
                Ok(Node::Object(members))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Parses a catalog's JSON (a UTF-8 byte order mark is skipped).
pub fn parse(bytes: &[u8]) -> Result<Node, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|err| ReadError::at(err.line(), err.to_string()))
}

/// What a catalog holds, by language.
#[derive(Debug, Default)]
pub struct Catalog {
    pub source_language: String,
    /// Per language (source language first, then in the file's order of first use), its
    /// entries in the file's order of keys.
    pub languages: Vec<(String, Vec<ParsedEntry>)>,
    /// Keys passed over: with a `stringSet`, or the empty name.
    pub skipped: usize,
    /// Each key passed over, named with why (it stays in the app's catalog as it is).
    pub warnings: Vec<ReadWarning>,
}

impl Catalog {
    fn entries_of(&mut self, language: &str) -> &mut Vec<ParsedEntry> {
        let position = match self.languages.iter().position(|(own, _)| own == language) {
            Some(position) => position,
            None => {
                self.languages.push((language.to_owned(), Vec::new()));
                self.languages.len() - 1
            }
        };
        &mut self.languages[position].1
    }
}

/// Reads a catalog into entries per language.
pub fn read(bytes: &[u8]) -> Result<Catalog, ReadError> {
    let root = parse(bytes)?;
    let field = |name: &str| root.get(name);
    let Node::Object(_) = root else {
        return Err(ReadError::at(1, "a String Catalog is one JSON object"));
    };
    let source = field("sourceLanguage")
        .and_then(Node::as_str)
        .ok_or_else(|| ReadError::unplaced("the catalog has no \"sourceLanguage\" string"))?
        .to_owned();
    let mut catalog = Catalog {
        source_language: source.clone(),
        ..Catalog::default()
    };
    // Xcode raises the version as it adds fields (1.2, 1.3), which are kept as written: a
    // version this server has not seen is read all the same, and said.
    match field("version").map(|version| version.as_str()) {
        Some(Some(version)) if VERSIONS.contains(&version) => {}
        Some(Some(version)) => catalog.warnings.push(ReadWarning {
            line: 0,
            key: String::new(),
            message: format!(
                "the catalog's version {version:?} is newer than those this server knows ({}): it is read as they are, and what it cannot hold is kept as written",
                VERSIONS.join(", ")
            ),
        }),
        _ => return Err(ReadError::unplaced("the catalog has no \"version\" string")),
    }
    catalog.entries_of(&source);
    let strings = match field("strings") {
        Some(Node::Object(strings)) => strings.as_slice(),
        None => &[],
        Some(other) => {
            return Err(ReadError::unplaced(format!(
                "\"strings\" is a {} where an object belongs",
                other.kind()
            )));
        }
    };
    for (name, entry) in strings {
        read_entry(name, entry, &source, &mut catalog)?;
    }
    Ok(catalog)
}

fn read_entry(name: &str, entry: &Node, source: &str, catalog: &mut Catalog) -> Result<(), ReadError> {
    let invalid = |what: String| ReadError::unplaced(format!("key {name:?}: {what}"));
    let Node::Object(_) = entry else {
        return Err(invalid(format!("is a {} where an object belongs", entry.kind())));
    };
    let comment = match entry.get("comment") {
        None => None,
        Some(Node::String(comment)) => Some(comment.clone()),
        Some(other) => return Err(invalid(format!("\"comment\" is a {}", other.kind()))),
    };
    let extraction_state = match entry.get("extractionState") {
        None => None,
        Some(Node::String(state)) if XcodeEntry::is_state(state) => Some(state.clone()),
        Some(other) => return Err(invalid(format!("\"extractionState\" {other:?} is not a state"))),
    };
    let translatable = match entry.get("shouldTranslate") {
        None => true,
        Some(Node::Bool(value)) => *value,
        Some(other) => return Err(invalid(format!("\"shouldTranslate\" is a {}", other.kind()))),
    };
    let mut pass_over = |why: String| {
        catalog.skipped += 1;
        catalog.warnings.push(ReadWarning {
            line: 0,
            key: name.to_owned(),
            message: format!("{name:?} {why}; it stays in the catalog as it is."),
        });
    };
    if name.is_empty() {
        pass_over("is the empty key, which no key can be named".into());
        return Ok(());
    }
    let localizations = entry.get("localizations").map(Node::members).unwrap_or_default();
    if let Some((language, _)) = localizations
        .iter()
        .find(|(_, localization)| localization.get("stringSet").is_some())
    {
        pass_over(format!(
            "has a \"stringSet\" (App Shortcut phrases) in {language}, which the server does not hold"
        ));
        return Ok(());
    }
    // Each localization read once: all as texts, or the key is held whole.
    let read: Option<Vec<(&str, (Text, bool))>> = localizations
        .iter()
        .map(|(language, localization)| Some((language.as_str(), read_localization(localization)?)))
        .collect();
    let Some(mut texts) = read else {
        return read_whole(
            name,
            localizations,
            source,
            comment,
            translatable,
            extraction_state,
            catalog,
        );
    };
    // A plain `stringUnit` where other languages have plural forms (Ice Cubes' Korean) is the
    // `other` form of a language whose only category is `other`: Xcode reads it so.
    if texts.iter().any(|(_, (text, _))| matches!(text, Text::Plural(_))) {
        for (language, (text, _)) in &mut texts {
            let only_other =
                LanguageCode::parse(language).is_ok_and(|code| plural_categories(&code) == [PluralCategory::Other]);
            if let (true, Text::Plain(plain)) = (only_other, &*text) {
                *text = Text::Plural(PluralForms::other(plain.clone()));
            }
        }
    }
    let has_source = texts.iter().any(|(language, _)| *language == source);
    if !has_source {
        // Xcode's fallback: the key is the source text (a plural's `other` form when the
        // other languages have forms).
        let plural = texts.iter().any(|(_, (text, _))| matches!(text, Text::Plural(_)));
        let text = if plural {
            Text::Plural(PluralForms::other(name.to_owned()))
        } else {
            Text::Plain(name.to_owned())
        };
        texts.insert(0, (source, (text, false)));
    }
    let mut nodes = Some(kept::nodes_to_keep(localizations, &texts, source));
    for (language, (text, outdated)) in texts {
        let is_source = language == source;
        let entry = ParsedEntry {
            text,
            description: comment.clone().filter(|_| is_source),
            translatable,
            outdated: outdated && !is_source,
            xcode: is_source.then(|| XcodeEntry {
                extraction_state: extraction_state.clone(),
                source_from_key: !has_source,
                whole: false,
                nodes: nodes.take().unwrap_or_default(),
            }),
            ..ParsedEntry::plain(name.to_owned(), String::new())
        };
        catalog.entries_of(language).push(entry);
    }
    Ok(())
}

/// A key held whole ([`XcodeEntry::whole`]): each localization as its JSON; without one in
/// the source language, the key name is the source text, as for any key.
fn read_whole(
    name: &str,
    localizations: &[(String, Node)],
    source: &str,
    comment: Option<String>,
    translatable: bool,
    extraction_state: Option<String>,
    catalog: &mut Catalog,
) -> Result<(), ReadError> {
    let has_source = localizations.iter().any(|(language, _)| language == source);
    let source_entry = || ParsedEntry {
        description: comment.clone(),
        translatable,
        xcode: Some(XcodeEntry {
            nodes: Vec::new(),
            extraction_state: extraction_state.clone(),
            source_from_key: !has_source,
            whole: true,
        }),
        ..ParsedEntry::plain(name.to_owned(), name.to_owned())
    };
    if !has_source {
        catalog.entries_of(source).push(source_entry());
    }
    for (language, localization) in localizations {
        let text = localization.to_json();
        let entry = if language == source {
            ParsedEntry {
                text: Text::Plain(text),
                ..source_entry()
            }
        } else {
            ParsedEntry {
                translatable,
                ..ParsedEntry::plain(name.to_owned(), text)
            }
        };
        catalog.entries_of(language).push(entry);
    }
    Ok(())
}

/// A localization's text and whether it needs review, when it is a `stringUnit` or plural
/// variations whose forms are each a `stringUnit` of a CLDR category; `None` for anything
/// else, which the key is held whole for (see the module's notes).
fn read_localization(localization: &Node) -> Option<(Text, bool)> {
    let members = localization.members();
    match members {
        [(kind, unit)] if kind == "stringUnit" => {
            let (value, outdated) = read_unit(unit)?;
            Some((Text::Plain(value), outdated))
        }
        [(kind, variations)] if kind == "variations" => {
            let [(kind, plural)] = variations.members() else {
                return None;
            };
            if kind != "plural" {
                return None;
            }
            let mut forms = Vec::new();
            let mut any_outdated = false;
            for (category, form) in plural.members() {
                let category = PluralCategory::parse(category)?;
                let [(kind, unit)] = form.members() else {
                    return None;
                };
                if kind != "stringUnit" {
                    return None;
                }
                let (value, outdated) = read_unit(unit)?;
                any_outdated |= outdated;
                forms.push((category, value));
            }
            Some((Text::Plural(PluralForms::new(forms).ok()?), any_outdated))
        }
        _ => None,
    }
}

/// Whether the server holds a localization: anything but an App Shortcut's `stringSet`
/// (a text, plural forms, or the localization whole).
pub fn is_held(localization: &Node) -> bool {
    localization.get("stringSet").is_none()
}

/// Whether the server holds a localization as a text or plural forms rather than whole.
pub fn is_text(localization: &Node) -> bool {
    read_localization(localization).is_some()
}

/// A `stringUnit`'s value and whether it needs review; `None` for a unit without a value
/// string or with members Xcode does not write (held whole).
fn read_unit(unit: &Node) -> Option<(String, bool)> {
    let Node::Object(members) = unit else {
        return None;
    };
    if members.iter().any(|(name, _)| name != "state" && name != "value") {
        return None;
    }
    let value = unit.get("value").and_then(Node::as_str)?;
    let state = match unit.get("state") {
        None => "translated",
        Some(state) => state.as_str()?,
    };
    Some((value.to_owned(), state == "needs_review"))
}

#[cfg(test)]
mod tests;
