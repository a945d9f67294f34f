//! Entity tags of teams, projects and keys: a hash of the file the resource is stored as, so
//! that a tag changes exactly when the resource does, and the writer can compare a client's
//! `If-Match` with the current state while it plans the change (no lost update in between).

use sha2::{Digest, Sha256};

use super::files;
use crate::domain::model::{Key, Project, Team};

pub fn team(team: &Team) -> String {
    tag(&files::write_team(team))
}

pub fn project(project: &Project) -> String {
    tag(&files::write_project(project))
}

pub fn key(key: &Key) -> String {
    tag(&files::write_key(key))
}

/// A strong tag for any bytes: the first 128 bits of their SHA-256, quoted.
pub fn tag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex = hex::encode(&digest[..16]);
    format!("\"{hex}\"")
}

/// Whether an `If-Match` or `If-None-Match` value names `current`: `*`, or a list of tags of
/// which one is it (a weak `W/` prefix compares as the tag).
pub fn matches(header: &str, current: &str) -> bool {
    header
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == current)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_stars_and_weak_tags_match() {
        let current = tag(b"x");
        assert!(matches(&current, &current));
        assert!(matches("*", &current));
        assert!(matches(&format!("\"other\", W/{current}"), &current));
        assert!(!matches("\"other\"", &current));
    }
}
