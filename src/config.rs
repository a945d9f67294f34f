//! Settings: command-line flags, then `LOCSTORE_*` environment variables, then the optional
//! `locstore.toml` (`--config FILE`), then defaults, resolved once into a [`Config`].
//!
//! This is the only module that reads environment variables.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

use crate::sync::RemoteSettings;

use crate::store::Durability;
use crate::tokens::Access;

/// locstore: localization text kept as TOML files in a git repository, one commit per change,
/// edited over a REST API and exported as JSON, CSV, Android and Apple string files.
#[derive(Debug, Parser)]
#[command(name = "locstore", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server.
    Serve(Box<ServeArgs>),
    /// Manage API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Write a commented .locstore.toml for the app repository in this folder.
    Init(InitArgs),
    /// Upload the app's resource files (as .locstore.toml says) to the server.
    Push(PushArgs),
    /// Export from the server and write the files that changed into the app's folders.
    Pull(PullArgs),
}

/// What `push` and `pull` share. The token comes from LOCSTORE_TOKEN.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    /// The settings file [default: .locstore.toml in this folder or the nearest parent].
    #[arg(long = "config-file", value_name = "FILE")]
    pub settings_file: Option<PathBuf>,
    /// Print one JSON document on stdout instead of lines.
    #[arg(long)]
    pub json: bool,
    /// Push to or pull from this branch of the project (`main`: the main line), rather than
    /// what `branch` in the settings file says.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    /// The server's address.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// The project, as TEAM/PROJECT.
    #[arg(long, default_value = "TEAM/PROJECT")]
    pub project: String,
    /// The app repository's folder.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Replace an existing .locstore.toml.
    #[arg(long)]
    pub force: bool,
    /// Create the project on the server when it is missing (needs LOCSTORE_TOKEN with
    /// admin rights), with the languages of the folders found.
    #[arg(long)]
    pub create: bool,
    /// The base language of a project made by --create (default: the one the app's source
    /// files declare, an XLIFF source file's or a String Catalog's, else en).
    #[arg(long)]
    pub base_language: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PushMode {
    /// Every key must be new (existing ones fail the push).
    Create,
    /// New keys are created, existing ones get the files' texts.
    Upsert,
}

