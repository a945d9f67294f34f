//! Placeholder conversion for exports: each key's texts, written in the key's syntax
//! (`Key::placeholders`), rewritten in the syntax the export's format reads, with the markup
//! the target keeps. Pure functions every export runs before its writer.
//!
//! The rules (README's table and `docs/placeholders.md` say them for users):
//! - A format's syntax: Android `printf`; Apple `.strings`/`.stringsdict` and String Catalogs
//!   `apple`; ARB `icu`; i18next `i18next`; Rails YAML `rails`. JSON, CSV, CSV tables, PO
//!   and XLIFF write texts as stored (they carry any syntax; PO says which in its flags).
//! - A key without a syntax, or whose syntax is the target's, is written as stored, byte for
//!   byte. So is every key with `placeholders=keep`.
//! - Numbered arguments keep their numbers; named ones take numbers from the key's
//!   `placeholderNames`, then by first appearance in the base text; numbered ones written in
//!   a named syntax take those names, else `arg1`, `arg2`...
//! - What a target cannot write is left as it is and reported as a [`Warning`].

mod fast;
pub mod plurals;
pub mod render;

use std::borrow::{Borrow, Cow};

use crate::domain::model::{Key, PluralForms, Text, TextRef};
use crate::domain::names::{KeyName, LanguageCode};
use crate::domain::placeholders::{self, Context, Names, Parsed, Syntax};

pub use render::Tags;

use super::ExportFormat;

/// Something an export could not convert, or lost converting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub key: KeyName,
    pub language: LanguageCode,
    pub message: String,
}

/// The syntax `format`'s files are read in; `None`: the format writes texts as stored.
pub fn target(format: ExportFormat) -> Option<Syntax> {
    match format {
        ExportFormat::AndroidXml => Some(Syntax::Printf),
        ExportFormat::AppleStrings | ExportFormat::Xcstrings => Some(Syntax::Apple),
        ExportFormat::Arb => Some(Syntax::Icu),
        ExportFormat::I18next => Some(Syntax::I18next),
        ExportFormat::Yaml => Some(Syntax::Rails),
        ExportFormat::Json
        | ExportFormat::Csv
        | ExportFormat::CsvTable
        | ExportFormat::Po
        | ExportFormat::Xliff
        | ExportFormat::Xliff2 => None,
    }
}

/// The syntax an uploaded file of `format` is written in; `None` for the formats that carry
/// any (JSON, CSV, PO by each entry's flag, XLIFF): the texts say, or the project does.
pub fn source(format: ExportFormat) -> Option<Syntax> {
    match format {
        ExportFormat::Json
        | ExportFormat::Csv
        | ExportFormat::CsvTable
        | ExportFormat::Po
        | ExportFormat::Xliff
        | ExportFormat::Xliff2 => None,
        format => target(format),
    }
}

/// What a format does with markup tags: Android keeps them as markup; Apple has none; the
/// web's formats (and Rails' HTML keys) keep them as literal tags.
pub fn tags_of(format: ExportFormat) -> Tags {
    match format {
        ExportFormat::AndroidXml => Tags::Markup,
        ExportFormat::AppleStrings | ExportFormat::Xcstrings => Tags::Strip,
        _ => Tags::Html,
    }
}

