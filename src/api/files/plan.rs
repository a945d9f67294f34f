//! An upload turned into import entries ([`UploadPlan`]): the files' languages resolved
//! against the project, each key's texts gathered across languages, and what is passed over
//! as warnings.

use super::UploadedFileItem;
use crate::api::error::ApiError;
use crate::api::warnings::WarningItem;
use crate::domain::key_files::Platform;
use crate::domain::model::{Project, Syntax, Text};
use crate::domain::names::{Description, KeyName, LanguageCode, Namespace, quote_for_message};
use crate::formats::upload::{BASE_LANGUAGE, Original, Upload, UploadedFile};
use crate::store::{ImportEntry, TextInput, TranslationInput};

/// What decided whether an uploaded key is plain or plural.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decided {
    /// Its entry in the base language's files.
    Base,
    /// The key on the server (the upload has no base text of it).
    Server,
    /// The first file read (a new key without a base text).
    FirstFile,
}

/// The kind an entry's texts must have, and whether other languages may have texts.
#[derive(Debug, Clone, Copy)]
struct EntryKind {
    plural: bool,
    translatable: bool,
    decided: Decided,
}

/// Whether the platform of the file at `path` reads each language's file on its own (Rails
/// YAML, i18next and other JSON, ARB, String Catalogs, PO), so that a translation of the
/// other kind than the base language's (a plain text where English has plural forms) is what
/// the app shows in that language. Android and `.stringsdict` look a key up by the base
/// language's kind: there a translation of the other kind is never read.
fn reads_languages_apart(path: &str) -> bool {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    ["yml", "yaml", "json", "arb", "xcstrings", "po"]
        .iter()
        .any(|known| extension.eq_ignore_ascii_case(known))
}

/// What the server knows of a key that an upload may lack the base text of.
#[derive(Debug, Clone, Copy)]
pub(super) struct KnownKey<'a> {
    pub(super) plural: bool,
    pub(super) translatable: bool,
    /// Whether the key has a base text.
    pub(super) has_base: bool,
    /// The key's placeholder syntax, if it has one: uploaded texts of another are converted.
    pub(super) placeholders: Option<Syntax>,
    /// The key's web file (a Rails locale file's family), if it has one.
    pub(super) web_file: Option<&'a str>,
}

impl KnownKey<'_> {
    /// What the server knows of each of a project's keys, by the key's identity.
    pub(super) fn of_keys<'a>(
        keys: &'a [std::sync::Arc<crate::store::KeyEntry>],
        base_language: &LanguageCode,
    ) -> rustc_hash::FxHashMap<&'a str, KnownKey<'a>> {
        keys.iter()
            .map(|entry| {
                let known = KnownKey {
                    plural: entry.key.plural,
                    translatable: entry.key.translatable,
                    has_base: entry.key.translations.get(base_language).is_some(),
                    placeholders: entry.key.placeholders,
                    web_file: entry.key.files.web.as_deref(),
                };
                (entry.key.name.identity(), known)
            })
            .collect()
    }
}

/// An upload turned into import entries: the files' languages resolved against the project,
/// each key's texts gathered across languages, and the entries passed over as warnings.
pub(super) struct UploadPlan {
    pub(super) entries: Vec<ImportEntry>,
    /// Per entry, the kind its texts must have.
    kinds: Vec<EntryKind>,
    pub(super) add_languages: Vec<LanguageCode>,
    pub(super) files: Vec<UploadedFileItem>,
    pub(super) ignored: Vec<String>,
    pub(super) skipped: usize,
    pub(super) warnings: Vec<WarningItem>,
    /// The app's files as it wrote them, with their languages (see [`formats::kept`]).
    pub(super) originals: Vec<(LanguageCode, Original)>,
}

/// Where an uploaded file's entries are: its path, its key space and its language.
struct Place<'a> {
    path: &'a str,
    namespace: &'a str,
    language: &'a LanguageCode,
}

