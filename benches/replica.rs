//! Replication through a git remote, end to end with the release binary and `git daemon`:
//!
//!     cargo bench --bench replica    # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_SECONDS=20
//!
//! 1. Two primaries are seeded with the same keys (5 languages) by the bulk import: one
//!    without a remote, one pushing to a bare repository served by `git daemon` on loopback.
//! 2. A read replica starts from an empty directory (`--replica-of`, `--pull-interval 250ms`):
//!    the time until it answers a page of the project with every key (the clone included).
//!    Before it starts, eight clients update random keys on the primary without a remote and
//!    on the one with it, in alternating rounds (half the given seconds each, twice): changes
//!    per second, answer times, and CPU time per change of each primary (its `git push`
//!    runs included) and of the git daemon.
//! 3. The same load on the primary with the remote while the replica follows; meanwhile a
//!    probe writes a counter key every 50 ms on the primary, and reads it on the replica
//!    every 10 ms: the lag of each probe write is the time from its acknowledgement to the
//!    first read on the replica that shows it (primary -> git daemon -> replica).
//! 4. One import that changes 100 keys, as one commit: the replica's
//!    `locstore_remote_join_duration_seconds` for it (checking and taking the commit in: tree
//!    difference, working tree, catalog), and the time until the replica serves it.
//!
//! Prints a Markdown table.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

use support::{Server, cpu_seconds, http, key_name, seed};

/// A bare repository served by `git daemon` on a loopback port, pushes allowed.
struct GitDaemon {
    root: tempfile::TempDir,
    port: u16,
    child: Child,
}

impl GitDaemon {
    fn start() -> Self {
        let root = tempfile::tempdir().unwrap();
        git(root.path(), &["init", "-q", "--bare", "-b", "main", "strings.git"]);
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let exec_path = git(root.path(), &["--exec-path"]);
        let child = Command::new(Path::new(exec_path.trim()).join("git-daemon"))
            .args([
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
            ])
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", root.path().display()))
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon starts");
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { root, port, child }
    }

    fn url(&self) -> String {
        format!("git://127.0.0.1:{}/strings.git", self.port)
    }

