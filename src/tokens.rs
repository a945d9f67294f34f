//! API tokens: records of name, SHA-256 hash, access level and optional teams, kept in
//! `locstore.toml` and `<data-dir>/tokens.toml`, never in clear and never in the git repository.
//!
//! The server re-reads a token file when its modification time or size changes, so a token
//! made with `locstore token create` works at once, without a restart.

use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::domain::names::TeamName;

/// What a token may do; each level includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// List, get, query and export.
    Read,
    /// Also create, change and delete projects and keys.
    Write,
    /// Also create, rename and delete teams.
    Admin,
}

/// The caller behind a request, as its token describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub name: String,
    pub access: Access,
    /// `None`: every team; `Some`: only these teams exist for this caller.
    pub teams: Option<Vec<String>>,
}

impl Caller {
    pub fn may(&self, access: Access) -> bool {
        self.access >= access
    }

    pub fn sees_team(&self, team: &TeamName) -> bool {
        self.teams
            .as_ref()
            .is_none_or(|teams| teams.iter().any(|allowed| allowed.eq_ignore_ascii_case(team.as_str())))
    }
}

/// One `[[tokens]]` entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenRecord {
    pub name: String,
    pub sha256: String,
    pub access: Access,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<String>>,
}

#[derive(Default, Serialize, Deserialize)]
struct TokenFile {
    #[serde(default)]
    tokens: Vec<TokenRecord>,
}

/// The name of the token given by `LOCSTORE_API_TOKEN`.
pub const ENV_TOKEN_NAME: &str = "api-token";

/// Checks presented tokens against the configured ones.
pub struct TokenRegistry {
    env_token: Option<[u8; 32]>,
    files: Vec<WatchedFile>,
}

struct WatchedFile {
    path: PathBuf,
    state: RwLock<FileState>,
}

#[derive(Default)]
struct FileState {
    stamp: Option<(SystemTime, u64)>,
    records: Vec<([u8; 32], Caller)>,
    /// When the file's stamp was last looked at.
    checked: Option<Instant>,
}

/// How long a token file's records are trusted without a look at the file: a token added to it
/// works at once (an unknown token makes every file be looked at again), an entry removed from
/// it stops working within this time. Most requests thus cost no `stat` of the file.
const LOOK_AGAIN_AFTER: Duration = Duration::from_secs(1);

impl TokenRegistry {
    pub fn new(env_token: Option<&str>, files: &[PathBuf]) -> Self {
        Self {
            env_token: env_token.map(hash),
            files: files
                .iter()
                .map(|path| WatchedFile {
                    path: path.clone(),
                    state: RwLock::default(),
                })
                .collect(),
        }
    }

    /// Whether any token is configured at all.
    pub fn is_empty(&self) -> bool {
        self.env_token.is_none() && self.files.iter().all(|file| file.with_current(true, <[_]>::is_empty))
    }

    /// The caller a token belongs to, or `None` for an unknown token. Every stored hash is
    /// compared in constant time, so timing tells nothing about which hash came close.
    pub fn verify(&self, token: &str) -> Option<Caller> {
        let presented = hash(token);
        self.find(&presented, false).or_else(|| self.find(&presented, true))
    }

    /// The caller whose stored hash is `presented`; `fresh`: after a look at every file.
    fn find(&self, presented: &[u8; 32], fresh: bool) -> Option<Caller> {
        let mut found = None;
        if let Some(env_token) = &self.env_token
            && bool::from(env_token.ct_eq(presented))
        {
            found = Some(Caller {
                name: ENV_TOKEN_NAME.into(),
                access: Access::Admin,
                teams: None,
            });
        }
        for file in &self.files {
            file.with_current(fresh, |records| {
                for (stored, caller) in records {
                    if bool::from(stored.ct_eq(presented)) && found.is_none() {
                        found = Some(caller.clone());
                    }
                }
            });
        }
        found
    }
}

impl WatchedFile {
    /// Runs `look` on the file's records, re-read first when the file changed since the last
    /// look at it (made now when `fresh` or [`LOOK_AGAIN_AFTER`] has passed). The records are
    /// borrowed under the lock, not copied for every request.
    fn with_current<T>(&self, fresh: bool, look: impl FnOnce(&[([u8; 32], Caller)]) -> T) -> T {
        if !fresh {
            let state = self.state.read().unwrap_or_else(|poison| poison.into_inner());
            if state.checked.is_some_and(|at| at.elapsed() < LOOK_AGAIN_AFTER) {
                return look(&state.records);
            }
        }
        let mut state = self.state.write().unwrap_or_else(|poison| poison.into_inner());
        state.checked = Some(Instant::now());
        let stamp = std::fs::metadata(&self.path)
            .ok()
            .and_then(|meta| Some((meta.modified().ok()?, meta.len())));
        if stamp != state.stamp {
            state.records = match read_records(&self.path) {
                Ok(records) => records
                    .into_iter()
                    .filter_map(|record| parse_record(&self.path, record))
                    .collect(),
                Err(err) => {
                    tracing::error!(file = %self.path.display(), error = %format!("{err:#}"), "cannot read tokens");
                    Vec::new()
                }
            };
            state.stamp = stamp;
        }
        look(&state.records)
    }
}

