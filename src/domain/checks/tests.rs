use super::*;
use crate::domain::model::{PluralForms, Text};
use crate::domain::names::KeyName;

fn code(raw: &str) -> LanguageCode {
    LanguageCode::parse(raw).unwrap()
}

fn plain(name: &str, texts: &[(&str, &str)]) -> Key {
    let mut key = Key::named(KeyName::parse(name).unwrap());
    key.translations = texts
        .iter()
        .map(|(language, text)| (code(language), Text::from(*text)))
        .collect();
    key
}

/// A plain key whose texts are in `syntax`.
fn plain_in(syntax: crate::domain::placeholders::Syntax, name: &str, texts: &[(&str, &str)]) -> Key {
    let mut key = plain(name, texts);
    key.placeholders = Some(syntax);
    key
}

fn plural(name: &str, texts: &[(&str, &[(&str, &str)])]) -> Key {
    let mut key = Key::named(KeyName::parse(name).unwrap());
    key.plural = true;
    key.translations = texts
        .iter()
        .map(|(language, forms)| {
            let forms = PluralForms::new(
                forms
                    .iter()
                    .map(|(category, text)| (PluralCategory::parse(category).unwrap(), text.to_string())),
            )
            .unwrap();
            (code(language), Text::Plural(forms))
        })
        .collect();
    key
}

/// The failing checks of `key` (base `en`) as `language check form` strings.
fn failing(key: &Key) -> Vec<String> {
    check_key(key, &code("en"))
        .into_iter()
        .map(|failure| {
            let form = failure.form.map_or(String::new(), |form| format!(" {}", form.name()));
            format!("{} {}{form}", failure.language, failure.check.name())
        })
        .collect()
}

fn tokens(text: &str) -> Vec<String> {
    placeholders(text)
        .into_iter()
        .flat_map(|(token, count)| std::iter::repeat_n(token, count))
        .collect()
}

#[test]
fn placeholders_are_read_as_the_platforms_write_them() {
    // From Android apps' strings.xml (Tusky, K-9 Mail), iOS apps' .strings (Nextcloud) and web
    // apps' JSON (i18next, ICU).
    assert_eq!(tokens("%1$s boosted your post"), ["%1$s"]);
    assert_eq!(tokens("%1$d of %2$d selected"), ["%1$d", "%2$d"]);
    assert_eq!(tokens("Shared with %@"), ["%@"]);
    assert_eq!(tokens("%lld files"), ["%lld"]);
    assert_eq!(tokens("%.1f MB of %5.2f%%"), ["%%", "%f", "%f"]);
    assert_eq!(tokens("%#@files@ in %#@folders@"), ["%#@files@", "%#@folders@"]);
    assert_eq!(tokens("Hello {name}, you have {0} messages"), ["{0}", "{name}"]);
    // Not placeholders: a lone percent sign, a brace with spaces, ICU's plural syntax.
    assert_eq!(
        tokens("100 % sure { not one } {count, plural, one {# item}}"),
        Vec::<String>::new()
    );
    assert_eq!(tokens("50%"), Vec::<String>::new());
}

#[test]
fn a_lost_changed_or_renumbered_placeholder_is_an_error() {
    let cases = [
        // `%1$s` against `%s`: a positional and a plain conversion are not the same.
        ("%s boosted your post", "%1$s a partagé votre message", true),
        // `%@` against `%lld`: an object where a number is passed crashes on iOS.
        ("%lld files", "%@ fichiers", true),
        ("%d new messages", "nouveaux messages", true),
        ("Up to 100%%", "Jusqu'à 100 %", true),
        ("Up to 100%%", "Jusqu'à 100 %%", false),
        ("%1$s and %2$s", "%2$s et %1$s", false),
        ("Hi {name}", "Salut {nom}", true),
        ("Hi {name}", "Salut {name}", false),
    ];
    for (base, translation, fails) in cases {
        let key = plain("k", &[("en", base), ("fr", translation)]);
        assert_eq!(
            failing(&key).contains(&"fr placeholders".to_owned()),
            fails,
            "{base:?} / {translation:?}: {:?}",
            check_key(&key, &code("en"))
        );
    }
    // A failure says what differs.
    let key = plain("k", &[("en", "%lld files"), ("fr", "%@ fichiers")]);
    let failure = &check_key(&key, &code("en"))[0];
    assert_eq!(failure.severity, Severity::Error);
    assert!(
        failure.message.contains("`%@`") && failure.message.contains("`%lld`"),
        "{}",
        failure.message
    );
}

