//! Crash safety, concurrency, and hostile input.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{ADMIN, TestApp, git_in, into_reply};
use crate::server::{Server, try_http};
use crate::sync::{GitDaemon, packed_objects, pushed, spawn_replicating};

const TOKEN: &str = "crash-test-token";

/// A pseudo-random number from the clock, enough to vary the moment of the kill.
fn random_below(bound: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    nanos
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        % bound
}

/// All key names of the project, read page by page over HTTP.
fn all_keys(server: &Server) -> BTreeSet<String> {
    served_keys(server).unwrap_or_else(|body| panic!("the project is not served: {body}"))
}

/// All key names of the project, or the error body when the server does not serve it (yet: a
/// replica whose clone was made between the team's creation and the project's).
fn served_keys(server: &Server) -> Result<BTreeSet<String>, String> {
    let mut names = BTreeSet::new();
    for page in 1.. {
        let (status, body) = server.request(
            "GET",
            &format!("/teams/acme/projects/mobile/keys?limit=1000&page={page}"),
            Some(TOKEN),
            None,
        );
        if status != 200 {
            return Err(body);
        }
        let json: Value = serde_json::from_str(&body).unwrap();
        let data = json["data"].as_array().unwrap();
        if data.is_empty() {
            break;
        }
        names.extend(data.iter().map(|item| item["name"].as_str().unwrap().to_owned()));
    }
    Ok(names)
}

