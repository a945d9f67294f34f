//! A webhook receiver for the tests: a small HTTP/1.1 server on a loopback port, on threads of
//! its own (so async and blocking tests alike can use it), that records every request and
//! answers 200, or 500 while it is told to fail. `benches/webhooks.rs` uses it too.
#![allow(dead_code, reason = "the tests and the bench each use a part")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One request as the receiver got it.
#[derive(Debug, Clone)]
pub struct Received {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
    pub body: Vec<u8>,
    /// What the receiver answered.
    pub status: u16,
    /// When the request had arrived whole.
    pub arrived: Instant,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// The commit a `locstore.commit` delivery carries.
    pub fn commit(&self) -> String {
        self.json()["data"]["commit"].as_str().unwrap_or_default().to_owned()
    }
}

#[derive(Default)]
struct State {
    got: Mutex<Vec<Received>>,
    /// Requests still to answer with 500.
    fail_next: AtomicUsize,
    /// Answer 500 to everything while set.
    failing: AtomicBool,
    /// Wait this long before answering.
    delay_ms: AtomicU64,
}

pub struct Receiver {
    pub url: String,
    state: Arc<State>,
}

impl Receiver {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let state = Arc::new(State::default());
        let accepting = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let state = accepting.clone();
                std::thread::Builder::new()
                    .name("receiver".into())
                    .spawn(move || {
                        lower_priority_if_asked();
                        serve(stream, &state)
                    })
                    .unwrap();
            }
        });
        Self { url, state }
    }

    /// Answers the next `count` requests with 500.
    pub fn fail_next(&self, count: usize) {
        self.state.fail_next.store(count, Ordering::SeqCst);
    }

    pub fn set_failing(&self, failing: bool) {
        self.state.failing.store(failing, Ordering::SeqCst);
    }

    pub fn set_delay(&self, delay: Duration) {
        self.state.delay_ms.store(delay.as_millis() as u64, Ordering::SeqCst);
    }

    /// Every request so far.
    pub fn all(&self) -> Vec<Received> {
        self.state.got.lock().unwrap().clone()
    }

    /// The requests answered with 200.
    pub fn acknowledged(&self) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|received| received.status == 200)
            .collect()
    }

    /// The commits acknowledged, in the order they were, each once (a delivery made again
    /// after a restart is the receiver's to deduplicate, by `webhook-id`).
    pub fn commits(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.acknowledged()
            .iter()
            .filter(|received| received.json()["type"] == "locstore.commit")
            .filter(|received| seen.insert(received.id.clone()))
            .map(Received::commit)
            .collect()
    }

    /// Waits until `done` holds for the acknowledged requests, `within` at most.
    pub fn wait_for(&self, within: Duration, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let acknowledged = self.acknowledged();
            if done(&acknowledged) {
                return acknowledged;
            }
            assert!(
                Instant::now() < deadline,
                "the receiver did not get what was expected within {within:?}; it got {} requests: {:?}",
                acknowledged.len(),
                acknowledged.iter().map(|received| received.json()).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `count` commits are acknowledged.
    pub fn wait_for_commits(&self, count: usize, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        loop {
            let commits = self.commits();
            if commits.len() >= count {
                return commits;
            }
            assert!(
                Instant::now() < deadline,
                "{} of {count} commits delivered within {within:?}",
                commits.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Checks every acknowledged request's signature with the Standard Webhooks reference
    /// library (PyPI `standardwebhooks`); answers how many it verified.
    pub fn verify_with_reference_library(&self, secret: &str) -> usize {
        let deliveries: Vec<Value> = self
            .acknowledged()
            .iter()
            .map(|received| {
                serde_json::json!({
                    "id": received.id,
                    "timestamp": received.timestamp,
                    "signature": received.signature,
                    "body": String::from_utf8(received.body.clone()).unwrap(),
                })
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("deliveries.json");
        std::fs::write(&file, serde_json::to_vec(&deliveries).unwrap()).unwrap();
        let python = std::env::var("LOCSTORE_TEST_PYTHON").unwrap_or_else(|_| {
            panic!(
                "LOCSTORE_TEST_PYTHON is not set: run the tests with `bash scripts/test.sh`, which installs the readers"
            )
        });
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools/verify_webhooks.py");
        let output = std::process::Command::new(python)
            .arg(script)
            .arg(secret)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "standardwebhooks refused a delivery: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().parse().unwrap()
    }
}

/// Gives this thread the nice value in `LOCSTORE_BENCH_RECEIVER_NICE`, when set: the webhooks
/// bench uses it to let the receivers stand for receivers on another machine, which take no
/// CPU from the server.
fn lower_priority_if_asked() {
    let Some(nice) = std::env::var("LOCSTORE_BENCH_RECEIVER_NICE")
        .ok()
        .and_then(|nice| nice.parse::<i32>().ok())
    else {
        return;
    };
    // SAFETY: gettid has no preconditions; setpriority with this thread's id changes only
    // this thread's nice value.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, thread, nice);
    }
}

/// Answers the requests of one connection (kept alive) until it closes.
fn serve(stream: TcpStream, state: &State) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(header, _)| header == name)
                .map(|(_, value)| value.clone())
                .unwrap_or_default()
        };
        let length: usize = header("content-length").parse().unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let arrived = Instant::now();
        let delay = state.delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            std::thread::sleep(Duration::from_millis(delay));
        }
        let fail = state.failing.load(Ordering::SeqCst)
            || state
                .fail_next
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| left.checked_sub(1))
                .is_ok();
        let status = if fail { 500 } else { 200 };
        state.got.lock().unwrap().push(Received {
            id: header("webhook-id"),
            timestamp: header("webhook-timestamp"),
            signature: header("webhook-signature"),
            body,
            status,
            arrived,
        });
        let answer = if fail {
            "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\ndown"
        } else {
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        };
        if writer.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}
