//! Placeholder syntaxes and the one normal form every syntax is read into: a text is a
//! sequence of literal runs, placeholders and (in markup texts) tags. Pure functions; the
//! checks compare placeholders in this form, and `formats::placeholders` writes it back out
//! in each export's syntax.
//!
//! A placeholder names its argument by number (`%2$d`, `{0}`, printf's `%s` taking the next
//! one) or by name (`{name}`, `{{name}}`, `%{name}`); numbers are 1-based throughout, so
//! `%1$s`, `%1$@`, `{0}` (MessageFormat's first argument) and Python's `{0}` are argument 1.
//! Something a syntax can write that has no meaning in the normal form (ICU's `select`,
//! Apple's `%#@var@`, an i18next `$t(...)` nesting) is kept as [`Segment::Raw`]: it converts to
//! no other syntax.

use std::fmt;

/// A key's placeholder syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Syntax {
    /// Java's `java.util.Formatter`, as Android's `getString` reads it: `%s`, `%1$d`, `%.2f`, `%%`.
    Printf,
    /// Foundation's `stringWithFormat:`: printf with `%@` objects and C lengths (`%lld`).
    Apple,
    /// ICU MessageFormat (ARB, FormatJS): `{name}`, `{0}`, `{n, number}`, apostrophe quoting.
    Icu,
    /// i18next: `{{name}}`.
    I18next,
    /// Ruby's `I18n.interpolate`: `%{name}`, `%<name>.2f`.
    Rails,
    /// Python's `%` operator: `%s`, `%(name)s`.
    Python,
    /// Python's `str.format`: `{}`, `{0}`, `{name}`, `{{` for a brace.
    PythonBrace,
    /// Symfony's translator: `%name%` (and its validators' `{{ name }}`).
    Symfony,
    /// No placeholders: every character is literal.
    None,
}

impl Syntax {
    pub const NAMES: &'static str = "printf, apple, icu, i18next, rails, python, python-brace, symfony, none";
    pub const ALL: [Syntax; 9] = [
        Self::Printf,
        Self::Apple,
        Self::Icu,
        Self::I18next,
        Self::Rails,
        Self::Python,
        Self::PythonBrace,
        Self::Symfony,
        Self::None,
    ];

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|syntax| syntax.name() == raw)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Printf => "printf",
            Self::Apple => "apple",
            Self::Icu => "icu",
            Self::I18next => "i18next",
            Self::Rails => "rails",
            Self::Python => "python",
            Self::PythonBrace => "python-brace",
            Self::Symfony => "symfony",
            Self::None => "none",
        }
    }

    /// Whether the syntax names arguments by number first (printf's family), rather than by name.
    pub fn is_numbered(self) -> bool {
        matches!(self, Self::Printf | Self::Apple)
    }
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One piece of a text in the normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, unescaped (`%%` read as `%`, ICU's `'{'` as `{`, `&lt;` as `<` in markup).
    Text(String),
    Placeholder(Placeholder),
    /// An opening markup tag (`<b>`, `<xliff:g id="x">`): its name and its attributes as written.
    Open {
        name: String,
        attributes: String,
    },
    /// A closing markup tag.
    Close {
        name: String,
    },
    /// Written as it is in the source syntax; no other syntax can hold it.
    Raw(String),
}

/// A placeholder in the normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    pub argument: Argument,
    /// Whether the source wrote the argument's number (`%2$d`, `{1}`), rather than taking the
    /// next one (`%d`, `{}`).
    pub explicit: bool,
    pub kind: Kind,
    /// printf flags (`-`, `0`, `+`, ` `, `#`, `,`), kept where the target can write them.
    pub flags: String,
    pub width: Option<u32>,
    pub precision: Option<u32>,
}

/// The argument a placeholder takes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Argument {
    /// 1-based.
    Number(u32),
    Name(String),
}

impl fmt::Display for Argument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => write!(f, "{number}"),
            Self::Name(name) => f.write_str(name),
        }
    }
}

/// What a placeholder formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An integer of the platform's width (Java's `%d` takes any integer).
    Int,
    /// A 32-bit C integer (Apple's `%d`, `%i`).
    Int32,
    /// A 64-bit integer (Apple's `%lld`, `%ld`, `%qd`): Swift's `Int`.
    Int64,
    /// An unsigned integer (`%u`, `%lu`, `%llu`).
    Unsigned,
    /// Hexadecimal (`%x`, `%X`: [`Placeholder::flags`] keeps nothing of the case; see `upper`).
    Hex {
        upper: bool,
    },
    Octal,
    /// A floating-point number (`%f`, `%.2f`).
    Float,
    /// Scientific (`%e`) or general (`%g`) notation.
    Exponent {
        general: bool,
        upper: bool,
    },
    /// A string (`%s`; Apple's `%s` is a C string, kept apart as [`Kind::CString`]).
    String,
    /// Apple's `%s`: a C string.
    CString,
    /// An object formatted by its description (Apple's `%@`).
    Object,
    /// A character (`%c`; Apple's `%C` is a `unichar`).
    Char,
    /// A value of no stated type (`{name}`, `{{name}}`, `%{name}`): formatted as text.
    Any,
    /// A number the syntax formats as a number (ICU's `{n, number}`).
    Number,
    /// The plural count (ICU's `#` inside a plural form).
    Count,
}

