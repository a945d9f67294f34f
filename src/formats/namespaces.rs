//! The names an export writes keys under, namespace by namespace.
//!
//! A format whose files are key spaces (i18next and JSON namespaces, Apple tables and
//! catalogs) writes each namespace to its own file ([`crate::domain::model::Key::file_for`]).
//! A format without them (Android, ARB, flat files, CSV, PO, XLIFF, YAML) writes every key of
//! the export into the same files, so that two keys of one name in two namespaces cannot
//! collide there: a key of a namespace other than the default one is written as
//! `{namespace}:{name}` (i18next's own notation for a key of another namespace), and Android's
//! resource names map the `:` like any other character they cannot hold.
//!
//! An export may also be of one namespace (`namespace=core`, what `locstore pull` asks for a
//! module's file set): it takes that namespace's keys and, where a format's files name
//! namespaces, those of the namespaces under it (`core/common`), written as if `core` were the
//! default namespace (`common` then).
//! `namespace=` with no value takes the default namespace's keys only.

use std::borrow::Cow;

use super::ExportFormat;
use crate::domain::key_files::Platform;
use crate::domain::model::Key;
use crate::domain::names::{KeyName, LanguageCode, Namespace};

/// Whether a format writes each namespace to a file of its own.
pub fn has_namespaces(format: ExportFormat) -> bool {
    matches!(
        format,
        ExportFormat::Json | ExportFormat::I18next | ExportFormat::AppleStrings | ExportFormat::Xcstrings
    )
}

/// The keys an export of `format` writes, each under the name and namespace it is written
/// with: those of `within` and the namespaces under it when it is given, renamed as this
/// module says. Keys written as they are stay borrowed.
pub fn exported<'a>(keys: &[&'a Key], format: ExportFormat, within: Option<&Namespace>) -> Vec<Cow<'a, Key>> {
    let namespaces = has_namespaces(format);
    let mut written: Vec<Cow<'a, Key>> =
        keys.iter()
            .filter_map(|key| {
                let namespace = match within {
                    Some(within) if files_name_namespaces(format) => relative(key.name.namespace(), within.as_str())?,
                    // A module's Android files never give a namespace of their own, so a
                    // namespace under the module's is another module's (a flavour's
                    // `app/beta` beside `app`), never this one's.
                    Some(within) => (key.name.namespace() == within.as_str()).then_some("")?,
                    None => key.name.namespace(),
                };
                let written = match (namespace, namespaces) {
                    (namespace, true) if namespace == key.name.namespace() => return Some(Cow::Borrowed(*key)),
                    ("", _) => KeyName::parse(key.name.as_str()),
                    (namespace, true) => Namespace::parse(namespace)
                        .and_then(|namespace| KeyName::parse_in(&namespace, key.name.as_str())),
                    (namespace, false) => KeyName::parse(&format!("{namespace}:{}", key.name.as_str())),
                };
                // The parts are a key's own, so they parse again; a name made too long by its
                // namespace keeps its own.
                let written = written.unwrap_or_else(|_| key.name.clone());
                if written == key.name {
                    return Some(Cow::Borrowed(*key));
                }
                let mut renamed = (*key).clone();
                renamed.name = written;
                Some(Cow::Owned(renamed))
            })
            .collect();
    // The writers take keys in the order of their names, which the new names may change.
    if written.iter().any(|key| matches!(key, Cow::Owned(_))) {
        written.sort_by(|a, b| a.name.cmp(&b.name));
    }
    written
}

/// Whether a file's path names a namespace within its file set
/// ([`namespace_of`]): an i18next namespace, an Apple table, a gettext or
/// XLIFF domain. Android, ARB, CSV and Rails files do not.
fn files_name_namespaces(format: ExportFormat) -> bool {
    has_namespaces(format) || matches!(format, ExportFormat::Po | ExportFormat::Xliff | ExportFormat::Xliff2)
}

/// `namespace` relative to `within`: `""` for `within` itself, the rest for one under it,
/// `None` for any other. Every namespace is under the default one, so an export of the default
/// namespace takes its own keys only.
fn relative<'a>(namespace: &'a str, within: &str) -> Option<&'a str> {
    if within.is_empty() {
        return namespace.is_empty().then_some("");
    }
    match namespace.strip_prefix(within)? {
        "" => Some(""),
        rest => rest.strip_prefix('/'),
    }
}

