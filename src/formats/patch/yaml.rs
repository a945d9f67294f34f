//! Rails YAML files (and Symfony's, whose root holds the keys) patched in place, key by key:
//! a text equal to the server's keeps its bytes (plain, quoted or block, with its trailing
//! comment); a changed one gets the export's double-quoted scalar in its place; a plural
//! key's forms are changed, added and removed one line each; in the base language's file, a
//! changed description replaces the `#` lines above its key. A key the server deleted loses
//! its lines (and its comment); a key the server never had stays, as do lists, aliases and
//! everything else; a new key goes at the end of the deepest mapping of its path that the file
//! has, with the mappings it still needs.
//!
//! A file this cannot patch (a flow mapping to add to, a key that changed between a text and
//! plural forms, a language that is not its root) is written as the export writes it.

// A fast hash: a file's every key goes into these (100,000 names at a time).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{Edits, PatchInput, Patched, end_of_line, line_ending, start_of_line, utf8};
use crate::formats::ReadError;
use crate::formats::yaml::{self, Entry, Node};

/// The names of a file's keys (of its first language), in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let text = utf8(bytes)?;
    let Some(root) = yaml::parse(text)? else {
        return Ok(Vec::new());
    };
    let Node::Mapping { entries, .. } = &root else {
        return Ok(Vec::new());
    };
    let found = if yaml::rooted_by_language(&root) {
        entries
            .first()
            .map(|(_, mapping)| leaf_paths(mapping))
            .unwrap_or_default()
    } else {
        leaf_paths(&root)
    };
    Ok(found.into_iter().map(|leaf| leaf.segments.join(".")).collect())
}

/// A key of the file: its path of mapping keys, its own key and its value, and the way to it
/// from the mapping it was found in (an entry's index at each level).
struct Leaf<'n> {
    segments: Vec<String>,
    way: Vec<usize>,
    entry: &'n Entry,
    node: &'n Node,
}

/// Every key below `mapping`, in file order.
fn leaf_paths(mapping: &Node) -> Vec<Leaf<'_>> {
    fn walk<'n>(mapping: &'n Node, path: &mut Vec<String>, way: &mut Vec<usize>, out: &mut Vec<Leaf<'n>>) {
        let Node::Mapping { entries, .. } = mapping else { return };
        for (index, (entry, node)) in entries.iter().enumerate() {
            path.push(entry.name.clone());
            way.push(index);
            match node {
                Node::Mapping { .. } if node.forms().is_none() => walk(node, path, way, out),
                _ => out.push(Leaf {
                    segments: path.clone(),
                    way: way.clone(),
                    entry,
                    node,
                }),
            }
            path.pop();
            way.pop();
        }
    }
    let mut out = Vec::new();
    walk(mapping, &mut Vec::new(), &mut Vec::new(), &mut out);
    out
}

/// Where a node's text ends: a block mapping's at its last value (its own end is where the
/// next key starts).
fn value_end(node: &Node) -> usize {
    match node {
        Node::Mapping {
            entries, flow: false, ..
        } => entries.last().map_or(node.span().start, |(_, last)| value_end(last)),
        _ => node.span().end,
    }
}

/// What a key says, as the reader takes it.
#[derive(PartialEq)]
enum Meaning<'n> {
    Text(&'n str),
    Forms(Vec<(crate::domain::model::PluralCategory, &'n str)>),
    Other,
}

fn meaning(node: &Node) -> Meaning<'_> {
    match node {
        Node::Scalar { null: false, value, .. } => Meaning::Text(value),
        Node::Mapping { .. } => node.forms().map_or(Meaning::Other, Meaning::Forms),
        _ => Meaning::Other,
    }
}

/// The language mapping of a file whose root key names `language` (folding case and `-`/`_`),
/// with its place among the root's keys; a file of one root key is that language's whatever
/// the key says (the path's language wins: a `de-DE/` folder's files may say `de:`).
fn language_mapping<'n>(root: &'n Option<Node>, language: &str) -> Option<(usize, &'n Node)> {
    let fold = |name: &str| name.to_ascii_lowercase().replace('_', "-");
    let Some(whole @ Node::Mapping { entries, .. }) = root else {
        return None;
    };
    // A Symfony file: the root holds the keys.
    if !yaml::rooted_by_language(whole) {
        return Some((0, whole));
    }
    let index = match entries.as_slice() {
        [_] => 0,
        _ => entries
            .iter()
            .position(|(entry, _)| fold(&entry.name) == fold(language))?,
    };
    Some((index, &entries[index].1))
}

