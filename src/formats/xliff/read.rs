//! Reading XLIFF 1.2 and 2.0 files (see the module above for the rules), and parsing them
//! into units with the byte ranges of their parts, which the pull's patcher edits.

use std::collections::HashSet;
use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{UnitData, Version};
use crate::domain::model::Text;
use crate::formats::{ParsedEntry, ReadError, ReadWarning, icu};

/// A file as parsed: its version, languages and units with where they are.
#[derive(Debug)]
pub struct Document {
    pub version: Version,
    pub source_language: Option<String>,
    pub target_language: Option<String>,
    pub units: Vec<Unit>,
    /// Where the last `</body>` (1.2) or `</file>` (2.0) starts: new units go before it.
    pub end_of_units: Option<usize>,
}

/// One unit of a file: what it says and the byte ranges of its parts.
#[derive(Debug)]
pub struct Unit {
    pub data: UnitData,
    pub line: usize,
    /// The whole element, `<trans-unit` to `</trans-unit>`.
    pub span: Range<usize>,
    pub source: Option<Range<usize>>,
    pub target: Option<Range<usize>>,
    /// 1.2: the first `<note>`; 2.0: the `<notes>` element.
    pub note: Option<Range<usize>>,
    /// 2.0: the segment.
    pub segment: Option<Range<usize>>,
    /// The content of the source and the target (between their tags).
    pub source_content: Range<usize>,
    pub target_content: Range<usize>,
    /// Why the unit cannot be read as a key's text (inline elements, several segments).
    pub unreadable: Option<&'static str>,
    /// The target's state says it was never translated.
    pub untranslated: bool,
}

impl Unit {
    /// The unit's text in its file's language, as the reader takes it: in a source file the
    /// target, else the source; in a translation file the target, unless its state says it
    /// was never translated.
    pub fn text(&self, in_source_file: bool) -> Option<&str> {
        match &self.data.target {
            Some(target) if in_source_file || !self.untranslated => Some(target),
            _ if in_source_file => Some(&self.data.source),
            _ => None,
        }
    }
}

impl Document {
    /// Whether the file's texts are its source language's (no target language, or the
    /// source language again).
    pub fn is_source_file(&self) -> bool {
        match (&self.source_language, &self.target_language) {
            (_, None) => true,
            (Some(source), Some(target)) => source == target,
            (None, Some(_)) => false,
        }
    }

    /// The language the file's texts are in.
    pub fn language(&self) -> Option<&str> {
        self.target_language.as_deref().or(self.source_language.as_deref())
    }
}

/// The part of a unit the parser is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Source,
    Target,
    Note,
}

/// Parses an XLIFF 1.2 or 2.0 file.
/// The version a `version` attribute of `<xliff>` names (`1.2`, `2.0`, `2.1`...), if read.
fn version_named(version: &str) -> Option<Version> {
    match version.as_bytes().first() {
        Some(b'2') => Some(Version::V2),
        Some(b'1') => Some(Version::V1),
        _ => None,
    }
}

/// The version of the XLIFF file that `head` begins (as [`read`] would take it), read from
/// its `<xliff>` element alone: `None` when the bytes hold none before anything else.
pub fn version_of(head: &[u8]) -> Option<Version> {
    let mut reader = Reader::from_reader(head);
    let mut buffer = Vec::new();
    loop {
        match reader.read_event_into(&mut buffer).ok()? {
            Event::Start(start) | Event::Empty(start) => {
                return (start.local_name().as_ref() == b"xliff")
                    .then(|| attribute(&start, b"version"))
                    .flatten()
                    .as_deref()
                    .and_then(version_named);
            }
            Event::Eof => return None,
            _ => buffer.clear(),
        }
    }
}

