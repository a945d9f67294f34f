//! Several exported files in one zip archive, byte-stable: entries in path order, fixed
//! timestamps (1980-01-01) and permissions, so the same data gives the same bytes.

use std::borrow::Borrow;
use std::io::{Cursor, Seek, Write};
use std::sync::{Arc, Mutex, PoisonError};

use zip::ZipWriter;
use zip::result::ZipError;
use zip::write::SimpleFileOptions;

use super::in_order::make_in_order;
use super::{Export, ExportFile};
use crate::domain::model::Key;
use crate::domain::names::LanguageCode;

/// `files` in one zip, entries in path order.
pub fn zip<F: ExportedFile>(files: &[F]) -> Result<Vec<u8>, ZipError> {
    let singles = files.iter().map(zip_alone).collect::<Result<_, _>>()?;
    Ok(write_singles(singles, Cursor::new(Vec::new()))?.into_inner())
}

/// A file an export gives: its path and bytes.
pub trait ExportedFile: Sync {
    fn path(&self) -> &str;
    /// Writes the file's bytes into `out`.
    fn write(&self, out: &mut dyn Write) -> std::io::Result<()>;
    /// The file's size in bytes.
    fn size(&self) -> usize;
    /// Where the file zipped alone is kept between archives, for a file given by many (a
    /// kept file an export gives as it is).
    fn zipped(&self) -> Option<&Zipped> {
        None
    }
}

/// A file zipped alone, by the path it was zipped under.
pub type Zipped = Mutex<Option<(String, Arc<Vec<u8>>)>>;

impl ExportedFile for ExportFile {
    fn path(&self) -> &str {
        &self.path
    }

    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.bytes)
    }

    fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// A file zipped alone: a zip of its one entry, which [`write_singles`] copies into an
/// archive as it is.
pub struct Single {
    path: String,
    zip: Arc<Vec<u8>>,
}

/// `file` zipped alone; a file [zipped alone before](ExportedFile::zipped) under the same
/// path is not compressed again.
pub fn zip_alone<F: ExportedFile + ?Sized>(file: &F) -> Result<Single, ZipError> {
    let path = file.path().to_owned();
    let kept = file
        .zipped()
        .map(|zipped| zipped.lock().unwrap_or_else(PoisonError::into_inner));
    if let Some(Some((zipped_as, single))) = kept.as_deref()
        && *zipped_as == path
    {
        return Ok(Single {
            path,
            zip: single.clone(),
        });
    }
    drop(kept);
    let mut single = ZipWriter::new(Cursor::new(Vec::with_capacity(file.size() / 4)));
    single.start_file(file.path(), options())?;
    file.write(&mut single)?;
    let mut zip = single.finish()?.into_inner();
    let Some(zipped) = file.zipped() else {
        return Ok(Single {
            path,
            zip: Arc::new(zip),
        });
    };
    // Held between exports: without the room left for a poorly compressed file.
    zip.shrink_to_fit();
    let zip = Arc::new(zip);
    *zipped.lock().unwrap_or_else(PoisonError::into_inner) = Some((path.clone(), zip.clone()));
    Ok(Single { path, zip })
}

/// The archive of files each [zipped alone](zip_alone), written into `out` in path order:
/// the bytes [`zip`] gives of the same files.
pub fn write_singles<W: Write + Seek>(mut singles: Vec<Single>, out: W) -> Result<W, ZipError> {
    singles.sort_by(|a, b| a.path.cmp(&b.path));
    let mut archive = ZipWriter::new(out);
    for single in singles {
        copy_single(&mut archive, &single.zip)?;
    }
    archive.finish()
}

