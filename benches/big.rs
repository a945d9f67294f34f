//! A big app: many keys in many languages (issue #14's scenario).
//!
//!     cargo bench --bench big     # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_LANGUAGES=50
//!                                 # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!                                 # LOCSTORE_BENCH_DATA=/some/dir (kept: seeded once, reused)
//!
//! It imports the keys with the bulk import, 2,000 keys a request, each with a text of about
//! 50 bytes in every language (100,000 × 50 is 5 million texts, about 250 MB). Then it
//! restarts the server and measures: the start-up to the first answered query, RSS, a page
//! and a keyword search (p50 over wrk runs), an Android and a JSON export of every language
//! while two other clients read (p99 of their latencies) and one writes (how many changes
//! went through), RSS after the exports and again after 15 s idle. It prints a Markdown
//! table. The start-up is measured twice: reading every key file, then (after the first
//! start saved them) from the saved keys.

mod support;

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use support::{LANGUAGES_50 as LANGUAGES, Server, TOKEN, http, key_name, seed_with};

const PROJECT: &str = "/teams/acme/projects/big";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Runs wrk for `seconds`; returns the median latency in milliseconds.
fn wrk_p50(url: &str, seconds: u64) -> f64 {
    let output = Command::new("wrk")
        .args(["--latency", "-t", "2", "-c", "8", "-d"])
        .arg(format!("{seconds}s"))
        .args(["-H", &format!("X-Api-Token: {TOKEN}")])
        .arg(url)
        .output()
        .expect("wrk runs (apt-get install wrk)");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("Non-2xx"), "{url} answered errors:\n{text}");
    text.lines()
        .find_map(|line| line.trim().strip_prefix("50%"))
        .map(|value| {
            let value = value.trim();
            let split = value.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(value.len());
            let number: f64 = value[..split].parse().unwrap_or(0.0);
            match &value[split..] {
                "us" => number / 1000.0,
                "s" => number * 1000.0,
                _ => number,
            }
        })
        .unwrap_or(f64::NAN)
}

/// Milliseconds at the given quantile of `times`.
fn quantile(times: &mut [f64], at: f64) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort_by(f64::total_cmp);
    times[((times.len() - 1) as f64 * at).round() as usize]
}

/// Runs the export of `kind` while two clients read and one writes; returns its seconds, the
/// readers' p99 in milliseconds and how many writes went through meanwhile.
fn export_under_load(base: &str, keys: usize, kind: &str) -> (f64, f64, usize) {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..2)
            .map(|reader| {
                let done = &done;
                scope.spawn(move || {
                    let mut times = Vec::new();
                    let mut round = 0usize;
                    while !done.load(Ordering::Relaxed) {
                        round += 1;
                        let path = if (round + reader) % 2 == 0 {
                            format!("{PROJECT}/keys?page={}&limit=20", 1 + round % 50)
                        } else {
                            format!("{PROJECT}/keys/{}", key_name((round * 7919) % keys))
                        };
                        let started = Instant::now();
                        let (status, _) = http(base, "GET", &path, None);
                        assert_eq!(status, 200);
                        times.push(started.elapsed().as_secs_f64() * 1000.0);
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    times
                })
            })
            .collect();
        let writer = {
            let done = &done;
            scope.spawn(move || {
                let mut written = 0usize;
                while !done.load(Ordering::Relaxed) {
                    let path = format!("{PROJECT}/keys/{}", key_name((written * 104_729) % keys));
                    let body =
                        format!(r#"{{"translations":[{{"language":"en","content":"during {kind} {written}"}}]}}"#);
                    let (status, answer) = http(base, "PATCH", &path, Some(&body));
                    assert_eq!(status, 200, "{answer}");
                    written += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                written
            })
        };
        std::thread::sleep(Duration::from_millis(300));
        let started = Instant::now();
        let (status, answer) = http(base, "GET", &format!("{PROJECT}/keys/export?type={kind}"), None);
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(status, 200, "{answer}");
        done.store(true, Ordering::Relaxed);
        let mut times: Vec<f64> = readers.into_iter().flat_map(|reader| reader.join().unwrap()).collect();
        let written = writer.join().unwrap();
        (seconds, quantile(&mut times, 0.99), written)
    })
}

