//! The team, project and key model, free of wire and file formats.

use super::names::{KeyName, LanguageCode, ProjectName, TeamName};

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
}

/// A text key with its tags (order kept, no duplicates) and one text per language.
///
/// Invariant: every translation of a plural key is [`Text::Plural`], every translation of a
/// plain key [`Text::Plain`].
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
    pub translations: Translations,
}

impl Key {
    /// A plain key with no tags, description or texts.
    pub fn named(name: KeyName) -> Self {
        Self {
            name,
            tags: Vec::new(),
            description: String::new(),
            plural: false,
            markup: false,
            translations: Translations::default(),
        }
    }

    /// Switches the key to or from plural: a plain text becomes the `other` form, and a
    /// plural's `other` form becomes the plain text.
    pub fn set_plural(&mut self, plural: bool) {
        if self.plural == plural {
            return;
        }
        self.plural = plural;
        let texts = std::mem::take(&mut self.translations);
        self.translations = texts
            .into_iter()
            .map(|(language, text)| {
                let text = match text {
                    Text::Plain(text) if plural => Text::Plural(PluralForms::other(text)),
                    Text::Plural(forms) if !plural => Text::Plain(forms.into_other()),
                    same => same,
                };
                (language, text)
            })
            .collect();
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
            let texts = std::mem::take(&mut self.translations);
            self.translations = texts
                .into_iter()
                .map(|(language, text)| (language, text.map_strings(escape_markup)))
                .collect();
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

/// One translation: a text, or the plural forms of a plural key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    Plain(String),
    Plural(PluralForms),
}

impl Text {
    /// The translation borrowed, as [`Translations`] hands out its own.
    pub fn as_ref(&self) -> TextRef<'_> {
        match self {
            Text::Plain(text) => TextRef::Plain(text),
            Text::Plural(forms) => TextRef::Plural(forms.as_ref()),
        }
    }

    /// Every string of the translation: the text, or each form in CLDR order.
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.as_ref().strings()
    }

    /// The same translation with every string passed through `change`.
    pub fn map_strings(self, change: impl Fn(&str) -> String) -> Text {
        match self {
            Text::Plain(text) => Text::Plain(change(&text)),
            Text::Plural(forms) => Text::Plural(PluralForms(
                forms
                    .0
                    .into_iter()
                    .map(|(category, text)| (category, change(&text)))
                    .collect(),
            )),
        }
    }

    pub fn as_plain(&self) -> Option<&str> {
        match self {
            Text::Plain(text) => Some(text),
            Text::Plural(_) => None,
        }
    }

    pub fn as_plural(&self) -> Option<&PluralForms> {
        match self {
            Text::Plural(forms) => Some(forms),
            Text::Plain(_) => None,
        }
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text::Plain(text.to_owned())
    }
}

/// A CLDR plural category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PluralCategory {
    Zero,
    One,
    Two,
    Few,
    Many,
    Other,
}

impl PluralCategory {
    /// Every category, in CLDR order (the order of every file that lists forms).
    pub const ALL: [PluralCategory; 6] = [
        PluralCategory::Zero,
        PluralCategory::One,
        PluralCategory::Two,
        PluralCategory::Few,
        PluralCategory::Many,
        PluralCategory::Other,
    ];

    pub const NAMES: &'static str = "zero, one, two, few, many, other";

    pub fn name(self) -> &'static str {
        match self {
            PluralCategory::Zero => "zero",
            PluralCategory::One => "one",
            PluralCategory::Two => "two",
            PluralCategory::Few => "few",
            PluralCategory::Many => "many",
            PluralCategory::Other => "other",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|category| category.name() == name)
    }

    /// The category's position in [`Self::ALL`].
    fn bit(self) -> u32 {
        self as u32
    }
}

/// The forms of one plural translation, in CLDR order.
///
/// Invariant: `other` is present and not empty, and no form is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluralForms(Vec<(PluralCategory, String)>);