impl Kind {
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Self::Int | Self::Int32 | Self::Int64 | Self::Unsigned | Self::Hex { .. } | Self::Octal | Self::Count
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Self::Float | Self::Exponent { .. })
    }

    /// The name of the kind in messages and in ARB's placeholder types' terms.
    pub fn name(self) -> &'static str {
        match self {
            Self::Int | Self::Int32 | Self::Int64 | Self::Unsigned | Self::Hex { .. } | Self::Octal | Self::Count => {
                "integer"
            }
            Self::Float | Self::Exponent { .. } => "float",
            Self::Number => "number",
            Self::String | Self::CString | Self::Object | Self::Any => "string",
            Self::Char => "character",
        }
    }
}

impl Placeholder {
    fn new(argument: Argument, explicit: bool, kind: Kind) -> Self {
        Self {
            argument,
            explicit,
            kind,
            flags: String::new(),
            width: None,
            precision: None,
        }
    }
}

/// A text read in the normal form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub segments: Vec<Segment>,
}

impl Parsed {
    pub fn placeholders(&self) -> impl Iterator<Item = &Placeholder> {
        self.segments.iter().filter_map(|segment| match segment {
            Segment::Placeholder(placeholder) => Some(placeholder),
            _ => None,
        })
    }

    pub fn has_raw(&self) -> bool {
        self.segments.iter().any(|segment| matches!(segment, Segment::Raw(_)))
    }

    fn push_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(Segment::Text(last)) = self.segments.last_mut() {
            last.push_str(text);
        } else {
            self.segments.push(Segment::Text(text.to_owned()));
        }
    }

    fn push_char(&mut self, c: char) {
        let mut buffer = [0u8; 4];
        self.push_text(c.encode_utf8(&mut buffer));
    }
}

/// Where a text sits in its key: whether it is a plural form (ICU's `#` is the count there),
/// and whether it is markup (Android's styled strings: tags and entities).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context {
    pub plural_form: bool,
    pub markup: bool,
}

/// Reads `text`, written in `syntax`, into the normal form.
pub fn parse(text: &str, syntax: Syntax, context: Context) -> Parsed {
    let mut parsed = Parsed::default();
    if context.markup {
        // Tags and entities first; each literal run between them is read in the syntax.
        for piece in markup_pieces(text) {
            match piece {
                MarkupPiece::Text(run) => parse_run(&run, syntax, context, &mut parsed),
                MarkupPiece::Tag(segment) => parsed.segments.push(segment),
            }
        }
    } else {
        parse_run(text, syntax, context, &mut parsed);
    }
    number_implicit(&mut parsed);
    // A text with no placeholders is shown as written where the syntax formats only when
    // given arguments (Android's `getString(id)`, gettext's `_()`): `%%` there is two `%`.
    let formats_only_with_arguments = matches!(
        syntax,
        Syntax::Printf | Syntax::Apple | Syntax::Python | Syntax::PythonBrace | Syntax::Rails
    );
    if formats_only_with_arguments && parsed.placeholders().next().is_none() && !parsed.has_raw() {
        return parse(text, Syntax::None, context);
    }
    parsed
}

/// Gives printf's `%s` and Python's `{}` the number of the argument they take: the next one
/// after the last implicit placeholder (Java's and Foundation's rule: an explicit `%2$s`
/// does not move it).
fn number_implicit(parsed: &mut Parsed) {
    let mut next = 1;
    for segment in &mut parsed.segments {
        if let Segment::Placeholder(placeholder) = segment
            && !placeholder.explicit
            && placeholder.argument == Argument::Number(0)
        {
            placeholder.argument = Argument::Number(next);
            next += 1;
        }
    }
}

fn parse_run(text: &str, syntax: Syntax, context: Context, parsed: &mut Parsed) {
    match syntax {
        Syntax::Printf | Syntax::Apple => parse_printf(text, syntax, parsed),
        Syntax::Python => parse_python(text, parsed),
        Syntax::Rails => parse_rails(text, parsed),
        Syntax::Icu => parse_icu(text, context, parsed),
        Syntax::I18next => parse_i18next(text, parsed),
        Syntax::PythonBrace => parse_python_brace(text, parsed),
        Syntax::Symfony => parse_symfony(text, parsed),
        Syntax::None => parsed.push_text(text),
    }
}

/// Digits at the start of `bytes`, as a number, and how many there were.
fn digits(bytes: &[u8]) -> (Option<u32>, usize) {
    let count = bytes.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let value = std::str::from_utf8(&bytes[..count])
        .ok()
        .and_then(|digits| digits.parse().ok());
    (value, count)
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// printf (Java) and Apple's format strings. A `%` that starts no conversion is literal text,
/// as Android's lint and Foundation both let it be at the end of a text.
fn parse_printf(text: &str, syntax: Syntax, parsed: &mut Parsed) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'%' {
            at += 1;
            continue;
        }
        parsed.push_text(&text[start..at]);
        match printf_conversion(text, at, syntax) {
            Some((segment, end)) => {
                match segment {
                    Segment::Text(literal) => parsed.push_text(&literal),
                    segment => parsed.segments.push(segment),
                }
                at = end;
            }
            None => {
                parsed.push_text("%");
                at += 1;
            }
        }
        start = at;
    }
    parsed.push_text(&text[start..]);
}

