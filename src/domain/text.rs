//! One translation's text: a string, or the CLDR plural forms of a plural key.

/// One translation: a text, or the plural forms of a plural key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    Plain(String),
    Plural(PluralForms),
}

impl Text {
    /// The translation borrowed, as [`super::translations::Translations`] hands out its own.
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
    pub(super) fn bit(self) -> u32 {
        self as u32
    }
}

/// The forms of one plural translation, in CLDR order.
///
/// Invariant: `other` is present and not empty, and no form is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluralForms(pub(super) Vec<(PluralCategory, String)>);

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
        FormsRef::borrowed(&self.0)
    }
}

/// A translation as stored in [`super::translations::Translations`], or borrowed from a
/// [`Text`].
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

    /// The translation as a key of the other kind sees it: a plain text as its `other` form,
    /// plural forms as their `other` form's text.
    pub fn in_other_kind(self) -> Self {
        match self {
            TextRef::Plain(text) => TextRef::Plural(FormsRef::other(text)),
            TextRef::Plural(forms) => TextRef::Plain(forms.other_form()),
        }
    }

    pub fn is_plural(self) -> bool {
        matches!(self, TextRef::Plural(_))
    }

    /// The [base hash](base_hash) of this text.
    pub fn base_hash(self) -> u32 {
        base_hash(self)
    }
}

/// A key's base text, asked by a writer for each language whether the translation is
/// outdated: its [base hash](base_hash) is worked out once, when first needed.
pub struct BaseText<'a> {
    text: Option<TextRef<'a>>,
    hash: std::cell::OnceCell<u32>,
}

impl<'a> BaseText<'a> {
    pub fn new(text: Option<TextRef<'a>>) -> Self {
        Self {
            text,
            hash: std::cell::OnceCell::new(),
        }
    }

    pub fn text(&self) -> Option<TextRef<'a>> {
        self.text
    }

    /// Whether a translation written against the base hash `recorded` (0: none recorded) is
    /// outdated: the base text has changed since.
    pub fn outdates(&self, recorded: u32) -> bool {
        recorded != 0
            && self
                .text
                .is_some_and(|text| *self.hash.get_or_init(|| text.base_hash()) != recorded)
    }
}

/// A short hash of a base text (a plain text, or each form with its category), recorded
/// beside each translation as the base text it was written against: a translation whose
/// recorded hash differs from its base text's is outdated. The first four bytes of the
/// SHA-256 of the text, never 0 (which stands for "none recorded").
pub fn base_hash(text: TextRef<'_>) -> u32 {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    match text {
        TextRef::Plain(text) => hasher.update(text.as_bytes()),
        TextRef::Plural(forms) => {
            for (category, form) in forms.iter() {
                hasher.update(category.name().as_bytes());
                hasher.update([0]);
                hasher.update(form.as_bytes());
                hasher.update([0]);
            }
        }
    }
    let digest = hasher.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]).max(1)
}

impl PartialEq<Text> for TextRef<'_> {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_ref()
    }
}

/// Plural forms as stored in [`super::translations::Translations`], or borrowed from [`PluralForms`].
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
    /// A plain text seen as the `other` form of a plural key.
    Other(&'a str),
}

impl<'a> FormsRef<'a> {
    /// A view of forms held as a list (a [`PluralForms`]).
    /// A view of forms packed in one buffer (as [`super::translations::Translations`] keeps
    /// them): the categories as bits, the start of the first form in `texts`, each form's end.
    pub(super) fn packed(categories: u8, start: u32, ends: &'a [u32], texts: &'a str) -> Self {
        FormsRef(FormsRepr::Packed {
            categories,
            start,
            ends,
            texts,
        })
    }

    pub(super) fn borrowed(forms: &'a [(PluralCategory, String)]) -> Self {
        FormsRef(FormsRepr::Owned(forms))
    }

    /// A plain text seen as forms: its `other` form only.
    pub(super) fn other(text: &'a str) -> Self {
        FormsRef(FormsRepr::Other(text))
    }

    /// The forms present, in CLDR order.
    pub fn iter(self) -> impl Iterator<Item = (PluralCategory, &'a str)> {
        let (packed, owned, other) = match self.0 {
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
                (Some(present.zip(strings)), None, None)
            }
            FormsRepr::Owned(forms) => (
                None,
                Some(forms.iter().map(|(category, text)| (*category, text.as_str()))),
                None,
            ),
            FormsRepr::Other(text) => (None, None, Some((PluralCategory::Other, text))),
        };
        packed
            .into_iter()
            .flatten()
            .chain(owned.into_iter().flatten())
            .chain(other)
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