impl PluralForms {
    /// Checks a set of forms: `other` must be there and not empty; empty forms are dropped.
    pub fn new(forms: impl IntoIterator<Item = (PluralCategory, String)>) -> Result<Self, String> {
        let mut forms: Vec<(PluralCategory, String)> = forms.into_iter().filter(|(_, text)| !text.is_empty()).collect();
        forms.sort_by_key(|(category, _)| *category);
        forms.dedup_by_key(|(category, _)| *category);
        if forms
            .last()
            .is_none_or(|(category, _)| *category != PluralCategory::Other)
        {
            return Err("plural forms need a non-empty \"other\" form".into());
        }
        forms.shrink_to_fit();
        Ok(Self(forms))
    }

    /// Forms with only `other`.
    pub fn other(text: String) -> Self {
        Self(vec![(PluralCategory::Other, text)])
    }

    pub fn get(&self, category: PluralCategory) -> Option<&str> {
        self.0
            .iter()
            .find(|(form, _)| *form == category)
            .map(|(_, text)| text.as_str())
    }

    /// The `other` form.
    pub fn other_form(&self) -> &str {
        self.get(PluralCategory::Other).unwrap_or_default()
    }

    pub fn into_other(self) -> String {
        self.0
            .into_iter()
            .find(|(category, _)| *category == PluralCategory::Other)
            .map(|(_, text)| text)
            .unwrap_or_default()
    }

    /// The forms present, in CLDR order.
    pub fn iter(&self) -> impl Iterator<Item = (PluralCategory, &str)> {
        self.0.iter().map(|(category, text)| (*category, text.as_str()))
    }

    pub fn as_ref(&self) -> FormsRef<'_> {
        FormsRef(FormsRepr::Owned(&self.0))
    }
}

/// A key's texts, one per language, in language-code order, packed for a small memory.
///
/// A catalog of 100,000 keys in 50 languages holds 5 million texts. Stored as a vector of
/// (code, text) pairs, each text cost a 48-byte slot and two heap blocks besides its bytes,
/// over twice the text itself. Here a key's strings are one buffer, each language a 16-byte
/// slot pointing at its shared ([interned](LanguageCode::interned)) code and the end of its
/// text, and only plural forms need a further list of ends: three heap blocks a key.
#[derive(Clone, Default)]
pub struct Translations {
    slots: Box<[Slot]>,
    /// Every string, one after another: per language its text, or its forms in CLDR order.
    texts: Box<str>,
    /// For each plural form, the end of its string in `texts`.
    form_ends: Box<[u32]>,
}

#[derive(Clone, Copy)]
struct Slot {
    language: &'static LanguageCode,
    /// The end of the language's strings in `texts`; they start where the previous slot's end.
    end: u32,
    /// 0 for a plain text; for plural forms the set of categories present (bit `i` for
    /// [`PluralCategory::ALL`]`[i]`) in the low 6 bits and, above them, the position of the
    /// first form in `form_ends`.
    forms: u32,
}

const FORM_BITS: u32 = 6;

