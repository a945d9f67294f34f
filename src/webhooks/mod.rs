//! Webhooks: every commit that touches a team (and its chosen projects) is delivered to the
//! team's receivers as one signed `POST`, in commit order, at least once.
//!
//! A webhook is a cursor over the branch's first-parent history: its thread
//! ([`worker`]) reads the commits after the cursor, turns each into events from the
//! difference of its tree and its parent's ([`crate::history::events`]: so changes through
//! the API, uploads, pulled commits, merges and commits made by hand all count), keeps those
//! the webhook takes, and sends them with the Standard Webhooks headers ([`payload`]). The
//! settings and secrets are kept in `<data-dir>/webhooks.toml` ([`registry`]), the cursors and
//! recent attempts beside it ([`cursor`]); nothing of it goes into the git repository.
//!
//! It follows the store through its public API: the writer tells it of each publication
//! ([`Store::listen`]), and it never blocks a write.

pub mod cursor;
pub mod payload;
pub mod registry;
mod resolve;
mod transport;
mod worker;

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use git2::Oid;

use crate::gitdb::follow::PackLog;
use crate::history::events::{CommitEvents, Event, EventKind, Feed};
use crate::metrics::Metrics;
use crate::store::{Published, Store, StoreError};
pub use cursor::Attempt;
pub use registry::Webhook;
use worker::Slot;

/// A receiver's answer must come within this.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Commits whose events are kept for the other webhooks (each commit is read once however
/// many webhooks deliver it).
const EVENTS_KEPT: usize = 4096;
/// The event groups a webhook may take whole (`key.*`).
const GROUPS: [&str; 3] = ["team", "project", "key"];

/// Why a webhook operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0:#}")]
    Internal(anyhow::Error),
}

/// What a new webhook is given.
#[derive(Debug, Clone, Default)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<String>,
    pub projects: Vec<String>,
    pub description: String,
}

/// A change of a webhook's settings; `None` leaves a setting as it is.
#[derive(Debug, Clone, Default)]
pub struct WebhookPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub projects: Option<Vec<String>>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
}

/// A webhook as the API shows it: its settings without the secret, and where its deliveries
/// stand.
#[derive(Debug, Clone)]
pub struct WebhookView {
    pub webhook: Webhook,
    /// The last commit delivered or passed over.
    pub cursor: String,
    /// Commits after the cursor still to deal with.
    pub backlog: usize,
    /// Since when (seconds since the epoch) the next delivery has been failing.
    pub failing_since: Option<i64>,
    pub last_attempt: Option<Attempt>,
}

/// Handle to the webhooks; clones share them.
#[derive(Clone)]
pub struct Webhooks {
    shared: Arc<Shared>,
}

/// What every webhook thread and the handle share.
pub struct Shared {
    data_dir: PathBuf,
    root: PathBuf,
    /// The packs the writer writes, which the feed adds from here.
    pack_log: Arc<PackLog>,
    metrics: Arc<Metrics>,
    /// How long a webhook may fail before it is turned off and marked failing.
    failing_after: Duration,
    /// The file's webhooks and their threads; the file is written under this lock.
    slots: Mutex<Vec<Running>>,
    reader: Mutex<Reader>,
}

/// A webhook and its thread (`None` once stopped, or when it could not start).
type Running = (Arc<Slot>, Option<JoinHandle<()>>);

/// The repository handle the webhooks share, and the events of the commits read last.
struct Reader {
    feed: Option<Feed>,
    by_commit: HashMap<Oid, Arc<CommitEvents>>,
    order: VecDeque<Oid>,
}

impl Default for Reader {
    /// Room for [`EVENTS_KEPT`] commits from the start: the map fills up within seconds of
    /// a stream of writes, and growing it there had moved it, doubling, through fresh memory
    /// (3% of the webhook threads' samples in the bench's first seconds).
    fn default() -> Self {
        Self {
            feed: None,
            by_commit: HashMap::with_capacity(EVENTS_KEPT + 1),
            order: VecDeque::with_capacity(EVENTS_KEPT + 1),
        }
    }
}

impl Reader {
    /// The handle, opened when first needed.
    fn feed(&mut self, root: &Path, log: &Arc<PackLog>) -> Result<&mut Feed, StoreError> {
        if self.feed.is_none() {
            self.feed = Some(Feed::open(root, log.clone())?);
        }
        Ok(self.feed.as_mut().expect("opened above"))
    }
}

