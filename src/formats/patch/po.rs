//! gettext PO files patched in place, entry by entry: an entry whose translations, fuzzy flag
//! and (in the base language's file) extracted comments are the server's keeps its lines;
//! a changed one gets the export's lines for those, keeping its own translator comments (`# `),
//! references (`#:`), previous strings (`#|`) and other flags (`c-format`); a key the server
//! deleted loses its entry; a key the server never had stays; a new key is added at the end.
//! The header, obsolete `#~` entries, blank lines and line endings stay.
//!
//! A file whose `Plural-Forms` formula is not the export's has its plural forms in another
//! order: such a file is written as the export writes it when anything in it changes.

use super::{Body, Edited, Edits, PatchInput, Patched, line_ending, utf8, with_bom};
use crate::formats::ReadError;
use crate::formats::po::{self, RawEntry};

/// The names of a file's entries, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    names_of(bytes)
}

fn names_of(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let entries = po::parse(utf8(bytes)?)?;
    Ok(entries
        .iter()
        .filter(|entry| !entry.is_header())
        .filter_map(|entry| entry.name().map(str::to_owned))
        .collect())
}

/// A PO file read for patching: its entries, and where each of its lines starts.
pub struct Local {
    entries: Vec<RawEntry>,
    /// The byte at which each line (1-based line `n` at `n - 1`) starts.
    line_starts: Vec<usize>,
}

impl Local {
    pub fn read(text: &str) -> Result<Self, ReadError> {
        let entries = po::parse(text)?;
        let mut line_starts = Vec::with_capacity(text.len() / 32);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        if line_starts.last() == Some(&text.len()) && !text.is_empty() {
            line_starts.pop();
        }
        Ok(Self { entries, line_starts })
    }

    /// The bytes of lines `first..=last` (1-based), with their line breaks.
    fn lines(&self, text: &str, first: usize, last: usize) -> std::ops::Range<usize> {
        let end = self.line_starts.get(last).copied().unwrap_or(text.len());
        self.line_starts[first - 1]..end
    }
}

pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let text = utf8(input.local)?;
    let exported_text = utf8(input.exported)?;
    let mut read: Option<Local> = None;
    let prepared = super::read_ahead(input.prepared, text, &mut read)?;
    let local = &prepared.entries;
    let exported = po::parse(exported_text)?;
    let exported_lines: Vec<&str> = exported_text.lines().collect();
    let header = |entries: &[RawEntry]| entries.iter().find(|entry| entry.is_header()).cloned();
    let (local_header, exported_header) = (header(local), header(&exported));
    // Two formulas are the same when they send every count to the same category's index
    // (`n%100<10 || n%100>=20` and `n%100<12 || n%100>14` are, for Polish).
    let language = local_header
        .as_ref()
        .and_then(RawEntry::language)
        .or_else(|| exported_header.as_ref().and_then(RawEntry::language))
        .and_then(|code| crate::domain::names::LanguageCode::parse(&code).ok())
        .unwrap_or_else(|| crate::domain::names::LanguageCode::parse("en").expect("a language code"));
    let rule = |header: &Option<RawEntry>| {
        header
            .as_ref()
            .and_then(RawEntry::plural_forms)
            .and_then(|forms| po::PluralRule::parse(&forms, &language).ok())
            .map(|rule| rule.categories)
    };
    let same_formula = match (rule(&local_header), rule(&exported_header)) {
        (None, _) => true,
        (Some(own), Some(theirs)) => own == theirs,
        (Some(_), None) => false,
    };

    let theirs: rustc_hash::FxHashMap<&str, &RawEntry> = exported
        .iter()
        .filter(|entry| !entry.is_header())
        .filter_map(|entry| Some((entry.name()?, entry)))
        .collect();
    let newline = line_ending(text);
    let mut edits = Edits::default();
    // The export's entries the file has (the export's are the fewer, when it holds only the
    // keys changed), and the file's names in order for the base language's.
    let mut present: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    let mut names = Vec::new();
    let is_base = input.is_base;
    for entry in local.iter().filter(|entry| !entry.is_header()) {
        let Some(name) = entry.name() else { continue };
        match theirs.get_key_value(name) {
            Some((&their_name, their)) => {
                present.insert(their_name);
                if is_base {
                    names.push(name.to_owned());
                }
                if entry.meaning(input.is_base) == their.meaning(input.is_base) {
                    continue;
                }
                if !same_formula {
                    return Ok(Patched {
                        body: Body::Bytes(input.exported.to_vec()),
                        names: if input.is_base {
                            Some(names_of(input.exported)?)
                        } else {
                            None
                        },
                        whole: true,
                    });
                }
                let range = prepared.lines(text, entry.first_line, entry.last_line);
                let own: Vec<&str> = text[range.clone()]
                    .lines()
                    .map(|line| line.trim_end_matches('\r'))
                    .collect();
                let new: Vec<&str> = exported_lines[their.first_line - 1..their.last_line].to_vec();
                // An entry named by its msgid keeps it (its msgid is its name), and takes no
                // msgctxt: only its translations change.
                let new: Vec<&str> = if entry.has_context() {
                    new
                } else {
                    let own_ids = strings_of(&own, |keyword| keyword.starts_with("msgid"));
                    let mut lines: Vec<&str> = new.iter().copied().filter(|line| line.starts_with('#')).collect();
                    lines.extend(own_ids);
                    lines.extend(strings_of(&new, |keyword| keyword.starts_with("msgstr")));
                    lines
                };
                let merged = merge(&own, &new, input.is_base);
                edits.replace(range, merged.join(newline) + newline);
            }
            None if (input.deleted)(name) => {
                let mut range = prepared.lines(text, entry.first_line, entry.last_line);
                // The blank line before the entry goes with it.
                if entry.first_line >= 2 {
                    let before = prepared.lines(text, entry.first_line - 1, entry.first_line - 1);
                    if text[before.clone()].trim().is_empty() {
                        range.start = before.start;
                    }
                }
                edits.replace(range, "");
            }
            None if is_base => names.push(name.to_owned()),
            None => {}
        }
    }
    let mut added = String::new();
    for entry in exported.iter().filter(|entry| !entry.is_header()) {
        let Some(name) = entry.name() else { continue };
        if present.contains(name) {
            continue;
        }
        if is_base {
            names.push(name.to_owned());
        }
        added.push_str(newline);
        for line in &exported_lines[entry.first_line - 1..entry.last_line] {
            added.push_str(line);
            added.push_str(newline);
        }
    }
    if edits.is_empty() && added.is_empty() {
        return Ok(Patched {
            body: Body::Edited(Edited::default()),
            names: input.is_base.then_some(names),
            whole: false,
        });
    }
    let mut out = edits.apply(text);
    if !added.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&added);
    }
    Ok(Patched {
        body: Body::Bytes(with_bom(input.local, out)),
        names: input.is_base.then_some(names),
        whole: false,
    })
}

/// The lines of an entry's strings whose keyword `wanted` takes, each with its continuation
/// lines.
fn strings_of<'a>(lines: &[&'a str], wanted: impl Fn(&str) -> bool) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut taking = false;
    for line in lines {
        if line.starts_with('#') {
            continue;
        }
        if !line.starts_with('"') {
            taking = wanted(line.split_whitespace().next().unwrap_or_default());
        }
        if taking {
            out.push(*line);
        }
    }
    out
}

