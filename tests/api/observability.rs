//! Metrics, logs, the example configuration and the command line.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use poem::http::{Method, StatusCode};

use crate::helpers::{ADMIN, TestApp, into_reply};

fn metric(text: &str, line_start: &str) -> f64 {
    text.lines()
        .find(|line| line.starts_with(line_start))
        .and_then(|line| line.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn metrics_count_requests_commits_and_keys() {
    let app = TestApp::spawn().await;
    let before = String::from_utf8(app.call(Method::GET, "/metrics", None, None).await.body).unwrap();
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "x")]).await;
    app.get("/teams").await;
    app.get("/teams/acme/projects/mobile/keys").await;
    let reply = app.call(Method::GET, "/metrics", None, None).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.header("content-type").starts_with("text/plain"));
    let after = String::from_utf8(reply.body).unwrap();

    let teams_ok = r#"locstore_http_requests_total{method="GET",route="/teams",status="200"}"#;
    assert_eq!(metric(&after, teams_ok) - metric(&before, teams_ok), 1.0, "{after}");
    assert_eq!(
        metric(&after, "locstore_commits_total") - metric(&before, "locstore_commits_total"),
        3.0
    );
    assert!(metric(&after, "locstore_commit_duration_seconds_count") >= 3.0);
    assert_eq!(metric(&after, r#"locstore_keys{project="mobile",team="acme"}"#), 1.0);
    assert!(metric(&after, "locstore_repository_bytes") > 0.0);
    assert_eq!(metric(&after, "locstore_writer_queue_depth"), 0.0);
    assert!(
        after.contains(r#"route="/teams/{teamName}/projects/{projectName}/keys""#),
        "routes are templates, not paths"
    );
    assert!(after.contains("locstore_process_resident_memory_bytes"));
}

#[test]
fn a_request_log_line_carries_its_request_id_and_never_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let token = "very-secret-token-value";
    let mut child = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--data-dir"])
        .arg(dir.path())
        .env("LOCSTORE_API_TOKEN", token)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let base = line
        .trim()
        .strip_prefix("locstore listening on ")
        .expect("the listening line")
        .to_owned();
    let host = base.strip_prefix("http://").unwrap().to_owned();

    let mut stream = std::net::TcpStream::connect(&host).unwrap();
    let request = format!(
        "GET /teams HTTP/1.1\r\nHost: {host}\r\nX-Api-Token: {token}\r\nX-Request-Id: trace-abc-123\r\nConnection: close\r\n\r\n"
    );
    std::io::Write::write_all(&mut stream, request.as_bytes()).unwrap();
    let mut response = String::new();
    std::io::Read::read_to_string(&mut stream, &mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");

    // SAFETY: kill with our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let logs = String::from_utf8(output.stderr).unwrap();
    assert!(!logs.contains(token), "the token never reaches the log");
    let request_line = logs
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|entry| entry["request_id"] == "trace-abc-123")
        .unwrap_or_else(|| panic!("no log line for the request: {logs}"));
    assert_eq!(request_line["method"], "GET");
    assert_eq!(request_line["route"], "/teams");
    assert_eq!(request_line["status"], 200);
    assert!(request_line["duration_ms"].is_number());
    assert!(
        logs.contains("\"listening\"") || logs.contains("listening"),
        "a startup line"
    );
    assert!(logs.contains("stopped"), "a shutdown line");
}

#[test]
fn the_example_configuration_is_complete_and_valid() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("locstore.example.toml");
    let text = std::fs::read_to_string(&example).unwrap();
    // Every flag of `serve` is described in the example.
    let help = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in help
        .split_whitespace()
        .filter(|word| word.starts_with("--") && *word != "--help" && *word != "--config")
    {
        let setting = flag.trim_start_matches("--").trim_end_matches(',').replace('-', "_");
        assert!(
            text.contains(&setting),
            "locstore.example.toml does not mention {setting}"
        );
    }
    // And a server starts from it (with the data dir moved to a temporary folder).
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("locstore.toml");
    std::fs::write(
        &config,
        text.replace("listen = \"127.0.0.1:8080\"", "listen = \"127.0.0.1:0\""),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["serve", "--config"])
        .arg(&config)
        .env("LOCSTORE_API_TOKEN", "x")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.starts_with("locstore listening on http://127.0.0.1:"), "{line}");
    assert!(
        dir.path().join("locstore-data/repo/.git").exists(),
        "data_dir is relative to the file"
    );
}

#[test]
fn help_and_version_are_there_for_people() {
    let version = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(version.stdout).unwrap().trim(),
        format!("locstore {}", env!("CARGO_PKG_VERSION"))
    );
    let help = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("serve") && help.contains("token"), "{help}");
    let token_help = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(["token", "create", "--help"])
        .output()
        .unwrap();
    let token_help = String::from_utf8(token_help.stdout).unwrap();
    for flag in ["--name", "--access", "--team", "--data-dir", "--config"] {
        assert!(token_help.contains(flag), "{token_help}");
    }
}

#[tokio::test]
async fn metrics_need_no_token_but_the_api_does() {
    let app = TestApp::spawn().await;
    let request = app.client.get("/metrics");
    assert_eq!(into_reply(request.send().await).await.status, StatusCode::OK);
    let reply = app.call(Method::GET, "/teams", None, None).await;
    assert_eq!(reply.error_code(StatusCode::UNAUTHORIZED), "unauthorized");
    let reply = app.call(Method::GET, "/teams", None, Some(ADMIN)).await;
    assert_eq!(reply.status, StatusCode::OK);
}
