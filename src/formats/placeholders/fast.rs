//! The common conversion written in one pass: an Android (Java printf) text for Apple, as an
//! Android project exported to iOS needs every text with a placeholder. It writes what the
//! parse into the normal form and [`super::render::render`] would (the tests hold the two
//! equal on every text of the real apps), without the parsed form: `%s` becomes `%@`,
//! integers `%lld`, `%f` `%.6f`, Java's grouping `,` Apple's `'`, a literal `%` `%%`. A text
//! with anything else (`%n`, a conversion Apple lacks, a `%` that starts none, markup) is
//! left to the full conversion.

/// One conversion of the source, as Apple writes it.
struct Conversion<'a> {
    /// Its argument's number when the source wrote one (`%2$s`).
    number: Option<&'a str>,
    flags: &'a str,
    width: &'a str,
    /// The digits after `.`, when written.
    precision: Option<&'a str>,
    letter: u8,
}

/// `text`, a Java printf text (not markup), written for Apple; `None` when it needs the full
/// conversion.
pub fn printf_to_apple(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    write_printf_as_apple(text, &mut out, |literal, out| out.push_str(literal)).then_some(out)
}

/// Whether [`printf_to_apple`] writes `text` (rather than leaving it to the full conversion).
pub fn takes_one_pass(text: &str) -> bool {
    scan(text)
}

/// Writes `text` for Apple onto `out`, its literal parts through `literal` (a writer's
/// escaping; what the conversions write needs none: ASCII digits, flags and letters), and
/// answers `true`; answers `false`, writing nothing, when the text needs the full conversion.
pub fn write_printf_as_apple(text: &str, out: &mut String, mut literal: impl FnMut(&str, &mut String)) -> bool {
    let mark = out.len();
    let written = match write_pass(text, out, &mut literal, false) {
        Pass::Numbered => {
            // A numbered conversion after unnumbered ones: all are written numbered.
            out.truncate(mark);
            write_pass(text, out, &mut literal, true)
        }
        pass => pass,
    };
    if written != Pass::Written {
        out.truncate(mark);
    }
    written == Pass::Written
}

#[derive(PartialEq, Eq)]
enum Pass {
    Written,
    /// A `%` the one pass does not take.
    Left,
    /// A numbered conversion came after unnumbered ones were written without numbers.
    Numbered,
}

/// One pass over `text`, its conversions written numbered when `positional` or when the
/// first is numbered.
fn write_pass(text: &str, out: &mut String, literal: &mut impl FnMut(&str, &mut String), mut positional: bool) -> Pass {
    let mut implicit = 0u32;
    let mut literal_from = 0;
    // A literal `%` only comes as `%%`, which Apple reads alike.
    for found in conversions(text) {
        let Some((start, end, conversion)) = found else {
            return Pass::Left;
        };
        if conversion.number.is_some() && !positional {
            if implicit > 0 {
                return Pass::Numbered;
            }
            positional = true;
        }
        literal(&text[literal_from..start], out);
        literal_from = end;
        out.push('%');
        if positional {
            match conversion.number {
                Some(number) => out.push_str(number.trim_start_matches('0')),
                None => {
                    implicit += 1;
                    push_number(implicit, out);
                }
            }
            out.push('$');
        } else {
            implicit += 1;
        }
        for flag in conversion.flags.bytes() {
            out.push(if flag == b',' { '\'' } else { char::from(flag) });
        }
        out.push_str(conversion.width.trim_start_matches('0'));
        match (conversion.precision, conversion.letter) {
            (Some(digits), _) => {
                out.push('.');
                let digits = digits.trim_start_matches('0');
                out.push_str(if digits.is_empty() { "0" } else { digits });
            }
            (None, b'f') => out.push_str(".6"),
            (None, _) => {}
        }
        out.push_str(match conversion.letter {
            b'd' => "lld",
            b'x' => "llx",
            b'X' => "llX",
            b'o' => "llo",
            b's' => "@",
            b'f' => "f",
            b'e' => "e",
            b'E' => "E",
            b'g' => "g",
            b'G' => "G",
            _ => "c",
        });
    }
    literal(&text[literal_from..], out);
    Pass::Written
}

/// Whether the one pass writes `text`: every `%` starts `%%` or a conversion it takes.
fn scan(text: &str) -> bool {
    conversions(text).all(|found| found.is_some())
}

/// The conversions of `text` in order, `%%` passed over: each with where it starts and
/// ends; `None` (the last item) at a `%` the one pass does not take.
fn conversions(text: &str) -> impl Iterator<Item = Option<(usize, usize, Conversion<'_>)>> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut stopped = false;
    std::iter::from_fn(move || {
        if stopped {
            return None;
        }
        loop {
            let start = at + memchr::memchr(b'%', &bytes[at..])?;
            if bytes.get(start + 1) == Some(&b'%') {
                at = start + 2;
                continue;
            }
            let found = conversion(text, start).map(|(conversion, end)| (start, end, conversion));
            match &found {
                Some((_, end, _)) => at = *end,
                None => stopped = true,
            }
            return Some(found);
        }
    })
}

fn push_number(number: u32, out: &mut String) {
    use std::fmt::Write as _;
    let _ = write!(out, "{number}");
}

/// The conversion at `start` (a `%` not followed by `%`) and where it ends; `None` for any
/// the full conversion treats otherwise (as literal text, kept raw, `%n`).
fn conversion(text: &str, start: usize) -> Option<(Conversion<'_>, usize)> {
    let bytes = text.as_bytes();
    let mut at = start + 1;
    let digits = |from: usize| bytes[from..].iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut number = None;
    let count = digits(at);
    if count > 0 && bytes.get(at + count) == Some(&b'$') {
        let written = &text[at..at + count];
        if written.bytes().all(|byte| byte == b'0') || count > 9 {
            return None;
        }
        number = Some(written);
        at += count + 1;
    }
    let flags_start = at;
    while matches!(bytes.get(at), Some(b'-' | b'+' | b' ' | b'0' | b'#' | b',' | b'\'')) {
        at += 1;
    }
    let flags = &text[flags_start..at];
    let count = digits(at);
    if count > 9 {
        return None;
    }
    let width = &text[at..at + count];
    at += count;
    let mut precision = None;
    if bytes.get(at) == Some(&b'.') {
        let count = digits(at + 1);
        if count == 0 || count > 9 {
            return None;
        }
        precision = Some(&text[at + 1..at + 1 + count]);
        at += 1 + count;
    }
    let letter = *bytes.get(at)?;
    let allowed = match letter {
        b'd' => "-+ 0,'",
        b'x' | b'X' | b'o' => "-#0",
        b'f' | b'e' | b'E' | b'g' | b'G' => "-+ 0,#'",
        b's' | b'c' => "-",
        _ => return None,
    };
    // Java's `'` is no flag it knows; the full conversion says what becomes of it.
    if flags.contains('\'') || !flags.chars().all(|flag| allowed.contains(flag)) {
        return None;
    }
    Some((
        Conversion {
            number,
            flags,
            width,
            precision,
            letter,
        },
        at + 1,
    ))
}
