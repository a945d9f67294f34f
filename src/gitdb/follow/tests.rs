use super::*;

use git2::ObjectType;

use crate::gitdb::raw_tree::RawTree;

use crate::gitdb::{packed_commit, run_git as git};

#[test]
fn commits_in_packs_written_after_opening_are_found_and_merged_packs_let_go() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let first = packed_commit(dir.path(), "a");
    // Nothing logged: every pack is found in the folder, as another process's would be.
    let mut follower = Follower::open(dir.path(), Arc::default()).unwrap();
    assert!(follower.find(first).unwrap());
    assert_eq!((follower.known.len(), follower.added), (1, 0));

    let second = packed_commit(dir.path(), "b");
    assert!(follower.find(second).unwrap(), "a pack written after opening");
    assert_eq!((follower.known.len(), follower.added), (2, 1));
    {
        let tree = follower.repo().find_commit(second).unwrap().tree().unwrap();
        assert!(tree.get_name("a").is_some() && tree.get_name("b").is_some());
    }

    // Maintenance merges every pack into one and deletes the others.
    git(dir.path(), &["repack", "-q", "-a", "-d"]);
    let third = packed_commit(dir.path(), "c");
    assert!(follower.find(third).unwrap());
    let packs = std::fs::read_dir(dir.path().join(".git/objects/pack"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().file_name().to_string_lossy().ends_with(".idx"))
        .count();
    assert_eq!(follower.known.len(), packs, "started over with the packs there are");
    assert_eq!(follower.added, 0);
    assert!(follower.find(first).unwrap() && follower.find(second).unwrap());

    assert!(!follower.find(Oid::from_str(&"1".repeat(40)).unwrap()).unwrap());
}

/// A repository whose one commit is in a pack, that commit, and a log for its writer.
fn repository_with_a_commit() -> (tempfile::TempDir, Oid, Arc<PackLog>) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let first = packed_commit(dir.path(), "a");
    (dir, first, Arc::new(PackLog::default()))
}

/// The index files in `dir`'s pack folder.
fn indexes(dir: &Path) -> HashSet<OsString> {
    index_names(&dir.join(".git/objects/pack"))
        .unwrap()
        .into_iter()
        .collect()
}

/// A commit in a pack of its own, and that pack's index file.
fn commit_and_pack(dir: &Path, name: &str) -> (Oid, OsString) {
    let before = indexes(dir);
    let commit = packed_commit(dir, name);
    let new: Vec<OsString> = indexes(dir).difference(&before).cloned().collect();
    assert_eq!(new.len(), 1);
    (commit, new[0].clone())
}

#[test]
fn packs_the_writer_logged_are_added_without_listing_the_folder() {
    let (dir, _, log) = repository_with_a_commit();
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    assert_eq!(follower.listings, 1);

    let (second, pack) = commit_and_pack(dir.path(), "b");
    log.push(pack);
    assert!(follower.find(second).unwrap());
    assert_eq!((follower.listings, follower.added), (1, 1), "added from the log");

    // A commit made by another process: its pack is not in the log, the folder is listed.
    let (third, _) = commit_and_pack(dir.path(), "c");
    assert!(follower.find(third).unwrap());
    assert_eq!(follower.listings, 2);

    // A logged pack that maintenance merged away before the follower looked.
    let (fourth, pack) = commit_and_pack(dir.path(), "d");
    log.push(pack);
    git(dir.path(), &["repack", "-q", "-a", "-d"]);
    assert!(follower.find(fourth).unwrap());
    assert!(follower.find(second).unwrap() && follower.find(third).unwrap());
    let tree = follower.repo().find_commit(fourth).unwrap().tree().unwrap();
    assert_eq!(tree.len(), 4);
}

