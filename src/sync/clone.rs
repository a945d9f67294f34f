//! A read replica's first start: a clone of the remote into its data directory, whose files
//! git writes (`read-tree`), faster than libgit2's checkout at 100,000 keys.

use std::path::Path;
use std::time::Instant;

use git2::{FetchOptions, Repository};

use super::credentials::{credentials, redact};
use super::{FIRST_BACKOFF, MAX_BACKOFF, RemoteSettings};

/// Clones the remote into `repo_dir` for a read replica when it holds no repository yet,
/// trying again (with a backoff up to 30 s) until the remote has the branch.
pub fn clone_if_missing(repo_dir: &Path, settings: &RemoteSettings) {
    if repo_dir.join(".git").exists() {
        return;
    }
    let mut backoff = FIRST_BACKOFF;
    loop {
        let mut options = FetchOptions::new();
        options.remote_callbacks(credentials(settings));
        // The files are written afterwards (see `check_out`): libgit2's checkout takes most
        // of a clone's time at 100,000 keys.
        let mut no_files = git2::build::CheckoutBuilder::new();
        no_files.dry_run();
        let started = Instant::now();
        let cloned = git2::build::RepoBuilder::new()
            .branch(&settings.branch)
            .fetch_options(options)
            .with_checkout(no_files)
            .clone(&settings.url, repo_dir)
            .and_then(|repo| check_out(&repo))
            .and_then(|()| {
                crate::store::mark_clean(&repo_dir.join(".git")).map_err(|err| git2::Error::from_str(&err.to_string()))
            });
        match cloned {
            Ok(()) => {
                tracing::info!(
                    remote = %redact(&settings.url),
                    repo = %repo_dir.display(),
                    duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                    "cloned the primary's repository"
                );
                return;
            }
            Err(err) => {
                tracing::warn!(remote = %redact(&settings.url), error = %err.message(), "cannot clone the remote yet; trying again");
                // A failed clone may leave a partial folder behind.
                if repo_dir.exists() && !repo_dir.join(".git").join("HEAD").exists() {
                    let _ = std::fs::remove_dir_all(repo_dir);
                }
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// Writes HEAD's files and index into a clone made without them: with git's own
/// `read-tree -u`, three to four times as fast as libgit2's checkout on 100,000 files (git is
/// on the PATH for maintenance), or with libgit2 when git cannot.
fn check_out(repo: &Repository) -> Result<(), git2::Error> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| git2::Error::from_str("a clone without a working tree"))?;
    let by_git = std::process::Command::new("git")
        .arg("-C")
        .arg(workdir)
        .args(["read-tree", "--reset", "-u", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output();
    match by_git {
        Ok(output) if output.status.success() => return Ok(()),
        Ok(output) => tracing::warn!(
            error = %String::from_utf8_lossy(&output.stderr).trim(),
            "git read-tree failed; checking out with libgit2"
        ),
        Err(err) => tracing::debug!(error = %err, "git cannot run; checking out with libgit2"),
    }
    let mut checkout = git2::build::CheckoutBuilder::new();
    checkout.force();
    repo.checkout_head(Some(&mut checkout))
}