#[test]
fn plural_forms_are_compared_form_by_form_and_fall_back_to_the_base_other() {
    // `{count}` in every form: the `few` form of Polish is checked against English `other`.
    let key = plural(
        "files",
        &[
            ("en", &[("one", "{count} file"), ("other", "{count} files")]),
            (
                "pl",
                &[
                    ("one", "{count} plik"),
                    ("few", "{count} pliki"),
                    ("many", "plików"),
                    ("other", "{count} pliku"),
                ],
            ),
        ],
    );
    assert_eq!(failing(&key), ["pl placeholders many"]);
}

#[test]
fn a_plural_form_may_follow_the_base_other_form_s_placeholders() {
    // Libra's `days_ago`: English `one` is "Yesterday", Russian `one` (1, 21, 31, ...) shows
    // the number, as English `other` does.
    let key = plural(
        "days_ago",
        &[
            ("en", &[("one", "Yesterday"), ("other", "%d days ago")]),
            (
                "ru",
                &[
                    ("one", "%d день назад"),
                    ("few", "%d дня назад"),
                    ("many", "%d дней назад"),
                    ("other", "%d дня назад"),
                ],
            ),
            ("de", &[("one", "Gestern"), ("other", "Vor %d Tagen")]),
            (
                "fr",
                &[
                    ("one", "Hier"),
                    ("many", "Il y a %s jours"),
                    ("other", "Il y a %d jours"),
                ],
            ),
        ],
    );
    assert_eq!(failing(&key), ["fr placeholders many"]);
}

#[test]
fn cldr_categories_per_language_come_from_cldr_data_with_fallback_for_scripts_and_regions() {
    let categories = |language: &str| {
        plural_categories(&code(language))
            .into_iter()
            .map(PluralCategory::name)
            .collect::<Vec<_>>()
    };
    assert_eq!(categories("en"), ["one", "other"]);
    assert_eq!(categories("ru"), ["one", "few", "many", "other"]);
    assert_eq!(categories("pl"), ["one", "few", "many", "other"]);
    assert_eq!(categories("ar"), ["zero", "one", "two", "few", "many", "other"]);
    assert_eq!(categories("cy"), ["zero", "one", "two", "few", "many", "other"]);
    assert_eq!(categories("ja"), ["other"]);
    assert_eq!(categories("fr"), ["one", "many", "other"]);
    // A script or region subtag falls back to the language's rules, not to `other` only.
    assert_eq!(categories("sr-Latn"), ["one", "few", "other"]);
    assert_eq!(categories("pt-BR"), categories("pt"));
    assert_eq!(categories("ru_RU"), categories("ru"));
    assert_eq!(categories("zh-Hant-TW"), ["other"]);
}