/// An entry's new lines: the app's translator comments, references and previous strings,
/// then the export's extracted comments (in the base language's file; else the app's), the
/// app's flags with `fuzzy` as the export says, and the export's strings.
fn merge<'a>(own: &[&'a str], new: &[&'a str], descriptions: bool) -> Vec<String> {
    let is = |line: &&str, prefix: &str| line.starts_with(prefix);
    let mut out: Vec<String> = own
        .iter()
        .filter(|line| is(line, "# ") || **line == "#" || is(line, "#:") || is(line, "#|"))
        .map(|line| line.to_string())
        .collect();
    let extracted_from = if descriptions { new } else { own };
    out.extend(
        extracted_from
            .iter()
            .filter(|line| is(line, "#."))
            .map(|line| line.to_string()),
    );
    let fuzzy = new.iter().any(|line| is(line, "#,") && line.contains("fuzzy"));
    let mut flags: Vec<String> = own
        .iter()
        .filter(|line| is(line, "#,"))
        .flat_map(|line| line[2..].split(',').map(|flag| flag.trim().to_owned()))
        .filter(|flag| !flag.is_empty() && flag != "fuzzy")
        .collect();
    if fuzzy {
        flags.insert(0, "fuzzy".to_owned());
    }
    if !flags.is_empty() {
        out.push(format!("#, {}", flags.join(", ")));
    }
    out.extend(
        new.iter()
            .filter(|line| !line.starts_with('#'))
            .map(|line| line.to_string()),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> &'static str {
        "msgid \"\"\nmsgstr \"\"\n\"Language: pl\\n\"\n\"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2);\\n\"\n"
    }

    #[test]
    fn a_changed_entry_changes_its_strings_and_keeps_the_apps_comments() {
        let local = format!(
            "{}\n# Translator's note\n#: src/app.py:12\n#, python-format\nmsgctxt \"greeting\"\nmsgid \"Hello\"\nmsgstr \"Cześć\"\n\nmsgctxt \"kept\"\nmsgid \"Same\"\nmsgstr \"Tak samo\"\n\nmsgctxt \"gone\"\nmsgid \"Gone\"\nmsgstr \"Nie ma\"\n\nmsgctxt \"mine\"\nmsgid \"Mine\"\nmsgstr \"Moje\"\n\n#~ msgid \"old\"\n#~ msgstr \"stary\"\n",
            header()
        );
        let exported = format!(
            "{}\n#, fuzzy\nmsgctxt \"greeting\"\nmsgid \"Hello\"\nmsgstr \"Witaj\"\n\nmsgctxt \"kept\"\nmsgid \"Same\"\nmsgstr \"Tak samo\"\n\nmsgctxt \"new\"\nmsgid \"New\"\nmsgstr \"Nowy\"\n",
            header()
        );
        let deleted = |name: &str| name == "gone";
        let patched = patch(&PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: Some(&[]),
            deleted: &deleted,
            is_base: false,
            prepared: None,
        })
        .unwrap();
        let expected = format!(
            "{}\n# Translator's note\n#: src/app.py:12\n#, fuzzy, python-format\nmsgctxt \"greeting\"\nmsgid \"Hello\"\nmsgstr \"Witaj\"\n\nmsgctxt \"kept\"\nmsgid \"Same\"\nmsgstr \"Tak samo\"\n\nmsgctxt \"mine\"\nmsgid \"Mine\"\nmsgstr \"Moje\"\n\n#~ msgid \"old\"\n#~ msgstr \"stary\"\n\nmsgctxt \"new\"\nmsgid \"New\"\nmsgstr \"Nowy\"\n",
            header()
        );
        assert_eq!(
            String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap(),
            expected
        );
    }

    #[test]
    fn a_file_with_the_servers_values_keeps_its_bytes() {
        let local = format!("{}\nmsgctxt \"a\"\nmsgid \"A\"\nmsgstr \"\"\n\"Ą\"\n", header());
        let exported = format!("{}\nmsgctxt \"a\"\nmsgid \"A\"\nmsgstr \"Ą\"\n", header());
        let never = |_: &str| false;
        let patched = patch(&PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: None,
            deleted: &never,
            is_base: true,
            prepared: None,
        })
        .unwrap();
        assert!(patched.body.keeps(local.as_bytes()));
    }
}
