use super::*;

fn publish_one(repo: &mut GitRepo, path: &str) {
    let edits = [TreeEdit::Write {
        path: path.to_owned(),
        contents: b"x".to_vec().into(),
    }];
    let commit = repo.build_commit(&edits, "Add a file", "test").unwrap().unwrap();
    repo.stage(commit);
    repo.publish("Add a file").unwrap();
}

#[test]
fn a_publish_is_synced_by_its_own_files_and_by_the_file_system_when_the_branch_is_packed() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    // The first commit's pack.
    assert_eq!(repo.staging.take_unsynced().len(), 2);
    publish_one(&mut repo, "a.txt");
    let packs = repo.staging.take_unsynced();
    assert_eq!(packs.len(), 2, "{packs:?}");
    assert!(packs.iter().all(|pack| pack.exists()), "{packs:?}");
    repo.sync_files(&packs).unwrap();
    assert!(repo.staging.take_unsynced().is_empty());

    publish_one(&mut repo, "b.txt");
    let status = std::process::Command::new("git")
        .args(["pack-refs", "--all", "--prune"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(!repo.git_dir().join("refs/heads/main").exists());
    // The branch is in packed-refs only: its own files cannot be named, so the whole file
    // system is synced, and the list is cleared either way.
    assert!(repo.sync_files(&[]).is_err());
    repo.sync_published(SyncScope::OwnFiles).unwrap();
    assert!(repo.staging.take_unsynced().is_empty());
}

/// Commits `edits` and writes them to the working tree; returns the paths they touched.
fn commit_and_write(repo: &mut GitRepo, edits: &[TreeEdit]) -> Vec<String> {
    let commit = repo.build_commit(edits, "Change files", "test").unwrap().unwrap();
    repo.stage(commit);
    repo.publish("Change files").unwrap();
    super::super::worktree::apply(repo.root(), edits).unwrap();
    super::super::worktree::touched_paths(edits)
        .map(str::to_owned)
        .collect()
}

/// Whether the index holds exactly HEAD's files (mode, blob, path), as git lists both.
fn index_is_head(root: &Path) -> bool {
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    // `<mode> <id> 0\t<path>` and `<mode> blob <id>\t<path>`.
    let staged = git(&["ls-files", "--stage"]).replace(" 0\t", "\t");
    let head = git(&["ls-tree", "-r", "HEAD"]).replace(" blob ", " ");
    staged == head
}

fn git_status(root: &Path) -> String {
    let output = std::process::Command::new("git")
        // Without refreshing the index file, which would make it someone else's.
        .args(["--no-optional-locks", "status", "--porcelain", "--untracked-files=all"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_index_follows_head_by_the_touched_paths_while_it_is_the_one_written_last() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (mut repo, _) = GitRepo::open_or_init(root, &[("README.md", b"hello\n")]).unwrap();
    let write = |path: &str, contents: &str| TreeEdit::Write {
        path: path.into(),
        contents: contents.as_bytes().to_vec().into(),
    };
    let touched = commit_and_write(
        &mut repo,
        &[
            write("a/x.txt", "x"),
            write("a/y/z.txt", "z"),
            write("b/w.txt", "w"),
            write("top.txt", "t"),
        ],
    );
    // The new repository's index is this process's: by the touched paths already.
    assert!(!repo.sync_index(touched.iter().map(String::as_str)).unwrap());
    assert!(index_is_head(root));
    assert_eq!(git_status(root), "");

    // A changed file, a removed one, a moved folder, a removed folder, a new one.
    let touched = commit_and_write(
        &mut repo,
        &[
            write("a/x.txt", "x2"),
            TreeEdit::Remove { path: "top.txt".into() },
            TreeEdit::Move {
                from: "a".into(),
                to: "c".into(),
            },
            TreeEdit::Remove { path: "b".into() },
            write("d/e/f.txt", "f"),
        ],
    );
    assert!(
        !repo.sync_index(touched.iter().map(String::as_str)).unwrap(),
        "only the touched paths"
    );
    assert!(index_is_head(root));
    assert_eq!(git_status(root), "");

    // Someone else's index (here none at all): the whole tree again.
    std::fs::remove_file(root.join(".git/index")).unwrap();
    let touched = commit_and_write(&mut repo, &[write("c/x.txt", "x3")]);
    assert!(repo.sync_index(touched.iter().map(String::as_str)).unwrap());
    assert!(index_is_head(root));
    assert_eq!(git_status(root), "");

    // A file staged by hand (`git add`) is not HEAD's: the next sync drops it again.
    std::fs::write(root.join("hand.txt"), "by hand").unwrap();
    let status = std::process::Command::new("git")
        .args(["add", "hand.txt"])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success());
    let touched = commit_and_write(&mut repo, &[write("d/e/f.txt", "f2")]);
    assert!(repo.sync_index(touched.iter().map(String::as_str)).unwrap());
    assert!(index_is_head(root));
}

#[test]
fn a_large_commit_hashed_on_every_core_is_the_commit_git_makes_of_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    // Enough files for the bulk path (blobs hashed on threads, a plain pack), one of them
    // large, and a removal among the writes.
    let mut edits: Vec<TreeEdit> = (0..BULK_WRITES + 10)
        .map(|index| TreeEdit::Write {
            path: format!("keys/{}/{index}.toml", index % 7),
            contents: format!("name = \"k{index}\"\n").into_bytes().into(),
        })
        .collect();
    edits.insert(
        5,
        TreeEdit::Write {
            path: "files/large.xliff".into(),
            contents: (0..5_000_000u32).map(|index| (index % 251) as u8).collect(),
        },
    );
    edits.insert(
        7,
        TreeEdit::Remove {
            path: "README.md".into(),
        },
    );
    let commit = repo.build_commit(&edits, "Import", "test").unwrap().unwrap();
    repo.stage(commit);
    repo.publish("Import").unwrap();
    crate::gitdb::worktree::apply(dir.path(), &edits).unwrap();

    // git reads every blob back as written, finds the repository whole, and makes the same
    // tree of the working tree's files.
    crate::gitdb::run_git(dir.path(), &["fsck", "--full", "--strict"]);
    // Every blob's id as git lists it (one listing of the tree, not a git per file).
    let listed = crate::gitdb::run_git(dir.path(), &["ls-tree", "-r", "HEAD"]);
    let blob_of: std::collections::HashMap<&str, &str> = listed
        .lines()
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            Some((path, meta.rsplit(' ').next()?))
        })
        .collect();
    for edit in &edits {
        if let TreeEdit::Write { path, contents } = edit {
            let own = Oid::hash_object(git2::ObjectType::Blob, contents).unwrap();
            assert_eq!(
                blob_of.get(path.as_str()).copied(),
                Some(own.to_string().as_str()),
                "{path}"
            );
        }
    }
    crate::gitdb::run_git(dir.path(), &["add", "-A"]);
    let from_files = crate::gitdb::run_git(dir.path(), &["write-tree"]);
    let committed = crate::gitdb::run_git(dir.path(), &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(from_files, committed);
}

