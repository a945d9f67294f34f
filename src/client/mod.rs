//! The command-line client: `locstore init`, `push` and `pull` keep an app repository's
//! resource files in step with a server, from a developer's shell or a CI job. The settings
//! are in `.locstore.toml` (see [`settings`]), the token in `LOCSTORE_TOKEN`.
//!
//! Exit statuses: 0 when it worked; 1 when `push --fail-on-change` changed something or
//! `pull --check` found files that differ; 2 on an error, with the server's message.

mod branch;
mod domains;
mod files;
mod init;
mod modules;
mod pull;
mod push;
mod server;
pub mod settings;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use init::init;
pub use pull::pull;
pub use push::{create_project, push};
use server::Server;
pub use server::TOKEN_VARIABLE;
use settings::Settings;

/// Something went wrong: exit status 2, with this message.
#[derive(Debug)]
pub struct Failure(pub String);

impl Failure {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// How a command ended when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Exit status 0.
    Done,
    /// Exit status 1: a change when `--fail-on-change`, a difference when `--check`.
    Flagged,
}

/// Where the settings are and how to report.
pub struct Common {
    /// `--config-file`; else `.locstore.toml` in the current folder or a parent.
    pub settings_file: Option<PathBuf>,
    /// `--json`: one JSON document on stdout instead of lines.
    pub json: bool,
    /// The token, from `LOCSTORE_TOKEN`.
    pub token: Option<String>,
    /// `--branch`: the server branch to use, over the settings file's `branch`.
    pub branch: Option<String>,
}

pub struct PushOptions {
    pub dry_run: bool,
    /// `create` or `upsert`.
    pub mode: Option<String>,
    pub fail_on_change: bool,
    /// Add the languages of the app's folders that the project lacks (`--no-add-languages`
    /// turns it off: the push then fails naming them).
    pub add_languages: bool,
    /// Fail (exit 2, nothing committed) when the upload would pass entries over.
    pub strict: bool,
}

pub struct PullOptions {
    pub at: Option<String>,
    pub check: bool,
}

fn connect(common: &Common) -> Result<(Settings, Server), Failure> {
    let cwd = std::env::current_dir().map_err(|err| Failure::new(format!("no current folder: {err}")))?;
    let settings = Settings::find(common.settings_file.as_deref(), &cwd)?;
    let bars = !common.json && std::io::stderr().is_terminal();
    let mut server = Server::new(&settings, common.token.clone(), bars)?;
    server.branch = branch::chosen(common.branch.as_deref(), &settings)?;
    Ok((settings, server))
}

/// A path as the user would type it: relative to the current folder when it is inside it.
fn display(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative.unwrap_or_else(|| path.to_path_buf()).display().to_string()
}

fn print_json(value: &Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut stdout, value);
    let _ = writeln!(stdout);
}
