//! Quality checks of a key's translations against its base text: pure functions of the key
//! and its project's base language, run on every write and kept with the catalog.
//!
//! Each check has a name and a severity. Comparisons go form by form: a plural form against
//! the base text's form of the same category, else against the base `other` form.

use std::collections::{BTreeMap, BTreeSet};

use unicode_segmentation::UnicodeSegmentation;

pub use super::check::{Check, Severity};
use super::model::{Key, PluralCategory, TextRef, is_markup_fragment};
use super::names::LanguageCode;
use super::placeholders::{self, Context, Names, Syntax};

/// One failing check of one translation (and form, for a plural key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub language: LanguageCode,
    pub check: Check,
    pub severity: Severity,
    /// The plural form, for a plural key's failure that concerns one.
    pub form: Option<PluralCategory>,
    pub message: String,
}

/// Every failing check of `key`'s translations, in language order, then check order. Checks
/// the key's `ignore_checks` names are left out.
pub fn check_key(key: &Key, base: &LanguageCode) -> Vec<Failure> {
    let base_text = key.translations.get(base);
    let mut failures = Vec::new();
    for (language, written, other_kind) in key.translations.iter_written() {
        // A plural key's translation its app writes as one text (a Rails or ARB file reads
        // each language on its own) shows that text for every count: no form is missing.
        let one_text = other_kind && written.as_plain().is_some();
        let text = if other_kind { written.in_other_kind() } else { written };
        let translation = Translation {
            language,
            text,
            one_text,
        };
        check_translation(key, base, &translation, language == base, base_text, &mut failures);
    }
    failures.retain(|failure| !key.ignore_checks.contains(&failure.check));
    failures
}

/// A translation to check: its text as the key's kind sees it, and whether its app writes a
/// plural key's translation as one text.
struct Translation<'a> {
    language: &'a LanguageCode,
    text: TextRef<'a>,
    one_text: bool,
}