#[test]
fn every_pack_written_is_logged_for_the_followers_and_a_follower_finds_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    let log = repo.pack_log();
    let mut follower = super::super::follow::Follower::open(dir.path(), log.clone()).unwrap();
    publish_one(&mut repo, "a.txt");
    publish_one(&mut repo, "b.txt");
    // The first commit's pack, then one per publish, each there under its logged name.
    let packs = repo.staging.take_unsynced();
    for pack in packs
        .iter()
        .filter(|pack| pack.extension().is_some_and(|ext| ext == "idx"))
    {
        let name = pack.file_name().unwrap().to_owned();
        assert!(log.names_since(0).contains(&name), "{name:?} logged");
    }
    let logged = log.since(0).unwrap().0;
    assert_eq!(logged.len(), 3);
    // With a follower open, a batch's pack comes with its objects: the commit among them.
    let fresh = logged[2].fresh.as_ref().expect("the objects handed over");
    assert!(fresh.iter().any(|(id, _, _)| id == repo.head()));
    assert!(follower.find(repo.head()).unwrap());
    let tree = follower.repo().find_commit(repo.head()).unwrap().tree().unwrap();
    assert!(tree.get_name("b.txt").is_some());
}

/// The tree at `path` in the commit `commit`, as git has it: its id and bytes.
fn tree_at(dir: &Path, commit: Oid, path: &str) -> (Oid, Vec<u8>) {
    let repo = Repository::open(dir).unwrap();
    let root = repo.find_commit(commit).unwrap().tree().unwrap();
    let id = if path.is_empty() {
        root.id()
    } else {
        root.get_path(Path::new(path)).unwrap().id()
    };
    let data = repo.odb().unwrap().read(id).unwrap().data().to_vec();
    (id, data)
}

