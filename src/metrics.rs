//! Prometheus metrics: requests by route and status, request latency, commits and commit
//! latency, the writer's queue, keys per project, the repository's size, replication and
//! webhook deliveries.
//!
//! Route labels are templates (`/teams/{teamName}/projects`), never raw paths, so that the
//! number of series stays small whatever names clients use.

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

/// Every metric of the process, in one registry.
pub struct Metrics {
    registry: Registry,
    pub requests: IntCounterVec,
    pub request_seconds: HistogramVec,
    pub commits: IntCounter,
    pub commit_seconds: Histogram,
    pub queue_depth: IntGauge,
    pub keys: IntGaugeVec,
    pub repository_bytes: IntGauge,
    pub pushes: IntCounter,
    pub push_failures: IntCounter,
    pub pulls: IntCounter,
    pub pull_failures: IntCounter,
    pub lag_commits: IntGauge,
    pub lag_seconds: prometheus::Gauge,
    pub join_seconds: Histogram,
    pub push_seconds: Histogram,
    pub fetch_seconds: Histogram,
    pub key_files_read: IntCounter,
    pub kept_files_exported: IntCounterVec,
    kept_cache_files: IntGauge,
    kept_cache_bytes: IntGauge,
    pub webhook_deliveries: IntCounterVec,
    pub webhook_failures: IntCounterVec,
    pub webhook_backlog: IntGaugeVec,
    pub webhook_oldest_seconds: prometheus::GaugeVec,
    pub webhook_delivery_seconds: Histogram,
}

const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

