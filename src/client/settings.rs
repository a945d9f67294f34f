//! `.locstore.toml`: where the server is, which project, and where the app keeps its files.
//! The token is never in the file: it comes from `LOCSTORE_TOKEN`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Failure;
use crate::formats::ExportFormat;

/// The file `locstore push` and `pull` look for, in the current folder or the nearest parent.
pub const FILE_NAME: &str = ".locstore.toml";

/// The placeholder for a language in a JSON or CSV file set's path.
pub const LANGUAGE_PLACEHOLDER: &str = "{lang}";
/// Where a JSON pattern names the namespace (i18next's), in the file name after a language
/// folder: `locales/{lang}/{ns}.json`.
pub const NAMESPACE_PLACEHOLDER: &str = "{ns}";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    server: String,
    project: String,
    branch: Option<String>,
    #[serde(default)]
    files: Vec<RawFileSet>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFileSet {
    format: String,
    path: String,
    languages: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    namespace: Option<String>,
    base: Option<String>,
    file: Option<String>,
}

/// The settings of one app repository.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The server's base address, without a trailing `/`.
    pub server: String,
    pub team: String,
    pub project: String,
    /// The server branch to push and pull (`None`: the main line).
    pub branch: Option<BranchChoice>,
    /// The settings file's folder (the app's repository, or a folder in it).
    pub dir: PathBuf,
    pub file_sets: Vec<FileSet>,
}

/// Which branch of the project the settings name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchChoice {
    /// `branch = "auto"`: the one named as the app's current git branch.
    Auto,
    /// A branch by name.
    Named(String),
}

impl BranchChoice {
    /// `auto`, or a branch name (checked as the server checks it).
    pub fn parse(text: &str) -> Result<Self, String> {
        if text == "auto" {
            return Ok(Self::Auto);
        }
        crate::domain::names::BranchName::parse(text)
            .map(|name| Self::Named(name.as_str().to_owned()))
            .map_err(|err| err.0)
    }
}

/// Files of one format: an Android `res` folder, a folder of `*.lproj` folders, or a path
/// pattern with `{lang}` for JSON and CSV.
#[derive(Debug, Clone)]
pub struct FileSet {
    pub format: ExportFormat,
    /// As written in the settings file (for messages).
    pub path: String,
    /// The folder (Android, Apple) or pattern (JSON, CSV), resolved against the settings
    /// file's folder.
    pub root: PathBuf,
    /// Languages to pull (all of the project's when empty) and push (all files when empty).
    pub languages: Vec<String>,
    /// Pull only keys with one of these tags (all keys when empty).
    pub tags: Vec<String>,
    /// The namespace of the set's keys (a module's, a bundle's), under which each file's own
    /// namespace goes; `None`: the set shares the project's key spaces.
    pub namespace: Option<String>,
    /// The set's file of the base language where the pattern does not name it (`base =
    /// "messages.xlf"`, Angular's source file; a PO set's `.pot` template), resolved against
    /// the settings file's folder; `None`: found by the format's own rule.
    pub base: Option<PathBuf>,
    /// The file family of the set's keys in a key space other sets of the file share (a Rails
    /// app's `devise.{lang}.yml` beside `{lang}.yml`: `file = "devise"`): a push gives its new
    /// keys that file, and a pull writes only the keys of that file. `Some("")` for a set
    /// without `file` beside sets of its format and namespace that have one (`{lang}.yml`,
    /// the keys of no family); `None`: the set does not share its key space so.
    pub file: Option<String>,
}

impl Settings {
    /// Finds `.locstore.toml` in `start` or its nearest parent that has one, unless `file`
    /// names it.
    pub fn find(file: Option<&Path>, start: &Path) -> Result<Self, Failure> {
        let path = match file {
            Some(file) => file.to_path_buf(),
            None => start
                .ancestors()
                .map(|dir| dir.join(FILE_NAME))
                .find(|candidate| candidate.is_file())
                .ok_or_else(|| {
                    Failure::new(format!(
                        "no {FILE_NAME} in {} or a parent folder; `locstore init` writes one",
                        start.display()
                    ))
                })?,
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|err| Failure::new(format!("cannot read {}: {err}", path.display())))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::parse(&text, base).map_err(|message| Failure::new(format!("{}: {message}", path.display())))
    }

