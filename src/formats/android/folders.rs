//! The languages of Android's `values*` folders, and Android's own names for languages mapped to
//! the codes a project shares with other platforms.

use crate::formats::upload::BASE_LANGUAGE;

/// The language of an Android `values*` folder: `values` is the base language, `values-fr`
/// is `fr`, `values-pt-rBR` is `pt-BR`, `values-b+zh+Hans` is `zh-Hans`. Folders with other
/// qualifiers (`values-night`, `values-v21`, `values-fr-land`) name no language.
///
/// Android's own names are mapped to the codes a project shares with other platforms
/// (`values-iw` is `he`, `values-b+be+x+old` is `be-tarask`; see [`ANDROID_ALIASES`]), and a
/// tag with another singleton subtag (`b+de+x+formal`) gets its singleton joined to the
/// subtag after it (`de-xformal`), since a language code has no one-letter subtags. The app's
/// folder keeps its name: pull finds it again through this same mapping.
pub fn android_language(folder: &str) -> Option<String> {
    if folder == "values" {
        return Some(BASE_LANGUAGE.to_owned());
    }
    let qualifier = folder.strip_prefix("values-")?;
    if let Some(tags) = qualifier.strip_prefix("b+") {
        return Some(android_alias(&join_singletons(tags)));
    }
    let mut parts = qualifier.split('-');
    let language = parts.next()?;
    let is_language = (2..=3).contains(&language.len()) && language.bytes().all(|b| b.is_ascii_lowercase());
    if !is_language {
        return None;
    }
    let language = android_alias(language);
    match (parts.next(), parts.next()) {
        (None, _) => Some(language),
        (Some(region), None) => {
            let region = region.strip_prefix('r')?;
            let is_region = (region.len() == 2 && region.bytes().all(|b| b.is_ascii_uppercase()))
                || (region.len() == 3 && region.bytes().all(|b| b.is_ascii_digit()));
            is_region.then(|| format!("{language}-{region}"))
        }
        _ => None,
    }
}

/// Android's language names that differ from the codes other platforms use for the same
/// language: the ISO 639 codes Java's `Locale` kept after they were withdrawn (Android still
/// writes `values-iw`, `values-in`, `values-ji`), and Wikimedia's `be-x-old` for Belarusian
/// in the Taraškievica orthography, whose registered tag is `be-tarask`.
pub const ANDROID_ALIASES: &[(&str, &str)] = &[("iw", "he"), ("in", "id"), ("ji", "yi"), ("be-x-old", "be-tarask")];

fn android_alias(tag: &str) -> String {
    ANDROID_ALIASES
        .iter()
        .find(|(android, _)| android.eq_ignore_ascii_case(tag))
        .map_or_else(|| tag.to_owned(), |(_, code)| (*code).to_owned())
}

/// The subtags of a `b+` qualifier as a `-` separated tag, a one-letter (singleton) subtag
/// joined to the subtag after it: `de+x+formal` is `de-xformal`, `be+x+old` is `be-x-old`
/// first so that [`ANDROID_ALIASES`] can name it.
fn join_singletons(tags: &str) -> String {
    let tag = tags.replace('+', "-");
    if ANDROID_ALIASES
        .iter()
        .any(|(android, _)| android.eq_ignore_ascii_case(&tag))
    {
        return tag;
    }
    let mut out = String::new();
    let mut after_singleton = false;
    for (index, subtag) in tags.split('+').enumerate() {
        if index > 0 && !after_singleton {
            out.push('-');
        }
        out.push_str(subtag);
        after_singleton = index > 0 && subtag.len() == 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn android_folders_map_to_languages_as_the_export_names_them() {
        assert_eq!(android_language("values").as_deref(), Some(BASE_LANGUAGE));
        assert_eq!(android_language("values-fr").as_deref(), Some("fr"));
        assert_eq!(android_language("values-pt-rBR").as_deref(), Some("pt-BR"));
        assert_eq!(android_language("values-es-r419").as_deref(), Some("es-419"));
        assert_eq!(android_language("values-b+zh+Hans").as_deref(), Some("zh-Hans"));
        assert_eq!(android_language("values-b+sr+Latn+RS").as_deref(), Some("sr-Latn-RS"));
        for other in [
            "values-night",
            "values-v21",
            "values-fr-land",
            "values-sw600dp",
            "drawable",
            "values-fr-rCA-night",
        ] {
            assert_eq!(android_language(other), None, "{other}");
        }
    }

    #[test]
    fn android_names_of_languages_map_to_the_codes_other_platforms_use() {
        assert_eq!(android_language("values-iw").as_deref(), Some("he"));
        assert_eq!(android_language("values-in").as_deref(), Some("id"));
        assert_eq!(android_language("values-ji").as_deref(), Some("yi"));
        assert_eq!(android_language("values-b+be+x+old").as_deref(), Some("be-tarask"));
        assert_eq!(android_language("values-b+de+x+formal").as_deref(), Some("de-xformal"));
        // Codes the project can hold as they are stay as they are.
        assert_eq!(android_language("values-qq").as_deref(), Some("qq"));
        assert_eq!(android_language("values-sh").as_deref(), Some("sh"));
        for folder in ["values-iw", "values-b+be+x+old", "values-b+de+x+formal", "values-qq"] {
            let code = android_language(folder).unwrap();
            assert!(
                crate::domain::names::LanguageCode::parse(&code).is_ok(),
                "{folder}: {code}"
            );
        }
    }
}