impl Webhooks {
    /// Reads `<data-dir>/webhooks.toml`, starts a thread per webhook, and has the store tell
    /// them of every publication. Blocking (it reads files).
    pub fn start(
        data_dir: &Path,
        store: &Store,
        metrics: Arc<Metrics>,
        failing_after: Duration,
    ) -> anyhow::Result<Self> {
        let shared = Arc::new(Shared {
            data_dir: data_dir.to_path_buf(),
            root: store.root().to_path_buf(),
            pack_log: store.pack_log(),
            metrics,
            failing_after,
            slots: Mutex::new(Vec::new()),
            reader: Mutex::default(),
        });
        for webhook in registry::load(&registry::path(data_dir))? {
            shared.spawn(webhook, None);
        }
        let follower = Arc::downgrade(&shared);
        store.listen(Box::new(move |published| {
            // Tags: a project branch moved (or a snapshot was taken).
            if matches!(published, Published::Commits | Published::Tags)
                && let Some(shared) = follower.upgrade()
            {
                for (slot, _) in shared.slots().iter() {
                    slot.nudge();
                }
            }
        }));
        Ok(Self { shared })
    }

    /// The team's webhooks, oldest first.
    pub fn list(&self, team: &str) -> Vec<WebhookView> {
        self.shared
            .slots()
            .iter()
            .filter(|(slot, _)| slot.state().webhook.team.eq_ignore_ascii_case(team))
            .map(|(slot, _)| view(slot))
            .collect()
    }

    pub fn get(&self, team: &str, id: &str) -> Result<WebhookView, WebhookError> {
        Ok(view(&*self.shared.find(team, id)?))
    }

    /// Creates a webhook that delivers the commits after `head` on; answers it with its
    /// secret (shown this once).
    pub fn create(
        &self,
        team: &str,
        new: NewWebhook,
        author: &str,
        head: &str,
    ) -> Result<(WebhookView, String), WebhookError> {
        let url = checked_url(&new.url)?;
        let events = checked_events(new.events)?;
        let projects = checked_projects(new.projects)?;
        let internal = WebhookError::Internal;
        let webhook = Webhook {
            id: registry::new_id().map_err(internal)?,
            team: team.to_owned(),
            url,
            events,
            projects,
            description: new.description,
            secret: registry::new_secret().map_err(internal)?,
            created: jiff::Timestamp::now().to_string(),
            created_by: author.to_owned(),
            enabled: true,
            failing: false,
        };
        let start = cursor::Cursor {
            commit: head.to_owned(),
            failing_since: None,
        };
        let dir = cursor::dir(&self.shared.data_dir, &webhook.id);
        // A folder left by an earlier webhook of the same id (ids are random: never, in
        // practice) would lend it its attempts.
        let _ = std::fs::remove_dir_all(&dir);
        start
            .save(&dir)
            .map_err(|err| internal(anyhow::Error::new(err).context("cannot save the webhook's cursor")))?;
        // The project branches' commits so far are not delivered either.
        let heads = self
            .shared
            .read(|feed| feed.refs_under(&worker::team_branches(team)))
            .map_err(|err| internal(anyhow::Error::new(err).context("cannot list the project branches")))?;
        cursor::BranchCursors {
            done: heads.into_iter().collect(),
        }
        .save(&dir)
        .map_err(|err| internal(anyhow::Error::new(err).context("cannot save the webhook's branch cursors")))?;
        let secret = webhook.secret.clone();
        let mut slots = self.shared.slots();
        let mut all: Vec<Webhook> = slots.iter().map(|(slot, _)| slot.state().webhook.clone()).collect();
        all.push(webhook.clone());
        registry::save(&registry::path(&self.shared.data_dir), &all).map_err(internal)?;
        let slot = self.shared.spawn_into(&mut slots, webhook, Some(&start));
        drop(slots);
        Ok((view(&slot), secret))
    }

