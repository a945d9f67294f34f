//! File upload through the release binary: how long a whole app's resources take to move in.
//!
//!     cargo bench --bench upload     # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_WIDE_KEYS=10000
//!                                    # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!
//! Scenarios, each on its own project of one server (durability fsync):
//! - an Android `res/` zip of 100,000 keys × 5 languages (5% plurals, 10% with a description):
//!   the upload into an empty project, a dry run of the same zip, the same zip again (nothing
//!   changes), and the zip with 1% of the texts changed;
//! - the same keys as a zip of JSON files;
//! - an app with 50 languages: 10,000 keys × 50 `values-*` folders.
//!
//! It prints a Markdown table of wall-clock seconds as the client sees them (request sent to
//! answer read) and the server's RSS at the end.

mod support;

use std::io::Write;
use std::time::Instant;

use support::{Server, http, send};

const FIVE: [&str; 5] = ["en", "fr", "de", "pt-BR", "ja"];

/// Fifty languages as Android folders name them (`values` is the base language, `en`).
const FIFTY: [&str; 50] = [
    "en", "fr", "de", "es", "it", "pt-BR", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "sk", "hu", "ro", "bg",
    "el", "tr", "ru", "uk", "he", "ar", "fa", "hi", "bn", "ta", "te", "th", "vi", "id", "ms", "ja", "ko", "zh-CN",
    "zh-TW", "ca", "hr", "sr", "sl", "lt", "lv", "et", "is", "ga", "cy", "sw", "af", "zu",
];

fn android_folder(language: &str) -> String {
    match language {
        "en" => "values".to_owned(),
        _ => match language.split_once('-') {
            Some((code, region)) => format!("values-{code}-r{region}"),
            None => format!("values-{language}"),
        },
    }
}

fn name(index: usize) -> String {
    format!("screen{}_item{index}_label", index % 500)
}

/// One language's `strings.xml`; `revision` changes 1% of the texts when non-zero.
fn strings_xml(language: &str, keys: usize, revision: usize) -> Vec<u8> {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n");
    for index in 0..keys {
        let edited = if revision > 0 && index % 100 == 0 {
            format!(" (rev {revision})")
        } else {
            String::new()
        };
        if index % 10 == 0 {
            xml.push_str(&format!("    <!-- Label {index} on screen {} -->\n", index % 500));
        }
        if index % 20 == 0 {
            xml.push_str(&format!(
                "    <plurals name=\"{}\">\n        <item quantity=\"one\">%d {language} item{edited}</item>\n        <item quantity=\"other\">%d {language} items{edited}</item>\n    </plurals>\n",
                name(index)
            ));
        } else {
            xml.push_str(&format!(
                "    <string name=\"{}\">{language} text number {index} for \\\"screen\\\" {}{edited}</string>\n",
                name(index),
                index % 500
            ));
        }
    }
    xml.push_str("</resources>\n");
    xml.into_bytes()
}

fn json_file(language: &str, keys: usize) -> Vec<u8> {
    let object: serde_json::Map<String, serde_json::Value> = (0..keys)
        .map(|index| {
            let value = if index % 20 == 0 {
                serde_json::json!({"one": format!("%d {language} item"), "other": format!("%d {language} items")})
            } else {
                serde_json::json!(format!("{language} text number {index} for \"screen\" {}", index % 500))
            };
            (name(index), value)
        })
        .collect();
    serde_json::to_vec_pretty(&object).unwrap()
}

fn zip(files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Vec<u8> {
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, bytes) in files {
        archive
            .start_file(path, zip::write::SimpleFileOptions::default())
            .unwrap();
        archive.write_all(&bytes).unwrap();
    }
    archive.finish().unwrap().into_inner()
}

fn android_zip(languages: &[&str], keys: usize, revision: usize) -> Vec<u8> {
    zip(languages.iter().map(|language| {
        (
            format!("res/{}/strings.xml", android_folder(language)),
            strings_xml(language, keys, revision),
        )
    }))
}

