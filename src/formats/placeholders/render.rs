//! A text in the normal form written out in one placeholder syntax: each placeholder with its
//! type, position and flags as the syntax can say them, literal text escaped as the syntax
//! reads it back, and markup tags kept or stripped as the target keeps them.

use crate::domain::placeholders::{Argument, Context, Kind, Names, Parsed, Placeholder, Segment, Syntax};

/// What happens to markup tags in the written text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tags {
    /// Written back as Android's markup: tags as they were, `<` and `&` of literal text as
    /// entities.
    Markup,
    /// Written as literal tags in a text that is not markup (HTML the app renders, FormatJS
    /// and i18next `<Trans>` tags); `<xliff:g>`, a note to translators, goes.
    Html,
    /// Dropped, their content kept (Apple's `.strings`: no tags).
    Strip,
}

/// Writes `parsed` in `syntax`. `warnings` gets a sentence for each thing lost or left as it
/// was.
pub fn render(
    parsed: &Parsed,
    syntax: Syntax,
    context: Context,
    tags: Tags,
    names: &Names,
    warnings: &mut Vec<String>,
) -> String {
    let mut out = String::new();
    let has_placeholders = parsed.placeholders().next().is_some() || parsed.has_raw();
    // printf's family writes positions when the source did, or when its arguments are not
    // taken in order (a named source, or a translation that reorders them).
    let positional = syntax.is_numbered() && needs_positions(parsed, names);
    // Python's `%` takes a mapping or a tuple, never both: names when positions matter.
    let python_named = syntax == Syntax::Python && needs_positions(parsed, names);
    let mut stripped = false;
    for segment in &parsed.segments {
        match segment {
            Segment::Text(text) => escape_literal(text, syntax, context, tags, has_placeholders, &mut out, warnings),
            Segment::Placeholder(placeholder) => {
                let options = Options {
                    positional,
                    python_named,
                    context,
                };
                write_placeholder(placeholder, syntax, options, names, &mut out, warnings)
            }
            Segment::Raw(raw) => {
                warnings.push(format!("`{raw}` has no {syntax} equivalent and is left as it is"));
                out.push_str(raw);
            }
            Segment::Open { name, attributes } => match tags {
                Tags::Markup => {
                    out.push('<');
                    out.push_str(name);
                    out.push_str(attributes);
                    out.push('>');
                }
                Tags::Html if name != "xliff:g" => {
                    out.push('<');
                    out.push_str(name);
                    if syntax != Syntax::Icu {
                        out.push_str(attributes);
                    }
                    out.push('>');
                }
                _ => stripped |= name != "xliff:g",
            },
            Segment::Close { name } => match tags {
                Tags::Markup => {
                    out.push_str("</");
                    out.push_str(name);
                    out.push('>');
                }
                Tags::Html if name != "xliff:g" => {
                    out.push_str("</");
                    out.push_str(name);
                    out.push('>');
                }
                _ => {}
            },
        }
    }
    if stripped {
        warnings.push("the markup tags are stripped: the format has none".to_owned());
    }
    out
}

#[derive(Clone, Copy)]
struct Options {
    positional: bool,
    python_named: bool,
    context: Context,
}

/// Whether the placeholders must say their argument: some source wrote positions or names, or
/// they do not take arguments 1, 2, 3... in order.
fn needs_positions(parsed: &Parsed, names: &Names) -> bool {
    parsed
        .placeholders()
        .zip(1..)
        .any(|(placeholder, next)| placeholder.explicit || names.number_of(&placeholder.argument) != Some(next))
}

