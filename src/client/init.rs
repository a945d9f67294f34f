//! `locstore init`: looks at an app repository and writes a commented `.locstore.toml` with a
//! file set for each kind of resource files it finds.

use std::path::{Path, PathBuf};

use super::Failure;
use super::domains::xliff_format;
use super::settings::{FILE_NAME, Settings};
use crate::domain::names::LanguageCode;

/// Folders never searched: version control, dependencies and build output.
const SKIPPED: &[&str] = &[
    ".git",
    "node_modules",
    "build",
    "target",
    "Pods",
    ".gradle",
    "DerivedData",
    "dist",
];
/// How deep below the repository's root resource folders are looked for.
const MAX_DEPTH: usize = 8;

/// Writes `.locstore.toml` into `dir`; answers its path and what it found.
pub fn init(dir: &Path, server: &str, project: &str, force: bool) -> Result<(PathBuf, Vec<String>), Failure> {
    let target = dir.join(FILE_NAME);
    if target.exists() && !force {
        return Err(Failure::new(format!(
            "{} exists; pass --force to replace it",
            target.display()
        )));
    }
    let found = find_sets(dir);
    // Catalogues named by domain, each a set with a namespace of its own.
    let domain_sets = super::domains::find(dir, SKIPPED, MAX_DEPTH);
    let mut text = format!(
        "# locstore: where this app's text lives. `locstore push` uploads these files,\n\
         # `locstore pull` writes the server's exports back. The API token comes from the\n\
         # LOCSTORE_TOKEN environment variable, never from this file.\n\
         \n\
         # The server's address.\n\
         server = {server:?}\n\
         # The project, as TEAM/PROJECT.\n\
         project = {project:?}\n"
    );
    if found.is_empty() && domain_sets.is_empty() {
        text.push_str(
            "\n# No resource files were found; add a file set, for example:\n\
             # [[files]]\n\
             # format = \"android-xml\"          # json, csv, android-xml, apple-strings, xcstrings, i18next, po, arb, xliff or xliff2\n\
             # path = \"app/src/main/res\"       # a folder, or a pattern with {lang} for json and csv\n",
        );
    }
    // With several kinds of files, each set tags the keys it pushes and pulls only those, so
    // that the web app's keys do not land in the Android app's strings.xml.
    let kinds: std::collections::BTreeSet<&str> = found.iter().map(|(format, _)| format.as_str()).collect();
    let tagged = kinds.len() > 1;
    let families = rails_files(&found);
    let namespaces = {
        // A Rails locale folder's families are one key space: one namespace for them all.
        let canonical: Vec<(String, String)> = found
            .iter()
            .zip(&families)
            .map(|((format, path), family)| match family {
                Some((folder, _)) => (format.clone(), format!("{folder}/{{lang}}.yml")),
                None => (format.clone(), path.clone()),
            })
            .collect();
        let mut unique: Vec<(String, String)> = Vec::new();
        for set in &canonical {
            if !unique.contains(set) {
                unique.push(set.clone());
            }
        }
        let named = super::modules::namespaces(&unique);
        canonical
            .iter()
            .map(|set| named[unique.iter().position(|known| known == set).unwrap_or_default()].clone())
            .collect::<Vec<_>>()
    };
    for (((format, path), namespace), family) in found.iter().zip(&namespaces).zip(&families) {
        let tag = match format.as_str() {
            "android-xml" => "android",
            "apple-strings" | "xcstrings" => "ios",
            "arb" => "flutter",
            _ => "web",
        };
        text.push_str(&format!(
            "\n[[files]]\nformat = {format:?}\npath = {path:?}\n{}\
             # languages = [\"en\", \"fr\"]   # only these (default: every language)\n\
             {}tags = [\"{tag}\"]   # push tags its keys with these; pull takes only keys with one\n",
            match namespace {
                Some(namespace) => format!(
                    "namespace = {namespace:?}   # this module's own key space: its keys never mix with another's\n"
                ),
                None => String::new(),
            } + &match family {
                Some((_, Some(file))) => format!(
                    "file = {file:?}   # one family of the locale's files: one key space with the others, its keys pulled into these files\n"
                ),
                _ => String::new(),
            },
            if tagged { "" } else { "# " }
        ));
    }
    for set in &domain_sets {
        text.push_str(&format!(
            "\n[[files]]\nformat = {:?}\npath = {:?}\nnamespace = {:?}   # the domain's own key space\n\
             # languages = [\"en\", \"fr\"]   # only these (default: every language)\n",
            set.format, set.path, set.namespace
        ));
    }
    if !found.is_empty() || !domain_sets.is_empty() {
        // What is written must read back; a project name with quotes would not, say.
        Settings::parse(&text, dir).map_err(|message| Failure::new(format!("cannot write settings: {message}")))?;
    }
    std::fs::write(&target, text).map_err(|err| Failure::new(format!("cannot write {}: {err}", target.display())))?;
    Ok((
        target,
        found
            .into_iter()
            .map(|(format, path)| format!("{format}: {path}"))
            .chain(domain_sets.iter().map(|set| format!("{}: {}", set.format, set.path)))
            .collect(),
    ))
}

