//! Which branch of the project `push` and `pull` use: `--branch NAME`, else the settings
//! file's `branch` (a name, or `auto`: the app's current git branch), else the main line. The
//! app's main line (`main`, `master`, or a detached HEAD) is the project's main line.

use std::path::{Path, PathBuf};

use super::Failure;
use super::settings::{BranchChoice, Settings};

/// App branches that stand for the project's main line under `branch = "auto"`.
const MAIN_LINES: [&str; 2] = ["main", "master"];

/// A branch chosen for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub name: String,
    /// Chosen by `auto` (followed from the app's git branch) rather than named.
    pub followed: bool,
}

/// The branch `--branch` (`flag`) or the settings choose; `None` for the main line.
pub fn chosen(flag: Option<&str>, settings: &Settings) -> Result<Option<Chosen>, Failure> {
    let choice = match flag {
        Some(flag) => Some(BranchChoice::parse(flag).map_err(|err| Failure::new(format!("--branch: {err}")))?),
        None => settings.branch.clone(),
    };
    let (name, followed) = match choice {
        None => return Ok(None),
        Some(BranchChoice::Named(name)) => (name, false),
        Some(BranchChoice::Auto) => match current_git_branch(&settings.dir) {
            Some(name) => (name, true),
            None => return Ok(None),
        },
    };
    if name == crate::domain::names::BranchName::MAIN || (followed && MAIN_LINES.contains(&name.as_str())) {
        return Ok(None);
    }
    crate::domain::names::BranchName::parse(&name).map_err(|err| {
        Failure::new(format!(
            "the app's git branch {name:?} cannot name a server branch: {}",
            err.0
        ))
    })?;
    Ok(Some(Chosen { name, followed }))
}

/// The branch checked out in the git repository `dir` is in (read from its `HEAD`, without
/// git); `None` with no repository or a detached HEAD.
pub fn current_git_branch(dir: &Path) -> Option<String> {
    let git_dir = dir.ancestors().find_map(|folder| git_dir_of(&folder.join(".git")))?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim().strip_prefix("ref: refs/heads/").map(str::to_owned)
}

/// The git folder a `.git` entry stands for: the folder itself, or where a worktree's
/// `.git` file points (`gitdir: ...`).
fn git_dir_of(dot_git: &Path) -> Option<PathBuf> {
    if dot_git.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let pointer = std::fs::read_to_string(dot_git).ok()?;
    let target = PathBuf::from(pointer.trim().strip_prefix("gitdir:")?.trim());
    Some(if target.is_absolute() {
        target
    } else {
        dot_git.parent()?.join(target)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(branch: Option<BranchChoice>, dir: &Path) -> Settings {
        let text = "server = \"http://localhost\"\nproject = \"acme/mobile\"\n[[files]]\nformat = \"json\"\npath = \"{lang}.json\"\n";
        let mut settings = Settings::parse(text, dir).unwrap();
        settings.branch = branch;
        settings
    }

    #[test]
    fn auto_follows_the_checked_out_branch_and_main_lines_are_the_main_line() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir(&git).unwrap();
        let app = dir.path().join("app");
        std::fs::create_dir(&app).unwrap();
        let auto = settings(Some(BranchChoice::Auto), &app);
        for (head, expected) in [
            ("ref: refs/heads/feature/login\n", Some("feature/login")),
            ("ref: refs/heads/master\n", None),
            ("ref: refs/heads/main\n", None),
            ("4b825dc642cb6eb9a060e54bf8d69288fbee4904\n", None),
        ] {
            std::fs::write(git.join("HEAD"), head).unwrap();
            let chosen = chosen(None, &auto).unwrap();
            assert_eq!(chosen.as_ref().map(|chosen| chosen.name.as_str()), expected, "{head}");
        }
        std::fs::write(git.join("HEAD"), "ref: refs/heads/feature/login\n").unwrap();
        assert_eq!(
            chosen(Some("main"), &auto).unwrap(),
            None,
            "--branch main is the main line"
        );
        let named = chosen(Some("release"), &settings(None, &app)).unwrap().unwrap();
        assert_eq!((named.name.as_str(), named.followed), ("release", false));
        assert!(chosen(Some("a..b"), &auto).is_err());
        std::fs::write(git.join("HEAD"), "ref: refs/heads/bad..name\n").unwrap();
        assert!(chosen(None, &auto).is_err());
    }
}