fn check_translation(
    key: &Key,
    base_language: &LanguageCode,
    translation: &Translation<'_>,
    is_base: bool,
    base: Option<TextRef<'_>>,
    failures: &mut Vec<Failure>,
) {
    let Translation {
        language,
        text,
        one_text,
    } = *translation;
    // The key's argument names, read once and only when a comparison needs them.
    let names_cell = std::cell::OnceCell::new();
    let argument_names = || names_cell.get_or_init(|| key_names(key, base_language, key.placeholders));
    let mut fail = |check: Check, severity: Severity, form: Option<PluralCategory>, message: String| {
        failures.push(Failure {
            language: language.clone(),
            check,
            severity,
            form,
            message,
        });
    };
    // The translation's strings, each with its form, the base string it answers, and the
    // base `other` form (a plural form's placeholders may follow it instead: Russian `one`
    // also covers 21 and 31, so it shows the number where English `one` says "Yesterday").
    type Answer<'s> = (Option<PluralCategory>, &'s str, Option<&'s str>, Option<&'s str>);
    let strings: Vec<Answer<'_>> = match text {
        TextRef::Plain(text) => vec![(None, text, base.and_then(TextRef::as_plain), None)],
        TextRef::Plural(forms) => forms
            .iter()
            .map(|(category, string)| {
                let base = base.and_then(TextRef::as_plural);
                let against = base.map(|base| base.get(category).unwrap_or_else(|| base.other_form()));
                (Some(category), string, against, base.map(|base| base.other_form()))
            })
            .collect(),
    };

    if let (TextRef::Plural(forms), false) = (text, one_text) {
        let needed = plural_categories(language);
        let present: Vec<PluralCategory> = forms.iter().map(|(category, _)| category).collect();
        let missing: Vec<&str> = needed
            .iter()
            .filter(|category| !present.contains(category))
            .map(|category| category.name())
            .collect();
        if !missing.is_empty() {
            fail(
                Check::PluralForms,
                Severity::Error,
                None,
                format!(
                    "{} needs the plural forms {}; missing: {}.",
                    language,
                    names(&needed),
                    missing.join(", ")
                ),
            );
        }
        for category in present.iter().filter(|category| !needed.contains(category)) {
            fail(
                Check::PluralForms,
                Severity::Warning,
                Some(*category),
                format!(
                    "{language} has no plural form `{}` (its forms are {}); the app never shows it.",
                    category.name(),
                    names(&needed)
                ),
            );
        }
    }

    for &(form, string, against, other) in &strings {
        if string.trim().is_empty() {
            let what = form.map_or("The text".to_owned(), |form| format!("The `{}` form", form.name()));
            fail(Check::EmptyForm, Severity::Error, form, format!("{what} is empty."));
            if form.is_some() {
                fail(
                    Check::PluralForms,
                    Severity::Error,
                    form,
                    format!("The `{}` form is empty.", form.map_or("", PluralCategory::name)),
                );
            }
        }
        if let Some(max) = key.max_length {
            let length = string.graphemes(true).count();
            if length > max as usize {
                fail(
                    Check::MaxLength,
                    Severity::Error,
                    form,
                    format!("{length} characters, over the key's maxLength of {max}."),
                );
            }
        }
        if key.markup && !is_markup_fragment(string) {
            fail(
                Check::Markup,
                Severity::Error,
                form,
                "The markup is not well formed: close every tag, and write a literal `<` as `&lt;` and `&` as `&amp;`."
                    .to_owned(),
            );
        }
        if is_base {
            continue;
        }
        let Some(against) = against else {
            continue;
        };
        let (mine, theirs) = (placeholders(string), placeholders(against));
        let differ = |against: &str| match key.placeholders {
            Some(syntax) => !same_in_syntax(key, string, against, syntax, form.is_some(), argument_names()),
            None => {
                placeholders(string) != placeholders(against)
                    && !same_across_syntaxes(key, string, against, form.is_some(), argument_names())
            }
        };
        if differ(against) && other.is_none_or(differ) {
            fail(
                Check::Placeholders,
                Severity::Error,
                form,
                format!(
                    "The placeholders differ from the base text's: {} here, {} in the base text.",
                    listed(&mine),
                    listed(&theirs)
                ),
            );
        }
        if key.markup && is_markup_fragment(string) && is_markup_fragment(against) {
            let (mine, theirs) = (tags(string), tags(against));
            if mine != theirs {
                fail(
                    Check::Markup,
                    Severity::Error,
                    form,
                    format!(
                        "The tags differ from the base text's: {} here, {} in the base text.",
                        listed(&mine),
                        listed(&theirs)
                    ),
                );
            }
        }
        if let Some(message) = whitespace_differs(string, against) {
            fail(Check::Whitespace, Severity::Warning, form, message);
        }
        let (mine, theirs) = (end_punctuation(string), end_punctuation(against));
        if mine != theirs {
            let shown = |end: Option<char>| end.map_or("none".to_owned(), |end| format!("`{end}`"));
            fail(
                Check::EndPunctuation,
                Severity::Warning,
                form,
                format!(
                    "Ends with {} where the base text ends with {}.",
                    shown(mine),
                    shown(theirs)
                ),
            );
        }
        if string == against && !string.trim().is_empty() && !exempt_from_same_as_base(string) {
            fail(
                Check::SameAsBase,
                Severity::Warning,
                form,
                "The same as the base text: not translated yet?".to_owned(),
            );
        }
    }
}

/// The CLDR cardinal plural categories of `language`, in CLDR order, from ICU4X's data (a
/// script or region subtag falls back to the language's rules: `sr-Latn` as `sr`). A code
/// ICU does not know has `other` only.
pub fn plural_categories(language: &LanguageCode) -> Vec<PluralCategory> {
    // Rules are looked up once per language code: a check of a plural key asks for every
    // language of the project.
    static KNOWN: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<String, Vec<PluralCategory>>>> =
        std::sync::LazyLock::new(Default::default);
    let mut known = KNOWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    known
        .entry(language.as_str().to_owned())
        .or_insert_with(|| categories_from_cldr(language))
        .clone()
}