/// The file sets under `root`: (format, path relative to `root`), in path order.
fn find_sets(root: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            // An Xcode localization catalog (`fr.xcloc`) is found from its parent folder.
            !(entry.file_type().is_dir()
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED.contains(&name) || name.ends_with(".xcloc")))
        });
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
        let relative = if relative.is_empty() { ".".to_owned() } else { relative };
        if has_android_strings(dir) {
            found.push(("android-xml".to_owned(), relative.clone()));
        }
        for table in csv_tables(dir).into_iter().chain(language_folder_tables(dir)) {
            let path = if relative == "." {
                table
            } else {
                format!("{relative}/{table}")
            };
            found.push(("csv-table".to_owned(), path));
        }
        if has_lproj(dir) {
            found.push(("apple-strings".to_owned(), relative.clone()));
        }
        if has_catalogs(dir) {
            found.push(("xcstrings".to_owned(), relative.clone()));
        }
        if let Some(prefix) = arb_prefix(root, dir) {
            let pattern = if relative == "." {
                format!("{prefix}{{lang}}.arb")
            } else {
                format!("{relative}/{prefix}{{lang}}.arb")
            };
            found.push(("arb".to_owned(), pattern));
        }
        if let Some(format) = xcloc_format(dir) {
            let pattern = XCLOC_PATTERN.to_owned();
            let pattern = if relative == "." {
                pattern
            } else {
                format!("{relative}/{pattern}")
            };
            found.push((format.to_owned(), pattern));
        }
        if let Some(extension) = language_files(dir) {
            let pattern = if relative == "." {
                format!("{{lang}}.{extension}")
            } else {
                format!("{relative}/{{lang}}.{extension}")
            };
            let format = match extension {
                "json" if has_i18next_plurals(dir) => "i18next",
                "xliff" => xliff_format(&dir.join(format!("{}.xliff", language_example(dir, "xliff")))),
                "yml" => "yaml",
                _ => extension,
            };
            found.push((format.to_owned(), pattern));
        } else if has_namespace_folders(dir) {
            // i18next's layout: a folder per language of namespace files.
            let pattern = if relative == "." {
                "{lang}/{ns}.json".to_owned()
            } else {
                format!("{relative}/{{lang}}/{{ns}}.json")
            };
            let format = if has_i18next_plurals(dir) { "i18next" } else { "json" };
            found.push((format.to_owned(), pattern));
        } else if has_po_language_folders(dir) {
            // GNOME's help: `help/fr/fr.po`, a folder per language holding its one file.
            let pattern = if relative == "." {
                "{lang}/{lang}.po".to_owned()
            } else {
                format!("{relative}/{{lang}}/{{lang}}.po")
            };
            found.push(("po".to_owned(), pattern));
        } else if let Some(inner) = prefixed_po_language_folders(dir) {
            let pattern = if relative == "." {
                inner
            } else {
                format!("{relative}/{inner}")
            };
            found.push(("po".to_owned(), pattern));
        }
        for pattern in json_families(dir) {
            let pattern = if relative == "." {
                pattern
            } else {
                format!("{relative}/{pattern}")
            };
            found.push(("json".to_owned(), pattern));
        }
        // Rails: families of `{family}.{lang}.yml` (`devise.fr.yml`) beside or instead of
        // `{lang}.yml`, and folders per language of files (`config/locales/fr/**/*.yml`),
        // one set per family or file name.
        for pattern in rails_families(dir)
            .into_iter()
            .chain(rails_language_folders(dir))
            .chain(rails_files_of_languages(dir))
        {
            let pattern = if relative == "." {
                pattern
            } else {
                format!("{relative}/{pattern}")
            };
            found.push(("yaml".to_owned(), pattern));
        }
    }
    found
}