#[test]
fn a_follower_lets_go_of_merged_packs_once_the_writer_has() {
    let (dir, first, log) = repository_with_a_commit();
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    let (second, pack) = commit_and_pack(dir.path(), "b");
    log.push(pack);
    assert!(follower.find(second).unwrap() && follower.find(first).unwrap());
    assert_eq!(follower.known.len(), 2);
    // Both packs read from, so both are open.
    for commit in [first, second] {
        follower.repo().find_commit(commit).unwrap();
    }

    // Maintenance merges both packs into one; the writer reopens and says so.
    git(dir.path(), &["repack", "-q", "-a", "-d"]);
    assert!(follower.find(first).unwrap());
    assert_eq!(follower.known.len(), 2, "still reading the merged packs it has open");
    log.reopened();
    assert!(follower.find(first).unwrap());
    assert_eq!(
        follower.known,
        indexes(dir.path()),
        "started over with the one pack there is"
    );
    assert!(follower.find(second).unwrap());
}

#[test]
fn the_log_keeps_the_newest_names_and_says_when_older_ones_are_gone() {
    let log = PackLog::default();
    for number in 0..LOGGED + 2 {
        log.push(format!("pack-{number}.idx").into());
    }
    assert_eq!(log.end(), LOGGED as u64 + 2);
    assert!(log.since(0).is_none() && log.since(1).is_none());
    let (packs, end) = log.since(LOGGED as u64).unwrap();
    let names: Vec<OsString> = packs.into_iter().map(|pack| pack.name).collect();
    assert_eq!(
        names,
        vec![
            OsString::from(format!("pack-{LOGGED}.idx")),
            OsString::from(format!("pack-{}.idx", LOGGED + 1))
        ]
    );
    assert_eq!(end, LOGGED as u64 + 2);
    let (none, same) = log.since(end).unwrap();
    assert!(none.is_empty() && same == end);
}

/// Every object of `commit` that `pack` holds (`git show-index` lists them), as the writer
/// would hand them over.
fn objects_of(dir: &Path, pack: &OsString) -> FreshObjects {
    let index = dir.join(".git/objects/pack").join(pack);
    let listing = std::process::Command::new("git")
        .args(["show-index"])
        .stdin(std::fs::File::open(&index).unwrap())
        .output()
        .unwrap();
    let repo = Repository::open(dir).unwrap();
    let odb = repo.odb().unwrap();
    let mut fresh = FreshObjects::default();
    for line in String::from_utf8(listing.stdout).unwrap().lines() {
        let id = Oid::from_str(line.split_whitespace().nth(1).unwrap()).unwrap();
        let object = odb.read(id).unwrap();
        fresh.add(id, object.kind(), object.data());
    }
    fresh
}

#[test]
fn objects_handed_over_with_a_logged_pack_are_read_from_memory_and_its_trees_kept_at_a_start_over() {
    let (dir, _, log) = repository_with_a_commit();
    assert!(!log.followed(), "no follower, no objects handed over");
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    assert!(log.followed());

    let (second, pack) = commit_and_pack(dir.path(), "b");
    let fresh = objects_of(dir.path(), &pack);
    assert_eq!(fresh.iter().count(), 3, "the commit, its tree and the new blob");
    // The pack moved away: only memory can hold the commit now.
    let pack_dir = dir.path().join(".git/objects/pack");
    let aside = tempfile::tempdir().unwrap();
    let files = ["idx", "pack"].map(|kind| pack.to_string_lossy().replace(".idx", &format!(".{kind}")));
    for file in &files {
        std::fs::rename(pack_dir.join(file), aside.path().join(file)).unwrap();
    }
    log.push_with(pack.clone(), Some(fresh));
    assert!(follower.find(second).unwrap());
    assert_eq!(
        (follower.added, follower.listings),
        (0, 1),
        "no pack opened, no listing"
    );
    assert!(follower.known.contains(&pack));
    {
        // The commit through libgit2, its tree and file as bytes.
        let commit = follower.repo().find_commit(second).unwrap();
        let tree = RawTree::read(&follower, commit.tree_id()).unwrap();
        let blob = tree.get("b").unwrap().id;
        assert_eq!(&follower.read(blob).unwrap()[..], b"b");
    }
    let in_memory = follower.in_memory;
    assert!(in_memory > 0);
    for file in &files {
        std::fs::rename(aside.path().join(file), pack_dir.join(file)).unwrap();
    }

    // Maintenance merges the packs, the first one (whose file the follower reads) among
    // them: the writer's reopen makes it start over, which reads the commits from what is on
    // disk and keeps the trees and files in memory.
    git(dir.path(), &["repack", "-q", "-a", "-d"]);
    log.reopened();
    let (third, third_pack) = commit_and_pack(dir.path(), "c");
    log.push(third_pack);
    assert!(follower.find(third).unwrap());
    assert_eq!(follower.added, 0, "started over");
    assert_eq!(follower.in_memory, in_memory);
    let tree = follower.repo().find_commit(second).unwrap().tree_id();
    assert!(follower.fresh.contains_key(&tree));
    assert!(follower.find(second).unwrap(), "read from the merged pack");
    assert!(!follower.known.contains(&pack), "merged away");
    assert_eq!(follower.known, indexes(dir.path()));

    drop(follower);
    assert!(!log.followed());
}

