//! Webhook deliveries with the release binary and receivers on loopback.
//!
//!     cargo bench --bench webhooks      # LOCSTORE_BENCH_SECONDS=5 LOCSTORE_BENCH_BACKLOG=10000
//!                                       # LOCSTORE_BENCH_ROUNDS=10 LOCSTORE_BENCH_CONNECTIONS=8
//!                                       # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!                                       # LOCSTORE_BENCH_RECEIVER_NICE=19
//!                                       # LOCSTORE_BENCH_BINARY=/tmp/old/locstore
//!                                       # LOCSTORE_BENCH_SERVER_LOG=/tmp/server.log
//!                                       # LOCSTORE_BENCH_RUST_LOG=warn,locstore::gitdb=debug
//!                                       # LOCSTORE_BENCH_FILTERED=1
//!
//! Measures, on a project of 1,000 keys:
//! - writes per second (creates on 8 connections, or `LOCSTORE_BENCH_CONNECTIONS`, durability
//!   fsync) with no webhook and with three, each with a healthy receiver, in turns (ten
//!   rounds of two 5-second phases by default, the order of the two swapped every round: on
//!   this 2-core virtual machine two phases of the same code differ by up to ten points, so
//!   many short pairs say more than a few long ones);
//!   `LOCSTORE_BENCH_RECEIVER_NICE` lowers the receivers' priority, to stand for receivers on
//!   other machines; with `LOCSTORE_BENCH_FILTERED=1` the three webhooks take only a project
//!   that does not exist, so they follow the branch and deliver nothing (what following costs
//!   without the HTTP), and the bench stops after the rounds;
//! - the time from a write's answer to its delivery, with one webhook, while creates come at
//!   400 a second (p50, p99, max);
//! - how long a backlog of 10,000 commits takes to drain: the webhook is turned off, the
//!   commits are made, it is turned on again and the clock runs until the receiver has all;
//! - where the CPU went in each phase, in µs per write: the server's threads by group (exact,
//!   from `/proc/<pid>/task/*/schedstat`), the git processes it waited for (maintenance, the
//!   history's `git log`; counted when reaped, so a run is charged to the phase it ends in),
//!   the time the writer was ready but waited for a core, the bench's own CPU (its clients and
//!   receivers), and the machine's idle and stolen time (of all its cores).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "../tests/api/receiver.rs"]
mod receiver;
mod support;

