//! The names and severities of the quality checks: what a key names in `ignoreChecks` and the
//! API answers; the checks themselves are in [`super::checks`].

/// A check's name, as the API spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    Placeholders,
    PluralForms,
    Markup,
    MaxLength,
    Whitespace,
    EndPunctuation,
    SameAsBase,
    EmptyForm,
}

/// How bad a failure is: an error breaks the app or loses text; a warning is worth a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        [Severity::Error, Severity::Warning]
            .into_iter()
            .find(|severity| severity.name() == name)
    }
}

impl Check {
    pub const ALL: [Check; 8] = [
        Check::Placeholders,
        Check::PluralForms,
        Check::Markup,
        Check::MaxLength,
        Check::Whitespace,
        Check::EndPunctuation,
        Check::SameAsBase,
        Check::EmptyForm,
    ];

    pub const NAMES: &'static str =
        "placeholders, plural_forms, markup, max_length, whitespace, end_punctuation, same_as_base, empty_form";

    pub fn name(self) -> &'static str {
        match self {
            Check::Placeholders => "placeholders",
            Check::PluralForms => "plural_forms",
            Check::Markup => "markup",
            Check::MaxLength => "max_length",
            Check::Whitespace => "whitespace",
            Check::EndPunctuation => "end_punctuation",
            Check::SameAsBase => "same_as_base",
            Check::EmptyForm => "empty_form",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|check| check.name() == name)
    }

    /// The severity of a failure of this check (an extra plural category is a warning of
    /// `plural_forms`; see [`super::checks::Failure::severity`]).
    pub fn severity(self) -> Severity {
        match self {
            Check::Placeholders | Check::PluralForms | Check::Markup | Check::MaxLength | Check::EmptyForm => {
                Severity::Error
            }
            Check::Whitespace | Check::EndPunctuation | Check::SameAsBase => Severity::Warning,
        }
    }
}