/// Starts the binary on `dir` with `args`, sets up team `acme` and project `mobile`, has four
/// clients create keys until a kill -9 at a random moment, and returns the names whose
/// creation was acknowledged (201).
fn write_until_killed(dir: &std::path::Path, args: &[&str], before_writes: impl FnOnce(&Server)) -> Vec<String> {
    let env = [("LOCSTORE_API_TOKEN", TOKEN)];
    let server = Server::start_with(dir, &env, args);
    assert_eq!(
        server
            .request(
                "POST",
                "/teams",
                Some(TOKEN),
                Some(r#"{"name":"acme","displayName":"A"}"#)
            )
            .0,
        201
    );
    let project = r#"{"name":"mobile","displayName":"M","languagesISO":["en","fr"]}"#;
    assert_eq!(
        server
            .request("POST", "/teams/acme/projects", Some(TOKEN), Some(project))
            .0,
        201
    );
    before_writes(&server);

    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let base = server.base.clone();
            let acknowledged = acknowledged.clone();
            std::thread::spawn(move || {
                for index in 0.. {
                    let name = format!("w{writer}-{index}");
                    let body = format!(
                        r#"{{"name":"{name}","translations":[{{"language":"fr","content":"texte {index}"}}]}}"#
                    );
                    match try_http(
                        &format!("{base}/teams/acme/projects/mobile/keys"),
                        "POST",
                        Some(TOKEN),
                        Some(&body),
                    ) {
                        Ok((201, _)) => acknowledged.lock().unwrap().push(name),
                        Ok((0, _)) | Err(_) => return,
                        Ok((status, body)) => panic!("unexpected answer {status}: {body}"),
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300 + random_below(700)));
    // On a busy machine the writers may not have got far by then: the kill waits for them
    // (a minute at most), so that it always falls among acknowledged writes.
    let waited = std::time::Instant::now();
    while acknowledged.lock().unwrap().len() <= 10 && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut server = server;
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
    for writer in writers {
        writer.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() > 10,
        "the writers got going before the kill: {}",
        acknowledged.len()
    );
    acknowledged
}

/// Checks, after a kill, that the repository is sound and every acknowledged key is served,
/// each one commit on top of the three set-up commits; returns the restarted server.
fn restart_with_nothing_lost(dir: &std::path::Path, args: &[&str], acknowledged: &[String]) -> Server {
    let repo = dir.join("repo");
    git_in(&repo, &["fsck", "--strict"]);
    let server = Server::start_with(dir, &[("LOCSTORE_API_TOKEN", TOKEN)], args);
    let present = all_keys(&server);
    let lost: Vec<&String> = acknowledged.iter().filter(|name| !present.contains(*name)).collect();
    assert!(lost.is_empty(), "acknowledged but lost after kill -9: {lost:?}");
    let commits: usize = git_in(&repo, &["rev-list", "--count", "HEAD"]).trim().parse().unwrap();
    assert_eq!(commits, 3 + present.len());
    server
}

#[test]
fn a_kill_9_at_a_random_moment_loses_no_acknowledged_change() {
    let dir = tempfile::tempdir().unwrap();
    let acknowledged = write_until_killed(dir.path(), &[], |_| {});
    let server = restart_with_nothing_lost(dir.path(), &[], &acknowledged);
    server.terminate();
    assert_eq!(git_in(&dir.path().join("repo"), &["status", "--porcelain"]), "");
}

/// The same with a remote (git daemon) and a read replica following it: the commits the
/// remote took before the kill are all in the restarted primary's history, the primary then
/// pushes the rest, and the replica ends up serving every acknowledged key.
#[test]
fn a_kill_9_of_a_primary_with_a_remote_loses_nothing_and_the_replica_catches_up() {
    let daemon = GitDaemon::start();
    let url = daemon.url();
    let args = ["--remote", url.as_str(), "--pull-interval", "1s"];
    let dir = tempfile::tempdir().unwrap();
    let replica_dir = tempfile::tempdir().unwrap();
    let mut replica = None;
    let acknowledged = write_until_killed(dir.path(), &args, |_| {
        wait_until("the set-up reaches the remote", || daemon.head().is_some());
        replica = Some(Server::start_with(
            replica_dir.path(),
            &[("LOCSTORE_API_TOKEN", TOKEN)],
            &["--replica-of", &url, "--pull-interval", "200ms"],
        ));
    });
    let replica = replica.unwrap();
    let on_remote = daemon.head().expect("the remote has the set-up at least");

    let server = restart_with_nothing_lost(dir.path(), &args, &acknowledged);
    let repo = dir.path().join("repo");
    git_in(&repo, &["merge-base", "--is-ancestor", &on_remote, "HEAD"]);
    let head = git_in(&repo, &["rev-parse", "HEAD"]).trim().to_owned();
    wait_until("the primary pushes what the kill held back", || {
        daemon.head().as_deref() == Some(head.as_str())
    });
    git_in(&daemon.bare(), &["fsck", "--strict", "--no-progress"]);
    let primary_keys = all_keys(&server);
    wait_until("the replica catches up", || {
        served_keys(&replica).is_ok_and(|keys| keys == primary_keys)
    });
    server.terminate();
    assert_eq!(git_in(&repo, &["status", "--porcelain"]), "");
}

/// Waits up to 30 seconds for `done`.
/// Without git on their PATH, a primary pushes with libgit2 alone (rather than `git push`)
/// and a replica clones with it (its checkout rather than `git read-tree`) and serves what the
/// primary has, from a clean working tree.
#[test]
fn without_git_on_the_path_a_primary_pushes_and_a_replica_clones_and_follows() {
    let daemon = GitDaemon::start();
    // The remote keeps each push's pack as it came, so that deltas in it would show.
    git_in(&daemon.bare(), &["config", "receive.unpackLimit", "1"]);
    let url = daemon.url();
    let no_git = tempfile::tempdir().unwrap();
    let path = no_git.path().to_str().unwrap();
    let primary_dir = tempfile::tempdir().unwrap();
    let primary = Server::start_with(
        primary_dir.path(),
        &[("LOCSTORE_API_TOKEN", TOKEN), ("PATH", path)],
        &["--remote", url.as_str(), "--pull-interval", "1s"],
    );
    let create = |path: &str, body: &str| {
        let (status, answer) = primary.request("POST", path, Some(TOKEN), Some(body));
        assert_eq!(status, 201, "{answer}");
    };
    create("/teams", r#"{"name": "acme", "displayName": "Acme"}"#);
    create(
        "/teams/acme/projects",
        r#"{"name": "mobile", "displayName": "Mobile", "languagesISO": ["en", "de"]}"#,
    );
    for index in 0..40 {
        create(
            "/teams/acme/projects/mobile/keys",
            &format!(
                r#"{{"name": "screen.{index}", "translations": [{{"language": "de", "content": "Text {index}"}}]}}"#
            ),
        );
    }
    let head = git_in(&primary_dir.path().join("repo"), &["rev-parse", "HEAD"])
        .trim()
        .to_owned();
    wait_until("the primary pushes", || daemon.head().as_deref() == Some(head.as_str()));
    // libgit2's pushes send whole objects too (its delta search is turned off).
    let (objects, deltas) = packed_objects(&daemon.bare());
    assert!(objects > 40, "{objects} objects");
    assert_eq!(deltas, Vec::<String>::new(), "deltas were pushed");

    let replica_dir = tempfile::tempdir().unwrap();
    let replica = Server::start_with(
        replica_dir.path(),
        &[("LOCSTORE_API_TOKEN", TOKEN), ("PATH", path)],
        &["--replica-of", &url, "--pull-interval", "200ms"],
    );
    wait_until("the replica serves the primary's keys", || {
        served_keys(&replica).is_ok_and(|keys| keys == all_keys(&primary))
    });
    let (status, body) = replica.request("GET", "/teams/acme/projects/mobile/keys/screen.7", Some(TOKEN), None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Text 7"), "{body}");
    // It follows, too.
    create(
        "/teams/acme/projects/mobile/keys",
        r#"{"name": "late", "translations": [{"language": "de", "content": "Spät"}]}"#,
    );
    wait_until("the replica follows", || {
        served_keys(&replica).is_ok_and(|keys| keys.contains("late"))
    });
    // After a clean stop the git index is in line too.
    replica.terminate();
    primary.terminate();
    let clone = replica_dir.path().join("repo");
    assert_eq!(git_in(&clone, &["status", "--porcelain"]), "");
    git_in(&clone, &["fsck", "--strict", "--no-progress"]);
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(30), "{what} did not happen");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_get_one_commit_each_in_a_serial_order() {
    concurrent_writers(Arc::new(TestApp::spawn().await)).await;
}

/// The same with a remote: and the remote ends up with the same straight history.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_with_a_remote_get_one_commit_each_and_the_remote_all_of_them() {
    let daemon = GitDaemon::start();
    let app = Arc::new(spawn_replicating(&daemon, Duration::from_secs(1)).await);
    concurrent_writers(app.clone()).await;
    same_history_on_the_remote(&app, &daemon).await;
}

/// Waits until the remote's branch is the server's HEAD, and checks that the remote holds
/// that branch and nothing else.
async fn same_history_on_the_remote(app: &TestApp, daemon: &GitDaemon) {
    pushed(app, daemon, Duration::from_secs(30)).await;
    let refs = git_in(&daemon.bare(), &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs.trim(), "refs/heads/main", "nothing but the branch");
    assert_eq!(
        app.git(&["rev-list", "HEAD"]),
        git_in(&daemon.bare(), &["rev-list", "main"])
    );
    git_in(&daemon.bare(), &["fsck", "--strict", "--no-progress"]);
}

async fn concurrent_writers(app: Arc<TestApp>) {
    app.seed_project().await;
    app.create_key("shared", &[], &[("en", "start")])
        .await
        .assert_ok(StatusCode::CREATED);
    let before = app.commit_count();

    let mut tasks = Vec::new();
    for writer in 0..8 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let mut acknowledged = 0;
            for index in 0..10 {
                let name = format!("w{writer}-{index}");
                app.create_key(&name, &[], &[("en", "one")])
                    .await
                    .assert_ok(StatusCode::CREATED);
                let update = json!({"translations": [{"language": "en", "content": format!("{writer}-{index}")}]});
                app.patch("/teams/acme/projects/mobile/keys/shared", update)
                    .await
                    .assert_ok(StatusCode::OK);
                acknowledged += 2;
            }
            acknowledged
        }));
    }
    let mut acknowledged = 0;
    for task in tasks {
        acknowledged += task.await.unwrap();
    }
    assert_eq!(
        app.commit_count(),
        before + acknowledged,
        "one commit per acknowledged change"
    );

    // The final state is what replaying the commits in order gives: the shared key holds the
    // text of the last commit that touched it, and every created key is there.
    let last_update = app.git(&["log", "-1", "--format=%H", "--grep=Update key \"shared\""]);
    let shared_path = app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ]);
    let shared_path = shared_path
        .lines()
        .find(|path| path.ends_with("/shared.toml"))
        .unwrap()
        .to_owned();
    let at_last_update = app.git(&["show", &format!("{}:{shared_path}", last_update.trim())]);
    let served = app.get("/teams/acme/projects/mobile/keys/shared").await.json();
    let text = served["data"]["translation"]["en"].as_str().unwrap().to_owned();
    assert!(
        at_last_update.contains(&format!("en = \"{text}\"")),
        "{at_last_update} vs {text}"
    );
    let keys = app.get("/teams/acme/projects/mobile/keys?limit=1000").await;
    assert_eq!(keys.header("x-pagination-total-count"), "81");
    let subjects = app.git(&["log", "--format=%s"]);
    let parents = app.git(&["log", "--format=%P"]);
    assert!(
        parents.lines().all(|line| line.split(' ').count() <= 1),
        "history is a straight line"
    );
    assert_eq!(
        subjects
            .lines()
            .filter(|line| line.starts_with("Update key \"shared\""))
            .count(),
        80
    );
}

