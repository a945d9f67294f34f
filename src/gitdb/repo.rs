//! The repository the writer owns: open or init, stage and publish commits, tags, the
//! branch, the index kept in step with HEAD.
//!
//! Commits are built from the parent's tree with the edits applied (no git index), because
//! rewriting a large index on every commit costs more than the commit itself. The index is
//! brought in line with HEAD separately, when the writer is idle ([`GitRepo::sync_index`]).
//! Callers decide what a change means and pass the subject; this module only records it.
//!
//! New objects never become loose files. They go to an in-memory object store
//! ([`super::objects`]); [`GitRepo::publish`] writes everything staged there as one pack and
//! then moves the branch. The writer stages a whole
//! batch of queued changes, each its own commit, and publishes once. Loose objects would cost
//! eight new files per commit, and packing them later deletes as many: on ext4 without a
//! journal (this project's machines) every recently deleted inode makes the next file
//! creation slower, so a file-per-object store gets slower the more it is maintained.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{FileMode, ObjectType, Oid, Repository, RepositoryInitOptions, Signature, TreeWalkMode, TreeWalkResult};

use super::edit::TreeEdit;
use super::follow::PackLog;
use super::index::{refresh_entry, update_index_entry};
use super::objects::Staging;
use super::{GitError, git_error};

mod refs;
pub use refs::{ref_writes, refs_written};

/// The committer of every change.
pub const COMMITTER: &str = "locstore";
const COMMITTER_EMAIL: &str = "locstore@localhost";
const BRANCH: &str = "main";
/// From this many written files on, a change counts as bulk (an import): memory it used is
/// handed back to the operating system once it is published.
pub const BULK_WRITES: usize = 256;
/// Packs written since opening after which the writer joins them and reopens the repository.
const REOPEN_AFTER_PACKS: usize = 32;
/// Packs up to this size are joined ([`super::join`]); larger ones (an import's) are left to
/// maintenance as they are.
const JOIN_BELOW_BYTES: u64 = 1 << 20;
/// Packs joined into one. Few: `git pack-objects` never tries two objects stored whole in
/// the same pack against each other, so each batch's newest trees in a joined pack are not
/// made deltas of one another when maintenance merges it. 20,000 creates: packs 20.9 MB
/// without joining, 21.4 MB joining 4, 21.9 MB joining 8, 23.4 MB joining 32.
const JOINED_PACKS: usize = 4;

/// How published commits are made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncScope {
    /// Left to the operating system.
    Not,
    /// The files publishing wrote: the new packs and their folder, the branch's file and its
    /// folder, the reflogs (the whole file system when the branch is not a loose file). Nothing
    /// else needs it: the working tree and the git index are rebuilt from HEAD after a crash,
    /// and the history and key caches are checked and rebuilt when stale.
    OwnFiles,
    /// The whole file system the repository is on (`syncfs`).
    FileSystem,
}

/// The data repository: a normal git repository with a working tree.
pub struct GitRepo {
    /// Where commits are built (new objects in memory until published).
    staging: Staging,
    repo: Repository,
    root: PathBuf,
    /// The commit the branch points to, kept here because this process is the only writer.
    head: Oid,
    /// The last commit built: `head` itself, or a descendant whose objects are staged.
    tip: Oid,
    /// The git index file as this process last wrote it, in line with `head` then: while the
    /// file is still that one, a sync updates only the paths touched since.
    index_written: Option<FileStamp>,
    /// The packs written, for the threads that follow the branch.
    pack_log: Arc<PackLog>,
    /// The small packs written since the last join (index names), held from maintenance.
    to_join: Vec<OsString>,
}

/// Touched paths from which a sync of the git index reads HEAD's whole tree instead of looking
/// each path up: at 100,000 keys a path costs about 15 µs, the whole tree about 0.5 s.
const WHOLE_INDEX_FROM: usize = 20_000;

/// What tells one version of a file from another without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    inode: u64,
    len: u64,
    modified: (i64, i64),
}

impl FileStamp {
    fn of(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;

        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            inode: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
        })
    }
}

