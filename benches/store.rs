//! Micro-benchmarks of the store and the export writers, on a project of 10,000 keys in five
//! languages (`cargo bench --bench store`). The end-to-end figures at 100,000 keys come from
//! `cargo bench --bench http`.

mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use locstore::domain::model::{Key, Project, Text};
use locstore::domain::names::{KeyName, LanguageCode, ProjectName, TeamName};
use locstore::domain::query::KeyQuery;
use locstore::formats::{self as export, ExportFormat};
use locstore::metrics::Metrics;
use locstore::store::{
    Change, Durability, Import, ImportEntry, ImportMode, KeyDraft, Store, TextInput, TranslationInput,
};

const KEYS: usize = 10_000;
const LANGUAGES: [&str; 5] = ["en", "fr", "de", "pt-BR", "ja"];

fn language(code: &str) -> LanguageCode {
    LanguageCode::parse(code).unwrap()
}

fn translations(index: usize) -> Vec<TranslationInput> {
    LANGUAGES
        .iter()
        .map(|code| TranslationInput {
            language: language(code),
            text: TextInput::Content(format!("{code} text number {index} for screen {}", index % 500)),
            literal: false,
            keeps_unexpressed_forms: false,
            kind_as_written: false,
        })
        .collect()
}

/// A store on a temporary repository with team `acme`, project `big` and `KEYS` keys.
fn seeded(runtime: &tokio::runtime::Runtime, durability: Durability) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("repo"), durability, Arc::new(Metrics::new())).unwrap();
    let team = TeamName::parse("acme").unwrap();
    let project = ProjectName::parse("big").unwrap();
    runtime.block_on(async {
        support::seed::team_and_project(&store, &team, &project, &LANGUAGES).await;
        let keys = (0..KEYS)
            .map(|index| ImportEntry {
                name: KeyName::parse(&format!("screen{}.item{index}.label", index % 500)).unwrap(),
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
                translations: translations(index),
                add_tags: Vec::new(),
                xcode: None,
                outdated: Vec::new(),
            })
            .collect();
        let import = Import {
            team,
            project,
            mode: ImportMode::Create,
            keys,
            add_languages: Vec::new(),
            keep_current: false,
            beside: None,
        };
        store.import(import, "bench").await.unwrap();
    });
    (dir, store)
}

fn store_benchmarks(criterion: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let team = TeamName::parse("acme").unwrap();
    let project = ProjectName::parse("big").unwrap();
    let (_dir, store) = seeded(&runtime, Durability::Os);

    // Pages are rendered as the API answers them: JSON written from the borrowed keys.
    let render = locstore::api::json::key_list;
    let page = KeyQuery::new(None, Some(1), Some(20), None).unwrap();
    criterion.bench_function("query: first page of 20", |bench| {
        bench
            .to_async(&runtime)
            .iter(|| async { black_box(store.query_keys(&team, &project, &page, render).await.unwrap()) })
    });
    let late = KeyQuery::new(None, Some((KEYS / 20) as i64), Some(20), Some("desc")).unwrap();
    criterion.bench_function("query: last page of 20, descending", |bench| {
        bench
            .to_async(&runtime)
            .iter(|| async { black_box(store.query_keys(&team, &project, &late, render).await.unwrap()) })
    });
    let search = KeyQuery::new(Some("item42"), None, None, None).unwrap();
    criterion.bench_function("query: keyword matching 1% of keys, repeated (cached)", |bench| {
        bench
            .to_async(&runtime)
            .iter(|| async { black_box(store.query_keys(&team, &project, &search, render).await.unwrap()) })
    });
    // 100 keywords in turn, more than the cache keeps: every search scans all keys.
    let keywords: Vec<KeyQuery> = (0..100)
        .map(|index| KeyQuery::new(Some(&format!("item{}", 100 + index)), None, None, None).unwrap())
        .collect();
    let turn = AtomicUsize::new(0);
    criterion.bench_function("query: keyword matching ~0.1% of keys, a new one each time", |bench| {
        bench.to_async(&runtime).iter(|| async {
            let query = &keywords[turn.fetch_add(1, Ordering::Relaxed) % keywords.len()];
            black_box(store.query_keys(&team, &project, query, render).await.unwrap())
        })
    });

    let counter = AtomicUsize::new(0);
    criterion.bench_function("commit: create one key (durability os)", |bench| {
        bench.to_async(&runtime).iter(|| async {
            let index = counter.fetch_add(1, Ordering::Relaxed);
            let key = KeyDraft {
                name: KeyName::parse(&format!("new.{index}")).unwrap(),
                tags: vec![],
                description: String::new(),
                plural: false,
                markup: false,
                translatable: true,
                files: Default::default(),
                max_length: None,
                ignore_checks: Vec::new(),
                placeholders: None,
                placeholder_names: Vec::new(),
                translations: translations(index),
            };
            store
                .apply(
                    Change::CreateKey {
                        team: team.clone(),
                        project: project.clone(),
                        key,
                    },
                    "bench",
                )
                .await
                .unwrap()
        })
    });
    runtime.block_on(store.shutdown());
}

