//! locstore: localization text kept as TOML files in a git repository, one commit per change,
//! edited over a REST API and exported as the files apps load.
//!
//! # Code map
//!
//! - `main.rs`: the command line (`serve`, `token create`); no logic.
//! - [`config`]: flags, `LOCSTORE_*` variables, `locstore.toml`, defaults → one [`config::Config`].
//! - [`tokens`]: token records (hashes only), verification, `token create`.
//! - [`deadline`]: the header deadline on accepted connections.
//! - [`app`]: wiring of store, exports, OpenAPI service, `/healthz`, `/docs`, `/exports`,
//!   error rendering, request logs, listener and shutdown.
//! - [`api`]: poem-openapi handlers, wire types ([`api::schema`]), answers written straight
//!   from the store's data ([`api::json`]), the API error, auth.
//! - [`domain`]: validated names (a key's identity is its namespace and its name, kept in
//!   one string so that keys order by namespace, then name), the model (a key's files, a translation's text and the base
//!   text it was written against), placeholder syntaxes read into one normal form
//!   (`domain/placeholders.rs`), the pure key query, the quality checks (`domain/checks`).
//! - [`gitdb`]: the git engine below the store: repository open and init, object staging and
//!   commit, packs written by hand (`gitdb/pack_writer.rs`, `gitdb/delta.rs`) and joined
//!   four into one (`gitdb/join.rs`), maintenance,
//!   the git CLI, working-tree sync, tree differences, a handle that follows the writer's new
//!   packs and reads the objects it hands over from memory (`gitdb/follow.rs`,
//!   `gitdb/fresh.rs`), libgit2's process-wide settings (`gitdb/settings.rs`), the owner
//!   lock. Paths and bytes only.
//! - [`store`]: teams, projects and keys on the engine: one writer thread (`store/worker`),
//!   in-memory catalog, file layout and format, planning changes as values (`store/plan`: a
//!   shared vocabulary and one planner per kind of change, none importing another), joins of
//!   commits that arrive from outside (`store/adopt.rs`), snapshot tags written, and a project
//!   or key as a past commit holds it (`store/at_commit.rs`), completeness and quality reads
//!   (`store/quality.rs`) from per-entry summaries the catalog keeps (`catalog/summaries.rs`),
//!   a project's branches (`store/branches.rs`: refs beside the main line, changes committed
//!   on them without the working tree, merges planned key by key in `store/plan/merge.rs`),
//!   and the app's files kept beside a project's keys (`store/kept.rs`; an import carries the
//!   function that decides them, [`store::Beside`], so the store reads no format). The writer
//!   knows those who follow it only as functions it calls on publishing
//!   ([`store::Store::listen`]).
//! - [`history`]: beside the store and on its public API: `at=` references resolved, reads of
//!   the past (cached), snapshots listed and restored, changes between two states, the index of
//!   the first-parent history (caught up on a thread of its own when the writer publishes), a
//!   key's history and a project's activity, and the keys changed since each kept file was
//!   kept (what an export patches it with).
//! - [`sync`]: replication through a git remote (pushes, pulls, replicas), beside the store
//!   and on its public API: it joins fetched commits through [`store::Store::adopter`] and
//!   pushes when the writer tells it of a publication; `app` wires the two.
//! - [`webhooks`]: a team's receivers of its commits, beside the store and on its public API:
//!   settings and secrets (`webhooks.toml`), a delivery thread per webhook with its cursor on
//!   disk, Standard Webhooks signatures; commits are read as events through
//!   [`history::events`] (one shared repository handle), and the writer nudges the threads
//!   through [`store::Store::listen`].
//! - [`metrics`]: the Prometheus registry and its metrics.
//! - [`routes`]: route templates of request paths, for logs, metrics and `Allow`.
//! - [`formats`]: each file format's reader beside its writer (JSON, CSV, Android XML, Apple
//!   strings and stringsdict, ICU plurals, Xcode String Catalogs, i18next, gettext PO, Flutter
//!   ARB, XLIFF 1.2 and 2.0, Rails YAML), placeholders converted from each key's syntax
//!   into the format's before the writers run ([`formats::placeholders`]), the
//!   in-place patchers `locstore pull` uses ([`formats::patch`]), the app's own files an
//!   upload keeps and the export patches with them, or with the keys changed since only
//!   ([`formats::kept`]; held in memory between exports, read ahead for patching:
//!   `formats/kept/cache.rs`, [`formats::patch::Prepared`]), the names keys of other
//!   namespaces are written under in formats without namespaces ([`formats::namespaces`]),
//!   zip in and out, downloads.
//!
//! # Invariants
//!
//! - `domain` and the format readers, writers and patchers do no I/O.
//! - `gitdb` imports nothing from `store`, `domain` or `api`, and names no team, project or
//!   key type (a unit test, `gitdb::tests`, reads its source to check).
//! - No two modules import each other, and no room imports a room above it in this map
//!   (`house.rs`'s tests read the crate's `use` paths to check).
//! - Only `gitdb`, `store`, `history` and `sync` use git2 (and `config`, to check a branch
//!   name; `webhooks` names commits as `git2::Oid` and reads them through
//!   `history::events::Feed`). Only the writer thread changes the branch and the working tree; other threads
//!   (readers of history, the replication thread) open handles of their own and only read,
//!   fetch or push.
//! - `store` names neither `history`, `sync` nor `webhooks`: they follow it through its
//!   public API.
//! - Readers see a change only once it is in HEAD: the writer holds the catalog's write lock
//!   while it stages a batch of commits and releases it after moving the branch.
//! - Only `store/layout.rs` builds repository paths; no name a client sends reaches outside
//!   the repository.
//! - `api` never touches files or git; `store` and `formats` never see HTTP types.
//! - Only `config.rs` reads environment variables.

pub mod api;
pub mod app;
pub mod client;
pub mod config;
pub mod deadline;
pub mod domain;
pub mod formats;
pub mod gitdb;
pub mod history;
mod house;
pub mod metrics;
mod private_file;
pub mod routes;
pub mod store;
pub mod sync;
mod thread_priority;
pub mod tokens;
pub mod webhooks;