fn main() {
    let keys = env_number("LOCSTORE_BENCH_KEYS", 100_000);
    let count = env_number("LOCSTORE_BENCH_LANGUAGES", 50).min(LANGUAGES.len());
    let languages = &LANGUAGES[..count];
    let dir = support::data_dir();
    // A kept data folder is seeded on the first run and reused by later ones.
    let kept = std::env::var_os("LOCSTORE_BENCH_DATA").map(std::path::PathBuf::from);
    let data = kept.clone().unwrap_or_else(|| dir.path().join("data"));
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |name: &str, value: String| {
        eprintln!("{name}: {value}");
        rows.push((name.to_owned(), value));
    };

    if kept.is_none() || !data.join("repo").exists() {
        let (server, _) = Server::start(&data, "fsync");
        let started = Instant::now();
        seed_with(&server.base, keys, languages, 2_000, |code, index| {
            format!("{code}: the text {index} of screen {}, a few words", index % 500)
        });
        row(
            &format!("bulk import of {} texts (2,000 keys a request)", keys * count),
            format!("{:.1} s", started.elapsed().as_secs_f64()),
        );
        row("RSS after the import", format!("{:.0} MB", server.rss_mb()));
        server.stop();
    }
    // SAFETY: sync takes no arguments and has no preconditions.
    unsafe { libc::sync() };

    // Only this run's exports are weighed.
    let _ = std::fs::remove_dir_all(data.join("exports"));
    // A start that reads every key file (it saves them for the next), then one that reads the
    // saved keys.
    let _ = std::fs::remove_dir_all(data.join("repo/.git/locstore/keys"));
    let first_query = || {
        let started = Instant::now();
        let (server, _) = Server::start(&data, "fsync");
        let (status, _) = http(&server.base, "GET", &format!("{PROJECT}/keys?keyword=item4"), None);
        assert_eq!(status, 200);
        (server, started.elapsed().as_secs_f64())
    };
    let (server, seconds) = first_query();
    row(
        "start-up to the first answered query, reading every key file",
        format!("{seconds:.2} s"),
    );
    server.stop();
    let (server, seconds) = first_query();
    row(
        "start-up to the first answered query, with the saved keys",
        format!("{seconds:.2} s"),
    );
    std::thread::sleep(Duration::from_secs(3));
    row("RSS after a restart", format!("{:.0} MB", server.rss_mb()));
    let base = server.base.clone();
    let page = wrk_p50(&format!("{base}{PROJECT}/keys?page=1&limit=20"), 5);
    let keyword = wrk_p50(&format!("{base}{PROJECT}/keys?keyword=item42"), 5);
    row(
        "page of 20 / keyword search, p50",
        format!("{page:.2} ms / {keyword:.2} ms"),
    );

    for kind in ["android-xml", "json"] {
        let (seconds, p99, written) = export_under_load(&base, keys, kind);
        row(
            &format!("{kind} export, {count} languages"),
            format!("{seconds:.1} s (reads meanwhile p99 {p99:.1} ms, {written} writes went through)"),
        );
    }
    let exports = data.join("exports");
    let sizes: Vec<String> = std::fs::read_dir(&exports)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .flat_map(|entry| {
                    std::fs::read_dir(entry.path())
                        .into_iter()
                        .flatten()
                        .filter_map(Result::ok)
                })
                .map(|file| {
                    format!(
                        "{} {:.0} MB",
                        file.file_name().to_string_lossy(),
                        file.metadata().map(|meta| meta.len()).unwrap_or(0) as f64 / 1e6
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    row("export files", sizes.join(", "));
    row(
        "RSS after one Android and one JSON export",
        format!("{:.0} MB", server.rss_mb()),
    );
    std::thread::sleep(Duration::from_secs(15));
    row("RSS after 15 s idle", format!("{:.0} MB", server.rss_mb()));
    server.stop();

    println!("| measure ({keys} keys × {count} languages) | value |");
    println!("|---|---|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
}
