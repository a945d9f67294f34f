//! Talking to the server: an upload of a file set and an export's download, with errors a
//! user can act on and a progress bar on a terminal when a transfer takes more than a second.

use std::io::Read;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use super::Failure;
use super::settings::{FileSet, Settings};

/// The environment variable that holds the API token.
pub const TOKEN_VARIABLE: &str = "LOCSTORE_TOKEN";
/// How long a transfer runs before it gets a progress bar.
const BAR_AFTER: Duration = Duration::from_secs(1);
/// The most a download may be (a 50-language export of a large app is about 70 MB).
const MAX_DOWNLOAD: u64 = 1 << 30;

pub struct Server {
    agent: ureq::Agent,
    base: String,
    team: String,
    project: String,
    token: String,
    /// Whether progress bars may be drawn (stderr is a terminal, and output is not JSON).
    bars: bool,
    /// The project's branch to read and write; `None`: the main line.
    pub branch: Option<super::branch::Chosen>,
}

/// What the server knows of a key (see [`Server::key_state`]).
#[derive(Debug, Clone)]
pub enum KeyState {
    /// It has the key, which lives in these files (`{"android": "plurals.xml"}`, `{}`).
    Present {
        files: Value,
    },
    Deleted,
    NeverHad,
}

/// What to send: an address below the server's base, and a body to POST (else a GET).
struct Call<'a> {
    path: String,
    body: Option<(&'a str, &'a [u8])>,
    what: &'a str,
}

impl Server {
    pub fn new(settings: &Settings, token: Option<String>, bars: bool) -> Result<Self, Failure> {
        let token = token
            .filter(|token| !token.trim().is_empty())
            .ok_or_else(|| Failure::new(format!("set {TOKEN_VARIABLE} to an API token of {}", settings.server)))?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .user_agent(concat!("locstore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Self {
            agent,
            base: settings.server.clone(),
            team: settings.team.clone(),
            project: settings.project.clone(),
            token,
            bars,
            branch: None,
        })
    }

    /// `path` with `branch=` added when a branch is chosen.
    fn on_branch(&self, path: String) -> String {
        match &self.branch {
            None => path,
            Some(branch) => {
                let joint = if path.contains('?') { '&' } else { '?' };
                format!("{path}{joint}branch={}", encode(&branch.name))
            }
        }
    }

    /// Creates the chosen branch from the main line unless the project has it; whether it
    /// was created.
    pub fn ensure_branch(&self) -> Result<bool, Failure> {
        let Some(branch) = &self.branch else { return Ok(false) };
        let path = format!(
            "/teams/{}/projects/{}/branches",
            encode(&self.team),
            encode(&self.project)
        );
        let body = serde_json::json!({ "name": branch.name }).to_string();
        match self.send(&path, Some(("application/json", body.as_bytes())))? {
            (status, _) if (200..300).contains(&status) => Ok(true),
            (409, _) => Ok(false),
            (status, body) => Err(self.refused(status, &body, "create")),
        }
    }

    /// Whether the project has the chosen branch (the main line always is).
    pub fn branch_exists(&self) -> Result<bool, Failure> {
        if self.branch.is_none() {
            return Ok(true);
        }
        let path = format!("/teams/{}/projects/{}", encode(&self.team), encode(&self.project));
        match self.send(&self.on_branch(path), None)? {
            (status, _) if (200..300).contains(&status) => Ok(true),
            (404, _) => Ok(false),
            (status, body) => Err(self.refused(status, &body, "read")),
        }
    }

    /// Uploads several file sets as one commit: `zip` holds `sets.json` and each set's files
    /// under its place (see the API's `uploadFileSets`).
    pub fn upload_sets(&self, query: &str, zip: &[u8]) -> Result<Value, Failure> {
        let path = format!(
            "/teams/{}/projects/{}/files/sets?{}",
            encode(&self.team),
            encode(&self.project),
            query.trim_start_matches('&')
        );
        let body = self.call(Call {
            path: self.on_branch(path),
            body: Some(("application/zip", zip)),
            what: "upload",
        })?;
        serde_json::from_slice(&body).map_err(|err| Failure::new(format!("the server's answer is not JSON: {err}")))
    }

