//! Replication through a git remote: the primary pushes every published batch in the
//! background and fetches the remote on an interval and when a hook asks; what it fetches is
//! joined with the branch by the store's writer (through [`crate::store::Store::adopter`]),
//! which checks every file first.
//!
//! One thread does all of it with a repository handle of its own, so that writes never wait
//! for the network. A push is never forced: when the remote moved on, the push is refused,
//! the next fetch joins the remote's commits, and the push after that carries both. A remote
//! that is down or refuses is tried again with a backoff that doubles up to 30 seconds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use git2::{FetchOptions, Oid, RemoteCallbacks, Repository};

use self::credentials::{credentials, redact, without_secrets};
use self::push::PushError;
use crate::domain::names::{BranchName, ProjectName, TeamName};
use crate::metrics::Metrics;
use crate::store::branches::BranchFollower;
use crate::store::{Adopter, Adoption};

mod clone;
mod credentials;
mod push;

pub use clone::clone_if_missing;

/// Longest wait between two tries of a failing push or fetch.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The least time from one push the remote took to the next. Pushing after every batch as
/// soon as the last push ends kept the pack building and the remote's receive busy on every
/// core under a steady load (a third fewer writes at 100,000 keys); spaced pushes carry the
/// same commits in fewer, larger packs, and add at most the spacing to the lag. With pushes
/// through git (about 0.3 s each under load), the replica bench measured: 0.25 s, lag p99
/// 1.58–1.90 s at 378–392 changes/s; 0.3 s, 1.75 s at 445/s; 0.35 s, 2.06 s at 399/s;
/// 0.5 s, 2.42–2.43 s at 368–429/s.
const PUSH_SPACING: Duration = Duration::from_millis(300);
/// The remote-tracking branch fetches go to.
const TRACKING_PREFIX: &str = "refs/remotes/locstore";

/// Where and how to replicate.
#[derive(Clone)]
pub struct RemoteSettings {
    pub url: String,
    pub branch: String,
    /// HTTP basic password (`LOCSTORE_REMOTE_TOKEN`); the user is the URL's, else `locstore`.
    pub token: Option<String>,
    /// A private key file for SSH remotes.
    pub ssh_key: Option<PathBuf>,
    pub pull_interval: Duration,
    /// A read replica: it follows the remote (its state wins, always) and never pushes.
    pub replica: bool,
}

impl std::fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSettings")
            .field("url", &redact(&self.url))
            .field("branch", &self.branch)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("ssh_key", &self.ssh_key)
            .field("pull_interval", &self.pull_interval)
            .field("replica", &self.replica)
            .finish()
    }
}

/// The state of replication, as `GET /sync` and `/healthz` report it.
#[derive(Debug, Clone, Default)]
pub struct SyncStatus {
    /// The remote's URL without credentials.
    pub remote: String,
    pub branch: String,
    pub head: String,
    /// The remote branch's commit as last fetched or pushed.
    pub remote_head: Option<String>,
    /// Commits of ours the remote lacks, and of the remote's we lack.
    pub ahead: usize,
    pub behind: usize,
    pub last_push: Option<SystemTime>,
    pub last_pull: Option<SystemTime>,
    pub last_error: Option<String>,
    /// Since when the remote lacks a commit of ours.
    pub unpushed_since: Option<SystemTime>,
    pub pushes: u64,
    pub push_failures: u64,
    pub pulls: u64,
    pub pull_failures: u64,
}

impl SyncStatus {
    /// How long the oldest commit the remote lacks has waited, in seconds.
    pub fn lag_seconds(&self) -> f64 {
        self.unpushed_since
            .and_then(|since| since.elapsed().ok())
            .map_or(0.0, |lag| lag.as_secs_f64())
    }
}

enum Wake {
    Published,
    Fetch,
}

/// The handle the rest of the server keeps: wakes the replication thread and reads its state.
#[derive(Clone)]
pub struct Remote {
    wake: SyncSender<Wake>,
    status: Arc<Mutex<SyncStatus>>,
}

