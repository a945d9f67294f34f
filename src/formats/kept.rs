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
        for language in &languages {
            let files = export.render(language);
            for (_, original) in originals
                .iter()
                .filter(|(of, original)| of == language && original.format == format)
            {
                let Some(file) = files.iter().find(|file| stands_for(format, original, &file.path)) else {
                    continue;
                };
                if !paths.insert(file.path.clone()) {
                    continue; // two of the app's files for one of the export's: the first is kept
                }
                let path = format!("{folder}/{}", file.path);
                if file.bytes == original.bytes {
                    kept.push((passed_over_path(&path), None));
                    kept.push((path, None));
                    continue;
                }
                let passed_over = passed_over(format, file, &original.bytes, keys);
                kept.push((
                    passed_over_path(&path),
                    (!passed_over.is_empty()).then(|| serde_json::to_vec(&passed_over).unwrap_or_default()),
                ));
                kept.push((path, Some(original.bytes.clone())));
            }
        }
    }
    kept
}

/// Beside a kept file, the names of its entries the upload passed over (a JSON array): the
/// export keeps them as they are, where it drops the entries of keys deleted since.
const PASSED_OVER: &str = ".passed-over";

fn passed_over_path(path: &str) -> String {
    format!("{path}{PASSED_OVER}")
}

/// The names of the entries of the app's file (`local`) that are no key of `keys`: those the
/// upload passed over. The patcher asks about exactly the entries the export's `file` lacks.
fn passed_over(format: ExportFormat, file: &ExportFile, local: &[u8], keys: &[&Key]) -> Vec<String> {
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
        is_base: false,
    };
    let _ = patch::patch(format, &input);
    let mut found = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    found.sort();
    found.dedup();
    found
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
    // A kept file and the names of its entries that were never keys.
    let mut take = |path: &str| {
        let local = kept.remove(path)?;
        let passed_over: HashSet<String> = kept
            .remove(&passed_over_path(path))
            .and_then(|json| serde_json::from_slice(&json).ok())
            .unwrap_or_default();
        Some((local, passed_over))
    };
    let place = |path: &str| upload::locate(format, path);
    let is_base = |path: &str| {
        place(path).is_some_and(|(language, _)| {
            language == upload::BASE_LANGUAGE
                || LanguageCode::parse(&language).is_ok_and(|code| code.same_as(base_language))
        })
    };
    // The base language's files first: a translation's file puts its new entries in the order
    // of the base file of the same name (namespace), as patched.
    let mut files: Vec<(bool, ExportFile)> = files.into_iter().map(|file| (is_base(&file.path), file)).collect();
    let mut orders: HashMap<Option<String>, Vec<String>> = HashMap::new();
    let group = |path: &str| place(path).and_then(|(_, file)| file).map(|(_, name)| name);
    for (base, file) in files.iter_mut().filter(|(base, _)| *base) {
        let Some((local, passed_over)) = take(&file.path) else {
            if patch::can_patch(format, &file.path) {
                orders.insert(group(&file.path), patch::names(format, &file.bytes).unwrap_or_default());
            }
            continue;
        };
        let deleted = |name: &str| !names.contains(name) && !passed_over.contains(name);
        if let Some(patched) = patched(format, file, &local, None, &deleted, *base) {
            orders.insert(group(&file.path), patched.names.unwrap_or_default());
            file.bytes = patched.bytes;
        }
    }
    for (base, file) in files.iter_mut().filter(|(base, _)| !*base) {
        let Some((local, passed_over)) = take(&file.path) else {
            continue;
        };
        let deleted = |name: &str| !names.contains(name) && !passed_over.contains(name);
        let order = orders.get(&group(&file.path)).map(Vec::as_slice);
        if let Some(patched) = patched(format, file, &local, order, &deleted, *base) {
            file.bytes = patched.bytes;
        }
    }
    files.into_iter().map(|(_, file)| file).collect()
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
