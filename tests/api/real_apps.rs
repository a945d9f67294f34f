//! Whole real apps (tests/fixtures/apps/{format}/{app}, each with its source and licence)
//! through the real binary, as a new user would take them: `locstore init --create` finds
//! their file sets, `push` takes every file, `pull` right after leaves the app's git working
//! tree clean, a second `push` makes no commit, and a translation edited on the server comes
//! back by `pull` as a change of a few lines in one file. Right after the push, every text an
//! independent reader finds in the app's files must be on the server (`readers`, checked in
//! [`crate::real_app_readers`]; it is the last step written in `STATUS`, since an app's other
//! steps are worth knowing whatever the readers find).
//!
//! Where an app does not get through yet, `tests/fixtures/apps/STATUS` names the first step it
//! stops at; the test fails when an app does better or worse than written there, so that the
//! file is always the true state (a step passed is written down with the fix that passes it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

use crate::helpers::{git_bytes, git_in};
use crate::server::Server;

const TOKEN: &str = "real-apps-token";

/// The steps an app goes through, in order.
const STEPS: [&str; 7] = ["init", "push", "pull", "clean", "repush", "edit", "readers"];

fn apps_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apps")
}

/// `format/app` of every app of the corpus.
fn corpus() -> Vec<String> {
    let mut apps = Vec::new();
    for format in std::fs::read_dir(apps_root()).unwrap() {
        let format = format.unwrap().path();
        if !format.is_dir() {
            continue;
        }
        for app in std::fs::read_dir(&format).unwrap() {
            let app = app.unwrap().path();
            if app.join("SOURCE.md").is_file() {
                apps.push(format!(
                    "{}/{}",
                    format.file_name().unwrap().to_str().unwrap(),
                    app.file_name().unwrap().to_str().unwrap()
                ));
            }
        }
    }
    apps.sort();
    apps
}

/// What `STATUS` says of each app: the step it stops at, or `passes`.
fn expected() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(apps_root().join("STATUS")).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let app = words.next().unwrap().to_owned();
            // `readers` names the constructs whose texts the server lacks: `readers substitutions`.
            let step = words.collect::<Vec<_>>().join(" ");
            (app, if step.is_empty() { "passes".to_owned() } else { step })
        })
        .collect()
}

