//! Wiring: the store, the download folder, the OpenAPI service, `/healthz`, `/docs`,
//! `/openapi.*`, `/exports`, the body limit, JSON for every error, request ids and logs, the
//! listener, the "listening" line, and shutdown.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use poem::http::{HeaderValue, StatusCode};
use poem::listener::{Acceptor, Listener, TcpListener};
use poem::web::{Data, Path};
use poem::{Endpoint, EndpointExt, IntoResponse, Request, Response, Route, Server, get, handler};

use crate::api::error::{BodyLimits, render_poem_error};
use crate::api::{self, AppState};
use crate::config::{Config, Limits};
use crate::formats::downloads::{Clock, Downloads, content_type};
use crate::history::History;
use crate::metrics::Metrics;
use crate::routes::Routes;
use crate::store::{self, Store};
use crate::tokens::TokenRegistry;

/// The parts of a running locstore, ready to serve.
pub struct App {
    pub state: Arc<AppState>,
    pub metrics: Arc<Metrics>,
    pub tokens: Arc<TokenRegistry>,
    pub limits: Limits,
}

impl App {
    /// Opens the store and the exports folder. Blocking (it opens the git repository).
    pub fn open(config: &Config, clock: Clock) -> anyhow::Result<Self> {
        let metrics = Arc::new(Metrics::new());
        let read_only = config.remote.as_ref().is_some_and(|remote| remote.replica);
        if let Some(remote) = config.remote.as_ref().filter(|remote| remote.replica) {
            crate::sync::clone_if_missing(&config.repo_dir, remote);
        }
        let store = Store::open(&config.repo_dir, config.durability, metrics.clone())
            .map_err(|err| anyhow::anyhow!(api::error::error_chain(&err)))
            .with_context(|| format!("cannot open the repository {}", config.repo_dir.display()))?;
        // The history and the replicator follow the store: the writer tells them of each
        // publication through a function, and they read and join through its public API.
        let history = History::start(store.clone());
        let remote = config.remote.clone().map(|settings| {
            let remote = crate::sync::Remote::start(
                store.root(),
                settings,
                (store.adopter(), store.branch_follower()),
                metrics.clone(),
            );
            let follower = remote.clone();
            store.listen(Box::new(move |published| {
                if published != store::Published::Nothing {
                    follower.published();
                }
            }));
            remote
        });
        let webhooks =
            crate::webhooks::Webhooks::start(&config.data_dir, &store, metrics.clone(), config.webhook_failing_after)
                .context("cannot start the webhooks")?;
        let downloads = Downloads::new(config.exports_dir.clone(), config.export_ttl, clock)
            .with_context(|| format!("cannot create the exports folder {}", config.exports_dir.display()))?;
        let tokens = Arc::new(TokenRegistry::new(config.api_token.as_deref(), &config.token_files));
        let state = Arc::new(AppState {
            store,
            history,
            remote,
            webhooks,
            downloads,
            public_url: config.public_url.clone(),
            max_unpacked_bytes: config.limits.max_import_bytes,
            hook_secret: config.hook_secret.clone(),
            read_only,
            primary_url: config.primary_url.clone(),
            metrics: metrics.clone(),
            kept_cache: Arc::new(crate::formats::kept::Cache::new(config.kept_cache_bytes)),
            pages: api::pages::Pages::default(),
        });
        Ok(Self {
            state,
            metrics,
            tokens,
            limits: config.limits,
        })
    }

    /// The whole HTTP application.
    pub fn endpoint(&self) -> impl Endpoint<Output = Response> + 'static {
        let service = api::service(self.state.clone());
        let limits = self.limits;
        let spec: serde_json::Value = serde_json::from_str(&service.spec()).unwrap_or_default();
        let routes = Arc::new(Routes::new(&spec, OTHER_ROUTES));
        let metrics = self.metrics.clone();
        let app = Route::new()
            .at("/healthz", get(healthz))
            .at("/metrics", get(metrics_endpoint))
            .at("/openapi.json", service.spec_endpoint())
            .at("/openapi.yaml", service.spec_endpoint_yaml())
            .nest("/docs", service.swagger_ui())
            .at("/exports/:id/*path", get(download))
            .nest("/", service)
            .around(move |endpoint, request| async move { read_body(endpoint, request, limits).await })
            .around(|endpoint, request| async move { refuse_changes_on_a_replica(endpoint, request).await })
            .data(self.tokens.clone())
            .data(self.state.downloads.clone())
            .data(self.state.clone())
            .data(self.metrics.clone());
        // The hottest read is answered before the router and the layers it does not need,
        // inside the request's log line, metrics and commit header like every other answer.
        api::fast::FastReads::new(app, self.state.clone(), self.tokens.clone()).around(move |endpoint, request| {
            let routes = routes.clone();
            let metrics = metrics.clone();
            async move { observe(endpoint, request, limits, &routes, &metrics).await }
        })
    }

    /// Deletes expired exports now and then, for as long as the server runs.
    pub fn spawn_export_sweeper(&self) -> tokio::task::JoinHandle<()> {
        let downloads = self.state.downloads.clone();
        let period = downloads.ttl().min(Duration::from_secs(60));
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            loop {
                ticks.tick().await;
                let downloads = downloads.clone();
                match tokio::task::spawn_blocking(move || downloads.sweep()).await {
                    Ok(0) => {}
                    Ok(removed) => tracing::info!(removed, "deleted expired exports"),
                    Err(err) => tracing::error!(error = %err, "the export sweeper failed"),
                }
            }
        })
    }
}

