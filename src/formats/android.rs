//! Android `res/values*/strings.xml`, written so that `aapt2` compiles and links it and reads
//! every text back unchanged.
//!
//! Android's resource compiler reads a `<string>` in two layers: XML first (so `<` and `&`
//! are XML-escaped, which keeps markup-looking text as text), then its own string syntax,
//! where `'`, `"`, `\` need a backslash, a leading `@` or `?` would make a reference, runs of
//! spaces collapse unless the text is in double quotes, and `\n`, `\t`, `\uXXXX` are escapes.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt::Write as _;

use quick_xml::Reader;
use quick_xml::events::Event;

use super::{ExportError, ExportFile, ParsedEntry, ReadError, ReadWarning, texts};
use crate::domain::model::{Key, PluralCategory, PluralForms, TextRef};
use crate::domain::names::{KeyName, LanguageCode};

/// Android resource names of the keys, checked for clashes in `R`.
pub fn resource_names(keys: &[&Key]) -> Result<HashMap<KeyName, String>, ExportError> {
    let mut names = HashMap::with_capacity(keys.len());
    let mut fields: HashMap<String, &KeyName> = HashMap::with_capacity(keys.len());
    for key in keys {
        let name = resource_name(key.name.as_str());
        // `R.string` fields read `.` as `_`, so `a.b` and `a_b` clash there.
        if let Some(other) = fields.insert(name.replace('.', "_"), &key.name) {
            return Err(ExportError::NameClash(format!(
                "The keys {:?} and {:?} both become the Android resource name {:?}; rename one of them or filter by tags.",
                other.as_str(),
                key.name.as_str(),
                name.replace('.', "_")
            )));
        }
        names.insert(key.name.clone(), name);
    }
    Ok(names)
}

