//! The app's files on disk: which ones a push uploads (with the path the upload's layout
//! gives them), and where a pulled file goes. Every path is checked against the layout, so a
//! pull writes nothing outside the configured folders.

use std::path::{Path, PathBuf};

use super::Failure;
use super::settings::{FileSet, LANGUAGE_PLACEHOLDER, NAMESPACE_PLACEHOLDER, folded};
use crate::formats::ExportFormat;
use crate::formats::upload::{BASE_LANGUAGE, place};

/// A file of the app: where it is on disk and its path in the upload's layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalFile {
    pub disk: PathBuf,
    pub layout: String,
}

/// The layout path of a set's file of several languages ([`FileSet::is_file_of_languages`]):
/// a name that is no language code, so the server takes the languages from its root keys.
pub const LANGUAGES_IN_FILE: &str = "languages.yml";

/// The files of a set that a push uploads, in layout order.
pub fn collect(set: &FileSet) -> Result<Vec<LocalFile>, Failure> {
    let mut files = match set.format {
        // A file of several languages goes by a name that is no language's, so that the
        // server reads each root key as its language.
        _ if set.is_file_of_languages() => [LocalFile {
            disk: set.root.clone(),
            layout: LANGUAGES_IN_FILE.to_owned(),
        }]
        .into_iter()
        .filter(|file| file.disk.is_file())
        .collect(),
        ExportFormat::AndroidXml | ExportFormat::AppleStrings => folder_files(set)?,
        ExportFormat::Xcstrings => catalog_files(set)?,
        // A table per language: each in its language's folder, so the server reads the
        // file as that language's.
        ExportFormat::CsvTable if set.is_table_per_language() => pattern_files(set)?
            .into_iter()
            .map(|found| LocalFile {
                layout: format!(
                    "{}/{}",
                    found.language,
                    found
                        .disk
                        .file_name()
                        .and_then(|name| name.to_str())
                        .unwrap_or("table.csv")
                ),
                disk: found.disk,
            })
            .collect(),
        // A table's set names the file itself.
        ExportFormat::CsvTable => vec![LocalFile {
            disk: set.root.clone(),
            layout: set
                .root
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or(crate::formats::csv_table::PATH)
                .to_owned(),
        }]
        .into_iter()
        .filter(|file| file.disk.is_file())
        .collect(),
        _ => pattern_files(set)?
            .into_iter()
            .map(|found| LocalFile {
                layout: match &found.namespace {
                    Some(namespace) => format!("{}/{namespace}.json", found.language),
                    None if set.format == ExportFormat::Arb => format!("app_{}.arb", found.language),
                    None => format!("{}.{}", found.language, extension(set.format)),
                },
                disk: found.disk,
            })
            .collect(),
    };
    if let Some(base) = base_file(set).filter(|base| base.is_file()) {
        files.push(LocalFile {
            disk: base,
            layout: format!("{BASE_LANGUAGE}.{}", extension(set.format)),
        });
    }
    if set.format == ExportFormat::Po
        && let Some(template) = template_file(set).filter(|template| template.is_file())
    {
        files.push(LocalFile {
            disk: template,
            layout: crate::formats::po::TEMPLATE.to_owned(),
        });
    }
    files.retain(|file| wanted(set, &file.layout));
    files.sort_by(|a, b| a.layout.cmp(&b.layout));
    if files.is_empty() {
        return Err(Failure::new(format!(
            "{} holds no {} files",
            set.path,
            set.format.name()
        )));
    }
    Ok(files)
}

