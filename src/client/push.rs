//! `locstore push`: every file set uploaded, what changed printed per language; and the
//! project created from the app's files by `locstore init --create`.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::server::Server;
use super::settings;
use super::{Common, Ending, Failure, PushOptions, connect, display, files, print_json};
use crate::formats::{ExportFormat, archive};

/// Uploads every file set in one request, so that a push is one commit however many sets
/// it sends (none when nothing changed); prints what changed per set and per language.
pub fn push(common: &Common, options: &PushOptions) -> Result<Ending, Failure> {
    let (settings, mut server) = connect(common)?;
    // A dry run writes nothing, not even the branch: before the branch's first push it
    // compares with the main line the branch would be made from.
    if options.dry_run
        && let Some(branch) = server.branch.clone()
        && !server.branch_exists()?
    {
        if !common.json {
            eprintln!(
                "the branch {} of {}/{} does not exist yet: the dry run compares with the main line",
                branch.name, settings.team, settings.project
            );
        }
        server.branch = None;
    }
    // The branch a push names is made from the main line on the first push.
    if !options.dry_run
        && server.ensure_branch()?
        && let Some(branch) = &server.branch
        && !common.json
    {
        eprintln!(
            "created the branch {} of {}/{} from the main line",
            branch.name, settings.team, settings.project
        );
    }
    let mut query = String::new();
    if options.dry_run {
        query.push_str("&dryRun=true");
    }
    if let Some(mode) = &options.mode {
        query.push_str(&format!("&mode={mode}"));
    }
    if options.add_languages {
        query.push_str("&addLanguages=true");
    }
    let base_language = server
        .project()?
        .and_then(|project| project["baseLanguageISO"].as_str().map(str::to_owned))
        .unwrap_or_default();
    // Each set's files that differ from what the server's export of the set writes.
    let mut sending: Vec<Sending> = Vec::new();
    for set in &settings.file_sets {
        let local = files::collect(set)?;
        for (disk, name) in files::passed_over(set) {
            eprintln!(
                "warning: {}: {name:?} is no language code (a language of 2 or 3 letters, then subtags of 2 to 8 letters or digits), so the file is not pushed; it stays as it is",
                display(&disk)
            );
        }
        // A file that is byte for byte what the server's export of the set writes holds
        // nothing new (its keys already have the set's tags, files and texts): it is not sent.
        // `--mode create` sends everything, so that it can refuse existing keys.
        let on_server = if options.mode.as_deref() == Some("create") {
            HashMap::new()
        } else {
            server_files(&server, set, &base_language)
        };
        let mut contents = Vec::new();
        for file in &local {
            let bytes = std::fs::read(&file.disk)
                .map_err(|err| Failure::new(format!("cannot read {}: {err}", file.disk.display())))?;
            let as_on_server = on_server
                .get(&file.disk)
                .is_some_and(|&(size, crc32)| bytes.len() as u64 == size && crc32fast::hash(&bytes) == crc32);
            if !as_on_server {
                contents.push(crate::formats::ExportFile {
                    path: file.layout.clone(),
                    bytes,
                });
            }
        }
        sending.push(Sending {
            set,
            local: local.len(),
            contents,
        });
    }
    let sent: Vec<&Sending> = sending.iter().filter(|sending| !sending.contents.is_empty()).collect();
    let answer = if sent.is_empty() {
        None
    } else {
        let zip = sets_zip(&sent)?;
        // `--strict`: a dry run first, so that a push with warnings commits nothing.
        if options.strict && !options.dry_run {
            let trial = server.upload_sets(&format!("{query}&dryRun=true"), &zip)?;
            let warnings = warning_lines(&sent, &trial);
            if !warnings.is_empty() {
                for line in &warnings {
                    eprintln!("{line}");
                }
                return Err(Failure::new(format!(
                    "{} entries would be passed over (--strict); nothing was pushed",
                    warnings.len()
                )));
            }
        }
        // A failure names the set when one set was sent, as the app's paths name it.
        let named = |failure: Failure| match sent.as_slice() {
            [only] => Failure::new(format!("{}: {}", only.set.path, failure.0)),
            _ => failure,
        };
        Some(server.upload_sets(&query, &zip).map_err(named)?)
    };
    let count = |value: &Value, field: &str| value[field].as_u64().unwrap_or(0);
    let changed = answer
        .as_ref()
        .is_some_and(|answer| count(answer, "created") + count(answer, "updated") > 0);
    let mut reports = Vec::new();
    let mut place = 0;
    for sending in &sending {
        let set = sending.set;
        let set_answer = if sending.contents.is_empty() {
            None
        } else {
            place += 1;
            answer.as_ref().map(|answer| answer["sets"][place - 1].clone())
        };
        if !common.json {
            match &set_answer {
                None => println!(
                    "{} ({}): {} files, all as on the server",
                    set.path,
                    set.format.name(),
                    sending.local
                ),
                Some(counts) => println!(
                    "{} ({}): {} files, {} keys new, {} changed, {} unchanged{}",
                    set.path,
                    set.format.name(),
                    sending.local,
                    count(counts, "created"),
                    count(counts, "updated"),
                    count(counts, "unchanged"),
                    if options.dry_run {
                        " (dry run, nothing committed)"
                    } else {
                        ""
                    }
                ),
            }
        }
        reports.push(json!({
            "path": set.path,
            "format": set.format.name(),
            "files": sending.contents.iter().map(|file| file.path.clone()).collect::<Vec<_>>(),
            "unchangedFiles": sending.local - sending.contents.len(),
            "answer": set_answer,
        }));
    }
    if let (Some(answer), false) = (&answer, common.json) {
        let added: Vec<&str> = answer["addedLanguages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !added.is_empty() {
            println!("  added languages: {}", added.join(", "));
        }
        for line in warning_lines(&sent, answer).into_iter().chain(check_lines(answer)) {
            eprintln!("{line}");
        }
        for texts in answer["texts"].as_array().into_iter().flatten() {
            let number = |field: &str| texts[field].as_u64().unwrap_or(0);
            let mut parts = vec![
                format!("{} new", number("created")),
                format!("{} changed", number("updated")),
            ];
            if number("removed") > 0 {
                parts.push(format!("{} removed", number("removed")));
            }
            println!("  {}: {}", texts["language"].as_str().unwrap_or("?"), parts.join(", "));
        }
    }
    if common.json {
        print_json(&json!({"dryRun": options.dry_run, "changed": changed, "sets": reports, "answer": answer}));
    }
    Ok(if changed && options.fail_on_change {
        Ending::Flagged
    } else {
        Ending::Done
    })
}