/// Joins `packs` into one, deletes them and logs the joined pack, as the writer does; its
/// index file's name.
fn join_as_the_writer(dir: &Path, log: &PackLog, packs: Vec<OsString>) -> OsString {
    let pack_dir = dir.join(".git/objects/pack");
    let (name, stems) = crate::gitdb::join::join(&pack_dir, &packs).unwrap().unwrap();
    for stem in &stems {
        crate::gitdb::join::delete(stem).unwrap();
    }
    let joined = OsString::from(format!("pack-{name}.idx"));
    log.push_joined(joined.clone(), packs);
    joined
}

/// Two commits, each in a pack of its own that the writer logs with its objects, found by
/// `follower`; the commits and their packs.
fn hand_over_two(dir: &Path, log: &PackLog, follower: &mut Follower) -> Vec<(Oid, OsString)> {
    let mut written = Vec::new();
    for name in ["b", "c"] {
        let (commit, pack) = commit_and_pack(dir, name);
        log.push_with(pack.clone(), Some(objects_of(dir, &pack)));
        assert!(follower.find(commit).unwrap());
        written.push((commit, pack));
    }
    written
}

#[test]
fn packs_held_in_memory_and_joined_by_the_writer_keep_the_follower_as_it_is() {
    let (dir, first, log) = repository_with_a_commit();
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    let written = hand_over_two(dir.path(), &log, &mut follower);
    let in_memory = follower.in_memory;
    assert!(in_memory > 0 && follower.added == 0);

    // The writer joins its two packs into one, deletes them and reopens.
    let packs: Vec<OsString> = written.iter().map(|(_, pack)| pack.clone()).collect();
    let joined = join_as_the_writer(dir.path(), &log, packs);
    log.reopened();
    let (second, third) = (written[0].0, written[1].0);
    assert!(follower.find(third).unwrap() && follower.find(second).unwrap());
    assert_eq!(follower.in_memory, in_memory, "no start-over: memory kept");
    assert_eq!(
        (follower.listings, follower.added),
        (2, 0),
        "one look for deleted packs"
    );
    assert!(follower.known.contains(&joined) && !follower.opened.contains(&joined));
    let tree = follower.repo().find_commit(third).unwrap().tree_id();
    assert_eq!(RawTree::read(&follower, tree).unwrap().iter().count(), 3);

    // A joined pack whose packs the follower did not hold in memory is opened.
    let (fourth, fourth_pack) = commit_and_pack(dir.path(), "d");
    let (fifth, fifth_pack) = commit_and_pack(dir.path(), "e");
    join_as_the_writer(dir.path(), &log, vec![fourth_pack, fifth_pack]);
    assert!(follower.find(fifth).unwrap() && follower.find(fourth).unwrap());
    assert_eq!(follower.added, 1, "the joined pack opened");

    // Maintenance merges everything, the packs it reads among them: it starts over.
    git(dir.path(), &["repack", "-q", "-a", "-d"]);
    log.reopened();
    assert!(follower.find(first).unwrap());
    assert_eq!((follower.added, follower.in_memory), (0, in_memory));
    assert_eq!(follower.known, indexes(dir.path()));
    assert!(follower.find(third).unwrap());
}

