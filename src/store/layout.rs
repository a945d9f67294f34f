//! Names to paths in the data repository's working tree.
//!
//! This is the only place that builds repository paths. Every path it returns is relative to
//! the repository root, uses `/`, consists of ASCII only, and stays portable: no component is
//! a Windows device name or ends with a dot, no two paths are equal after case folding, and
//! every path is at most 200 characters long however long the team, project and key names are.
//!
//! ```text
//! teams/{team}/team.toml
//! teams/{team}/projects/{project}/project.toml
//! teams/{team}/projects/{project}/keys/{h}/{h}/{h}/{key file}.toml
//! teams/{team}/projects/{project}/keys/@{namespace}/{h}/{h}/{h}/{key file}.toml
//! teams/{team}/projects/{project}/files/{format}/{path}
//! ```
//!
//! `files/` keeps the app's own files an upload brought, where they differ from what the
//! export writes (their order, comments, quoting), so that an export can give them back as
//! the app wrote them; `{path}` is the path the export gives the file.

use sha2::{Digest, Sha256};

use crate::domain::names::{KeyName, ProjectName, TeamName};

/// Longest path from the repository root, so that Windows clones stay under 260 characters.
pub const MAX_PATH_LEN: usize = 200;
/// Longest key file stem: what is left of [`MAX_PATH_LEN`] once the longest team and project
/// folders (64 characters plus two `~` markers each), the fixed parts and `.toml` are counted.
pub const MAX_KEY_STEM_LEN: usize = 35;
/// Hex digits of the key-name hash in a hashed file name (64 bits).
const HASH_HEX_LEN: usize = 16;

pub const TEAMS_DIR: &str = "teams";
pub const TEAM_FILE: &str = "team.toml";
pub const PROJECT_FILE: &str = "project.toml";
pub const PROJECTS_DIR: &str = "projects";
pub const KEYS_DIR: &str = "keys";
pub const KEPT_DIR: &str = "files";

pub fn team_dir(team: &TeamName) -> String {
    format!("{TEAMS_DIR}/{}", slug_component(team.as_str()))
}

pub fn team_file(team: &TeamName) -> String {
    format!("{}/{TEAM_FILE}", team_dir(team))
}

pub fn projects_dir(team: &TeamName) -> String {
    format!("{}/{PROJECTS_DIR}", team_dir(team))
}

pub fn project_dir(team: &TeamName, project: &ProjectName) -> String {
    format!("{}/{}", projects_dir(team), slug_component(project.as_str()))
}

pub fn project_file(team: &TeamName, project: &ProjectName) -> String {
    format!("{}/{PROJECT_FILE}", project_dir(team, project))
}

pub fn keys_dir(team: &TeamName, project: &ProjectName) -> String {
    format!("{}/{KEYS_DIR}", project_dir(team, project))
}

/// The folder of the app's files kept beside a project's keys.
pub fn kept_dir(team: &TeamName, project: &ProjectName) -> String {
    format!("{}/{KEPT_DIR}", project_dir(team, project))
}

/// Whether `path` may be a kept file's path under [`kept_dir`]: relative, of plain
/// components (no `.`, `..` or empty one), ASCII graphic characters and spaces only.
pub fn is_kept_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= MAX_PATH_LEN / 2
        && path
            .bytes()
            .all(|byte| (byte.is_ascii_graphic() && byte != b'\\') || byte == b' ')
        && path.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.starts_with(' ') && !part.ends_with(['.', ' '])
        })
}

/// Where a new key's file goes, relative to [`keys_dir`]: `{h}/{h}/{h}/{stem}.toml` for a key
/// of the default namespace, `@{namespace}/{h}/{h}/{h}/{stem}.toml` for any other.
///
/// The first three hex digits of the name's SHA-256 spread keys over 16 × 16 × 16 folders, so
/// that every git tree a commit rewrites stays small: at 100,000 keys the trees on a key's
/// path hold 16, 16, 16 and about 24 entries (about 3 KB together). One level of 256 folders
/// would put about 400 entries in the key's folder plus 256 in `keys/` (about 30 KB), which
/// each commit would hash, compress and repack.
///
/// A namespace's folder starts with `@`, which no hex folder does, so the default namespace's
/// keys stay where earlier versions put them. Its length is taken from the key's stem, so that
/// the whole path keeps within [`MAX_PATH_LEN`].
pub fn key_file(key: &KeyName) -> String {
    let digest = Sha256::digest(key.as_str().as_bytes());
    let hex = hex::encode(&digest[..HASH_HEX_LEN / 2]);
    let (folder, stem_len) = match key.namespace() {
        "" => (String::new(), MAX_KEY_STEM_LEN),
        namespace => {
            let folder = namespace_folder(namespace);
            let stem_len = MAX_KEY_STEM_LEN - folder.len();
            (folder, stem_len)
        }
    };
    format!(
        "{folder}{}/{}/{}/{}.toml",
        &hex[..1],
        &hex[1..2],
        &hex[2..3],
        key_stem(key.as_str(), &hex, stem_len)
    )
}

