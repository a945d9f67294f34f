//! Android `values*/*.xml` patched in place: `<string>` and `<plurals>` elements (the
//! default product's) are compared by the values aapt2 reads from them; everything else in
//! the file (`<string-array>`, `<dimen>`, `translatable="false"` attributes, `tools:`
//! namespaces, comments, blank lines) is copied byte for byte.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Edits, PatchInput, Patched, anchors, end_of_line, indentation_at, line_ending, start_of_line};
use crate::domain::model::{PluralCategory, Text};
use crate::formats::android::{self, description_comment, element_content};
use crate::formats::{ParsedEntry, ReadError};

/// The names of a file's strings and plurals, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let text = utf8(bytes)?;
    Ok(scan(text)?.elements.into_iter().map(|element| element.name).collect())
}

/// Patches the app's file with the export's values (see the module's rules in
/// [`super`]). Elements whose bytes (and, in the base file, whose comment) equal the export's
/// are equal without being decoded; only the others are read as aapt2 reads them.
pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let local_text = utf8(input.local)?;
    let exported_text = utf8(input.exported)?;
    let local = scan(local_text)?;
    let exported = scan(exported_text)?;
    let theirs: HashMap<&str, &Element> = exported
        .elements
        .iter()
        .map(|element| (element.name.as_str(), element))
        .collect();
    let newline = line_ending(local_text);
    let indent = local
        .elements
        .iter()
        .find_map(|element| indentation_at(local_text, element.range.start))
        .filter(|indent| !indent.is_empty())
        .unwrap_or("    ")
        .to_owned();

    let mut edits = Edits::default();
    let mut present: HashSet<&str> = HashSet::with_capacity(local.elements.len());
    let mut names = Vec::new();
    for element in &local.elements {
        present.insert(&element.name);
        match theirs.get(element.name.as_str()) {
            Some(server) => {
                if input.is_base {
                    names.push(element.name.clone());
                }
                let same_element = local_text[element.range.clone()] == exported_text[server.range.clone()];
                let same_comment =
                    !input.is_base || comment_text(local_text, element) == comment_text(exported_text, server);
                if same_element && same_comment {
                    continue;
                }
                let (Some(ours), Some(theirs)) = (decode(local_text, element)?, decode(exported_text, server)?) else {
                    continue;
                };
                update(
                    local_text,
                    element,
                    &ours,
                    &theirs,
                    input.is_base,
                    &indent,
                    newline,
                    &mut edits,
                );
            }
            None if (input.deleted)(&element.name) => {
                let start = element
                    .comment
                    .as_ref()
                    .map_or(element.range.start, |comment| comment.start);
                edits.replace(
                    start_of_line(local_text, start)..end_of_line(local_text, element.range.end),
                    "",
                );
            }
            None => {
                if input.is_base {
                    names.push(element.name.clone());
                }
            }
        }
    }

    // Keys new to the file, each after the nearest key before it in the base file's order
    // that this file has (at the end when there is none), in the export's order.
    let new: Vec<&Element> = exported
        .elements
        .iter()
        .filter(|element| !present.contains(element.name.as_str()))
        .collect();
    let ends: HashMap<&str, usize> = local
        .elements
        .iter()
        .map(|element| (element.name.as_str(), element.range.end))
        .collect();
    let new_names: Vec<&str> = new.iter().map(|element| element.name.as_str()).collect();
    let anchors = anchors(input.order, &new_names, |name| ends.get(name).copied());
    for (element, anchor) in new.iter().zip(anchors) {
        let snippet = new_element(exported_text, element, &indent, newline);
        if input.is_base {
            names.push(element.name.clone());
        }
        match (anchor, local.resources_end) {
            (Some(end), _) => edits.insert(end, format!("{newline}{indent}{snippet}")),
            (None, Some(close)) => {
                let line_start = start_of_line(local_text, close);
                if line_start < close || local_text[..close].ends_with('\n') {
                    edits.insert(line_start, format!("{indent}{snippet}{newline}"));
                } else {
                    edits.insert(close, format!("{newline}{indent}{snippet}{newline}"));
                }
            }
            // `<resources/>`: nothing to insert into; the export's file is written instead.
            (None, None) => {
                return Ok(Patched {
                    body: super::Body::Bytes(input.exported.to_vec()),
                    names: input
                        .is_base
                        .then(|| exported.elements.iter().map(|element| element.name.clone()).collect()),
                    whole: true,
                });
            }
        }
    }
    Ok(Patched::of(input, edits, local_text, names))
}

