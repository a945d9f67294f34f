//! The test harness: a locstore app on a temporary data directory, called in process through
//! poem's test client, with tokens of every access level and a hermetic `git` CLI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use locstore::app::App;
use locstore::config::{Config, Limits, LogFormat};
use locstore::formats::downloads::Clock;
use locstore::store::Durability;
use locstore::tokens::{Access, create_token};
use poem::EndpointExt;
use poem::http::{HeaderMap, Method, StatusCode};
use poem::test::TestClient;
use serde_json::Value;

pub const ADMIN: &str = "test-admin-token";

pub struct TestApp {
    pub dir: tempfile::TempDir,
    pub app: App,
    pub client: TestClient<poem::endpoint::BoxEndpoint<'static>>,
    pub clock: Clock,
    pub read_token: String,
    pub write_token: String,
    /// A write token limited to the team `acme`.
    pub acme_token: String,
}

/// What came back from a request.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_else(|| panic!("no header {name}"))
    }

    /// Asserts the status and the error shape; returns the error code.
    pub fn error_code(&self, status: StatusCode) -> String {
        assert_eq!(self.status, status, "body: {}", String::from_utf8_lossy(&self.body));
        let json = self.json();
        assert_eq!(json["success"], false, "{json}");
        let message = json["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "an error needs a message: {json}");
        json["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("no code: {json}"))
            .to_owned()
    }

    #[track_caller]
    pub fn assert_ok(&self, status: StatusCode) -> Value {
        assert_eq!(self.status, status, "body: {}", String::from_utf8_lossy(&self.body));
        self.json()
    }
}

pub fn config(data_dir: &Path) -> Config {
    Config {
        data_dir: data_dir.to_path_buf(),
        repo_dir: data_dir.join("repo"),
        exports_dir: data_dir.join("exports"),
        listen: "127.0.0.1:0".parse().unwrap(),
        public_url: None,
        export_ttl: Duration::from_secs(3600),
        durability: Durability::Os,
        limits: Limits::default(),
        log_format: LogFormat::Text,
        token_files: vec![data_dir.join("tokens.toml")],
        api_token: Some(ADMIN.to_owned()),
        remote: None,
        hook_secret: None,
        primary_url: None,
        webhook_failing_after: Duration::from_secs(24 * 3600),
        kept_cache_bytes: locstore::config::DEFAULT_KEPT_CACHE_BYTES,
    }
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_in(tempfile::tempdir().unwrap()).await
    }

    /// Starts an app on an existing data directory (a restart, or a prepared repository).
    pub async fn spawn_in(dir: tempfile::TempDir) -> Self {
        Self::spawn_with(dir, |_| {}).await
    }

    /// Starts an app with settings changed by `configure` (a remote, say).
    pub async fn spawn_with(dir: tempfile::TempDir, configure: impl FnOnce(&mut Config)) -> Self {
        let tokens = dir.path().join("tokens.toml");
        let token = |name: &str, access, teams: &[String]| {
            let existing = std::fs::read_to_string(&tokens).unwrap_or_default();
            if existing.contains(&format!("name = \"{name}\"")) {
                // A restart on the same data dir: tokens are kept in the test's own file.
                std::fs::read_to_string(dir.path().join(format!("{name}.secret"))).unwrap()
            } else {
                let secret = create_token(&tokens, name, access, teams).unwrap();
                std::fs::write(dir.path().join(format!("{name}.secret")), &secret).unwrap();
                secret
            }
        };
        let read_token = token("reader", Access::Read, &[]);
        let write_token = token("writer", Access::Write, &[]);
        let acme_token = token("acme-writer", Access::Write, &["acme".to_owned()]);
        let clock = Clock::manual(SystemTime::now());
        let mut config = config(dir.path());
        configure(&mut config);
        let app = App::open(&config, clock.clone()).expect("the app starts");
        let client = TestClient::new(app.endpoint().boxed());
        Self {
            dir,
            app,
            client,
            clock,
            read_token,
            write_token,
            acme_token,
        }
    }

    /// Stops the store (as a server shutdown does) and returns the data directory.
    pub async fn stop(self) -> tempfile::TempDir {
        let webhooks = self.app.state.webhooks.clone();
        tokio::task::spawn_blocking(move || webhooks.stop()).await.unwrap();
        self.app.state.store.shutdown().await;
        self.dir
    }

    pub fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    pub async fn call(&self, method: Method, path: &str, body: Option<Value>, token: Option<&str>) -> Reply {
        let mut request = self.client.request(method, path);
        if let Some(token) = token {
            request = request.header("X-Api-Token", token);
        }
        if let Some(body) = body {
            request = request.body_json(&body);
        }
        into_reply(request.send().await).await
    }

    /// Sends raw bytes (a file upload) with the admin token.
    pub async fn post_bytes(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        let request = self
            .client
            .request(Method::POST, path)
            .header("X-Api-Token", ADMIN)
            .content_type(content_type)
            .body(body);
        into_reply(request.send().await).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.call(Method::GET, path, None, Some(ADMIN)).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.call(Method::POST, path, Some(body), Some(ADMIN)).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.call(Method::PATCH, path, Some(body), Some(ADMIN)).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.call(Method::DELETE, path, None, Some(ADMIN)).await
    }

    /// Creates team `acme` with project `mobile` in `en`, `fr` and `pt-BR`.
    /// Every key of acme/mobile, page by page; `extra` adds to the query (`&at=...`).
    pub async fn every_key(&self, extra: &str) -> Vec<serde_json::Value> {
        let mut keys = Vec::new();
        for page in 1.. {
            let reply = self
                .get(&format!(
                    "/teams/acme/projects/mobile/keys?limit=1000&page={page}{extra}"
                ))
                .await
                .assert_ok(StatusCode::OK);
            let data = reply["data"].as_array().unwrap().clone();
            if data.is_empty() {
                break;
            }
            keys.extend(data);
        }
        keys
    }

    /// The names of the keys of acme/mobile that a query (`keyword=...&at=...`) answers.
    pub async fn key_names(&self, query: &str) -> Vec<String> {
        let reply = self
            .get(&format!("/teams/acme/projects/mobile/keys?{query}&limit=1000"))
            .await
            .assert_ok(StatusCode::OK);
        reply["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|key| key["name"].as_str().unwrap().to_owned())
            .collect()
    }

    pub async fn seed_project(&self) {
        self.post("/teams", serde_json::json!({"name": "acme", "displayName": "Acme"}))
            .await
            .assert_ok(StatusCode::CREATED);
        self.post(
            "/teams/acme/projects",
            serde_json::json!({"name": "mobile", "displayName": "Mobile", "languagesISO": ["en", "fr", "pt-BR"]}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
    }

    pub async fn create_key(&self, name: &str, tags: &[&str], translations: &[(&str, &str)]) -> Reply {
        let translations: Vec<Value> = translations
            .iter()
            .map(|(language, content)| serde_json::json!({"language": language, "content": content}))
            .collect();
        self.post(
            "/teams/acme/projects/mobile/keys",
            serde_json::json!({"name": name, "tags": tags, "translations": translations}),
        )
        .await
    }

    /// Runs `git` in the repository with no user or system configuration.
    pub fn git(&self, args: &[&str]) -> String {
        git_in(&self.repo(), args)
    }

    pub fn commit_count(&self) -> usize {
        self.git(&["rev-list", "--count", "HEAD"]).trim().parse().unwrap()
    }

    /// Waits until the writer has been idle long enough to sync the git index.
    pub async fn settle(&self) {
        tokio::time::sleep(Duration::from_millis(1200)).await;
    }

    /// `git status --porcelain` once the server has brought the index in step with HEAD (it
    /// does so when its writer is idle, which on a busy machine can take a while): polled for
    /// up to 60 s, then answered as it is.
    pub async fn clean_status(&self) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let status = self.git(&["status", "--porcelain"]);
            if status.is_empty() || std::time::Instant::now() > deadline {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

pub async fn into_reply(response: poem::test::TestResponse) -> Reply {
    let response = response.0;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().into_vec().await.unwrap();
    Reply { status, headers, body }
}

pub fn git_in(repo: &Path, args: &[&str]) -> String {
    git_in_env(repo, &[], args)
}

/// [`git_in`]'s output as bytes (a file's UTF-16 contents, from `git show`).
pub fn git_bytes(repo: &Path, args: &[&str]) -> Vec<u8> {
    let output = hermetic_git(repo).args(args).output().expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// [`git_in`] with more of git's environment (`GIT_INDEX_FILE`, `GIT_SSH_COMMAND`, ...).
pub fn git_in_env(repo: &Path, env: &[(&str, &std::ffi::OsStr)], args: &[&str]) -> String {
    let output = hermetic_git(repo)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The commit of `refs/heads/main` in `repo` (a remote's bare repository), if it has one.
pub fn main_branch_head(repo: &Path) -> Option<String> {
    let output = hermetic_git(repo)
        .args(["rev-parse", "--verify", "-q", "refs/heads/main"])
        .output()
        .expect("git runs");
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).unwrap().trim().to_owned())
}

pub fn hermetic_git(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Hand Editor")
        .env("GIT_AUTHOR_EMAIL", "hand@example.com")
        .env("GIT_COMMITTER_NAME", "Hand Editor")
        .env("GIT_COMMITTER_EMAIL", "hand@example.com");
    command
}

/// A loopback port that was free a moment ago, for a server a test starts (a git daemon,
/// nginx, sshd).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