fn export_benchmarks(criterion: &mut Criterion) {
    let project = Project {
        name: ProjectName::parse("big").unwrap(),
        display_name: "Big".into(),
        description: String::new(),
        base_language: language("en"),
        languages: LANGUAGES.iter().map(|code| language(code)).collect(),
        placeholder_format: None,
    };
    let keys: Vec<Key> = (0..KEYS)
        .map(|index| {
            let mut key = Key::named(KeyName::parse(&format!("screen{}.item{index:05}.label", index % 500)).unwrap());
            key.translations = translations(index)
                .into_iter()
                .map(|input| match input.text {
                    TextInput::Content(text) => (input.language, Text::Plain(text)),
                    TextInput::Forms(_) => unreachable!("the bench writes plain texts"),
                })
                .collect();
            key
        })
        .collect();
    let mut sorted = keys;
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    for format in [
        ExportFormat::Json,
        ExportFormat::Csv,
        ExportFormat::AndroidXml,
        ExportFormat::AppleStrings,
        ExportFormat::I18next,
        ExportFormat::Po,
        ExportFormat::Arb,
        ExportFormat::Xliff,
        ExportFormat::Yaml,
    ] {
        criterion.bench_function(
            &format!("export: {} of 10,000 keys x 5 languages", format.name()),
            |bench| bench.iter(|| black_box(export::render(format, &project, &sorted, &project.languages).unwrap())),
        );
    }
    // A String Catalog holds every language in one file.
    criterion.bench_function("export: xcstrings of 10,000 keys x 5 languages", |bench| {
        bench.iter(|| {
            let export = export::Export::new(ExportFormat::Xcstrings, &project, &sorted, &project.languages).unwrap();
            black_box(export.render_all(&project.languages))
        })
    });
}

/// What the checks add to a write: a write answers the failing checks of the key it wrote.
fn check_benchmarks(criterion: &mut Criterion) {
    const CODES: [&str; 10] = ["en", "ar", "de", "fr", "ja", "pl", "pt-BR", "ru", "sr-Latn", "zh-Hans"];
    let base = LanguageCode::parse("en").unwrap();
    let mut plain = Key::named(KeyName::parse("settings.sync.title").unwrap());
    let mut plural = Key::named(KeyName::parse("files.count").unwrap());
    plural.plural = true;
    for round in 0..5 {
        for code in CODES {
            let code = if round == 0 {
                code.to_owned()
            } else {
                format!("{code}-x{round}")
            };
            let Ok(language) = LanguageCode::parse(&code) else {
                continue;
            };
            plain.translations.insert(
                language.clone(),
                Text::from(format!("Sync %1$s with {{name}} every %2$d minutes ({code}).").as_str()),
            );
            let forms = locstore::domain::model::PluralForms::new([
                (
                    locstore::domain::model::PluralCategory::One,
                    format!("%d file ({code})"),
                ),
                (
                    locstore::domain::model::PluralCategory::Other,
                    format!("%d files ({code})"),
                ),
            ])
            .unwrap();
            plural.translations.insert(language, Text::Plural(forms));
        }
    }
    assert_eq!(plain.translations.len(), 50);
    criterion.bench_function("checks: one plain key in 50 languages", |bench| {
        bench.iter(|| black_box(locstore::domain::checks::check_key(&plain, &base)))
    });
    criterion.bench_function("checks: one plural key in 50 languages", |bench| {
        bench.iter(|| black_box(locstore::domain::checks::check_key(&plural, &base)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = store_benchmarks, export_benchmarks, check_benchmarks
}
criterion_main!(benches);
