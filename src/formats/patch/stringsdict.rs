//! Apple `.stringsdict` files (XML property lists) patched in place: each top-level
//! `<key>` and its `<dict>` is an entry, compared by the forms a plist reader reads from it.
//! A changed or new entry takes the export's dictionary, indented as the file indents; a
//! deleted key's entry goes; entries locstore does not read (several variables) and keys the
//! server never had stay. A binary property list is handled as a whole (see [`super`]).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::Event;

use super::{Edits, PatchInput, Patched, end_of_line, indentation_at, line_ending, start_of_line};
use crate::formats::ReadError;
use crate::formats::apple::read_stringsdict;

/// Whether a file is an XML property list this patcher can work on.
pub fn is_xml(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|text| text.contains("<plist"))
}

/// The names of a file's entries, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let text = utf8(bytes)?;
    Ok(scan(text)?.entries.into_iter().map(|entry| entry.name).collect())
}

/// Patches the app's `.stringsdict` with the export's entries (see [`super`]).
pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let local_text = utf8(input.local)?;
    let exported_text = utf8(input.exported)?;
    let local = scan(local_text)?;
    let exported = scan(exported_text)?;
    let theirs: HashMap<&str, &Entry> = exported
        .entries
        .iter()
        .map(|entry| (entry.name.as_str(), entry))
        .collect();
    let newline = line_ending(local_text);
    let indent = local
        .entries
        .first()
        .and_then(|entry| indentation_at(local_text, entry.key.start))
        .unwrap_or("\t")
        .to_owned();
    let exported_indent = exported
        .entries
        .first()
        .and_then(|entry| indentation_at(exported_text, entry.key.start))
        .unwrap_or("\t")
        .to_owned();

    let mut edits = Edits::default();
    let mut present = HashSet::new();
    let mut names = Vec::new();
    for entry in &local.entries {
        present.insert(entry.name.as_str());
        match theirs.get(entry.name.as_str()) {
            Some(server) => {
                names.push(entry.name.clone());
                if local_text[entry.value.clone()] == exported_text[server.value.clone()] {
                    continue;
                }
                let (ours, theirs) = (decode(local_text, entry)?, decode(exported_text, server)?);
                if ours == theirs {
                    continue;
                }
                // Form by form in the entry's own variable when it can be; else the export's
                // dictionary for the whole entry.
                let by_form = match (&ours, &theirs) {
                    (Some(_), Some(crate::domain::model::Text::Plural(forms))) => {
                        forms_edits(local_text, entry, forms, newline)
                    }
                    _ => None,
                };
                match by_form {
                    Some(form_edits) => {
                        for (range, text) in form_edits {
                            edits.replace(range, text);
                        }
                    }
                    None => {
                        let value = reindent(&exported_text[server.value.clone()], &exported_indent, &indent, newline);
                        edits.replace(entry.value.clone(), value);
                    }
                }
            }
            None if (input.deleted)(&entry.name) => {
                edits.replace(
                    start_of_line(local_text, entry.key.start)..end_of_line(local_text, entry.value.end),
                    "",
                );
            }
            None => names.push(entry.name.clone()),
        }
    }
    let Some(close) = local.dict_end else {
        return Ok(Patched {
            body: super::Body::Bytes(input.exported.to_vec()),
            names: None,
            whole: true,
        });
    };
    // New entries at the end of the dictionary, in the export's order.
    for entry in exported
        .entries
        .iter()
        .filter(|entry| !present.contains(entry.name.as_str()))
    {
        names.push(entry.name.clone());
        let snippet = reindent(
            &exported_text[entry.key.start..entry.value.end],
            &exported_indent,
            &indent,
            newline,
        );
        let line_start = start_of_line(local_text, close);
        if line_start < close || local_text[..close].ends_with('\n') {
            edits.insert(line_start, format!("{indent}{snippet}{newline}"));
        } else {
            edits.insert(close, format!("{newline}{indent}{snippet}{newline}"));
        }
    }
    Ok(Patched::of(input, edits, local_text, names))
}