/// Where `language`'s part of a file of several languages is (Rails merges
/// `config/locales/overrides.yml` holding `en:` and `nl:` as it merges one file per locale):
/// from its root key's line (the file's start, for the first root) to the next root key's
/// line, a file of that language alone to patch. `None` when no root names the language
/// (folding case and `-`/`_`; of a root given twice, the last, which Ruby reads), or the roots
/// are not languages written as block keys.
pub fn language_part(text: &str, language: &str) -> Result<Option<std::ops::Range<usize>>, ReadError> {
    let fold = |name: &str| name.to_ascii_lowercase().replace('_', "-");
    let root = yaml::parse(text)?;
    let Some(
        whole @ Node::Mapping {
            entries, flow: false, ..
        },
    ) = &root
    else {
        return Ok(None);
    };
    if !yaml::rooted_by_language(whole) {
        return Ok(None);
    }
    let Some(index) = entries
        .iter()
        .rposition(|(entry, _)| fold(&entry.name) == fold(language))
    else {
        return Ok(None);
    };
    let start = match index {
        0 => 0,
        _ => start_of_line(text, entries[index].0.span.start),
    };
    let end = entries
        .get(index + 1)
        .map_or(text.len(), |(next, _)| start_of_line(text, next.span.start));
    Ok(Some(start..end))
}

/// An export's file (`fr:` and its keys two spaces in) as a file of the keys alone, at the
/// root.
fn without_root(exported: &str) -> String {
    let mut lines = exported.lines();
    let _root = lines.next();
    let mut out = String::with_capacity(exported.len());
    for line in lines {
        out.push_str(line.strip_prefix("  ").unwrap_or(line));
        out.push('\n');
    }
    out
}

/// A YAML file read for patching: its nodes, and the keys of its first language.
pub struct Local {
    root: Option<Node>,
    /// The keys under the root's first key (the file's language).
    first: Keys,
}

impl Local {
    pub fn read(text: &str) -> Result<Self, ReadError> {
        let root = yaml::parse(text)?;
        let first = match &root {
            Some(whole) if !yaml::rooted_by_language(whole) => Some(Keys::of(whole)),
            Some(Node::Mapping { entries, .. }) => entries.first().map(|(_, mapping)| Keys::of(mapping)),
            _ => None,
        };
        Ok(Self {
            root,
            first: first.unwrap_or_default(),
        })
    }
}

/// The keys of a language's mapping, each once: its dotted name and the way to it from the
/// mapping, an entry's index at each level. Of a name given twice the last is the one Ruby
/// reads, so it is the one compared; the earlier stays as written.
#[derive(Default)]
struct Keys {
    ways: Vec<(String, Vec<usize>)>,
    names: HashSet<String>,
}

impl Keys {
    fn of(mapping: &Node) -> Self {
        let mut keys = Self::default();
        for leaf in leaf_paths(mapping) {
            let name = leaf.segments.join(".");
            if keys.names.insert(name.clone()) {
                keys.ways.push((name, leaf.way));
            } else if let Some((_, way)) = keys.ways.iter_mut().find(|(known, _)| *known == name) {
                *way = leaf.way;
            }
        }
        keys
    }
}

/// The entry and value a way leads to from `mapping`.
fn resolve<'n>(mut mapping: &'n Node, way: &[usize]) -> Option<(&'n Entry, &'n Node)> {
    let mut found = None;
    for &index in way {
        let Node::Mapping { entries, .. } = mapping else {
            return None;
        };
        let (entry, node) = entries.get(index)?;
        found = Some((entry, node));
        mapping = node;
    }
    found
}

pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let text = utf8(input.local)?;
    let exported_text = utf8(input.exported)?;
    let exported_root = yaml::parse(exported_text)?;
    let whole_export = || Patched::whole_export(input, names);
    let Some(Node::Mapping { entries: roots, .. }) = &exported_root else {
        return whole_export();
    };
    let Some((language, theirs)) = roots.first().map(|(entry, node)| (entry.name.as_str(), node)) else {
        return whole_export();
    };
    let mut read: Option<Local> = None;
    let prepared = super::read_ahead(input.prepared, text, &mut read)?;
    let Some((index, ours)) = language_mapping(&prepared.root, language) else {
        // A file without keys (wallabag's `{}`, a Symfony catalogue not translated yet): it
        // stays while the export has none, and gets the export's keys at its root, in the
        // shape of a catalogue whose path names its language, when it has some. (No Rails
        // file is written `{}`: its root key is its language.)
        if prepared.first.ways.is_empty()
            && matches!(&prepared.root, Some(Node::Mapping { entries, .. }) if entries.is_empty())
        {
            if leaf_paths(theirs).is_empty() {
                return Ok(Patched::of(input, Edits::default(), text, Vec::new()));
            }
            return Patched::whole_file(input, without_root(exported_text).into_bytes(), names);
        }
        return whole_export();
    };
    // The file's first language is the one read ahead (a file of one language, as Rails has).
    let computed;
    let keys = if index == 0 {
        &prepared.first
    } else {
        computed = Keys::of(ours);
        &computed
    };
    let exported = leaf_paths(theirs);
    let their_leaves: HashMap<String, &Leaf<'_>> =
        exported.iter().map(|leaf| (leaf.segments.join("."), leaf)).collect();
    // The file's lines, for the comments above keys (compared in the base language's file).
    let local_lines: std::cell::OnceCell<Vec<&str>> = std::cell::OnceCell::new();
    let exported_lines: Vec<&str> = exported_text.lines().collect();
    let newline = line_ending(text);
    let mut edits = Edits::default();
    let mut names = Vec::new();
    let present = &keys.names;
    for (name, way) in &keys.ways {
        let Some((entry, node)) = resolve(ours, way) else {
            continue;
        };
        match their_leaves.get(name) {
            Some(their) => {
                if input.is_base {
                    names.push(name.clone());
                }
                let (own, new) = (meaning(node), meaning(their.node));
                if own != new {
                    match (&own, node, their.node) {
                        (Meaning::Text(_), _, Node::Scalar { .. })
                        | (Meaning::Other, Node::Scalar { .. }, Node::Scalar { .. }) => {
                            replace_value(&mut edits, text, entry, node, &exported_text[their.node.span()]);
                        }
                        (
                            Meaning::Forms(_),
                            Node::Mapping {
                                flow: false, entries, ..
                            },
                            Node::Mapping { entries: new_forms, .. },
                        ) => {
                            patch_forms(&mut edits, text, exported_text, entries, new_forms, newline);
                        }
                        _ => return whole_export(),
                    }
                }
                if input.is_base {
                    let local_lines = local_lines.get_or_init(|| text.lines().collect());
                    let own_note = yaml::comment_above(local_lines, entry.line);
                    let new_note = yaml::comment_above(&exported_lines, their.entry.line);
                    if own_note != new_note {
                        let key_line = start_of_line(text, entry.span.start);
                        let indent = &text[key_line..entry.span.start];
                        let comment_start = comment_start(text, key_line);
                        let mut comment = String::new();
                        yaml::push_comment(&mut comment, indent, new_note.as_deref().unwrap_or_default(), newline);
                        edits.replace(comment_start..key_line, comment);
                    }
                }
            }
            None if (input.deleted)(name) && crate::domain::names::KeyName::parse(name).is_ok() => {
                let key_line = start_of_line(text, entry.span.start);
                edits.replace(comment_start(text, key_line)..end_of_line(text, value_end(node)), "");
            }
            None if input.is_base => names.push(name.clone()),
            None => {}
        }
    }
    // New keys, by the deepest mapping of their path that the file has.
    let mut additions: Vec<Addition<'_>> = Vec::new();
    for leaf in exported
        .iter()
        .filter(|leaf| !present.contains(&leaf.segments.join(".")))
    {
        let mut mapping = ours;
        let mut depth = 0;
        while depth + 1 < leaf.segments.len() {
            let Node::Mapping { entries, .. } = mapping else { break };
            match entries.iter().find(|(entry, _)| entry.name == leaf.segments[depth]) {
                Some((_, child @ Node::Mapping { .. })) if child.forms().is_none() => {
                    mapping = child;
                    depth += 1;
                }
                Some(_) => return whole_export(),
                None => break,
            }
        }
        let Node::Mapping {
            entries, flow: false, ..
        } = mapping
        else {
            return whole_export();
        };
        let (Some((first, _)), Some((_, last))) = (entries.first(), entries.last()) else {
            return whole_export();
        };
        let line = start_of_line(text, first.span.start);
        let (at, indent) = (
            end_of_line(text, value_end(last)),
            text[line..first.span.start].to_owned(),
        );
        names.push(leaf.segments.join("."));
        match additions.iter_mut().find(|addition| addition.at == at) {
            Some(addition) => addition.leaves.push((&leaf.segments[depth..], leaf)),
            None => additions.push(Addition {
                at,
                indent,
                leaves: vec![(&leaf.segments[depth..], leaf)],
            }),
        }
    }
    for Addition { at, indent, leaves } in additions {
        let mut inserted = String::new();
        let mut open: Vec<&str> = Vec::new();
        for (segments, leaf) in leaves {
            let (parents, own) = segments.split_at(segments.len() - 1);
            let shared = open.iter().zip(parents).take_while(|(a, b)| **a == b.as_str()).count();
            open.truncate(shared);
            for parent in &parents[shared..] {
                inserted.push_str(&indent);
                inserted.push_str(&"  ".repeat(open.len()));
                yaml::push_key(&mut inserted, parent);
                inserted.push(':');
                inserted.push_str(newline);
                open.push(parent);
            }
            let pad = format!("{indent}{}", "  ".repeat(open.len()));
            let note = yaml::comment_above(&exported_lines, leaf.entry.line);
            yaml::push_comment(&mut inserted, &pad, note.as_deref().unwrap_or_default(), newline);
            inserted.push_str(&pad);
            yaml::push_key(&mut inserted, &own[0]);
            inserted.push(':');
            match leaf.node {
                Node::Mapping { entries, .. } => {
                    inserted.push_str(newline);
                    for (form, value) in entries {
                        inserted.push_str(&pad);
                        inserted.push_str("  ");
                        inserted.push_str(&form.name);
                        inserted.push_str(": ");
                        inserted.push_str(&exported_text[value.span()]);
                        inserted.push_str(newline);
                    }
                }
                node => {
                    inserted.push(' ');
                    inserted.push_str(&exported_text[node.span()]);
                    inserted.push_str(newline);
                }
            }
        }
        if at > 0 && !text[..at].ends_with('\n') {
            inserted.insert_str(0, newline);
        }
        edits.insert(at, inserted);
    }
    Ok(Patched::of(input, edits, text, names))
}