/// The text of the comment directly above an element, as a description (trimmed).
fn comment_text<'t>(text: &'t str, element: &Element) -> &'t str {
    element.comment.as_ref().map_or("", |range| {
        text[range.clone()]
            .trim_start_matches("<!--")
            .trim_end_matches("-->")
            .trim()
    })
}

/// One element (with the comment above it) read as aapt2 reads it.
fn decode(text: &str, element: &Element) -> Result<Option<ParsedEntry>, ReadError> {
    let mut snippet = String::from("<resources>");
    if let Some(comment) = &element.comment {
        snippet.push_str(&text[comment.clone()]);
    }
    snippet.push_str(&text[element.range.clone()]);
    snippet.push_str("</resources>");
    Ok(android::read(snippet.as_bytes())?.entries.pop())
}

/// A `<string>` or `<plurals>` of the default product, with where it and its parts are.
struct Element {
    name: String,
    /// From the `<` of its start tag to past its end tag.
    range: Range<usize>,
    /// A string's content; `None` for `<string .../>` and for plurals.
    content: Option<Range<usize>>,
    /// A plural's items.
    items: Vec<Item>,
    /// The comment directly above it.
    comment: Option<Range<usize>>,
}

struct Item {
    category: Option<PluralCategory>,
    range: Range<usize>,
    content: Option<Range<usize>>,
}

struct Scanned {
    elements: Vec<Element>,
    /// Where `</resources>` starts.
    resources_end: Option<usize>,
}

fn utf8(bytes: &[u8]) -> Result<&str, ReadError> {
    std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))
}

/// Finds the strings and plurals of a resource file with their places; the comment rules
/// are [`android::read`]'s (white space keeps a comment, anything else drops it).
fn scan(text: &str) -> Result<Scanned, ReadError> {
    let mut reader = Reader::from_str(text);
    let fail = |message: String| ReadError::unplaced(message);
    let mut scanned = Scanned {
        elements: Vec::new(),
        resources_end: None,
    };
    let mut depth = 0usize;
    let mut comment: Option<Range<usize>> = None;
    loop {
        let before = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|err| fail(err.to_string()))?;
        match event {
            Event::Start(_) if depth == 0 => depth = 1,
            Event::Empty(empty) if depth == 1 && empty.name().as_ref() == b"string" && is_default_product(&empty) => {
                if let Some(name) = attribute(&empty, b"name") {
                    scanned.elements.push(Element {
                        name,
                        range: before..reader.buffer_position() as usize,
                        content: None,
                        items: Vec::new(),
                        comment: comment.take(),
                    });
                }
                comment = None;
            }
            Event::Start(start) if depth == 1 => {
                let kind = start.name().as_ref().to_vec();
                let wanted = matches!(kind.as_slice(), b"string" | b"plurals") && is_default_product(&start);
                let name = attribute(&start, b"name");
                match (wanted, name) {
                    (true, Some(name)) if kind == b"string" => {
                        let span = reader.read_to_end(start.name()).map_err(|err| fail(err.to_string()))?;
                        scanned.elements.push(Element {
                            name,
                            range: before..reader.buffer_position() as usize,
                            content: Some(span.start as usize..span.end as usize),
                            items: Vec::new(),
                            comment: comment.take(),
                        });
                    }
                    (true, Some(name)) => {
                        let items = scan_items(&mut reader)?;
                        scanned.elements.push(Element {
                            name,
                            range: before..reader.buffer_position() as usize,
                            content: None,
                            items,
                            comment: comment.take(),
                        });
                    }
                    _ => {
                        reader.read_to_end(start.name()).map_err(|err| fail(err.to_string()))?;
                    }
                }
                comment = None;
            }
            Event::Empty(_) if depth == 1 => comment = None,
            Event::Comment(_) if depth == 1 => comment = Some(before..reader.buffer_position() as usize),
            Event::Text(text) if depth == 1 && !text.iter().all(u8::is_ascii_whitespace) => comment = None,
            Event::End(_) if depth == 1 => {
                scanned.resources_end = Some(before);
                depth = 0;
            }
            Event::Eof => return Ok(scanned),
            _ => {}
        }
    }
}

