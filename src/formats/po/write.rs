//! Writing PO files and their template (see the module's notes).

use std::borrow::Borrow;
use std::io::Write;

use super::{PluralRule, TEMPLATE, path};
use crate::domain::model::{Key, TextRef};
use crate::domain::names::LanguageCode;
use crate::domain::text::BaseText;
use crate::formats::ExportFile;
use crate::formats::chunked::Chunked;
use crate::formats::escape::{Specials, push_escaped};

/// One file of [`write_each`]: a language's `.po`, or with `template` the base language's
/// `template.pot`.
#[derive(Clone, Copy)]
pub struct FileOf<'l> {
    pub language: &'l LanguageCode,
    pub template: bool,
}

/// The files of `languages`, each language's in path order: its `.po`, and for the base
/// language `template.pot` (base texts, empty translations) after it.
pub fn files_of<'l>(languages: &[&'l LanguageCode], base: &LanguageCode) -> Vec<FileOf<'l>> {
    languages
        .iter()
        .flat_map(|&language| {
            let template = (language == base).then_some(FileOf {
                language,
                template: true,
            });
            std::iter::once(FileOf {
                language,
                template: false,
            })
            .chain(template)
        })
        .collect()
}

/// The files of `languages` (see [`files_of`]), rendered in memory by [`write_each`].
pub fn render_each(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    languages: &[&LanguageCode],
    project: &str,
) -> Vec<ExportFile> {
    render_files(keys, base, files_of(languages, base), project)
}

/// The files `files`, rendered in memory by [`write_each`].
pub fn render_files(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    files: Vec<FileOf<'_>>,
    project: &str,
) -> Vec<ExportFile> {
    let sinks = files
        .iter()
        .map(|file| (*file, Vec::with_capacity(keys.len() * 120)))
        .collect();
    let written = write_each(keys, base, sinks, project).expect("writing into memory");
    files
        .iter()
        .zip(written)
        .map(|(file, bytes)| ExportFile {
            path: file.path(),
            bytes,
        })
        .collect()
}

impl FileOf<'_> {
    /// `{lang}.po`, or `template.pot`.
    pub fn path(&self) -> String {
        if self.template {
            TEMPLATE.to_owned()
        } else {
            path(self.language)
        }
    }
}

/// Several files of the same keys, written in one pass over them into their writers as they
/// are made (see [`Chunked`]): what every file repeats of a key (its description, `msgctxt`
/// and `msgid` lines, its base text's hash for the outdated mark) is looked up and escaped
/// once and copied into each. A pass per file read every key's texts from memory again (their
/// cache misses were half of a render) and escaped the same `msgctxt` and `msgid` five times.
/// A key that is `translatable: false` is in the base language's files only.
pub fn write_each<W: Write>(
    keys: &[impl Borrow<Key>],
    base: &LanguageCode,
    files: Vec<(FileOf<'_>, W)>,
    project: &str,
) -> std::io::Result<Vec<W>> {
    struct Writing<'l, W> {
        file: FileOf<'l>,
        rule: PluralRule,
        out: Chunked<W>,
        hint: usize,
    }
    let mut writing: Vec<Writing<'_, W>> = files
        .into_iter()
        .map(|(file, sink)| {
            let rule = PluralRule::of(file.language);
            let mut out = Chunked::new(sink);
            push_header(out.text(), project, &file, &rule);
            Writing {
                file,
                rule,
                out,
                hint: 0,
            }
        })
        .collect();
    // A key's lines every file shares, built when a file first needs them.
    let (mut comments, mut plain_ids, mut plural_ids) = (String::new(), String::new(), String::new());
    let mut base_hint = 0;
    for key in keys.iter().map(Borrow::borrow) {
        let base_text = BaseText::new(key.translations.get_near(base, &mut base_hint));
        let (mut built_comments, mut built_plain, mut built_plural) = (false, false, false);
        for Writing { file, rule, out, hint } in &mut writing {
            out.settle()?;
            let out = out.text();
            let own = file.language != base;
            if own && !key.translatable {
                continue;
            }
            let Some((text, recorded)) = key.translations.get_near_written(file.language, hint) else {
                continue;
            };
            if !built_comments {
                comments.clear();
                for line in key.description.lines() {
                    comments.push_str("#.");
                    if !line.is_empty() {
                        comments.push(' ');
                        comments.push_str(line);
                    }
                    comments.push('\n');
                }
                built_comments = true;
            }
            out.push('\n');
            out.push_str(&comments);
            // The flags: `fuzzy` for an outdated translation, and the placeholder syntax's
            // (`c-format`, `python-format`, ...), which gettext's tools check with.
            let fuzzy = !file.template && own && base_text.outdates(recorded);
            let format = key.placeholders.and_then(super::flag_of_syntax);
            match (fuzzy, format) {
                (true, Some(format)) => {
                    out.push_str("#, fuzzy, ");
                    out.push_str(format);
                    out.push('\n');
                }
                (true, None) => out.push_str("#, fuzzy\n"),
                (false, Some(format)) => {
                    out.push_str("#, ");
                    out.push_str(format);
                    out.push('\n');
                }
                (false, None) => {}
            }
            match text {
                TextRef::Plain(value) => {
                    if !built_plain {
                        plain_ids.clear();
                        push_ids(&mut plain_ids, key.name.as_str());
                        built_plain = true;
                    }
                    out.push_str(&plain_ids);
                    out.push_str("msgstr ");
                    push_string(out, if file.template { "" } else { value });
                }
                TextRef::Plural(forms) => {
                    if !built_plural {
                        plural_ids.clear();
                        let id = push_ids(&mut plural_ids, key.name.as_str());
                        let base_forms = base_text.text().and_then(TextRef::as_plural);
                        plural_ids.push_str("msgid_plural ");
                        push_string(&mut plural_ids, base_forms.map_or(id, |forms| forms.other_form()));
                        built_plural = true;
                    }
                    out.push_str(&plural_ids);
                    let count = if file.template { 2 } else { rule.nplurals };
                    for index in 0..count {
                        out.push_str("msgstr[");
                        out.push_str(&index.to_string());
                        out.push_str("] ");
                        let value = match (file.template, rule.categories[index.min(rule.nplurals - 1)]) {
                            (true, _) => "",
                            (false, Some(category)) => forms.get(category).unwrap_or(forms.other_form()),
                            (false, None) => forms.other_form(),
                        };
                        push_string(out, value);
                    }
                }
            }
        }
    }
    writing.into_iter().map(|writing| writing.out.finish()).collect()
}

