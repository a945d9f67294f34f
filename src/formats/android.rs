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

/// What a `values*/*.xml` file holds: its strings and plurals, and how many other resources
/// (`<string-array>`, `<dimen>`, `<color>`, ...) it skipped.
#[derive(Debug, Default)]
pub struct ReadFile {
    pub entries: Vec<ParsedEntry>,
    pub skipped: usize,
    /// Strings and plurals passed over: a plural without an `other` form, say.
    pub warnings: Vec<ReadWarning>,
}

/// Reads an Android resource file the way aapt2 reads its strings: XML first (entities,
/// CDATA), then Android's string syntax (backslash escapes, `\uXXXX`, double quotes that keep
/// spaces, runs of white space collapsed and trimmed outside quotes). Inline tags make the
/// text a markup text; the comment directly above an element is its description.
pub fn read(bytes: &[u8]) -> Result<ReadFile, ReadError> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    // Line numbers by binary search over the line ends, found once: counting from the start
    // for every element would make a file of n strings cost n² to read.
    let line_ends: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    let line_at = |position: u64| line_ends.partition_point(|end| *end < position as usize) + 1;
    let fail = |position: u64, message: String| ReadError::at(line_at(position), message);
    let mut file = ReadFile::default();
    let mut depth = 0usize;
    let mut comment: Option<String> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
        match event {
            Event::Start(start) if depth == 0 => {
                if start.name().as_ref() != b"resources" {
                    return Err(fail(position, "the root element must be <resources>".into()));
                }
                depth = 1;
            }
            // `<skip/>` and `<eat-comment/>` only drop the comment above them, as in aapt2.
            Event::Empty(empty) if depth == 1 && matches!(empty.name().as_ref(), b"skip" | b"eat-comment") => {
                comment = None;
            }
            Event::Empty(empty) if depth == 1 && empty.name().as_ref() == b"string" && is_default_product(&empty) => {
                let Some(name) = attribute(&empty, b"name") else {
                    return Err(fail(position, "an element has no `name` attribute".into()));
                };
                let mut entry = ParsedEntry::plain(name, String::new());
                entry.description = comment.take();
                entry.translatable = is_translatable(&empty);
                file.entries.push(entry.at_line(line_at(position)));
            }
            Event::Empty(_) if depth == 1 => {
                file.skipped += 1;
                comment = None;
            }
            Event::Start(start) if depth == 1 => {
                let line = line_at(position);
                let description = comment.take();
                let element = start.name().as_ref().to_vec();
                let name = match attribute(&start, b"name") {
                    Some(name) => name,
                    None if element == b"string" || element == b"plurals" => {
                        return Err(ReadError::at(line, "an element has no `name` attribute"));
                    }
                    None => String::new(),
                };
                let mut entry = match element.as_slice() {
                    // A build without `--product` keeps only the default variant of a string.
                    b"string" | b"plurals" if !is_default_product(&start) => {
                        reader
                            .read_to_end(start.name())
                            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
                        file.skipped += 1;
                        continue;
                    }
                    b"string" => {
                        let decoded = decode_content(&mut reader, b"string")
                            .map_err(|err| fail(reader.buffer_position(), err))?;
                        let mut entry = ParsedEntry::plain(name, decoded.value());
                        entry.markup = decoded.markup;
                        entry.translatable = is_translatable(&start);
                        entry
                    }
                    b"plurals" => {
                        let translatable = is_translatable(&start);
                        let read = read_plurals(&mut reader, name.clone(), line).map_err(|err| match err.line {
                            Some(_) => err,
                            None => ReadError::at(line, err.message),
                        })?;
                        match read {
                            Ok(mut entry) => {
                                entry.translatable = translatable;
                                entry
                            }
                            Err(message) => {
                                file.warnings.push(ReadWarning {
                                    line,
                                    key: name,
                                    message,
                                });
                                continue;
                            }
                        }
                    }
                    _ => {
                        reader
                            .read_to_end(start.name())
                            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
                        file.skipped += 1;
                        continue;
                    }
                };
                entry.description = description;
                file.entries.push(entry.at_line(line));
            }
            Event::Comment(text) if depth == 1 => {
                comment = Some(
                    text.decode()
                        .map_err(|err| fail(position, err.to_string()))?
                        .trim()
                        .to_owned(),
                );
            }
            // White space between elements keeps the comment; any other text drops it.
            Event::Text(text) if depth == 1 && !text.iter().all(u8::is_ascii_whitespace) => comment = None,
            Event::End(_) if depth == 1 => depth = 0,
            Event::Eof if depth == 0 => return Ok(file),
            Event::Eof => return Err(fail(position, "the file ends inside <resources>".into())),
            _ => {}
        }
    }
}

