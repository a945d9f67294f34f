//! `locstore pull`: every file set exported and the app's files brought in step, patched in
//! place where the app has them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use super::server::{Exported, ExportedEntry, KeyState, Server};
use super::settings;
use super::{Common, Ending, Failure, PullOptions, connect, display, files, print_json};
use crate::domain::names::Namespace;
use crate::formats::{ExportFormat, patch, upload};

/// Exports every file set and brings the app's files in step: a file the app has is
/// patched in place (see [`crate::formats::patch`]), one it lacks is written as the export
/// writes it.
pub fn pull(common: &Common, options: &PullOptions) -> Result<Ending, Failure> {
    let (settings, mut server) = connect(common)?;
    // A branch followed from the app's git branch that was never pushed: the main line's
    // text is the app's until it is.
    if server.branch.as_ref().is_some_and(|branch| branch.followed) && !server.branch_exists()? {
        server.branch = None;
    }
    let base_language = server
        .project()?
        .and_then(|project| project["baseLanguageISO"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut reports = Vec::new();
    let mut differs = false;
    // Key (namespace and name) → what the server knows of it (deleted, never had, or its
    // files), asked once per pull.
    let key_states: Mutex<HashMap<(String, String), KeyState>> = Mutex::default();
    // The languages the app has files of, in any set (an app's bundles or modules need not
    // all have every language).
    let mut local_languages = HashSet::new();
    for set in &settings.file_sets {
        for file in files::collect(set)? {
            local_languages.extend(language_of(set, &base_language, &file.layout));
            // A String Catalog holds its languages inside: an app extension's `.lproj`
            // tables beside the app's catalog are not new languages' files.
            if set.format == crate::formats::ExportFormat::Xcstrings || set.is_file_of_languages() {
                let languages = match set.format {
                    crate::formats::ExportFormat::Xcstrings => catalog_languages(&file.disk),
                    _ => root_languages(&file.disk),
                };
                local_languages.extend(languages.into_iter().map(|language| {
                    if settings::folded(&language) == settings::folded(&base_language) {
                        String::new()
                    } else {
                        settings::folded(&language)
                    }
                }));
            }
        }
    }
    for whole_set in &settings.file_sets {
        let mut changes = Vec::new();
        for (pass_set, versions) in passes(whole_set) {
            let set = &pass_set;
            let exported = server
                .export(set, options.at.as_deref())
                .map_err(|failure| Failure::new(format!("{}: {}", set.path, failure.0)))?;
            let entries = exported.entries()?;
            // The names of the set's own files in a folder of each language (`strings.xml`,
            // `InfoPlist.strings`): a language new on the server gets those, never a table the
            // set keeps in none of its languages.
            let tables: HashSet<String> = match set.format {
                ExportFormat::AndroidXml | ExportFormat::AppleStrings => files::collect(set)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|file| file.layout.rsplit_once('/').map(|(_, name)| name.to_owned()))
                    .collect(),
                _ => HashSet::new(),
            };
            let puller = Puller {
                server: &server,
                set,
                base_language: &base_language,
                check: options.check,
                exported: &exported,
                key_states: &key_states,
                base_orders: Mutex::default(),
                layouts: entries
                    .iter()
                    .map(|entry| (entry.layout.clone(), entry.clone()))
                    .collect(),
                exported_names: Mutex::default(),
                local_languages: &local_languages,
                tables,
                versions,
            };
            // The base language's files first: the entries new to a translation's file follow
            // the order of the base file of the same name, as patched. The others then on every
            // core, one file at a time each.
            if set.is_table_per_language() {
                changes.extend(puller.pull_tables(&entries)?);
                continue;
            }
            let (base, others): (Vec<ExportedEntry>, Vec<ExportedEntry>) =
                entries.into_iter().partition(|entry| puller.is_base(&entry.layout));
            if set.is_file_of_languages() {
                // Every language's part of one file, one after the other.
                for entry in base.iter().chain(&others) {
                    changes.extend(puller.pull_part(entry)?);
                }
                continue;
            }
            for entry in &base {
                changes.extend(puller.pull_file(entry)?);
            }
            changes.extend(
                in_parallel(&others, |entry| puller.pull_file(entry))?
                    .into_iter()
                    .flatten(),
            );
        }
        let set = whole_set;
        changes.sort();
        changes.dedup_by(|a, b| a.0 == b.0);
        differs |= !changes.is_empty();
        if !common.json {
            for (path, change) in &changes {
                let verb = match (options.check, *change) {
                    (true, "created") => "missing",
                    (true, _) => "differs",
                    (false, change) => change,
                };
                println!("{verb}: {path}");
            }
        }
        let files: Vec<Value> = changes
            .iter()
            .map(|(path, change)| json!({"path": path, "change": change}))
            .collect();
        reports.push(json!({"path": set.path, "format": set.format.name(), "files": files}));
    }
    if common.json {
        print_json(&json!({"check": options.check, "changed": differs, "sets": reports}));
    } else if !differs {
        println!("up to date");
    }
    Ok(if differs && options.check {
        Ending::Flagged
    } else {
        Ending::Done
    })
}

/// What a pull of one file set shares between the files it works on.
struct Puller<'a> {
    server: &'a Server,
    set: &'a settings::FileSet,
    base_language: &'a str,
    check: bool,
    exported: &'a Exported,
    key_states: &'a Mutex<HashMap<(String, String), KeyState>>,
    /// The entry names of each base language file (by file name), as patched.
    base_orders: Mutex<HashMap<String, BaseOrder>>,
    /// The export's files by layout path.
    layouts: HashMap<String, ExportedEntry>,
    /// The entry names of exported files read so far (for keys that moved between files).
    exported_names: Mutex<HashMap<String, HashSet<String>>>,
    /// The languages the app has files of ([`language_of`]): a file the app lacks is written
    /// only for a language it has none of (one new on the server).
    local_languages: &'a HashSet<String>,
    /// The names of the set's own files in its language folders (Android and Apple only;
    /// empty for a set that has none yet, which then takes every file of the export).
    tables: HashSet<String>,
    /// For an XLIFF set whose files are of both versions: the version this pass writes, and
    /// whether it writes the files the app lacks too (see [`passes`]).
    versions: Option<(ExportFormat, bool)>,
}

