//! gettext PO files: `{lang}.po` for each language and `template.pot` (the base texts with
//! empty translations), as Django, WordPress and Lingui keep them.
//!
//! The mapping (contract, "More formats" and "Real apps, whole"): an entry is identified as
//! gettext identifies it, by its `msgctxt` and `msgid` together. A key's name is the `msgid`
//! alone when there is no context, else `msgctxt` U+0004 `msgid` (gettext's own joining in
//! `.mo` files, [`CONTEXT_SEPARATOR`]): one context used by many entries (`msgctxt
//! "unit-symbols"`) and one msgid under many contexts (`"&Cancel"` under 21) are as many
//! keys as entries. The `msgid` is the source text, so it is also the base language's text
//! when the upload has no file of the base language (apps without a template). `msgstr` is
//! the file's language's text; `#.` lines are the description; `#, fuzzy` marks an outdated
//! translation. A plural key is `msgid` (the base's `one` form) and `msgid_plural` (its
//! `other` form) with `msgstr[n]` in the order of the language's `Plural-Forms` formula,
//! which the header states; categories go to indexes through the formula (each index is the
//! category of the counts the formula sends there), never by position.
//!
//! Reading follows GNU gettext's reader: strings are concatenated across lines, the C escapes
//! it knows are read (`\n \t \r \\ \" \a \b \f \v`, octal and `\x` hex), obsolete `#~` entries
//! and empty translations are not texts, and a plural file's indexes are mapped through its
//! own header's formula. CLDR's `other` form, which gettext has no index for in some
//! languages (Polish fractions), is read as the formula's last index when absent.

use super::{ParsedEntry, ReadError, ReadWarning};
use crate::domain::model::{PluralCategory, PluralForms, Text};
use crate::domain::names::LanguageCode;

mod plural;
mod write;

pub use plural::PluralRule;
pub(crate) use write::push_string;
pub use write::{FileOf, files_of, render_each, render_files, write_each};

/// The template's file name.
pub const TEMPLATE: &str = "template.pot";

/// A language's file: `fr.po`.
pub fn path(language: &LanguageCode) -> String {
    format!("{language}.po")
}

/// The project's code of a gettext locale name (`sr@latin` is `sr-Latn`, `sr_RS@latin` is
/// `sr-Latn-RS`, `ca@valencia` is `ca-valencia`); a name without a modifier (`pt_BR`,
/// Django's `zh_Hans`) is its own code. The app's file keeps its own name: this is only how
/// the name is read.
pub fn locale_language(name: &str) -> Option<String> {
    let (locale, modifier) = match name.split_once('@') {
        Some((locale, modifier)) => (locale, Some(modifier)),
        None => (name, None),
    };
    LanguageCode::parse(locale).ok()?;
    let Some(modifier) = modifier else {
        return Some(locale.to_owned());
    };
    let script = match modifier.to_ascii_lowercase().as_str() {
        "latin" | "latn" => Some("Latn"),
        "cyrillic" | "cyrl" => Some("Cyrl"),
        "arabic" | "arab" => Some("Arab"),
        "devanagari" | "deva" => Some("Deva"),
        _ => None,
    };
    let mut parts = locale.split(['_', '-']);
    let language = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let code = match script {
        Some(script) => std::iter::once(language)
            .chain(std::iter::once(script))
            .chain(rest)
            .collect::<Vec<_>>()
            .join("-"),
        None => format!("{}-{modifier}", locale.replace('_', "-")),
    };
    LanguageCode::parse(&code).ok().map(|_| code)
}

// ---------------------------------------------------------------------------------------
// Reading

/// One entry of a PO file as written.
#[derive(Debug, Default, Clone)]
pub(crate) struct RawEntry {
    line: usize,
    /// The entry's lines (1-based, inclusive), its comments included.
    pub(crate) first_line: usize,
    pub(crate) last_line: usize,
    extracted: Vec<String>,
    fuzzy: bool,
    /// The placeholder syntax its flags name (`c-format`, `python-format`, ...).
    format: Option<crate::domain::placeholders::Syntax>,
    context: Option<String>,
    id: Option<String>,
    plural_id: Option<String>,
    pub(crate) strings: Vec<(Option<usize>, String)>,
}