/// New keys that go at one place: the end of a mapping, indented as its keys are, each with
/// the rest of its path below that mapping.
struct Addition<'n> {
    at: usize,
    indent: String,
    leaves: Vec<(&'n [String], &'n Leaf<'n>)>,
}

/// A plural key's forms made the export's, a line each.
fn patch_forms(
    edits: &mut Edits,
    text: &str,
    exported_text: &str,
    own: &[(Entry, Node)],
    new: &[(Entry, Node)],
    newline: &str,
) {
    let theirs: HashMap<&str, &Node> = new.iter().map(|(entry, node)| (entry.name.as_str(), node)).collect();
    let ours: HashSet<&str> = own.iter().map(|(entry, _)| entry.name.as_str()).collect();
    for (entry, node) in own {
        // A form without a text (`zero:`) or with an empty one (`zero: ""`) is not the
        // server's to remove: the file keeps it.
        let holds_nothing = matches!(node, Node::Scalar { null: true, .. })
            || matches!(node, Node::Scalar { value, .. } if value.is_empty());
        match theirs.get(entry.name.as_str()) {
            Some(their) if meaning(node) != meaning(their) => {
                replace_value(edits, text, entry, node, &exported_text[their.span()]);
            }
            Some(_) => {}
            None if holds_nothing => {}
            None => {
                let line = start_of_line(text, entry.span.start);
                edits.replace(line..end_of_line(text, value_end(node)), "");
            }
        }
    }
    let Some((first, last)) = own.first().zip(own.last()) else {
        return;
    };
    let line = start_of_line(text, first.0.span.start);
    let indent = &text[line..first.0.span.start];
    let at = end_of_line(text, value_end(&last.1));
    for (entry, node) in new.iter().filter(|(entry, _)| !ours.contains(entry.name.as_str())) {
        let mut inserted = String::new();
        if !text[..at].ends_with('\n') {
            inserted.push_str(newline);
        }
        inserted.push_str(indent);
        inserted.push_str(&entry.name);
        inserted.push_str(": ");
        inserted.push_str(&exported_text[node.span()]);
        inserted.push_str(newline);
        edits.insert(at, inserted);
    }
}

