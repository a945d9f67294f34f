//! JSON files (`{lang}.json`, flat or nested, plural keys as objects of forms) patched in
//! place: members are compared by their values; a changed string is replaced where it is, a
//! deleted key's member goes with its comma, a new key is added to the object its name leads
//! to (nested objects made for it when the file nests), after its predecessor of the base file
//! when that is in the same object. Indentation, the space after colons, member order, line
//! endings and the final newline stay as the file has them.

use std::collections::BTreeMap;

// A fast hash: a file's every key goes into these (100,000 names at a time).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

mod document;

use super::{Edits, PatchInput, Patched, anchors, end_of_line, line_ending, start_of_line, utf8};
use crate::domain::model::Text;
use crate::formats::ReadError;
use crate::formats::json as json_format;
use document::{Document, ValueKind};

/// The names of a file's keys (flattened with `.`), in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let document = Document::parse(utf8(bytes)?)?;
    Ok(document.leaves().map(|(name, _)| name).collect())
}

/// A JSON file read for patching: its objects and members, and its keys' dotted names.
pub struct Local {
    document: Document,
    /// Every key with a text, by dotted name, in file order.
    leaves: Vec<(String, usize)>,
    /// The same by name (the last of a name given twice).
    by_name: HashMap<String, usize>,
}

impl Local {
    pub fn read(text: &str) -> Result<Self, ReadError> {
        let document = Document::parse(text)?;
        let leaves: Vec<(String, usize)> = document.leaves().collect();
        let by_name = leaves.iter().map(|(name, member)| (name.clone(), *member)).collect();
        Ok(Self {
            document,
            leaves,
            by_name,
        })
    }
}

/// Patches the app's JSON file with the export's values (see [`super`]).
pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    patch_members(input, false)
}

/// Patches an app's ARB file: as JSON, but its `@@` members (`@@locale`, `@@last_modified`)
/// and its `@key` metadata are the app's. Of the metadata only a description the file has is
/// compared; the server's `@@locale` and metadata are added only with a key new to the file,
/// since a pull never adds what the file lacks.
pub fn patch_arb(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    patch_members(input, true)
}

/// Whether a member's text and the server's are ICU plural messages of the same forms.
fn same_plural_message(member: &document::Member, new: &Text) -> bool {
    use crate::formats::icu::read_plural;
    match (&member.value_kind, new) {
        (document::ValueKind::String(own), Text::Plain(theirs)) => {
            matches!((read_plural(own), read_plural(theirs)), (Some(Ok(own)), Some(Ok(theirs))) if own == theirs)
        }
        _ => false,
    }
}

/// The key an ARB member's name belongs to: `count` for `@count.description`; `None` for
/// `@@locale` and the like, which belong to the file.
fn arb_key_of(name: &str) -> Option<&str> {
    match name.strip_prefix('@') {
        Some(meta) if meta.starts_with('@') => None,
        Some(meta) => Some(meta.split('.').next().unwrap_or(meta)),
        None => Some(name),
    }
}

