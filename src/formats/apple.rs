//! Apple `{lang}.lproj/Localizable.strings` (plain keys, `"key" = "text";` in UTF-8, each
//! description as a `/* */` comment before its entry) and `Localizable.stringsdict` (plural
//! keys, an XML property list), written with the escapes of CoreFoundation's parsers and read
//! by the same rules.

pub mod tables;

use std::borrow::Borrow;
use std::fmt::Write;

use plist::{Dictionary, Value};

use super::placeholders;
use super::{ExportFile, ParsedEntry, ReadError, ReadWarning, texts};
use crate::domain::model::{FormsRef, Key, PluralCategory, PluralForms, TextRef};
use crate::domain::names::LanguageCode;

/// Whether Apple file bytes are a property list (a `.stringsdict`, XML or binary) rather than
/// a `.strings` file.
pub fn is_property_list(bytes: &[u8]) -> bool {
    bytes.starts_with(b"bplist") || String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).contains("<plist")
}

/// The table keys without an Apple file go to.
pub const DEFAULT_TABLE: &str = "Localizable";

/// A table's `.strings` file of a language (when `files.0`), and its `.stringsdict` (when
/// `files.1`). With `converting`, the Java printf keys left in their syntax are written in
/// Apple's as their texts are escaped (see [`placeholders::converts_on_write`]).
pub fn render(
    keys: &[impl Borrow<Key>],
    language: &LanguageCode,
    table: &str,
    (with_strings, with_plurals): (bool, bool),
    converting: bool,
) -> Vec<ExportFile> {
    let mut strings = String::new();
    let mut plurals = Dictionary::new();
    for (key, text) in texts(keys, language) {
        match text {
            TextRef::Plain(text) => {
                if !key.description.is_empty() {
                    let _ = writeln!(strings, "/* {} */", comment(&key.description));
                }
                strings.push('"');
                escape_onto(key.name.as_str(), &mut strings);
                strings.push_str("\" = \"");
                if converting && placeholders::left_in_printf(key) {
                    placeholders::write_for_apple(text, &mut strings, escape_onto);
                } else {
                    escape_onto(text, &mut strings);
                }
                strings.push_str("\";\n");
            }
            TextRef::Plural(forms) => {
                plurals.insert(key.name.to_string(), Value::Dictionary(plural_entry(forms)));
            }
        }
    }
    let mut paths = paths(language, table, with_strings, with_plurals).into_iter();
    let mut files = Vec::new();
    if with_strings {
        files.push(ExportFile {
            path: paths.next().expect("the .strings file"),
            bytes: strings.into_bytes(),
        });
    }
    if with_plurals {
        let mut bytes = Vec::new();
        // Writing a dictionary of strings into memory cannot fail.
        Value::Dictionary(plurals)
            .to_writer_xml(&mut bytes)
            .expect("writing a plist into memory");
        bytes.push(b'\n');
        files.push(ExportFile {
            path: paths.next().expect("the .stringsdict file"),
            bytes,
        });
    }
    files
}

/// The files of a language's table: its `.strings`, then its `.stringsdict`, as asked.
pub fn paths(language: &LanguageCode, table: &str, with_strings: bool, with_plurals: bool) -> Vec<String> {
    let folder = format!("{}.lproj", bcp47(language));
    let mut paths = Vec::new();
    if with_strings {
        paths.push(format!("{folder}/{table}.strings"));
    }
    if with_plurals {
        paths.push(format!("{folder}/{table}.stringsdict"));
    }
    paths
}

/// One key of a `.stringsdict`: the format `%#@value@` and the variable's forms.
fn plural_entry(forms: FormsRef<'_>) -> Dictionary {
    let mut variable = Dictionary::new();
    variable.insert("NSStringFormatSpecTypeKey".into(), "NSStringPluralRuleType".into());
    variable.insert(
        "NSStringFormatValueTypeKey".into(),
        format_value_type(forms.other_form()).into(),
    );
    for (category, text) in forms.iter() {
        variable.insert(category.name().into(), text.into());
    }
    let mut entry = Dictionary::new();
    entry.insert("NSStringLocalizedFormatKey".into(), "%#@value@".into());
    entry.insert("value".into(), Value::Dictionary(variable));
    entry
}

