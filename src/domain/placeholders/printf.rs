//! printf's family: Java's and Foundation's format strings, and Python's `%`.

use super::*;

/// printf (Java) and Apple's format strings. A `%` that starts no conversion is literal text,
/// as Android's lint and Foundation both let it be at the end of a text.
pub(super) fn parse_printf(text: &str, syntax: Syntax, parsed: &mut Parsed) {
    parse_percent(text, parsed, |text, at| printf_conversion(text, at, syntax));
}

/// A syntax whose placeholders start with `%` (printf's family, Rails'): each `%` is what
/// `conversion` reads there (a placeholder, or a literal such as `%%`), else literal text.
pub(super) fn parse_percent(
    text: &str,
    parsed: &mut Parsed,
    conversion: impl Fn(&str, usize) -> Option<(Segment, usize)>,
) {
    let mut start = 0;
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'%', &text.as_bytes()[at..]) {
        at += offset;
        match conversion(text, at) {
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

/// One printf conversion at `start` (a `%`): its segment and where it ends.
pub(super) fn printf_conversion(text: &str, start: usize, syntax: Syntax) -> Option<(Segment, usize)> {
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
pub(super) fn parse_python(text: &str, parsed: &mut Parsed) {
    parse_percent(text, parsed, python_conversion);
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