/// One printf conversion at `start` (a `%`): its segment and where it ends.
fn printf_conversion(text: &str, start: usize, syntax: Syntax) -> Option<(Segment, usize)> {
    let bytes = text.as_bytes();
    let mut at = start + 1;
    match *bytes.get(at)? {
        b'%' => return Some((Segment::Text("%".into()), at + 1)),
        b'n' if syntax == Syntax::Printf => return Some((Segment::Text("\n".into()), at + 1)),
        b'#' if syntax == Syntax::Apple && bytes.get(at + 1) == Some(&b'@') => {
            let length = text[at + 2..].find('@')?;
            let end = at + 2 + length + 1;
            return Some((Segment::Raw(text[start..end].to_owned()), end));
        }
        _ => {}
    }
    let (number, count) = digits(&bytes[at..]);
    let mut argument = Argument::Number(0);
    let mut explicit = false;
    if count > 0 && bytes.get(at + count) == Some(&b'$') {
        argument = Argument::Number(number.filter(|number| *number > 0)?);
        explicit = true;
        at += count + 1;
    }
    let flags_start = at;
    while matches!(bytes.get(at), Some(b'-' | b'+' | b' ' | b'0' | b'#' | b',' | b'\'')) {
        at += 1;
    }
    let flags = text[flags_start..at].to_owned();
    let (width, count) = digits(&bytes[at..]);
    at += count;
    let mut precision = None;
    if bytes.get(at) == Some(&b'.') {
        let (value, count) = digits(&bytes[at + 1..]);
        if count == 0 {
            return None;
        }
        precision = value;
        at += 1 + count;
    }
    let length_start = at;
    if syntax == Syntax::Apple {
        while matches!(bytes.get(at), Some(b'h' | b'l' | b'q' | b'L' | b'z' | b't' | b'j')) {
            at += 1;
        }
    }
    let long = &text[length_start..at];
    let wide = matches!(long, "l" | "ll" | "q" | "z" | "t" | "j");
    let conversion = *bytes.get(at)?;
    let kind = match (syntax, conversion) {
        (Syntax::Printf, b'd') => Kind::Int,
        (Syntax::Apple, b'd' | b'i') if wide => Kind::Int64,
        (Syntax::Apple, b'd' | b'i') if long.is_empty() => Kind::Int32,
        (Syntax::Apple, b'u') if long.is_empty() || wide => Kind::Unsigned,
        (_, b'x' | b'X') if long.is_empty() || wide => Kind::Hex {
            upper: conversion == b'X',
        },
        (_, b'o') if long.is_empty() || wide => Kind::Octal,
        (_, b'f') if long.is_empty() => Kind::Float,
        (Syntax::Apple, b'f') if long == "l" => Kind::Float,
        (_, b'e' | b'E' | b'g' | b'G') if long.is_empty() => Kind::Exponent {
            general: matches!(conversion, b'g' | b'G'),
            upper: conversion.is_ascii_uppercase(),
        },
        (Syntax::Printf, b's') => Kind::String,
        (Syntax::Apple, b's') if long.is_empty() => Kind::CString,
        (Syntax::Apple, b'@') if long.is_empty() => Kind::Object,
        (Syntax::Printf, b'c') => Kind::Char,
        (Syntax::Apple, b'c' | b'C') if long.is_empty() => Kind::Char,
        // Conversions no other syntax writes (`%b`, `%h`, `%tY`, `%p`, `%S`, `%a`): kept as
        // written.
        (Syntax::Printf, b'b' | b'B' | b'h' | b'H' | b'S' | b'C' | b'a' | b'A') => {
            return Some((Segment::Raw(text[start..=at].to_owned()), at + 1));
        }
        (Syntax::Printf, b't' | b'T') => {
            let end = (at + 2).min(text.len());
            return text
                .is_char_boundary(end)
                .then(|| (Segment::Raw(text[start..end].to_owned()), end));
        }
        (Syntax::Apple, b'p' | b'S' | b'a' | b'A' | b'D' | b'U' | b'O') => {
            return Some((Segment::Raw(text[start..=at].to_owned()), at + 1));
        }
        _ => return None,
    };
    // Flags the conversion does not take make no conversion (Java throws on `% s`): such a
    // `%` is literal text, as in "50% off".
    let allowed = match kind {
        Kind::Int | Kind::Int32 | Kind::Int64 | Kind::Unsigned => "-+ 0,'",
        Kind::Hex { .. } | Kind::Octal => "-#0",
        Kind::Float | Kind::Exponent { .. } => "-+ 0,#'",
        _ => "-",
    };
    if !flags.chars().all(|flag| allowed.contains(flag)) {
        return None;
    }
    let mut placeholder = Placeholder::new(argument, explicit, kind);
    placeholder.flags = flags;
    placeholder.width = width;
    placeholder.precision = precision;
    Some((Segment::Placeholder(placeholder), at + 1))
}