/// What an entry says (see [`RawEntry::meaning`]).
pub(crate) type Meaning = (Option<Text>, bool, Option<String>);

impl RawEntry {
    /// The header entry (`msgid ""` without a context).
    pub(crate) fn is_header(&self) -> bool {
        self.context.is_none() && self.id.as_deref() == Some("")
    }

    /// The key the entry stands for: its `msgid`, after its context and U+0004 when it has one.
    pub(crate) fn name(&self) -> Option<String> {
        let id = self.id.as_deref()?;
        Some(match &self.context {
            Some(context) => join_name(context, id),
            None => id.to_owned(),
        })
    }

    /// What the entry says: its text as [`read`] reads it through `rule` (the file's
    /// formula), whether it is fuzzy, and (when `descriptions`) its extracted comments.
    pub(crate) fn meaning(&self, rule: &PluralRule, descriptions: bool) -> Meaning {
        // The description as an upload keeps it and an export writes it back: a lone `#.`
        // (quodlibet's) is no description, and one ending in an empty line loses that line.
        let extracted = descriptions
            .then(|| self.extracted.join("\n").trim_end_matches('\n').to_owned())
            .filter(|description| !description.is_empty());
        (text_of(self, rule, "", &mut Vec::new()), self.fuzzy, extracted)
    }

    /// Whether `text` reads as this entry's msgid would: gettext shows the msgid (or, for
    /// a count other than one, the msgid_plural) of an untranslated entry, so a translation
    /// equal to them means what an empty msgstr means.
    pub(crate) fn shows_as_untranslated(&self, text: &Text) -> bool {
        let Some(id) = self.id.as_deref() else {
            return false;
        };
        match text {
            Text::Plain(value) => self.plural_id.is_none() && value == id,
            Text::Plural(forms) => self.plural_id.as_deref().is_some_and(|plural| {
                forms
                    .iter()
                    .all(|(category, value)| value == if category == PluralCategory::One { id } else { plural })
            }),
        }
    }

    /// The header's `Language` value, for the header entry.
    pub(crate) fn language(&self) -> Option<String> {
        let value = self.strings.first().map(|(_, value)| value.as_str())?;
        value
            .lines()
            .find_map(|line| line.strip_prefix("Language:"))
            .map(|language| language.trim().replace('_', "-"))
            .filter(|language| !language.is_empty())
    }

