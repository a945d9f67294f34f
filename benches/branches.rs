//! Branches at 100,000 keys in five languages (`cargo bench --bench branches`): creating a
//! branch, a page read on a branch that changed 1,000 keys against the same page on the main
//! line, the memory that branch's state takes beyond the main line's, and merging those
//! 1,000 keys into the main line. `LOCSTORE_BENCH_KEYS` changes the project's size.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use locstore::domain::model::Text;
use locstore::domain::names::{BranchName, KeyName, LanguageCode, ProjectName, TeamName};
use locstore::domain::query::KeyQuery;
use locstore::history::History;
use locstore::metrics::Metrics;
use locstore::store::branches::MergeRequest;
use locstore::store::{Durability, Import, ImportEntry, ImportMode, Store, TextInput, TranslationInput};

const LANGUAGES: [&str; 5] = ["en", "fr", "de", "pt-BR", "ja"];
const CHANGED: usize = 1_000;
const PAGE_READS: usize = 2_000;

fn language(code: &str) -> LanguageCode {
    LanguageCode::parse(code).unwrap()
}

fn entry(index: usize, text: &str) -> ImportEntry {
    ImportEntry {
        name: KeyName::parse(&format!("screen{}.item{index:06}.label", index % 500)).unwrap(),
        tags: Some(vec![format!("t{}", index % 20)]),
        description: None,
        plural: None,
        markup: None,
        translatable: None,
        files: Vec::new(),
        max_length: None,
        ignore_checks: None,
        placeholders: None,
        placeholder_names: None,
        translations: LANGUAGES
            .iter()
            .map(|code| TranslationInput {
                language: language(code),
                text: TextInput::Content(format!("{code} {text} {index} for screen {}", index % 500)),
                literal: false,
                keeps_unexpressed_forms: false,
                kind_as_written: false,
            })
            .collect(),
        add_tags: Vec::new(),
        xcode: None,
        outdated: Vec::new(),
    }
}

fn import(team: &TeamName, project: &ProjectName, keys: Vec<ImportEntry>) -> Import {
    Import {
        team: team.clone(),
        project: project.clone(),
        mode: ImportMode::Upsert,
        keys,
        add_languages: Vec::new(),
        keep_current: false,
        beside: None,
    }
}

/// The bytes of heap in use, counted by the allocator: what a state built and kept holds,
/// without what the allocator keeps back from the system (which RSS counts).
static LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

struct Counting;

// SAFETY: every call is the system allocator's, with the same arguments.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE.fetch_sub(layout.size() as isize, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            std::sync::atomic::Ordering::Relaxed,
        );
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The heap in use, in MB.
fn heap_mb() -> f64 {
    LIVE.load(std::sync::atomic::Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let keys: usize = std::env::var("LOCSTORE_BENCH_KEYS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(100_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("repo"), Durability::Fsync, Arc::new(Metrics::new())).unwrap();
    let history = History::start(store.clone());
    let team = TeamName::parse("acme").unwrap();
    let project = ProjectName::parse("big").unwrap();
    let render = locstore::api::json::key_list;
    let mut rows: Vec<(String, String)> = Vec::new();
    runtime.block_on(async {
        support::seed::team_and_project(&store, &team, &project, &LANGUAGES).await;
        let seeded = (0..keys).map(|index| entry(index, "text")).collect();
        store.import(import(&team, &project, seeded), "bench").await.unwrap();

        // Creating a branch: one ref (and a sync, with fsync durability).
        let mut creates = Vec::new();
        for round in 0..20 {
            let name = BranchName::parse(&format!("try-{round}")).unwrap();
            let started = Instant::now();
            store.create_branch(&team, &project, name, None).await.unwrap();
            creates.push(started.elapsed());
        }
        rows.push((
            "create a branch (median of 20, fsync)".into(),
            format!("{:.2} ms", median(creates).as_secs_f64() * 1e3),
        ));

        // 1,000 keys changed on a branch, in every language: one commit.
        let branch = BranchName::parse("feature").unwrap();
        store
            .create_branch(&team, &project, branch.clone(), None)
            .await
            .unwrap();
        let step = keys / CHANGED;
        let changed = (0..CHANGED).map(|index| entry(index * step, "changed")).collect();
        let started = Instant::now();
        store
            .import_on_branch(&branch, import(&team, &project, changed), "bench")
            .await
            .unwrap();
        rows.push((
            "import 1,000 changed keys on the branch (one commit)".into(),
            format!("{:.0} ms", started.elapsed().as_secs_f64() * 1e3),
        ));

        // Pages: the main line's, then the branch's (read at its head, as `?branch=` does).
        let pages = (keys / 20).max(1) as i64;
        let query = |round: usize| KeyQuery::new(None, Some(1 + (round as i64 * 37) % pages), Some(20), None).unwrap();
        store.query_keys(&team, &project, &query(0), render).await.unwrap();
        let started = Instant::now();
        for round in 0..PAGE_READS {
            store.query_keys(&team, &project, &query(round), render).await.unwrap();
        }
        let main_page = started.elapsed() / PAGE_READS as u32;
        let head = store.branch_head(&team, &project, &branch).await.unwrap().to_string();
        let before = heap_mb();
        let started = Instant::now();
        history
            .query_keys_at(&team, &project, &head, &query(0), render)
            .await
            .unwrap();
        let first_read = started.elapsed();
        let after = heap_mb();
        let started = Instant::now();
        for round in 0..PAGE_READS {
            let head = store.branch_head(&team, &project, &branch).await.unwrap().to_string();
            history
                .query_keys_at(&team, &project, &head, &query(round), render)
                .await
                .unwrap();
        }
        let branch_page = started.elapsed() / PAGE_READS as u32;
        rows.push((
            "page of 20 on the main line (mean)".into(),
            format!("{:.1} µs", main_page.as_secs_f64() * 1e6),
        ));
        rows.push((
            "page of 20 on the branch, head looked up each time (mean)".into(),
            format!(
                "{:.1} µs ({:.2}× the main line's)",
                branch_page.as_secs_f64() * 1e6,
                branch_page.as_secs_f64() / main_page.as_secs_f64()
            ),
        ));
        rows.push((
            "first read of the branch (its state built)".into(),
            format!("{:.0} ms", first_read.as_secs_f64() * 1e3),
        ));
        rows.push((
            "memory of the branch's state beyond the main line's (heap in use)".into(),
            format!("{:.1} MB", after - before),
        ));

        // The merge of the 1,000 keys into the main line (one merge commit).
        let started = Instant::now();
        let merged = store
            .merge_branch(&team, &project, branch.clone(), MergeRequest::default(), "bench")
            .await
            .unwrap();
        let merge = started.elapsed();
        assert_eq!(merged.keys.len(), CHANGED);
        assert!(merged.commit.is_some() && merged.conflicts.is_empty());
        rows.push((
            "merge 1,000 changed keys into the main line".into(),
            format!("{:.0} ms", merge.as_secs_f64() * 1e3),
        ));
        let (key, _) = store
            .key(
                &team,
                &project,
                &KeyName::parse(&format!("screen0.item{:06}.label", 0)).unwrap(),
            )
            .await
            .unwrap();
        let fr = key.translations.get(&language("fr")).map(|text| text.to_owned());
        assert_eq!(fr, Some(Text::Plain("fr changed 0 for screen 0".into())));
        store.shutdown().await;
    });
    println!("branches at {keys} keys, {} languages", LANGUAGES.len());
    println!("| measurement | value |\n|---|---:|");
    for (what, value) in rows {
        println!("| {what} | {value} |");
    }
}