/// Python's `%`: `%s`, `%d`, `%(name)s`, `%%`.
fn parse_python(text: &str, parsed: &mut Parsed) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'%' {
            at += 1;
            continue;
        }
        parsed.push_text(&text[start..at]);
        match python_conversion(text, at) {
            Some((segment, end)) => {
                match segment {
                    Segment::Text(literal) => parsed.push_text(&literal),
                    segment => parsed.segments.push(segment),
                }
                at = end;
            }
            None => {
                parsed.push_text("%");
                at += 1;
            }
        }
        start = at;
    }
    parsed.push_text(&text[start..]);
}

fn python_conversion(text: &str, start: usize) -> Option<(Segment, usize)> {
    let bytes = text.as_bytes();
    let mut at = start + 1;
    if *bytes.get(at)? == b'%' {
        return Some((Segment::Text("%".into()), at + 1));
    }
    let mut argument = Argument::Number(0);
    let mut explicit = false;
    if bytes[at] == b'(' {
        let close = text[at..].find(')')?;
        argument = Argument::Name(text[at + 1..at + close].to_owned());
        explicit = true;
        at += close + 1;
    }
    let flags_start = at;
    while matches!(bytes.get(at), Some(b'-' | b'+' | b' ' | b'0' | b'#')) {
        at += 1;
    }
    let flags = text[flags_start..at].to_owned();
    let (width, count) = digits(&bytes[at..]);
    at += count;
    let mut precision = None;
    if bytes.get(at) == Some(&b'.') {
        let (value, count) = digits(&bytes[at + 1..]);
        precision = Some(value.unwrap_or(0));
        at += 1 + count;
    }
    let kind = match *bytes.get(at)? {
        b'd' | b'i' => Kind::Int,
        b'u' => Kind::Unsigned,
        b'x' => Kind::Hex { upper: false },
        b'X' => Kind::Hex { upper: true },
        b'o' => Kind::Octal,
        b'f' | b'F' => Kind::Float,
        b'e' | b'E' | b'g' | b'G' => Kind::Exponent {
            general: matches!(bytes[at], b'g' | b'G'),
            upper: bytes[at].is_ascii_uppercase(),
        },
        b's' => Kind::String,
        b'c' => Kind::Char,
        b'r' | b'a' => return Some((Segment::Raw(text[start..=at].to_owned()), at + 1)),
        _ => return None,
    };
    let mut placeholder = Placeholder::new(argument, explicit, kind);
    placeholder.flags = flags;
    placeholder.width = width;
    placeholder.precision = precision;
    Some((Segment::Placeholder(placeholder), at + 1))
}

/// Ruby's `I18n.interpolate`: `%{name}`, `%<name>.2f`, `%%` for `%`.
fn parse_rails(text: &str, parsed: &mut Parsed) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'%' {
            at += 1;
            continue;
        }
        let found = match bytes.get(at + 1) {
            Some(b'%') => Some((Segment::Text("%".into()), at + 2)),
            Some(b'{') => {
                let length = bytes[at + 2..]
                    .iter()
                    .take_while(|byte| is_name_byte(**byte) || **byte == b'|')
                    .count();
                (length > 0 && bytes.get(at + 2 + length) == Some(&b'}')).then(|| {
                    let name = text[at + 2..at + 2 + length].to_owned();
                    (
                        Segment::Placeholder(Placeholder::new(Argument::Name(name), true, Kind::Any)),
                        at + 3 + length,
                    )
                })
            }
            Some(b'<') => {
                let length = bytes[at + 2..].iter().take_while(|byte| is_name_byte(**byte)).count();
                if length > 0 && bytes.get(at + 2 + length) == Some(&b'>') {
                    let name = text[at + 2..at + 2 + length].to_owned();
                    // The format after the name is printf's (Ruby's `format`).
                    let rest_start = at + 2 + length;
                    let shifted = format!("%{}", &text[rest_start + 1..]);
                    printf_conversion(&shifted, 0, Syntax::Printf).and_then(|(segment, end)| match segment {
                        Segment::Placeholder(mut placeholder) if !placeholder.explicit => {
                            placeholder.argument = Argument::Name(name);
                            placeholder.explicit = true;
                            Some((Segment::Placeholder(placeholder), rest_start + end))
                        }
                        _ => None,
                    })
                } else {
                    None
                }
            }
            _ => None,
        };
        match found {
            Some((segment, end)) => {
                parsed.push_text(&text[start..at]);
                match segment {
                    Segment::Text(literal) => parsed.push_text(&literal),
                    segment => parsed.segments.push(segment),
                }
                at = end;
                start = at;
            }
            None => at += 1,
        }
    }
    parsed.push_text(&text[start..]);
}

