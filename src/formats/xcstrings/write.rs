//! Writing catalogs as Xcode writes them (see the module's notes).

use std::borrow::Borrow;
use std::sync::{Mutex, PoisonError};

use super::{Node, path, sort_in_xcode_order, xcode_order};
use crate::domain::model::{Key, PluralCategory, TextRef};
use crate::domain::names::LanguageCode;
use crate::domain::text::BaseText;
use crate::formats::ExportFile;
use crate::formats::escape::{Specials, push_escaped};
use crate::formats::gzip;
use crate::formats::in_order::make_in_order;

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
    let base_text = BaseText::new(key.translations.get(base));
    // Each language's text, its state, and whether a kept node is written whatever its state
    // (the base language, which is never to review; an empty unit).
    let written: Vec<(&LanguageCode, TextRef<'_>, &str, bool)> = languages
        .iter()
        .zip(hints.iter_mut())
        .filter_map(|(language, hint)| {
            let Some((text, recorded)) = key.translations.get_near_written(language, hint) else {
                // Xcode's unit with an empty value, while the key has no text there.
                let empty = super::kept::kept_node(key, language, TextRef::Plain(""), None).is_some();
                return empty.then_some((*language, TextRef::Plain(""), "", true));
            };
            let is_base = std::ptr::eq(*language, base) || *language == base;
            if !is_base && !key.translatable {
                return None;
            }
            if is_base && key.xcode.source_from_key && is_key_name(key, text) {
                return None;
            }
            let state = if !is_base && base_text.outdates(recorded) {
                "needs_review"
            } else {
                "translated"
            };
            Some((*language, text, state, is_base))
        })
        .collect();
    if !written.is_empty() {
        let mut localizations = Fields::open(fields.next("localizations"), 8);
        for (language, text, state, any_state) in written {
            // Xcode's own node, while it says what the key holds.
            let outdated = (!any_state).then_some(state == "needs_review");
            let kept = super::kept::kept_node(key, language, text, outdated);
            if let Some(kept) = kept {
                write_node(localizations.next(language.as_str()), &kept, 10);
                continue;
            }
            let whole = match text {
                TextRef::Plain(value) if key.xcode.whole => Node::from_whole_text(value),
                _ => None,
            };
            if let Some(whole) = whole {
                write_node(localizations.next(language.as_str()), &whole, 10);
                continue;
            }
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
/// How a catalog's JSON is laid out: Xcode's (`"key" : value`, an empty object over two
/// lines), or the one a script wrote (`"key": value` and `{}`, Meshtastic's, as Python's
/// `json.dumps(indent=2)` writes), which a patched catalog keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    colon: &'static str,
    compact_empty: bool,
}

impl Layout {
    pub const XCODE: Layout = Layout {
        colon: " : ",
        compact_empty: false,
    };

    /// The layout of a catalog's text: its first member's colon, and whether an empty object
    /// is written `{}`.
    pub fn of(text: &str) -> Layout {
        let xcode_colon = text.find("\" : ");
        let script_colon = text.find("\": ");
        match (xcode_colon, script_colon) {
            (Some(xcode), Some(script)) if script < xcode => Layout::SCRIPT,
            (None, Some(_)) => Layout::SCRIPT,
            _ => Layout::XCODE,
        }
    }

    const SCRIPT: Layout = Layout {
        colon: ": ",
        compact_empty: true,
    };
}

struct Fields<'a> {
    out: &'a mut String,
    indent: usize,
    members: usize,
    layout: Layout,
}

impl<'a> Fields<'a> {
    fn open(out: &'a mut String, indent: usize) -> Self {
        Self::open_in(out, indent, Layout::XCODE)
    }

    fn open_in(out: &'a mut String, indent: usize, layout: Layout) -> Self {
        out.push('{');
        Self {
            out,
            indent,
            members: 0,
            layout,
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
        self.out.push_str(self.layout.colon);
        self.out
    }

    fn close(self) {
        if self.members == 0 && self.layout.compact_empty {
            self.out.push('}');
            return;
        }
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

/// Writes a node as Xcode does (see the module's notes), at `indent` spaces for its members.
pub fn write_node(out: &mut String, node: &Node, indent: usize) {
    write_node_in(out, node, indent, Layout::XCODE);
}

/// [`write_node`] in a catalog's own layout.
pub fn write_node_in(out: &mut String, node: &Node, indent: usize, layout: Layout) {
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
                write_node_in(out, item, indent + 2, layout);
            }
            out.push('\n');
            if items.is_empty() {
                out.push('\n');
            }
            push_indent(out, indent - 2);
            out.push(']');
        }
        Node::Object(members) => {
            let mut fields = Fields::open_in(out, indent, layout);
            for (name, value) in members {
                let out = fields.next(name);
                write_node_in(out, value, indent + 2, layout);
            }
            fields.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_held_whole_is_written_as_the_catalog_had_it_and_patches_as_json() {
        use crate::domain::model::{Text, XcodeEntry};
        use crate::domain::names::KeyName;
        use crate::formats::ExportFormat;
        use crate::formats::patch::{PatchInput, patch};
        // As Xcode wrote it (CotEditor's two plural variables in one text).
        let catalog = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"%lld files in %lld folders\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"needs_review\",\n            \"value\" : \"%lld Dateien\"\n          }\n        },\n        \"en\" : {\n          \"stringUnit\" : {\n            \"state\" : \"new\",\n            \"value\" : \"%#@files@ in %#@folders@\"\n          },\n          \"substitutions\" : {\n            \"files\" : {\n              \"argNum\" : 1,\n              \"formatSpecifier\" : \"lld\",\n              \"variations\" : {\n                \"plural\" : {\n                  \"one\" : {\n                    \"stringUnit\" : {\n                      \"state\" : \"new\",\n                      \"value\" : \"%arg file\"\n                    }\n                  },\n                  \"other\" : {\n                    \"stringUnit\" : {\n                      \"state\" : \"new\",\n                      \"value\" : \"%arg files\"\n                    }\n                  }\n                }\n              }\n            },\n            \"folders\" : {\n              \"argNum\" : 2,\n              \"formatSpecifier\" : \"lld\"\n            }\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}";
        let read = super::super::read(catalog.as_bytes()).unwrap();
        let mut key = Key::named(KeyName::parse("%lld files in %lld folders").unwrap());
        key.xcode = XcodeEntry {
            whole: true,
            ..XcodeEntry::default()
        };
        for (language, entries) in &read.languages {
            key.translations
                .insert(LanguageCode::parse(language).unwrap(), entries[0].text.clone());
        }
        let languages = [LanguageCode::parse("de").unwrap(), LanguageCode::parse("en").unwrap()];
        let written = render(&[&key], &languages[1], &languages, "Localizable");
        assert_eq!(String::from_utf8(written.bytes.clone()).unwrap(), catalog);

        // Pulled into the app's catalog written in another member order, nothing changes.
        let patched = |local: &str, exported: &[u8]| {
            let never = |_: &str| false;
            let input = PatchInput {
                local: local.as_bytes(),
                exported,
                order: None,
                deleted: &never,
                is_base: true,
                prepared: None,
            };
            let patched = patch(ExportFormat::Xcstrings, &input).unwrap();
            String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap()
        };
        let reordered = catalog.replace(
            "\"argNum\" : 2,\n              \"formatSpecifier\" : \"lld\"",
            "\"formatSpecifier\" : \"lld\",\n              \"argNum\" : 2",
        );
        assert_eq!(patched(&reordered, &written.bytes), reordered);

        // An edit of the JSON on the server reaches the app.
        let en = LanguageCode::parse("en").unwrap();
        let mut edited = key.clone();
        let text = key
            .translations
            .get(&en)
            .unwrap()
            .as_plain()
            .unwrap()
            .replace("%arg files", "%arg Dateien");
        edited.translations.insert(en, Text::Plain(text));
        let exported = render(&[&edited], &languages[1], &languages, "Localizable");
        assert_eq!(
            patched(catalog, &exported.bytes),
            catalog.replace("%arg files", "%arg Dateien")
        );
    }

    #[test]
    fn strings_are_escaped_as_foundation_does() {
        let mut out = String::new();
        push_string(&mut out, "a \"b\" \\ c/d\ne\tf\u{1}😀");
        assert_eq!(out, r#""a \"b\" \\ c/d\ne\tf\u0001😀""#);
    }
}