/// The namespace a file's path gives its entries: the i18next namespace of `{lang}/{ns}.json`
/// (nested folders included: `fr/settings/profile.json` is `settings/profile`), the Apple
/// table (`InfoPlist.strings`, `Shortcuts.xcstrings`) other than `Localizable`, the gettext or
/// XLIFF domain of `{domain}.{lang}.po`, `{domain}.{lang}.xlf` and Django's
/// `LC_MESSAGES/{domain}.po` other than `messages` (the default domain of gettext, Symfony and
/// Angular, whose `messages.xlf` source file names none); `""` for every other file. A name that is
/// not a valid namespace gives `""`.
pub fn namespace_of(format: ExportFormat, path: &str, file: Option<&(Platform, String)>) -> String {
    let valid = |name: &str| crate::domain::names::Namespace::parse(name).is_ok();
    let mut parts = path.rsplit('/');
    let file_name = parts.next().unwrap_or_default();
    let folder = parts.next().unwrap_or_default();
    let namespace = match (format, file) {
        // A web namespace is its own, `messages` too (a browser extension's
        // `_locales/{lang}/messages.json`).
        (_, Some((Platform::Web, namespace))) => {
            let namespace = namespace_path(path, namespace);
            return if valid(&namespace) { namespace } else { String::new() };
        }
        (_, Some((Platform::Apple, table))) if table != "Localizable" => table.clone(),
        (ExportFormat::Po, _) if folder == "LC_MESSAGES" => {
            file_name.strip_suffix(".po").unwrap_or_default().to_owned()
        }
        (ExportFormat::Po | ExportFormat::Xliff | ExportFormat::Xliff2, _) => {
            let stem = file_name.rsplit_once('.').map_or(file_name, |(stem, _)| stem);
            match stem.rsplit_once('.') {
                Some((domain, language)) if LanguageCode::parse(language).is_ok() => domain.to_owned(),
                _ => String::new(),
            }
        }
        _ => String::new(),
    };
    if namespace == "messages" || !valid(&namespace) {
        return String::new();
    }
    namespace
}

/// An i18next namespace with the folders between the language's folder and the file:
/// `locales/fr/settings/profile.json` is `settings/profile` when `fr` is the language's
/// folder. Only the file's own name when no folder above names a language.
fn namespace_path(path: &str, namespace: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let Some(file_at) = parts.len().checked_sub(1) else {
        return namespace.to_owned();
    };
    // The nearest folder above the file that is a language code.
    for at in (0..file_at).rev() {
        if LanguageCode::parse(parts[at]).is_ok() {
            let mut nested: Vec<&str> = parts[at + 1..file_at].to_vec();
            nested.push(namespace);
            return nested.join("/");
        }
    }
    namespace.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(namespace: &str, name: &str) -> Key {
        Key::named(KeyName::parse_in(&Namespace::parse(namespace).unwrap(), name).unwrap())
    }

    fn written(keys: &[Cow<'_, Key>]) -> Vec<(String, String)> {
        keys.iter()
            .map(|key| (key.name.namespace().to_owned(), key.name.as_str().to_owned()))
            .collect()
    }

    #[test]
    fn formats_without_namespaces_prefix_the_keys_of_other_namespaces() {
        let keys = [key("", "No"), key("glossary", "No"), key("core/common", "OK")];
        let refs: Vec<&Key> = keys.iter().collect();
        let android = exported(&refs, ExportFormat::AndroidXml, None);
        // In the order of the names written.
        assert_eq!(
            written(&android),
            [
                ("".into(), "No".into()),
                ("".into(), "core/common:OK".into()),
                ("".into(), "glossary:No".into())
            ]
        );
        assert!(matches!(android[0], Cow::Borrowed(_)));
        let i18next = exported(&refs, ExportFormat::I18next, None);
        assert!(i18next.iter().all(|key| matches!(key, Cow::Borrowed(_))));
    }

    #[test]
    fn an_export_of_one_namespace_takes_it_and_those_under_it_as_its_own() {
        let keys = [
            key("", "a"),
            key("core", "b"),
            key("core/common", "c"),
            key("corejs", "d"),
        ];
        let refs: Vec<&Key> = keys.iter().collect();
        let core = Namespace::parse("core").unwrap();
        assert_eq!(
            written(&exported(&refs, ExportFormat::I18next, Some(&core))),
            [("".into(), "b".into()), ("common".into(), "c".into())]
        );
        // Android's files name no namespace, so one under a module's is another module's.
        assert_eq!(
            written(&exported(&refs, ExportFormat::AndroidXml, Some(&core))),
            [("".into(), "b".into())]
        );
        let default = Namespace::default();
        assert_eq!(
            written(&exported(&refs, ExportFormat::Po, Some(&default))),
            [("".into(), "a".into())]
        );
    }

    #[test]
    fn an_android_export_of_one_modules_namespace_leaves_out_the_modules_named_under_it() {
        // Thunderbird: `app-thunderbird/src/main/res` and its `beta` flavour's own res folder.
        let keys = [
            key("app-thunderbird", "app_name"),
            key("app-thunderbird/beta", "app_name"),
        ];
        let refs: Vec<&Key> = keys.iter().collect();
        let main = Namespace::parse("app-thunderbird").unwrap();
        assert_eq!(
            written(&exported(&refs, ExportFormat::AndroidXml, Some(&main))),
            [("".into(), "app_name".into())]
        );
        let beta = Namespace::parse("app-thunderbird/beta").unwrap();
        assert_eq!(
            written(&exported(&refs, ExportFormat::AndroidXml, Some(&beta))),
            [("".into(), "app_name".into())]
        );
    }
}
