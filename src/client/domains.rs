//! `locstore init`'s search for catalogues named by their domain: gettext's
//! `{domain}.{lang}.po` beside `{domain}.pot` (Lazarus, many C apps), Django's
//! `locale/{lang}/LC_MESSAGES/{domain}.po`, Symfony's and Angular's `{domain}.{lang}.xlf`,
//! Symfony's `{domain}.{lang}.yaml`, and i18next namespaces kept as `{lang}.{ns}.json`. A
//! domain is a key space of its own (contract, "Real apps, whole"): each is a file set with
//! its own `namespace`, so that a pull of one domain never brings another's keys into its
//! files. The default domains (`messages`, the one Symfony and Angular load without naming it)
//! are the default namespace.

use std::collections::BTreeMap;
use std::path::Path;

use crate::formats::po::locale_language;

/// A file set of one domain: its format, its path pattern and its namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainSet {
    pub format: &'static str,
    pub path: String,
    pub namespace: String,
}

/// The domain file sets under `root`, in path order, each named apart (see [`name_apart`]).
pub fn find(root: &Path, skipped: &[&str], max_depth: usize) -> Vec<DomainSet> {
    let mut found = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .max_depth(max_depth)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            !(entry.file_type().is_dir() && entry.file_name().to_str().is_some_and(|name| skipped.contains(&name)))
        });
    // Django's locale folders, each with its domains: (folder relative to root, domain).
    let mut django: Vec<(String, String)> = Vec::new();
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_dir() {
            continue;
        }
        let dir = entry.path();
        let relative = dir
            .strip_prefix(root)
            .unwrap_or(dir)
            .to_string_lossy()
            .replace('\\', "/");
        if dir.file_name().is_some_and(|name| name == "LC_MESSAGES") {
            let language_folder = dir.parent();
            let is_language = language_folder
                .and_then(Path::file_name)
                .and_then(|name| name.to_str())
                .is_some_and(|name| locale_language(name).is_some());
            let locale = relative.rsplitn(3, '/').nth(2).unwrap_or_default().to_owned();
            if is_language {
                for domain in file_stems(dir, ".po") {
                    if !django.contains(&(locale.clone(), domain.clone())) {
                        django.push((locale.clone(), domain));
                    }
                }
            }
            continue;
        }
        let prefix = if relative.is_empty() {
            String::new()
        } else {
            format!("{relative}/")
        };
        found.extend(po_domains(dir).into_iter().map(|domain| DomainSet {
            format: "po",
            path: format!("{prefix}{domain}.{{lang}}.po"),
            namespace: domain,
        }));
        found.extend(
            language_first_json(dir)
                .into_iter()
                .map(|(namespace, format)| DomainSet {
                    format,
                    path: format!("{prefix}{{lang}}.{namespace}.json"),
                    namespace,
                }),
        );
        found.extend(
            symfony_yaml_domains(dir)
                .into_iter()
                .map(|(domain, extension)| DomainSet {
                    format: "yaml",
                    path: format!("{prefix}{domain}.{{lang}}.{extension}"),
                    namespace: domain_namespace(&domain),
                }),
        );
        found.extend(
            xliff_domains(dir)
                .into_iter()
                .map(|(domain, extension, format)| DomainSet {
                    format,
                    path: format!("{prefix}{domain}.{{lang}}.{extension}"),
                    namespace: domain_namespace(&domain),
                }),
        );
        found.extend(
            language_first_xliff(dir)
                .into_iter()
                .map(|(domain, extension, format)| DomainSet {
                    format,
                    path: format!("{prefix}{{lang}}.{domain}.{extension}"),
                    namespace: domain,
                }),
        );
    }
    found.extend(django.into_iter().map(|(locale, domain)| DomainSet {
        format: "po",
        path: if locale.is_empty() {
            format!("{{lang}}/LC_MESSAGES/{domain}.po")
        } else {
            format!("{locale}/{{lang}}/LC_MESSAGES/{domain}.po")
        },
        namespace: domain,
    }));
    name_apart(&mut found);
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Sets that would share a namespace (the `django` domain of three Django apps) are named by
/// their folder too (`horizon/django`): each set's pull takes only its own keys.
fn name_apart(sets: &mut [DomainSet]) {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for set in sets.iter() {
        *count.entry(set.namespace.clone()).or_default() += 1;
    }
    for set in sets.iter_mut() {
        if count[&set.namespace] < 2 {
            continue;
        }
        // The folder before the language: `horizon/locale/{lang}/...` gives `horizon`.
        let before = set.path.split("{lang}").next().unwrap_or_default();
        let folder = before.trim_end_matches(|c| c != '/').trim_end_matches('/');
        let folder = folder.strip_suffix("/locale").unwrap_or(folder);
        let folder = if folder == "locale" { "" } else { folder };
        set.namespace = match (folder.is_empty(), set.namespace.is_empty()) {
            (true, _) => set.namespace.clone(),
            (false, true) => folder.to_owned(),
            (false, false) => format!("{folder}/{}", set.namespace),
        };
    }
}

