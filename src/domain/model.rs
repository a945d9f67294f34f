//! The team, project and key model, free of wire and file formats.

pub use super::check::Check;
pub use super::key_files::{KeyFiles, Platform};
use super::names::{KeyName, LanguageCode, ProjectName, TeamName, quote_for_message};
pub use super::placeholders::Syntax;
pub use super::text::{PluralCategory, PluralForms, Text};
pub use super::translations::{FormsRef, TextRef, Translations};

/// A team: the owner of projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub name: TeamName,
    pub display_name: String,
}

/// A project: the owner of keys, with its languages.
///
/// Invariant: `languages` holds `base_language` and no two codes that fold to the same form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub name: ProjectName,
    pub display_name: String,
    pub description: String,
    pub base_language: LanguageCode,
    pub languages: Vec<LanguageCode>,
    /// The placeholder syntax new keys take when they are created without one.
    pub placeholder_format: Option<Syntax>,
}

impl Project {
    /// Finds the project's own spelling of a language, exactly as stored.
    pub fn has_language(&self, language: &LanguageCode) -> bool {
        self.languages.contains(language)
    }

    /// The project's languages as one comma-separated list, for error messages.
    pub fn languages_list(&self) -> String {
        self.languages
            .iter()
            .map(LanguageCode::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The position in `languages` of the project's spelling of `language` (any case or
    /// separator), or the message refusing a language the project does not have.
    pub fn language_position(&self, language: &LanguageCode) -> Result<usize, String> {
        self.languages
            .iter()
            .position(|own| own.same_as(language))
            .ok_or_else(|| self.no_language(language))
    }

    /// The message refusing `language`, which the project does not have.
    pub fn no_language(&self, language: &LanguageCode) -> String {
        format!(
            "Project {} has no language {}; its languages are: {}.",
            quote_for_message(self.name.as_str()),
            quote_for_message(language.as_str()),
            self.languages_list()
        )
    }
}

/// A text key with its tags (order kept, no duplicates) and one text per language.
///
/// Invariant: as [`Translations::get`] sees them, every translation of a plural key is
/// [`Text::Plural`], every translation of a plain key [`Text::Plain`]; a translation an app
/// writes in the other kind (a Rails or ARB file reads each language on its own) is held as
/// written beside that ([`Translations::get_written`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub name: KeyName,
    pub tags: Vec<String>,
    /// Context for translators; empty when there is none.
    pub description: String,
    /// Whether the texts are sets of CLDR plural forms.
    pub plural: bool,
    /// Whether the texts are Android styled strings: inline tags (`<b>`, `<xliff:g>`, ...) are
    /// markup and `&lt;`/`&amp;` stand for `<` and `&`, rather than all of it being literal text.
    pub markup: bool,
    /// Whether the key is translated at all: `false` for texts the app keeps in its base
    /// language only (Android's `translatable="false"`); such a key takes no text in another
    /// language and is exported in the base language only.
    pub translatable: bool,
    /// The app file the key lives in, per platform family.
    pub files: KeyFiles,
    /// The most grapheme clusters a text of the key may have, in every language (the
    /// `max_length` check); `None`: no limit.
    pub max_length: Option<u32>,
    /// Checks not run on this key, in check order.
    pub ignore_checks: Vec<Check>,
    /// What an Xcode String Catalog records of the key beyond its texts.
    pub xcode: XcodeEntry,
    /// The placeholder syntax the texts are written in (`printf`, `apple`, `icu`, ...), which
    /// exports convert from. `None` for a key written before keys knew it (or never told):
    /// its texts are exported as they are stored, in every format.
    pub placeholders: Option<Syntax>,
    /// Names for the numbered arguments, in order (`%1$s` is the first name), for syntaxes
    /// that name their arguments; empty: `arg1`, `arg2`, ...
    pub placeholder_names: Vec<String>,
    pub translations: Translations,
}

/// What Xcode's String Catalog records of a key beyond its texts, kept from an upload so that
/// the catalog exported again is the one Xcode wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XcodeEntry {
    /// `extractionState` as read (`manual`, `stale`, `extracted_with_value`, ...).
    pub extraction_state: Option<String>,
    /// The catalog had no source-language value, so the key name is the source text (Xcode's
    /// own fallback); the export leaves the value out again while it is the key name.
    pub source_from_key: bool,
    /// The catalog's localizations of the key are held whole: each text is the catalog's
    /// JSON of that language's localization (`substitutions`, device variations), written
    /// back as it is (docs/formats/xcstrings.md).
    pub whole: bool,
    /// Localizations Xcode wrote in a shape an export would not write for the same text and
    /// state (a unit without `state`, plural forms of mixed review states, a plain unit of a
    /// language whose only plural form is `other`, a `new` or `stale` state): per language,
    /// the node as compact JSON, sorted by language. The export writes a node back as it was
    /// while it says what the key holds.
    pub nodes: Vec<(String, String)>,
}