/// i18next: `{{name}}`, `{{name, format}}`, `{{- name}}` (unescaped); `$t(key)` nestings are
/// kept as they are.
fn parse_i18next(text: &str, parsed: &mut Parsed) {
    let mut rest = text;
    while let Some(open) = find_either(rest, "{{", "$t(") {
        let (before, from) = rest.split_at(open);
        parsed.push_text(before);
        if let Some(after) = from.strip_prefix("$t(") {
            match after.find(')') {
                Some(close) => {
                    parsed.segments.push(Segment::Raw(from[..close + 4].to_owned()));
                    rest = &after[close + 1..];
                }
                None => {
                    parsed.push_text(from);
                    rest = "";
                }
            }
            continue;
        }
        let Some(close) = from.find("}}") else {
            parsed.push_text(from);
            rest = "";
            break;
        };
        let inner = &from[2..close];
        let (name, format) = match inner.split_once(',') {
            Some((name, format)) => (name.trim(), Some(format.trim())),
            None => (inner.trim(), None),
        };
        let name = name.strip_prefix('-').map_or(name, str::trim);
        let valid = !name.is_empty() && name.bytes().all(|byte| is_name_byte(byte) || byte == b'.');
        match (valid, format) {
            (true, None) => parsed.segments.push(Segment::Placeholder(Placeholder::new(
                Argument::Name(name.to_owned()),
                true,
                Kind::Any,
            ))),
            (true, Some("number")) => parsed.segments.push(Segment::Placeholder(Placeholder::new(
                Argument::Name(name.to_owned()),
                true,
                Kind::Number,
            ))),
            _ => parsed.segments.push(Segment::Raw(from[..close + 2].to_owned())),
        }
        rest = &from[close + 2..];
    }
    parsed.push_text(rest);
}

fn find_either(text: &str, first: &str, second: &str) -> Option<usize> {
    match (text.find(first), text.find(second)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Python's `str.format`: `{}`, `{0}`, `{name}`, `{0:.2f}`, `{{` and `}}` for braces.
fn parse_python_brace(text: &str, parsed: &mut Parsed) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' | b'}' if bytes.get(at + 1) == Some(&bytes[at]) => {
                parsed.push_text(&text[start..at]);
                parsed.push_text(&text[at..=at]);
                at += 2;
                start = at;
            }
            b'{' => {
                let Some(close) = text[at..].find('}') else {
                    at += 1;
                    continue;
                };
                let inner = &text[at + 1..at + close];
                parsed.push_text(&text[start..at]);
                parsed
                    .segments
                    .push(python_field(inner).unwrap_or_else(|| Segment::Raw(text[at..=at + close].to_owned())));
                at += close + 1;
                start = at;
            }
            _ => at += 1,
        }
    }
    parsed.push_text(&text[start..]);
}

fn python_field(inner: &str) -> Option<Segment> {
    let (field, spec) = match inner.split_once(':') {
        Some((field, spec)) => (field, Some(spec)),
        None => (inner, None),
    };
    if field.contains('!') || field.contains('{') {
        return None;
    }
    let (argument, explicit) = if field.is_empty() {
        (Argument::Number(0), false)
    } else if field.bytes().all(|byte| byte.is_ascii_digit()) {
        (Argument::Number(field.parse::<u32>().ok()? + 1), true)
    } else if field.bytes().all(is_name_byte) {
        (Argument::Name(field.to_owned()), true)
    } else {
        return None;
    };
    let mut placeholder = Placeholder::new(argument, explicit, Kind::Any);
    if let Some(spec) = spec {
        // The format spec's common cases: `d`, `.2f`, `s`.
        let shifted = format!("%{spec}");
        match printf_conversion(&shifted, 0, Syntax::Printf) {
            Some((Segment::Placeholder(typed), end)) if end == shifted.len() && !typed.explicit => {
                placeholder.kind = typed.kind;
                placeholder.flags = typed.flags;
                placeholder.width = typed.width;
                placeholder.precision = typed.precision;
            }
            _ => return None,
        }
    }
    Some(Segment::Placeholder(placeholder))
}

/// Symfony: `%name%` and `{{ name }}` are replaced as they are written (no escaping).
fn parse_symfony(text: &str, parsed: &mut Parsed) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let found = match bytes[at] {
            b'%' => {
                let length = bytes[at + 1..]
                    .iter()
                    .take_while(|byte| is_name_byte(**byte) || **byte == b'.')
                    .count();
                (length > 0 && bytes.get(at + 1 + length) == Some(&b'%'))
                    .then(|| (text[at + 1..at + 1 + length].to_owned(), at + 2 + length))
            }
            b'{' if text[at..].starts_with("{{") => text[at + 2..].find("}}").and_then(|close| {
                let name = text[at + 2..at + 2 + close].trim();
                (!name.is_empty() && name.bytes().all(is_name_byte)).then(|| (name.to_owned(), at + 4 + close))
            }),
            _ => None,
        };
        match found {
            Some((name, end)) => {
                parsed.push_text(&text[start..at]);
                parsed.segments.push(Segment::Placeholder(Placeholder::new(
                    Argument::Name(name),
                    true,
                    Kind::Any,
                )));
                at = end;
                start = at;
            }
            None => at += 1,
        }
    }
    parsed.push_text(&text[start..]);
}