#[test]
fn a_pack_the_writer_holds_for_joining_may_go_without_a_start_over() {
    let (dir, _, log) = repository_with_a_commit();
    let (second, held) = commit_and_pack(dir.path(), "b");
    log.hold(held.clone());
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    assert!(follower.opened.contains(&held) && follower.to_be_joined.contains(&held));
    assert!(follower.find(second).unwrap());
    follower.repo().find_commit(second).unwrap();

    // The writer joins it with a later pack it handed over, deletes both and reopens.
    let (third, pack) = commit_and_pack(dir.path(), "c");
    log.push_with(pack.clone(), Some(objects_of(dir.path(), &pack)));
    assert!(follower.find(third).unwrap());
    join_as_the_writer(dir.path(), &log, vec![held, pack]);
    log.reopened();
    assert!(follower.find(third).unwrap() && follower.find(second).unwrap());
    assert!(follower.in_memory > 0, "no start-over");
    assert_eq!(
        (follower.listings, follower.added),
        (2, 1),
        "one look; the joined pack opened, as one of its packs was read from its file"
    );
    let tree = follower.repo().find_commit(third).unwrap().tree_id();
    assert_eq!(RawTree::read(&follower, tree).unwrap().iter().count(), 3);
}

#[test]
fn a_start_over_keeps_the_newest_handed_over_trees_and_files_only() {
    let (dir, _, log) = repository_with_a_commit();
    let mut follower = Follower::open(dir.path(), log.clone()).unwrap();
    let trees: Vec<Oid> = hand_over_two(dir.path(), &log, &mut follower)
        .into_iter()
        .map(|(commit, _)| follower.repo().find_commit(commit).unwrap().tree_id())
        .collect();
    assert!(trees.iter().all(|tree| follower.fresh.contains_key(tree)));
    let newest = follower.held.back().unwrap().1;

    follower.keep_newest(newest);
    follower.start_over("test").unwrap();
    assert_eq!(follower.in_memory, newest);
    assert!(!follower.fresh.contains_key(&trees[0]) && follower.fresh.contains_key(&trees[1]));
    // What memory let go of is read from its pack.
    let names: Vec<&[u8]> = vec![b"a", b"b"];
    let tree = RawTree::read(&follower, trees[0]).unwrap();
    assert_eq!(tree.iter().map(|entry| entry.name).collect::<Vec<_>>(), names);
}

#[test]
fn the_log_keeps_the_objects_of_its_newest_packs_only() {
    let log = PackLog::default();
    let size = FRESH_KEPT_BYTES / 100;
    let data = vec![b'x'; size];
    for number in 0..103 {
        let mut fresh = FreshObjects::default();
        fresh.add(
            Oid::hash_object(ObjectType::Blob, &data).unwrap(),
            ObjectType::Blob,
            &data,
        );
        log.push_with(format!("pack-{number}.idx").into(), Some(fresh));
    }
    // A pack without objects in between, and one larger than all the log keeps.
    log.push("pack-103.idx".into());
    let mut large = FreshObjects::default();
    let data = vec![b'y'; FRESH_KEPT_BYTES + 1];
    large.add(
        Oid::hash_object(ObjectType::Blob, &data).unwrap(),
        ObjectType::Blob,
        &data,
    );
    let kept = |log: &PackLog| -> Vec<bool> {
        let (packs, _) = log.since(0).unwrap();
        packs.iter().map(|pack| pack.fresh.is_some()).collect()
    };
    let before = kept(&log);
    assert_eq!(before.iter().filter(|kept| **kept).count(), 100);
    assert!(!before[2] && before[3], "the oldest three let go");
    log.push_with("pack-104.idx".into(), Some(large));
    let after = kept(&log);
    assert_eq!(
        after.iter().filter(|kept| **kept).count(),
        1,
        "the newest pack's are kept"
    );
    assert!(after[104]);
}