    /// The header's `Plural-Forms` value, for the header entry.
    pub(crate) fn plural_forms(&self) -> Option<String> {
        let value = self.strings.first().map(|(_, value)| value.as_str())?;
        value
            .lines()
            .find_map(|line| line.strip_prefix("Plural-Forms:"))
            .map(|forms| forms.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// What separates a context from its msgid in a key's name: gettext's own joining (`.mo`
/// files store `msgctxt "\x04" msgid`), a character no text of an app holds.
pub const CONTEXT_SEPARATOR: char = '\u{4}';

/// The name of the entry with `context` and `id`.
pub fn join_name(context: &str, id: &str) -> String {
    let mut name = String::with_capacity(context.len() + 1 + id.len());
    name.push_str(context);
    name.push(CONTEXT_SEPARATOR);
    name.push_str(id);
    name
}

/// A key's name as an entry's context (when it has one) and msgid.
pub fn split_name(name: &str) -> (Option<&str>, &str) {
    match name.split_once(CONTEXT_SEPARATOR) {
        Some((context, id)) => (Some(context), id),
        None => (None, name),
    }
}

/// The rule of a file's header (`Plural-Forms`), else the usual one of `language`.
pub(crate) fn rule_of(entries: &[RawEntry], language: &LanguageCode) -> Result<PluralRule, ReadError> {
    let header = entries.iter().find(|entry| entry.is_header());
    match header.and_then(RawEntry::plural_forms) {
        Some(forms) => {
            PluralRule::parse(&forms, language).map_err(|why| ReadError::at(header.map_or(0, |h| h.line), why))
        }
        None => Ok(PluralRule::of(language)),
    }
}

/// An entry's text as the file's language reads it (through `rule`, the file's formula), or
/// `None` for an untranslated one; forms the formula never picks are passed over in `warnings`.
fn text_of(entry: &RawEntry, rule: &PluralRule, name: &str, warnings: &mut Vec<ReadWarning>) -> Option<Text> {
    if entry.plural_id.is_none() {
        let value = entry
            .strings
            .iter()
            .find(|(index, _)| index.is_none())
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        return (!value.is_empty()).then_some(Text::Plain(value));
    }
    let mut forms = Vec::new();
    for (index, value) in &entry.strings {
        let Some(index) = index else { continue };
        if value.is_empty() {
            continue;
        }
        match rule.categories.get(*index).copied().flatten() {
            Some(category) if !forms.iter().any(|(own, _)| *own == category) => forms.push((category, value.clone())),
            _ => warnings.push(ReadWarning {
                line: entry.line,
                key: name.to_owned(),
                message: format!("msgstr[{index}] is a form the Plural-Forms formula never picks; it is passed over"),
            }),
        }
    }
    if forms.is_empty() {
        return None;
    }
    let other_index = rule
        .categories
        .iter()
        .position(|category| *category == Some(PluralCategory::Other));
    if let Some(index) = other_index.filter(|_| !forms.iter().any(|(category, _)| *category == PluralCategory::Other)) {
        // The formula has an index for `other`, and it is empty (Horizon's fuzzy Czech
        // entries translate `msgstr[0]` alone): the server cannot hold forms without it.
        warnings.push(ReadWarning {
            line: entry.line,
            key: name.to_owned(),
            message: format!(
                "msgstr[{index}], its `other` form, is empty; the entry is passed over and stays in the file as it is"
            ),
        });
        return None;
    }
    if !forms.iter().any(|(category, _)| *category == PluralCategory::Other) {
        // gettext has no index for CLDR's `other` here (fractions): the last form.
        let last = rule
            .categories
            .iter()
            .rev()
            .flatten()
            .find_map(|category| forms.iter().find(|(own, _)| own == category))
            .map(|(_, text)| text.clone())
            .unwrap_or_default();
        forms.push((PluralCategory::Other, last));
    }
    match PluralForms::new(forms) {
        Ok(forms) => Some(Text::Plural(forms)),
        Err(why) => {
            warnings.push(ReadWarning {
                line: entry.line,
                key: name.to_owned(),
                message: format!("{why}; the entry is passed over"),
            });
            None
        }
    }
}

/// A `.po` file read: its translations, what was passed over, and the base texts its
/// msgids give ([`read_template`]'s reading of the same entries).
pub struct Read {
    pub entries: Vec<ParsedEntry>,
    pub warnings: Vec<ReadWarning>,
    pub sources: Vec<ParsedEntry>,
}

/// Reads a `.po` file of `language` (the file's place; its header's `Language` is not needed).
pub fn read(bytes: &[u8], language: &LanguageCode) -> Result<(Vec<ParsedEntry>, Vec<ReadWarning>), ReadError> {
    read_with_sources(bytes, language).map(|read| (read.entries, read.warnings))
}

/// Reads a `.po` file of `language` with the base texts of its msgids.
pub fn read_with_sources(bytes: &[u8], language: &LanguageCode) -> Result<Read, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes)
        .map_err(|err| ReadError::unplaced(format!("the file is not UTF-8 ({err}); save it as UTF-8")))?;
    let raw = parse(text)?;
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    // A header that is still the template's (`nplurals=INTEGER; plural=EXPRESSION;`, as
    // `xgettext` leaves it) or otherwise unreadable does not refuse the file: the language's
    // usual formula reads it, and the header stays as written.
    let rule = rule_of(&raw, language).unwrap_or_else(|err| {
        warnings.push(ReadWarning {
            line: err.line.unwrap_or_default(),
            key: String::new(),
            message: format!("{}; the usual formula of {language} is used", err.message),
        });
        PluralRule::of(language)
    });
    for entry in &raw {
        if entry.is_header() {
            continue;
        }
        let Some(name) = entry.name() else {
            return Err(ReadError::at(entry.line, "an entry without msgid"));
        };
        let Some(text) = text_of(entry, &rule, &name, &mut warnings) else {
            continue;
        };
        let mut parsed = ParsedEntry::plain(name, String::new()).at_line(entry.line);
        parsed.text = text;
        parsed.description = (!entry.extracted.is_empty()).then(|| entry.extracted.join("\n"));
        parsed.outdated = entry.fuzzy;
        parsed.placeholders = entry.format;
        entries.push(parsed);
    }
    let sources = sources_of(&raw)?;
    Ok(Read {
        entries,
        warnings,
        sources,
    })
}

/// Reads a template (`.pot`): each entry's `msgid` (and `msgid_plural`, the `other` form of a
/// plural key whose `msgid` is its `one` form) is the base text.
pub fn read_template(bytes: &[u8]) -> Result<Vec<ParsedEntry>, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes)
        .map_err(|err| ReadError::unplaced(format!("the file is not UTF-8 ({err}); save it as UTF-8")))?;
    sources_of(&parse(text)?)
}

