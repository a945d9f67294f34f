use std::path::Path;

use super::*;

use crate::gitdb::run_git as git;

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn key(name: &str, en: &str) -> String {
    format!("name = \"{name}\"\ntags = []\n\n[translations]\nen = \"{en}\"\n")
}

fn project(languages: &str) -> String {
    format!("display_name = \"P\"\nbase_language = \"en\"\nlanguages = [{languages}]\n")
}

/// Commits all and answers the events of the new commit, as `type team/project/key from
/// [languages]` lines.
fn commit(dir: &Path, message: &str) -> Vec<String> {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
    events_of_head(dir)
}

fn events_of_head(dir: &Path) -> Vec<String> {
    let repo = Repository::open(dir).unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap().id();
    let found = commit_events(&repo, &repo, head).unwrap();
    found
        .events
        .iter()
        .map(|event| {
            let mut line = format!("{} {}", event.kind.name(), event.team);
            for part in [&event.project, &event.key] {
                line.push('/');
                line.push_str(part.as_deref().unwrap_or("-"));
            }
            if let Some(from) = &event.from {
                line.push_str(&format!(" from {from}"));
            }
            line.push_str(&format!(" {:?}", event.languages));
            line
        })
        .collect()
}

/// The feed reads the trees and files of the writer's newest commits from what the writer
/// handed over (kept through its start-overs), and the rest from packs: for every kind of
/// change, before and after maintenance merged the packs, its events are those read from
/// the repository on disk.
#[test]
fn the_feeds_events_are_those_of_the_repository_on_disk() {
    use crate::gitdb::{GitRepo, TreeEdit};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (mut repo, _) = GitRepo::open_or_init(root, &[("README.md", b"hello\n")]).unwrap();
    let mut feed = Feed::open(root, repo.pack_log()).unwrap();
    let write = |path: &str, text: &str| TreeEdit::Write {
        path: path.to_owned(),
        contents: text.as_bytes().to_vec().into(),
    };
    let app = "teams/acme/projects/app";
    let steps = [
        vec![
            write("teams/acme/team.toml", "display_name = \"Acme\"\n"),
            write(&format!("{app}/project.toml"), &project("\"en\"")),
            write(&format!("{app}/keys/a/b/c/hello.toml"), &key("hello", "Hi")),
            write(&format!("{app}/keys/d/e/f/bye.toml"), &key("bye", "Bye")),
        ],
        vec![write(&format!("{app}/keys/a/b/c/hello.toml"), &key("hello", "Hello"))],
        vec![
            TreeEdit::Remove {
                path: format!("{app}/keys/d/e/f/bye.toml"),
            },
            write(&format!("{app}/keys/0/1/2/farewell.toml"), &key("farewell", "Bye")),
        ],
        vec![write(&format!("{app}/project.toml"), &project("\"en\", \"fr\""))],
        vec![TreeEdit::Move {
            from: app.to_owned(),
            to: "teams/acme/projects/mobile".to_owned(),
        }],
        vec![write("teams/acme/team.toml", "display_name = \"Acme Inc\"\n")],
        vec![TreeEdit::Remove {
            path: "teams/acme".to_owned(),
        }],
    ];
    for (number, edits) in steps.iter().enumerate() {
        if number == 3 {
            // Maintenance merges every pack, those the feed reads among them.
            git(root, &["repack", "-q", "-a", "-d"]);
            repo.reopen().unwrap();
        }
        let commit = repo.build_commit(edits, "Step", "test").unwrap().unwrap();
        repo.stage(commit);
        repo.publish("Step").unwrap();
        let from_feed = feed.events(commit).unwrap().events;
        let on_disk = Repository::open(root).unwrap();
        let from_disk = commit_events(&on_disk, &on_disk, commit).unwrap().events;
        assert!(!from_feed.is_empty(), "step {number}");
        assert_eq!(from_feed, from_disk, "step {number}");
    }
}

#[test]
fn a_commits_tree_difference_reads_as_events() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "README.md", "not ours");
    write(root, "teams/acme/team.toml", "display_name = \"Acme\"\n");
    write(root, "teams/acme/projects/mobile/project.toml", &project("\"en\""));
    write(
        root,
        "teams/acme/projects/mobile/keys/a/b/c/hello.toml",
        &key("hello", "Hi"),
    );
    assert_eq!(
        commit(root, "one"),
        [
            "team.created acme/-/- []",
            "project.created acme/mobile/- []",
            "key.created acme/mobile/hello [\"en\"]",
        ]
    );

    // A project moved with a key changed on the way: one rename, one update.
    git(root, &["mv", "teams/acme/projects/mobile", "teams/acme/projects/app"]);
    write(
        root,
        "teams/acme/projects/app/keys/a/b/c/hello.toml",
        &key("hello", "Hello"),
    );
    assert_eq!(
        commit(root, "rename"),
        [
            "project.renamed acme/app/- from mobile []",
            "key.updated acme/app/hello [\"en\"]",
        ]
    );

    // A key file moved with the same texts under a new name: renamed.
    std::fs::remove_file(root.join("teams/acme/projects/app/keys/a/b/c/hello.toml")).unwrap();
    write(
        root,
        "teams/acme/projects/app/keys/d/e/f/greeting.toml",
        &key("greeting", "Hello"),
    );
    assert_eq!(
        commit(root, "key rename"),
        ["key.renamed acme/app/greeting from hello []"]
    );

    // A language added to the project; a file that is not ours changes nothing.
    write(root, "teams/acme/projects/app/project.toml", &project("\"en\", \"fr\""));
    write(root, "README.md", "still not ours");
    assert_eq!(commit(root, "languages"), ["project.updated acme/app/- [\"fr\"]"]);

    // A merge: its events are what it brings to the first parent.
    git(root, &["checkout", "-q", "-b", "side"]);
    write(
        root,
        "teams/acme/projects/app/keys/0/0/0/side.toml",
        &key("side", "Side"),
    );
    commit(root, "side");
    git(root, &["checkout", "-q", "main"]);
    write(
        root,
        "teams/acme/projects/app/keys/1/1/1/main.toml",
        &key("main", "Main"),
    );
    commit(root, "main");
    git(root, &["merge", "-q", "--no-edit", "side"]);
    assert_eq!(events_of_head(root), ["key.created acme/app/side [\"en\"]"]);

    // A team deleted is one event, not one per key.
    git(root, &["rm", "-rq", "teams/acme"]);
    assert_eq!(commit(root, "delete"), ["team.deleted acme/-/- []"]);
}