/// For each set found, when it is one of several Rails YAML sets of one locale folder
/// (`config/locales/{lang}.yml`, `devise.{lang}.yml`, `{lang}/mailers/user_mailer.yml`), the
/// folder and its family's file (`devise`, `mailers.user_mailer`; `None` for `{lang}.yml`):
/// Rails merges a locale's files, so they are one key space, each family pulled into its own
/// files.
fn rails_files(found: &[(String, String)]) -> Vec<Option<(String, Option<String>)>> {
    // A file of several languages (`overrides.yml`) is a family of its own.
    let split = |path: &str| -> Option<(String, String)> {
        let parts: Vec<&str> = path.split('/').collect();
        let at = match parts.iter().position(|part| part.contains("{lang}")) {
            Some(at) => at,
            None => parts.len() - 1,
        };
        Some((parts[..at].join("/"), parts[at..].join("/")))
    };
    found
        .iter()
        .map(|(format, path)| {
            if format != "yaml" {
                return None;
            }
            let (folder, rest) = split(path)?;
            let siblings = found
                .iter()
                .filter(|(other, other_path)| {
                    other == "yaml" && split(other_path).is_some_and(|(other_folder, _)| other_folder == folder)
                })
                .count();
            if siblings < 2 {
                return None;
            }
            let stem = rest
                .strip_suffix(".yml")
                .or_else(|| rest.strip_suffix(".yaml"))
                .unwrap_or(&rest)
                .replace("{lang}", "");
            let family = stem
                .split(['/', '.'])
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(".");
            Some((folder, Some(family).filter(|family| !family.is_empty())))
        })
        .collect()
}

/// Whether the JSON files in a folder (or its language folders) write plural forms as
/// i18next v4 does, as members named `..._other`.
fn has_i18next_plurals(dir: &Path) -> bool {
    walkdir::WalkDir::new(dir)
        .max_depth(2)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| {
            entry.file_type().is_file() && entry.path().extension().is_some_and(|extension| extension == "json")
        })
        .take(64)
        .any(|entry| std::fs::read_to_string(entry.path()).is_ok_and(|text| super::domains::has_plural_pair(&text)))
}

/// The entries of a folder that can be read (none when it cannot).
fn entries(dir: &Path) -> impl Iterator<Item = std::fs::DirEntry> {
    std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok)
}

/// The folders in a folder.
fn subfolders(dir: &Path) -> impl Iterator<Item = std::fs::DirEntry> {
    entries(dir).filter(|entry| entry.path().is_dir())
}