/// Patches a `.strings` table written as an XML property list (Quicksilver's plug-ins keep
/// `<key>AppHideAction</key><string>Hide</string>`) with the export's `.strings` values: a
/// `<string>` whose text differs gets the export's text, a deleted key's entry goes, a key new
/// to the file goes before the dictionary's end, and everything else keeps its bytes.
pub fn patch_strings_table(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let exported = crate::formats::apple::read_strings(input.exported)?;
    let theirs: HashMap<&str, &str> = exported
        .iter()
        .filter_map(|entry| Some((entry.name.as_str(), entry.text.as_plain()?)))
        .collect();
    let Ok(local_text) = utf8(input.local) else {
        // A binary property list: kept when it holds the export's values, else the export.
        let ours = crate::formats::apple::read_strings(input.local)?;
        let same = ours.len() == exported.len()
            && ours.iter().all(|entry| {
                entry
                    .text
                    .as_plain()
                    .is_some_and(|text| theirs.get(entry.name.as_str()) == Some(&text))
            });
        let body = if same {
            super::Body::Edited(super::Edited::default())
        } else {
            super::Body::Bytes(input.exported.to_vec())
        };
        let names = exported.iter().map(|entry| entry.name.clone()).collect();
        return Ok(Patched {
            body,
            names: input.is_base.then_some(names),
            whole: !same,
        });
    };
    let local = scan(local_text)?;
    let newline = line_ending(local_text);
    let indent = local
        .entries
        .first()
        .and_then(|entry| indentation_at(local_text, entry.key.start))
        .unwrap_or("\t")
        .to_owned();
    let mut edits = Edits::default();
    let mut present = HashSet::new();
    let mut names = Vec::new();
    // A key written twice reads as its last definition; only that one is compared.
    let last: HashMap<&str, usize> = local
        .entries
        .iter()
        .enumerate()
        .map(|(index, entry)| (entry.name.as_str(), index))
        .collect();
    for (index, entry) in local.entries.iter().enumerate() {
        let first = present.insert(entry.name.as_str());
        match theirs.get(entry.name.as_str()) {
            Some(_) if last[entry.name.as_str()] != index && first => names.push(entry.name.clone()),
            Some(_) if last[entry.name.as_str()] != index => {}
            Some(new) => {
                if first {
                    names.push(entry.name.clone());
                }
                let value = &local_text[entry.value.clone()];
                let Some(content) = value
                    .strip_prefix("<string>")
                    .and_then(|rest| rest.strip_suffix("</string>"))
                else {
                    continue;
                };
                let old = quick_xml::escape::unescape(content).map_err(|err| ReadError::unplaced(err.to_string()))?;
                if old != *new {
                    edits.replace(
                        entry.value.clone(),
                        format!("<string>{}</string>", quick_xml::escape::escape(*new)),
                    );
                }
            }
            None if (input.deleted)(&entry.name) => {
                edits.replace(
                    start_of_line(local_text, entry.key.start)..end_of_line(local_text, entry.value.end),
                    "",
                );
            }
            None if first => names.push(entry.name.clone()),
            None => {}
        }
    }
    let Some(close) = local.dict_end else {
        return Ok(Patched::of(input, edits, local_text, names));
    };
    for entry in exported.iter().filter(|entry| !present.contains(entry.name.as_str())) {
        let Some(text) = entry.text.as_plain() else { continue };
        names.push(entry.name.clone());
        let snippet = format!(
            "<key>{}</key>{newline}{indent}<string>{}</string>",
            quick_xml::escape::escape(entry.name.as_str()),
            quick_xml::escape::escape(text)
        );
        let line_start = start_of_line(local_text, close);
        if line_start < close || local_text[..close].ends_with('\n') {
            edits.insert(line_start, format!("{indent}{snippet}{newline}"));
        } else {
            edits.insert(close, format!("{newline}{indent}{snippet}{newline}"));
        }
    }
    Ok(Patched::of(input, edits, local_text, names))
}

fn utf8(bytes: &[u8]) -> Result<&str, ReadError> {
    std::str::from_utf8(bytes).map_err(|_| ReadError::unplaced("the property list is not UTF-8"))
}

/// A top-level entry: its key's name, where `<key>` starts and where its value is.
struct Entry {
    name: String,
    key: Range<usize>,
    value: Range<usize>,
}

struct Scanned {
    entries: Vec<Entry>,
    /// Where the top-level `</dict>` starts.
    dict_end: Option<usize>,
}

