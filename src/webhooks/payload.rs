//! What a delivery sends: the JSON body of a commit's events, and the Standard Webhooks
//! headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) that sign it.

use base64::Engine;
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::json;
use sha2::Sha256;

use crate::history::events::{CommitEvents, Event};

/// The main line's name in a delivery's `branch`.
const MAIN_LINE: &str = "main";

/// Most events one delivery lists; the rest are counted in `eventsOmitted` (an import of
/// 100,000 keys is one commit, and a receiver can read the rest from `/changes`).
pub const MOST_EVENTS: usize = 10_000;

/// The body of a commit's delivery on the main line (`branch` `None`) or a project branch,
/// with the events the webhook takes.
pub fn commit_body(commit: &CommitEvents, team: &str, branch: Option<&str>, events: &[&Event]) -> Vec<u8> {
    let mut projects = events.iter().filter_map(|event| event.project.as_deref());
    let first = projects.next();
    let project = first.filter(|first| projects.all(|other| other == *first));
    let body = Body {
        kind: "locstore.commit",
        timestamp: rfc3339(commit.time),
        data: Data {
            commit: commit.commit.to_string(),
            parent: commit.parent.map(|parent| parent.to_string()),
            subject: &commit.subject,
            author: &commit.author,
            team,
            project,
            branch: branch.unwrap_or(MAIN_LINE),
            events: events.iter().take(MOST_EVENTS).map(|event| EventJson(event)).collect(),
            events_omitted: events.len().checked_sub(MOST_EVENTS).filter(|omitted| *omitted > 0),
        },
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A commit's delivery as it is written (straight to bytes: a delivery's body had been a
/// tree of JSON values first, each of its strings copied, for every webhook).
#[derive(Serialize)]
struct Body<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    timestamp: String,
    data: Data<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Data<'a> {
    commit: String,
    parent: Option<String>,
    subject: &'a str,
    author: &'a str,
    team: &'a str,
    project: Option<&'a str>,
    /// The line the commit is on: `main`, or the project branch's name.
    branch: &'a str,
    events: Vec<EventJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    events_omitted: Option<usize>,
}

/// An event: its type, its project, key and former name when it has them, and its
/// languages for a key's event or when there are some.
struct EventJson<'a>(&'a Event);

impl Serialize for EventJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let event = self.0;
        let languages = event.key.is_some() || !event.languages.is_empty();
        let fields = 1
            + usize::from(event.project.is_some())
            + usize::from(event.key.is_some())
            + usize::from(event.namespace.is_some())
            + usize::from(event.from.is_some())
            + usize::from(event.from_namespace.is_some())
            + usize::from(languages);
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("type", event.kind.name())?;
        if let Some(project) = &event.project {
            map.serialize_entry("project", project)?;
        }
        if let Some(key) = &event.key {
            map.serialize_entry("key", key)?;
        }
        if let Some(namespace) = &event.namespace {
            map.serialize_entry("namespace", namespace)?;
        }
        if let Some(from) = &event.from {
            map.serialize_entry("from", from)?;
        }
        if let Some(from_namespace) = &event.from_namespace {
            map.serialize_entry("fromNamespace", from_namespace)?;
        }
        if languages {
            map.serialize_entry("languages", &event.languages)?;
        }
        map.end()
    }
}