/// The names of a folder's files that end in `suffix`, without it, in name order.
fn file_stems(dir: &Path, suffix: &str) -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| Some(entry.file_name().to_str()?.strip_suffix(suffix)?.to_owned()))
        .collect();
    stems.sort();
    stems
}

/// The gettext domains of a folder of `{domain}.{lang}.po` files, and of `{domain}.pot`
/// templates in a folder without `{lang}.po` files (a domain not translated yet).
fn po_domains(dir: &Path) -> Vec<String> {
    let stems = file_stems(dir, ".po");
    let mut domains: Vec<String> = stems
        .iter()
        .filter_map(|stem| {
            let (domain, language) = stem.rsplit_once('.')?;
            (!domain.is_empty() && locale_language(language).is_some()).then(|| domain.to_owned())
        })
        .collect();
    let plain_languages = stems.iter().any(|stem| locale_language(stem).is_some());
    // A Django locale folder's templates (`locale/django.pot` above `locale/{lang}/LC_MESSAGES/`)
    // are its domains' base files, not domains of `{domain}.{lang}.po` files.
    let django_locale = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .any(|entry| entry.path().join("LC_MESSAGES").is_dir());
    if !plain_languages && !django_locale {
        domains.extend(file_stems(dir, ".pot"));
    }
    domains.sort();
    domains.dedup();
    domains
}

/// The XLIFF domains of a folder of `{domain}.{lang}.xlf` (or `.xliff`) files: each domain
/// with its extension and format (`xliff2` for XLIFF 2.0).
fn xliff_domains(dir: &Path) -> Vec<(String, &'static str, &'static str)> {
    let mut found = Vec::new();
    for extension in ["xlf", "xliff"] {
        let mut domains: Vec<(String, String)> = file_stems(dir, &format!(".{extension}"))
            .into_iter()
            .filter_map(|stem| {
                let (domain, language) = stem.rsplit_once('.')?;
                let named = !domain.is_empty() && crate::domain::names::LanguageCode::parse(language).is_ok();
                named.then(|| (domain.to_owned(), stem.clone()))
            })
            .collect();
        domains.dedup_by(|a, b| a.0 == b.0);
        for (domain, example) in domains {
            let format = xliff_format(&dir.join(format!("{example}.{extension}")));
            found.push((domain, extension, format));
        }
    }
    found
}

/// TYPO3's XLIFF files, named language first beside their source (`de.locallang.xlf` and
/// `locallang.xlf` in `Resources/Private/Language/`): each domain with its extension and the
/// format of its source file (`xliff2` for XLIFF 2.0). The source file is the set's base
/// file ([`crate::client::files`]), so a domain needs one.
fn language_first_xliff(dir: &Path) -> Vec<(String, &'static str, &'static str)> {
    let mut found = Vec::new();
    for extension in ["xlf", "xliff"] {
        let stems = file_stems(dir, &format!(".{extension}"));
        let mut domains: Vec<String> = stems
            .iter()
            .filter_map(|stem| {
                let (language, domain) = stem.split_once('.')?;
                let named = !domain.is_empty()
                    && locale_shaped(language)
                    && crate::domain::names::LanguageCode::parse(language).is_ok()
                    && stems.iter().any(|source| source == domain);
                named.then(|| domain.to_owned())
            })
            .collect();
        domains.sort();
        domains.dedup();
        for domain in domains {
            let format = xliff_format(&dir.join(format!("{domain}.{extension}")));
            found.push((domain, extension, format));
        }
    }
    found
}

/// A Symfony domain's namespace: its name; `messages`, the domain Symfony loads unnamed, is
/// the default one. A domain in ICU MessageFormat (`messages+intl-icu`) keeps its own: its
/// keys go to its own files (Sylius keeps both beside each other).
fn domain_namespace(domain: &str) -> String {
    if domain == "messages" {
        String::new()
    } else {
        domain.to_owned()
    }
}