fn create_project(base: &str, project: &str, languages: &[&str]) {
    let languages: Vec<String> = languages.iter().map(|code| format!("\"{code}\"")).collect();
    let body = format!(
        r#"{{"name":"{project}","displayName":"{project}","languagesISO":[{}]}}"#,
        languages.join(",")
    );
    assert_eq!(http(base, "POST", "/teams/acme/projects", Some(&body)).0, 201);
}

/// Uploads and returns the seconds it took and the answer.
fn upload(base: &str, project: &str, query: &str, body: &[u8]) -> (f64, serde_json::Value) {
    let started = Instant::now();
    let (status, answer) = send(
        base,
        "POST",
        &format!("/teams/acme/projects/{project}/files?{query}"),
        "application/zip",
        body,
    );
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(status, 200, "{answer}");
    (seconds, serde_json::from_str(&answer).unwrap())
}

fn main() {
    let keys: usize = std::env::var("LOCSTORE_BENCH_KEYS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let wide_keys: usize = std::env::var("LOCSTORE_BENCH_WIDE_KEYS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(10_000);
    let dir = support::data_dir();
    let (server, _) = Server::start(&dir.path().join("data"), "fsync");
    let base = server.base.clone();
    assert_eq!(
        http(&base, "POST", "/teams", Some(r#"{"name":"acme","displayName":"Acme"}"#)).0,
        201
    );
    let mut rows = Vec::new();
    let mut row = |scenario: String, bytes: usize, seconds: f64, answer: &serde_json::Value| {
        let counts = format!(
            "{} created, {} updated, {} unchanged",
            answer["created"], answer["updated"], answer["unchanged"]
        );
        eprintln!("{scenario}: {seconds:.2} s ({counts})");
        rows.push(format!(
            "| {scenario} | {:.1} | {seconds:.2} | {counts} |",
            bytes as f64 / 1e6
        ));
    };

    create_project(&base, "android", &FIVE);
    let android = android_zip(&FIVE, keys, 0);
    let label = format!("Android zip, {keys} keys × 5 languages");
    let (seconds, answer) = upload(&base, "android", "type=android-xml&dryRun=true", &android);
    row(
        format!("{label}: dry run, empty project"),
        android.len(),
        seconds,
        &answer,
    );
    let (seconds, answer) = upload(&base, "android", "type=android-xml", &android);
    row(
        format!("{label}: into an empty project"),
        android.len(),
        seconds,
        &answer,
    );
    let (seconds, answer) = upload(&base, "android", "type=android-xml&dryRun=true", &android);
    row(
        format!("{label}: dry run, all unchanged"),
        android.len(),
        seconds,
        &answer,
    );
    let (seconds, answer) = upload(&base, "android", "type=android-xml", &android);
    row(
        format!("{label}: again, all unchanged"),
        android.len(),
        seconds,
        &answer,
    );
    let revised = android_zip(&FIVE, keys, 1);
    let (seconds, answer) = upload(&base, "android", "type=android-xml", &revised);
    row(format!("{label}: 1% of texts changed"), revised.len(), seconds, &answer);

    create_project(&base, "web", &FIVE);
    let json = zip(FIVE
        .iter()
        .map(|language| (format!("{language}.json"), json_file(language, keys))));
    let (seconds, answer) = upload(&base, "web", "type=json", &json);
    row(
        format!("JSON zip, {keys} keys × 5 languages: into an empty project"),
        json.len(),
        seconds,
        &answer,
    );

    create_project(&base, "wide", &FIFTY);
    let wide = android_zip(&FIFTY, wide_keys, 0);
    let (seconds, answer) = upload(&base, "wide", "type=android-xml", &wide);
    row(
        format!("Android zip, {wide_keys} keys × 50 languages: into an empty project"),
        wide.len(),
        seconds,
        &answer,
    );

    println!("| upload | zip MB | seconds | result |");
    println!("|---|---:|---:|---|");
    for row in rows {
        println!("{row}");
    }
    println!();
    println!("RSS of the server at the end: {:.0} MB", server.rss_mb());
    server.stop();
}
