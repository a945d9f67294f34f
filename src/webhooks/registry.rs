//! The webhooks themselves: `<data-dir>/webhooks.toml`, mode 0600 (it holds the signing
//! secrets), never in the git repository. Rewritten whole on every change of a webhook's
//! settings; the delivery cursors live in files of their own (see [`super::cursor`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file in the data directory.
pub const FILE: &str = "webhooks.toml";

/// One webhook as the file keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// `wh_` and 16 hex digits.
    pub id: String,
    pub team: String,
    pub url: String,
    /// The event types delivered (`key.updated`, or `key.*`); empty: all.
    #[serde(default)]
    pub events: Vec<String>,
    /// The projects whose changes are delivered; empty: all of the team's.
    #[serde(default)]
    pub projects: Vec<String>,
    #[serde(default)]
    pub description: String,
    /// `whsec_` and the base64 of 24 random bytes.
    pub secret: String,
    /// RFC 3339.
    pub created: String,
    pub created_by: String,
    /// Whether deliveries are made; `false` when an admin turned it off or after 24 h of
    /// failures (then `failing` is set too).
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub failing: bool,
}

fn yes() -> bool {
    true
}

#[derive(Default, Serialize, Deserialize)]
struct WebhookFile {
    #[serde(default)]
    webhooks: Vec<Webhook>,
}

/// The file's path in a data directory.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// Reads the webhooks (none when the file does not exist).
pub fn load(file: &Path) -> anyhow::Result<Vec<Webhook>> {
    match std::fs::read_to_string(file) {
        Ok(text) => {
            let parsed: WebhookFile =
                toml::from_str(&text).with_context(|| format!("cannot read {}", file.display()))?;
            Ok(parsed.webhooks)
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", file.display())),
    }
}

/// Writes the webhooks whole.
pub fn save(file: &Path, webhooks: &[Webhook]) -> anyhow::Result<()> {
    let text = format!(
        "# locstore's webhooks, with their signing secrets: keep this file private.\n\
         # Managed through the API (/teams/{{teamName}}/webhooks).\n\n{}",
        toml::to_string_pretty(&WebhookFile {
            webhooks: webhooks.to_vec()
        })
        .context("cannot serialise the webhooks")?
    );
    crate::private_file::write(file, text.as_bytes())
}

/// Random bytes as lower-case hex.
fn random_hex(bytes: usize) -> anyhow::Result<String> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).map_err(|err| anyhow::anyhow!("no randomness: {err}"))?;
    Ok(hex::encode(buffer))
}

/// A new webhook id.
pub fn new_id() -> anyhow::Result<String> {
    Ok(format!("wh_{}", random_hex(8)?))
}

/// A new signing secret, as Standard Webhooks writes them: `whsec_` and base64.
pub fn new_secret() -> anyhow::Result<String> {
    use base64::Engine;
    let mut key = [0u8; 24];
    getrandom::fill(&mut key).map_err(|err| anyhow::anyhow!("no randomness for the secret: {err}"))?;
    Ok(format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(key)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_round_trips_and_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = path(dir.path());
        assert!(load(&file).unwrap().is_empty());
        let webhook = Webhook {
            id: new_id().unwrap(),
            team: "acme".into(),
            url: "http://127.0.0.1:9/hook".into(),
            events: vec!["key.*".into()],
            projects: vec![],
            description: "chat \"quoted\"".into(),
            secret: new_secret().unwrap(),
            created: "2026-11-25T12:00:00Z".into(),
            created_by: "admin".into(),
            enabled: true,
            failing: false,
        };
        save(&file, std::slice::from_ref(&webhook)).unwrap();
        assert_eq!(load(&file).unwrap(), vec![webhook.clone()]);
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(webhook.id.starts_with("wh_") && webhook.id.len() == 19);
        assert!(webhook.secret.starts_with("whsec_") && webhook.secret.len() == 6 + 32);
    }
}