/// The passes of a pull over `set`: one, except for an XLIFF set whose app files are of both
/// versions (Bolt's Symfony domains, 1.2 and 2.0 side by side), which each file keeps: the
/// set's own version for its files and any new one, then the other version for the files
/// written in it.
fn passes(set: &settings::FileSet) -> Vec<(settings::FileSet, Option<(ExportFormat, bool)>)> {
    let other = match set.format {
        ExportFormat::Xliff => ExportFormat::Xliff2,
        ExportFormat::Xliff2 => ExportFormat::Xliff,
        _ => return vec![(set.clone(), None)],
    };
    let mixed = files::collect(set)
        .unwrap_or_default()
        .iter()
        .any(|file| xliff_version_of(&file.disk) == Some(other));
    if !mixed {
        return vec![(set.clone(), None)];
    }
    let mut in_other = set.clone();
    in_other.format = other;
    vec![
        (set.clone(), Some((set.format, true))),
        (in_other, Some((other, false))),
    ]
}

/// The XLIFF version an app's file is written in (`None`: no such file, or not XLIFF), read
/// from its first bytes.
fn xliff_version_of(path: &Path) -> Option<ExportFormat> {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(8192).read_to_end(&mut head).ok()?;
    Some(match crate::formats::xliff::version_of(&head)? {
        crate::formats::xliff::Version::V1 => ExportFormat::Xliff,
        crate::formats::xliff::Version::V2 => ExportFormat::Xliff2,
    })
}