impl UploadPlan {
    /// Reads the base language's files first, so that the base language decides each key's
    /// kind (plain or plural), its file and whether it is translatable; an entry of another
    /// language that disagrees is passed over with a warning, never a refusal.
    ///
    /// `key_file` is the set's web file in a key space several sets share (Rails' locale
    /// files: `devise` for `devise.{lang}.yml`, `""` for `{lang}.yml`): a key new to the
    /// project, or without a web file, takes it; a key that has another is another set's, and
    /// this set's texts of it are passed over with a warning (the platform merges the files,
    /// so one definition is the key's); the set's files are not kept, as for a namespace.
    #[allow(clippy::too_many_arguments, reason = "what an upload of one file set is")]
    pub(super) fn new(
        project: &Project,
        existing: &rustc_hash::FxHashMap<&str, KnownKey<'_>>,
        upload: Upload,
        add_languages: bool,
        tags: &[String],
        namespace: &Namespace,
        key_file: Option<&str>,
    ) -> Result<Self, ApiError> {
        let mut plan = UploadPlan {
            entries: Vec::new(),
            kinds: Vec::new(),
            add_languages: Vec::new(),
            files: Vec::new(),
            ignored: upload.ignored,
            skipped: upload.skipped,
            warnings: Vec::new(),
            originals: Vec::new(),
        };
        let mut files = Vec::with_capacity(upload.files.len());
        // A gettext template gives the base texts only when the upload has no `.po` file of
        // the base language (which has them too, with the base language's own texts).
        let base_po = upload.files.iter().any(|file| {
            file.path.ends_with(".po")
                && LanguageCode::parse(&file.language).is_ok_and(|code| code.same_as(&project.base_language))
        });
        // XLIFF translation files' sources likewise, when the upload has its language's own file.
        let own_languages: Vec<String> = upload
            .files
            .iter()
            .filter(|file| !file.fills_gaps)
            .map(|file| file.language.to_ascii_lowercase())
            .collect();
        for original in upload.originals {
            let language = plan.language(project, &original.path, &original.language, add_languages)?;
            // The files of a namespace's upload (a file set's: a gettext or Symfony domain, a
            // module) are not kept: exports of one namespace are written in the export's own
            // layout (`locstore pull` patches the app's files itself), and the sets of several
            // domains name their files alike (`de.xliff`), so each would replace the other's.
            if namespace.is_default() && key_file.is_none() {
                plan.originals.push((language, original));
            }
        }
        let mut upload_files = upload.files;
        upload_files.retain(|file| {
            !(file.fills_gaps
                && file.language != BASE_LANGUAGE
                && own_languages.contains(&file.language.to_ascii_lowercase()))
        });
        // A gettext app's msgids (sources of the base language's place) fill only what its
        // template or base language's `.po` lacks: a translation's entries the template no
        // longer has (so that their fuzzy marks have a base text to be outdated against).
        let base_names: rustc_hash::FxHashSet<(String, String)> = upload_files
            .iter()
            .filter(|file| !file.fills_gaps && (file.path.ends_with(".pot") || file.path.ends_with(".po")))
            .filter(|file| {
                file.language == BASE_LANGUAGE
                    || LanguageCode::parse(&file.language).is_ok_and(|code| code.same_as(&project.base_language))
            })
            .filter(|file| !base_po || file.path.ends_with(".po"))
            .flat_map(|file| {
                file.entries
                    .iter()
                    .map(|entry| (file.namespace.clone(), entry.name.clone()))
            })
            .collect();
        // An app that keeps its base language's own `.po` names there the keys it has, with
        // a text or untranslated: a translation's entry that file does not name (django CMS's
        // regional catalogues hold msgids its English one no longer has) gets no base text
        // from its msgid, so that pull adds nothing to the base file; unless the translation
        // is fuzzy, which needs a base text to be outdated against.
        let named_by_base: rustc_hash::FxHashSet<(String, String)> = if base_po {
            let base_files: rustc_hash::FxHashSet<&str> = upload_files
                .iter()
                .filter(|file| !file.fills_gaps && file.path.ends_with(".po"))
                .filter(|file| {
                    LanguageCode::parse(&file.language).is_ok_and(|code| code.same_as(&project.base_language))
                })
                .map(|file| file.path.as_str())
                .collect();
            upload_files
                .iter()
                .filter(|file| file.msgid_sources_of().is_some_and(|path| base_files.contains(path)))
                .flat_map(|file| {
                    file.entries
                        .iter()
                        .map(|entry| (file.namespace.clone(), entry.name.clone()))
                })
                .chain(
                    upload_files
                        .iter()
                        .filter(|file| !file.fills_gaps && file.path.ends_with(".po"))
                        .flat_map(|file| {
                            file.entries
                                .iter()
                                .filter(|entry| entry.outdated)
                                .map(|entry| (file.namespace.clone(), entry.name.clone()))
                        }),
                )
                .collect()
        } else {
            Default::default()
        };
        for file in upload_files
            .iter_mut()
            .filter(|file| file.fills_gaps && file.language == BASE_LANGUAGE)
        {
            if base_po && file.is_msgid_sources() {
                file.entries
                    .retain(|entry| named_by_base.contains(&(file.namespace.clone(), entry.name.clone())));
            }
            file.entries
                .retain(|entry| !base_names.contains(&(file.namespace.clone(), entry.name.clone())));
        }
        crate::formats::apple::tables::set_aside_shadowed_base(&mut upload_files, &project.base_language);
        let (templates, upload_files): (Vec<UploadedFile>, Vec<UploadedFile>) = upload_files
            .into_iter()
            .partition(|file| base_po && file.path.ends_with(".pot"));
        plan.ignored.extend(templates.into_iter().map(|file| file.path));
        for file in upload_files {
            let language = plan.language(project, &file.path, &file.language, add_languages)?;
            plan.files.push(UploadedFileItem {
                path: file.path.clone(),
                language: language.to_string(),
                keys: file.entries.len() as u64,
            });
            files.push((language, file));
        }
        files.sort_by_key(|(language, _)| *language != project.base_language);
        // Key → position in `entries`; (key, language) → where it was defined (the file's
        // place in `paths`, and the line). Fast hashes: an upload of 100,000 keys in five
        // languages goes through half a million entries.
        let paths: Vec<String> = files.iter().map(|(_, file)| file.path.clone()).collect();
        let mut positions: rustc_hash::FxHashMap<KeyName, usize> = rustc_hash::FxHashMap::default();
        // The entries whose description the upload's base-language file gave (or gave none).
        let mut described_by_base: rustc_hash::FxHashSet<usize> = rustc_hash::FxHashSet::default();
        let mut defined: rustc_hash::FxHashMap<(KeyName, LanguageCode), (usize, usize, bool)> =
            rustc_hash::FxHashMap::default();
        for (file_index, (language, file)) in files.into_iter().enumerate() {
            let is_base = language == project.base_language;
            let msgid_sources = file.is_msgid_sources();
            // The file's key space: its own (a namespace, table or domain), under the one
            // the upload names (a module's file set).
            let file_namespace = match Namespace::parse(&file.namespace).and_then(|own| own.under(namespace)) {
                Ok(file_namespace) => file_namespace,
                Err(err) => return Err(ApiError::invalid(format!("{}: {}", file.path, err.0))),
            };
            let file_place = Place {
                path: &file.path,
                namespace: file_namespace.as_str(),
                language: &language,
            };
            for warning in file.warnings {
                plan.warn_at(&file_place, warning.line, &warning.key, warning.message);
            }
            // Apple tables and i18next namespaces are key spaces: a key of one is in its
            // namespace, and its `files` entry for that family says nothing more.
            let file_entry = file
                .file
                .clone()
                .filter(|(platform, _)| file.namespace.is_empty() || *platform == Platform::Android);
            let web_entry =
                key_file.map(|key_file| (Platform::Web, Some(key_file.to_owned()).filter(|file| !file.is_empty())));
            // i18next's files only (their syntax says so): a flat JSON file writes forms as an
            // object under the name, which has no suffixed names to split into.
            let entries = if file.placeholders == Some(Syntax::I18next) {
                let held_plain = |name: &str| {
                    let Ok(name) = KeyName::parse_in(&file_namespace, name) else {
                        return false;
                    };
                    match positions.get(&name) {
                        Some(position) => !plan.kinds[*position].plural,
                        None => existing.get(name.identity()).is_some_and(|known| !known.plural),
                    }
                };
                // AFFiNE's base file writes `X` beside `X_one`, `X_other` (`t(X)` reads the
                // one, `t(X, {count})` the others): its own plain `X` decides for it. Another
                // language's file follows the kind the base language (or the project) gave
                // `X`, so a translation's stale plain `X` beside the forms the base language
                // has (Grist's German) stays a stale entry.
                crate::formats::i18next::plain_forms(file.entries, |name, plain_beside| {
                    if is_base { plain_beside } else { held_plain(name) }
                })
            } else {
                file.entries
            };
            for parsed in entries {
                let name = match KeyName::parse_in(&file_namespace, &parsed.name) {
                    Ok(name) => name,
                    Err(err) => {
                        plan.warn_at(&file_place, parsed.line, &parsed.name, err.0);
                        continue;
                    }
                };
                // Sources give base texts only to keys without one.
                if file.fills_gaps && existing.get(name.identity()).is_some_and(|known| known.has_base) {
                    continue;
                }
                if let Some(key_file) = key_file
                    && let Some(theirs) = existing.get(name.identity()).and_then(|known| known.web_file)
                    && theirs != key_file
                {
                    let message = format!(
                        "{} lives in the file set of the {theirs:?} files, which also defines it; this set's text of it is passed over.",
                        name.described()
                    );
                    plan.warn_at(&file_place, parsed.line, &parsed.name, message);
                    continue;
                }
                let plural = matches!(parsed.text, Text::Plural(_));
                // A name a file gives both as forms and as one text (Grist's German `X` beside
                // `X_one`, `X_other`): the definition of the key's kind stays, whichever comes
                // last; the other is passed over.
                let key_plural = positions.get(&name).map(|&position| plan.kinds[position].plural);
                let earlier = defined.get(&(name.clone(), language.clone())).copied();
                if let (Some((other_file, other_line, other_plural)), Some(key_plural)) = (earlier, key_plural)
                    && other_plural != plural
                {
                    let kind = |plural: bool| if plural { "plural forms" } else { "a plain string" };
                    let at = |file: usize, line: usize| {
                        let line = if line > 0 {
                            format!(" line {line}")
                        } else {
                            String::new()
                        };
                        format!("{}{line}", paths[file])
                    };
                    let message = format!(
                        "{} is defined for language {} as {} in {} and as {} in {}; the key is {} in the base language, so the {} definition is kept and the other is passed over.",
                        name.described(),
                        language,
                        kind(other_plural),
                        at(other_file, other_line),
                        kind(plural),
                        at(file_index, parsed.line),
                        if key_plural { "plural" } else { "plain" },
                        if key_plural == plural { "later" } else { "earlier" },
                    );
                    plan.warn_at(&file_place, parsed.line, &parsed.name, message);
                    if key_plural != plural {
                        continue;
                    }
                    if let Some(&position) = positions.get(&name) {
                        plan.entries[position]
                            .translations
                            .retain(|translation| translation.language != language);
                    }
                    defined.insert((name.clone(), language.clone()), (file_index, parsed.line, plural));
                } else if let Some((other_file, other_line, _)) =
                    defined.insert((name.clone(), language.clone()), (file_index, parsed.line, plural))
                {
                    // As the platforms do, the last definition wins.
                    let other_path = &paths[other_file];
                    let message = format!(
                        "{} is defined twice for language {}: the definition in {other_path}{} is replaced by this one.",
                        name.described(),
                        language,
                        if other_line > 0 {
                            format!(" line {other_line}")
                        } else {
                            String::new()
                        }
                    );
                    plan.warn_at(&file_place, parsed.line, &parsed.name, message);
                    if let Some(position) = positions.get(&name) {
                        let entry = &mut plan.entries[*position];
                        entry
                            .translations
                            .retain(|translation| translation.language != language);
                        // The comment goes with its definition: the last one's (none, when it
                        // has none) is the key's, as for `Base.lproj` and `en.lproj` both.
                        if is_base {
                            entry.description = None;
                        }
                    }
                }
                let position = match positions.get(&name) {
                    Some(position) => *position,
                    None => {
                        // The kind is the base language's; for a key the upload has no base
                        // text of, the server's key's; for a new one, the first file's.
                        let known = existing.get(name.identity()).copied();
                        let decided = if is_base {
                            Decided::Base
                        } else if known.is_some() {
                            Decided::Server
                        } else {
                            Decided::FirstFile
                        };
                        let (kind, translatable) = match (decided, known) {
                            (Decided::Server, Some(known)) => (known.plural, known.translatable),
                            _ => (plural, !is_base || parsed.translatable),
                        };
                        plan.entries.push(ImportEntry {
                            name: name.clone(),
                            tags: None,
                            description: None,
                            plural: (decided != Decided::Server).then_some(kind),
                            markup: None,
                            translatable: is_base.then_some(parsed.translatable),
                            files: file_entry
                                .iter()
                                .map(|(platform, name)| (*platform, Some(name.clone())))
                                .chain(web_entry.clone())
                                .collect(),
                            max_length: None,
                            ignore_checks: None,
                            placeholders: None,
                            placeholder_names: None,
                            translations: Vec::new(),
                            add_tags: tags.to_vec(),
                            xcode: None,
                            outdated: Vec::new(),
                        });
                        plan.kinds.push(EntryKind {
                            plural: kind,
                            translatable,
                            decided,
                        });
                        positions.insert(name.clone(), plan.entries.len() - 1);
                        plan.entries.len() - 1
                    }
                };
                let kind = plan.kinds[position];
                // Where the platform reads each language's file on its own, a translation of
                // the other kind is what the app shows in that language: held as written.
                let kind_as_written = kind.plural != plural && reads_languages_apart(&file.path);
                if kind.plural != plural && !kind_as_written {
                    let message = format!(
                        "{} is {} in {}, and this {} is passed over; make it {} in every language.",
                        quote_for_message(&parsed.name),
                        if plural { "a plain string" } else { "a plural" },
                        match kind.decided {
                            Decided::Base => "the base language",
                            Decided::Server => "the project",
                            Decided::FirstFile => "the language read first",
                        },
                        if plural { "plural" } else { "plain string" },
                        if plural { "a plain string" } else { "a plural" },
                    );
                    plan.warn_at(&file_place, parsed.line, &parsed.name, message);
                    continue;
                }
                if !kind.translatable && !is_base {
                    let message = format!(
                        "{} is not translatable ({} in the base language); this translation is passed over.",
                        quote_for_message(&parsed.name),
                        if file.path.ends_with(".xcstrings") {
                            "`shouldTranslate: false`"
                        } else {
                            "translatable=\"false\""
                        }
                    );
                    plan.warn_at(&file_place, parsed.line, &parsed.name, message);
                    continue;
                }
                let entry = &mut plan.entries[position];
                // The base language's file has the last word, even when it has no comment
                // there: a translation's comments are often a tool's copies of the base file's
                // group comments, standing above whichever entry of the group the translation
                // has first, and taken as descriptions they would move into the base file on
                // pull. Without the base file, the first comment found is the description.
                let description = parsed.description.filter(|text| !text.is_empty()).map(|description| {
                    description
                        .chars()
                        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                        .take(Description::MAX_CHARS)
                        .collect()
                });
                // A gettext translation's msgids stand in for base texts only while the key has
                // none (the first push), so their comments decide nothing: else a second push,
                // which skips them, would take another file's comment (GNOME Calculator).
                if is_base && !msgid_sources {
                    entry.description = description;
                    described_by_base.insert(position);
                } else if entry.description.is_none() && !described_by_base.contains(&position) && !msgid_sources {
                    entry.description = description;
                }
                if parsed.markup {
                    entry.markup = Some(true);
                }
                if is_base && parsed.xcode.is_some() {
                    entry.xcode = parsed.xcode;
                }
                if parsed.outdated && !is_base {
                    entry.outdated.push(language.clone());
                }
                // The key's placeholder syntax: the server's, else (for a key the upload
                // creates) the first file's that says one; a text in another is converted into
                // it. A key already there without a syntax keeps none: uploading the files an
                // export wrote changes nothing.
                // What the file says (its format, a PO entry's flag); a guess from the text
                // only names the syntax of a key the upload creates, and converts nothing: a
                // translation that reads like another syntax than its base (an unflagged PO
                // file's `%(length)s` beside an English `%s`) is kept as written.
                let declared = parsed.placeholders.or(file.placeholders);
                let file_syntax =
                    declared.or_else(|| parsed.text.strings().find_map(crate::domain::placeholders::guess));
                let known = existing.get(name.identity());
                let known_syntax = known.and_then(|known| known.placeholders);
                if known.is_none() && entry.placeholders.is_none() {
                    entry.placeholders = file_syntax;
                }
                let mut parsed_text = parsed.text;
                if let (Some(from), Some(to)) = (declared, known_syntax.or(entry.placeholders))
                    && from != to
                {
                    let (converted, messages) =
                        crate::formats::placeholders::convert_text(parsed_text, from, to, parsed.markup);
                    parsed_text = converted;
                    let line = parsed.line;
                    for message in messages {
                        let message = format!("converting from {from} to the key's {to}: {message}");
                        plan.warn_at(&file_place, line, &parsed.name, message);
                    }
                }
                let entry = &mut plan.entries[position];
                let text = match parsed_text {
                    Text::Plain(text) => TextInput::Content(text),
                    Text::Plural(forms) => TextInput::Forms(
                        forms
                            .iter()
                            .map(|(category, text)| (category, text.to_owned()))
                            .collect(),
                    ),
                };
                entry.translations.push(TranslationInput {
                    language: language.clone(),
                    text,
                    literal: !parsed.markup,
                    keeps_unexpressed_forms: file.path.ends_with(".po"),
                    kind_as_written,
                });
            }
        }
        Ok(plan)
    }

