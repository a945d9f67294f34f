//! Thin git2 helpers; the only module that imports git2.
//!
//! Commits are built from the parent's tree with the edits applied (no git index), because
//! rewriting a large index on every commit costs more than the commit itself. The index is
//! brought in line with HEAD separately, when the writer is idle ([`GitRepo::sync_index`]).
//! Callers decide what a change means and pass the subject; this module only records it.

use std::path::{Path, PathBuf};

use git2::{FileMode, ObjectType, Oid, Repository, RepositoryInitOptions, Signature, TreeWalkMode, TreeWalkResult};

use super::error::StoreError;

/// The committer of every change.
pub const COMMITTER: &str = "locstore";
const COMMITTER_EMAIL: &str = "locstore@localhost";
const BRANCH: &str = "main";
/// From this many written files on, a commit's objects go into one pack instead of loose files.
pub const BULK_WRITES: usize = 256;

/// One change to a tree, applied both to the commit's tree and to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeEdit {
    /// Create or replace a file.
    Write { path: String, contents: Vec<u8> },
    /// Remove a file or a whole folder.
    Remove { path: String },
    /// Move a folder (a rename of a team or project).
    Move { from: String, to: String },
}

/// The data repository: a normal git repository with a working tree.
pub struct GitRepo {
    repo: Repository,
    root: PathBuf,
    /// The current commit of HEAD, kept here because this process is the only writer.
    head: Oid,
}