/// Deflate at level 1: exports are large and repetitive (XLIFF and PO repeat the base text
/// beside each translation), where level 1 compresses nearly as well as the default 6 in a
/// third of the time.
fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Writes the files of `export` in `languages` as a zip into `out`: the same bytes as
/// [`zip`] of all of them, but rendered and compressed on `threads` threads, each taking the
/// next language (or, for formats that [render several together](Export::renders_together),
/// the next few) as it finishes one, and written out in order as they are done. A batch is
/// taken only while it is fewer than `2 × threads` batches ahead of the next one to write, so
/// the export holds at most that many batches' compressed files (when languages' paths
/// interleave, as PO's `template.pot` does among the `{lang}.po` files, it holds the
/// compressed files until the end).
pub fn write_zip<K: Borrow<Key> + Sync, W: Write + Seek>(
    export: &Export<'_, K>,
    languages: &[LanguageCode],
    out: W,
    threads: usize,
) -> Result<W, ZipError> {
    // Entries go in path order; a language's files are next to each other in it, so going
    // through the languages in the order of their paths writes every entry in its place.
    let mut planned: Vec<(Vec<String>, &LanguageCode)> = languages
        .iter()
        .map(|language| (export.paths(language), language))
        .collect();
    planned.sort();
    let in_order = planned.iter().flat_map(|(paths, _)| paths).is_sorted_by(|a, b| a < b);
    let planned = batches(&planned, threads, export.renders_together());
    // A batch's files, each as a single-entry zip of its own, with its path.
    type Compressed = Result<Vec<(String, Vec<u8>)>, ZipError>;
    let compress = |batch: &[&LanguageCode]| -> Compressed {
        let written = export
            .write_together(batch, |path| {
                let mut single = ZipWriter::new(Cursor::new(Vec::new()));
                single.start_file(path, options()).map_err(std::io::Error::other)?;
                Ok(single)
            })
            .map_err(ZipError::Io)?;
        written
            .into_iter()
            .map(|(path, single)| Ok((path, single.finish()?.into_inner())))
            .collect()
    };
    let mut archive = ZipWriter::new(out);
    let mut held: Vec<(String, Vec<u8>)> = Vec::new();
    make_in_order(
        planned.len(),
        threads,
        2 * threads,
        |index| compress(&planned[index]),
        |compressed| {
            for single in compressed? {
                if in_order {
                    copy_single(&mut archive, &single.1)?;
                } else {
                    held.push(single);
                }
            }
            Ok::<(), ZipError>(())
        },
    )?;
    held.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, single) in held {
        copy_single(&mut archive, &single)?;
    }
    archive.finish()
}

/// The languages each thread takes at once, in path order: one by one, or for a format that
/// [renders several together](Export::renders_together) consecutive runs of about an equal
/// share of the files per thread, at most [`MOST_TOGETHER`] languages in a run (so that an
/// export of fifty languages still holds few rendered at once).
fn batches<'l>(
    planned: &[(Vec<String>, &'l LanguageCode)],
    threads: usize,
    together: bool,
) -> Vec<Vec<&'l LanguageCode>> {
    if !together {
        return planned.iter().map(|(_, language)| vec![*language]).collect();
    }
    let files: usize = planned.iter().map(|(paths, _)| paths.len()).sum();
    let share = files.div_ceil(threads.max(1));
    let mut batches: Vec<(usize, Vec<&LanguageCode>)> = Vec::new();
    for (paths, language) in planned {
        match batches.last_mut() {
            Some((weight, batch)) if *weight + paths.len() <= share && batch.len() < MOST_TOGETHER => {
                *weight += paths.len();
                batch.push(language);
            }
            _ => batches.push((paths.len(), vec![*language])),
        }
    }
    batches.into_iter().map(|(_, batch)| batch).collect()
}

/// The most languages one thread renders together.
const MOST_TOGETHER: usize = 4;

