//! What a delivery sends: the JSON body of a commit's events, and the Standard Webhooks
//! headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) that sign it.

use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::history::events::{CommitEvents, Event};

/// Most events one delivery lists; the rest are counted in `eventsOmitted` (an import of
/// 100,000 keys is one commit, and a receiver can read the rest from `/changes`).
pub const MOST_EVENTS: usize = 10_000;

/// The body of a commit's delivery, with the events the webhook takes.
pub fn commit_body(commit: &CommitEvents, team: &str, events: &[&Event]) -> Vec<u8> {
    let mut projects = events.iter().filter_map(|event| event.project.as_deref());
    let first = projects.next();
    let project = first.filter(|first| projects.all(|other| other == *first));
    let listed: Vec<Value> = events.iter().take(MOST_EVENTS).map(|event| event_json(event)).collect();
    let mut data = json!({
        "commit": commit.commit.to_string(),
        "parent": commit.parent.map(|parent| parent.to_string()),
        "subject": commit.subject,
        "author": commit.author,
        "team": team,
        "project": project,
        "events": listed,
    });
    if events.len() > MOST_EVENTS {
        data["eventsOmitted"] = json!(events.len() - MOST_EVENTS);
    }
    let body = json!({
        "type": "locstore.commit",
        "timestamp": rfc3339(commit.time),
        "data": data,
    });
    serde_json::to_vec(&body).unwrap_or_default()
}

fn event_json(event: &Event) -> Value {
    let mut value = json!({"type": event.kind.name()});
    if let Some(project) = &event.project {
        value["project"] = json!(project);
    }
    if let Some(key) = &event.key {
        value["key"] = json!(key);
    }
    if let Some(from) = &event.from {
        value["from"] = json!(from);
    }
    if event.key.is_some() || !event.languages.is_empty() {
        value["languages"] = json!(event.languages);
    }
    value
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
pub fn message_id(commit: &str, webhook: &str) -> String {
    format!("{commit}_{webhook}")
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
            from: None,
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
        let body: serde_json::Value = serde_json::from_slice(&commit_body(&commit, "acme", &taken)).unwrap();
        assert_eq!(body["type"], "locstore.commit");
        assert_eq!(body["timestamp"], "2025-11-24T16:00:00Z");
        assert_eq!(body["data"]["project"], "mobile");
        assert_eq!(body["data"]["parent"], serde_json::Value::Null);
        assert_eq!(body["data"]["events"].as_array().unwrap().len(), MOST_EVENTS);
        assert_eq!(body["data"]["eventsOmitted"], 5);
        assert_eq!(
            body["data"]["events"][0],
            json!({"type": "key.created", "project": "mobile", "key": "k0", "languages": ["en"]})
        );
        let mut other = event(0);
        other.project = Some("web".into());
        let mixed = [&events[0], &other];
        let body: serde_json::Value = serde_json::from_slice(&commit_body(&commit, "acme", &mixed)).unwrap();
        assert_eq!(body["data"]["project"], serde_json::Value::Null);
        assert!(body["data"].get("eventsOmitted").is_none());
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
