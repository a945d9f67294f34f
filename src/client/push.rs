//! `locstore push`: every file set uploaded, what changed printed per language; and the
//! project created from the app's files by `locstore init --create`.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::server::{self, Server};
use super::settings;
use super::{Common, Ending, Failure, PushOptions, connect, display, files, print_json};
use crate::formats::archive;

/// Uploads every file set; prints what changed per language.
pub fn push(common: &Common, options: &PushOptions) -> Result<Ending, Failure> {
    let (settings, server) = connect(common)?;
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
    let mut reports = Vec::new();
    let mut changed = false;
    let base_language = server
        .project()?
        .and_then(|project| project["baseLanguageISO"].as_str().map(str::to_owned))
        .unwrap_or_default();
    for set in &settings.file_sets {
        let local = files::collect(set)?;
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
        if contents.is_empty() {
            if !common.json {
                println!(
                    "{} ({}): {} files, all as on the server",
                    set.path,
                    set.format.name(),
                    local.len()
                );
            }
            reports.push(json!({
                "path": set.path,
                "format": set.format.name(),
                "files": [],
                "unchangedFiles": local.len(),
                "answer": null,
            }));
            continue;
        }
        let zip = archive::zip(&contents).map_err(|err| Failure::new(format!("cannot zip {}: {err}", set.path)))?;
        let mut set_query = query.clone();
        if let Some(namespace) = &set.namespace {
            set_query.push_str(&format!("&namespace={}", server::encode(namespace)));
        }
        for tag in &set.tags {
            set_query.push_str(&format!("&tags={}", server::encode(tag)));
        }
        let upload = |query: &str| {
            server
                .upload(set.format, query, &zip)
                .map_err(|failure| Failure::new(format!("{}: {}", set.path, failure.0)))
        };
        // `--strict`: a dry run first, so that a push with warnings commits nothing.
        if options.strict && !options.dry_run {
            let trial = upload(&format!("{set_query}&dryRun=true"))?;
            let warnings = warning_lines(set, &trial);
            if !warnings.is_empty() {
                for line in &warnings {
                    eprintln!("{line}");
                }
                return Err(Failure::new(format!(
                    "{}: {} entries would be passed over (--strict); nothing was pushed",
                    set.path,
                    warnings.len()
                )));
            }
        }
        let answer = upload(&set_query)?;
        let count = |field: &str| answer[field].as_u64().unwrap_or(0);
        changed |= count("created") + count("updated") > 0;
        if !common.json {
            println!(
                "{} ({}): {} files, {} keys new, {} changed, {} unchanged{}",
                set.path,
                set.format.name(),
                local.len(),
                count("created"),
                count("updated"),
                count("unchanged"),
                if options.dry_run {
                    " (dry run, nothing committed)"
                } else {
                    ""
                }
            );
            let added: Vec<&str> = answer["addedLanguages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !added.is_empty() {
                println!("  added languages: {}", added.join(", "));
            }
            for line in warning_lines(set, &answer).into_iter().chain(check_lines(&answer)) {
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
        reports.push(json!({
            "path": set.path,
            "format": set.format.name(),
            "files": contents.iter().map(|file| file.path.clone()).collect::<Vec<_>>(),
            "unchangedFiles": local.len() - contents.len(),
            "answer": answer,
        }));
    }
    if common.json {
        print_json(&json!({"dryRun": options.dry_run, "changed": changed, "sets": reports}));
    }
    Ok(if changed && options.fail_on_change {
        Ending::Flagged
    } else {
        Ending::Done
    })
}

/// The size and CRC-32 of each file the server's export of the set writes, by where it goes
/// in the app (read from the zip's directory, nothing unpacked). When the export cannot be
/// had, none: everything is sent, and the upload says what is wrong.
fn server_files(server: &Server, set: &settings::FileSet, base_language: &str) -> HashMap<PathBuf, (u64, u32)> {
    let Ok(entries) = server
        .export(set.format, &set.languages, &set.tags, set.namespace.as_deref(), None)
        .and_then(|exported| exported.entries())
    else {
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
pub fn create_project(common: &Common, base_language: &str) -> Result<Option<Vec<String>>, Failure> {
    let (settings, server) = connect(common)?;
    if server.project()?.is_some() {
        return Ok(None);
    }
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

/// The warnings of an upload's answer as lines naming the app's file and line.
fn warning_lines(set: &settings::FileSet, answer: &Value) -> Vec<String> {
    answer["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|warning| !warning["path"].is_null())
        .map(|warning| {
            let path = warning["path"].as_str().unwrap_or("?");
            let line = warning["line"].as_u64().unwrap_or(0);
            let place = files::disk_path(set, path);
            let at = if line > 0 { format!(":{line}") } else { String::new() };
            format!(
                "warning: {}{at}: {}",
                display(&place),
                warning["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}