/// The `msgctxt` (when the name has a context) and `msgid` lines of the key named `name`
/// (see the module's notes: the name is the entry's identity); answers the msgid.
fn push_ids<'n>(out: &mut String, name: &'n str) -> &'n str {
    let (context, id) = super::split_name(name);
    if let Some(context) = context {
        out.push_str("msgctxt ");
        push_string(out, context);
    }
    out.push_str("msgid ");
    push_string(out, id);
    id
}

/// The header entry of `file`.
fn push_header(out: &mut String, project: &str, file: &FileOf<'_>, rule: &PluralRule) {
    let (language, template) = (file.language, file.template);
    out.push_str("msgid \"\"\nmsgstr \"\"\n");
    // Exports are byte-stable (the same commit gives the same bytes), so the revision date
    // is a fixed one rather than the time of the export.
    let mut header = vec![
        format!("Project-Id-Version: {project}"),
        "PO-Revision-Date: 1970-01-01 00:00+0000".to_owned(),
        "Last-Translator: locstore".to_owned(),
        format!("Language-Team: {}", if template { "none" } else { language.as_str() }),
    ];
    // A template's language is the one it will be copied into: none yet.
    header.push(if template {
        "Language: ".to_owned()
    } else {
        format!("Language: {language}")
    });
    header.extend([
        "MIME-Version: 1.0".to_owned(),
        "Content-Type: text/plain; charset=UTF-8".to_owned(),
        "Content-Transfer-Encoding: 8bit".to_owned(),
    ]);
    if !template {
        header.push(format!("Plural-Forms: {}", rule.header()));
    }
    for field in header {
        push_string_line(out, &format!("{field}\n"));
    }
}

/// A string and its line end: one line, or for a text with line breaks inside, `""` and then
/// a line per line of the text (each ending in its `\n`), as gettext's tools write them.
pub(crate) fn push_string(out: &mut String, text: &str) {
    let inner_break = text.trim_end_matches('\n').contains('\n');
    if !inner_break {
        push_string_line(out, text);
        return;
    }
    out.push_str("\"\"\n");
    for line in text.split_inclusive('\n') {
        push_string_line(out, line);
    }
}

fn push_string_line(out: &mut String, text: &str) {
    out.push('"');
    const SPECIALS: Specials = Specials::new(0x20, b"\"\\");
    push_escaped(out, text, SPECIALS, |byte, out| {
        let letter = match byte {
            b'"' | b'\\' => char::from(byte),
            b'\n' => 'n',
            b'\t' => 't',
            b'\r' => 'r',
            0x07 => 'a',
            0x08 => 'b',
            0x0b => 'v',
            0x0c => 'f',
            // Other control characters as they are: gettext reads them so, and polib does
            // not know octal escapes.
            control => {
                out.push(char::from(control));
                return;
            }
        };
        out.push('\\');
        out.push(letter);
    });
    out.push_str("\"\n");
}
