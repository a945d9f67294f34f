//! The team, project and key model, free of wire and file formats.

use std::collections::BTreeMap;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub name: KeyName,
    pub tags: Vec<String>,
    pub translations: BTreeMap<LanguageCode, String>,
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