/// Whether a folder holds folders named by language (`en/`, `pt-BR/`) of `.json` files: two
/// or more, or one that is English.
fn has_namespace_folders(dir: &Path) -> bool {
    let languages: Vec<String> = subfolders(dir)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let looks_like_language = name.len() <= 10 && LanguageCode::parse(&name).is_ok();
            let holds_json =
                entries(&entry.path()).any(|file| file.path().extension().is_some_and(|extension| extension == "json"));
            // A folder of files named by language (Folo's `locales/ai/en.json`) is a
            // namespace of the `{ns}/{lang}.json` layout, whatever its own name looks like.
            let of_languages = language_files(&entry.path()) == Some("json");
            (looks_like_language && holds_json && !of_languages).then_some(name)
        })
        .collect();
    languages.len() >= 2 || languages.iter().any(|language| language.eq_ignore_ascii_case("en"))
}

/// Whether a folder holds two or more folders named by a gettext locale (`fr/`, `sr@latin/`)
/// each with a `.po` file of the same name (`fr/fr.po`), as GNOME's help keeps them.
fn has_po_language_folders(dir: &Path) -> bool {
    subfolders(dir)
        .filter(|entry| {
            entry.file_name().to_str().is_some_and(|name| {
                crate::formats::po::locale_language(name).is_some() && entry.path().join(format!("{name}.po")).is_file()
            })
        })
        .take(2)
        .count()
        == 2
}

/// Kodi's add-ons: `resources/language/resource.language.fr_fr/strings.po`, a folder per
/// language named with a prefix, each holding a file of one name; as the pattern inside
/// `dir` (`resource.language.{lang}/strings.po`), for two or more languages.
fn prefixed_po_language_folders(dir: &Path) -> Option<String> {
    const PREFIX: &str = "resource.language.";
    let mut files: Vec<String> = subfolders(dir)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            crate::formats::po::locale_language(name.strip_prefix(PREFIX)?)?;
            let po = entries(&entry.path())
                .filter_map(|file| file.file_name().to_str().map(str::to_owned))
                .find(|file| file.ends_with(".po"))?;
            Some(po)
        })
        .collect();
    files.sort();
    let first = files.first()?.clone();
    (files.len() >= 2 && files.iter().all(|file| *file == first)).then(|| format!("{PREFIX}{{lang}}/{first}"))
}

/// The root key of a Rails locale file: its first line that is not blank, a comment or `---`,
/// up to its colon.
fn rails_locale_root(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text
        .lines()
        .map(str::trim_end)
        .find(|line| !line.is_empty() && !line.starts_with('#') && *line != "---")?;
    let key = line.strip_suffix(':')?;
    Some(key.trim_matches(['"', '\'']).to_owned())
}

/// VS Code's families of JSON files: `package.nls.json` (the base language's) beside
/// `package.nls.{lang}.json`, `bundle.l10n.json` beside `bundle.l10n.{lang}.json`; as
/// patterns (`package.nls.{lang}.json`), for families of two or more languages.
fn json_families(dir: &Path) -> Vec<String> {
    let mut families: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for entry in entries(dir) {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Some((family, language)) = name.strip_suffix(".json").and_then(|stem| stem.rsplit_once('.')) else {
            continue;
        };
        if family.is_empty() || LanguageCode::parse(language).is_err() || language.len() > 10 {
            continue;
        }
        if dir.join(format!("{family}.json")).is_file() {
            *families.entry(family.to_owned()).or_default() += 1;
        }
    }
    families
        .into_iter()
        .filter(|(_, languages)| *languages >= 2)
        .map(|(family, _)| format!("{family}.{{lang}}.json"))
        .collect()
}

/// The Rails families of a folder's `{family}.{lang}.yml` files whose root key is their
/// language (`devise.fr.yml` holds `fr:`), as patterns (`devise.{lang}.yml`): those of two
/// or more languages, or of English.
fn rails_families(dir: &Path) -> Vec<String> {
    let mut families: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for entry in entries(dir) {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Some((family, language)) = name.strip_suffix(".yml").and_then(|stem| stem.rsplit_once('.')) else {
            continue;
        };
        if family.is_empty() || LanguageCode::parse(language).is_err() {
            continue;
        }
        if rails_locale_root(&entry.path()).as_deref() == Some(language) {
            families.entry(family.to_owned()).or_default().push(language.to_owned());
        }
    }
    families
        .into_iter()
        .filter(|(_, languages)| languages.len() >= 2 || languages.iter().any(|language| language == "en"))
        .map(|(family, _)| format!("{family}.{{lang}}.yml"))
        .collect()
}