/// ICU MessageFormat: `{name}`, `{0}`, `{n, number}`, `#` (the count, in a plural form);
/// apostrophes quote as ICU's do (DOUBLE_OPTIONAL). A text whose braces are not all
/// arguments (a literal `{` written by another format) is literal text throughout, as the
/// ARB export writes it. Tags (`<b>`) are FormatJS's and are read in markup texts only.
fn parse_icu(text: &str, context: Context, parsed: &mut Parsed) {
    if !is_icu_message(text) {
        parsed.push_text(text);
        return;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut index = 0;
    let mut quoted = false;
    while index < chars.len() {
        let (at, c) = chars[index];
        let next = chars.get(index + 1).map(|(_, c)| *c);
        match c {
            '\'' if next == Some('\'') => {
                parsed.push_char('\'');
                index += 2;
                continue;
            }
            '\'' if quoted => quoted = false,
            '\'' if matches!(next, Some('{' | '}' | '#' | '|')) => quoted = true,
            _ if quoted => parsed.push_char(c),
            '#' if context.plural_form => parsed.segments.push(Segment::Placeholder(Placeholder::new(
                Argument::Name("count".into()),
                true,
                Kind::Count,
            ))),
            '{' => {
                let end = argument_end(text, at);
                parsed.segments.push(icu_argument(&text[at..end]));
                index = chars.partition_point(|(offset, _)| *offset < end);
                continue;
            }
            c => parsed.push_char(c),
        }
        index += 1;
    }
}

/// The end (past its closing brace) of the ICU argument starting at `start`.
fn argument_end(text: &str, start: usize) -> usize {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut chars = text[start..].char_indices().peekable();
    while let Some((offset, c)) = chars.next() {
        match c {
            '\'' if chars.peek().map(|(_, c)| *c) == Some('\'') => {
                chars.next();
            }
            '\'' if quoted => quoted = false,
            '\'' if depth > 1 && matches!(chars.peek().map(|(_, c)| *c), Some('{' | '}' | '#' | '|')) => quoted = true,
            _ if quoted => {}
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return start + offset + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

fn icu_argument(argument: &str) -> Segment {
    let inner = &argument[1..argument.len() - 1];
    let mut parts = inner.splitn(3, ',').map(str::trim);
    let name = parts.next().unwrap_or_default();
    let (kind, style) = (parts.next(), parts.next());
    let named = if name.bytes().all(|byte| byte.is_ascii_digit()) && !name.is_empty() {
        name.parse::<u32>().ok().map(|number| Argument::Number(number + 1))
    } else if !name.is_empty() && name.bytes().all(is_name_byte) {
        Some(Argument::Name(name.to_owned()))
    } else {
        None
    };
    let Some(named) = named else {
        return Segment::Raw(argument.to_owned());
    };
    let mut placeholder = Placeholder::new(named, true, Kind::Any);
    match (kind, style) {
        (None, _) => {}
        (Some("number"), None) => placeholder.kind = Kind::Number,
        (Some("number"), Some("integer" | "::integer" | ":: integer")) => placeholder.kind = Kind::Int,
        (Some("number"), Some(style)) => match number_skeleton(style) {
            Some(precision) => {
                placeholder.kind = Kind::Float;
                placeholder.precision = Some(precision);
            }
            None => return Segment::Raw(argument.to_owned()),
        },
        _ => return Segment::Raw(argument.to_owned()),
    }
    Segment::Placeholder(placeholder)
}

/// The fraction digits of a number skeleton this module writes (`::.00 group-off`).
fn number_skeleton(style: &str) -> Option<u32> {
    let skeleton = style.strip_prefix("::")?.trim();
    let mut precision = None;
    for stem in skeleton.split_whitespace() {
        match stem {
            "group-off" => {}
            stem if stem.starts_with('.') && stem[1..].bytes().all(|byte| byte == b'0') => {
                precision = Some((stem.len() - 1) as u32);
            }
            _ => return None,
        }
    }
    precision
}

/// Whether `text` reads as an ICU message whose braces are all arguments (`formats::icu::
/// is_message` is this one).
pub fn is_icu_message(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    let mut depth = 0usize;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
            }
            '\'' if quoted => quoted = false,
            '\'' if matches!(chars.peek(), Some('{' | '}' | '#' | '|')) => quoted = true,
            _ if quoted => {}
            '{' if depth > 0 => depth += 1,
            '{' => {
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                let mut name = 0;
                while chars.next_if(|c| c.is_alphanumeric() || *c == '_').is_some() {
                    name += 1;
                }
                while chars.next_if(|c| c.is_whitespace()).is_some() {}
                match chars.next() {
                    Some('}') if name > 0 => {}
                    Some(',') if name > 0 => depth += 1,
                    _ => return false,
                }
            }
            '}' if depth > 0 => depth -= 1,
            '}' => return false,
            _ => {}
        }
    }
    depth == 0 && !quoted
}

/// The argument name and the cases (selector, message) of an ICU plural message that is the
/// whole text (`{count, plural, one {# file} other {# files}}`); `None` for any other text.
pub fn icu_plural_cases(message: &str) -> Option<(&str, Vec<(&str, &str)>)> {
    let message = message.trim();
    if !message.starts_with('{') || !message.ends_with('}') {
        return None;
    }
    let inner = &message[1..message.len() - 1];
    let (name, rest) = inner.split_once(',')?;
    let (kind, mut rest) = rest.split_once(',')?;
    if kind.trim() != "plural" {
        return None;
    }
    let mut cases = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Some((name.trim(), cases));
        }
        let open = rest.find('{')?;
        let selector = rest[..open].trim();
        let body_start = open + 1;
        let mut depth = 1usize;
        let mut quoted = false;
        let mut end = None;
        let mut chars = rest[body_start..].char_indices().peekable();
        while let Some((offset, c)) = chars.next() {
            match c {
                '\'' if chars.peek().map(|(_, c)| *c) == Some('\'') => {
                    chars.next();
                }
                '\'' if quoted => quoted = false,
                '\'' if matches!(chars.peek().map(|(_, c)| *c), Some('{' | '}' | '#' | '|')) => quoted = true,
                _ if quoted => {}
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(body_start + offset);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        if selector.is_empty() {
            return None;
        }
        cases.push((selector, &rest[body_start..end]));
        rest = &rest[end + 1..];
    }
}

enum MarkupPiece {
    Text(String),
    Tag(Segment),
}

/// Splits an Android styled string into literal runs (entities decoded) and tags. A text that
/// is not well-formed markup is one literal run, as written.
fn markup_pieces(text: &str) -> Vec<MarkupPiece> {
    use quick_xml::events::Event;
    let literal = || vec![MarkupPiece::Text(text.to_owned())];
    let wrapped = format!("<r>{text}</r>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    let mut pieces = Vec::new();
    let mut run = String::new();
    let mut depth = 0usize;
    let flush = |run: &mut String, pieces: &mut Vec<MarkupPiece>| {
        if !run.is_empty() {
            pieces.push(MarkupPiece::Text(std::mem::take(run)));
        }
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(start)) => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                let raw = String::from_utf8_lossy(&start).into_owned();
                let attributes = raw[name.len()..].to_owned();
                pieces.push(MarkupPiece::Tag(Segment::Open { name, attributes }));
            }
            Ok(Event::Empty(start)) => {
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                let raw = String::from_utf8_lossy(&start).into_owned();
                let attributes = raw[name.len()..].to_owned();
                pieces.push(MarkupPiece::Tag(Segment::Open {
                    name: name.clone(),
                    attributes,
                }));
                pieces.push(MarkupPiece::Tag(Segment::Close { name }));
            }
            Ok(Event::End(end)) => {
                if depth == 0 {
                    return literal();
                }
                depth -= 1;
                if depth == 0 {
                    continue;
                }
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(end.name().as_ref()).into_owned();
                pieces.push(MarkupPiece::Tag(Segment::Close { name }));
            }
            Ok(Event::Text(piece)) => match piece.decode() {
                Ok(decoded) => run.push_str(&decoded),
                Err(_) => return literal(),
            },
            Ok(Event::CData(data)) => run.push_str(&String::from_utf8_lossy(&data)),
            Ok(Event::GeneralRef(reference)) => {
                if let Ok(Some(c)) = reference.resolve_char_ref() {
                    run.push(c);
                } else if let Some(resolved) = reference
                    .decode()
                    .ok()
                    .and_then(|name| quick_xml::escape::resolve_predefined_entity(&name))
                {
                    run.push_str(resolved);
                } else {
                    return literal();
                }
            }
            // Not well formed (unclosed tags, a stray `&`): the text is literal, as the
            // Android export writes it.
            Err(_) => return literal(),
            Ok(Event::Eof) if depth != 0 => return literal(),
            Ok(Event::Eof) => break,
            Ok(_) => {}
        }
    }
    flush(&mut run, &mut pieces);
    pieces
}

