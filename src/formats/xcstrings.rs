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
//! key name. Entries with `substitutions` or device variations are passed over and counted
//! (a pull keeps them as they are).
//!
//! Files are written as Xcode writes them, so that Xcode's next save changes nothing: `"key" :
//! value`, two-space indentation, an empty object as `{` blank line `}`, no final newline, and
//! every object's keys in Xcode's order, the Unicode collation of the root locale with numbers
//! compared by value ([`xcode_order`]).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::sync::{Mutex, OnceLock, PoisonError};

use icu_collator::options::CollatorOptions;
use icu_collator::preferences::CollationNumericOrdering;
use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};
use serde::Deserialize;

use super::escape::{Specials, push_escaped};
use super::gzip;
use super::in_order::make_in_order;
use super::{ExportFile, ParsedEntry, ReadError};
use crate::domain::model::{Key, PluralCategory, PluralForms, Text, TextRef, XcodeEntry};
use crate::domain::names::LanguageCode;

/// A catalog's file name: `Localizable.xcstrings` for the table `Localizable`.
pub fn path(table: &str) -> String {
    format!("{table}.xcstrings")
}

/// The versions of the format read (and `1.0` written).
const VERSIONS: [&str; 2] = ["1.0", "1.1"];

/// The order Xcode writes an object's keys in: the root locale's collation (punctuation and
/// symbols before digits before letters, case and accents compared last), numbers by value;
/// strings it finds equal by their code points.
pub fn xcode_order(a: &str, b: &str) -> Ordering {
    collator().compare(a, b).then_with(|| a.cmp(b))
}

fn collator() -> &'static CollatorBorrowed<'static> {
    static COLLATOR: OnceLock<CollatorBorrowed<'static>> = OnceLock::new();
    COLLATOR.get_or_init(|| {
        let mut preferences = CollatorPreferences::default();
        preferences.numeric_ordering = Some(CollationNumericOrdering::True);
        Collator::try_new(preferences, CollatorOptions::default()).expect("the root collation is compiled in")
    })
}

