//! XLIFF, the translation vendors' exchange format: `{lang}.xliff` with one unit per key, the
//! base text as `<source>` and the language's text as `<target>`. Version 1.2 is written as
//! Xcode's "Export Localizations" writes it (`<trans-unit id="KEY" xml:space="preserve">`,
//! `<target state="translated">`, `<note>` for the description); version 2.0 (`version=2.0`)
//! as the OASIS standard has it (`<unit>`, `<segment state>`, `<notes>`).
//!
//! Every key with a base text is in every language's file, with a `<target>` only where the
//! language has a text: a vendor translates the units without one. A plural key's texts are
//! ICU plural messages (`{count, plural, one {...} other {...}}`) in source and target.
//!
//! Reading follows translate-toolkit's XLIFF store (the reference reader Weblate and Pootle
//! use): a unit's key is its `resname` (1.2) or `name` (2.0), else its `id` (in Symfony's
//! files, `original="file.ext"` or a `.xlf` name, its `<source>`, as Symfony's loader keys
//! it); a file's language is the one its path names, else its own; a `<target>` is
//! the file's language's text unless its state says it was never translated (`new`,
//! `needs-translation`, 2.0's `initial` without a target); the other `needs-*` states (1.2)
//! and 2.0's `initial` with a target mark it outdated. In a file whose target language is its
//! source language (Xcode's `en.xliff`), or that has none (a source file), the target, else the
//! source, is the base text. Units with inline elements (`<g>`, `<ph>`, `<x/>`), or with
//! several segments, are passed over with a warning, and an id already read in an earlier
//! `<file>` (Xcode repeats `CFBundleName` per target) is read once.

use std::borrow::{Borrow, Cow};
use std::collections::HashSet;
use std::io::Write;

use super::chunked::Chunked;
use super::escape::{self, Specials};
use super::{ExportFile, icu};
use crate::domain::model::{Key, TextRef};
use crate::domain::names::LanguageCode;
use crate::domain::text::BaseText;

mod read;

pub use read::{Document, ReadFile, Unit, parse, read, read_in, version_of};

/// The XLIFF versions written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// XLIFF 1.2, as Xcode exports it (the default).
    V1,
    /// XLIFF 2.0.
    V2,
}

impl Version {
    /// The `version` parameter's values.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "1.2" => Some(Self::V1),
            "2.0" => Some(Self::V2),
            _ => None,
        }
    }
}

/// A language's file: `fr.xliff`.
pub fn path(language: &LanguageCode) -> String {
    format!("{language}.xliff")
}

/// Whether a file name is an XLIFF file's (`fr.xliff`, `messages.fr.xlf`).
pub fn is_xliff(file: &str) -> bool {
    file.ends_with(".xliff") || file.ends_with(".xlf")
}

/// What a unit says, borrowed, as the writers take it.
#[derive(Debug, Clone, Copy)]
pub struct UnitText<'a> {
    pub name: &'a str,
    pub translate: bool,
    pub source: &'a str,
    pub target: Option<&'a str>,
    pub outdated: bool,
    pub note: Option<&'a str>,
    /// Source and target are XML content (see [`UnitData::markup`]), written as they are.
    pub markup: bool,
}

/// What a unit says, as the reader reads it and the patcher compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitData {
    pub name: String,
    pub translate: bool,
    pub source: String,
    pub target: Option<String>,
    /// Whether the target is outdated (1.2 `needs-review-translation`, 2.0 `initial`).
    pub outdated: bool,
    pub note: Option<String>,
    /// Whether the source or target has inline elements (`<x/>`, `<g>`, `<ph>`, `<pc>`):
    /// then both are their XML content as written, elements, references and all.
    pub markup: bool,
}

