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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub name: KeyName,
    pub tags: Vec<String>,
    pub translations: Translations,
}

/// A key's texts, one per language, in language-code order.
///
/// A sorted vector rather than a `BTreeMap`: a key has a handful of languages, and 100,000
/// keys each with a B-tree node of room for eleven would cost about 30 MB more.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Translations(Vec<(LanguageCode, String)>);

impl Translations {
    pub fn get(&self, language: &LanguageCode) -> Option<&String> {
        self.position(language).ok().map(|index| &self.0[index].1)
    }

    /// Sets the text of `language`; returns the text it replaces.
    pub fn insert(&mut self, language: LanguageCode, text: String) -> Option<String> {
        match self.position(&language) {
            Ok(index) => Some(std::mem::replace(&mut self.0[index].1, text)),
            Err(index) => {
                self.0.insert(index, (language, text));
                None
            }
        }
    }

    pub fn remove(&mut self, language: &LanguageCode) -> Option<String> {
        let index = self.position(language).ok()?;
        Some(self.0.remove(index).1)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&LanguageCode, &String) -> bool) {
        self.0.retain(|(language, text)| keep(language, text));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&LanguageCode, &String)> {
        self.0.iter().map(|(language, text)| (language, text))
    }

    pub fn keys(&self) -> impl Iterator<Item = &LanguageCode> {
        self.0.iter().map(|(language, _)| language)
    }

    pub fn values(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(_, text)| text)
    }

    fn position(&self, language: &LanguageCode) -> Result<usize, usize> {
        self.0.binary_search_by(|(code, _)| code.cmp(language))
    }
}

impl FromIterator<(LanguageCode, String)> for Translations {
    /// Later texts for the same language replace earlier ones, as in a map.
    fn from_iter<I: IntoIterator<Item = (LanguageCode, String)>>(texts: I) -> Self {
        let mut pairs: Vec<(LanguageCode, String)> = texts.into_iter().collect();
        // A stable sort keeps equal codes in the order given; the last of each wins.
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut unique: Vec<(LanguageCode, String)> = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match unique.last_mut() {
                Some(last) if last.0 == pair.0 => *last = pair,
                _ => unique.push(pair),
            }
        }
        unique.shrink_to_fit();
        Self(unique)
    }
}

impl IntoIterator for Translations {
    type Item = (LanguageCode, String);
    type IntoIter = std::vec::IntoIter<(LanguageCode, String)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Translations {
    type Item = (&'a LanguageCode, &'a String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (LanguageCode, String)>,
        fn(&'a (LanguageCode, String)) -> (&'a LanguageCode, &'a String),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(language, text)| (language, text))
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

    #[test]
    fn translations_stay_in_code_order_and_behave_as_a_map() {
        let code = |raw: &str| LanguageCode::parse(raw).unwrap();
        let mut texts: Translations = [("fr", "un"), ("en", "one"), ("fr", "une")]
            .into_iter()
            .map(|(language, text)| (code(language), text.to_owned()))
            .collect();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts.get(&code("fr")).map(String::as_str), Some("une"));
        assert_eq!(texts.insert(code("de"), "eins".into()), None);
        assert_eq!(texts.insert(code("en"), "One".into()).as_deref(), Some("one"));
        let order: Vec<&str> = texts.iter().map(|(language, _)| language.as_str()).collect();
        assert_eq!(order, ["de", "en", "fr"]);
        assert_eq!(texts.remove(&code("de")).as_deref(), Some("eins"));
        assert_eq!(texts.remove(&code("de")), None);
        texts.retain(|language, _| language.as_str() != "fr");
        assert_eq!(texts.values().collect::<Vec<_>>(), ["One"]);
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