impl GitRepo {
    /// Opens the repository at `root`, or creates it from `template` when the folder is
    /// missing, empty, or holds a repository without commits. Returns whether it was created.
    pub fn open_or_init(root: &Path, template: &[(&str, &[u8])]) -> Result<(Self, bool), StoreError> {
        tune_libgit2();
        let is_empty_dir = |path: &Path| {
            path.read_dir()
                .map(|mut entries| entries.next().is_none())
                .unwrap_or(true)
        };
        if !root.exists() || is_empty_dir(root) {
            std::fs::create_dir_all(root).map_err(|err| StoreError::io(root, err))?;
            let mut options = RepositoryInitOptions::new();
            options.initial_head(BRANCH).no_reinit(true);
            Repository::init_opts(root, &options)
                .map_err(|err| git_error(format!("cannot create a git repository in {}", root.display()), err))?;
        }
        let repo = Repository::open(root)
            .map_err(|err| git_error(format!("{} is not a git repository", root.display()), err))?;
        if repo.is_bare() {
            return Err(StoreError::internal(
                format!("{} is a bare repository", root.display()),
                "locstore needs a working tree",
            ));
        }
        let root = repo.workdir().unwrap_or(root).to_path_buf();
        match repo.head().ok().and_then(|head| head.target()) {
            Some(head) => Ok((Self { repo, root, head }, false)),
            None => {
                let mut git_repo = Self {
                    repo,
                    root,
                    head: Oid::ZERO_SHA1,
                };
                git_repo.create_first_commit(template)?;
                Ok((git_repo, true))
            }
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn git_dir(&self) -> &Path {
        self.repo.path()
    }

    pub fn head(&self) -> Oid {
        self.head
    }

    /// Builds the commit for `edits` on top of HEAD without moving HEAD. Returns `None` when
    /// the edits leave the tree as it is (a no-op change commits nothing).
    pub fn prepare_commit(&self, edits: &[TreeEdit], subject: &str, author: &str) -> Result<Option<Oid>, StoreError> {
        let writes = edits
            .iter()
            .filter(|edit| matches!(edit, TreeEdit::Write { .. }))
            .count();
        if writes < BULK_WRITES {
            return build_commit(&self.repo, self.head, edits, subject, author);
        }
        // Many new objects (an import): written as loose files they would cost one file each,
        // so they are gathered in memory and written as one pack. A second handle on the same
        // repository carries the in-memory backend, so that this handle keeps writing small
        // commits as loose objects, which `git gc` packs later.
        let bulk = Repository::open(&self.root).map_err(|err| git_error("cannot open the repository again", err))?;
        let odb = bulk
            .odb()
            .map_err(|err| git_error("cannot open the object database", err))?;
        let mempack = odb
            .add_new_mempack_backend(1000)
            .map_err(|err| git_error("cannot add an in-memory object store", err))?;
        let commit = build_commit(&bulk, self.head, edits, subject, author)?;
        let mut pack = git2::Buf::new();
        mempack
            .dump(&bulk, &mut pack)
            .map_err(|err| git_error("cannot pack the new objects", err))?;
        let main_odb = self
            .repo
            .odb()
            .map_err(|err| git_error("cannot open the object database", err))?;
        let mut writer = main_odb
            .packwriter()
            .map_err(|err| git_error("cannot start a pack", err))?;
        std::io::Write::write_all(&mut writer, &pack)
            .map_err(|err| StoreError::internal("cannot write a pack", err))?;
        writer.commit().map_err(|err| git_error("cannot finish a pack", err))?;
        mempack
            .reset()
            .map_err(|err| git_error("cannot reset the in-memory object store", err))?;
        Ok(commit)
    }

    /// Moves the branch to `commit`, which must be a child of the current HEAD.
    pub fn advance_head(&mut self, commit: Oid, subject: &str) -> Result<(), StoreError> {
        let reference = self.branch_ref()?;
        self.repo
            .reference_matching(&reference, commit, true, self.head, subject)
            .map_err(|err| git_error(format!("cannot move {reference}"), err))?;
        self.head = commit;
        Ok(())
    }

    /// Calls `visit` with the path (relative to `dir`) and contents of every file under `dir`
    /// in HEAD; nothing happens when `dir` does not exist.
    pub fn for_each_file_under(&self, dir: &str, mut visit: impl FnMut(&str, &[u8])) -> Result<(), StoreError> {
        let Some(tree) = self.subtree(dir)? else {
            return Ok(());
        };
        let mut failure = None;
        tree.walk(TreeWalkMode::PreOrder, |parent, entry| {
            if entry.kind() != Some(ObjectType::Blob) {
                return TreeWalkResult::Ok;
            }
            let Ok(name) = entry.name() else {
                return TreeWalkResult::Skip;
            };
            match self.repo.find_blob(entry.id()) {
                Ok(blob) => {
                    visit(&format!("{parent}{name}"), blob.content());
                    TreeWalkResult::Ok
                }
                Err(err) => {
                    failure = Some(err);
                    TreeWalkResult::Abort
                }
            }
        })
        .ok();
        match failure {
            Some(err) => Err(git_error(format!("cannot read the files under {dir}"), err)),
            None => Ok(()),
        }
    }

    /// The names of the folders directly under `dir` in HEAD.
    pub fn subfolders(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        let Some(tree) = self.subtree(dir)? else {
            return Ok(Vec::new());
        };
        Ok(tree
            .iter()
            .filter(|entry| entry.kind() == Some(ObjectType::Tree))
            .filter_map(|entry| entry.name().ok().map(str::to_owned))
            .collect())
    }

    /// The contents of one file in HEAD, or `None` when there is no such file.
    pub fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tree = self.head_tree()?;
        let Ok(entry) = tree.get_path(Path::new(path)) else {
            return Ok(None);
        };
        if entry.kind() != Some(ObjectType::Blob) {
            return Ok(None);
        }
        let blob = self
            .repo
            .find_blob(entry.id())
            .map_err(|err| git_error(format!("cannot read {path}"), err))?;
        Ok(Some(blob.content().to_vec()))
    }

    /// Brings the git index in line with HEAD. Entries whose content did not change keep their
    /// cached file status; for the `touched` paths (files or folders the server wrote since the
    /// last sync) the status is taken from the file system, so that `git status` need not hash
    /// them. Their content is HEAD's by construction: the writer wrote exactly those blobs.
    pub fn sync_index<'a>(&self, touched: impl Iterator<Item = &'a str>) -> Result<(), StoreError> {
        let mut index = self
            .repo
            .index()
            .map_err(|err| git_error("cannot open the git index", err))?;
        index
            .read_tree(&self.head_tree()?)
            .map_err(|err| git_error("cannot read HEAD into the index", err))?;
        for path in touched {
            let full = self.root.join(path);
            if full.is_dir() {
                for entry in walkdir::WalkDir::new(&full).into_iter().filter_map(Result::ok) {
                    if entry.file_type().is_file()
                        && let Ok(relative) = entry.path().strip_prefix(&self.root)
                    {
                        refresh_entry(&mut index, relative, entry.path())?;
                    }
                }
            } else {
                refresh_entry(&mut index, Path::new(path), &full)?;
            }
        }
        index
            .write()
            .map_err(|err| git_error("cannot write the git index", err))
    }