    /// Changes a webhook's settings. Turning a webhook marked failing on again moves its
    /// cursor to the branch's head: the commits it missed are not delivered (read them with
    /// `/changes?since=` and the cursor it showed). `head` is the branch's head now (a commit
    /// answered after this call is delivered).
    pub fn update(&self, team: &str, id: &str, patch: WebhookPatch, head: &str) -> Result<WebhookView, WebhookError> {
        let url = patch.url.as_deref().map(checked_url).transpose()?;
        let events = patch.events.map(checked_events).transpose()?;
        let projects = patch.projects.map(checked_projects).transpose()?;
        let description = patch.description;
        let slot = self.shared.find(team, id)?;
        let head = Oid::from_str(head).ok();
        let slots = self.shared.slots();
        slot.change(|state| {
            let webhook = &mut state.webhook;
            if let Some(url) = url {
                webhook.url = url;
            }
            if let Some(events) = events {
                webhook.events = events;
            }
            if let Some(projects) = projects {
                webhook.projects = projects;
            }
            if let Some(description) = description {
                webhook.description = description;
            }
            match patch.enabled {
                Some(true) if !webhook.enabled => {
                    state.skip_to = head.filter(|_| webhook.failing);
                    webhook.enabled = true;
                    webhook.failing = false;
                    state.failing_since = None;
                }
                Some(false) => webhook.enabled = false,
                _ => {}
            }
        });
        self.shared.save(&slots).map_err(WebhookError::Internal)?;
        drop(slots);
        slot.nudge();
        Ok(view(&slot))
    }

    /// Deletes a webhook and its state; no delivery is made after this returns (an attempt
    /// in flight is waited for, [`TIMEOUT`] at most). Blocking.
    pub fn delete(&self, team: &str, id: &str) -> Result<(), WebhookError> {
        let (slot, thread) = {
            let mut slots = self.shared.slots();
            let position = slots
                .iter()
                .position(|(slot, _)| is(slot, team, id))
                .ok_or_else(|| not_found(team, id))?;
            let (slot, thread) = slots.remove(position);
            self.shared.save(&slots).map_err(WebhookError::Internal)?;
            (slot, thread)
        };
        slot.change(|state| state.stop = true);
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(cursor::dir(&self.shared.data_dir, id));
        // With no webhook left the shared handle goes too: the writer hands its objects over
        // only while a handle follows it.
        if self.shared.slots().is_empty() {
            *self.shared.reader.lock().unwrap_or_else(|poison| poison.into_inner()) = Reader::default();
        }
        Ok(())
    }

    /// Sends a `locstore.test` delivery now and answers how it went; the cursor stays.
    /// Blocking.
    pub fn test(&self, team: &str, id: &str) -> Result<Attempt, WebhookError> {
        let slot = self.shared.find(team, id)?;
        let webhook = slot.state().webhook.clone();
        let message_id = format!("test_{}", registry::new_id().map_err(WebhookError::Internal)?);
        let body = payload::test_body(&webhook.id, &webhook.team, worker::now());
        let attempt = self.shared.send(&slot, &webhook, &message_id, &body);
        slot.record(attempt.clone());
        slot.attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .flush();
        Ok(attempt)
    }

    /// The recent attempts, newest first.
    pub fn deliveries(&self, team: &str, id: &str) -> Result<Vec<Attempt>, WebhookError> {
        let slot = self.shared.find(team, id)?;
        let attempts = slot.attempts.lock().unwrap_or_else(|poison| poison.into_inner()).list();
        Ok(attempts)
    }

    /// Stops every thread (at shutdown); an attempt in flight is waited for.
    pub fn stop(&self) {
        let threads: Vec<_> = self
            .shared
            .slots()
            .iter_mut()
            .filter_map(|(slot, thread)| {
                slot.change(|state| state.stop = true);
                thread.take()
            })
            .collect();
        for thread in threads {
            let _ = thread.join();
        }
    }
}

/// An HTTP client for a webhook's deliveries.
fn new_agent() -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(TIMEOUT))
        .max_redirects(0)
        .user_agent(concat!("locstore-webhooks/", env!("CARGO_PKG_VERSION")))
        .build();
    ureq::Agent::with_parts(config, transport::connector(), resolve::Receivers::default())
}

fn view(slot: &Slot) -> WebhookView {
    let last_attempt = slot
        .attempts
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .list()
        .into_iter()
        .next();
    let state = slot.state();
    WebhookView {
        webhook: state.webhook.clone(),
        cursor: state.cursor.clone(),
        backlog: state.backlog,
        failing_since: state.failing_since,
        last_attempt,
    }
}

/// Whether `slot` is the webhook `id` of `team`.
fn is(slot: &Slot, team: &str, id: &str) -> bool {
    let state = slot.state();
    state.webhook.id == id && state.webhook.team.eq_ignore_ascii_case(team)
}

fn not_found(team: &str, id: &str) -> WebhookError {
    WebhookError::NotFound(format!("Team {team} has no webhook {id:?}."))
}