/// Whether the integer 1 is the only integer in `language`'s `one` category (English, German:
/// yes; French, whose `one` holds 0 too, and Russian, whose `one` holds 21: no). Then an ICU
/// case `=1` is all that ICU ever prints for a count in `one`, and can be written as `one`.
pub fn one_is_exactly_1(language: &LanguageCode) -> bool {
    use icu_plurals::{PluralCategory as Icu, PluralRules};
    let code = language.as_str().replace('_', "-");
    let rules_of = |code: &str| -> Option<PluralRules> {
        let locale = code.parse::<icu_locale_core::Locale>().ok()?;
        PluralRules::try_new_cardinal((&locale).into()).ok()
    };
    let language_only = code.split('-').next().unwrap_or_default().to_owned();
    let Some(rules) = rules_of(&code).or_else(|| rules_of(&language_only)) else {
        return false;
    };
    // CLDR's integer rules repeat within every hundred, apart from the millions that `many`
    // takes in some languages: a sample of 0..=1000 and a few large numbers decides.
    let sample = (0u64..=1000).chain([10_000, 100_000, 1_000_000, 1_000_001]);
    sample
        .into_iter()
        .all(|n| (rules.category_for(n) == Icu::One) == (n == 1))
}

fn categories_from_cldr(language: &LanguageCode) -> Vec<PluralCategory> {
    use icu_plurals::{PluralCategory as Icu, PluralRules};
    let code = language.as_str().replace('_', "-");
    let categories_of = |code: &str| -> Option<Vec<Icu>> {
        let locale = code.parse::<icu_locale_core::Locale>().ok()?;
        let rules = PluralRules::try_new_cardinal((&locale).into()).ok()?;
        Some(rules.categories().collect())
    };
    // ICU's data has rules per language and a few regions; a code it has none for (such as
    // `sr-Latn`) falls to the root's `other` only, so the language's own rules are asked then.
    let language_only = code.split('-').next().unwrap_or_default();
    let present = match categories_of(&code) {
        Some(categories) if categories.len() > 1 || language_only == code => categories,
        _ => categories_of(language_only).unwrap_or_else(|| vec![Icu::Other]),
    };
    PluralCategory::ALL
        .into_iter()
        .filter(|category| {
            present.contains(&match category {
                PluralCategory::Zero => Icu::Zero,
                PluralCategory::One => Icu::One,
                PluralCategory::Two => Icu::Two,
                PluralCategory::Few => Icu::Few,
                PluralCategory::Many => Icu::Many,
                PluralCategory::Other => Icu::Other,
            })
        })
        .collect()
}