pub fn parse(text: &str) -> Result<Document, ReadError> {
    let mut reader = Reader::from_str(text);
    let line_at = |position: usize| {
        let before = &text.as_bytes()[..position.min(text.len())];
        memchr::memchr_iter(b'\n', before).count() + 1
    };
    let fail = |position: u64, message: String| ReadError::at(line_at(position as usize), message);
    // The line of each unit, counted on from the one before (units come in file order).
    let (mut counted_to, mut line) = (0, 1);
    let mut line_of_unit = |position: usize| {
        if let Some(between) = text.as_bytes().get(counted_to..position) {
            line += memchr::memchr_iter(b'\n', between).count();
            counted_to = position;
        }
        line
    };
    let mut document = Document {
        version: Version::V1,
        source_language: None,
        target_language: None,
        // As many as the text has unit elements (one pass, and no copies of a growing list
        // of 100,000 units).
        units: Vec::with_capacity(
            memchr::memmem::find_iter(text.as_bytes(), b"<trans-unit").count()
                + memchr::memmem::find_iter(text.as_bytes(), b"<unit").count(),
        ),
        end_of_units: None,
    };
    let mut root_seen = false;
    let mut unit: Option<Unit> = None;
    // The part being read, its text so far and the depth of elements inside it.
    let mut part: Option<Reading> = None;
    let mut notes_seen = false;
    let mut segments = 0usize;
    // Symfony's files (`original="file.ext"`, Kimai's `original="messages.en.xlf"`) are
    // keyed as Symfony's loader keys them: `resname`, else the `<source>` (never the `id`).
    let mut keyed_by_source = false;
    let mut named_by_id = false;
    let mut note_depth_v2: Option<usize> = None;
    // The depth inside a 1.2 `<alt-trans>` (a translation memory's suggestion, with a
    // `<target>` of its own: Vienna's Lithuanian file), which is no part of its unit's text.
    let mut in_alternative = 0usize;
    loop {
        let position = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
        let after = reader.buffer_position() as usize;
        if in_alternative > 0 {
            match &event {
                Event::Start(_) => in_alternative += 1,
                Event::End(_) => in_alternative -= 1,
                Event::Eof => return Err(fail(position as u64, "<alt-trans> is not closed".into())),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(ref start)
                if part.is_none()
                    && unit.is_some()
                    && document.version == Version::V1
                    && start.local_name().as_ref() == b"alt-trans" =>
            {
                in_alternative = 1;
            }
            Event::Start(ref start) | Event::Empty(ref start) => {
                let empty = matches!(event, Event::Empty(_));
                let name = start.local_name();
                let name = name.as_ref();
                if !root_seen {
                    if name != b"xliff" {
                        return Err(fail(position as u64, "the root element must be <xliff>".into()));
                    }
                    root_seen = true;
                    let version = attribute(start, b"version");
                    match (version.as_deref(), version.as_deref().and_then(version_named)) {
                        (_, Some(Version::V2)) => {
                            document.version = Version::V2;
                            document.source_language = attribute(start, b"srcLang");
                            document.target_language = attribute(start, b"trgLang");
                        }
                        (_, Some(Version::V1)) => {}
                        (Some(version), None) => {
                            return Err(fail(position as u64, format!("XLIFF version {version:?} is not read")));
                        }
                        (None, None) => return Err(fail(position as u64, "<xliff> has no version".into())),
                    }
                    continue;
                }
                if let Some(reading) = &mut part {
                    // 2.0's `<cp hex="0001"/>`: a character XML cannot hold.
                    if document.version == Version::V2 && name == b"cp" && empty {
                        let c = attribute(start, b"hex")
                            .and_then(|hex| u32::from_str_radix(&hex, 16).ok())
                            .and_then(char::from_u32)
                            .ok_or_else(|| fail(position as u64, "<cp> needs a character's hex code".into()))?;
                        reading.value.push(c);
                        continue;
                    }
                    // An inline element inside a source or target (`<x/>`, `<g>`, `<ph>`,
                    // `<pc>`): the unit's texts are held as XML content, elements and all.
                    // Inside a note, the note is no text.
                    if let Some(unit) = &mut unit {
                        match reading.which {
                            Part::Note => {
                                unit.unreadable.get_or_insert("its note has elements in it");
                            }
                            Part::Source | Part::Target => unit.data.markup = true,
                        }
                    }
                    if !empty {
                        reading.depth += 1;
                    }
                    continue;
                }
                match (document.version, name, &mut unit) {
                    (Version::V1, b"file", None) => {
                        keyed_by_source = attribute(start, b"original").is_some_and(|original| {
                            original == "file.ext" || original.ends_with(".xlf") || original.ends_with(".xliff")
                        });
                        if document.source_language.is_none() {
                            document.source_language = attribute(start, b"source-language");
                        }
                        if document.target_language.is_none() {
                            document.target_language = attribute(start, b"target-language");
                        }
                    }
                    (Version::V1, b"trans-unit", None) | (Version::V2, b"unit", None) => {
                        let label: &[u8] = match document.version {
                            Version::V1 => b"resname",
                            Version::V2 => b"name",
                        };
                        let [id, label, translate] = attributes(start, [b"id", label, b"translate"]);
                        let label = label.filter(|label| !label.is_empty());
                        named_by_id = label.is_none();
                        let new = Unit {
                            data: UnitData {
                                name: label.or(id).unwrap_or_default(),
                                translate: translate.as_deref() != Some("no"),
                                source: String::new(),
                                target: None,
                                outdated: false,
                                note: None,
                                markup: false,
                            },
                            line: line_of_unit(position),
                            span: position..after,
                            source: None,
                            target: None,
                            note: None,
                            segment: None,
                            source_content: 0..0,
                            target_content: 0..0,
                            unreadable: None,
                            untranslated: false,
                        };
                        notes_seen = false;
                        segments = 0;
                        if empty {
                            document.units.push(new);
                        } else {
                            unit = Some(new);
                        }
                    }
                    (_, b"source", Some(_)) => {
                        if empty {
                            set_part(&mut unit, Part::Source, position..after, after..after, String::new());
                        } else {
                            part = Some(Reading::new(Part::Source, position, after));
                        }
                    }
                    (_, b"target", Some(current)) => {
                        if document.version == Version::V1 {
                            let state = attribute(start, b"state");
                            let state = state.as_deref().unwrap_or_default();
                            current.untranslated = matches!(state, "new" | "needs-translation");
                            current.data.outdated = state.starts_with("needs-") && !current.untranslated;
                        }
                        if empty {
                            set_part(&mut unit, Part::Target, position..after, after..after, String::new());
                        } else {
                            part = Some(Reading::new(Part::Target, position, after));
                        }
                    }
                    (Version::V1, b"note", Some(_)) if !notes_seen => {
                        notes_seen = true;
                        if empty {
                            set_part(&mut unit, Part::Note, position..after, after..after, String::new());
                        } else {
                            part = Some(Reading::new(Part::Note, position, after));
                        }
                    }
                    (Version::V2, b"notes", Some(current)) => {
                        current.note = Some(position..after);
                        note_depth_v2 = (!empty).then_some(position);
                    }
                    (Version::V2, b"note", Some(_)) if note_depth_v2.is_some() && !notes_seen => {
                        notes_seen = true;
                        if !empty {
                            part = Some(Reading::new(Part::Note, position, after));
                        }
                    }
                    (Version::V2, b"segment" | b"ignorable", Some(current)) => {
                        segments += 1;
                        if segments > 1 {
                            current.unreadable.get_or_insert("it has several segments");
                        }
                        if name == b"segment" {
                            let state = attribute(start, b"state");
                            current.data.outdated = state.as_deref() == Some("initial");
                            current.segment = Some(position..after);
                        }
                    }
                    _ => {}
                }
            }
            Event::End(ref end) => {
                if let Some(reading) = &mut part {
                    if reading.depth > 0 {
                        reading.depth -= 1;
                        continue;
                    }
                    let reading = part.take().expect("inside a part");
                    set_part(
                        &mut unit,
                        reading.which,
                        reading.start..after,
                        reading.content..position,
                        reading.value,
                    );
                    continue;
                }
                let name = end.local_name();
                match (document.version, name.as_ref()) {
                    (Version::V1, b"trans-unit") | (Version::V2, b"unit") => {
                        if let Some(mut done) = unit.take() {
                            done.span.end = after;
                            // Texts with inline elements are their XML content, as written.
                            if done.data.markup {
                                done.data.source = text[done.source_content.clone()].to_owned();
                                if done.data.target.is_some() {
                                    done.data.target = Some(text[done.target_content.clone()].to_owned());
                                }
                            }
                            if keyed_by_source && named_by_id && !done.data.source.is_empty() {
                                done.data.name = done.data.source.clone();
                            }
                            if document.version == Version::V2 && done.data.target.is_none() {
                                done.data.outdated = false;
                            }
                            document.units.push(done);
                        }
                    }
                    (Version::V2, b"notes") => {
                        if let (Some(current), Some(start)) = (&mut unit, note_depth_v2.take()) {
                            current.note = Some(start..after);
                        }
                    }
                    (Version::V2, b"segment") => {
                        if let Some(current) = &mut unit
                            && let Some(segment) = &mut current.segment
                            && segment.end <= position
                        {
                            segment.end = after;
                        }
                    }
                    (Version::V1, b"body") | (Version::V2, b"file") if unit.is_none() => {
                        document.end_of_units = Some(position);
                    }
                    _ => {}
                }
            }
            Event::Text(text) => {
                if let Some(Reading { value, .. }) = &mut part {
                    value.push_str(
                        &text
                            .xml10_content()
                            .map_err(|err| fail(position as u64, err.to_string()))?,
                    );
                }
            }
            Event::CData(data) => {
                if let Some(Reading { value, .. }) = &mut part {
                    let raw = std::str::from_utf8(&data).map_err(|err| fail(position as u64, err.to_string()))?;
                    value.push_str(&raw.replace("\r\n", "\n").replace('\r', "\n"));
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(Reading { value, .. }) = &mut part {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => {
                            let name = reference
                                .decode()
                                .map_err(|err| fail(position as u64, err.to_string()))?;
                            quick_xml::escape::resolve_predefined_entity(&name)
                                .ok_or_else(|| fail(position as u64, format!("unknown entity &{name};")))?
                                .to_owned()
                        }
                    };
                    value.push_str(&resolved);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !root_seen {
        return Err(ReadError::unplaced("the file has no <xliff> element"));
    }
    Ok(document)
}

/// A part of a unit being read: which, where its element and its content start, its text so
/// far, and the depth of inline elements the reader is in.
struct Reading {
    which: Part,
    start: usize,
    content: usize,
    value: String,
    depth: usize,
}

impl Reading {
    fn new(which: Part, start: usize, content: usize) -> Self {
        Self {
            which,
            start,
            content,
            value: String::new(),
            depth: 0,
        }
    }
}

fn set_part(unit: &mut Option<Unit>, which: Part, span: Range<usize>, content: Range<usize>, value: String) {
    let Some(unit) = unit else { return };
    match which {
        Part::Source => {
            unit.source = Some(span);
            unit.source_content = content;
            unit.data.source = value;
        }
        Part::Target => {
            unit.target = Some(span);
            unit.target_content = content;
            unit.data.target = Some(value);
        }
        Part::Note => {
            // 1.2's note is its own element; 2.0's lives in `<notes>`, whose range is kept.
            if unit.note.is_none() {
                unit.note = Some(span);
            }
            unit.data.note = Some(value);
        }
    }
}

fn attribute(start: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    let [value] = attributes(start, [name]);
    value
}

/// The values of the attributes `names` (unprefixed), read in one pass over the element's.
fn attributes<const N: usize>(start: &BytesStart<'_>, names: [&[u8]; N]) -> [Option<String>; N] {
    let mut values = [const { None }; N];
    for attribute in start.attributes().flatten() {
        if attribute.key.prefix().is_some() {
            continue;
        }
        let name = attribute.key.local_name();
        if let Some(at) = names.iter().position(|wanted| *wanted == name.as_ref())
            && values[at].is_none()
        {
            values[at] = attribute.unescape_value().ok().map(|value| value.into_owned());
        }
    }
    values
}

/// A file read: the language its texts are in (when it names one), its entries, and the
/// units passed over.
#[derive(Debug)]
pub struct ReadFile {
    pub version: super::Version,
    pub language: Option<String>,
    pub entries: Vec<ParsedEntry>,
    pub warnings: Vec<ReadWarning>,
    /// A translation file's source language and its units' sources (base texts, with their
    /// notes as descriptions); none for a source file, whose entries are those.
    pub source_language: Option<String>,
    pub sources: Vec<ParsedEntry>,
    /// The file as parsed, which the patcher of the file kept by an upload reads again.
    pub document: Document,
}

/// Reads a file's texts in its language (see the module's notes).
pub fn read(bytes: &[u8]) -> Result<ReadFile, ReadError> {
    read_in(bytes, None)
}

/// Reads a file's texts in the language its path names (`messages.es.xlf`), whatever it says
/// inside: the path's language wins (contract, "Real apps, whole"). A file whose path names
/// a language other than its `source-language` is a translation file even without a
/// `target-language` (Angular's); `None` leaves the language to the file.
pub fn read_in(bytes: &[u8], path_language: Option<&str>) -> Result<ReadFile, ReadError> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))?;
    let document = parse(text)?;
    let same = |a: &str, b: &str| a.replace('_', "-").eq_ignore_ascii_case(&b.replace('_', "-"));
    let (is_source, language) = match (path_language, document.source_language.as_deref()) {
        (Some(path), Some(source)) => (same(path, source), Some(path.to_owned())),
        (Some(path), None) => (document.is_source_file(), Some(path.to_owned())),
        (None, _) => (document.is_source_file(), document.language().map(str::to_owned)),
    };
    let source_language = document.source_language.clone().filter(|_| !is_source);
    // Sized once: fresh memory is what a large file's read mostly pays for.
    let count = document.units.len();
    let mut entries = Vec::with_capacity(count);
    let mut sources = Vec::with_capacity(if is_source { 0 } else { count });
    let mut warnings = Vec::new();
    let mut seen = HashSet::with_capacity(count);
    let as_text = |value: &str| match icu::read_plural(value) {
        None => Ok(Text::Plain(value.to_owned())),
        Some(Ok(forms)) => Ok(Text::Plural(forms)),
        Some(Err(why)) => Err(why),
    };
    for unit in &document.units {
        let name = unit.data.name.as_str();
        let warn = |message: String| ReadWarning {
            line: unit.line,
            key: name.to_owned(),
            message,
        };
        if let Some(why) = unit.unreadable {
            warnings.push(warn(format!("{name:?} is passed over: {why}")));
            continue;
        }
        if !seen.insert(name) {
            warnings.push(warn(format!(
                "{name:?} is in the file again (another <file>); only its first unit is read"
            )));
            continue;
        }
        let description = unit.data.note.as_deref().filter(|note| !note.is_empty());
        let entry = |text: Text| {
            let mut entry = ParsedEntry::plain(name.to_owned(), String::new()).at_line(unit.line);
            entry.text = text;
            entry.description = description.map(str::to_owned);
            entry.translatable = unit.data.translate;
            entry.markup = unit.data.markup;
            entry
        };
        if !is_source && let Ok(text) = as_text(&unit.data.source) {
            sources.push(entry(text));
        }
        let Some(value) = unit.text(is_source) else {
            continue;
        };
        let text = match as_text(value) {
            Ok(text) => text,
            Err(why) => {
                warnings.push(warn(format!(
                    "{name:?} is a plural message this server cannot hold ({why}); it is passed over"
                )));
                continue;
            }
        };
        let mut entry = entry(text);
        entry.outdated = !is_source && unit.data.outdated;
        entries.push(entry);
    }
    Ok(ReadFile {
        version: document.version,
        language,
        entries,
        warnings,
        source_language,
        sources,
        document,
    })
}

#[cfg(test)]
mod tests;