/// The keys as `format` writes them: converted where they need it (owned), the rest borrowed;
/// and the warnings, in key order then language order. With `on_write` (an Apple `.strings`
/// export whose writer converts, see [`Export::converting_on_write`](super::Export::converting_on_write)),
/// the keys the writer converts as it escapes their texts ([`converts_on_write`]) are left
/// borrowed, in the key's syntax: converting them here would copy every text and key once more.
pub fn converted<'a, K: Borrow<Key> + Sync>(
    keys: &'a [K],
    format: ExportFormat,
    base: &LanguageCode,
    on_write: bool,
) -> (Vec<Cow<'a, Key>>, Vec<Warning>) {
    let Some(target) = target(format) else {
        return (keys.iter().map(|key| Cow::Borrowed(key.borrow())).collect(), Vec::new());
    };
    let tags = tags_of(format);
    // Only the `.strings` writer converts on write.
    let on_write = on_write && format == ExportFormat::AppleStrings;
    let convert_chunk = |chunk: &'a [K]| {
        let mut warnings = Vec::new();
        let written: Vec<Cow<'a, Key>> = chunk
            .iter()
            .map(|key| {
                let key = key.borrow();
                if on_write && converts_on_write(key) {
                    return Cow::Borrowed(key);
                }
                match convert_key(key, base, target, tags, &mut warnings) {
                    Some(converted) => Cow::Owned(converted),
                    None => Cow::Borrowed(key),
                }
            })
            .collect();
        (written, warnings)
    };
    // On every core, as the export's files are written: a large project's conversion would
    // otherwise be one core's work before the writers start.
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
    if threads == 1 || keys.len() < 4096 {
        return convert_chunk(keys);
    }
    let chunk_size = keys.len().div_ceil(threads);
    let parts: Vec<(Vec<Cow<'a, Key>>, Vec<Warning>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = keys
            .chunks(chunk_size)
            .map(|chunk| scope.spawn(move || convert_chunk(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a conversion thread does not panic"))
            .collect()
    });
    let mut written = Vec::with_capacity(keys.len());
    let mut warnings = Vec::new();
    for (part, part_warnings) in parts {
        written.extend(part);
        warnings.extend(part_warnings);
    }
    (written, warnings)
}

/// Whether an Apple writer that converts on write writes `key`'s texts itself: a plain Java
/// printf key, without markup, every text of which the one pass converts (most keys of an
/// Android project; the others are converted before the writer runs and are in Apple's
/// syntax by then).
pub fn converts_on_write(key: &Key) -> bool {
    left_in_printf(key)
        && !key.plural
        && (!key.translations.packed().1.contains('%')
            || key
                .translations
                .values()
                .all(|text| text.strings().all(fast::takes_one_pass)))
}

/// Whether the Apple writer of an export that converts on write converts `key`'s texts: a
/// Java printf key without markup, not a String Catalog entry held whole. Such a key reaches
/// the writer in printf only when [`converts_on_write`] left it there; the others arrive
/// converted, in Apple's syntax.
pub fn left_in_printf(key: &Key) -> bool {
    key.placeholders == Some(Syntax::Printf) && !key.markup && !key.xcode.whole
}

/// Writes `text`, a text of a key [`converts_on_write`] holds for, onto `out` in Apple's
/// syntax, its literal parts escaped by `escape` (what the conversions write needs none).
pub fn write_for_apple(text: &str, out: &mut String, mut escape: impl FnMut(&str, &mut String)) {
    if !fast::write_printf_as_apple(text, out, &mut escape) {
        debug_assert!(false, "a text the one pass does not take: {text:?}");
        escape(text, out);
    }
}

/// `key` with its texts written in `target`, or `None` when they are written as stored.
pub fn convert_key(
    key: &Key,
    base: &LanguageCode,
    target: Syntax,
    tags: Tags,
    warnings: &mut Vec<Warning>,
) -> Option<Key> {
    if key.xcode.whole {
        // A String Catalog's localizations as JSON, written as they are.
        return None;
    }
    let source = key.placeholders?;
    let markup_changes = key.markup && tags != Tags::Markup;
    if source == target && !markup_changes {
        return None;
    }
    if !key.translations.iter_written().any(|(_, text, _)| {
        text.strings()
            .any(|string| may_change(string, source, target, key.markup))
    }) {
        // Nothing in any text reads differently in the target (most texts: no `%`, no
        // braces, no tags); only the markup flag goes.
        if markup_changes {
            let mut plain = key.clone();
            plain.markup = false;
            plain.placeholders = Some(target);
            return Some(plain);
        }
        return None;
    }
    let context = |plural_form| Context {
        plural_form,
        markup: key.markup,
    };
    // Made at the first text the one-pass conversion leaves to the full one.
    let names = std::cell::OnceCell::new();
    let names = || names.get_or_init(|| names_of(key, base, source));
    // An ICU plural message held as one text (an ARB upload's) is written as the target's
    // plural forms: the key becomes a plural in the export.
    let expanded: Vec<Option<plurals::Expanded>> = key
        .translations
        .iter_written()
        .map(|(language, text, _)| match text {
            TextRef::Plain(string) if expands(key, source, target) => plurals::expand(string, language, key.markup),
            _ => None,
        })
        .collect();
    let plural = key.plural || expanded.iter().any(Option::is_some);
    // Everything but the texts, which are written anew.
    let mut converted = Key {
        name: key.name.clone(),
        tags: key.tags.clone(),
        description: key.description.clone(),
        plural,
        markup: key.markup && tags == Tags::Markup,
        translatable: key.translatable,
        files: key.files.clone(),
        max_length: key.max_length,
        ignore_checks: key.ignore_checks.clone(),
        xcode: key.xcode.clone(),
        placeholders: Some(target),
        placeholder_names: key.placeholder_names.clone(),
        translations: Default::default(),
    };
    let mut texts = Vec::with_capacity(key.translations.len());
    // Each text as written: a translation of the other kind than the key's (a plain text of a
    // plural key) stays of its kind.
    for ((language, text, other_kind), expanded) in key.translations.iter_written().zip(expanded) {
        let mut messages = Vec::new();
        let mut write = |string: &str, plural_form: bool| {
            if !may_change(string, source, target, key.markup) {
                // Nothing in this text reads differently: it is its own conversion.
                return string.to_owned();
            }
            if source == Syntax::Printf
                && target == Syntax::Apple
                && !key.markup
                && let Some(written) = fast::printf_to_apple(string)
            {
                return written;
            }
            let parsed = placeholders::parse(string, source, context(plural_form));
            render::render(&parsed, target, context(plural_form), tags, names(), &mut messages)
        };
        let written = match (text, expanded) {
            (_, Some(expanded)) => {
                let forms: Vec<_> = expanded
                    .forms
                    .iter()
                    .map(|(category, parsed)| {
                        let form = render::render(parsed, target, context(true), tags, names(), &mut messages);
                        (*category, form)
                    })
                    .collect();
                messages.extend(expanded.left_out);
                Text::Plural(PluralForms::new(forms).expect("the expansion keeps `other`"))
            }
            (TextRef::Plain(string), None) => {
                let written = write(string, false);
                if plural && !other_kind {
                    Text::Plural(PluralForms::other(written))
                } else {
                    Text::Plain(written)
                }
            }
            (TextRef::Plural(forms), None) => {
                let forms: Vec<_> = forms
                    .iter()
                    .map(|(category, string)| (category, write(string, true)))
                    .collect();
                Text::Plural(PluralForms::new(forms).expect("the same categories, with `other`"))
            }
        };
        messages.dedup();
        warnings.extend(messages.into_iter().map(|message| Warning {
            key: key.name.clone(),
            language: language.clone(),
            message,
        }));
        texts.push((language.clone(), written));
    }
    if target == Syntax::Icu && key.plural {
        // ICU plurals are one message: the forms, already ICU, go into it as they are (the
        // ARB writer writes a plain text as it is; a plural key's forms it would quote).
        converted.plural = false;
        for (_, text) in &mut texts {
            if let Text::Plural(forms) = text {
                let mut message = "{count, plural,".to_owned();
                for (category, form) in forms.iter() {
                    message.push(' ');
                    message.push_str(category.name());
                    message.push_str(" {");
                    message.push_str(form);
                    message.push('}');
                }
                message.push('}');
                *text = Text::Plain(message);
            }
        }
    }
    // The texts are in the key's order of languages: packed as they are, bases kept.
    let plural = converted.plural;
    converted.translations = key.translations.with_texts(
        texts
            .iter()
            .map(|(_, text)| (text.as_ref(), text.as_ref().is_plural() != plural)),
    );
    Some(converted)
}

/// One uploaded text, read in `from`, written in `to` (a key's syntax that differs from the
/// file's): arguments numbered by their first appearance in the text itself, markup kept
/// as markup. The text and what could not convert.
pub fn convert_text(text: Text, from: Syntax, to: Syntax, markup: bool) -> (Text, Vec<String>) {
    let tags = if markup { Tags::Markup } else { Tags::Html };
    let mut messages = Vec::new();
    let mut write = |string: &str, plural_form: bool| {
        let context = Context { plural_form, markup };
        let parsed = placeholders::parse(string, from, context);
        let names = Names::new(&[], [&parsed]);
        render::render(&parsed, to, context, tags, &names, &mut messages)
    };
    let converted = match text {
        Text::Plain(string) => Text::Plain(write(&string, false)),
        Text::Plural(forms) => {
            let forms: Vec<_> = forms
                .iter()
                .map(|(category, string)| (category, write(string, true)))
                .collect();
            Text::Plural(PluralForms::new(forms).expect("the same categories, with `other`"))
        }
    };
    messages.dedup();
    (converted, messages)
}

/// The key's argument names (see [`Names`]): its `placeholderNames`, then the base text's
/// names; in a plural key of a numbered syntax the count (the base `other` form's first
/// integer) is named `count`, as i18next and ICU plurals need it.
pub fn names_of(key: &Key, base: &LanguageCode, source: Syntax) -> Names {
    let context = |plural_form| Context {
        plural_form,
        markup: key.markup,
    };
    let parsed: Vec<Parsed> = match key.translations.get(base) {
        Some(TextRef::Plain(text)) if source == Syntax::Icu && !key.plural => {
            match plurals::expand(text, base, key.markup) {
                Some(expanded) => expanded.forms.into_iter().map(|(_, parsed)| parsed).collect(),
                None => vec![placeholders::parse(text, source, context(false))],
            }
        }
        Some(TextRef::Plain(text)) => vec![placeholders::parse(text, source, context(false))],
        Some(TextRef::Plural(forms)) => forms
            .iter()
            .map(|(_, text)| placeholders::parse(text, source, context(true)))
            .collect(),
        None => Vec::new(),
    };
    let mut declared = key.placeholder_names.clone();
    if key.plural && declared.is_empty() && source.is_numbered() {
        let other = match key.translations.get(base) {
            Some(TextRef::Plural(forms)) => Some(placeholders::parse(forms.other_form(), source, context(true))),
            _ => None,
        };
        let names = Names::default();
        let count = other.as_ref().and_then(|other| {
            other
                .placeholders()
                .find(|placeholder| placeholder.kind.is_integer())
                .and_then(|placeholder| names.number_of(&placeholder.argument))
        });
        if let Some(count) = count {
            declared = (1..count).map(|number| format!("arg{number}")).collect();
            declared.push("count".to_owned());
        }
    }
    Names::new(&declared, &parsed)
}

/// The placeholders an ARB template declares for an ICU text, in first appearance: each
/// argument's name and Flutter's type for it: `double` for a float with digits, `num` for a
/// number and a plural's count, `int` for an integer style, else `Object` (any value, written
/// with `toString()`, as `{name}` prints an integer or a string in FormatJS).
pub fn arb_declarations(text: &str) -> Vec<(String, &'static str)> {
    use crate::domain::placeholders::{Kind, icu_plural_cases};
    let mut declared: Vec<(String, &'static str)> = Vec::new();
    let add = |declared: &mut Vec<(String, &'static str)>, parsed: &Parsed| {
        for placeholder in parsed.placeholders() {
            let name = placeholder.argument.to_string();
            let kind = match placeholder.kind {
                Kind::Count | Kind::Number => "num",
                kind if kind.is_integer() => "int",
                kind if kind.is_float() => "double",
                _ => "Object",
            };
            if !declared.iter().any(|(known, _)| *known == name) {
                declared.push((name, kind));
            }
        }
    };
    match icu_plural_cases(text) {
        Some((argument, cases)) => {
            declared.push((argument.to_owned(), "num"));
            for (_, body) in cases {
                add(
                    &mut declared,
                    &placeholders::parse(
                        body,
                        Syntax::Icu,
                        Context {
                            plural_form: true,
                            markup: false,
                        },
                    ),
                );
            }
        }
        None => add(
            &mut declared,
            &placeholders::parse(text, Syntax::Icu, Context::default()),
        ),
    }
    declared
}

/// Whether `key`'s whole-text ICU plural messages are written as plural forms: an ICU key that
/// is not a plural, exported to a syntax other than ICU (every such target has plural forms).
fn expands(key: &Key, source: Syntax, target: Syntax) -> bool {
    source == Syntax::Icu && target != Syntax::Icu && !key.plural
}

/// Whether `text` may read differently in `target` than as stored: it holds a character that
/// starts a placeholder or an escape in either syntax, or markup.
fn may_change(text: &str, source: Syntax, target: Syntax, markup: bool) -> bool {
    let special = |syntax: Syntax, byte: u8| match syntax {
        Syntax::Printf | Syntax::Apple | Syntax::Python | Syntax::Rails | Syntax::Symfony => byte == b'%',
        Syntax::Icu => matches!(byte, b'{' | b'}' | b'\'' | b'#' | b'<'),
        Syntax::I18next => matches!(byte, b'{' | b'$'),
        Syntax::PythonBrace => matches!(byte, b'{' | b'}'),
        Syntax::None => false,
    };
    text.bytes()
        .any(|byte| special(source, byte) || special(target, byte) || (markup && matches!(byte, b'<' | b'&')))
}

#[cfg(test)]
mod tests;
