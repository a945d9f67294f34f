//! Saving loaded keys beside the repository for the next start.

use super::*;

impl Worker {
    /// Saves a project's loaded keys, which are those of `tree` (its keys tree at HEAD), for
    /// the next start. The readers go on meanwhile; writes wait, which is why it runs after
    /// a long load or at shutdown only.
    pub(super) fn save_keys(&mut self, team: &TeamName, project: &ProjectName, tree: Oid) {
        let started = Instant::now();
        let path = scan::saved_keys_path(self.git.git_dir(), team, project);
        let saved = std::fs::create_dir_all(scan::saved_keys_dir(self.git.git_dir())).and_then(|()| {
            let catalog = read(&self.catalog);
            match catalog.project(team, project).and_then(|entry| entry.keys.as_ref()) {
                Some(keys) => keys.save(tree, &path),
                None => Ok(()),
            }
        });
        match saved {
            Ok(()) => {
                tracing::info!(%team, %project, duration_ms = started.elapsed().as_secs_f64() * 1000.0, "saved the keys for the next start");
                self.saved_keys.insert((team.clone(), project.clone()), tree);
            }
            Err(err) => tracing::warn!(%team, %project, error = %err, "cannot save the keys for the next start"),
        }
    }

    /// Saves the keys of every big loaded project whose saved index is of another tree, and
    /// deletes saved indexes of projects that are gone (deleted or renamed).
    pub(super) fn save_changed_keys(&mut self) {
        if self
            .catalog
            .read()
            .map(|catalog| catalog.head != self.git.head().to_string())
            .unwrap_or(true)
        {
            return; // the view is not of HEAD: saving it would be wrong
        }
        let mut keep = HashSet::new();
        let mut to_save = Vec::new();
        for (team, entry) in &read(&self.catalog).teams {
            for (project, project_entry) in &entry.projects {
                keep.insert(scan::saved_keys_path(self.git.git_dir(), team, project));
                if project_entry
                    .keys
                    .as_ref()
                    .is_some_and(|keys| keys.len() >= SAVE_KEYS_FROM)
                {
                    to_save.push((team.clone(), project.clone()));
                }
            }
        }
        for (team, project) in to_save {
            match self.git.subtree_id(&layout::keys_dir(&team, &project)) {
                Ok(Some(tree)) if self.saved_keys.get(&(team.clone(), project.clone())) != Some(&tree) => {
                    self.save_keys(&team, &project, tree)
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(%team, %project, error = %err, "cannot find the keys tree to save"),
            }
        }
        if let Ok(files) = std::fs::read_dir(scan::saved_keys_dir(self.git.git_dir())) {
            for file in files.flatten() {
                if !keep.contains(&file.path()) {
                    let _ = std::fs::remove_file(file.path());
                }
            }
        }
    }
}

/// A project's keys are saved for the next start from this many keys on: smaller projects
/// load from their files quickly enough.
pub(super) const SAVE_KEYS_FROM: usize = 1000;

/// After a load, the keys are saved again when it parsed this many files (all of them, or
/// those changed since the saved index).
pub(super) const SAVE_KEYS_AFTER_PARSING: usize = 1000;
