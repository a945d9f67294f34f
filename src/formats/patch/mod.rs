//! In-place patching of an app's own resource files, for `locstore pull`: the server's
//! values are compared with the file's as the platform reads them, and only entries that
//! differ are touched. An equal entry keeps its bytes whatever quoting or escaping it uses;
//! a changed one gets its new value in the file's style; a key the server deleted loses its
//! entry (and the comment directly above it); a key the server never had is kept; a key new
//! to the file is inserted after the nearest key that precedes it in the base language's file
//! of the same name. Every other byte (comments, blank lines, other resources, encoding,
//! byte order mark, line endings, a missing final newline) stays.
//!
//! Like the readers and writers, the patchers are pure: bytes in, and out the edits to the
//! app's file ([`Edited`], written over the file and never copied whole) or new bytes.

pub mod android;
pub mod apple;
pub mod csv;
mod edits;
pub mod json;
pub mod po;
pub mod stringsdict;
pub mod xcstrings;
pub mod xliff;
pub mod yaml;

use super::{ExportFormat, ReadError};
pub use edits::Edited;
use edits::Edits;

/// What a pull knows when it patches one file.
pub struct PatchInput<'a> {
    /// The app's file as it is on disk.
    pub local: &'a [u8],
    /// The same file as the server's export writes it.
    pub exported: &'a [u8],
    /// The entry names of the base language's file of the same name, in its order (after
    /// its own patch); `None` for the base language's file, where new keys go at the end.
    pub order: Option<&'a [String]>,
    /// Whether the server deleted the key of an entry of the file that the export lacks
    /// (then the entry goes); asked only for such entries.
    pub deleted: &'a (dyn Fn(&str) -> bool + Sync),
    /// Whether this is the base language's file: descriptions are compared only there (a
    /// translation's file has no comments of its own to compare).
    pub is_base: bool,
    /// `local` as [`prepare`] read it, when it was read before (an export's kept file, which
    /// every export of its project patches): then the patcher does not read it again.
    pub prepared: Option<&'a Prepared>,
}

/// An app's file read once for patching, kept to patch it again: what its patcher reads of it.
pub enum Prepared {
    /// JSON, i18next and ARB files.
    Json(json::Local),
    Po(po::Local),
    Xliff(xliff::Local),
    Yaml(yaml::Local),
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let format = match self {
            Self::Json(_) => "JSON",
            Self::Po(_) => "PO",
            Self::Xliff(_) => "XLIFF",
            Self::Yaml(_) => "YAML",
        };
        write!(f, "Prepared({format})")
    }
}

/// A patcher's reading of a file, which [`prepare`] can do ahead.
trait ReadAhead: Sized {
    /// This patcher's reading in what was read ahead, if it is one.
    fn of(prepared: &Prepared) -> Option<&Self>;
    fn read(text: &str) -> Result<Self, ReadError>;
}

/// Each patcher's reading, and the kind of [`Prepared`] that holds it.
macro_rules! read_ahead {
    ($($variant:ident => $local:ty),*) => {$(
        impl ReadAhead for $local {
            fn of(prepared: &Prepared) -> Option<&Self> {
                match prepared {
                    Prepared::$variant(local) => Some(local),
                    _ => None,
                }
            }

            fn read(text: &str) -> Result<Self, ReadError> {
                <$local>::read(text)
            }
        }
    )*};
}

read_ahead!(Json => json::Local, Po => po::Local, Xliff => xliff::Local, Yaml => yaml::Local);

/// The app's file (`text`) as the patcher reads it: as `prepared` (the input's) has it read
/// ahead, else read now into `read`.
fn read_ahead<'r, L: ReadAhead>(
    prepared: Option<&'r Prepared>,
    text: &str,
    read: &'r mut Option<L>,
) -> Result<&'r L, ReadError> {
    if let Some(local) = prepared.and_then(L::of) {
        return Ok(local);
    }
    Ok(read.insert(L::read(text)?))
}