/// The `<item>`s of a `<plurals>`, after its start tag; leaves the reader past its end tag.
fn scan_items(reader: &mut Reader<&[u8]>) -> Result<Vec<Item>, ReadError> {
    let fail = |message: String| ReadError::unplaced(message);
    let mut items = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event().map_err(|err| fail(err.to_string()))? {
            Event::Start(start) if start.name().as_ref() == b"item" => {
                let category = attribute(&start, b"quantity").and_then(|quantity| PluralCategory::parse(&quantity));
                let span = reader.read_to_end(start.name()).map_err(|err| fail(err.to_string()))?;
                items.push(Item {
                    category,
                    range: before..reader.buffer_position() as usize,
                    content: Some(span.start as usize..span.end as usize),
                });
            }
            Event::Empty(empty) if empty.name().as_ref() == b"item" => items.push(Item {
                category: attribute(&empty, b"quantity").and_then(|quantity| PluralCategory::parse(&quantity)),
                range: before..reader.buffer_position() as usize,
                content: None,
            }),
            Event::End(end) if end.name().as_ref() == b"plurals" => return Ok(items),
            Event::Eof => return Err(fail("a <plurals> is not closed".into())),
            _ => {}
        }
    }
}

/// Edits one element whose key the server has: nothing when the values (and, in the base
/// file, the description) are equal; else the new value in the element's own style.
#[allow(clippy::too_many_arguments)]
fn update(
    text: &str,
    element: &Element,
    local: &ParsedEntry,
    server: &ParsedEntry,
    is_base: bool,
    indent: &str,
    newline: &str,
    edits: &mut Edits,
) {
    if local.text != server.text || local.markup != server.markup {
        match (&local.text, &server.text) {
            (Text::Plain(_), Text::Plain(value)) => {
                set_content(
                    text,
                    element.range.clone(),
                    element.content.clone(),
                    value,
                    server.markup,
                    edits,
                );
            }
            (Text::Plural(old), Text::Plural(new)) => {
                for item in &element.items {
                    let Some(category) = item.category else { continue };
                    match new.get(category) {
                        Some(value) if old.get(category) != Some(value) || local.markup != server.markup => {
                            set_content(
                                text,
                                item.range.clone(),
                                item.content.clone(),
                                value,
                                server.markup,
                                edits,
                            );
                        }
                        Some(_) => {}
                        None => edits.replace(
                            start_of_line(text, item.range.start)..end_of_line(text, item.range.end),
                            "",
                        ),
                    }
                }
                // Forms the file lacks go after its last item, with that item's indentation.
                let last = element.items.last().map_or(element.range.start, |item| item.range.end);
                let item_indent = element
                    .items
                    .first()
                    .and_then(|item| indentation_at(text, item.range.start))
                    .map_or_else(|| format!("{indent}{indent}"), str::to_owned);
                for (category, value) in new.iter() {
                    if element.items.iter().any(|item| item.category == Some(category)) {
                        continue;
                    }
                    edits.insert(
                        last,
                        format!(
                            "{newline}{item_indent}<item quantity=\"{}\">{}</item>",
                            category.name(),
                            element_content(value, server.markup)
                        ),
                    );
                }
            }
            // The kinds differ (the base language decides; the server passed this entry
            // over), so the entry is the app's own: it stays.
            _ => {}
        }
    }
    let description = server.description.as_deref().unwrap_or_default();
    if is_base && local.description.as_deref().unwrap_or_default() != description && !description.is_empty() {
        let comment = description_comment(description);
        match &element.comment {
            Some(range) => edits.replace(range.clone(), comment),
            None => {
                let line_indent = indentation_at(text, element.range.start).unwrap_or(indent);
                let at = element.range.start;
                if indentation_at(text, at).is_some() {
                    edits.insert(at, format!("{comment}{newline}{line_indent}"));
                } else {
                    edits.insert(at, comment);
                }
            }
        }
    }
}