/// Whether a string is for translation: not `translatable="false"`.
fn is_translatable(start: &quick_xml::events::BytesStart<'_>) -> bool {
    attribute(start, b"translatable").is_none_or(|value| value != "false")
}

/// Whether an element is for every product: no `product` attribute, or `product="default"`.
/// Variants for other products (`tablet`, `tv`, ...) are what `aapt2 link --product` picks.
fn is_default_product(start: &quick_xml::events::BytesStart<'_>) -> bool {
    attribute(start, b"product").is_none_or(|product| product == "default")
}

fn attribute(start: &quick_xml::events::BytesStart<'_>, name: &[u8]) -> Option<String> {
    start
        .attributes()
        .flatten()
        .find(|attribute| attribute.key.as_ref() == name)
        .and_then(|attribute| attribute.unescape_value().ok().map(|value| value.into_owned()))
}

/// Reads a `<plurals>` element after its start: the entry, or (inside) why it cannot be
/// taken (no `other` form), which passes it over rather than refusing the file.
fn read_plurals(
    reader: &mut Reader<&[u8]>,
    name: String,
    line: usize,
) -> Result<Result<ParsedEntry, String>, ReadError> {
    let mut forms = Vec::new();
    let mut markup = false;
    let mut decoded_forms = Vec::new();
    loop {
        match reader
            .read_event()
            .map_err(|err| ReadError::unplaced(err.to_string()))?
        {
            Event::Start(start) if start.name().as_ref() == b"item" => {
                let quantity = attribute(&start, b"quantity").unwrap_or_default();
                let category = PluralCategory::parse(&quantity).ok_or_else(|| {
                    ReadError::at(
                        line,
                        format!(
                            "plurals {name:?}: the quantity {quantity:?} is not one of {}",
                            PluralCategory::NAMES
                        ),
                    )
                })?;
                let decoded = decode_content(reader, b"item").map_err(|err| ReadError::at(line, err))?;
                markup |= decoded.markup;
                decoded_forms.push((category, decoded));
            }
            Event::Empty(start) if start.name().as_ref() == b"item" => {}
            Event::End(end) if end.name().as_ref() == b"plurals" => break,
            Event::Eof => return Err(ReadError::at(line, format!("plurals {name:?} is not closed"))),
            _ => {}
        }
    }
    for (category, decoded) in decoded_forms {
        forms.push((category, if markup { decoded.fragment } else { decoded.plain }));
    }
    let forms = match PluralForms::new(forms) {
        Ok(forms) => forms,
        Err(err) => return Ok(Err(format!("plurals {name:?} is passed over: {err}"))),
    };
    let mut entry = ParsedEntry::plural(name, forms);
    entry.markup = markup;
    Ok(Ok(entry))
}

/// An element's text as aapt2 reads it: the plain text, and the same with its inline tags
/// (a markup text) when it has any.
struct Decoded {
    plain: String,
    fragment: String,
    markup: bool,
}

impl Decoded {
    fn value(&self) -> String {
        if self.markup {
            self.fragment.clone()
        } else {
            self.plain.clone()
        }
    }
}

/// One character of the decoded text, and whether it is white space outside quotes (which
/// aapt2 trims at the ends of the string).
type DecodedChar = (char, bool);