/// A file set's files that a push sends.
struct Sending<'a> {
    set: &'a settings::FileSet,
    /// How many files the set has in the app.
    local: usize,
    /// Those that differ from the server's export, with their layout paths.
    contents: Vec<crate::formats::ExportFile>,
}

/// The zip of an upload of several sets: `sets.json`, and each set's files under its place.
fn sets_zip(sent: &[&Sending]) -> Result<Vec<u8>, Failure> {
    let manifest = json!({
        "sets": sent
            .iter()
            .map(|sending| {
                let mut set = json!({"type": sending.set.format.name(), "tags": sending.set.tags});
                if let Some(namespace) = &sending.set.namespace {
                    set["namespace"] = json!(namespace);
                }
                if let Some(file) = &sending.set.file {
                    set["file"] = json!(file);
                }
                set
            })
            .collect::<Vec<_>>(),
    });
    let mut files = vec![crate::formats::ExportFile {
        path: "sets.json".to_owned(),
        bytes: manifest.to_string().into_bytes(),
    }];
    for (place, sending) in sent.iter().enumerate() {
        for file in &sending.contents {
            files.push(crate::formats::ExportFile {
                path: format!("{place}/{}", file.path),
                bytes: file.bytes.clone(),
            });
        }
    }
    archive::zip(&files).map_err(|err| Failure::new(format!("cannot zip the file sets: {err}")))
}

/// The size and CRC-32 of each file the server's export of the set writes, by where it goes
/// in the app (read from the zip's directory, nothing unpacked). When the export cannot be
/// had, none: everything is sent, and the upload says what is wrong.
fn server_files(server: &Server, set: &settings::FileSet, base_language: &str) -> HashMap<PathBuf, (u64, u32)> {
    let Ok(entries) = server.export(set, None).and_then(|exported| exported.entries()) else {
        return HashMap::new();
    };
    entries
        .into_iter()
        .filter_map(|entry| {
            let disk = files::destination(set, &entry.layout, base_language)?;
            Some((disk, (entry.size, entry.crc32)))
        })
        .collect()
}