#[derive(Debug, Clone, Args)]
pub struct PushArgs {
    #[command(flatten)]
    pub client: ClientArgs,
    /// Count what would change and commit nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// How keys that exist are treated [default: upsert].
    #[arg(long, value_enum)]
    pub mode: Option<PushMode>,
    /// Exit with status 1 when the push changed something (or, with --dry-run, would).
    #[arg(long)]
    pub fail_on_change: bool,
    /// Refuse (exit 2) when the app has languages the project lacks, instead of adding them.
    #[arg(long)]
    pub no_add_languages: bool,
    /// Fail (exit 2, nothing pushed) when the server would pass entries over; without it,
    /// warnings are printed with file and line and the push goes on.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Clone, Args)]
pub struct PullArgs {
    #[command(flatten)]
    pub client: ClientArgs,
    /// Export the state at this commit, snapshot or time rather than the newest.
    #[arg(long, value_name = "REF")]
    pub at: Option<String>,
    /// Write nothing; exit with status 1 when files on disk differ from the server.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token, print it once on the first line of stdout, and record only its hash.
    Create(TokenCreateArgs),
}

/// Settings shared by every command that needs to find the data directory.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// Configuration file (TOML); see locstore.example.toml.
    #[arg(long, env = "LOCSTORE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder holding repo/, exports/, tokens.toml and webhooks.toml [default: ./locstore-data].
    #[arg(long, env = "LOCSTORE_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The git repository [default: <data-dir>/repo]; created when missing or empty.
    #[arg(long, env = "LOCSTORE_REPO", value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Where export files are written and served from [default: <data-dir>/exports].
    #[arg(long, env = "LOCSTORE_EXPORTS_DIR", value_name = "DIR")]
    pub exports_dir: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port [default: 127.0.0.1:8080].
    #[arg(long, env = "LOCSTORE_LISTEN", value_name = "HOST:PORT")]
    pub listen: Option<String>,
    /// Base of the download addresses that export returns [default: from the request's Host].
    #[arg(long, env = "LOCSTORE_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// How long a download address lives, such as 30m, 1h or 2days [default: 1h].
    #[arg(long, env = "LOCSTORE_EXPORT_TTL", value_name = "DURATION")]
    pub export_ttl: Option<String>,
    /// When a change is on disk: fsync (before the answer) or os (left to the OS) [default: fsync].
    #[arg(long, env = "LOCSTORE_DURABILITY", value_name = "MODE")]
    pub durability: Option<DurabilityArg>,
    /// Largest accepted request body in bytes [default: 1048576].
    #[arg(long, env = "LOCSTORE_MAX_BODY_BYTES", value_name = "BYTES")]
    pub max_body_bytes: Option<usize>,
    /// Largest accepted body of a key import or a file upload (`locstore push`) in bytes
    /// [default: 67108864].
    #[arg(long, env = "LOCSTORE_MAX_IMPORT_BYTES", value_name = "BYTES")]
    pub max_import_bytes: Option<usize>,
    /// Memory for the app's kept files that exports patch, held between exports in bytes; a
    /// file read ahead for patching (XLIFF) counts three times its size; 0 holds none
    /// [default: 536870912].
    #[arg(long, env = "LOCSTORE_KEPT_CACHE_BYTES", value_name = "BYTES")]
    pub kept_cache_bytes: Option<usize>,
    /// How long a client may take to send a request's headers or body, and how long an idle
    /// connection stays open, such as 30s [default: 30s].
    #[arg(long, env = "LOCSTORE_REQUEST_TIMEOUT", value_name = "DURATION")]
    pub request_timeout: Option<String>,
    /// Log format: text or json [default: text]. Filter with RUST_LOG (default: info).
    #[arg(long, env = "LOCSTORE_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
    /// A git remote to push every change to and pull changes from (https://, ssh://, git://,
    /// http://, file:// or a path). An HTTP password comes from LOCSTORE_REMOTE_TOKEN, an SSH
    /// key from the --remote-ssh-key file. SSH host keys are checked against
    /// ~/.ssh/known_hosts and HTTPS certificates against the system's (or SSL_CERT_FILE's).
    #[arg(long, env = "LOCSTORE_REMOTE", value_name = "URL")]
    pub remote: Option<String>,
    /// The remote's branch [default: main].
    #[arg(long, env = "LOCSTORE_REMOTE_BRANCH", value_name = "BRANCH")]
    pub remote_branch: Option<String>,
    /// A private key file for an SSH remote.
    #[arg(long, env = "LOCSTORE_REMOTE_SSH_KEY", value_name = "FILE")]
    pub remote_ssh_key: Option<PathBuf>,
    /// How often the remote is fetched, such as 10s or 1m [default: 10s].
    #[arg(long, env = "LOCSTORE_PULL_INTERVAL", value_name = "DURATION")]
    pub pull_interval: Option<String>,
    /// How long a webhook's receiver may keep failing before the webhook is turned off and
    /// marked failing, such as 24h [default: 24h].
    #[arg(long, env = "LOCSTORE_WEBHOOK_FAILING_AFTER", value_name = "DURATION")]
    pub webhook_failing_after: Option<String>,
    /// The secret `POST /hooks/git` must carry in X-Locstore-Hook-Secret to trigger a fetch.
    #[arg(long, env = "LOCSTORE_HOOK_SECRET", value_name = "SECRET")]
    pub hook_secret: Option<String>,
    /// Run as a read replica of this git remote: clone it when the repository is missing,
    /// follow it, serve reads and exports, and answer changes with 405.
    #[arg(long, env = "LOCSTORE_REPLICA_OF", value_name = "URL", conflicts_with = "remote")]
    pub replica_of: Option<String>,
    /// The primary's address, named in a replica's 405 answers.
    #[arg(long, env = "LOCSTORE_PRIMARY_URL", value_name = "URL")]
    pub primary_url: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct TokenCreateArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The token's name; it becomes the author of the commits made with it.
    #[arg(long)]
    pub name: String,
    /// What the token may do: read, write or admin.
    #[arg(long, value_enum)]
    pub access: Access,
    /// Limit the token to this team (repeat for several); other teams look absent to it.
    #[arg(long = "team", value_name = "TEAM")]
    pub teams: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DurabilityArg {
    Fsync,
    Os,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Everything `serve` needs, with derived paths filled in.
#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    pub repo_dir: PathBuf,
    pub exports_dir: PathBuf,
    pub listen: SocketAddr,
    pub public_url: Option<String>,
    pub export_ttl: Duration,
    pub durability: Durability,
    pub limits: Limits,
    pub log_format: LogFormat,
    /// Files holding `[[tokens]]` entries: the configuration file (if any), then
    /// `<data-dir>/tokens.toml`, where `token create` records new tokens.
    pub token_files: Vec<PathBuf>,
    /// `LOCSTORE_API_TOKEN`: one full-access token named `api-token`.
    pub api_token: Option<String>,
    /// Replication through a git remote.
    pub remote: Option<RemoteSettings>,
    /// What `POST /hooks/git` must carry; without it the hook is refused.
    pub hook_secret: Option<String>,
    /// A read replica's primary, named in its 405 answers.
    pub primary_url: Option<String>,
    /// How long a webhook may fail before it is turned off and marked failing.
    pub webhook_failing_after: Duration,
    /// Memory for kept files between exports (`formats::kept::Cache`).
    pub kept_cache_bytes: usize,
}

/// `[remote]` of a `locstore.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoteFileSettings {
    url: Option<String>,
    branch: Option<String>,
    ssh_key: Option<PathBuf>,
}