    fn bare(&self) -> PathBuf {
        self.root.path().join("strings.git")
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git").args(args).current_dir(dir).output().unwrap();
    assert!(output.status.success(), "git {args:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The commit a server serves (`head` of `GET /sync`).
fn served_head(base: &str) -> String {
    let (_, body) = http(base, "GET", "/sync", None);
    let sync: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    sync["head"].as_str().unwrap_or_default().to_owned()
}

/// The value of a histogram's `_sum` and `_count` in a server's `/metrics`.
fn histogram(base: &str, name: &str) -> (f64, f64) {
    let (_, metrics) = http(base, "GET", "/metrics", None);
    let value = |suffix: &str| {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}{suffix} ")))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0.0)
    };
    (value("_sum"), value("_count"))
}

fn text_of(base: &str, key: &str) -> Option<String> {
    let (status, body) = http(base, "GET", &format!("/teams/acme/projects/big/keys/{key}"), None);
    if status != 200 {
        return None;
    }
    let key: serde_json::Value = serde_json::from_str(&body).ok()?;
    key["data"]["translation"]["en"].as_str().map(str::to_owned)
}

/// Eight clients updating random keys for `seconds`; returns the changes acknowledged, and
/// the time each took to be answered (in seconds).
fn update_load(base: &str, size: usize, seconds: u64, label: &str) -> (u64, Vec<f64>) {
    let done = Arc::new(AtomicU64::new(0));
    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let until = Instant::now() + Duration::from_secs(seconds);
    let clients: Vec<_> = (0..8u64)
        .map(|client| {
            let (base, done, label) = (base.to_owned(), done.clone(), label.to_owned());
            let latencies = latencies.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                let mut state = client.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                let mut count = 0u64;
                while Instant::now() < until {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let index = (state % size as u64) as usize;
                    let body =
                        format!(r#"{{"translations":[{{"language":"fr","content":"{label} {client} {count}"}}]}}"#);
                    let path = format!("/teams/acme/projects/big/keys/{}", key_name(index));
                    let sent = Instant::now();
                    let (status, answer) = http(&base, "PATCH", &path, Some(&body));
                    mine.push(sent.elapsed().as_secs_f64());
                    assert_eq!(status, 200, "{answer}");
                    count += 1;
                    done.fetch_add(1, Ordering::Relaxed);
                }
                latencies.lock().unwrap().extend(mine);
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let latencies = std::mem::take(&mut *latencies.lock().unwrap());
    (done.load(Ordering::Relaxed), latencies)
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

fn main() {
    let size: usize = std::env::var("LOCSTORE_BENCH_KEYS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let seconds: u64 = std::env::var("LOCSTORE_BENCH_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let daemon = GitDaemon::start();
    let mut rows: Vec<(String, String)> = Vec::new();

    let (alone, _) = Server::start_with(&dir.path().join("alone"), &[]);
    seed(&alone.base, size);
    let (primary, _) = Server::start_with(
        &dir.path().join("primary"),
        &["--remote", &daemon.url(), "--pull-interval", "10s"],
    );
    let seeding = Instant::now();
    seed(&primary.base, size);
    let seeded = served_head(&primary.base);
    while git(&daemon.bare(), &["rev-parse", "main"]).trim() != seeded {
        std::thread::sleep(Duration::from_millis(100));
    }
    rows.push((
        format!("seed {size} keys and push them (s)"),
        format!("{:.1}", seeding.elapsed().as_secs_f64()),
    ));
    alone.settle();
    primary.settle();

    // Writes without a remote and with one, in alternating rounds so that a drift of the
    // machine's speed falls on both (before the replica runs, so that only the pushes and the
    // git daemon share the two cores with the primary). The CPU time each used says how much
    // of the difference is the primary's own work and how much the git host's.
    let (mut without, mut pushing) = (0u64, 0u64);
    let (mut without_latencies, mut pushing_latencies) = (Vec::new(), Vec::new());
    let (mut alone_cpu, mut primary_cpu, mut daemon_cpu) = (0.0, 0.0, 0.0);
    let mut catching_up = Duration::ZERO;
    let rounds = 2;
    let round_seconds = (seconds / rounds).max(1);
    for _ in 0..rounds {
        let before = alone.cpu_seconds();
        let (count, latencies) = update_load(&alone.base, size, round_seconds, "alone");
        without += count;
        without_latencies.extend(latencies);
        alone_cpu += alone.cpu_seconds() - before;
        alone.settle();
        let (before, daemon_before) = (primary.cpu_seconds(), cpu_seconds(daemon.child.id()));
        let (count, latencies) = update_load(&primary.base, size, round_seconds, "pushing");
        pushing += count;
        pushing_latencies.extend(latencies);
        primary_cpu += primary.cpu_seconds() - before;
        daemon_cpu += cpu_seconds(daemon.child.id()) - daemon_before;
        let head = served_head(&primary.base);
        let caught_up = Instant::now();
        while git(&daemon.bare(), &["rev-parse", "main"]).trim() != head {
            std::thread::sleep(Duration::from_millis(20));
        }
        catching_up = catching_up.max(caught_up.elapsed());
        primary.settle();
    }
    let measured = (round_seconds * rounds) as f64;
    rows.push((
        format!("updates/s, 8 clients, primary without a remote / with one ({rounds} rounds each, alternating)"),
        format!("{:.0} / {:.0}", without as f64 / measured, pushing as f64 / measured),
    ));
    without_latencies.sort_by(f64::total_cmp);
    pushing_latencies.sort_by(f64::total_cmp);
    rows.push((
        "update answered in, p50 / p99 (ms): primary without a remote; with one".into(),
        format!(
            "{:.1} / {:.1}; {:.1} / {:.1}",
            percentile(&without_latencies, 0.5) * 1000.0,
            percentile(&without_latencies, 0.99) * 1000.0,
            percentile(&pushing_latencies, 0.5) * 1000.0,
            percentile(&pushing_latencies, 0.99) * 1000.0
        ),
    ));
    rows.push((
        "CPU ms per update: primary without a remote / with one (its pushes included) / the git daemon".into(),
        format!(
            "{:.2} / {:.2} / {:.2}",
            alone_cpu * 1000.0 / without.max(1) as f64,
            primary_cpu * 1000.0 / pushing.max(1) as f64,
            daemon_cpu * 1000.0 / pushing.max(1) as f64
        ),
    ));
    drop(alone);
    rows.push((
        "remote up to date after the load, the longer of the rounds (s)".into(),
        format!("{:.2}", catching_up.as_secs_f64()),
    ));

    // A replica from an empty directory: clone, load, first full answer.
    let started = Instant::now();
    let (replica, _) = Server::start_with(
        &dir.path().join("replica"),
        &["--replica-of", &daemon.url(), "--pull-interval", "250ms"],
    );
    let listening = started.elapsed();
    loop {
        let (status, body) = http(&replica.base, "GET", "/teams/acme/projects/big", None);
        if status == 200 && body.contains("\"big\"") {
            let (status, _) = http(
                &replica.base,
                "GET",
                &format!("/teams/acme/projects/big/keys/{}", key_name(size - 1)),
                None,
            );
            if status == 200 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    rows.push((
        format!("replica from an empty directory: listening / first query with all {size} keys (s)"),
        format!(
            "{:.2} / {:.2}",
            listening.as_secs_f64(),
            started.elapsed().as_secs_f64()
        ),
    ));
    rows.push((
        "replica RSS after its first query (MB)".into(),
        format!("{:.0}", replica.rss_mb()),
    ));
    replica.settle();

    // Writes on the primary while the probe measures the replica's lag.
    let probe = "probe.lag";
    let (status, answer) = http(
        &primary.base,
        "POST",
        "/teams/acme/projects/big/keys",
        Some(&format!(
            r#"{{"name":"{probe}","translations":[{{"language":"en","content":"0"}}]}}"#
        )),
    );
    assert_eq!(status, 201, "{answer}");
    while text_of(&replica.base, probe).is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let sent: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let lags: Arc<Mutex<Vec<f64>>> = Arc::default();
    let prober = {
        let (base, stop, sent) = (primary.base.clone(), stop.clone(), sent.clone());
        std::thread::spawn(move || {
            let mut value = 0usize;
            while !stop.load(Ordering::Relaxed) {
                value += 1;
                let body = format!(r#"{{"translations":[{{"language":"en","content":"{value}"}}]}}"#);
                let (status, _) = http(
                    &base,
                    "PATCH",
                    &format!("/teams/acme/projects/big/keys/{probe}"),
                    Some(&body),
                );
                assert_eq!(status, 200);
                sent.lock().unwrap().push(Instant::now());
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let watcher = {
        let (base, stop, sent, lags) = (replica.base.clone(), stop.clone(), sent.clone(), lags.clone());
        std::thread::spawn(move || {
            let mut seen = 0usize;
            loop {
                let finished = stop.load(Ordering::Relaxed);
                let value: usize = text_of(&base, probe).and_then(|text| text.parse().ok()).unwrap_or(0);
                let now = Instant::now();
                let sent = sent.lock().unwrap();
                if value > seen {
                    for acknowledged in &sent[seen..value.min(sent.len())] {
                        lags.lock()
                            .unwrap()
                            .push(now.duration_since(*acknowledged).as_secs_f64());
                    }
                    seen = value.min(sent.len());
                }
                if finished && seen >= sent.len() {
                    return;
                }
                drop(sent);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let (joins_before, joined_before) = histogram(&replica.base, "locstore_remote_join_duration_seconds");
    let pushes_before = histogram(&primary.base, "locstore_remote_push_duration_seconds");
    let fetches_before = histogram(&replica.base, "locstore_remote_fetch_duration_seconds");
    let (with, _) = update_load(&primary.base, size, seconds, "primary");
    stop.store(true, Ordering::Relaxed);
    prober.join().unwrap();
    watcher.join().unwrap();
    let (joins_after, joined_after) = histogram(&replica.base, "locstore_remote_join_duration_seconds");
    let pushes_after = histogram(&primary.base, "locstore_remote_push_duration_seconds");
    let fetches_after = histogram(&replica.base, "locstore_remote_fetch_duration_seconds");
    let probes = sent.lock().unwrap().len();
    rows.push((
        "updates/s, 8 clients, primary with a remote and a replica following (+ 20 probe writes/s)".into(),
        format!("{:.0}", (with + probes as u64) as f64 / seconds as f64),
    ));
    let mut lags = lags.lock().unwrap().clone();
    lags.sort_by(f64::total_cmp);
    rows.push((
        format!("replica lag of {} probe writes: p50 / p99 / max (s)", lags.len()),
        format!(
            "{:.2} / {:.2} / {:.2}",
            percentile(&lags, 0.5),
            percentile(&lags, 0.99),
            lags.last().copied().unwrap_or(f64::NAN)
        ),
    ));
    let joins = joined_after - joined_before;
    rows.push((
        "replica joins under load: count / mean (ms)".into(),
        format!(
            "{joins:.0} / {:.1}",
            (joins_after - joins_before) / joins.max(1.0) * 1000.0
        ),
    ));
    // (sum, count) before and after: how many, and their mean in milliseconds.
    let count_and_mean = |(sum_before, count_before): (f64, f64), (sum_after, count_after): (f64, f64)| {
        let count = count_after - count_before;
        format!("{count:.0} / {:.1}", (sum_after - sum_before) / count.max(1.0) * 1000.0)
    };
    rows.push((
        "primary's pushes under load: count / mean (ms)".into(),
        count_and_mean(pushes_before, pushes_after),
    ));
    rows.push((
        "replica's fetches under load: count / mean (ms)".into(),
        count_and_mean(fetches_before, fetches_after),
    ));

    // One commit of 100 changed keys.
    primary.settle();
    replica.settle();
    let keys: Vec<String> = (0..100)
        .map(|index| {
            format!(
                r#"{{"name":"{}","translations":[{{"language":"de","content":"hundert {index}"}}]}}"#,
                key_name(index * (size / 100))
            )
        })
        .collect();
    let body = format!(r#"{{"mode":"upsert","keys":[{}]}}"#, keys.join(","));
    let (sum_before, count_before) = histogram(&replica.base, "locstore_remote_join_duration_seconds");
    let started = Instant::now();
    let (status, answer) = http(
        &primary.base,
        "POST",
        "/teams/acme/projects/big/keys/import",
        Some(&body),
    );
    assert_eq!(status, 200, "{answer}");
    let head = served_head(&primary.base);
    while served_head(&replica.base) != head {
        std::thread::sleep(Duration::from_millis(5));
    }
    let served_after = started.elapsed();
    let (sum_after, count_after) = histogram(&replica.base, "locstore_remote_join_duration_seconds");
    rows.push((
        "a commit of 100 keys: replica join (ms) / served after (s)".into(),
        format!(
            "{:.1} (of {:.0} joins) / {:.2}",
            (sum_after - sum_before) * 1000.0,
            count_after - count_before,
            served_after.as_secs_f64()
        ),
    ));

    println!("| measure ({size} keys × 5 languages, {seconds} s of load) | value |");
    println!("|---|---:|");
    for (measure, value) in rows {
        println!("| {measure} | {value} |");
    }
}
