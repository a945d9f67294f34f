//! The platforms' own formatters, run as the apps run them: Java's `java.util.Formatter`
//! (Android), Foundation's `+[NSString stringWithFormat:]` (GNUstep, with each argument passed
//! in the C type its placeholder names), FormatJS's `intl-messageformat` (ICU, ARB), i18next's
//! `t()`, Ruby's `I18n.interpolate` (Rails) and Python's `%` and `str.format` (gettext). Each
//! is a small driver in `tests/tools/` that formats a JSON list of texts in one process, so a
//! test gathers every text it needs into a [`Batch`] and starts each platform once.
//! `scripts/test.sh` installs them all; without one, these tests fail and say which.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::platforms::python;

/// A formatter of one platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Platform {
    /// `String.format` (java.util.Formatter): Android's `getString(id, args...)`.
    Java,
    /// `+[NSString stringWithFormat:]` of GNUstep's Foundation: Apple's `String(format:)`, and
    /// C's printf conversions for gettext's c-format.
    Foundation,
    /// FormatJS `intl-messageformat`: ICU MessageFormat (ARB, react-intl).
    Icu,
    /// i18next's `t()`.
    I18next,
    /// Ruby's `I18n.interpolate` (with the i18n gem's plural choice for form hashes).
    Rails,
    /// Python's `text % args` (python-format).
    PythonPercent,
    /// Python's `text.format(**args)` (python-brace-format).
    PythonBrace,
}

impl Platform {
    /// Whether the platform takes its arguments by position (a list) rather than by name.
    pub fn positional(self) -> bool {
        matches!(self, Platform::Java | Platform::Foundation)
    }

    /// Whether the driver picks a plural form itself from `count` (a text may be a form
    /// object); the others format one form the test picked.
    pub fn picks_plural_forms(self) -> bool {
        matches!(self, Platform::I18next | Platform::Rails)
    }
}

/// Texts gathered for the formatters, formatted by [`Batch::run`] with one process per platform.
#[derive(Default)]
pub struct Batch {
    items: BTreeMap<Platform, Vec<Value>>,
}

/// Where a text's answer will be in the [`Answers`].
#[derive(Clone, Copy, Debug)]
pub struct Ticket(Platform, usize);

/// Every answer of a [`Batch`].
pub struct Answers(BTreeMap<Platform, Vec<Value>>);

impl Batch {
    /// Adds a text (a string, or for [`Platform::picks_plural_forms`] an object of forms) with
    /// its arguments (a list for positional platforms, an object for the others) and, for
    /// plural texts, the count.
    pub fn add(&mut self, platform: Platform, text: Value, args: Value, count: Option<i64>) -> Ticket {
        let mut item = json!({"text": text, "args": args});
        if let Some(count) = count {
            item["count"] = json!(count);
        }
        match platform {
            Platform::PythonPercent => item["style"] = json!("percent"),
            Platform::PythonBrace => item["style"] = json!("brace"),
            _ => {}
        }
        let items = self.items.entry(platform).or_default();
        items.push(item);
        Ticket(platform, items.len() - 1)
    }

    /// Runs each platform's driver once over its texts.
    pub fn run(self) -> Answers {
        let answers = self
            .items
            .into_iter()
            .map(|(platform, items)| {
                let answers = run_driver(platform, &Value::from(items.clone()));
                let answers = answers.as_array().cloned().unwrap_or_default();
                assert_eq!(answers.len(), items.len(), "{platform:?} answered {answers:?}");
                (platform, answers)
            })
            .collect();
        Answers(answers)
    }
}

impl Answers {
    /// The formatted text, or the platform's error.
    pub fn get(&self, ticket: Ticket) -> Result<String, String> {
        let answer = &self.0[&ticket.0][ticket.1];
        match answer {
            Value::String(text) => Ok(text.clone()),
            other => Err(format!(
                "{:?}: {}",
                ticket.0,
                other["error"].as_str().unwrap_or("no answer")
            )),
        }
    }
}

fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools")
}