fn names(categories: &[PluralCategory]) -> String {
    categories
        .iter()
        .map(|category| category.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A multiset of tokens, listed for a message: `%s ×2, {name}` or `none`.
fn listed(tokens: &BTreeMap<String, usize>) -> String {
    if tokens.is_empty() {
        return "none".to_owned();
    }
    tokens
        .iter()
        .map(|(token, count)| {
            if *count == 1 {
                format!("`{token}`")
            } else {
                format!("`{token}` ×{count}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names of a key's arguments ([`Names`]): its `placeholderNames`, then the names of its
/// base text (each form of a plural) read in `syntax`.
fn key_names(key: &Key, base: &LanguageCode, syntax: Option<Syntax>) -> Names {
    let context = |plural_form| Context {
        plural_form,
        markup: key.markup,
    };
    let read = |text: &str, plural_form| {
        let syntax = syntax.or_else(|| placeholders::guess(text)).unwrap_or(Syntax::None);
        placeholders::parse(text, syntax, context(plural_form))
    };
    let parsed: Vec<placeholders::Parsed> = match key.translations.get(base) {
        Some(TextRef::Plain(text)) => vec![read(text, false)],
        Some(TextRef::Plural(forms)) => forms.iter().map(|(_, text)| read(text, true)).collect(),
        None => Vec::new(),
    };
    Names::new(&key.placeholder_names, &parsed)
}

/// Whether a translation takes the base text's arguments in the normal form, the key's texts
/// read in its syntax; a translation written in another platform's syntax (an iOS `%1$@`
/// under an Android key) is read in that one.
fn same_in_syntax(key: &Key, string: &str, against: &str, syntax: Syntax, plural_form: bool, names: &Names) -> bool {
    let context = Context {
        plural_form,
        markup: key.markup,
    };
    // ICU plural messages held whole (`{VAR_PLURAL, plural, =1 {...} other {...}}`): the
    // arguments their cases use, whichever case uses them.
    if syntax == Syntax::Icu
        && let (Some(mine), Some(theirs)) = (
            plural_message_arguments(string, context, names),
            plural_message_arguments(against, context, names),
        )
    {
        return mine == theirs;
    }
    let theirs = placeholders::parse(against, syntax, context);
    if placeholders::same_placeholders(&placeholders::parse(string, syntax, context), &theirs, names) {
        return true;
    }
    placeholders::guess(string)
        .filter(|guessed| *guessed != syntax)
        .is_some_and(|guessed| {
            placeholders::same_placeholders(&placeholders::parse(string, guessed, context), &theirs, names)
        })
}

/// The arguments an ICU plural message's cases use (`#` as the count, an argument this module
/// cannot read as its text), when the text is one: a translation need not use each in every
/// case (French "Un fichier" for `one`, "{n} fichiers" for `other`).
fn plural_message_arguments(text: &str, context: Context, names: &Names) -> Option<BTreeSet<String>> {
    let mut arguments = BTreeSet::new();
    let mut plurals = 0;
    collect_arguments(text, context, names, &mut arguments, &mut plurals);
    (plurals > 0).then_some(arguments)
}

/// The arguments of an ICU text, a plural message in it (the whole text, or a part: Yubico's
/// "Wrong PIN, {retries, plural, ...}") read case by case; `plurals` counts those messages.
fn collect_arguments(
    text: &str,
    context: Context,
    names: &Names,
    arguments: &mut BTreeSet<String>,
    plurals: &mut usize,
) {
    if let Some((_, cases)) = placeholders::icu_plural_cases(text) {
        *plurals += 1;
        let context = Context {
            plural_form: true,
            ..context
        };
        for (_, body) in cases {
            collect_arguments(body, context, names, arguments, plurals);
        }
        return;
    }
    for segment in placeholders::parse(text, Syntax::Icu, context).segments {
        match segment {
            placeholders::Segment::Placeholder(placeholder) => {
                arguments.insert(match names.number_of(&placeholder.argument) {
                    Some(number) => number.to_string(),
                    None => placeholder.argument.to_string(),
                });
            }
            placeholders::Segment::Raw(piece) if placeholders::icu_plural_cases(&piece).is_some() => {
                collect_arguments(&piece, context, names, arguments, plurals);
            }
            placeholders::Segment::Raw(piece) => {
                arguments.insert(piece);
            }
            _ => {}
        }
    }
}

/// For a key without a syntax: whether texts written in two different syntaxes (each as its
/// placeholders say) take the same arguments.
fn same_across_syntaxes(key: &Key, string: &str, against: &str, plural_form: bool, names: &Names) -> bool {
    let (Some(mine), Some(theirs)) = (placeholders::guess(string), placeholders::guess(against)) else {
        return false;
    };
    if mine == theirs {
        return false;
    }
    let context = Context {
        plural_form,
        markup: key.markup,
    };
    placeholders::same_placeholders(
        &placeholders::parse(string, mine, context),
        &placeholders::parse(against, theirs, context),
        names,
    )
}

/// The placeholders of a text, as a multiset: printf conversions (`%s`, `%d`, `%1$s`, `%@`,
/// `%lld`, `%%`; flags, width and precision are left out, position and length kept),
/// Apple's `%#@name@`, and brace arguments (`{name}`, `{0}`).
pub fn placeholders(text: &str) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                if let Some((token, end)) = printf_at(text, at) {
                    *found.entry(token).or_insert(0) += 1;
                    at = end;
                    continue;
                }
            }
            b'{' => {
                let rest = &text[at + 1..];
                let length = rest
                    .bytes()
                    .take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
                    .count();
                if length > 0 && rest.as_bytes().get(length) == Some(&b'}') {
                    *found.entry(text[at..at + length + 2].to_owned()).or_insert(0) += 1;
                    at += length + 2;
                    continue;
                }
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// A printf conversion starting at `start` (a `%`): its normalized token and where it ends.
fn printf_at(text: &str, start: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let mut at = start + 1;
    match bytes.get(at)? {
        b'%' => return Some(("%%".to_owned(), at + 1)),
        b'#' if bytes.get(at + 1) == Some(&b'@') => {
            let name_start = at + 2;
            let length = text[name_start..].find('@')?;
            let name = &text[name_start..name_start + length];
            if name.is_empty() || !name.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_') {
                return None;
            }
            return Some((format!("%#@{name}@"), name_start + length + 1));
        }
        _ => {}
    }
    // Position: digits then `$`.
    let digits = bytes[at..].iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut position = "";
    if digits > 0 && bytes.get(at + digits) == Some(&b'$') {
        position = &text[at..at + digits + 1];
        at += digits + 1;
    }
    // Flags, width, precision.
    // Flags (not the space flag: "100 % sure" is prose in French, not `% s`).
    while matches!(bytes.get(at), Some(b'-' | b'+' | b'0' | b'#' | b'\'')) {
        at += 1;
    }
    while matches!(bytes.get(at), Some(byte) if byte.is_ascii_digit() || *byte == b'*') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        while matches!(bytes.get(at), Some(byte) if byte.is_ascii_digit() || *byte == b'*') {
            at += 1;
        }
    }
    let length_start = at;
    for modifier in ["hh", "ll", "h", "l", "L", "q", "j", "z", "t"] {
        if text[at..].starts_with(modifier) {
            at += modifier.len();
            break;
        }
    }
    let length = &text[length_start..at];
    let conversion = *bytes.get(at)?;
    if !b"diouxXeEfFgGaAcCsSpn@".contains(&conversion) {
        return None;
    }
    Some((format!("%{position}{length}{}", conversion as char), at + 1))
}

/// The element names of a markup text's tags, as a multiset (start tags and empty tags).
fn tags(text: &str) -> BTreeMap<String, usize> {
    use quick_xml::events::Event;
    let wrapped = format!("<r>{text}</r>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    let mut found = BTreeMap::new();
    let mut depth = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(tag)) => {
                depth += 1;
                if depth > 1 {
                    let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                    *found.entry(format!("<{name}>")).or_insert(0) += 1;
                }
            }
            Ok(Event::Empty(tag)) => {
                let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                *found.entry(format!("<{name}/>")).or_insert(0) += 1;
            }
            Ok(Event::End(_)) => depth -= 1,
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    found
}

fn whitespace_differs(text: &str, base: &str) -> Option<String> {
    let leading = |text: &str| text.len() - text.trim_start().len() > 0;
    let trailing = |text: &str| text.len() - text.trim_end().len() > 0;
    let breaks = |text: &str| text.matches('\n').count();
    if leading(text) != leading(base) {
        return Some(if leading(base) {
            "The base text starts with white space and this one does not.".to_owned()
        } else {
            "Starts with white space where the base text does not.".to_owned()
        });
    }
    if trailing(text) != trailing(base) {
        return Some(if trailing(base) {
            "The base text ends with white space and this one does not.".to_owned()
        } else {
            "Ends with white space where the base text does not.".to_owned()
        });
    }
    let (mine, theirs) = (breaks(text), breaks(base));
    (mine != theirs).then(|| format!("{mine} line breaks where the base text has {theirs}."))
}

/// The final punctuation mark (`. : ; ! ? …`) of a text, white space after it ignored, with
/// full-width and ideographic forms as their ASCII ones.
fn end_punctuation(text: &str) -> Option<char> {
    let last = text.trim_end().chars().next_back()?;
    let mark = match last {
        '。' | '．' | '｡' => '.',
        '：' => ':',
        '；' => ';',
        '！' => '!',
        '？' => '?',
        '⋯' => '…',
        other => other,
    };
    ['.', ':', ';', '!', '?', '…'].contains(&mark).then_some(mark)
}

/// A single word, a number or only placeholders may well read the same in every language.
fn exempt_from_same_as_base(text: &str) -> bool {
    let mut rest = text.to_owned();
    for token in placeholders(text).keys() {
        rest = rest.replace(token.as_str(), " ");
    }
    let words: Vec<&str> = rest.unicode_words().collect();
    words.len() <= 1 || words.iter().all(|word| word.chars().all(|c| c.is_numeric()))
}

#[cfg(test)]
mod tests;