#[test]
fn a_missing_category_is_an_error_and_an_extra_one_a_warning() {
    let key = plural(
        "episodes",
        &[
            ("en", &[("one", "%d episode"), ("other", "%d episodes")]),
            ("ru", &[("one", "%d эпизод"), ("other", "%d эпизодов")]),
            ("ja", &[("one", "%d 話"), ("other", "%d 話")]),
            (
                "ar",
                &[
                    ("zero", "%d حلقة"),
                    ("one", "%d حلقة"),
                    ("two", "%d حلقتان"),
                    ("few", "%d حلقات"),
                    ("many", "%d حلقة"),
                    ("other", "%d حلقة"),
                ],
            ),
        ],
    );
    let failures = check_key(&key, &code("en"));
    let ru: Vec<&Failure> = failures
        .iter()
        .filter(|failure| failure.language.as_str() == "ru")
        .collect();
    assert_eq!(ru.len(), 1, "{failures:?}");
    assert_eq!((ru[0].check, ru[0].severity), (Check::PluralForms, Severity::Error));
    assert!(ru[0].message.contains("few, many"), "{}", ru[0].message);
    let ja: Vec<&Failure> = failures
        .iter()
        .filter(|failure| failure.language.as_str() == "ja")
        .collect();
    assert_eq!(ja.len(), 1, "{failures:?}");
    assert_eq!(
        (ja[0].check, ja[0].severity, ja[0].form),
        (Check::PluralForms, Severity::Warning, Some(PluralCategory::One))
    );
    assert!(
        failures.iter().all(|failure| failure.language.as_str() != "ar"),
        "{failures:?}"
    );
    // Welsh needs all six too.
    let cy = plural(
        "k",
        &[
            ("en", &[("one", "a"), ("other", "b")]),
            ("cy", &[("one", "a"), ("other", "b")]),
        ],
    );
    assert!(
        failing(&cy).contains(&"cy plural_forms".to_owned()),
        "{:?}",
        failing(&cy)
    );
}

#[test]
fn markup_keys_keep_their_tags() {
    let mut key = plain(
        "promo",
        &[
            ("en", "<b>Save</b> 20% with <xliff:g id=\"code\">%1$s</xliff:g>"),
            ("fr", "<b>Économisez</b> 20% avec %1$s"),
            ("de", "<b>Sparen</b> Sie 20% mit <xliff:g id=\"code\">%1$s</xliff:g>"),
        ],
    );
    key.markup = true;
    assert_eq!(failing(&key), ["fr markup"]);
    // Not well formed (a hand-edited file).
    key.translations.insert(code("de"), "<b>Sparen 20% mit %1$s".into());
    assert!(failing(&key).contains(&"de markup".to_owned()), "{:?}", failing(&key));
    // Tags of a key that is not markup are just text.
    key.markup = false;
    assert!(!failing(&key).iter().any(|failure| failure.ends_with("markup")));
}

#[test]
fn max_length_counts_grapheme_clusters_in_every_language() {
    let mut key = plain(
        "tab",
        &[
            ("en", "Settings"),
            ("fr", "Paramètres"),
            ("hi", "सेटिंग्स"),
            ("de", "Einstellungen"),
        ],
    );
    key.max_length = Some(10);
    // "Paramètres" is 10 clusters (a decomposed è would still be one), "सेटिंग्स" 5, "Einstellungen" 13.
    assert_eq!(failing(&key), ["de max_length"]);
    key.translations.insert(code("fr"), "Parame\u{300}tres".into());
    assert_eq!(failing(&key), ["de max_length"]);
    key.max_length = Some(7);
    assert_eq!(failing(&key), ["de max_length", "en max_length", "fr max_length"]);
}

#[test]
fn whitespace_end_punctuation_and_same_as_base_are_warnings() {
    let key = plain(
        "k",
        &[
            ("en", "Delete this file?"),
            ("fr", "Supprimer ce fichier ? "),
            ("de", "Diese Datei löschen"),
            ("ja", "このファイルを削除しますか？"),
            ("es", "Delete this file?"),
        ],
    );
    let failures = check_key(&key, &code("en"));
    assert!(
        failures.iter().all(|failure| failure.severity == Severity::Warning),
        "{failures:?}"
    );
    assert_eq!(
        failing(&key),
        ["de end_punctuation", "es same_as_base", "fr whitespace"],
        "full-width `？` counts as `?`"
    );
    // Line breaks count.
    let key = plain("k", &[("en", "One\nTwo"), ("fr", "Un deux")]);
    assert_eq!(failing(&key), ["fr whitespace"]);
    // One word, a number or only placeholders may be the same in every language.
    for same in ["OK", "Email", "2026", "%1$s", "{count} %d"] {
        let key = plain("k", &[("en", same), ("fr", same)]);
        assert!(failing(&key).is_empty(), "{same}: {:?}", failing(&key));
    }
}