/// Whether [`prepare`] reads `format`'s files ahead.
pub fn prepares(format: ExportFormat) -> bool {
    matches!(
        format,
        ExportFormat::Xliff
            | ExportFormat::Xliff2
            | ExportFormat::Json
            | ExportFormat::I18next
            | ExportFormat::Arb
            | ExportFormat::Po
            | ExportFormat::Yaml
    )
}

/// `bytes` (a file of `format`) read for patching again; `None` for a format whose patcher
/// reads its files each time, and for a file it cannot read.
pub fn prepare(format: ExportFormat, bytes: &[u8]) -> Option<Prepared> {
    match format {
        ExportFormat::Xliff | ExportFormat::Xliff2 => xliff::Local::read(utf8(bytes).ok()?).ok().map(Prepared::Xliff),
        ExportFormat::Json | ExportFormat::I18next | ExportFormat::Arb => {
            json::Local::read(utf8(bytes).ok()?).ok().map(Prepared::Json)
        }
        ExportFormat::Po => po::Local::read(utf8(bytes).ok()?).ok().map(Prepared::Po),
        ExportFormat::Yaml => yaml::Local::read(utf8(bytes).ok()?).ok().map(Prepared::Yaml),
        _ => None,
    }
}

/// A patched file.
pub struct Patched {
    pub body: Body,
    /// For the base language's file, its entry names in order after the patch (what the
    /// translations' files of the same name follow).
    pub names: Option<Vec<String>>,
    /// Whether this is the export's file as it is, the app's file not being one the patcher
    /// can edit in place (another plural formula, another XLIFF version, ...).
    pub whole: bool,
}

/// A patched file's bytes.
pub enum Body {
    /// The app's file ([`PatchInput::local`]) with these edits made to it.
    Edited(Edited),
    /// Bytes of their own: the export's file, or a file whose bytes the patch wrote anew
    /// (another encoding, a document written again).
    Bytes(Vec<u8>),
}

impl Body {
    /// The patched file's bytes, `local` being the app's file it patched.
    pub fn into_bytes(self, local: &[u8]) -> Vec<u8> {
        match self {
            Self::Edited(edited) => edited.to_bytes(local),
            Self::Bytes(bytes) => bytes,
        }
    }

    /// Whether the patched file has the bytes of `local`, the app's file it patched.
    pub fn keeps(&self, local: &[u8]) -> bool {
        match self {
            Self::Edited(edited) => edited.keeps(local),
            Self::Bytes(bytes) => bytes == local,
        }
    }
}

impl Patched {
    /// The patch of `input` by `edits` to its file's `text` (the file's bytes after their
    /// byte order mark); the names only for the base language's file.
    fn of(input: &PatchInput<'_>, edits: Edits, text: &str, names: Vec<String>) -> Self {
        debug_assert!(input.local.ends_with(text.as_bytes()));
        Self {
            body: Body::Edited(edits.of_file(input.local.len() - text.len())),
            names: input.is_base.then_some(names),
            whole: false,
        }
    }

    /// The patch of `input` by `edits` to `text` (the file decoded), stored as `encode`
    /// stores the edited text: the file untouched when there is nothing to edit.
    fn encoded(
        input: &PatchInput<'_>,
        edits: Edits,
        text: &str,
        names: Vec<String>,
        encode: impl FnOnce(String) -> Vec<u8>,
    ) -> Self {
        let body = if edits.is_empty() {
            Body::Edited(Edited::default())
        } else {
            Body::Bytes(encode(edits.apply(text)))
        };
        Self {
            body,
            names: input.is_base.then_some(names),
            whole: false,
        }
    }
}

impl Patched {
    /// The export's file as it is (for a file a patcher cannot edit in place), with its names
    /// (read by `names`) for the base language's file.
    fn whole_export(
        input: &PatchInput<'_>,
        names: impl FnOnce(&[u8]) -> Result<Vec<String>, ReadError>,
    ) -> Result<Self, ReadError> {
        Self::whole_file(input, input.exported.to_vec(), names)
    }