    /// Puts the working tree and the index back to HEAD, as after `git reset --hard`, and
    /// removes files under `managed_dir` that git does not track. A change that was being
    /// written when the process died was never acknowledged, so dropping it loses nothing.
    pub fn reset_to_head(&self, managed_dir: &str) -> Result<(), StoreError> {
        let head = self
            .repo
            .find_object(self.head, None)
            .map_err(|err| git_error("cannot read HEAD", err))?;
        self.repo
            .reset(&head, git2::ResetType::Hard, None)
            .map_err(|err| git_error("cannot reset the working tree to HEAD", err))?;
        let mut checkout = git2::build::CheckoutBuilder::new();
        checkout.force().remove_untracked(true).path(managed_dir);
        self.repo
            .checkout_head(Some(&mut checkout))
            .map_err(|err| git_error("cannot remove untracked files", err))
    }

    fn create_first_commit(&mut self, template: &[(&str, &[u8])]) -> Result<(), StoreError> {
        // The template is flat (files at the root), so one tree builder makes the whole tree.
        let mut builder = self
            .repo
            .treebuilder(None)
            .map_err(|err| git_error("cannot build a tree", err))?;
        for (path, contents) in template {
            let full = self.root.join(path);
            std::fs::write(&full, contents).map_err(|err| StoreError::io(&full, err))?;
            let blob = self
                .repo
                .blob(contents)
                .map_err(|err| git_error("cannot write a blob", err))?;
            builder
                .insert(path, blob, i32::from(FileMode::Blob))
                .map_err(|err| git_error(format!("cannot add {path}"), err))?;
        }
        let tree = builder.write().map_err(|err| git_error("cannot write a tree", err))?;
        let tree = self
            .repo
            .find_tree(tree)
            .map_err(|err| git_error("cannot read a tree", err))?;
        let signature =
            Signature::now(COMMITTER, COMMITTER_EMAIL).map_err(|err| git_error("invalid committer", err))?;
        self.head = self
            .repo
            .commit(
                Some("HEAD"),
                &signature,
                &signature,
                "Create the locstore data repository",
                &tree,
                &[],
            )
            .map_err(|err| git_error("cannot write the first commit", err))?;
        self.sync_index(template.iter().map(|(path, _)| *path))
    }

    fn head_tree(&self) -> Result<git2::Tree<'_>, StoreError> {
        self.repo
            .find_commit(self.head)
            .and_then(|commit| commit.tree())
            .map_err(|err| git_error("cannot read HEAD's tree", err))
    }

    fn subtree(&self, dir: &str) -> Result<Option<git2::Tree<'_>>, StoreError> {
        let tree = self.head_tree()?;
        let Ok(entry) = tree.get_path(Path::new(dir)) else {
            return Ok(None);
        };
        if entry.kind() != Some(ObjectType::Tree) {
            return Ok(None);
        }
        let subtree = self
            .repo
            .find_tree(entry.id())
            .map_err(|err| git_error(format!("cannot read {dir}"), err))?;
        Ok(Some(subtree))
    }

    fn branch_ref(&self) -> Result<String, StoreError> {
        let head = self
            .repo
            .find_reference("HEAD")
            .map_err(|err| git_error("cannot read HEAD", err))?;
        Ok(head.symbolic_target().ok().flatten().unwrap_or("HEAD").to_owned())
    }
}

fn git_error(context: impl Into<String>, err: git2::Error) -> StoreError {
    StoreError::internal(context, err)
}

/// Process-wide libgit2 settings for a store that commits often into large trees.
fn tune_libgit2() {
    static TUNED: std::sync::Once = std::sync::Once::new();
    TUNED.call_once(|| {
        // Every commit rewrites the trees on the path to the key: the project's `keys` tree
        // and its shard hold hundreds of entries, larger than libgit2's default 4 KiB cache
        // limit for trees, so they would be read and inflated again for every commit.
        // SAFETY: libgit2 options are set once, before any repository is used.
        if let Err(err) = unsafe { git2::opts::set_cache_object_limit(ObjectType::Tree, 4 << 20) } {
            tracing::warn!(error = %err, "cannot raise libgit2's tree cache limit");
        }
        // Objects referenced by new trees and commits were just written or read by this
        // process, so checking that they exist, and re-hashing every object read, only costs
        // time; `git fsck` checks the repository as a whole.
        git2::opts::strict_object_creation(false);
        git2::opts::strict_hash_verification(false);
    });
}