/// The Rails files of a locale folder that hold several languages, each under its root key
/// (Foodsoft's `config/locales/overrides.yml`, with `en:` and `nl:` beside `en.yml` and
/// `nl.yml`): a set each, named as it is. Only in a folder that has a locale's own files, so
/// that no other YAML file whose root keys happen to look like codes is taken.
fn rails_files_of_languages(dir: &Path) -> Vec<String> {
    if language_files(dir) != Some("yml") {
        return Vec::new();
    }
    let mut found: Vec<String> = entries(dir)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let stem = name.strip_suffix(".yml").or_else(|| name.strip_suffix(".yaml"))?;
            // A locale's own file (`fr.yml`, `devise.fr.yml`) is another set's.
            let last = stem.rsplit('.').next().unwrap_or(stem);
            if LanguageCode::parse(last).is_ok() {
                return None;
            }
            let roots = crate::formats::yaml::root_keys(&std::fs::read_to_string(entry.path()).ok()?)?;
            let languages = roots.iter().filter(|root| LanguageCode::parse(root).is_ok()).count();
            (languages >= 2 && languages == roots.len()).then_some(name)
        })
        .collect();
    found.sort();
    found
}

/// The Rails locale files kept in a folder per language (CodeOcean's
/// `config/locales/de/mailers/user_mailer.yml`), as one pattern per file name
/// (`{lang}/mailers/user_mailer.yml`): the files under folders named by a language whose root
/// key is that language, when two or more languages (or English) have such folders.
fn rails_language_folders(dir: &Path) -> Vec<String> {
    let mut languages = 0;
    let mut english = false;
    let mut files = std::collections::BTreeSet::new();
    for entry in entries(dir) {
        let Some(language) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if !entry.path().is_dir() || language.len() > 10 || LanguageCode::parse(&language).is_err() {
            continue;
        }
        let mut found = false;
        for file in walkdir::WalkDir::new(entry.path())
            .max_depth(4)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|file| file.file_type().is_file())
        {
            let Ok(inner) = file.path().strip_prefix(entry.path()) else {
                continue;
            };
            let inner = inner.to_string_lossy().replace('\\', "/");
            if inner.ends_with(".yml") && rails_locale_root(file.path()).as_deref() == Some(language.as_str()) {
                files.insert(inner);
                found = true;
            }
        }
        if found {
            languages += 1;
            english |= language.eq_ignore_ascii_case("en");
        }
    }
    if languages < 2 && !english {
        return Vec::new();
    }
    files.into_iter().map(|file| format!("{{lang}}/{file}")).collect()
}

/// Where Xcode's "Export Localizations" puts each language's XLIFF file.
const XCLOC_PATTERN: &str = "{lang}.xcloc/Localized Contents/{lang}.xliff";

/// The format of the folder's Xcode localization catalogs (`fr.xcloc/Localized
/// Contents/fr.xliff`), when it has some.
fn xcloc_format(dir: &Path) -> Option<&'static str> {
    entries(dir).find_map(|entry| {
        let name = entry.file_name().to_str()?.to_owned();
        let language = name.strip_suffix(".xcloc")?;
        let file = entry
            .path()
            .join("Localized Contents")
            .join(format!("{language}.xliff"));
        file.is_file().then(|| xliff_format(&file))
    })
}

/// A language of the folder's `{lang}.EXTENSION` files.
fn language_example(dir: &Path, extension: &str) -> String {
    entries(dir)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let stem = name.strip_suffix(&format!(".{extension}"))?;
            LanguageCode::parse(stem).ok().map(|_| stem.to_owned())
        })
        .min()
        .unwrap_or_default()
}

