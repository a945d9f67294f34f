//! Commits that arrive through git: made by hand in the server's own repository while it
//! runs, or fetched from a remote.

use std::time::Duration;

use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::{TestApp, git_in};

const KEYS: &str = "/teams/acme/projects/mobile/keys";

/// Asks until `done` holds for the answer to `path`, for up to five seconds.
async fn eventually(
    app: &TestApp,
    path: &str,
    done: impl Fn(StatusCode, &serde_json::Value) -> bool,
) -> serde_json::Value {
    for _ in 0..50 {
        let reply = app.get(path).await;
        let body = if reply.body.is_empty() {
            serde_json::Value::Null
        } else {
            reply.json()
        };
        if done(reply.status, &body) {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{path} never reached the expected state");
}

fn key_file(app: &TestApp, name: &str) -> String {
    app.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        "HEAD",
        "teams/acme/projects/mobile/keys",
    ])
    .lines()
    .find(|path| path.ends_with(&format!("/{name}.toml")))
    .unwrap_or_else(|| panic!("no file for {name}"))
    .to_owned()
}

/// A hand edit, a new key file and a deleted one, committed with `git` in the server's
/// repository while it runs, are served without a restart; the history shows the commit.
#[tokio::test]
async fn commits_made_by_hand_while_the_server_runs_are_served() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    for name in ["edited", "doomed"] {
        app.create_key(name, &[], &[("en", "before")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    app.settle().await;
    let repo = app.repo();
    let edited = key_file(&app, "edited");
    let doomed = key_file(&app, "doomed");
    std::fs::write(
        repo.join(&edited),
        "name = \"edited\"\ntags = [\"hand\"]\n\n[translations]\nen = \"after\"\n",
    )
    .unwrap();
    let new_file = edited.replace("edited.toml", "added-by-hand.toml");
    std::fs::write(
        repo.join(&new_file),
        "name = \"added-by-hand\"\ntags = []\n\n[translations]\nen = \"new\"\n",
    )
    .unwrap();
    std::fs::remove_file(repo.join(&doomed)).unwrap();
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-qm", "Edit by hand"]);
    let hand_commit = app.git(&["rev-parse", "HEAD"]).trim().to_owned();

    let key = eventually(&app, &format!("{KEYS}/edited"), |_, body| {
        body["data"]["translation"]["en"] == "after"
    })
    .await;
    assert_eq!(key["data"]["tags"], json!(["hand"]));
    let added = app
        .get(&format!("{KEYS}/added-by-hand"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(added["data"]["translation"]["en"], "new");
    assert_eq!(app.get(&format!("{KEYS}/doomed")).await.status, StatusCode::NOT_FOUND);
    let page = app.get(&format!("{KEYS}?keyword=new")).await.assert_ok(StatusCode::OK);
    assert_eq!(page["data"][0]["name"], "added-by-hand");
    let history = app
        .get(&format!("{KEYS}/edited/history"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(history["data"][0]["subject"], "Edit by hand");
    assert_eq!(history["data"][0]["commit"], hand_commit);

    // The server goes on committing on top of the hand commit.
    app.patch(
        &format!("{KEYS}/edited"),
        json!({"translations": [{"language": "en", "content": "by the api"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(app.git(&["rev-parse", "HEAD~1"]).trim(), hand_commit);
    app.settle().await;
    assert_eq!(app.clean_status().await, "", "working tree and index in line with HEAD");
    git_in(&repo, &["fsck", "--no-progress"]);
}

/// A hand commit with a key file that does not parse is not served: the branch goes back to
/// the last valid commit (the refused one stays in the reflog) and writes go on.
#[tokio::test]
async fn an_invalid_commit_made_by_hand_is_not_served() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "valid")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.settle().await;
    let repo = app.repo();
    let valid = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
    std::fs::write(
        repo.join(key_file(&app, "k")),
        "name = \"k\"\n[translations\nen = broken\n",
    )
    .unwrap();
    git_in(&repo, &["commit", "-qam", "Break a key by hand"]);
    let refused = app.git(&["rev-parse", "HEAD"]).trim().to_owned();

    for _ in 0..50 {
        if app.git(&["rev-parse", "HEAD"]).trim() == valid {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(app.git(&["rev-parse", "HEAD"]).trim(), valid, "the branch is back");
    assert!(app.git(&["reflog", "--format=%H"]).contains(&refused));
    let key = app.get(&format!("{KEYS}/k")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["en"], "valid");
    app.patch(
        &format!("{KEYS}/k"),
        json!({"translations": [{"language": "en", "content": "still writable"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    assert_eq!(app.git(&["rev-parse", "HEAD~1"]).trim(), valid);
    app.settle().await;
    assert_eq!(
        app.clean_status().await,
        "",
        "the broken file is gone from the working tree"
    );
}

/// A bare repository served by `git daemon` on a loopback port, with pushes allowed.
pub struct GitDaemon {
    root: tempfile::TempDir,
    port: u16,
    child: Option<std::process::Child>,
}

impl GitDaemon {
    pub fn start() -> Self {
        let root = tempfile::tempdir().unwrap();
        git_in(root.path(), &["init", "-q", "--bare", "-b", "main", "strings.git"]);
        let port = crate::helpers::free_port();
        let mut daemon = Self {
            root,
            port,
            child: None,
        };
        daemon.resume();
        daemon
    }

    /// (Re)starts the daemon on its port.
    pub fn resume(&mut self) {
        // git-daemon itself, not `git daemon`, which would run it as a child that a kill of
        // the parent leaves serving.
        let exec_path = git_in(self.root.path(), &["--exec-path"]);
        let child = std::process::Command::new(std::path::Path::new(exec_path.trim()).join("git-daemon"))
            .args([
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
            ])
            .arg(format!("--port={}", self.port))
            .arg(format!("--base-path={}", self.root.path().display()))
            .arg(self.root.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("git daemon starts");
        self.child = Some(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("git daemon does not listen");
    }

    pub fn pause(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn url(&self) -> String {
        format!("git://127.0.0.1:{}/strings.git", self.port)
    }

    pub fn bare(&self) -> std::path::PathBuf {
        self.root.path().join("strings.git")
    }

    /// The remote branch's commit, if it has one.
    pub fn head(&self) -> Option<String> {
        crate::helpers::main_branch_head(&self.bare())
    }

    /// A server's settings for this remote.
    fn settings(&self, pull_interval: Duration, replica: bool) -> locstore::sync::RemoteSettings {
        locstore::sync::RemoteSettings {
            url: self.url(),
            branch: "main".into(),
            token: None,
            ssh_key: None,
            pull_interval,
            replica,
        }
    }

    /// A working clone of the remote, for commits made elsewhere.
    pub fn clone_into(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let clone = dir.join("clone");
        git_in(dir, &["clone", "-q", &self.url(), clone.to_str().unwrap()]);
        clone
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        self.pause();
    }
}

const HOOK_SECRET: &str = "hook-secret-for-tests";

pub async fn spawn_replicating(daemon: &GitDaemon, pull_interval: Duration) -> TestApp {
    let settings = daemon.settings(pull_interval, false);
    TestApp::spawn_with(tempfile::tempdir().unwrap(), move |config| {
        config.remote = Some(settings);
        config.hook_secret = Some(HOOK_SECRET.into());
    })
    .await
}

/// Waits until the remote's branch is the server's HEAD.
pub async fn pushed(app: &TestApp, daemon: &GitDaemon, within: Duration) {
    let started = std::time::Instant::now();
    loop {
        let head = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
        if daemon.head().as_deref() == Some(head.as_str()) {
            return;
        }
        assert!(started.elapsed() < within, "the remote never caught up with {head}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn sync_state(app: &TestApp) -> serde_json::Value {
    app.get("/sync").await.assert_ok(StatusCode::OK)
}

/// 1,000 changes from 8 clients reach the remote in the server's order, every commit and
/// nothing else; `/sync`, `/healthz` and `/metrics` say it is in step.
#[tokio::test]
async fn every_change_is_pushed_to_the_remote_in_order() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    app.seed_project().await;
    let app = std::sync::Arc::new(app);
    let mut clients = Vec::new();
    for client in 0..8 {
        let app = app.clone();
        clients.push(tokio::spawn(async move {
            for change in 0..125 {
                let name = format!("c{client}-k{}", change % 5);
                let body = json!({"translations": [{"language": "en", "content": format!("{change}")}]});
                if change < 5 {
                    app.post(KEYS, json!({"name": name, "translations": body["translations"]}))
                        .await
                        .assert_ok(StatusCode::CREATED);
                } else {
                    app.patch(&format!("{KEYS}/{name}"), body)
                        .await
                        .assert_ok(StatusCode::OK);
                }
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    pushed(&app, &daemon, Duration::from_secs(30)).await;
    let ours = app.git(&["rev-list", "--first-parent", "HEAD"]);
    let theirs = crate::helpers::git_in(&daemon.bare(), &["rev-list", "--first-parent", "main"]);
    assert_eq!(ours, theirs, "the same commits in the same order");
    assert!(ours.lines().count() >= 1000);
    let refs = crate::helpers::git_in(&daemon.bare(), &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs.trim(), "refs/heads/main", "nothing but the branch");
    crate::helpers::git_in(&daemon.bare(), &["fsck", "--no-progress"]);

    let state = eventually(&app, "/sync", |_, state| {
        state["ahead"] == 0 && state["remoteHead"] == state["head"]
    })
    .await;
    assert_eq!(state["remote"], daemon.url());
    assert_eq!(state["ahead"], 0);
    assert_eq!(state["behind"], 0);
    assert_eq!(state["remoteHead"], state["head"]);
    assert!(state["pushes"].as_u64().unwrap() >= 1);
    assert!(state["lastPush"].is_string());
    let health = app.get("/healthz").await.assert_ok(StatusCode::OK);
    assert_eq!(health["remoteHead"], state["head"]);
    let metrics = String::from_utf8(app.get("/metrics").await.body).unwrap();
    assert!(metrics.contains("locstore_remote_lag_commits 0"), "{metrics}");
    assert!(metrics.contains("locstore_remote_pushes_total"));
    // Readers without admin access do not see it.
    let reader = app
        .call(poem::http::Method::GET, "/sync", None, Some(&app.read_token))
        .await;
    assert_eq!(reader.status, StatusCode::FORBIDDEN);
}

/// With the remote down, writes go on and wait in `/sync` (`ahead`, `lastError`); once it
/// is back they all arrive.
#[tokio::test]
async fn writes_go_on_while_the_remote_is_down_and_arrive_when_it_is_back() {
    let mut daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    app.seed_project().await;
    pushed(&app, &daemon, Duration::from_secs(10)).await;
    daemon.pause();
    for index in 0..50 {
        app.create_key(&format!("offline-{index}"), &[], &[("en", "written while down")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let mut state = sync_state(&app).await;
    for _ in 0..50 {
        if state["lastError"].is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        state = sync_state(&app).await;
    }
    assert!(
        state["lastError"]
            .as_str()
            .is_some_and(|error| error.starts_with("push")),
        "{state}"
    );
    assert!(state["pushFailures"].as_u64().unwrap() >= 1);
    daemon.resume();
    pushed(&app, &daemon, Duration::from_secs(30)).await;
    // The remote has the commits a moment before the state says so.
    let state = eventually(&app, "/sync", |_, state| {
        state["ahead"] == 0 && state["lastError"].is_null()
    })
    .await;
    assert!(state["pushes"].as_u64().unwrap() >= 2);
    assert_eq!(
        app.git(&["rev-list", "--count", "HEAD"]),
        crate::helpers::git_in(&daemon.bare(), &["rev-list", "--count", "main"])
    );
}

/// A push sends whole objects: the primary does not spend its cores searching for deltas
/// (the git host finds them when it repacks).
#[tokio::test]
async fn pushes_send_whole_objects() {
    let mut daemon = GitDaemon::start();
    // The remote keeps each push's pack as it came rather than unpacking small ones.
    git_in(&daemon.bare(), &["config", "receive.unpackLimit", "1"]);
    let app = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    app.seed_project().await;
    pushed(&app, &daemon, Duration::from_secs(10)).await;
    // Versions of one key file and of the trees above it, alike enough for deltas, all in the
    // next push.
    daemon.pause();
    let long = "a text long enough to be worth a delta, ".repeat(4);
    app.create_key("grows", &[], &[("en", &long)])
        .await
        .assert_ok(StatusCode::CREATED);
    for round in 0..12 {
        let body = json!({"translations": [{"language": "en", "content": format!("{long}{round}")}]});
        app.patch("/teams/acme/projects/mobile/keys/grows", body)
            .await
            .assert_ok(StatusCode::OK);
    }
    daemon.resume();
    pushed(&app, &daemon, Duration::from_secs(30)).await;
    let (objects, deltas) = packed_objects(&daemon.bare());
    assert_eq!(deltas, Vec::<String>::new(), "deltas were pushed");
    assert!(objects >= 13 * 3, "{objects} objects");
    git_in(&daemon.bare(), &["fsck", "--strict"]);
}

/// The objects in a bare repository's packs: how many, and the lines of `git verify-pack -v`
/// of those stored as deltas (`id type size size-in-pack offset depth base`; a whole object
/// has no depth and base).
pub fn packed_objects(bare: &std::path::Path) -> (usize, Vec<String>) {
    let (mut objects, mut deltas) = (0, Vec::new());
    for entry in std::fs::read_dir(bare.join("objects/pack")).unwrap() {
        let pack = entry.unwrap().path();
        if pack.extension().is_none_or(|extension| extension != "idx") {
            continue;
        }
        let listing = git_in(bare, &["verify-pack", "-v", pack.to_str().unwrap()]);
        for line in listing
            .lines()
            .filter(|line| line.len() > 40 && line.as_bytes()[40] == b' ')
        {
            objects += 1;
            if line.split_whitespace().count() != 5 {
                deltas.push(line.to_owned());
            }
        }
    }
    (objects, deltas)
}

fn clone_git(clone: &std::path::Path, args: &[&str]) -> String {
    git_in(clone, args)
}

/// A commit pushed to the remote from a clone (an edited key, a new key file, a deleted one)
/// is served at once after the hook; without the hook, within one interval.
#[tokio::test]
async fn commits_pushed_to_the_remote_are_served_after_the_hook_or_the_interval() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    app.seed_project().await;
    for name in ["edited", "doomed"] {
        app.create_key(name, &[], &[("en", "before")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    pushed(&app, &daemon, Duration::from_secs(10)).await;
    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    let edited = key_file(&app, "edited");
    let doomed = key_file(&app, "doomed");
    std::fs::write(
        clone.join(&edited),
        "name = \"edited\"\ntags = []\n\n[translations]\nen = \"reviewed\"\n",
    )
    .unwrap();
    std::fs::write(
        clone.join(edited.replace("edited.toml", "from-review.toml")),
        "name = \"from-review\"\ntags = []\n\n[translations]\nen = \"new\"\n",
    )
    .unwrap();
    std::fs::remove_file(clone.join(&doomed)).unwrap();
    clone_git(&clone, &["add", "-A"]);
    clone_git(&clone, &["commit", "-qm", "Reviewed strings"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    let reviewed = clone_git(&clone, &["rev-parse", "HEAD"]).trim().to_owned();

    // A wrong secret is refused and triggers nothing.
    let refused = app
        .client
        .post("/hooks/git")
        .header("X-Locstore-Hook-Secret", "wrong")
        .send()
        .await;
    refused.assert_status(StatusCode::UNAUTHORIZED);
    let accepted = app
        .client
        .post("/hooks/git")
        .header("X-Locstore-Hook-Secret", HOOK_SECRET)
        .send()
        .await;
    accepted.assert_status(StatusCode::ACCEPTED);
    let key = eventually(&app, &format!("{KEYS}/edited"), |_, body| {
        body["data"]["translation"]["en"] == "reviewed"
    })
    .await;
    assert_eq!(key["data"]["name"], "edited");
    assert_eq!(app.git(&["rev-parse", "HEAD"]).trim(), reviewed, "a fast-forward");
    app.get(&format!("{KEYS}/from-review")).await.assert_ok(StatusCode::OK);
    assert_eq!(app.get(&format!("{KEYS}/doomed")).await.status, StatusCode::NOT_FOUND);
    eventually(&app, "/sync", |_, state| state["behind"] == 0).await;

    // Without the hook: a server that fetches every 300 ms serves it by itself.
    let daemon2 = GitDaemon::start();
    let app2 = spawn_replicating(&daemon2, Duration::from_millis(300)).await;
    app2.seed_project().await;
    pushed(&app2, &daemon2, Duration::from_secs(10)).await;
    let work2 = tempfile::tempdir().unwrap();
    let clone2 = daemon2.clone_into(work2.path());
    let file = "teams/acme/projects/mobile/keys/0/0/0/by-interval.toml";
    std::fs::create_dir_all(clone2.join("teams/acme/projects/mobile/keys/0/0/0")).unwrap();
    std::fs::write(
        clone2.join(file),
        "name = \"by-interval\"\ntags = []\n\n[translations]\nen = \"fetched\"\n",
    )
    .unwrap();
    clone_git(&clone2, &["add", "-A"]);
    clone_git(&clone2, &["commit", "-qm", "A key made by hand"]);
    clone_git(&clone2, &["push", "-q", "origin", "main"]);
    eventually(&app2, &format!("{KEYS}/by-interval"), |status, _| {
        status == StatusCode::OK
    })
    .await;
}

/// The same key changed on both sides: the merge keeps both commits and takes the remote's
/// version of the key; the server's acknowledged write stays in history, and the merge is
/// pushed.
#[tokio::test]
async fn a_conflicting_change_merges_with_the_remote_side_winning() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "base")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key("other", &[], &[("en", "base")])
        .await
        .assert_ok(StatusCode::CREATED);
    pushed(&app, &daemon, Duration::from_secs(10)).await;
    let base = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    std::fs::write(
        clone.join(key_file(&app, "k")),
        "name = \"k\"\ntags = []\n\n[translations]\nen = \"theirs\"\n",
    )
    .unwrap();
    clone_git(&clone, &["commit", "-qam", "Their change of k"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    let theirs = clone_git(&clone, &["rev-parse", "HEAD"]).trim().to_owned();

    // Ours, made before the server fetched theirs: its push is refused, the server fetches,
    // merges and pushes again.
    let ours = app
        .patch(
            &format!("{KEYS}/k"),
            json!({"translations": [{"language": "en", "content": "ours"}]}),
        )
        .await;
    ours.assert_ok(StatusCode::OK);
    let our_commit = ours.header("x-locstore-commit").to_owned();
    app.patch(
        &format!("{KEYS}/other"),
        json!({"translations": [{"language": "en", "content": "only ours"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    eventually(&app, &format!("{KEYS}/k"), |_, body| {
        body["data"]["translation"]["en"] == "theirs"
    })
    .await;
    pushed(&app, &daemon, Duration::from_secs(30)).await;
    let other = app.get(&format!("{KEYS}/other")).await.assert_ok(StatusCode::OK);
    assert_eq!(
        other["data"]["translation"]["en"], "only ours",
        "a file only we changed keeps ours"
    );
    let parents = app.git(&["rev-list", "--parents", "-n", "1", "HEAD"]);
    assert_eq!(parents.split_whitespace().count(), 3, "a merge commit: {parents}");
    assert!(parents.contains(&theirs));
    let all = app.git(&["rev-list", "HEAD"]);
    assert!(all.contains(&our_commit), "the acknowledged write stays in history");
    assert!(app.git(&["log", "-1", "--format=%s"]).starts_with("Merge"));
    let history = app.get(&format!("{KEYS}/k/history")).await.assert_ok(StatusCode::OK);
    let subjects: Vec<&str> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["subject"].as_str().unwrap())
        .collect();
    assert!(subjects[0].starts_with("Merge"), "{subjects:?}");

    // Changes across the merge: both sides' keys, once each.
    let changes = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={base}"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        changes["data"],
        json!([{"name": "k", "namespace": "", "change": "updated"}, {"name": "other", "namespace": "", "change": "updated"}])
    );
    let since_theirs = app
        .get(&format!("/teams/acme/projects/mobile/changes?since={theirs}"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        since_theirs["data"],
        json!([{"name": "other", "namespace": "", "change": "updated"}])
    );
}

/// A remote commit with a key file that does not parse is not served; `/sync` says why; a
/// newer valid commit is taken again.
#[tokio::test]
async fn an_invalid_remote_commit_is_not_served_and_is_reported() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_millis(300)).await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "valid")])
        .await
        .assert_ok(StatusCode::CREATED);
    pushed(&app, &daemon, Duration::from_secs(10)).await;
    let served = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    let file = key_file(&app, "k");
    std::fs::write(clone.join(&file), "name = \"k\"\n[translations\n").unwrap();
    clone_git(&clone, &["commit", "-qam", "Broken by hand"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    let mut state = sync_state(&app).await;
    for _ in 0..50 {
        if state["lastError"]
            .as_str()
            .is_some_and(|error| error.contains("not served"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        state = sync_state(&app).await;
    }
    assert!(state["lastError"].as_str().unwrap().contains(&file), "{state}");
    assert!(state["pullFailures"].as_u64().unwrap() >= 1);
    assert_eq!(app.git(&["rev-parse", "HEAD"]).trim(), served);
    let key = app.get(&format!("{KEYS}/k")).await.assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"]["en"], "valid");

    // A fix on top is taken.
    std::fs::write(
        clone.join(&file),
        "name = \"k\"\ntags = []\n\n[translations]\nen = \"fixed\"\n",
    )
    .unwrap();
    clone_git(&clone, &["commit", "-qam", "Fixed by hand"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    eventually(&app, &format!("{KEYS}/k"), |_, body| {
        body["data"]["translation"]["en"] == "fixed"
    })
    .await;
}

/// A new server pointed at a remote that has data (a restore from the git host, a primary
/// set up again) takes the remote's history as it is, serves it and pushes on from it. A
/// server that has data of its own and an unrelated remote keeps its data and reports why.
#[tokio::test]
async fn a_new_server_takes_the_remotes_history_and_one_with_data_keeps_its_own() {
    let daemon = GitDaemon::start();
    let first = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    first.seed_project().await;
    for index in 0..5 {
        first
            .create_key(&format!("k{index}"), &["t"], &[("en", "kept")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    pushed(&first, &daemon, Duration::from_secs(10)).await;
    let keys_then = first.every_key("").await;
    let remote_head = daemon.head().unwrap();
    drop(first.stop().await);

    let second = spawn_replicating(&daemon, Duration::from_millis(200)).await;
    eventually(&second, &format!("{KEYS}/k4"), |status, _| status == StatusCode::OK).await;
    assert_eq!(second.every_key("").await, keys_then);
    // The remote's commits are the branch now, not merged with the new server's first one.
    assert_eq!(second.git(&["rev-parse", "HEAD"]).trim(), remote_head);
    second
        .create_key("k5", &[], &[("en", "new")])
        .await
        .assert_ok(StatusCode::CREATED);
    pushed(&second, &daemon, Duration::from_secs(10)).await;
    assert_eq!(git_in(&daemon.bare(), &["rev-parse", "main~1"]).trim(), remote_head);
    second.settle().await;
    second.git(&["fsck", "--strict"]);
    assert_eq!(second.clean_status().await, "");

    // A server with a team of its own, then pointed at the same remote: nothing of either
    // side is dropped; the pull fails and says why.
    let own = TestApp::spawn().await;
    own.post("/teams", json!({"name": "mine", "displayName": "Mine"}))
        .await
        .assert_ok(StatusCode::CREATED);
    let own_head = own.git(&["rev-parse", "HEAD"]);
    let dir = own.stop().await;
    let settings = daemon.settings(Duration::from_millis(200), false);
    let own = TestApp::spawn_with(dir, move |config| config.remote = Some(settings)).await;
    eventually(&own, "/sync", |_, state| state["lastError"].is_string()).await;
    assert_eq!(own.git(&["rev-parse", "HEAD"]), own_head);
    let teams = own.get("/teams").await.assert_ok(StatusCode::OK);
    let names: Vec<&str> = teams["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|team| team["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mine"]);
    assert_eq!(daemon.head().unwrap(), second.git(&["rev-parse", "HEAD"]).trim());
}

/// A read replica clones the remote, follows the primary through it (snapshots too),
/// answers reads equal to the primary's at the same commit, exports, and refuses every change
/// with 405 naming the primary.
#[tokio::test]
async fn a_replica_follows_the_primary_and_refuses_changes() {
    let daemon = GitDaemon::start();
    let primary = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    primary.seed_project().await;
    for index in 0..20 {
        primary
            .create_key(&format!("k{index:02}"), &["t"], &[("en", "first")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    pushed(&primary, &daemon, Duration::from_secs(10)).await;

    let settings = daemon.settings(Duration::from_millis(200), true);
    let replica = TestApp::spawn_with(tempfile::tempdir().unwrap(), move |config| {
        config.remote = Some(settings);
        config.primary_url = Some("http://primary.example:8080".into());
    })
    .await;
    let same = |path: &'static str| {
        let (primary, replica) = (&primary, &replica);
        async move {
            let (a, b) = (primary.get(path).await, replica.get(path).await);
            assert_eq!(a.status, StatusCode::OK, "{path}");
            assert_eq!(a.header("x-locstore-commit"), b.header("x-locstore-commit"), "{path}");
            assert_eq!(a.json(), b.json(), "{path}");
        }
    };
    same("/teams/acme/projects/mobile/keys?limit=50").await;
    same("/teams/acme/projects/mobile").await;

    // A change on the primary reaches the replica through the remote.
    primary
        .patch(
            &format!("{KEYS}/k07"),
            json!({"translations": [{"language": "en", "content": "second"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    primary.delete(&format!("{KEYS}/k08")).await.assert_ok(StatusCode::OK);
    eventually(&replica, &format!("{KEYS}/k08"), |status, _| {
        status == StatusCode::NOT_FOUND
    })
    .await;
    same("/teams/acme/projects/mobile/keys?limit=50").await;
    same("/teams/acme/projects/mobile/keys/k07").await;
    same("/teams/acme/projects/mobile/keys/k07/history").await;

    // Snapshots reach the replica too: it lists them and reads at them.
    primary
        .post("/teams/acme/projects/mobile/snapshots", json!({"name": "v1"}))
        .await
        .assert_ok(StatusCode::CREATED);
    primary
        .patch(
            &format!("{KEYS}/k07"),
            json!({"translations": [{"language": "en", "content": "third"}]}),
        )
        .await
        .assert_ok(StatusCode::OK);
    eventually(&replica, "/teams/acme/projects/mobile/snapshots", |_, body| {
        body["data"][0]["name"] == "v1"
    })
    .await;
    eventually(&replica, &format!("{KEYS}/k07"), |_, body| {
        body["data"]["translation"]["en"] == "third"
    })
    .await;
    same("/teams/acme/projects/mobile/snapshots").await;
    same("/teams/acme/projects/mobile/keys/k07?at=v1").await;
    let then = replica
        .get(&format!("{KEYS}/k07?at=v1"))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(then["data"]["translation"]["en"], "second");
    assert_eq!(
        git_in(&daemon.bare(), &["tag", "--list", "locstore/*"]).trim(),
        "locstore/acme/mobile/v1"
    );
    replica
        .get(&format!("{KEYS}/export?type=json&languages=en"))
        .await
        .assert_ok(StatusCode::OK);

    // A deleted snapshot goes from the remote and the replica too.
    primary
        .delete("/teams/acme/projects/mobile/snapshots/v1")
        .await
        .assert_ok(StatusCode::OK);
    eventually(&replica, "/teams/acme/projects/mobile/snapshots", |_, body| {
        body["data"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    assert_eq!(git_in(&daemon.bare(), &["tag", "--list", "locstore/*"]).trim(), "");
    assert_eq!(
        replica
            .get(&format!("{KEYS}/k07?at=v1"))
            .await
            .error_code(StatusCode::NOT_FOUND),
        "not_found"
    );

    // Changes are refused, before anything is read or written.
    let commits = replica.commit_count();
    for (method, path, body) in [
        (
            poem::http::Method::POST,
            "/teams",
            Some(json!({"name": "other", "displayName": "Other"})),
        ),
        (
            poem::http::Method::PATCH,
            "/teams/acme/projects/mobile/keys/k07",
            Some(json!({"translations": [{"language": "en", "content": "x"}]})),
        ),
        (poem::http::Method::DELETE, "/teams/acme/projects/mobile/keys/k07", None),
        (
            poem::http::Method::POST,
            "/teams/acme/projects/mobile/snapshots",
            Some(json!({"name": "v1"})),
        ),
    ] {
        let reply = replica
            .call(method.clone(), path, body, Some(crate::helpers::ADMIN))
            .await;
        assert_eq!(
            reply.error_code(StatusCode::METHOD_NOT_ALLOWED),
            "read_only",
            "{method} {path}"
        );
        assert!(
            reply.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("http://primary.example:8080")
        );
        assert_eq!(reply.header("allow"), "GET, HEAD");
    }
    assert_eq!(replica.commit_count(), commits, "nothing was committed");
    let state = eventually(&replica, "/sync", |_, state| state["behind"] == 0).await;
    assert_eq!(state["remote"], daemon.url());
    assert_eq!(state["pushes"], 0, "a replica never pushes");
    // Its clone (files written by git's read-tree) and the commits it followed leave the
    // working tree and index in line with HEAD.
    replica.settle().await;
    assert_eq!(replica.clean_status().await, "");
    git_in(&replica.repo(), &["fsck", "--no-progress"]);
}

/// Packs in a repository's object store.
fn pack_count(repo: &std::path::Path) -> usize {
    std::fs::read_dir(repo.join(".git/objects/pack"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|extension| extension == "pack"))
        .count()
}

#[tokio::test]
async fn a_replica_merges_the_packs_its_fetches_bring() {
    let daemon = GitDaemon::start();
    let primary = spawn_replicating(&daemon, Duration::from_secs(3600)).await;
    primary.seed_project().await;
    pushed(&primary, &daemon, Duration::from_secs(10)).await;
    let settings = daemon.settings(Duration::from_millis(50), true);
    let replica = TestApp::spawn_with(tempfile::tempdir().unwrap(), move |config| {
        config.remote = Some(settings);
    })
    .await;
    eventually(&replica, "/teams/acme/projects/mobile", |status, _| {
        status == StatusCode::OK
    })
    .await;

    // Each change reaches the replica by a fetch of its own, and each fetch stores a pack.
    let changes = 24;
    for index in 0..changes {
        let name = format!("p{index:02}");
        primary
            .create_key(&name, &["t"], &[("en", "text")])
            .await
            .assert_ok(StatusCode::CREATED);
        eventually(&replica, &format!("{KEYS}/{name}"), |status, _| {
            status == StatusCode::OK
        })
        .await;
    }
    // Maintenance merges them once the replica is idle, as it merges the writer's packs.
    let mut packs = pack_count(&replica.repo());
    for _ in 0..100 {
        if packs < changes / 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        packs = pack_count(&replica.repo());
    }
    assert!(packs < changes / 2, "{packs} packs after {changes} fetches");
    replica.settle().await;
    assert_eq!(replica.clean_status().await, "");
    git_in(&replica.repo(), &["fsck", "--no-progress"]);
}

/// A base text changed in a commit pulled from the remote outdates the translations; the
/// work queue and the stats count it, as they count a hand commit made while the server runs.
#[tokio::test]
async fn a_pulled_commit_that_changes_a_base_text_outdates_its_translations() {
    let daemon = GitDaemon::start();
    let app = spawn_replicating(&daemon, Duration::from_millis(300)).await;
    app.seed_project().await;
    for name in ["pulled", "by-hand"] {
        app.create_key(name, &[], &[("en", "Hello"), ("fr", "Bonjour"), ("pt-BR", "Olá")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let stats = app
        .get("/teams/acme/projects/mobile/stats")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"]["languages"][1]["outdated"], 0);
    pushed(&app, &daemon, Duration::from_secs(10)).await;

    // A reviewer changes the base text in a clone and pushes.
    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    let path = key_file(&app, "pulled");
    let text = std::fs::read_to_string(clone.join(&path)).unwrap();
    assert!(text.contains("[based_on]"), "{text}");
    std::fs::write(
        clone.join(&path),
        text.replace("en = \"Hello\"", "en = \"Hello again\""),
    )
    .unwrap();
    clone_git(&clone, &["commit", "-qam", "Reviewed the English"]);
    clone_git(&clone, &["push", "-q", "origin", "main"]);
    let key = eventually(&app, &format!("{KEYS}/pulled"), |_, body| {
        body["data"]["translation"]["en"] == "Hello again"
    })
    .await;
    assert_eq!(key["data"]["outdated"], json!(["fr", "pt-BR"]));
    let queue = app.get(&format!("{KEYS}?outdated=fr")).await.assert_ok(StatusCode::OK);
    let names: Vec<&str> = queue["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| key["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pulled"]);

    // A hand commit in the server's own repository, while it runs.
    app.settle().await;
    let repo = app.repo();
    let path = key_file(&app, "by-hand");
    let text = std::fs::read_to_string(repo.join(&path)).unwrap();
    std::fs::write(repo.join(&path), text.replace("en = \"Hello\"", "en = \"Hi\"")).unwrap();
    git_in(&repo, &["commit", "-qam", "Edit by hand"]);
    eventually(&app, &format!("{KEYS}/by-hand"), |_, body| {
        body["data"]["translation"]["en"] == "Hi"
    })
    .await;
    let stats = app
        .get("/teams/acme/projects/mobile/stats")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"]["languages"][1]["language"], "fr");
    assert_eq!(stats["data"]["languages"][1]["outdated"], 2);
    assert_eq!(stats["data"]["languages"][2]["outdated"], 2);
    // Confirming goes back to the remote like any change.
    app.post(&format!("{KEYS}/pulled/confirm"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    let stats = app
        .get("/teams/acme/projects/mobile/stats")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(stats["data"]["languages"][1]["outdated"], 1);
}
