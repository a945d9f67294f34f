//! The TOML file format of teams, projects and keys, written for review as git diffs.
//!
//! Fields come in a fixed order, translations in code point order of the language code, one
//! per line, and texts with line breaks as TOML multi-line strings. Nothing volatile (no
//! timestamps, no counters) is written, so a file changes only when its data does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::model::{Key, Project, Team, normalize_languages};
use crate::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};

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
}

#[derive(Serialize, Deserialize)]
struct KeyFile {
    name: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    translations: BTreeMap<String, String>,
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
    })
}

pub fn write_key(key: &Key) -> Vec<u8> {
    to_toml(&KeyFile {
        name: key.name.to_string(),
        tags: key.tags.clone(),
        translations: key
            .translations
            .iter()
            .map(|(language, text)| (language.to_string(), text.clone()))
            .collect(),
    })
}

pub fn read_key(bytes: &[u8]) -> Result<Key, FileError> {
    let file: KeyFile = from_toml(bytes)?;
    let name = KeyName::parse(&file.name).map_err(|err| FileError::Invalid(err.0))?;
    let translations = file
        .translations
        .into_iter()
        .map(|(code, text)| Ok((parse_language(&code)?, text)))
        .collect::<Result<_, FileError>>()?;
    Ok(Key {
        name,
        tags: crate::domain::model::dedup_tags(file.tags),
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
mod tests {
    use super::*;

    fn key(name: &str, tags: &[&str], translations: &[(&str, &str)]) -> Key {
        Key {
            name: KeyName::parse(name).unwrap(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            translations: translations
                .iter()
                .map(|(l, t)| (LanguageCode::parse(l).unwrap(), t.to_string()))
                .collect(),
        }
    }

    #[test]
    fn key_file_has_one_translation_per_line_in_code_order() {
        let text = String::from_utf8(write_key(&key(
            "home.title",
            &["ui"],
            &[("fr", "Bonjour"), ("en", "Hello")],
        )))
        .unwrap();
        assert_eq!(
            text,
            "name = \"home.title\"\ntags = [\"ui\"]\n\n[translations]\nen = \"Hello\"\nfr = \"Bonjour\"\n"
        );
    }

    #[test]
    fn multi_line_texts_are_written_as_multi_line_strings() {
        let text = String::from_utf8(write_key(&key("k", &[], &[("en", "line one\nline two")]))).unwrap();
        assert!(text.contains("en = \"\"\"\nline one\nline two\"\"\""), "{text}");
    }

    #[test]
    fn hard_texts_round_trip() {
        let hard = [
            "it's \"quoted\" \\ back",
            "'''\"\"\"",
            "tab\there\r\nwindows",
            "trailing space ",
            "🎉 emoji and עברית",
            "\u{0}nul",
            "ends with quote\"",
            "ends with newline\n",
        ];
        for text in hard {
            let original = key("k", &["a", "b"], &[("en", text), ("pt_BR", text)]);
            let read = read_key(&write_key(&original)).unwrap();
            assert_eq!(read, original, "{text:?}");
        }
    }

    #[test]
    fn project_file_round_trips_and_keeps_language_order() {
        let project = Project {
            name: ProjectName::parse("mobile").unwrap(),
            display_name: "Mobile".into(),
            description: "The \"app\"".into(),
            base_language: LanguageCode::parse("en").unwrap(),
            languages: ["fr", "en", "pt-BR"]
                .iter()
                .map(|l| LanguageCode::parse(l).unwrap())
                .collect(),
        };
        let read = read_project(project.name.clone(), &write_project(&project)).unwrap();
        assert_eq!(read, project);
    }

    #[test]
    fn a_key_file_with_a_bad_name_is_refused() {
        assert!(read_key(b"name = \"\"\n").is_err());
        assert!(read_key(b"name = 3\n").is_err());
        assert!(read_key(b"name = \"ok\"\n[translations]\n\"not a code\" = \"x\"\n").is_err());
    }
}