/// Runs one driver with `input` on stdin and returns what it printed, as JSON.
pub fn run_driver(platform: Platform, input: &Value) -> Value {
    let tools = tools();
    let node = |script: &str, module: &str| {
        assert!(
            tools.join("node_modules").join(module).is_dir(),
            "{module} is not installed: run the tests with `bash scripts/test.sh`"
        );
        let mut command = Command::new("node");
        command.arg(tools.join(script));
        command
    };
    let mut command = match platform {
        Platform::Java => {
            let mut command = Command::new("java");
            command.arg(tools.join("Fmt.java"));
            command
        }
        Platform::Foundation => Command::new(gnustep_driver()),
        Platform::Icu => node("fmt_icu.mjs", "intl-messageformat"),
        Platform::I18next => node("fmt_i18next.mjs", "i18next"),
        Platform::Rails => {
            let mut command = Command::new("ruby");
            command.arg(tools.join("fmt_rails.rb"));
            command
        }
        Platform::PythonPercent | Platform::PythonBrace => {
            let mut command = Command::new(python());
            command.arg(tools.join("fmt_python.py"));
            command
        }
    };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("{platform:?}'s driver does not start ({err}): run `bash scripts/test.sh`"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{platform:?}'s driver failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{platform:?} printed no JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The GNUstep driver (tests/tools/fmt_gnustep.m), compiled once per test run into the
/// target folder with GNUstep's own flags and libffi.
fn gnustep_driver() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fmt_gnustep");
            let flags = |what: &str| -> Vec<String> {
                let output = Command::new("gnustep-config")
                    .arg(what)
                    .output()
                    .expect("gnustep-config is not installed: run the tests with `bash scripts/test.sh`");
                assert!(output.status.success(), "gnustep-config {what} failed");
                String::from_utf8(output.stdout)
                    .unwrap()
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect()
            };
            let output = Command::new("gcc")
                .arg("-std=gnu11")
                .args(flags("--objc-flags"))
                .arg(tools().join("fmt_gnustep.m"))
                .arg("-o")
                .arg(&binary)
                .args(flags("--base-libs"))
                .arg("-lffi")
                .output()
                .expect("gcc (gobjc) is not installed: run the tests with `bash scripts/test.sh`");
            assert!(
                output.status.success(),
                "fmt_gnustep.m does not build: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            binary
        })
        .clone()
}

/// Reads `.strings` files with GNUstep's own parser (`propertyListFromStringsFileFormat`, what
/// NSBundle runs on Localizable.strings): each file's dictionary, or the parser's error.
pub fn gnustep_strings(paths: &[PathBuf]) -> Vec<Result<BTreeMap<String, String>, String>> {
    let paths: Vec<String> = paths.iter().map(|path| path.display().to_string()).collect();
    let answers = run_driver(Platform::Foundation, &json!([{ "strings": paths }]));
    answers[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| match file.get("error") {
            Some(error) if file.as_object().unwrap().len() == 1 && error.is_string() => {
                Err(error.as_str().unwrap().to_owned())
            }
            _ => Ok(serde_json::from_value(file.clone()).unwrap()),
        })
        .collect()
}