/// Where a file of the export goes, or `None` when it is not of the set's layout (then it is
/// not written).
pub fn destination(set: &FileSet, layout: &str, base_language: &str) -> Option<PathBuf> {
    let language = place(set.format, layout)?;
    let parts: Vec<&str> = layout.split('/').collect();
    let safe = parts
        .iter()
        .all(|part| !part.is_empty() && *part != "." && *part != ".." && !part.contains('\\'));
    if !safe {
        return None;
    }
    match set.format {
        // Each language's export goes into its part of the one file (see `pull`).
        _ if set.is_file_of_languages() => match parts.as_slice() {
            [_] => Some(set.root.clone()),
            _ => None,
        },
        // `values-fr/strings.xml`, `fr.lproj/Localizable.strings`: one folder and a file, in
        // the app's own folder of that language when it has one (`English.lproj` for `en`,
        // `Base.lproj` for the base language, `values-b+pt+BR` for `pt-BR`).
        // `Localizable.xcstrings`: a catalog in the set's folder.
        ExportFormat::Xcstrings => match parts.as_slice() {
            [file] => Some(set.root.join(file)),
            _ => None,
        },
        // A table per language's files are patched from the one table (see `pull`).
        ExportFormat::CsvTable if set.is_table_per_language() => None,
        // The one table of the export is the set's file.
        ExportFormat::CsvTable => match parts.as_slice() {
            [_] => Some(set.root.clone()),
            _ => None,
        },
        ExportFormat::AndroidXml | ExportFormat::AppleStrings => {
            if parts.len() != 2 {
                return None;
            }
            let folder = app_folder(set, &language, base_language).unwrap_or_else(|| parts[0].to_owned());
            Some(set.root.join(folder).join(parts[1]))
        }
        // `fr.json` (or `fr/common.json` for a `{ns}` pattern): the app's own file of that
        // language (and namespace) when it has one (`pt_BR.json` for `pt-BR`), else the
        // pattern with the language (and namespace) filled in.
        // A gettext template: the app's own (`gradia.pot`), else `template.pot` beside the
        // language files.
        // A pull never adds a template or a base language's `.po` to an app that keeps files
        // without them (GNOME's apps keep neither, their msgids are the source texts): they
        // are written only into a set that has no file yet.
        ExportFormat::Po if layout == crate::formats::po::TEMPLATE => match template_file(set) {
            Some(template) => Some(template),
            None if has_no_files(set) => Some(pattern_folder(set).join(crate::formats::po::TEMPLATE)),
            None => None,
        },
        ExportFormat::Po
            if !base_language.is_empty()
                && folded(&language) == folded(base_language)
                && !has_no_files(set)
                && !pattern_files(set)
                    .unwrap_or_default()
                    .iter()
                    .any(|found| folded(&found.code()) == folded(&language)) =>
        {
            None
        }
        // The formats found by a pattern (`ExportFormat::uses_pattern`).
        _ => {
            let namespaced = set.path.contains(NAMESPACE_PLACEHOLDER);
            let namespace = match (namespaced, parts.as_slice()) {
                (false, [_]) => None,
                (true, [_, nested @ ..]) if !nested.is_empty() => {
                    Some(nested.join("/").strip_suffix(".json")?.to_owned())
                }
                _ => return None,
            };
            let all = pattern_files(set).unwrap_or_default();
            // VS Code's `package.nls.json` beside `package.nls.{lang}.json`: the base
            // language's file when the app has none named by its code.
            let is_base =
                language == BASE_LANGUAGE || (!base_language.is_empty() && folded(&language) == folded(base_language));
            if is_base
                && !all.iter().any(|found| folded(&found.language) == folded(&language))
                && let Some(base) = base_file(set)
            {
                return Some(base);
            }
            if language == BASE_LANGUAGE || language.contains(['/', '\\']) {
                return None;
            }
            // An app whose files do not include the project's base language (Jellyfin keeps
            // its English in `en-us.json` of a project whose base is `en`) does not get one:
            // a pull adds only the files of languages new on the server.
            if !base_language.is_empty()
                && folded(&language) == folded(base_language)
                && !all.is_empty()
                && !all.iter().any(|found| folded(&found.language) == folded(&language))
            {
                return None;
            }
            let of_language: Vec<PatternFile> = all
                .into_iter()
                .filter(|found| folded(&found.code()) == folded(&language))
                .collect();
            let existing = of_language
                .iter()
                .find(|found| found.namespace == namespace)
                .map(|found| found.disk.clone());
            let language_folder = of_language.first().map(|found| found.language.clone());
            Some(existing.unwrap_or_else(|| {
                fill_pattern(
                    &set.root,
                    language_folder.as_deref().unwrap_or(&language),
                    namespace.as_deref(),
                )
            }))
        }
    }
}