    /// A file written anew (`bytes`, made from the export), with its names (read by `names`)
    /// for the base language's file.
    fn whole_file(
        input: &PatchInput<'_>,
        bytes: Vec<u8>,
        names: impl FnOnce(&[u8]) -> Result<Vec<String>, ReadError>,
    ) -> Result<Self, ReadError> {
        Ok(Self {
            names: if input.is_base { Some(names(&bytes)?) } else { None },
            body: Body::Bytes(bytes),
            whole: true,
        })
    }
}

/// The text of a UTF-8 file, without its byte order mark.
fn utf8(bytes: &[u8]) -> Result<&str, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|err| ReadError::unplaced(format!("the file is not UTF-8 ({err})")))
}

/// A patched text as the file's bytes: with the byte order mark when the app's file has one.
fn with_bom(local: &[u8], patched: String) -> Vec<u8> {
    if !local.starts_with(b"\xef\xbb\xbf") {
        return patched.into_bytes();
    }
    let mut bytes = Vec::with_capacity(patched.len() + 3);
    bytes.extend_from_slice(b"\xef\xbb\xbf");
    bytes.extend_from_slice(patched.as_bytes());
    bytes
}

/// Whether a file of a format's layout goes through [`patch`]: Android XML, `.strings`,
/// XML `.stringsdict`, JSON files and CSV tables are patched in place; `{lang}.csv` files (and binary property
/// lists) are kept when they hold the export's values and written as the export writes them
/// otherwise.
pub fn can_patch(format: ExportFormat, path: &str) -> bool {
    match format {
        ExportFormat::AndroidXml => path.ends_with(".xml"),
        ExportFormat::AppleStrings => path.ends_with(".strings") || path.ends_with(".stringsdict"),
        ExportFormat::Json | ExportFormat::I18next | ExportFormat::Csv => true,
        ExportFormat::CsvTable => path.ends_with(".csv"),
        ExportFormat::Xcstrings => path.ends_with(".xcstrings"),
        ExportFormat::Po => path.ends_with(".po") || path.ends_with(".pot"),
        ExportFormat::Arb => path.ends_with(".arb"),
        ExportFormat::Xliff | ExportFormat::Xliff2 => crate::formats::xliff::is_xliff(path),
        ExportFormat::Yaml => path.ends_with(".yml") || path.ends_with(".yaml"),
    }
}

/// The names of a file's entries, in file order.
pub fn names(format: ExportFormat, bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    match format {
        ExportFormat::AndroidXml => android::names(bytes),
        ExportFormat::AppleStrings if super::apple::is_property_list(bytes) => {
            if stringsdict::is_xml(bytes) {
                stringsdict::names(bytes)
            } else {
                Ok(Vec::new())
            }
        }
        ExportFormat::Json | ExportFormat::I18next | ExportFormat::Arb => json::names(bytes),
        ExportFormat::AppleStrings => apple::names(bytes),
        ExportFormat::Xcstrings => xcstrings::names(bytes),
        ExportFormat::Po => po::names(bytes),
        ExportFormat::Xliff | ExportFormat::Xliff2 => xliff::names(bytes),
        ExportFormat::Yaml => yaml::names(bytes),
        ExportFormat::Csv | ExportFormat::CsvTable => Ok(Vec::new()),
    }
}

/// The patched file.
pub fn patch(format: ExportFormat, input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    // The empty name is no key's (none can be named so): an entry keyed `""` is the app's
    // own and stays, and the server is never asked about it.
    let deleted = |name: &str| !name.is_empty() && (input.deleted)(name);
    let input = &PatchInput {
        deleted: &deleted,
        ..*input
    };
    match format {
        ExportFormat::AndroidXml => android::patch(input),
        ExportFormat::AppleStrings if super::apple::is_property_list(input.exported) => {
            if stringsdict::is_xml(input.local) && stringsdict::is_xml(input.exported) {
                stringsdict::patch(input)
            } else {
                same_values_or_export(format, input)
            }
        }
        ExportFormat::AppleStrings => apple::patch(input),
        ExportFormat::Json => json::patch(input),
        // An ARB file is a JSON object of texts and `@key` objects of metadata: an `@key`
        // object's members go when the server deleted the key (Flutter's keys are Dart
        // identifiers, so the key is what comes before the first `.`).
        ExportFormat::Arb => json::patch_arb(input),
        // i18next's plural forms are members of their own (`files_one`): patched as JSON's
        // texts, and a form goes when the server deleted its key.
        ExportFormat::I18next => {
            let deleted = |name: &str| {
                let key = super::i18next::plural_form(name).map_or(name, |(key, _)| key);
                (input.deleted)(key)
            };
            json::patch(&PatchInput {
                deleted: &deleted,
                ..*input
            })
        }
        ExportFormat::Xcstrings => xcstrings::patch(input),
        ExportFormat::Po => po::patch(input),
        ExportFormat::Xliff | ExportFormat::Xliff2 => xliff::patch(input),
        ExportFormat::Yaml => yaml::patch(input),
        ExportFormat::Csv => same_values_or_export(format, input),
        ExportFormat::CsvTable => csv::patch(input),
    }
}