impl Translations {
    pub fn get(&self, language: &LanguageCode) -> Option<TextRef<'_>> {
        self.position(language).ok().map(|index| self.text(index))
    }

    /// The text of `language`, looked for first in slot `hint`, which is then set to where it
    /// was found. An export asks every key for the same language and most keys hold the same
    /// languages, so one comparison usually finds it (a search of 50 slots per key cost a
    /// quarter of an Android export).
    pub fn get_near(&self, language: &LanguageCode, hint: &mut usize) -> Option<TextRef<'_>> {
        let index = match self.slots.get(*hint) {
            Some(slot) if std::ptr::eq(slot.language, language) || slot.language == language => *hint,
            _ => self.position(language).ok()?,
        };
        *hint = index;
        Some(self.text(index))
    }

    /// Sets the text of `language`.
    pub fn insert(&mut self, language: LanguageCode, text: Text) {
        self.apply([(language, Some(text))]);
    }

    /// Removes the text of `language`; whether there was one.
    pub fn remove(&mut self, language: &LanguageCode) -> bool {
        let present = self.position(language).is_ok();
        if present {
            self.apply([(language.clone(), None)]);
        }
        present
    }

    /// Sets (`Some`) or removes (`None`) the texts of many languages with one repacking; of
    /// two changes to the same language the later wins.
    pub fn apply(&mut self, changes: impl IntoIterator<Item = (LanguageCode, Option<Text>)>) {
        let mut texts: Vec<(&LanguageCode, Option<TextRef<'_>>)> = Vec::new();
        let changes: Vec<(LanguageCode, Option<Text>)> = changes.into_iter().collect();
        let mut changed: Vec<&(LanguageCode, Option<Text>)> = changes.iter().collect();
        // Stable: the last of equal codes is the one kept below.
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut changed = changed.into_iter().peekable();
        let mut old = self.iter().peekable();
        loop {
            let order = match (old.peek(), changed.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some((a, _)), Some((b, _))) => (*a).cmp(b),
            };
            if order == std::cmp::Ordering::Less {
                let (language, text) = old.next().expect("peeked");
                texts.push((language, Some(text)));
                continue;
            }
            if order == std::cmp::Ordering::Equal {
                // The change replaces the old text.
                old.next();
            }
            let (language, text) = changed.next().expect("peeked");
            let text = text.as_ref().map(Text::as_ref);
            match texts.last_mut() {
                Some(last) if last.0 == language => last.1 = text,
                _ => texts.push((language, text)),
            }
        }
        drop(old);
        let packed = Self::pack(texts.into_iter().filter_map(|(language, text)| Some((language, text?))));
        *self = packed;
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&LanguageCode, TextRef<'_>) -> bool) {
        if self.iter().all(|(language, text)| keep(language, text)) {
            return;
        }
        let packed = Self::pack(self.iter().filter(|(language, text)| keep(language, *text)));
        *self = packed;
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&LanguageCode, TextRef<'_>)> + '_ {
        (0..self.slots.len()).map(|index| (self.slots[index].language, self.text(index)))
    }

    pub fn keys(&self) -> impl Iterator<Item = &LanguageCode> {
        self.slots.iter().map(|slot| slot.language)
    }

    pub fn values(&self) -> impl Iterator<Item = TextRef<'_>> {
        (0..self.slots.len()).map(|index| self.text(index))
    }

    /// The packed form, for a cache on disk: per language its code, the end of its strings
    /// and its forms word (see [`Slot`]); the strings; the ends of the plural forms.
    pub fn packed(
        &self,
    ) -> (
        impl Iterator<Item = (&'static LanguageCode, u32, u32)> + '_,
        &str,
        &[u32],
    ) {
        let slots = self.slots.iter().map(|slot| (slot.language, slot.end, slot.forms));
        (slots, &self.texts, &self.form_ends)
    }

    /// Translations from their [packed](Self::packed) form, checked: `None` unless the codes
    /// ascend, every end falls on a character boundary in order, and plural forms are as
    /// [`PluralForms`] requires (`other` present, none empty) and listed in order.
    pub fn from_packed(slots: Vec<(&'static LanguageCode, u32, u32)>, texts: &str, form_ends: &[u32]) -> Option<Self> {
        let boundary = |end: u32| texts.is_char_boundary(end as usize);
        let other = 1 << PluralCategory::Other.bit();
        let (mut start, mut forms_seen) = (0u32, 0usize);
        for (index, &(language, end, forms)) in slots.iter().enumerate() {
            if index > 0 && slots[index - 1].0 >= language || end < start || !boundary(end) {
                return None;
            }
            if forms != 0 {
                let categories = forms & ((1 << FORM_BITS) - 1);
                let first = (forms >> FORM_BITS) as usize;
                let count = categories.count_ones() as usize;
                if categories & other == 0 || first != forms_seen || first + count > form_ends.len() {
                    return None;
                }
                let mut form_start = start;
                for &form_end in &form_ends[first..first + count] {
                    if form_end <= form_start || !boundary(form_end) {
                        return None;
                    }
                    form_start = form_end;
                }
                if form_start != end {
                    return None;
                }
                forms_seen += count;
            }
            start = end;
        }
        if start as usize != texts.len() || forms_seen != form_ends.len() {
            return None;
        }
        let slots = slots
            .into_iter()
            .map(|(language, end, forms)| Slot { language, end, forms })
            .collect();
        Some(Self {
            slots,
            texts: texts.into(),
            form_ends: form_ends.into(),
        })
    }

    fn text(&self, index: usize) -> TextRef<'_> {
        let slot = self.slots[index];
        let start = index.checked_sub(1).map_or(0, |previous| self.slots[previous].end);
        if slot.forms == 0 {
            return TextRef::Plain(&self.texts[start as usize..slot.end as usize]);
        }
        let categories = (slot.forms & ((1 << FORM_BITS) - 1)) as u8;
        let first = (slot.forms >> FORM_BITS) as usize;
        let count = categories.count_ones() as usize;
        TextRef::Plural(FormsRef(FormsRepr::Packed {
            categories,
            start,
            ends: &self.form_ends[first..first + count],
            texts: &self.texts,
        }))
    }

    fn position(&self, language: &LanguageCode) -> Result<usize, usize> {
        self.slots.binary_search_by(|slot| slot.language.cmp(language))
    }

    /// Packs texts given in code order with no code twice.
    fn pack<'a>(texts: impl IntoIterator<Item = (&'a LanguageCode, TextRef<'a>)>) -> Self {
        let mut slots = Vec::new();
        let mut buffer = String::new();
        let mut form_ends = Vec::new();
        for (language, text) in texts {
            let forms = match text {
                TextRef::Plain(text) => {
                    buffer.push_str(text);
                    0
                }
                TextRef::Plural(forms) => {
                    let first = u32::try_from(form_ends.len()).expect("fewer than 2^26 plural forms in a key");
                    let mut categories = 0u32;
                    for (category, text) in forms.iter() {
                        categories |= 1 << category.bit();
                        buffer.push_str(text);
                        form_ends.push(text_end(&buffer));
                    }
                    categories | (first << FORM_BITS)
                }
            };
            slots.push(Slot {
                language: language.interned(),
                end: text_end(&buffer),
                forms,
            });
        }
        Self {
            slots: slots.into_boxed_slice(),
            texts: buffer.into_boxed_str(),
            form_ends: form_ends.into_boxed_slice(),
        }
    }
}