use receiver::Receiver;
use support::{Server, http, seed};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn create_webhook(server: &Server, receiver: &Receiver, filtered: bool) -> String {
    let projects = if filtered { r#","projects":["elsewhere"]"# } else { "" };
    let (status, answer) = http(
        &server.base,
        "POST",
        "/teams/acme/webhooks",
        Some(&format!(r#"{{"url":"{}"{projects}}}"#, receiver.url)),
    );
    assert_eq!(status, 201, "{answer}");
    let created: serde_json::Value = serde_json::from_str(&answer).unwrap();
    created["data"]["id"].as_str().unwrap().to_owned()
}

/// Waits until the webhook `id` has gone through every commit (two minutes at most).
fn wait_caught_up(server: &Server, id: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (status, answer) = http(&server.base, "GET", &format!("/teams/acme/webhooks/{id}"), None);
        assert_eq!(status, 200, "{answer}");
        let view: serde_json::Value = serde_json::from_str(&answer).unwrap();
        if view["data"]["backlog"] == 0 || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A client with a connection of its own, kept open between requests, as the CLI's and any
/// HTTP library's are (a connection per request cost the bench and the server's handlers
/// about 45 µs more CPU per write, on the same two cores).
struct Client {
    agent: ureq::Agent,
    url: String,
}

impl Client {
    fn new(base: &str) -> Self {
        Self {
            agent: ureq::Agent::new_with_defaults(),
            url: format!("{base}/teams/acme/projects/big/keys"),
        }
    }

    fn create(&self, name: &str) {
        let body = format!(r#"{{"name":"{name}","translations":[{{"language":"en","content":"{name}"}}]}}"#);
        let mut answer = self
            .agent
            .post(&self.url)
            .header("x-api-token", support::TOKEN)
            .header("content-type", "application/json")
            .send(body.as_bytes())
            .unwrap_or_else(|err| panic!("creating {name}: {err}"));
        assert_eq!(answer.status().as_u16(), 201);
        answer.body_mut().read_to_vec().unwrap();
    }
}

/// Creates on `connections` threads for `seconds`; answers writes per second and how many.
fn writes_per_second(base: &str, prefix: &str, connections: usize, seconds: u64) -> (f64, usize) {
    let done = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|thread| {
            let (base, prefix, done, stop) = (base.to_owned(), prefix.to_owned(), done.clone(), stop.clone());
            std::thread::Builder::new()
                .name("client".into())
                .spawn(move || {
                    let client = Client::new(&base);
                    let mut index = 0;
                    while !stop.load(Ordering::Relaxed) {
                        client.create(&format!("{prefix}.t{thread}.k{index}"));
                        done.fetch_add(1, Ordering::Relaxed);
                        index += 1;
                    }
                })
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for thread in threads {
        thread.join().unwrap();
    }
    let done = done.load(Ordering::Relaxed);
    (done as f64 / started.elapsed().as_secs_f64(), done)
}

/// CPU time (ms) the server spent, by thread group, and the machine's idle time, read from
/// `/proc` before and after a phase.
#[derive(Default, Clone)]
struct Cpu {
    by_group: std::collections::BTreeMap<String, f64>,
}

impl Cpu {
    fn read(pid: u32) -> Self {
        let tick = 1000.0 / 100.0; // ms per clock tick (USER_HZ is 100 on Linux)
        let mut cpu = Self::default();
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten();
        for task in tasks.flatten() {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
                continue;
            };
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
                continue;
            };
            let name = &stat[open + 1..close];
            let group = if name.starts_with("locstore-webhoo") {
                "webhooks"
            } else if name.starts_with("tokio") {
                "http"
            } else if name == "locstore-writer" {
                "writer"
            } else {
                "other threads"
            };
            let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
            // Time on a CPU and time ready but waiting for one, in ns, exact (`stat`'s ticks
            // are sampled).
            let schedstat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            let mut times = schedstat.split(' ').map(|ns| ns.parse::<f64>().unwrap_or(0.0));
            let (on_cpu, waiting) = (times.next().unwrap_or(0.0), times.next().unwrap_or(0.0));
            *cpu.by_group.entry(group.to_owned()).or_default() += on_cpu / 1e6;
            if group == "writer" {
                *cpu.by_group.entry("writer waiting for a core".to_owned()).or_default() += waiting / 1e6;
            }
            if task.file_name().to_string_lossy() == pid.to_string() {
                // The main task's line also counts the children waited for: git.
                let children: f64 = fields[13].parse::<f64>().unwrap_or(0.0) + fields[14].parse::<f64>().unwrap_or(0.0);
                *cpu.by_group.entry("git (children)".to_owned()).or_default() += children * tick;
            }
        }
        // The bench's own CPU, its ended threads included: the clients, and the receivers
        // (which stand for other machines).
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat")
            && let Some(close) = stat.rfind(')')
        {
            let fields: Vec<f64> = stat[close + 2..]
                .split(' ')
                .map(|field| field.parse().unwrap_or(0.0))
                .collect();
            cpu.by_group.insert(
                "bench (clients, receivers)".to_owned(),
                (fields[11] + fields[12]) * tick,
            );
        }
        if let Ok(stat) = std::fs::read_to_string("/proc/stat")
            && let Some(line) = stat.lines().next()
        {
            let ticks: Vec<f64> = line
                .split_whitespace()
                .skip(1)
                .map(|ticks| ticks.parse().unwrap_or(0.0))
                .collect();
            cpu.by_group
                .insert("machine idle".to_owned(), ticks.get(3).unwrap_or(&0.0) * tick);
            // Time the hypervisor gave the machine's cores to others.
            cpu.by_group
                .insert("machine steal".to_owned(), ticks.get(7).unwrap_or(&0.0) * tick);
        }
        cpu
    }

    /// What was spent since `before`, in µs per write.
    fn per_write(&self, before: &Self, writes: usize) -> String {
        self.by_group
            .iter()
            .map(|(group, ms)| {
                let spent = ms - before.by_group.get(group).copied().unwrap_or(0.0);
                format!("{group} {:.0}", spent * 1000.0 / writes.max(1) as f64)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * fraction).round() as usize]
}

fn main() {
    let seconds = env_number("LOCSTORE_BENCH_SECONDS", 5) as u64;
    let backlog = env_number("LOCSTORE_BENCH_BACKLOG", 10_000);
    let rounds = env_number("LOCSTORE_BENCH_ROUNDS", 10);
    let connections = env_number("LOCSTORE_BENCH_CONNECTIONS", 8);
    let filtered = env_number("LOCSTORE_BENCH_FILTERED", 0) != 0;
    let dir = support::data_dir();
    let (server, _) = Server::start(dir.path(), "fsync");
    seed(&server.base, 1_000);
    server.settle();
    println!("| scenario | figure |\n|---|---:|");

    // Writes per second without and with three webhooks, in turns (the machine's speed
    // drifts, and a repack may run in one phase and not the other): each phase starts on a
    // quiet server, the three webhooks are made at its start and deleted once they caught up.
    let receivers: Vec<Receiver> = (0..3).map(|_| Receiver::start()).collect();
    let mut ids: Vec<String>;
    let mut ratios = Vec::new();
    // Creates/s summed over the rounds, alone and with three (each phase lasts as long).
    let mut totals = (0.0, 0.0);
    for round in 0..rounds {
        // Alone then with three in even rounds, the other way round in odd ones: the writes
        // drift down through a run (on ext4 without a journal, as this machine's disk is, the
        // inode allocator looks past every inode freed in the last minute when it makes a
        // file), so a fixed order would charge one phase for the drift.
        let three_first = round % 2 == 1;
        let mut alone = 0.0;
        let mut with_three = 0.0;
        for with_webhooks in [three_first, !three_first] {
            server.settle();
            if !with_webhooks {
                let before = Cpu::read(server.child.id());
                let writes;
                (alone, writes) = writes_per_second(&server.base, &format!("alone{round}"), connections, seconds);
                let spent = Cpu::read(server.child.id()).per_write(&before, writes);
                println!("| round {round}: CPU µs per write, no webhook | {spent} |");
                continue;
            }
            ids = receivers
                .iter()
                .map(|receiver| create_webhook(&server, receiver, filtered))
                .collect();
            let before: Vec<usize> = receivers.iter().map(|receiver| receiver.acknowledged().len()).collect();
            let three;
            let before_cpu = Cpu::read(server.child.id());
            (with_three, three) = writes_per_second(&server.base, &format!("three{round}"), connections, seconds);
            let spent = Cpu::read(server.child.id()).per_write(&before_cpu, three);
            println!("| round {round}: CPU µs per write, 3 webhooks | {spent} |");
            if filtered {
                for id in &ids {
                    wait_caught_up(&server, id);
                }
            } else {
                for (receiver, before) in receivers.iter().zip(&before) {
                    receiver.wait_for(Duration::from_secs(120), |got| got.len() >= before + three);
                }
            }
            for id in &ids {
                assert_eq!(
                    http(&server.base, "DELETE", &format!("/teams/acme/webhooks/{id}"), None).0,
                    200
                );
            }
        }
        println!("| round {round}: creates/s, {connections} connections, no webhook | {alone:.0} |");
        println!(
            "| round {round}: creates/s, {connections} connections, 3 webhooks | {with_three:.0} ({:+.1}%) |",
            (with_three / alone - 1.0) * 100.0
        );
        ratios.push(with_three / alone);
        totals = (totals.0 + alone, totals.1 + with_three);
    }
    // No rounds (`LOCSTORE_BENCH_ROUNDS=0`): only the latency and the backlog are measured.
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        // With an even number of rounds, the mean of the two middle ones (the upper one
        // alone, as this printed until session 26, flattered the webhooks).
        let middle = ratios.len() / 2;
        let median = if ratios.len() % 2 == 0 {
            (ratios[middle - 1] + ratios[middle]) / 2.0
        } else {
            ratios[middle]
        };
        println!(
            "| median change of creates/s with 3 webhooks | {:+.1}% |",
            (median - 1.0) * 100.0
        );
        println!(
            "| change of creates/s with 3 webhooks, all rounds together | {:+.1}% |",
            (totals.1 / totals.0 - 1.0) * 100.0
        );
        println!(
            "| change of creates/s with 3 webhooks, the rounds from / to | {:+.1}% / {:+.1}% |",
            (ratios[0] - 1.0) * 100.0,
            (ratios[ratios.len() - 1] - 1.0) * 100.0
        );
    }
    if filtered {
        return;
    }
    ids = receivers
        .iter()
        .map(|receiver| create_webhook(&server, receiver, false))
        .collect::<Vec<_>>();
    for id in &ids[1..] {
        assert_eq!(
            http(&server.base, "DELETE", &format!("/teams/acme/webhooks/{id}"), None).0,
            200
        );
    }
    let receiver = &receivers[0];
    let before = receiver.acknowledged().len();

    // Latency from a write's answer to its delivery, at 400 writes a second.
    let rate = 400;
    let total = rate * seconds as usize;
    let answered: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let before_cpu = Cpu::read(server.child.id());
    let started = Instant::now();
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let (base, answered) = (server.base.clone(), answered.clone());
            std::thread::spawn(move || {
                let client = Client::new(&base);
                for index in (thread..total).step_by(8) {
                    let due = started + Duration::from_secs_f64(index as f64 / rate as f64);
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    let name = format!("paced.k{index}");
                    client.create(&name);
                    answered.lock().unwrap().insert(name, Instant::now());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let achieved = total as f64 / started.elapsed().as_secs_f64();
    let got = receiver.wait_for(Duration::from_secs(120), |got| got.len() >= before + total);
    let answered = answered.lock().unwrap();
    let mut latencies: Vec<f64> = got[before..]
        .iter()
        .filter_map(|received| {
            let key = received.json()["data"]["events"][0]["key"].as_str()?.to_owned();
            let answered = answered.get(&key)?;
            Some(received.arrived.saturating_duration_since(*answered).as_secs_f64() * 1000.0)
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    assert_eq!(latencies.len(), total);
    println!("| paced creates/s achieved | {achieved:.0} |");
    println!(
        "| paced: CPU µs per write, 1 webhook | {} |",
        Cpu::read(server.child.id()).per_write(&before_cpu, total)
    );
    println!("| answer → delivery p50 ms | {:.1} |", percentile(&latencies, 0.5));
    println!("| answer → delivery p99 ms | {:.1} |", percentile(&latencies, 0.99));
    println!("| answer → delivery max ms | {:.1} |", percentile(&latencies, 1.0));

    // A backlog drained.
    let hook = format!("/teams/acme/webhooks/{}", ids[0]);
    assert_eq!(http(&server.base, "PATCH", &hook, Some(r#"{"enabled":false}"#)).0, 200);
    let before = receiver.acknowledged().len();
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (base, next) = (server.base.clone(), next.clone());
            std::thread::spawn(move || {
                let client = Client::new(&base);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= backlog {
                        return;
                    }
                    client.create(&format!("backlog.k{index}"));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let making = started.elapsed();
    let before_cpu = Cpu::read(server.child.id());
    let started = Instant::now();
    assert_eq!(http(&server.base, "PATCH", &hook, Some(r#"{"enabled":true}"#)).0, 200);
    receiver.wait_for(Duration::from_secs(600), |got| got.len() >= before + backlog);
    let drained = started.elapsed();
    println!(
        "| backlog of {backlog} commits made in s | {:.1} |",
        making.as_secs_f64()
    );
    println!(
        "| backlog of {backlog} commits drained in s | {:.1} |",
        drained.as_secs_f64()
    );
    println!(
        "| deliveries/s while draining | {:.0} |",
        backlog as f64 / drained.as_secs_f64()
    );
    println!(
        "| draining: CPU µs per delivery | {} |",
        Cpu::read(server.child.id()).per_write(&before_cpu, backlog)
    );
}