    /// Exports a file set and downloads it: the files with their layout paths.
    pub fn export(&self, set: &FileSet, at: Option<&str>) -> Result<Exported, Failure> {
        let mut query = set.format.api_query();
        if let Some(namespace) = &set.namespace {
            query.push_str(&format!("&namespace={}", encode(namespace)));
        }
        if let Some(file) = &set.file {
            query.push_str(&format!("&file={}", encode(file)));
        }
        for language in &set.languages {
            query.push_str(&format!("&languages={}", encode(language)));
        }
        for tag in &set.tags {
            query.push_str(&format!("&tags={}", encode(tag)));
        }
        if let Some(at) = at {
            query.push_str(&format!("&at={}", encode(at)));
        }
        let path = format!(
            "/teams/{}/projects/{}/keys/export?{query}",
            encode(&self.team),
            encode(&self.project)
        );
        let answer = self.call(Call {
            path: self.on_branch(path),
            body: None,
            what: "export",
        })?;
        let address = serde_json::from_slice::<Value>(&answer)
            .ok()
            .and_then(|answer| answer["data"].as_str().map(str::to_owned))
            .ok_or_else(|| Failure::new("the export's answer has no download address"))?;
        // `/exports/{id}/{path}`: the path is the file's place in the layout, or the zip's name.
        let (_, rest) = address
            .split_once("/exports/")
            .ok_or_else(|| Failure::new(format!("unexpected download address {address}")))?;
        let (id, layout) = rest
            .split_once('/')
            .ok_or_else(|| Failure::new(format!("unexpected download address {address}")))?;
        let bytes = self.call(Call {
            path: format!("/exports/{id}/{layout}"),
            body: None,
            what: "download",
        })?;
        let bundle = format!("{}-{}.zip", self.project, set.format.name());
        Ok(Exported {
            single: (layout != bundle).then(|| layout.to_owned()),
            bytes,
        })
    }

    /// What the server knows of a key an app's file has and the export lacks: its `files`
    /// when it has the key, else whether its history shows one (it deleted it) or not (it
    /// never had it: a string added in the app and not pushed yet).
    pub fn key_state(&self, namespace: &str, name: &str) -> Result<KeyState, Failure> {
        let key = format!(
            "/teams/{}/projects/{}/keys/{}",
            encode(&self.team),
            encode(&self.project),
            encode(name)
        );
        let namespaced = |path: &str| match namespace {
            "" => path.to_owned(),
            namespace => format!("{path}?namespace={}", encode(namespace)),
        };
        if name == "export" {
            // `GET .../keys/export` is the export: the key is read through the query.
            if let Some(found) = self.key_named_export(namespace)? {
                return Ok(KeyState::Present {
                    files: found["files"].clone(),
                });
            }
        } else {
            match self.send(&self.on_branch(namespaced(&key)), None)? {
                (status, body) if (200..300).contains(&status) => {
                    let answer: Value = serde_json::from_slice(&body)
                        .map_err(|err| Failure::new(format!("the server's answer is not JSON: {err}")))?;
                    return Ok(KeyState::Present {
                        files: answer["data"]["files"].clone(),
                    });
                }
                (404, _) => {}
                (status, body) => return Err(self.refused(status, &body, "read")),
            }
        }
        let history = match namespace {
            "" => format!("{key}/history?limit=1"),
            namespace => format!("{key}/history?limit=1&namespace={}", encode(namespace)),
        };
        match self.send(&history, None)? {
            (status, _) if (200..300).contains(&status) => Ok(KeyState::Deleted),
            (404, _) => Ok(KeyState::NeverHad),
            (status, body) => Err(self.refused(status, &body, "read")),
        }
    }

