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
//! String Catalogs need none: their writer is Xcode's own layout. The first four formats'
//! exports stay the canonical files they always were; their apps keep their own files through
//! `locstore pull`.

use std::collections::{HashMap, HashSet};

use super::in_order::make_in_order;
use super::{Export, ExportFile, ExportFormat, patch, po, upload};
use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;

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

/// What an upload keeps, given the project and its keys (by name) as the upload leaves them:
/// for each uploaded file, its path under the kept folder (its format's folder and the path
/// the export gives it) with its bytes, or with `None` when the export writes it as it is.
pub fn beside(
    originals: &[(LanguageCode, upload::Original)],
    project: &Project,
    keys: &[&Key],
) -> Vec<(String, Option<Vec<u8>>)> {
    let mut kept = Vec::new();
    let mut paths = HashSet::new();
    let mut formats: Vec<ExportFormat> = originals.iter().map(|(_, original)| original.format).collect();
    formats.dedup();
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
                    let meta = (file.bytes != original.bytes)
                        .then(|| Meta::of(format, file, &original.bytes, keys, language == &project.base_language));
                    Some((file.path.clone(), original, meta))
                })
                .collect::<Vec<_>>()
        };
        let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
        let _ = make_in_order(languages.len(), threads, 2 * threads, of_language, |found| {
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
                        kept.push((path, Some(original.bytes.clone())));
                    }
                }
            }
            Ok::<(), std::convert::Infallible>(())
        });
    }
    kept
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
}

fn meta_path(path: &str) -> String {
    format!("{path}.locstore.json")
}

impl Meta {
    /// What an upload keeps beside the app's file (`local`) that the export's `file` stands
    /// for: the entries no key of `keys` holds, which the patcher asks about (it asks about
    /// exactly those the export lacks), and the export's fingerprint when the patch of the
    /// file with it is the file itself.
    fn of(format: ExportFormat, file: &ExportFile, local: &[u8], keys: &[&Key], is_base: bool) -> Self {
        let names: HashSet<&str> = keys.iter().map(|key| key.name.as_str()).collect();
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
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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

/// The export's `files` with each one that has a kept file (by path) replaced by that file
/// patched with the export's texts. `keys` are the exported keys: an entry of a kept file
/// whose key is not among them goes.
pub fn apply(
    format: ExportFormat,
    base_language: &LanguageCode,
    files: Vec<ExportFile>,
    kept: Vec<(String, Vec<u8>)>,
    keys: &[&Key],
) -> Vec<ExportFile> {
    let mut kept: HashMap<String, Vec<u8>> = kept.into_iter().collect();
    let names: HashSet<&str> = keys.iter().map(|key| key.name.as_str()).collect();
    // A kept file and what is kept beside it.
    let mut take = |path: &str| {
        let local = kept.remove(path)?;
        let meta: Meta = kept
            .remove(&meta_path(path))
            .and_then(|json| serde_json::from_slice(&json).ok())
            .unwrap_or_default();
        Some((local, meta))
    };
    let place = |path: &str| upload::locate(format, path);
    let is_base = |path: &str| {
        place(path).is_some_and(|(language, _)| {
            language == upload::BASE_LANGUAGE
                || LanguageCode::parse(&language).is_ok_and(|code| code.same_as(base_language))
        })
    };
    let group = |path: &str| place(path).and_then(|(_, file)| file).map(|(_, name)| name);
    // The base language's files first: a translation's file puts its new entries in the order
    // of the base file of the same name (namespace), as patched; read only when needed.
    let mut files: Vec<(bool, ExportFile)> = files.into_iter().map(|file| (is_base(&file.path), file)).collect();
    let mut orders: HashMap<Option<String>, Order> = HashMap::new();
    for (base, file) in files.iter_mut().filter(|(base, _)| *base) {
        let Some((local, meta)) = take(&file.path) else {
            if patch::can_patch(format, &file.path) {
                orders.insert(group(&file.path), Order::Of(file.bytes.clone()));
            }
            continue;
        };
        if meta.is_export(&file.bytes) {
            file.bytes = local;
            orders.insert(group(&file.path), Order::Of(file.bytes.clone()));
            continue;
        }
        let deleted = |name: &str| !names.contains(name) && !meta.passed_over.iter().any(|passed| passed == name);
        if let Some(patched) = patched(format, file, &local, None, &deleted, *base) {
            orders.insert(group(&file.path), Order::Names(patched.names.unwrap_or_default()));
            file.bytes = patched.bytes;
        }
    }
    for (base, file) in files.iter_mut().filter(|(base, _)| !*base) {
        let Some((local, meta)) = take(&file.path) else {
            continue;
        };
        if meta.is_export(&file.bytes) {
            file.bytes = local;
            continue;
        }
        let deleted = |name: &str| !names.contains(name) && !meta.passed_over.iter().any(|passed| passed == name);
        let order = orders.get_mut(&group(&file.path)).map(|order| order.names(format));
        if let Some(patched) = patched(format, file, &local, order, &deleted, *base) {
            file.bytes = patched.bytes;
        }
    }
    files.into_iter().map(|(_, file)| file).collect()
}

impl Meta {
    /// Whether `exported` is the export's file the kept file was found unchanged by.
    fn is_export(&self, exported: &[u8]) -> bool {
        self.export_sha256.as_deref() == Some(sha256_hex(exported).as_str())
    }
}

/// The entry names of a base language's file, read from its bytes when first asked.
enum Order {
    Of(Vec<u8>),
    Names(Vec<String>),
}

impl Order {
    fn names(&mut self, format: ExportFormat) -> &[String] {
        if let Self::Of(bytes) = self {
            *self = Self::Names(patch::names(format, bytes).unwrap_or_default());
        }
        match self {
            Self::Names(names) => names,
            Self::Of(_) => &[],
        }
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
