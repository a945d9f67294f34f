//! What the end-to-end benches share: the release server on a temporary data directory, and
//! plain HTTP/1.1 requests to it.
#![allow(dead_code, reason = "each bench uses a part")]

pub mod seed;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The token of the benchmark server (also written into the wrk scripts, whose own headers
/// replace the ones given with `-H`).
/// The languages of the seeded project.
pub const LANGUAGES: [&str; 5] = ["en", "fr", "de", "pt-BR", "ja"];

/// Fifty language codes of the kind a large app ships.
pub const LANGUAGES_50: [&str; 50] = [
    "en", "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "es", "es-MX", "et", "fa", "fi", "fil", "fr", "fr-CA", "he",
    "hi", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "nb", "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk",
    "sl", "sr", "sv", "sw", "ta", "th", "tr", "uk", "ur", "vi", "zh-Hans", "zh-Hant", "zu", "is",
];

pub const TOKEN: &str = "bench-token";

/// A temporary folder for a bench's data, under `LOCSTORE_BENCH_DIR` when it is set (a freshly
/// made file system): ext4 without a journal creates files slowly while many were deleted
/// recently, which moves the figures of benches that create many files from run to run
/// (BENCHMARKS.md, "File upload").
pub fn data_dir() -> tempfile::TempDir {
    match std::env::var_os("LOCSTORE_BENCH_DIR") {
        Some(parent) => tempfile::tempdir_in(parent).unwrap(),
        None => tempfile::tempdir().unwrap(),
    }
}

pub struct Server {
    pub child: Child,
    pub base: String,
}

/// Where the server's warnings and a panic or crash message go: `LOCSTORE_BENCH_SERVER_LOG`,
/// or nowhere.
fn server_log() -> Stdio {
    std::env::var_os("LOCSTORE_BENCH_SERVER_LOG")
        .and_then(|path| std::fs::File::create(path).ok())
        .map_or_else(Stdio::null, Stdio::from)
}

impl Server {
    pub fn start(data_dir: &Path, durability: &str) -> (Self, Duration) {
        Self::start_with(data_dir, &["--durability", durability])
    }

    /// Starts the release binary on `data_dir` with more arguments; returns it and the time it
    /// took to print its listening line.
    pub fn start_with(data_dir: &Path, args: &[&str]) -> (Self, Duration) {
        let started = Instant::now();
        // Another build of the server (`LOCSTORE_BENCH_BINARY`), for a comparison on one machine.
        let binary = std::env::var_os("LOCSTORE_BENCH_BINARY").unwrap_or_else(|| env!("CARGO_BIN_EXE_locstore").into());
        let mut child = Command::new(binary)
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .args(args)
            .env("LOCSTORE_API_TOKEN", TOKEN)
            // More of the server's log for a diagnosis: `LOCSTORE_BENCH_RUST_LOG`.
            .env(
                "RUST_LOG",
                std::env::var("LOCSTORE_BENCH_RUST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(Stdio::piped())
            .stderr(server_log())
            .spawn()
            .expect("the release binary starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .trim()
            .strip_prefix("locstore listening on ")
            .expect("the listening line")
            .to_owned();
        (Self { child, base }, started.elapsed())
    }

    /// Stops the server with SIGTERM (a clean shutdown) and waits for it.
    pub fn stop(self) {
        drop(self);
    }

    /// Waits until the server has had no child process (a maintenance repack, a `git log`
    /// rebuilding the history index) for two seconds, so that measures taken next do not share
    /// the cores with work left over from seeding. Returns how long it waited.
    pub fn settle(&self) -> Duration {
        let started = Instant::now();
        let mut quiet_since = Instant::now();
        loop {
            if self.has_children() {
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() >= Duration::from_secs(2) {
                return started.elapsed();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether the server has a child process still running (one that ended and waits to be
    /// reaped does not count).
    fn has_children(&self) -> bool {
        let tasks = format!("/proc/{}/task", self.child.id());
        let children: Vec<String> = std::fs::read_dir(tasks)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
            .flat_map(|list| list.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        children.iter().any(|pid| {
            // The state is the field after the command's closing parenthesis.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    stat.rsplit_once(')')
                        .map(|(_, rest)| rest.trim_start().starts_with('Z'))
                })
                .is_some_and(|zombie| !zombie)
        })
    }

    /// CPU seconds the server has used, with those of its child processes that ended.
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.child.id())
    }

    pub fn rss_mb(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kb: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0.0);
        kb / 1024.0
    }
}

/// CPU seconds (user and system) process `pid` has used, with those of its children that
/// ended and were waited for; 0 if it is gone.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // After the command's closing parenthesis: state is field 3, utime..cstime fields 14..17.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: f64 = fields
        .get(11..15)
        .unwrap_or_default()
        .iter()
        .filter_map(|field| field.parse::<f64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks / per_second
}

/// One JSON HTTP/1.1 request on its own connection; returns status and body.
pub fn http(base: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    send(base, method, path, "application/json", body.unwrap_or("").as_bytes())
}

/// One HTTP/1.1 request with any body on its own connection; returns status and body.
pub fn send(base: &str, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let host = base.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nX-Api-Token: {TOKEN}\r\nConnection: close\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (
        status,
        response
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default(),
    )
}

/// A bench that panics still stops its server, so that no server outlives its run.
impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: kill with our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// The name of the seeded key `index`.
pub fn key_name(index: usize) -> String {
    format!("screen{}.item{index}.label", index % 500)
}

/// Creates team `acme` with project `big` in [`LANGUAGES`] and imports `size` keys into it.
pub fn seed(base: &str, size: usize) {
    seed_with(base, size, &LANGUAGES, 20_000, |code, index| {
        format!("{code} text number {index} for the screen {}", index % 500)
    });
}

/// Creates team `acme` with project `big` in `languages` and imports `size` keys into it,
/// `per_request` keys a request, the text of key `index` in `code` being `text(code, index)`
/// (written into JSON as it is: no quotes or backslashes).
pub fn seed_with(
    base: &str,
    size: usize,
    languages: &[&str],
    per_request: usize,
    text: impl Fn(&str, usize) -> String,
) {
    assert_eq!(
        http(base, "POST", "/teams", Some(r#"{"name":"acme","displayName":"Acme"}"#)).0,
        201
    );
    let codes: Vec<String> = languages.iter().map(|code| format!("\"{code}\"")).collect();
    let project = format!(
        r#"{{"name":"big","displayName":"Big","languagesISO":[{}]}}"#,
        codes.join(",")
    );
    assert_eq!(http(base, "POST", "/teams/acme/projects", Some(&project)).0, 201);
    for chunk in (0..size).collect::<Vec<_>>().chunks(per_request) {
        let keys: Vec<String> = chunk
            .iter()
            .map(|index| {
                let translations: Vec<String> = languages
                    .iter()
                    .map(|code| format!(r#"{{"language":"{code}","content":"{}"}}"#, text(code, *index)))
                    .collect();
                format!(
                    r#"{{"name":"{}","tags":["t{}"],"translations":[{}]}}"#,
                    key_name(*index),
                    index % 20,
                    translations.join(",")
                )
            })
            .collect();
        let body = format!(r#"{{"keys":[{}]}}"#, keys.join(","));
        let (status, answer) = http(base, "POST", "/teams/acme/projects/big/keys/import", Some(&body));
        assert_eq!(status, 200, "{answer}");
    }
}