/// The length modifier and conversion of the first printf conversion in `text` (`%d` → `d`,
/// `%ld` → `ld`, `%1$@` → `@`); `d` when there is none.
pub fn format_value_type(text: &str) -> String {
    let mut rest = text;
    while let Some(start) = rest.find('%') {
        let after = &rest[start + 1..];
        if let Some(next) = after.strip_prefix('%') {
            rest = next;
            continue;
        }
        // Position (`1$`), flags, width and precision come before the length and conversion.
        let spec = after.trim_start_matches(|c: char| c.is_ascii_digit() || "$-+ #0.*'".contains(c));
        let length: String = spec.chars().take_while(|c| "hlqLztj".contains(*c)).collect();
        if let Some(conversion) = spec[length.len()..].chars().next()
            && "diouxXfFeEgGaAcCsSp@".contains(conversion)
        {
            return format!("{length}{conversion}");
        }
        rest = after;
    }
    "d".to_owned()
}

/// The code in BCP 47 form, as Xcode names `.lproj` folders: `pt_BR` becomes `pt-BR`.
pub fn bcp47(language: &LanguageCode) -> String {
    language.as_str().replace('_', "-")
}

/// Escapes a string for a double-quoted strings-file literal.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    escape_onto(text, &mut out);
    out
}

