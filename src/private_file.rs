//! Files only the server's user may read (token hashes, webhook secrets): written whole to a
//! temporary file with mode 0600, synced, then renamed over the old one, so a reader sees the
//! old file or the new one and never a part.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::Context;

/// Replaces `file` with `bytes`, readable and writable by the owner only.
pub fn write(file: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = file.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = Path::new(&temporary);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(temporary)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    out.write_all(bytes)
        .and_then(|()| out.sync_all())
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(temporary, file).with_context(|| format!("cannot replace {}", file.display()))
}