fn escape_literal(
    text: &str,
    syntax: Syntax,
    context: Context,
    tags: Tags,
    has_placeholders: bool,
    out: &mut String,
    warnings: &mut Vec<String>,
) {
    let start = out.len();
    match syntax {
        // A text with no placeholders is shown as it is written (Android's `getString(id)`,
        // `NSLocalizedString` without `String(format:)`, gettext's `_()` without `%`): `%`
        // is doubled only where the text is formatted.
        Syntax::Printf | Syntax::Apple | Syntax::Python | Syntax::Rails if has_placeholders => {
            for c in text.chars() {
                if c == '%' {
                    out.push('%');
                }
                out.push(c);
            }
        }
        Syntax::PythonBrace if has_placeholders => {
            for c in text.chars() {
                if c == '{' || c == '}' {
                    out.push(c);
                }
                out.push(c);
            }
        }
        Syntax::Icu => quote_icu(text, context.plural_form, tags == Tags::Html, out),
        Syntax::I18next => {
            if text.contains("{{") || text.contains("$t(") {
                warnings.push(format!("{text:?} reads as i18next interpolation, which has no escape"));
            }
            out.push_str(text);
        }
        _ => out.push_str(text),
    }
    if tags == Tags::Markup {
        let written = out.split_off(start);
        out.push_str(&written.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"));
    }
}

/// ICU's quoting: `'` doubled, runs of `{`, `}` (and `#` in a plural form, `<` where tags are
/// read) between apostrophes.
fn quote_icu(text: &str, plural_form: bool, tags: bool, out: &mut String) {
    let mut quoted = false;
    for c in text.chars() {
        let special = matches!(c, '{' | '}') || (c == '#' && plural_form) || (c == '<' && tags);
        if special {
            if !quoted {
                out.push('\'');
                quoted = true;
            }
            out.push(c);
        } else if c == '\'' {
            out.push_str("''");
        } else {
            if quoted {
                out.push('\'');
                quoted = false;
            }
            out.push(c);
        }
    }
    if quoted {
        out.push('\'');
    }
}

fn write_placeholder(
    placeholder: &Placeholder,
    syntax: Syntax,
    options: Options,
    names: &Names,
    out: &mut String,
    warnings: &mut Vec<String>,
) {
    use std::fmt::Write as _;
    let kind = effective_kind(placeholder, options.context);
    // The name is made only where the syntax writes it: printf's family needs the number.
    let name = || names.name_of(&placeholder.argument);
    let number = names.number_of(&placeholder.argument);
    match syntax {
        Syntax::Printf | Syntax::Apple => {
            out.push('%');
            if options.positional {
                match number {
                    Some(number) => {
                        push_number(out, number);
                        out.push('$');
                    }
                    None => warnings.push(format!("`{}` has no argument number", name())),
                }
            }
            // The grouping flag is `'` on Apple's side, `,` on Java's.
            for flag in placeholder.flags.chars() {
                out.push(match (syntax, flag) {
                    (Syntax::Apple, ',') => '\'',
                    (Syntax::Printf, '\'') => ',',
                    (_, flag) => flag,
                });
            }
            if let Some(width) = placeholder.width {
                push_number(out, width);
            }
            if let Some(precision) = placeholder.precision.or(default_precision(placeholder, kind)) {
                out.push('.');
                push_number(out, precision);
            }
            out.push_str(conversion(kind, syntax));
        }
        Syntax::Python => {
            out.push('%');
            if options.python_named {
                let _ = write!(out, "({})", name());
            }
            out.push_str(&placeholder.flags.replace([',', '\''], ""));
            if let Some(width) = placeholder.width {
                let _ = write!(out, "{width}");
            }
            if let Some(precision) = placeholder.precision {
                let _ = write!(out, ".{precision}");
            }
            out.push_str(conversion(kind, Syntax::Printf));
        }
        Syntax::PythonBrace => {
            out.push('{');
            match &placeholder.argument {
                Argument::Name(name) => out.push_str(name),
                Argument::Number(number) => {
                    let _ = write!(out, "{}", number - 1);
                }
            }
            let spec = format_spec(placeholder, kind);
            if !spec.is_empty() {
                out.push(':');
                out.push_str(&spec);
            }
            out.push('}');
        }
        Syntax::Rails => {
            let (name, spec) = (name(), format_spec(placeholder, kind));
            if spec.is_empty() {
                let _ = write!(out, "%{{{name}}}");
            } else {
                let _ = write!(out, "%<{name}>{spec}");
            }
        }
        Syntax::Icu => {
            let name = name();
            lost_format(placeholder, kind, syntax, warnings);
            match (kind, placeholder.precision.or(default_precision(placeholder, kind))) {
                (Kind::Float, Some(precision)) => {
                    let _ = write!(
                        out,
                        "{{{name}, number, ::.{} group-off}}",
                        "0".repeat(precision as usize)
                    );
                }
                (Kind::Number, _) => {
                    let _ = write!(out, "{{{name}, number}}");
                }
                _ => {
                    let _ = write!(out, "{{{name}}}");
                }
            }
        }
        Syntax::I18next => {
            lost_format(placeholder, kind, syntax, warnings);
            let _ = write!(out, "{{{{{}}}}}", name());
        }
        Syntax::Symfony => {
            lost_format(placeholder, kind, syntax, warnings);
            let _ = write!(out, "%{}%", name());
        }
        Syntax::None => {
            warnings.push(format!(
                "the argument `{}` cannot be written in a text without placeholders",
                name()
            ));
        }
    }
}

/// Writes a number in decimal without the formatting machinery (the most written part of a
/// converted placeholder).
fn push_number(out: &mut String, number: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut left = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (left % 10) as u8;
        left /= 10;
        if left == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

/// The kind written: a plural form's count (ICU's `#`, a `count` argument of no type) is an
/// integer.
fn effective_kind(placeholder: &Placeholder, context: Context) -> Kind {
    let is_count = matches!(&placeholder.argument, Argument::Name(name) if name == "count");
    match placeholder.kind {
        Kind::Any | Kind::Number if context.plural_form && is_count => Kind::Count,
        kind => kind,
    }
}

/// printf's `%f` writes six digits: targets that say no precision get it written out.
fn default_precision(placeholder: &Placeholder, kind: Kind) -> Option<u32> {
    (kind == Kind::Float && placeholder.precision.is_none()).then_some(6)
}

/// The conversion letters (and Apple's length) of a kind.
fn conversion(kind: Kind, syntax: Syntax) -> &'static str {
    let apple = syntax == Syntax::Apple;
    match kind {
        Kind::Int | Kind::Int64 | Kind::Count if apple => "lld",
        Kind::Int32 | Kind::Int | Kind::Int64 | Kind::Count => "d",
        Kind::Unsigned if apple => "llu",
        Kind::Unsigned => "d",
        Kind::Hex { upper: false } if apple => "llx",
        Kind::Hex { upper: true } if apple => "llX",
        Kind::Hex { upper: false } => "x",
        Kind::Hex { upper: true } => "X",
        Kind::Octal if apple => "llo",
        Kind::Octal => "o",
        Kind::Float => "f",
        Kind::Exponent {
            general: false,
            upper: false,
        } => "e",
        Kind::Exponent {
            general: false,
            upper: true,
        } => "E",
        Kind::Exponent {
            general: true,
            upper: false,
        } => "g",
        Kind::Exponent {
            general: true,
            upper: true,
        } => "G",
        Kind::String | Kind::Object | Kind::Any | Kind::Number if apple => "@",
        Kind::CString if apple => "s",
        Kind::String | Kind::CString | Kind::Object | Kind::Any | Kind::Number => "s",
        Kind::Char => "c",
    }
}

/// Python's and Ruby's format spec for a typed placeholder (`.2f`, `05d`); empty for text.
fn format_spec(placeholder: &Placeholder, kind: Kind) -> String {
    let plain = placeholder.flags.is_empty() && placeholder.width.is_none() && placeholder.precision.is_none();
    let letter = match kind {
        Kind::Float | Kind::Exponent { .. } | Kind::Hex { .. } | Kind::Octal => conversion(kind, Syntax::Printf),
        Kind::Int | Kind::Int32 | Kind::Int64 | Kind::Unsigned | Kind::Count if !plain => "d",
        Kind::Char if !plain => "c",
        _ if !plain => "s",
        _ => return String::new(),
    };
    let mut spec = placeholder.flags.replace([',', '\''], "");
    if let Some(width) = placeholder.width {
        spec.push_str(&width.to_string());
    }
    if let Some(precision) = placeholder.precision.or(default_precision(placeholder, kind)) {
        spec.push('.');
        spec.push_str(&precision.to_string());
    }
    spec.push_str(letter);
    spec
}

/// Notes what a syntax without format specs loses of a placeholder.
fn lost_format(placeholder: &Placeholder, kind: Kind, syntax: Syntax, warnings: &mut Vec<String>) {
    let float_kept =
        syntax == Syntax::Icu && kind == Kind::Float && placeholder.flags.is_empty() && placeholder.width.is_none();
    let typed = !placeholder.flags.is_empty()
        || placeholder.width.is_some()
        || (placeholder.precision.is_some() || kind.is_float())
        || matches!(kind, Kind::Hex { .. } | Kind::Octal | Kind::Exponent { .. });
    if typed && !float_kept {
        warnings.push(format!(
            "the format of argument `{}` ({}) has no {syntax} equivalent: it is written as a plain value",
            placeholder.argument,
            kind.name()
        ));
    }
}
