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
pub const MAX_KEY_BYTES: usize = 16 * 1024;

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

/// A key's identity: its namespace and its name.
///
/// The name is 1 to 16,384 bytes of UTF-8, any text but NUL: real apps key their texts by the
/// source text, with spaces at the ends, line breaks and control characters. The namespace is
/// the key space the app's platform keeps apart (an i18next namespace, an Apple table, a
/// gettext domain, a module); `""` is the default one (see [`Namespace`]). Both are compared
/// exactly (case-sensitive, no normalisation).
///
/// Both are kept in one string, `namespace NUL name`: neither may hold a NUL, so the string
/// orders keys by namespace first (the default one before all others), then by name in code
/// point order, which is the order of every listing; and the maps and indexes keyed by it need
/// no second field (a key costs one byte more, not a second `String`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyName(String);

impl KeyName {
    /// A name in the default namespace.
    pub fn parse(raw: &str) -> Result<Self, NameError> {
        Self::parse_in(&Namespace::default(), raw)
    }

    /// A name in `namespace`.
    pub fn parse_in(namespace: &Namespace, raw: &str) -> Result<Self, NameError> {
        let problem = if raw.is_empty() {
            Some("it is empty")
        } else if raw.len() > MAX_KEY_BYTES {
            Some("it is longer than 16,384 bytes")
        } else if raw.contains('\0') {
            Some("it contains a NUL character")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(NameError(format!(
                "Invalid key name {}: {problem}.",
                quote_for_message(raw)
            ))),
            None => Ok(Self::joined(namespace.as_str(), raw)),
        }
    }

    /// Reads back what [`identity`](Self::identity) gave.
    pub fn from_identity(raw: &str) -> Result<Self, NameError> {
        let (namespace, name) = raw
            .split_once('\0')
            .ok_or_else(|| NameError(format!("Invalid key identity {}.", quote_for_message(raw))))?;
        Self::parse_in(&Namespace::parse(namespace)?, name)
    }

    fn joined(namespace: &str, name: &str) -> Self {
        let mut joined = String::with_capacity(namespace.len() + 1 + name.len());
        joined.push_str(namespace);
        joined.push('\0');
        joined.push_str(name);
        Self(joined)
    }

    /// The name alone, as the app writes it.
    pub fn as_str(&self) -> &str {
        &self.0[self.separator() + 1..]
    }

    /// The namespace, `""` for the default one.
    pub fn namespace(&self) -> &str {
        &self.0[..self.separator()]
    }

    /// The namespace as its type.
    pub fn namespace_name(&self) -> Namespace {
        Namespace(self.namespace().to_owned())
    }

    /// The same name in another namespace.
    pub fn in_namespace(&self, namespace: &Namespace) -> Self {
        Self::joined(namespace.as_str(), self.as_str())
    }

    /// Namespace and name in one string (`namespace NUL name`), for records that keep a key's
    /// identity whole; [`from_identity`](Self::from_identity) reads it back.
    pub fn identity(&self) -> &str {
        &self.0
    }

    /// The name quoted for a message, with its namespace when it has one:
    /// `"title"`, or `"title" in namespace "settings"`.
    pub fn described(&self) -> String {
        match self.namespace() {
            "" => quote_for_message(self.as_str()),
            namespace => format!(
                "{} in namespace {}",
                quote_for_message(self.as_str()),
                quote_for_message(namespace)
            ),
        }
    }

    fn separator(&self) -> usize {
        // Every constructor puts one NUL between the two parts, and neither part holds one.
        memchr::memchr(0, self.0.as_bytes()).expect("a key identity holds its separator")
    }
}

impl fmt::Display for KeyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A key space of a project: `""` (the default) or a name such as `common`, `InfoPlist`,
/// `django`, `settings/profile` or `feature-login`, up to 255 bytes of UTF-8 without control
/// characters, white space at either end, `/` at either end, an empty, `.` or `..` part
/// between slashes, or a character file names cannot hold (`\ : * ? " < > |`): formats with
/// namespaces write each namespace to a file named by it (`fr/settings/profile.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Namespace(String);