/// Runs `locstore serve` until SIGTERM or Ctrl-C; the change in flight is finished first.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let app = {
        let config = config.clone();
        tokio::task::spawn_blocking(move || App::open(&config, Clock::system()))
            .await
            .context("start-up panicked")??
    };
    if app.tokens.is_empty() {
        let file = config.data_dir.join(crate::config::TOKENS_FILE);
        let token = crate::tokens::create_token(&file, "admin", crate::tokens::Access::Admin, &[])
            .context("cannot create the first admin token")?;
        println!("locstore created an admin token; it is shown only this once, so keep it: {token}");
        tracing::info!(file = %file.display(), "recorded the first admin token's hash");
    }
    let acceptor = TcpListener::bind(config.listen)
        .into_acceptor()
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let address = acceptor
        .local_addr()
        .into_iter()
        .find_map(|address| address.as_socket_addr().copied())
        .context("the listener has no address")?;
    // The signal handlers are in place before the line that tells callers we are ready, so a
    // SIGTERM sent right after it still stops the server gracefully.
    let shutdown = shutdown_signal()?;
    println!("locstore listening on http://{address}");
    tracing::info!(%address, repo = %config.repo_dir.display(), exports = %config.exports_dir.display(), "listening");

    let sweeper = app.spawn_export_sweeper();
    let acceptor = crate::deadline::HeaderDeadlineAcceptor::new(acceptor, config.limits.request_timeout);
    let result = Server::new_with_acceptor(acceptor)
        .idle_timeout(config.limits.request_timeout)
        .run_with_graceful_shutdown(app.endpoint(), shutdown, Some(Duration::from_secs(30)))
        .await;
    sweeper.abort();
    let webhooks = app.state.webhooks.clone();
    let _ = tokio::task::spawn_blocking(move || webhooks.stop()).await;
    app.state.store.shutdown().await;
    tracing::info!("stopped");
    result.context("the server failed")
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT). The handlers are installed when this is called.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => {},
            _ = interrupt.recv() => {},
        }
        tracing::info!("shutting down: finishing requests in flight");
    })
}

/// Routes served outside the OpenAPI document.
const OTHER_ROUTES: &[(&str, &[&str])] = &[
    ("/healthz", &["GET"]),
    ("/metrics", &["GET"]),
    ("/openapi.json", &["GET"]),
    ("/openapi.yaml", &["GET"]),
    ("/docs", &["GET"]),
    ("/exports/{id}/{path}", &["GET"]),
];

/// Per request: a request id (taken from `X-Request-Id` or made), JSON for every error, and
/// one log line with method, path, status, duration and id. Tokens are never logged.
async fn observe<E: Endpoint>(
    endpoint: Arc<E>,
    request: Request,
    limits: Limits,
    routes: &Routes,
    metrics: &Metrics,
) -> poem::Result<Response> {
    let started = Instant::now();
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty() && value.len() <= 128 && value.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(new_request_id);
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let (result, record) = store::seen::scope(endpoint.call(request)).await;
    let mut response = match result {
        Ok(response) => response.into_response(),
        Err(err) => render_poem_error(
            err,
            &method,
            &path,
            &BodyLimits {
                max_body_bytes: limits.max_body_bytes,
                max_import_bytes: limits.max_import_bytes,
                request_timeout: limits.request_timeout,
            },
        ),
    };
    // The commit the answer came from: the one a change made, or the HEAD a read saw.
    if let Some(commit) = record.commit()
        && let Ok(value) = HeaderValue::from_str(commit)
    {
        response.headers_mut().insert("x-locstore-commit", value);
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", value);
    }
    // A route's methods, unless the answer set its own (a read replica allows reads only).
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && !response.headers().contains_key(poem::http::header::ALLOW)
        && let Some(allow) = routes
            .allowed_methods(&path)
            .and_then(|allow| HeaderValue::from_str(&allow).ok())
    {
        response.headers_mut().insert(poem::http::header::ALLOW, allow);
    }
    let status = response.status().as_u16();
    let route = routes.template(&path).unwrap_or("unknown");
    let elapsed = started.elapsed().as_secs_f64();
    metrics
        .requests
        .with_label_values(&[route, method.as_str(), &status.to_string()])
        .inc();
    metrics
        .request_seconds
        .with_label_values(&[route, method.as_str()])
        .observe(elapsed);
    tracing::info!(
        target: "locstore::request",
        method = %method,
        route,
        path = %path,
        status,
        duration_ms = started.elapsed().as_secs_f64() * 1000.0,
        request_id = %request_id,
        "request"
    );
    Ok(response)
}