/// Renders one language's `strings.xml`; the base language goes into `values/`. Plain keys
/// are `<string>`, plural keys `<plurals>` with one `<item>` per form, and a key's
/// description is an XML comment on the line before its element.
///
/// The XML is written directly, four spaces an indent level, in the layout of quick-xml's
/// indenting writer that earlier versions used (byte-stable exports: a test pins the bytes);
/// with 100,000 keys × 50 languages the writer's per-element work was a fifth of an export.
pub fn render(
    keys: &[impl Borrow<Key>],
    names: &HashMap<KeyName, String>,
    language: &LanguageCode,
    is_base: bool,
    file: &str,
) -> ExportFile {
    let mut out = String::with_capacity(keys.len() * 80);
    out.push_str(r#"<?xml version="1.0" encoding="utf-8"?>"#);
    out.push_str("\n<resources");
    if keys.iter().any(|key| key.borrow().markup) {
        push_attribute(&mut out, "xmlns:xliff", XLIFF_NAMESPACE);
    }
    out.push('>');
    for (key, text) in texts(keys, language) {
        if !key.description.is_empty() {
            out.push_str("\n    <!--");
            out.push_str(&comment(&key.description));
            out.push_str("-->");
        }
        let name = names[&key.name].as_str();
        match text {
            TextRef::Plain(text) => {
                out.push_str("\n    <string");
                push_attribute(&mut out, "name", name);
                if !key.translatable {
                    push_attribute(&mut out, "translatable", "false");
                }
                if text.contains('%') {
                    // Without this, aapt2 refuses texts like "%s of %s" or "100% %d".
                    push_attribute(&mut out, "formatted", "false");
                }
                out.push('>');
                push_content(&mut out, text, key.markup);
                out.push_str("</string>");
            }
            TextRef::Plural(forms) => {
                out.push_str("\n    <plurals");
                push_attribute(&mut out, "name", name);
                if !key.translatable {
                    push_attribute(&mut out, "translatable", "false");
                }
                out.push('>');
                for (category, text) in forms.iter() {
                    out.push_str("\n        <item");
                    push_attribute(&mut out, "quantity", category.name());
                    out.push('>');
                    push_content(&mut out, text, key.markup);
                    out.push_str("</item>");
                }
                out.push_str("\n    </plurals>");
            }
        }
    }
    out.push_str("\n</resources>\n");
    ExportFile {
        path: path(language, is_base, file),
        bytes: out.into_bytes(),
    }
}

/// ` name="value"`, the value XML-escaped for an attribute.
fn push_attribute(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    out.push_str(&quick_xml::escape::escape(value));
    out.push('"');
}

/// The path of a language's file `file` (`strings.xml`, `plurals.xml`, ...): in `values/`
/// for the base language.
pub fn path(language: &LanguageCode, is_base: bool, file: &str) -> String {
    if is_base {
        format!("values/{file}")
    } else {
        format!("values-{}/{file}", qualifier(language))
    }
}

const XLIFF_NAMESPACE: &str = "urn:oasis:names:tc:xliff:document:1.2";

/// The XML content of an element holding `text`, as the export writes it (for the in-place
/// patcher).
pub fn element_content(text: &str, markup: bool) -> String {
    let mut out = String::new();
    push_content(&mut out, text, markup);
    out
}

/// A description as the export writes it: `<!-- text -->`.
pub fn description_comment(description: &str) -> String {
    format!("<!--{}-->", comment(description))
}

/// Appends the XML content of an element holding `text` (see [`content`]). Most texts need
/// no escape at all and are copied as they are.
fn push_content(out: &mut String, text: &str, markup: bool) {
    let as_is = !markup
        && !needs_quotes(text)
        && text
            .bytes()
            .all(|byte| (b' '..=b'~').contains(&byte) && !b"'\"\\@?&<>".contains(&byte));
    if as_is {
        out.push_str(text);
    } else {
        out.push_str(&content(text, markup));
    }
}

/// The XML content of an element holding `text`: Android-escaped and XML-escaped; for a
/// markup key, its tags are written as tags and only the text between them is escaped.
fn content(text: &str, markup: bool) -> String {
    if markup && let Some(pieces) = markup_pieces(text) {
        let plain: String = pieces.iter().filter_map(Piece::text).collect();
        let quote = needs_quotes(&plain);
        let mut out = String::new();
        if quote {
            out.push('"');
        }
        let mut at_start = true;
        for piece in &pieces {
            match piece {
                Piece::Text(text) => {
                    out.push_str(&xml_escape(&escape_segment(text, at_start)));
                    at_start &= text.is_empty();
                }
                Piece::Tag(raw) => out.push_str(raw),
            }
        }
        if quote {
            out.push('"');
        }
        return out;
    }
    xml_escape(&escape(text))
}

/// A stored markup text cut into text (entities resolved) and tags (kept as written).
enum Piece {
    Text(String),
    Tag(String),
}

impl Piece {
    fn text(&self) -> Option<&str> {
        match self {
            Piece::Text(text) => Some(text),
            Piece::Tag(_) => None,
        }
    }
}

/// Cuts a markup text into pieces; `None` when it is not a well-formed XML fragment (then it
/// is exported as literal text).
fn markup_pieces(text: &str) -> Option<Vec<Piece>> {
    let wrapped = format!("<r>{text}</r>");
    let mut reader = Reader::from_str(&wrapped);
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    loop {
        match reader.read_event().ok()? {
            Event::Start(start) => {
                depth += 1;
                if depth > 1 {
                    pieces.push(Piece::Tag(format!("<{}>", std::str::from_utf8(&start).ok()?)));
                }
            }
            Event::End(end) => {
                depth = depth.checked_sub(1)?;
                if depth > 0 {
                    pieces.push(Piece::Tag(format!(
                        "</{}>",
                        std::str::from_utf8(end.name().as_ref()).ok()?
                    )));
                }
            }
            Event::Empty(empty) => pieces.push(Piece::Tag(format!("<{}/>", std::str::from_utf8(&empty).ok()?))),
            Event::Text(text) => push_text(&mut pieces, &text.decode().ok()?),
            Event::CData(cdata) => push_text(&mut pieces, std::str::from_utf8(&cdata).ok()?),
            Event::GeneralRef(reference) => push_text(&mut pieces, &resolve_reference(&reference)?),
            Event::Eof => break,
            _ => {}
        }
    }
    (depth == 0).then_some(pieces)
}

fn push_text(pieces: &mut Vec<Piece>, text: &str) {
    match pieces.last_mut() {
        Some(Piece::Text(last)) => last.push_str(text),
        _ => pieces.push(Piece::Text(text.to_owned())),
    }
}

/// The text an entity or character reference stands for.
fn resolve_reference(reference: &quick_xml::events::BytesRef<'_>) -> Option<String> {
    if let Ok(Some(c)) = reference.resolve_char_ref() {
        return Some(c.to_string());
    }
    let name = reference.decode().ok()?;
    quick_xml::escape::resolve_predefined_entity(&name).map(str::to_owned)
}

/// XML-escapes text content (`&`, `<`, `>`).
fn xml_escape(text: &str) -> String {
    quick_xml::escape::partial_escape(text).into_owned()
}

/// A description as comment text: `--` may not appear in an XML comment, nor a final `-`.
fn comment(description: &str) -> String {
    let mut text = description.to_owned();
    while text.contains("--") {
        text = text.replace("--", "- -");
    }
    format!(" {text} ")
}

/// A key name as a valid resource name: characters outside `[A-Za-z0-9_.]` become `_`, a
/// leading digit or `.` gets a `_` in front, a Java keyword gets a `_` after it.
pub fn resource_name(key: &str) -> String {
    let mut name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        name.insert(0, '_');
    }
    if JAVA_KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// The resource qualifier of a language: `fr`, `pt-rBR` for a language and region, and the
/// BCP 47 form `b+zh+Hans` for everything else.
pub fn qualifier(language: &LanguageCode) -> String {
    let subtags: Vec<&str> = language.subtags().collect();
    let primary = subtags[0].to_ascii_lowercase();
    let is_region = |tag: &str| {
        (tag.len() == 2 && tag.bytes().all(|b| b.is_ascii_alphabetic()))
            || (tag.len() == 3 && tag.bytes().all(|b| b.is_ascii_digit()))
    };
    match &subtags[1..] {
        [] if primary.len() == 2 => primary,
        [region] if primary.len() == 2 && is_region(region) => {
            format!("{primary}-r{}", region.to_ascii_uppercase())
        }
        rest => std::iter::once(primary.as_str())
            .chain(rest.iter().copied())
            .fold("b".to_owned(), |acc, tag| acc + "+" + tag),
    }
}

/// Whether aapt2 would collapse or trim the spaces of `text` unless it is in double quotes.
fn needs_quotes(text: &str) -> bool {
    text.starts_with(' ') || text.ends_with(' ') || text.contains("  ")
}

/// Escapes a text for Android's string syntax (the XML layer is escaped by the writer).
pub fn escape(text: &str) -> String {
    let keep_spaces = needs_quotes(text);
    let mut out = String::with_capacity(text.len() + 8);
    if keep_spaces {
        out.push('"');
    }
    out.push_str(&escape_segment(text, true));
    if keep_spaces {
        out.push('"');
    }
    out
}

/// Escapes one run of text; `at_start` when it begins the string (where `@` and `?` would
/// make a reference).
fn escape_segment(text: &str, at_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (index, c) in text.chars().enumerate() {
        match c {
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '@' | '?' if index == 0 && at_start => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "void",
    "volatile",
    "while",
    "_",
];

mod folders;
mod read;

pub use folders::{ANDROID_ALIASES, android_language};
pub use read::{ReadFile, read};

#[cfg(test)]
mod tests;