/// Where snapshot tags live, under `refs/tags/` (see `snapshots::project_prefix`).
const SNAPSHOT_TAG_PREFIX: &str = "locstore";
/// What a replica fetches besides the branch: the primary's snapshots, the remote's version
/// winning.
const SNAPSHOT_TAGS_REFSPEC: &str = "+refs/tags/locstore/*:refs/tags/locstore/*";
/// Where projects' branches live (see `store::branches`), pushed like the snapshots.
const PROJECT_BRANCHES: &str = "refs/heads/locstore/";
/// What a replica fetches of the primary's project branches, the remote's version winning.
const PROJECT_BRANCHES_REFSPEC: &str = "+refs/heads/locstore/*:refs/heads/locstore/*";
/// What a primary fetches of the remote's project branches: beside its own, to take the
/// commits pushed there onto the branches it has.
const REMOTE_BRANCHES: &str = "refs/remotes/locstore-branches/";
const REMOTE_BRANCHES_REFSPEC: &str = "+refs/heads/locstore/*:refs/remotes/locstore-branches/*";
/// Tags that keep deleted branches for 30 days (see `store::branches`).
const DELETED_BRANCH_TAGS: &str = "refs/tags/deleted-branches/";

impl Remote {
    /// Starts the replication thread for the repository at `root`.
    /// `adopt` joins the remote's main line; `follow` takes the remote's commits of project
    /// branches this server has (a primary's; a replica takes the remote's branches as they
    /// are).
    pub fn start(
        root: &Path,
        settings: RemoteSettings,
        (adopt, follow): (Adopter, BranchFollower),
        metrics: Arc<Metrics>,
    ) -> Self {
        let (wake, woken) = std::sync::mpsc::sync_channel(4);
        let status = Arc::new(Mutex::new(SyncStatus {
            remote: redact(&settings.url),
            branch: settings.branch.clone(),
            ..SyncStatus::default()
        }));
        let mut replicator = Replicator {
            root: root.to_path_buf(),
            settings,
            status: status.clone(),
            adopt,
            follow,
            followed: HashMap::new(),
            refused: None,
            joined: None,
            pushed_refs: HashMap::new(),
            metrics,
        };
        let spawned = std::thread::Builder::new()
            .name("locstore-remote".into())
            .spawn(move || replicator.run(&woken));
        if let Err(err) = spawned {
            tracing::error!(error = %err, "cannot start replication");
        }
        Self { wake, status }
    }

    /// Says that the writer published commits: push them.
    pub fn published(&self) {
        self.send(Wake::Published);
    }

    /// Asks for a fetch now (the git host's hook).
    pub fn fetch_now(&self) {
        self.send(Wake::Fetch);
    }

    fn send(&self, wake: Wake) {
        match self.wake.try_send(wake) {
            Ok(()) | Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {}
        }
    }

    pub fn status(&self) -> SyncStatus {
        self.status.lock().unwrap_or_else(|poison| poison.into_inner()).clone()
    }

    /// Sets the lag gauge that depends on the time of asking (for a metrics scrape).
    pub fn record_lag(&self, metrics: &Metrics) {
        metrics.lag_seconds.set(self.status().lag_seconds());
    }
}

struct Replicator {
    root: PathBuf,
    settings: RemoteSettings,
    status: Arc<Mutex<SyncStatus>>,
    adopt: Adopter,
    follow: BranchFollower,
    /// Per project branch (its ref), the remote's commit last handed to `follow` (taken,
    /// held already, or refused): not handed again until the remote's branch moves.
    followed: HashMap<String, Oid>,
    /// The remote commit last refused as invalid: not tried again until the remote moves.
    refused: Option<Oid>,
    /// The remote commit last joined: a pull that finds it again asks the writer nothing, so
    /// that frequent pulls of an unchanged remote do not keep the writer from ever being idle
    /// (when it syncs the git index and merges packs).
    joined: Option<Oid>,
    /// Snapshot tags (`refs/tags/locstore/...`) and the object each named when it was last
    /// pushed, or given up on: a push sends the others.
    pushed_refs: HashMap<String, Oid>,
    metrics: Arc<Metrics>,
}