    /// Reads the settings; relative paths are relative to `base`.
    pub fn parse(text: &str, base: &Path) -> Result<Self, String> {
        let raw: RawSettings = toml::from_str(text).map_err(|err| err.message().to_owned())?;
        let server = raw.server.trim_end_matches('/').to_owned();
        if !(server.starts_with("http://") || server.starts_with("https://")) {
            return Err(format!(
                "`server` must be an http:// or https:// address, not {server:?}"
            ));
        }
        let (team, project) = raw
            .project
            .split_once('/')
            .filter(|(team, project)| !team.is_empty() && !project.is_empty() && !project.contains('/'))
            .ok_or_else(|| format!("`project` must be TEAM/PROJECT, not {:?}", raw.project))?;
        if raw.files.is_empty() {
            return Err("there is no [[files]] entry: say where the app keeps its files".into());
        }
        let mut file_sets = raw
            .files
            .into_iter()
            .map(|set| {
                let format = ExportFormat::parse(&set.format).ok_or_else(|| {
                    format!(
                        "unknown format {:?} (one of {})",
                        set.format,
                        ExportFormat::NAMES
                    )
                })?;
                let needs_pattern = format.uses_pattern();
                // A Rails file that holds several languages, each under its root key
                // (`config/locales/overrides.yml`), is named as it is.
                let languages_in_file = is_file_of_languages(format, &set.path);
                // A translation table is one file; a game's one-language files without a
                // header are a table per language (`locales/{lang}/menus.csv`).
                let either = languages_in_file || format == ExportFormat::CsvTable;
                if needs_pattern != set.path.contains(LANGUAGE_PLACEHOLDER) && !either {
                    return Err(if needs_pattern {
                        format!("the {} path {:?} needs {LANGUAGE_PLACEHOLDER} where the language goes, as in locales/{{lang}}.json", set.format, set.path)
                    } else {
                        format!("the {} path {:?} is a folder, without {LANGUAGE_PLACEHOLDER}", set.format, set.path)
                    });
                }
                if set.path.contains(NAMESPACE_PLACEHOLDER) {
                    let (folder, file) = set.path.rsplit_once('/').unwrap_or(("", &set.path));
                    let well_placed = matches!(format, ExportFormat::Json | ExportFormat::I18next)
                        && folder.contains(LANGUAGE_PLACEHOLDER)
                        && file.contains(NAMESPACE_PLACEHOLDER)
                        && !file.contains(LANGUAGE_PLACEHOLDER);
                    if !well_placed {
                        return Err(format!(
                            "the {} path {:?} may hold {NAMESPACE_PLACEHOLDER} only in a JSON file name inside a {LANGUAGE_PLACEHOLDER} folder, as in locales/{{lang}}/{{ns}}.json",
                            set.format, set.path
                        ));
                    }
                }
                if let Some(file) = &set.base {
                    if !needs_pattern || languages_in_file || file.contains('{') || file.is_empty() {
                        return Err(format!(
                            "the {} set {:?}: `base` names one file of the base language (as `base = \"src/locale/messages.xlf\"` beside `messages.{{lang}}.xlf`), only for a set found by a pattern",
                            set.format, set.path
                        ));
                    }
                }
                if let Some(namespace) = &set.namespace {
                    crate::domain::names::Namespace::parse(namespace)
                        .map_err(|err| format!("the {} set {:?}: {}", set.format, set.path, err.0))?;
                }
                if let Some(file) = &set.file {
                    if format != ExportFormat::Yaml {
                        return Err(format!(
                            "the {} set {:?}: `file` names a Rails locale file's family (`file = \"devise\"` for devise.{{lang}}.yml), only for a yaml set",
                            set.format, set.path
                        ));
                    }
                    crate::domain::key_files::FileName::parse(crate::domain::key_files::Platform::Web, file)
                        .map_err(|err| format!("the {} set {:?}: {}", set.format, set.path, err.0))?;
                }
                Ok(FileSet {
                    format,
                    root: base.join(&set.path),
                    path: set.path,
                    languages: set.languages.unwrap_or_default(),
                    tags: set.tags.unwrap_or_default(),
                    namespace: set.namespace,
                    base: set.base.map(|file| base.join(file)),
                    file: set.file,
                })
            })
            .collect::<Result<Vec<FileSet>, String>>()?;
        // A set beside sets of its key space that name their file family holds the keys of
        // none (Rails' `{lang}.yml` beside `devise.{lang}.yml`).
        let families: Vec<(ExportFormat, Option<String>)> = file_sets
            .iter()
            .filter(|set| set.file.is_some())
            .map(|set| (set.format, set.namespace.clone()))
            .collect();
        for set in &mut file_sets {
            if set.file.is_none() && families.contains(&(set.format, set.namespace.clone())) {
                set.file = Some(String::new());
            }
        }
        let branch = raw
            .branch
            .as_deref()
            .map(BranchChoice::parse)
            .transpose()
            .map_err(|err| format!("`branch`: {err}"))?;
        Ok(Self {
            server,
            team: team.to_owned(),
            project: project.to_owned(),
            branch,
            dir: base.to_path_buf(),
            file_sets,
        })
    }
}

/// Whether a set's path names one file of several languages, each under its root key: a
/// Rails YAML file without `{lang}` (Foodsoft's `config/locales/overrides.yml` holds `en:` and
/// `nl:`; Rails merges it as it merges a file per locale).
fn is_file_of_languages(format: ExportFormat, path: &str) -> bool {
    format == ExportFormat::Yaml
        && !path.contains(LANGUAGE_PLACEHOLDER)
        && (path.ends_with(".yml") || path.ends_with(".yaml"))
}

impl FileSet {
    /// Whether the set is a table per language: a `csv-table` path with `{lang}`
    /// (`locales/{lang}/menus.csv`, as games keep a file of `KEY;text` rows per language,
    /// without a header). A push sends each file as its folder's language's; a pull patches
    /// each file with its language's column of the set's table, and writes the file of a
    /// language new on the server.
    pub fn is_table_per_language(&self) -> bool {
        self.format == ExportFormat::CsvTable && self.path.contains(LANGUAGE_PLACEHOLDER)
    }