/// Reads the content of the element just opened up to its end tag named `element`.
fn decode_content(reader: &mut Reader<&[u8]>, element: &[u8]) -> Result<Decoded, String> {
    let mut builder = StringBuilder::default();
    let mut pieces: Vec<Result<Vec<DecodedChar>, String>> = Vec::new();
    let mut depth = 0usize;
    let mut markup = false;
    loop {
        match reader.read_event().map_err(|err| err.to_string())? {
            Event::Text(text) => {
                let raw = text.decode().map_err(|err| err.to_string())?;
                pieces.push(Ok(builder.append(&raw)));
            }
            Event::CData(cdata) => {
                let raw = std::str::from_utf8(&cdata).map_err(|err| err.to_string())?.to_owned();
                pieces.push(Ok(builder.append(&raw)));
            }
            Event::GeneralRef(reference) => {
                let text = resolve_reference(&reference)
                    .ok_or_else(|| format!("unknown entity &{};", String::from_utf8_lossy(&reference)))?;
                pieces.push(Ok(builder.append(&text)));
            }
            Event::Start(start) => {
                depth += 1;
                markup = true;
                pieces.push(Err(format!("<{}>", String::from_utf8_lossy(&start))));
            }
            Event::Empty(empty) => {
                markup = true;
                pieces.push(Err(format!("<{}/>", String::from_utf8_lossy(&empty))));
            }
            Event::End(end) if depth == 0 && end.name().as_ref() == element => break,
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                pieces.push(Err(format!("</{}>", String::from_utf8_lossy(end.name().as_ref()))));
            }
            Event::Eof => return Err(format!("<{}> is not closed", String::from_utf8_lossy(element))),
            _ => {}
        }
    }
    // Trim white space from outside quotes at both ends of the whole text, across tags.
    let chars: Vec<&DecodedChar> = pieces.iter().flat_map(|piece| piece.iter().flatten()).collect();
    let leading = chars.iter().take_while(|(_, trimmable)| *trimmable).count();
    let trailing = chars[leading..]
        .iter()
        .rev()
        .take_while(|(_, trimmable)| *trimmable)
        .count();
    let keep = leading..chars.len() - trailing;
    let mut plain = String::new();
    let mut fragment = String::new();
    let mut index = 0;
    for piece in &pieces {
        match piece {
            Ok(text) => {
                let mut run = String::new();
                for (c, _) in text {
                    if keep.contains(&index) {
                        run.push(*c);
                    }
                    index += 1;
                }
                plain.push_str(&run);
                fragment.push_str(&xml_escape(&run));
            }
            Err(tag) => fragment.push_str(tag),
        }
    }
    Ok(Decoded {
        plain,
        fragment,
        markup,
    })
}

/// aapt2's string builder: the quote and escape state runs across the pieces of one string.
#[derive(Default)]
struct StringBuilder {
    quoted: bool,
    last_was_space: bool,
}

