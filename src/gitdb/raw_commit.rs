//! A commit's first parent read from the commit object's bytes, for walks of the branch's
//! first-parent line through objects held in memory (see [`super::follow::Follower`]),
//! without a libgit2 lookup of each commit in the packs.

use git2::Oid;

/// The first parent of the commit whose data (without git's object header) is `data`:
/// `Ok(None)` for a root commit, `Err` when the data does not start as a commit's does (a
/// `tree` line, then a well-formed `parent` line if any). The rest is not checked.
pub fn first_parent(data: &[u8]) -> Result<Option<Oid>, git2::Error> {
    let malformed = || git2::Error::from_str("malformed commit object");
    let mut lines = data.split(|&byte| byte == b'\n');
    // The header starts with the tree; the parents follow it, before any other field.
    let tree = lines.next().ok_or_else(malformed)?;
    if !tree.starts_with(b"tree ") {
        return Err(malformed());
    }
    match lines.next().and_then(|line| line.strip_prefix(b"parent ")) {
        Some(hex) => {
            let hex = std::str::from_utf8(hex).map_err(|_| malformed())?;
            if hex.len() != 40 {
                return Err(malformed());
            }
            Oid::from_str(hex).map(Some)
        }
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitdb::raw_tree::Objects;
    use git2::{Repository, Signature};

    /// A repository with a root commit, a second on it, and a merge of a side commit.
    fn history() -> (tempfile::TempDir, Repository, [Oid; 4]) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let who = Signature::now("Ann", "ann@example.com").unwrap();
        let tree = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let commit = |parents: &[Oid], message: &str| {
            let parents: Vec<_> = parents.iter().map(|id| repo.find_commit(*id).unwrap()).collect();
            let parents: Vec<_> = parents.iter().collect();
            repo.commit(None, &who, &who, message, &tree, &parents).unwrap()
        };
        let root = commit(&[], "root");
        let second = commit(&[root], "second");
        let side = commit(&[root], "side");
        let merge = commit(&[second, side], "merge\n\nparent deadbeef in the message");
        drop(tree);
        (dir, repo, [root, second, side, merge])
    }

    #[test]
    fn the_first_parent_is_the_one_libgit2_gives_and_a_root_has_none() {
        let (_dir, repo, ids) = history();
        for id in ids {
            let expected = repo.find_commit(id).unwrap().parent_id(0).ok();
            assert_eq!(first_parent(&repo.read(id).unwrap()).unwrap(), expected, "{id}");
        }
        let [root, second, _, merge] = ids;
        assert_eq!(first_parent(&repo.read(root).unwrap()).unwrap(), None);
        assert_eq!(first_parent(&repo.read(merge).unwrap()).unwrap(), Some(second));
    }

    #[test]
    fn data_that_is_no_commit_is_refused() {
        let (_dir, repo, ids) = history();
        let tree = repo.find_commit(ids[0]).unwrap().tree_id();
        assert!(first_parent(&repo.read(tree).unwrap()).is_err(), "a tree's data");
        assert!(first_parent(b"").is_err());
        assert!(first_parent(b"parent 0123456789012345678901234567890123456789\n").is_err());
        let short = format!("tree {tree}\nparent 01234\nauthor A <a> 1 +0000\n");
        assert!(first_parent(short.as_bytes()).is_err());
        let bad = format!("tree {tree}\nparent {}\n", "z".repeat(40));
        assert!(first_parent(bad.as_bytes()).is_err());
    }
}
