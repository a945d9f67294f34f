//! XLIFF files patched in place, unit by unit: a unit whose source, target (with its state)
//! and, in the base language's file, note say what the server says keeps its bytes; a changed
//! one gets the export's element for what changed (`<source>`, `<target>`, `<note>`; in 2.0
//! also the segment's `state`), the rest of the unit (its other notes, `<context-group>`s,
//! attributes) staying; a key the server deleted loses its unit; a unit the server never had
//! stays, as do units repeated in a later `<file>` and units with inline elements; a new key's
//! unit goes after the unit of the nearest key before it in the base file, else before the
//! last `</body>` (`</file>` in 2.0), as the export writes it (Xcode's indentation).
//!
//! A file of the other XLIFF version is written as the export writes it.

use std::collections::HashSet;

use rustc_hash::FxHashMap;
use std::ops::Range;

use super::{Edits, PatchInput, Patched, anchors, end_of_line, indentation_at, line_ending, start_of_line, utf8};
use crate::formats::ReadError;
use crate::formats::xliff::{self, Document, Unit, Version};

/// The names of a file's units, in file order (each once).
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let document = xliff::parse(utf8(bytes)?)?;
    let mut seen = HashSet::new();
    Ok(document
        .units
        .into_iter()
        .map(|unit| unit.data.name)
        .filter(|name| seen.insert(name.clone()))
        .collect())
}

/// What a unit says of its key, as a reader takes it: the source, the text (see
/// [`Unit::text`]) and whether it is outdated. A file without `target-language` is a source
/// file only when it is the base language's: Angular's `messages.es.xlf` is its path's
/// language's, whose `state="new"` targets are not texts.
fn meaning<'u>(document: &Document, unit: &'u Unit, is_base: bool) -> (&'u str, Option<&'u str>, bool) {
    let in_source_file = match document.target_language {
        Some(_) => document.is_source_file(),
        None => is_base,
    };
    // An empty target is no text to the server either: it stays while the server has none.
    let text = unit.text(in_source_file).filter(|text| !text.is_empty());
    let outdated = text.is_some() && unit.data.outdated && !in_source_file;
    (&unit.data.source, text, outdated)
}

/// An XLIFF file read for patching: its units, and where the first unit of each name is
/// (a later unit of the same name is the app's own).
pub struct Local {
    document: Document,
    /// The first unit of each name, by name.
    first: FxHashMap<Box<str>, usize>,
    /// The indexes of those units, in file order.
    firsts: Vec<usize>,
}

impl Local {
    pub fn read(text: &str) -> Result<Self, ReadError> {
        Ok(Self::of(xliff::parse(text)?))
    }

    /// A file parsed before (by the upload's reader) as the patcher reads it.
    pub fn of(document: Document) -> Self {
        let mut first: FxHashMap<Box<str>, usize> = FxHashMap::default();
        first.reserve(document.units.len());
        let mut firsts = Vec::with_capacity(document.units.len());
        for (index, unit) in document.units.iter().enumerate() {
            if let std::collections::hash_map::Entry::Vacant(vacant) = first.entry(unit.data.name.as_str().into()) {
                vacant.insert(index);
                firsts.push(index);
            }
        }
        Self {
            document,
            first,
            firsts,
        }
    }
}

pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let text = utf8(input.local)?;
    let exported_text = utf8(input.exported)?;
    let mut read: Option<Local> = None;
    let local = super::read_ahead(input.prepared, text, &mut read)?;
    let exported = xliff::parse(exported_text)?;
    let whole_export = || Patched::whole_export(input, names);
    if local.document.version != exported.version {
        return whole_export();
    }
    // A fast hash: a file's every unit goes into these (100,000 names at a time).
    let mut theirs: FxHashMap<&str, &Unit> = FxHashMap::default();
    theirs.reserve(exported.units.len());
    for unit in &exported.units {
        theirs.entry(unit.data.name.as_str()).or_insert(unit);
    }
    let newline = line_ending(text);
    let mut edits = Edits::default();
    let mut names: Vec<String> = Vec::with_capacity(if input.is_base { local.firsts.len() } else { 0 });
    for unit in local.firsts.iter().map(|&index| &local.document.units[index]) {
        let name = unit.data.name.as_str();
        match theirs.get(name) {
            Some(their) => {
                if input.is_base {
                    names.push(name.to_owned());
                }
                if unit.unreadable.is_none() {
                    patch_unit(
                        &mut edits,
                        text,
                        exported_text,
                        (&local.document, unit),
                        (&exported, their),
                        input.is_base,
                        newline,
                    );
                }
            }
            // A unit whose id cannot be a key name (Xcode's ids with line breaks) is the app's own.
            None if unit.unreadable.is_none()
                && (input.deleted)(name)
                && crate::domain::names::KeyName::parse(name).is_ok() =>
            {
                edits.replace(lines_of(text, &unit.span), "");
            }
            None if input.is_base => names.push(name.to_owned()),
            None => {}
        }
    }
    // A translation's file gains the units the language has a text of, and units without a
    // target (for a translator to fill) only when it lists units without a `<target>`
    // already, as Xcode's exports do; Symfony's and Crowdin's files hold translated units
    // (Kimai's `needs-translation` targets included) only.
    let lists_untranslated = input.is_base || local.document.units.iter().any(|unit| unit.target.is_none());
    let new: Vec<&Unit> = exported
        .units
        .iter()
        .filter(|unit| !local.first.contains_key(unit.data.name.as_str()))
        .filter(|unit| lists_untranslated || meaning(&exported, unit, false).1.is_some())
        .collect();
    if !new.is_empty() {
        let Some(end) = local.document.end_of_units else {
            return whole_export();
        };
        let new_names: Vec<&str> = new.iter().map(|unit| unit.data.name.as_str()).collect();
        let places = anchors(input.order, &new_names, |name| {
            local
                .first
                .get(name)
                .map(|&index| end_of_line(text, local.document.units[index].span.end))
        });
        for (unit, place) in new.iter().zip(places) {
            let lines = &exported_text[lines_of(exported_text, &unit.span)];
            let mut inserted = lines.replace("\r\n", "\n");
            if newline != "\n" {
                inserted = inserted.replace('\n', newline);
            }
            match place {
                Some(at) => edits.insert(at, inserted),
                None => edits.insert(start_of_line(text, end), inserted),
            }
            if input.is_base {
                names.push(unit.data.name.clone());
            }
        }
    }
    Ok(Patched::of(input, edits, text, names))
}

/// The edits that make one unit say what the export's says.
fn patch_unit(
    edits: &mut Edits,
    text: &str,
    exported_text: &str,
    (local, unit): (&Document, &Unit),
    (exported, their): (&Document, &Unit),
    is_base: bool,
    newline: &str,
) {
    let (own_source, own_target, own_outdated) = meaning(local, unit, is_base);
    let (their_source, their_target, their_outdated) = meaning(exported, their, is_base);
    let element = |range: &Option<Range<usize>>| range.as_ref().map(|range| &exported_text[range.clone()]);
    // After which element of the unit an inserted one goes, with that element's indentation.
    let mut last = unit.source.clone();
    let after = |edits: &mut Edits, anchor: &Option<Range<usize>>, inserted: &str| {
        if let Some(anchor) = anchor {
            let indent = indentation_at(text, anchor.start).unwrap_or_default();
            edits.insert(anchor.end, format!("{newline}{indent}{inserted}"));
        }
    };
    // A source that is the unit's key (Symfony's units keyed by source, Weblate's sources
    // written as the `resname`) is the unit's identity, not the base text: it stays. Else the
    // source is the translator's copy, often older than the base text (Kimai's, even in its
    // English file): it follows the base text when the target or its state changes.
    let target_changed = own_target != their_target || own_outdated != their_outdated;
    if own_source != their_source
        && own_source != unit.data.name
        && target_changed
        && let (Some(own), Some(new)) = (&unit.source, element(&their.source))
    {
        edits.replace(own.clone(), new);
    }
    if target_changed {
        match (&unit.target, element(&their.target)) {
            (Some(own), Some(new)) => edits.replace(own.clone(), new),
            (None, Some(new)) => after(edits, &unit.source, new),
            (Some(own), None) => edits.replace(lines_of(text, own), ""),
            (None, None) => {}
        }
        // 2.0 keeps the state on the segment: its start tag is the export's.
        if local.version == Version::V2
            && let (Some(own), Some(new)) = (&unit.segment, &their.segment)
        {
            edits.replace(start_tag(text, own), &exported_text[start_tag(exported_text, new)]);
        }
    }
    if unit.target.is_some() {
        last = unit.target.clone();
    }
    // An empty `<note/>` (Xcode's) is no description, as the reader takes it.
    let note = |data: &xliff::UnitData| data.note.clone().filter(|note| !note.is_empty());
    if is_base && note(&unit.data) != note(&their.data) {
        match (&unit.note, element(&their.note)) {
            (Some(own), Some(new)) => edits.replace(own.clone(), new),
            (Some(own), None) => edits.replace(lines_of(text, own), ""),
            // 2.0's notes come before the segment; 1.2's note after the target.
            (None, Some(new)) if local.version == Version::V2 => {
                if let Some(segment) = &unit.segment {
                    let line = start_of_line(text, segment.start);
                    let indent = indentation_at(text, segment.start).unwrap_or_default();
                    edits.insert(line, format!("{indent}{new}{newline}"));
                }
            }
            (None, Some(new)) => after(edits, &last, new),
            (None, None) => {}
        }
    }
}