#[tokio::test]
async fn each_platforms_formatter_formats_as_the_platform_and_reports_what_it_cannot() {
    // (platform, text, arguments, count, the platform's answer: Ok(text) or Err(part of its error))
    type Case = (Platform, Value, Value, Option<i64>, Result<&'static str, &'static str>);
    let cases: Vec<Case> = vec![
        (
            Platform::Java,
            json!("%2$s has %1$d, %3$.2f km, 100%%"),
            json!([3, "Ana", 2.5]),
            None,
            Ok("Ana has 3, 2.50 km, 100%"),
        ),
        (
            Platform::Java,
            json!("%d"),
            json!(["not a number"]),
            None,
            Err("IllegalFormatConversion"),
        ),
        (
            Platform::Java,
            json!("%1$s and %2$s"),
            json!(["one"]),
            None,
            Err("MissingFormatArgument"),
        ),
        (
            Platform::Foundation,
            json!("%2$@ has %1$lld, %3$.2f km, %4$s, %5$d%%"),
            json!([3, "Ana", 2.5, "C é", 7]),
            None,
            Ok("Ana has 3, 2.50 km, C é, 7%"),
        ),
        (
            Platform::Foundation,
            json!("%1$d then %1$@"),
            json!([1]),
            None,
            Err("two types"),
        ),
        (
            Platform::Foundation,
            json!("%@ and %@"),
            json!(["one"]),
            None,
            Err("2 arguments, 1 given"),
        ),
        (
            Platform::Icu,
            json!("{n, plural, one {# file} other {# files}} in '{'{dir}'}', don't <b>{dir}</b>"),
            json!({"n": 2, "dir": "x"}),
            None,
            Ok("2 files in {x}, don't <b>x</b>"),
        ),
        (Platform::Icu, json!("{missing}"), json!({}), None, Err("missing")),
        (
            Platform::Icu,
            json!("{unclosed"),
            json!({}),
            None,
            Err("EXPECT_ARGUMENT_CLOSING_BRACE"),
        ),
        (
            Platform::I18next,
            json!({"one": "{{count}} file in {{dir}}", "other": "{{count}} files in {{dir}}"}),
            json!({"dir": "x"}),
            Some(1),
            Ok("1 file in x"),
        ),
        (
            Platform::I18next,
            json!("{{name}} {brace} 50%"),
            json!({}),
            None,
            Err("no value for {{name}}"),
        ),
        (
            Platform::Rails,
            json!({"one": "%{count} file in %{dir}", "other": "%{count} files in %{dir}"}),
            json!({"dir": "x"}),
            Some(5),
            Ok("5 files in x"),
        ),
        (
            Platform::Rails,
            json!("%{name}: 50%% {brace}"),
            json!({"name": "Ana"}),
            None,
            Ok("Ana: 50% {brace}"),
        ),
        (
            Platform::Rails,
            json!("%{name}"),
            json!({}),
            None,
            Err("MissingInterpolationArgument"),
        ),
        (
            Platform::PythonPercent,
            json!("%(name)s: %(n)d%% %(f).2f"),
            json!({"name": "Ana", "n": 3, "f": 2.5}),
            None,
            Ok("Ana: 3% 2.50"),
        ),
        (
            Platform::PythonPercent,
            json!("%(name)s"),
            json!({}),
            None,
            Err("KeyError"),
        ),
        (
            Platform::PythonBrace,
            json!("{name} {{braces}} {n:.2f}"),
            json!({"name": "Ana", "n": 2.5}),
            None,
            Ok("Ana {braces} 2.50"),
        ),
        (Platform::PythonBrace, json!("{name}"), json!({}), None, Err("KeyError")),
    ];
    let mut batch = Batch::default();
    let tickets: Vec<Ticket> = cases
        .iter()
        .map(|(platform, text, args, count, _)| batch.add(*platform, text.clone(), args.clone(), *count))
        .collect();
    let answers = batch.run();
    for ((platform, text, _, _, expected), ticket) in cases.iter().zip(tickets) {
        let answer = answers.get(ticket);
        match (expected, &answer) {
            (Ok(expected), Ok(answer)) => assert_eq!(answer, expected, "{platform:?} {text}"),
            (Err(part), Err(error)) => assert!(error.contains(part), "{platform:?} {text}: {error}"),
            _ => panic!("{platform:?} {text}: expected {expected:?}, answered {answer:?}"),
        }
    }

    // GNUstep reads .strings files with its own parser, and says which file it cannot read.
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.strings");
    std::fs::write(&good, "/* c */\n\"a\" = \"b %@ \\\"q\\\"\";\n\"x\" = \"y\";\n").unwrap();
    let bad = dir.path().join("bad.strings");
    std::fs::write(&bad, "\"a\" = \"unterminated;\n").unwrap();
    let files = gnustep_strings(&[good, bad]);
    let expected: BTreeMap<String, String> = [
        ("a".to_owned(), "b %@ \"q\"".to_owned()),
        ("x".to_owned(), "y".to_owned()),
    ]
    .into();
    assert_eq!(files[0], Ok(expected));
    assert!(files[1].is_err(), "{:?}", files[1]);
}
