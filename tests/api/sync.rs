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
    assert_eq!(
        app.git(&["status", "--porcelain"]),
        "",
        "working tree and index in line with HEAD"
    );
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
        app.git(&["status", "--porcelain"]),
        "",
        "the broken file is gone from the working tree"
    );
}