fn text_end(buffer: &str) -> u32 {
    u32::try_from(buffer.len()).expect("a key's texts fit in 4 GiB")
}

impl PartialEq for Translations {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Translations {}

impl std::fmt::Debug for Translations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(LanguageCode, Text)> for Translations {
    /// Later texts for the same language replace earlier ones, as in a map.
    fn from_iter<I: IntoIterator<Item = (LanguageCode, Text)>>(texts: I) -> Self {
        let mut translations = Self::default();
        translations.apply(texts.into_iter().map(|(language, text)| (language, Some(text))));
        translations
    }
}

impl IntoIterator for Translations {
    type Item = (LanguageCode, Text);
    type IntoIter = std::vec::IntoIter<(LanguageCode, Text)>;

    fn into_iter(self) -> Self::IntoIter {
        let owned: Vec<(LanguageCode, Text)> = self
            .iter()
            .map(|(language, text)| (language.clone(), text.to_owned()))
            .collect();
        owned.into_iter()
    }
}

impl<'a> IntoIterator for &'a Translations {
    type Item = (&'a LanguageCode, TextRef<'a>);
    type IntoIter = Box<dyn Iterator<Item = Self::Item> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// A translation as stored in [`Translations`], or borrowed from a [`Text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextRef<'a> {
    Plain(&'a str),
    Plural(FormsRef<'a>),
}

impl<'a> TextRef<'a> {
    /// Every string of the translation: the text, or each form in CLDR order.
    pub fn strings(self) -> impl Iterator<Item = &'a str> {
        let (plain, forms) = match self {
            TextRef::Plain(text) => (Some(text), None),
            TextRef::Plural(forms) => (None, Some(forms.iter().map(|(_, text)| text))),
        };
        plain.into_iter().chain(forms.into_iter().flatten())
    }

    pub fn as_plain(self) -> Option<&'a str> {
        match self {
            TextRef::Plain(text) => Some(text),
            TextRef::Plural(_) => None,
        }
    }