/// The order of a base language's file: its names, or (for a file the pull left as it was)
/// where it is, read only when a translation's file needs it.
enum BaseOrder {
    Names(Arc<Vec<String>>),
    OnDisk(PathBuf),
}

impl Puller<'_> {
    fn set_base_order(&self, file_name: String, order: BaseOrder) {
        self.base_orders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(file_name, order);
    }

    /// The entry names of the base language's file `file_name`, read from disk the first time
    /// they are needed when the pull left that file as it was.
    fn base_order(&self, file_name: &str) -> Option<Arc<Vec<String>>> {
        let mut orders = self.base_orders.lock().unwrap_or_else(PoisonError::into_inner);
        let order = orders.get_mut(file_name)?;
        if let BaseOrder::OnDisk(path) = order {
            let names = std::fs::read(&*path)
                .ok()
                .and_then(|bytes| patch::names(self.set.format, &bytes).ok())
                .unwrap_or_default();
            *order = BaseOrder::Names(Arc::new(names));
        }
        match order {
            BaseOrder::Names(names) => Some(names.clone()),
            BaseOrder::OnDisk(_) => None,
        }
    }

    fn language_of(&self, layout: &str) -> Option<String> {
        language_of(self.set, self.base_language, layout)
    }

    fn is_base(&self, layout: &str) -> bool {
        is_base(self.set, self.base_language, layout)
    }

    /// Brings one file in step; answers its path and change when it changed (or, with
    /// `--check`, would).
    fn pull_file(&self, entry: &ExportedEntry) -> Result<Option<(String, &'static str)>, Failure> {
        let format = self.set.format;
        let Some(target) = files::destination(self.set, &entry.layout, self.base_language) else {
            return Ok(None);
        };
        // Each XLIFF file in its own version.
        if let Some((version, new_files)) = self.versions {
            match xliff_version_of(&target) {
                Some(own) if own != version => return Ok(None),
                None if !new_files => return Ok(None),
                _ => {}
            }
        }
        // A gettext app keeps its source language in its template: the base language's `.po`
        // is written only when the app has one (or no template).
        if format == crate::formats::ExportFormat::Po
            && entry.layout.ends_with(".po")
            && self.is_base(&entry.layout)
            && !target.exists()
            && files::destination(self.set, crate::formats::po::TEMPLATE, self.base_language)
                .is_some_and(|template| template.exists())
        {
            return Ok(None);
        }
        // An app's XLIFF files are its translations' (Xcode exports the source language only
        // when asked): the base language's file is written only when the app has one, or no
        // XLIFF file yet.
        if matches!(
            format,
            crate::formats::ExportFormat::Xliff | crate::formats::ExportFormat::Xliff2
        ) && self.is_base(&entry.layout)
            && !target.exists()
            && files::collect(self.set).is_ok_and(|found| !found.is_empty())
        {
            return Ok(None);
        }
        // A file the app lacks, of a language it has files of (a namespace, table, template or
        // catalog it does not keep), is not added: only a language new on the server brings
        // new files.
        if !target.exists()
            && self
                .language_of(&entry.layout)
                .is_some_and(|language| self.local_languages.contains(&language))
        {
            return Ok(None);
        }
        let file_name = entry.layout.rsplit('/').next().unwrap_or_default().to_owned();
        // A table the set keeps in none of its languages (the empty `Localizable.strings` of
        // an extension whose texts are all in `InfoPlist.strings`) is not added for a new one.
        if !target.exists() && !self.tables.is_empty() && !self.tables.contains(&file_name) {
            return Ok(None);
        }
        let base = self.is_base(&entry.layout);
        let old = read_if_there(&target)?;
        // The zip's CRC-32 and size tell an unchanged file without unpacking the export's.
        let unchanged = old
            .as_ref()
            .is_some_and(|old| old.len() as u64 == entry.size && crc32fast::hash(old) == entry.crc32);
        let orders_others = base && patch::can_patch(format, &entry.layout);
        if unchanged {
            if orders_others {
                self.set_base_order(file_name, BaseOrder::OnDisk(target));
            }
            return Ok(None);
        }
        let mut base_names = None;
        let new = match &old {
            Some(old) if patch::can_patch(format, &entry.layout) => {
                let order = if base { None } else { self.base_order(&file_name) };
                let exported = self.exported.read(entry)?;
                let order = order.as_deref().map(Vec::as_slice);
                let patched = self.patch(&entry.layout, old, &exported, order, base, &target, None)?;
                base_names = patched.names;
                patched.body.into_bytes(old)
            }
            _ => self.exported.read(entry)?,
        };
        if orders_others {
            let names = match base_names {
                Some(names) => names,
                None => patch::names(format, &new).unwrap_or_default(),
            };
            self.set_base_order(file_name, BaseOrder::Names(Arc::new(names)));
        }
        let change = match &old {
            Some(old) if *old == new => return Ok(None),
            Some(_) => "updated",
            None => "created",
        };
        if !self.check {
            write_file(&target, &new)?;
        }
        Ok(Some((display(&target), change)))
    }

    /// `local` (the app's file, or a part of it) brought in step with `exported`, the
    /// export's file at `layout`.
    #[allow(clippy::too_many_arguments, reason = "the patch's inputs, each one of its own")]
    fn patch(
        &self,
        layout: &str,
        local: &[u8],
        exported: &[u8],
        order: Option<&[String]>,
        base: bool,
        target: &Path,
        language: Option<&str>,
    ) -> Result<patch::Patched, Failure> {
        // The server is asked only about entries the export lacks; a failure to ask keeps
        // the entry and fails the pull after the patch.
        let failure: Mutex<Option<Failure>> = Mutex::default();
        let deleted = |name: &str| match self.goes(name, layout) {
            Ok(deleted) => deleted,
            Err(err) => {
                failure
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(err);
                false
            }
        };
        let input = patch::PatchInput {
            local,
            exported,
            order,
            deleted: &deleted,
            is_base: base,
            prepared: None,
        };
        let patched = match language {
            // A table per language: the file of the language its path names.
            Some(language) => patch::csv::patch_in(&input, Some(language)),
            None => patch::patch(self.set.format, &input),
        }
        .map_err(|err| Failure::new(format!("{}: {err}", display(target))))?;
        match failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(failure) => Err(failure),
            None => Ok(patched),
        }
    }

    /// Brings one language's part of a file of several languages in step (see
    /// [`settings::FileSet::is_file_of_languages`]): the part patched as a file of its own,
    /// the rest of the file as it was. A language the file has no part of gets none: the
    /// file holds the languages its app chose.
    fn pull_part(&self, entry: &ExportedEntry) -> Result<Option<(String, &'static str)>, Failure> {
        let Some(target) = files::destination(self.set, &entry.layout, self.base_language) else {
            return Ok(None);
        };
        let Some(language) = upload::place(self.set.format, &entry.layout) else {
            return Ok(None);
        };
        let Some(old) = read_if_there(&target)? else {
            return Ok(None);
        };
        let unreadable = |err: crate::formats::ReadError| Failure::new(format!("{}: {err}", display(&target)));
        let text = std::str::from_utf8(&old)
            .map_err(|_| Failure::new(format!("{}: the file is not UTF-8", display(&target))))?;
        let Some(part) = patch::yaml::language_part(text, &language).map_err(unreadable)? else {
            return Ok(None);
        };
        let local = &old[part.clone()];
        let exported = self.exported.read(entry)?;
        let base = self.is_base(&entry.layout);
        let patched = self.patch(&entry.layout, local, &exported, None, base, &target, None)?;
        let new = [
            &old[..part.start],
            &patched.body.into_bytes(local)[..],
            &old[part.end..],
        ]
        .concat();
        if new == old {
            return Ok(None);
        }
        if !self.check {
            write_file(&target, &new)?;
        }
        Ok(Some((display(&target), "updated")))
    }

    /// Brings a table per language's files in step (see
    /// [`settings::FileSet::is_table_per_language`]): each file patched with its language's
    /// column of the export's table; a language new on the server gets its file, made of its
    /// texts in the set's pattern.
    fn pull_tables(&self, entries: &[ExportedEntry]) -> Result<Vec<(String, &'static str)>, Failure> {
        let Some(entry) = entries.iter().find(|entry| entry.layout.ends_with(".csv")) else {
            return Ok(Vec::new());
        };
        let exported = self.exported.read(entry)?;
        let exported_text = std::str::from_utf8(&exported)
            .map_err(|_| Failure::new(format!("{}: the export is not UTF-8", self.set.path)))?;
        let table = crate::formats::csv_table::table(exported_text)
            .map_err(|err| Failure::new(format!("{}: {err}", self.set.path)))?;
        let mut changes = Vec::new();
        for language in table.languages.iter().flatten() {
            let target = files::table_file(self.set, language);
            let old = read_if_there(&target)?;
            // Only a language new on the server brings a file the app lacks.
            let is_base = settings::folded(language) == settings::folded(self.base_language);
            let known = if is_base {
                String::new()
            } else {
                settings::folded(language)
            };
            if old.is_none() && self.local_languages.contains(&known) {
                continue;
            }
            let local = old.as_deref().unwrap_or_default();
            let patched = self.patch(&entry.layout, local, &exported, None, is_base, &target, Some(language))?;
            let new = patched.body.into_bytes(local);
            let change = match &old {
                Some(old) if *old == new => continue,
                Some(_) => "updated",
                // A language without a text in this table gets no file.
                None if new.is_empty() => continue,
                None => "created",
            };
            if !self.check {
                write_file(&target, &new)?;
            }
            changes.push((display(&target), change));
        }
        Ok(changes)
    }

    /// Whether an entry of the app's file at `layout` that the export lacks goes: when the
    /// server deleted its key, or when the key now lives in another file of the folder that
    /// this language's export writes it into (a `files` entry changed on the server). The server is asked
    /// once per key per pull.
    fn goes(&self, name: &str, layout: &str) -> Result<bool, Failure> {
        // The key of the entry: its file's namespace, under the set's.
        let located = upload::locate(self.set.format, layout).and_then(|(_, file)| file);
        let own = upload::namespace_of(self.set.format, layout, located.as_ref());
        // As the upload names it: the file's own namespace under the set's.
        let set_namespace = self.set.namespace.as_deref().unwrap_or_default();
        let namespace = Namespace::parse(&own)
            .and_then(|file| file.under(&Namespace::parse(set_namespace)?))
            .map_or(own, |namespace| namespace.as_str().to_owned());
        let id = (namespace, name.to_owned());
        let known = self
            .key_states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .cloned();
        let state = match known {
            Some(state) => state,
            None => {
                let state = self.server.key_state(&id.0, name)?;
                self.key_states
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(id, state.clone());
                state
            }
        };
        Ok(match state {
            KeyState::Deleted => true,
            KeyState::NeverHad => false,
            KeyState::Present { files } => {
                let Some((_, Some((platform, file)))) = upload::locate(self.set.format, layout) else {
                    return Ok(false);
                };
                let Some(theirs) = files[platform.name()].as_str().or(platform.default_file()) else {
                    return Ok(false);
                };
                theirs != file && self.exported_in(name, layout, theirs)?
            }
        })
    }

    /// Whether this language's export writes `name` into the file `file` of the folder that
    /// holds `layout` (where a key that moved between files now is). A stale entry of a key
    /// the language has no text of stays where it is.
    fn exported_in(&self, name: &str, layout: &str, file: &str) -> Result<bool, Failure> {
        let folder = layout.rsplit_once('/').map_or("", |(folder, _)| folder);
        let extensions: &[&str] = match self.set.format {
            crate::formats::ExportFormat::AppleStrings => &[".strings", ".stringsdict"],
            crate::formats::ExportFormat::Json | crate::formats::ExportFormat::I18next => &[".json"],
            crate::formats::ExportFormat::Xcstrings => &[".xcstrings"],
            _ => &[""],
        };
        for extension in extensions {
            let target = if folder.is_empty() {
                format!("{file}{extension}")
            } else {
                format!("{folder}/{file}{extension}")
            };
            let Some(entry) = self.layouts.get(&target) else {
                continue;
            };
            // A file the app lacks and the pull does not write (a language the app has) is no
            // place to move an entry to: the entry stays where the app has it.
            let kept = files::destination(self.set, &target, self.base_language).is_some_and(|disk| {
                disk.exists()
                    || self
                        .language_of(&target)
                        .is_some_and(|language| !self.local_languages.contains(&language))
            });
            if !kept {
                continue;
            }
            let known = self
                .exported_names
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&target)
                .cloned();
            let names = match known {
                Some(names) => names,
                None => {
                    let bytes = self.exported.read(entry)?;
                    let names: HashSet<String> = patch::names(self.set.format, &bytes)
                        .unwrap_or_default()
                        .into_iter()
                        .collect();
                    self.exported_names
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(target.clone(), names.clone());
                    names
                }
            };
            if names.contains(name) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The languages a String Catalog names: its `sourceLanguage` and every localization's.
fn catalog_languages(path: &Path) -> Vec<String> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let Ok(catalog) = serde_json::from_slice::<Value>(&bytes) else {
        return Vec::new();
    };
    let mut languages: HashSet<String> = catalog["sourceLanguage"]
        .as_str()
        .map(str::to_owned)
        .into_iter()
        .collect();
    for string in catalog["strings"]
        .as_object()
        .into_iter()
        .flat_map(|strings| strings.values())
    {
        if let Some(localizations) = string["localizations"].as_object() {
            languages.extend(localizations.keys().cloned());
        }
    }
    languages.into_iter().collect()
}