fn patch_members(input: &PatchInput<'_>, arb: bool) -> Result<Patched, ReadError> {
    let text = utf8(input.local)?;
    let mut read: Option<Local> = None;
    let prepared = super::read_ahead(input.prepared, text, &mut read)?;
    let local = &prepared.document;
    let mut server: Vec<(String, Text)> = json_format::read_texts(input.exported)?
        .into_iter()
        .map(|entry| (entry.name, entry.text))
        .collect();
    if arb {
        server.retain(|(name, _)| {
            if !name.starts_with('@') || prepared.by_name.contains_key(name) {
                return !name.starts_with("@@") && (!name.starts_with('@') || name.ends_with(".description"));
            }
            // Metadata the file lacks comes only with its key, new to the file.
            arb_key_of(name).is_some_and(|key| !prepared.by_name.contains_key(key))
        });
    }
    let theirs: HashMap<&str, &Text> = server.iter().map(|(name, text)| (name.as_str(), text)).collect();
    let newline = line_ending(text);
    let style = Style::of(text, local);

    let mut edits = Edits::default();
    let mut names = Vec::new();
    let mut removed = Vec::new();
    for (name, member_index) in &prepared.leaves {
        // Of a name given twice the last is the one the app reads (and the one uploaded):
        // an earlier one stays as written.
        if prepared.by_name.get(name) != Some(member_index) {
            continue;
        }
        let member = &local.members[*member_index];
        match theirs.get(name.as_str()) {
            Some(new) => {
                if input.is_base {
                    names.push(name.clone());
                }
                // An ARB export quotes a text's literal braces (`'{'`); the app's file may
                // write the same text unquoted.
                let same_literal = arb
                    && matches!(new, Text::Plain(quoted) if crate::formats::icu::unquote_literal(quoted)
                        .is_some_and(|literal| member.holds(&Text::Plain(literal))));
                // The same plural forms quoted another way: ICU reads Ente's `l'élément` and the
                // export's `l''élément` alike.
                let same_plural = arb && same_plural_message(member, new);
                if !member.holds(new) && !same_literal && !same_plural {
                    edits.replace(member.value.clone(), style.render(new, &member.indent, newline));
                }
            }
            // An ARB file's metadata (`@key`, `@@locale`) is its own; a deleted key's `@key`
            // goes whole below.
            None if arb && name.starts_with('@') => {}
            None if (input.deleted)(name) => removed.push(*member_index),
            None if input.is_base => names.push(name.clone()),
            None => {}
        }
    }

    if arb && let Some(top) = local.objects.first() {
        for &member in &top.members {
            let name = &local.members[member].name;
            if name.starts_with('@') && arb_key_of(name).is_some_and(|key| (input.deleted)(key)) {
                removed.push(member);
            }
        }
    }
    let removed = with_emptied_objects(local, removed);
    remove(text, local, &removed, &mut edits);

    // New keys, grouped by the object they go into, then laid out as members (nested when
    // the object nests).
    let mut additions: BTreeMap<usize, Vec<(&str, &Text)>> = BTreeMap::new();
    for (name, text) in &server {
        if prepared.by_name.contains_key(name) {
            continue;
        }
        if input.is_base {
            names.push(name.clone());
        }
        let target = local.target_object(name);
        additions.entry(target).or_default().push((name.as_str(), text));
    }
    for (object, keys) in additions {
        let placing = Placing {
            text,
            document: local,
            object,
            leaves: &prepared.by_name,
            order: input.order,
            style: &style,
            newline,
        };
        placing.add(&keys, &mut edits);
    }
    Ok(Patched::of(input, edits, text, names))
}

/// How the file writes members: its indentation unit and what stands between a key and its
/// value.
struct Style {
    unit: String,
    colon: String,
}

impl Style {
    fn of(text: &str, document: &Document) -> Self {
        let first = document
            .objects
            .first()
            .and_then(|top| top.members.first())
            .map(|&member| &document.members[member]);
        let unit = first
            .map(|member| member.indent.clone())
            .filter(|indent| !indent.is_empty())
            .unwrap_or_else(|| "  ".to_owned());
        let colon = first.map_or_else(
            || ": ".to_owned(),
            |member| text[member.key_end..member.value.start].to_owned(),
        );
        Self { unit, colon }
    }