fn scan(text: &str) -> Result<Scanned, ReadError> {
    let fail = |err: quick_xml::Error| ReadError::unplaced(err.to_string());
    let mut reader = Reader::from_str(text);
    let mut scanned = Scanned {
        entries: Vec::new(),
        dict_end: None,
    };
    // 0: outside, 1: in <plist>, 2: in the top <dict>.
    let mut depth = 0usize;
    let mut key: Option<(String, Range<usize>)> = None;
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event().map_err(fail)? {
            Event::Start(start) if depth < 2 => {
                if depth == 1 && start.name().as_ref() != b"dict" {
                    return Err(ReadError::unplaced("the property list is not a dictionary of keys"));
                }
                depth += 1;
            }
            Event::Start(start) if depth == 2 && start.name().as_ref() == b"key" => {
                let name = reader.read_text(start.name()).map_err(fail)?;
                let name = quick_xml::escape::unescape(&name)
                    .map_err(|err| ReadError::unplaced(err.to_string()))?
                    .into_owned();
                key = Some((name, before..reader.buffer_position() as usize));
            }
            Event::Start(start) if depth == 2 => {
                reader.read_to_end(start.name()).map_err(fail)?;
                if let Some((name, key_range)) = key.take() {
                    scanned.entries.push(Entry {
                        name,
                        key: key_range,
                        value: before..reader.buffer_position() as usize,
                    });
                }
            }
            Event::Empty(_) if depth == 2 => key = None,
            Event::End(_) if depth == 2 => {
                scanned.dict_end = Some(before);
                depth = 1;
            }
            Event::End(_) if depth == 1 => depth = 0,
            Event::Eof => return Ok(scanned),
            _ => {}
        }
    }
}

/// A variable's dictionary inside an entry: its name and its forms.
struct Variable {
    name: String,
    forms: Vec<FormPlace>,
    /// Where the last `<key>` read in it starts.
    last_key: usize,
}

/// A form of a variable: its category, where its `<key>` starts, its `<string>`'s content,
/// and where that `<string>` ends (places in the entry's text).
struct FormPlace {
    category: crate::domain::model::PluralCategory,
    key_start: usize,
    content: Range<usize>,
    end: usize,
}

/// The edits that give a one-variable entry `forms`, form by form inside its variable's
/// dictionary (`<key>one</key>` / `<string>...</string>`), keeping the text its format puts
/// around the variable; `None` when the entry is not of that shape or a form does not carry
/// that text.
fn forms_edits(
    text: &str,
    entry: &Entry,
    forms: &crate::domain::model::PluralForms,
    newline: &str,
) -> Option<Vec<(Range<usize>, String)>> {
    use crate::domain::model::PluralCategory;
    let base = entry.value.start;
    let snippet = &text[entry.value.clone()];
    let mut reader = Reader::from_str(snippet);
    let mut depth = 0usize;
    let mut key: Option<String> = None;
    let mut format: Option<String> = None;
    let mut variables: Vec<Variable> = Vec::new();
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event().ok()? {
            Event::Start(start) if start.name().as_ref() == b"key" => {
                let name = reader.read_text(start.name()).ok()?;
                key = Some(quick_xml::escape::unescape(&name).ok()?.into_owned());
                if depth == 2 {
                    variables.last_mut()?.last_key = before;
                }
            }
            Event::Start(start) if start.name().as_ref() == b"string" => {
                let content_start = reader.buffer_position() as usize;
                let span = reader.read_to_end(start.name()).ok()?;
                let content = content_start..content_start + (span.end - span.start) as usize;
                let value = quick_xml::escape::unescape(&snippet[content.clone()])
                    .ok()?
                    .into_owned();
                match (depth, key.take()) {
                    (1, Some(name)) if name == "NSStringLocalizedFormatKey" => format = Some(value),
                    (2, Some(name)) => {
                        if let Some(category) = PluralCategory::parse(&name) {
                            let variable = variables.last_mut()?;
                            variable.forms.push(FormPlace {
                                category,
                                key_start: variable.last_key,
                                content,
                                end: reader.buffer_position() as usize,
                            });
                        }
                    }
                    _ => {}
                }
            }
            Event::Start(start) if start.name().as_ref() == b"dict" => {
                depth += 1;
                if depth == 2 {
                    variables.push(Variable {
                        name: key.take()?,
                        forms: Vec::new(),
                        last_key: before,
                    });
                }
            }
            Event::End(end) if end.name().as_ref() == b"dict" => depth = depth.checked_sub(1)?,
            Event::Eof => break,
            _ => {}
        }
    }
    let format = format?;
    let token_names: Vec<&str> = format
        .split("%#@")
        .skip(1)
        .filter_map(|rest| rest.split('@').next())
        .collect();
    let [variable] = token_names[..] else { return None };
    let (prefix, suffix) = format.split_once(&format!("%#@{variable}@"))?;
    let current = &variables.iter().find(|candidate| candidate.name == variable)?.forms;
    let last_end = current.last()?.end;
    let item_indent = indentation_at(snippet, current.first()?.key_start).unwrap_or("\t\t\t");
    let mut edits = Vec::new();
    for (category, text_of_form) in forms.iter() {
        let middle = text_of_form.strip_prefix(prefix)?.strip_suffix(suffix)?;
        let escaped = quick_xml::escape::escape(middle).into_owned();
        match current.iter().find(|place| place.category == category) {
            Some(FormPlace { content, .. }) => {
                if quick_xml::escape::unescape(&snippet[content.clone()]).ok()? != middle {
                    edits.push((base + content.start..base + content.end, escaped));
                }
            }
            None => edits.push((
                base + last_end..base + last_end,
                format!(
                    "{newline}{item_indent}<key>{}</key>{newline}{item_indent}<string>{escaped}</string>",
                    category.name()
                ),
            )),
        }
    }
    for FormPlace {
        category,
        key_start,
        end,
        ..
    } in current
    {
        if forms.get(*category).is_none() {
            let range = start_of_line(text, base + key_start)..end_of_line(text, base + end);
            // A form that goes where another arrives: the whole entry is replaced instead.
            if range.contains(&(base + last_end)) && edits.iter().any(|(edit, _)| edit.is_empty()) {
                return None;
            }
            edits.push((range, String::new()));
        }
    }
    Some(edits)
}