/// The settings a `locstore.toml` may hold; every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    data_dir: Option<PathBuf>,
    repo: Option<PathBuf>,
    exports_dir: Option<PathBuf>,
    listen: Option<String>,
    public_url: Option<String>,
    export_ttl: Option<String>,
    durability: Option<DurabilityArg>,
    max_body_bytes: Option<usize>,
    max_import_bytes: Option<usize>,
    kept_cache_bytes: Option<usize>,
    request_timeout: Option<String>,
    log_format: Option<LogFormat>,
    remote: Option<RemoteFileSettings>,
    pull_interval: Option<String>,
    webhook_failing_after: Option<String>,
    hook_secret: Option<String>,
    replica_of: Option<String>,
    primary_url: Option<String>,
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read by the token registry; declared here so the file validates"
    )]
    tokens: Vec<toml::Value>,
}

pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
pub const DEFAULT_MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;
pub const DEFAULT_KEPT_CACHE_BYTES: usize = 512 * 1024 * 1024;
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_PULL_INTERVAL: Duration = Duration::from_secs(10);
pub const DEFAULT_WEBHOOK_FAILING_AFTER: Duration = Duration::from_secs(24 * 3600);

/// What one request may cost the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Larger bodies get 413.
    pub max_body_bytes: usize,
    /// The same for key imports, which carry many keys at once.
    pub max_import_bytes: usize,
    /// Time to send a body (else 408), and the idle time after which a connection is closed.
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_import_bytes: DEFAULT_MAX_IMPORT_BYTES,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

pub const TOKENS_FILE: &str = "tokens.toml";