impl XcodeEntry {
    /// Longest `extractionState` kept.
    pub const MAX_STATE_CHARS: usize = 40;

    pub fn is_empty(&self) -> bool {
        self.extraction_state.is_none() && !self.source_from_key && !self.whole && self.nodes.is_empty()
    }

    /// Whether `raw` is an `extractionState` worth keeping: a word of ASCII letters, digits
    /// and `_`.
    pub fn is_state(raw: &str) -> bool {
        !raw.is_empty()
            && raw.len() <= Self::MAX_STATE_CHARS
            && raw.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_')
    }
}

impl Key {
    /// The app file the key goes to for `platform`: for Apple and the web, whose files are
    /// the key spaces (tables, i18next namespaces), the key's namespace when it has one; else
    /// its `files` entry or the family's default.
    pub fn file_for(&self, platform: Platform) -> Option<&str> {
        match (platform, self.name.namespace()) {
            (Platform::Apple | Platform::Web, namespace) if !namespace.is_empty() => Some(namespace),
            _ => self.files.file_or_default(platform),
        }
    }

    /// A plain key with no tags, description or texts.
    pub fn named(name: KeyName) -> Self {
        Self {
            name,
            tags: Vec::new(),
            description: String::new(),
            plural: false,
            markup: false,
            translatable: true,
            files: KeyFiles::default(),
            max_length: None,
            ignore_checks: Vec::new(),
            xcode: XcodeEntry::default(),
            placeholders: None,
            placeholder_names: Vec::new(),
            translations: Translations::default(),
        }
    }

    /// Switches the key to or from plural: a plain text becomes the `other` form, and a
    /// plural's `other` form becomes the plain text; a text written in the other kind is
    /// then of the key's kind, and held as it is.
    pub fn set_plural(&mut self, plural: bool) {
        if self.plural == plural {
            return;
        }
        self.plural = plural;
        self.translations.set_kind(plural);
    }
}

/// Outdated translations: each translation records the hash of the base text it was written
/// against ([`Translations::base_of`]); one whose record differs from its base text's hash is
/// outdated.
impl Key {
    /// The languages whose translation is outdated against the base text in `base`, in code
    /// order. A translation with no record, and every translation of a key with no base text,
    /// is current.
    pub fn outdated<'a>(&'a self, base: &LanguageCode) -> impl Iterator<Item = &'a LanguageCode> + 'a {
        let current = self.translations.get(base).map(TextRef::base_hash);
        let translations = &self.translations;
        translations.keys().filter(move |language| {
            current.is_some()
                && translations
                    .base_of(language)
                    .is_some_and(|recorded| Some(recorded) != current)
        })
    }

    /// Whether the translation in `language` is outdated against the base text in `base`.
    pub fn is_outdated(&self, base: &LanguageCode, language: &LanguageCode) -> bool {
        let Some(recorded) = self.translations.base_of(language) else {
            return false;
        };
        self.translations
            .get(base)
            .is_some_and(|text| text.base_hash() != recorded)
    }

    /// Records, after a write that turned `before` (none for a new key) into this key, which
    /// base text each translation was written against: a new or changed translation against
    /// the base text now; when the base text changed, the others keep the old one (so they are
    /// outdated) unless `keep_current`, which moves the current ones to the new base text.
    pub fn settle_bases(&mut self, base: &LanguageCode, before: Option<&Key>, keep_current: bool) {
        let old = before
            .and_then(|key| key.translations.get(base))
            .map(TextRef::base_hash);
        let new = self.translations.get(base).map(TextRef::base_hash);
        let languages: Vec<LanguageCode> = self
            .translations
            .keys()
            .filter(|language| *language != base)
            .cloned()
            .collect();
        for language in &languages {
            let text = self.translations.get(language);
            let written = before
                .and_then(|key| key.translations.get(language))
                .is_none_or(|old_text| Some(old_text) != text);
            let recorded = self.translations.base_of(language);
            let next = if written {
                new
            } else if old.is_some() && old != new {
                if keep_current && (recorded.is_none() || recorded == old) {
                    new
                } else {
                    recorded.or(old)
                }
            } else {
                recorded
            };
            self.translations.set_base(language, next);
        }
        self.translations.set_base(base, None);
    }

    /// Marks the translations in `languages` as outdated (written against an earlier base
    /// text than the current one), as a file that records it says (Xcode's `needs_review`);
    /// one already outdated keeps its record.
    pub fn mark_outdated(&mut self, base: &LanguageCode, languages: &[LanguageCode]) {
        let Some(current) = self.translations.get(base).map(TextRef::base_hash) else {
            return;
        };
        // Any record other than the current base text's (and 0, which is none) is outdated.
        let earlier = current.wrapping_add(1).max(1);
        for language in languages {
            if language != base && self.translations.get(language).is_some() && !self.is_outdated(base, language) {
                self.translations.set_base(language, Some(earlier));
            }
        }
    }

    /// Marks the translations in `languages` (every one when empty) as written against the
    /// base text in `base`; whether any record changed.
    pub fn confirm(&mut self, base: &LanguageCode, languages: &[LanguageCode]) -> bool {
        let Some(current) = self.translations.get(base).map(TextRef::base_hash) else {
            return false;
        };
        let targets: Vec<LanguageCode> = self
            .translations
            .keys()
            .filter(|language| *language != base && (languages.is_empty() || languages.contains(language)))
            .cloned()
            .collect();
        let mut changed = false;
        for language in &targets {
            if self.translations.base_of(language) != Some(current) {
                self.translations.set_base(language, Some(current));
                changed = true;
            }
        }
        changed
    }
}

