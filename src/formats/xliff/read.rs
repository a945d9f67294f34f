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
    loop {
        let position = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
        let after = reader.buffer_position() as usize;
        match event {
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
mod tests {
    use super::*;

    const XCODE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="App/InfoPlist.xcstrings" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="CFBundleName" xml:space="preserve">
        <source>App</source>
        <target state="translated">Anwendung</target>
        <note>Bundle name</note>
      </trans-unit>
    </body>
  </file>
  <file original="App/Localizable.xcstrings" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="CFBundleName" xml:space="preserve">
        <source>Other</source>
        <target state="translated">Andere</target>
      </trans-unit>
      <trans-unit id="Click&#10;here" xml:space="preserve">
        <source>Click
here</source>
        <target state="needs-review-translation">Klick&#13;
hier &amp; &lt;da&gt; <![CDATA[<b>]]></target>
      </trans-unit>
      <trans-unit id="files" resname="files.count">
        <source>{count, plural, one {# file} other {# files}}</source>
        <target state="translated">{count, plural, one {eine Datei} other {Dateien}}</target>
      </trans-unit>
      <trans-unit id="new"><source>New</source><target state="new">New</target></trans-unit>
      <trans-unit id="none"><source>None</source></trans-unit>
      <trans-unit id="markup"><source>A <g id="1">b</g></source><target>A <g id="1">b</g></target></trans-unit>
    </body>
  </file>
</xliff>
"#;

    #[test]
    fn xcode_files_are_read_as_translate_toolkit_reads_them() {
        let read = read(XCODE.as_bytes()).unwrap();
        assert_eq!(read.language.as_deref(), Some("de"));
        let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["CFBundleName", "Click\nhere", "files.count", "markup"]);
        assert_eq!(read.entries[0].text, Text::Plain("Anwendung".into()));
        assert_eq!(read.entries[0].description.as_deref(), Some("Bundle name"));
        assert_eq!(read.entries[1].text, Text::Plain("Klick\r\nhier & <da> <b>".into()));
        assert!(read.entries[1].outdated);
        assert!(matches!(read.entries[2].text, Text::Plural(_)));
        // A unit with inline elements holds its XML content, a markup text.
        let markup = read.entries.iter().find(|entry| entry.name == "markup").unwrap();
        assert_eq!(markup.text, Text::Plain("A <g id=\"1\">b</g>".into()));
        assert!(markup.markup && !read.entries[0].markup);
        // The repeated id is passed over, with why.
        assert_eq!(read.warnings.len(), 1);
        // Each with the line its unit starts on.
        let lines: Vec<usize> = read.entries.iter().map(|entry| entry.line).collect();
        assert_eq!(lines, [5, 18, 24, 30]);
        let lines: Vec<usize> = read.warnings.iter().map(|warning| warning.line).collect();
        assert_eq!(lines, [14]);
    }

    #[test]
    fn a_source_file_gives_its_targets_or_sources() {
        let file = XCODE.replace("target-language=\"de\"", "target-language=\"en\"");
        let read = read(file.as_bytes()).unwrap();
        assert_eq!(read.language.as_deref(), Some("en"));
        let new = read.entries.iter().find(|entry| entry.name == "new").unwrap();
        assert_eq!(new.text, Text::Plain("New".into()));
        let none = read.entries.iter().find(|entry| entry.name == "none").unwrap();
        assert_eq!(none.text, Text::Plain("None".into()));
        assert!(read.entries.iter().all(|entry| !entry.outdated));
    }

    /// The version from the first bytes alone, as the reader takes it (the CLI pulls Bolt's
    /// 1.2 and 2.0 files each in its own version).
    #[test]
    fn a_files_version_is_read_from_its_xliff_element() {
        let v2 = br#"<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de"><file id="f">"#;
        let v1 = br#"<?xml version="1.0"?><!-- a comment --><xliff version="1.2"><file source-language="en""#;
        assert_eq!(version_of(v2), Some(Version::V2));
        assert_eq!(version_of(v1), Some(Version::V1));
        assert_eq!(version_of(b"<resources><string/></resources>"), None);
        assert_eq!(version_of(br#"<xliff version="3.0">"#), None);
    }

    #[test]
    fn version_2_units_are_read_by_name_with_their_segment_state() {
        let file = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
  <file id="f1">
    <unit id="k1" name="a b">
      <notes><note>First</note><note>Second</note></notes>
      <segment state="initial"><source>Hi</source><target>Salut</target></segment>
    </unit>
    <unit id="ok"><segment state="final"><source>OK</source><target>D'accord</target></segment></unit>
    <unit id="todo"><segment><source>Later</source></segment></unit>
    <unit id="split"><segment><source>A</source><target>B</target></segment><segment><source>C</source><target>D</target></segment></unit>
  </file>
</xliff>"#;
        let document = parse(file).unwrap();
        assert_eq!(document.version, Version::V2);
        let read = read(file.as_bytes()).unwrap();
        let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["a b", "ok"]);
        assert!(read.entries[0].outdated);
        assert_eq!(read.entries[0].description.as_deref(), Some("First"));
        assert!(!read.entries[1].outdated);
        assert_eq!(read.warnings.len(), 1);
    }

    #[test]
    fn files_that_are_not_xliff_are_refused_with_their_line() {
        assert!(read(b"<resources/>").is_err());
        assert!(read(b"<xliff version=\"3.0\"/>").is_err());
        let err = read(b"<xliff version=\"1.2\">\n<file><body><trans-unit id=\"a\"><source>x</target>").unwrap_err();
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn symfony_units_are_keyed_by_resname_else_source_and_the_paths_language_wins() {
        // Symfony Validator's `validators.no.xlf` says `nb`; its unit 37 is keyed by its
        // `resname`, unit 38 (without one) by its source, as Symfony's loader keys them.
        let file = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">
    <file source-language=\"en\" target-language=\"nb\" datatype=\"plaintext\" original=\"file.ext\">
        <body>
            <trans-unit id=\"37\" resname=\"This is not a valid IP address.\">
                <source>This value is not a valid IP address.</source>
                <target state=\"needs-review-translation\">Denne verdien er ikke en gyldig IP-adresse.</target>
            </trans-unit>
            <trans-unit id=\"38\">
                <source>This value is not a valid language.</source>
                <target>Denne verdien er ikke et gyldig språk.</target>
            </trans-unit>
        </body>
    </file>
</xliff>
";
        let read = read_in(file.as_bytes(), Some("no")).unwrap();
        assert_eq!(read.language.as_deref(), Some("no"));
        let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(
            names,
            ["This is not a valid IP address.", "This value is not a valid language."]
        );
        assert!(read.entries[0].outdated);
        // Without a path's language, the file's own.
        assert_eq!(super::read(file.as_bytes()).unwrap().language.as_deref(), Some("nb"));
    }

    #[test]
    fn an_angular_translation_without_target_language_is_its_paths_language() {
        let file = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>
<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">
  <file source-language=\"en\" datatype=\"plaintext\" original=\"ng2.template\">
    <body>
      <trans-unit id=\"routes.about\" datatype=\"html\">
        <source>about</source>
        <target state=\"translated\">sobre</target>
      </trans-unit>
      <trans-unit id=\"4472298507300372923\" datatype=\"html\">
        <source>View and manage</source>
        <target state=\"new\">View and manage</target>
      </trans-unit>
    </body>
  </file>
</xliff>
";
        let read = read_in(file.as_bytes(), Some("es")).unwrap();
        assert_eq!(read.language.as_deref(), Some("es"));
        let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["routes.about"], "a `new` target is not a text");
        assert_eq!(read.source_language.as_deref(), Some("en"));
        assert_eq!(read.sources.len(), 2, "its sources are the base texts");
    }
}