/// Those who follow the writer compare each commit with its parent: a commit's pack comes
/// with the older versions of the folders it rewrote (as git has them), except those the
/// pack before brought, also after the writer reopened the repository in between.
#[test]
fn a_pack_hands_over_the_older_versions_of_the_folders_its_commit_rewrote_unless_the_last_pack_had_them() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    let log = repo.pack_log();
    let edits = ["one/a.txt", "two/deep/a.txt"].map(|path| TreeEdit::Write {
        path: path.to_owned(),
        contents: b"x".to_vec().into(),
    });
    let first = repo.build_commit(&edits, "Add files", "test").unwrap().unwrap();
    repo.stage(first);
    repo.publish("Add files").unwrap();
    let _follower = super::super::follow::Follower::open(dir.path(), log.clone()).unwrap();
    publish_one(&mut repo, "one/b.txt");
    let second = repo.head();
    repo.reopen().unwrap();
    publish_one(&mut repo, "two/deep/b.txt");

    let packs = log.since(0).unwrap().0;
    let handed: std::collections::HashMap<Oid, (ObjectType, Vec<u8>)> = packs
        .last()
        .unwrap()
        .fresh
        .as_ref()
        .expect("the objects handed over")
        .iter()
        .map(|(id, kind, data)| (id, (kind, data.to_vec())))
        .collect();
    for path in ["two", "two/deep"] {
        let (id, data) = tree_at(dir.path(), second, path);
        assert_eq!(
            handed.get(&id),
            Some(&(ObjectType::Tree, data)),
            "{path} before the commit"
        );
        let (now, _) = tree_at(dir.path(), repo.head(), path);
        assert!(handed.contains_key(&now), "{path} after the commit");
    }
    let (root_before, _) = tree_at(dir.path(), second, "");
    assert!(
        !handed.contains_key(&root_before),
        "the root's older version came with the last pack"
    );
    assert_eq!(
        handed.len(),
        7,
        "the commit, three trees, their older versions but the root's, the file"
    );
}

/// A batch of commits that each add a file to the same folders: its pack holds the older
/// versions of those folders' trees as deltas of the newer ones, the newest whole, and git
/// reads every object of every commit back.
#[test]
fn a_batch_pack_keeps_older_versions_of_a_tree_as_deltas_of_the_newer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    repo.staging.take_unsynced();
    // Enough files that the folders' trees are worth a delta.
    let many: Vec<TreeEdit> = (0..200)
        .map(|i| TreeEdit::Write {
            path: format!("keys/{}/key-{i:03}.toml", i % 2),
            contents: format!("value = {i}\n").into_bytes().into(),
        })
        .collect();
    commit_and_write(&mut repo, &many);
    repo.staging.take_unsynced();
    for i in 0..20 {
        let edits = [TreeEdit::Write {
            path: format!("keys/{}/new-{i:02}.toml", i % 2),
            contents: format!("value = {i}\n").into_bytes().into(),
        }];
        let commit = repo.build_commit(&edits, "Add a key", "test").unwrap().unwrap();
        repo.stage(commit);
    }
    repo.publish("Add keys").unwrap();
    let index = repo
        .staging
        .take_unsynced()
        .into_iter()
        .find(|pack| pack.extension().is_some_and(|ext| ext == "idx"))
        .unwrap();
    let verified = crate::gitdb::run_git(dir.path(), &["verify-pack", "-v", index.to_str().unwrap()]);
    // Per commit: a blob, the file's folder, `keys`, the root, the commit: 100 objects. The
    // 18 older folders are deltas, and the older roots but one (a chain ends at ten); of
    // `keys` (two entries, one of which changes) a delta would save less than half, so every
    // other one is whole: 54 whole.
    assert!(verified.contains("non delta: 54 objects"), "{verified}");
    assert!(verified.contains("chain length = 10: 1 object"), "{verified}");
    assert!(!verified.contains("chain length = 11"), "{verified}");
    let head_tree = crate::gitdb::run_git(dir.path(), &["rev-parse", "HEAD^{tree}"]);
    let newest = verified
        .lines()
        .find(|line| line.starts_with(head_tree.trim()))
        .unwrap();
    assert_eq!(
        newest.split_whitespace().count(),
        5,
        "the newest root is whole: {newest}"
    );
    crate::gitdb::run_git(dir.path(), &["fsck", "--strict"]);
    let listed = crate::gitdb::run_git(dir.path(), &["ls-tree", "-r", "--name-only", "HEAD~19"]);
    assert!(
        listed.contains("keys/0/new-00.toml") && !listed.contains("new-01"),
        "{listed}"
    );
    assert_eq!(
        crate::gitdb::run_git(dir.path(), &["ls-tree", "-r", "--name-only", "HEAD"])
            .lines()
            .count(),
        221
    );
}

