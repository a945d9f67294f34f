//! The TOML file format of teams, projects and keys, written for review as git diffs.
//!
//! Fields come in a fixed order, translations in code point order of the language code, one
//! per line, and texts with line breaks as TOML multi-line strings. Nothing volatile (no
//! timestamps, no counters) is written, so a file changes only when its data does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::key_files::{FileName, KeyFiles, Platform};
use crate::domain::model::{
    Check, Key, PluralCategory, PluralForms, Project, Syntax, Team, Text, TextRef, XcodeEntry, normalize_languages,
};
use crate::domain::names::{Description, KeyName, LanguageCode, Namespace, ProjectName, TeamName};

/// Why a file in the repository could not be read as a team, project or key.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("not valid TOML for this file: {0}")]
    Syntax(#[from] toml::de::Error),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Serialize, Deserialize)]
struct TeamFile {
    display_name: String,
}

#[derive(Serialize, Deserialize)]
struct ProjectFile {
    display_name: String,
    #[serde(default)]
    description: String,
    base_language: String,
    #[serde(default)]
    languages: Vec<String>,
    /// The placeholder syntax new keys take; left out when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    placeholder_format: Option<String>,
}

/// A key file as it is read (written from [`KeyFileRef`]). Fields left out take their
/// default, so a plain key without a description reads as it did before descriptions and
/// plurals existed.
#[derive(Deserialize)]
struct KeyFile {
    name: String,
    /// The key's namespace; left out for the default one.
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    plural: bool,
    #[serde(default)]
    markup: bool,
    #[serde(default = "default_true")]
    translatable: bool,
    #[serde(default)]
    max_length: Option<u32>,
    #[serde(default)]
    ignore_checks: Vec<String>,
    /// The placeholder syntax (`printf`, `apple`, `icu`, ...); left out: none recorded.
    #[serde(default)]
    placeholders: Option<String>,
    #[serde(default)]
    placeholder_names: Vec<String>,
    #[serde(default)]
    files: FilesFile,
    #[serde(default)]
    xcode: XcodeFile,
    #[serde(default)]
    translations: BTreeMap<String, TextFile>,
    /// Per translation, the [base hash](crate::domain::text::base_hash) of the base text it
    /// was written against (8 hex digits).
    #[serde(default)]
    based_on: BTreeMap<String, String>,
}

/// A key's app files (`[files]`, one line per platform family that has one).
#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FilesFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    android: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    apple: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    web: Option<String>,
}

impl FilesFile {
    fn is_empty(&self) -> bool {
        self.android.is_none() && self.apple.is_none() && self.web.is_none()
    }

    fn into_files(self) -> Result<KeyFiles, FileError> {
        let mut files = KeyFiles::default();
        for (platform, file) in [
            (Platform::Android, self.android),
            (Platform::Apple, self.apple),
            (Platform::Web, self.web),
        ] {
            if let Some(file) = file {
                let file = FileName::parse(platform, &file).map_err(|err| FileError::Invalid(err.0))?;
                files.set(platform, Some(file));
            }
        }
        Ok(files)
    }
}

/// What an Xcode String Catalog recorded of the key (`[xcode]`, only when there is some).
#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct XcodeFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extraction_state: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    source_from_key: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    whole: bool,
    /// Per language, Xcode's node as compact JSON (see [`XcodeEntry::nodes`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    nodes: BTreeMap<String, String>,
}

impl XcodeFile {
    fn of(xcode: &XcodeEntry) -> Self {
        Self {
            extraction_state: xcode.extraction_state.clone(),
            source_from_key: xcode.source_from_key,
            whole: xcode.whole,
            nodes: xcode.nodes.iter().cloned().collect(),
        }
    }

    fn is_empty(&self) -> bool {
        self.extraction_state.is_none() && !self.source_from_key && !self.whole && self.nodes.is_empty()
    }

    fn into_entry(self) -> Result<XcodeEntry, FileError> {
        if let Some(state) = &self.extraction_state
            && !XcodeEntry::is_state(state)
        {
            return Err(FileError::Invalid(format!(
                "xcode.extraction_state {state:?} is not a word of letters, digits and _"
            )));
        }
        Ok(XcodeEntry {
            extraction_state: self.extraction_state,
            source_from_key: self.source_from_key,
            whole: self.whole,
            nodes: self.nodes.into_iter().collect(),
        })
    }
}

fn default_true() -> bool {
    true
}

/// A translation: a string for a plain key, a table of forms (`[translations.fr]`, one form
/// per line) for a plural key.
enum TextFile {
    Plain(String),
    Plural(FormsFile),
}