impl GitRepo {
    /// Opens the repository at `root`, or creates it from `template` when the folder is
    /// missing, empty, or holds a repository without commits. Returns whether it was created.
    pub fn open_or_init(root: &Path, template: &[(&str, &[u8])]) -> Result<(Self, bool), GitError> {
        super::settings::tune_libgit2();
        let is_empty_dir = |path: &Path| {
            path.read_dir()
                .map(|mut entries| entries.next().is_none())
                .unwrap_or(true)
        };
        if !root.exists() || is_empty_dir(root) {
            std::fs::create_dir_all(root).map_err(|err| GitError::io(root, err))?;
            let mut options = RepositoryInitOptions::new();
            options.initial_head(BRANCH).no_reinit(true);
            Repository::init_opts(root, &options)
                .map_err(|err| git_error(format!("cannot create a git repository in {}", root.display()), err))?;
        }
        let repo = Repository::open(root)
            .map_err(|err| git_error(format!("{} is not a git repository", root.display()), err))?;
        if repo.is_bare() {
            return Err(GitError::internal(
                format!("{} is a bare repository", root.display()),
                "locstore needs a working tree",
            ));
        }
        let root = repo.workdir().unwrap_or(root).to_path_buf();
        let staging = Staging::open(repo.path())?;
        let head = repo.head().ok().and_then(|head| head.target());
        let mut git_repo = Self {
            staging,
            repo,
            root,
            head: head.unwrap_or(Oid::ZERO_SHA1),
            tip: head.unwrap_or(Oid::ZERO_SHA1),
            index_written: None,
            pack_log: Arc::default(),
            to_join: Vec::new(),
        };
        if head.is_some() {
            return Ok((git_repo, false));
        }
        git_repo.create_first_commit(template)?;
        Ok((git_repo, true))
    }