#[tokio::test]
async fn hostile_path_segments_never_escape_or_fail_the_server() {
    hostile_path_segments(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn hostile_path_segments_with_a_remote_reach_neither_the_repository_nor_the_remote() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(1)).await;
    hostile_path_segments(&app).await;
    same_history_on_the_remote(&app, &daemon).await;
}

async fn hostile_path_segments(app: &TestApp) {
    app.seed_project().await;
    let long = "x".repeat(10_000);
    let hostile = [
        "..",
        "%2e%2e",
        "%2E%2E%2F%2E%2E",
        "..%2F..%2Fetc",
        "%00",
        "a%00b",
        "..%5C..%5C",
        "CON",
        "nul.txt",
        "COM1",
        &long,
        "%FF%FE",
        "%",
    ];
    let before = app.commit_count();
    for segment in hostile {
        for path in [
            format!("/teams/{segment}"),
            format!("/teams/{segment}/projects"),
            format!("/teams/acme/projects/{segment}"),
            format!("/teams/acme/projects/mobile/keys/{segment}"),
            format!("/teams/{segment}/projects/{segment}/keys/export?type=json"),
            format!("/exports/{segment}/{segment}"),
        ] {
            for method in [Method::GET, Method::PATCH, Method::DELETE] {
                let body = (method == Method::PATCH).then(|| json!({"displayName": "x"}));
                let reply = app.call(method.clone(), &path, body, Some(ADMIN)).await;
                assert!(
                    reply.status.is_client_error() || reply.status.is_success(),
                    "{method} {path}: {}",
                    reply.status
                );
                if !reply.status.is_success() {
                    reply.error_code(reply.status);
                }
            }
        }
        // As names in bodies too.
        let reply = app.post("/teams", json!({"name": segment, "displayName": "x"})).await;
        assert!(
            reply.status.is_client_error() || reply.status == StatusCode::CREATED,
            "{segment}: {}",
            reply.status
        );
        let reply = app.create_key(segment, &[], &[("en", "x")]).await;
        assert!(
            reply.status.is_client_error() || reply.status == StatusCode::CREATED,
            "{segment}: {}",
            reply.status
        );
    }
    // Whatever was created lives inside the repository, under teams/, with portable paths.
    let files = app.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    for file in files.lines() {
        assert!(
            file == "README.md" || file == ".gitattributes" || file.starts_with("teams/"),
            "{file}"
        );
        assert!(file.len() <= 200, "{file}");
        assert!(file.split('/').all(|part| part != ".." && !part.is_empty()), "{file}");
    }
    assert!(app.commit_count() > before, "valid odd names such as CON were created");
    let outside: Vec<_> = std::fs::read_dir(app.dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    let mut outside: Vec<String> = outside
        .into_iter()
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".secret"))
        .collect();
    outside.sort();
    assert_eq!(
        outside,
        ["exports", "repo", "tokens.toml"],
        "nothing was written beside the repository"
    );
}

