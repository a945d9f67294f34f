//! The lock that keeps a second locstore off a repository that a running one owns.
//!
//! It is an advisory `flock` on `.git/locstore.lock`, which the kernel releases when the
//! owner dies however it dies, so a stale file from a killed process is simply taken over.
//! The owner's pid is written into the file for the message the second process prints.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

use super::GitError;

/// Held for as long as its owner runs; dropping it releases the lock.
pub struct OwnerLock {
    _file: File,
}

impl OwnerLock {
    pub fn acquire(git_dir: &Path) -> Result<Self, GitError> {
        let path = git_dir.join("locstore.lock");
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|err| GitError::io(&path, err))?;
        // SAFETY: flock on a valid, open file descriptor has no memory-safety preconditions.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !locked {
            let mut owner = String::new();
            let _ = file.read_to_string(&mut owner);
            let owner = owner.trim();
            return Err(GitError::Conflict(format!(
                "the repository {} is in use by another locstore process (pid {}); stop it first",
                git_dir.parent().unwrap_or(git_dir).display(),
                if owner.is_empty() { "unknown" } else { owner }
            )));
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .map_err(|err| GitError::io(&path, err))?;
        Ok(Self { _file: file })
    }
}
