//! One thread per webhook delivers the branch's commits to its receiver, oldest first, each
//! until the receiver acknowledges it with a 2xx: a failure is tried again after 1 s, 2 s,
//! 4 s ... up to 10 minutes between attempts while the later commits wait, and after the
//! failing period (24 h) the webhook is turned off and marked `failing`. The cursor moves on
//! disk only after an acknowledgement, so a crash or restart delivers again from there.
//!
//! The thread wakes when the writer publishes, at most every [`GATHER`] (commits that come in
//! a stream are taken several at a time), and every [`POLL`] besides (commits made by hand in
//! the repository, which the writer notices when idle).

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use git2::Oid;

use super::cursor::{self, Attempt, Attempts, BranchCursors, Cursor};
use super::payload;
use super::registry::Webhook;
use super::{Shared, takes};
use crate::store::StoreError;

/// The longest wait for a nudge before looking at the branch again.
const POLL: Duration = Duration::from_secs(2);
/// The first wait after a failed attempt; it doubles up to [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MOST_BACKOFF: Duration = Duration::from_secs(600);
/// The most commits looked back through their events (which the webhooks share, and which
/// delivery needs anyway) before the branch is walked instead: a walk reads every commit
/// again, through each pack the handle added, so it was a quarter of the webhooks' CPU when
/// it ran whenever a webhook had fallen 64 commits behind.
const SHORT_WALK: usize = 1024;
/// The shortest time between two looks at the branch: at 400 commits a second, a look per
/// commit, each its own wake-up, had cost every delivery about twice its CPU (BENCHMARKS.md).
const GATHER: Duration = Duration::from_millis(20);
/// How often a moving cursor is written to disk (see [`Saver`]).
const SAVE_EVERY: Duration = Duration::from_millis(200);

/// What the API and the thread share of one webhook.
pub struct Slot {
    state: Mutex<SlotState>,
    changed: Condvar,
    pub attempts: Mutex<Attempts>,
    /// The webhook's HTTP client, with its kept connections to the receiver: one per webhook,
    /// as a pool shared by the delivery threads had them wait on its lock while another
    /// looked at a connection.
    pub agent: ureq::Agent,
}

/// The webhook's settings as last changed, and where its deliveries stand.
pub struct SlotState {
    pub webhook: Webhook,
    /// Set when the webhook is deleted (or the server stops): the thread ends.
    pub stop: bool,
    /// Set by a publication; taken by the thread.
    nudged: bool,
    /// Whether the thread waits for a nudge (else it looks at the branch soon anyway).
    waiting: bool,
    /// Set when the webhook is turned on again after failing: the cursor skips to this
    /// commit, the branch's head then (not the head when the thread next looks, which may
    /// have moved on to a commit made after).
    pub skip_to: Option<Oid>,
    /// The last commit dealt with.
    pub cursor: String,
    /// Commits after the cursor, as last counted.
    pub backlog: usize,
    /// Since when (seconds since the epoch) the next commit has been failing.
    pub failing_since: Option<i64>,
}

