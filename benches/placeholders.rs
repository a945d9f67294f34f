//! What converting placeholders costs an export (issue #54): 100,000 keys × 50 languages of
//! an Android project (`placeholders = "printf"`) exported to Apple `.strings` in memory, as
//! the export handler does it (conversion, then the zip written by the same threads), against
//! the same export with `placeholders=keep`. One key in five has placeholders (`%1$s`,
//! `%2$d`, `%.1f`, `%%`), as in the real Android apps of `tests/fixtures`; the others have
//! none and cost the conversion a scan of their bytes.
//!
//!     cargo bench --bench placeholders    # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_LANGUAGES=50
//!
//! It prints the median of five runs of each, and their ratio (the target: at most 1.15).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use locstore::domain::model::{Key, Project, Syntax, Text};
use locstore::domain::names::{KeyName, LanguageCode, ProjectName};
use locstore::formats::{self, ExportFormat, archive};

const CODES: [&str; 50] = [
    "en", "fr", "de", "es", "it", "pt", "pt-BR", "nl", "sv", "da", "nb", "fi", "pl", "cs", "sk", "hu", "ro", "bg",
    "el", "tr", "ru", "uk", "he", "ar", "fa", "hi", "bn", "th", "vi", "id", "ms", "ja", "ko", "zh-Hans", "zh-Hant",
    "ca", "hr", "sr", "sl", "lt", "lv", "et", "is", "ga", "cy", "eu", "gl", "af", "sw", "fil",
];

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn text(language: &str, index: usize) -> String {
    match index % 5 {
        0 => format!("{language} %1$s sent you %2$d messages ({index}, 100%%)"),
        _ => format!("{language} text number {index} for the screen {}", index % 500),
    }
}

/// The time of one export of `keys` (converted unless `keep`), its bytes and its warnings.
fn export(
    project: &Project,
    keys: &[Key],
    languages: &[LanguageCode],
    keep: bool,
) -> (Duration, Duration, usize, usize) {
    let started = Instant::now();
    let keys: Vec<&Key> = keys.iter().collect();
    let (converted, warnings) = if keep {
        (keys.iter().map(|key| Cow::Borrowed(*key)).collect(), Vec::new())
    } else {
        formats::placeholders::converted(&keys, ExportFormat::AppleStrings, &project.base_language, true)
    };
    let conversion = started.elapsed();
    let keys: Vec<&Key> = converted.iter().map(|key| key.as_ref()).collect();
    let mut export = formats::Export::new(ExportFormat::AppleStrings, project, &keys, languages).unwrap();
    if !keep {
        export = export.converting_on_write();
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(4);
    let zip = archive::write_zip(&export, languages, std::io::Cursor::new(Vec::new()), threads).unwrap();
    let bytes = zip.into_inner().len();
    (started.elapsed(), conversion, bytes, warnings.len())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let count = setting("LOCSTORE_BENCH_KEYS", 100_000);
    let languages: Vec<LanguageCode> = CODES[..setting("LOCSTORE_BENCH_LANGUAGES", 50).min(50)]
        .iter()
        .map(|code| LanguageCode::parse(code).unwrap())
        .collect();
    let project = Project {
        name: ProjectName::parse("app").unwrap(),
        display_name: "App".into(),
        description: String::new(),
        base_language: languages[0].clone(),
        languages: languages.clone(),
        placeholder_format: Some(Syntax::Printf),
    };
    let keys: Vec<Key> = (0..count)
        .map(|index| {
            let mut key = Key::named(KeyName::parse(&format!("screen{}_label_{index}", index % 500)).unwrap());
            key.placeholders = Some(Syntax::Printf);
            key.translations = languages
                .iter()
                .map(|language| (language.clone(), Text::Plain(text(language.as_str(), index))))
                .collect();
            key
        })
        .collect();
    let (mut kept, mut converted, mut conversions) = (Vec::new(), Vec::new(), Vec::new());
    let mut sizes = (0, 0);
    // Alternated, so that both see the same machine.
    for _ in 0..5 {
        let (time, _, bytes, _) = export(&project, &keys, &languages, true);
        kept.push(time);
        sizes.0 = bytes;
        let (time, conversion, bytes, warnings) = export(&project, &keys, &languages, false);
        assert_eq!(warnings, 0);
        converted.push(time);
        conversions.push(conversion);
        sizes.1 = bytes;
    }
    let (kept, converted, conversion) = (median(kept), median(converted), median(conversions));
    println!(
        "| {count} keys × {} languages, apple-strings | keep s | convert s | of which conversion s | × keep |",
        languages.len()
    );
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| zip of {} / {} bytes | {:.2} | {:.2} | {:.2} | {:.2} |",
        sizes.0,
        sizes.1,
        kept.as_secs_f64(),
        converted.as_secs_f64(),
        conversion.as_secs_f64(),
        converted.as_secs_f64() / kept.as_secs_f64()
    );
}