/// [`escape`], onto `out`: the common text, with nothing to escape, is copied whole (`0xc2`
/// leads the C1 controls U+0080 to U+009F, which are escaped too).
fn escape_onto(text: &str, out: &mut String) {
    if !text
        .bytes()
        .any(|byte| byte == b'"' || byte == b'\\' || byte < 0x20 || byte == 0x7f || byte == 0xc2)
    {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\U{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// A description as comment text: `*/` would end the comment early, so it is broken up.
fn comment(description: &str) -> String {
    description.replace("*/", "* /")
}

/// Reads a `.strings` file (UTF-8 or UTF-16 with a byte order mark) the way CoreFoundation
/// does: quoted or unquoted keys and values, `"key";` for a value equal to its key, `/* */` and
/// `//` comments, and the escapes `\n \t \r \" \\ \a \b \f \v`, `\Uhhhh` (with surrogate
/// pairs) and octal `\ooo`. The comment directly above an entry is its description.
pub fn read_strings(bytes: &[u8]) -> Result<Vec<ParsedEntry>, ReadError> {
    if is_property_list(bytes) {
        return read_strings_plist(bytes);
    }
    let text = decode(bytes)?;
    let (_, entries) = scan_strings(&text)?;
    Ok(entries.into_iter().map(|scanned| scanned.entry).collect())
}

/// Reads a `.strings` file written as a property list (XML or binary): CoreFoundation reads
/// a table's file as a property list first, so `<dict><key>k</key><string>v</string>` is a
/// table as `"k" = "v";` is. Values that are not strings are not texts and are passed over.
fn read_strings_plist(bytes: &[u8]) -> Result<Vec<ParsedEntry>, ReadError> {
    let value = Value::from_reader(std::io::Cursor::new(bytes))
        .map_err(|err| ReadError::unplaced(format!("not a property list: {err}")))?;
    let Value::Dictionary(root) = value else {
        return Err(ReadError::unplaced("the property list is not a dictionary of keys"));
    };
    Ok(root
        .into_iter()
        .filter_map(|(name, value)| match value {
            Value::String(text) => Some(ParsedEntry::plain(name, text)),
            _ => None,
        })
        .collect())
}

/// An entry of a `.strings` file with where it is, in characters of the decoded text (for
/// the in-place patcher): the entry from its key to its `;`, its value token (`None` for
/// `"key";`), and the comment directly above it.
pub struct ScannedEntry {
    pub entry: ParsedEntry,
    pub start: usize,
    pub value: Option<std::ops::Range<usize>>,
    pub end: usize,
    pub comment: Option<std::ops::Range<usize>>,
}

/// Reads a decoded `.strings` text into its characters and its entries with their places.
pub fn scan_strings(text: &str) -> Result<(Vec<char>, Vec<ScannedEntry>), ReadError> {
    let mut parser = StringsParser {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        comment_span: None,
    };
    let entries = parser.entries()?;
    Ok((parser.chars, entries))
}

/// A `.strings` file's text and how it was stored: UTF-8 (with or without a BOM) or UTF-16
/// (little or big endian, with or without its BOM).
pub fn decode_strings(bytes: &[u8]) -> Result<(String, StringsEncoding), ReadError> {
    let encoding = encoding_of(bytes);
    Ok((decode(bytes)?, encoding))
}

/// How a `.strings` file is stored, so that a patched file is stored the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringsEncoding {
    Utf8 { bom: bool },
    Utf16 { big_endian: bool, bom: bool },
}

impl StringsEncoding {
    pub fn encode(self, text: &str) -> Vec<u8> {
        match self {
            StringsEncoding::Utf8 { bom } => {
                let mut bytes = if bom { b"\xef\xbb\xbf".to_vec() } else { Vec::new() };
                bytes.extend_from_slice(text.as_bytes());
                bytes
            }
            StringsEncoding::Utf16 { big_endian, bom } => {
                let mut bytes = match (bom, big_endian) {
                    (false, _) => Vec::new(),
                    (true, true) => vec![0xfe, 0xff],
                    (true, false) => vec![0xff, 0xfe],
                };
                for unit in text.encode_utf16() {
                    bytes.extend_from_slice(&if big_endian {
                        unit.to_be_bytes()
                    } else {
                        unit.to_le_bytes()
                    });
                }
                bytes
            }
        }
    }
}

/// The encoding of a `.strings` file: its byte order mark says; without one, UTF-16 shows
/// itself by a zero byte beside its first character (a `"`, `/` or space, which UTF-8 never
/// writes with a zero), as Foundation's guess finds it.
fn encoding_of(bytes: &[u8]) -> StringsEncoding {
    match bytes {
        [0xff, 0xfe, ..] => StringsEncoding::Utf16 {
            big_endian: false,
            bom: true,
        },
        [0xfe, 0xff, ..] => StringsEncoding::Utf16 {
            big_endian: true,
            bom: true,
        },
        [first, 0, ..] if *first != 0 && bytes.len() % 2 == 0 => StringsEncoding::Utf16 {
            big_endian: false,
            bom: false,
        },
        [0, second, ..] if *second != 0 && bytes.len() % 2 == 0 => StringsEncoding::Utf16 {
            big_endian: true,
            bom: false,
        },
        _ => StringsEncoding::Utf8 {
            bom: bytes.starts_with(b"\xef\xbb\xbf"),
        },
    }
}

fn decode(bytes: &[u8]) -> Result<String, ReadError> {
    let utf16 = |bytes: &[u8], big: bool| {
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|pair| {
                if big {
                    u16::from_be_bytes([pair[0], pair[1]])
                } else {
                    u16::from_le_bytes([pair[0], pair[1]])
                }
            })
            .collect();
        String::from_utf16(&units).map_err(|_| ReadError::unplaced("the file is not valid UTF-16"))
    };
    match encoding_of(bytes) {
        StringsEncoding::Utf16 { big_endian, bom } => utf16(if bom { &bytes[2..] } else { bytes }, big_endian),
        StringsEncoding::Utf8 { .. } => {
            let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            String::from_utf8(bytes.to_vec()).map_err(|_| ReadError::unplaced("the file is neither UTF-8 nor UTF-16"))
        }
    }
}

struct StringsParser {
    chars: Vec<char>,
    at: usize,
    line: usize,
    /// Where the last comment that [`StringsParser::skip_space_and_comments`] passed is.
    comment_span: Option<std::ops::Range<usize>>,
}

impl StringsParser {
    fn entries(&mut self) -> Result<Vec<ScannedEntry>, ReadError> {
        let mut entries = Vec::new();
        loop {
            let comment = self.skip_space_and_comments()?;
            let comment_span = if comment.is_some() {
                self.comment_span.clone()
            } else {
                None
            };
            if self.peek().is_none() {
                return Ok(entries);
            }
            let line = self.line;
            let start = self.at;
            let key = self.string()?;
            self.skip_space_and_comments()?;
            let (value, value_span) = match self.next() {
                Some(';') => (key.clone(), None),
                Some('=') => {
                    self.skip_space_and_comments()?;
                    let value_start = self.at;
                    let value = self.string()?;
                    let value_end = self.at;
                    self.skip_space_and_comments()?;
                    if self.next() != Some(';') {
                        return Err(self.error("expected `;` after the value"));
                    }
                    (value, Some(value_start..value_end))
                }
                _ => return Err(self.error("expected `=` or `;` after the key")),
            };
            let mut entry = ParsedEntry::plain(key, value).at_line(line);
            entry.description = comment;
            entries.push(ScannedEntry {
                entry,
                start,
                value: value_span,
                end: self.at,
                comment: comment_span,
            });
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn error(&self, message: &str) -> ReadError {
        ReadError::at(self.line, message)
    }

    /// Skips white space and comments; returns the text of the last comment when only white
    /// space follows it (the comment directly above what comes next).
    fn skip_space_and_comments(&mut self) -> Result<Option<String>, ReadError> {
        let mut last = None;
        loop {
            match (self.peek(), self.chars.get(self.at + 1)) {
                // A second byte order mark (Quicksilver's `cs.lproj` starts with two) is
                // read as the first is: nothing.
                (Some(c), _) if c.is_whitespace() || c == '\u{feff}' => {
                    self.next();
                }
                (Some('/'), Some('*')) => {
                    let start = self.at;
                    self.at += 2;
                    let mut text = String::new();
                    loop {
                        match self.next() {
                            Some('*') if self.peek() == Some('/') => {
                                self.next();
                                break;
                            }
                            Some(c) => text.push(c),
                            None => return Err(self.error("a comment is not closed with `*/`")),
                        }
                    }
                    last = Some(text.trim().to_owned());
                    self.comment_span = Some(start..self.at);
                }
                (Some('/'), Some('/')) => {
                    let start = self.at;
                    let mut text = String::new();
                    self.at += 2;
                    while let Some(c) = self.peek().filter(|c| *c != '\n') {
                        text.push(c);
                        self.at += 1;
                    }
                    last = Some(text.trim().to_owned());
                    self.comment_span = Some(start..self.at);
                }
                _ => return Ok(last),
            }
        }
    }

    fn string(&mut self) -> Result<String, ReadError> {
        match self.peek() {
            Some('"') => {
                self.next();
                self.quoted()
            }
            Some(c) if is_unquoted(c) => {
                let mut text = String::new();
                while let Some(c) = self.peek().filter(|c| is_unquoted(*c)) {
                    text.push(c);
                    self.at += 1;
                }
                Ok(text)
            }
            _ => Err(self.error("expected a quoted string")),
        }
    }

    fn quoted(&mut self) -> Result<String, ReadError> {
        let mut text = String::new();
        let mut pending_high: Option<u16> = None;
        loop {
            let c = self
                .next()
                .ok_or_else(|| self.error("a string is not closed with `\"`"))?;
            let c = match c {
                '"' => break,
                '\\' => match self.next().ok_or_else(|| self.error("a string ends in a backslash"))? {
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\u{b}',
                    // Only a capital `U` takes hex digits: CoreFoundation's `getSlashedChar`
                    // reads `\u203A` as `u203A` (an unknown escape keeps its letter).
                    'U' => {
                        let mut unit = 0u32;
                        for _ in 0..4 {
                            match self.peek().and_then(|c| c.to_digit(16)) {
                                Some(digit) => {
                                    unit = unit * 16 + digit;
                                    self.at += 1;
                                }
                                None => break,
                            }
                        }
                        let unit = unit as u16;
                        if (0xd800..0xdc00).contains(&unit) {
                            pending_high = Some(unit);
                            continue;
                        }
                        if let Some(high) = pending_high.take() {
                            let pair = String::from_utf16(&[high, unit]).unwrap_or_else(|_| "\u{fffd}".into());
                            text.push_str(&pair);
                            continue;
                        }
                        char::from_u32(u32::from(unit)).unwrap_or('\u{fffd}')
                    }
                    // Up to three octal digits into one byte (`\777` wraps, as CoreFoundation's
                    // `uint8_t` does), read through the NeXTSTEP encoding.
                    c @ '0'..='7' => {
                        let mut value = c.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match self.peek().and_then(|c| c.to_digit(8)) {
                                Some(digit) => {
                                    value = value * 8 + digit;
                                    self.at += 1;
                                }
                                None => break,
                            }
                        }
                        nextstep_char((value & 0xff) as u8)
                    }
                    other => other,
                },
                c => c,
            };
            if pending_high.take().is_some() {
                text.push('\u{fffd}');
            }
            text.push(c);
        }
        Ok(text)
    }
}

/// A byte of the NeXTSTEP encoding (`kCFStringEncodingNextStepLatin`) as a character: ASCII
/// below 0x80, and NeXT's own table above it.
fn nextstep_char(byte: u8) -> char {
    const HIGH: [char; 128] = [
        '\u{a0}', 'À', 'Á', 'Â', 'Ã', 'Ä', 'Å', 'Ç', 'È', 'É', 'Ê', 'Ë', 'Ì', 'Í', 'Î', 'Ï', //
        'Ð', 'Ñ', 'Ò', 'Ó', 'Ô', 'Õ', 'Ö', 'Ù', 'Ú', 'Û', 'Ü', 'Ý', 'Þ', 'µ', '×', '÷', //
        '©', '¡', '¢', '£', '⁄', '¥', 'ƒ', '§', '¤', '\'', '\u{201c}', '«', '‹', '›', 'ﬁ', 'ﬂ', //
        '®', '–', '†', '‡', '·', '¦', '¶', '•', '\u{201a}', '\u{201e}', '\u{201d}', '»', '…', '‰', '¬', '¿', //
        '¹', '`', '´', 'ˆ', '˜', '¯', '˘', '˙', '¨', '²', '˚', '¸', '³', '˝', '˛', 'ˇ', //
        '—', '±', '¼', '½', '¾', 'à', 'á', 'â', 'ã', 'ä', 'å', 'ç', 'è', 'é', 'ê', 'ë', //
        'ì', 'Æ', 'í', 'ª', 'î', 'ï', 'ð', 'ñ', 'Ł', 'Ø', 'Œ', 'º', 'ò', 'ó', 'ô', 'õ', //
        'ö', 'æ', 'ù', 'ú', 'û', 'ı', 'ü', 'ý', 'ł', 'ø', 'œ', 'ß', 'þ', 'ÿ', '\u{fffd}', '\u{fffd}', //
    ];
    match byte {
        0..=0x7f => char::from(byte),
        high => HIGH[usize::from(high - 0x80)],
    }
}

/// Characters of an unquoted string in an old-style property list.
fn is_unquoted(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_$+/:.-".contains(c)
}

/// Reads a `.stringsdict` (XML or binary property list): each key whose format holds exactly
/// one plural variable (`%#@name@`) becomes a plural key; text around the variable is added
/// to every form. A key the server cannot hold (several variables, no `other` form once empty
/// forms are left out, a shape that is no plural rule) is passed over with a warning naming
/// it: it stays in the app's file, and the rest of the file is read.
pub fn read_stringsdict(bytes: &[u8]) -> Result<(Vec<ParsedEntry>, Vec<ReadWarning>), ReadError> {
    let value = Value::from_reader(std::io::Cursor::new(bytes))
        .map_err(|err| ReadError::unplaced(format!("not a property list: {err}")))?;
    let Value::Dictionary(root) = value else {
        return Err(ReadError::unplaced("the property list is not a dictionary of keys"));
    };
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (name, entry) in root {
        match plural_of(&entry) {
            Ok(forms) => entries.push(ParsedEntry::plural(name, forms)),
            Err(why) => warnings.push(ReadWarning {
                line: 0,
                message: format!("{name:?} {why}; it stays in the file as it is."),
                key: name,
            }),
        }
    }
    Ok((entries, warnings))
}

/// The plural forms of one `.stringsdict` entry, or why the server cannot hold it.
fn plural_of(entry: &Value) -> Result<PluralForms, String> {
    let entry = entry.as_dictionary().ok_or("is not a dictionary")?;
    let format = entry
        .get("NSStringLocalizedFormatKey")
        .and_then(Value::as_string)
        .ok_or("has no NSStringLocalizedFormatKey string")?;
    let variables: Vec<&str> = format
        .split("%#@")
        .skip(1)
        .filter_map(|rest| rest.split('@').next())
        .collect();
    let [variable] = variables[..] else {
        return Err(format!(
            "has {} plural variables, where the server holds one",
            variables.len()
        ));
    };
    let token = format!("%#@{variable}@");
    let (prefix, suffix) = format.split_once(&token).ok_or("has no plural variable")?;
    let rules = entry
        .get(variable)
        .and_then(Value::as_dictionary)
        .ok_or_else(|| format!("has no dictionary for its variable {variable:?}"))?;
    let forms = PluralCategory::ALL.into_iter().filter_map(|category| {
        let text = rules.get(category.name())?.as_string()?;
        // An empty form is one the app leaves out (Foundation falls back to `other`).
        (!text.is_empty()).then(|| (category, format!("{prefix}{text}{suffix}")))
    });
    PluralForms::new(forms)
}

#[cfg(test)]
mod tests;