impl Replicator {
    fn run(&mut self, woken: &Receiver<Wake>) {
        let mut next_fetch = Instant::now();
        let mut push_wanted = !self.settings.replica;
        let mut push_at = Instant::now();
        let mut backoff = FIRST_BACKOFF;
        loop {
            let now = Instant::now();
            let mut deadline = next_fetch;
            if push_wanted {
                deadline = deadline.min(push_at);
            }
            match woken.recv_timeout(deadline.saturating_duration_since(now)) {
                Ok(Wake::Published) if !self.settings.replica => {
                    push_wanted = true;
                    let mut status = self.lock();
                    status.unpushed_since.get_or_insert_with(SystemTime::now);
                }
                Ok(Wake::Published) => {}
                Ok(Wake::Fetch) => next_fetch = Instant::now(),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            let now = Instant::now();
            if now >= next_fetch {
                next_fetch = now + self.settings.pull_interval;
                match self.fetch_and_join() {
                    Ok(joined) => push_wanted |= joined && !self.settings.replica,
                    Err(err) => self.failed("fetch", &err),
                }
            }
            if push_wanted && Instant::now() >= push_at {
                match self.push() {
                    Ok(()) => {
                        push_wanted = false;
                        push_at = Instant::now() + PUSH_SPACING;
                        backoff = FIRST_BACKOFF;
                    }
                    Err(PushError::Rejected(why)) => {
                        // The remote moved on: join its commits, then push again. With the
                        // same backoff, so that a remote whose commits cannot be joined
                        // (an unrelated history) is not asked in a tight loop.
                        self.failed("push", &why);
                        next_fetch = Instant::now() + FIRST_BACKOFF;
                        push_at = Instant::now() + backoff;
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                    Err(PushError::Failed(why)) => {
                        self.failed("push", &why);
                        push_at = Instant::now() + backoff;
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SyncStatus> {
        self.status.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    fn failed(&self, what: &str, why: &str) {
        let why = without_secrets(&self.settings, why);
        tracing::warn!(remote = %redact(&self.settings.url), error = %why, "{what} failed");
        let mut status = self.lock();
        status.last_error = Some(format!("{what}: {why}"));
        match what {
            "push" => {
                status.push_failures += 1;
                self.metrics.push_failures.inc();
            }
            _ => {
                status.pull_failures += 1;
                self.metrics.pull_failures.inc();
            }
        }
    }

    fn open(&self) -> Result<Repository, String> {
        Repository::open(&self.root).map_err(|err| format!("cannot open the repository: {}", err.message()))
    }

    fn tracking_ref(&self) -> String {
        format!("{TRACKING_PREFIX}/{}", self.settings.branch)
    }

    /// Fetches the remote branch and has the writer join what is new. Returns whether the
    /// branch gained commits the remote lacks (a merge), which then need a push.
    fn fetch_and_join(&mut self) -> Result<bool, String> {
        let repo = self.open()?;
        let mut remote = repo
            .remote_anonymous(&self.settings.url)
            .map_err(|err| format!("invalid remote: {}", err.message()))?;
        let refspec = format!("+refs/heads/{}:{}", self.settings.branch, self.tracking_ref());
        // A replica also takes the primary's snapshots, so that it lists them and reads at them.
        let mut refspecs = vec![refspec.as_str()];
        if self.settings.replica {
            refspecs.push(SNAPSHOT_TAGS_REFSPEC);
            refspecs.push(PROJECT_BRANCHES_REFSPEC);
        } else {
            refspecs.push(REMOTE_BRANCHES_REFSPEC);
        }
        let mut options = FetchOptions::new();
        options.remote_callbacks(self.callbacks());
        options.download_tags(git2::AutotagOption::None);
        if self.settings.replica {
            // Snapshots deleted on the primary (their tags deleted on the remote) go here too.
            options.prune(git2::FetchPrune::On);
        }
        let started = Instant::now();
        crate::gitdb::refs_written();
        let fetched = remote.fetch(&refspecs, Some(&mut options), Some("locstore: fetch"));
        crate::gitdb::refs_written();
        fetched.map_err(|err| err.message().to_owned())?;
        self.metrics.fetch_seconds.observe(started.elapsed().as_secs_f64());
        {
            let mut status = self.lock();
            status.pulls += 1;
            status.last_pull = Some(SystemTime::now());
            self.metrics.pulls.inc();
        }
        let Ok(remote_head) = repo.refname_to_id(&self.tracking_ref()) else {
            // The remote has no such branch yet: the first push makes it.
            self.record_heads(&repo, None);
            if !self.settings.replica {
                self.follow_branches(&repo);
            }
            return Ok(true);
        };
        let mut merged = false;
        if self.refused != Some(remote_head) && self.joined != Some(remote_head) {
            let label = format!("{}/{}", redact(&self.settings.url), self.settings.branch);
            match (self.adopt)(remote_head, label, self.settings.replica) {
                Ok(Adoption::Refused(why)) => {
                    self.refused = Some(remote_head);
                    let why = format!("the remote's commit {remote_head} is not served: {why}");
                    self.failed("pull", &why);
                }
                Ok(Adoption::Merged(_)) => {
                    merged = true;
                    self.joined = Some(remote_head);
                }
                Ok(Adoption::Held | Adoption::FastForward(_)) => self.joined = Some(remote_head),
                Err(err) => return Err(err.to_string()),
            }
        }
        self.record_heads(&repo, Some(remote_head));
        if !self.settings.replica {
            self.follow_branches(&repo);
        }
        let status = self.lock();
        Ok(merged || status.ahead > 0)
    }

    /// Takes the commits pushed to the remote's copy of a project branch this server has
    /// (a fix committed on the branch on the git host): the writer fast-forwards the branch
    /// when every file they change is valid. A branch the server does not have is not made
    /// from the remote's (it may be one deleted here, whose deletion is on its way there).
    fn follow_branches(&mut self, repo: &Repository) {
        let Ok(references) = repo.references_glob(&format!("{REMOTE_BRANCHES}*")) else {
            return;
        };
        let remote: Vec<(String, Oid)> = references
            .filter_map(Result::ok)
            .filter_map(|reference| {
                let rest = reference.name().ok()?.strip_prefix(REMOTE_BRANCHES)?;
                Some((format!("{PROJECT_BRANCHES}{rest}"), reference.target()?))
            })
            .collect();
        for (local, incoming) in remote {
            if self.followed.get(&local) == Some(&incoming) {
                continue;
            }
            let Ok(head) = repo.refname_to_id(&local) else { continue };
            let names = local.strip_prefix(PROJECT_BRANCHES).and_then(|rest| {
                let (team, rest) = rest.split_once('/')?;
                let (project, branch) = rest.split_once('/')?;
                Some((
                    TeamName::parse(team).ok()?,
                    ProjectName::parse(project).ok()?,
                    BranchName::parse(branch).ok()?,
                ))
            });
            let Some((team, project, branch)) = names.filter(|_| head != incoming) else {
                self.followed.insert(local, incoming);
                continue;
            };
            match (self.follow)(team, project, branch, incoming) {
                Ok(Adoption::Refused(why)) => {
                    self.failed(
                        "pull",
                        &format!("the remote's commit {incoming} of {local} is not taken: {why}"),
                    );
                }
                Ok(adoption) => tracing::info!(branch = local, %incoming, ?adoption, "followed the remote's branch"),
                // Tried again at the next fetch.
                Err(err) => {
                    self.failed("pull", &format!("cannot take the remote's commits of {local}: {err}"));
                    continue;
                }
            }
            self.followed.insert(local, incoming);
        }
    }

    /// Records HEAD, the remote's head and how far apart they are.
    fn record_heads(&self, repo: &Repository, remote_head: Option<Oid>) {
        let head = repo.head().ok().and_then(|head| head.target());
        let (ahead, behind) = match (head, remote_head) {
            (Some(head), Some(remote)) => repo.graph_ahead_behind(head, remote).unwrap_or((0, 0)),
            // The remote branch is not known yet: it lacks every commit.
            (Some(head), None) => (commit_count(repo, head), 0),
            _ => (0, 0),
        };
        let mut status = self.lock();
        status.head = head.map(|id| id.to_string()).unwrap_or_default();
        status.remote_head = remote_head.map(|id| id.to_string());
        status.ahead = ahead;
        status.behind = behind;
        if ahead == 0 {
            status.unpushed_since = None;
        }
        self.metrics.lag_commits.set(ahead as i64);
    }

    /// Pushes the branch to the remote branch, never forced, then the snapshot tags it has
    /// not pushed yet.
    fn push(&mut self) -> Result<(), PushError> {
        let repo = self.open().map_err(PushError::Failed)?;
        self.push_branch(&repo)?;
        let snapshots = format!("refs/tags/{SNAPSHOT_TAG_PREFIX}/");
        self.push_refs(&repo, &snapshots, "snapshot tags");
        self.push_refs(&repo, PROJECT_BRANCHES, "project branches");
        self.push_refs(&repo, DELETED_BRANCH_TAGS, "tags of deleted branches");
        Ok(())
    }

    /// Pushes the refs under `prefix` (snapshot tags, project branches) that are new or moved
    /// since the last push, never forced, and deletes on the remote the refs this process
    /// pushed that were deleted since. A ref the remote refuses (it has one of that name on
    /// another object, or refuses the deletion) is reported and not tried again, so that it
    /// does not hold the branch's pushes up. Only refs pushed by this process are deleted: a
    /// server that starts on a remote with snapshots it does not have (a restore) leaves them
    /// there.
    fn push_refs(&mut self, repo: &Repository, prefix: &str, what: &str) {
        let Ok(references) = repo.references_glob(&format!("{prefix}*")) else {
            return;
        };
        let local: HashMap<String, Oid> = references
            .filter_map(Result::ok)
            .filter_map(|reference| Some((reference.name().ok()?.to_owned(), reference.target()?)))
            .collect();
        let waiting: Vec<(String, Oid)> = local
            .iter()
            .filter(|(name, target)| self.pushed_refs.get(*name) != Some(*target))
            .map(|(name, target)| (name.clone(), *target))
            .collect();
        let deleted: Vec<String> = self
            .pushed_refs
            .keys()
            .filter(|name| name.starts_with(prefix) && !local.contains_key(*name))
            .cloned()
            .collect();
        if waiting.is_empty() && deleted.is_empty() {
            return;
        }
        let refspecs: Vec<String> = waiting
            .iter()
            .map(|(name, _)| format!("{name}:{name}"))
            .chain(deleted.iter().map(|name| format!(":{name}")))
            .collect();
        let pushed = push::push(repo, &self.settings, &refspecs).map(|outcomes| {
            outcomes
                .into_iter()
                .filter_map(|outcome| Some(format!("{}: {}", outcome.name, outcome.refused?)))
                .collect::<Vec<_>>()
        });
        match pushed {
            Ok(refused) => {
                self.pushed_refs.extend(waiting);
                for name in &deleted {
                    self.pushed_refs.remove(name);
                }
                if !refused.is_empty() {
                    self.failed("push", &format!("the remote refused {what}: {}", refused.join("; ")));
                }
            }
            // Tried again with the next push.
            Err(PushError::Rejected(why) | PushError::Failed(why)) => self.failed("push", &format!("{what}: {why}")),
        }
    }

    /// Pushes the branch to the remote branch, never forced.
    fn push_branch(&self, repo: &Repository) -> Result<(), PushError> {
        let head = repo
            .head()
            .ok()
            .and_then(|head| head.target())
            .ok_or_else(|| PushError::Failed("the repository has no HEAD".into()))?;
        let known = repo.refname_to_id(&self.tracking_ref()).ok();
        if known == Some(head) {
            self.record_heads(repo, Some(head));
            return Ok(());
        }
        // What the remote lacks as far as is known, should this push fail.
        self.record_heads(repo, known);
        let refspec = format!("{head}:refs/heads/{}", self.settings.branch);
        let started = Instant::now();
        let outcomes = push::push(repo, &self.settings, std::slice::from_ref(&refspec))?;
        if let Some(why) = outcomes.into_iter().find_map(|outcome| outcome.refused) {
            return Err(PushError::Rejected(format!("the remote refused the push: {why}")));
        }
        let _ = repo.reference(&self.tracking_ref(), head, true, "locstore: push");
        {
            let mut status = self.lock();
            status.pushes += 1;
            status.last_push = Some(SystemTime::now());
            self.metrics.pushes.inc();
            self.metrics.push_seconds.observe(started.elapsed().as_secs_f64());
            status.last_error = None;
        }
        self.record_heads(repo, Some(head));
        Ok(())
    }

    fn callbacks(&self) -> RemoteCallbacks<'static> {
        credentials(&self.settings)
    }
}

/// Commits reachable from `head`.
fn commit_count(repo: &Repository, head: Oid) -> usize {
    let Ok(mut walk) = repo.revwalk() else { return 0 };
    if walk.push(head).is_err() {
        return 0;
    }
    walk.count()
}