/// Longest namespace folder, `/` included: `@`, a readable prefix of three, `~`, eight hex
/// digits and `/`. What is left of the stem keeps a readable prefix of four characters.
const MAX_NAMESPACE_FOLDER_LEN: usize = 14;

/// A namespace's folder under `keys/`, with its `/`: `@common/` for a short, lower-case, plain
/// namespace; otherwise `@`, a readable prefix, `~` and 32 bits of the namespace's SHA-256
/// (`@inf~1b4d95c3/` for `InfoPlist`), so that no two namespaces' folders differ only by case.
fn namespace_folder(namespace: &str) -> String {
    const PLAIN_LEN: usize = MAX_NAMESPACE_FOLDER_LEN - 2;
    let plain = namespace.len() <= PLAIN_LEN
        && namespace
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_'))
        && !namespace.ends_with('.');
    if plain {
        return format!("@{namespace}/");
    }
    let digest = Sha256::digest(namespace.as_bytes());
    let prefix: String = namespace
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        })
        .take(MAX_NAMESPACE_FOLDER_LEN - 2 - 1 - 8)
        .collect();
    format!("@{prefix}~{}/", hex::encode(&digest[..4]))
}

/// Reads a team or project name back from its folder name; `None` for folders that are not
/// ours (a name that does not parse is reported by the caller).
pub fn slug_from_component(component: &str) -> &str {
    let component = component.strip_prefix('~').unwrap_or(component);
    component.strip_suffix('~').unwrap_or(component)
}

/// A team or project name as a folder name. Names are ASCII already and unique without regard
/// to case, so only two things need care: Windows device names (`CON`, `lpt1.x`) get a `~`
/// in front, and a trailing dot gets a `~` after it. `~` is not allowed in names, so the
/// mapping can be read back by [`slug_from_component`].
fn slug_component(name: &str) -> String {
    let mut component = String::with_capacity(name.len() + 2);
    if is_windows_device_name(name) {
        component.push('~');
    }
    component.push_str(name);
    if name.ends_with('.') {
        component.push('~');
    }
    component
}

/// The key's file stem: the name itself when it is short, lower-case and plain; otherwise a
/// readable lower-case prefix, `~` and a hash of the exact name. Plain names never contain
/// `~`, so the two kinds cannot collide, and plain names are all lower case, so no two stems
/// differ only by case.
fn key_stem(name: &str, hash_hex: &str, stem_len: usize) -> String {
    let plain = name.len() <= stem_len
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_'))
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !is_windows_device_name(name);
    if plain {
        return name.to_owned();
    }
    let mut prefix: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '.' | '-' | '_' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        })
        .skip_while(|c| *c == '.')
        .take(stem_len - 1 - HASH_HEX_LEN)
        .collect();
    if is_windows_device_name(&prefix) {
        prefix.insert(0, '_');
        prefix.truncate(stem_len - 1 - HASH_HEX_LEN);
    }
    format!("{prefix}~{}", &hash_hex[..HASH_HEX_LEN])
}