/// The languages a file of several languages holds: its root keys.
fn root_languages(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| crate::formats::yaml::root_keys(&text))
        .unwrap_or_default()
        .into_iter()
        .filter(|name| crate::domain::names::LanguageCode::parse(name).is_ok())
        .collect()
}

/// The language a layout path of `set` names, folded, with the base language's places as one
/// (`""`).
fn language_of(set: &settings::FileSet, base_language: &str, layout: &str) -> Option<String> {
    if is_base(set, base_language, layout) {
        return Some(String::new());
    }
    upload::place(set.format, layout).map(|language| settings::folded(&language))
}

fn is_base(set: &settings::FileSet, base_language: &str, layout: &str) -> bool {
    upload::place(set.format, layout).is_some_and(|language| {
        language == upload::BASE_LANGUAGE || settings::folded(&language) == settings::folded(base_language)
    })
}

/// Runs `work` on every item, on up to four threads; answers the results in item order, or
/// the first failure.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> Result<R, Failure> + Sync,
) -> Result<Vec<R>, Failure> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<R, Failure>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = work(item);
                    results.lock().unwrap_or_else(PoisonError::into_inner)[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .map(|result| result.expect("every item was worked on"))
        .collect()
}

/// A file of the app, `None` when it does not exist.
fn read_if_there(target: &Path) -> Result<Option<Vec<u8>>, Failure> {
    match std::fs::read(target) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Failure::new(format!("cannot read {}: {err}", target.display()))),
    }
}

/// Writes a file through a temporary beside it, so that a reader never sees half of it.
fn write_file(target: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let fail = |err: std::io::Error| Failure::new(format!("cannot write {}: {err}", target.display()));
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    // The whole name and a suffix: `Localizable.strings` and `Localizable.stringsdict`,
    // written at once by two threads, must not share a temporary.
    let mut temporary = target.as_os_str().to_owned();
    temporary.push(".locstore-tmp");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, bytes).map_err(fail)?;
    std::fs::rename(&temporary, target).map_err(fail)
}