#[tokio::test]
async fn hostile_bodies_and_parameters_get_clear_client_errors() {
    hostile_bodies_and_parameters(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn hostile_bodies_and_parameters_with_a_remote_get_clear_client_errors_and_push_nothing() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(1)).await;
    hostile_bodies_and_parameters(&app).await;
    same_history_on_the_remote(&app, &daemon).await;
}

async fn hostile_bodies_and_parameters(app: &TestApp) {
    app.seed_project().await;
    let send = |path: &'static str, content_type: &'static str, body: Vec<u8>| {
        let app = &app;
        async move {
            let request = app
                .client
                .post(path)
                .header("X-Api-Token", ADMIN)
                .content_type(content_type)
                .body(body);
            into_reply(request.send().await).await
        }
    };
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(&str, Vec<u8>, StatusCode)> = vec![
        (
            "application/json",
            vec![b'x'; 10 * 1024 * 1024],
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
        ("application/json", deep.into_bytes(), StatusCode::BAD_REQUEST),
        (
            "application/json",
            b"{\"name\": \"\xff\xfe\", \"displayName\": \"x\"}".to_vec(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "application/xml",
            b"<team/>".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "multipart/form-data",
            b"--x--".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
    ];
    for (content_type, body, status) in cases {
        let reply = send("/teams/acme/projects/mobile/keys", content_type, body).await;
        assert_eq!(
            reply.status,
            status,
            "{content_type}: {}",
            String::from_utf8_lossy(&reply.body[..reply.body.len().min(200)])
        );
        reply.error_code(status);
    }
    for query in [
        "page=9223372036854775808",
        "page=-9223372036854775808",
        "limit=-1",
        "limit=18446744073709551616",
        "page=1e3",
    ] {
        let reply = app.get(&format!("/teams/acme/projects/mobile/keys?{query}")).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{query}");
    }
    let many_tags: String = (0..2000).map(|index| format!("tags=t{index}&")).collect();
    let reply = app
        .get(&format!(
            "/teams/acme/projects/mobile/keys/export?{many_tags}type=json&languages=en"
        ))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let many_keywords: String = (0..2000).map(|index| format!("keyword=k{index}&")).collect();
    let reply = app
        .get(&format!("/teams/acme/projects/mobile/keys?{many_keywords}"))
        .await;
    assert!(
        reply.status == StatusCode::OK || reply.status == StatusCode::BAD_REQUEST,
        "{}",
        reply.status
    );
    assert_eq!(app.commit_count(), 3, "nothing hostile was committed");
}

#[test]
fn slow_clients_are_cut_off_and_do_not_stall_others() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        dir.path(),
        &[("LOCSTORE_API_TOKEN", TOKEN)],
        &["--request-timeout", "1s"],
    );
    let host = server.base.strip_prefix("http://").unwrap().to_owned();

    // A client that connects and sends nothing, and one that sends half its headers.
    let mut silent = TcpStream::connect(&host).unwrap();
    let mut stalled_headers = TcpStream::connect(&host).unwrap();
    stalled_headers
        .write_all(b"GET /teams HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // A client that announces a body and sends only part of it.
    let mut stalled_body = TcpStream::connect(&host).unwrap();
    stalled_body
        .write_all(b"POST /teams HTTP/1.1\r\nHost: x\r\nX-Api-Token: crash-test-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na")
        .unwrap();

    // Others are served meanwhile, writes included.
    assert_eq!(
        server
            .request(
                "POST",
                "/teams",
                Some(TOKEN),
                Some(r#"{"name":"fast","displayName":"F"}"#)
            )
            .0,
        201
    );

    let started = Instant::now();
    stalled_body.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = String::new();
    let _ = stalled_body.read_to_string(&mut answer);
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "a stalled body gets 408: {answer:?}"
    );
    assert!(answer.contains("request_timeout"), "{answer}");
    silent.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let closed = silent.read_to_end(&mut rest);
    // A reset counts as closed too; only a read that times out means the server kept waiting.
    let kept_open = matches!(&closed, Err(err) if matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
    assert!(!kept_open, "the silent connection is closed by the server: {closed:?}");
    stalled_headers.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let closed = stalled_headers.read_to_end(&mut rest);
    let kept_open = matches!(&closed, Err(err) if matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
    assert!(
        !kept_open,
        "the connection with stalled headers is closed by the server: {closed:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    server.terminate();
}

/// The first hex digit of the folder a key's file goes to (the layout's first level).
fn first_folder(name: &str) -> char {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    format!("{:02x}", digest[0]).chars().next().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_change_that_cannot_be_written_fails_alone_and_leaves_no_trace() {
    let app = Arc::new(TestApp::spawn().await);
    app.seed_project().await;
    // A stray file where the doomed key's folder must go: writing its file fails part way
    // through the change (the commit is built, the working tree cannot take it).
    let doomed = "doomed.key";
    let blocked = first_folder(doomed);
    let keys_dir = app.repo().join("teams/acme/projects/mobile/keys");
    std::fs::create_dir_all(&keys_dir).unwrap();
    std::fs::write(keys_dir.join(blocked.to_string()), "in the way").unwrap();
    let others: Vec<String> = (0..40)
        .map(|index| format!("other.{index}"))
        .filter(|name| first_folder(name) != blocked)
        .take(7)
        .collect();
    let before = app.commit_count();
    let head = app.git(&["rev-parse", "HEAD"]);

    // Sent together, so that the writer takes several of them as one batch.
    let mut tasks = Vec::new();
    for name in others.iter().cloned().chain([doomed.to_owned()]) {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let reply = app.create_key(&name, &[], &[("en", "text")]).await;
            (name, reply.status, reply.json())
        }));
    }
    for task in tasks {
        let (name, status, body) = task.await.unwrap();
        if name == doomed {
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
            assert_eq!(body["success"], false, "{body}");
        } else {
            assert_eq!(status, StatusCode::CREATED, "{name}: {body}");
        }
    }
    assert_eq!(
        app.commit_count(),
        before + others.len(),
        "one commit per acknowledged change"
    );
    assert_ne!(app.git(&["rev-parse", "HEAD"]), head);
    app.get(&format!("/teams/acme/projects/mobile/keys/{doomed}"))
        .await
        .error_code(StatusCode::NOT_FOUND);
    for name in &others {
        app.get(&format!("/teams/acme/projects/mobile/keys/{name}"))
            .await
            .assert_ok(StatusCode::OK);
    }
    let log = app.git(&["log", "--format=%s"]);
    assert!(!log.contains(doomed), "{log}");

    // The failure put the working tree back to HEAD (the stray file is gone), so the same
    // change now goes through.
    app.create_key(doomed, &[], &[("en", "text")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
    app.git(&["fsck", "--strict"]);
}