/// Copies the one entry of a single-file zip into `archive`, compressed as it is.
fn copy_single<W: Write + Seek>(archive: &mut ZipWriter<W>, single: &[u8]) -> Result<(), ZipError> {
    let mut single = zip::ZipArchive::new(Cursor::new(single))?;
    archive.raw_copy_file(single.by_index_raw(0)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::{PluralCategory, PluralForms, Project, Text, TextRef};
    use crate::domain::names::{KeyName, ProjectName};
    use crate::formats::{ExportFormat, render};

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    /// A project in seven languages whose paths sort in another order than the codes
    /// (`values/` for the base language, `fr-CA.lproj` before `fr.lproj`), with plain and
    /// plural keys, some of them missing a language, and the texts each format escapes:
    /// quotes, apostrophes, `@` and `?` in front, edge spaces, line breaks and tabs, markup,
    /// descriptions (comments), non-ASCII names and texts.
    fn project_and_keys() -> (Project, Vec<Key>, Vec<LanguageCode>) {
        let languages: Vec<LanguageCode> = ["en", "de", "fr", "fr-CA", "pt-BR", "zh-Hans", "fil"]
            .into_iter()
            .map(code)
            .collect();
        let project = Project {
            name: ProjectName::parse("app").unwrap(),
            display_name: "App".into(),
            description: String::new(),
            base_language: code("fr"),
            languages: languages.clone(),
            placeholder_format: None,
        };
        let keys = (0..300)
            .map(|index| {
                let name = match index % 13 {
                    3 => format!("Screen {}/Item-{index} ünï", index % 7),
                    _ => format!("screen{}.item{index}", index % 7),
                };
                let mut key = Key::named(KeyName::parse(&name).unwrap());
                key.plural = index % 5 == 0;
                key.markup = index % 9 == 4;
                if index % 4 == 1 {
                    key.description = format!("Shown on screen {index} -- keep it short\nsecond line & <tag>");
                }
                let extra = match index % 8 {
                    0 => "",
                    1 => " it's @home? ",
                    2 => "@start",
                    3 => "?query",
                    4 => "line\nbreak\ttab \\ back",
                    5 => "  two spaces",
                    6 => "emoji 🎉 and ümlaut 中文",
                    _ => "100% sure %1$s",
                };
                for (position, language) in languages.iter().enumerate() {
                    if (index + position) % 11 == 0 {
                        continue;
                    }
                    let text = if key.markup {
                        format!("<b>{language}</b> text {index} {extra}")
                    } else if index % 8 == 2 || index % 8 == 3 {
                        format!("{extra} {language} text {index}")
                    } else {
                        format!("{language} text {index} <&> \"quoted\" %d{extra}")
                    };
                    let text = if key.plural {
                        Text::Plural(
                            PluralForms::new([
                                (PluralCategory::One, format!("one {text}")),
                                (PluralCategory::Other, text),
                            ])
                            .unwrap(),
                        )
                    } else {
                        Text::Plain(text)
                    };
                    key.translations.insert(language.clone(), text);
                }
                key
            })
            .collect::<Vec<_>>();
        let mut keys = keys;
        keys.sort_by(|a, b| a.name.cmp(&b.name));
        (project, keys, languages)
    }

    /// The first 16 hex digits of the SHA-256 of `bytes`.
    fn hex(bytes: &[u8]) -> String {
        use sha2::{Digest, Sha256};
        ::hex::encode(&Sha256::digest(bytes)[..8])
    }

    /// Every file's path and bytes, one after another.
    fn paths_and_bytes(files: &[ExportFile]) -> Vec<u8> {
        files
            .iter()
            .flat_map(|file| [file.path.as_bytes(), &file.bytes])
            .flatten()
            .copied()
            .collect()
    }

    /// [`project_and_keys`] with what only the newer formats write: keys kept in the base
    /// language only (`translatable: false`), and translations written against the base text
    /// as it is (current) or against an older one (outdated).
    fn project_and_keys_with_states() -> (Project, Vec<Key>, Vec<LanguageCode>) {
        let (project, mut keys, languages) = project_and_keys();
        let base = project.base_language.clone();
        for (index, key) in keys.iter_mut().enumerate() {
            if index % 17 == 6 {
                key.translatable = false;
            }
            let current = key.translations.get(&base).map(TextRef::base_hash);
            for (position, language) in languages.iter().enumerate() {
                let written_against = match (index + position) % 3 {
                    0 => current,
                    1 => Some(crate::domain::text::base_hash(TextRef::Plain("an older base text"))),
                    _ => None,
                };
                if *language != base {
                    key.translations.set_base(language, written_against);
                }
            }
        }
        (project, keys, languages)
    }

    /// The newer formats' files keep their bytes too: their hashes as the version before
    /// PO and XLIFF rendered several languages in one pass made them (8c599c9), but one.
    #[test]
    fn the_newer_formats_keep_the_bytes_earlier_versions_made() {
        let (project, keys, languages) = project_and_keys_with_states();
        let mut seen = Vec::new();
        for format in [
            ExportFormat::Xcstrings,
            ExportFormat::I18next,
            ExportFormat::Po,
            ExportFormat::Xliff,
            ExportFormat::Xliff2,
            ExportFormat::Arb,
            ExportFormat::Yaml,
        ] {
            let export = Export::new(format, &project, &keys, &languages).unwrap();
            // Rendered language by language, as a download of one language is.
            let files = if format.is_multilingual() {
                export.render_all(&languages)
            } else {
                languages.iter().flat_map(|language| export.render(language)).collect()
            };
            if format == ExportFormat::Po {
                // The states are there to be kept: outdated translations, and keys in the base
                // language's files only.
                let text = |path: &str| -> String {
                    let file = files.iter().find(|file| file.path == path).unwrap();
                    String::from_utf8(file.bytes.clone()).unwrap()
                };
                assert!(text("de.po").contains("#, fuzzy"));
                let untranslatable = keys.iter().find(|key| !key.translatable).unwrap();
                // The key's name is its msgid (gettext's identity of an entry).
                let id = format!("msgid \"{}\"", untranslatable.name);
                assert!(text("fr.po").contains(&id) && !text("de.po").contains(&id));
            }
            seen.push(format!("{}: {}", format.name(), hex(&paths_and_bytes(&files))));
        }
        assert_eq!(
            seen,
            [
                "xcstrings: e3a0e7bac51f4be9",
                "i18next: fb78e843a1f61c31",
                "po: a50b305e13239fe3",
                "xliff: 97ddccf899d6cc22",
                // Changed on purpose: 2.0 unit ids are given over all keys, so a key has the
                // same id in every file (the base language's file, which also holds base-only
                // keys, had numbered `k1`, `k2`... differently from the others).
                "xliff2: 22b673fe9a49ee90",
                "arb: b366c65b157c2af2",
                "yaml: bcf50cd95de5e97c",
            ]
        );
    }

    #[test]
    fn a_key_has_the_same_xliff_2_unit_id_in_every_languages_file() {
        let (project, keys, languages) = project_and_keys_with_states();
        let export = Export::new(ExportFormat::Xliff2, &project, &keys, &languages).unwrap();
        let mut ids_of: std::collections::HashMap<String, std::collections::BTreeSet<String>> = Default::default();
        for language in &languages {
            for file in export.render(language) {
                let text = String::from_utf8(file.bytes).unwrap();
                for unit in text.split("<unit id=\"").skip(1) {
                    let (id, rest) = unit.split_once('"').unwrap();
                    // The key's name: its `name` attribute, else the id itself.
                    let name = rest
                        .strip_prefix(" name=\"")
                        .map_or(id, |rest| rest.split_once('"').unwrap().0);
                    ids_of.entry(name.to_owned()).or_default().insert(id.to_owned());
                }
            }
        }
        assert!(ids_of.values().any(|ids| ids.iter().any(|id| id.starts_with('k'))));
        let differing: Vec<_> = ids_of.iter().filter(|(_, ids)| ids.len() > 1).collect();
        assert!(differing.is_empty(), "{differing:?}");
    }

    /// A file whose zip is kept, as a kept file's is.
    struct KeptZip(ExportFile, Zipped);

    impl ExportedFile for KeptZip {
        fn path(&self) -> &str {
            &self.0.path
        }

        fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
            self.0.write(out)
        }

        fn size(&self) -> usize {
            self.0.bytes.len()
        }

        fn zipped(&self) -> Option<&Zipped> {
            Some(&self.1)
        }
    }

    #[test]
    fn files_zipped_before_are_copied_into_the_next_zip_as_they_were_compressed() {
        let (project, keys, languages) = project_and_keys();
        let files = render(ExportFormat::Po, &project, &keys, &languages).unwrap();
        let fresh = zip(&files).unwrap();
        let kept: Vec<KeptZip> = files
            .iter()
            .map(|file| KeptZip(file.clone(), Zipped::default()))
            .collect();
        assert!(zip(&kept).unwrap() == fresh);
        assert!(kept.iter().all(|file| file.1.lock().unwrap().is_some()));
        // Zipped again: the kept zips are taken (their bytes changed here to tell), and a file
        // under another path is compressed afresh.
        let mut again: Vec<KeptZip> = kept;
        for file in &mut again {
            file.0.bytes.clear();
        }
        assert!(zip(&again).unwrap() == fresh);
        again[0].0.path = "elsewhere.po".to_owned();
        let moved = zip::ZipArchive::new(Cursor::new(zip(&again).unwrap())).unwrap();
        assert!(moved.file_names().any(|name| name == "elsewhere.po"));
    }

    #[test]
    fn a_zip_written_language_by_language_on_threads_has_the_bytes_of_one_made_in_memory() {
        let (project, keys, languages) = project_and_keys_with_states();
        for format in [
            ExportFormat::Json,
            ExportFormat::Csv,
            ExportFormat::AndroidXml,
            ExportFormat::AppleStrings,
            ExportFormat::Po,
            ExportFormat::Xliff,
            ExportFormat::Xliff2,
        ] {
            let in_memory = zip(&render(format, &project, &keys, &languages).unwrap()).unwrap();
            let borrowed: Vec<&Key> = keys.iter().collect();
            let export = Export::new(format, &project, &borrowed, &languages).unwrap();
            for threads in [1, 2, 3, 8] {
                let streamed = write_zip(&export, &languages, Cursor::new(Vec::new()), threads)
                    .unwrap()
                    .into_inner();
                assert!(streamed == in_memory, "{format:?} on {threads} threads differs");
            }
            // Zipped alone in any order (as threads finish them), written in path order.
            let files = render(format, &project, &keys, &languages).unwrap();
            let singles = files.iter().rev().map(|file| zip_alone(file).unwrap()).collect();
            let apart = write_singles(singles, Cursor::new(Vec::new())).unwrap().into_inner();
            assert!(apart == in_memory, "{format:?}: files zipped alone differ");
            let entries = zip::ZipArchive::new(Cursor::new(in_memory)).unwrap().len();
            let expected = match format {
                ExportFormat::AppleStrings => 2 * languages.len(),
                // `template.pot` beside each `{lang}.po`.
                ExportFormat::Po => languages.len() + 1,
                _ => languages.len(),
            };
            assert_eq!(entries, expected, "{format:?}");
        }
    }

    #[test]
    fn a_catalog_written_as_it_is_made_is_the_one_rendered_whole() {
        let (project, keys, languages) = project_and_keys();
        let export = Export::new(ExportFormat::Xcstrings, &project, &keys, &languages).unwrap();
        let whole = export.render_all(&languages);
        let mut compressed = Vec::new();
        export.write_single_gzip(&languages, &mut compressed).unwrap();
        // Several pieces (the unit tests' pieces are 64 keys), read back as one file.
        let mut written = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(compressed.as_slice()), &mut written).unwrap();
        assert_eq!(whole.len(), 1);
        assert_eq!(export.single_file().as_deref(), Some(whole[0].path.as_str()));
        assert!(written == whole[0].bytes);
    }

    /// Exports are byte-stable across versions, not only across runs: the files of every
    /// format, and the zip of them, hash to what the version before the hand-written writers
    /// made (a7d0bab). A change here is a change every user sees as a diff of every file.
    #[test]
    fn exports_keep_the_bytes_earlier_versions_made() {
        let (project, keys, languages) = project_and_keys();
        let mut seen = Vec::new();
        for format in [
            ExportFormat::Json,
            ExportFormat::Csv,
            ExportFormat::AndroidXml,
            ExportFormat::AppleStrings,
        ] {
            let files = render(format, &project, &keys, &languages).unwrap();
            seen.push((format.name(), hex(&paths_and_bytes(&files)), hex(&zip(&files).unwrap())));
        }
        // (format, SHA-256 of the files' paths and bytes, SHA-256 of the zip), first 16 digits.
        // The zips' changed once, on purpose, when exports went to deflate level 1; the
        // files' own bytes never did.
        let expected = [
            ("json", "5413617462849805", "e8824fb5bebbfccc"),
            ("csv", "dc1cc735db8ed70e", "a132a0ef2ff353e7"),
            ("android-xml", "61ba6cce0153192c", "f33f59d048f1a2b2"),
            ("apple-strings", "2f020f7d5ca4da87", "4e44f92714942818"),
        ];
        let seen: Vec<(&str, &str, &str)> = seen.iter().map(|(a, b, c)| (*a, b.as_str(), c.as_str())).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_same_files_give_the_same_bytes_and_read_back() {
        let files = vec![
            ExportFile {
                path: "fr.json".into(),
                bytes: b"{}".to_vec(),
            },
            ExportFile {
                path: "en.json".into(),
                bytes: b"{\"a\": \"b\"}".to_vec(),
            },
        ];
        let first = zip(&files).unwrap();
        let reversed: Vec<ExportFile> = files.iter().rev().cloned().collect();
        assert_eq!(first, zip(&reversed).unwrap());
        let mut archive = zip::ZipArchive::new(Cursor::new(first)).unwrap();
        assert_eq!(
            archive.file_names().collect::<std::collections::BTreeSet<_>>(),
            ["en.json", "fr.json"].into()
        );
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("en.json").unwrap(), &mut text).unwrap();
        assert_eq!(text, "{\"a\": \"b\"}");
    }
}
