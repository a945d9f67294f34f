//! Apple `.strings` files patched in place: entries are compared by the values
//! CoreFoundation reads from them; the file keeps its encoding (UTF-8 or UTF-16, with its
//! byte order mark), its line endings, its comments and its layout.

use std::collections::{HashMap, HashSet};

use super::{Edits, PatchInput, Patched, anchors, end_of_line, line_ending, start_of_line};
use crate::domain::model::Text;
use crate::formats::ReadError;
use crate::formats::apple::{ScannedEntry, decode_strings, escape, is_property_list, scan_strings};

/// The names of a file's entries, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    if is_property_list(bytes) {
        return Ok(crate::formats::apple::read_strings(bytes)?
            .into_iter()
            .map(|entry| entry.name)
            .collect());
    }
    let (text, _) = decode_strings(bytes)?;
    let (_, entries) = scan_strings(&text)?;
    Ok(entries.into_iter().map(|scanned| scanned.entry.name).collect())
}

/// Patches the app's `.strings` file with the export's values (see [`super`]).
pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    if is_property_list(input.local) {
        return super::stringsdict::patch_strings_table(input);
    }
    let (local_text, encoding) = decode_strings(input.local)?;
    let (exported_text, _) = decode_strings(input.exported)?;
    let (chars, local) = scan_strings(&local_text)?;
    let (exported_chars, exported) = scan_strings(&exported_text)?;
    // The patch works on the text as a string; the scanner's places are in characters.
    let offsets: Vec<usize> = local_text
        .char_indices()
        .map(|(offset, _)| offset)
        .chain(std::iter::once(local_text.len()))
        .collect();
    debug_assert_eq!(offsets.len(), chars.len() + 1);
    let byte = |at: usize| offsets[at];
    let newline = line_ending(&local_text);
    let server: HashMap<&str, &ScannedEntry> = exported
        .iter()
        .map(|scanned| (scanned.entry.name.as_str(), scanned))
        .collect();

    let mut edits = Edits::default();
    let mut present: HashSet<&str> = HashSet::new();
    let mut names = Vec::new();
    // A key written twice reads as its last definition (CoreFoundation's table keeps the
    // last), so only that one is compared; the earlier ones stay as they are.
    let last: HashMap<&str, usize> = local
        .iter()
        .enumerate()
        .map(|(index, scanned)| (scanned.entry.name.as_str(), index))
        .collect();
    for (index, scanned) in local.iter().enumerate() {
        let name = scanned.entry.name.as_str();
        let kept = server.contains_key(name) || !(input.deleted)(name);
        let first = present.insert(name);
        if input.is_base && kept && first {
            names.push(name.to_owned());
        }
        if kept && last[name] != index {
            continue;
        }
        match server.get(name) {
            Some(theirs) => {
                let (Text::Plain(old), Text::Plain(new)) = (&scanned.entry.text, &theirs.entry.text) else {
                    continue;
                };
                if old != new {
                    let value = format!("\"{}\"", escape(new));
                    match &scanned.value {
                        Some(range) => edits.replace(byte(range.start)..byte(range.end), value),
                        // `"key";`: the value was the key; it gets one of its own.
                        None => edits.insert(byte(scanned.end - 1), format!(" = {value}")),
                    }
                }
                let description = theirs.entry.description.as_deref().unwrap_or_default();
                let ours = scanned.entry.description.as_deref().unwrap_or_default();
                if input.is_base && !description.is_empty() && description != ours {
                    let comment = format!("/* {} */", description.replace("*/", "* /"));
                    match &scanned.comment {
                        Some(range) => edits.replace(byte(range.start)..byte(range.end), comment),
                        None => edits.insert(byte(scanned.start), format!("{comment}{newline}")),
                    }
                }
            }
            None if !kept => {
                let start = scanned.comment.as_ref().map_or(scanned.start, |comment| comment.start);
                edits.replace(
                    start_of_line(&local_text, byte(start))..end_of_line(&local_text, byte(scanned.end)),
                    "",
                );
            }
            None => {}
        }
    }

    // New keys, each after the nearest earlier key of the base file that this file has.
    let ends: HashMap<&str, usize> = local
        .iter()
        .map(|scanned| (scanned.entry.name.as_str(), end_of_line(&local_text, byte(scanned.end))))
        .collect();
    let ends_with_newline = local_text.is_empty() || local_text.ends_with('\n');
    let new: Vec<&ScannedEntry> = exported
        .iter()
        .filter(|theirs| !present.contains(theirs.entry.name.as_str()))
        .collect();
    let new_names: Vec<&str> = new.iter().map(|theirs| theirs.entry.name.as_str()).collect();
    let anchors = anchors(input.order, &new_names, |name| ends.get(name).copied());
    for (theirs, anchor) in new.into_iter().zip(anchors) {
        let name = theirs.entry.name.as_str();
        if input.is_base {
            names.push(name.to_owned());
        }
        let start = theirs.comment.as_ref().map_or(theirs.start, |comment| comment.start);
        let snippet: String = exported_chars[start..theirs.end].iter().collect();
        let snippet = snippet.replace('\n', newline);
        match anchor {
            // After the predecessor's line; when that line is the file's last and has no
            // line break, the new entry starts one.
            Some(end) if local_text[..end].ends_with('\n') => edits.insert(end, format!("{snippet}{newline}")),
            Some(end) => edits.insert(end, format!("{newline}{snippet}")),
            None if ends_with_newline => edits.insert(local_text.len(), format!("{snippet}{newline}")),
            None => edits.insert(local_text.len(), format!("{newline}{snippet}")),
        }
    }
    Ok(Patched::encoded(input, edits, &local_text, names, |text| {
        encoding.encode(&text)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(local: &[u8], exported: &str, order: Option<&[&str]>, removed: &[&str], is_base: bool) -> Vec<u8> {
        super::super::patched_with(patch, local, exported, order, removed, is_base)
    }

    fn utf16(text: &str) -> Vec<u8> {
        [0xff, 0xfe]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect()
    }

    #[test]
    fn equal_values_keep_their_bytes_and_a_change_touches_only_its_value() {
        let local =
            "// Settings\r\nsettings = \"R\\U00e9glages\";\r\n\"quit\"   =   \"Quit\"; /* trailing */\r\n\"same\";";
        let export = "\"quit\" = \"Quit\";\n\"same\" = \"same\";\n\"settings\" = \"Réglages\";\n";
        assert_eq!(patched(local.as_bytes(), export, None, &[], false), local.as_bytes());
        let export = "\"quit\" = \"Leave \\\"now\\\"\";\n\"same\" = \"same\";\n\"settings\" = \"Réglages\";\n";
        assert_eq!(
            String::from_utf8(patched(local.as_bytes(), export, None, &[], false)).unwrap(),
            "// Settings\r\nsettings = \"R\\U00e9glages\";\r\n\"quit\"   =   \"Leave \\\"now\\\"\"; /* trailing */\r\n\"same\";"
        );
    }

    #[test]
    fn utf16_stays_utf16_and_new_deleted_and_unknown_keys_land_where_they_should() {
        let local = utf16(
            "/* Greeting */\n\"hello\" = \"Hi\";\n\n/* Old */\n\"gone\" = \"G\";\n\"mine\" = \"Added in the app\";",
        );
        let export = "/* Farewell */\n\"bye\" = \"Bye\";\n/* Greeting */\n\"hello\" = \"Hi\";\n";
        let patched = patched(&local, export, Some(&["hello", "bye"]), &["gone"], false);
        assert_eq!(
            patched,
            utf16(
                "/* Greeting */\n\"hello\" = \"Hi\";\n/* Farewell */\n\"bye\" = \"Bye\";\n\n\"mine\" = \"Added in the app\";"
            )
        );
    }

    #[test]
    fn a_key_written_twice_is_compared_at_its_last_definition_and_the_first_stays() {
        // Quicksilver's `de.lproj/Localizable.strings` has "Choose Location..." twice.
        let local =
            "\"Choose Location...\" = \"Ort wählen\";\n\"OK\" = \"OK\";\n\"Choose Location...\" = \"Ort wählen...\";\n";
        let export = "\"Choose Location...\" = \"Ort wählen...\";\n\"OK\" = \"OK\";\n";
        assert_eq!(patched(local.as_bytes(), export, None, &[], true), local.as_bytes());
        let export = "\"Choose Location...\" = \"Ort auswählen...\";\n\"OK\" = \"OK\";\n";
        assert_eq!(
            String::from_utf8(patched(local.as_bytes(), export, None, &[], true)).unwrap(),
            "\"Choose Location...\" = \"Ort wählen\";\n\"OK\" = \"OK\";\n\"Choose Location...\" = \"Ort auswählen...\";\n"
        );
    }

    #[test]
    fn a_table_written_as_a_property_list_is_patched_in_its_own_xml() {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n";
        let local = format!(
            "{head}    <key>AppHideAction</key>\n    <string>Hide</string>\n    <key>Gone</key>\n    <string>G</string>\n    <key>Mine</key>\n    <string>Kept</string>\n</dict>\n</plist>\n"
        );
        // The same values: the file keeps its bytes.
        let same = "\"AppHideAction\" = \"Hide\";\n\"Gone\" = \"G\";\n\"Mine\" = \"Kept\";\n";
        assert_eq!(patched(local.as_bytes(), same, None, &[], true), local.as_bytes());
        // A change, a deleted key, a key the server never had and a new key.
        let export = "\"AppHideAction\" = \"Hide & seek\";\n\"New\" = \"N\";\n";
        assert_eq!(
            String::from_utf8(patched(local.as_bytes(), export, None, &["Gone"], true)).unwrap(),
            format!(
                "{head}    <key>AppHideAction</key>\n    <string>Hide &amp; seek</string>\n    <key>Mine</key>\n    <string>Kept</string>\n    <key>New</key>\n    <string>N</string>\n</dict>\n</plist>\n"
            )
        );
        assert_eq!(names(local.as_bytes()).unwrap(), ["AppHideAction", "Gone", "Mine"]);
    }
}