impl StringBuilder {
    fn append(&mut self, text: &str) -> Vec<DecodedChar> {
        let mut out = Vec::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if !self.quoted && c.is_ascii_whitespace() {
                if !self.last_was_space {
                    out.push((' ', true));
                    self.last_was_space = true;
                }
                continue;
            }
            self.last_was_space = false;
            match c {
                '\\' => match chars.next() {
                    Some('t') => out.push(('\t', false)),
                    Some('n') => out.push(('\n', false)),
                    Some('u') => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            match chars.peek().and_then(|c| c.to_digit(16)) {
                                Some(digit) => {
                                    code = code * 16 + digit;
                                    chars.next();
                                }
                                None => break,
                            }
                        }
                        out.push((char::from_u32(code).unwrap_or('\u{fffd}'), false));
                    }
                    Some(other) => out.push((other, false)),
                    None => {}
                },
                '"' => self.quoted = !self.quoted,
                c => out.push((c, false)),
            }
        }
        out
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    #[test]
    fn qualifiers_follow_android_rules() {
        assert_eq!(qualifier(&code("fr")), "fr");
        assert_eq!(qualifier(&code("pt-BR")), "pt-rBR");
        assert_eq!(qualifier(&code("pt_br")), "pt-rBR");
        assert_eq!(qualifier(&code("es-419")), "es-r419");
        assert_eq!(qualifier(&code("zh-Hans")), "b+zh+Hans");
        assert_eq!(qualifier(&code("sr-Latn-RS")), "b+sr+Latn+RS");
        assert_eq!(qualifier(&code("fil")), "b+fil");
    }

    #[test]
    fn resource_names_are_mapped_to_valid_ones() {
        assert_eq!(resource_name("home.title"), "home.title");
        assert_eq!(resource_name("errors/network"), "errors_network");
        assert_eq!(resource_name("1st"), "_1st");
        assert_eq!(resource_name(".hidden"), "_.hidden");
        assert_eq!(resource_name("class"), "class_");
        assert_eq!(resource_name("Hello, %@!"), "Hello_____");
    }

    #[test]
    fn clashing_resource_names_name_both_keys() {
        let key = |name: &str| Key::named(KeyName::parse(name).unwrap());
        let err = resource_names(&[&key("a.b"), &key("a_b")]).unwrap_err().to_string();
        assert!(err.contains("\"a.b\"") && err.contains("\"a_b\""), "{err}");
        assert!(resource_names(&[&key("a.b"), &key("a.c")]).is_ok());
    }

    fn read_one(xml: &str) -> ParsedEntry {
        let file = read(format!("<resources>{xml}</resources>").as_bytes()).unwrap();
        file.entries.into_iter().next().unwrap()
    }

    #[test]
    fn strings_are_read_with_aapt2_rules() {
        let plain = |xml: &str| {
            read_one(&format!("<string name=\"k\">{xml}</string>"))
                .text
                .as_plain()
                .unwrap()
                .to_owned()
        };
        assert_eq!(plain("  a \n  b  "), "a b");
        assert_eq!(plain("\"  keep  \" x"), "  keep   x");
        assert_eq!(
            plain("it\\'s \\\"q\\\" \\\\ \\n\\t \\u00e9 \\@"),
            "it's \"q\" \\ \n\t é @"
        );
        assert_eq!(plain("&amp;&lt;&#x41;"), "&<A");
        assert_eq!(plain("<![CDATA[<b>x</b>]]>"), "<b>x</b>");
        for text in [
            "apostrophe's",
            " lead",
            "trail ",
            "a  b",
            "@x",
            "?y",
            "tab\there",
            "line\nnext",
            "say \"hi\" \\o/",
            "<b>not markup</b> & more",
            "%1$s 100%",
        ] {
            let xml = content(text, false);
            assert_eq!(plain(&xml), text, "{xml}");
        }
    }

    #[test]
    fn inline_markup_is_kept_as_a_markup_text_and_written_back() {
        let entry = read_one("<string name=\"k\">Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>\\'s</string>");
        assert!(entry.markup);
        let text = entry.text.as_plain().unwrap();
        assert_eq!(text, "Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>'s");
        let written = content(text, true);
        assert_eq!(written, "Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>\\'s");
        let again = read_one(&format!("<string name=\"k\">{written}</string>"));
        assert_eq!(again.text.as_plain(), Some(text));
    }

    #[test]
    fn only_default_products_are_read_and_skip_elements_drop_the_comment() {
        let file = read(
            br#"<resources>
  <!-- Shown on phones -->
  <string name="where">On your phone</string>
  <string name="where" product="tablet">On your tablet</string>
  <string name="size" product="tv">Big</string>
  <string name="size" product="default">Normal</string>
  <!-- Not about the next one --> <skip />
  <string name="blank" />
</resources>"#,
        )
        .unwrap();
        let read: Vec<_> = file
            .entries
            .iter()
            .map(|entry| {
                (
                    entry.name.as_str(),
                    entry.text.as_plain().unwrap(),
                    entry.description.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            read,
            [
                ("where", "On your phone", Some("Shown on phones")),
                ("size", "Normal", None),
                ("blank", "", None)
            ]
        );
        assert_eq!(file.skipped, 2, "the tablet and tv variants");
    }

    #[test]
    fn plurals_comments_and_other_resources() {
        let file = read(
            b"<?xml version=\"1.0\"?>\n<resources>\n  <!-- Episodes count -->\n  <plurals name=\"eps\">\n    <item quantity=\"one\">%d episode</item>\n    <item quantity=\"other\">%d episodes</item>\n  </plurals>\n  <string-array name=\"a\"><item>x</item></string-array>\n  <dimen name=\"d\">2dp</dimen>\n  <string name=\"s\">S</string>\n</resources>\n",
        )
        .unwrap();
        assert_eq!(file.skipped, 2);
        assert_eq!(file.entries.len(), 2);
        let plural = &file.entries[0];
        assert_eq!(plural.description.as_deref(), Some("Episodes count"));
        assert_eq!(plural.line, 4);
        let forms = plural.text.as_plural().unwrap();
        assert_eq!(forms.get(PluralCategory::One), Some("%d episode"));
        assert_eq!(file.entries[1].description, None);
        let err = read(b"<resources>\n<string name=\"a\">x</strin>\n</resources>").unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
    }

    #[test]
    fn a_language_without_texts_is_an_empty_resources_element() {
        let keys: Vec<Key> = Vec::new();
        let file = render(
            &keys,
            &HashMap::new(),
            &LanguageCode::parse("de").unwrap(),
            false,
            "strings.xml",
        );
        assert_eq!(file.path, "values-de/strings.xml");
        assert_eq!(
            String::from_utf8(file.bytes).unwrap(),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n</resources>\n"
        );
    }

    #[test]
    fn texts_are_escaped_for_aapt2() {
        assert_eq!(escape("it's"), "it\\'s");
        assert_eq!(escape("@string/x"), "\\@string/x");
        assert_eq!(escape("?attr"), "\\?attr");
        assert_eq!(escape("a@b?"), "a@b?");
        assert_eq!(escape("line\nnext\ttab"), "line\\nnext\\ttab");
        assert_eq!(escape(" padded  "), "\" padded  \"");
        assert_eq!(escape("say \"hi\" \\o/"), "say \\\"hi\\\" \\\\o/");
    }
}