/// Sorts in [`xcode_order`], working out each item's collation key once (a catalog of
/// 100,000 keys compares names two million times), the keys of a large list on every core.
pub fn sort_in_xcode_order<T: Sync>(items: &mut [T], name: impl Fn(&T) -> &str + Sync) {
    let collator = collator();
    let key_of = |item: &T| {
        let mut key = Vec::with_capacity(name(item).len() * 3);
        let Ok(()) = collator.write_sort_key_to(name(item), &mut key);
        key
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    let share = items.len().div_ceil(threads).max(4096);
    let keys: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let mut chunks = items.chunks(share);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || chunk.iter().map(key_of).collect::<Vec<_>>()))
            .collect();
        let mut keys: Vec<Vec<u8>> = first.iter().map(key_of).collect();
        for other in others {
            keys.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        keys
    });
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]).then_with(|| name(&items[a]).cmp(name(&items[b]))));
    // Applies the permutation: the item at `order[i]` goes to `i`.
    let mut place: Vec<usize> = vec![0; items.len()];
    for (to, &from) in order.iter().enumerate() {
        place[from] = to;
    }
    for at in 0..items.len() {
        while place[at] != at {
            let to = place[at];
            items.swap(at, to);
            place.swap(at, to);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing

/// The catalog of one table: the keys (sorted by name) in `languages`.
pub fn render(keys: &[impl Borrow<Key>], base: &LanguageCode, languages: &[LanguageCode], table: &str) -> ExportFile {
    let mut bytes = Vec::new();
    write(keys, base, languages, &mut bytes).expect("writing to memory does not fail");
    ExportFile {
        path: path(table),
        bytes,
    }
}

/// Writes the catalog [`render`] makes into `out` as it is made: the keys go in pieces of
/// [`PIECE`] to every core and are written in order as they are done, through a few reused
/// buffers. A catalog of 100,000 keys in 5 languages is 70 MB; rendered as one share per core
/// and then written, it was held whole, in fresh memory that the kernel zeroed first (a fifth
/// of the export's time).
pub fn write(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    languages: &[LanguageCode],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    make_pieces(
        keys,
        base,
        languages,
        |text, _| text,
        |text: String| {
            out.write_all(text.as_bytes())?;
            Ok(text)
        },
    )
}

/// [`write`] as a gzip file: each piece is deflated on the core that made it (see
/// [`gzip`]). The file is a tenth of the catalog's size: less to write to disk, and a
/// download a client that accepts gzip gets as it is.
pub fn write_gzip(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    languages: &[LanguageCode],
    out: impl std::io::Write,
) -> std::io::Result<()> {
    let mut file = gzip::Writer::new(out)?;
    make_pieces(
        keys,
        base,
        languages,
        |text, last| (gzip::deflate(text.as_bytes(), last), text),
        |(piece, text)| {
            file.push(&piece)?;
            Ok(text)
        },
    )?;
    file.finish().map(drop)
}

/// The catalog's text in pieces, in order: each is made on one of the cores into a reused
/// buffer and passed through `finish` (with whether it is the last) there, then handed to
/// `take`, which gives the buffer back for the next pieces. The first piece begins with the
/// catalog's head, the last ends with its tail.
fn make_pieces<T: Send>(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    languages: &[LanguageCode],
    finish: impl Fn(String, bool) -> T + Sync,
    mut take: impl FnMut(T) -> std::io::Result<String>,
) -> std::io::Result<()> {
    let mut ordered: Vec<&Key> = keys.iter().map(Borrow::borrow).collect();
    sort_in_xcode_order(&mut ordered, |key| key.name.as_str());
    // A catalog always holds its source language: one without the source strings would be
    // read back (by Xcode, and by an upload) as if each key's name were its source text.
    let mut languages: Vec<&LanguageCode> = languages.iter().collect();
    if !languages.contains(&base) {
        languages.push(base);
    }
    languages.sort_by(|a, b| xcode_order(a.as_str(), b.as_str()));
    // An empty catalog is one piece of head and tail.
    let pieces: Vec<&[&Key]> = if ordered.is_empty() {
        vec![&[]]
    } else {
        ordered.chunks(PIECE).collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    // Buffers handed back go here for the next pieces.
    let spare: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let make = |index: usize| {
        let mut text = spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        text.clear();
        if index == 0 {
            text.push_str("{\n  \"sourceLanguage\" : ");
            push_string(&mut text, base.as_str());
            text.push_str(",\n  \"strings\" : {");
        }
        // Where each language was found in the last key: most keys hold the same languages.
        let mut hints = vec![0; languages.len()];
        for (at, key) in pieces[index].iter().enumerate() {
            // The first entry has no comma before it.
            text.push_str(if index == 0 && at == 0 { "\n    " } else { ",\n    " });
            push_string(&mut text, key.name.as_str());
            text.push_str(" : ");
            write_key(&mut text, key, base, &languages, &mut hints);
        }
        let last = index + 1 == pieces.len();
        if last {
            text.push_str(if ordered.is_empty() { "\n\n  },\n" } else { "\n  },\n" });
            text.push_str("  \"version\" : \"1.0\"\n}");
        }
        finish(text, last)
    };
    make_in_order(pieces.len(), threads, 2 * threads, make, |piece: T| {
        let text = take(piece)?;
        spare.lock().unwrap_or_else(PoisonError::into_inner).push(text);
        Ok::<(), std::io::Error>(())
    })
}

/// How many keys a piece of a catalog holds (about 700 KB of text in 5 languages); the unit
/// tests' catalogs of a few hundred keys go in several.
const PIECE: usize = if cfg!(test) { 64 } else { 1024 };

/// One key's object, at the indentation of `strings`' members (4 spaces).
/// `hints` holds, per language, the slot it was found in for the last key.
fn write_key(out: &mut String, key: &Key, base: &LanguageCode, languages: &[&LanguageCode], hints: &mut [usize]) {
    let mut fields = Fields::open(out, 6);
    if !key.description.is_empty() {
        let out = fields.next("comment");
        push_string(out, &key.description);
    }
    if let Some(state) = &key.xcode.extraction_state {
        let out = fields.next("extractionState");
        push_string(out, state);
    }
    // The base text's hash, worked out once for all languages' outdated states.
    let base_hash = std::cell::OnceCell::new();
    let is_outdated = |recorded: u32| {
        recorded != 0
            && key
                .translations
                .get(base)
                .is_some_and(|text| *base_hash.get_or_init(|| text.base_hash()) != recorded)
    };
    let written: Vec<(&LanguageCode, TextRef<'_>, &str)> = languages
        .iter()
        .zip(hints.iter_mut())
        .filter_map(|(language, hint)| {
            let (text, recorded) = key.translations.get_near_with_base(language, hint)?;
            let is_base = std::ptr::eq(*language, base) || *language == base;
            if !is_base && !key.translatable {
                return None;
            }
            if is_base && key.xcode.source_from_key && is_key_name(key, text) {
                return None;
            }
            let state = if !is_base && is_outdated(recorded) {
                "needs_review"
            } else {
                "translated"
            };
            Some((*language, text, state))
        })
        .collect();
    if !written.is_empty() {
        let mut localizations = Fields::open(fields.next("localizations"), 8);
        for (language, text, state) in written {
            let mut localization = Fields::open(localizations.next(language.as_str()), 10);
            match text {
                TextRef::Plain(value) => write_unit(localization.next("stringUnit"), state, value, 12),
                TextRef::Plural(forms) => {
                    let mut variations = Fields::open(localization.next("variations"), 12);
                    let mut plural = Fields::open(variations.next("plural"), 14);
                    let mut categories: Vec<(PluralCategory, &str)> = forms.iter().collect();
                    categories.sort_by(|a, b| a.0.name().cmp(b.0.name()));
                    for (category, value) in categories {
                        let mut form = Fields::open(plural.next(category.name()), 16);
                        write_unit(form.next("stringUnit"), state, value, 18);
                        form.close();
                    }
                    plural.close();
                    variations.close();
                }
            }
            localization.close();
        }
        localizations.close();
    }
    if !key.translatable {
        fields.next("shouldTranslate").push_str("false");
    }
    fields.close();
}

/// Whether a key's source text is its name (a plain text, or only an `other` form).
fn is_key_name(key: &Key, text: TextRef<'_>) -> bool {
    match text {
        TextRef::Plain(value) => value == key.name.as_str(),
        TextRef::Plural(forms) => forms.iter().count() == 1 && forms.other_form() == key.name.as_str(),
    }
}

/// `{"state" : ..., "value" : ...}` with its members at `indent` spaces (the most written
/// object, so written in one go).
fn write_unit(out: &mut String, state: &str, value: &str, indent: usize) {
    out.push_str("{\n");
    push_indent(out, indent);
    out.push_str("\"state\" : \"");
    out.push_str(state);
    out.push_str("\",\n");
    push_indent(out, indent);
    out.push_str("\"value\" : ");
    push_string(out, value);
    out.push('\n');
    push_indent(out, indent - 2);
    out.push('}');
}

/// An object being written: its members go one a line at `indent` spaces, its closing brace
/// two spaces less; an object with no members is `{`, a blank line, `}`.
struct Fields<'a> {
    out: &'a mut String,
    indent: usize,
    members: usize,
}

impl<'a> Fields<'a> {
    fn open(out: &'a mut String, indent: usize) -> Self {
        out.push('{');
        Self {
            out,
            indent,
            members: 0,
        }
    }

    /// Starts the member `name`; its value is written to the answer.
    fn next(&mut self, name: &str) -> &mut String {
        if self.members > 0 {
            self.out.push(',');
        }
        self.members += 1;
        self.out.push('\n');
        push_indent(self.out, self.indent);
        push_string(self.out, name);
        self.out.push_str(" : ");
        self.out
    }

    fn close(self) {
        self.out.push('\n');
        if self.members == 0 {
            self.out.push('\n');
        }
        push_indent(self.out, self.indent - 2);
        self.out.push('}');
    }
}

fn push_indent(out: &mut String, spaces: usize) {
    const SPACES: &str = "                                ";
    let mut left = spaces;
    while left > 0 {
        let now = left.min(SPACES.len());
        out.push_str(&SPACES[..now]);
        left -= now;
    }
}

/// A JSON string as Foundation writes it: `"` and `\` escaped, line feeds, tabs and carriage
/// returns by letter, other control characters as `\u00XX`; `/` and everything else as is.
fn push_string(out: &mut String, text: &str) {
    out.push('"');
    const SPECIALS: Specials = Specials::new(0x20, b"\"\\");
    push_escaped(out, text, SPECIALS, |byte, out| match byte {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\t' => out.push_str("\\t"),
        b'\r' => out.push_str("\\r"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        control => out.push_str(&format!("\\u{control:04x}")),
    });
    out.push('"');
}

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
    /// Keys passed over: with `substitutions` or device variations.
    pub skipped: usize,
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
    match field("version").map(|version| version.as_str()) {
        Some(Some(version)) if VERSIONS.contains(&version) => {}
        Some(Some(version)) => {
            return Err(ReadError::unplaced(format!(
                "the catalog's version {version:?} is not one this server reads ({})",
                VERSIONS.join(", ")
            )));
        }
        _ => return Err(ReadError::unplaced("the catalog has no \"version\" string")),
    }
    let mut catalog = Catalog {
        source_language: source.clone(),
        ..Catalog::default()
    };
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
    let localizations = entry.get("localizations").map(Node::members).unwrap_or_default();
    let mut texts = Vec::with_capacity(localizations.len());
    for (language, localization) in localizations {
        match read_localization(localization).map_err(|why| invalid(format!("{language}: {why}")))? {
            Some(text) => texts.push((language.as_str(), text)),
            None => {
                catalog.skipped += 1;
                return Ok(());
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
            }),
            ..ParsedEntry::plain(name.to_owned(), String::new())
        };
        catalog.entries_of(language).push(entry);
    }
    Ok(())
}

/// A localization's text and whether it needs review; `None` for one this reader passes
/// over (substitutions, device variations).
fn read_localization(localization: &Node) -> Result<Option<(Text, bool)>, String> {
    if localization.get("substitutions").is_some() {
        return Ok(None);
    }
    if let Some(unit) = localization.get("stringUnit") {
        let (value, outdated) = read_unit(unit)?;
        return Ok(Some((Text::Plain(value), outdated)));
    }
    let Some(variations) = localization.get("variations") else {
        return Err("has neither a \"stringUnit\" nor \"variations\"".into());
    };
    let Some(plural) = variations.get("plural") else {
        return Ok(None);
    };
    if variations.members().len() > 1 {
        return Ok(None);
    }
    let mut forms = Vec::new();
    let mut any_outdated = false;
    for (category, form) in plural.members() {
        let category =
            PluralCategory::parse(category).ok_or_else(|| format!("{category:?} is not a CLDR plural category"))?;
        let unit = form
            .get("stringUnit")
            .ok_or_else(|| format!("the {} form has no \"stringUnit\"", category.name()))?;
        let (value, outdated) = read_unit(unit)?;
        any_outdated |= outdated;
        forms.push((category, value));
    }
    let forms = PluralForms::new(forms)?;
    Ok(Some((Text::Plural(forms), any_outdated)))
}

fn read_unit(unit: &Node) -> Result<(String, bool), String> {
    let value = unit
        .get("value")
        .and_then(Node::as_str)
        .ok_or("a \"stringUnit\" has no \"value\" string")?;
    let state = unit.get("state").and_then(Node::as_str).unwrap_or("translated");
    Ok((value.to_owned(), state == "needs_review"))
}

/// Writes a node as Xcode does (see the module's notes), at `indent` spaces for its members.
pub fn write_node(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
        Node::Number(number) => out.push_str(&number.to_string()),
        Node::String(text) => push_string(out, text),
        Node::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                out.push_str(if index == 0 { "\n" } else { ",\n" });
                push_indent(out, indent);
                write_node(out, item, indent + 2);
            }
            out.push('\n');
            if items.is_empty() {
                out.push('\n');
            }
            push_indent(out, indent - 2);
            out.push(']');
        }
        Node::Object(members) => {
            let mut fields = Fields::open(out, indent);
            for (name, value) in members {
                let out = fields.next(name);
                write_node(out, value, indent + 2);
            }
            fields.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xcodes_order_puts_punctuation_first_case_last_and_numbers_by_value() {
        let mut names = vec!["b", "Comment", "2x2", "10x10", "COMMENT", "...", "%@", "", "a"];
        names.sort_by(|a, b| xcode_order(a, b));
        assert_eq!(names, ["", "...", "%@", "2x2", "10x10", "a", "b", "Comment", "COMMENT"]);
        // The collation keys order the same way.
        let mut by_keys = vec!["COMMENT", "10x10", "b", "a", "%@", "2x2", "Comment", "...", ""];
        sort_in_xcode_order(&mut by_keys, |name| name);
        assert_eq!(by_keys, names);
    }

    #[test]
    fn strings_are_escaped_as_foundation_does() {
        let mut out = String::new();
        push_string(&mut out, "a \"b\" \\ c/d\ne\tf\u{1}😀");
        assert_eq!(out, r#""a \"b\" \\ c/d\ne\tf\u0001😀""#);
    }

    fn catalog(strings: &str) -> String {
        format!(r#"{{"sourceLanguage": "en", "version": "1.1", "strings": {{{strings}}}}}"#)
    }

    fn entries<'a>(catalog: &'a Catalog, language: &str) -> &'a [ParsedEntry] {
        &catalog.languages.iter().find(|(own, _)| own == language).unwrap().1
    }

    #[test]
    fn a_key_without_a_source_value_is_its_own_source_text() {
        let read = read(catalog(r#""Hello" : {}, "%lld days" : {"localizations": {"de": {"variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "ein Tag"}}, "other": {"stringUnit": {"state": "needs_review", "value": "%lld Tage"}}}}}}}"#).as_bytes()).unwrap();
        let en = entries(&read, "en");
        assert_eq!(en[0].text, Text::Plain("Hello".into()));
        assert!(en[0].xcode.as_ref().unwrap().source_from_key);
        assert_eq!(en[1].text, Text::Plural(PluralForms::other("%lld days".into())));
        let de = entries(&read, "de");
        assert!(de[0].outdated, "a form to review makes the translation outdated");
        assert_eq!(read.skipped, 0);
    }

    #[test]
    fn substitutions_and_device_variations_are_passed_over_and_counted() {
        let read = read(catalog(r#""a" : {"localizations": {"en": {"stringUnit": {"state": "translated", "value": "%#@n@"}, "substitutions": {"n": {"argNum": 1, "formatSpecifier": "lld"}}}}}, "b" : {"localizations": {"en": {"variations": {"device": {"mac": {"stringUnit": {"state": "translated", "value": "Click"}}}}}}}, "c" : {"comment": "Kept", "shouldTranslate": false, "extractionState": "stale"}"#).as_bytes()).unwrap();
        assert_eq!(read.skipped, 2);
        let en = entries(&read, "en");
        assert_eq!(en.len(), 1);
        assert_eq!(en[0].description.as_deref(), Some("Kept"));
        assert!(!en[0].translatable);
        assert_eq!(en[0].xcode.as_ref().unwrap().extraction_state.as_deref(), Some("stale"));
    }

    #[test]
    fn what_is_not_a_catalog_is_refused_with_why() {
        for (text, why) in [
            ("[]", "one JSON object"),
            (r#"{"version": "1.0", "strings": {}}"#, "sourceLanguage"),
            (
                r#"{"sourceLanguage": "en", "version": "2.0", "strings": {}}"#,
                "version \"2.0\"",
            ),
            (
                r#"{"sourceLanguage": "en", "version": "1.0", "strings": {"a": 1}}"#,
                "key \"a\"",
            ),
            (
                r#"{"sourceLanguage": "en", "version": "1.0", "strings": {"a": {"localizations": {"de": {"variations": {"plural": {"several": {"stringUnit": {"state": "translated", "value": "x"}}}}}}}}}"#,
                "not a CLDR plural category",
            ),
            ("{", "EOF"),
        ] {
            let err = read(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn a_catalog_written_reads_back_as_the_same_node_layout() {
        let text = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Calculator\" : {\n\n    },\n    \"x\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"X\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}";
        let node = parse(text.as_bytes()).unwrap();
        let mut out = String::new();
        write_node(&mut out, &node, 2);
        assert_eq!(out, text);
    }
}