/// The placeholders of a text in the normal form, as the checks compare them: each
/// argument (numbers for numbered arguments, names for named ones, resolved through `names`)
/// with its kind's family, and how often it appears; raw pieces count by their text.
pub fn signature(parsed: &Parsed, names: &Names) -> std::collections::BTreeMap<String, usize> {
    let mut found = std::collections::BTreeMap::new();
    for segment in &parsed.segments {
        let token = match segment {
            Segment::Placeholder(placeholder) => match names.number_of(&placeholder.argument) {
                Some(number) => format!("argument {number}"),
                None => format!("argument {}", placeholder.argument),
            },
            Segment::Raw(raw) => raw.clone(),
            _ => continue,
        };
        *found.entry(token).or_insert(0) += 1;
    }
    found
}

/// Whether two texts take the same arguments, as often each, with kinds that agree (a
/// string is a string whether `%s`, `%@` or `{name}` writes it; a value of no stated type
/// agrees with any kind), and the same pieces no syntax converts.
pub fn same_placeholders(a: &Parsed, b: &Parsed, names: &Names) -> bool {
    type Uses = std::collections::BTreeMap<String, (usize, std::collections::BTreeSet<&'static str>)>;
    let uses = |parsed: &Parsed| {
        let mut uses: Uses = Uses::new();
        let mut raw = Vec::new();
        for segment in &parsed.segments {
            match segment {
                Segment::Placeholder(placeholder) => {
                    let argument = match names.number_of(&placeholder.argument) {
                        Some(number) => number.to_string(),
                        None => placeholder.argument.to_string(),
                    };
                    let entry = uses.entry(argument).or_default();
                    entry.0 += 1;
                    if !matches!(placeholder.kind, Kind::Any | Kind::Number | Kind::Count) {
                        entry.1.insert(placeholder.kind.name());
                    }
                }
                Segment::Raw(piece) => raw.push(piece.clone()),
                _ => {}
            }
        }
        raw.sort();
        (uses, raw)
    };
    let ((a_uses, a_raw), (b_uses, b_raw)) = (uses(a), uses(b));
    a_raw == b_raw
        && a_uses.len() == b_uses.len()
        && a_uses.iter().all(|(argument, (count, kinds))| {
            b_uses.get(argument).is_some_and(|(other_count, other_kinds)| {
                count == other_count && (kinds.is_empty() || other_kinds.is_empty() || !kinds.is_disjoint(other_kinds))
            })
        })
}

/// A key's names for numbered arguments and numbers for named ones: `placeholderNames` first
/// (name *i* is argument *i + 1*), then names as they first appear in the base text; a name
/// `argN` (as exports write numbered arguments for named syntaxes) is argument N.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    names: Vec<String>,
}

