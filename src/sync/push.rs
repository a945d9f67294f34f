//! Pushes, never forced: through git's own `push`, which walks only the paths that changed
//! since what the remote has (`pack.useSparse`, git's default since 2.27), or through libgit2
//! when git cannot run. libgit2's push walks the whole tree of the remote's head on every push
//! (`mark_tree_uninteresting`: at 100,000 keys 4,096 trees and 100,000 blobs), which made a
//! push take 0.74 s under steady writes.
//!
//! Secrets stay out of the command line, which other users of the machine can read: the URL
//! goes in through `GIT_CONFIG_*` variables as the URL of a remote named for the push, and a
//! token through the environment of an inline credential helper.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use git2::{PushOptions, Repository};

use super::RemoteSettings;
use super::credentials::credentials;

/// How one ref of a push ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefOutcome {
    /// The remote ref.
    pub name: String,
    /// Why the remote refused it; `None` when it took it (or had it).
    pub refused: Option<String>,
}

/// Why a push as a whole failed. The words may hold the URL: the caller cleans them of
/// secrets.
pub enum PushError {
    /// The remote refused it (it moved on): fetch and join first.
    Rejected(String),
    /// The remote could not be reached, or failed.
    Failed(String),
}

/// The remote's name inside the configuration of git's push.
const REMOTE: &str = "locstore-push";

/// Configuration for libgit2's pushes (`.git/locstore/push.config`, added in memory to the
/// repository handle a push uses). A push's pack is a few dozen small objects, and searching
/// them for deltas was two fifths of the pushing thread's time under steady writes, on the
/// cores the writer needs; the git host stores them as they come and its own repacks find
/// deltas. libgit2 skips the search for objects over its big-file threshold, which it reads
/// from `pack.deltaCacheSize` (libgit2 1.9); `pack.bigFileThreshold` is the key git itself
/// reads. git's own push gets `pack.window=0` instead.
const PUSH_CONFIG: &str = "\
# Written by locstore: the settings of its pushes, not read by git's own commands.
[pack]
\tdeltaCacheSize = 1
\tbigFileThreshold = 1
";

/// Pushes `refspecs` from `repo` to the remote of `settings`, and says how each ref ended.
pub fn push(repo: &Repository, settings: &RemoteSettings, refspecs: &[String]) -> Result<Vec<RefOutcome>, PushError> {
    match push_with_git(repo.workdir().unwrap_or(repo.path()), settings, refspecs) {
        Some(pushed) => pushed.map_err(PushError::Failed),
        None => push_with_libgit2(repo, settings, refspecs),
    }
}

/// Pushes `refspecs` with git from the repository at `root`. `None` when git cannot run;
/// otherwise the outcome of each ref, or git's own words when the push as a whole failed
/// (connection, credentials).
fn push_with_git(
    root: &Path,
    settings: &RemoteSettings,
    refspecs: &[String],
) -> Option<Result<Vec<RefOutcome>, String>> {
    let url_key = format!("remote.{REMOTE}.url");
    let mut config: Vec<(&str, String)> = vec![
        (url_key.as_str(), settings.url.clone()),
        // A push's pack is a few dozen small objects: no delta search on the server's cores.
        ("pack.window", "0".into()),
        // Only the credentials given here: no helper of the machine's, no prompt.
        ("credential.helper", String::new()),
    ];
    let mut command = Command::new("git");
    if settings.token.is_some() {
        // The user is the URL's when it has one (git then passes it in and this keeps it).
        config.push((
            "credential.helper",
            "!f() { test \"$1\" = get || exit 0; while read -r line && test -n \"$line\"; do \
             case \"$line\" in username=*) user=${line#username=};; esac; done; \
             echo \"username=${user:-locstore}\"; echo \"password=$LOCSTORE_PUSH_TOKEN\"; }; f"
                .into(),
        ));
        command.env("LOCSTORE_PUSH_TOKEN", settings.token.as_deref().unwrap_or_default());
    }
    // Host keys are checked against `$HOME/.ssh/known_hosts`, as libgit2 does (ssh itself
    // would read the passwd entry's home), and an unknown host is refused.
    let quote = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', "'\\''"));
    let mut ssh = String::from("ssh -o BatchMode=yes -o StrictHostKeyChecking=yes");
    if let Some(home) = std::env::var_os("HOME") {
        let known_hosts = Path::new(&home).join(".ssh").join("known_hosts");
        ssh.push_str(&format!(" -o UserKnownHostsFile={}", quote(&known_hosts)));
    }
    if let Some(key) = &settings.ssh_key {
        ssh.push_str(&format!(" -o IdentitiesOnly=yes -i {}", quote(key)));
    }
    command.env("GIT_SSH_COMMAND", ssh);
    // libgit2 (the fetches) reads the CA file from SSL_CERT_FILE; git's TLS library may not.
    if let Some(file) = std::env::var_os("SSL_CERT_FILE") {
        command.env("GIT_SSL_CAINFO", file);
    }
    command.env("GIT_CONFIG_COUNT", config.len().to_string());
    for (index, (key, value)) in config.iter().enumerate() {
        command.env(format!("GIT_CONFIG_KEY_{index}"), key);
        command.env(format!("GIT_CONFIG_VALUE_{index}"), value);
    }
    let output = command
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("-C")
        .arg(root)
        .args(["push", "--porcelain", "--no-verify", REMOTE])
        .args(refspecs)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let outcomes = parse_porcelain(&String::from_utf8_lossy(&output.stdout));
    if outcomes.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| line.strip_prefix("fatal: ").unwrap_or(line).trim())
            .collect::<Vec<_>>()
            .join("; ");
        return Some(Err(if why.is_empty() {
            format!("git push failed ({})", output.status)
        } else {
            why
        }));
    }
    Some(Ok(outcomes))
}