/// The lines of this process's memory maps and open files that name files under `dir`.
fn mapped_under(dir: &Path) -> (Vec<String>, Vec<String>) {
    let dir = dir.to_string_lossy().into_owned();
    let maps = std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter(|line| line.contains(&dir))
        .map(str::to_owned)
        .collect();
    let files = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
        .map(|target| target.to_string_lossy().into_owned())
        .filter(|target| target.contains(&dir))
        .collect();
    (maps, files)
}

/// Reads every file of HEAD, so that each pack holding one is open and mapped.
fn read_all(repo: &GitRepo, paths: &[&str]) {
    for path in paths {
        let tree = repo.objects().find_commit(repo.head()).unwrap().tree().unwrap();
        let id = tree.get_path(Path::new(path)).unwrap().id();
        repo.objects().find_blob(id).unwrap();
    }
}

/// Reopening keeps the packs that are still there as they were (the same mappings) and lets
/// go of those joined or deleted by maintenance: no mapping or open file of a deleted pack is
/// left.
#[test]
fn a_reopen_carries_the_packs_still_there_over_and_lets_go_of_deleted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    publish_one(&mut repo, "a.txt");
    publish_one(&mut repo, "b.txt");
    let paths = ["README.md", "a.txt", "b.txt"];
    read_all(&repo, &paths);
    let (before, _) = mapped_under(dir.path());
    assert_eq!(
        before.iter().filter(|line| line.ends_with(".idx")).count(),
        3,
        "{before:#?}"
    );
    // The three small packs are joined into one, and let go of.
    repo.reopen().unwrap();
    read_all(&repo, &paths);
    let (before, files) = mapped_under(dir.path());
    let indexes: Vec<&String> = before.iter().filter(|line| line.ends_with(".idx")).collect();
    assert_eq!(indexes.len(), 1, "{before:#?}");
    assert!(
        !before.iter().chain(&files).any(|line| line.contains("(deleted)")),
        "{before:#?}"
    );
    repo.reopen().unwrap();
    let (after, _) = mapped_under(dir.path());
    for index in &indexes {
        assert!(after.contains(index), "{index} mapped where it was: {after:#?}");
    }

    crate::gitdb::run_git(dir.path(), &["repack", "-a", "-d", "-q"]);
    repo.reopen().unwrap();
    let tree = repo.objects().find_commit(repo.head()).unwrap().tree().unwrap();
    let id = tree.get_path(Path::new("b.txt")).unwrap().id();
    assert_eq!(repo.objects().find_blob(id).unwrap().content(), b"x");
    let (maps, files) = mapped_under(dir.path());
    let deleted: Vec<&String> = maps
        .iter()
        .chain(&files)
        .filter(|line| line.contains("(deleted)"))
        .collect();
    assert!(deleted.is_empty(), "{deleted:#?}");
}

