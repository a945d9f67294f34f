//! An app's own files kept beside its keys. An upload of i18next, PO, ARB, XLIFF or Rails
//! YAML files keeps each file that the export would write otherwise (the app's order of
//! entries, its comments, quoting, line wrapping, PO header, Xcode's `<file>` elements) in the
//! project's `files/` folder, in the same commit. The export then patches the kept file with
//! the project's texts, as `locstore pull` patches an app's files ([`super::patch`]): upload
//! then export gives the app's files back byte for byte, a text changed since changes that
//! entry's lines only, a deleted key loses its entry, a new key is inserted after its nearest
//! neighbour. A file the export writes exactly as uploaded is not kept (and one kept before is
//! dropped), so files made by the export itself cost nothing.
//!
//! An export need not render the whole export to patch a kept file: a file its upload's
//! export left as it was holds every other key's entry as the export writes it, so the keys
//! changed since (which the history knows, [`KeysSince`]) are all it needs patching with.
//!
//! String Catalogs need none: their writer is Xcode's own layout. The first four formats'
//! exports stay the canonical files they always were; their apps keep their own files through
//! `locstore pull`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::in_order::make_in_order;
use super::{Export, ExportFile, ExportFormat, patch, po, upload};
use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;
use crate::store::{BesideFiles, KeysSince};

/// The folder (under the project's kept folder) of a format's kept files, for the formats
/// that keep them.
pub fn folder(format: ExportFormat) -> Option<&'static str> {
    match format {
        ExportFormat::I18next => Some("i18next"),
        ExportFormat::Po => Some("po"),
        ExportFormat::Arb => Some("arb"),
        ExportFormat::Xliff => Some("xliff"),
        ExportFormat::Xliff2 => Some("xliff-2.0"),
        ExportFormat::Yaml => Some("yaml"),
        _ => None,
    }
}

/// Which of a format's kept files (by path) an export of `languages` reads: its files of
/// those languages, and what is kept beside them.
pub fn wanted(
    format: ExportFormat,
    base_language: &LanguageCode,
    languages: &[LanguageCode],
) -> Box<dyn Fn(&str) -> bool + Send + Sync> {
    let base_language = base_language.clone();
    let languages = languages.to_vec();
    Box::new(move |path: &str| {
        let path = path.strip_suffix(META).unwrap_or(path);
        upload::locate(format, path).is_some_and(|(language, _)| {
            let code = if language == upload::BASE_LANGUAGE {
                Ok(base_language.clone())
            } else {
                LanguageCode::parse(&language)
            };
            code.is_ok_and(|code| languages.iter().any(|chosen| chosen.same_as(&code)))
        })
    })
}

/// What an upload keeps, given the project and its keys (by name) as the upload leaves them:
/// for each uploaded file, its path under the kept folder (its format's folder and the path
/// the export gives it) with its bytes, or with `None` when the export writes it as it is,
/// and beside it what [`Meta`] holds; then the paths of the app's files kept.
pub fn beside(originals: &[(LanguageCode, upload::Original)], project: &Project, keys: &[&Key]) -> BesideFiles {
    let mut kept = Vec::new();
    let mut app_files = Vec::new();
    let mut paths = HashSet::new();
    let names: HashSet<&str> = keys.iter().map(|key| key.name.as_str()).collect();
    let mut formats: Vec<ExportFormat> = Vec::new();
    for (_, original) in originals {
        if !formats.contains(&original.format) {
            formats.push(original.format);
        }
    }
    for format in formats {
        let Some(folder) = folder(format) else { continue };
        let mut languages: Vec<LanguageCode> = originals
            .iter()
            .filter(|(_, original)| original.format == format)
            .map(|(language, _)| language.clone())
            .collect();
        languages.sort();
        languages.dedup();
        let Ok(export) = Export::new(format, project, keys, &languages) else {
            continue;
        };
        // Each language rendered and compared on a core of its own, taken in order.
        let of_language = |index: usize| {
            let language = &languages[index];
            let files = export.render(language);
            originals
                .iter()
                .filter(|(of, original)| of == language && original.format == format)
                .filter_map(|(_, original)| {
                    let file = files.iter().find(|file| stands_for(format, original, &file.path))?;
                    let meta = (file.bytes != original.bytes).then(|| {
                        Meta::of(
                            format,
                            file,
                            &original.bytes,
                            &names,
                            language == &project.base_language,
                        )
                    });
                    Some((file.path.clone(), original, meta))
                })
                .collect::<Vec<_>>()
        };
        let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
        let Ok(()) = make_in_order(languages.len(), threads, 2 * threads, of_language, |found| {
            for (export_path, original, meta) in found {
                if !paths.insert(export_path.clone()) {
                    continue; // two of the app's files for one of the export's: the first is kept
                }
                let path = format!("{folder}/{export_path}");
                match meta {
                    None => {
                        kept.push((meta_path(&path), None));
                        kept.push((path, None));
                    }
                    Some(meta) => {
                        kept.push((meta_path(&path), Some(meta.to_json())));
                        kept.push((path.clone(), Some(original.bytes.clone())));
                        app_files.push(path);
                    }
                }
            }
            Ok::<(), std::convert::Infallible>(())
        });
    }
    BesideFiles {
        edits: kept,
        kept: app_files,
    }
}