/// For the formats without an in-place patcher yet: the app's file when it holds the same
/// values as the export (so its own formatting stays), else the export's file.
fn same_values_or_export(format: ExportFormat, input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let read = |bytes: &[u8]| -> Result<Vec<(String, crate::domain::model::Text)>, ReadError> {
        let entries = match format {
            ExportFormat::Json => super::json::read(bytes)?,
            ExportFormat::AppleStrings => super::apple::read_stringsdict(bytes)?.0,
            _ => super::csv::read(bytes)?
                .into_iter()
                .flat_map(|(_, entries)| entries)
                .collect(),
        };
        let mut values: Vec<_> = entries.into_iter().map(|entry| (entry.name, entry.text)).collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(values)
    };
    let whole = read(input.local)? != read(input.exported)?;
    let body = if whole {
        Body::Bytes(input.exported.to_vec())
    } else {
        Body::Edited(Edited::default())
    };
    Ok(Patched {
        body,
        names: None,
        whole,
    })
}

/// Where each of the `new` names goes: the place (`place_of`) of the nearest name before it
/// in the base file's `order` that has one in this file; `None` (the end) when there is none,
/// or no order. One pass over the order to find the new names, then back from each to the
/// nearest placed name, never further back than the new name before it: a few new names in a
/// file of 100,000 look up a few places.
fn anchors<T: Copy>(order: Option<&[String]>, new: &[&str], place_of: impl Fn(&str) -> Option<T>) -> Vec<Option<T>> {
    let Some(order) = order.filter(|_| !new.is_empty()) else {
        return vec![None; new.len()];
    };
    let mut wanted: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    wanted.reserve(new.len());
    for (index, name) in new.iter().enumerate() {
        wanted.entry(name).or_insert(index);
    }
    // Where each new name is in the order (its last time there).
    let mut position: Vec<Option<usize>> = vec![None; new.len()];
    for (at, name) in order.iter().enumerate() {
        if let Some(&index) = wanted.get(name.as_str()) {
            position[index] = Some(at);
        }
    }
    let mut found: Vec<(usize, usize)> = position
        .iter()
        .enumerate()
        .filter_map(|(index, at)| Some(((*at)?, index)))
        .collect();
    found.sort_unstable();
    let mut places = vec![None; new.len()];
    // The nearest place before `floor`, and where the search back from the next name stops.
    let (mut carried, mut floor) = (None, 0);
    for (at, index) in found {
        let place = order[floor..at]
            .iter()
            .rev()
            .find_map(|name| place_of(name))
            .or(carried);
        places[index] = place;
        carried = place_of(&order[at]).or(place);
        floor = at + 1;
    }
    // A name given twice goes where its first is placed.
    new.iter()
        .enumerate()
        .map(|(index, name)| places[wanted.get(name).map_or(index, |&first| first)])
        .collect()
}

/// The line ending a file uses: CRLF when it has one, else LF.
fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The start of the line `at` is on, when only spaces and tabs come before it there; else
/// `at` itself.
fn start_of_line(text: &str, at: usize) -> usize {
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    if before[line_start..].bytes().all(|byte| byte == b' ' || byte == b'\t') {
        line_start
    } else {
        at
    }
}