impl Metrics {
    pub fn new() -> Self {
        let registry = Registry::new_custom(Some("locstore".into()), None).expect("a valid prefix");
        let requests = IntCounterVec::new(
            Opts::new(
                "http_requests_total",
                "HTTP requests answered, by route template, method and status.",
            ),
            &["route", "method", "status"],
        )
        .expect("valid metric");
        let request_seconds = HistogramVec::new(
            HistogramOpts::new(
                "http_request_duration_seconds",
                "Time to answer HTTP requests, by route template and method.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["route", "method"],
        )
        .expect("valid metric");
        let commits = IntCounter::new("commits_total", "Commits made, one per change.").expect("valid metric");
        let commit_seconds = Histogram::with_opts(
            HistogramOpts::new("commit_duration_seconds", "Time to apply and commit one change.")
                .buckets(LATENCY_BUCKETS.to_vec()),
        )
        .expect("valid metric");
        let queue_depth =
            IntGauge::new("writer_queue_depth", "Changes and loads waiting for the writer.").expect("valid metric");
        let keys = IntGaugeVec::new(Opts::new("keys", "Keys per loaded project."), &["team", "project"])
            .expect("valid metric");
        let repository_bytes = IntGauge::new("repository_bytes", "Size of the git directory of the data repository.")
            .expect("valid metric");
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid metric");
        let pushes = counter("remote_pushes_total", "Pushes the remote took.");
        let push_failures = counter("remote_push_failures_total", "Pushes that failed or were refused.");
        let pulls = counter("remote_pulls_total", "Fetches from the remote.");
        let pull_failures = counter(
            "remote_pull_failures_total",
            "Fetches that failed, and fetched commits refused as invalid.",
        );
        let lag_commits =
            IntGauge::new("remote_lag_commits", "Commits of the branch the remote lacks.").expect("valid metric");
        let lag_seconds = prometheus::Gauge::new(
            "remote_lag_seconds",
            "How long the oldest commit the remote lacks has waited.",
        )
        .expect("valid metric");
        let join_seconds = Histogram::with_opts(
            HistogramOpts::new(
                "remote_join_duration_seconds",
                "Time to check and take in fetched commits (or commits made by hand): validation, merge, working tree and catalog.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
        )
        .expect("valid metric");
        let histogram = |name: &str, help: &str| {
            Histogram::with_opts(HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec()))
                .expect("valid metric")
        };
        let push_seconds = histogram(
            "remote_push_duration_seconds",
            "Time of a push that succeeded: connecting, building and sending the pack, the remote's answer.",
        );
        let fetch_seconds = histogram(
            "remote_fetch_duration_seconds",
            "Time of a fetch that succeeded, until its objects are in the repository (the join is apart).",
        );
        let key_files_read = counter(
            "key_files_read_total",
            "Key files read to load projects' keys: all of a project's, or with a saved index only those changed since.",
        );
        let kept_files_exported = IntCounterVec::new(
            Opts::new(
                "kept_files_exported_total",
                "App files an upload kept, given by exports: `as_kept` (no key changed since), `changed_keys` (patched with the keys changed since), `whole_export` (patched with the whole export).",
            ),
            &["how"],
        )
        .expect("valid metric");
        let kept_cache_files = IntGauge::new(
            "kept_cache_files",
            "App files an upload kept that are held in memory between exports (--kept-cache-bytes).",
        )
        .expect("valid metric");
        let kept_cache_bytes = IntGauge::new(
            "kept_cache_bytes",
            "What those files cost the cache, about: their bytes, three times for a file read ahead for patching.",
        )
        .expect("valid metric");
        let per_webhook =
            |name: &str, help: &str| IntCounterVec::new(Opts::new(name, help), &["webhook"]).expect("valid metric");
        let webhook_deliveries = per_webhook(
            "webhook_deliveries_total",
            "Commits delivered to a webhook's receiver and acknowledged with a 2xx.",
        );
        let webhook_failures = per_webhook(
            "webhook_delivery_failures_total",
            "Delivery attempts that failed: an answer other than 2xx, or none within 10 s.",
        );
        let webhook_backlog = IntGaugeVec::new(
            Opts::new(
                "webhook_backlog_commits",
                "Commits of the branch a webhook has not yet dealt with.",
            ),
            &["webhook"],
        )
        .expect("valid metric");
        let webhook_oldest_seconds = prometheus::GaugeVec::new(
            Opts::new(
                "webhook_oldest_undelivered_seconds",
                "Age of the oldest commit a webhook has not yet delivered (0 when none waits).",
            ),
            &["webhook"],
        )
        .expect("valid metric");
        let webhook_delivery_seconds = histogram(
            "webhook_delivery_duration_seconds",
            "Time of one delivery attempt, from sending to the receiver's answer.",
        );
        for collector in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(request_seconds.clone()),
            Box::new(commits.clone()),
            Box::new(commit_seconds.clone()),
            Box::new(queue_depth.clone()),
            Box::new(keys.clone()),
            Box::new(repository_bytes.clone()),
            Box::new(pushes.clone()),
            Box::new(push_failures.clone()),
            Box::new(pulls.clone()),
            Box::new(pull_failures.clone()),
            Box::new(lag_commits.clone()),
            Box::new(lag_seconds.clone()),
            Box::new(join_seconds.clone()),
            Box::new(push_seconds.clone()),
            Box::new(fetch_seconds.clone()),
            Box::new(key_files_read.clone()),
            Box::new(kept_files_exported.clone()),
            Box::new(kept_cache_files.clone()),
            Box::new(kept_cache_bytes.clone()),
            Box::new(webhook_deliveries.clone()),
            Box::new(webhook_failures.clone()),
            Box::new(webhook_backlog.clone()),
            Box::new(webhook_oldest_seconds.clone()),
            Box::new(webhook_delivery_seconds.clone()),
            Box::new(prometheus::process_collector::ProcessCollector::for_self()),
        ] {
            registry.register(collector).expect("metric names are unique");
        }
        Self {
            registry,
            requests,
            request_seconds,
            commits,
            commit_seconds,
            queue_depth,
            keys,
            repository_bytes,
            pushes,
            push_failures,
            pulls,
            pull_failures,
            lag_commits,
            lag_seconds,
            join_seconds,
            push_seconds,
            fetch_seconds,
            key_files_read,
            kept_files_exported,
            kept_cache_files,
            kept_cache_bytes,
            webhook_deliveries,
            webhook_failures,
            webhook_backlog,
            webhook_oldest_seconds,
            webhook_delivery_seconds,
        }
    }

    /// What the kept-file cache holds: its files and their cost in bytes
    /// (`formats::kept::Cache::usage`).
    pub fn kept_cache(&self, (files, cost): (usize, usize)) {
        self.kept_cache_files.set(files as i64);
        self.kept_cache_bytes.set(cost as i64);
    }

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        let mut buffer = Vec::new();
        // Encoding gathered metric families into memory does not fail.
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buffer)
            .expect("text encoding");
        String::from_utf8(buffer).expect("the text format is UTF-8")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