impl UnitData {
    pub fn as_text(&self) -> UnitText<'_> {
        UnitText {
            name: &self.name,
            translate: self.translate,
            source: &self.source,
            target: self.target.as_deref(),
            outdated: self.outdated,
            note: self.note.as_deref(),
            markup: self.markup,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing

const V1_ROOT: &str = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" version=\"1.2\" xsi:schemaLocation=\"urn:oasis:names:tc:xliff:document:1.2 http://docs.oasis-open.org/xliff/v1.2/os/xliff-core-1.2-strict.xsd\">";

/// The file of `language`: every key with a base text (or a text in `language`), with its
/// target where `language` has a text.
pub fn render(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    language: &LanguageCode,
    project: &str,
    version: Version,
) -> ExportFile {
    render_each(keys, base, &[language], project, version)
        .pop()
        .expect("one language asked, one file rendered")
}

/// The files of several languages in one pass over the keys: what every file repeats of a
/// key (the unit's opening with its escaped `<source>`, its note, the base text's hash for the
/// outdated state) is made once and copied into each. A pass per language read every key's
/// texts from memory again and escaped the same source in every file.
pub fn render_each(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    languages: &[&LanguageCode],
    project: &str,
    version: Version,
) -> Vec<ExportFile> {
    let room = room(keys, base);
    let sinks = languages
        .iter()
        .map(|&language| (language, Vec::with_capacity(room)))
        .collect();
    let written = write_each(keys, base, sinks, project, version).expect("writing into memory");
    languages
        .iter()
        .zip(written)
        .map(|(language, bytes)| ExportFile {
            path: path(language),
            bytes,
        })
        .collect()
}

/// Room enough for a file of `keys`, so that it is written into memory without growing (a
/// file of tens of MB grown twice is copied, and fresh memory is zeroed by the kernel, for as
/// long as rendering it takes): each unit's markup, its name, the base text and description,
/// and a translation as long again as the base text twice over. Room a file does not fill
/// is never touched, so costs next to nothing.
fn room<K: Borrow<Key>>(keys: &[K], base: &LanguageCode) -> usize {
    let mut hint = 0;
    keys.iter()
        .map(|key| {
            let key = key.borrow();
            let base_text: usize = key
                .translations
                .get_near(base, &mut hint)
                .map_or(0, |text| text.strings().map(str::len).sum());
            UNIT_MARKUP + 2 * key.name.as_str().len() + key.description.len() + 3 * base_text
        })
        .sum::<usize>()
        + UNIT_MARKUP
}

/// About the most bytes of markup a unit has (its elements and attributes, a plural
/// group's forms' markup).
const UNIT_MARKUP: usize = 512;

/// [`render_each`], each language's file written into its writer as it is made (see
/// [`Chunked`]).
pub fn write_each<W: Write>(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    files: Vec<(&LanguageCode, W)>,
    project: &str,
    version: Version,
) -> std::io::Result<Vec<W>> {
    struct Writing<'l, W> {
        language: &'l LanguageCode,
        out: Chunked<W>,
        hint: usize,
    }
    let mut writing: Vec<Writing<'_, W>> = files
        .into_iter()
        .map(|(language, sink)| {
            let mut out = Chunked::new(sink);
            push_file_start(out.text(), base, language, project, version);
            Writing { language, out, hint: 0 }
        })
        .collect();
    let ids = (version == Version::V2).then(|| UnitIds::new(keys));
    // A unit's parts every file shares, made when a file first needs them: before the
    // target (1.2: the opening and `<source>`; 2.0: the opening and notes) and after it (1.2:
    // the note and closing; 2.0: the `<source>` line, which follows the segment's state).
    let (mut before, mut after) = (String::new(), String::new());
    let mut base_hint = 0;
    for key in keys.iter().map(Borrow::borrow) {
        let base_text = BaseText::new(key.translations.get_near(base, &mut base_hint));
        let mut built = false;
        for Writing { language, out, hint } in &mut writing {
            out.settle()?;
            let out = out.text();
            let language: &LanguageCode = language;
            let text = key.translations.get_near_with_base(language, hint);
            if base_text.text().is_none() && text.is_none() {
                continue;
            }
            // A key kept in the base language only is in the base language's file only.
            if !key.translatable && language != base {
                continue;
            }
            if !built {
                let source = base_text.text().map_or(Cow::Borrowed(key.name.as_str()), written);
                let note = (!key.description.is_empty()).then_some(key.description.as_str());
                before.clear();
                after.clear();
                match version {
                    Version::V1 => {
                        push_unit_head_v1(
                            &mut before,
                            key.name.as_str(),
                            key.translatable,
                            Content::of(&source, key.markup, version),
                            "      ",
                            "\n",
                        );
                        push_unit_tail_v1(&mut after, note, "      ", "\n");
                    }
                    Version::V2 => {
                        let name = key.name.as_str();
                        let id = ids.as_ref().map_or(Cow::Borrowed(name), |ids| ids.id(name));
                        push_unit_head_v2(&mut before, name, &id, key.translatable, note, "    ", "\n");
                        push_source_v2(&mut after, Content::of(&source, key.markup, version), "    ", "\n");
                    }
                }
                built = true;
            }
            let outdated = language != base && text.is_some_and(|(_, recorded)| base_text.outdates(recorded));
            let target = text.map(|(text, _)| written(text));
            out.push_str(&before);
            match version {
                Version::V1 => {
                    let target = target.as_deref().map(|target| Content::of(target, key.markup, version));
                    push_target_v1(out, target, outdated, "      ", "\n");
                    out.push_str(&after);
                }
                Version::V2 => {
                    push_segment_v2(out, target.as_deref(), outdated, "    ", "\n");
                    out.push_str(&after);
                    let target = target.as_deref().map(|target| Content::of(target, key.markup, version));
                    push_unit_tail_v2(out, target, "    ", "\n");
                }
            }
        }
    }
    writing
        .into_iter()
        .map(|Writing { mut out, .. }| {
            out.text().push_str(match version {
                Version::V1 => "    </body>\n  </file>\n</xliff>\n",
                Version::V2 => "  </file>\n</xliff>\n",
            });
            out.finish()
        })
        .collect()
}

/// A text as a unit holds it: a plural key's forms as an ICU plural message.
fn written(text: TextRef<'_>) -> Cow<'_, str> {
    match text {
        TextRef::Plain(value) => Cow::Borrowed(value),
        TextRef::Plural(forms) => Cow::Owned(icu::write_plural(forms)),
    }
}

/// The XML declaration, the root and the opening of the one `<file>`.
fn push_file_start(out: &mut String, base: &LanguageCode, language: &LanguageCode, project: &str, version: Version) {
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    match version {
        Version::V1 => {
            out.push_str(V1_ROOT);
            out.push_str("\n  <file original=\"");
            push_escaped_attribute(out, project);
            out.push_str(&format!(
                "\" source-language=\"{base}\" target-language=\"{language}\" datatype=\"plaintext\">\n"
            ));
            out.push_str("    <header>\n      <tool tool-id=\"locstore\" tool-name=\"locstore\"/>\n    </header>\n");
            out.push_str("    <body>\n");
        }
        Version::V2 => {
            out.push_str(&format!(
                "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"{base}\" trgLang=\"{language}\">\n"
            ));
            out.push_str("  <file id=\"f1\" original=\"");
            push_escaped_attribute(out, project);
            out.push_str("\">\n");
        }
    }
}

/// A 1.2 `<trans-unit>`, its lines indented by `indent` (children two spaces more).
pub fn write_unit_v1(out: &mut String, unit: UnitText<'_>, indent: &str, newline: &str) {
    let source = Content::of(unit.source, unit.markup, Version::V1);
    let target = unit.target.map(|target| Content::of(target, unit.markup, Version::V1));
    push_unit_head_v1(out, unit.name, unit.translate, source, indent, newline);
    push_target_v1(out, target, unit.outdated, indent, newline);
    push_unit_tail_v1(out, unit.note, indent, newline);
}

/// A 1.2 unit's opening tag and `<source>` line.
fn push_unit_head_v1(out: &mut String, name: &str, translate: bool, source: Content<'_>, indent: &str, newline: &str) {
    out.push_str(indent);
    out.push_str("<trans-unit id=\"");
    push_escaped_attribute(out, name);
    out.push('"');
    if !translate {
        out.push_str(" translate=\"no\"");
    }
    out.push_str(" xml:space=\"preserve\">");
    out.push_str(newline);
    out.push_str(indent);
    out.push_str("  <source>");
    source.push(out, false);
    out.push_str("</source>");
    out.push_str(newline);
}

/// A 1.2 unit's `<target>` line, if it has a target.
fn push_target_v1(out: &mut String, target: Option<Content<'_>>, outdated: bool, indent: &str, newline: &str) {
    if let Some(target) = target {
        out.push_str(indent);
        out.push_str(if outdated {
            "  <target state=\"needs-review-translation\">"
        } else {
            "  <target state=\"translated\">"
        });
        target.push(out, false);
        out.push_str("</target>");
        out.push_str(newline);
    }
}

/// A 1.2 unit's `<note>` line, if it has a note, and its closing tag.
fn push_unit_tail_v1(out: &mut String, note: Option<&str>, indent: &str, newline: &str) {
    if let Some(note) = note {
        out.push_str(indent);
        out.push_str("  <note>");
        push_escaped_text(out, note);
        out.push_str("</note>");
        out.push_str(newline);
    }
    out.push_str(indent);
    out.push_str("</trans-unit>");
    out.push_str(newline);
}

/// A 2.0 `<unit>` with id `id` (its `name` the key's when that is not a valid id).
pub fn write_unit_v2(out: &mut String, unit: UnitText<'_>, id: &str, indent: &str, newline: &str) {
    let target = unit.target.map(|target| Content::of(target, unit.markup, Version::V2));
    push_unit_head_v2(out, unit.name, id, unit.translate, unit.note, indent, newline);
    push_segment_v2(out, unit.target, unit.outdated, indent, newline);
    push_source_v2(out, Content::of(unit.source, unit.markup, Version::V2), indent, newline);
    push_unit_tail_v2(out, target, indent, newline);
}

/// `text` indented by `indent` and `depth` steps of two spaces.
fn push_line(out: &mut String, indent: &str, depth: usize, text: &str) {
    out.push_str(indent);
    for _ in 0..depth {
        out.push_str("  ");
    }
    out.push_str(text);
}

/// A 2.0 unit's opening tag and notes.
fn push_unit_head_v2(
    out: &mut String,
    name: &str,
    id: &str,
    translate: bool,
    note: Option<&str>,
    indent: &str,
    newline: &str,
) {
    push_line(out, indent, 0, "<unit id=\"");
    push_escaped_attribute(out, id);
    out.push('"');
    if id != name {
        out.push_str(" name=\"");
        push_escaped_attribute(out, name);
        out.push('"');
    }
    if !translate {
        out.push_str(" translate=\"no\"");
    }
    out.push('>');
    out.push_str(newline);
    if let Some(note) = note {
        push_line(out, indent, 1, "<notes>");
        out.push_str(newline);
        push_line(out, indent, 2, "<note>");
        push_escaped_text(out, note);
        out.push_str("</note>");
        out.push_str(newline);
        push_line(out, indent, 1, "</notes>");
        out.push_str(newline);
    }
}

/// A 2.0 unit's `<segment>` opening, whose state is its target's.
fn push_segment_v2(out: &mut String, target: Option<&str>, outdated: bool, indent: &str, newline: &str) {
    push_line(
        out,
        indent,
        1,
        match (target, outdated) {
            (None, _) => "<segment>",
            (Some(_), true) => "<segment state=\"initial\">",
            (Some(_), false) => "<segment state=\"translated\">",
        },
    );
    out.push_str(newline);
}

/// A 2.0 unit's `<source>` line.
fn push_source_v2(out: &mut String, source: Content<'_>, indent: &str, newline: &str) {
    push_line(out, indent, 2, "<source xml:space=\"preserve\">");
    source.push(out, true);
    out.push_str("</source>");
    out.push_str(newline);
}

/// A 2.0 unit's `<target>` line, if it has a target, and its closing tags.
fn push_unit_tail_v2(out: &mut String, target: Option<Content<'_>>, indent: &str, newline: &str) {
    if let Some(target) = target {
        push_line(out, indent, 2, "<target xml:space=\"preserve\">");
        target.push(out, true);
        out.push_str("</target>");
        out.push_str(newline);
    }
    push_line(out, indent, 1, "</segment>");
    out.push_str(newline);
    push_line(out, indent, 0, "</unit>");
    out.push_str(newline);
}

/// XLIFF 2.0's unit ids are XML name tokens: a key name that is one is its unit's id; any
/// other key gets `k1`, `k2`, ... in key order (none another key's name) and keeps its name in
/// `name`. The ids are given for every key at once, so a key has the same id in every
/// language's file, also when a file leaves some keys out (keys kept in the base language).
pub struct UnitIds {
    given: std::collections::HashMap<String, String>,
}

impl UnitIds {
    pub fn new(keys: &[impl Borrow<Key>]) -> Self {
        Self::of_names(keys.iter().map(|key| key.borrow().name.as_str()))
    }

    pub fn of_names<'n>(names: impl Iterator<Item = &'n str> + Clone) -> Self {
        let taken: HashSet<&str> = names.clone().filter(|name| is_name_token(name)).collect();
        let mut given = std::collections::HashMap::new();
        let mut next = 1;
        for name in names.filter(|name| !is_name_token(name)) {
            if given.contains_key(name) {
                continue;
            }
            let id = loop {
                let candidate = format!("k{next}");
                next += 1;
                if !taken.contains(candidate.as_str()) {
                    break candidate;
                }
            };
            given.insert(name.to_owned(), id);
        }
        Self { given }
    }

    pub fn id<'n>(&self, name: &'n str) -> Cow<'n, str> {
        match self.given.get(name) {
            Some(id) => Cow::Owned(id.clone()),
            None => Cow::Borrowed(name),
        }
    }
}

