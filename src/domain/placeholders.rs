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

mod icu;
mod markup;
mod named;
mod printf;

use icu::{argument_end, parse_icu};
pub use icu::{icu_plural_cases, is_icu_message};
use markup::{MarkupPiece, markup_pieces};
use named::{parse_i18next, parse_python_brace, parse_rails, parse_symfony};
use printf::{parse_printf, parse_python, printf_conversion};

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