/// A set's file of the base language that names no language, when the app has one: the
/// settings' `base`, else the pattern without `{lang}` and the dot before it, for JSON
/// (`package.nls.json` beside `package.nls.{lang}.json`, VS Code's layout) and XLIFF
/// (`messages.xlf` beside `messages.{lang}.xlf`, Angular's source file). A PO set's base file
/// is its template ([`template_file`]).
fn base_file(set: &FileSet) -> Option<PathBuf> {
    if set.format == ExportFormat::Po {
        return None;
    }
    if let Some(base) = &set.base {
        return Some(base.clone());
    }
    let by_pattern = match set.format {
        ExportFormat::Json => !set.path.contains(NAMESPACE_PLACEHOLDER),
        ExportFormat::Xliff | ExportFormat::Xliff2 => true,
        _ => false,
    };
    if !by_pattern {
        return None;
    }
    let pattern = set.root.to_string_lossy().into_owned();
    let (before, after) = pattern.split_once(LANGUAGE_PLACEHOLDER)?;
    if after.contains('/') || after.contains(LANGUAGE_PLACEHOLDER) {
        return None;
    }
    let base = match before.strip_suffix('.') {
        Some(before) if !before.ends_with('/') && !before.is_empty() => format!("{before}{after}"),
        // TYPO3's `de.locallang.xlf` beside `locallang.xlf`: the dot after the language.
        None if (before.is_empty() || before.ends_with('/')) && set.format != ExportFormat::Json => {
            format!("{before}{}", after.strip_prefix('.').filter(|rest| rest.contains('.'))?)
        }
        _ => return None,
    };
    let base = PathBuf::from(base);
    base.is_file().then_some(base)
}

/// Where a pushed file's layout path is on disk (for messages): under the set's folder, or
/// for a pattern the pattern's own file of that language.
pub fn disk_path(set: &FileSet, layout: &str) -> PathBuf {
    match set.format {
        ExportFormat::AndroidXml | ExportFormat::AppleStrings | ExportFormat::Xcstrings => set.root.join(layout),
        ExportFormat::CsvTable if set.is_table_per_language() => match layout.split_once('/') {
            Some((language, _)) => table_file(set, language),
            None => set.root.clone(),
        },
        ExportFormat::CsvTable => set.root.clone(),
        _ if set.is_file_of_languages() => set.root.clone(),
        // The formats found by a pattern (`ExportFormat::uses_pattern`).
        _ => destination(set, layout, "").unwrap_or_else(|| PathBuf::from(layout)),
    }
}

/// The file of `language` of a table per language ([`FileSet::is_table_per_language`]): the
/// app's own (its folder named by the language, folding case and `-`/`_`), else the pattern
/// with the language.
pub fn table_file(set: &FileSet, language: &str) -> PathBuf {
    pattern_files(set)
        .unwrap_or_default()
        .into_iter()
        .find(|found| folded(&found.code()) == folded(language))
        .map_or_else(|| fill_pattern(&set.root, language, None), |found| found.disk)
}

