//! ICU MessageFormat plurals, as a plural key's cell in CSV: `{count, plural, one {...} other
//! {...}}`, quoted so that an ICU parser reads every form back as exactly its text.
//!
//! ICU's apostrophe rules (ApostropheMode DOUBLE_OPTIONAL): `''` is always one apostrophe, and
//! a single apostrophe before `{`, `}` or (in a plural) `#` starts quoted literal text that the
//! next single apostrophe ends. So every apostrophe is doubled, and every run of `{`, `}` and
//! `#` is quoted.

use crate::domain::model::{FormsRef, PluralCategory, PluralForms};

/// The argument name written in exported plurals.
const ARGUMENT: &str = "count";

/// Writes forms as an ICU plural message.
pub fn write_plural(forms: FormsRef<'_>) -> String {
    let mut out = format!("{{{ARGUMENT}, plural,");
    for (category, text) in forms.iter() {
        out.push(' ');
        out.push_str(category.name());
        out.push_str(" {");
        quote_into(text, &mut out);
        out.push('}');
    }
    out.push('}');
    out
}

fn quote_into(text: &str, out: &mut String) {
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '{' | '}' | '#' => {
                if !quoted {
                    out.push('\'');
                    quoted = true;
                }
                out.push(c);
            }
            '\'' => out.push_str("''"),
            c => {
                if quoted {
                    out.push('\'');
                    quoted = false;
                }
                out.push(c);
            }
        }
    }
    if quoted {
        out.push('\'');
    }
}

/// Whether `text` reads as an ICU message whose braces are all arguments (`{name}`,
/// `{count, plural, ...}`), as Flutter's ARB texts are; a text with literal braces
/// (`{"a": 1}`, an unmatched `}`) is not one. Apostrophes quote as ICU's do.
pub fn is_message(text: &str) -> bool {
    // One reading for both: the placeholder parser in `domain` needs it too.
    crate::domain::placeholders::is_icu_message(text)
}

/// `text` as literal ICU message text: apostrophes doubled, braces and `#` quoted, so that
/// an ICU parser (and Flutter's with `use-escaping: true`) reads back exactly `text`.
pub fn quote_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    quote_into(text, &mut out);
    out
}

/// The literal text an ARB export quoted with [`quote_literal`], when `text` is exactly such
/// a quoting of a text that is no ICU message; `None` for any other text, which is held as
/// written.
pub fn unquote_literal(text: &str) -> Option<String> {
    if !text.contains('\'') {
        return None;
    }
    let mut chars = text.chars().peekable();
    let mut literal = String::with_capacity(text.len());
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                literal.push('\'');
            }
            '\'' if quoted => quoted = false,
            '\'' if matches!(chars.peek(), Some('{' | '}' | '#' | '|')) => quoted = true,
            c => literal.push(c),
        }
    }
    (!is_message(&literal) && quote_literal(&literal) == text).then_some(literal)
}

/// Reads an ICU plural message (`{count, plural, one {...} other {...}}`) into its forms.
/// `None` when the text is not such a message (a plain text, or a plural of another argument:
/// `{howMany, plural, ...}`, Angular's `{VAR_PLURAL, plural, ...}`, which the forms could not
/// write back, so it is held whole as the app wrote it); an error when it
/// starts like one but is malformed. Explicit values (`=0 {...}`), an `offset:` and nested
/// arguments are refused: they have no place in a key's forms.
pub fn read_plural(text: &str) -> Option<Result<PluralForms, String>> {
    let trimmed = text.trim();
    let inner = trimmed.strip_prefix('{')?.strip_suffix('}')?;
    let (argument, rest) = inner.split_once(',')?;
    if argument.trim() != ARGUMENT {
        return None;
    }
    let (kind, body) = rest.split_once(',')?;
    if kind.trim() != "plural" {
        return None;
    }
    Some(read_cases(body))
}

fn read_cases(body: &str) -> Result<PluralForms, String> {
    let mut forms = Vec::new();
    let mut chars = body.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut selector = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '{') {
            selector.push(c);
        }
        let category = PluralCategory::parse(&selector)
            .ok_or_else(|| format!("the plural case {selector:?} is not one of {}", PluralCategory::NAMES))?;
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('{') {
            return Err(format!("the plural case {selector:?} needs a message in braces"));
        }
        forms.push((category, read_message(&mut chars)?));
    }
    PluralForms::new(forms)
}

/// Reads one case's message up to its closing brace, undoing the quoting.
fn read_message(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    let mut text = String::new();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if chars.peek() == Some(&'\'') => {
                chars.next();
                text.push('\'');
            }
            '\'' if quoted => quoted = false,
            '\'' if matches!(chars.peek(), Some('{' | '}' | '#' | '|')) => quoted = true,
            '{' | '#' if !quoted => {
                return Err("a plural form holds an argument or `#`, which a key's form cannot keep".into());
            }
            '}' if !quoted => return Ok(text),
            c => text.push(c),
        }
    }
    Err("a plural case's message has no closing brace".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(pairs: &[(PluralCategory, &str)]) -> PluralForms {
        PluralForms::new(pairs.iter().map(|(category, text)| (*category, text.to_string()))).unwrap()
    }

    #[test]
    fn hard_forms_are_quoted_and_read_back() {
        let hard = [
            "%d item",
            "it's {a} #1 '{quoted}'",
            "''",
            "'",
            "{'",
            "'{",
            "}}}###",
            "#",
            "end with '",
            "a|b",
        ];
        for text in hard {
            let original = forms(&[(PluralCategory::One, text), (PluralCategory::Other, "x")]);
            let message = write_plural(original.as_ref());
            assert_eq!(
                read_plural(&message).unwrap().unwrap(),
                original,
                "{text:?} as {message:?}"
            );
        }
        assert_eq!(
            write_plural(forms(&[(PluralCategory::One, "# it's"), (PluralCategory::Other, "{n}")]).as_ref()),
            "{count, plural, one {'#' it''s} other {'{'n'}'}}"
        );
    }

    #[test]
    fn plain_texts_are_not_plurals_and_broken_plurals_are_errors() {
        assert!(read_plural("hello").is_none());
        assert!(read_plural("{name} says hi").is_none());
        assert!(read_plural("{count, select, a {x} other {y}}").is_none());
        // Another argument's plural is held whole: forms would come back as `count`.
        assert!(read_plural("{howMany, plural, one {x} other {y}}").is_none());
        assert!(read_plural("{VAR_PLURAL, plural, one {x} other {y}}").is_none());
        assert!(read_plural("{count, plural, one {x}}").unwrap().is_err());
        assert!(read_plural("{count, plural, one {# x} other {y}}").unwrap().is_err());
        assert!(read_plural("{count, plural, =0 {none} other {y}}").unwrap().is_err());
    }

    #[test]
    fn literal_braces_are_quoted_and_only_such_quoting_is_read_back_as_literal() {
        for message in [
            "Hi {name}",
            "{count, plural, one {# x} other {y}}",
            "it's",
            "'{itemName}'",
            "",
        ] {
            assert!(is_message(message), "{message}");
            assert_eq!(unquote_literal(message), None, "{message}");
        }
        for literal in ["{\"a\": 1}", "a } b", "{", "{ name}x{", "it's {0 and #"] {
            assert!(!is_message(literal), "{literal}");
            let quoted = quote_literal(literal);
            assert!(is_message(&quoted), "{quoted}");
            assert_eq!(unquote_literal(&quoted).as_deref(), Some(literal), "{quoted}");
        }
        assert_eq!(quote_literal("{\"a\": 1}"), "'{'\"a\": 1'}'");
    }
}