/// `locstore init --create`: creates the project when the server lacks it, with the base
/// language given and the languages of the file sets' folders. Answers the languages of a
/// project it created, `None` when the project exists.
pub fn create_project(common: &Common, base_language: Option<&str>) -> Result<Option<Vec<String>>, Failure> {
    let (settings, server) = connect(common)?;
    if server.project()?.is_some() {
        return Ok(None);
    }
    let base_language = match base_language {
        Some(given) => given.to_owned(),
        None => declared_base_language(&settings).unwrap_or_else(|| "en".to_owned()),
    };
    let base_language = base_language.as_str();
    let mut languages = vec![base_language.to_owned()];
    for set in &settings.file_sets {
        for file in files::collect(set).unwrap_or_default() {
            // A String Catalog names its languages inside; other files by their place.
            let found: Vec<String> = if set.format.is_multilingual() {
                std::fs::read(&file.disk)
                    .ok()
                    .and_then(|bytes| crate::formats::xcstrings::read(&bytes).ok())
                    .map(|catalog| catalog.languages.into_iter().map(|(language, _)| language).collect())
                    .unwrap_or_default()
            } else {
                crate::formats::upload::place(set.format, &file.layout)
                    .into_iter()
                    .collect()
            };
            for language in found {
                let Some(language) = normalized_language(&language) else {
                    continue;
                };
                if !languages
                    .iter()
                    .any(|known| settings::folded(known) == settings::folded(&language))
                {
                    languages.push(language);
                }
            }
        }
    }
    server.create_project(base_language, &languages)?;
    Ok(Some(languages))
}

/// The base language the app's files declare, where a file names it inside rather than by
/// its place: a String Catalog's `sourceLanguage`, an XLIFF source file's `source-language`
/// (Angular's `messages.xlf` says `en-US`). The first set's that says one.
fn declared_base_language(settings: &settings::Settings) -> Option<String> {
    settings.file_sets.iter().find_map(|set| {
        files::collect(set).unwrap_or_default().into_iter().find_map(|file| {
            let declared = match set.format {
                ExportFormat::Xcstrings => crate::formats::xcstrings::read(&std::fs::read(&file.disk).ok()?)
                    .ok()
                    .map(|catalog| catalog.source_language),
                ExportFormat::Xliff | ExportFormat::Xliff2
                    if crate::formats::upload::place(set.format, &file.layout)
                        .is_none_or(|language| language == crate::formats::upload::BASE_LANGUAGE) =>
                {
                    crate::formats::xliff::read(&std::fs::read(&file.disk).ok()?)
                        .ok()
                        .and_then(|read| read.language)
                }
                _ => None,
            };
            declared.as_deref().and_then(normalized_language)
        })
    })
}

/// A folder's language as a project language code; the base folder (`values/`,
/// `Base.lproj/`) and names that are no language code give none.
fn normalized_language(language: &str) -> Option<String> {
    if language == crate::formats::upload::BASE_LANGUAGE {
        return None;
    }
    crate::domain::names::LanguageCode::parse(language)
        .ok()
        .map(|code| code.as_str().to_owned())
}

/// The failing checks an upload's answer reports of the keys it wrote, as lines naming the
/// key, language and check (not part of `--strict`: they are findings about texts, not entries
/// the server passed over).
fn check_lines(answer: &Value) -> Vec<String> {
    answer["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|warning| warning["path"].is_null())
        .map(|warning| match warning["check"].as_str() {
            Some(check) => format!(
                "{} {check}: {} ({}): {}",
                warning["severity"].as_str().unwrap_or("warning"),
                warning["key"].as_str().unwrap_or_default(),
                warning["language"].as_str().unwrap_or_default(),
                warning["message"].as_str().unwrap_or_default()
            ),
            None => format!("note: {}", warning["message"].as_str().unwrap_or_default()),
        })
        .collect()
}

/// The warnings of an upload's answer as lines naming the app's file and line (a warning's
/// path begins with its set's place among those sent).
fn warning_lines(sent: &[&Sending], answer: &Value) -> Vec<String> {
    answer["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|warning| !warning["path"].is_null())
        .map(|warning| {
            let path = warning["path"].as_str().unwrap_or("?");
            let line = warning["line"].as_u64().unwrap_or(0);
            let place = path
                .split_once('/')
                .and_then(|(place, rest)| Some((sent.get(place.parse::<usize>().ok()?)?, rest)));
            let shown = match place {
                Some((sending, rest)) => display(&files::disk_path(sending.set, rest)),
                None => path.to_owned(),
            };
            let at = if line > 0 { format!(":{line}") } else { String::new() };
            format!(
                "warning: {shown}{at}: {}",
                warning["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}