/// The app's folder (under the set's root) of `language`, when it has one: the folder whose
/// name maps to the same language, ignoring case and `-`/`_`; for the base language the base
/// folder (`values`, `Base.lproj`) when the app has no folder named by the code.
fn app_folder(set: &FileSet, language: &str, base_language: &str) -> Option<String> {
    let same = |a: &str, b: &str| folded(a) == folded(b);
    let mut base_folder = None;
    for folder in read_dir(&set.root).ok()? {
        let Some(name) = folder.file_name().and_then(|name| name.to_str()).map(str::to_owned) else {
            continue;
        };
        if !folder.is_dir() {
            continue;
        }
        let probe = match set.format {
            ExportFormat::AndroidXml => format!("{name}/strings.xml"),
            _ => format!("{name}/Localizable.strings"),
        };
        match place(set.format, &probe) {
            Some(found) if found == BASE_LANGUAGE => base_folder = Some(name),
            Some(found) if same(&found, language) => return Some(name),
            _ => {}
        }
    }
    let is_base = language == BASE_LANGUAGE || (!base_language.is_empty() && same(language, base_language));
    base_folder.filter(|_| is_base)
}

/// Whether a layout path's language is one the set asks for.
fn wanted(set: &FileSet, layout: &str) -> bool {
    if set.languages.is_empty() {
        return true;
    }
    match place(set.format, layout) {
        // The base folder's language is the project's base language, which only the server
        // knows; it is kept.
        Some(language) if language == BASE_LANGUAGE => true,
        Some(language) => set.languages.iter().any(|wanted| folded(wanted) == folded(&language)),
        None => false,
    }
}

fn extension(format: ExportFormat) -> &'static str {
    match format {
        ExportFormat::Csv | ExportFormat::CsvTable => "csv",
        ExportFormat::Po => "po",
        ExportFormat::Arb => "arb",
        ExportFormat::Xliff | ExportFormat::Xliff2 => "xliff",
        ExportFormat::Yaml => "yml",
        _ => "json",
    }
}

/// Android `values*/*.xml` and Apple `*.lproj/Localizable.strings(dict)` under the set's folder.
fn folder_files(set: &FileSet) -> Result<Vec<LocalFile>, Failure> {
    let mut files = Vec::new();
    for folder in read_dir(&set.root)? {
        let Some(folder_name) = folder.file_name().and_then(|name| name.to_str()).map(str::to_owned) else {
            continue;
        };
        if !folder.is_dir() {
            continue;
        }
        for file in read_dir(&folder)? {
            let Some(file_name) = file.file_name().and_then(|name| name.to_str()) else {
                continue;
            };
            let layout = format!("{folder_name}/{file_name}");
            if file.is_file() && place(set.format, &layout).is_some() {
                files.push(LocalFile { disk: file, layout });
            }
        }
    }
    Ok(files)
}

/// String Catalogs (`*.xcstrings`) in the set's folder.
fn catalog_files(set: &FileSet) -> Result<Vec<LocalFile>, Failure> {
    let mut files = Vec::new();
    for file in read_dir(&set.root)? {
        let Some(file_name) = file.file_name().and_then(|name| name.to_str()).map(str::to_owned) else {
            continue;
        };
        if file.is_file() && place(set.format, &file_name).is_some() {
            files.push(LocalFile {
                disk: file,
                layout: file_name,
            });
        }
    }
    Ok(files)
}

/// The folder of a pattern's language component (`po` for `po/{lang}.po`).
fn pattern_folder(set: &FileSet) -> PathBuf {
    let pattern = set.root.to_string_lossy().into_owned();
    let before = pattern.split(LANGUAGE_PLACEHOLDER).next().unwrap_or_default();
    PathBuf::from(before.rsplit_once('/').map_or(".", |(folder, _)| folder))
}