/// Many packs read and let go of on several threads at once, as the writer, the webhooks'
/// feed and maintenance do. libgit2 had been capped at 256 open pack files: past the cap,
/// opening a pack closed the least recently used one after letting go of libgit2's global
/// lock, and when another thread let go of that pack in between, the closing wrote into freed
/// memory (the server died of a corrupted heap under load with webhooks; AddressSanitizer
/// showed the write in `git_mwindow_file_register`). Now there is no cap, and the limit of
/// open files is what the system allows. The corruption is silent until a later free (six
/// runs of the reads below with the old cap passed), so the settings are checked as well.
#[test]
fn packs_read_and_let_go_of_on_several_threads_at_once_are_never_closed_under_another() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    // SAFETY: reading libgit2's options has no preconditions.
    assert_eq!(unsafe { git2::opts::get_mwindow_file_limit() }.unwrap(), 0);
    let limit = crate::gitdb::settings::open_files_limit().unwrap();
    assert_eq!(limit.rlim_cur, limit.rlim_max, "the soft limit of open files is raised");

    // More packs than the old cap, each a commit of its own.
    let mut commits = Vec::new();
    for index in 0..300 {
        publish_one(&mut repo, &format!("f{index}.txt"));
        commits.push(repo.head());
    }
    let commits = Arc::new(commits);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (root, commits, stop, log) = (dir.path().to_path_buf(), commits.clone(), stop.clone(), repo.pack_log());
            std::thread::spawn(move || {
                let mut rounds = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) || rounds < 2 {
                    // A handle that reads every pack, then lets go of them all.
                    let mut follower = crate::gitdb::follow::Follower::open(&root, log.clone()).unwrap();
                    for &commit in commits.iter() {
                        assert!(follower.find(commit).unwrap());
                        follower.repo().find_commit(commit).unwrap().tree().unwrap();
                    }
                    rounds += 1;
                }
            })
        })
        .collect();
    for _ in 0..4 {
        repo.reopen().unwrap();
        for &commit in commits.iter() {
            repo.objects().find_commit(commit).unwrap().tree().unwrap();
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for reader in readers {
        reader.join().unwrap();
    }
}

/// The writer's small packs, deltas among them, are joined four into one when it reopens: git
/// reads every commit from it, followers find the joined pack in the log, and nothing is held
/// from maintenance any more. A large pack (an import's) is left as it is.
#[test]
fn the_small_packs_written_are_joined_at_a_reopen_and_a_large_one_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    let log = repo.pack_log();
    let pack_dir = repo.git_dir().join("objects/pack");
    let packs = || super::super::objects::index_names(&pack_dir).unwrap();
    // A large commit: whole objects, more than the size joined.
    let mut seed = 7u64;
    let mut noise = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        format!("{:016x}", seed >> 1)
    };
    let large: Vec<TreeEdit> = (0..3000)
        .map(|i| TreeEdit::Write {
            path: format!("bulk/{}/file-{i:04}.toml", i % 30),
            contents: format!("value = \"{}\"\n", (0..40).map(|_| noise()).collect::<String>())
                .into_bytes()
                .into(),
        })
        .collect();
    commit_and_write(&mut repo, &large);
    let large_pack = packs()
        .into_iter()
        .find(|name| !log.held().contains(name) && log.names_since(0).last() == Some(name))
        .expect("the large pack is not held");
    // Twenty batches of five commits that rewrite the same folders (deltas within each pack).
    for batch in 0..20 {
        for i in 0..5 {
            let edits = [TreeEdit::Write {
                path: format!("keys/{}/key-{batch:02}-{i}.toml", i % 2),
                contents: format!("value = {i}\n").into_bytes().into(),
            }];
            let commit = repo.build_commit(&edits, "Add a key", "test").unwrap().unwrap();
            repo.stage(commit);
        }
        repo.publish("Add keys").unwrap();
    }
    assert_eq!(
        repo.packs_to_join(),
        21,
        "the first commit's pack and the twenty batches"
    );
    assert_eq!(log.held().len(), 21);
    assert_eq!(packs().len(), 22);
    let history = crate::gitdb::run_git(dir.path(), &["log", "-p", "--format=%H %s"]);

    repo.reopen().unwrap();

    // Four at a time: five joined packs, the last one left as it was, and the large one.
    let after = packs();
    assert_eq!(after.len(), 7, "{after:?}");
    assert!(after.contains(&large_pack));
    assert!(log.held().is_empty() && repo.packs_to_join() == 0);
    let logged = log.names_since(0);
    crate::gitdb::run_git(dir.path(), &["fsck", "--strict", "--full", "--no-dangling"]);
    let mut chains = 0;
    for pack in after.iter().filter(|name| **name != large_pack) {
        assert!(logged.contains(pack), "{pack:?} logged for the followers");
        let verified = crate::gitdb::run_git(
            dir.path(),
            &["verify-pack", "-v", pack_dir.join(pack).to_str().unwrap()],
        );
        chains += usize::from(verified.contains("chain length = 1:"));
    }
    assert_eq!(chains, 6, "the deltas kept in every pack");
    assert_eq!(
        crate::gitdb::run_git(dir.path(), &["log", "-p", "--format=%H %s"]),
        history
    );
    // The writer reads on from the joined pack.
    publish_one(&mut repo, "after.txt");
    let mut follower = super::super::follow::Follower::open(dir.path(), log).unwrap();
    assert!(follower.find(repo.head()).unwrap());
}