/// Sets an element's content to `value` as the export escapes it, in double quotes when the
/// old content was written in them (the file's style).
fn set_content(
    text: &str,
    element: Range<usize>,
    content: Option<Range<usize>>,
    value: &str,
    markup: bool,
    edits: &mut Edits,
) {
    let mut new = element_content(value, markup);
    match content {
        Some(content) => {
            let old = text[content.clone()].trim();
            let quoted = old.len() >= 2 && old.starts_with('"') && old.ends_with('"') && !old.ends_with("\\\"");
            if quoted && !new.starts_with('"') {
                new = format!("\"{new}\"");
            }
            edits.replace(content, new);
        }
        // `<string name="x"/>`: the empty element gets content and an end tag.
        None => {
            let tag = &text[element.clone()];
            let name_end = tag
                .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
                .unwrap_or(tag.len());
            let element_name = &tag[1..name_end];
            let head = tag.trim_end_matches('>').trim_end_matches('/').trim_end();
            edits.replace(element, format!("{head}>{new}</{element_name}>"));
        }
    }
}

/// An element of the export as it goes into the app's file: its comment and element,
/// re-indented from the export's four spaces a level to the file's unit.
fn new_element(exported: &str, element: &Element, indent: &str, newline: &str) -> String {
    let mut snippet = String::new();
    if let Some(comment) = &element.comment {
        snippet.push_str(&exported[comment.clone()]);
        snippet.push_str(newline);
        snippet.push_str(indent);
    }
    for (index, line) in exported[element.range.clone()].split('\n').enumerate() {
        if index > 0 {
            let trimmed = line.trim_start_matches(' ');
            let levels = (line.len() - trimmed.len()) / 4;
            snippet.push_str(newline);
            snippet.push_str(&indent.repeat(levels));
            snippet.push_str(trimmed);
        } else {
            snippet.push_str(line);
        }
    }
    snippet
}

fn is_default_product(start: &BytesStart<'_>) -> bool {
    attribute(start, b"product").is_none_or(|product| product == "default")
}

