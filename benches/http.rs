//! End-to-end HTTP benchmark of the release binary with a real load generator (wrk).
//!
//!     apt-get install wrk            # once
//!     cargo bench --bench http       # LOCSTORE_BENCH_SIZES=1000,100000 LOCSTORE_BENCH_SECONDS=5
//!                                    # LOCSTORE_BENCH_LANGUAGES=1 (of 5)
//!
//! For each project size it starts `locstore serve` on a temporary data directory, seeds the
//! keys (5 languages) with the bulk import, and measures: GET a page, a keyword search that
//! matches about 1% of the keys, a late page, GET one key, creates on 1 and 8 connections
//! (durability fsync, then os on 1), updates on 8 connections, each export type, the start-up
//! time to the first answer, RSS and the size of `.git`. It prints a Markdown table with the
//! throughput relative to `/healthz` (the HTTP floor) and to the smallest project size.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod support;

use support::{Server, TOKEN, http, key_name};

/// Runs wrk; returns requests per second and the median latency in milliseconds.
fn wrk(url: &str, connections: usize, seconds: u64, script: Option<&Path>) -> (f64, f64) {
    let mut command = Command::new("wrk");
    command
        .args([
            "--latency",
            "-t",
            &connections.min(2).to_string(),
            "-c",
            &connections.to_string(),
            "-d",
        ])
        .arg(format!("{seconds}s"))
        .args(["-H", &format!("X-Api-Token: {TOKEN}")]);
    if let Some(script) = script {
        command.arg("-s").arg(script);
    }
    let output = command.arg(url).output().expect("wrk runs (apt-get install wrk)");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("Non-2xx"), "{url} answered errors:\n{text}");
    let rps = text
        .lines()
        .find_map(|line| line.strip_prefix("Requests/sec:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0.0);
    let p50 = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("50%"))
        .map(|value| parse_duration_ms(value.trim()))
        .unwrap_or(0.0);
    (rps, p50)
}

fn parse_duration_ms(value: &str) -> f64 {
    let split = value.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(value.len());
    let number: f64 = value[..split].parse().unwrap_or(0.0);
    match &value[split..] {
        "us" => number / 1000.0,
        "ms" => number,
        "s" => number * 1000.0,
        "m" => number * 60_000.0,
        _ => number,
    }
}

fn lua(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

fn directory_mb(dir: &Path) -> f64 {
    fn walk(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| match entry.file_type() {
                        Ok(kind) if kind.is_dir() => walk(&entry.path()),
                        Ok(_) => entry.metadata().map(|meta| meta.len()).unwrap_or(0),
                        Err(_) => 0,
                    })
                    .sum()
            })
            .unwrap_or(0)
    }
    walk(dir) as f64 / (1024.0 * 1024.0)
}

/// Measurements of one project size: name to (value, unit).
type Results = BTreeMap<&'static str, (f64, f64)>;