/// The gettext template of a PO set: the settings' `base`, else the set's domain's `*.pot` in
/// the set's folder (`django.pot` for `locale/{lang}/LC_MESSAGES/django.po` and for
/// `django.{lang}.po`), else for a pattern that names no domain (`po/{lang}.po`) the folder's
/// `*.pot`, the first by name; else Lazarus' template, the pattern's file without its language
/// (`zip.po` beside `zip.{lang}.po`).
fn template_file(set: &FileSet) -> Option<PathBuf> {
    if let Some(base) = &set.base {
        return Some(base.clone());
    }
    let mut templates: Vec<PathBuf> = read_dir(&pattern_folder(set))
        .ok()?
        .into_iter()
        .filter(|path| path.is_file() && path.extension().is_some_and(|extension| extension == "pot"))
        .collect();
    templates.sort();
    let pattern = set.root.to_string_lossy().into_owned();
    let file = pattern.rsplit('/').next().unwrap_or_default();
    let domain = file
        .strip_suffix(".po")
        .map(|stem| stem.replace(&format!(".{LANGUAGE_PLACEHOLDER}"), ""))
        .filter(|domain| !domain.is_empty() && !domain.contains(LANGUAGE_PLACEHOLDER));
    let chosen = match &domain {
        Some(domain) => templates
            .into_iter()
            .find(|path| path.file_stem().is_some_and(|stem| stem.to_string_lossy() == *domain)),
        None => templates.into_iter().next(),
    };
    chosen.or_else(|| {
        let lazarus = pattern.replacen(&format!(".{LANGUAGE_PLACEHOLDER}.po"), ".po", 1);
        (lazarus != pattern && !lazarus.contains(LANGUAGE_PLACEHOLDER))
            .then(|| PathBuf::from(lazarus))
            .filter(|path| path.is_file())
    })
}

/// A file that matches a set's pattern: the language it names (as the app spells it), its
/// namespace for a `{ns}` pattern, and where it is.
struct PatternFile {
    language: String,
    namespace: Option<String>,
    disk: PathBuf,
}

impl PatternFile {
    /// The project's code of the file's language: gettext's `sr@latin` is `sr-Latn`.
    fn code(&self) -> String {
        crate::formats::po::locale_language(&self.language).unwrap_or_else(|| self.language.clone())
    }
}

/// Whether a set has no file of its own yet (a pull then writes the export's every file).
fn has_no_files(set: &FileSet) -> bool {
    template_file(set).is_none_or(|template| !template.is_file()) && pattern_files(set).unwrap_or_default().is_empty()
}

/// The files that match a `{lang}` pattern (and `{ns}`, in a language folder's file names).
fn pattern_files(set: &FileSet) -> Result<Vec<PatternFile>, Failure> {
    pattern_matches(set).map(|(found, _)| found)
}

/// The files a push passes over: those a `{lang}` pattern names with a locale that is no
/// language code (diaspora's `devise.hye-classical.yml`: a subtag of nine letters), each with
/// that name. Names that do not look like a locale at all (`package.json` beside
/// `{lang}.json`) are no one's files and are not listed.
pub fn passed_over(set: &FileSet) -> Vec<PassedOver> {
    if !set.path.contains(LANGUAGE_PLACEHOLDER) {
        return Vec::new();
    }
    pattern_matches(set).map(|(_, passed)| passed).unwrap_or_default()
}

/// A file a pattern names with a locale that is no language code, and that locale.
type PassedOver = (PathBuf, String);