/// Whether Windows reserves the name: a device name, alone or before the first dot.
fn is_windows_device_name(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or_default().to_ascii_lowercase();
    matches!(base.as_str(), "con" | "prn" | "aux" | "nul" | "conin$" | "conout$")
        || ((base.starts_with("com") || base.starts_with("lpt"))
            && base.len() == 4
            && base.as_bytes()[3].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn key(name: &str) -> KeyName {
        KeyName::parse(name).unwrap()
    }

    fn longest_team() -> TeamName {
        TeamName::parse(&format!("con.{}.", "x".repeat(59))).unwrap()
    }

    #[test]
    fn plain_key_names_are_kept_readable() {
        let path = key_file(&key("home.title"));
        // The folders are the first three hex digits of the name's SHA-256 (`sha256sum`
        // gives dcfdb853…), so that paths stay where earlier versions put them.
        assert_eq!(path, "d/c/f/home.title.toml");
        // A name that is not kept as it is ends in 16 hex digits of it (7e8cd205…).
        assert_eq!(key_file(&key("Title")), "7/e/8/title~7e8cd2056da73a7f.toml");
    }

    #[test]
    fn awkward_key_names_get_a_prefix_and_a_hash() {
        for name in [
            "Title",
            "errors/network",
            "../../etc/passwd",
            "Hello, %@!",
            "CON",
            "🎉",
            ".hidden",
            "end.",
        ] {
            let path = key_file(&key(name));
            let file = path.rsplit('/').next().unwrap();
            assert!(file.contains('~'), "{name} -> {path}");
            assert!(path.bytes().all(|b| b.is_ascii_graphic()), "{name} -> {path}");
            assert!(
                path.split('/').all(|component| component != ".." && component != "."),
                "{name} -> {path}"
            );
            assert!(!file.starts_with('.'), "{name} -> {path}");
            assert_eq!(path.matches('/').count(), 3, "{name} -> {path}");
        }
    }

    #[test]
    fn keys_differing_only_by_case_get_different_files_even_when_folded() {
        let upper = key_file(&key("Title"));
        let lower = key_file(&key("title"));
        assert_ne!(upper.to_lowercase(), lower.to_lowercase());
    }

    #[test]
    fn the_longest_names_stay_within_the_path_bound() {
        let team = longest_team();
        let project = ProjectName::parse(&format!("lpt1.{}.", "y".repeat(58))).unwrap();
        let long_key = key(&"é".repeat(512));
        let path = format!("{}/{}", keys_dir(&team, &project), key_file(&long_key));
        assert!(path.len() <= MAX_PATH_LEN, "{} characters: {path}", path.len());
        let plain_key = key(&"a".repeat(MAX_KEY_STEM_LEN));
        let path = format!("{}/{}", keys_dir(&team, &project), key_file(&plain_key));
        assert!(path.len() <= MAX_PATH_LEN, "{} characters: {path}", path.len());
    }

    #[test]
    fn windows_device_names_and_trailing_dots_are_escaped_and_read_back() {
        for name in ["CON", "aux.txt", "com1", "end.", "acme"] {
            let team = TeamName::parse(name).unwrap();
            let dir = team_dir(&team);
            let component = dir.rsplit('/').next().unwrap();
            assert!(!is_windows_device_name(component), "{component}");
            assert!(!component.ends_with('.'), "{component}");
            assert_eq!(slug_from_component(component), name);
        }
        assert_eq!(team_dir(&TeamName::parse("acme").unwrap()), "teams/acme");
    }

    #[test]
    fn a_large_generated_set_of_key_names_has_no_colliding_paths() {
        let mut seen = HashSet::new();
        let mut names = Vec::new();
        for i in 0..50_000 {
            names.push(format!("key.{i}"));
            names.push(format!("Key.{i}"));
            names.push(format!("KEY {i}"));
            names.push(format!("ключ/{i}"));
        }
        for name in &names {
            let folded = key_file(&key(name)).to_lowercase();
            assert!(seen.insert(folded), "collision for {name}");
        }
    }

    #[test]
    fn a_namespaced_key_lives_in_its_namespace_folder_within_the_path_bound() {
        let in_namespace = |namespace: &str, name: &str| {
            KeyName::parse_in(&crate::domain::names::Namespace::parse(namespace).unwrap(), name).unwrap()
        };
        assert_eq!(
            key_file(&in_namespace("common", "home.title")),
            "@common/d/c/f/home.title.toml"
        );
        let table = key_file(&in_namespace("InfoPlist", "CFBundleDisplayName"));
        assert!(table.starts_with("@inf~"), "{table}");
        assert_ne!(
            key_file(&in_namespace("InfoPlist", "x")).to_lowercase(),
            key_file(&in_namespace("infoplist", "x")).to_lowercase()
        );
        let team = longest_team();
        let project = ProjectName::parse(&format!("lpt1.{}.", "y".repeat(58))).unwrap();
        for (namespace, name) in [
            (
                "settings/profile/ünïcode/and a very long namespace indeed",
                "é".repeat(8000),
            ),
            ("abcdefghijkl", "a".repeat(40)),
            ("abcdefghijkl", "con".to_owned()),
            ("x", " \r\n".to_owned()),
        ] {
            let file = key_file(&in_namespace(namespace, &name));
            let path = format!("{}/{file}", keys_dir(&team, &project));
            assert!(path.len() <= MAX_PATH_LEN, "{} characters: {path}", path.len());
            assert!(path.bytes().all(|b| b.is_ascii_graphic()), "{path}");
            assert_eq!(file.matches('/').count(), 4, "{file}");
            let stem = file.rsplit('/').next().unwrap();
            assert!(!is_windows_device_name(stem), "{stem}");
        }
    }

    #[test]
    fn the_file_name_of_a_key_is_stable() {
        // Changing this mapping would move every key file of every existing repository.
        assert_eq!(key_file(&key("home.title")), "d/c/f/home.title.toml");
        assert_eq!(key_file(&key("Hello, %@!")), "9/2/7/hello_____~92793b91c8dd9871.toml");
    }
}
