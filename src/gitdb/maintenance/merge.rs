//! A maintenance run's merge of the smallest packs: which to merge (the geometric
//! progression), their objects' ids read from the pack indexes, each small pack's objects
//! named by the paths its own commits show, `git pack-objects` given the list, and the merged
//! packs deleted once the new one is complete.

use std::collections::{HashMap, HashSet};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use super::{ChildSlot, Done, Ended, git};
use crate::gitdb::follow::PackLog;
use crate::gitdb::objects::{add_pack_backend, index_names};
use crate::gitdb::pack_writer::{INDEX_IDS_AT, count_in_index_head};

/// A temporary file git left in the pack folder (a run killed at shutdown) is deleted by a
/// later run once it is this old: a git command of someone else's may be writing a young one.
pub(super) const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

/// Packs of at most this many objects have their objects named (see [`name_objects`]): the
/// writer's batches and the packs it joined them into (a few batches of up to a few hundred
/// objects). A larger pack was made by an earlier merge, whose deltas are reused, or is a
/// bulk import's, which the full repack after it takes care of.
const MOST_NAMED_PACK_OBJECTS: u64 = 16_384;

/// A pack in the pack folder: its path without the extension, and how many objects it holds.
#[derive(Debug, Clone, PartialEq)]
struct Pack {
    stem: PathBuf,
    objects: u64,
}