    /// Opens the repository afresh: libgit2 keeps every pack it has seen open, also packs that
    /// maintenance has since merged and deleted, so the writer reopens after each maintenance
    /// run. The small packs written since the last reopen are joined into one first. Only
    /// called with nothing staged.
    pub fn reopen(&mut self) -> Result<(), GitError> {
        debug_assert_eq!(self.head, self.tip, "reopened with staged commits");
        self.join_packs();
        let git_dir = self.repo.path().to_path_buf();
        // libgit2 shares a pack among all handles that opened it, and lets go of it with the
        // last one. The new handles open before the old ones close, so the packs still there
        // carry over (no index opened, mapped and unmapped again: a sixth of the writer's
        // time without webhooks) and only the deleted ones are let go.
        let repo = Repository::open(&self.root).map_err(|err| git_error("cannot open the repository again", err))?;
        let mut staging = Staging::open(&git_dir)?;
        staging.keep_trees_of(&mut self.staging);
        self.repo = repo;
        self.staging = staging;
        self.pack_log.reopened();
        Ok(())
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

    /// The last commit built, which the next one is built on.
    pub fn tip(&self) -> Oid {
        self.tip
    }

    /// Builds the commit for `edits` on top of the tip, with its objects staged in memory;
    /// neither the tip nor the branch moves. Returns `None` when the edits leave the tree as
    /// it is (a no-op change commits nothing).
    pub fn build_commit(&self, edits: &[TreeEdit], subject: &str, author: &str) -> Result<Option<Oid>, GitError> {
        build_commit(&self.staging, self.tip, edits, subject, author)
    }

    /// Makes `commit` (built by [`Self::build_commit`] on the current tip) the new tip.
    pub fn stage(&mut self, commit: Oid) {
        self.tip = commit;
    }

    /// Goes back to an earlier tip (one of the staged commits, or HEAD) after a change failed
    /// part way; objects staged since stay in memory unreferenced and are published as such.
    pub fn rewind_tip(&mut self, tip: Oid) {
        self.tip = tip;
    }

    /// Whether enough packs were written since opening that reopening would pay: each is a
    /// backend that reads of older objects go through first.
    pub fn should_reopen(&self) -> bool {
        !self.has_staged() && self.staging.written_packs() >= REOPEN_AFTER_PACKS
    }

    /// Whether commits are staged that the branch does not point to yet.
    pub fn has_staged(&self) -> bool {
        self.tip != self.head
    }

    /// Writes every staged object as one pack, then moves the branch to the tip, with one
    /// reflog entry (`message`) for all the commits it passes. On failure nothing of the
    /// staged commits is in the branch; [`Self::reset_to_head`] drops them.
    pub fn publish(&mut self, message: &str) -> Result<(), GitError> {
        if !self.has_staged() {
            return Ok(());
        }
        self.write_pack()?;
        let reference = self.branch_ref()?;
        self.repo
            .reference_matching(&reference, self.tip, true, self.head, message)
            .map_err(|err| git_error(format!("cannot move {reference}"), err))?;
        self.head = self.tip;
        Ok(())
    }

    /// Writes what is staged as a pack and logs its index for the followers (with its
    /// objects, when there are followers); a small one is held for the next join.
    fn write_pack(&mut self) -> Result<(), GitError> {
        if let Some((name, fresh)) = self.staging.write_pack(self.pack_log.followed())? {
            let index = OsString::from(format!("pack-{name}.idx"));
            let pack = self.staging.pack_dir().join(format!("pack-{name}.pack"));
            if std::fs::metadata(&pack).is_ok_and(|meta| meta.len() <= JOIN_BELOW_BYTES) {
                self.pack_log.hold(index.clone());
                self.to_join.push(index.clone());
            }
            self.pack_log.push_with(index, fresh);
        }
        Ok(())
    }

    /// Small packs written and not joined yet: when writes pause, more than one is worth a
    /// join (and the reopen after it).
    pub fn packs_to_join(&self) -> usize {
        self.to_join.len()
    }

    /// Joins the small packs written since the last join, [`JOINED_PACKS`] at a time
    /// ([`super::join`]), makes each joined pack durable, then deletes the packs it holds. On
    /// any failure they stay as they are, for maintenance.
    fn join_packs(&mut self) {
        let indexes = std::mem::take(&mut self.to_join);
        let pack_dir = self.staging.pack_dir().to_path_buf();
        for group in indexes.chunks(JOINED_PACKS).filter(|group| group.len() >= 2) {
            match super::join::join(&pack_dir, group) {
                Ok(Some((name, joined))) => {
                    let files = ["pack", "idx"].map(|kind| pack_dir.join(format!("pack-{name}.{kind}")));
                    if let Err(err) = sync_packs(&files, &pack_dir) {
                        tracing::warn!(error = %err, "cannot sync a joined pack: the packs it joined stay");
                        continue;
                    }
                    for stem in &joined {
                        if let Err(err) = super::join::delete(stem) {
                            tracing::warn!(pack = %stem.display(), error = %err, "cannot delete a joined pack");
                        }
                    }
                    let joined = joined.iter().map(|stem| stem.with_extension("idx"));
                    let joined = joined.filter_map(|index| index.file_name().map(OsString::from));
                    self.pack_log
                        .push_joined(format!("pack-{name}.idx").into(), joined.collect());
                }
                Ok(None) => {}
                Err(err) => tracing::warn!(error = %err, "cannot join the written packs: left to maintenance"),
            }
        }
        self.pack_log.release(&indexes);
    }

    /// The log of the packs this handle writes, for [`super::follow::Follower`]s.
    pub fn pack_log(&self) -> Arc<PackLog> {
        self.pack_log.clone()
    }

    /// Makes what [`Self::publish`] wrote since the last call durable, as `sync` says.
    pub fn sync_published(&mut self, sync: SyncScope) -> std::io::Result<()> {
        let packs = self.staging.take_unsynced();
        match sync {
            SyncScope::Not => Ok(()),
            SyncScope::OwnFiles if self.sync_files(&packs).is_ok() => Ok(()),
            SyncScope::OwnFiles | SyncScope::FileSystem => self.sync_file_system(),
        }
    }

    fn sync_files(&self, packs: &[PathBuf]) -> std::io::Result<()> {
        sync_packs(packs, self.staging.pack_dir())?;
        let reference = self.branch_ref().map_err(std::io::Error::other)?;
        let git_dir = self.git_dir();
        let branch = git_dir.join(&reference);
        std::fs::File::open(&branch)?.sync_all()?;
        sync_dir(branch.parent().unwrap_or(git_dir))?;
        for log in [git_dir.join("logs").join("HEAD"), git_dir.join("logs").join(&reference)] {
            match std::fs::File::open(&log) {
                Ok(file) => file.sync_all()?,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }

    /// Syncs the file system the repository is on (`syncfs`).
    pub fn sync_file_system(&self) -> std::io::Result<()> {
        let root = std::fs::File::open(self.git_dir())?;
        // SAFETY: syncfs takes an open file descriptor and has no memory-safety preconditions.
        if unsafe { libc::syncfs(std::os::fd::AsRawFd::as_raw_fd(&root)) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Whether a large commit was published as a pack of whole objects since the last call.
    pub fn take_plain_written(&mut self) -> bool {
        self.staging.take_plain_written()
    }

    /// The repository, with the staged objects readable through it.
    pub fn objects(&self) -> &Repository {
        self.staging.repo()
    }

    /// The commit the branch points to on disk: `head`, unless it was moved by hand.
    pub fn branch_target(&self) -> Result<Oid, GitError> {
        let reference = self.branch_ref()?;
        self.repo
            .refname_to_id(&reference)
            .map_err(|err| git_error(format!("cannot read {reference}"), err))
    }

    /// Stages a merge commit of `incoming` into the tip: the tip's tree with `edits`, with
    /// the tip and `incoming` as parents. The tip does not move.
    pub fn build_merge(&self, incoming: Oid, edits: &[TreeEdit], subject: &str) -> Result<Oid, GitError> {
        let repo = self.staging.repo();
        let read = |id: Oid| {
            repo.find_commit(id)
                .map_err(|err| git_error("cannot read a commit to merge", err))
        };
        let (ours, theirs) = (read(self.tip)?, read(incoming)?);
        let tree = self.staging.edit_tree(ours.tree_id(), edits)?;
        let tree = repo
            .find_tree(tree)
            .map_err(|err| git_error("cannot read the merged tree", err))?;
        let signature =
            Signature::now(COMMITTER, COMMITTER_EMAIL).map_err(|err| git_error("invalid committer", err))?;
        let commit = repo
            .commit_create_buffer(&signature, &signature, subject, &tree, &[&ours, &theirs])
            .map_err(|err| git_error("cannot write the merge commit", err))?;
        self.staging.write(ObjectType::Commit, &commit)
    }

    /// Moves the branch from `on_disk` (what it points to now) to `commit`, and makes it HEAD
    /// and the tip: a commit the object database holds, or the staged tip (written first).
    pub fn move_branch(&mut self, on_disk: Oid, commit: Oid, message: &str) -> Result<(), GitError> {
        if self.has_staged() {
            self.write_pack()?;
        }
        let reference = self.branch_ref()?;
        if on_disk != commit {
            self.repo
                .reference_matching(&reference, commit, true, on_disk, message)
                .map_err(|err| git_error(format!("cannot move {reference}"), err))?;
        }
        self.head = commit;
        self.tip = commit;
        Ok(())
    }

    /// Makes the annotated tag `name` (without `refs/tags/`) point at HEAD; refuses a name
    /// that exists.
    pub fn create_tag(&self, name: &str, tagger: &str, message: &str) -> Result<Oid, GitError> {
        let tagger =
            Signature::now(tagger, &format!("{tagger}@locstore")).map_err(|err| git_error("invalid tagger", err))?;
        let target = self
            .repo
            .find_object(self.head, Some(ObjectType::Commit))
            .map_err(|err| git_error("cannot find HEAD to tag", err))?;
        self.repo
            .tag(name, &target, &tagger, message, false)
            .map_err(|err| match err.code() {
                git2::ErrorCode::Exists => GitError::Conflict(format!("A snapshot named {name:?} exists already.")),
                _ => git_error(format!("cannot create the tag {name}"), err),
            })
    }

    /// Deletes the tag `name`; `false` when there was none.
    pub fn delete_tag(&self, name: &str) -> Result<bool, GitError> {
        match self.repo.find_reference(&format!("refs/tags/{name}")) {
            Ok(mut reference) => reference
                .delete()
                .map(|()| true)
                .map_err(|err| git_error(format!("cannot delete the tag {name}"), err)),
            Err(_) => Ok(false),
        }
    }

    /// Moves every tag under `refs/tags/{from}/` to `refs/tags/{to}/` (a renamed team or
    /// project), or deletes them when `to` is `None`.
    pub fn move_tags(&self, from: &str, to: Option<&str>) -> Result<usize, GitError> {
        let prefix = format!("refs/tags/{from}/");
        let names: Vec<String> = self
            .repo
            .references_glob(&format!("{prefix}*"))
            .map_err(|err| git_error("cannot list tags", err))?
            .filter_map(Result::ok)
            .filter_map(|reference| reference.name().ok().map(str::to_owned))
            .collect();
        for name in &names {
            let mut reference = self
                .repo
                .find_reference(name)
                .map_err(|err| git_error(format!("cannot read {name}"), err))?;
            match to {
                Some(to) => {
                    let renamed = format!("refs/tags/{to}/{}", &name[prefix.len()..]);
                    reference
                        .rename(&renamed, false, "locstore: follow a rename")
                        .map_err(|err| git_error(format!("cannot rename {name}"), err))?;
                }
                None => reference
                    .delete()
                    .map_err(|err| git_error(format!("cannot delete {name}"), err))?,
            }
        }
        Ok(names.len())
    }

    /// Calls `visit` with the path (relative to `dir`) and contents of every file under `dir`
    /// in HEAD; nothing happens when `dir` does not exist.
    /// The files under `dir` in HEAD, as paths relative to it with their blob ids, in tree
    /// order; nothing is read.
    pub fn files_under(&self, dir: &str) -> Result<Vec<(String, Oid)>, GitError> {
        let Some(tree) = self.subtree(dir)? else {
            return Ok(Vec::new());
        };
        let mut files = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |parent, entry| {
            if let Ok(name) = entry.name()
                && entry.kind() == Some(ObjectType::Blob)
            {
                files.push((format!("{parent}{name}"), entry.id()));
            }
            TreeWalkResult::Ok
        })
        .map_err(|err| git_error(format!("cannot list the files under {dir}"), err))?;
        Ok(files)
    }

    /// The id of the folder `dir` in HEAD, if there is one.
    pub fn subtree_id(&self, dir: &str) -> Result<Option<Oid>, GitError> {
        Ok(self.subtree(dir)?.map(|tree| tree.id()))
    }

    /// The repository, for reads (never to change it: the writer owns that).
    pub fn repository(&self) -> &Repository {
        &self.repo
    }

    /// The names of the folders directly under `dir` in HEAD.
    pub fn subfolders(&self, dir: &str) -> Result<Vec<String>, GitError> {
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
    pub fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, GitError> {
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
    ///
    /// When the index file is the one this process last wrote, only the touched paths are
    /// taken from HEAD's tree: at 100,000 keys reading the whole tree into the index cost more
    /// than all else a replica does to follow a commit. Otherwise (the first sync, someone
    /// else wrote the index: a `git add` or `git commit` by hand, or more paths than
    /// [`WHOLE_INDEX_FROM`] were touched) the whole tree is read.
    /// Returns whether the whole tree was read.
    pub fn sync_index<'a>(&mut self, touched: impl Iterator<Item = &'a str> + Clone) -> Result<bool, GitError> {
        let index_path = self.repo.path().join("index");
        let mut index = self
            .repo
            .index()
            .map_err(|err| git_error("cannot open the git index", err))?;
        let head_tree = self.head_tree()?;
        let by_paths = self.index_written.is_some()
            && self.index_written == FileStamp::of(&index_path)
            && touched.clone().nth(WHOLE_INDEX_FROM).is_none();
        if by_paths {
            for path in touched {
                update_index_entry(&self.repo, &self.root, &mut index, &head_tree, path)?;
            }
        } else {
            index
                .read_tree(&head_tree)
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
        }
        drop(head_tree);
        index
            .write()
            .map_err(|err| git_error("cannot write the git index", err))?;
        self.index_written = FileStamp::of(&index_path);
        Ok(!by_paths)
    }

    /// Puts the working tree and the index back to HEAD, as after `git reset --hard`, and
    /// removes files under `managed_dir` that git does not track. A change that was being
    /// written when the process died was never acknowledged, so dropping it loses nothing.
    pub fn reset_to_head(&mut self, managed_dir: &str) -> Result<(), GitError> {
        self.staging.discard()?;
        self.tip = self.head;
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

    fn create_first_commit(&mut self, template: &[(&str, &[u8])]) -> Result<(), GitError> {
        let objects = self.staging.repo();
        // The template is flat (files at the root), so one tree builder makes the whole tree.
        let mut builder = objects
            .treebuilder(None)
            .map_err(|err| git_error("cannot build a tree", err))?;
        for (path, contents) in template {
            let full = self.root.join(path);
            std::fs::write(&full, contents).map_err(|err| GitError::io(&full, err))?;
            let blob = objects
                .blob(contents)
                .map_err(|err| git_error("cannot write a blob", err))?;
            builder
                .insert(path, blob, i32::from(FileMode::Blob))
                .map_err(|err| git_error(format!("cannot add {path}"), err))?;
        }
        let tree = builder.write().map_err(|err| git_error("cannot write a tree", err))?;
        drop(builder);
        let tree = objects
            .find_tree(tree)
            .map_err(|err| git_error("cannot read a tree", err))?;
        let signature =
            Signature::now(COMMITTER, COMMITTER_EMAIL).map_err(|err| git_error("invalid committer", err))?;
        let subject = "Create the locstore data repository";
        let commit = objects
            .commit(None, &signature, &signature, subject, &tree, &[])
            .map_err(|err| git_error("cannot write the first commit", err))?;
        drop(tree);
        self.write_pack()?;
        // A root commit has no parent for `publish` to compare the branch with.
        let branch = self.branch_ref()?;
        self.repo
            .reference(&branch, commit, false, subject)
            .map_err(|err| git_error("cannot write the first commit", err))?;
        self.head = commit;
        self.tip = commit;
        self.sync_index(template.iter().map(|(path, _)| *path)).map(|_| ())
    }

    fn head_tree(&self) -> Result<git2::Tree<'_>, GitError> {
        self.repo
            .find_commit(self.head)
            .and_then(|commit| commit.tree())
            .map_err(|err| git_error("cannot read HEAD's tree", err))
    }

    fn subtree(&self, dir: &str) -> Result<Option<git2::Tree<'_>>, GitError> {
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

    fn branch_ref(&self) -> Result<String, GitError> {
        let head = self
            .repo
            .find_reference("HEAD")
            .map_err(|err| git_error("cannot read HEAD", err))?;
        Ok(head.symbolic_target().ok().flatten().unwrap_or("HEAD").to_owned())
    }
}

/// Builds the commit for `edits` on top of `parent`, staging its objects, or `None` when the
/// tree stays the same.
fn build_commit(
    staging: &Staging,
    parent: Oid,
    edits: &[TreeEdit],
    subject: &str,
    author: &str,
) -> Result<Option<Oid>, GitError> {
    let repo = staging.repo();
    let parent = repo
        .find_commit(parent)
        .map_err(|err| git_error("cannot read HEAD", err))?;
    let base_tree = parent.tree_id();
    let tree = staging.edit_tree(base_tree, edits)?;
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
        .commit_create_buffer(&author, &committer, subject, &tree, &[&parent])
        .map_err(|err| git_error("cannot write the commit", err))?;
    staging.write(ObjectType::Commit, &commit).map(Some)
}

/// Syncs the pack files `packs` and, when there are any, their folder `pack_dir`.
fn sync_packs(packs: &[PathBuf], pack_dir: &Path) -> std::io::Result<()> {
    for file in packs {
        std::fs::File::open(file)?.sync_all()?;
    }
    if packs.is_empty() {
        return Ok(());
    }
    sync_dir(pack_dir)
}

/// Syncs a folder, so that the files created or renamed in it survive a crash.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests;