    /// A warning about the entry `key` at `line` of the file at `place`.
    fn warn_at(&mut self, place: &Place<'_>, line: usize, key: &str, message: String) {
        self.warn(place.path, line, key, place.namespace, place.language, message);
    }

    fn warn(&mut self, path: &str, line: usize, key: &str, namespace: &str, language: &LanguageCode, message: String) {
        self.warnings.push(WarningItem {
            message,
            key: Some(key.to_owned()),
            namespace: (!namespace.is_empty()).then(|| namespace.to_owned()),
            language: Some(language.to_string()),
            path: Some(path.to_owned()),
            line: Some(line as u64),
            check: None,
            severity: None,
            form: None,
        });
    }

    /// Joins the plan of another file set of the same push (`set`, its place in the push, as
    /// the prefix of its files' paths), as if its files had been read after this plan's: a key
    /// both sets hold (an Android and an iOS app of one project) takes the later set's texts
    /// of the languages it has and keeps the others, and the later set's tags and files too;
    /// a key of another kind there (plural in one set, plain in the other) keeps the first
    /// set's and the later set's texts of it are passed over with a warning.
    pub(super) fn absorb(&mut self, other: UploadPlan, set: usize) {
        let mut positions: rustc_hash::FxHashMap<KeyName, usize> = self
            .entries
            .iter()
            .enumerate()
            .map(|(position, entry)| (entry.name.clone(), position))
            .collect();
        let prefixed = |path: &str| format!("{set}/{path}");
        for (entry, kind) in other.entries.into_iter().zip(other.kinds) {
            let Some(&position) = positions.get(&entry.name) else {
                positions.insert(entry.name.clone(), self.entries.len());
                self.entries.push(entry);
                self.kinds.push(kind);
                continue;
            };
            if self.kinds[position].plural != kind.plural {
                self.warnings.push(WarningItem {
                    message: format!(
                        "{} is {} in an earlier file set of this push, and this set's texts of it are passed over.",
                        entry.name.described(),
                        if kind.plural { "a plain string" } else { "a plural" },
                    ),
                    key: Some(entry.name.as_str().to_owned()),
                    namespace: Some(entry.name.namespace().to_owned()).filter(|namespace| !namespace.is_empty()),
                    language: None,
                    path: Some(prefixed("")),
                    line: None,
                    check: None,
                    severity: None,
                    form: None,
                });
                continue;
            }
            let into = &mut self.entries[position];
            // The later set's texts in the earlier set's syntax (an iOS app's `%@` into the
            // Android app's key).
            let convert = match (entry.placeholders, into.placeholders) {
                (Some(from), Some(to)) if from != to => Some((from, to)),
                _ => None,
            };
            into.placeholders = into.placeholders.or(entry.placeholders);
            let markup = entry.markup == Some(true);
            for mut translation in entry.translations {
                if let Some((from, to)) = convert {
                    translation.text = converted_input(translation.text, from, to, markup);
                }
                into.translations.retain(|known| known.language != translation.language);
                into.translations.push(translation);
            }
            for tag in entry.add_tags {
                if !into.add_tags.contains(&tag) {
                    into.add_tags.push(tag);
                }
            }
            for (platform, file) in entry.files {
                into.files.retain(|(known, _)| *known != platform);
                into.files.push((platform, file));
            }
            into.description = into.description.take().or(entry.description);
            into.markup = into.markup.or(entry.markup);
            into.translatable = into.translatable.or(entry.translatable);
            into.xcode = into.xcode.take().or(entry.xcode);
            for language in entry.outdated {
                if !into.outdated.contains(&language) {
                    into.outdated.push(language);
                }
            }
        }
        for language in other.add_languages {
            if !self.add_languages.iter().any(|known| known.same_as(&language)) {
                self.add_languages.push(language);
            }
        }
        self.files.extend(other.files.into_iter().map(|mut file| {
            file.path = prefixed(&file.path);
            file
        }));
        self.ignored.extend(other.ignored.iter().map(|path| prefixed(path)));
        self.skipped += other.skipped;
        self.warnings.extend(other.warnings.into_iter().map(|mut warning| {
            warning.path = warning.path.map(|path| prefixed(&path));
            warning
        }));
        self.originals.extend(other.originals);
    }

