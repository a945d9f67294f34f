//! ICU MessageFormat: arguments, number skeletons and plural messages.

use super::*;

/// ICU MessageFormat: `{name}`, `{0}`, `{n, number}`, `#` (the count, in a plural form);
/// apostrophes quote as ICU's do (DOUBLE_OPTIONAL). A text whose braces are not all
/// arguments (a literal `{` written by another format) is literal text throughout, as the
/// ARB export writes it. Tags (`<b>`) are FormatJS's and are read in markup texts only.
pub(super) fn parse_icu(text: &str, context: Context, parsed: &mut Parsed) {
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
pub(super) fn argument_end(text: &str, start: usize) -> usize {
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
