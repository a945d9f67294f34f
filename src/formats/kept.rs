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
//! changed since (which the history knows, [`crate::store::KeysSince`]) are all it needs patching with.
//!
//! String Catalogs need none: their writer is Xcode's own layout. The first four formats'
//! exports stay the canonical files they always were; their apps keep their own files through
//! `locstore pull`.

mod cache;
mod exports;

use std::collections::HashSet;
use std::sync::Arc;

use super::in_order::make_in_order;
use super::{Export, ExportFile, ExportFormat, patch, po, upload};
use crate::domain::model::{Key, Project};
use crate::domain::names::LanguageCode;
use crate::store::BesideFiles;
pub use cache::{Cache, Cached, Reading};
pub use exports::{Given, Patching, Rendered, render};

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

/// What an upload keeps ([`beside`]): the store's edits, and each kept file as exports will
/// patch it (read ahead as the upload read it to find what to keep), by its path under the
/// kept folder, for the cache to hold under its blob once committed.
pub struct Keeping {
    pub files: BesideFiles,
    pub read: ReadAhead,
}

/// Kept files read ahead, by path under the kept folder.
pub type ReadAhead = Vec<(String, Arc<Cached>)>;

/// What an upload keeps, given the project and its keys (by name) as the upload leaves them:
/// for each uploaded file, its path under the kept folder (its format's folder and the path
/// the export gives it) with its bytes, or with `None` when the export writes it as it is,
/// and beside it what [`Meta`] holds; then the paths of the app's files kept.
pub fn beside(originals: &[(LanguageCode, upload::Original)], project: &Project, keys: &[&Key]) -> Keeping {
    let mut read = Vec::new();
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
                        // Read once (by the upload's reader, or now): for the patch that
                        // finds what to keep, then for exports.
                        let prepared = (original.prepared.clone())
                            .or_else(|| patch::prepare(format, &original.bytes).map(Arc::new));
                        let meta = Meta::of(
                            format,
                            file,
                            (&original.bytes, prepared.as_deref()),
                            &names,
                            language == &project.base_language,
                        );
                        (meta, prepared)
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
                    Some((meta, prepared)) => {
                        kept.push((meta_path(&path), Some(meta.to_json().into())));
                        // One copy of the file's bytes, committed and held alike.
                        kept.push((path.clone(), Some(original.bytes.clone())));
                        let file = Cached::read_ahead(format, original.bytes.clone(), prepared);
                        read.push((path.clone(), Arc::new(file)));
                        app_files.push(path);
                    }
                }
            }
            Ok::<(), std::convert::Infallible>(())
        });
    }
    Keeping {
        files: BesideFiles {
            edits: kept,
            kept: app_files,
        },
        read,
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
    fn of(
        format: ExportFormat,
        file: &ExportFile,
        (local, prepared): (&[u8], Option<&patch::Prepared>),
        names: &HashSet<&str>,
        is_base: bool,
    ) -> Self {
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
            prepared,
        };
        let unchanged = patch::patch(format, &input).is_ok_and(|patched| patched.body.keeps(local));
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

impl Meta {
    /// Whether `exported` is the export's file the kept file was found unchanged by.
    fn is_export(&self, exported: &[u8]) -> bool {
        self.export_length.is_none_or(|length| length == exported.len())
            && self.export_sha256.as_deref() == Some(sha256_hex(exported).as_str())
    }
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
            placeholder_format: None,
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
            bytes: bytes.as_bytes().to_vec().into(),
            prepared: None,
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
        let Keeping {
            files: BesideFiles {
                edits: kept,
                kept: app_files,
            },
            read,
        } = beside(
            &[
                original("a/fr.yml", "fr", APP_FR),
                original("b/en.yml", "en", &own.replace("fr:", "en:")),
            ],
            &project,
            &keys,
        );
        assert_eq!(app_files, ["yaml/en.yml", "yaml/fr.yml"]);
        // Each kept file read ahead, as the upload read it, for exports to patch.
        let read: Vec<(&str, bool)> = read
            .iter()
            .map(|(path, file)| (path.as_str(), file.bytes() == APP_FR.as_bytes()))
            .collect();
        assert_eq!(read, [("yaml/en.yml", false), ("yaml/fr.yml", true)]);
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
        let Keeping {
            files: BesideFiles {
                edits: kept,
                kept: app_files,
            },
            read,
        } = beside(&[original("fr.yml", "fr", &own)], &project, &keys);
        assert!(app_files.is_empty() && read.is_empty());
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
        let kept: Vec<(String, std::sync::Arc<Cached>)> =
            beside(&[original("fr.yml", "fr", APP_FR)], &project, &at_upload)
                .files
                .edits
                .into_iter()
                .filter_map(|(path, contents)| {
                    let file = Cached::new(ExportFormat::Yaml, contents?);
                    Some((path.strip_prefix("yaml/")?.to_owned(), std::sync::Arc::new(file)))
                })
                .collect();
        let languages = [code("en"), code("fr")];
        let files = |keys: &[&Key]| {
            let export = Export::new(ExportFormat::Yaml, &project, keys, &languages).unwrap();
            let patching = Patching {
                project: &project,
                keys,
                kept: kept.clone(),
                since: std::collections::HashMap::new(),
                threads: 2,
                given: &Given::default(),
            };
            render(&export, &languages, patching, |file| {
                (file.path().to_owned(), file.bytes().to_vec())
            })
        };
        let french = |files: Vec<(String, Vec<u8>)>| {
            let (_, bytes) = files.into_iter().find(|(path, _)| path == "fr.yml").unwrap();
            String::from_utf8(bytes).unwrap()
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
    fn an_xliff_file_is_parsed_once_by_the_upload_and_kept_as_parsed() {
        let app = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">\n  <file original=\"app\" source-language=\"en\" target-language=\"fr\" datatype=\"plaintext\">\n    <body>\n      <!-- the app's own comment -->\n      <trans-unit id=\"hello\"><source>Hello</source><target>Bonjour</target></trans-unit>\n      <trans-unit id=\"list\"><source>A <g id=\"1\">b</g></source></trans-unit>\n    </body>\n  </file>\n</xliff>\n";
        let upload = upload::read(ExportFormat::Xliff, app.as_bytes(), false, None, usize::MAX).unwrap();
        let [read_by_upload] = <[upload::Original; 1]>::try_from(upload.originals).unwrap();
        let parsed = read_by_upload
            .prepared
            .clone()
            .expect("the reader's parse is handed on");
        let project = project();
        let keys = [key("hello", "Hello", "Bonjour")];
        let keys: Vec<&Key> = keys.iter().collect();
        let parsed_again = upload::Original {
            path: read_by_upload.path.clone(),
            language: read_by_upload.language.clone(),
            file: None,
            format: read_by_upload.format,
            bytes: read_by_upload.bytes.clone(),
            prepared: None,
        };
        let keeping = beside(&[(code("fr"), read_by_upload)], &project, &keys);
        // The file kept for exports is the reader's parse, not a second one.
        assert!(std::ptr::eq(keeping.read[0].1.prepared().unwrap(), &*parsed));
        // And keeping it gives what parsing it again gives.
        let again = beside(&[(code("fr"), parsed_again)], &project, &keys);
        assert_eq!(keeping.files.edits, again.files.edits);
        assert_eq!(keeping.files.kept, ["xliff/fr.xliff"]);
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
