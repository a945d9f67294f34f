//! Each format's upload and export against JSON's, through the release binary: the same
//! 100,000 keys × 5 languages (5% plurals), uploaded into an empty project on a server of its own, then
//! exported (every language; the median of three renders, each after a commit so that none is
//! the stored file of another) in the export's own layout (`layout=export`), and as the app's
//! files the upload kept (the bench's files are not in the export's layout) patched with the
//! key added since. The exports are measured once the server has settled after the upload
//! (no maintenance repack running for two seconds): on two cores the repack of an upload's
//! objects, the kept files' among them, would otherwise share the cores with them, more for
//! the formats whose files are larger.
//!
//!     cargo bench --bench formats    # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_FORMATS=xliff,arb,yaml
//!                                    # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!
//! It prints a Markdown table of wall-clock seconds as the client sees them, with each
//! format's ratio to JSON's (the target: at most 1.5), and the export of the kept files.

mod support;

use std::io::Write;
use std::time::Instant;

use serde_json::{Value, json};
use support::{Server, http, send};

const FIVE: [&str; 5] = ["en", "fr", "de", "pt-BR", "ja"];

fn name(index: usize) -> String {
    format!("screen{}.label_{index}", index % 500)
}

fn text(language: &str, index: usize) -> String {
    format!("{language} text number {index} for \"screen\" {}", index % 500)
}

fn is_plural(index: usize) -> bool {
    index % 20 == 0
}

fn forms(language: &str) -> Value {
    json!({"one": format!("%d {language} item"), "other": format!("%d {language} items")})
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

/// The JSON upload: a zip of `{lang}.json`.
fn json_zip(keys: usize) -> Vec<u8> {
    zip(FIVE.iter().map(|language| {
        let object: serde_json::Map<String, Value> = (0..keys)
            .map(|index| {
                let value = if is_plural(index) {
                    forms(language)
                } else {
                    json!(text(language, index))
                };
                (name(index), value)
            })
            .collect();
        (format!("{language}.json"), serde_json::to_vec_pretty(&object).unwrap())
    }))
}

/// The i18next upload: a zip of `{lang}.json`, plural forms as `_one`/`_other` members.
fn i18next_zip(keys: usize) -> Vec<u8> {
    zip(FIVE.iter().map(|language| {
        let mut object = serde_json::Map::new();
        for index in 0..keys {
            if is_plural(index) {
                for (category, text) in forms(language).as_object().unwrap() {
                    object.insert(format!("{}_{category}", name(index)), text.clone());
                }
            } else {
                object.insert(name(index), json!(text(language, index)));
            }
        }
        (format!("{language}.json"), serde_json::to_vec_pretty(&object).unwrap())
    }))
}

/// The PO upload: a zip of `{lang}.po` (msgctxt the key; Japanese has one plural form).
fn po_zip(keys: usize) -> Vec<u8> {
    let quoted = |text: &str| serde_json::to_string(text).unwrap();
    zip(FIVE.iter().map(|language| {
        let forms = if *language == "ja" { "nplurals=1; plural=0;" } else if *language == "fr" || *language == "pt-BR" { "nplurals=2; plural=(n > 1);" } else { "nplurals=2; plural=(n != 1);" };
        let mut out = format!("msgid \"\"\nmsgstr \"\"\n\"Language: {language}\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Plural-Forms: {forms}\\n\"\n");
        for index in 0..keys {
            out.push_str(&format!("\nmsgctxt {}\n", quoted(&name(index))));
            if is_plural(index) {
                let en = forms_of("en");
                out.push_str(&format!("msgid {}\nmsgid_plural {}\n", quoted(&en[0]), quoted(&en[1])));
                let own = forms_of(language);
                let count = if *language == "ja" { 1 } else { 2 };
                for (form, text) in own.iter().take(count).enumerate() {
                    let text = if count == 1 { &own[1] } else { text };
                    out.push_str(&format!("msgstr[{form}] {}\n", quoted(text)));
                }
            } else {
                out.push_str(&format!("msgid {}\nmsgstr {}\n", quoted(&text("en", index)), quoted(&text(language, index))));
            }
        }
        (format!("{language}.po"), out.into_bytes())
    }))
}

/// An ICU plural message of a language's forms (XLIFF and ARB plural keys).
fn icu_plural(language: &str) -> String {
    format!("{{count, plural, one {{%d {language} item}} other {{%d {language} items}}}}")
}

/// The XLIFF 1.2 upload: a zip of `{lang}.xliff`, the English one a source file, the others
/// with English sources and their language's targets.
fn xliff_zip(keys: usize) -> Vec<u8> {
    zip(FIVE.iter().map(|language| {
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">\n  <file original=\"bench\" source-language=\"en\" target-language=\"{language}\" datatype=\"plaintext\">\n    <body>\n"
        );
        for index in 0..keys {
            let (source, target) = if is_plural(index) {
                (icu_plural("en"), icu_plural(language))
            } else {
                (text("en", index), text(language, index))
            };
            out.push_str(&format!(
                "      <trans-unit id=\"{}\" xml:space=\"preserve\">\n        <source>{source}</source>\n        <target state=\"translated\">{target}</target>\n      </trans-unit>\n",
                name(index)
            ));
        }
        out.push_str("    </body>\n  </file>\n</xliff>\n");
        (format!("{language}.xliff"), out.into_bytes())
    }))
}