impl Key {
    /// Switches the key to or from markup texts. Turning markup on escapes `&`, `<` and `>` in
    /// every text, so the old texts stay literal; turning it off keeps each text as written.
    pub fn set_markup(&mut self, markup: bool) {
        if self.markup == markup {
            return;
        }
        self.markup = markup;
        if markup {
            self.translations
                .map_written(|text| text.to_owned().map_strings(escape_markup));
        }
    }
}

/// Whether a text is a well-formed markup text: an XML fragment whose tags are balanced and
/// whose references are character references or XML's five entities (what the Android export
/// can write as tags; anything else it would write as literal text).
pub fn is_markup_fragment(text: &str) -> bool {
    use quick_xml::events::Event;
    let wrapped = format!("<r>{text}</r>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    let mut depth = 0usize;
    loop {
        match reader.read_event() {
            Ok(Event::Start(_)) => depth += 1,
            Ok(Event::End(_)) => match depth.checked_sub(1) {
                Some(rest) => depth = rest,
                None => return false,
            },
            Ok(Event::GeneralRef(reference)) => {
                let known_char = matches!(reference.resolve_char_ref(), Ok(Some(_)));
                let known_entity = reference
                    .decode()
                    .ok()
                    .is_some_and(|name| quick_xml::escape::resolve_predefined_entity(&name).is_some());
                if !known_char && !known_entity {
                    return false;
                }
            }
            Ok(Event::Text(text)) if text.decode().is_err() => return false,
            Ok(Event::Eof) => return depth == 0,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// A literal text as a markup text: `&`, `<` and `>` escaped.
pub fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Drops repeated tags, keeping the first occurrence of each and the order given.
pub fn dedup_tags(tags: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    tags.into_iter().filter(|tag| seen.insert(tag.clone())).collect()
}

/// The languages a project ends up with: the list given (or the base language alone), with
/// the base language added at the front when the list leaves it out.
pub fn normalize_languages(base: &LanguageCode, languages: Vec<LanguageCode>) -> Vec<LanguageCode> {
    let mut languages = languages;
    if !languages.contains(base) {
        languages.insert(0, base.clone());
    }
    languages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    fn texts(key: &mut Key, pairs: &[(&str, &str)]) {
        key.translations.apply(
            pairs
                .iter()
                .map(|(language, text)| (code(language), Some(Text::from(*text)))),
        );
    }

    fn outdated(key: &Key) -> Vec<&str> {
        key.outdated(&code("en")).map(LanguageCode::as_str).collect()
    }

    #[test]
    fn a_base_change_outdates_the_other_translations_until_they_are_written_or_confirmed() {
        let en = code("en");
        let mut key = Key::named(KeyName::parse("k").unwrap());
        texts(&mut key, &[("en", "Save"), ("fr", "Enregistrer"), ("de", "Speichern")]);
        key.settle_bases(&en, None, false);
        assert!(outdated(&key).is_empty());
        assert_eq!(key.translations.base_of(&en), None, "the base text records no base");

        let before = key.clone();
        texts(&mut key, &[("en", "Save all")]);
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(outdated(&key), ["de", "fr"]);
        assert!(key.is_outdated(&en, &code("fr")));
        assert!(!key.is_outdated(&en, &en));

        // Writing French makes it current; German stays outdated.
        let before = key.clone();
        texts(&mut key, &[("fr", "Tout enregistrer")]);
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(outdated(&key), ["de"]);
        // A write that leaves German's text as it was does not confirm it.
        let before = key.clone();
        texts(&mut key, &[("de", "Speichern")]);
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(outdated(&key), ["de"]);

        // Confirming names languages, or takes every one.
        assert!(key.confirm(&en, &[code("de")]));
        assert!(outdated(&key).is_empty());
        assert!(!key.confirm(&en, &[]), "nothing left to confirm");

        // Back to the old base text: the translations written against it are current again,
        // the ones written against the new one are outdated.
        let before = key.clone();
        texts(&mut key, &[("en", "Save")]);
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(outdated(&key), ["de", "fr"]);
    }

    #[test]
    fn keep_current_moves_only_the_current_translations_to_the_new_base_text() {
        let en = code("en");
        let mut key = Key::named(KeyName::parse("k").unwrap());
        texts(&mut key, &[("en", "Colour"), ("fr", "Couleur"), ("de", "Farbe")]);
        key.settle_bases(&en, None, false);
        let before = key.clone();
        texts(&mut key, &[("en", "Colours")]);
        key.settle_bases(&en, Some(&before), false);
        key.confirm(&en, &[code("fr")]);
        assert_eq!(outdated(&key), ["de"]);
        // A typo fix: French stays current, German stays outdated.
        let before = key.clone();
        texts(&mut key, &[("en", "Colors")]);
        key.settle_bases(&en, Some(&before), true);
        assert_eq!(outdated(&key), ["de"]);
    }

    #[test]
    fn translations_without_a_record_are_current_until_the_base_text_changes() {
        let en = code("en");
        let mut key = Key::named(KeyName::parse("k").unwrap());
        texts(&mut key, &[("en", "Open"), ("fr", "Ouvrir")]);
        // As a key file written before records existed reads.
        assert!(outdated(&key).is_empty());
        let before = key.clone();
        key.description = "a menu item".into();
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(
            key.translations.base_of(&code("fr")),
            None,
            "a change that leaves the texts alone records nothing"
        );
        texts(&mut key, &[("en", "Open…")]);
        key.settle_bases(&en, Some(&before), false);
        assert_eq!(outdated(&key), ["fr"]);
        // Switching to plural keeps the records with their translations.
        let mut plural = key.clone();
        plural.set_plural(true);
        assert_eq!(
            plural.translations.base_of(&code("fr")),
            key.translations.base_of(&code("fr"))
        );
    }

    #[test]
    fn plural_forms_need_other_and_keep_cldr_order() {
        let forms = |pairs: &[(&str, &str)]| {
            PluralForms::new(
                pairs
                    .iter()
                    .map(|(name, text)| (PluralCategory::parse(name).unwrap(), text.to_string())),
            )
        };
        assert!(forms(&[("one", "a")]).is_err());
        assert!(forms(&[("one", "a"), ("other", "")]).is_err());
        let ok = forms(&[("other", "many"), ("zero", ""), ("one", "one"), ("few", "few")]).unwrap();
        let names: Vec<&str> = ok.iter().map(|(category, _)| category.name()).collect();
        assert_eq!(names, ["one", "few", "other"]);
    }

    #[test]
    fn switching_a_key_to_plural_and_back_keeps_the_other_form() {
        let mut key = Key::named(KeyName::parse("k").unwrap());
        key.translations
            .insert(LanguageCode::parse("en").unwrap(), Text::from("items"));
        key.set_plural(true);
        let en = LanguageCode::parse("en").unwrap();
        assert_eq!(
            key.translations.get(&en).map(TextRef::to_owned),
            Some(Text::Plural(PluralForms::other("items".into())))
        );
        key.translations.insert(
            en.clone(),
            Text::Plural(
                PluralForms::new([
                    (PluralCategory::One, "item".into()),
                    (PluralCategory::Other, "items!".into()),
                ])
                .unwrap(),
            ),
        );
        key.set_plural(false);
        assert_eq!(key.translations.get(&en).and_then(TextRef::as_plain), Some("items!"));
    }

    #[test]
    fn dedup_tags_keeps_first_occurrence_order() {
        let tags = ["b", "a", "b", "c", "a"].map(String::from).to_vec();
        assert_eq!(dedup_tags(tags), ["b", "a", "c"]);
    }

    #[test]
    fn base_language_is_added_to_a_list_that_leaves_it_out() {
        let en = LanguageCode::parse("en").unwrap();
        let fr = LanguageCode::parse("fr").unwrap();
        assert_eq!(normalize_languages(&en, vec![fr.clone()]), vec![en.clone(), fr.clone()]);
        assert_eq!(normalize_languages(&en, vec![fr.clone(), en.clone()]), vec![fr, en]);
    }
}
