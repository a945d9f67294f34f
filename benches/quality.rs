//! Completeness and quality at scale (issue #27): stats, work-queue pages, the checks list
//! and the cost of checks on a write, on a project of many keys in many languages.
//!
//!     cargo bench --bench quality   # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_LANGUAGES=50
//!                                   # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!
//! It seeds the keys with the bulk import (about 50 bytes a text; 1% of the keys lack their
//! French text, 1% of the French texts lost the base text's `%d`), then changes 1% of the
//! base texts with an upsert import (their translations become outdated), restarts the
//! server, and measures with repeated requests (median, and the first one): stats, a
//! `missing=fr` and an `outdated=fr` page, a `failing=fr` page with a keyword, the first page
//! of `checks`, and a key update's answer time (which carries its checks). Prints a Markdown
//! table.

mod support;

use std::time::Instant;

use support::{LANGUAGES_50 as LANGUAGES, Server, http, key_name, seed_with};

const PROJECT: &str = "/teams/acme/projects/big";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The first request's milliseconds and the median of `runs` more.
fn timed(base: &str, method: &str, path: &str, body: impl Fn(usize) -> Option<String>, runs: usize) -> (f64, f64) {
    let mut once = |run: usize| {
        let body = body(run);
        let started = Instant::now();
        let (status, answer) = http(base, method, path, body.as_deref());
        assert!(status == 200, "{path}: {status} {answer}");
        started.elapsed().as_secs_f64() * 1000.0
    };
    let first = once(0);
    let mut times: Vec<f64> = (1..=runs).map(&mut once).collect();
    times.sort_by(f64::total_cmp);
    (first, times[runs / 2])
}

fn main() {
    let keys = env_number("LOCSTORE_BENCH_KEYS", 100_000);
    let count = env_number("LOCSTORE_BENCH_LANGUAGES", 50).min(LANGUAGES.len());
    let languages = &LANGUAGES[..count];
    let dir = support::data_dir();
    let data = dir.path().join("data");
    let limits = ["--durability", "os", "--max-import-bytes", "2147483648"];

    let (server, _) = Server::start_with(&data, &limits);
    let started = Instant::now();
    seed_with(&server.base, keys, languages, 2_000, |code, index| {
        match (code, index % 100) {
            ("fr", 7) => String::new(),
            ("en", 3) => format!("{index} items for the screen %d"),
            ("fr", 3) => format!("{index} articles pour l'écran"),
            _ => format!("{code} text number {index} for the screen {}", index % 500),
        }
    });
    eprintln!(
        "seeded {keys} keys × {count} languages in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // 1% of the base texts change: their translations are outdated.
    let changed: Vec<String> = (0..keys)
        .filter(|index| index % 100 == 11)
        .map(|index| {
            format!(
                r#"{{"name":"{}","translations":[{{"language":"en","content":"en text number {index}, changed"}}]}}"#,
                key_name(index)
            )
        })
        .collect();
    let body = format!(r#"{{"mode":"upsert","keys":[{}]}}"#, changed.join(","));
    let (status, answer) = http(&server.base, "POST", &format!("{PROJECT}/keys/import"), Some(&body));
    assert_eq!(status, 200, "{answer}");
    server.stop();

    let (server, _) = Server::start_with(&data, &limits);
    let base = server.base.clone();
    // The first read loads the keys (from the saved catalog); not part of what is measured.
    assert_eq!(http(&base, "GET", &format!("{PROJECT}/keys?limit=1"), None).0, 200);
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |name: &str, (first, p50): (f64, f64)| {
        eprintln!("{name}: first {first:.1} ms, p50 {p50:.2} ms");
        rows.push((name.to_owned(), format!("{first:.1} ms / {p50:.2} ms")));
    };
    let none = |_| None;
    row(
        "stats (the first summarizes every key)",
        timed(&base, "GET", &format!("{PROJECT}/stats"), none, 20),
    );
    row(
        "stats with tags",
        timed(&base, "GET", &format!("{PROJECT}/stats?tags=nothing"), none, 20),
    );
    row(
        "missing=fr, page 1",
        timed(&base, "GET", &format!("{PROJECT}/keys?missing=fr"), none, 50),
    );
    row(
        "outdated=fr, page 1",
        timed(&base, "GET", &format!("{PROJECT}/keys?outdated=fr"), none, 50),
    );
    row(
        "outdated=fr, page 20",
        timed(&base, "GET", &format!("{PROJECT}/keys?outdated=fr&page=20"), none, 50),
    );
    row(
        "failing=fr&keyword=screen, page 1",
        timed(
            &base,
            "GET",
            &format!("{PROJECT}/keys?failing=fr&keyword=screen"),
            none,
            20,
        ),
    );
    row(
        "checks, page 1",
        timed(&base, "GET", &format!("{PROJECT}/checks"), none, 20),
    );
    row(
        "a page without filters",
        timed(&base, "GET", &format!("{PROJECT}/keys?page=7"), none, 50),
    );
    // Writes: a key's update answers its failing checks (one key of 50 languages).
    let patch = |run: usize| {
        Some(format!(
            r#"{{"translations":[{{"language":"de","content":"de text {run}"}}]}}"#
        ))
    };
    row(
        "PATCH of a key, answer time",
        timed(&base, "PATCH", &format!("{PROJECT}/keys/{}", key_name(4242)), patch, 50),
    );
    row(
        "stats after the writes",
        timed(&base, "GET", &format!("{PROJECT}/stats"), none, 20),
    );
    println!("| {keys} keys × {count} languages | first / p50 |");
    println!("|---|---:|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
    println!("| RSS | {:.0} MB |", server.rss_mb());
    server.stop();
}