/// The ARB upload: a zip of `app_{lang}.arb`, plural keys as ICU plural messages.
fn arb_zip(keys: usize) -> Vec<u8> {
    zip(FIVE.iter().map(|language| {
        let mut object = serde_json::Map::new();
        object.insert("@@locale".into(), json!(language.replace('-', "_")));
        for index in 0..keys {
            let value = if is_plural(index) {
                icu_plural(language)
            } else {
                text(language, index)
            };
            object.insert(name(index), json!(value));
        }
        (
            format!("app_{}.arb", language.replace('-', "_")),
            serde_json::to_vec_pretty(&object).unwrap(),
        )
    }))
}

/// The Rails YAML upload: a zip of `{lang}.yml`, names nested at `.`, plural keys as mappings.
fn yaml_zip(keys: usize) -> Vec<u8> {
    zip(FIVE.iter().map(|language| {
        let mut out = format!("{language}:\n");
        let mut screen = usize::MAX;
        // Keys grouped by screen (`screen7:` then its labels), as Rails files nest them.
        let mut order: Vec<usize> = (0..keys).collect();
        order.sort_by_key(|index| (index % 500, *index));
        for index in order {
            if index % 500 != screen {
                screen = index % 500;
                out.push_str(&format!("  screen{screen}:\n"));
            }
            let label = format!("label_{index}");
            if is_plural(index) {
                out.push_str(&format!(
                    "    {label}:\n      one: \"%d {language} item\"\n      other: \"%d {language} items\"\n"
                ));
            } else {
                out.push_str(&format!(
                    "    {label}: {}\n",
                    serde_json::to_string(&text(language, index)).unwrap()
                ));
            }
        }
        (format!("{language}.yml"), out.into_bytes())
    }))
}

fn forms_of(language: &str) -> [String; 2] {
    [format!("%d {language} item"), format!("%d {language} items")]
}

/// The String Catalog upload: one `Localizable.xcstrings`.
fn xcstrings(keys: usize) -> Vec<u8> {
    let unit = |value: String| json!({"stringUnit": {"state": "translated", "value": value}});
    let strings: serde_json::Map<String, Value> = (0..keys)
        .map(|index| {
            let localizations: serde_json::Map<String, Value> = FIVE
                .iter()
                .map(|language| {
                    let localization = if is_plural(index) {
                        let forms: serde_json::Map<String, Value> = forms(language)
                            .as_object()
                            .unwrap()
                            .iter()
                            .map(|(category, value)| (category.clone(), unit(value.as_str().unwrap().to_owned())))
                            .collect();
                        json!({"variations": {"plural": forms}})
                    } else {
                        unit(text(language, index))
                    };
                    (language.to_string(), localization)
                })
                .collect();
            (name(index), json!({"localizations": localizations}))
        })
        .collect();
    serde_json::to_vec(&json!({"sourceLanguage": "en", "strings": strings, "version": "1.0"})).unwrap()
}

/// Downloads a file, reading its bytes as they arrive (not unzipping or decompressing them),
/// as a client that accepts gzip (browsers, Python's requests, Apple's URLSession, `curl
/// --compressed`) asks for it: a String Catalog comes gzip-compressed.
fn download(base: &str, path: &str) {
    use std::io::Read;
    let host = base.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::with_capacity(1 << 20);
    stream.read_to_end(&mut response).unwrap();
    assert!(response.starts_with(b"HTTP/1.1 200"), "{path}");
}

fn timed<T>(work: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let answer = work();
    (started.elapsed().as_secs_f64(), answer)
}

