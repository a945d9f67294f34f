//! The named syntaxes: Rails' `%{name}`, i18next's `{{name}}`, Python's `{}` and Symfony's
//! `%name%`.

use super::printf::{parse_percent, printf_conversion};
use super::*;

/// Ruby's `I18n.interpolate`: `%{name}`, `%<name>.2f`, `%%` for `%`.
pub(super) fn parse_rails(text: &str, parsed: &mut Parsed) {
    parse_percent(text, parsed, rails_conversion);
}

/// What Rails reads at `at` (a `%`): `%%`, `%{name}` or `%<name>` with printf's format after
/// it, and where it ends.
fn rails_conversion(text: &str, at: usize) -> Option<(Segment, usize)> {
    let bytes = text.as_bytes();
    match bytes.get(at + 1) {
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
    }
}

/// i18next: `{{name}}`, `{{name, format}}`, `{{- name}}` (unescaped); `$t(key)` nestings are
/// kept as they are.
pub(super) fn parse_i18next(text: &str, parsed: &mut Parsed) {
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
pub(super) fn parse_python_brace(text: &str, parsed: &mut Parsed) {
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
pub(super) fn parse_symfony(text: &str, parsed: &mut Parsed) {
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