impl Names {
    /// The names of a key from its `placeholderNames` and its base text read in the normal
    /// form (each plural form in turn).
    pub fn new<'a>(declared: &[String], base: impl IntoIterator<Item = &'a Parsed>) -> Self {
        let mut names: Vec<String> = declared.to_vec();
        for parsed in base {
            for placeholder in parsed.placeholders() {
                if let Argument::Name(name) = &placeholder.argument
                    && !names.contains(name)
                    && numbered_name(name).is_none()
                {
                    names.push(name.clone());
                }
            }
        }
        Self { names }
    }

    /// The number of an argument: its own, or a name's place.
    pub fn number_of(&self, argument: &Argument) -> Option<u32> {
        match argument {
            Argument::Number(number) => Some(*number),
            Argument::Name(name) => self
                .names
                .iter()
                .position(|known| known == name)
                .map(|at| at as u32 + 1)
                .or_else(|| numbered_name(name)),
        }
    }

    /// The name of an argument: its own, or a number's declared name, else `arg{number}`.
    pub fn name_of(&self, argument: &Argument) -> String {
        match argument {
            Argument::Name(name) => name.clone(),
            Argument::Number(number) => self
                .names
                .get(*number as usize - 1)
                .cloned()
                .unwrap_or_else(|| format!("arg{number}")),
        }
    }

    /// A name seen in a translation only: numbered after every known one.
    pub fn learn(&mut self, name: &str) {
        if numbered_name(name).is_none() && !self.names.iter().any(|known| known == name) {
            self.names.push(name.to_owned());
        }
    }
}

/// `argN` as argument N.
fn numbered_name(name: &str) -> Option<u32> {
    name.strip_prefix("arg")
        .filter(|digits| {
            !digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|byte| byte.is_ascii_digit())
        })
        .and_then(|digits| digits.parse().ok())
}

/// Guesses the syntax of a text with no other clue (a JSON, CSV or XLIFF upload): the syntax
/// of its first placeholder-looking piece, `None` when there is none.
pub fn guess(text: &str) -> Option<Syntax> {
    let bytes = text.as_bytes();
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b'{' if text[at..].starts_with("{{") => {
                let close = text[at..].find("}}")?;
                let inner = text[at + 2..at + close].trim();
                if !inner.is_empty()
                    && inner
                        .bytes()
                        .all(|byte| is_name_byte(byte) || b"-., ()".contains(&byte))
                {
                    return Some(Syntax::I18next);
                }
            }
            b'{' => {
                let end = argument_end(text, at);
                if end <= text.len() && is_icu_message(&text[at..end]) && end > at + 2 {
                    return Some(Syntax::Icu);
                }
            }
            b'%' => match bytes.get(at + 1) {
                Some(b'{') => return Some(Syntax::Rails),
                Some(b'(') => return Some(Syntax::Python),
                Some(b'%') => {}
                Some(_) => {
                    if let Some((segment, _)) = printf_conversion(text, at, Syntax::Apple)
                        && !matches!(&segment, Segment::Placeholder(placeholder) if placeholder.flags.contains(' '))
                    {
                        if let Segment::Placeholder(placeholder) = &segment
                            && matches!(placeholder.kind, Kind::Object | Kind::Int64)
                        {
                            return Some(Syntax::Apple);
                        }
                        if matches!(segment, Segment::Placeholder(_)) {
                            return Some(Syntax::Printf);
                        }
                    }
                }
                None => {}
            },
            _ => {}
        }
    }
    None
}

/// A name of a numbered argument (`placeholderNames`): 1 to 64 ASCII letters, digits and
/// `_`, not starting with a digit, as every named syntax can write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentName(pub String);

impl ArgumentName {
    pub fn parse(name: &str) -> Result<Self, crate::domain::names::NameError> {
        let valid = name.len() <= 64
            && name
                .chars()
                .next()
                .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid {
            Ok(Self(name.to_owned()))
        } else {
            Err(crate::domain::names::NameError(format!(
                "{name:?} is not an argument name: use 1 to 64 ASCII letters, digits and `_`, not starting with a digit."
            )))
        }
    }
}

impl std::fmt::Display for ArgumentName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests;