/// By the value's type: serde's own `untagged` would first copy every value into a buffer and
/// try each variant on it, which was a fifth of reading 100,000 key files.
impl<'de> Deserialize<'de> for TextFile {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = TextFile;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a string, or a table of plural forms")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<TextFile, E> {
                Ok(TextFile::Plain(text.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<TextFile, E> {
                Ok(TextFile::Plain(text))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, forms: A) -> Result<TextFile, A::Error> {
                FormsFile::deserialize(serde::de::value::MapAccessDeserializer::new(forms)).map(TextFile::Plural)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Plural forms in CLDR order.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FormsFile {
    #[serde(default)]
    zero: Option<String>,
    #[serde(default)]
    one: Option<String>,
    #[serde(default)]
    two: Option<String>,
    #[serde(default)]
    few: Option<String>,
    #[serde(default)]
    many: Option<String>,
    other: String,
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_true(value: &bool) -> bool {
    *value
}

impl FormsFile {
    fn into_forms(self) -> Result<PluralForms, String> {
        let forms = [
            (PluralCategory::Zero, self.zero),
            (PluralCategory::One, self.one),
            (PluralCategory::Two, self.two),
            (PluralCategory::Few, self.few),
            (PluralCategory::Many, self.many),
            (PluralCategory::Other, Some(self.other)),
        ];
        PluralForms::new(forms.into_iter().filter_map(|(category, text)| Some((category, text?))))
    }
}

pub fn write_team(team: &Team) -> Vec<u8> {
    to_toml(&TeamFile {
        display_name: team.display_name.clone(),
    })
}

/// Reads a team file; the name comes from its folder.
pub fn read_team(name: TeamName, bytes: &[u8]) -> Result<Team, FileError> {
    let file: TeamFile = from_toml(bytes)?;
    Ok(Team {
        name,
        display_name: file.display_name,
    })
}

pub fn write_project(project: &Project) -> Vec<u8> {
    to_toml(&ProjectFile {
        display_name: project.display_name.clone(),
        description: project.description.clone(),
        base_language: project.base_language.to_string(),
        languages: project.languages.iter().map(ToString::to_string).collect(),
        placeholder_format: project.placeholder_format.map(|syntax| syntax.name().to_owned()),
    })
}

/// Reads a project file; the name comes from its folder.
pub fn read_project(name: ProjectName, bytes: &[u8]) -> Result<Project, FileError> {
    let file: ProjectFile = from_toml(bytes)?;
    let base_language = parse_language(&file.base_language)?;
    let languages = file
        .languages
        .iter()
        .map(|code| parse_language(code))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Project {
        name,
        display_name: file.display_name,
        description: file.description,
        languages: normalize_languages(&base_language, languages),
        base_language,
        placeholder_format: match file.placeholder_format.as_deref() {
            Some(name) => Some(Syntax::parse(name).ok_or_else(|| {
                FileError::Invalid(format!(
                    "placeholder_format: no syntax {name:?}; the syntaxes are {}",
                    Syntax::NAMES
                ))
            })?),
            None => None,
        },
    })
}

pub fn write_key(key: &Key) -> Vec<u8> {
    let ignore_checks: Vec<&str> = key.ignore_checks.iter().map(|check| check.name()).collect();
    to_toml(&KeyFileRef {
        name: key.name.as_str(),
        namespace: key.name.namespace(),
        tags: &key.tags,
        description: &key.description,
        plural: key.plural,
        markup: key.markup,
        translatable: key.translatable,
        max_length: key.max_length,
        ignore_checks: &ignore_checks,
        placeholders: key.placeholders.map(|syntax| syntax.name()),
        placeholder_names: &key.placeholder_names,
        files: FilesFile {
            android: key.files.android.clone(),
            apple: key.files.apple.clone(),
            web: key.files.web.clone(),
        },
        xcode: XcodeFile::of(&key.xcode),
        translations: TranslationsRef(key),
        based_on: BasedOnRef(key),
    })
}

/// A key file as it is written: [`KeyFile`]'s fields in its order and with its defaults left
/// out, borrowed from the key rather than copied into a map of owned texts (an import writes
/// 2,000 of them per request).
#[derive(Serialize)]
struct KeyFileRef<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    namespace: &'a str,
    tags: &'a [String],
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    #[serde(skip_serializing_if = "is_false")]
    plural: bool,
    #[serde(skip_serializing_if = "is_false")]
    markup: bool,
    #[serde(skip_serializing_if = "is_true")]
    translatable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_length: Option<u32>,
    #[serde(skip_serializing_if = "<[&str]>::is_empty")]
    ignore_checks: &'a [&'a str],
    #[serde(skip_serializing_if = "Option::is_none")]
    placeholders: Option<&'static str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    placeholder_names: &'a [String],
    #[serde(skip_serializing_if = "FilesFile::is_empty")]
    files: FilesFile,
    #[serde(skip_serializing_if = "XcodeFile::is_empty")]
    xcode: XcodeFile,
    translations: TranslationsRef<'a>,
    #[serde(skip_serializing_if = "BasedOnRef::is_empty")]
    based_on: BasedOnRef<'a>,
}

/// The recorded bases by language code, in code order, as 8 hex digits: beside the texts, so
/// that a diff shows which base text a translation was written against.
struct BasedOnRef<'a>(&'a Key);

impl BasedOnRef<'_> {
    fn is_empty(&self) -> bool {
        self.0
            .translations
            .keys()
            .all(|language| self.0.translations.base_of(language).is_none())
    }
}