impl Namespace {
    /// Longest namespace, in bytes of UTF-8.
    pub const MAX_BYTES: usize = 255;

    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let problem = if raw.len() > Self::MAX_BYTES {
            Some("it is longer than 255 bytes")
        } else if raw.chars().any(char::is_control) {
            Some("it contains a control character")
        } else if raw.starts_with(char::is_whitespace) || raw.ends_with(char::is_whitespace) {
            Some("it starts or ends with white space")
        } else if raw.starts_with('/') || raw.ends_with('/') || raw.contains("//") {
            Some("it starts or ends with '/' or has an empty part")
        } else if raw.split('/').any(|part| part == "." || part == "..") {
            Some("it has a '.' or '..' part")
        } else if raw.contains(['\\', ':', '*', '?', '"', '<', '>', '|']) {
            Some("it holds one of \\ : * ? \" < > |, which file names cannot")
        } else {
            None
        };
        match problem {
            Some(problem) => Err(NameError(format!(
                "Invalid namespace {}: {problem}.",
                quote_for_message(raw)
            ))),
            None => Ok(Self(raw.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_default(&self) -> bool {
        self.0.is_empty()
    }

    /// `prefix/self`, the namespace of a file set with a namespace of its own; either part
    /// may be the default one.
    pub fn under(&self, prefix: &Namespace) -> Result<Namespace, NameError> {
        match (prefix.is_default(), self.is_default()) {
            (true, _) => Ok(self.clone()),
            (false, true) => Ok(prefix.clone()),
            (false, false) => Namespace::parse(&format!("{}/{}", prefix.0, self.0)),
        }
    }
}

impl fmt::Display for Namespace {
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

/// A project branch's name: one or more parts joined by `/` (`feature/login`, `release-2.3`),
/// each part 1 to 64 ASCII letters, digits, `-`, `_` or `.` starting with a letter or digit and
/// not ending in `.` or `.lock`; at most 200 characters, no `..`. The rules keep every name a
/// valid part of a git ref. `main` names the main line, never a branch.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BranchName(String);

impl BranchName {
    /// Longest branch name, in characters (all ASCII).
    pub const MAX_CHARS: usize = 200;
    /// The name of the main line, which no branch may take.
    pub const MAIN: &'static str = "main";

    pub fn parse(raw: &str) -> Result<Self, NameError> {
        let part_ok =
            |part: &str| parse_slug(part, "branch name").is_ok() && !part.ends_with('.') && !part.ends_with(".lock");
        if raw.len() > Self::MAX_CHARS || raw.contains("..") || !raw.split('/').all(part_ok) {
            return Err(NameError(format!(
                "Invalid branch name {}: use parts of 1 to {MAX_SLUG_LEN} ASCII letters, digits, '-', '_' or '.' joined by '/' (feature/login), each starting with a letter or digit and not ending in '.' or '.lock', at most {} characters, no '..'.",
                quote_for_message(raw),
                Self::MAX_CHARS
            )));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the name is the main line's.
    pub fn is_main(&self) -> bool {
        self.0 == Self::MAIN
    }
}

impl fmt::Display for BranchName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
    fn key_names_are_any_text_but_nul() {
        for good in [
            "errors/network",
            "Hello, %@!",
            "..",
            "a b",
            " lead",
            "trail ",
            "tab\tinside",
            "Failed to connect…\r\n",
            "\u{3000}ideographic",
            "\u{4}",
            "🎉",
            "\"q\"",
            &"é".repeat(8192),
        ] {
            let name = KeyName::parse(good).unwrap_or_else(|err| panic!("{good:?} should be valid: {err}"));
            assert_eq!(name.as_str(), good);
            assert_eq!(name.namespace(), "");
        }
        for bad in ["", "nul\0", &"x".repeat(16 * 1024 + 1)] {
            assert!(KeyName::parse(bad).is_err(), "{bad:?} should be invalid");
        }
    }

    #[test]
    fn keys_order_by_namespace_then_name() {
        let namespace = |raw: &str| Namespace::parse(raw).unwrap();
        let key = |ns: &str, name: &str| KeyName::parse_in(&namespace(ns), name).unwrap();
        let mut keys = [
            key("common", "a"),
            key("", "zeta"),
            key("ab", "a"),
            key("a", "zz"),
            key("", "Alpha"),
            key("a", " "),
        ];
        keys.sort();
        let listed: Vec<(&str, &str)> = keys.iter().map(|key| (key.namespace(), key.as_str())).collect();
        assert_eq!(
            listed,
            [
                ("", "Alpha"),
                ("", "zeta"),
                ("a", " "),
                ("a", "zz"),
                ("ab", "a"),
                ("common", "a")
            ]
        );
        assert_ne!(key("common", "title"), key("", "title"));
        assert_eq!(
            key("common", "title").in_namespace(&Namespace::default()),
            key("", "title")
        );
        let again = KeyName::from_identity(key("settings/profile", "t\nx").identity()).unwrap();
        assert_eq!((again.namespace(), again.as_str()), ("settings/profile", "t\nx"));
        assert_eq!(key("common", "title").described(), "\"title\" in namespace \"common\"");
    }

    #[test]
    fn namespaces_are_names_without_control_characters_or_outer_slashes() {
        for good in ["", "common", "InfoPlist", "settings/profile", "feature-login", "a b"] {
            assert!(Namespace::parse(good).is_ok(), "{good:?} should be valid");
        }
        for bad in [
            " x",
            "x ",
            "/x",
            "x/",
            "a//b",
            "a\nb",
            "a\0b",
            "..",
            "a/../b",
            "./a",
            "a:b",
            "a\\b",
            &"n".repeat(256),
        ] {
            assert!(Namespace::parse(bad).is_err(), "{bad:?} should be invalid");
        }
        let module = Namespace::parse("core").unwrap();
        assert_eq!(
            Namespace::parse("common").unwrap().under(&module).unwrap().as_str(),
            "core/common"
        );
        assert_eq!(Namespace::default().under(&module).unwrap().as_str(), "core");
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

    #[test]
    fn branch_names_are_valid_git_ref_parts() {
        for good in ["feature", "feature/login", "release-2.3", "a/b/c", "v1.0_rc"] {
            assert!(BranchName::parse(good).is_ok(), "{good:?}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "a//b",
            "a..b",
            "a.",
            "x.lock",
            ".a",
            "a b",
            "-a",
            &"x".repeat(201),
        ] {
            assert!(BranchName::parse(bad).is_err(), "{bad:?}");
        }
        assert!(BranchName::parse("main").unwrap().is_main());
    }
}