impl Config {
    pub fn resolve(args: ServeArgs) -> anyhow::Result<Self> {
        let file = load_file(args.common.config.as_deref())?;
        let base = config_base(args.common.config.as_deref());
        let data_dir = args
            .common
            .data_dir
            .or(file.data_dir.map(|dir| base.join(dir)))
            .unwrap_or_else(|| PathBuf::from("./locstore-data"));
        let repo_dir = args
            .repo
            .or(file.repo.map(|dir| base.join(dir)))
            .unwrap_or_else(|| data_dir.join("repo"));
        let exports_dir = args
            .exports_dir
            .or(file.exports_dir.map(|dir| base.join(dir)))
            .unwrap_or_else(|| data_dir.join("exports"));
        let listen = args.listen.or(file.listen).unwrap_or_else(|| "127.0.0.1:8080".into());
        let listen = parse_listen(&listen)?;
        let public_url = args
            .public_url
            .or(file.public_url)
            .map(|url| url.trim_end_matches('/').to_owned());
        if let Some(url) = &public_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            bail!("public URL {url:?} must start with http:// or https://");
        }
        let export_ttl = args.export_ttl.or(file.export_ttl).unwrap_or_else(|| "1h".into());
        let export_ttl = humantime::parse_duration(&export_ttl)
            .with_context(|| format!("invalid export TTL {export_ttl:?} (use 30m, 1h, 2days)"))?;
        if export_ttl.is_zero() {
            bail!("the export TTL must be longer than zero");
        }
        let durability = match args.durability.or(file.durability).unwrap_or(DurabilityArg::Fsync) {
            DurabilityArg::Fsync => Durability::Fsync,
            DurabilityArg::Os => Durability::Os,
        };
        let max_body_bytes = args
            .max_body_bytes
            .or(file.max_body_bytes)
            .unwrap_or(DEFAULT_MAX_BODY_BYTES);
        let request_timeout = match args.request_timeout.or(file.request_timeout) {
            Some(raw) => humantime::parse_duration(&raw)
                .with_context(|| format!("invalid request timeout {raw:?} (use 10s, 1m)"))?,
            None => DEFAULT_REQUEST_TIMEOUT,
        };
        if request_timeout.is_zero() {
            bail!("the request timeout must be longer than zero");
        }
        let max_import_bytes = args
            .max_import_bytes
            .or(file.max_import_bytes)
            .unwrap_or(DEFAULT_MAX_IMPORT_BYTES);
        let limits = Limits {
            max_body_bytes,
            max_import_bytes,
            request_timeout,
        };
        let kept_cache_bytes = args
            .kept_cache_bytes
            .or(file.kept_cache_bytes)
            .unwrap_or(DEFAULT_KEPT_CACHE_BYTES);
        let log_format = args.log_format.or(file.log_format).unwrap_or_default();
        let remote_file = file.remote.unwrap_or_default();
        let pull_interval = match args.pull_interval.or(file.pull_interval) {
            Some(raw) => humantime::parse_duration(&raw)
                .with_context(|| format!("invalid pull interval {raw:?} (use 10s, 1m)"))?,
            None => DEFAULT_PULL_INTERVAL,
        };
        if pull_interval.is_zero() {
            bail!("the pull interval must be longer than zero");
        }
        let webhook_failing_after = match args.webhook_failing_after.or(file.webhook_failing_after) {
            Some(raw) => humantime::parse_duration(&raw)
                .with_context(|| format!("invalid webhook failing period {raw:?} (use 24h, 30m)"))?,
            None => DEFAULT_WEBHOOK_FAILING_AFTER,
        };
        let replica_of = args.replica_of.or(file.replica_of).filter(|url| !url.is_empty());
        let remote_url = args.remote.or(remote_file.url).filter(|url| !url.is_empty());
        if replica_of.is_some() && remote_url.is_some() {
            bail!("a read replica follows --replica-of; it takes no --remote");
        }
        let replica = replica_of.is_some();
        let remote = match replica_of.or(remote_url) {
            Some(url) => Some(RemoteSettings {
                replica,
                url,
                branch: args
                    .remote_branch
                    .or(remote_file.branch)
                    .unwrap_or_else(|| "main".into()),
                token: std::env::var("LOCSTORE_REMOTE_TOKEN")
                    .ok()
                    .filter(|token| !token.is_empty()),
                ssh_key: args.remote_ssh_key.or(remote_file.ssh_key.map(|key| base.join(key))),
                pull_interval,
            }),
            None => None,
        };
        let primary_url = args
            .primary_url
            .or(file.primary_url)
            .map(|url| url.trim_end_matches('/').to_owned());
        if let Some(remote) = &remote
            && git2::Branch::name_is_valid(&remote.branch) != Ok(true)
        {
            bail!("{:?} is not a valid branch name", remote.branch);
        }
        let hook_secret = args
            .hook_secret
            .or(file.hook_secret)
            .filter(|secret| !secret.is_empty());
        let token_files = token_files(args.common.config.as_deref(), &data_dir);
        let api_token = std::env::var("LOCSTORE_API_TOKEN")
            .ok()
            .filter(|token| !token.is_empty());
        Ok(Self {
            data_dir,
            repo_dir,
            exports_dir,
            listen,
            public_url,
            export_ttl,
            durability,
            limits,
            log_format,
            remote,
            hook_secret,
            primary_url,
            webhook_failing_after,
            kept_cache_bytes,
            token_files,
            api_token,
        })
    }
}

/// Where `token create` records tokens: `<data-dir>/tokens.toml`, with the data directory
/// found as `serve` would find it.
pub fn tokens_file_for(common: &CommonArgs) -> anyhow::Result<PathBuf> {
    let file = load_file(common.config.as_deref())?;
    let base = config_base(common.config.as_deref());
    let data_dir = common
        .data_dir
        .clone()
        .or(file.data_dir.map(|dir| base.join(dir)))
        .unwrap_or_else(|| PathBuf::from("./locstore-data"));
    Ok(data_dir.join(TOKENS_FILE))
}

fn token_files(config: Option<&Path>, data_dir: &Path) -> Vec<PathBuf> {
    config
        .map(Path::to_path_buf)
        .into_iter()
        .chain([data_dir.join(TOKENS_FILE)])
        .collect()
}

fn load_file(path: Option<&Path>) -> anyhow::Result<FileSettings> {
    let Some(path) = path else {
        return Ok(FileSettings::default());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid configuration file {}", path.display()))
}

/// Relative paths in the configuration file are relative to the file's folder.
fn config_base(config: Option<&Path>) -> PathBuf {
    config.and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default()
}

fn parse_listen(listen: &str) -> anyhow::Result<SocketAddr> {
    use std::net::ToSocketAddrs;
    listen
        .to_socket_addrs()
        .with_context(|| format!("invalid listen address {listen:?} (use HOST:PORT, such as 127.0.0.1:8080)"))?
        .next()
        .with_context(|| format!("the listen address {listen:?} resolves to nothing"))
}
