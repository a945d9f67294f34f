//! The wire shape of placeholder syntaxes (`placeholders`, `placeholderNames`,
//! `placeholderFormat`) and their checks at the edge.

use poem_openapi::Enum;

use crate::domain::placeholders::Syntax;

/// A placeholder syntax: how a text writes its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaceholderSyntax {
    /// Java's and Android's `%s`, `%1$d`, `%.2f`, `%%`.
    #[oai(rename = "printf")]
    Printf,
    /// Foundation's `%@`, `%1$@`, `%lld`, `%.2f`.
    #[oai(rename = "apple")]
    Apple,
    /// ICU MessageFormat (ARB, FormatJS): `{name}`, `{0}`, `{n, number}`, apostrophe quoting.
    #[oai(rename = "icu")]
    Icu,
    /// i18next's `{{name}}`.
    #[oai(rename = "i18next")]
    I18next,
    /// Ruby's `I18n.interpolate`: `%{name}`, `%<name>.2f`.
    #[oai(rename = "rails")]
    Rails,
    /// Python's `%` operator: `%s`, `%(name)s`.
    #[oai(rename = "python")]
    Python,
    /// Python's `str.format`: `{}`, `{0}`, `{name}`.
    #[oai(rename = "python-brace")]
    PythonBrace,
    /// Symfony's `%name%`.
    #[oai(rename = "symfony")]
    Symfony,
    /// No placeholders: every character is literal.
    #[oai(rename = "none")]
    None,
}

impl From<PlaceholderSyntax> for Syntax {
    fn from(syntax: PlaceholderSyntax) -> Self {
        match syntax {
            PlaceholderSyntax::Printf => Syntax::Printf,
            PlaceholderSyntax::Apple => Syntax::Apple,
            PlaceholderSyntax::Icu => Syntax::Icu,
            PlaceholderSyntax::I18next => Syntax::I18next,
            PlaceholderSyntax::Rails => Syntax::Rails,
            PlaceholderSyntax::Python => Syntax::Python,
            PlaceholderSyntax::PythonBrace => Syntax::PythonBrace,
            PlaceholderSyntax::Symfony => Syntax::Symfony,
            PlaceholderSyntax::None => Syntax::None,
        }
    }
}

impl From<Syntax> for PlaceholderSyntax {
    fn from(syntax: Syntax) -> Self {
        match syntax {
            Syntax::Printf => Self::Printf,
            Syntax::Apple => Self::Apple,
            Syntax::Icu => Self::Icu,
            Syntax::I18next => Self::I18next,
            Syntax::Rails => Self::Rails,
            Syntax::Python => Self::Python,
            Syntax::PythonBrace => Self::PythonBrace,
            Syntax::Symfony => Self::Symfony,
            Syntax::None => Self::None,
        }
    }
}

/// The most names a key's `placeholderNames` may hold.
pub const MOST_NAMES: usize = 100;

/// Checks a key's `placeholderNames`: each a name of letters, digits and `_` (as every named
/// syntax can write it) not starting with a digit, no name twice.
pub fn checked_names(names: Vec<String>) -> Result<Vec<String>, String> {
    if names.len() > MOST_NAMES {
        return Err(format!(
            "placeholderNames holds {} names; at most {MOST_NAMES} are allowed.",
            names.len()
        ));
    }
    for (position, name) in names.iter().enumerate() {
        if crate::domain::placeholders::ArgumentName::parse(name).is_err() {
            return Err(format!(
                "placeholderNames[{position}] {name:?} is not a name: use 1 to 64 ASCII letters, digits and `_`, not starting with a digit."
            ));
        }
        if names[..position].contains(name) {
            return Err(format!("placeholderNames[{position}] {name:?} appears twice."));
        }
    }
    Ok(names)
}
