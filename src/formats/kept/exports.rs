//! Kept files given by an export: each as kept when no key changed since it was kept,
//! patched with an export of the keys changed since where its upload's export left it as it
//! was, else patched with the language's whole export (see [`super`]).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::{Cached, META, Meta, meta_path};
use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;
use crate::formats::archive::{ExportedFile, Zipped};
use crate::formats::in_order::make_in_order;
use crate::formats::{Export, ExportFile, ExportFormat, patch, upload};
use crate::store::KeysSince;

/// What an export patches the app's kept files with.
pub struct Patching<'a> {
    /// The project exported.
    pub project: &'a Project,
    /// The keys exported: an entry of a kept file whose key is not among them goes, unless
    /// the upload passed it over.
    pub keys: &'a [&'a Key],
    /// The app's kept files (and what is kept beside them) of the languages exported, by
    /// path under the format's folder.
    pub kept: Vec<(String, Arc<Cached>)>,
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
    local: Arc<Cached>,
    meta: Meta,
    passed_over: HashSet<String>,
    /// Set when the file patched with its upload's export was the file itself and the keys'
    /// history since then is known: then only the keys changed since need patching in.
    since: Option<Arc<KeysSince>>,
}

/// A file of an export of kept files: made by the export, a kept file as it is (its bytes
/// not copied, and zipped once for every export that gives it so), or a kept file with the
/// edits of its patch (written from the kept file and its edits, never copied whole).
pub enum Rendered {
    Made(ExportFile),
    AsKept {
        path: String,
        file: Arc<Cached>,
    },
    Edited {
        path: String,
        file: Arc<Cached>,
        edited: patch::Edited,
    },
}

impl Rendered {
    pub fn path(&self) -> &str {
        match self {
            Self::Made(file) => &file.path,
            Self::AsKept { path, .. } | Self::Edited { path, .. } => path,
        }
    }

    /// The file's bytes (a patched kept file's made here).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Self::Made(file) => Cow::Borrowed(&file.bytes),
            Self::AsKept { file, .. } => Cow::Borrowed(file.bytes()),
            Self::Edited { file, edited, .. } => Cow::Owned(edited.to_bytes(file.bytes())),
        }
    }

    /// A kept file patched as `body` says, at `path`: the kept file as it is when the patch
    /// leaves its bytes (then its zip is kept too).
    fn patched(path: String, file: &Arc<Cached>, body: patch::Body) -> Self {
        match body {
            patch::Body::Edited(edited) if edited.keeps(file.bytes()) => Self::AsKept {
                path,
                file: file.clone(),
            },
            patch::Body::Edited(edited) => Self::Edited {
                path,
                file: file.clone(),
                edited,
            },
            patch::Body::Bytes(bytes) => Self::Made(ExportFile { path, bytes }),
        }
    }
}