fn parse_record(path: &Path, record: TokenRecord) -> Option<([u8; 32], Caller)> {
    let mut digest = [0u8; 32];
    let valid = record.sha256.len() == 64
        && record
            .sha256
            .as_bytes()
            .chunks(2)
            .zip(digest.iter_mut())
            .all(|(pair, byte)| {
                std::str::from_utf8(pair)
                    .ok()
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .map(|value| *byte = value)
                    .is_some()
            });
    if !valid {
        tracing::error!(file = %path.display(), token = %record.name, "skipping a token whose sha256 is not 64 hex digits");
        return None;
    }
    Some((
        digest,
        Caller {
            name: record.name,
            access: record.access,
            teams: record.teams,
        },
    ))
}

fn read_records(path: &Path) -> anyhow::Result<Vec<TokenRecord>> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            // The configuration file holds other settings too; only `[[tokens]]` matters here.
            let table: toml::Table =
                toml::from_str(&text).with_context(|| format!("{} is not valid TOML", path.display()))?;
            let tokens = table.get("tokens").cloned().unwrap_or(toml::Value::Array(Vec::new()));
            let file = TokenFile {
                tokens: tokens
                    .try_into()
                    .with_context(|| format!("invalid [[tokens]] in {}", path.display()))?,
            };
            Ok(file.tokens)
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Makes a new token, records its hash in `file` and returns the token itself.
pub fn create_token(file: &Path, name: &str, access: Access, teams: &[String]) -> anyhow::Result<String> {
    if name.trim().is_empty() || name.chars().any(char::is_control) || name.len() > 128 {
        bail!("a token name must be 1 to 128 characters without control characters");
    }
    for team in teams {
        TeamName::parse(team).map_err(|err| anyhow::anyhow!(err.0))?;
    }
    let mut records = read_records(file)?;
    if records.iter().any(|record| record.name == name) {
        bail!("a token named {name:?} already exists in {}", file.display());
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|err| anyhow::anyhow!("no randomness for the token: {err}"))?;
    let token = format!("lst_{}", to_hex(&secret));
    records.push(TokenRecord {
        name: name.to_owned(),
        sha256: to_hex(&hash(&token)),
        access,
        teams: (!teams.is_empty()).then(|| teams.to_vec()),
    });
    write_records(file, records)?;
    Ok(token)
}

fn write_records(file: &Path, records: Vec<TokenRecord>) -> anyhow::Result<()> {
    let text = format!(
        "# API tokens of locstore: only SHA-256 hashes, never the tokens. Made by `locstore token create`.\n\n{}",
        toml::to_string_pretty(&TokenFile { tokens: records }).context("cannot serialise tokens")?
    );
    crate::private_file::write(file, text.as_bytes())
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn to_hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_token_verifies_and_a_wrong_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens.toml");
        let token = create_token(&file, "ci", Access::Write, &["acme".into()]).unwrap();
        let registry = TokenRegistry::new(None, std::slice::from_ref(&file));
        let caller = registry.verify(&token).unwrap();
        assert_eq!(caller.name, "ci");
        assert_eq!(caller.access, Access::Write);
        assert!(caller.sees_team(&TeamName::parse("acme").unwrap()));
        assert!(!caller.sees_team(&TeamName::parse("other").unwrap()));
        assert!(registry.verify("lst_wrong").is_none());
        assert!(
            !std::fs::read_to_string(&file).unwrap().contains(&token),
            "the token itself is never stored"
        );
    }

    #[test]
    fn a_token_added_later_is_honoured_without_a_new_registry() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens.toml");
        let registry = TokenRegistry::new(Some("env-secret"), std::slice::from_ref(&file));
        assert_eq!(registry.verify("env-secret").unwrap().name, ENV_TOKEN_NAME);
        let token = create_token(&file, "later", Access::Read, &[]).unwrap();
        assert_eq!(registry.verify(&token).unwrap().access, Access::Read);
    }

    #[test]
    fn a_token_removed_from_the_file_stops_working_once_the_file_is_looked_at_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens.toml");
        let kept = create_token(&file, "kept", Access::Read, &[]).unwrap();
        let without_removed = std::fs::read(&file).unwrap();
        let removed = create_token(&file, "removed", Access::Admin, &[]).unwrap();
        let registry = TokenRegistry::new(None, std::slice::from_ref(&file));
        assert_eq!(registry.verify(&removed).unwrap().name, "removed");
        std::fs::write(&file, &without_removed).unwrap();
        // Within LOOK_AGAIN_AFTER the records read last are used; after it the file is read.
        assert!(registry.verify(&removed).is_some());
        registry.files[0].state.write().unwrap().checked = Instant::now().checked_sub(LOOK_AGAIN_AFTER);
        assert!(registry.verify(&removed).is_none());
        assert_eq!(registry.verify(&kept).unwrap().name, "kept");
    }

    #[test]
    fn duplicate_token_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens.toml");
        create_token(&file, "ci", Access::Read, &[]).unwrap();
        assert!(create_token(&file, "ci", Access::Admin, &[]).is_err());
    }

    #[test]
    fn access_levels_include_lower_ones() {
        let caller = Caller {
            name: "w".into(),
            access: Access::Write,
            teams: None,
        };
        assert!(caller.may(Access::Read) && caller.may(Access::Write) && !caller.may(Access::Admin));
    }
}
