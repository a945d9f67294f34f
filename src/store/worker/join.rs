//! Commits that arrive from outside the writer (made by hand in the server's repository, or
//! fetched from the remote) joined with the branch by the writer.

use super::*;

impl Worker {
    /// Joins commits made by hand on the branch while the server runs (`git commit` in its
    /// repository) with what the server serves, as if they had been fetched.
    pub(super) fn pick_up_hand_commits(&mut self) {
        let on_disk = match self.git.branch_target() {
            Ok(on_disk) if on_disk != self.git.head() => on_disk,
            Ok(_) => return,
            Err(err) => {
                tracing::warn!(error = %err, "cannot read the branch");
                return;
            }
        };
        match self.adopt(on_disk, on_disk, "commits made by hand", false) {
            Ok(Adoption::Refused(why)) => {
                tracing::warn!(commit = %on_disk, reason = %why, "refused commits made by hand; the branch is back at the last valid commit")
            }
            Ok(adoption) => tracing::info!(commit = %on_disk, ?adoption, "picked up commits made by hand"),
            Err(err) => tracing::error!(commit = %on_disk, error = %err, "cannot pick up commits made by hand"),
        }
    }

    /// Joins `incoming` with the branch, which points to `on_disk` (HEAD, or a commit moved
    /// there by hand): a fast-forward when it descends from HEAD, else a merge commit in which
    /// the incoming side wins every file both sides changed. Every file it changes is checked
    /// first; an invalid one refuses it, and the branch stays at (or goes back to) HEAD.
    ///
    /// With `follow` (a read replica), the incoming commit becomes HEAD whatever its relation
    /// to it: the remote's state wins, and nothing is merged.
    pub(super) fn adopt(
        &mut self,
        incoming: Oid,
        on_disk: Oid,
        label: &str,
        follow: bool,
    ) -> Result<Adoption, StoreError> {
        let head = self.git.head();
        let relation = match adopt::relation(self.git.objects(), head, incoming)? {
            adopt::Relation::Held if follow && incoming != head => adopt::Relation::Ahead,
            adopt::Relation::Diverged if follow => adopt::Relation::Ahead,
            // A new server pointed at a remote with data (a restore, a second primary set up
            // from the git host) takes the remote's history as it is.
            adopt::Relation::Diverged if adopt::holds_no_data(self.git.objects(), head)? => adopt::Relation::Ahead,
            relation => relation,
        };
        let (commit, adoption) = match relation {
            adopt::Relation::Held => {
                // Moved back by hand: the commits of ours it dropped are served, so they stay.
                self.git
                    .move_branch(on_disk, head, "locstore: keep the served commits")?;
                return Ok(Adoption::Held);
            }
            adopt::Relation::Ahead => (incoming, Adoption::FastForward(incoming)),
            adopt::Relation::Diverged => {
                let edits = adopt::merge_edits(self.git.objects(), head, incoming)?;
                let merge = self.git.build_merge(
                    incoming,
                    &edits,
                    &format!("Merge {label} (incoming side wins conflicts)"),
                )?;
                (merge, Adoption::Merged(merge))
            }
        };
        let diff = adopt::diff_commits(self.git.objects(), head, commit)?;
        if let Err(why) = adopt::validate(self.git.objects(), &diff) {
            self.git.rewind_tip(head);
            self.git
                .move_branch(on_disk, head, "locstore: refuse invalid commits")?;
            return Ok(Adoption::Refused(why));
        }
        if adoption != Adoption::FastForward(incoming) {
            self.git.stage(commit);
        }
        let catalog = self.catalog.clone();
        let mut catalog = write(&catalog);
        if let Err(err) = self
            .git
            .move_branch(on_disk, commit, &format!("locstore: join {label}"))
        {
            self.git.rewind_tip(head);
            return Err(err.into());
        }
        // From here HEAD is the joined commit: on a failure, the working tree and the
        // catalog are read again from it rather than left half updated.
        if let Err(err) = self.update_after_join(&diff, &mut catalog) {
            tracing::error!(error = %err, "cannot update the view after joining commits; reading it again from HEAD");
            self.restore_from_head_locked(&mut catalog);
        }
        catalog.head = commit.to_string();
        drop(catalog);
        // Told once durable, like a round's commits: a merge made here is nowhere else yet.
        if self.durability == Durability::Fsync
            && let Err(err) = self.git.sync_file_system()
        {
            tracing::warn!(error = %err, "cannot make the joined commits durable");
        }
        self.listeners.tell(crate::store::Published::Commits);
        Ok(adoption)
    }

    /// Brings the working tree and the catalog from HEAD's old tree to the new one.
    pub(super) fn update_after_join(
        &mut self,
        diff: &[tree_diff::FileDiff],
        catalog: &mut Catalog,
    ) -> Result<(), StoreError> {
        let mut edits = Vec::with_capacity(diff.len());
        for file in diff {
            edits.push(match file.new {
                Some(blob) => TreeEdit::Write {
                    path: file.path.clone(),
                    contents: self
                        .git
                        .objects()
                        .find_blob(blob)
                        .map(|blob| bytes::Bytes::copy_from_slice(blob.content()))
                        .map_err(|err| StoreError::internal("cannot read a joined file", err))?,
                },
                None => TreeEdit::Remove {
                    path: file.path.clone(),
                },
            });
        }
        let written = worktree::apply(self.git.root(), &edits);
        self.touched.extend(worktree::touched_paths(&edits).map(str::to_owned));
        written?;
        let git = &self.git;
        adopt::update_catalog(git.objects(), catalog, diff, || scan::load_catalog(git))
    }
}