fn attribute(start: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    start
        .attributes()
        .flatten()
        .find(|attribute| attribute.key.as_ref() == name)
        .and_then(|attribute| attribute.unescape_value().ok().map(|value| value.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(local: &str, exported: &str, order: Option<&[&str]>, removed: &[&str], is_base: bool) -> String {
        String::from_utf8(super::super::patched_with(
            patch,
            local.as_bytes(),
            exported,
            order,
            removed,
            is_base,
        ))
        .unwrap()
    }

    const EXPORT: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n    <string name=\"a\">A</string>\n    <string name=\"b\">It\\'s B</string>\n</resources>\n";

    #[test]
    fn equal_values_keep_their_bytes_whatever_their_quoting_entities_or_cdata() {
        let local = "<resources xmlns:tools=\"http://schemas.android.com/tools\">\r\n  <!-- section -->\r\n\r\n  <string name=\"a\"><![CDATA[A]]></string>\r\n  <dimen name=\"d\">4dp</dimen>\r\n  <string name=\"b\">\"It's B\"</string>\r\n  <string-array name=\"x\"><item>1</item></string-array>\r\n</resources>";
        assert_eq!(patched(local, EXPORT, None, &[], false), local);
        let entities =
            "<resources><string name=\"a\">&#65;</string><string name=\"b\">It&apos;s B</string></resources>";
        assert_eq!(patched(entities, EXPORT, None, &[], false), entities);
    }

    #[test]
    fn a_changed_value_changes_only_its_content_in_the_files_quoting() {
        let local = "<resources>\r\n  <string name=\"a\" tools:ignore=\"x\">Old</string>\r\n  <string name=\"b\">\"Was B\"</string>\r\n</resources>";
        assert_eq!(
            patched(local, EXPORT, None, &[], false),
            "<resources>\r\n  <string name=\"a\" tools:ignore=\"x\">A</string>\r\n  <string name=\"b\">\"It\\'s B\"</string>\r\n</resources>"
        );
        let empty = "<resources>\n    <string name=\"a\"/>\n    <string name=\"b\">It\\'s B</string>\n</resources>\n";
        assert_eq!(
            patched(empty, EXPORT, None, &[], false),
            "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"b\">It\\'s B</string>\n</resources>\n"
        );
    }

    #[test]
    fn deleted_keys_go_with_their_comment_and_unknown_ones_stay() {
        let local = "<resources>\n    <string name=\"a\">A</string>\n    <!-- Gone -->\n    <string name=\"gone\">G</string>\n    <string name=\"mine\">New in the app</string>\n    <string name=\"b\">It\\'s B</string>\n</resources>";
        assert_eq!(
            patched(local, EXPORT, None, &["gone"], false),
            "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"mine\">New in the app</string>\n    <string name=\"b\">It\\'s B</string>\n</resources>"
        );
    }

    #[test]
    fn new_keys_follow_their_predecessor_in_the_base_file_with_the_files_indentation() {
        let export = "<resources>\n    <!-- Shown first -->\n    <string name=\"a\">A</string>\n    <plurals name=\"n\">\n        <item quantity=\"one\">%d</item>\n        <item quantity=\"other\">%d s</item>\n    </plurals>\n    <string name=\"z\">Z</string>\n</resources>\n";
        let local = "<resources>\n\t<string name=\"z\">Z</string>\n</resources>";
        assert_eq!(
            patched(local, export, Some(&["z", "a", "n"]), &[], false),
            "<resources>\n\t<string name=\"z\">Z</string>\n\t<!-- Shown first -->\n\t<string name=\"a\">A</string>\n\t<plurals name=\"n\">\n\t\t<item quantity=\"one\">%d</item>\n\t\t<item quantity=\"other\">%d s</item>\n\t</plurals>\n</resources>"
        );
        // Without a predecessor (the base file itself), at the end, before </resources>.
        let base = "<resources>\n    <string name=\"z\">Z</string>\n</resources>\n";
        let export =
            "<resources>\n    <string name=\"a\">A</string>\n    <string name=\"z\">Z</string>\n</resources>\n";
        assert_eq!(
            patched(base, export, None, &[], true),
            "<resources>\n    <string name=\"z\">Z</string>\n    <string name=\"a\">A</string>\n</resources>\n"
        );
    }

    #[test]
    fn a_plurals_forms_change_one_by_one() {
        let local = "<resources>\n  <plurals name=\"n\">\n    <item quantity=\"one\">\"%d file\"</item>\n    <item quantity=\"few\">%d few</item>\n    <item quantity=\"other\">%d files</item>\n  </plurals>\n</resources>";
        let export = "<resources>\n    <plurals name=\"n\">\n        <item quantity=\"one\">%d file</item>\n        <item quantity=\"many\">%d many</item>\n        <item quantity=\"other\">%d FILES</item>\n    </plurals>\n</resources>\n";
        assert_eq!(
            patched(local, export, None, &[], false),
            "<resources>\n  <plurals name=\"n\">\n    <item quantity=\"one\">\"%d file\"</item>\n    <item quantity=\"other\">%d FILES</item>\n    <item quantity=\"many\">%d many</item>\n  </plurals>\n</resources>"
        );
    }

    #[test]
    fn a_base_files_description_is_its_comment() {
        let local = "<resources>\n    <!-- old -->\n    <string name=\"a\">A</string>\n    <string name=\"b\">It\\'s B</string>\n</resources>";
        let export = "<resources>\n    <!-- new -->\n    <string name=\"a\">A</string>\n    <!-- about b -->\n    <string name=\"b\">It\\'s B</string>\n</resources>\n";
        assert_eq!(
            patched(local, export, None, &[], true),
            "<resources>\n    <!-- new -->\n    <string name=\"a\">A</string>\n    <!-- about b -->\n    <string name=\"b\">It\\'s B</string>\n</resources>"
        );
        // A translation's file has no comments of its own to compare.
        assert_eq!(patched(local, export, None, &[], false), local);
    }
}