    pub fn as_plural(self) -> Option<FormsRef<'a>> {
        match self {
            TextRef::Plural(forms) => Some(forms),
            TextRef::Plain(_) => None,
        }
    }

    pub fn to_owned(self) -> Text {
        match self {
            TextRef::Plain(text) => Text::Plain(text.to_owned()),
            TextRef::Plural(forms) => Text::Plural(forms.to_owned()),
        }
    }
}

impl PartialEq<Text> for TextRef<'_> {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_ref()
    }
}

/// Plural forms as stored in [`Translations`], or borrowed from [`PluralForms`].
#[derive(Clone, Copy)]
pub struct FormsRef<'a>(FormsRepr<'a>);

#[derive(Clone, Copy)]
enum FormsRepr<'a> {
    Packed {
        categories: u8,
        start: u32,
        ends: &'a [u32],
        texts: &'a str,
    },
    Owned(&'a [(PluralCategory, String)]),
}

impl<'a> FormsRef<'a> {
    /// The forms present, in CLDR order.
    pub fn iter(self) -> impl Iterator<Item = (PluralCategory, &'a str)> {
        let (packed, owned) = match self.0 {
            FormsRepr::Packed {
                categories,
                start,
                ends,
                texts,
            } => {
                let present = PluralCategory::ALL
                    .into_iter()
                    .filter(move |category| categories & (1 << category.bit()) != 0);
                let starts = std::iter::once(start).chain(ends.iter().copied());
                let strings = starts
                    .zip(ends.iter().copied())
                    .map(move |(start, end)| &texts[start as usize..end as usize]);
                (Some(present.zip(strings)), None)
            }
            FormsRepr::Owned(forms) => (
                None,
                Some(forms.iter().map(|(category, text)| (*category, text.as_str()))),
            ),
        };
        packed.into_iter().flatten().chain(owned.into_iter().flatten())
    }

    pub fn get(self, category: PluralCategory) -> Option<&'a str> {
        self.iter().find(|(form, _)| *form == category).map(|(_, text)| text)
    }

    /// The `other` form.
    pub fn other_form(self) -> &'a str {
        self.get(PluralCategory::Other).unwrap_or_default()
    }

    pub fn to_owned(self) -> PluralForms {
        PluralForms(
            self.iter()
                .map(|(category, text)| (category, text.to_owned()))
                .collect(),
        )
    }
}

impl PartialEq for FormsRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for FormsRef<'_> {}

