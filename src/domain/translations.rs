//! A key's texts, packed: [`Translations`] holds one text (or set of plural forms) per
//! language in one buffer, and hands out views of them ([`TextRef`], [`FormsRef`]) rather
//! than copies.

use std::borrow::Borrow;

use super::names::LanguageCode;
pub use super::text::{FormsRef, TextRef};
use super::text::{PluralCategory, Text};

/// A key's texts, one per language, in language-code order, packed for a small memory.
///
/// A translation may be written in the other kind than its key's (a plain text in a Rails
/// file where the base language has plural forms, or the reverse): it is held as written and
/// marked, and seen in the key's kind by [`get`](Self::get) and [`iter`](Self::iter) (a plain
/// text as the `other` form, forms as their `other` form's text); the writers of formats that
/// read each language on its own ask for it [as written](Self::get_written).
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
    /// Per slot, the [base hash](super::text::base_hash) of the base text the translation was
    /// written against (0: none recorded); empty when no slot has one.
    bases: Box<[u32]>,
}

#[derive(Clone, Copy)]
struct Slot {
    language: &'static LanguageCode,
    /// The end of the language's strings in `texts`; they start where the previous slot's end.
    end: u32,
    /// 0 for a plain text; for plural forms the set of categories present (bit `i` for
    /// [`PluralCategory::ALL`]`[i]`) in the low 6 bits and, above them, the position of the
    /// first form in `form_ends`; and bit 31 ([`OTHER_KIND`]) for a translation written in
    /// the other kind than its key's.
    forms: u32,
}

const FORM_BITS: u32 = 6;
const CATEGORIES: u32 = (1 << FORM_BITS) - 1;
/// The slot's translation is written in the other kind than its key's.
const OTHER_KIND: u32 = 1 << 31;