/// Pushes `refspecs` with libgit2, without its delta search (see [`PUSH_CONFIG`]).
fn push_with_libgit2(
    repo: &Repository,
    settings: &RemoteSettings,
    refspecs: &[String],
) -> Result<Vec<RefOutcome>, PushError> {
    without_delta_search(repo).map_err(PushError::Failed)?;
    let outcomes: Arc<Mutex<Vec<RefOutcome>>> = Arc::default();
    let mut callbacks = credentials(settings);
    {
        let outcomes = outcomes.clone();
        callbacks.push_update_reference(move |name, refused| {
            outcomes
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .push(RefOutcome {
                    name: name.to_owned(),
                    refused: refused.map(str::to_owned),
                });
            Ok(())
        });
    }
    let mut options = PushOptions::new();
    options.remote_callbacks(callbacks);
    let pushed = repo
        .remote_anonymous(&settings.url)
        .and_then(|mut remote| remote.push(refspecs, Some(&mut options)));
    if let Err(err) = pushed {
        let why = err.message().to_owned();
        // libgit2 reports a non-fast-forward as an error of its own on some transports.
        if err.code() == git2::ErrorCode::NotFastForward || why.contains("fast-forward") {
            return Err(PushError::Rejected(why));
        }
        return Err(PushError::Failed(why));
    }
    Ok(std::mem::take(
        &mut *outcomes.lock().unwrap_or_else(|poison| poison.into_inner()),
    ))
}

/// Adds [`PUSH_CONFIG`] to `repo`'s configuration, in memory and for this handle only (the
/// repository is opened for each push).
fn without_delta_search(repo: &Repository) -> Result<(), String> {
    let path = repo.path().join("locstore").join("push.config");
    let fail = |err: String| format!("cannot set up the push: {err}");
    if std::fs::read(&path).ok().as_deref() != Some(PUSH_CONFIG.as_bytes()) {
        std::fs::create_dir_all(path.parent().unwrap_or(repo.path()))
            .and_then(|()| std::fs::write(&path, PUSH_CONFIG))
            .map_err(|err| fail(format!("{}: {err}", path.display())))?;
    }
    // Forced: the branch's push and the tags' push may both add it to the same handle.
    repo.config()
        .and_then(|mut config| config.add_file(&path, git2::ConfigLevel::App, true))
        .map_err(|err| fail(err.message().to_owned()))
}

/// The refs of `git push --porcelain`: `<flag>\t<from>:<to>\t<summary>`, `!` for a refused one.
fn parse_porcelain(output: &str) -> Vec<RefOutcome> {
    output
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let flag = fields.next()?;
            let (_, name) = fields.next()?.split_once(':')?;
            let summary = fields.next().unwrap_or_default();
            (flag.len() == 1).then(|| RefOutcome {
                name: name.to_owned(),
                refused: (flag == "!").then(|| summary.to_owned()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_lines_give_each_refs_outcome() {
        let output = [
            "To git://127.0.0.1:9418/strings.git",
            " \t0123abc:refs/heads/main\t1111111..2222222",
            "=\trefs/tags/locstore/a/b/v1:refs/tags/locstore/a/b/v1\t[up to date]",
            "!\t0123abc:refs/heads/main\t[rejected] (fetch first)",
            "-\t:refs/tags/locstore/a/b/v2\t[deleted]",
            "Done",
        ]
        .join("\n");
        let outcomes = parse_porcelain(&output);
        let refused: Vec<_> = outcomes.iter().map(|outcome| outcome.refused.as_deref()).collect();
        let names: Vec<_> = outcomes.iter().map(|outcome| outcome.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "refs/heads/main",
                "refs/tags/locstore/a/b/v1",
                "refs/heads/main",
                "refs/tags/locstore/a/b/v2"
            ]
        );
        assert_eq!(refused, [None, None, Some("[rejected] (fetch first)"), None]);
    }
}