fn run(size: usize, seconds: u64) -> (Results, BTreeMap<&'static str, f64>) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (server, _) = Server::start(&data, "fsync");
    let base = server.base.clone();
    let seeding = Instant::now();
    // `LOCSTORE_BENCH_LANGUAGES=1` seeds the first language only (the issue's RSS at 100,000
    // keys × 1 language); the default is all five.
    let languages: usize = std::env::var("LOCSTORE_BENCH_LANGUAGES")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(support::LANGUAGES.len())
        .clamp(1, support::LANGUAGES.len());
    support::seed_with(&base, size, &support::LANGUAGES[..languages], 20_000, |code, index| {
        format!("{code} text number {index} for the screen {}", index % 500)
    });
    eprintln!("seeded {size} keys in {:.1} s", seeding.elapsed().as_secs_f64());
    // Let the server go idle (it then brings the git index in line) and write the seeding's
    // 100,000 new files out, so that their writeback is not charged to the first scenario
    // that syncs to disk.
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: sync takes no arguments and has no preconditions.
    unsafe { libc::sync() };
    let scripts = dir.path();
    // One script per scenario, each with its own name prefix, so that no two runs create the
    // same key.
    let create = |prefix: &str| {
        lua(
            scripts,
            &format!("create-{prefix}.lua"),
            &format!(
                r#"counter = 0
local next_id = 0
setup = function(thread) thread:set("id", next_id); next_id = next_id + 1 end
request = function()
  counter = counter + 1
  local body = string.format('{{"name":"{prefix}.%d.%d","translations":[{{"language":"en","content":"new %d"}}]}}', id, counter, counter)
  return wrk.format("POST", nil, {{["Content-Type"]="application/json", ["X-Api-Token"]="bench-token"}}, body)
end"#
            ),
        )
    };
    let update = lua(
        scripts,
        "update.lua",
        &format!(
            r#"counter = 0
request = function()
  counter = counter + 1
  local index = math.random(0, {max})
  local path = string.format("/teams/acme/projects/big/keys/screen%d.item%d.label", index % 500, index)
  local body = string.format('{{"translations":[{{"language":"{language}","content":"changed %d"}}]}}', counter)
  return wrk.format("PATCH", path, {{["Content-Type"]="application/json", ["X-Api-Token"]="bench-token"}}, body)
end"#,
            max = size - 1,
            // French, or the one language of a one-language run.
            language = if languages > 1 { "fr" } else { "en" },
        ),
    );
    // A keyword matching ~1% of the keys, a different one per request (90 in turn: more than
    // the server's cache of recent searches keeps, so most requests scan every key), each on
    // one of its first 20 pages: 1,800 pages, far more than the server keeps (256), so the
    // kept pages seldom answer.
    let varied_keyword = lua(
        scripts,
        "keyword.lua",
        r#"request = function()
  local path = string.format("/teams/acme/projects/big/keys?keyword=item%d&page=%d", math.random(10, 99), math.random(1, 20))
  return wrk.format("GET", path, {["X-Api-Token"]="bench-token"})
end"#,
    );
    let keys = format!("{base}/teams/acme/projects/big/keys");
    let mut results = Results::new();
    let mut single = BTreeMap::new();
    results.insert(
        "GET /healthz (8 conn)",
        wrk(&format!("{base}/healthz"), 8, seconds, None),
    );
    results.insert(
        "GET page 1 (8 conn)",
        wrk(&format!("{keys}?page=1&limit=20"), 8, seconds, None),
    );
    results.insert(
        "keyword ~1% (8 conn)",
        wrk(&format!("{keys}?keyword=item42"), 8, seconds, None),
    );
    results.insert(
        "keyword ~1%, a new one each time (8 conn)",
        wrk(&keys, 8, seconds, Some(&varied_keyword)),
    );
    results.insert(
        "late page (8 conn)",
        wrk(&format!("{keys}?page={}&limit=20", size / 20), 8, seconds, None),
    );
    results.insert(
        "GET one key (8 conn)",
        wrk(&format!("{keys}/{}", key_name(size / 2)), 8, seconds, None),
    );
    results.insert(
        "create, fsync (1 conn)",
        wrk(&keys, 1, seconds, Some(&create("fsync1"))),
    );
    results.insert(
        "create, fsync (8 conn)",
        wrk(&keys, 8, seconds, Some(&create("fsync8"))),
    );
    results.insert("update, fsync (8 conn)", wrk(&keys, 8, seconds, Some(&update)));
    for (name, query) in [
        ("export json, 1 language (s)", "type=json&languages=en"),
        ("export android-xml, 5 languages (s)", "type=android-xml"),
    ] {
        let started = Instant::now();
        let (status, body) = http(
            &base,
            "GET",
            &format!("/teams/acme/projects/big/keys/export?{query}"),
            None,
        );
        assert_eq!(status, 200, "{body}");
        single.insert(name, started.elapsed().as_secs_f64());
    }
    // Top up to 10,000 changes since the import (8 connections of creates), let maintenance
    // finish, then weigh `.git`.
    let changes = || -> usize {
        let repo = data.join("repo");
        let output = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["rev-list", "--count", "HEAD"])
            .output()
            .expect("git runs");
        let commits: usize = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap_or(0);
        // The template, the team, the project and the import commits are not changes.
        commits.saturating_sub(3 + size.div_ceil(20_000))
    };
    let mut topped_up = 0;
    while changes() < 10_000 && topped_up < 60 {
        wrk(&keys, 8, 2, Some(&create(&format!("fill{topped_up}"))));
        topped_up += 1;
    }
    single.insert("changes since the import", changes() as f64);
    std::thread::sleep(Duration::from_secs(5));
    single.insert("RSS after the run (MB)", server.rss_mb());
    server.stop();
    single.insert(
        ".git size after the changes (MB)",
        directory_mb(&data.join("repo/.git")),
    );

    // Start-up to the first answer of a query (the page cache is as warm as the machine left it;
    // run `sync; echo 3 > /proc/sys/vm/drop_caches` before for a cold figure).
    let started = Instant::now();
    let (server, _) = Server::start(&data, "os");
    let (status, _) = http(&server.base, "GET", "/teams/acme/projects/big/keys?keyword=item4", None);
    assert_eq!(status, 200);
    single.insert("start-up to first query (s)", started.elapsed().as_secs_f64());
    single.insert("RSS after start-up and one query (MB)", server.rss_mb());
    results.insert(
        "create, os (1 conn)",
        wrk(&keys.replace(&base, &server.base), 1, seconds, Some(&create("os1"))),
    );
    server.stop();
    (results, single)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("LOCSTORE_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,100000".into())
        .split(',')
        .map(|size| size.trim().parse().expect("sizes are numbers"))
        .collect();
    let seconds: u64 = std::env::var("LOCSTORE_BENCH_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(5);
    let runs: Vec<(usize, Results, BTreeMap<&str, f64>)> = sizes
        .iter()
        .map(|&size| {
            let (results, single) = run(size, seconds);
            (size, results, single)
        })
        .collect();

    let (first_size, first, _) = &runs[0];
    println!("| scenario | keys | req/s | p50 ms | vs /healthz | vs {first_size} keys |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (size, results, _) in &runs {
        let floor = results["GET /healthz (8 conn)"].0;
        for (name, (rps, p50)) in results {
            let versus_small = first.get(name).map(|(small, _)| rps / small).unwrap_or(f64::NAN);
            println!(
                "| {name} | {size} | {rps:.0} | {p50:.2} | {:.2} | {versus_small:.2} |",
                rps / floor
            );
        }
    }
    println!();
    println!("| measurement | keys | value |");
    println!("|---|---:|---:|");
    for (size, _, single) in &runs {
        for (name, value) in single {
            println!("| {name} | {size} | {value:.2} |");
        }
    }
}
