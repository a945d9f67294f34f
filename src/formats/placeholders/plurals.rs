//! ICU plural messages held as one plain text (an ARB upload keeps `{count, plural, one {# file
//! in {city}} other {...}}` whole, so that the ARB file round trips byte for byte), expanded into
//! a plural key's forms for the targets that write plural forms (Android `<plurals>`,
//! `.stringsdict`, String Catalog variations, i18next `_one/_other`, Rails `one:/other:`).
//!
//! Each CLDR category's case becomes that form, read in ICU syntax as a plural form (`#` is the
//! count). The plural's argument is named `count` in the forms, as i18next and Rails select the
//! form by `count`. Exact values (`=0`, `=2`) have no place in a key's forms and are left out
//! with a warning; `=1` is written as `one` where the language's `one` holds the integer 1
//! alone, since ICU then prints `=1` for every count that `one` would take.

use crate::domain::checks::one_is_exactly_1;
use crate::domain::model::PluralCategory;
use crate::domain::names::LanguageCode;
use crate::domain::placeholders::{self, Argument, Context, Parsed, Segment, Syntax, icu_plural_cases};

/// A whole-text ICU plural message, its cases as a key's forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// Each written category's form, read in ICU syntax, in CLDR order.
    pub forms: Vec<(PluralCategory, Parsed)>,
    /// What was left out, as sentences for the export's warnings.
    pub left_out: Vec<String>,
}

/// The name the plural's argument takes in the forms.
const COUNT: &str = "count";

/// `text` expanded into forms for `language`, or `None` when it is not a whole ICU plural
/// message this can expand: a plain text, a `select`, a plural nested in a case, an `offset:`,
/// a case selector that is no category, or a message without `other`. Such a text is written
/// as it is (the conversion warns of the message it cannot write).
pub fn expand(text: &str, language: &LanguageCode, markup: bool) -> Option<Expanded> {
    let (argument, cases) = icu_plural_cases(text)?;
    if argument.is_empty()
        || !argument
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
    {
        return None;
    }
    let context = Context {
        plural_form: true,
        markup,
    };
    let mut categories: Vec<(PluralCategory, Parsed)> = Vec::new();
    let mut exact_one = None;
    let mut left_out = Vec::new();
    for (selector, body) in cases {
        let mut parsed = placeholders::parse(body, Syntax::Icu, context);
        if has_nested_message(&parsed) {
            return None;
        }
        if argument != COUNT {
            // `{count}` beside a plural of another argument would become the count itself.
            if parsed.placeholders().any(|placeholder| {
                placeholder.argument == Argument::Name(COUNT.to_owned()) && !placeholder.kind.is_integer()
            }) {
                return None;
            }
            rename(&mut parsed, argument);
        }
        match selector.strip_prefix('=') {
            Some("1") => exact_one = Some(parsed),
            Some(value) if !value.is_empty() && value.bytes().all(|byte| byte.is_ascii_digit()) => {
                left_out.push(format!(
                    "the plural case `{selector}` (an exact value) has no equivalent and is left out"
                ));
            }
            Some(_) => return None,
            None => {
                let category = PluralCategory::parse(selector)?;
                if categories.iter().any(|(known, _)| *known == category) {
                    return None;
                }
                categories.push((category, parsed));
            }
        }
    }
    if let Some(parsed) = exact_one {
        if one_is_exactly_1(language) {
            // ICU prints `=1` for 1, the only integer `one` holds: the `one` case (if any) is
            // never printed for a count.
            categories.retain(|(category, _)| *category != PluralCategory::One);
            categories.push((PluralCategory::One, parsed));
        } else {
            left_out.push(format!(
                "the plural case `=1` (an exact value) has no equivalent in {language}, whose `one` holds more than 1, and is left out"
            ));
        }
    }
    if !categories
        .iter()
        .any(|(category, _)| *category == PluralCategory::Other)
    {
        return None;
    }
    categories.sort_by_key(|(category, _)| *category);
    Some(Expanded {
        forms: categories,
        left_out,
    })
}

/// Whether a case holds a `plural`, `select` or `selectordinal` of its own (kept whole by the
/// parser as a raw piece).
fn has_nested_message(parsed: &Parsed) -> bool {
    parsed.segments.iter().any(|segment| match segment {
        Segment::Raw(raw) => raw
            .split(',')
            .nth(1)
            .is_some_and(|kind| matches!(kind.trim(), "plural" | "select" | "selectordinal")),
        _ => false,
    })
}

/// The plural's own argument (`{n}` in a case of `{n, plural, ...}`) named `count`, as `#` is.
fn rename(parsed: &mut Parsed, argument: &str) {
    for segment in &mut parsed.segments {
        if let Segment::Placeholder(placeholder) = segment
            && placeholder.argument == Argument::Name(argument.to_owned())
        {
            placeholder.argument = Argument::Name(COUNT.to_owned());
        }
    }
}