/// Whether some entry of the folder (its path) is what `wanted` looks for.
fn holds(dir: &Path, wanted: impl Fn(&Path) -> bool) -> bool {
    entries(dir).any(|entry| wanted(&entry.path()))
}

/// The CSV translation tables in `dir` (by file name, in name order): files whose first rows
/// hold a header of language codes (`keys,en,de`, `,en,de`, `name,en_US,ja_JP`). A file named
/// by a language (`fr.csv`) is one of a `{lang}.csv` set instead.
fn csv_tables(dir: &Path) -> Vec<String> {
    let mut tables: Vec<String> = entries(dir)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let stem = name.strip_suffix(".csv")?;
            if (LanguageCode::parse(stem).is_ok() && super::domains::locale_shaped(stem)) || !entry.path().is_file() {
                return None;
            }
            let mut head = Vec::with_capacity(64 * 1024);
            std::io::Read::read_to_end(
                &mut std::io::Read::take(std::fs::File::open(entry.path()).ok()?, 64 * 1024),
                &mut head,
            )
            .ok()?;
            crate::formats::csv_table::is_table(&head).then_some(name)
        })
        .collect();
    tables.sort();
    tables
}

/// The files of one language without a header in a folder per language (OpenVic's
/// `locales/en_GB/menus.csv` of `KEY;text` rows, as games keep them), as one pattern per file
/// name (`{lang}/menus.csv`): those of folders named by a language whose files hold such rows,
/// when two or more languages (or English) have them. A file with a header of language codes
/// is a table of its own ([`csv_tables`]).
fn language_folder_tables(dir: &Path) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    let mut languages = Vec::new();
    for folder in subfolders(dir) {
        let Some(language) = folder.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if LanguageCode::parse(&language).is_err() || !super::domains::locale_shaped(&language) {
            continue;
        }
        for entry in entries(&folder.path()) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if !name.ends_with(".csv") {
                continue;
            }
            let Ok(bytes) = std::fs::read(entry.path()) else {
                continue;
            };
            let rows = crate::formats::csv_table::read_in(&bytes, Some(&language))
                .is_ok_and(|read| read.columns.iter().any(|(_, entries)| !entries.is_empty()));
            if rows && !crate::formats::csv_table::is_table(&bytes) {
                names.insert(name);
                languages.push(language.clone());
            }
        }
    }
    languages.dedup();
    if languages.len() < 2 && !languages.iter().any(|language| language.starts_with("en")) {
        return Vec::new();
    }
    names.into_iter().map(|name| format!("{{lang}}/{name}")).collect()
}

/// Whether `dir` is an Android `res` folder with strings: `values/strings.xml`, or another
/// XML file of `values/` holding strings or plurals (a flavour's `strings_no_translate.xml`).
fn has_android_strings(dir: &Path) -> bool {
    let values = dir.join("values");
    if values.join("strings.xml").is_file() {
        return true;
    }
    let Ok(files) = std::fs::read_dir(&values) else {
        return false;
    };
    files.filter_map(Result::ok).any(|file| {
        let path = file.path();
        path.extension().is_some_and(|extension| extension == "xml")
            && std::fs::read(&path).is_ok_and(|bytes| {
                memchr::memmem::find(&bytes, b"<string ").is_some()
                    || memchr::memmem::find(&bytes, b"<plurals ").is_some()
            })
    })
}

/// Whether `dir` holds a `*.lproj` folder with a table: any `.strings` or `.stringsdict` file
/// (an app extension's `InfoPlist.strings` alone, a framework's own table), not only
/// `Localizable.strings`.
fn has_lproj(dir: &Path) -> bool {
    holds(dir, |path| {
        path.extension().is_some_and(|extension| extension == "lproj")
            && holds(path, |file| {
                file.is_file()
                    && file
                        .extension()
                        .is_some_and(|extension| extension == "strings" || extension == "stringsdict")
            })
    })
}