/// The end of the line `at` is on, past its line break, when only spaces and tabs (and a
/// carriage return) come after it there; else `at` itself.
fn end_of_line(text: &str, at: usize) -> usize {
    let after = &text[at..];
    let line_end = after.find('\n').map_or(after.len(), |newline| newline + 1);
    if after[..line_end]
        .bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
    {
        at + line_end
    } else {
        at
    }
}

/// The indentation of the line `at` is on, when only white space precedes it there.
fn indentation_at(text: &str, at: usize) -> Option<&str> {
    let line_start = start_of_line(text, at);
    (line_start < at || text[..at].ends_with('\n') || at == 0).then(|| &text[line_start..at])
}

/// Runs a patcher as a pull would, with the names the server deleted (for the patchers'
/// unit tests).
#[cfg(test)]
fn patched_with(
    patch: fn(&PatchInput<'_>) -> Result<Patched, ReadError>,
    local: &[u8],
    exported: &str,
    order: Option<&[&str]>,
    removed: &[&str],
    is_base: bool,
) -> Vec<u8> {
    let order: Option<Vec<String>> = order.map(|names| names.iter().map(|name| name.to_string()).collect());
    let deleted = |name: &str| removed.contains(&name);
    let input = PatchInput {
        local,
        exported: exported.as_bytes(),
        order: order.as_deref(),
        deleted: &deleted,
        is_base,
        prepared: None,
    };
    let patched = patch(&input).unwrap().body.into_bytes(local);
    // The file read ahead (as an export's kept file is) patches to the same bytes.
    for format in [
        ExportFormat::Json,
        ExportFormat::Po,
        ExportFormat::Xliff,
        ExportFormat::Yaml,
    ] {
        if let Some(prepared) = prepare(format, local) {
            let input = PatchInput {
                prepared: Some(&prepared),
                ..input
            };
            assert_eq!(
                String::from_utf8_lossy(&patch(&input).unwrap().body.into_bytes(local)),
                String::from_utf8_lossy(&patched),
                "read ahead as {format:?}"
            );
        }
    }
    patched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_name_goes_after_its_nearest_earlier_name_the_file_has() {
        let order: Vec<String> = ["a", "b", "x", "c", "y"].iter().map(|name| name.to_string()).collect();
        let places = |name: &str| match name {
            "a" => Some(1),
            "c" => Some(3),
            _ => None,
        };
        assert_eq!(
            anchors(Some(&order), &["x", "y", "b", "z"], places),
            [Some(1), Some(3), Some(1), None]
        );
        // Names new one after the other go after the same placed name; a new name that has
        // a place itself (a name of the file the export lacks) places the ones after it.
        let order: Vec<String> = ["q", "a", "n1", "n2", "c", "n3"]
            .iter()
            .map(|name| name.to_string())
            .collect();
        assert_eq!(
            anchors(Some(&order), &["n3", "n2", "n1", "q"], places),
            [Some(3), Some(1), Some(1), None]
        );
        assert_eq!(
            anchors(Some(&order), &["c", "n3", "c"], places),
            [Some(1), Some(3), Some(1)]
        );
        assert_eq!(anchors(None, &["x"], places), [None]);
    }

    #[test]
    fn edits_apply_in_place_and_insertions_keep_their_order() {
        let mut edits = Edits::default();
        edits.insert(5, "+1");
        edits.replace(0..1, "A");
        edits.insert(5, "+2");
        assert_eq!(edits.apply("abcdefg"), "Abcde+1+2fg");
    }

    #[test]
    fn lines_are_found_only_when_nothing_else_is_on_them() {
        let text = "a\n    <x/>\n<y/> <z/>\n";
        let x = text.find("<x/>").unwrap();
        assert_eq!(start_of_line(text, x), 2);
        assert_eq!(end_of_line(text, x + 4), 11);
        let z = text.find("<z/>").unwrap();
        assert_eq!(start_of_line(text, z), z);
        assert_eq!(indentation_at(text, x), Some("    "));
        assert_eq!(indentation_at(text, z), None);
    }
}
