//! What an upload of Apple tables holds beyond each file's own entries: a table's
//! `.strings` and `.stringsdict` read together, and `Base.lproj` beside the base language's
//! own folder.

use std::collections::{HashMap, HashSet};

use crate::domain::names::LanguageCode;
use crate::formats::ReadWarning;
use crate::formats::upload::{BASE_LANGUAGE, UploadedFile};

/// Takes out of each `X.strings` the entries its table's `X.stringsdict` (the same folder)
/// has as plural keys: Apple reads the `.stringsdict` entry first, and the `.strings` one is
/// its stand-in (for systems without plural rules), so the key is one plural key. The
/// `.strings` entry stays in the app's file (a pull keeps what the export lacks).
pub fn drop_stand_ins(files: &mut [UploadedFile]) {
    let plurals: HashMap<String, HashSet<String>> = files
        .iter()
        .filter_map(|file| {
            let table = file.path.strip_suffix(".stringsdict")?;
            let names = file.entries.iter().map(|entry| entry.name.clone()).collect();
            Some((table.to_owned(), names))
        })
        .collect();
    if plurals.is_empty() {
        return;
    }
    for file in files.iter_mut() {
        let Some(names) = file.path.strip_suffix(".strings").and_then(|table| plurals.get(table)) else {
            continue;
        };
        file.entries.retain(|entry| !names.contains(&entry.name));
    }
}

/// Sets aside the `Base.lproj` tables that the base language's own folder has too (an app
/// with `Base.lproj/Localizable.strings` and `en.lproj/Localizable.strings`): Apple shows
/// the `en.lproj` table to the base language's users, so its texts are the key's, and a pull
/// writes them there. The `Base.lproj` file stays as the app has it; its keys that the base
/// language's table lacks are named in warnings (the server would otherwise hold them and a
/// pull would add them to the base language's table, which lacks them).
pub fn set_aside_shadowed_base(files: &mut [UploadedFile], base_language: &LanguageCode) {
    let shadowing: Vec<(String, HashSet<String>)> = files
        .iter()
        .filter(|file| {
            file.language != BASE_LANGUAGE
                && LanguageCode::parse(&file.language).is_ok_and(|code| code.same_as(base_language))
        })
        .filter_map(|file| {
            let (folder, name) = lproj_parts(&file.path)?;
            let names = file.entries.iter().map(|entry| entry.name.clone()).collect();
            Some((format!("{folder}\0{name}"), names))
        })
        .collect();
    for file in files.iter_mut() {
        let Some((folder, name)) = lproj_parts(&file.path).filter(|_| file.path.contains("Base.lproj/")) else {
            continue;
        };
        let place = format!("{folder}\0{name}");
        let Some((_, names)) = shadowing.iter().find(|(other, _)| *other == place) else {
            continue;
        };
        for entry in std::mem::take(&mut file.entries) {
            if !names.contains(&entry.name) {
                file.warnings.push(ReadWarning {
                    line: entry.line,
                    message: format!(
                        "{:?} is only in Base.lproj, which the app does not show where the base language's own folder has the same table; it stays in the file as it is.",
                        entry.name
                    ),
                    key: entry.name,
                });
            }
        }
    }
}

/// The folder holding an Apple file's `.lproj` folder, and the file's name.
fn lproj_parts(path: &str) -> Option<(&str, &str)> {
    let (folders, name) = path.rsplit_once('/')?;
    let (parent, lproj) = folders.rsplit_once('/').unwrap_or(("", folders));
    lproj.ends_with(".lproj").then_some((parent, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::{PluralForms, Text};
    use crate::formats::ParsedEntry;

    fn file(path: &str, language: &str, entries: &[(&str, Text)]) -> UploadedFile {
        UploadedFile {
            path: path.to_owned(),
            language: language.to_owned(),
            file: None,
            namespace: String::new(),
            entries: entries
                .iter()
                .map(|(name, text)| ParsedEntry {
                    text: text.clone(),
                    ..ParsedEntry::plain((*name).to_owned(), String::new())
                })
                .collect(),
            warnings: Vec::new(),
            fills_gaps: false,
            placeholders: None,
        }
    }

    fn names(file: &UploadedFile) -> Vec<&str> {
        file.entries.iter().map(|entry| entry.name.as_str()).collect()
    }

    #[test]
    fn a_key_in_a_tables_strings_and_stringsdict_is_the_stringsdicts_plural_key() {
        // MacPass's `EVERY_%ld_DAYS` in both `Localizable` files of `en.lproj`.
        let plain = Text::Plain("Every %ld days".into());
        let plural = Text::Plural(PluralForms::other("Every %ld days".into()));
        let mut files = vec![
            file(
                "MacPass/en.lproj/Localizable.strings",
                "en",
                &[("EVERY_%ld_DAYS", plain.clone()), ("OK", plain.clone())],
            ),
            file(
                "MacPass/en.lproj/Localizable.stringsdict",
                "en",
                &[("EVERY_%ld_DAYS", plural.clone())],
            ),
            file(
                "MacPass/de.lproj/Localizable.strings",
                "de",
                &[("EVERY_%ld_DAYS", plain.clone())],
            ),
            file("MacPass/en.lproj/Other.strings", "en", &[("EVERY_%ld_DAYS", plain)]),
        ];
        drop_stand_ins(&mut files);
        assert_eq!(names(&files[0]), ["OK"]);
        assert_eq!(names(&files[1]), ["EVERY_%ld_DAYS"]);
        // Another language's table and another table of the language keep theirs.
        assert_eq!(names(&files[2]), ["EVERY_%ld_DAYS"]);
        assert_eq!(names(&files[3]), ["EVERY_%ld_DAYS"]);
    }

    #[test]
    fn a_base_lproj_table_beside_the_base_languages_own_is_set_aside_naming_its_own_keys() {
        // Mastodon's SDK: `Base.lproj` has 626 keys, `en.lproj` 614.
        let text = || Text::Plain("x".into());
        let mut files = vec![
            file(
                "SDK/Base.lproj/Localizable.strings",
                BASE_LANGUAGE,
                &[("shared", text()), ("only.base", text())],
            ),
            file("SDK/en.lproj/Localizable.strings", "en", &[("shared", text())]),
            file(
                "SDK/Base.lproj/InfoPlist.strings",
                BASE_LANGUAGE,
                &[("CFBundleName", text())],
            ),
            file("App/Base.lproj/Localizable.strings", BASE_LANGUAGE, &[("app", text())]),
        ];
        set_aside_shadowed_base(&mut files, &LanguageCode::parse("en").unwrap());
        assert!(files[0].entries.is_empty());
        let warned: Vec<&str> = files[0].warnings.iter().map(|warning| warning.key.as_str()).collect();
        assert_eq!(warned, ["only.base"]);
        assert_eq!(names(&files[1]), ["shared"]);
        // A table or a bundle the base language's folder lacks is the base language's.
        assert_eq!(names(&files[2]), ["CFBundleName"]);
        assert_eq!(names(&files[3]), ["app"]);
    }
}