impl Translations {
    pub fn get(&self, language: &LanguageCode) -> Option<TextRef<'_>> {
        self.position(language).ok().map(|index| self.text(index))
    }

    /// The text of `language`, looked for first in slot `hint`, which is then set to where it
    /// was found. An export asks every key for the same language and most keys hold the same
    /// languages, so one comparison usually finds it (a search of 50 slots per key cost a
    /// quarter of an Android export).
    pub fn get_near(&self, language: &LanguageCode, hint: &mut usize) -> Option<TextRef<'_>> {
        self.index_near(language, hint).map(|index| self.text(index))
    }

    /// The slot of `language`, looked for first at `hint`, which is then set to it.
    fn index_near(&self, language: &LanguageCode, hint: &mut usize) -> Option<usize> {
        let index = match self.slots.get(*hint) {
            Some(slot) if std::ptr::eq(slot.language, language) || slot.language == language => *hint,
            _ => self.position(language).ok()?,
        };
        *hint = index;
        Some(index)
    }

    /// [`get_near`](Self::get_near) with the [base hash](Self::base_of) recorded for the text
    /// (0: none), found in the same slot.
    pub fn get_near_with_base(&self, language: &LanguageCode, hint: &mut usize) -> Option<(TextRef<'_>, u32)> {
        let text = self.get_near(language, hint)?;
        Some((text, self.bases.get(*hint).copied().unwrap_or(0)))
    }

    /// The text of `language` as the app's file writes it, and whether that is the other
    /// kind than the key's (see [`Translations`]).
    pub fn get_written(&self, language: &LanguageCode) -> Option<(TextRef<'_>, bool)> {
        self.position(language).ok().map(|index| self.slot_text(index))
    }

    /// [`get_near_with_base`](Self::get_near_with_base) with the text as written.
    pub fn get_near_written(&self, language: &LanguageCode, hint: &mut usize) -> Option<(TextRef<'_>, u32)> {
        let index = self.index_near(language, hint)?;
        Some((self.slot_text(index).0, self.bases.get(index).copied().unwrap_or(0)))
    }

    /// Every text as written, with whether it is of the other kind than the key's.
    pub fn iter_written(&self) -> impl Iterator<Item = (&LanguageCode, TextRef<'_>, bool)> + '_ {
        (0..self.slots.len()).map(|index| {
            let (text, other_kind) = self.slot_text(index);
            (self.slots[index].language, text, other_kind)
        })
    }

    /// Every text as the API shows it, nothing hidden: forms as held (a plain key's
    /// translation written as forms too), and a plain text of a plural key as its `other`
    /// form.
    pub fn iter_in_full(&self) -> impl Iterator<Item = (&LanguageCode, TextRef<'_>)> + '_ {
        self.iter_written().map(|(language, text, other_kind)| match text {
            TextRef::Plain(_) if other_kind => (language, text.in_other_kind()),
            _ => (language, text),
        })
    }

    /// The hash of the base text the translation of `language` was written against, if one
    /// is recorded.
    pub fn base_of(&self, language: &LanguageCode) -> Option<u32> {
        let index = self.position(language).ok()?;
        self.bases.get(index).copied().filter(|base| *base != 0)
    }

    /// Records (`Some`) or forgets (`None`) the base text the translation of `language` was
    /// written against; nothing when there is no such translation.
    pub fn set_base(&mut self, language: &LanguageCode, base: Option<u32>) {
        let Ok(index) = self.position(language) else {
            return;
        };
        let base = base.unwrap_or(0);
        if self.bases.is_empty() {
            if base == 0 {
                return;
            }
            self.bases = vec![0; self.slots.len()].into_boxed_slice();
        }
        self.bases[index] = base;
        if self.bases.iter().all(|base| *base == 0) {
            self.bases = Box::default();
        }
    }

    /// Sets the text of `language`, of the key's kind.
    pub fn insert(&mut self, language: LanguageCode, text: Text) {
        self.apply([(language, Some(text))]);
    }

    /// Makes every text of the kind `plural`: a text of the other kind becomes its `other`
    /// form or its `other` form's text, and nothing stays marked as written in the other kind
    /// (a marked text is of the key's new kind).
    pub fn set_kind(&mut self, plural: bool) {
        self.repack(|text, _| {
            let text = if text.is_plural() == plural {
                text
            } else {
                text.in_other_kind()
            };
            (text.to_owned(), false)
        });
    }

    /// Replaces every text as written by `change` of it, keeping bases and marks.
    pub fn map_written(&mut self, change: impl Fn(TextRef<'_>) -> Text) {
        self.repack(|text, other_kind| (change(text), other_kind));
    }

    /// Every text as written, and its mark, replaced by `change` of them; bases kept.
    fn repack(&mut self, change: impl Fn(TextRef<'_>, bool) -> (Text, bool)) {
        let texts: Vec<(&LanguageCode, (Text, bool), u32)> = self
            .iter_all()
            .map(|(language, text, base, other_kind)| (language, change(text, other_kind), base))
            .collect();
        *self = Self::pack(
            texts
                .iter()
                .map(|(language, (text, other_kind), base)| (*language, text.as_ref(), *base, *other_kind)),
        );
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
    /// two changes to the same language the later wins. A replaced text keeps its recorded
    /// base; a new one has none.
    pub fn apply<L: Borrow<LanguageCode>>(&mut self, changes: impl IntoIterator<Item = (L, Option<Text>)>) {
        self.apply_written(
            changes
                .into_iter()
                .map(|(language, text)| (language, text.map(|text| (text, false)))),
        );
    }

    /// [`apply`](Self::apply) with texts as written, each with whether it is of the other
    /// kind than the key's.
    pub fn apply_written<L: Borrow<LanguageCode>>(
        &mut self,
        changes: impl IntoIterator<Item = (L, Option<(Text, bool)>)>,
    ) {
        // Per language: its text as written and whether it is of the other kind; its base.
        type Entry<'a> = (&'a LanguageCode, Option<(TextRef<'a>, bool)>, u32);
        let mut texts: Vec<Entry<'_>> = Vec::new();
        let changes: Vec<(L, Option<(Text, bool)>)> = changes.into_iter().collect();
        let mut changed: Vec<(&LanguageCode, &Option<(Text, bool)>)> = changes
            .iter()
            .map(|(language, text)| (language.borrow(), text))
            .collect();
        // Stable: the last of equal codes is the one kept below.
        changed.sort_by(|a, b| a.0.cmp(b.0));
        let mut changed = changed.into_iter().peekable();
        let mut old = self.iter_all().peekable();
        loop {
            let order = match (old.peek(), changed.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some((a, _, _, _)), Some((b, _))) => (*a).cmp(b),
            };
            if order == std::cmp::Ordering::Less {
                let (language, text, base, other_kind) = old.next().expect("peeked");
                texts.push((language, Some((text, other_kind)), base));
                continue;
            }
            let mut base = 0;
            if order == std::cmp::Ordering::Equal {
                // The change replaces the old text.
                base = old.next().expect("peeked").2;
            }
            let (language, text) = changed.next().expect("peeked");
            let text = text.as_ref().map(|(text, other_kind)| (text.as_ref(), *other_kind));
            match texts.last_mut() {
                Some(last) if last.0 == language => last.1 = text,
                _ => texts.push((language, text, base)),
            }
        }
        drop(old);
        let packed =
            Self::pack(texts.into_iter().filter_map(|(language, text, base)| {
                text.map(|(text, other_kind)| (language, text, base, other_kind))
            }));
        *self = packed;
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&LanguageCode, TextRef<'_>) -> bool) {
        if self.iter().all(|(language, text)| keep(language, text)) {
            return;
        }
        let kept: Vec<bool> = self.iter().map(|(language, text)| keep(language, text)).collect();
        let packed = Self::pack(
            self.iter_all()
                .zip(kept)
                .filter_map(|(slot, kept)| kept.then_some(slot)),
        );
        *self = packed;
    }

    /// Every slot: its language, its text as written, its recorded base (0: none) and
    /// whether the text is of the other kind than the key's.
    fn iter_all(&self) -> impl Iterator<Item = (&'static LanguageCode, TextRef<'_>, u32, bool)> + '_ {
        (0..self.slots.len()).map(|index| {
            let base = self.bases.get(index).copied().unwrap_or(0);
            let (text, other_kind) = self.slot_text(index);
            (self.slots[index].language, text, base, other_kind)
        })
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The same languages with other texts, each keeping its recorded base: `texts` gives a
    /// text as written for every language of `self`, in `self`'s order, with whether it is of
    /// the other kind than the key's (a conversion of every text).
    pub fn with_texts<'a>(&self, texts: impl IntoIterator<Item = (TextRef<'a>, bool)>) -> Self {
        let languages = (0..self.slots.len())
            .map(|index| (self.slots[index].language, self.bases.get(index).copied().unwrap_or(0)));
        Self::pack(
            languages
                .zip(texts)
                .map(|((language, base), (text, other_kind))| (language, text, base, other_kind)),
        )
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
    /// and its forms word (see [`Slot`]); the strings; the ends of the plural forms; the
    /// recorded bases (empty, or one per language).
    pub fn packed(
        &self,
    ) -> (
        impl Iterator<Item = (&'static LanguageCode, u32, u32)> + '_,
        &str,
        &[u32],
        &[u32],
    ) {
        let slots = self.slots.iter().map(|slot| (slot.language, slot.end, slot.forms));
        (slots, &self.texts, &self.form_ends, &self.bases)
    }

    /// Translations from their [packed](Self::packed) form, checked: `None` unless the codes
    /// ascend, every end falls on a character boundary in order, and plural forms are as
    /// [`super::text::PluralForms`] requires (`other` present, none empty) and listed in order.
    pub fn from_packed(
        slots: Vec<(&'static LanguageCode, u32, u32)>,
        texts: &str,
        form_ends: &[u32],
        bases: &[u32],
    ) -> Option<Self> {
        if !bases.is_empty() && (bases.len() != slots.len() || bases.iter().all(|base| *base == 0)) {
            return None;
        }
        let boundary = |end: u32| texts.is_char_boundary(end as usize);
        let other = 1 << PluralCategory::Other.bit();
        let (mut start, mut forms_seen) = (0u32, 0usize);
        for (index, &(language, end, forms)) in slots.iter().enumerate() {
            if index > 0 && slots[index - 1].0 >= language || end < start || !boundary(end) {
                return None;
            }
            let categories = forms & CATEGORIES;
            if categories == 0 && forms & !OTHER_KIND != 0 {
                return None;
            }
            if categories != 0 {
                let first = ((forms & !OTHER_KIND) >> FORM_BITS) as usize;
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
            bases: bases.into(),
        })
    }

    /// The text of slot `index` as the key's kind sees it.
    fn text(&self, index: usize) -> TextRef<'_> {
        match self.slot_text(index) {
            (text, true) => text.in_other_kind(),
            (text, false) => text,
        }
    }

    /// The text of slot `index` as written, and whether it is of the other kind than the key's.
    fn slot_text(&self, index: usize) -> (TextRef<'_>, bool) {
        let slot = self.slots[index];
        let other_kind = slot.forms & OTHER_KIND != 0;
        let start = index.checked_sub(1).map_or(0, |previous| self.slots[previous].end);
        let categories = (slot.forms & CATEGORIES) as u8;
        if categories == 0 {
            return (
                TextRef::Plain(&self.texts[start as usize..slot.end as usize]),
                other_kind,
            );
        }
        let first = ((slot.forms & !OTHER_KIND) >> FORM_BITS) as usize;
        let count = categories.count_ones() as usize;
        let forms = FormsRef::packed(categories, start, &self.form_ends[first..first + count], &self.texts);
        (TextRef::Plural(forms), other_kind)
    }

    fn position(&self, language: &LanguageCode) -> Result<usize, usize> {
        self.slots.binary_search_by(|slot| slot.language.cmp(language))
    }

    /// Packs texts given in code order with no code twice, each as written with its recorded
    /// base (0: none) and whether it is of the other kind than the key's.
    fn pack<'a>(texts: impl IntoIterator<Item = (&'a LanguageCode, TextRef<'a>, u32, bool)>) -> Self {
        let mut slots = Vec::new();
        let mut buffer = String::new();
        let mut form_ends = Vec::new();
        let mut bases = Vec::new();
        for (language, text, base, other_kind) in texts {
            bases.push(base);
            let forms = match text {
                TextRef::Plain(text) => {
                    buffer.push_str(text);
                    0
                }
                TextRef::Plural(forms) => {
                    let first = u32::try_from(form_ends.len())
                        .ok()
                        .filter(|first| *first < OTHER_KIND >> FORM_BITS)
                        .expect("fewer than 2^25 plural forms in a key");
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
                forms: if other_kind { forms | OTHER_KIND } else { forms },
            });
        }
        if bases.iter().all(|base| *base == 0) {
            bases.clear();
        }
        Self {
            slots: slots.into_boxed_slice(),
            texts: buffer.into_boxed_str(),
            form_ends: form_ends.into_boxed_slice(),
            bases: bases.into_boxed_slice(),
        }
    }
}

fn text_end(buffer: &str) -> u32 {
    u32::try_from(buffer.len()).expect("a key's texts fit in 4 GiB")
}

impl PartialEq for Translations {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter_all().eq(other.iter_all())
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

#[cfg(test)]
mod tests;
