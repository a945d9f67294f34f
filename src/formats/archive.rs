//! Several exported files in one zip archive, byte-stable: entries in path order, fixed
//! timestamps (1980-01-01) and permissions, so the same data gives the same bytes.

use std::borrow::Borrow;
use std::io::{Cursor, Seek, Write};

use zip::ZipWriter;
use zip::result::ZipError;
use zip::write::SimpleFileOptions;

use super::{Export, ExportFile};
use crate::domain::model::Key;
use crate::domain::names::LanguageCode;

pub fn zip(files: &[ExportFile]) -> Result<Vec<u8>, ZipError> {
    let mut archive = ZipWriter::new(Cursor::new(Vec::new()));
    append_in_path_order(&mut archive, files)?;
    Ok(archive.finish()?.into_inner())
}

fn append_in_path_order<W: Write + Seek>(archive: &mut ZipWriter<W>, files: &[ExportFile]) -> Result<(), ZipError> {
    let mut sorted: Vec<&ExportFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for file in sorted {
        archive.start_file(file.path.as_str(), options())?;
        archive.write_all(&file.bytes)?;
    }
    Ok(())
}

fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Writes the files of `export` in `languages` as a zip into `out`: the same bytes as
/// [`zip`] of all of them, but rendered and compressed `threads` languages at a time, each
/// on its own thread, and written out as they are done, so that the export never holds more
/// than those languages' files.
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
    let mut archive = ZipWriter::new(out);
    if !in_order {
        // Two languages with the same path, or interleaved ones: the plain way.
        let files: Vec<ExportFile> = languages.iter().flat_map(|language| export.render(language)).collect();
        append_in_path_order(&mut archive, &files)?;
        return archive.finish();
    }
    let compress = |language: &LanguageCode| -> Result<Vec<Vec<u8>>, ZipError> {
        export
            .render(language)
            .into_iter()
            .map(|file| {
                let mut single = ZipWriter::new(Cursor::new(Vec::new()));
                single.start_file(file.path.as_str(), options())?;
                single.write_all(&file.bytes)?;
                Ok(single.finish()?.into_inner())
            })
            .collect()
    };
    for group in planned.chunks(threads.max(1)) {
        let compressed: Vec<Result<Vec<Vec<u8>>, ZipError>> = std::thread::scope(|scope| {
            let others: Vec<_> = group[1..]
                .iter()
                .map(|(_, language)| scope.spawn(|| compress(language)))
                .collect();
            let mut done = vec![compress(group[0].1)];
            done.extend(
                others
                    .into_iter()
                    .map(|other| other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
            );
            done
        });
        for singles in compressed {
            for single in singles? {
                let mut single = zip::ZipArchive::new(Cursor::new(single))?;
                archive.raw_copy_file(single.by_index_raw(0)?)?;
            }
        }
    }
    archive.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::{PluralCategory, PluralForms, Project, Text};
    use crate::domain::names::{KeyName, ProjectName};
    use crate::formats::{ExportFormat, render};

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    /// A project in seven languages whose paths sort in another order than the codes
    /// (`values/` for the base language, `fr-CA.lproj` before `fr.lproj`), with plain and
    /// plural keys, some of them missing a language.
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
        };
        let keys = (0..300)
            .map(|index| {
                let mut key = Key::named(KeyName::parse(&format!("screen{}.item{index}", index % 7)).unwrap());
                key.plural = index % 5 == 0;
                for (position, language) in languages.iter().enumerate() {
                    if (index + position) % 11 == 0 {
                        continue;
                    }
                    let text = format!("{language} text {index} <&> \"quoted\" %d");
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

    #[test]
    fn a_zip_written_language_by_language_on_threads_has_the_bytes_of_one_made_in_memory() {
        let (project, keys, languages) = project_and_keys();
        for format in [
            ExportFormat::Json,
            ExportFormat::Csv,
            ExportFormat::AndroidXml,
            ExportFormat::AppleStrings,
        ] {
            let in_memory = zip(&render(format, &project, &keys, &languages).unwrap()).unwrap();
            let borrowed: Vec<&Key> = keys.iter().collect();
            let export = Export::new(format, &project, &borrowed, &languages).unwrap();
            for threads in [1, 2, 3] {
                let streamed = write_zip(&export, &languages, Cursor::new(Vec::new()), threads)
                    .unwrap()
                    .into_inner();
                assert!(streamed == in_memory, "{format:?} on {threads} threads differs");
            }
            let entries = zip::ZipArchive::new(Cursor::new(in_memory)).unwrap().len();
            let per_language = if format == ExportFormat::AppleStrings { 2 } else { 1 };
            assert_eq!(entries, languages.len() * per_language, "{format:?}");
        }
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
