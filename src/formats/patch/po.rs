//! gettext PO files patched in place, entry by entry: an entry whose translations, fuzzy flag
//! and (in the base language's file) extracted comments are the server's keeps its lines;
//! a changed one gets the export's lines for those, keeping its own translator comments (`# `),
//! references (`#:`), previous strings (`#|`) and other flags (`c-format`); a key the server
//! deleted loses its entry; a key the server never had stays; a new key is added at the end.
//! The header, obsolete `#~` entries, blank lines and line endings stay.
//!
//! Entries are compared as gettext reads them, each file's plural forms through its own
//! `Plural-Forms` formula; a changed plural entry gets its forms in the file's own order.

use super::{Body, Edited, Edits, PatchInput, Patched, line_ending, utf8, with_bom};
use crate::domain::model::Text;
use crate::domain::names::LanguageCode;
use crate::formats::ReadError;
use crate::formats::po::{self, PluralRule, RawEntry};

/// The names of a file's entries, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    names_of(bytes)
}

fn names_of(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let entries = po::parse(utf8(bytes)?)?;
    Ok(entries
        .iter()
        .filter(|entry| !entry.is_header())
        .filter_map(RawEntry::name)
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
    let language = local_header
        .as_ref()
        .and_then(RawEntry::language)
        .or_else(|| exported_header.as_ref().and_then(RawEntry::language))
        .and_then(|code| LanguageCode::parse(&code).ok())
        .unwrap_or_else(|| LanguageCode::parse("en").expect("a language code"));
    // Each file's forms are read through its own formula: two files with different formulas
    // (the app's `n==1 ? 3 : ...` for Serbian, the export's usual one) say the same when
    // their forms are the same categories' texts, and a changed plural entry gets its forms
    // in the app's own order.
    let own_rule = po::rule_of(local, &language).unwrap_or_else(|_| PluralRule::of(&language));
    let their_rule = po::rule_of(&exported, &language).unwrap_or_else(|_| PluralRule::of(&language));

    let theirs: rustc_hash::FxHashMap<String, &RawEntry> = exported
        .iter()
        .filter(|entry| !entry.is_header())
        .filter_map(|entry| Some((entry.name()?, entry)))
        .collect();
    let newline = line_ending(text);
    let mut edits = Edits::default();
    // The export's entries the file has (the export's are the fewer, when it holds only the
    // keys changed), and the file's names in order for the base language's.
    let mut present: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
    let mut names = Vec::new();
    let is_base = input.is_base;
    for entry in local.iter().filter(|entry| !entry.is_header()) {
        let Some(name) = entry.name() else { continue };
        match theirs.get(&name) {
            Some(their) => {
                let mut theirs_meaning = their.meaning(&their_rule, is_base);
                let own_meaning = entry.meaning(&own_rule, is_base);
                // A base text is never outdated on the server: the base language's file keeps
                // its own `fuzzy` marks (Askbot's English files have some).
                let their_fuzzy = theirs_meaning.1;
                if is_base {
                    theirs_meaning.1 = own_meaning.1;
                }
                present.insert(name.clone());
                if is_base {
                    names.push(name);
                }
                if own_meaning == theirs_meaning {
                    continue;
                }
                // An untranslated entry and a text that is its own msgid read the same (a
                // base language's file, whose texts come from the msgids, keeps its empty
                // msgstrs).
                if own_meaning.0.is_none()
                    && (own_meaning.1, &own_meaning.2) == (theirs_meaning.1, &theirs_meaning.2)
                    && theirs_meaning
                        .0
                        .as_ref()
                        .is_some_and(|text| entry.shows_as_untranslated(text))
                {
                    continue;
                }
                let range = prepared.lines(text, entry.first_line, entry.last_line);
                let own: Vec<&str> = text[range.clone()]
                    .lines()
                    .map(|line| line.trim_end_matches('\r'))
                    .collect();
                let new: Vec<&str> = exported_lines[their.first_line - 1..their.last_line].to_vec();
                // The entry keeps its own msgctxt and msgid lines (its identity, as wrapped):
                // only its comments and translations change.
                let mut lines: Vec<String> = new
                    .iter()
                    .filter(|line| line.starts_with('#'))
                    .map(|line| line.to_string())
                    .collect();
                lines.extend(
                    strings_of(&own, |keyword| {
                        keyword.starts_with("msgctxt") || keyword.starts_with("msgid")
                    })
                    .into_iter()
                    .map(str::to_owned),
                );
                match &theirs_meaning.0 {
                    Some(Text::Plural(forms)) => {
                        for (index, category) in own_rule.categories.iter().enumerate() {
                            let value = category
                                .and_then(|category| forms.get(category))
                                .unwrap_or(forms.other_form());
                            let mut line = format!("msgstr[{index}] ");
                            po::push_string(&mut line, value);
                            lines.extend(line.lines().map(str::to_owned));
                        }
                    }
                    _ => lines.extend(
                        strings_of(&new, |keyword| keyword.starts_with("msgstr"))
                            .into_iter()
                            .map(str::to_owned),
                    ),
                }
                let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
                // The base language's file keeps its own `fuzzy` (see above).
                let fuzzy = if is_base { own_meaning.1 } else { their_fuzzy };
                let merged = merge(&own, &lines, is_base, fuzzy);
                edits.replace(range, merged.join(newline) + newline);
            }
            None if (input.deleted)(&name) => {
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
            None if is_base => names.push(name),
            None => {}
        }
    }
    // A template (every msgstr empty: `.pot`, Lazarus' `zip.po`) is what the app's extraction
    // tool writes from its code: keys known only from translations' msgids are not added.
    let is_template = local
        .iter()
        .filter(|entry| !entry.is_header())
        .all(|entry| entry.strings.iter().all(|(_, value)| value.is_empty()));
    let mut added = String::new();
    for entry in exported.iter().filter(|entry| !entry.is_header() && !is_template) {
        let Some(name) = entry.name() else { continue };
        if present.contains(&name) {
            continue;
        }
        if is_base {
            names.push(name);
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
            names: is_base.then_some(names),
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
        names: is_base.then_some(names),
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
/// app's flags with `fuzzy` as given, and the export's strings.
fn merge<'a>(own: &[&'a str], new: &[&'a str], descriptions: bool, fuzzy: bool) -> Vec<String> {
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
        let deleted = |name: &str| name == po::join_name("gone", "Gone");
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

    /// Askbot's English `django.po` leaves every msgstr empty (the msgids are the English
    /// texts): the export's msgids as msgstrs read the same, so the file keeps its bytes; a
    /// text that differs from its msgid is written.
    #[test]
    fn an_untranslated_entry_keeps_its_empty_msgstr_when_the_text_is_its_msgid() {
        let local = format!(
            "{}\nmsgid \"Question\"\nmsgstr \"\"\n\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"\"\nmsgstr[1] \"\"\nmsgstr[2] \"\"\n\nmsgid \"Answer\"\nmsgstr \"\"\n",
            header()
        );
        let exported = format!(
            "{}\nmsgid \"Question\"\nmsgstr \"Question\"\n\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d file\"\nmsgstr[1] \"%d files\"\nmsgstr[2] \"%d files\"\n\nmsgid \"Answer\"\nmsgstr \"Reply\"\n",
            header()
        );
        assert_eq!(
            patched(&local, &exported, true),
            local.replace("msgid \"Answer\"\nmsgstr \"\"", "msgid \"Answer\"\nmsgstr \"Reply\"")
        );
    }

    /// The base language's file keeps its `fuzzy` marks, which the server (whose base texts
    /// are never outdated) does not write: unchanged, and when the text changes.
    #[test]
    fn the_base_files_fuzzy_marks_stay() {
        let local = format!(
            "{}\n#| msgid \"by answers\"\n#, fuzzy, python-format\nmsgid \"viewed answer\"\nmsgstr \"answers\"\n\n#, fuzzy\nmsgid \"activities\"\nmsgstr \"activity\"\n",
            header()
        );
        let exported = format!(
            "{}\nmsgid \"viewed answer\"\nmsgstr \"answers\"\n\nmsgid \"activities\"\nmsgstr \"activities\"\n",
            header()
        );
        assert_eq!(
            patched(&local, &exported, true),
            local.replace("msgstr \"activity\"", "msgstr \"activities\"")
        );
    }

    fn patched(local: &str, exported: &str, is_base: bool) -> String {
        let never = |_: &str| false;
        let patched = patch(&PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: None,
            deleted: &never,
            is_base,
            prepared: None,
        })
        .unwrap();
        String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap()
    }

    #[test]
    fn plural_forms_are_compared_and_written_through_each_files_own_formula() {
        // GNOME Calculator's Serbian formula sends 1 to index 3; the export's usual one to 0.
        let own = "msgid \"\"\nmsgstr \"\"\r\n\"Language: sr\\n\"\r\n\"Plural-Forms: nplurals=4; plural=n==1? 3 : n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2;\\n\"\r\n\r\n#, c-format\r\nmsgid \"%d-bit\"\r\nmsgid_plural \"%d-bit\"\r\nmsgstr[0] \"%d-bit\"\r\nmsgstr[1] \"%d-bita\"\r\nmsgstr[2] \"%d-bitova\"\r\nmsgstr[3] \"%d-bit\"\r\n";
        let usual = "msgid \"\"\nmsgstr \"\"\n\"Language: sr\\n\"\n\"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n\"\n\n";
        let same = format!(
            "{usual}msgid \"%d-bit\"\nmsgid_plural \"%d-bit\"\nmsgstr[0] \"%d-bit\"\nmsgstr[1] \"%d-bita\"\nmsgstr[2] \"%d-bitova\"\n"
        );
        assert_eq!(patched(own, &same, false), own, "the same forms keep the file's bytes");
        let changed = same.replace("%d-bitova", "%d-bitova!");
        let expected = own.replace("msgstr[2] \"%d-bitova\"", "msgstr[2] \"%d-bitova!\"");
        assert_eq!(
            patched(own, &changed, false),
            expected,
            "one form changes, in the file's order"
        );
    }

    #[test]
    fn a_template_gains_no_entries_and_a_lone_extracted_mark_is_no_description() {
        // Quod Libet's template: `#.` alone above an entry; keys known only from a
        // translation's msgids are not the extraction tool's.
        let template = "msgid \"\"\nmsgstr \"\"\n\"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n\"\n\n#.\n#: a.py:1\nmsgid \"Disc\"\nmsgstr \"\"\n";
        let exported = "msgid \"\"\nmsgstr \"\"\n\nmsgid \"Disc\"\nmsgstr \"\"\n\nmsgid \"Stale\"\nmsgstr \"\"\n";
        assert_eq!(patched(template, exported, true), template);
    }
}