impl Shared {
    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Running>> {
        self.slots.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    fn find(&self, team: &str, id: &str) -> Result<Arc<Slot>, WebhookError> {
        self.slots()
            .iter()
            .find(|(slot, _)| is(slot, team, id))
            .map(|(slot, _)| slot.clone())
            .ok_or_else(|| not_found(team, id))
    }

    fn spawn(self: &Arc<Self>, webhook: Webhook, start: Option<&cursor::Cursor>) -> Arc<Slot> {
        let mut slots = self.slots();
        self.spawn_into(&mut slots, webhook, start)
    }

    fn spawn_into(
        self: &Arc<Self>,
        slots: &mut Vec<Running>,
        webhook: Webhook,
        start: Option<&cursor::Cursor>,
    ) -> Arc<Slot> {
        let dir = cursor::dir(&self.data_dir, &webhook.id);
        let start = start
            .cloned()
            .or_else(|| cursor::Cursor::load(&dir))
            .unwrap_or_default();
        let slot = Slot::new(webhook, cursor::Attempts::open(&dir), &start);
        let name = format!("locstore-webhook-{}", slot.state().webhook.id);
        let (shared, thread_slot) = (self.clone(), slot.clone());
        let thread = std::thread::Builder::new()
            .name(name)
            .spawn(move || worker::run(shared, thread_slot))
            .map_err(|err| tracing::error!(error = %err, "cannot start a webhook's thread"))
            .ok();
        slots.push((slot.clone(), thread));
        slot
    }

    /// Writes the file from the slots' settings.
    fn save(&self, slots: &[Running]) -> anyhow::Result<()> {
        let all: Vec<Webhook> = slots.iter().map(|(slot, _)| slot.state().webhook.clone()).collect();
        registry::save(&registry::path(&self.data_dir), &all)
    }

    /// Changes a webhook's settings from its thread and writes the file.
    fn set(&self, id: &str, change: impl FnOnce(&mut Webhook)) {
        let slots = self.slots();
        if let Some((slot, _)) = slots.iter().find(|(slot, _)| slot.state().webhook.id == id) {
            slot.change(|state| change(&mut state.webhook));
        }
        if let Err(err) = self.save(&slots) {
            tracing::error!(error = %format!("{err:#}"), "cannot save the webhooks");
        }
    }

    /// The webhook's team was renamed: it follows.
    fn follow_team(&self, id: &str, team: &str) {
        tracing::info!(webhook = %id, team, "a webhook follows its team's new name");
        self.set(id, |webhook| webhook.team = team.to_owned());
    }

    /// Turns a webhook off after the failing period.
    fn mark_failing(&self, id: &str) {
        self.set(id, |webhook| {
            webhook.enabled = false;
            webhook.failing = true;
        });
    }

    /// Reads the repository through the handle all webhooks share (opened when first
    /// needed).
    fn read<T>(&self, read: impl FnOnce(&mut Feed) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut reader = self.reader.lock().unwrap_or_else(|poison| poison.into_inner());
        read(reader.feed(&self.root, &self.pack_log)?)
    }

    /// A commit's events, read once for all webhooks (the first to ask reads them while the
    /// others wait for the handle, then find them).
    fn events(&self, commit: Oid) -> Result<Arc<CommitEvents>, StoreError> {
        let mut reader = self.reader.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(found) = reader.by_commit.get(&commit) {
            return Ok(found.clone());
        }
        let events = Arc::new(reader.feed(&self.root, &self.pack_log)?.events(commit)?);
        reader.by_commit.insert(commit, events.clone());
        reader.order.push_back(commit);
        while reader.order.len() > EVENTS_KEPT {
            if let Some(oldest) = reader.order.pop_front() {
                reader.by_commit.remove(&oldest);
            }
        }
        Ok(events)
    }

    /// One attempt: the body signed and sent to `webhook` (the settings of `slot`, as its
    /// caller read them) through the slot's client, the answer awaited ([`TIMEOUT`] at most).
    fn send(&self, slot: &Slot, webhook: &Webhook, message_id: &str, body: &[u8]) -> Attempt {
        let timestamp = worker::now();
        let started = Instant::now();
        let answer = slot
            .agent
            .post(&webhook.url)
            .header("content-type", "application/json")
            .header("webhook-id", message_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header(
                "webhook-signature",
                payload::signature(&webhook.secret, message_id, timestamp, body),
            )
            .send(body);
        let (status, error) = match answer {
            Ok(mut response) => {
                let status = response.status().as_u16();
                // Read the answer (a little of it) so that the connection is kept for the next.
                let _ = response.body_mut().with_config().limit(64 * 1024).read_to_vec();
                let ok = (200..300).contains(&status);
                (Some(status), (!ok).then(|| format!("the receiver answered {status}")))
            }
            Err(err) => (None, Some(err.to_string())),
        };
        let elapsed = started.elapsed();
        self.metrics.webhook_delivery_seconds.observe(elapsed.as_secs_f64());
        Attempt {
            commit: None,
            message_id: message_id.to_owned(),
            attempt: 1,
            at: payload::rfc3339(timestamp),
            ok: error.is_none(),
            status,
            duration_ms: elapsed.as_millis() as u64,
            error,
        }
    }
}

/// The events of a commit a webhook takes: its team's, of its projects, of its types.
pub fn takes<'e>(webhook: &Webhook, events: &'e [Event]) -> Vec<&'e Event> {
    events
        .iter()
        .filter(|event| event.team.eq_ignore_ascii_case(&webhook.team))
        .filter(|event| {
            webhook.projects.is_empty()
                || event.project.is_none()
                || [event.project.as_deref(), event.from.as_deref()]
                    .into_iter()
                    .flatten()
                    .any(|name| webhook.projects.iter().any(|project| project == name))
        })
        .filter(|event| {
            webhook.events.is_empty()
                || webhook.events.iter().any(|wanted| {
                    wanted == event.kind.name()
                        || wanted
                            .strip_suffix(".*")
                            .is_some_and(|group| event.kind.name().split('.').next() == Some(group))
                })
        })
        .collect()
}

