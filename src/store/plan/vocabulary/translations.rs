//! A key's translations as a change sends them, set on the key: each of the key's kind, or
//! as its app's file writes it.

use super::{StoreError, TextInput, TranslationInput, quoted};
use crate::domain::model::{Key, PluralCategory, PluralForms, Project, Text, TextRef};

/// Applies translations as sent to the key: each language is set, or removed when its content
/// (or its set of forms) is empty. The project's own spelling of a language is used, and each
/// text must be of the key's kind: `content` for a plain key, `forms` for a plural one, but
/// for an input [`kind_as_written`](TranslationInput::kind_as_written). A text of the key's
/// kind that says what a translation written in the other kind already holds (the `other`
/// form alone, or the `other` form's text) leaves it as written.
pub(crate) fn merge_translations(
    project: &Project,
    key: &mut Key,
    inputs: Vec<TranslationInput>,
) -> Result<(), StoreError> {
    // Which of the project's languages the inputs named so far. Inputs mostly come in the
    // project's order (an import of 50 languages per key), so the language after the last one
    // found is tried first.
    let mut seen = vec![false; project.languages.len()];
    let mut next = 0;
    let mut changes = Vec::with_capacity(inputs.len());
    for input in inputs {
        let found = project
            .languages
            .get(next)
            .filter(|language| language.same_as(&input.language))
            .map(|_| next)
            .or_else(|| {
                project
                    .languages
                    .iter()
                    .position(|language| language.same_as(&input.language))
            });
        let Some(index) = found else {
            return Err(StoreError::Invalid(project.no_language(&input.language)));
        };
        if std::mem::replace(&mut seen[index], true) {
            return Err(StoreError::Invalid(format!(
                "The language {} appears more than once in translations.",
                quoted(input.language.as_str())
            )));
        }
        next = index + 1;
        let language = &project.languages[index];
        if !key.translatable && *language != project.base_language && input.text.has_text() {
            return Err(StoreError::Invalid(format!(
                "Key {} is not translatable (`translatable: false`): it takes a text in the base language {} only, not in {}.",
                quoted(key.name.as_str()),
                quoted(project.base_language.as_str()),
                quoted(language.as_str())
            )));
        }
        let literal = input.literal && key.markup;
        // The translation as written, while it is of the other kind than the key's.
        let written = key
            .translations
            .get_written(language)
            .filter(|(_, other_kind)| *other_kind)
            .map(|(text, _)| text);
        let text = match (input.text, key.plural) {
            (TextInput::Content(content), true) if input.kind_as_written => {
                (!content.is_empty()).then_some((Text::Plain(content), true))
            }
            // Forms for a language a plain key holds as forms (an API client writing back what
            // it read) are forms still.
            (TextInput::Forms(forms), false)
                if (input.kind_as_written || matches!(written, Some(TextRef::Plural(_)))) && !forms.is_empty() =>
            {
                let forms = PluralForms::new(forms).map_err(|err| {
                    StoreError::Invalid(format!("The forms for language {}: {err}.", quoted(language.as_str())))
                })?;
                Some((Text::Plural(forms), true))
            }
            // The other form alone of a translation written as one text: still one text.
            (TextInput::Forms(forms), true)
                if matches!(written, Some(TextRef::Plain(_)))
                    && matches!(forms.as_slice(), [(PluralCategory::Other, text)] if !text.is_empty()) =>
            {
                let text = forms.into_iter().next().map(|(_, text)| text).unwrap_or_default();
                Some((Text::Plain(text), true))
            }
            // The text of a translation written as forms, unchanged: still those forms.
            (TextInput::Content(content), false)
                if written.is_some_and(|forms| forms.in_other_kind().as_plain() == Some(content.as_str())) =>
            {
                written.map(|forms| (forms.to_owned(), true))
            }
            (TextInput::Content(content), false) => (!content.is_empty()).then_some((Text::Plain(content), false)),
            (TextInput::Forms(forms), true) if forms.is_empty() => None,
            (TextInput::Forms(mut forms), true) => {
                if input.keeps_unexpressed_forms
                    && let Some(crate::domain::model::TextRef::Plural(held)) = key.translations.get(language)
                {
                    for (category, text) in held.iter() {
                        if !forms.iter().any(|(given, _)| *given == category) {
                            forms.push((category, text.to_owned()));
                        }
                    }
                }
                Some((
                    Text::Plural(PluralForms::new(forms).map_err(|err| {
                        StoreError::Invalid(format!("The forms for language {}: {err}.", quoted(language.as_str())))
                    })?),
                    false,
                ))
            }
            (TextInput::Content(_), true) => {
                return Err(StoreError::Invalid(format!(
                    "Key {} is plural: give its translation in {} as `forms` ({}), not `content`.",
                    quoted(key.name.as_str()),
                    quoted(language.as_str()),
                    PluralCategory::NAMES
                )));
            }
            (TextInput::Forms(_), false) => {
                return Err(StoreError::Invalid(format!(
                    "Key {} is not plural: give its translation in {} as `content`, or set `plural: true`.",
                    quoted(key.name.as_str()),
                    quoted(language.as_str())
                )));
            }
        };
        let kept = text
            .as_ref()
            .is_some_and(|(text, other_kind)| *other_kind && written.is_some_and(|written| written == *text));
        let text = if literal && !kept {
            text.map(|(text, other_kind)| (text.map_strings(crate::domain::model::escape_markup), other_kind))
        } else {
            text
        };
        let malformed = key.markup
            && text.as_ref().is_some_and(|(text, _)| {
                text.strings()
                    .any(|string| !crate::domain::model::is_markup_fragment(string))
            });
        if malformed {
            return Err(StoreError::Invalid(format!(
                "Key {} holds Android markup (`markup: true`), and its text in {} is not a well-formed fragment: close every tag, and write a literal `<` as `&lt;` and `&` as `&amp;`.",
                quoted(key.name.as_str()),
                quoted(language.as_str())
            )));
        }
        changes.push((language, text));
    }
    key.translations.apply_written(changes);
    Ok(())
}