    /// A value in the file's style: a string, or a set of forms one per line.
    fn render(&self, text: &Text, indent: &str, newline: &str) -> String {
        match text {
            Text::Plain(text) => json_string(text),
            Text::Plural(forms) => {
                let inner = format!("{indent}{}", self.unit);
                let lines: Vec<String> = forms
                    .iter()
                    .map(|(category, text)| {
                        format!(
                            "{inner}{}{}{}",
                            json_string(category.name()),
                            self.colon,
                            json_string(text)
                        )
                    })
                    .collect();
                format!("{{{newline}{}{newline}{indent}}}", lines.join(&format!(",{newline}")))
            }
        }
    }
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// The members to remove, an object's member in place of its members when they all go (so
/// that no `"home": {}` is left behind), up to the top object.
fn with_emptied_objects(document: &Document, removed: Vec<usize>) -> Vec<usize> {
    let mut gone = vec![false; document.members.len()];
    for index in removed {
        gone[index] = true;
    }
    // A member holding an object comes after the object's own members (it is recorded once
    // its value is read), so one pass in member order sees every inner object settled first.
    for index in 0..document.members.len() {
        let ValueKind::Object(object) = document.members[index].value_kind else {
            continue;
        };
        let inner = &document.objects[object].members;
        if !gone[index] && !inner.is_empty() && inner.iter().all(|&member| gone[member]) {
            for &member in inner {
                gone[member] = false;
            }
            gone[index] = true;
        }
    }
    (0..gone.len()).filter(|&index| gone[index]).collect()
}

/// Removes deleted keys' members with their commas, keeping the JSON valid: when the
/// members after an object's last kept member all go, that member's comma goes too.
fn remove(text: &str, document: &Document, removed: &[usize], edits: &mut Edits) {
    let gone: HashSet<usize> = removed.iter().copied().collect();
    for &index in removed {
        let member = &document.members[index];
        let end = member.comma.map_or(member.value.end, |comma| comma + 1);
        edits.replace(start_of_line(text, member.start)..end_of_line(text, end), "");
    }
    let parents: std::collections::BTreeSet<usize> =
        removed.iter().map(|&index| document.members[index].parent).collect();
    for parent in parents {
        let members = &document.objects[parent].members;
        let Some(last_kept) = members.iter().rposition(|member| !gone.contains(member)) else {
            continue;
        };
        if last_kept + 1 < members.len()
            && let Some(comma) = document.members[members[last_kept]].comma
        {
            edits.replace(comma..comma + 1, "");
        }
    }
}

/// New keys for one object, laid out as members.
struct Placing<'a> {
    text: &'a str,
    document: &'a Document,
    object: usize,
    /// The file's keys by dotted name, to their members.
    leaves: &'a HashMap<String, usize>,
    order: Option<&'a [String]>,
    style: &'a Style,
    newline: &'a str,
}