/// An element's whole lines when nothing else is on them, else the element itself.
fn lines_of(text: &str, range: &Range<usize>) -> Range<usize> {
    let start = start_of_line(text, range.start);
    let end = end_of_line(text, range.end);
    if start < range.start && end == range.end {
        return range.clone();
    }
    start..end
}

/// The start tag of an element starting at `range.start`.
fn start_tag(text: &str, range: &Range<usize>) -> Range<usize> {
    let end = text[range.clone()]
        .find('>')
        .map_or(range.end, |at| range.start + at + 1);
    range.start..end
}

#[cfg(test)]
mod tests {
    use super::super::patched_with;
    use super::*;

    const LOCAL: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">
  <file original=\"App/InfoPlist.xcstrings\" source-language=\"en\" target-language=\"de\" datatype=\"plaintext\">
    <header>
      <tool tool-id=\"com.apple.dt.xcode\" tool-name=\"Xcode\" tool-version=\"16.4\" build-num=\"16F6\"/>
    </header>
    <body>
      <trans-unit id=\"CFBundleName\" xml:space=\"preserve\">
        <source>App</source>
        <note>Bundle name</note>
      </trans-unit>
    </body>
  </file>
  <file original=\"App/Localizable.xcstrings\" source-language=\"en\" target-language=\"de\" datatype=\"plaintext\">
    <body>
      <trans-unit id=\"Cancel\" xml:space=\"preserve\">
        <source>Cancel</source>
        <target state=\"translated\">Abbrechen</target>
        <note>Cancel</note>
      </trans-unit>
      <trans-unit id=\"Old\" xml:space=\"preserve\">
        <source>Old</source>
        <target state=\"translated\">Alt</target>
        <note>Old</note>
      </trans-unit>
      <trans-unit id=\"Quit\" xml:space=\"preserve\">
        <source>Quit</source>
        <target state=\"translated\">Beenden</target>
        <note>Quit</note>
      </trans-unit>
      <trans-unit id=\"CFBundleName\" xml:space=\"preserve\">
        <source>Launcher</source>
      </trans-unit>
    </body>
  </file>
</xliff>
";