/// Puts `value` in place of a key's scalar. A null value (`zero:`) has no text to replace
/// (its span may sit before the colon): the value goes after the key's colon and a space.
fn replace_value(edits: &mut Edits, text: &str, entry: &Entry, node: &Node, value: &str) {
    let span = node.span();
    if !matches!(node, Node::Scalar { null: true, .. }) || !span.is_empty() {
        edits.replace(span, value);
        return;
    }
    match text[entry.span.end..].find(':') {
        Some(colon) => edits.insert(entry.span.end + colon + 1, format!(" {value}")),
        None => edits.replace(span, value),
    }
}

/// The start of the `#` comment lines directly above the line starting at `line`.
fn comment_start(text: &str, line: usize) -> usize {
    let mut start = line;
    while start > 0 {
        let before = &text[..start - 1];
        let previous = before.rfind('\n').map_or(0, |at| at + 1);
        if text[previous..start].trim_start().starts_with('#') {
            start = previous;
        } else {
            break;
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::super::patched_with;
    use super::*;

    const LOCAL: &str = "# French texts of the app\nfr:\n  home:\n    # The title\n    title: Accueil # shown first\n    old: Ancien\n  files:\n    one: un fichier\n    other: '%{count} fichiers'\n  list: [a, b]\n";

    #[test]
    fn a_file_saying_what_the_server_says_keeps_its_bytes() {
        let exported = "fr:\n  files:\n    one: \"un fichier\"\n    other: \"%{count} fichiers\"\n  home:\n    old: \"Ancien\"\n    # The title\n    title: \"Accueil\"\n";
        let patched = patched_with(patch, LOCAL.as_bytes(), exported, None, &[], true);
        assert_eq!(String::from_utf8(patched).unwrap(), LOCAL);
    }

    #[test]
    fn changes_touch_only_their_lines() {
        let exported = "fr:\n  files:\n    few: \"quelques fichiers\"\n    other: \"%{count} fichiers\"\n  home:\n    # The page's title\n    title: \"Bienvenue\"\n  new:\n    deep:\n      a: \"A\"\n      b: \"B\"\n  top: \"Haut\"\n";
        let patched = patched_with(patch, LOCAL.as_bytes(), exported, None, &["home.old", "files"], true);
        let expected = "# French texts of the app\nfr:\n  home:\n    # The page's title\n    title: \"Bienvenue\" # shown first\n  files:\n    other: '%{count} fichiers'\n    few: \"quelques fichiers\"\n  list: [a, b]\n  new:\n    deep:\n      a: \"A\"\n      b: \"B\"\n  top: \"Haut\"\n";
        assert_eq!(String::from_utf8(patched).unwrap(), expected);
    }

    #[test]
    fn a_symfony_file_is_patched_at_its_root() {
        // wallabag's `messages.fr.yml`: four spaces, no language key; an empty `{}` file.
        let local = "security:\n    login:\n        submit: Se connecter\n        on: on\nmenu:\n    left:\n        unread: Non lus\n";
        let exported = "fr:\n  menu:\n    left:\n      starred: \"Favoris\"\n      unread: \"Non lus\"\n  security:\n    login:\n      \"on\": \"on\"\n      submit: \"Connexion\"\n";
        let patched = String::from_utf8(patched_with(patch, local.as_bytes(), exported, None, &[], false)).unwrap();
        assert_eq!(
            patched,
            "security:\n    login:\n        submit: \"Connexion\"\n        on: on\nmenu:\n    left:\n        unread: Non lus\n        starred: \"Favoris\"\n"
        );
        let empty = "{}\n";
        assert_eq!(
            patched_with(patch, empty.as_bytes(), "fr:\n", None, &[], false),
            empty.as_bytes()
        );
        // Translated on the server: the keys at the root, as the app's other catalogues.
        let exported = "fr:\n  menu:\n    # Left\n    left: \"Gauche\"\n";
        assert_eq!(
            patched_with(patch, empty.as_bytes(), exported, None, &[], false),
            b"menu:\n  # Left\n  left: \"Gauche\"\n"
        );
    }

    #[test]
    fn a_file_of_several_languages_is_patched_one_root_at_a_time() {
        // Foodsoft's `overrides.yml`: a comment, then `en:` and `nl:`.
        let local = "# Overrides\nen:\n  number:\n    unit: ! \"€\\u202f\"\n# Dutch\nnl:\n  number:\n    delimiter: ' '\n    unit: ! \"€\\u202f\"\n";
        let english = language_part(local, "en").unwrap().unwrap();
        assert_eq!(
            &local[english.clone()],
            "# Overrides\nen:\n  number:\n    unit: ! \"€\\u202f\"\n# Dutch\n"
        );
        let dutch = language_part(local, "NL").unwrap().unwrap();
        assert_eq!(dutch, english.end..local.len());
        assert_eq!(language_part(local, "de").unwrap(), None);
        assert_eq!(language_part("{en: {a: b}, nl: {a: c}}\n", "nl").unwrap(), None);
        assert_eq!(language_part("home:\n  title: x\n", "home").unwrap(), None);
        // The Dutch part patched alone keeps the English part's bytes.
        let exported = "nl:\n  number:\n    delimiter: \" \"\n    unit: \"€\"\n";
        let part = patched_with(patch, local[dutch.clone()].as_bytes(), exported, None, &[], false);
        assert_eq!(
            String::from_utf8(part).unwrap(),
            "nl:\n  number:\n    delimiter: ' '\n    unit: ! \"€\"\n"
        );
    }

    #[test]
    fn forms_without_a_text_stay_and_a_name_given_twice_is_compared_at_its_last_definition() {
        // GOV.UK's `few:`/`zero:` left empty, an empty `zero: ""`, and Redmine's
        // `two_words_connector` given twice in one mapping (Ruby reads the last).
        let local = "az:\n  documents:\n    few:\n    one: sened\n    other: senedler\n    zero: \"\"\n  array:\n    two: \" ve \"\n    two: \" ve\"\n";
        let exported = "az:\n  array:\n    two: \" ve\"\n  documents:\n    one: \"sened\"\n    other: \"senedler\"\n";
        let patched = patched_with(patch, local.as_bytes(), exported, None, &[], false);
        assert_eq!(String::from_utf8(patched).unwrap(), local);
        // A form given a text on the server gets it after a space.
        let exported = "az:\n  documents:\n    few: \"bir nece\"\n    one: \"sened\"\n    other: \"senedler\"\n";
        let patched = String::from_utf8(patched_with(patch, local.as_bytes(), exported, None, &[], false)).unwrap();
        assert!(
            patched.starts_with("az:\n  documents:\n    few: \"bir nece\"\n    one: sened\n"),
            "{patched}"
        );
    }
}