    /// The key named `export` of `namespace`, found through the query (its own path is the
    /// export's), or `None`.
    fn key_named_export(&self, namespace: &str) -> Result<Option<Value>, Failure> {
        for page in 1.. {
            let path = format!(
                "/teams/{}/projects/{}/keys?keyword=export&limit=1000&page={page}&namespace={}",
                encode(&self.team),
                encode(&self.project),
                encode(namespace)
            );
            let keys = match self.send(&self.on_branch(path), None)? {
                (status, body) if (200..300).contains(&status) => serde_json::from_slice::<Value>(&body)
                    .map_err(|err| Failure::new(format!("the server's answer is not JSON: {err}")))?,
                (status, body) => return Err(self.refused(status, &body, "read")),
            };
            let keys = keys["data"].as_array().cloned().unwrap_or_default();
            if keys.is_empty() {
                return Ok(None);
            }
            if let Some(found) = keys.into_iter().find(|key| key["name"] == "export") {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// The project's settings (`{name, baseLanguageISO, languagesISO, ...}`), or `None`
    /// when there is no such project.
    pub fn project(&self) -> Result<Option<Value>, Failure> {
        let path = format!("/teams/{}/projects/{}", encode(&self.team), encode(&self.project));
        match self.send(&path, None)? {
            (status, body) if (200..300).contains(&status) => serde_json::from_slice::<Value>(&body)
                .map(|answer| Some(answer["data"].clone()))
                .map_err(|err| Failure::new(format!("the server's answer is not JSON: {err}"))),
            (404, _) => Ok(None),
            (status, body) => Err(self.refused(status, &body, "read")),
        }
    }

    /// Creates the project with a base language and languages.
    pub fn create_project(&self, base_language: &str, languages: &[String]) -> Result<(), Failure> {
        let body = serde_json::json!({
            "name": self.project,
            "displayName": self.project,
            "baseLanguageISO": base_language,
            "languagesISO": languages,
        })
        .to_string();
        let path = format!("/teams/{}/projects", encode(&self.team));
        match self.send(&path, Some(("application/json", body.as_bytes())))? {
            (status, _) if (200..300).contains(&status) => Ok(()),
            (status, body) => Err(self.refused(status, &body, "create")),
        }
    }

    /// A small request whose status the caller looks at: (status, body).
    fn send(&self, path: &str, body: Option<(&str, &[u8])>) -> Result<(u16, Vec<u8>), Failure> {
        let url = format!("{}{path}", self.base);
        let result = match body {
            Some((content_type, body)) => self
                .agent
                .post(&url)
                .header("X-Api-Token", &self.token)
                .header("Content-Type", content_type)
                .send(body),
            None => self.agent.get(&url).header("X-Api-Token", &self.token).call(),
        };
        let mut response = result.map_err(|err| self.unreachable(err))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .read_to_vec()
            .map_err(|err| Failure::new(format!("the answer from {} broke off: {err}", self.base)))?;
        Ok((status, body))
    }

    fn call(&self, call: Call<'_>) -> Result<Vec<u8>, Failure> {
        let url = format!("{}{}", self.base, call.path);
        let result = match call.body {
            Some((content_type, body)) => {
                let bar = Bar::new(self.bars, body.len() as u64, call.what);
                let mut reader = bar.wrap(body);
                self.agent
                    .post(&url)
                    .header("X-Api-Token", &self.token)
                    .header("Content-Type", content_type)
                    .header("Content-Length", body.len().to_string())
                    .send(ureq::SendBody::from_reader(&mut reader))
            }
            None => self.agent.get(&url).header("X-Api-Token", &self.token).call(),
        };
        let mut response = result.map_err(|err| self.unreachable(err))?;
        let status = response.status().as_u16();
        let length = response
            .headers()
            .get("content-length")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse().ok())
            .unwrap_or(0);
        let bar = Bar::new(self.bars && call.what == "download", length, call.what);
        let mut body = Vec::new();
        bar.wrap(response.body_mut().as_reader().take(MAX_DOWNLOAD))
            .read_to_end(&mut body)
            .map_err(|err| Failure::new(format!("the {} from {} broke off: {err}", call.what, self.base)))?;
        if (200..300).contains(&status) {
            return Ok(body);
        }
        Err(self.refused(status, &body, call.what))
    }

    fn unreachable(&self, err: ureq::Error) -> Failure {
        Failure::new(format!("cannot reach {}: {err}", self.base))
    }

    /// An error answer, in words that say what to do.
    fn refused(&self, status: u16, body: &[u8], what: &str) -> Failure {
        let message = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|answer| answer["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
        let project = format!("{}/{}", self.team, self.project);
        Failure::new(match status {
            401 => format!("{} refused the token in {TOKEN_VARIABLE} (401): {message}", self.base),
            403 => format!(
                "the token in {TOKEN_VARIABLE} may not {} {project} (403): {message}",
                if what == "upload" { "write to" } else { "read" }
            ),
            // The server's message names what is missing: the project (or a team the token
            // cannot see), or the state `--at` asked for.
            404 => format!("not found on {} (404): {message}", self.base),
            _ => format!("the {what} failed ({status}): {message}"),
        })
    }
}

/// A progress bar that appears only when the transfer is still running after a second.
struct Bar {
    bar: ProgressBar,
    started: Instant,
    enabled: bool,
}

impl Bar {
    fn new(enabled: bool, length: u64, what: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{msg:>8} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.set_message(what.to_owned());
        Self {
            bar,
            started: Instant::now(),
            enabled,
        }
    }

    fn wrap<R: Read>(self, inner: R) -> BarReader<R> {
        BarReader {
            inner,
            bar: self,
            shown: false,
        }
    }
}

struct BarReader<R> {
    inner: R,
    bar: Bar,
    shown: bool,
}

impl<R: Read> Read for BarReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        if self.bar.enabled && !self.shown && self.bar.started.elapsed() >= BAR_AFTER {
            self.bar.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.bar.inc(read as u64);
        if read == 0 && self.shown {
            self.bar.bar.finish_and_clear();
        }
        Ok(read)
    }
}

/// An export as downloaded: one file, or a zip whose entries are read one at a time, so that
/// a pull holds the compressed archive and the few files it works on, not every file at once.
pub struct Exported {
    bytes: Vec<u8>,
    /// The file's layout path when the export is a single file.
    single: Option<String>,
}

/// A file of an export: its layout path, and the CRC-32 and size the zip records for it (so
/// an unchanged file is recognised without unpacking it).
#[derive(Debug, Clone)]
pub struct ExportedEntry {
    pub layout: String,
    pub crc32: u32,
    pub size: u64,
    index: usize,
}

impl Exported {
    pub fn entries(&self) -> Result<Vec<ExportedEntry>, Failure> {
        if let Some(layout) = &self.single {
            return Ok(vec![ExportedEntry {
                layout: layout.clone(),
                crc32: crc32fast::hash(&self.bytes),
                size: self.bytes.len() as u64,
                index: 0,
            }]);
        }
        let mut archive = self.archive()?;
        let mut entries = Vec::with_capacity(archive.len());
        for index in 0..archive.len() {
            let file = archive.by_index_raw(index).map_err(broken_zip)?;
            if file.is_dir() {
                continue;
            }
            entries.push(ExportedEntry {
                layout: file.name().to_owned(),
                crc32: file.crc32(),
                size: file.size(),
                index,
            });
        }
        Ok(entries)
    }

    /// The bytes of one file of the export.
    pub fn read(&self, entry: &ExportedEntry) -> Result<Vec<u8>, Failure> {
        if self.single.is_some() {
            return Ok(self.bytes.clone());
        }
        let mut archive = self.archive()?;
        let mut file = archive.by_index(entry.index).map_err(broken_zip)?;
        let mut contents = Vec::with_capacity(entry.size.min(1 << 30) as usize);
        file.read_to_end(&mut contents)
            .map_err(|err| Failure::new(format!("the downloaded zip is broken: {err}")))?;
        Ok(contents)
    }

    fn archive(&self) -> Result<zip::ZipArchive<std::io::Cursor<&[u8]>>, Failure> {
        zip::ZipArchive::new(std::io::Cursor::new(self.bytes.as_slice())).map_err(broken_zip)
    }
}

fn broken_zip(err: zip::result::ZipError) -> Failure {
    Failure::new(format!("the downloaded zip is broken: {err}"))
}

/// Percent-encodes a path segment or query value.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}