/// [`pattern_files`], and the files of locale-like names that are no language code.
fn pattern_matches(set: &FileSet) -> Result<(Vec<PatternFile>, Vec<PassedOver>), Failure> {
    let mut passed = Vec::new();
    let pattern = set.root.to_string_lossy().into_owned();
    let (before, after) = pattern
        .split_once(LANGUAGE_PLACEHOLDER)
        .expect("settings check that the pattern has {lang}");
    // The folder up to the component with `{lang}`, that component's text around it, and the
    // rest of the path after it.
    let (folder, prefix) = before.rsplit_once('/').unwrap_or((".", before));
    let (suffix, rest) = match after.split_once('/') {
        Some((suffix, rest)) => (suffix, Some(rest)),
        None => (after, None),
    };
    let mut found = Vec::new();
    for entry in read_dir(Path::new(folder))? {
        let Some(name) = entry.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let Some(language) = name.strip_prefix(prefix).and_then(|name| name.strip_suffix(suffix)) else {
            continue;
        };
        if crate::formats::po::locale_language(language).is_none() {
            let (primary, rest_of_name) = language.split_at(language.find(['-', '_', '@']).unwrap_or(language.len()));
            let locale_like = (2..=3).contains(&primary.len())
                && primary.bytes().all(|byte| byte.is_ascii_alphabetic())
                && !rest_of_name.is_empty();
            let disk = match rest {
                Some(rest) if !rest.contains(NAMESPACE_PLACEHOLDER) => {
                    entry.join(rest.replace(LANGUAGE_PLACEHOLDER, language))
                }
                Some(_) => entry.clone(),
                None => entry.clone(),
            };
            if locale_like && disk.exists() {
                passed.push((disk, language.to_owned()));
            }
            continue;
        }
        match rest {
            Some(rest) if rest.contains(NAMESPACE_PLACEHOLDER) => {
                let (inner_folder, file) = match rest.rsplit_once('/') {
                    Some((inner, file)) => (entry.join(inner), file),
                    None => (entry.clone(), rest),
                };
                let (ns_prefix, ns_suffix) = file.split_once(NAMESPACE_PLACEHOLDER).unwrap_or((file, ""));
                // `{ns}.json` takes the folders below too: `fr/settings/profile.json` is the
                // namespace `settings/profile`, as i18next's backends load it.
                for file in namespace_files(&inner_folder, ns_prefix.is_empty())? {
                    let Some(file_name) = file
                        .strip_prefix(&inner_folder)
                        .ok()
                        .and_then(|name| name.to_str())
                        .map(|name| name.replace('\\', "/"))
                    else {
                        continue;
                    };
                    let namespace = file_name
                        .strip_prefix(ns_prefix)
                        .and_then(|name| name.strip_suffix(ns_suffix))
                        .filter(|namespace| !namespace.is_empty() && !namespace.starts_with('.'));
                    if let Some(namespace) = namespace
                        && file.is_file()
                    {
                        found.push(PatternFile {
                            language: language.to_owned(),
                            namespace: Some(namespace.to_owned()),
                            disk: file.clone(),
                        });
                    }
                }
            }
            _ => {
                // `{lang}.xcloc/Localized Contents/{lang}.xliff`: the language again.
                let disk = match rest {
                    Some(rest) => entry.join(rest.replace(LANGUAGE_PLACEHOLDER, language)),
                    None => entry.clone(),
                };
                if disk.is_file() {
                    found.push(PatternFile {
                        language: language.to_owned(),
                        namespace: None,
                        disk,
                    });
                }
            }
        }
    }
    Ok((found, passed))
}

/// The files of a language's folder a `{ns}` pattern may name: its own, and those of the
/// folders below when `nested` (hidden folders left out).
fn namespace_files(folder: &Path, nested: bool) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for entry in read_dir(folder)? {
        let hidden = entry
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with('.'));
        if entry.is_dir() && nested && !hidden {
            files.extend(namespace_files(&entry, true)?);
        } else {
            files.push(entry);
        }
    }
    Ok(files)
}

fn fill_pattern(pattern: &Path, language: &str, namespace: Option<&str>) -> PathBuf {
    let filled = pattern.to_string_lossy().replace(LANGUAGE_PLACEHOLDER, language);
    PathBuf::from(match namespace {
        Some(namespace) => filled.replace(NAMESPACE_PLACEHOLDER, namespace),
        None => filled,
    })
}

