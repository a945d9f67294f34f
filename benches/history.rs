//! Reads of the past at scale: a project of many keys with many commits on top, then key
//! history, project activity, reads and exports at old states, and changes since.
//!
//!     cargo bench --bench history    # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_COMMITS=100000
//!                                    # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!                                    # LOCSTORE_BENCH_DATA=/some/dir (kept: seeded once, reused)
//!
//! It seeds the keys (5 languages) with the bulk import, takes snapshot `import`, then makes
//! the commits as single key updates from 8 clients (durability `os`), taking snapshot `mid`
//! half way. It prints a Markdown table of medians over repeated requests.

mod support;

use std::time::{Duration, Instant};

use support::{Server, http, key_name, seed};

const PROJECT: &str = "/teams/acme/projects/big";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Median milliseconds of `runs` requests, and the first one's.
fn timed(base: &str, path: &str, runs: usize) -> (f64, f64) {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let (status, body) = http(base, "GET", path, None);
            assert!(status == 200, "{path}: {status} {body}");
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let first = times[0];
    times.sort_by(f64::total_cmp);
    (first, times[runs / 2])
}

/// Changes `count` keys' texts, one commit each, from 8 clients.
fn commit_changes(base: &str, keys: usize, count: usize, round: usize) {
    let clients = 8;
    std::thread::scope(|scope| {
        for client in 0..clients {
            scope.spawn(move || {
                for index in (client..count).step_by(clients) {
                    // A tenth of the changes go to one key, so that its history is long.
                    let key = if index % 10 == 0 { 0 } else { (index * 7919) % keys };
                    let body = format!(r#"{{"translations":[{{"language":"fr","content":"r{round} c{index}"}}]}}"#);
                    let path = format!("{PROJECT}/keys/{}", key_name(key));
                    let (status, answer) = http(base, "PATCH", &path, Some(&body));
                    assert_eq!(status, 200, "{answer}");
                }
            });
        }
    });
}

fn main() {
    let keys = env_number("LOCSTORE_BENCH_KEYS", 100_000);
    let commits = env_number("LOCSTORE_BENCH_COMMITS", 100_000);
    let dir = support::data_dir();
    // A kept data folder is seeded on the first run and reused by later ones (which then
    // measure a server that has just started on it).
    let kept = std::env::var_os("LOCSTORE_BENCH_DATA").map(std::path::PathBuf::from);
    let seeded = kept.as_ref().is_some_and(|data| data.join("repo").exists());
    let data = kept.unwrap_or_else(|| dir.path().join("data"));
    let (server, _) = Server::start(&data, "os");
    let base = server.base.clone();
    if !seeded {
        let started = Instant::now();
        seed(&base, keys);
        eprintln!("seeded {keys} keys in {:.1} s", started.elapsed().as_secs_f64());
        let snapshot = |name: &str| {
            let body = format!(r#"{{"name":"{name}"}}"#);
            assert_eq!(http(&base, "POST", &format!("{PROJECT}/snapshots"), Some(&body)).0, 201);
        };
        snapshot("import");
        let started = Instant::now();
        commit_changes(&base, keys, commits / 2, 1);
        snapshot("mid");
        commit_changes(&base, keys, commits - commits / 2, 2);
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "made {commits} commits in {seconds:.1} s ({:.0}/s)",
            commits as f64 / seconds
        );
    }

    let waited = server.settle();
    eprintln!(
        "waited {:.1} s for the server's background git processes",
        waited.as_secs_f64()
    );

    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |name: &str, value: String| {
        eprintln!("{name}: {value}");
        rows.push((name.to_owned(), value));
    };
    let hot = key_name(0);
    let (first, p50) = timed(&base, &format!("{PROJECT}/keys/{hot}/history"), 21);
    row(
        &format!("key history of a key changed {} times, first / p50", commits / 10),
        format!("{first:.1} ms / {p50:.2} ms"),
    );
    let (_, p50) = timed(&base, &format!("{PROJECT}/keys/{}/history", key_name(keys / 2)), 21);
    row("key history of a key changed about once, p50", format!("{p50:.2} ms"));
    let (_, p50) = timed(&base, &format!("{PROJECT}/history"), 21);
    row("project activity, page 1, p50", format!("{p50:.2} ms"));
    let (_, p50) = timed(&base, &format!("{PROJECT}/history?page=2000"), 21);
    row("project activity, page 2000, p50", format!("{p50:.2} ms"));
    let (first, p50) = timed(&base, &format!("{PROJECT}/keys/{}?at=import", key_name(keys / 3)), 21);
    row(
        "GET key at= the import (an old commit), first / p50",
        format!("{first:.1} ms / {p50:.2} ms"),
    );
    let (first, p50) = timed(&base, &format!("{PROJECT}/keys?at=mid&keyword=item42&limit=20"), 21);
    row(
        &format!(
            "key query at= a commit {} changes back, first / p50",
            commits - commits / 2
        ),
        format!("{first:.0} ms / {p50:.2} ms"),
    );
    let (_, head_export) = timed(&base, &format!("{PROJECT}/keys/export?type=android-xml"), 3);
    let (_, past_export) = timed(&base, &format!("{PROJECT}/keys/export?type=android-xml&at=import"), 3);
    row(
        "Android export at HEAD / at a snapshot (median of 3)",
        format!(
            "{head_export:.0} ms / {past_export:.0} ms ({:.2}×)",
            past_export / head_export
        ),
    );
    let back = String::from_utf8(
        std::process::Command::new("git")
            .args(["-C"])
            .arg(data.join("repo"))
            .args(["rev-parse", "HEAD~1000"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let (_, p50) = timed(&base, &format!("{PROJECT}/changes?since={}", back.trim()), 11);
    row("changes since 1,000 commits back, p50", format!("{p50:.1} ms"));
    row("RSS before the restart", format!("{:.0} MB", server.rss_mb()));

    server.stop();
    let (server, startup) = Server::start(&data, "os");
    let started = Instant::now();
    let (status, _) = http(&server.base, "GET", &format!("{PROJECT}/keys?limit=1"), None);
    assert_eq!(status, 200);
    row(
        "start-up to listening / to the first query answered",
        format!(
            "{:.2} s / {:.2} s",
            startup.as_secs_f64(),
            (startup + started.elapsed()).as_secs_f64()
        ),
    );
    let started = Instant::now();
    let (status, _) = http(&server.base, "GET", &format!("{PROJECT}/keys/{hot}/history"), None);
    assert_eq!(status, 200);
    row(
        "first key history after the restart (waits for the index being built)",
        format!("{:.1} s", started.elapsed().as_secs_f64()),
    );
    std::thread::sleep(Duration::from_millis(500));
    row(
        "RSS after the restart and the index",
        format!("{:.0} MB", server.rss_mb()),
    );
    server.stop();

    println!("| measure ({keys} keys × 5 languages, {commits} commits) | value |");
    println!("|---|---:|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
}