/// A new repository on `main` in `root`, and a function that commits a change of the file it
/// is given (each commit `step N`).
fn stepping_repo(root: &Path) -> impl FnMut(&str) + '_ {
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Ann"]);
    git(root, &["config", "user.email", "ann@example.com"]);
    let mut step = 0;
    move |name: &str| {
        step += 1;
        write(root, name, &format!("{step}\n"));
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", &format!("step {step}")]);
    }
}

/// The commits after a cursor are those a first-parent walk of the branch gives, whether the
/// cursor is on the first-parent line (read from the commits' bytes) or on a branch merged
/// into it (the walk of the branch, as before): here `main` has a merge of `side`.
#[test]
fn the_commits_after_a_cursor_are_those_a_first_parent_walk_gives() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut commit_file = stepping_repo(root);
    commit_file("a");
    commit_file("a");
    git(root, &["checkout", "-qb", "side"]);
    commit_file("b");
    commit_file("b");
    git(root, &["checkout", "-q", "main"]);
    commit_file("a");
    git(root, &["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    commit_file("a");
    let repo = Repository::open(root).unwrap();
    let head = repo.refname_to_id("refs/heads/main").unwrap();
    let walked = |cursor: Oid| {
        let mut walk = repo.revwalk().unwrap();
        walk.simplify_first_parent().unwrap();
        walk.push(head).unwrap();
        walk.hide(cursor).unwrap();
        let mut commits: Vec<Oid> = walk.map(Result::unwrap).collect();
        commits.reverse();
        commits
    };
    let mut all = repo.revwalk().unwrap();
    all.push(head).unwrap();
    let all: Vec<Oid> = all.map(Result::unwrap).collect();
    assert_eq!(all.len(), 7);
    let mut feed = Feed::open(root, Arc::new(PackLog::default())).unwrap();
    let mut line = repo.revwalk().unwrap();
    line.simplify_first_parent().unwrap();
    line.push(head).unwrap();
    let line: Vec<Oid> = line.map(Result::unwrap).collect();
    assert_eq!(line.len(), 5, "the two side commits are off the line");
    for cursor in all {
        let expected = walked(cursor);
        // The line from the commits' bytes answers for the cursors on it, the walk for the others.
        let from_line = line.contains(&cursor).then(|| expected.clone());
        assert_eq!(feed.line_down_to(cursor, head), from_line, "cursor {cursor}");
        assert_eq!(feed.after(cursor, head).unwrap(), Some(expected), "cursor {cursor}");
    }
    let side = repo.refname_to_id("refs/heads/side").unwrap();
    // From where the line left the cursor: the commit on main meanwhile, the merge, the last.
    assert_eq!(feed.after(side, head).unwrap().unwrap().len(), 3);
    let unknown = Oid::from_str("0123456789012345678901234567890123456789").unwrap();
    assert_eq!(feed.after(unknown, head).unwrap(), None);
}

/// A branch's commits after the last one delivered are its commits even once a merge has
/// brought them to the main line (a commit made just before its branch is merged); a branch
/// new to the reader gives its own commits, those after where it left the main line, also
/// when it was merged before the reader first looked.
#[test]
fn a_branchs_commits_since_a_cursor_count_though_the_main_line_merged_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut commit_file = stepping_repo(root);
    commit_file("a");
    git(root, &["checkout", "-qb", "feature"]);
    commit_file("b");
    commit_file("b");
    let repo = Repository::open(root).unwrap();
    let feature = repo.refname_to_id("refs/heads/feature").unwrap();
    let first = repo.find_commit(feature).unwrap().parent_id(0).unwrap();
    git(root, &["checkout", "-q", "main"]);
    let mut feed = Feed::open(root, Arc::new(PackLog::default())).unwrap();
    assert_eq!(feed.branch_commits(feature, None, 50).unwrap(), [first, feature]);
    assert_eq!(feed.branch_commits(feature, Some(first), 50).unwrap(), [feature]);

    commit_file("a");
    git(root, &["merge", "-q", "--no-ff", "-m", "merge feature", "feature"]);
    let mut feed = Feed::open(root, Arc::new(PackLog::default())).unwrap();
    assert_eq!(feed.branch_commits(feature, Some(first), 50).unwrap(), [feature]);
    assert_eq!(feed.branch_commits(feature, None, 50).unwrap(), [first, feature]);
    // A branch made at a main-line commit has none of its own, merged or not.
    let at_main = repo.refname_to_id("refs/heads/main").unwrap();
    assert!(feed.branch_commits(at_main, None, 50).unwrap().is_empty());
    let fork = repo.find_commit(first).unwrap().parent_id(0).unwrap();
    assert!(feed.branch_commits(fork, None, 50).unwrap().is_empty());
}