/// What is kept beside a kept file (`{path}.locstore.json`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    /// The names of the file's entries the upload passed over: the export keeps them as they
    /// are, where it drops the entries of keys deleted since.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    passed_over: Vec<String>,
    /// The SHA-256 of the export's own file at the upload, when patching the kept file with
    /// it changes nothing: an export whose own file is still that one is the kept file as it
    /// is, without patching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    export_sha256: Option<String>,
    /// That file's length, which tells most changed exports without hashing them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    export_length: Option<usize>,
}

/// The ending of the file kept beside a kept file.
const META: &str = ".locstore.json";

fn meta_path(path: &str) -> String {
    format!("{path}{META}")
}

impl Meta {
    /// What an upload keeps beside the app's file (`local`) that the export's `file` stands
    /// for: the entries no key of `names` holds, which the patcher asks about (it asks about
    /// exactly those the export lacks), and the export's fingerprint when the patch of the
    /// file with it is the file itself.
    fn of(format: ExportFormat, file: &ExportFile, local: &[u8], names: &HashSet<&str>, is_base: bool) -> Self {
        let found = std::sync::Mutex::new(Vec::new());
        let ask = |name: &str| {
            if !names.contains(name) {
                found
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(name.to_owned());
            }
            false
        };
        let input = patch::PatchInput {
            local,
            exported: &file.bytes,
            order: None,
            deleted: &ask,
            is_base,
        };
        let unchanged = patch::patch(format, &input).is_ok_and(|patched| patched.bytes == local);
        let mut passed_over = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        passed_over.sort();
        passed_over.dedup();
        Self {
            passed_over,
            export_sha256: unchanged.then(|| sha256_hex(&file.bytes)),
            export_length: unchanged.then_some(file.bytes.len()),
        }
    }

    fn to_json(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec_pretty(self).unwrap_or_default();
        json.push(b'\n');
        json
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Whether the export's file at `path` is the one the app's `original` file stands for.
fn stands_for(format: ExportFormat, original: &upload::Original, path: &str) -> bool {
    match format {
        ExportFormat::Po if original.path.ends_with(".pot") => path == po::TEMPLATE,
        ExportFormat::Po => path.ends_with(".po"),
        ExportFormat::I18next => upload::locate(format, path).is_some_and(|(_, file)| file == original.file),
        _ => true,
    }
}

/// What an export patches the app's kept files with.
pub struct Patching<'a> {
    /// The project exported.
    pub project: &'a Project,
    /// The keys exported: an entry of a kept file whose key is not among them goes, unless
    /// the upload passed it over.
    pub keys: &'a [&'a Key],
    /// The app's kept files (and what is kept beside them) of the languages exported, by
    /// path under the format's folder.
    pub kept: Vec<(String, Vec<u8>)>,
    /// For kept files (by the same paths) whose history is known: what happened to the keys
    /// since the commit that first gave the file its bytes. Empty when the export leaves keys
    /// out (then every file is patched with the whole export).
    pub since: HashMap<String, Arc<KeysSince>>,
    pub threads: usize,
    /// Counts how each kept file was given.
    pub given: &'a Given,
}