fn main() {
    let keys: usize = std::env::var("LOCSTORE_BENCH_KEYS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let dir = support::data_dir();
    let formats: Vec<(&str, &str, Vec<u8>)> = vec![
        ("json", "application/zip", json_zip(keys)),
        ("xcstrings", "application/json", xcstrings(keys)),
        ("i18next", "application/zip", i18next_zip(keys)),
        ("po", "application/zip", po_zip(keys)),
        ("xliff", "application/zip", xliff_zip(keys)),
        ("arb", "application/zip", arb_zip(keys)),
        ("yaml", "application/zip", yaml_zip(keys)),
    ];
    // `LOCSTORE_BENCH_FORMATS=xliff,arb,yaml` measures those (and JSON, the yardstick) only.
    let only = std::env::var("LOCSTORE_BENCH_FORMATS").ok();
    let formats: Vec<_> = formats
        .into_iter()
        .filter(|(format, _, _)| {
            *format == "json"
                || only
                    .as_deref()
                    .is_none_or(|only| only.split(',').any(|wanted| wanted == *format))
        })
        .collect();
    let mut rows: Vec<(String, f64, f64, f64, f64)> = Vec::new();
    for (format, content_type, body) in &formats {
        // Each format on a server of its own: a commit's cost grows with the repository (its
        // index lists every file), so sharing one would charge each format for those before.
        // A catalog of 100,000 keys in 5 languages is larger than the default import limit.
        let (server, _) = Server::start_with(
            &dir.path().join(format),
            &["--durability", "fsync", "--max-import-bytes", "1073741824"],
        );
        let base = server.base.clone();
        assert_eq!(
            http(&base, "POST", "/teams", Some(r#"{"name":"acme","displayName":"Acme"}"#)).0,
            201
        );
        let project = format.replace('-', "");
        let languages: Vec<String> = FIVE.iter().map(|code| format!("\"{code}\"")).collect();
        let create = format!(
            r#"{{"name":"{project}","displayName":"{project}","languagesISO":[{}]}}"#,
            languages.join(",")
        );
        assert_eq!(http(&base, "POST", "/teams/acme/projects", Some(&create)).0, 201);
        let (upload, (status, answer)) = timed(|| {
            send(
                &base,
                "POST",
                &format!("/teams/acme/projects/{project}/files?type={format}"),
                content_type,
                body,
            )
        });
        assert_eq!(status, 200, "{answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["created"], keys, "{format}: {answer}");
        let settled = server.settle();
        eprintln!("  {format}: settled {:.1} s after the upload", settled.as_secs_f64());
        let export_time = |query: &str| {
            timed(|| {
                let (status, answer) = http(
                    &base,
                    "GET",
                    &format!("/teams/acme/projects/{project}/keys/export?type={format}{query}"),
                    None,
                );
                assert_eq!(status, 200, "{answer}");
                let address: Value = serde_json::from_str(&answer).unwrap();
                let address = address["data"].as_str().unwrap();
                let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
                let rendered = Instant::now();
                download(&base, &path);
                eprintln!("  {format}{query}: download {:.3} s", rendered.elapsed().as_secs_f64());
            })
            .0
        };
        // Right after the upload: the kept files as they are (nothing changed since).
        let unchanged = export_time("");
        let (mut exports, mut kept_exports) = (Vec::new(), Vec::new());
        for round in 0..3 {
            // A commit between renders, so that none is the stored file of another.
            let bump = format!(r#"{{"name":"bench.round{round}","translations":[{{"language":"en","content":"x"}}]}}"#);
            assert_eq!(
                http(
                    &base,
                    "POST",
                    &format!("/teams/acme/projects/{project}/keys"),
                    Some(&bump)
                )
                .0,
                201
            );
            // The export's own layout, then the app's files the upload kept (where the
            // format keeps them: the bench's files are not in the export's layout), patched
            // with the key added since.
            exports.push(export_time("&layout=export"));
            kept_exports.push(export_time(""));
        }
        let median = |mut times: Vec<f64>| {
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        let (export, kept) = (median(exports.clone()), median(kept_exports.clone()));
        eprintln!(
            "{format}: upload {upload:.2} s, export {export:.2} s (median of {exports:?}), app's files {kept:.2} s (median of {kept_exports:?}), unchanged {unchanged:.2} s"
        );
        rows.push((format.to_string(), upload, export, kept, unchanged));
        server.stop();
    }
    let (_, json_upload, json_export, ..) = rows[0].clone();
    println!(
        "| {keys} keys × 5 languages | upload s | × JSON | export s | × JSON | app's files kept: export s | × JSON | unchanged since the upload s | × JSON |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (format, upload, export, kept, unchanged) in rows {
        println!(
            "| {format} | {upload:.2} | {:.2} | {export:.2} | {:.2} | {kept:.2} | {:.2} | {unchanged:.2} | {:.2} |",
            upload / json_upload,
            export / json_export,
            kept / json_export,
            unchanged / json_export
        );
    }
}