/// The entries of a folder; a missing folder has none.
fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    match std::fs::read_dir(dir) {
        Ok(entries) => Ok(entries.filter_map(Result::ok).map(|entry| entry.path()).collect()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(Failure::new(format!("cannot read {}: {err}", dir.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(format: ExportFormat, root: &Path, languages: &[&str]) -> FileSet {
        FileSet {
            format,
            path: root.display().to_string(),
            root: root.to_path_buf(),
            languages: languages.iter().map(|code| code.to_string()).collect(),
            tags: Vec::new(),
            namespace: None,
            base: None,
            file: None,
        }
    }

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }

    #[test]
    fn android_folders_are_collected_and_pulled_files_stay_in_them() {
        let dir = tempfile::tempdir().unwrap();
        let res = dir.path().join("res");
        for file in [
            "values/strings.xml",
            "values/plurals.xml",
            "values-fr/strings.xml",
            "values-night/colors.xml",
            "drawable/icon.xml",
        ] {
            touch(&res.join(file));
        }
        let android = set(ExportFormat::AndroidXml, &res, &[]);
        let layouts: Vec<String> = collect(&android).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(
            layouts,
            ["values-fr/strings.xml", "values/plurals.xml", "values/strings.xml"]
        );
        let only_base = set(ExportFormat::AndroidXml, &res, &["de"]);
        assert_eq!(collect(&only_base).unwrap().len(), 2);

        assert_eq!(
            destination(&android, "values-pt-rBR/strings.xml", "en"),
            Some(res.join("values-pt-rBR/strings.xml"))
        );
        for hostile in [
            "../values/strings.xml",
            "values/../../x.xml",
            "/etc/values/strings.xml",
            "a/values/strings.xml",
        ] {
            assert_eq!(destination(&android, hostile, "en"), None, "{hostile}");
        }
    }

    #[test]
    fn a_json_familys_file_without_a_language_is_the_base_languages() {
        // VS Code: `package.nls.json` (English) beside `package.nls.{lang}.json`.
        let dir = tempfile::tempdir().unwrap();
        touch(&dir.path().join("package.nls.json"));
        touch(&dir.path().join("package.nls.pt-br.json"));
        touch(&dir.path().join("package.json"));
        let json = set(ExportFormat::Json, &dir.path().join("package.nls.{lang}.json"), &[]);
        let layouts: Vec<String> = collect(&json).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, [".json", "pt-br.json"]);
        let base = Some(dir.path().join("package.nls.json"));
        assert_eq!(destination(&json, "en.json", "en"), base);
        assert_eq!(destination(&json, ".json", "en"), base);
        assert_eq!(
            destination(&json, "pt-BR.json", "en"),
            Some(dir.path().join("package.nls.pt-br.json"))
        );
    }

    #[test]
    fn angulars_source_file_and_a_named_base_file_are_the_base_languages() {
        // Angular: `messages.xlf` (the source texts) beside `messages.{lang}.xlf`.
        let dir = tempfile::tempdir().unwrap();
        let locales = dir.path().join("src/locale");
        touch(&locales.join("messages.xlf"));
        touch(&locales.join("messages.es.xlf"));
        let xliff = set(ExportFormat::Xliff, &locales.join("messages.{lang}.xlf"), &[]);
        let layouts: Vec<String> = collect(&xliff).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, [".xliff", "es.xliff"]);
        assert_eq!(
            destination(&xliff, "en.xliff", "en"),
            Some(locales.join("messages.xlf"))
        );
        assert_eq!(
            destination(&xliff, "es.xliff", "en"),
            Some(locales.join("messages.es.xlf"))
        );

        // TYPO3: `locallang.xlf` beside `de.locallang.xlf`.
        let language = dir.path().join("Resources/Private/Language");
        touch(&language.join("locallang.xlf"));
        touch(&language.join("de.locallang.xlf"));
        let typo3 = set(ExportFormat::Xliff, &language.join("{lang}.locallang.xlf"), &[]);
        let layouts: Vec<String> = collect(&typo3).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, [".xliff", "de.xliff"]);
        assert_eq!(
            destination(&typo3, "en.xliff", "en"),
            Some(language.join("locallang.xlf"))
        );

        // `base = "..."` names it where the pattern cannot: a source file kept elsewhere, and a
        // PO set's template.
        touch(&dir.path().join("i18n/source.xlf"));
        let named = FileSet {
            base: Some(dir.path().join("i18n/source.xlf")),
            ..set(ExportFormat::Xliff, &locales.join("{lang}.xlf"), &[])
        };
        touch(&locales.join("fr.xlf"));
        let layouts: Vec<String> = collect(&named).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, [".xliff", "fr.xliff"]);
        assert_eq!(
            destination(&named, "en.xliff", "en"),
            Some(dir.path().join("i18n/source.xlf"))
        );
        touch(&dir.path().join("po/fr.po"));
        touch(&dir.path().join("templates/app.pot"));
        let po = FileSet {
            base: Some(dir.path().join("templates/app.pot")),
            ..set(ExportFormat::Po, &dir.path().join("po/{lang}.po"), &[])
        };
        let layouts: Vec<String> = collect(&po).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, ["fr.po", crate::formats::po::TEMPLATE]);
        assert_eq!(
            destination(&po, crate::formats::po::TEMPLATE, "en"),
            Some(dir.path().join("templates/app.pot"))
        );
    }

    #[test]
    fn each_django_domain_takes_its_own_template() {
        // Repomaker: `locale/django.pot` and `locale/djangojs.pot` above the language folders.
        let dir = tempfile::tempdir().unwrap();
        let locale = dir.path().join("locale");
        for file in [
            "django.pot",
            "djangojs.pot",
            "fr/LC_MESSAGES/django.po",
            "fr/LC_MESSAGES/djangojs.po",
        ] {
            touch(&locale.join(file));
        }
        for domain in ["django", "djangojs"] {
            let po = set(
                ExportFormat::Po,
                &locale.join(format!("{{lang}}/LC_MESSAGES/{domain}.po")),
                &[],
            );
            assert_eq!(template_file(&po), Some(locale.join(format!("{domain}.pot"))));
        }
        // A pattern that names no domain takes the folder's template.
        touch(&dir.path().join("po/fr.po"));
        touch(&dir.path().join("po/app.pot"));
        let po = set(ExportFormat::Po, &dir.path().join("po/{lang}.po"), &[]);
        assert_eq!(template_file(&po), Some(dir.path().join("po/app.pot")));
    }

    #[test]
    fn a_locale_that_is_no_language_code_is_named_and_other_files_are_not() {
        // diaspora's `hye-classical.yml` (a subtag of nine letters) beside `fr.yml`; a
        // settings file is no locale's.
        let dir = tempfile::tempdir().unwrap();
        let locales = dir.path().join("config/locales");
        for name in ["fr.yml", "hye-classical.yml", "settings.yml"] {
            touch(&locales.join(name));
        }
        let yaml = set(ExportFormat::Yaml, &locales.join("{lang}.yml"), &[]);
        let layouts: Vec<String> = collect(&yaml).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, ["fr.yml"]);
        assert_eq!(
            passed_over(&yaml),
            [(locales.join("hye-classical.yml"), "hye-classical".to_owned())]
        );
    }

    #[test]
    fn json_patterns_find_languages_and_reuse_the_apps_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let locales = dir.path().join("locales");
        touch(&locales.join("en.json"));
        touch(&locales.join("pt_BR.json"));
        touch(&locales.join("package.json"));
        let json = set(ExportFormat::Json, &locales.join("{lang}.json"), &[]);
        let layouts: Vec<String> = collect(&json).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, ["en.json", "pt_BR.json"]);
        assert_eq!(destination(&json, "pt-BR.json", "en"), Some(locales.join("pt_BR.json")));
        assert_eq!(destination(&json, "fr.json", "en"), Some(locales.join("fr.json")));
        assert_eq!(destination(&json, "../fr.json", "en"), None);
        // Jellyfin keeps English in `en-us.json` of a project whose base is `en`: no `en.json`
        // is added for the base language the app has no file of.
        assert_eq!(destination(&json, "en-US.json", "en-US"), None);

        let nested = set(ExportFormat::Json, &locales.join("{lang}/app.json"), &[]);
        touch(&locales.join("de/app.json"));
        let layouts: Vec<String> = collect(&nested).unwrap().into_iter().map(|file| file.layout).collect();
        assert_eq!(layouts, ["de.json"]);
    }
}