/// The entry names of a base language's file, in order (shared by its translations' files).
type Names = Arc<Vec<String>>;

/// How an export gave its kept files (what `/metrics` counts).
#[derive(Debug, Default)]
pub struct Given {
    /// As they were kept, no key having changed since (nothing rendered).
    pub as_kept: AtomicUsize,
    /// Patched with an export of the keys changed since.
    pub changed_keys: AtomicUsize,
    /// Compared with and patched with the language's whole export.
    pub whole_export: AtomicUsize,
}

/// A kept file, what is kept beside it, and what happened to the keys since it was kept.
struct Kept {
    /// The file's bytes, taken by the export that gives them as they are (each kept file is
    /// given once; a copy would be megabytes of fresh memory).
    local: Mutex<Vec<u8>>,
    meta: Meta,
    passed_over: HashSet<String>,
    /// Set when the file patched with its upload's export was the file itself and the keys'
    /// history since then is known: then only the keys changed since need patching in.
    since: Option<Arc<KeysSince>>,
}

impl Kept {
    fn bytes(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.local.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The file's bytes, for the export's file that is the kept file as it is.
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.bytes())
    }
}

/// The files of `export` in `languages`, each one that has a kept file (by path) being that
/// file patched with the export's texts, rendered on `threads` threads (the base language's
/// files first: a translation's file puts its new entries in the order of the base file of
/// the same name, as patched).
///
/// A kept file that was its upload's export's fixed point (patched with it, it stayed as it
/// was) needs patching with the keys changed since only: every other key's entry is as that
/// export wrote it. Such a file is given as it is when no key changed, else patched with an
/// export of the changed keys alone, and neither renders the language's whole export.
pub fn render(export: &Export<'_, &Key>, languages: &[LanguageCode], patching: Patching<'_>) -> Vec<ExportFile> {
    let Patching {
        project,
        keys,
        kept,
        since,
        threads,
        given: counts,
    } = patching;
    let (format, base_language) = (export.format(), export.base_language());
    // Each kept file with what is kept beside it.
    let (metas, kept): (HashMap<String, Vec<u8>>, HashMap<String, Vec<u8>>) =
        kept.into_iter().partition(|(path, _)| path.ends_with(META));
    let kept: HashMap<String, Kept> = kept
        .into_iter()
        .map(|(path, local)| {
            let mut meta: Meta = metas
                .get(&meta_path(&path))
                .and_then(|json| serde_json::from_slice(json).ok())
                .unwrap_or_default();
            let passed_over = std::mem::take(&mut meta.passed_over).into_iter().collect();
            // The file and what is kept beside it must have been kept together.
            let since = since
                .get(&path)
                .filter(|since| meta.export_sha256.is_some() && patches_alone(format, since, keys))
                .filter(|of_file| {
                    since
                        .get(&meta_path(&path))
                        .is_some_and(|of_meta| of_meta.commit == of_file.commit)
                })
                .cloned();
            let kept = Kept {
                local: Mutex::new(local),
                meta,
                passed_over,
                since,
            };
            (path, kept)
        })
        .collect();
    // The exported keys' names, for the files patched with the whole export.
    let names: OnceLock<HashSet<&str>> = OnceLock::new();
    let names = || names.get_or_init(|| keys.iter().map(|key| key.name.as_str()).collect());
    let group = |path: &str| {
        upload::locate(format, path)
            .and_then(|(_, file)| file)
            .map(|(_, name)| name)
    };
    // The exports of the keys changed since each commit kept files are fixed points of.
    let changed: Vec<(Arc<KeysSince>, Vec<&Key>)> = {
        let mut changed: Vec<(Arc<KeysSince>, Vec<&Key>)> = Vec::new();
        for kept in kept.values() {
            if let Some(since) = &kept.since
                && !changed.iter().any(|(known, _)| known.commit == since.commit)
            {
                let of = keys
                    .iter()
                    .copied()
                    .filter(|key| since.changed.contains(key.name.as_str()));
                changed.push((since.clone(), of.collect()));
            }
        }
        changed
    };
    let partial: Vec<(&str, Export<'_, &Key>)> = changed
        .iter()
        .filter_map(|(since, keys)| {
            Some((
                since.commit.as_str(),
                Export::new(format, project, keys, languages).ok()?,
            ))
        })
        .collect();
    // The export of no keys: what a file of the keys changed is when none of them is in it.
    let none: Vec<&Key> = Vec::new();
    let no_keys = Export::new(format, project, &none, languages).ok();
    // A file as the export gives it: the kept one as it is while the export's is the one it
    // was kept by, else patched.
    let give = |mut file: ExportFile, order: Option<&[String]>, is_base: bool| -> (ExportFile, Option<Vec<String>>) {
        let Some(kept) = kept.get(&file.path) else {
            return (file, None);
        };
        counts.whole_export.fetch_add(1, Ordering::Relaxed);
        if kept.meta.is_export(&file.bytes) {
            file.bytes = kept.take();
            return (file, None);
        }
        let deleted = |name: &str| !names().contains(name) && !kept.passed_over.contains(name);
        match patched(format, &file, &kept.bytes(), order, &deleted, is_base) {
            Some(patched) => {
                file.bytes = patched.bytes;
                (file, patched.names)
            }
            None => (file, None),
        }
    };
    // A kept file that needs the changed keys only, given the file of `changed` (the export
    // of those keys, by language) at its path: `None` when it cannot be given that way.
    let give_changed = |path: &str,
                        changed: &mut dyn FnMut(&str) -> Option<Vec<ExportFile>>,
                        nothing: &mut dyn FnMut() -> Vec<ExportFile>,
                        order: &dyn Fn() -> Option<Names>,
                        is_base: bool|
     -> Option<(ExportFile, Option<Vec<String>>)> {
        let kept = kept.get(path)?;
        let since = kept.since.as_ref()?;
        let as_kept = || ExportFile {
            path: path.to_owned(),
            bytes: kept.take(),
        };
        let unchanged = || {
            counts.as_kept.fetch_add(1, Ordering::Relaxed);
            Some((as_kept(), None))
        };
        if since.changed.is_empty() && since.deleted.is_empty() {
            return unchanged();
        }
        let files = changed(&since.commit)?;
        let exported = match files.into_iter().find(|file| file.path == path) {
            // None of the changed keys is in this file (a key added with its base text only,
            // in a translation's file of most formats): the export of no keys.
            Some(file)
                if since.deleted.is_empty()
                    && nothing()
                        .iter()
                        .any(|empty| empty.path == path && empty.bytes == file.bytes) =>
            {
                return unchanged();
            }
            Some(file) => file,
            None if since.deleted.is_empty() => return unchanged(),
            None => ExportFile {
                path: path.to_owned(),
                bytes: empty_file(format)?.to_vec(),
            },
        };
        let deleted = |name: &str| since.deleted.contains(name) && !kept.passed_over.contains(name);
        let order = if is_base { None } else { order() };
        let patched = patched(
            format,
            &exported,
            &kept.bytes(),
            order.as_deref().map(Vec::as_slice),
            &deleted,
            is_base,
        )?;
        if patched.whole {
            // The file is written as the export writes it: the whole export's, then.
            return None;
        }
        counts.changed_keys.fetch_add(1, Ordering::Relaxed);
        let file = ExportFile {
            path: path.to_owned(),
            bytes: patched.bytes,
        };
        Some((file, patched.names))
    };
    // The files of one language: where each has a kept file that needs the changed keys
    // only, without rendering the language's whole export; else rendered (`rendered`, or
    // here) and patched.
    let language_files = |language: &LanguageCode,
                          rendered: Option<Vec<ExportFile>>,
                          order_of: &dyn Fn(&str) -> Option<Names>|
     -> Vec<(ExportFile, Option<Vec<String>>)> {
        let is_base = language.same_as(base_language);
        let mut partial_files: HashMap<String, Vec<ExportFile>> = HashMap::new();
        let mut no_keys_files: Option<Vec<ExportFile>> = None;
        let mut nothing = || {
            no_keys_files
                .get_or_insert_with(|| {
                    no_keys
                        .as_ref()
                        .map(|export| export.render(language))
                        .unwrap_or_default()
                })
                .clone()
        };
        let mut changed = |commit: &str| {
            if !partial_files.contains_key(commit) {
                let (_, export) = partial.iter().find(|(of, _)| *of == commit)?;
                partial_files.insert(commit.to_owned(), export.render(language));
            }
            partial_files.get(commit).cloned()
        };
        // Each file that can be given without the whole export, then the rest rendered (or
        // taken from `rendered`) and patched.
        let paths = export.rendered_paths(language);
        let mut given: HashMap<&str, (ExportFile, Option<Vec<String>>)> = HashMap::new();
        for path in &paths {
            if let Some(file) = give_changed(path, &mut changed, &mut nothing, &|| order_of(path), is_base) {
                given.insert(path, file);
            }
        }
        let rest: Vec<&str> = paths
            .iter()
            .map(String::as_str)
            .filter(|path| !given.contains_key(path))
            .collect();
        let mut rendered: HashMap<String, ExportFile> = match rendered {
            _ if rest.is_empty() => HashMap::new(),
            Some(rendered) => rendered.into_iter().map(|file| (file.path.clone(), file)).collect(),
            None => export
                .render_only(language, &rest)
                .into_iter()
                .map(|file| (file.path.clone(), file))
                .collect(),
        };
        paths
            .iter()
            .filter_map(|path| {
                if let Some(done) = given.remove(path.as_str()) {
                    return Some(done);
                }
                let file = rendered.remove(path)?;
                let order = if is_base || !kept.contains_key(path) {
                    None
                } else {
                    order_of(path)
                };
                Some(give(file, order.as_deref().map(Vec::as_slice), is_base))
            })
            .collect()
    };
    // Whether a language's files all have kept files that need the changed keys only.
    let all_changed_only = |language: &LanguageCode| {
        export
            .rendered_paths(language)
            .iter()
            .all(|path| kept.get(path).is_some_and(|kept| kept.since.is_some()))
    };
    let (base, others): (Vec<&LanguageCode>, Vec<&LanguageCode>) =
        languages.iter().partition(|language| language.same_as(base_language));
    let mut base_files = Vec::new();
    // The base files' entry names, by file name (namespace): read when first needed.
    let mut orders: HashMap<Option<String>, (usize, OnceLock<Names>)> = HashMap::new();
    let no_order = |_: &str| None;
    for language in base {
        for (file, names) in language_files(language, None, &no_order) {
            if patch::can_patch(format, &file.path) {
                orders.insert(
                    group(&file.path),
                    (
                        base_files.len(),
                        names.map(|names| OnceLock::from(Arc::new(names))).unwrap_or_default(),
                    ),
                );
            }
            base_files.push(file);
        }
    }
    let order_of = |path: &str| {
        orders.get(&group(path)).map(|(index, names)| {
            names
                .get_or_init(|| Arc::new(patch::names(format, &base_files[*index].bytes).unwrap_or_default()))
                .clone()
        })
    };
    // Formats that render several languages in one pass over the keys (PO, XLIFF) take a few
    // at once, as the export's zip does.
    let batch = if export.renders_together() {
        others.len().div_ceil(threads.max(1)).clamp(1, 4)
    } else {
        1
    };
    let batches: Vec<&[&LanguageCode]> = others.chunks(batch).collect();
    let mut translations = Vec::new();
    let Ok(()) = make_in_order(
        batches.len(),
        threads,
        2 * threads,
        |index| {
            // The languages whose whole export is needed, rendered together.
            let whole: Vec<&LanguageCode> = batches[index]
                .iter()
                .copied()
                .filter(|language| !all_changed_only(language))
                .collect();
            let mut rendered: HashMap<String, Vec<u8>> = if whole.is_empty() {
                HashMap::new()
            } else {
                export
                    .write_together(&whole, |_| Ok(Vec::new()))
                    .expect("writing into memory does not fail")
                    .into_iter()
                    .collect()
            };
            let mut files = Vec::new();
            for &language in batches[index] {
                let own = whole.contains(&language).then(|| {
                    export
                        .rendered_paths(language)
                        .into_iter()
                        .filter_map(|path| {
                            let bytes = rendered.remove(&path)?;
                            Some(ExportFile { path, bytes })
                        })
                        .collect()
                });
                files.extend(
                    language_files(language, own, &order_of)
                        .into_iter()
                        .map(|(file, _)| file),
                );
            }
            files
        },
        |rendered| {
            translations.extend(rendered);
            Ok::<(), std::convert::Infallible>(())
        },
    );
    base_files.extend(translations);
    base_files
}

/// Whether patching a kept file with the export of the keys `since` names alone gives what
/// patching it with the whole export does. Not where a key's entry depends on other keys:
/// XLIFF 2.0 numbers the units of keys whose names are no XML name, and nested formats
/// (i18next, YAML) write a name differently when another key's name is inside it.
fn patches_alone(format: ExportFormat, since: &KeysSince, keys: &[&Key]) -> bool {
    match format {
        ExportFormat::Xliff2 => since.changed.iter().all(|name| super::xliff::is_name_token(name)),
        ExportFormat::I18next | ExportFormat::Yaml => {
            let names: HashSet<&str> = keys.iter().map(|key| key.name.as_str()).collect();
            let nested = |name: &str| {
                // A key whose name holds this one, or is held in it.
                let inner = format!("{name}.");
                let at = keys.partition_point(|key| key.name.as_str() < inner.as_str());
                keys.get(at).is_some_and(|key| key.name.as_str().starts_with(&inner))
                    || name.match_indices('.').any(|(at, _)| names.contains(&name[..at]))
            };
            !since.changed.iter().chain(&since.deleted).any(|name| nested(name))
        }
        _ => true,
    }
}

/// The export of no keys of a format whose files a key chooses (i18next's namespaces), for
/// a kept file none of whose keys changed but some of whose keys may be deleted.
fn empty_file(format: ExportFormat) -> Option<&'static [u8]> {
    match format {
        ExportFormat::I18next => Some(b"{}\n"),
        _ => None,
    }
}