/// What comes before the language in the names of the folder's Flutter ARB files (`app_` of
/// `app_{lang}.arb`, `intl_` of `intl_{lang}.arb`), when it holds some: the folder that the
/// app's `l10n.yaml` names (`arb-dir`, default `lib/l10n`) with the prefix of its
/// `template-arb-file`, or else `app_` files (`gen-l10n`'s default) or `intl_` files (the
/// Flutter Intl plugin's, configured in `pubspec.yaml`) anywhere.
fn arb_prefix(root: &Path, dir: &Path) -> Option<String> {
    let prefixes = match flutter_template(root, dir) {
        Some(template) => vec![
            crate::formats::arb::language_of(&template)
                .and_then(|language| template.strip_suffix(&format!("{}.arb", language.replace('-', "_"))))
                .map(str::to_owned)?,
        ],
        None => vec!["app_".to_owned(), "intl_".to_owned()],
    };
    prefixes.into_iter().find(|prefix| {
        holds(dir, |path| {
            path.file_name().and_then(|name| name.to_str()).is_some_and(|name| {
                name.starts_with(prefix.as_str()) && crate::formats::arb::language_of(name).is_some()
            })
        })
    })
}

/// The template file (`template-arb-file`) of the `l10n.yaml` that names `dir` as its ARB
/// folder (`arb-dir`, relative to the `l10n.yaml`'s folder; `lib/l10n` when not given).
fn flutter_template(root: &Path, dir: &Path) -> Option<String> {
    // `l10n.yaml` sits in the Flutter package's root, some folders above `arb-dir`.
    for package in dir.ancestors().take_while(|folder| folder.starts_with(root)) {
        let Ok(text) = std::fs::read_to_string(package.join("l10n.yaml")) else {
            continue;
        };
        let setting = |name: &str| {
            text.lines().find_map(|line| {
                let value = line.strip_prefix(name)?.trim_start().strip_prefix(':')?;
                let value = value.split(" #").next().unwrap_or_default().trim();
                Some(value.trim_matches(['"', '\'']).to_owned())
            })
        };
        let arb_dir = setting("arb-dir").unwrap_or_else(|| "lib/l10n".to_owned());
        if package.join(arb_dir.trim_end_matches('/')) != dir {
            continue;
        }
        return Some(setting("template-arb-file").unwrap_or_else(|| "app_en.arb".to_owned()));
    }
    None
}

/// Whether the folder holds an Xcode String Catalog (`*.xcstrings`).
fn has_catalogs(dir: &Path) -> bool {
    holds(dir, |path| {
        path.extension().is_some_and(|extension| extension == "xcstrings") && path.is_file()
    })
}

/// `json`, `csv` or `po` when the folder holds files named by language (`en.json`, `pt-BR.json`):
/// two or more, or one that is English.
fn language_files(dir: &Path) -> Option<&'static str> {
    for extension in ["json", "csv", "po", "xliff", "yml"] {
        let languages: Vec<String> = entries(dir)
            .filter_map(|entry| {
                let name = entry.file_name().to_str()?.to_owned();
                let stem = name.strip_suffix(&format!(".{extension}"))?.to_owned();
                // gettext's locales may carry a modifier: `sr_RS@latin.po`.
                let looks_like_language = match extension {
                    "po" => stem.len() <= 16 && crate::formats::po::locale_language(&stem).is_some(),
                    _ => stem.len() <= 10 && LanguageCode::parse(&stem).is_ok() && super::domains::locale_shaped(&stem),
                };
                // A Rails locale file's root key is its language (a workflow's `ci.yml` is not).
                let rails_root =
                    extension != "yml" || rails_locale_root(&entry.path()).as_deref() == Some(stem.as_str());
                (looks_like_language && rails_root).then_some(stem)
            })
            .collect();
        if languages.len() >= 2 || languages.iter().any(|language| language.eq_ignore_ascii_case("en")) {
            return Some(extension);
        }
    }
    None
}

#[cfg(test)]
mod tests;
