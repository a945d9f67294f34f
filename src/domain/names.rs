//! Validated newtypes for team, project and key names and language codes.
//!
//! Every name that enters the service is parsed here once, at the edge; the rest of the code
//! trusts these types. The rules are the contract's "Names and languages" section.

use std::fmt;

/// Why a name or language code was refused, as a sentence for the API user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NameError(pub String);

/// Longest team or project name, in characters (all ASCII).
pub const MAX_SLUG_LEN: usize = 64;
/// Longest key name, in bytes of UTF-8.
pub const MAX_KEY_BYTES: usize = 1024;

macro_rules! slug_name {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Checks the contract's rules for team and project names.
            pub fn parse(raw: &str) -> Result<Self, NameError> {
                parse_slug(raw, $what).map(Self)
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The name folded for the case-insensitive uniqueness rule.
            pub fn folded(&self) -> String {
                self.0.to_ascii_lowercase()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

slug_name!(
    /// A team identifier: 1 to 64 ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit.
    TeamName,
    "team name"
);
slug_name!(
    /// A project identifier, with the same rules as a team name.
    ProjectName,
    "project name"
);

fn parse_slug(raw: &str, what: &str) -> Result<String, NameError> {
    let valid_chars = raw
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    let starts_well = raw.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric());
    if raw.is_empty() || raw.len() > MAX_SLUG_LEN || !valid_chars || !starts_well {
        return Err(NameError(format!(
            "Invalid {what} {}: use 1 to {MAX_SLUG_LEN} ASCII letters, digits, '-', '_' or '.', starting with a letter or digit.",
            quote_for_message(raw)
        )));
    }
    Ok(raw.to_owned())
}

/// A key identifier: 1 to 1024 bytes of UTF-8 without control characters and without leading
/// or trailing white space. Compared exactly (case-sensitive, no normalisation).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyName(String);

impl KeyName {
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let problem = if raw.is_empty() {
            Some("it is empty")
        } else if raw.len() > MAX_KEY_BYTES {
            Some("it is longer than 1024 bytes")
        } else if raw.chars().any(char::is_control) {
            Some("it contains a control character")
        } else if raw.starts_with(char::is_whitespace) || raw.ends_with(char::is_whitespace) {
            Some("it starts or ends with white space")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(NameError(format!(
                "Invalid key name {}: {problem}.",
                quote_for_message(raw)
            ))),
            None => Ok(Self(raw.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A code's byte in its folded form: lower case, `_` as `-`.
fn fold(byte: u8) -> u8 {
    match byte {
        b'_' => b'-',
        byte => byte.to_ascii_lowercase(),
    }
}

/// A language code such as `en`, `en-US`, `pt_BR` or `zh-Hans`, stored as given.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LanguageCode(String);

impl LanguageCode {
    /// Checks `^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$`.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let mut parts = raw.split(['-', '_']);
        let primary = parts.next().unwrap_or_default();
        let primary_ok = (2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_alphabetic());
        let subtags_ok =
            parts.all(|part| (2..=8).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_alphanumeric()));
        if primary_ok && subtags_ok {
            Ok(Self(raw.to_owned()))
        } else {
            Err(NameError(format!(
                "Invalid language code {}: use a code such as 'en', 'en-US', 'pt_BR' or 'zh-Hans'.",
                quote_for_message(raw)
            )))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The one shared copy of this code, made the first time it is asked for and kept for
    /// the life of the process: millions of translations point at a few dozen codes. Only
    /// codes stored in keys are interned, so their number follows the data.
    pub fn interned(&self) -> &'static LanguageCode {
        static CODES: std::sync::LazyLock<std::sync::Mutex<std::collections::HashSet<&'static LanguageCode>>> =
            std::sync::LazyLock::new(Default::default);
        let mut codes = CODES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(code) = codes.get(self) {
            return code;
        }
        let code: &'static LanguageCode = Box::leak(Box::new(self.clone()));
        codes.insert(code);
        code
    }

    /// The form two codes are compared in: they may not differ only by case or `-`/`_`.
    pub fn folded(&self) -> String {
        self.0.bytes().map(|byte| char::from(fold(byte))).collect()
    }

    /// Whether the two codes have the same [folded](Self::folded) form, without making it
    /// (an import of 2,000 keys × 50 languages compares codes millions of times).
    pub fn same_as(&self, other: &LanguageCode) -> bool {
        self.0.len() == other.0.len() && self.0.bytes().zip(other.0.bytes()).all(|(a, b)| fold(a) == fold(b))
    }

    /// The subtags, split on either separator: `pt_BR` gives `["pt", "BR"]`.
    pub fn subtags(&self) -> impl Iterator<Item = &str> {
        self.0.split(['-', '_'])
    }
}

impl fmt::Display for LanguageCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A human-readable name of a team or project: 1 to 256 characters, not blank, without
/// control characters other than line breaks and tabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayName(String);

impl DisplayName {
    pub const MAX_CHARS: usize = 256;

    pub fn parse(raw: &str) -> Result<Self, NameError> {
        if raw.trim().is_empty() {
            return Err(NameError("displayName must not be empty or blank.".into()));
        }
        if raw.chars().count() > Self::MAX_CHARS {
            return Err(NameError(format!(
                "displayName must be at most {} characters.",
                Self::MAX_CHARS
            )));
        }
        if raw.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            return Err(NameError("displayName must not contain control characters.".into()));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for DisplayName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A key's description for translators: at most 4,000 characters, no control characters but
/// line breaks and tabs; empty means none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description(String);

impl Description {
    pub const MAX_CHARS: usize = 4000;

    pub fn parse(raw: &str) -> Result<Self, NameError> {
        if raw.chars().count() > Self::MAX_CHARS {
            return Err(NameError(format!(
                "description must be at most {} characters.",
                Self::MAX_CHARS
            )));
        }
        if raw.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            return Err(NameError(
                "description must not contain control characters other than line breaks and tabs.".into(),
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Description {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tag: 1 to 128 characters without control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag(String);

impl Tag {
    pub const MAX_CHARS: usize = 128;

    pub fn parse(raw: &str) -> Result<Self, NameError> {
        if raw.is_empty() || raw.chars().count() > Self::MAX_CHARS || raw.chars().any(char::is_control) {
            return Err(NameError(format!(
                "Invalid tag {}: use 1 to {} characters without control characters.",
                quote_for_message(raw),
                Self::MAX_CHARS
            )));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Quotes a client-supplied value for an error message, shortened so that a 10,000-byte name
/// does not produce a 10,000-byte message.
pub fn quote_for_message(raw: &str) -> String {
    const SHOWN: usize = 80;
    if raw.chars().count() <= SHOWN {
        format!("{raw:?}")
    } else {
        let head: String = raw.chars().take(SHOWN).collect();
        format!("{head:?}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names_follow_the_slug_rules() {
        for good in ["acme", "A", "a.b-c_d", "9lives", &"x".repeat(64)] {
            assert!(TeamName::parse(good).is_ok(), "{good} should be valid");
        }
        for bad in ["", "-acme", ".hidden", "_x", "a/b", "a b", "é", "..", &"x".repeat(65)] {
            assert!(TeamName::parse(bad).is_err(), "{bad} should be invalid");
        }
    }

    #[test]
    fn key_names_allow_any_text_but_control_characters_and_outer_white_space() {
        for good in [
            "errors/network",
            "Hello, %@!",
            "..",
            "a b",
            "🎉",
            "\"q\"",
            &"é".repeat(512),
        ] {
            assert!(KeyName::parse(good).is_ok(), "{good} should be valid");
        }
        for bad in [
            "",
            " lead",
            "trail ",
            "tab\tinside",
            "nul\0",
            "\u{3000}ideographic",
            &"x".repeat(1025),
        ] {
            assert!(KeyName::parse(bad).is_err(), "{bad:?} should be invalid");
        }
    }

    #[test]
    fn codes_are_the_same_language_when_only_case_or_separator_differ() {
        let code = |raw: &str| LanguageCode::parse(raw).unwrap();
        for (a, b, same) in [
            ("pt-BR", "pt_br", true),
            ("zh-Hans", "ZH_HANS", true),
            ("en", "en", true),
            ("en", "en-US", false),
            ("pt-BR", "pt-PT", false),
            ("sr-Latn", "sr-Cyrl", false),
        ] {
            assert_eq!(code(a).same_as(&code(b)), same, "{a} {b}");
            assert_eq!(code(a).folded() == code(b).folded(), same, "{a} {b}");
        }
    }

    #[test]
    fn language_codes_follow_the_pattern() {
        for good in ["en", "eng", "en-US", "pt_BR", "zh-Hans", "sr-Latn-RS", "es-419"] {
            assert!(LanguageCode::parse(good).is_ok(), "{good} should be valid");
        }
        for bad in ["", "e", "engl", "en-", "en--US", "en-U", "1en", "en-ABCDEFGHI", "en US"] {
            assert!(LanguageCode::parse(bad).is_err(), "{bad} should be invalid");
        }
    }

    #[test]
    fn language_codes_fold_case_and_separator() {
        let a = LanguageCode::parse("pt_BR").unwrap();
        let b = LanguageCode::parse("PT-br").unwrap();
        assert_eq!(a.folded(), b.folded());
    }

    #[test]
    fn display_names_and_tags_refuse_blank_and_control_text() {
        assert!(DisplayName::parse("Acme\nInc.").is_ok());
        for bad in ["", "   ", "\u{1}x", &"x".repeat(257)] {
            assert!(DisplayName::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Tag::parse("ios 17").is_ok());
        for bad in ["", "a\nb", &"x".repeat(129)] {
            assert!(Tag::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn long_values_are_shortened_in_messages() {
        let message = quote_for_message(&"x".repeat(10_000));
        assert!(message.len() < 100);
    }
}