impl Meta {
    /// Whether `exported` is the export's file the kept file was found unchanged by.
    fn is_export(&self, exported: &[u8]) -> bool {
        self.export_length.is_none_or(|length| length == exported.len())
            && self.export_sha256.as_deref() == Some(sha256_hex(exported).as_str())
    }
}

/// A kept file patched with the export's `file`; `None` (the export's file stays) when the
/// kept file cannot be read, which a file read at upload never is.
fn patched(
    format: ExportFormat,
    file: &ExportFile,
    local: &[u8],
    order: Option<&[String]>,
    deleted: &(dyn Fn(&str) -> bool + Sync),
    is_base: bool,
) -> Option<patch::Patched> {
    let input = patch::PatchInput {
        local,
        exported: &file.bytes,
        order,
        deleted,
        is_base,
    };
    match patch::patch(format, &input) {
        Ok(patched) => Some(patched),
        Err(err) => {
            tracing::warn!(path = %file.path, error = %err, "writing the export's file instead of the kept one");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::Text;
    use crate::domain::names::{KeyName, ProjectName};

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    fn project() -> Project {
        Project {
            name: ProjectName::parse("app").unwrap(),
            display_name: "App".into(),
            description: String::new(),
            base_language: code("en"),
            languages: vec![code("en"), code("fr")],
        }
    }

    fn key(name: &str, en: &str, fr: &str) -> Key {
        let mut key = Key::named(KeyName::parse(name).unwrap());
        key.translations = [
            (code("en"), Text::Plain(en.to_owned())),
            (code("fr"), Text::Plain(fr.to_owned())),
        ]
        .into_iter()
        .collect();
        key
    }

    fn original(path: &str, language: &str, bytes: &str) -> (LanguageCode, upload::Original) {
        let original = upload::Original {
            path: path.to_owned(),
            language: language.to_owned(),
            file: None,
            format: ExportFormat::Yaml,
            bytes: bytes.as_bytes().to_vec(),
        };
        (code(language), original)
    }

    /// The app's French file: its own order, quoting and a comment, and an entry that is no
    /// key (a mapping the reader passes over).
    const APP_FR: &str = "fr:\n  # Greeting\n  hello: Bonjour\n  bye: 'Au revoir'\n  list: [a, b]\n";

    #[test]
    fn an_apps_own_file_is_kept_and_the_exports_own_one_is_not() {
        let keys = [key("bye", "Bye", "Au revoir"), key("hello", "Hello", "Bonjour")];
        let keys: Vec<&Key> = keys.iter().collect();
        let project = project();
        let export = Export::new(ExportFormat::Yaml, &project, &keys, &[code("fr")]).unwrap();
        let own = String::from_utf8(export.render(&code("fr")).remove(0).bytes).unwrap();
        let BesideFiles {
            edits: kept,
            kept: app_files,
        } = beside(
            &[
                original("a/fr.yml", "fr", APP_FR),
                original("b/en.yml", "en", &own.replace("fr:", "en:")),
            ],
            &project,
            &keys,
        );
        assert_eq!(app_files, ["yaml/en.yml", "yaml/fr.yml"]);
        let paths: Vec<(&str, bool)> = kept
            .iter()
            .map(|(path, contents)| (path.as_str(), contents.is_some()))
            .collect();
        // The English file is not the export's (other texts): kept too; the French one kept
        // with its entry that is no key, and the fingerprint of the export it patches to itself.
        assert!(paths.contains(&("yaml/fr.yml", true)), "{paths:?}");
        let meta: serde_json::Value = kept
            .iter()
            .find(|(path, _)| path == "yaml/fr.yml.locstore.json")
            .and_then(|(_, contents)| serde_json::from_slice(contents.as_ref()?).ok())
            .unwrap();
        assert_eq!(meta["passedOver"], serde_json::json!(["list"]), "{meta}");
        assert_eq!(meta["exportSha256"].as_str().map(str::len), Some(64), "{meta}");

        // The export's own file uploaded: removed, with what was kept beside it.
        let BesideFiles {
            edits: kept,
            kept: app_files,
        } = beside(&[original("fr.yml", "fr", &own)], &project, &keys);
        assert!(app_files.is_empty());
        assert_eq!(
            kept,
            [
                ("yaml/fr.yml.locstore.json".to_owned(), None),
                ("yaml/fr.yml".to_owned(), None)
            ]
        );
    }

    #[test]
    fn an_export_gives_the_kept_file_back_and_patches_only_what_changed() {
        let project = project();
        let keys = [key("bye", "Bye", "Au revoir"), key("hello", "Hello", "Bonjour")];
        let at_upload: Vec<&Key> = keys.iter().collect();
        let kept: Vec<(String, Vec<u8>)> = beside(&[original("fr.yml", "fr", APP_FR)], &project, &at_upload)
            .edits
            .into_iter()
            .filter_map(|(path, contents)| Some((path.strip_prefix("yaml/")?.to_owned(), contents?)))
            .collect();
        let languages = [code("en"), code("fr")];
        let files = |keys: &[&Key]| {
            let export = Export::new(ExportFormat::Yaml, &project, keys, &languages).unwrap();
            let patching = Patching {
                project: &project,
                keys,
                kept: kept.clone(),
                since: HashMap::new(),
                threads: 2,
                given: &Given::default(),
            };
            render(&export, &languages, patching)
        };
        let french = |files: Vec<ExportFile>| {
            let file = files.into_iter().find(|file| file.path == "fr.yml").unwrap();
            String::from_utf8(file.bytes).unwrap()
        };
        assert_eq!(french(files(&at_upload)), APP_FR);
        // A changed text changes its line; a new key comes in; a deleted key goes; the entry
        // that was never a key stays.
        let changed = [key("hello", "Hello", "Salut"), key("new", "New", "Nouveau")];
        let changed: Vec<&Key> = changed.iter().collect();
        let patched = french(files(&changed));
        assert!(
            patched.starts_with("fr:\n  # Greeting\n  hello: \"Salut\"\n"),
            "{patched}"
        );
        assert!(!patched.contains("bye"), "{patched}");
        assert!(
            patched.contains("  list: [a, b]\n") && patched.contains("new: \"Nouveau\""),
            "{patched}"
        );
    }

    #[test]
    fn an_export_reads_only_its_languages_kept_files() {
        let wanted = wanted(ExportFormat::Po, &code("en"), &[code("fr")]);
        assert!(wanted("fr.po") && wanted("fr.po.locstore.json"));
        assert!(!wanted("de.po") && !wanted("template.pot") && !wanted("en.po"));
        let with_base = super::wanted(ExportFormat::Po, &code("en"), &[code("en")]);
        assert!(with_base("template.pot") && with_base("en.po"));
    }
}