/// The files of the commit `commit` (paths and contents), as git reads them.
fn files_at(dir: &Path, commit: Oid) -> std::collections::BTreeMap<String, Vec<u8>> {
    let repo = Repository::open(dir).unwrap();
    let tree = repo.find_commit(commit).unwrap().tree().unwrap();
    let mut files = std::collections::BTreeMap::new();
    tree.walk(TreeWalkMode::PreOrder, |folder, entry| {
        if entry.kind() == Some(ObjectType::Blob) {
            let blob = repo.find_blob(entry.id()).unwrap();
            files.insert(format!("{folder}{}", entry.name().unwrap()), blob.content().to_vec());
        }
        TreeWalkResult::Ok
    })
    .unwrap();
    files
}

/// Commits of random edits (files written, rewritten, removed and moved between folders, so
/// that folders empty and come back), one to three a batch, with the repository reopened now
/// and then: every published commit holds the files expected and git finds nothing wrong.
/// The writer opens the trees it wrote from memory; this checks they are git's.
#[test]
fn random_edits_over_many_batches_and_reopens_commit_the_files_expected() {
    let dir = tempfile::tempdir().unwrap();
    let (mut repo, _) = GitRepo::open_or_init(dir.path(), &[("README.md", b"hello\n")]).unwrap();
    let mut expected = files_at(dir.path(), repo.head());
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |bound: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % bound
    };
    let folders = ["a", "a/b", "a/b/c", "d", "d/e", "f"];
    for round in 0..80 {
        for commit in 0..=next(3) {
            let mut edits = Vec::new();
            let mut after = expected.clone();
            for _ in 0..=next(3) {
                let path = format!("{}/f{}.txt", folders[next(folders.len())], next(6));
                let existing: Vec<String> = after.keys().cloned().collect();
                let picked = existing.get(next(existing.len().max(1))).cloned();
                match picked.as_ref().map_or(0, |_| next(4)) {
                    0 | 1 => {
                        let contents = format!("{round}.{commit}.{}", next(1000)).into_bytes();
                        after.insert(path.clone(), contents.clone());
                        edits.push(TreeEdit::Write {
                            path,
                            contents: contents.into(),
                        });
                    }
                    2 => {
                        let picked = picked.unwrap();
                        after.remove(&picked);
                        edits.push(TreeEdit::Remove { path: picked });
                    }
                    _ => {
                        let picked = picked.unwrap();
                        let moved = after.remove(&picked).unwrap();
                        after.insert(path.clone(), moved);
                        edits.push(TreeEdit::Move { from: picked, to: path });
                    }
                }
            }
            if let Some(built) = repo.build_commit(&edits, "Change files", "test").unwrap() {
                repo.stage(built);
                expected = after;
            } else {
                assert_eq!(after, expected, "a commit that changes nothing is none");
            }
        }
        repo.publish("Change files").unwrap();
        if next(4) == 0 {
            repo.reopen().unwrap();
        }
        assert_eq!(files_at(dir.path(), repo.head()), expected, "round {round}");
    }
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--strict", "--no-dangling"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
}