/// A new member: a text, or an object made for names that go deeper.
enum Node<'a> {
    Leaf(String, &'a Text),
    Branch(String, Vec<Node<'a>>),
}

impl Placing<'_> {
    fn add(&self, keys: &[(&str, &Text)], edits: &mut Edits) {
        let object = &self.document.objects[self.object];
        // A file that nests objects here gets nested objects for deeper names; a flat one
        // gets the rest of the name as one key.
        let nests = object
            .members
            .iter()
            .any(|&member| matches!(self.document.members[member].value_kind, ValueKind::Object(_)));
        // After the nearest earlier key of the base file that is a member of this object;
        // else at the end.
        let mut anchored: BTreeMap<usize, Vec<Node<'_>>> = BTreeMap::new();
        let mut at_end: Vec<Node<'_>> = Vec::new();
        let names: Vec<&str> = keys.iter().map(|(name, _)| *name).collect();
        let anchors = anchors(self.order, &names, |earlier| {
            let member = *self.leaves.get(earlier)?;
            (self.document.members[member].parent == self.object).then_some(member)
        });
        for ((name, text), anchor) in keys.iter().zip(anchors) {
            let rest = if object.path.is_empty() {
                name
            } else {
                &name[object.path.len() + 1..]
            };
            let segments: Vec<&str> = if nests { rest.split('.').collect() } else { vec![rest] };
            let anchor = anchor.filter(|_| segments.len() == 1);
            let nodes = match anchor {
                Some(member) => anchored.entry(member).or_default(),
                None => &mut at_end,
            };
            insert_node(nodes, &segments, text);
        }
        let indent = self.member_indent();
        for (member, nodes) in anchored {
            let member = &self.document.members[member];
            let block = self.block(&nodes, &indent);
            match member.comma {
                Some(comma) => edits.insert(comma + 1, format!("{block},")),
                None => edits.insert(member.value.end, format!(",{block}")),
            }
        }
        if at_end.is_empty() {
            return;
        }
        let block = self.block(&at_end, &indent);
        match object.members.last() {
            Some(&last) => edits.insert(self.document.members[last].value.end, format!(",{block}")),
            None => {
                let close_indent = indent.strip_suffix(self.style.unit.as_str()).unwrap_or_default();
                edits.insert(object.open + 1, format!("{block}{}{close_indent}", self.newline));
            }
        }
    }

    /// The indentation of this object's members.
    fn member_indent(&self) -> String {
        let object = &self.document.objects[self.object];
        if let Some(&first) = object.members.first() {
            return self.document.members[first].indent.clone();
        }
        let line_start = self.text[..object.open].rfind('\n').map_or(0, |newline| newline + 1);
        let own: String = self.text[line_start..object.open]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        format!("{own}{}", self.style.unit)
    }

    /// Members, each on a line of its own at `indent`, separated by commas.
    fn block(&self, nodes: &[Node<'_>], indent: &str) -> String {
        let members: Vec<String> = nodes
            .iter()
            .map(|node| format!("{}{indent}{}", self.newline, self.member(node, indent)))
            .collect();
        members.join(",")
    }

    fn member(&self, node: &Node<'_>, indent: &str) -> String {
        match node {
            Node::Leaf(name, text) => format!(
                "{}{}{}",
                json_string(name),
                self.style.colon,
                self.style.render(text, indent, self.newline)
            ),
            Node::Branch(name, children) => {
                let inner = format!("{indent}{}", self.style.unit);
                format!(
                    "{}{}{{{}{}{indent}}}",
                    json_string(name),
                    self.style.colon,
                    self.block(children, &inner),
                    self.newline
                )
            }
        }
    }
}

fn insert_node<'a>(nodes: &mut Vec<Node<'a>>, segments: &[&str], text: &'a Text) {
    match segments {
        [] => {}
        [last] => nodes.push(Node::Leaf((*last).to_owned(), text)),
        [first, rest @ ..] => {
            let existing = nodes.iter_mut().find_map(|node| match node {
                Node::Branch(name, children) if name == first => Some(children),
                _ => None,
            });
            match existing {
                Some(children) => insert_node(children, rest, text),
                None => {
                    let mut children = Vec::new();
                    insert_node(&mut children, rest, text);
                    nodes.push(Node::Branch((*first).to_owned(), children));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(local: &str, exported: &str, order: Option<&[&str]>, removed: &[&str], is_base: bool) -> String {
        String::from_utf8(super::super::patched_with(
            patch,
            local.as_bytes(),
            exported,
            order,
            removed,
            is_base,
        ))
        .unwrap()
    }

    #[test]
    fn equal_values_keep_the_files_bytes_and_a_change_replaces_one_string() {
        let local =
            "{\r\n    \"home\": {\r\n        \"title\": \"Home \\u00e9\"\r\n    },\r\n    \"bye\": \"Bye\"\r\n}";
        let export = "{\n  \"bye\": \"Bye\",\n  \"home.title\": \"Home é\"\n}\n";
        assert_eq!(patched(local, export, None, &[], false), local);
        let export = "{\n  \"bye\": \"See \\\"you\\\"\",\n  \"home.title\": \"Home é\"\n}\n";
        assert_eq!(
            patched(local, export, None, &[], false),
            "{\r\n    \"home\": {\r\n        \"title\": \"Home \\u00e9\"\r\n    },\r\n    \"bye\": \"See \\\"you\\\"\"\r\n}"
        );
    }

    #[test]
    fn a_name_given_twice_is_compared_at_its_last_definition() {
        // Flutter Gallery's template defines `shrineProductChambrayShirt` twice.
        let local = "{\n  \"a\": \"First\",\n  \"a\": \"Last\"\n}\n";
        assert_eq!(patched(local, "{\"a\": \"Last\"}", None, &[], true), local);
        assert_eq!(
            patched(local, "{\"a\": \"New\"}", None, &[], true),
            "{\n  \"a\": \"First\",\n  \"a\": \"New\"\n}\n"
        );
    }

    #[test]
    fn deleted_keys_go_with_their_comma_and_unknown_ones_stay() {
        let local = "{\n  \"a\": \"A\",\n  \"mine\": \"Mine\",\n  \"b\": \"B\",\n  \"c\": \"C\"\n}\n";
        let export = "{\n  \"a\": \"A\"\n}\n";
        assert_eq!(
            patched(local, export, None, &["b", "c"], false),
            "{\n  \"a\": \"A\",\n  \"mine\": \"Mine\"\n}\n"
        );
    }

    #[test]
    fn an_object_whose_keys_all_go_goes_with_them() {
        let local = "{\n  \"a\": \"A\",\n  \"home\": {\n    \"deep\": {\n      \"x\": \"X\"\n    },\n    \"y\": \"Y\"\n  }\n}\n";
        let export = "{\n  \"a\": \"A\"\n}\n";
        assert_eq!(
            patched(local, export, None, &["home.deep.x", "home.y"], false),
            "{\n  \"a\": \"A\"\n}\n"
        );
        // One key left keeps its object.
        assert_eq!(
            patched(local, export, None, &["home.deep.x"], false),
            "{\n  \"a\": \"A\",\n  \"home\": {\n    \"y\": \"Y\"\n  }\n}\n"
        );
    }

    #[test]
    fn new_keys_go_into_the_object_their_name_leads_to_after_their_predecessor() {
        let local = "{\n    \"home\": {\n        \"title\": \"Home\"\n    },\n    \"z\": \"Z\"\n}";
        let export = "{\n  \"home.subtitle\": \"Sub\",\n  \"home.title\": \"Home\",\n  \"settings.privacy.title\": \"Privacy\",\n  \"settings.privacy.body\": \"Body\",\n  \"z\": \"Z\",\n  \"files\": {\"one\": \"%d file\", \"other\": \"%d files\"}\n}\n";
        let order = ["home.title", "home.subtitle", "z", "files"];
        assert_eq!(
            patched(local, export, Some(&order), &[], false),
            "{\n    \"home\": {\n        \"title\": \"Home\",\n        \"subtitle\": \"Sub\"\n    },\n    \"z\": \"Z\",\n    \"files\": {\n        \"one\": \"%d file\",\n        \"other\": \"%d files\"\n    },\n    \"settings\": {\n        \"privacy\": {\n            \"body\": \"Body\",\n            \"title\": \"Privacy\"\n        }\n    }\n}"
        );
        // A flat file stays flat.
        let flat = "{\n  \"a.b\": \"1\"\n}\n";
        let export = "{\n  \"a.b\": \"1\",\n  \"a.c\": \"2\"\n}\n";
        assert_eq!(
            patched(flat, export, None, &[], true),
            "{\n  \"a.b\": \"1\",\n  \"a.c\": \"2\"\n}\n"
        );
    }

    fn patched_arb(local: &str, exported: &str, removed: &[&str], is_base: bool) -> String {
        String::from_utf8(super::super::patched_with(
            patch_arb,
            local.as_bytes(),
            exported,
            None,
            removed,
            is_base,
        ))
        .unwrap()
    }

    #[test]
    fn an_arb_pull_adds_no_locale_and_leaves_the_apps_metadata_and_locale_as_they_are() {
        // Finamp's translations have no `@@locale`; FluffyChat's `yue_Hant` says `yue`;
        // the template's placeholder types are the app's (the export writes `num`).
        let local = "{\n    \"count\": \"{count, plural, one{# item} other{# items}}\",\n    \"@count\": {\"description\": \"Items\", \"placeholders\": {\"count\": {\"type\": \"int\", \"example\": \"3\"}}, \"examples\": [\"a\"]},\n    \"hello\": \"Hi\",\n    \"@hello\": {}\n}";
        let export = "{\n  \"@@locale\": \"en\",\n  \"count\": \"{count, plural, one{# item} other{# items}}\",\n  \"@count\": {\n    \"description\": \"Items\",\n    \"placeholders\": {\"count\": {\"type\": \"num\"}}\n  },\n  \"hello\": \"Hi\"\n}\n";
        assert_eq!(patched_arb(local, export, &[], true), local);
        let yue = "{\"@@locale\": \"yue\", \"hello\": \"Hi\"}";
        let export = "{\"@@locale\": \"yue_Hant\", \"hello\": \"Hi\"}";
        assert_eq!(patched_arb(yue, export, &[], false), yue);
        // A changed description is written; a new key comes with its metadata.
        let export = "{\"@@locale\": \"en\", \"count\": \"{count, plural, one{# item} other{# items}}\", \"@count\": {\"description\": \"Things\"}, \"hello\": \"Hi\", \"new\": \"New\", \"@new\": {\"description\": \"D\"}}";
        let patched = patched_arb(local, export, &[], true);
        assert!(
            patched.contains("\"description\": \"Things\", \"placeholders\": {\"count\": {\"type\": \"int\""),
            "{patched}"
        );
        assert!(
            patched.contains("\"@new\": {") && !patched.contains("@@locale"),
            "{patched}"
        );
        // A deleted key's metadata goes with it.
        let export = "{\"hello\": \"Hi\"}";
        assert_eq!(
            patched_arb(local, export, &["count"], true),
            "{\n    \"hello\": \"Hi\",\n    \"@hello\": {}\n}"
        );
    }

    #[test]
    fn a_plural_quoted_another_way_keeps_its_bytes_and_a_changed_one_is_written() {
        // Ente's French: a single apostrophe, which ICU reads as the export's doubled one.
        let local =
            "{\n  \"moveItem\": \"{count, plural,  one {Déplacer l'élément} other {Déplacer les éléments}}\"\n}\n";
        let export = "{\"moveItem\": \"{count, plural, one {Déplacer l''élément} other {Déplacer les éléments}}\"}";
        assert_eq!(patched_arb(local, export, &[], false), local);
        let export = "{\"moveItem\": \"{count, plural, one {Déplacer l''objet} other {Déplacer les éléments}}\"}";
        assert!(patched_arb(local, export, &[], false).contains("l''objet"));
    }

    #[test]
    fn metadata_arrays_over_several_lines_are_passed_over_whole() {
        // Ente's template: `"examples": [` with its items on lines of their own, nested
        // arrays, a `]` inside a string, numbers and literals.
        let local = "{\n  \"usage\": \"Current usage is \",\n  \"@usage\": {\n    \"examples\": [\n      \"Current usage is 1.2 GB\",\n      [\"a]\", 1, true, null, {\"b\": [2]}]\n    ],\n    \"type\": \"text\"\n  },\n  \"size\": 3\n}\n";
        let export = "{\"usage\": \"Usage: \"}";
        let patched = patched_arb(local, export, &[], false);
        assert_eq!(patched, local.replace("\"Current usage is \",", "\"Usage: \","));
    }

    #[test]
    fn a_plurals_forms_are_replaced_in_the_files_layout() {
        let local = "{\"n\":{\"one\":\"%d\",\"other\":\"%d s\"}}";
        let export = "{\n  \"n\": {\n    \"one\": \"%d\",\n    \"other\": \"%d S\"\n  }\n}\n";
        assert_eq!(
            patched(local, export, None, &[], false),
            "{\"n\":{\n  \"one\":\"%d\",\n  \"other\":\"%d S\"\n}}"
        );
    }
}