/// Whether `name` is an XML `NMTOKEN`: name characters only (letters, digits, `.-_:`, and
/// the combining marks and extenders XML allows).
pub fn is_name_token(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(c, '.' | '-' | '_' | ':' | '\u{B7}')
                || ('\u{300}'..='\u{36F}').contains(&c)
                || ('\u{203F}'..='\u{2040}').contains(&c)
        })
}

/// Text content: `&`, `<`, `>` escaped, and a carriage return as a reference (a literal one
/// would be read as a line break). XML 1.0 cannot hold the other control characters at all,
/// not even as references: XLIFF 2.0's source and target write them as `<cp hex="0001"/>`
/// (`code_points`); elsewhere they are left out.
fn push_escaped(out: &mut String, text: &str, code_points: bool) {
    // U+FFFE and U+FFFF are `EF BF BE`/`EF BF BF`: a text without the byte `EF` has neither,
    // and only its ASCII characters need looking at.
    if memchr::memchr(0xef, text.as_bytes()).is_some() && text.contains(['\u{FFFE}', '\u{FFFF}']) {
        for c in text.chars() {
            match c {
                '\u{FFFE}' | '\u{FFFF}' => push_code_point(out, c, code_points),
                c => push_escaped(out, c.encode_utf8(&mut [0; 4]), code_points),
            }
        }
        return;
    }
    const SPECIALS: Specials = Specials::new(0x20, b"&<>");
    escape::push_escaped(out, text, SPECIALS, |byte, out| match byte {
        b'&' => out.push_str("&amp;"),
        b'<' => out.push_str("&lt;"),
        b'>' => out.push_str("&gt;"),
        b'\r' => out.push_str("&#13;"),
        b'\t' | b'\n' => out.push(char::from(byte)),
        control => push_code_point(out, char::from(control), code_points),
    });
}