/// An entry as a plist reader reads it (its forms; `None` when it is not one locstore reads).
fn decode(text: &str, entry: &Entry) -> Result<Option<crate::domain::model::Text>, ReadError> {
    let plist = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>{}{}</dict></plist>",
        &text[entry.key.clone()],
        &text[entry.value.clone()]
    );
    Ok(read_stringsdict(plist.as_bytes())?.0.pop().map(|entry| entry.text))
}

/// A snippet of the export with its lines' leading `from` indentation units replaced by `to`.
fn reindent(snippet: &str, from: &str, to: &str, newline: &str) -> String {
    snippet
        .split('\n')
        .enumerate()
        .map(|(index, line)| {
            if index == 0 || from.is_empty() {
                return line.to_owned();
            }
            let mut rest = line;
            let mut levels = 0;
            while let Some(stripped) = rest.strip_prefix(from) {
                rest = stripped;
                levels += 1;
            }
            format!("{}{rest}", to.repeat(levels))
        })
        .collect::<Vec<_>>()
        .join(newline)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n";

    fn entry(name: &str, one: &str, other: &str, indent: &str) -> String {
        let i = |n: usize| indent.repeat(n);
        format!(
            "{}<key>{name}</key>\n{}<dict>\n{}<key>NSStringLocalizedFormatKey</key>\n{}<string>%#@v@</string>\n{}<key>v</key>\n{}<dict>\n{}<key>NSStringFormatSpecTypeKey</key>\n{}<string>NSStringPluralRuleType</string>\n{}<key>NSStringFormatValueTypeKey</key>\n{}<string>d</string>\n{}<key>one</key>\n{}<string>{one}</string>\n{}<key>other</key>\n{}<string>{other}</string>\n{}</dict>\n{}</dict>\n",
            i(1),
            i(1),
            i(2),
            i(2),
            i(2),
            i(2),
            i(3),
            i(3),
            i(3),
            i(3),
            i(3),
            i(3),
            i(3),
            i(3),
            i(2),
            i(1)
        )
    }

    fn patched(local: &str, exported: &str, removed: &[&str]) -> String {
        String::from_utf8(super::super::patched_with(
            patch,
            local.as_bytes(),
            exported,
            None,
            removed,
            false,
        ))
        .unwrap()
    }

    #[test]
    fn entries_change_go_and_arrive_one_by_one_and_the_rest_stays() {
        let mine = "\t<key>several</key>\n\t<dict>\n\t\t<key>NSStringLocalizedFormatKey</key>\n\t\t<string>%#@a@ %#@b@</string>\n\t</dict>\n";
        let local = format!(
            "{HEAD}{}{}{mine}</dict>\n</plist>\n",
            entry("files", "%d file", "%d files", "\t"),
            entry("gone", "x", "xs", "\t")
        );
        let export_same = format!(
            "{HEAD}{}</dict>\n</plist>\n",
            entry("files", "%d file", "%d files", "  ")
        );
        // Equal forms written another way keep the file's bytes; a deleted key goes; an entry
        // locstore does not read stays.
        let expected_same = format!(
            "{HEAD}{}{mine}</dict>\n</plist>\n",
            entry("files", "%d file", "%d files", "\t")
        );
        assert_eq!(patched(&local, &export_same, &["gone"]), expected_same);
        let export = format!(
            "{HEAD}{}{}</dict>\n</plist>\n",
            entry("files", "%d file", "%d FILES", "  "),
            entry("new", "%d new", "%d news", "  ")
        );
        assert_eq!(
            patched(&local, &export, &["gone"]),
            format!(
                "{HEAD}{}{mine}{}</dict>\n</plist>\n",
                entry("files", "%d file", "%d FILES", "\t"),
                entry("new", "%d new", "%d news", "\t")
            )
        );
    }
}