/// The base texts entries' msgids give (see [`read_template`]).
fn sources_of(raw: &[RawEntry]) -> Result<Vec<ParsedEntry>, ReadError> {
    let mut entries = Vec::new();
    for entry in raw {
        if entry.is_header() {
            continue;
        }
        let (Some(name), Some(id)) = (entry.name(), entry.id.as_deref()) else {
            continue;
        };
        if id.is_empty() {
            continue;
        }
        let text = match entry.plural_id.as_deref() {
            Some(plural) if !plural.is_empty() => {
                let forms = [
                    (PluralCategory::One, id.to_owned()),
                    (PluralCategory::Other, plural.to_owned()),
                ];
                Text::Plural(PluralForms::new(forms).map_err(|why| ReadError::at(entry.line, why))?)
            }
            _ => Text::Plain(id.to_owned()),
        };
        let mut parsed = ParsedEntry::plain(name, String::new()).at_line(entry.line);
        parsed.text = text;
        parsed.description = (!entry.extracted.is_empty()).then(|| entry.extracted.join("\n"));
        parsed.placeholders = entry.format;
        entries.push(parsed);
    }
    Ok(entries)
}

/// The placeholder syntax a PO flag names.
fn syntax_of_flag(flag: &str) -> Option<crate::domain::placeholders::Syntax> {
    use crate::domain::placeholders::Syntax;
    match flag {
        "c-format" | "java-printf-format" => Some(Syntax::Printf),
        "objc-format" => Some(Syntax::Apple),
        "python-format" => Some(Syntax::Python),
        "python-brace-format" => Some(Syntax::PythonBrace),
        "php-format" => Some(Syntax::Printf),
        "ruby-format" => Some(Syntax::Rails),
        "icu-format" | "java-format" => Some(Syntax::Icu),
        _ => None,
    }
}

/// The PO flag a placeholder syntax is written with (none for a syntax gettext has no flag for).
pub fn flag_of_syntax(syntax: crate::domain::placeholders::Syntax) -> Option<&'static str> {
    use crate::domain::placeholders::Syntax;
    match syntax {
        Syntax::Printf => Some("c-format"),
        Syntax::Apple => Some("objc-format"),
        Syntax::Python => Some("python-format"),
        Syntax::PythonBrace => Some("python-brace-format"),
        Syntax::Rails => Some("ruby-format"),
        Syntax::Icu | Syntax::I18next | Syntax::Symfony | Syntax::None => None,
    }
}