/// The YAML domains of a folder of Symfony's `{domain}.{lang}.yaml` (or `.yml`) files, whose
/// root holds the keys rather than a language (`messages.fr.yml` of wallabag); Rails'
/// `devise.fr.yml`, whose root key is `fr`, is a family of another kind (`init`'s own).
fn symfony_yaml_domains(dir: &Path) -> Vec<(String, &'static str)> {
    let mut found = Vec::new();
    for extension in ["yml", "yaml"] {
        let mut domains: Vec<String> = file_stems(dir, &format!(".{extension}"))
            .into_iter()
            .filter(|stem| {
                stem.rsplit_once('.').is_some_and(|(domain, language)| {
                    !domain.is_empty() && crate::domain::names::LanguageCode::parse(language).is_ok()
                })
            })
            .filter(|stem| {
                let text = std::fs::read_to_string(dir.join(format!("{stem}.{extension}"))).unwrap_or_default();
                matches!(crate::formats::yaml::parse(&text), Ok(Some(root)) if !crate::formats::yaml::rooted_by_language(&root))
            })
            .filter_map(|stem| stem.rsplit_once('.').map(|(domain, _)| domain.to_owned()))
            .collect();
        domains.dedup();
        found.extend(domains.into_iter().map(|domain| (domain, extension)));
    }
    found
}

/// Namespaces kept as JSON files named language first (Grist's `en.client.json` and
/// `en.server.json`, i18next's `client` and `server`): each with its format, `i18next` when
/// its files have plural suffixes (`_other`); for namespaces of two or more languages.
fn language_first_json(dir: &Path) -> Vec<(String, &'static str)> {
    let mut namespaces: BTreeMap<String, Vec<std::path::PathBuf>> = BTreeMap::new();
    for stem in file_stems(dir, ".json") {
        let Some((language, namespace)) = stem.split_once('.') else {
            continue;
        };
        if namespace.is_empty()
            || namespace.contains('.')
            || !locale_shaped(language)
            || crate::domain::names::LanguageCode::parse(language).is_err()
        {
            continue;
        }
        namespaces
            .entry(namespace.to_owned())
            .or_default()
            .push(dir.join(format!("{stem}.json")));
    }
    namespaces
        .into_iter()
        .filter(|(_, files)| files.len() >= 2)
        .map(|(namespace, files)| {
            let plurals = files
                .iter()
                .any(|file| std::fs::read_to_string(file).is_ok_and(|text| has_plural_pair(&text)));
            (namespace, if plurals { "i18next" } else { "json" })
        })
        .collect()
}

/// Whether a JSON file's text has a member `X_other` beside another of X's plural forms
/// (`X_one`, `X_few`, ...), as i18next v4 writes a plural key. A lone `X_other` is a name of
/// its own (Formbricks' `add_other`, "Add Other", beside `add`; its plurals are ICU messages).
pub(super) fn has_plural_pair(text: &str) -> bool {
    text.match_indices("_other\"").any(|(at, found)| {
        if !text[at + found.len()..].trim_start().starts_with(':') {
            return false;
        }
        let Some(open) = text[..at].rfind('"') else {
            return false;
        };
        let base = &text[open + 1..at];
        ["one", "zero", "two", "few", "many"]
            .iter()
            .any(|form| text.contains(&format!("\"{base}_{form}\"")))
    })
}

/// Whether a file name's stem has the shape of a locale, subtag by subtag: a language in
/// lower case (`fr`), then a script (`Hans`), a region (`BR`, `419`) or a variant (`Formal`);
/// TM:PE's `AI_Car.csv` and `AI_Citizen.csv` are tables, not the language `AI` with a subtag.
pub(super) fn locale_shaped(stem: &str) -> bool {
    let mut parts = stem.split(['-', '_']);
    let primary = parts.next().unwrap_or_default();
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|byte| byte.is_ascii_lowercase())
        && parts.all(|part| match part.len() {
            2 => part.bytes().all(|byte| byte.is_ascii_alphabetic()),
            3 => part.bytes().all(|byte| byte.is_ascii_digit()),
            4 => part.bytes().all(|byte| byte.is_ascii_alphabetic()),
            5..=8 => part.bytes().all(|byte| byte.is_ascii_alphanumeric()),
            _ => false,
        })
}