#[test]
fn empty_forms_are_errors_and_ignored_checks_are_silent() {
    let key = plain("k", &[("en", "Name:"), ("fr", "  ")]);
    assert!(
        failing(&key).contains(&"fr empty_form".to_owned()),
        "{:?}",
        failing(&key)
    );
    let mut key = plain("k", &[("en", "Name:"), ("fr", "Nom")]);
    assert_eq!(failing(&key), ["fr end_punctuation"]);
    key.ignore_checks = vec![Check::EndPunctuation];
    assert!(failing(&key).is_empty());
    // Every check has a name that reads back, and a severity.
    for check in Check::ALL {
        assert_eq!(Check::parse(check.name()), Some(check));
        assert!(Check::NAMES.contains(check.name()));
    }
    assert_eq!(Check::Placeholders.severity(), Severity::Error);
    assert_eq!(Check::SameAsBase.severity(), Severity::Warning);
}

#[test]
fn one_argument_written_in_another_platforms_syntax_is_the_same_placeholder() {
    use crate::domain::placeholders::Syntax;
    // A key without a syntax: an Android base, translations from iOS, MessageFormat, i18next.
    for translation in ["Bonjour %1$@", "Bonjour {0}"] {
        let key = plain("k", &[("en", "Hello %1$s"), ("fr", translation)]);
        assert!(
            failing(&key).is_empty(),
            "{translation}: {:?}",
            check_key(&key, &code("en"))
        );
    }
    // A key in printf: the normal form compares arguments and their kinds.
    let key = plain_in(
        Syntax::Printf,
        "k",
        &[("en", "Hello %1$s, %2$d new"), ("fr", "%2$lld nouveaux pour %1$@")],
    );
    assert!(failing(&key).is_empty(), "{:?}", check_key(&key, &code("en")));
    let mut named = plain_in(Syntax::Printf, "k", &[("en", "Hello %1$s"), ("fr", "Bonjour {{name}}")]);
    named.placeholder_names = vec!["name".into()];
    assert!(failing(&named).is_empty(), "{:?}", check_key(&named, &code("en")));
    for wrong in ["%1$d nouveaux", "%1$s %1$s", "%2$s", "rien"] {
        let key = plain_in(Syntax::Printf, "k", &[("en", "Hello %1$s"), ("fr", wrong)]);
        assert_eq!(failing(&key), ["fr placeholders"], "{wrong}");
    }
}

#[test]
fn icu_plural_messages_held_whole_compare_the_arguments_their_cases_use() {
    use crate::domain::placeholders::Syntax;
    // Angular's VAR_PLURAL with an exact value, and Flutter's argument inside one case only.
    let cases = [
        (
            "{VAR_PLURAL, plural, =1 {Profile} other {Profiles}}",
            "{VAR_PLURAL, plural, =1 {Perfil} other {Perfiles}}",
        ),
        (
            "{num, plural, one {One file} other {{num} files}}",
            "{num, plural, one {Un fichier} few {{num} pliki} other {{num} fichiers}}",
        ),
        // Yubico Authenticator's: a plural message inside a sentence.
        (
            "Wrong PIN, {retries, plural, =1{{retries} attempt remaining}other{{retries} attempts remaining}}",
            "Kod PIN jest nieprawidłowy. {retries, plural, few {Pozostały {retries} próby}many {Pozostało {retries} prób}=1{Pozostała {retries} próba}other{Pozostało {retries} prób}}",
        ),
    ];
    for (base, translation) in cases {
        let key = plain_in(Syntax::Icu, "k", &[("en", base), ("fr", translation)]);
        assert!(
            failing(&key).is_empty(),
            "{translation}: {:?}",
            check_key(&key, &code("en"))
        );
    }
    // An argument no case uses is still lost.
    let key = plain_in(
        Syntax::Icu,
        "k",
        &[
            ("en", "{num, plural, one {One file} other {{num} files}}"),
            ("fr", "{num, plural, one {Un fichier} other {Des fichiers}}"),
        ],
    );
    assert_eq!(failing(&key), ["fr placeholders"]);
}