pub(super) fn merge_small_packs(git_dir: &Path, child: &ChildSlot, pack_log: &PackLog) -> Ended {
    let objects_dir = git_dir.join("objects");
    let pack_dir = objects_dir.join("pack");
    remove_stale_temporaries(&pack_dir);
    let mut packs = match list_packs(&pack_dir) {
        Ok(packs) => packs,
        Err(err) => return Ended::Failed(format!("cannot list the packs: {err}")),
    };
    // The writer's small packs that it joins itself (read after the listing, so that a pack
    // it holds is never taken; one joined meanwhile is passed over below).
    let held = pack_log.held();
    packs.retain(|pack| {
        let index = pack.stem.with_extension("idx");
        !index.file_name().is_some_and(|name| held.contains(name))
    });
    let loose = loose_objects(&objects_dir);
    let mut merged = packs_to_merge(packs, loose.len());
    let mut done = Done {
        full: false,
        packs: 0,
        loose: 0,
        merged: 0,
    };
    if merged.len() < 2 && loose.is_empty() {
        return Ended::Done(done);
    }
    let mut ids = Vec::new();
    let mut names = HashMap::new();
    let mut gone = Vec::new();
    for pack in &merged {
        let index = pack.stem.with_extension("idx");
        match index_ids(&index) {
            Ok(found) => {
                if pack.objects <= MOST_NAMED_PACK_OBJECTS {
                    name_objects(&index, &found, &mut names);
                }
                ids.extend(found);
            }
            // Joined by the writer since the listing: its objects are in the joined pack.
            Err(err) if err.kind() == io::ErrorKind::NotFound => gone.push(pack.stem.clone()),
            Err(err) => return Ended::Failed(format!("cannot read {}: {err}", pack.stem.display())),
        }
    }
    merged.retain(|pack| !gone.contains(&pack.stem));

    let mut command = git(git_dir);
    command
        .args(["pack-objects", "--local", "--quiet", "--delta-base-offset"])
        .arg(pack_dir.join("pack"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let feed = |input: &mut dyn Write| {
        let mut input = io::BufWriter::new(input);
        for id in &ids {
            match names.get(id) {
                Some(path) => writeln!(input, "{} {path}", hex::encode(id))?,
                None => writeln!(input, "{}", hex::encode(id))?,
            }
        }
        for id in &loose {
            writeln!(input, "{id}")?;
        }
        input.flush()
    };
    let output = match child.run(command, feed) {
        Ok(output) => output,
        Err(ended) => return ended,
    };
    // pack-objects answers the new pack's name.
    let mut name = String::new();
    if let Some(mut stdout) = output
        && let Err(err) = stdout.read_to_string(&mut name)
    {
        return Ended::Failed(format!("cannot read git's answer: {err}"));
    }
    let new = pack_dir.join(format!("pack-{}", name.trim()));
    if !new.with_extension("idx").is_file() {
        return Ended::Failed(format!("git wrote no pack {}", new.display()));
    }
    for pack in merged.iter().filter(|pack| pack.stem != new) {
        if let Err(err) = crate::gitdb::join::delete(&pack.stem) {
            return Ended::Failed(format!("cannot delete {}: {err}", pack.stem.display()));
        }
    }
    if !loose.is_empty() {
        // The loose objects now packed: `git prune-packed` deletes those (and only those).
        let mut command = git(git_dir);
        command.args(["prune-packed", "-q"]);
        if let Err(ended) = child.run(command, |_| Ok(())) {
            return ended;
        }
    }
    done.packs = merged.len();
    done.loose = loose.len();
    done.merged = (ids.len() + loose.len()) as u64;
    Ended::Done(done)
}

/// Names the trees and files of the pack whose index is `index` by their paths, as far as
/// its commits show them. `git pack-objects` looks for a delta between objects of the same
/// name first (a folder's or a key file's versions), and given none it paired objects of
/// about the same size: its merged packs were a third larger than `git repack
/// --geometric`'s, and later repacks keep the deltas they find. A commit's new trees and
/// files are in the same pack as the commit (the writer publishes a batch as one pack, and a
/// merge keeps them together), so each pack is read on its own, and only its own objects:
/// the cost follows what was written, where `git repack --geometric` read every commit's
/// whole tree. Objects no commit of the pack leads to go without a name.
fn name_objects(index: &Path, ids: &[[u8; ID_LEN]], names: &mut HashMap<[u8; ID_LEN], String>) {
    let mut read = || -> Result<(), git2::Error> {
        let odb = git2::Odb::new()?;
        add_pack_backend(&odb, index, 1).map_err(|err| git2::Error::from_str(&err.to_string()))?;
        let repo = git2::Repository::from_odb(odb)?;
        let odb = repo.odb()?;
        let in_pack: HashSet<[u8; ID_LEN]> = ids.iter().copied().collect();
        for id in ids {
            let id = git2::Oid::from_bytes(id)?;
            if odb.read_header(id)?.1 != git2::ObjectType::Commit {
                continue;
            }
            if let Ok(tree) = repo.find_commit(id).and_then(|commit| commit.tree()) {
                name_tree(&repo, &tree, &mut String::new(), &in_pack, names);
            }
        }
        Ok(())
    };
    if let Err(err) = read() {
        tracing::debug!(error = %err, index = %index.display(), "cannot name a pack's objects");
    }
}

/// Names the entries of `tree` that are in the pack, and reads on into those subtrees only
/// (the others were written before).
fn name_tree(
    repo: &git2::Repository,
    tree: &git2::Tree<'_>,
    prefix: &mut String,
    in_pack: &HashSet<[u8; ID_LEN]>,
    names: &mut HashMap<[u8; ID_LEN], String>,
) {
    for entry in tree.iter() {
        let (Ok(id), Ok(name)) = (<[u8; ID_LEN]>::try_from(entry.id().as_bytes()), entry.name()) else {
            continue;
        };
        if !in_pack.contains(&id) || names.contains_key(&id) || name.contains('\n') {
            continue;
        }
        let length = prefix.len();
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(name);
        names.insert(id, prefix.clone());
        if entry.kind() == Some(git2::ObjectType::Tree)
            && let Ok(subtree) = repo.find_tree(entry.id())
        {
            name_tree(repo, &subtree, prefix, in_pack, names);
        }
        prefix.truncate(length);
    }
}

/// Which packs to merge: the smallest ones, so that each pack left (the merged one
/// included) holds at least twice the objects of the next smaller one; loose objects, if
/// any, are merged whatever their number.
fn packs_to_merge(mut packs: Vec<Pack>, loose: usize) -> Vec<Pack> {
    // Loose objects stand in the progression as a pack of their own with no files.
    let loose_stand_in = Pack {
        stem: PathBuf::new(),
        objects: loose as u64,
    };
    if loose > 0 {
        packs.push(loose_stand_in.clone());
    }
    packs.sort_by_key(|pack| pack.objects);
    let counts: Vec<u64> = packs.iter().map(|pack| pack.objects).collect();
    let mut merged = packs;
    merged.truncate(merge_count(&counts));
    merged.retain(|pack| *pack != loose_stand_in);
    merged
}

/// Of pack sizes sorted smallest first: how many of the smallest to merge into one so that
/// every size left is at least twice the next smaller one (git's geometric progression with
/// factor 2). Everything up to the last place where the progression breaks is merged, then
/// the next packs while the merged one is more than half of them.
fn merge_count(counts: &[u64]) -> usize {
    let mut merge = counts
        .windows(2)
        .rposition(|pair| pair[1] < 2 * pair[0])
        .map_or(0, |at| at + 2);
    let mut total: u64 = counts[..merge].iter().sum();
    while merge < counts.len() && counts[merge] < 2 * total {
        total += counts[merge];
        merge += 1;
    }
    merge
}

/// The packs there are, each with its index (a pack is used once its index is there), but
/// not those marked to be kept (`.keep`, `.promisor`) nor those with an index of another
/// version than 2.
fn list_packs(pack_dir: &Path) -> io::Result<Vec<Pack>> {
    let mut packs = Vec::new();
    for name in index_names(pack_dir)? {
        let stem = pack_dir.join(name).with_extension("");
        if !stem.with_extension("pack").is_file()
            || stem.with_extension("keep").exists()
            || stem.with_extension("promisor").exists()
        {
            continue;
        }
        // A pack merged and deleted by someone else meanwhile is passed over.
        if let Ok(Some(objects)) = index_count(&stem.with_extension("idx")) {
            packs.push(Pack { stem, objects });
        }
    }
    Ok(packs)
}

const ID_LEN: usize = 20;

/// The number of objects in the index at `path`; `None` when it is not a version 2 index.
fn index_count(path: &Path) -> io::Result<Option<u64>> {
    let mut head = [0u8; INDEX_IDS_AT];
    std::fs::File::open(path)?.read_exact(&mut head)?;
    Ok(count_in_index_head(&head))
}

/// The ids of the objects in the pack index at `path`.
fn index_ids(path: &Path) -> io::Result<Vec<[u8; ID_LEN]>> {
    let index = std::fs::read(path)?;
    let count = count_in_index_head(&index).ok_or_else(|| io::Error::other("not a version 2 pack index"))? as usize;
    let ids = index
        .get(INDEX_IDS_AT..INDEX_IDS_AT + count * ID_LEN)
        .ok_or_else(|| io::Error::other("the pack index is cut short"))?;
    Ok(ids
        .chunks_exact(ID_LEN)
        .map(|id| id.try_into().expect("chunks of the id's length"))
        .collect())
}

/// The ids of the loose objects (`objects/ab/cdef...`), as hex.
pub(super) fn loose_objects(objects_dir: &Path) -> Vec<String> {
    let Ok(folders) = std::fs::read_dir(objects_dir) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    for folder in folders.filter_map(Result::ok) {
        let prefix = folder.file_name().to_string_lossy().into_owned();
        if prefix.len() != 2 || !prefix.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(folder.path()) else {
            continue;
        };
        for file in files.filter_map(Result::ok) {
            let rest = file.file_name().to_string_lossy().into_owned();
            if rest.len() == 2 * ID_LEN - 2 && rest.bytes().all(|byte| byte.is_ascii_hexdigit()) {
                ids.push(format!("{prefix}{rest}"));
            }
        }
    }
    ids
}

/// Deletes the temporary files `git pack-objects` leaves in the pack folder when killed
/// (`tmp_pack_*`, `tmp_idx_*`, `tmp_rev_*`), once they are [`STALE_TEMPORARY`] old.
fn remove_stale_temporaries(pack_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(pack_dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !["tmp_pack_", "tmp_idx_", "tmp_rev_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() >= STALE_TEMPORARY);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_packs_are_merged_until_each_is_twice_the_next_smaller() {
        // Already a progression: nothing.
        assert_eq!(merge_count(&[1, 2, 4, 100]), 0);
        assert_eq!(merge_count(&[]), 0);
        assert_eq!(merge_count(&[7]), 0);
        // Small packs of a burst under a large one: the small ones.
        assert_eq!(merge_count(&[3, 3, 3, 1000]), 3);
        // The merged pack would be more than half of the next: that one too.
        assert_eq!(merge_count(&[3, 3, 3, 10, 1000]), 4);
        assert_eq!(merge_count(&[5, 5, 5, 20]), 4);
        // A break high up merges everything below it.
        assert_eq!(merge_count(&[1, 10, 30, 40, 500]), 4);
    }

    #[test]
    fn loose_objects_are_merged_whatever_their_number() {
        let pack = |name: &str, objects| Pack {
            stem: PathBuf::from(name),
            objects,
        };
        let packs = vec![pack("big", 1000), pack("a", 10), pack("b", 12)];
        let merged = packs_to_merge(packs.clone(), 0);
        assert_eq!(merged, vec![pack("a", 10), pack("b", 12)]);
        // Loose objects in a progression that holds: merged alone.
        assert_eq!(packs_to_merge(vec![pack("big", 1000), pack("a", 10)], 1), vec![]);
        // Loose objects among the small packs: merged with them.
        let merged = packs_to_merge(packs, 11);
        assert_eq!(merged, vec![pack("a", 10), pack("b", 12)]);
    }
}