    fn export(units: &[(&str, &str, Option<&str>, bool)]) -> String {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xliff version=\"1.2\">\n  <file source-language=\"en\" target-language=\"de\">\n    <body>\n",
        );
        for (name, source, target, outdated) in units {
            let unit = xliff::UnitData {
                name: name.to_string(),
                translate: true,
                source: source.to_string(),
                target: target.map(str::to_owned),
                outdated: *outdated,
                note: Some(if *name == "CFBundleName" { "Bundle name" } else { name }.to_string()),
                markup: false,
            };
            xliff::write_unit_v1(&mut out, unit.as_text(), "      ", "\n");
        }
        out.push_str("    </body>\n  </file>\n</xliff>\n");
        out
    }

    #[test]
    fn a_file_saying_what_the_server_says_keeps_its_bytes() {
        let exported = export(&[
            ("CFBundleName", "App", None, false),
            ("Cancel", "Cancel", Some("Abbrechen"), false),
            ("Old", "Old", Some("Alt"), false),
            ("Quit", "Quit", Some("Beenden"), false),
        ]);
        let patched = patched_with(patch, LOCAL.as_bytes(), &exported, None, &[], false);
        assert_eq!(String::from_utf8(patched).unwrap(), LOCAL);
    }

    #[test]
    fn changes_touch_only_their_elements() {
        let exported = export(&[
            ("CFBundleName", "App", Some("Anwendung"), false),
            ("Cancel", "Cancel", Some("Abbruch"), true),
            ("New", "New", Some("Neu"), false),
            ("Quit", "Quit", Some("Beenden"), false),
        ]);
        let order = ["CFBundleName", "Cancel", "New", "Quit"];
        let patched = patched_with(patch, LOCAL.as_bytes(), &exported, Some(&order), &["Old"], false);
        let patched = String::from_utf8(patched).unwrap();
        let expected = LOCAL
            .replace(
                "<source>App</source>\n",
                "<source>App</source>\n        <target state=\"translated\">Anwendung</target>\n",
            )
            .replace(
                "<target state=\"translated\">Abbrechen</target>",
                "<target state=\"needs-review-translation\">Abbruch</target>",
            )
            .replace(
                "      <trans-unit id=\"Old\" xml:space=\"preserve\">\n        <source>Old</source>\n        <target state=\"translated\">Alt</target>\n        <note>Old</note>\n      </trans-unit>\n",
                "      <trans-unit id=\"New\" xml:space=\"preserve\">\n        <source>New</source>\n        <target state=\"translated\">Neu</target>\n        <note>New</note>\n      </trans-unit>\n",
            );
        assert_eq!(patched, expected);
        // The repeated `CFBundleName` of the second file is the app's own.
        assert!(patched.contains("<source>Launcher</source>\n      </trans-unit>"));
    }

    #[test]
    fn notes_change_in_the_base_file_only() {
        let local = LOCAL
            .replace("target-language=\"de\"", "target-language=\"en\"")
            .replace("Abbrechen", "Cancel")
            .replace(">Alt<", ">Old<")
            .replace("Beenden", "Quit");
        let mut exported = export(&[
            ("CFBundleName", "App", Some("App"), false),
            ("Cancel", "Cancel", Some("Cancel"), false),
            ("Old", "Old", Some("Old"), false),
            ("Quit", "Quit", Some("Quit"), false),
        ])
        .replace("target-language=\"de\"", "target-language=\"en\"");
        exported = exported.replace("<note>Quit</note>", "<note>Leave the app</note>");
        let patched = patched_with(patch, local.as_bytes(), &exported, None, &[], true);
        let patched = String::from_utf8(patched).unwrap();
        assert_eq!(
            patched,
            local.replace("<note>Quit</note>", "<note>Leave the app</note>")
        );
        let untouched = patched_with(patch, local.as_bytes(), &exported, None, &[], false);
        assert_eq!(String::from_utf8(untouched).unwrap(), local);
    }

    /// A Symfony translation file as Kimai keeps it: `resname` keys, sources that are the key
    /// or the translator's older copy of the English text.
    const KIMAI_DE: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">
  <file source-language=\"en\" target-language=\"de\" datatype=\"plaintext\" original=\"email.en.xlf\">
    <body>
      <trans-unit id=\"G2mhn_2\" resname=\"reset.title\" xml:space=\"preserve\" approved=\"yes\">
        <source>Forgot your password?</source>
        <target state=\"final\">Bei Ihrem Konto anmelden</target>
      </trans-unit>
      <trans-unit id=\"6u6oCwB\" resname=\"The email is already used.\">
        <source>The email is already used.</source>
        <target>Diese E-Mail-Adresse wird bereits verwendet.</target>
      </trans-unit>
    </body>
  </file>