impl ExportedFile for Rendered {
    fn path(&self) -> &str {
        Rendered::path(self)
    }

    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Self::Made(file) => file.write(out),
            Self::AsKept { file, .. } => out.write_all(file.bytes()),
            Self::Edited { file, edited, .. } => edited.write(file.bytes(), out),
        }
    }

    fn size(&self) -> usize {
        match self {
            Self::Made(file) => file.bytes.len(),
            Self::AsKept { file, .. } => file.bytes().len(),
            Self::Edited { file, edited, .. } => edited.len(file.bytes()),
        }
    }

    fn zipped(&self) -> Option<&Zipped> {
        match self {
            Self::AsKept { file, .. } => Some(file.zipped()),
            Self::Made(_) | Self::Edited { .. } => None,
        }
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
///
/// Each file is handed to `finish` (which zips or stores it) on the thread that made it, and
/// a translation's file is dropped then: an export of files of tens of MB holds a few at once
/// rather than all of them. The answer is what `finish` made of each file, the base
/// language's first.
pub fn render<T: Send>(
    export: &Export<'_, &Key>,
    languages: &[LanguageCode],
    patching: Patching<'_>,
    finish: impl Fn(&Rendered) -> T + Sync,
) -> Vec<T> {
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
    let (metas, kept): (HashMap<String, Arc<Cached>>, HashMap<String, Arc<Cached>>) =
        kept.into_iter().partition(|(path, _)| path.ends_with(META));
    // The keys by name alone (they come sorted by namespace, then name), made when asked.
    let names_sorted: OnceLock<Vec<(&str, &Key)>> = OnceLock::new();
    let names_sorted = || -> &[(&str, &Key)] {
        names_sorted.get_or_init(|| {
            let mut sorted: Vec<(&str, &Key)> = keys.iter().map(|key| (key.name.as_str(), *key)).collect();
            sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
            sorted
        })
    };
    let kept: HashMap<String, Kept> = kept
        .into_iter()
        .map(|(path, local)| {
            let mut meta: Meta = metas
                .get(&meta_path(&path))
                .and_then(|json| serde_json::from_slice(json.bytes()).ok())
                .unwrap_or_default();
            let passed_over = std::mem::take(&mut meta.passed_over).into_iter().collect();
            // The file and what is kept beside it must have been kept together.
            let since = since
                .get(&path)
                .filter(|since| meta.export_sha256.is_some() && patches_alone(format, since, names_sorted))
                .filter(|of_file| {
                    since
                        .get(&meta_path(&path))
                        .is_some_and(|of_meta| of_meta.commit == of_file.commit)
                })
                .cloned();
            let kept = Kept {
                local,
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
                // The keys are sorted by namespace and name and the changes name keys by name
                // alone: every key of a changed name, whatever its namespace (a key of the
                // same name in another namespace only patches its file to what it is).
                let sorted = names_sorted();
                let mut of: Vec<&Key> = since
                    .changed
                    .iter()
                    .flat_map(|name| {
                        let start = sorted.partition_point(|(known, _)| *known < name.as_str());
                        sorted[start..]
                            .iter()
                            .take_while(move |(known, _)| *known == name.as_str())
                            .map(|(_, key)| *key)
                    })
                    .collect();
                of.sort_by(|a, b| a.name.cmp(&b.name));
                changed.push((since.clone(), of));
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
    let give = |file: ExportFile, order: Option<&[String]>, is_base: bool| -> (Rendered, Option<Vec<String>>) {
        let Some(kept) = kept.get(&file.path) else {
            return (Rendered::Made(file), None);
        };
        counts.whole_export.fetch_add(1, Ordering::Relaxed);
        if kept.meta.is_export(&file.bytes) {
            let as_kept = Rendered::AsKept {
                path: file.path,
                file: kept.local.clone(),
            };
            return (as_kept, None);
        }
        let deleted = |name: &str| !names().contains(name) && !kept.passed_over.contains(name);
        match patched(format, &file, &kept.local, order, &deleted, is_base) {
            Some(patched) => (Rendered::patched(file.path, &kept.local, patched.body), patched.names),
            None => (Rendered::Made(file), None),
        }
    };
    // A kept file that needs the changed keys only, given the file of `changed` (the export
    // of those keys, by language) at its path: `None` when it cannot be given that way.
    let give_changed = |path: &str,
                        changed: &mut dyn FnMut(&str) -> Option<Vec<ExportFile>>,
                        nothing: &mut dyn FnMut() -> Vec<ExportFile>,
                        order: &dyn Fn() -> Option<Names>,
                        is_base: bool|
     -> Option<(Rendered, Option<Vec<String>>)> {
        let kept = kept.get(path)?;
        let since = kept.since.as_ref()?;
        let as_kept = || Rendered::AsKept {
            path: path.to_owned(),
            file: kept.local.clone(),
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
            &kept.local,
            order.as_deref().map(Vec::as_slice),
            &deleted,
            is_base,
        )?;
        if patched.whole {
            // The file is written as the export writes it: the whole export's, then.
            return None;
        }
        counts.changed_keys.fetch_add(1, Ordering::Relaxed);
        let file = Rendered::patched(path.to_owned(), &kept.local, patched.body);
        Some((file, patched.names))
    };
    // The files of one language: where each has a kept file that needs the changed keys
    // only, without rendering the language's whole export; else rendered (`rendered`, or
    // here) and patched.
    let language_files = |language: &LanguageCode,
                          rendered: Option<Vec<ExportFile>>,
                          order_of: &dyn Fn(&str) -> Option<Names>|
     -> Vec<(Rendered, Option<Vec<String>>)> {
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
        let mut given: HashMap<&str, (Rendered, Option<Vec<String>>)> = HashMap::new();
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
            if patch::can_patch(format, file.path()) {
                orders.insert(
                    group(file.path()),
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
                .get_or_init(|| Arc::new(patch::names(format, &base_files[*index].bytes()).unwrap_or_default()))
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
    // One piece per batch of translations, then the base language's files, finished last
    // (a translation may read the order of its base file until then) beside the last batch.
    let mut pieces: Vec<Vec<T>> = Vec::with_capacity(batches.len() + 1);
    let Ok(()) = make_in_order(
        batches.len() + 1,
        threads,
        2 * threads,
        |index| {
            let Some(batch) = batches.get(index) else {
                return base_files.iter().map(&finish).collect();
            };
            // The languages whose whole export is needed, rendered together.
            let whole: Vec<&LanguageCode> = batch
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
            let mut finished = Vec::new();
            for &language in *batch {
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
                for (file, _) in language_files(language, own, &order_of) {
                    finished.push(finish(&file));
                }
            }
            finished
        },
        |piece| {
            pieces.push(piece);
            Ok::<(), std::convert::Infallible>(())
        },
    );
    let mut finished = pieces.pop().unwrap_or_default();
    finished.extend(pieces.into_iter().flatten());
    finished
}

/// Whether patching a kept file with the export of the keys `since` names alone gives what
/// patching it with the whole export does. Not where a key's entry depends on other keys:
/// XLIFF 2.0 numbers the units of keys whose names are no XML name, and nested formats
/// (i18next, YAML) write a name differently when another key's name is inside it.
fn patches_alone<'k>(
    format: ExportFormat,
    since: &KeysSince,
    names_sorted: impl Fn() -> &'k [(&'k str, &'k Key)],
) -> bool {
    match format {
        ExportFormat::Xliff2 => since
            .changed
            .iter()
            .all(|name| crate::formats::xliff::is_name_token(name)),
        ExportFormat::I18next | ExportFormat::Yaml => {
            let sorted = names_sorted();
            let has = |name: &str| sorted.binary_search_by(|(known, _)| known.cmp(&name)).is_ok();
            let nested = |name: &str| {
                // A key whose name holds this one, or is held in it.
                let inner = format!("{name}.");
                let at = sorted.partition_point(|(known, _)| *known < inner.as_str());
                sorted.get(at).is_some_and(|(known, _)| known.starts_with(&inner))
                    || name.match_indices('.').any(|(at, _)| has(&name[..at]))
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

/// A kept file patched with the export's `file`; `None` (the export's file stays) when the
/// kept file cannot be read, which a file read at upload never is.
fn patched(
    format: ExportFormat,
    file: &ExportFile,
    local: &Cached,
    order: Option<&[String]>,
    deleted: &(dyn Fn(&str) -> bool + Sync),
    is_base: bool,
) -> Option<patch::Patched> {
    let input = patch::PatchInput {
        local: local.bytes(),
        exported: &file.bytes,
        order,
        deleted,
        is_base,
        prepared: local.prepared(),
    };
    match patch::patch(format, &input) {
        Ok(patched) => Some(patched),
        Err(err) => {
            tracing::warn!(path = %file.path, error = %err, "writing the export's file instead of the kept one");
            None
        }
    }
}
