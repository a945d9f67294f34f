use poem::http::StatusCode;
use serde_json::json;

use crate::helpers::{TestApp, git_in};

#[tokio::test]
async fn a_new_repository_comes_from_the_template_with_one_commit() {
    let app = TestApp::spawn().await;
    assert_eq!(app.commit_count(), 1);
    assert!(app.repo().join("README.md").exists());
    assert!(app.git(&["ls-files"]).contains("README.md"));
    assert_eq!(app.git(&["status", "--porcelain"]), "");
}

#[tokio::test]
async fn each_change_is_one_commit_and_reads_failures_and_no_ops_are_none() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let after_seed = app.commit_count();
    assert_eq!(after_seed, 3);

    app.create_key("k", &["t"], &[("en", "Hello")])
        .await
        .assert_ok(StatusCode::CREATED);
    assert_eq!(app.commit_count(), after_seed + 1);

    // Reads commit nothing.
    app.get("/teams").await;
    app.get("/teams/acme/projects/mobile/keys?keyword=h").await;
    app.get("/teams/acme/projects/mobile/keys/export?type=json")
        .await
        .assert_ok(StatusCode::OK);
    // Failures commit nothing.
    app.create_key("k", &[], &[]).await.error_code(StatusCode::CONFLICT);
    app.create_key("x", &[], &[("de", "nein")])
        .await
        .error_code(StatusCode::BAD_REQUEST);
    // Updates that change nothing commit nothing.
    app.patch(
        "/teams/acme/projects/mobile/keys/k",
        json!({"tags": ["t"], "translations": [{"language": "en", "content": "Hello"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch("/teams/acme", json!({"displayName": "Acme"}))
        .await
        .assert_ok(StatusCode::OK);
    app.patch("/teams/acme/projects/mobile", json!({}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), after_seed + 1);

    app.settle().await;
    assert_eq!(
        app.clean_status().await,
        "",
        "the working tree and index match HEAD once idle"
    );
    app.git(&["fsck", "--strict"]);
}

#[tokio::test]
async fn commits_name_the_change_the_author_and_the_committer() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home")]).await;
    app.patch(
        "/teams/acme/projects/mobile/keys/home.title",
        json!({"translations": [{"language": "fr", "content": "Accueil"}]}),
    )
    .await;
    let log = app.git(&["log", "--format=%s|%an|%cn"]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines,
        [
            "Update key \"home.title\" in acme/mobile|api-token|locstore",
            "Create key \"home.title\" in acme/mobile|api-token|locstore",
            "Create project \"mobile\" in acme|api-token|locstore",
            "Create team \"acme\"|api-token|locstore",
            "Create the locstore data repository|locstore|locstore",
        ]
    );
    // The new text, and beside it the base text it was written against.
    let diff = app.git(&["show", "--format=", "HEAD"]);
    let added = |diff: &str| {
        diff.lines()
            .filter(|line| line.starts_with('+') && !line.starts_with("+++"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let lines = added(&diff);
    assert_eq!(lines.len(), 4, "{diff}");
    assert_eq!(lines[0], "+fr = \"Accueil\"", "{diff}");
    assert_eq!(lines[2], "+[based_on]", "{diff}");
    assert!(
        lines[3].starts_with("+fr = \"") && lines[3].len() == "+fr = \"12345678\"".len(),
        "{diff}"
    );
    // A text changed again against the same base text is one line.
    app.patch(
        "/teams/acme/projects/mobile/keys/home.title",
        json!({"translations": [{"language": "fr", "content": "Page d'accueil"}]}),
    )
    .await;
    let diff = app.git(&["show", "--format=", "HEAD"]);
    assert_eq!(added(&diff), ["+fr = \"Page d'accueil\""], "{diff}");
}

#[tokio::test]
async fn a_restart_on_the_same_data_dir_serves_the_same_data() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &["t"], &[("en", "Hello"), ("fr", "Salut")]).await;
    let keys_before = app.get("/teams/acme/projects/mobile/keys").await.json();
    let dir = app.stop().await;

    let app = TestApp::spawn_in(dir).await;
    assert_eq!(
        app.get("/teams").await.json(),
        json!({"data": [{"name": "acme", "displayName": "Acme"}]})
    );
    assert_eq!(app.get("/teams/acme/projects/mobile/keys").await.json(), keys_before);
    assert_eq!(app.clean_status().await, "");
    assert_eq!(app.commit_count(), 4);
}

#[tokio::test]
async fn a_repository_edited_and_committed_by_hand_is_served_as_edited() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("k", &[], &[("en", "Hello")]).await;
    let dir = app.stop().await;

    let repo = dir.path().join("repo");
    let key_file = git_in(
        &repo,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            "HEAD",
            "teams/acme/projects/mobile/keys",
        ],
    )
    .trim()
    .to_owned();
    std::fs::write(
        repo.join(&key_file),
        "name = \"k\"\ntags = [\"edited\"]\n\n[translations]\nen = \"Hi by hand\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.join("teams/beta")).unwrap();
    std::fs::write(repo.join("teams/beta/team.toml"), "display_name = \"Beta by hand\"\n").unwrap();
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-q", "-m", "Edit by hand"]);

    let app = TestApp::spawn_in(dir).await;
    let key = app
        .get("/teams/acme/projects/mobile/keys/k")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(
        key["data"],
        json!({"name": "k", "namespace": "", "tags": ["edited"], "translation": {"en": "Hi by hand"}, "description": "", "plural": false, "markup": false, "translatable": true, "files": {}, "outdated": [], "ignoreChecks": []})
    );
    let teams = app.get("/teams").await.json();
    assert_eq!(teams["data"][1], json!({"name": "beta", "displayName": "Beta by hand"}));
    // The server goes on committing on top of the hand-made commit.
    app.create_key("k2", &[], &[]).await.assert_ok(StatusCode::CREATED);
    assert_eq!(
        app.git(&["log", "-2", "--format=%s"]).lines().nth(1),
        Some("Edit by hand")
    );
}

#[tokio::test]
async fn after_a_crash_uncommitted_debris_is_cleared_at_start() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    // A crash leaves no clean-shutdown note; it may leave half-written files and git locks.
    let dir = app.stop().await;
    let repo = dir.path().join("repo");
    std::fs::remove_file(repo.join(".git/locstore-clean-shutdown")).unwrap();
    std::fs::write(repo.join("teams/acme/team.toml"), "display_name = \"half written\"\n").unwrap();
    std::fs::write(repo.join("teams/acme/stray.toml"), "junk").unwrap();
    std::fs::write(repo.join(".git/index.lock"), "").unwrap();

    let app = TestApp::spawn_in(dir).await;
    assert_eq!(
        app.get("/teams").await.json(),
        json!({"data": [{"name": "acme", "displayName": "Acme"}]})
    );
    assert!(!app.repo().join(".git/index.lock").exists());
    assert!(!app.repo().join("teams/acme/stray.toml").exists());
    assert_eq!(app.clean_status().await, "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_packs_are_merged_in_the_background_and_nothing_is_loose() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    // One at a time, so that each change is published as a pack of its own.
    for index in 0..520 {
        app.create_key(&format!("k{index}"), &[], &[("en", "x")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let count = |counts: &str, field: &str| -> usize {
        counts
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .unwrap()
            .parse()
            .unwrap()
    };
    // Maintenance merges packs while the writes go on, and once they pause it merges what
    // the last of them left: wait until the count is small and holds still.
    let mut last = (usize::MAX, String::new());
    for _ in 0..150 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let counts = app.git(&["count-objects", "-v"]);
        let packs = count(&counts, "packs: ");
        if packs <= 16 && packs == last.0 {
            break;
        }
        last = (packs, counts);
    }
    let (packs, counts) = last;
    assert!(
        packs <= 16,
        "520 changes were published as 520 packs; {packs} remain after the writes paused:\n{counts}"
    );
    assert_eq!(count(&counts, "count: "), 0, "no object is ever loose:\n{counts}");
    app.git(&["fsck", "--strict"]);
    assert_eq!(
        app.get("/teams/acme/projects/mobile/keys")
            .await
            .header("x-pagination-total-count"),
        "520"
    );
}

#[tokio::test]
async fn a_new_key_whose_file_a_hand_made_key_already_uses_is_refused() {
    use sha2::Digest;

    let app = TestApp::spawn().await;
    app.seed_project().await;
    let dir = app.stop().await;
    let repo = dir.path().join("repo");
    // The file where the layout would put a key named "newkey", holding another key.
    // The layout: the first three hex digits of the name's SHA-256, one folder each.
    let hex: String = sha2::Sha256::digest(b"newkey")
        .iter()
        .take(2)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let shard: Vec<String> = hex.chars().take(3).map(String::from).collect();
    let file = format!("teams/acme/projects/mobile/keys/{}/newkey.toml", shard.join("/"));
    std::fs::create_dir_all(repo.join(&file).parent().unwrap()).unwrap();
    std::fs::write(repo.join(&file), "name = \"hand made\"\n").unwrap();
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-q", "-m", "A key by hand"]);

    let app = TestApp::spawn_in(dir).await;
    app.get("/teams/acme/projects/mobile/keys/hand%20made")
        .await
        .assert_ok(StatusCode::OK);
    let reply = app.create_key("newkey", &[], &[]).await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    assert!(reply.json()["error"]["message"].as_str().unwrap().contains("hand made"));
    // Renaming the hand-made key frees the file.
    app.patch("/teams/acme/projects/mobile/keys/hand%20made", json!({"name": "moved"}))
        .await
        .assert_ok(StatusCode::OK);
    app.create_key("newkey", &[], &[]).await.assert_ok(StatusCode::CREATED);
}

#[tokio::test]
async fn a_repository_that_borrows_its_objects_is_adopted_and_written_to() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &[], &[("en", "Home")])
        .await
        .assert_ok(StatusCode::CREATED);
    let source = app.stop().await;
    // `git clone --shared` keeps no objects of its own: they are read from the source.
    let clone = tempfile::tempdir().unwrap();
    let target = clone.path().join("repo");
    git_in(
        source.path(),
        &["clone", "-q", "--shared", "repo", target.to_str().unwrap()],
    );
    assert!(target.join(".git/objects/info/alternates").exists());

    let app = TestApp::spawn_in(clone).await;
    assert_eq!(
        app.get("/teams/acme/projects/mobile/keys/home.title").await.json()["data"]["translation"]["en"],
        "Home"
    );
    app.create_key("home.subtitle", &[], &[("en", "Welcome")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(
        "/teams/acme/projects/mobile/keys/home.title",
        json!({"translations": [{"language": "en", "content": "Start"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.settle().await;
    assert_eq!(app.clean_status().await, "");
    app.git(&["fsck", "--strict"]);
    let log = app.git(&["log", "-2", "--format=%s"]);
    assert!(log.contains("home.subtitle") && log.contains("home.title"), "{log}");
}

async fn key_files_read(app: &TestApp) -> u64 {
    let reply = app.call(poem::http::Method::GET, "/metrics", None, None).await;
    let text = String::from_utf8(reply.body).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("locstore_key_files_read_total "))
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no locstore_key_files_read_total in\n{text}"))
}

fn encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'_' => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

async fn search(app: &TestApp, keyword: &str) -> Vec<String> {
    app.key_names(&format!("keyword={}", encoded(keyword))).await
}

#[tokio::test]
async fn a_big_projects_keys_are_saved_at_shutdown_and_read_back_with_later_hand_commits() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let keys: Vec<serde_json::Value> = (0..1500)
        .map(|n| {
            json!({"name": format!("screen{}.item{n:04}", n % 9), "tags": ["t"], "translations": [
                {"language": "en", "content": format!("Item {n}")},
                {"language": "fr", "content": format!("Élément {n}")},
            ]})
        })
        .collect();
    app.post("/teams/acme/projects/mobile/keys/import", json!({"keys": keys}))
        .await
        .assert_ok(StatusCode::OK);
    app.create_key("cart.items", &["cart"], &[("en", "Cart")]).await;
    let dir = app.stop().await;
    let repo = dir.path().join("repo");
    let saved: Vec<_> = std::fs::read_dir(repo.join(".git/locstore/keys"))
        .expect("the keys were saved at shutdown")
        .collect();
    assert_eq!(saved.len(), 1);

    // A restart reads the saved keys: no key file is parsed.
    let app = TestApp::spawn_in(dir).await;
    let before = app.every_key("").await;
    assert_eq!(before.len(), 1501);
    assert_eq!(key_files_read(&app).await, 0);
    assert_eq!(search(&app, "élément 1499").await.len(), 1);
    let dir = app.stop().await;

    // Commits made by hand while the server is stopped: an edit, a deletion, a new key.
    let file_of = |name: &str| {
        git_in(&repo, &["ls-files", "teams/acme/projects/mobile/keys"])
            .lines()
            .find(|path| {
                std::fs::read_to_string(repo.join(path))
                    .unwrap()
                    .starts_with(&format!("name = \"{name}\"\n"))
            })
            .unwrap()
            .to_owned()
    };
    let edited = file_of("screen1.item0010");
    std::fs::write(
        repo.join(&edited),
        "name = \"screen1.item0010\"\n\n[translations]\nen = \"Edited by hand\"\n",
    )
    .unwrap();
    git_in(&repo, &["rm", "-q", &file_of("screen2.item0011")]);
    std::fs::write(
        repo.join("teams/acme/projects/mobile/keys/by-hand.toml"),
        "name = \"added.by.hand\"\n\n[translations]\nfr = \"Ajoutée à la main\"\n",
    )
    .unwrap();
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-q", "-m", "Edit keys by hand"]);

    // Only the three changed files are read, and the answers are those of a full read.
    let app = TestApp::spawn_in(dir).await;
    let after = app.every_key("").await;
    assert_eq!(key_files_read(&app).await, 3);
    assert_eq!(after.len(), 1501);
    let key = app
        .get("/teams/acme/projects/mobile/keys/screen1.item0010")
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(key["data"]["translation"], json!({"en": "Edited by hand"}));
    app.get("/teams/acme/projects/mobile/keys/screen2.item0011")
        .await
        .error_code(StatusCode::NOT_FOUND);
    assert_eq!(search(&app, "edited by hand").await, ["screen1.item0010"]);
    assert_eq!(search(&app, "à la main").await, ["added.by.hand"]);
    assert!(
        search(&app, "Élément 11")
            .await
            .iter()
            .all(|name| name != "screen2.item0011")
    );
    // The server's own changes go on from there.
    app.create_key("after.restart", &[], &[("en", "New")])
        .await
        .assert_ok(StatusCode::CREATED);
    let served = app.every_key("").await;
    let dir = app.stop().await;

    // Without the saved keys, and with a damaged file, every key file is read: same answers.
    // (The full read saves the keys again, which the second round damages.)
    let damages: [fn(&std::path::Path); 2] = [
        |path| std::fs::remove_file(path).unwrap(),
        |path| {
            let mut bytes = std::fs::read(path).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x40;
            std::fs::write(path, bytes).unwrap();
        },
    ];
    let mut dir = dir;
    for damage in damages {
        let saved = std::fs::read_dir(repo.join(".git/locstore/keys"))
            .unwrap()
            .next()
            .expect("a saved keys file")
            .unwrap();
        damage(&saved.path());
        let app = TestApp::spawn_in(dir).await;
        assert_eq!(app.every_key("").await, served);
        assert_eq!(key_files_read(&app).await, 1502);
        assert_eq!(search(&app, "à la main").await, ["added.by.hand"]);
        dir = app.stop().await;
    }
}