/// The entries of a PO text, as GNU gettext reads them.
pub(crate) fn parse(text: &str) -> Result<Vec<RawEntry>, ReadError> {
    let mut entries = Vec::new();
    let mut current = RawEntry::default();
    // Which string a continuation line adds to.
    #[derive(Clone, Copy, PartialEq)]
    enum Field {
        None,
        Context,
        Id,
        PluralId,
        Str(usize),
    }
    let mut field = Field::None;
    let mut started = false;
    let finish = |current: &mut RawEntry, entries: &mut Vec<RawEntry>, started: &mut bool| {
        if *started {
            entries.push(std::mem::take(current));
        } else {
            // Comments of no entry (a file's trailing ones) are dropped.
            *current = RawEntry::default();
        }
        *started = false;
    };
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("#~") {
            // An obsolete entry ends the one before it, and its own comments (`#, fuzzy`
            // above `#~ msgid`) are not the next entry's.
            if started && field != Field::None {
                finish(&mut current, &mut entries, &mut started);
                field = Field::None;
            }
            current = RawEntry::default();
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            // A comment after an entry's strings starts the next entry.
            if started && field != Field::None {
                finish(&mut current, &mut entries, &mut started);
                field = Field::None;
            }
            if current.first_line == 0 {
                current.first_line = number;
            }
            current.last_line = number;
            if let Some(extracted) = comment.strip_prefix('.') {
                current
                    .extracted
                    .push(extracted.strip_prefix(' ').unwrap_or(extracted).to_owned());
            } else if let Some(flags) = comment.strip_prefix(',') {
                current.fuzzy |= flags.split(',').any(|flag| flag.trim() == "fuzzy");
                if let Some(syntax) = flags.split(',').find_map(|flag| syntax_of_flag(flag.trim())) {
                    current.format = Some(syntax);
                }
            }
            continue;
        }
        let (keyword, rest) = match line.split_once(char::is_whitespace) {
            Some((keyword, rest)) if !line.starts_with('"') => (keyword, rest.trim()),
            _ => ("", line),
        };
        let value = unquote(rest).map_err(|why| ReadError::at(number, why))?;
        let starts_entry = matches!(keyword, "msgctxt") || (keyword == "msgid" && !matches!(field, Field::Context));
        if starts_entry && started && field != Field::None {
            finish(&mut current, &mut entries, &mut started);
        }
        if current.first_line == 0 {
            current.first_line = number;
        }
        current.last_line = number;
        match keyword {
            "msgctxt" => {
                current.line = number;
                current.context = Some(value);
                field = Field::Context;
                started = true;
            }
            "msgid" => {
                if current.context.is_none() {
                    current.line = number;
                }
                current.id = Some(value);
                field = Field::Id;
                started = true;
            }
            "msgid_plural" => {
                current.plural_id = Some(value);
                field = Field::PluralId;
            }
            "msgstr" => {
                current.strings.push((None, value));
                field = Field::Str(current.strings.len() - 1);
            }
            keyword if keyword.starts_with("msgstr[") && keyword.ends_with(']') => {
                let index = keyword["msgstr[".len()..keyword.len() - 1]
                    .parse::<usize>()
                    .map_err(|_| ReadError::at(number, format!("{keyword} has no number")))?;
                current.strings.push((Some(index), value));
                field = Field::Str(current.strings.len() - 1);
            }
            "" => match field {
                Field::Context => current.context.get_or_insert_default().push_str(&value),
                Field::Id => current.id.get_or_insert_default().push_str(&value),
                Field::PluralId => current.plural_id.get_or_insert_default().push_str(&value),
                Field::Str(at) => current.strings[at].1.push_str(&value),
                Field::None => return Err(ReadError::at(number, "a string that belongs to no keyword")),
            },
            other => return Err(ReadError::at(number, format!("unknown keyword {other:?}"))),
        }
    }
    finish(&mut current, &mut entries, &mut started);
    Ok(entries)
}

/// The text of one `"..."` with gettext's escapes read.
fn unquote(quoted: &str) -> Result<String, String> {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .ok_or_else(|| format!("{quoted:?} is not a quoted string"))?;
    // Most strings have nothing to read but their characters.
    if !inner.bytes().any(|byte| byte == b'\\' || byte == b'"') {
        return Ok(inner.to_owned());
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' {
            return Err("a quote inside a string must be escaped as \\\"".into());
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some(digit @ '0'..='7') => {
                let mut value = digit.to_digit(8).unwrap_or_default();
                for _ in 0..2 {
                    match chars.peek().and_then(|next| next.to_digit(8)) {
                        Some(next) => {
                            value = value * 8 + next;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            Some('x') => {
                let mut value = 0u32;
                let mut digits = 0;
                while let Some(next) = chars.peek().and_then(|next| next.to_digit(16)) {
                    value = value.saturating_mul(16).saturating_add(next);
                    digits += 1;
                    chars.next();
                }
                if digits == 0 {
                    return Err("\\x without hex digits".into());
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            other => {
                return Err(format!(
                    "invalid escape \\{}",
                    other.map(String::from).unwrap_or_default()
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
