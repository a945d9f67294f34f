//! The real binary over a real socket: start-up line, tokens, downloads, graceful stop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::helpers::git_in;

/// The line the server prints once it listens, followed by its address.
const LISTENING: &str = "locstore listening on ";

pub struct Server {
    pub child: Child,
    pub base: String,
    pub first_lines: Vec<String>,
}

impl Server {
    /// Starts `locstore serve` on port 0 and waits for its "listening" line.
    pub fn start(data_dir: &std::path::Path, env: &[(&str, &str)]) -> Self {
        Self::start_with(data_dir, env, &[])
    }

    /// Starts the server with extra command-line arguments.
    pub fn start_with(data_dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_locstore"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .args(args)
            .env_remove("LOCSTORE_API_TOKEN")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (name, value) in env {
            command.env(name, value);
        }
        Self::from_command(command)
    }

    /// Starts a prepared `locstore serve` command (stdout piped) and waits for its
    /// "listening" line.
    pub fn from_command(mut command: Command) -> Self {
        let child = command.spawn().expect("the binary starts");
        let mut server = Self {
            child,
            base: String::new(),
            first_lines: Vec::new(),
        };
        // From here on a failed assertion drops `server`, which kills and reaps the child.
        // The lines are read on a thread of their own, so that a server that never listens
        // (one retrying a clone forever, say) fails the test rather than hanging it.
        let stdout = server.child.stdout.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let listening = line.starts_with(LISTENING);
                if sender.send(line).is_err() || listening {
                    break;
                }
            }
        });
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            match lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
                Ok(line) => {
                    let address = line.strip_prefix(LISTENING).map(str::to_owned);
                    server.first_lines.push(line);
                    if let Some(address) = address {
                        server.base = address;
                        return server;
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("the server exited before listening: {:?}", server.first_lines)
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    panic!("the server did not listen within 2 minutes: {:?}", server.first_lines)
                }
            }
        }
    }

    pub fn request(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, String) {
        http(&format!("{}{path}", self.base), method, token, body)
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub fn terminate(mut self) {
        // SAFETY: kill with a valid pid of our own child process.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the server exits cleanly on SIGTERM: {status}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.1 client: one request per connection.
pub fn http(url: &str, method: &str, token: Option<&str>, body: Option<&str>) -> (u16, String) {
    try_http(url, method, token, body).unwrap()
}

/// Like [`http`], but a connection failure is an error rather than a panic.
pub fn try_http(url: &str, method: &str, token: Option<&str>, body: Option<&str>) -> std::io::Result<(u16, String)> {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest
        .split_once('/')
        .map(|(host, path)| (host, format!("/{path}")))
        .unwrap_or((rest, "/".into()));
    let mut stream = TcpStream::connect(host)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(token) = token {
        request.push_str(&format!("X-Api-Token: {token}\r\n"));
    }
    let body = body.unwrap_or("");
    if !body.is_empty() || method == "POST" || method == "PATCH" {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    Ok((status, body))
}

#[test]
fn the_binary_listens_on_a_free_port_serves_a_download_and_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[("LOCSTORE_API_TOKEN", "secret")]);
    assert!(
        server.base.starts_with("http://127.0.0.1:") && !server.base.ends_with(":0"),
        "{}",
        server.base
    );
    assert_eq!(
        server.first_lines,
        [format!("locstore listening on {}", server.base)],
        "no token is made when one is configured"
    );

    assert_eq!(
        server.request("GET", "/healthz", None, None),
        (200, "{\"status\":\"ok\"}".into())
    );
    assert_eq!(
        server
            .request(
                "POST",
                "/teams",
                Some("secret"),
                Some(r#"{"name":"acme","displayName":"Acme"}"#)
            )
            .0,
        201
    );
    let project = r#"{"name":"mobile","displayName":"Mobile","languagesISO":["en","fr"]}"#;
    assert_eq!(
        server
            .request("POST", "/teams/acme/projects", Some("secret"), Some(project))
            .0,
        201
    );
    let key = r#"{"name":"errors/network","tags":[],"translations":[{"language":"fr","content":"Réseau"}]}"#;
    assert_eq!(
        server
            .request("POST", "/teams/acme/projects/mobile/keys", Some("secret"), Some(key))
            .0,
        201
    );

    let (status, body) = server.request(
        "GET",
        "/teams/acme/projects/mobile/keys/export?type=json&languages=fr",
        Some("secret"),
        None,
    );
    assert_eq!(status, 200, "{body}");
    let address = serde_json::from_str::<serde_json::Value>(&body).unwrap()["data"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(address.starts_with(&format!("{}/exports/", server.base)), "{address}");
    assert!(address.ends_with("/fr.json"), "{address}");
    let (status, file) = http(&address, "GET", None, None);
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&file).unwrap(),
        serde_json::json!({"errors/network": "Réseau"})
    );

    server.terminate();
    let repo = dir.path().join("repo");
    assert_eq!(git_in(&repo, &["status", "--porcelain"]), "", "clean after a stop");
    assert_eq!(git_in(&repo, &["rev-list", "--count", "HEAD"]).trim(), "4");
}

#[test]
fn the_first_start_without_tokens_prints_an_admin_token_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]);
    assert_eq!(server.first_lines.len(), 2, "{:?}", server.first_lines);
    let token = server.first_lines[0].rsplit(' ').next().unwrap().to_owned();
    assert!(token.starts_with("lst_"), "{token}");
    assert_eq!(
        server.request("GET", "/teams", Some(&token), None),
        (200, "{\"data\":[]}".into())
    );
    let tokens_file = std::fs::read_to_string(dir.path().join("tokens.toml")).unwrap();
    assert!(!tokens_file.contains(&token), "only the hash is kept");
    server.terminate();

    let server = Server::start(dir.path(), &[]);
    assert_eq!(server.first_lines.len(), 1, "no second token: {:?}", server.first_lines);
    assert_eq!(
        server
            .request(
                "POST",
                "/teams",
                Some(&token),
                Some(r#"{"name":"a","displayName":"A"}"#)
            )
            .0,
        201
    );

    // A token created while the server runs works at once.
    let output = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["token", "create", "--name", "ci-bot", "--access", "read", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let read_token = stdout.lines().next().unwrap();
    assert_eq!(server.request("GET", "/teams", Some(read_token), None).0, 200);
    assert_eq!(
        server
            .request(
                "POST",
                "/teams",
                Some(read_token),
                Some(r#"{"name":"b","displayName":"B"}"#)
            )
            .0,
        403
    );
    server.terminate();
    assert_eq!(
        git_in(&dir.path().join("repo"), &["log", "-1", "--format=%an"]).trim(),
        "admin"
    );
}

#[test]
fn a_second_server_on_the_same_repository_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let first = Server::start(dir.path(), &[("LOCSTORE_API_TOKEN", "secret")]);
    let output = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .env("LOCSTORE_API_TOKEN", "secret")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("in use by another locstore process"), "{stderr}");
    first.terminate();
}