    /// Prefixes this plan's paths with its set's place in a push (see [`Self::absorb`]).
    pub(super) fn into_set(mut self, set: usize) -> Self {
        let prefixed = |path: &str| format!("{set}/{path}");
        for file in &mut self.files {
            file.path = prefixed(&file.path);
        }
        for path in &mut self.ignored {
            *path = prefixed(path);
        }
        for warning in &mut self.warnings {
            warning.path = warning.path.as_deref().map(prefixed);
        }
        self
    }

    /// The keys of the plan.
    pub(super) fn names(&self) -> impl Iterator<Item = &KeyName> {
        self.entries.iter().map(|entry| &entry.name)
    }

    /// The project language a file's place names; one the project lacks is added (with
    /// `addLanguages`) or refused.
    fn language(&mut self, project: &Project, path: &str, raw: &str, add: bool) -> Result<LanguageCode, ApiError> {
        if raw == BASE_LANGUAGE {
            return Ok(project.base_language.clone());
        }
        // An ecosystem's locale name (`ca@valencia.json`, `sr@latin`) is its project code.
        let mapped = crate::formats::po::locale_language(raw);
        let code = LanguageCode::parse(mapped.as_deref().unwrap_or(raw)).map_err(|_| {
            ApiError::invalid(format!(
                "{path}: {} is not a language code, so the file's language is unknown.",
                quote_for_message(raw)
            ))
        })?;
        if let Some(known) = project
            .languages
            .iter()
            .chain(&self.add_languages)
            .find(|language| language.same_as(&code))
        {
            return Ok(known.clone());
        }
        if !add {
            return Err(ApiError::invalid(format!(
                "{path}: project {} has no language {}; its languages are: {}. Add it to the project, or upload with addLanguages=true.",
                project.name,
                quote_for_message(code.as_str()),
                project.languages_list()
            )));
        }
        self.add_languages.push(code.clone());
        Ok(code)
    }
}

/// A text as sent, converted from one placeholder syntax to another (see
/// [`crate::formats::placeholders::convert_text`]); forms that do not make a set of plural
/// forms are left as they are (the import refuses them with its own message).
fn converted_input(text: TextInput, from: Syntax, to: Syntax, markup: bool) -> TextInput {
    use crate::domain::model::PluralForms;
    use crate::formats::placeholders::convert_text;
    match text {
        TextInput::Content(content) => match convert_text(Text::Plain(content), from, to, markup).0 {
            Text::Plain(content) => TextInput::Content(content),
            Text::Plural(forms) => TextInput::Content(forms.into_other()),
        },
        TextInput::Forms(forms) => match PluralForms::new(forms.clone()) {
            Ok(valid) => match convert_text(Text::Plural(valid), from, to, markup).0 {
                Text::Plural(converted) => TextInput::Forms(
                    converted
                        .iter()
                        .map(|(category, text)| (category, text.to_owned()))
                        .collect(),
                ),
                Text::Plain(_) => TextInput::Forms(forms),
            },
            Err(_) => TextInput::Forms(forms),
        },
    }
}