/// Reads the whole body before the handler runs: over the size limit is 413 (at once when
/// `Content-Length` says so), slower than the request timeout is 408. So a slow or huge upload
/// ties up only its own connection, never the writer or a handler.
async fn read_body<E: Endpoint>(endpoint: Arc<E>, mut request: Request, limits: Limits) -> poem::Result<Response> {
    let too_large = || poem::Error::from_status(StatusCode::PAYLOAD_TOO_LARGE);
    // Bulk imports and file uploads (`locstore push` sends `.../files/sets`) carry whole
    // catalogs: they have a limit of their own.
    let path = request.uri().path();
    let is_import = request.method() == poem::http::Method::POST
        && ["/keys/import", "/files", "/files/sets"]
            .iter()
            .any(|end| path.ends_with(end));
    let max_bytes = if is_import {
        limits.max_import_bytes
    } else {
        limits.max_body_bytes
    };
    let declared = request
        .headers()
        .get(poem::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max_bytes as u64) {
        return Err(too_large());
    }
    let reading = request.take_body().into_bytes_limit(max_bytes);
    let body = match tokio::time::timeout(limits.request_timeout, reading).await {
        Ok(Ok(body)) => body,
        Ok(Err(poem::error::ReadBodyError::PayloadTooLarge)) => return Err(too_large()),
        Ok(Err(other)) => return Err(other.into()),
        Err(_elapsed) => return Err(poem::Error::from_status(StatusCode::REQUEST_TIMEOUT)),
    };
    request.set_body(body);
    endpoint.call(request).await.map(IntoResponse::into_response)
}