    /// Whether the set is one file of several languages ([`is_file_of_languages`]): a push
    /// sends it whole, each root read as its language; a pull patches the part of each
    /// language the file has, and adds none.
    pub fn is_file_of_languages(&self) -> bool {
        is_file_of_languages(self.format, &self.path)
    }
}

/// A language code compared as the server compares them: case and `-`/`_` do not matter.
pub fn folded(language: &str) -> String {
    language.to_ascii_lowercase().replace('_', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_resolve_paths_and_refuse_mistakes() {
        let text = r#"
server = "http://localhost:8080/"
project = "acme/mobile"

[[files]]
format = "android-xml"
path = "app/src/main/res"

[[files]]
format = "json"
path = "web/locales/{lang}.json"
languages = ["en", "fr"]
tags = ["web"]
"#;
        let settings = Settings::parse(text, Path::new("/repo")).unwrap();
        assert_eq!(settings.server, "http://localhost:8080");
        assert_eq!((settings.team.as_str(), settings.project.as_str()), ("acme", "mobile"));
        assert_eq!(settings.file_sets[0].root, Path::new("/repo/app/src/main/res"));
        assert_eq!(settings.file_sets[1].languages, ["en", "fr"]);
        let namespaced = text.replace("{lang}.json", "{lang}/{ns}.json");
        assert!(Settings::parse(&namespaced, Path::new("/repo")).is_ok());
        let module = text.replace("tags = [\"web\"]", "namespace = \"web/shell\"");
        let module = Settings::parse(&module, Path::new("/repo")).unwrap();
        assert_eq!(module.file_sets[1].namespace.as_deref(), Some("web/shell"));
        assert_eq!(module.file_sets[0].namespace, None);
        let angular = text.replace("tags = [\"web\"]", "base = \"web/locales/messages.json\"");
        let angular = Settings::parse(&angular, Path::new("/repo")).unwrap();
        assert_eq!(
            angular.file_sets[1].base.as_deref(),
            Some(Path::new("/repo/web/locales/messages.json"))
        );
        assert_eq!(angular.file_sets[0].base, None);
        assert_eq!(module.branch, None);
        let auto = Settings::parse(
            &text.replace("project = ", "branch = \"auto\"\nproject = "),
            Path::new("/repo"),
        );
        assert_eq!(auto.unwrap().branch, Some(BranchChoice::Auto));

        // A Rails file of several languages is named as it is; a JSON file still needs
        // `{lang}`, and the Rails file takes no `base`.
        let rails = "server = \"http://localhost:8080\"\nproject = \"acme/web\"\n\n[[files]]\nformat = \"yaml\"\npath = \"config/locales/{lang}.yml\"\n\n[[files]]\nformat = \"yaml\"\npath = \"config/locales/overrides.yml\"\nfile = \"overrides\"\n";
        let parsed = Settings::parse(rails, Path::new("/repo")).unwrap();
        assert!(parsed.file_sets[1].is_file_of_languages() && !parsed.file_sets[0].is_file_of_languages());
        assert_eq!(parsed.file_sets[0].file.as_deref(), Some(""));
        assert_eq!(
            parsed.file_sets[1].root,
            Path::new("/repo/config/locales/overrides.yml")
        );
        for (bad, says) in [
            (
                rails.replace("overrides.yml", "overrides.json").replace("yaml", "json"),
                "{lang}",
            ),
            (
                rails.replace("file = ", "base = \"en.yml\"\nfile = "),
                "`base` names one file",
            ),
        ] {
            let err = Settings::parse(&bad, Path::new("/repo")).unwrap_err();
            assert!(err.contains(says), "{err}");
        }

        for (bad, says) in [
            (text.replace("acme/mobile", "acme"), "TEAM/PROJECT"),
            (text.replace("http://", "ftp://"), "http://"),
            (text.replace("{lang}", "en"), "{lang}"),
            (text.replace("android-xml", "toml"), "unknown format"),
            (text.replace("tags", "tag"), "unknown field"),
            (text.replace("project = ", "branch = \"a..b\"\nproject = "), "`branch`"),
            (text.replace("app/src/main/res", "res/{lang}"), "without {lang}"),
            (text.replace("{lang}.json", "{ns}/{lang}.json"), "{ns}"),
            (text.replace("{lang}.json", "{lang}-{ns}.json"), "{ns}"),
            (
                text.replace("tags = [\"web\"]", "namespace = \"/web\""),
                "Invalid namespace",
            ),
            (
                text.replace("tags = [\"web\"]", "base = \"web/locales/{lang}.json\""),
                "`base` names one file",
            ),
            (
                text.replace(
                    "path = \"app/src/main/res\"",
                    "path = \"app/src/main/res\"\nbase = \"a.xml\"",
                ),
                "`base` names one file",
            ),
        ] {
            let err = Settings::parse(&bad, Path::new("/repo")).unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }
}