impl Serialize for BasedOnRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let translations = &self.0.translations;
        serializer.collect_map(translations.keys().filter_map(|language| {
            let base = translations.base_of(language)?;
            Some((language.as_str(), format!("{base:08x}")))
        }))
    }
}

/// The translations by language code, in code order (the order a key keeps them in).
struct TranslationsRef<'a>(&'a Key);

impl Serialize for TranslationsRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.0
                .translations
                .iter_written()
                .map(|(language, text, _)| (language.as_str(), TextFileRef(text))),
        )
    }
}

/// [`TextFile`] borrowed: a string, or a table of forms.
struct TextFileRef<'a>(TextRef<'a>);

impl Serialize for TextFileRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            TextRef::Plain(text) => serializer.serialize_str(text),
            TextRef::Plural(forms) => FormsFileRef {
                zero: forms.get(PluralCategory::Zero),
                one: forms.get(PluralCategory::One),
                two: forms.get(PluralCategory::Two),
                few: forms.get(PluralCategory::Few),
                many: forms.get(PluralCategory::Many),
                other: forms.other_form(),
            }
            .serialize(serializer),
        }
    }
}

/// [`FormsFile`] borrowed.
#[derive(Serialize)]
struct FormsFileRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    zero: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    one: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    two: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    few: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    many: Option<&'a str>,
    other: &'a str,
}

pub fn read_key(bytes: &[u8]) -> Result<Key, FileError> {
    let file: KeyFile = from_toml(bytes)?;
    let namespace = Namespace::parse(&file.namespace).map_err(|err| FileError::Invalid(err.0))?;
    let name = KeyName::parse_in(&namespace, &file.name).map_err(|err| FileError::Invalid(err.0))?;
    let description = Description::parse(&file.description)
        .map_err(|err| FileError::Invalid(err.0))?
        .into_string();
    let plural = file.plural;
    // A string in a plural key, or forms in a plain one, is a translation its app writes in
    // the other kind (a Rails file reads each language on its own): held as written.
    let texts = file
        .translations
        .into_iter()
        .map(|(code, text)| {
            let language = parse_language(&code)?;
            let text = match text {
                TextFile::Plain(text) => Text::Plain(text),
                TextFile::Plural(forms) => Text::Plural(
                    forms
                        .into_forms()
                        .map_err(|err| FileError::Invalid(format!("translation {code:?}: {err}")))?,
                ),
            };
            let other_kind = matches!(text, Text::Plural(_)) != plural;
            Ok((language, Some((text, other_kind))))
        })
        .collect::<Result<Vec<_>, FileError>>()?;
    let mut translations = crate::domain::model::Translations::default();
    translations.apply_written(texts);
    for (code, base) in file.based_on {
        let language = parse_language(&code)?;
        let parsed = (base.len() == 8)
            .then(|| u32::from_str_radix(&base, 16).ok())
            .flatten()
            .filter(|base| *base != 0)
            .ok_or_else(|| FileError::Invalid(format!("based_on {code:?}: {base:?} is not 8 hex digits")))?;
        translations.set_base(&language, Some(parsed));
    }
    Ok(Key {
        name,
        tags: crate::domain::model::dedup_tags(file.tags),
        description,
        plural,
        markup: file.markup,
        translatable: file.translatable,
        files: file.files.into_files()?,
        max_length: file.max_length,
        ignore_checks: {
            let mut checks = file
                .ignore_checks
                .iter()
                .map(|name| {
                    Check::parse(name).ok_or_else(|| {
                        FileError::Invalid(format!(
                            "ignore_checks: no check {name:?}; the checks are {}",
                            Check::NAMES
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            checks.sort();
            checks.dedup();
            checks
        },
        xcode: file.xcode.into_entry()?,
        placeholders: match file.placeholders.as_deref() {
            Some(name) => Some(Syntax::parse(name).ok_or_else(|| {
                FileError::Invalid(format!(
                    "placeholders: no syntax {name:?}; the syntaxes are {}",
                    Syntax::NAMES
                ))
            })?),
            None => None,
        },
        placeholder_names: file.placeholder_names,
        translations,
    })
}

fn parse_language(code: &str) -> Result<LanguageCode, FileError> {
    LanguageCode::parse(code).map_err(|err| FileError::Invalid(err.0))
}

fn to_toml<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising these plain structs of strings cannot fail; a failure would be a bug here.
    toml::to_string_pretty(value)
        .expect("file structs serialise to TOML")
        .into_bytes()
}

fn from_toml<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, FileError> {
    let text = std::str::from_utf8(bytes).map_err(|_| FileError::Invalid("the file is not UTF-8".into()))?;
    Ok(toml::from_str(text)?)
}

#[cfg(test)]
mod tests;