/// Builds the commit for `edits` on top of `parent` in `repo`, or `None` when the tree stays
/// the same.
fn build_commit(
    repo: &Repository,
    parent: Oid,
    edits: &[TreeEdit],
    subject: &str,
    author: &str,
) -> Result<Option<Oid>, StoreError> {
    let parent = repo
        .find_commit(parent)
        .map_err(|err| git_error("cannot read HEAD", err))?;
    let base_tree = parent.tree_id();
    let tree = apply_edits(repo, base_tree, edits)?;
    if tree == base_tree {
        return Ok(None);
    }
    let tree = repo
        .find_tree(tree)
        .map_err(|err| git_error("cannot read the new tree", err))?;
    let author =
        Signature::now(author, &format!("{author}@locstore")).map_err(|err| git_error("invalid author", err))?;
    let committer = Signature::now(COMMITTER, COMMITTER_EMAIL).map_err(|err| git_error("invalid committer", err))?;
    let commit = repo
        .commit(None, &author, &committer, subject, &tree, &[&parent])
        .map_err(|err| git_error("cannot write the commit", err))?;
    Ok(Some(commit))
}

fn apply_edits(repo: &Repository, base_tree: Oid, edits: &[TreeEdit]) -> Result<Oid, StoreError> {
    let mut tree = base_tree;
    // Writes and removals go through one builder; a move needs the tree as it stands, so
    // it closes the running builder and gets its own.
    let mut pending = git2::build::TreeUpdateBuilder::new();
    let mut has_pending = false;
    for edit in edits {
        match edit {
            TreeEdit::Write { path, contents } => {
                let blob = repo
                    .blob(contents)
                    .map_err(|err| git_error("cannot write a blob", err))?;
                pending.upsert(path.as_str(), blob, FileMode::Blob);
                has_pending = true;
            }
            TreeEdit::Remove { path } => {
                if tree_entry(repo, tree, path)?.is_some() {
                    pending.remove(path.as_str());
                    has_pending = true;
                }
            }
            TreeEdit::Move { from, to } => {
                if has_pending {
                    tree = update_tree(repo, tree, &mut pending)?;
                    pending = git2::build::TreeUpdateBuilder::new();
                    has_pending = false;
                }
                let Some((id, mode)) = tree_entry(repo, tree, from)? else {
                    continue;
                };
                let mut builder = git2::build::TreeUpdateBuilder::new();
                builder.remove(from.as_str()).upsert(to.as_str(), id, mode);
                tree = update_tree(repo, tree, &mut builder)?;
            }
        }
    }
    if has_pending {
        tree = update_tree(repo, tree, &mut pending)?;
    }
    Ok(tree)
}

fn update_tree(repo: &Repository, tree: Oid, builder: &mut git2::build::TreeUpdateBuilder) -> Result<Oid, StoreError> {
    let tree = repo
        .find_tree(tree)
        .map_err(|err| git_error("cannot read a tree", err))?;
    builder
        .create_updated(repo, &tree)
        .map_err(|err| git_error("cannot write the new tree", err))
}

fn tree_entry(repo: &Repository, tree: Oid, path: &str) -> Result<Option<(Oid, FileMode)>, StoreError> {
    let tree = repo
        .find_tree(tree)
        .map_err(|err| git_error("cannot read a tree", err))?;
    Ok(tree.get_path(Path::new(path)).ok().map(|entry| {
        let mode = if entry.kind() == Some(ObjectType::Tree) {
            FileMode::Tree
        } else {
            FileMode::Blob
        };
        (entry.id(), mode)
    }))
}

/// Records a file's status in its index entry, if the index has one (HEAD holds the file).
fn refresh_entry(index: &mut git2::Index, relative: &Path, full: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;

    let Some(mut entry) = index.get_path(relative, 0) else {
        return Ok(());
    };
    let Ok(meta) = std::fs::symlink_metadata(full) else {
        return Ok(());
    };
    // The index stores 32-bit fields; git truncates the same way.
    entry.ctime = git2::IndexTime::new(meta.ctime() as i32, meta.ctime_nsec() as u32);
    entry.mtime = git2::IndexTime::new(meta.mtime() as i32, meta.mtime_nsec() as u32);
    entry.dev = meta.dev() as u32;
    entry.ino = meta.ino() as u32;
    entry.uid = meta.uid();
    entry.gid = meta.gid();
    entry.file_size = meta.len() as u32;
    index
        .add(&entry)
        .map_err(|err| git_error(format!("cannot update the index entry of {}", relative.display()), err))
}
