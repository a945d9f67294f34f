//! `locstore push` and `pull` on a big app's Android folders (issue #25's figures): the real
//! client binary against the real server, 100,000 keys in 50 languages.
//!
//!     cargo bench --bench pull    # LOCSTORE_BENCH_KEYS=100000 LOCSTORE_BENCH_LANGUAGES=50
//!                                 # LOCSTORE_BENCH_DIR=/mnt/fresh (where the data goes)
//!                                 # LOCSTORE_BENCH_DATA=/some/dir (kept: seeded once, reused;
//!                                 # the same data as `--bench big`)
//!
//! It seeds the project as the `big` bench does, pulls once into an empty app folder (every
//! file written), then measures, with each client run's wall time and peak RSS: a pull with
//! nothing changed, `pull --check`, a push of the unchanged tree, and a pull after 1% of the
//! texts changed on the server (1,000 keys × 50 languages, through an upsert import). It
//! prints a Markdown table.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use support::{LANGUAGES_50, Server, TOKEN, http, key_name, seed_with};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Runs `locstore ARGS` in `app`; answers its wall seconds and peak RSS in MB (from wait4).
#[allow(
    clippy::zombie_processes,
    reason = "the child is waited for with wait4, for its rusage"
)]
fn client(app: &Path, args: &[&str]) -> (f64, f64, String) {
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_locstore"))
        .args(args)
        .current_dir(app)
        .env("LOCSTORE_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the client starts");
    let pid = child.id() as libc::pid_t;
    let output = {
        use std::io::Read;
        let mut stdout = String::new();
        child.stdout.expect("piped").read_to_string(&mut stdout).unwrap();
        stdout
    };
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; pid is our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let seconds = started.elapsed().as_secs_f64();
    let code = libc::WEXITSTATUS(status);
    assert!(
        code == 0 || (code == 1 && args.contains(&"--check")),
        "locstore {args:?} exited {code}: {output}"
    );
    (seconds, usage.ru_maxrss as f64 / 1024.0, output)
}

fn main() {
    let keys = env_number("LOCSTORE_BENCH_KEYS", 100_000);
    let count = env_number("LOCSTORE_BENCH_LANGUAGES", 50).min(LANGUAGES_50.len());
    let languages = &LANGUAGES_50[..count];
    let dir = support::data_dir();
    let kept = std::env::var_os("LOCSTORE_BENCH_DATA").map(std::path::PathBuf::from);
    let data = kept.clone().unwrap_or_else(|| dir.path().join("data"));
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |name: &str, value: String| {
        eprintln!("{name}: {value}");
        rows.push((name.to_owned(), value));
    };
    // A push of every file of 100,000 keys × 50 languages unpacks to about 400 MB, over the
    // default 64 MiB upload limit: the server is started with a larger one.
    let (server, _) = Server::start_with(&data, &["--durability", "fsync", "--max-import-bytes", "2147483648"]);
    if kept.is_none() || http(&server.base, "GET", "/teams/acme/projects/big", None).0 != 200 {
        seed_with(&server.base, keys, languages, 2_000, |code, index| {
            format!("{code}: the text {index} of screen {}, a few words", index % 500)
        });
    }
    server.settle();

    let app = dir.path().join("app");
    std::fs::create_dir_all(app.join("res")).unwrap();
    std::fs::write(
        app.join(".locstore.toml"),
        format!(
            "server = \"{}\"\nproject = \"acme/big\"\n\n[[files]]\nformat = \"android-xml\"\npath = \"res\"\n",
            server.base
        ),
    )
    .unwrap();
    let measure = |label: &str, args: &[&str], row: &mut dyn FnMut(&str, String)| {
        let (seconds, rss, _) = client(&app, args);
        row(label, format!("{seconds:.2} s, RSS {rss:.0} MB"));
    };
    measure(
        "first pull into an empty folder (writes every file)",
        &["pull"],
        &mut row,
    );
    measure("pull, nothing changed", &["pull"], &mut row);
    measure("pull, nothing changed (again)", &["pull"], &mut row);
    measure("pull --check, nothing changed", &["pull", "--check"], &mut row);
    measure("push of the unchanged tree", &["push"], &mut row);

    // 1% of the texts: 1,000 keys in every language, to texts no earlier run wrote (the data
    // may be kept between runs).
    let changed = keys / 100;
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    for chunk in (0..changed).collect::<Vec<_>>().chunks(500) {
        let items: Vec<String> = chunk
            .iter()
            .map(|index| {
                let translations: Vec<String> = languages
                    .iter()
                    .map(|code| {
                        format!(r#"{{"language":"{code}","content":"{code}: changed text {index} in run {run}"}}"#)
                    })
                    .collect();
                format!(
                    r#"{{"name":"{}","translations":[{}]}}"#,
                    key_name(index * 97 % keys),
                    translations.join(",")
                )
            })
            .collect();
        let body = format!(r#"{{"mode":"upsert","keys":[{}]}}"#, items.join(","));
        let (status, answer) = http(
            &server.base,
            "POST",
            "/teams/acme/projects/big/keys/import",
            Some(&body),
        );
        assert_eq!(status, 200, "{answer}");
    }
    server.settle();
    measure(
        &format!("pull --check, {changed} keys × {count} languages changed"),
        &["pull", "--check"],
        &mut row,
    );
    measure(
        &format!("pull, {changed} keys × {count} languages changed"),
        &["pull"],
        &mut row,
    );
    server.stop();

    println!("| {keys} keys × {count} languages, Android files | result |\n|---|---:|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
}
