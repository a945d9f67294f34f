//! The CLI on a feature branch of a real app (Headlamp's i18next files): with
//! `branch = "auto"`, a push from the app's `feature` branch goes to the server branch of that
//! name (made on the first push), a pull on `main` does not bring its strings until the branch
//! is merged on the server.

use std::path::Path;
use std::process::{Command, Output};

use crate::app_files::copy_tree;
use crate::helpers::git_in;
use crate::server::Server;

const TOKEN: &str = "cli-branch-token";
const LOCALES: &str = "frontend/src/i18n/locales";
const NEW: &str = "Only on the feature branch";

fn locstore(app: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(args)
        .current_dir(app)
        .env("LOCSTORE_TOKEN", TOKEN)
        .output()
        .unwrap()
}

#[track_caller]
fn succeeds(output: Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// How many keys of acme/web hold `NEW` on the main line or a branch.
fn with_new_string(server: &Server, branch: Option<&str>) -> usize {
    let branch = branch.map(|branch| format!("&branch={branch}")).unwrap_or_default();
    let (status, body) = server.request(
        "GET",
        &format!("/teams/acme/projects/web/keys?keyword=only%20on%20the%20feature{branch}"),
        Some(TOKEN),
        None,
    );
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<serde_json::Value>(&body).unwrap()["data"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn a_string_pushed_from_a_feature_branch_reaches_main_only_when_the_branch_is_merged() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), &[("LOCSTORE_API_TOKEN", TOKEN)]);
    for (path, body) in [
        ("/teams", r#"{"name":"acme","displayName":"Acme"}"#),
        (
            "/teams/acme/projects",
            r#"{"name":"web","displayName":"Web","languagesISO":["en","de"]}"#,
        ),
    ] {
        let (status, answer) = server.request("POST", path, Some(TOKEN), Some(body));
        assert_eq!(status, 201, "{answer}");
    }
    let app = dir.path().join("app");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/apps/i18next/headlamp")
        .join(LOCALES);
    for language in ["en", "de"] {
        copy_tree(&fixture.join(language), &app.join(LOCALES).join(language));
    }
    succeeds(locstore(
        &app,
        &["init", "--project", "acme/web", "--server", &server.base],
    ));
    let settings = app.join(".locstore.toml");
    let text = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, format!("branch = \"auto\"\n{text}")).unwrap();
    git_in(&app, &["init", "-q", "-b", "main"]);
    git_in(&app, &["add", "."]);
    git_in(&app, &["commit", "-qm", "The app"]);
    succeeds(locstore(&app, &["push"]));
    let main_commits = || git_in(&dir.path().join("data/repo"), &["rev-parse", "main"]);
    let pushed = main_commits();

    // On the feature branch: a new string, pushed to the server branch of that name.
    git_in(&app, &["switch", "-q", "-c", "feature"]);
    let app_json = app.join(LOCALES).join("en/app.json");
    let json = std::fs::read_to_string(&app_json).unwrap();
    let end = json.rfind('}').unwrap();
    let added = format!("{},\n  \"{NEW}\": \"{NEW}\"\n{}", json[..end].trim_end(), &json[end..]);
    std::fs::write(&app_json, &added).unwrap();
    git_in(&app, &["commit", "-qam", "A new string"]);
    // A dry run writes nothing, not even the branch: it compares with the main line.
    let tried = locstore(&app, &["push", "--dry-run"]);
    let stderr = String::from_utf8_lossy(&tried.stderr).into_owned();
    let stdout = succeeds(tried);
    assert!(stderr.contains("does not exist yet"), "{stderr}");
    assert!(stdout.contains("1 keys new"), "{stdout}");
    let branches = || {
        let (status, body) = server.request("GET", "/teams/acme/projects/web/branches", Some(TOKEN), None);
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["data"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(branches(), 0);
    let output = locstore(&app, &["push"]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    succeeds(output);
    assert!(stderr.contains("created the branch feature"), "{stderr}");
    assert_eq!(with_new_string(&server, Some("feature")), 1);
    assert_eq!(with_new_string(&server, None), 0, "the main line does not have it");
    assert_eq!(main_commits(), pushed);
    // `--strict` tries the push on the branch first (a dry run there), then makes it.
    let json = std::fs::read_to_string(&app_json).unwrap();
    let end = json.rfind('}').unwrap();
    let second = format!(
        "{},\n  \"Second\": \"Second\"\n{}",
        json[..end].trim_end(),
        &json[end..]
    );
    std::fs::write(&app_json, &second).unwrap();
    git_in(&app, &["commit", "-qam", "A second string"]);
    let branch_head = || {
        git_in(
            &dir.path().join("data/repo"),
            &["rev-parse", "refs/heads/locstore/acme/web/feature"],
        )
    };
    let before = branch_head();
    let stdout = succeeds(locstore(&app, &["push", "--dry-run"]));
    assert!(stdout.contains("1 keys new"), "{stdout}");
    assert_eq!(branch_head(), before, "a dry run on the branch writes nothing");
    let stdout = succeeds(locstore(&app, &["push", "--strict"]));
    assert!(stdout.contains("1 keys new"), "{stdout}");
    assert_ne!(branch_head(), before);
    assert_eq!(branches(), 1);
    assert_eq!(main_commits(), pushed);
    assert_eq!(
        locstore(&app, &["pull", "--check"]).status.code(),
        Some(0),
        "the branch is as pushed"
    );

    // Back on main: a pull does not bring the string.
    git_in(&app, &["switch", "-q", "main"]);
    succeeds(locstore(&app, &["pull"]));
    assert!(!std::fs::read_to_string(&app_json).unwrap().contains(NEW));
    assert_eq!(git_in(&app, &["status", "--porcelain"]), "");

    // Merged on the server: now it does.
    let (status, body) = server.request(
        "POST",
        "/teams/acme/projects/web/branches/feature/merge",
        Some(TOKEN),
        Some("{}"),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        locstore(&app, &["pull", "--check"]).status.code(),
        Some(1),
        "main's files lack the merged string"
    );
    succeeds(locstore(&app, &["pull"]));
    assert!(std::fs::read_to_string(&app_json).unwrap().contains(NEW));
    // `--branch` names a branch whatever git says.
    assert_eq!(
        locstore(&app, &["pull", "--check", "--branch", "feature"])
            .status
            .code(),
        Some(0)
    );
}