impl std::fmt::Debug for FormsRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(category, text)| (category.name(), text)))
            .finish()
    }
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

    fn forms(pairs: &[(PluralCategory, &str)]) -> PluralForms {
        PluralForms::new(pairs.iter().map(|(category, text)| (*category, text.to_string()))).unwrap()
    }

    #[test]
    fn translations_stay_in_code_order_and_behave_as_a_map() {
        let mut texts: Translations = [("fr", "un"), ("en", "one"), ("fr", "une")]
            .into_iter()
            .map(|(language, text)| (code(language), Text::from(text)))
            .collect();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts.get(&code("fr")).map(TextRef::to_owned), Some(Text::from("une")));
        texts.insert(code("de"), "eins".into());
        texts.insert(code("en"), "One".into());
        let order: Vec<&str> = texts.iter().map(|(language, _)| language.as_str()).collect();
        assert_eq!(order, ["de", "en", "fr"]);
        assert_eq!(texts.get(&code("en")).and_then(TextRef::as_plain), Some("One"));
        assert!(texts.remove(&code("de")));
        assert!(!texts.remove(&code("de")));
        texts.retain(|language, _| language.as_str() != "fr");
        assert_eq!(
            texts.values().map(TextRef::to_owned).collect::<Vec<_>>(),
            [Text::from("One")]
        );
        // Equal by content, whatever edits led there.
        let again: Translations = [(code("en"), Text::from("One"))].into_iter().collect();
        assert_eq!(texts, again);
    }

    #[test]
    fn packed_translations_give_back_every_text_and_form_as_stored() {
        let few = forms(&[
            (PluralCategory::One, "1 Datei"),
            (PluralCategory::Few, ""),
            (PluralCategory::Other, "# Dateien"),
        ]);
        let all = forms(&[
            (PluralCategory::Zero, "žádný"),
            (PluralCategory::One, "jeden"),
            (PluralCategory::Two, "dva"),
            (PluralCategory::Few, "několik"),
            (PluralCategory::Many, "mnoho"),
            (PluralCategory::Other, "jiné"),
        ]);
        let given = vec![
            (code("zh-Hans"), Text::Plain(String::new())),
            (code("de"), Text::Plural(few.clone())),
            (code("cs"), Text::Plural(all.clone())),
            (code("en"), Text::from("plain ✓")),
        ];
        let mut texts: Translations = given.clone().into_iter().collect();
        let mut expected = given;
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(texts.clone().into_iter().collect::<Vec<_>>(), expected);
        let de = texts.get(&code("de")).and_then(TextRef::as_plural).unwrap();
        assert_eq!(
            de.iter().collect::<Vec<_>>(),
            [(PluralCategory::One, "1 Datei"), (PluralCategory::Other, "# Dateien")]
        );
        assert_eq!(de.get(PluralCategory::Few), None);
        assert_eq!(de, few.as_ref());
        assert_eq!(texts.get(&code("cs")).unwrap(), Text::Plural(all.clone()));
        assert_eq!(texts.get(&code("zh-Hans")).and_then(TextRef::as_plain), Some(""));
        // Many changes at once: the last for a language wins, `None` removes.
        texts.apply([
            (code("cs"), None),
            (code("en"), Some(Text::from("first"))),
            (code("ar"), Some(Text::Plural(all.clone()))),
            (code("en"), Some(Text::from("second"))),
            (code("xx"), None),
        ]);
        let languages: Vec<&str> = texts.keys().map(LanguageCode::as_str).collect();
        assert_eq!(languages, ["ar", "de", "en", "zh-Hans"]);
        assert_eq!(texts.get(&code("en")).and_then(TextRef::as_plain), Some("second"));
        assert_eq!(texts.get(&code("ar")).unwrap(), Text::Plural(all));
        assert_eq!(texts.get(&code("de")).unwrap(), Text::Plural(few));
        // Codes are shared, not copied per translation.
        let (ar, _) = texts.iter().next().unwrap();
        assert!(std::ptr::eq(ar, code("ar").interned()));
    }

    #[test]
    fn packed_translations_come_back_from_their_parts_and_bad_parts_are_refused() {
        let texts: Translations = [
            (
                code("de"),
                Text::Plural(forms(&[
                    (PluralCategory::One, "eins"),
                    (PluralCategory::Other, "viele"),
                ])),
            ),
            (code("en"), Text::from("ünïcode")),
        ]
        .into_iter()
        .collect();
        let (slots, strings, form_ends) = texts.packed();
        let slots: Vec<_> = slots.collect();
        let again = Translations::from_packed(slots.clone(), strings, form_ends).unwrap();
        assert_eq!(again, texts);
        let refused = |slots: Vec<(&'static LanguageCode, u32, u32)>, strings: &str, ends: &[u32]| {
            Translations::from_packed(slots, strings, ends).is_none()
        };
        // Codes out of order, an end inside a character, a missing form end, text left over.
        assert!(refused(vec![slots[1], slots[0]], strings, form_ends));
        let mut inside = slots.clone();
        inside[1].1 -= 1;
        assert!(refused(inside, strings, form_ends));
        assert!(refused(slots.clone(), strings, &form_ends[..1]));
        assert!(refused(slots.clone(), &format!("{strings}!"), form_ends));
        // Plural forms without `other`.
        let mut no_other = slots.clone();
        no_other[0].2 &= !(1 << PluralCategory::Other.bit());
        assert!(refused(no_other, strings, form_ends));
        assert!(Translations::from_packed(Vec::new(), "", &[]).is_some_and(|empty| empty.is_empty()));
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