/// A character XML 1.0 cannot hold: as `<cp hex>` where the element allows it, else left out.
fn push_code_point(out: &mut String, c: char, code_points: bool) {
    if code_points {
        out.push_str(&format!("<cp hex=\"{:04X}\"/>", c as u32));
    }
}

fn push_escaped_text(out: &mut String, text: &str) {
    push_escaped(out, text, false);
}

/// A source's or target's text, written escaped, or as it is when it is XML content with the
/// version's inline elements (a markup key's, as an Angular app's `<x/>` are held).
#[derive(Debug, Clone, Copy)]
struct Content<'a> {
    text: &'a str,
    raw: bool,
}

impl<'a> Content<'a> {
    /// A text of a key (or unit) that is `markup` or not, as `version` writes it.
    fn of(text: &'a str, markup: bool, version: Version) -> Self {
        Self {
            text,
            raw: markup && is_inline_content(text, version),
        }
    }

    fn push(self, out: &mut String, code_points: bool) {
        if self.raw {
            out.push_str(self.text);
        } else {
            push_escaped(out, self.text, code_points);
        }
    }
}

/// Whether `text` is well-formed XML content whose elements are all the inline elements of
/// `version` (1.2: `<g>`, `<x/>`, `<bx/>`, `<ex/>`, `<bpt>`, `<ept>`, `<ph>`, `<it>`,
/// `<mrk>`, `<sub>`; 2.0: `<ph/>`, `<pc>`, `<sc/>`, `<ec/>`, `<mrk>`, `<sm/>`, `<em/>`,
/// `<cp/>`): such a markup text goes into a unit as it is. Android's `<b>` is not.
pub fn is_inline_content(text: &str, version: Version) -> bool {
    use quick_xml::events::Event;
    let names: &[&[u8]] = match version {
        Version::V1 => &[b"g", b"x", b"bx", b"ex", b"bpt", b"ept", b"ph", b"it", b"mrk", b"sub"],
        Version::V2 => &[b"ph", b"pc", b"sc", b"ec", b"mrk", b"sm", b"em", b"cp"],
    };
    let wrapped = format!("<content>{text}</content>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    loop {
        match reader.read_event() {
            Ok(Event::Start(element)) => {
                if depth > 0 && !names.contains(&element.local_name().as_ref()) {
                    return false;
                }
                depth += 1;
            }
            Ok(Event::Empty(element)) => {
                if !names.contains(&element.local_name().as_ref()) {
                    return false;
                }
            }
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(Event::GeneralRef(reference)) => {
                let known = reference.resolve_char_ref().ok().flatten().is_some()
                    || reference
                        .decode()
                        .ok()
                        .is_some_and(|name| quick_xml::escape::resolve_predefined_entity(&name).is_some());
                if !known {
                    return false;
                }
            }
            Ok(Event::Eof) => return depth == 0,
            Ok(Event::Decl(_) | Event::DocType(_) | Event::PI(_)) | Err(_) => return false,
            Ok(_) => {}
        }
    }
}

fn push_escaped_attribute(out: &mut String, text: &str) {
    const SPECIALS: Specials = Specials::new(0x20, b"&<\"");
    escape::push_escaped(out, text, SPECIALS, |byte, out| match byte {
        b'&' => out.push_str("&amp;"),
        b'<' => out.push_str("&lt;"),
        b'"' => out.push_str("&quot;"),
        b'\n' => out.push_str("&#10;"),
        b'\r' => out.push_str("&#13;"),
        b'\t' => out.push_str("&#9;"),
        control => out.push(char::from(control)),
    });
}

#[cfg(test)]
mod tests;