/// The first step `app` stops at (`passes` when none), with what it said there, and the
/// readers' counts (texts compared, passed over with a warning).
fn take_through(app: &str) -> (String, String, (usize, usize)) {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("data"), &[("LOCSTORE_API_TOKEN", TOKEN)]);
    let (status, answer) = server.request(
        "POST",
        "/teams",
        Some(TOKEN),
        Some(&json!({"name": "acme", "displayName": "Acme"}).to_string()),
    );
    assert_eq!(status, 201, "{answer}");
    let work = dir.path().join("app");
    copy_app(&apps_root().join(app), &work);
    git_in(&work, &["init", "-q"]);
    let run = |args: &[&str]| -> Output {
        Command::new(env!("CARGO_BIN_EXE_locstore"))
            .args(args)
            .current_dir(&work)
            .env("LOCSTORE_TOKEN", TOKEN)
            .output()
            .unwrap()
    };
    let said = |output: &Output| {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        text.chars().take(2000).collect::<String>()
    };
    let head = || {
        let (_, answer) = server.request("GET", "/teams/acme/projects/app/history?limit=1", Some(TOKEN), None);
        answer
    };

    let init = run(&["init", "--project", "acme/app", "--server", &server.base, "--create"]);
    let settings = std::fs::read_to_string(work.join(".locstore.toml")).unwrap_or_default();
    if !init.status.success() || !settings.contains("[[files]]") {
        return ("init".into(), said(&init), (0, 0));
    }
    git_in(&work, &["add", "-A"]);
    git_in(&work, &["commit", "-qm", "the app as it is"]);
    let push = run(&["push", "--json"]);
    if !push.status.success() {
        return ("push".into(), said(&push), (0, 0));
    }
    let pushed: serde_json::Value = serde_json::from_slice(&push.stdout).unwrap_or_default();
    let warnings: Vec<serde_json::Value> = pushed["answer"]["warnings"]
        .as_array()
        .into_iter()
        .chain(
            pushed["answer"]["sets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|set| set["warnings"].as_array()),
        )
        .flatten()
        .cloned()
        .collect();
    let readers = crate::real_app_readers::check(app, &server, TOKEN, &work, &warnings);
    let counts = (readers.compared, readers.warned);
    let readers_said = format!(
        "{} of {} texts the readers found are not on the server as found:\n{}",
        readers.problems.len(),
        readers.compared,
        readers
            .problems
            .iter()
            .take(25)
            .map(|(construct, line)| format!("[{construct}] {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let pull = run(&["pull"]);
    if !pull.status.success() {
        return ("pull".into(), said(&pull), counts);
    }
    let changed = git_in(&work, &["status", "--porcelain", "--untracked-files=all"]);
    if !changed.is_empty() {
        let diff = git_in(&work, &["diff", "--stat"]);
        return (
            "clean".into(),
            format!("{changed}\n{diff}").chars().take(2000).collect(),
            counts,
        );
    }
    let before = head();
    let again = run(&["push"]);
    if !again.status.success() || head() != before {
        return ("repush".into(), said(&again), counts);
    }
    match edit_one_translation(&server, &work, &run) {
        Ok(()) if readers.problems.is_empty() => ("passes".into(), String::new(), counts),
        Ok(()) => {
            let constructs: BTreeSet<&str> = readers
                .problems
                .iter()
                .map(|(construct, _)| construct.as_str())
                .collect();
            let step = format!("readers {}", constructs.into_iter().collect::<Vec<_>>().join(" "));
            (step, readers_said.chars().take(6000).collect(), counts)
        }
        Err(why) => ("edit".into(), why.chars().take(2000).collect(), counts),
    }
}

/// Edits one plain translation (not the base language's) on the server and pulls: the app's
/// files must change by that entry's lines only.
fn edit_one_translation(server: &Server, work: &Path, run: &dyn Fn(&[&str]) -> Output) -> Result<(), String> {
    let (_, project) = server.request("GET", "/teams/acme/projects/app", Some(TOKEN), None);
    let project: serde_json::Value = serde_json::from_str(&project).map_err(|err| err.to_string())?;
    let base = project["data"]["baseLanguageISO"].as_str().unwrap_or("en").to_owned();
    // The first plain translation in the keys' order, page after page (an app translated in
    // part may have none among its first keys); a base text in an app of one language.
    let mut chosen = None;
    let mut base_text = None;
    for number in 1.. {
        let (_, page) = server.request(
            "GET",
            &format!("/teams/acme/projects/app/keys?limit=1000&page={number}"),
            Some(TOKEN),
            None,
        );
        let page: serde_json::Value = serde_json::from_str(&page).map_err(|err| err.to_string())?;
        let keys = page["data"].as_array().cloned().unwrap_or_default();
        if keys.is_empty() {
            break;
        }
        let plain_in = |key: &serde_json::Value, base_wanted: bool| {
            let translation = key["translation"].as_object()?;
            let (language, _) = translation.iter().find(|(language, text)| {
                (**language == base) == base_wanted && text.as_str().is_some_and(|text| !text.contains('\n'))
            })?;
            (key["plural"] == false).then(|| (key.clone(), language.clone()))
        };
        chosen = keys.iter().find_map(|key| plain_in(key, false));
        if base_text.is_none() {
            base_text = keys.iter().find_map(|key| plain_in(key, true));
        }
        if chosen.is_some() {
            break;
        }
    }
    let Some((key, language)) = chosen.or(base_text) else {
        return Err("no plain translation to edit".into());
    };
    let name = key["name"].as_str().unwrap_or_default();
    let path = format!(
        "/teams/acme/projects/app/keys/{}?namespace={}",
        crate::app_files::urlencode(name),
        crate::app_files::urlencode(key["namespace"].as_str().unwrap_or_default())
    );
    let body = json!({"translations": [{"language": language, "content": "Edited on the server"}]}).to_string();
    let (status, answer) = server.request("PATCH", &path, Some(TOKEN), Some(&body));
    if status != 200 {
        return Err(format!("PATCH {path}: {status} {answer}"));
    }
    let pull = run(&["pull"]);
    if !pull.status.success() {
        return Err(format!(
            "pull after the edit: {}",
            String::from_utf8_lossy(&pull.stderr)
        ));
    }
    let numstat = git_in(work, &["diff", "--numstat"]);
    // A UTF-16 file (Quicksilver's) is binary to git (`-` for its counts): its lines are
    // counted here, decoded, as the lines of one version that the other lacks.
    let numstat: String = numstat
        .lines()
        .map(|line| match line.strip_prefix("-\t-\t") {
            Some(path) => {
                let old = decoded(&git_bytes(work, &["show", &format!("HEAD:{path}")]));
                let new = decoded(&std::fs::read(work.join(path)).unwrap_or_default());
                let (removed, added) = lines_apart(&old, &new);
                format!("{added}\t{removed}\t{path}\n")
            }
            None => format!("{line}\n"),
        })
        .collect();
    let changed: Vec<&str> = numstat.lines().collect();
    // A base text may be one the file did not write out (a String Catalog's key that is its
    // own source text): its localization is then added, a few more lines.
    let most = if language == base { 10 } else { 3 };
    let small = changed.len() == 1
        && changed[0]
            .split('\t')
            .take(2)
            .all(|count| count.parse::<u32>().is_ok_and(|count| count <= most))
        && changed[0].split('\t').take(2).any(|count| count != "0");
    let untracked = git_in(work, &["status", "--porcelain", "--untracked-files=all"]);
    let diff = git_in(work, &["diff"]);
    // The new text, in the changed file as its encoding reads (UTF-16 with a byte order mark,
    // else UTF-8).
    let edited = changed
        .first()
        .and_then(|line| line.split('\t').nth(2))
        .is_some_and(|path| {
            decoded(&std::fs::read(work.join(path)).unwrap_or_default()).contains("Edited on the server")
        });
    if !small || !edited || untracked.lines().count() != 1 {
        return Err(format!(
            "the edit of {name:?} ({language}) changed:\n{numstat}\n{untracked}\n{}",
            diff.chars().take(1500).collect::<String>()
        ));
    }
    // And the format's own reader finds the new text there.
    let path = changed[0].split('\t').nth(2).unwrap_or_default();
    crate::real_app_readers::finds_text(work, path, name, &language, "Edited on the server")
}

/// Copies an app's files, without the corpus's own `SOURCE.md` and licence.
fn copy_app(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap().path();
        let name = entry.file_name().unwrap().to_str().unwrap().to_owned();
        if from.join("SOURCE.md").is_file() && (name == "SOURCE.md" || name == "LICENSE") {
            continue;
        }
        let target = to.join(&name);
        if entry.is_dir() {
            crate::app_files::copy_tree(&entry, &target);
        } else {
            std::fs::copy(&entry, &target).unwrap();
        }
    }
}

#[test]
fn every_real_app_of_the_corpus_gets_as_far_as_its_status_says() {
    let mut apps = corpus();
    assert!(apps.len() >= 10, "the corpus is in tests/fixtures/apps: {apps:?}");
    // `LOCSTORE_REAL_APPS=po/horizon,xliff/kimai` takes only those (while fixing one).
    if let Ok(only) = std::env::var("LOCSTORE_REAL_APPS") {
        apps.retain(|app| only.split(',').any(|wanted| wanted == app));
    }
    let expected = expected();
    // Two apps at a time: each has a server and a client of its own.
    let queue = std::sync::Mutex::new(apps.clone());
    let results = std::sync::Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let Some(app) = queue.lock().unwrap().pop() else { break };
                    let outcome = take_through(&app);
                    results.lock().unwrap().insert(app, outcome);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut report = String::new();
    let mut wrong = Vec::new();
    for (app, (step, said, (compared, warned))) in &results {
        let want = expected.get(app).map(String::as_str).unwrap_or("passes");
        assert!(
            want == "passes" || want.split(' ').next().is_some_and(|step| STEPS.contains(&step)),
            "STATUS names an unknown step {want:?} for {app}"
        );
        report.push_str(&format!(
            "{app}: {step} (STATUS: {want}); readers: {compared} texts compared, {warned} passed over with a warning\n"
        ));
        if step != want {
            wrong.push(format!("{app}: stops at {step}, STATUS says {want}\n{said}\n"));
        }
    }
    let passing = results.values().filter(|(step, _, _)| step == "passes").count();
    println!("real apps: {passing} of {} pass\n{report}", results.len());
    assert!(
        wrong.is_empty(),
        "apps whose state differs from tests/fixtures/apps/STATUS:\n{}\n{report}",
        wrong.join("\n")
    );
}

/// A file's text as its encoding reads: UTF-16 with a byte order mark, else UTF-8.
fn decoded(bytes: &[u8]) -> String {
    let units = |rest: &[u8], big: bool| -> Vec<u16> {
        rest.chunks_exact(2)
            .map(|pair| {
                if big {
                    u16::from_be_bytes([pair[0], pair[1]])
                } else {
                    u16::from_le_bytes([pair[0], pair[1]])
                }
            })
            .collect()
    };
    match bytes {
        [0xff, 0xfe, rest @ ..] => String::from_utf16_lossy(&units(rest, false)),
        [0xfe, 0xff, rest @ ..] => String::from_utf16_lossy(&units(rest, true)),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// How many lines of `old` `new` lacks, and of `new` `old` lacks (as many times as each).
fn lines_apart(old: &str, new: &str) -> (usize, usize) {
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for line in old.lines() {
        *counts.entry(line).or_default() += 1;
    }
    for line in new.lines() {
        *counts.entry(line).or_default() -= 1;
    }
    let removed = counts
        .values()
        .filter(|count| **count > 0)
        .map(|count| *count as usize)
        .sum();
    let added = counts
        .values()
        .filter(|count| **count < 0)
        .map(|count| (-*count) as usize)
        .sum();
    (removed, added)
}