/// A request id: 16 hex digits, unique within the process and unlike those of an earlier run.
/// A counter started at a random point, put through a bijective mix (SplitMix64's finaliser),
/// so no request pays for a system call to the random source.
fn new_request_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: std::sync::OnceLock<AtomicU64> = std::sync::OnceLock::new();
    let next = NEXT.get_or_init(|| {
        let mut seed = [0u8; 8];
        let _ = getrandom::fill(&mut seed);
        AtomicU64::new(u64::from_le_bytes(seed))
    });
    let mut id = next.fetch_add(1, Ordering::Relaxed);
    id = (id ^ (id >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    id = (id ^ (id >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    id ^= id >> 31;
    format!("{id:016x}")
}

/// On a read replica, every change (any method but GET, HEAD and OPTIONS; the git hook
/// excepted) gets 405 `read_only`, naming the primary, before anything reads its body.
async fn refuse_changes_on_a_replica<E: Endpoint>(endpoint: Arc<E>, request: Request) -> poem::Result<Response> {
    let replica = request
        .data::<Arc<AppState>>()
        .filter(|state| state.read_only)
        .map(|state| state.primary_url.clone());
    let changes = !matches!(
        *request.method(),
        poem::http::Method::GET | poem::http::Method::HEAD | poem::http::Method::OPTIONS
    ) && request.uri().path() != "/hooks/git";
    if let (Some(primary), true) = (replica, changes) {
        let mut response = api::error::ApiError::read_only(primary.as_deref()).into_response();
        response
            .headers_mut()
            .insert(poem::http::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Ok(response);
    }
    endpoint.call(request).await.map(IntoResponse::into_response)
}

/// `GET /healthz`: `{"status": "ok"}`, and with a git remote set the state of replication
/// (as `GET /sync` has it, without the counters); no token needed.
#[handler]
fn healthz(state: Data<&Arc<AppState>>) -> poem::web::Json<serde_json::Value> {
    use poem_openapi::types::ToJSON;

    let store = &state.store;
    let mut body = serde_json::json!({ "status": "ok" });
    let Some(status) = state.remote.as_ref().map(crate::sync::Remote::status) else {
        return poem::web::Json(body);
    };
    let sync = api::sync::SyncState::new(Some(status), store.head());
    if let (Some(fields), Some(sync)) = (body.as_object_mut(), sync.to_json()) {
        for name in [
            "remote",
            "branch",
            "head",
            "remoteHead",
            "ahead",
            "behind",
            "lastPush",
            "lastPull",
            "lastError",
        ] {
            fields.insert(name.to_owned(), sync.get(name).cloned().unwrap_or_default());
        }
    }
    poem::web::Json(body)
}

/// `GET /metrics`: Prometheus' text format, no token needed.
#[handler]
async fn metrics_endpoint(state: Data<&Arc<AppState>>, metrics: Data<&Arc<Metrics>>) -> poem::Result<Response> {
    state.store.record_key_counts();
    if let Some(remote) = &state.remote {
        remote.record_lag(&metrics);
    }
    let git_dir = state.store.root().join(".git");
    let bytes = tokio::task::spawn_blocking(move || directory_size(&git_dir))
        .await
        .map_err(|err| poem::Error::new(err, StatusCode::INTERNAL_SERVER_ERROR))?;
    metrics.repository_bytes.set(bytes as i64);
    Ok(Response::builder()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render()))
}

/// Bytes of the files under `dir`.
fn directory_size(dir: &std::path::Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|entry| entry.metadata().ok())
        .filter(|metadata| metadata.is_file())
        .map(|metadata| metadata.len())
        .sum()
}

/// `GET /exports/{id}/{path}`: an export's file, no token needed; 404 once expired. A file
/// kept gzip-compressed (a String Catalog) goes as it is, with `Content-Encoding: gzip`, to a
/// client that accepts gzip, and is decompressed as it is sent to one that does not.
#[handler]
async fn download(
    Path((id, path)): Path<(String, String)>,
    downloads: Data<&Downloads>,
    headers: &poem::http::HeaderMap,
) -> poem::Result<Response> {
    let downloads = downloads.0.clone();
    let file_path = path.clone();
    let accepts_gzip = headers
        .get_all(poem::http::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(accepts_gzip);
    let opened = tokio::task::spawn_blocking(move || {
        downloads.find(&id, &file_path).map(|(file, gzipped)| {
            let mut file = std::fs::File::open(file)?;
            let length = if gzipped && !accepts_gzip {
                crate::formats::gzip::text_length(&mut file)?
            } else {
                file.metadata()?.len()
            };
            Ok::<_, std::io::Error>((file, gzipped, length))
        })
    })
    .await
    .map_err(|err| poem::Error::new(err, StatusCode::INTERNAL_SERVER_ERROR))?;
    let (file, gzipped, length) = match opened {
        Some(Ok(opened)) => opened,
        Some(Err(err)) => return Err(poem::Error::new(err, StatusCode::INTERNAL_SERVER_ERROR)),
        None => return Err(poem::Error::from_status(StatusCode::NOT_FOUND)),
    };
    // Sent as it is read (an export can be tens of MB), with its length known up front.
    let body = if gzipped && !accepts_gzip {
        poem::Body::from_async_read(gunzipped(file))
    } else {
        poem::Body::from_async_read(tokio::io::BufReader::with_capacity(
            1 << 16,
            tokio::fs::File::from_std(file),
        ))
    };
    let file_name = path.rsplit('/').next().unwrap_or("export");
    let mut response = Response::builder()
        .content_type(content_type(&path))
        .header("content-disposition", format!("attachment; filename=\"{file_name}\""))
        .header("cache-control", "private, max-age=0")
        .header("content-length", length);
    if gzipped {
        response = response.header("vary", "accept-encoding");
        if accepts_gzip {
            response = response.header("content-encoding", "gzip");
        }
    }
    Ok(response.body(body))
}

/// Whether an `Accept-Encoding` value takes gzip: `gzip` (or `x-gzip`, or `*`) without `q=0`.
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let refused = parts.any(|parameter| {
            parameter
                .strip_prefix("q=")
                .and_then(|quality| quality.parse::<f32>().ok())
                .is_some_and(|quality| quality <= 0.0)
        });
        ["gzip", "x-gzip", "*"]
            .iter()
            .any(|taken| name.eq_ignore_ascii_case(taken))
            && !refused
    })
}

/// The text of a gzip file, decompressed on a blocking thread as the reader takes it.
fn gunzipped(file: std::fs::File) -> tokio::io::DuplexStream {
    let (mut sending, receiving) = tokio::io::duplex(1 << 16);
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        use std::io::Read;
        use tokio::io::AsyncWriteExt;
        let mut text = flate2::read::GzDecoder::new(std::io::BufReader::with_capacity(1 << 16, file));
        let mut buffer = vec![0; 1 << 16];
        loop {
            let read = match text.read(&mut buffer) {
                Ok(0) => return,
                Ok(read) => read,
                Err(err) => {
                    // The client sees the body end early, short of its Content-Length.
                    tracing::error!(error = %err, "cannot read a compressed export");
                    return;
                }
            };
            if runtime.block_on(sending.write_all(&buffer[..read])).is_err() {
                // The client went away.
                return;
            }
        }
    });
    receiving
}