/// `xliff2` for an XLIFF 2.0 file, else `xliff`.
pub(super) fn xliff_format(file: &Path) -> &'static str {
    let head = std::fs::read(file).unwrap_or_default();
    let head = String::from_utf8_lossy(&head[..head.len().min(4096)]).into_owned();
    if head.contains("urn:oasis:names:tc:xliff:document:2") {
        "xliff2"
    } else {
        "xliff"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_of_gettext_django_and_symfony_are_sets_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        for file in [
            "language/doublecmd.pot",
            "language/doublecmd.be.po",
            "language/doublecmd.da.po",
            "plugins/sevenzip/language/sevenzip.pot",
            "po/quodlibet.pot",
            "po/sr_RS@latin.po",
            "horizon/locale/pt_BR/LC_MESSAGES/django.po",
            "horizon/locale/pt_BR/LC_MESSAGES/djangojs.po",
            "openstack_auth/locale/zh_Hans/LC_MESSAGES/django.po",
            // Repomaker: the templates above the language folders are no domains of their own.
            "openstack_auth/locale/django.pot",
            "translations/messages.de_CH.xlf",
            "translations/validators.no.xlf",
            "translations/SchebTwoFactorBundle+intl-icu.en.xlf",
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }

        let found: Vec<(String, String)> = find(dir.path(), &[], 8)
            .into_iter()
            .map(|set| (set.path, set.namespace))
            .collect();
        let expected = [
            ("horizon/locale/{lang}/LC_MESSAGES/django.po", "horizon/django"),
            ("horizon/locale/{lang}/LC_MESSAGES/djangojs.po", "djangojs"),
            ("language/doublecmd.{lang}.po", "doublecmd"),
            (
                "openstack_auth/locale/{lang}/LC_MESSAGES/django.po",
                "openstack_auth/django",
            ),
            ("plugins/sevenzip/language/sevenzip.{lang}.po", "sevenzip"),
            (
                "translations/SchebTwoFactorBundle+intl-icu.{lang}.xlf",
                "SchebTwoFactorBundle+intl-icu",
            ),
            ("translations/messages.{lang}.xlf", ""),
            ("translations/validators.{lang}.xlf", "validators"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(path, namespace)| (path.to_string(), namespace.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn symfonys_yaml_catalogues_are_domains_and_rails_families_are_not() {
        // Symfony's YAML catalogues hold keys at their root; a Rails family's root is its
        // language.
        let found = sets_of(&[
            ("translations/messages.fr.yml", "menu: Menu\n"),
            ("translations/messages.pt_BR.yml", "{}\n"),
            ("translations/flashes+intl-icu.de.yaml", "saved: Gespeichert\n"),
            ("config/locales/devise.fr.yml", "fr:\n  a: b\n"),
            ("config/locales/devise.de.yml", "de:\n  a: b\n"),
        ]);
        assert_eq!(
            found,
            [
                (
                    "yaml",
                    "translations/flashes+intl-icu.{lang}.yaml".to_owned(),
                    "flashes+intl-icu".to_owned()
                ),
                ("yaml", "translations/messages.{lang}.yml".to_owned(), String::new()),
            ]
        );
    }

    #[test]
    fn namespaces_kept_as_files_named_language_first_are_sets_of_their_own() {
        // Grist's `static/locales/{lang}.client.json` (with plurals) and `{lang}.server.json`.
        let found = sets_of(&[
            (
                "static/locales/en.client.json",
                "{\"rows_one\": \"a row\", \"rows_other\": \"rows\"}",
            ),
            ("static/locales/fr.client.json", "{}"),
            ("static/locales/en.server.json", "{\"Loading...\": \"Loading...\"}"),
            ("static/locales/pt_BR.server.json", "{}"),
            ("static/package.json", "{}"),
        ]);
        assert_eq!(
            found,
            [
                (
                    "i18next",
                    "static/locales/{lang}.client.json".to_owned(),
                    "client".to_owned()
                ),
                (
                    "json",
                    "static/locales/{lang}.server.json".to_owned(),
                    "server".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn typo3s_files_named_language_first_beside_their_source_are_a_domain_each() {
        // Apache Solr for TYPO3: `de.locallang.xlf` beside `locallang.xlf`, an XLIFF 2.0
        // domain in `Modules/`; a language file without its source is no domain.
        let v1 = "<xliff version=\"1.0\"><file source-language=\"en\"><body/></file></xliff>";
        let v2 = "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\"/>";
        let found = sets_of(&[
            ("Resources/Private/Language/locallang.xlf", v1),
            ("Resources/Private/Language/de.locallang.xlf", v1),
            ("Resources/Private/Language/pt_BR.locallang.xlf", v1),
            ("Resources/Private/Language/locallang_be.xlf", v1),
            ("Resources/Private/Language/fr.locallang_be.xlf", v1),
            ("Resources/Private/Language/fr.orphan.xlf", v1),
            ("Resources/Private/Language/Modules/Info.xlf", v2),
            ("Resources/Private/Language/Modules/de.Info.xlf", v2),
        ]);
        assert_eq!(
            found,
            [
                (
                    "xliff2",
                    "Resources/Private/Language/Modules/{lang}.Info.xlf".to_owned(),
                    "Info".to_owned()
                ),
                (
                    "xliff",
                    "Resources/Private/Language/{lang}.locallang.xlf".to_owned(),
                    "locallang".to_owned()
                ),
                (
                    "xliff",
                    "Resources/Private/Language/{lang}.locallang_be.xlf".to_owned(),
                    "locallang_be".to_owned()
                ),
            ]
        );
    }

    /// The sets `find` makes of these files (path, text), as (format, pattern, namespace).
    fn sets_of(files: &[(&str, &str)]) -> Vec<(&'static str, String, String)> {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        find(dir.path(), &[], 8)
            .into_iter()
            .map(|set| (set.format, set.path, set.namespace))
            .collect()
    }
}