fn checked_url(url: &str) -> Result<String, WebhookError> {
    let invalid = || {
        WebhookError::Invalid(format!(
            "url {url:?} is not an http:// or https:// address with a host."
        ))
    };
    let uri: ureq::http::Uri = url.parse().map_err(|_| invalid())?;
    let scheme_ok = matches!(uri.scheme_str(), Some("http" | "https"));
    if !scheme_ok || uri.host().is_none_or(str::is_empty) || url.len() > 2048 {
        return Err(invalid());
    }
    Ok(url.to_owned())
}

fn checked_events(events: Vec<String>) -> Result<Vec<String>, WebhookError> {
    let mut checked: Vec<String> = Vec::new();
    for event in events {
        let known =
            EventKind::parse(&event).is_some() || event.strip_suffix(".*").is_some_and(|group| GROUPS.contains(&group));
        if !known {
            let names: Vec<&str> = EventKind::ALL.iter().map(|kind| kind.name()).collect();
            return Err(WebhookError::Invalid(format!(
                "Unknown event type {event:?}; the types are {} (or team.*, project.*, key.*).",
                names.join(", ")
            )));
        }
        if !checked.contains(&event) {
            checked.push(event);
        }
    }
    Ok(checked)
}

fn checked_projects(projects: Vec<String>) -> Result<Vec<String>, WebhookError> {
    let mut checked: Vec<String> = Vec::new();
    for project in projects {
        let name = crate::domain::names::ProjectName::parse(&project)
            .map_err(|err| WebhookError::Invalid(format!("projects: {}", err.0)))?;
        let name = name.to_string();
        if !checked.contains(&name) {
            checked.push(name);
        }
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::Durability;

    #[test]
    fn the_writer_is_followed_while_a_webhook_exists_and_not_after_the_last_is_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let metrics = Arc::new(Metrics::new());
        let store = Store::open(&dir.path().join("repo"), Durability::Os, metrics.clone()).unwrap();
        let webhooks = Webhooks::start(dir.path(), &store, metrics, Duration::from_secs(60)).unwrap();
        let log = store.pack_log();
        assert!(!log.followed());
        let new = NewWebhook {
            url: "http://127.0.0.1:9/hook".into(),
            ..NewWebhook::default()
        };
        let (view, _) = webhooks.create("acme", new, "admin", &store.head()).unwrap();
        // The thread opens the shared handle at its first look at the branch.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !log.followed() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(log.followed(), "a webhook's thread follows the writer");
        webhooks.delete("acme", &view.webhook.id).unwrap();
        assert!(
            !log.followed(),
            "nothing follows the writer once the last webhook is gone"
        );
        webhooks.stop();
    }
}
