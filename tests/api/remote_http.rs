//! A smart HTTP git remote behind a real web server: `git http-backend` under Debian's nginx
//! through fcgiwrap, with basic auth, over plain HTTP and over HTTPS with a certificate made
//! for the test. Installed by scripts/test.sh.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::git_in;
use crate::server::{Server, http};

const USER: &str = "bot";
const PASSWORD: &str = "s3cret-remote-password";

struct HttpGitServer {
    dir: tempfile::TempDir,
    port: u16,
    children: Vec<Child>,
    /// Served over HTTPS, with the self-signed certificate `cert.pem` in `dir`.
    tls: bool,
}

fn required(path: &str) -> PathBuf {
    let path = PathBuf::from(path);
    assert!(
        path.exists(),
        "{} is missing: run the tests with `bash scripts/test.sh`, which installs nginx and fcgiwrap",
        path.display()
    );
    path
}

impl HttpGitServer {
    fn start() -> Self {
        Self::start_with(false)
    }

    /// Over HTTPS: a self-signed certificate for 127.0.0.1 is made with the openssl tool.
    fn start_tls() -> Self {
        Self::start_with(true)
    }

    fn start_with(tls: bool) -> Self {
        let nginx = required("/usr/sbin/nginx");
        let fcgiwrap = required("/usr/sbin/fcgiwrap");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git_in(root, &["init", "-q", "--bare", "-b", "main", "strings.git"]);
        git_in(&root.join("strings.git"), &["config", "http.receivepack", "true"]);
        let backend = PathBuf::from(git_in(root, &["--exec-path"]).trim()).join("git-http-backend");
        std::fs::write(root.join("htpasswd"), format!("{USER}:{{PLAIN}}{PASSWORD}\n")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        let socket = root.join("fcgi.sock");
        let port = crate::helpers::free_port();
        let r = root.display();
        let listen = if tls {
            make_certificate(root);
            format!("{port} ssl;\n    ssl_certificate {r}/cert.pem;\n    ssl_certificate_key {r}/key.pem")
        } else {
            port.to_string()
        };
        let config = format!(
            r#"daemon off;
user root;
pid {r}/nginx.pid;
error_log {r}/error.log;
events {{}}
http {{
  access_log off;
  client_body_temp_path {r}/tmp/body;
  fastcgi_temp_path {r}/tmp/fastcgi;
  proxy_temp_path {r}/tmp/proxy;
  uwsgi_temp_path {r}/tmp/uwsgi;
  scgi_temp_path {r}/tmp/scgi;
  client_max_body_size 0;
  server {{
    listen 127.0.0.1:{listen};
    location / {{
      auth_basic "git";
      auth_basic_user_file {r}/htpasswd;
      fastcgi_pass unix:{socket};
      fastcgi_param SCRIPT_FILENAME {backend};
      fastcgi_param GIT_PROJECT_ROOT {r};
      fastcgi_param GIT_HTTP_EXPORT_ALL "";
      fastcgi_param PATH_INFO $uri;
      fastcgi_param REMOTE_USER $remote_user;
      fastcgi_param QUERY_STRING $args;
      fastcgi_param REQUEST_METHOD $request_method;
      fastcgi_param CONTENT_TYPE $content_type;
      fastcgi_param CONTENT_LENGTH $content_length;
      fastcgi_param SERVER_PROTOCOL $server_protocol;
      fastcgi_param GATEWAY_INTERFACE CGI/1.1;
    }}
  }}
}}
"#,
            socket = socket.display(),
            backend = backend.display(),
        );
        std::fs::write(root.join("nginx.conf"), config).unwrap();
        let fcgi = Command::new(fcgiwrap)
            .arg("-s")
            .arg(format!("unix:{}", socket.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("fcgiwrap starts");
        let mut server = Self {
            dir,
            port,
            children: vec![fcgi],
            tls,
        };
        let web = Command::new(nginx)
            .arg("-p")
            .arg(server.dir.path())
            .arg("-c")
            .arg(server.dir.path().join("nginx.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        server.children.push(web);
        let started = Instant::now();
        while !(socket.exists() && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx or fcgiwrap does not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{USER}@127.0.0.1:{}/strings.git", self.port)
    }

    /// The certificate that a client must trust (HTTPS only).
    fn certificate(&self) -> PathBuf {
        self.dir.path().join("cert.pem")
    }

    fn bare(&self) -> PathBuf {
        self.dir.path().join("strings.git")
    }

    fn head(&self) -> Option<String> {
        crate::helpers::main_branch_head(&self.bare())
    }
}

/// A key and a self-signed certificate for 127.0.0.1 in `dir` (`key.pem`, `cert.pem`).
fn make_certificate(dir: &Path) {
    let output = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ])
        .current_dir(dir)
        .output()
        .expect("openssl runs (scripts/test.sh installs it)");
    assert!(
        output.status.success(),
        "openssl req failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Drop for HttpGitServer {
    fn drop(&mut self) {
        for child in &mut self.children {
            // SAFETY: kill with a valid pid of our own child process.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let _ = child.wait();
        }
    }
}

/// Starts the binary with the remote and `token`, its log going to a file.
fn serve(data: &Path, remote: &str, token: &str, log: &Path) -> Server {
    serve_trusting(data, remote, token, log, None)
}

/// [`serve`], trusting the certificates in `certificates` (OpenSSL's `SSL_CERT_FILE`) instead
/// of the system's.
fn serve_trusting(data: &Path, remote: &str, token: &str, log: &Path, certificates: Option<&Path>) -> Server {
    let log = std::fs::File::create(log).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_locstore"));
    if let Some(certificates) = certificates {
        command.env("SSL_CERT_FILE", certificates);
    }
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--pull-interval",
            "1s",
            "--remote",
            remote,
            "--data-dir",
        ])
        .arg(data)
        .env("LOCSTORE_API_TOKEN", crate::helpers::ADMIN)
        .env("LOCSTORE_REMOTE_TOKEN", token)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(log);
    Server::from_command(command)
}

pub fn wait_for(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < within, "{what} did not happen");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// With the right password the changes arrive on the remote; with a wrong one the failure
/// shows in `/sync` and `/metrics`, and the password is in neither, nor in the log.
#[test]
fn a_smart_http_remote_with_basic_auth_takes_pushes_and_a_wrong_password_is_reported_not_logged() {
    let remote = HttpGitServer::start();
    let data = tempfile::tempdir().unwrap();
    let log = data.path().join("server.log");
    let server = serve(&data.path().join("good"), &remote.url(), PASSWORD, &log);
    let admin = Some(crate::helpers::ADMIN);
    let (status, _) = server.request("POST", "/teams", admin, Some(r#"{"name":"acme","displayName":"Acme"}"#));
    assert_eq!(status, 201);
    let head = || {
        git_in(&data.path().join("good/repo"), &["rev-parse", "HEAD"])
            .trim()
            .to_owned()
    };
    wait_for("the push", Duration::from_secs(20), || remote.head() == Some(head()));
    let (_, sync) = server.request("GET", "/sync", admin, None);
    assert!(!sync.contains(PASSWORD), "{sync}");
    drop(server);

    let wrong = "wrong-password-never-logged";
    let log = data.path().join("wrong.log");
    let server = serve(&data.path().join("bad"), &remote.url(), wrong, &log);
    let (status, _) = server.request(
        "POST",
        "/teams",
        admin,
        Some(r#"{"name":"other","displayName":"Other"}"#),
    );
    assert_eq!(status, 201, "writes do not wait for the remote");
    let mut sync = String::new();
    wait_for("the failure in /sync", Duration::from_secs(20), || {
        sync = server.request("GET", "/sync", admin, None).1;
        sync.contains("pushFailures") && !sync.contains("\"pushFailures\":0")
    });
    let state: serde_json::Value = serde_json::from_str(&sync).unwrap();
    assert!(state["lastError"].is_string(), "{state}");
    assert_eq!(state["pushes"], 0);
    assert!(state["ahead"].as_u64().unwrap() >= 1);
    let (_, metrics) = http(&format!("{}/metrics", server.base), "GET", None, None);
    assert!(!metrics.contains("locstore_remote_push_failures_total 0"), "{metrics}");
    let (_, health) = server.request("GET", "/healthz", None, None);
    drop(server);
    let logged = std::fs::read_to_string(&log).unwrap();
    for text in [&sync, &metrics, &health, &logged] {
        assert!(!text.contains(wrong), "the password leaked: {text}");
    }
    assert!(logged.contains("push failed"), "the failure is logged: {logged}");
    assert_ne!(
        remote.head(),
        Some(
            git_in(&data.path().join("bad/repo"), &["rev-parse", "HEAD"])
                .trim()
                .to_owned()
        )
    );
}

/// Over HTTPS the remote's certificate is checked: a server that trusts it pushes, one that
/// does not (the system's certificates only) pushes nothing and says why in `/sync`.
#[test]
fn an_https_remote_takes_pushes_when_its_certificate_is_trusted_and_only_then() {
    let remote = HttpGitServer::start_tls();
    let data = tempfile::tempdir().unwrap();
    let admin = Some(crate::helpers::ADMIN);
    let team = Some(r#"{"name":"acme","displayName":"Acme"}"#);

    let untrusting = serve(
        &data.path().join("untrusting"),
        &remote.url(),
        PASSWORD,
        &data.path().join("untrusting.log"),
    );
    assert_eq!(untrusting.request("POST", "/teams", admin, team).0, 201);
    let mut sync = serde_json::Value::Null;
    wait_for("the refused certificate in /sync", Duration::from_secs(20), || {
        sync = serde_json::from_str(&untrusting.request("GET", "/sync", admin, None).1).unwrap();
        sync["lastError"].is_string()
    });
    let error = sync["lastError"].as_str().unwrap_or_default().to_lowercase();
    assert!(error.contains("certificate"), "{sync}");
    assert_eq!(remote.head(), None, "nothing reached the remote");
    drop(untrusting);

    let trusting = serve_trusting(
        &data.path().join("trusting"),
        &remote.url(),
        PASSWORD,
        &data.path().join("trusting.log"),
        Some(&remote.certificate()),
    );
    assert_eq!(trusting.request("POST", "/teams", admin, team).0, 201);
    let head = || {
        git_in(&data.path().join("trusting/repo"), &["rev-parse", "HEAD"])
            .trim()
            .to_owned()
    };
    wait_for("the push over HTTPS", Duration::from_secs(20), || {
        remote.head() == Some(head())
    });
    // And back: a commit pushed to the remote by someone else is served within an interval.
    let work = tempfile::tempdir().unwrap();
    let clone = work.path().join("clone");
    let clone_url = format!("https://{USER}:{PASSWORD}@127.0.0.1:{}/strings.git", remote.port);
    let certificate = remote.certificate();
    let clone_git = |dir: &Path, args: &[&str]| {
        crate::helpers::git_in_env(dir, &[("GIT_SSL_CAINFO", certificate.as_ref())], args);
    };
    clone_git(work.path(), &["clone", "-q", &clone_url, "clone"]);
    let team_file = clone.join("teams/acme/team.toml");
    let text = std::fs::read_to_string(&team_file).unwrap();
    std::fs::write(&team_file, text.replace("\"Acme\"", "\"Acme over HTTPS\"")).unwrap();
    clone_git(&clone, &["commit", "-qam", "Rename the team"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    wait_for("the fetched rename", Duration::from_secs(20), || {
        trusting
            .request("GET", "/teams", admin, None)
            .1
            .contains("Acme over HTTPS")
    });
}