/// The body of a test delivery.
pub fn test_body(webhook: &str, team: &str, now: i64) -> Vec<u8> {
    let body = json!({
        "type": "locstore.test",
        "timestamp": rfc3339(now),
        "data": {"webhook": webhook, "team": team},
    });
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The `webhook-id` of a commit's delivery to a webhook: the same for every attempt, so
/// receivers deduplicate on it.
pub fn message_id(commit: &str, branch: Option<&str>, webhook: &str) -> String {
    match branch {
        None => format!("{commit}_{webhook}"),
        // A commit a branch took from the branch it was made from is delivered for each.
        Some(branch) => format!("{commit}_{branch}_{webhook}"),
    }
}

/// `v1,` and the base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the
/// secret's bytes (the base64 after `whsec_`), as Standard Webhooks defines it.
pub fn signature(secret: &str, message_id: &str, timestamp: i64, body: &[u8]) -> String {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    let key = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_else(|_| encoded.as_bytes().to_vec());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes a key of any length");
    mac.update(message_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// Seconds since the epoch as RFC 3339 in UTC.
pub fn rfc3339(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(|time| time.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit of more events than a delivery lists (an import of many keys) lists the
    /// first [`MOST_EVENTS`] and counts the rest; the project is named when all are of one.
    #[test]
    fn a_large_commit_lists_the_first_events_and_counts_the_rest() {
        use crate::history::events::EventKind;
        let event = |index: usize| Event {
            kind: EventKind::KeyCreated,
            team: "acme".into(),
            project: Some("mobile".into()),
            key: Some(format!("k{index}")),
            namespace: Some(if index == 2 { "common".into() } else { String::new() }),
            from: None,
            from_namespace: None,
            languages: vec!["en".into()],
        };
        let events: Vec<Event> = (0..MOST_EVENTS + 5).map(event).collect();
        let commit = CommitEvents {
            commit: git2::Oid::from_str(&"a".repeat(40)).unwrap(),
            parent: None,
            time: 1_764_000_000,
            author: "ci-bot".into(),
            subject: "Import".into(),
            events: Vec::new(),
        };
        let taken: Vec<&Event> = events.iter().collect();
        let body: serde_json::Value = serde_json::from_slice(&commit_body(&commit, "acme", None, &taken)).unwrap();
        assert_eq!(body["type"], "locstore.commit");
        assert_eq!(body["timestamp"], "2025-11-24T16:00:00Z");
        assert_eq!(body["data"]["project"], "mobile");
        assert_eq!(body["data"]["parent"], serde_json::Value::Null);
        assert_eq!(body["data"]["events"].as_array().unwrap().len(), MOST_EVENTS);
        assert_eq!(body["data"]["eventsOmitted"], 5);
        assert_eq!(
            body["data"]["events"][0],
            json!({"type": "key.created", "project": "mobile", "key": "k0", "namespace": "", "languages": ["en"]})
        );
        let mut other = event(0);
        other.project = Some("web".into());
        let mixed = [&events[0], &other];
        let body: serde_json::Value = serde_json::from_slice(&commit_body(&commit, "acme", None, &mixed)).unwrap();
        assert_eq!(body["data"]["project"], serde_json::Value::Null);
        assert!(body["data"].get("eventsOmitted").is_none());

        // A rename names the former name and no languages; a key's event lists its
        // namespace, and its languages even when there are none; a key moved to another
        // namespace names the one it left.
        let renamed = Event {
            kind: EventKind::ProjectRenamed,
            team: "acme".into(),
            project: Some("app".into()),
            key: None,
            namespace: None,
            from: Some("mobile".into()),
            from_namespace: None,
            languages: Vec::new(),
        };
        let moved = Event {
            kind: EventKind::KeyRenamed,
            team: "acme".into(),
            project: Some("mobile".into()),
            key: Some("title".into()),
            namespace: Some("settings".into()),
            from: Some("title".into()),
            from_namespace: Some(String::new()),
            languages: Vec::new(),
        };
        let mut tagged = event(1);
        tagged.languages.clear();
        let body: serde_json::Value = serde_json::from_slice(&commit_body(
            &commit,
            "acme",
            None,
            &[&renamed, &tagged, &events[2], &moved],
        ))
        .unwrap();
        assert_eq!(
            body["data"]["events"],
            json!([
                {"type": "project.renamed", "project": "app", "from": "mobile"},
                {"type": "key.created", "project": "mobile", "key": "k1", "namespace": "", "languages": []},
                {"type": "key.created", "project": "mobile", "key": "k2", "namespace": "common", "languages": ["en"]},
                {"type": "key.renamed", "project": "mobile", "key": "title", "namespace": "settings",
                 "from": "title", "fromNamespace": "", "languages": []},
            ])
        );
        assert_eq!(
            body["data"].as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "author", "branch", "commit", "events", "parent", "project", "subject", "team"
            ]
        );
    }

    /// The example of the Standard Webhooks specification's reference libraries: this
    /// secret, id, timestamp and body sign to this value.
    #[test]
    fn signs_as_the_standard_webhooks_reference_does() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }
}
