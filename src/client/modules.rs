//! The namespace `init` gives each module's file set, where an app keeps one format's files in
//! several modules, bundles or packages.

/// The namespace of each set: where one platform has several sets (an app's modules, bundles,
/// packages), each its own, named by its module's path with dots (`feature.account.common`
/// for `feature/account/common/src/main/res`), so that the same name in two modules is two
/// keys and a module's pull writes only its own keys; `None` for a platform with one set.
/// Apple's `.lproj` tables and String Catalogs are one platform: an app's catalogs and an
/// extension's `.lproj` folder are two bundles, whose `Localizable` tables are two.
///
/// A module's namespace holds no `/`: the namespaces a set's files give (i18next namespaces,
/// Apple tables) go under it after a `/` (`web.admin/common`), and an export of one module
/// takes the namespaces under it, which must never be another module's.
pub fn namespaces(found: &[(String, String)]) -> Vec<Option<String>> {
    let mut names: Vec<Option<String>> = found
        .iter()
        .map(|(format, path)| {
            let shared = found
                .iter()
                .filter(|(other, _)| platform(other) == platform(format))
                .count()
                > 1;
            shared.then(|| match format.as_str() {
                // A table is a key space of its own, named as its file is (`menus` for
                // `locales/{lang}/menus.csv`, `AI_Car` for `Translations/AI_Car.csv`).
                "csv-table" => table_name(path),
                _ => module_of(path),
            })
        })
        .collect();
    // Two sets whose modules read alike (`app/res` and `app/src/main/res`) keep their whole
    // paths apart.
    for at in 0..names.len() {
        let clash = names[at].is_some()
            && (0..names.len()).any(|other| other != at && found[other].0 == found[at].0 && names[other] == names[at]);
        if clash {
            names[at] = Some(namespace_text(&found[at].1));
        }
    }
    names
}

/// The platform a format's files are read by: Apple's two formats are one, and so are a web
/// app's JSON files, plain or i18next's (Formbricks keeps its web app's and its surveys
/// package's apart, one of each).
fn platform(format: &str) -> &str {
    match format {
        "apple-strings" | "xcstrings" => "apple",
        "json" | "i18next" => "web",
        other => other,
    }
}

/// A module's name from a resource folder's path: the folders above the platform's own
/// (`src/main/res`, `src/debug/res` as `…/debug`, `Resources`, `Localization`, `l10n`, ...).
fn module_of(path: &str) -> String {
    const PLATFORM_FOLDERS: &[&str] = &[
        "res",
        "src",
        "main",
        "Resources",
        "resources",
        "Localization",
        "Localizations",
        "Localized",
        "l10n",
        "locales",
        "locale",
        "i18n",
        "lang",
        "Sources",
    ];
    let mut parts: Vec<&str> = path.split('/').filter(|part| !part.contains('{')).collect();
    // `src/debug/res`: the source set stays, after its module.
    while parts.last().is_some_and(|part| PLATFORM_FOLDERS.contains(part)) {
        parts.pop();
    }
    if parts.len() >= 2 && parts[parts.len() - 2] == "src" {
        let source_set = parts.pop().unwrap_or_default();
        parts.pop();
        parts.push(source_set);
    }
    let parts: Vec<&str> = parts
        .into_iter()
        .filter(|part| *part != "src" && *part != ".")
        .collect();
    namespace_text(&parts.join("/"))
}

/// A table's namespace: its file's name without `.csv`.
fn table_name(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    namespace_text(file.strip_suffix(".csv").unwrap_or(file))
}

/// `text` (a path) as a module's namespace: its folders joined with `.`, the characters a
/// namespace cannot hold as `_`, empty parts dropped.
fn namespace_text(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_control() || "\\:*?\"<>|{}".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    let parts: Vec<&str> = cleaned
        .split('/')
        .map(str::trim)
        .filter(|part| !part.is_empty() && *part != "." && *part != "..")
        .collect();
    let joined = parts.join(".");
    if crate::domain::names::Namespace::parse(&joined).is_ok() && !joined.is_empty() {
        joined
    } else {
        "module".to_owned()
    }
}