</xliff>
";

    #[test]
    fn a_translators_older_source_and_a_source_that_is_the_key_stay_until_the_target_changes() {
        let exported = export(&[
            (
                "reset.title",
                "Sign in to your account",
                Some("Bei Ihrem Konto anmelden"),
                false,
            ),
            (
                "The email is already used.",
                "This e-mail address is already in use.",
                Some("Diese E-Mail-Adresse wird bereits verwendet."),
                false,
            ),
        ]);
        let patched = patched_with(patch, KIMAI_DE.as_bytes(), &exported, None, &[], false);
        assert_eq!(String::from_utf8(patched).unwrap(), KIMAI_DE);
        // A changed target brings the base text along as the source, but never over the key.
        let changed = exported.replace("Bei Ihrem Konto anmelden", "Anmelden").replace(
            "Diese E-Mail-Adresse wird bereits verwendet.",
            "Diese E-Mail-Adresse ist vergeben.",
        );
        let patched = String::from_utf8(patched_with(patch, KIMAI_DE.as_bytes(), &changed, None, &[], false)).unwrap();
        assert!(
            patched.contains("<source>Sign in to your account</source>"),
            "{patched}"
        );
        assert!(
            patched.contains("<source>The email is already used.</source>"),
            "{patched}"
        );
        assert!(
            patched.contains(">Diese E-Mail-Adresse ist vergeben.</target>"),
            "{patched}"
        );
    }

    #[test]
    fn an_angular_translation_keeps_its_new_targets_and_translated_files_gain_no_empty_units() {
        // Angular's `messages.es.xlf`: no `target-language`, `state="new"` targets that are
        // still the English text; the export (of `es`) has no target for them.
        let local = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>
<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">
  <file source-language=\"en\" datatype=\"plaintext\" original=\"ng2.template\">
    <body>
      <trans-unit id=\"4472298507300372923\" datatype=\"html\">
        <source>View and manage</source>
        <target state=\"new\">View and manage</target>
        <context-group purpose=\"location\">
          <context context-type=\"linenumber\">23</context>
        </context-group>
      </trans-unit>
    </body>
  </file>
</xliff>
";
        let exported = export(&[("4472298507300372923", "View and manage", None, false)]);
        let patched = patched_with(patch, local.as_bytes(), &exported, None, &[], false);
        assert_eq!(String::from_utf8(patched).unwrap(), local);
        // Kimai's German file holds translated units only: a key without German text
        // (`reset.intro`, untranslated there) gets no unit.
        let exported = export(&[
            (
                "reset.title",
                "Sign in to your account",
                Some("Bei Ihrem Konto anmelden"),
                false,
            ),
            (
                "reset.intro",
                "This link will only be valid for the next 15 minutes.",
                None,
                false,
            ),
            (
                "The email is already used.",
                "This e-mail address is already in use.",
                Some("Diese E-Mail-Adresse wird bereits verwendet."),
                false,
            ),
        ]);
        let patched = patched_with(patch, KIMAI_DE.as_bytes(), &exported, None, &[], false);
        assert_eq!(String::from_utf8(patched).unwrap(), KIMAI_DE);
    }

    #[test]
    fn an_empty_note_is_no_description_and_stays() {
        // Vienna's `en.xliff` from Xcode 11: `<note/>` on the stringsdict units.
        let local = "<xliff version=\"1.2\">
  <file source-language=\"en\" target-language=\"en\">
    <body>
      <trans-unit id=\"/%d new articles retrieved:dict/NSStringLocalizedFormatKey:dict/:string\" xml:space=\"preserve\">
        <source>%#@articles@</source>
        <target>%#@articles@</target>
        <note/>
      </trans-unit>
    </body>
  </file>
</xliff>
";
        let exported = export(&[(
            "/%d new articles retrieved:dict/NSStringLocalizedFormatKey:dict/:string",
            "%#@articles@",
            Some("%#@articles@"),
            false,
        )])
        .replace(
            "<note>/%d new articles retrieved:dict/NSStringLocalizedFormatKey:dict/:string</note>",
            "",
        );
        let patched = patched_with(patch, local.as_bytes(), &exported, None, &[], true);
        assert_eq!(String::from_utf8(patched).unwrap(), local);
    }
}