impl Slot {
    pub fn new(webhook: Webhook, attempts: Attempts, cursor: &Cursor) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(SlotState {
                webhook,
                stop: false,
                nudged: true,
                waiting: false,
                skip_to: None,
                cursor: cursor.commit.clone(),
                backlog: 0,
                failing_since: cursor.failing_since,
            }),
            changed: Condvar::new(),
            attempts: Mutex::new(attempts),
            agent: super::new_agent(),
        })
    }

    pub fn state(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// Changes the state and wakes the thread.
    pub fn change(&self, change: impl FnOnce(&mut SlotState)) {
        change(&mut self.state());
        self.changed.notify_all();
    }

    /// Changes what the thread shows of its deliveries (backlog, cursor) without waking
    /// anyone: only the thread itself waits on `changed`, and a notification is a system call
    /// each time (twice per commit, per webhook, had it gone through [`Self::change`]).
    fn set(&self, change: impl FnOnce(&mut SlotState)) {
        change(&mut self.state());
    }

    /// Tells the thread of a publication (on the writer's thread, after every publication):
    /// it is woken only when it waits for one, as a wake-up is a system call even when
    /// nobody waits, and the thread mostly sleeps out [`GATHER`] or delivers.
    pub fn nudge(&self) {
        let mut state = self.state();
        state.nudged = true;
        if state.waiting {
            drop(state);
            self.changed.notify_all();
        }
    }

    /// Waits for a nudge or a change, `timeout` at most; the settings then, or `None` when
    /// the thread is to stop.
    fn wait(&self, timeout: Duration) -> Option<Webhook> {
        let mut state = self.state();
        if !state.nudged && !state.stop {
            state.waiting = true;
            state = self
                .changed
                .wait_timeout(state, timeout)
                .unwrap_or_else(|poison| poison.into_inner())
                .0;
            state.waiting = false;
        }
        state.nudged = false;
        (!state.stop).then(|| state.webhook.clone())
    }

    /// Sleeps `duration` unless the webhook is stopped or turned off meanwhile; whether
    /// delivery may go on. `tick` runs about every second.
    fn pause(&self, duration: Duration, mut tick: impl FnMut()) -> bool {
        let until = Instant::now() + duration;
        let mut state = self.state();
        loop {
            if state.stop || !state.webhook.enabled {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            state = self
                .changed
                .wait_timeout(state, (until - now).min(Duration::from_secs(1)))
                .unwrap_or_else(|poison| poison.into_inner())
                .0;
            drop(state);
            tick();
            state = self.state();
        }
    }

    pub fn record(&self, attempt: Attempt) {
        self.attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .record(attempt);
    }
}

/// How one commit's delivery ended.
enum Delivery {
    Acknowledged,
    /// The webhook was deleted, turned off, or marked failing: stop going through commits.
    Stopped,
}

/// The thread's body.
pub fn run(shared: Arc<Shared>, slot: Arc<Slot>) {
    lower_priority();
    let id = slot.state().webhook.id.clone();
    let dir = cursor::dir(&shared.data_dir, &id);
    let mut cursor = Cursor::load(&dir).unwrap_or_default();
    let mut branches = BranchCursors::load(&dir);
    let mut saver = Saver::new(dir.clone());
    let labels = [id.as_str()];
    let backlog_gauge = shared.metrics.webhook_backlog.with_label_values(&labels);
    let age_gauge = shared.metrics.webhook_oldest_seconds.with_label_values(&labels);
    let mut last_look: Option<Instant> = None;
    while let Some(mut webhook) = slot.wait(saver.due_in().unwrap_or(POLL).min(POLL)) {
        // Commits that come in a stream are taken several at a time: one wake-up and one look
        // at the branch (and at the writer's log of packs) for the publications of [`GATHER`].
        if let Some(rest) = last_look.and_then(|last| GATHER.checked_sub(last.elapsed())) {
            std::thread::sleep(rest);
        }
        last_look = Some(Instant::now());
        saver.save_if_due(&cursor, &slot);
        let head = match shared.read(|feed| Ok(feed.head())) {
            Ok(Some(head)) => head,
            Ok(None) => continue,
            Err(err) => {
                tracing::error!(webhook = %id, error = %err, "cannot read the repository for a webhook");
                continue;
            }
        };
        let skip_to = slot.state().skip_to.take();
        if let Some(to) = skip_to.or(cursor.commit.is_empty().then_some(head)) {
            cursor = Cursor {
                commit: to.to_string(),
                failing_since: None,
            };
            saver.save(&cursor, &slot);
        }
        if !webhook.enabled || cursor.commit == head.to_string() {
            slot.set(|state| state.backlog = 0);
            backlog_gauge.set(0);
            age_gauge.set(0.0);
            if webhook.enabled {
                deliver_branches(&shared, &slot, (&mut cursor, &mut saver), &mut branches, &dir);
            }
            continue;
        }
        let after = Oid::from_str(&cursor.commit)
            .map_err(|err| StoreError::internal("the webhook's cursor is no commit id", err))
            .and_then(|known| commits_after(&shared, known, head));
        let commits = match after {
            Ok(Some(commits)) => commits,
            Ok(None) => {
                tracing::warn!(webhook = %id, cursor = %cursor.commit, "the webhook's cursor is not in the repository: delivering from the branch's head on");
                cursor.commit = head.to_string();
                saver.save(&cursor, &slot);
                continue;
            }
            Err(err) => {
                tracing::error!(webhook = %id, error = %err, "cannot list the commits to deliver");
                continue;
            }
        };
        let mut finished = true;
        for (done, commit) in commits.iter().enumerate() {
            let backlog = commits.len() - done;
            slot.set(|state| state.backlog = backlog);
            backlog_gauge.set(backlog as i64);
            let events = match shared.events(*commit) {
                Ok(events) => events,
                Err(err) => {
                    tracing::error!(webhook = %id, %commit, error = %err, "cannot read a commit's events: skipped");
                    cursor.commit = commit.to_string();
                    saver.moved(&cursor, &slot);
                    continue;
                }
            };
            let oldest = events.time;
            age_gauge.set((now() - oldest).max(0) as f64);
            webhook = slot.state().webhook.clone();
            if let Some(renamed) = events.events.iter().find(|event| {
                event.kind == crate::history::events::EventKind::TeamRenamed
                    && event.from.as_deref() == Some(webhook.team.as_str())
            }) {
                shared.follow_team(&id, &renamed.team);
                webhook = slot.state().webhook.clone();
            }
            let taken = takes(&webhook, &events.events);
            if taken.is_empty() {
                cursor.commit = commit.to_string();
                saver.moved(&cursor, &slot);
                continue;
            }
            let body = payload::commit_body(&events, &webhook.team, None, &taken);
            match deliver(
                &shared,
                &slot,
                (&mut cursor, &mut saver),
                (&commit.to_string(), None),
                &body,
                oldest,
            ) {
                Delivery::Acknowledged => {
                    cursor.commit = commit.to_string();
                    cursor.failing_since = None;
                    saver.moved(&cursor, &slot);
                    shared.metrics.webhook_deliveries.with_label_values(&labels).inc();
                }
                Delivery::Stopped => {
                    finished = false;
                    break;
                }
            }
        }
        if finished {
            slot.set(|state| state.backlog = 0);
            backlog_gauge.set(0);
            age_gauge.set(0.0);
            deliver_branches(&shared, &slot, (&mut cursor, &mut saver), &mut branches, &dir);
        }
    }
    saver.save_if_moved(&cursor, &slot);
    let _ = shared.metrics.webhook_backlog.remove_label_values(&labels);
    let _ = shared.metrics.webhook_oldest_seconds.remove_label_values(&labels);
}

/// The folder of refs holding a team's project branches (see `store::branches`).
pub fn team_branches(team: &str) -> String {
    format!("refs/heads/locstore/{team}/")
}

/// Delivers the commits made on the team's project branches since the last look, each with
/// its branch's name, once the main line is delivered: per branch, its first-parent line
/// after the last commit done with (a branch new to the webhook: its own commits, those after
/// where it left the main line). `branches` is `None` before the first look: the heads then
/// are taken as done with (a new webhook, or one from before branches were delivered).
fn deliver_branches(
    shared: &Shared,
    slot: &Slot,
    (cursor, saver): (&mut Cursor, &mut Saver),
    branches: &mut Option<BranchCursors>,
    dir: &std::path::Path,
) {
    let webhook = slot.state().webhook.clone();
    let id = webhook.id.clone();
    let prefix = team_branches(&webhook.team);
    let heads = match shared.read(|feed| feed.refs_under(&prefix)) {
        Ok(heads) => heads,
        Err(err) => {
            tracing::error!(webhook = %id, error = %err, "cannot list the project branches for a webhook");
            return;
        }
    };
    let save = |branches: &BranchCursors| {
        if let Err(err) = branches.save(dir) {
            tracing::error!(dir = %dir.display(), error = %err, "cannot save a webhook's branch cursors");
        }
    };
    let Some(done) = branches.as_mut() else {
        let first = BranchCursors {
            done: heads.into_iter().collect(),
        };
        save(&first);
        *branches = Some(first);
        return;
    };
    // Deleted branches are forgotten.
    let before = done.done.len();
    done.done
        .retain(|reference, _| heads.iter().any(|(head_ref, _)| head_ref == reference));
    let mut changed = done.done.len() != before;
    for (reference, head) in heads {
        let known = done.done.get(&reference).copied();
        if known == Some(head) {
            continue;
        }
        let Some((project, branch)) = reference.strip_prefix(&prefix).and_then(|rest| rest.split_once('/')) else {
            continue;
        };
        if !webhook.projects.is_empty() && !webhook.projects.iter().any(|taken| taken == project) {
            done.done.insert(reference.clone(), head);
            changed = true;
            continue;
        }
        let commits = match shared.read(|feed| feed.branch_commits(head, known, SHORT_WALK)) {
            Ok(commits) => commits,
            Err(err) => {
                tracing::error!(webhook = %id, branch = reference, error = %err, "cannot list a branch's commits to deliver");
                continue;
            }
        };
        for commit in commits {
            let events = match shared.events(commit) {
                Ok(events) => events,
                Err(err) => {
                    tracing::error!(webhook = %id, %commit, error = %err, "cannot read a branch commit's events: skipped");
                    done.done.insert(reference.clone(), commit);
                    changed = true;
                    continue;
                }
            };
            let taken = takes(&webhook, &events.events);
            if !taken.is_empty() {
                let body = payload::commit_body(&events, &webhook.team, Some(branch), &taken);
                let commit_id = commit.to_string();
                match deliver(
                    shared,
                    slot,
                    (cursor, saver),
                    (&commit_id, Some(branch)),
                    &body,
                    events.time,
                ) {
                    Delivery::Acknowledged => {
                        shared
                            .metrics
                            .webhook_deliveries
                            .with_label_values(&[id.as_str()])
                            .inc();
                        if cursor.failing_since.take().is_some() {
                            saver.save(cursor, slot);
                        }
                    }
                    Delivery::Stopped => {
                        if changed {
                            save(done);
                        }
                        return;
                    }
                }
            }
            done.done.insert(reference.clone(), commit);
            save(done);
            changed = false;
        }
        if done.done.get(&reference) != Some(&head) {
            // Nothing of its own to deliver (a branch made at a main-line commit).
            done.done.insert(reference, head);
            changed = true;
        }
    }
    if changed {
        save(done);
    }
}

/// The first-parent commits after `cursor` up to `head`, oldest first; `None` when the
/// repository does not hold `cursor`. A short way back is followed through the commits'
/// events, which the webhooks share and need anyway; a long one (a backlog) is a walk of the
/// branch.
fn commits_after(shared: &Shared, cursor: Oid, head: Oid) -> Result<Option<Vec<Oid>>, StoreError> {
    let mut line = Vec::new();
    let mut at = head;
    for _ in 0..SHORT_WALK {
        if at == cursor {
            line.reverse();
            return Ok(Some(line));
        }
        line.push(at);
        match shared.events(at)?.parent {
            Some(parent) => at = parent,
            None => break,
        }
    }
    shared.read(|feed| feed.after(cursor, head))
}

/// Delivers one commit's body until the receiver acknowledges it.
fn deliver(
    shared: &Shared,
    slot: &Slot,
    (cursor, saver): (&mut Cursor, &mut Saver),
    (commit, branch): (&str, Option<&str>),
    body: &[u8],
    oldest: i64,
) -> Delivery {
    let mut backoff = FIRST_BACKOFF;
    let mut number = 0;
    loop {
        number += 1;
        let webhook = {
            let state = slot.state();
            if state.stop || !state.webhook.enabled {
                return Delivery::Stopped;
            }
            state.webhook.clone()
        };
        let message_id = payload::message_id(commit, branch, &webhook.id);
        let mut attempt = shared.send(slot, &webhook, &message_id, body);
        attempt.commit = Some(commit.to_owned());
        attempt.attempt = number;
        let ok = attempt.ok;
        if !ok {
            shared
                .metrics
                .webhook_failures
                .with_label_values(&[webhook.id.as_str()])
                .inc();
            tracing::warn!(webhook = %webhook.id, url = %webhook.url, status = ?attempt.status, error = ?attempt.error, attempt = number, "a webhook delivery failed");
        }
        slot.record(attempt);
        if ok {
            return Delivery::Acknowledged;
        }
        let since = *cursor.failing_since.get_or_insert_with(now);
        if number == 1 {
            saver.save(cursor, slot);
        }
        if now() - since >= shared.failing_after.as_secs() as i64 {
            tracing::error!(webhook = %webhook.id, url = %webhook.url, "a webhook failed for the whole failing period: turned off and marked failing");
            shared.mark_failing(&webhook.id);
            return Delivery::Stopped;
        }
        let age = shared
            .metrics
            .webhook_oldest_seconds
            .with_label_values(&[webhook.id.as_str()]);
        if !slot.pause(backoff, || age.set((now() - oldest).max(0) as f64)) {
            return Delivery::Stopped;
        }
        backoff = (backoff * 2).min(MOST_BACKOFF);
    }
}

/// Writes the cursor to disk: at once when it matters (a failure begins, the cursor jumps),
/// else at most every [`SAVE_EVERY`] while it moves on. Every file written there is also
/// written by the writer's `syncfs` of a durable commit, so a write per delivery would slow
/// the writes down; a crash loses at most the last [`SAVE_EVERY`] of moves, whose deliveries
/// are then made again (receivers deduplicate by `webhook-id`).
struct Saver {
    dir: PathBuf,
    last: Instant,
    moved: bool,
}

impl Saver {
    fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            last: Instant::now(),
            moved: false,
        }
    }

    /// The cursor moved on: shown at once, saved when due.
    fn moved(&mut self, cursor: &Cursor, slot: &Slot) {
        slot.set(|state| {
            state.cursor = cursor.commit.clone();
            state.failing_since = cursor.failing_since;
        });
        self.moved = true;
        self.save_if_due(cursor, slot);
    }

    /// How long until a move not yet saved is due.
    fn due_in(&self) -> Option<Duration> {
        self.moved.then(|| SAVE_EVERY.saturating_sub(self.last.elapsed()))
    }

    fn save_if_due(&mut self, cursor: &Cursor, slot: &Slot) {
        if self.moved && self.last.elapsed() >= SAVE_EVERY {
            self.save(cursor, slot);
        }
    }

    fn save_if_moved(&mut self, cursor: &Cursor, slot: &Slot) {
        if self.moved {
            self.save(cursor, slot);
        }
    }

    fn save(&mut self, cursor: &Cursor, slot: &Slot) {
        if let Err(err) = cursor.save(&self.dir) {
            tracing::error!(dir = %self.dir.display(), error = %err, "cannot save a webhook's cursor");
        }
        slot.attempts
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .flush();
        self.last = Instant::now();
        self.moved = false;
        slot.set(|state| {
            state.cursor = cursor.commit.clone();
            state.failing_since = cursor.failing_since;
        });
    }
}

/// Gives this thread the lowest CPU priority there is for a normal thread (nice 19), below
/// the writer, the request handlers and maintenance (nice 10): the writer, woken when its
/// sync ends, then waits less for a core that a delivery holds (at 8 connections on two
/// cores its wait per write went from 91–153 µs at nice 10 to 74–109 µs in one run, 81–124
/// in another: a small gain, within what separates two runs). Deliveries still
/// make progress on a busy machine; the idle class (`SCHED_IDLE`) would let another process
/// that keeps the cores busy hold them back for as long as it runs, and did no better
/// (BENCHMARKS.md, session 25).
fn lower_priority() {
    crate::thread_priority::lower_this_thread(19);
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() as i64)
        .unwrap_or_default()
}
