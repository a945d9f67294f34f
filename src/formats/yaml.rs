//! Rails i18n YAML: `{lang}.yml` with the language as its root key (`fr:`), names nested at
//! `.` (`home.title` is `home:` / `title:`), a plural key as a mapping of CLDR categories
//! (`one:`, `other:`, as Ruby's `I18n.t(key, count: n)` picks them), and a key's description
//! as the `#` comment lines directly above it.
//!
//! The writer double-quotes every text (so that Ruby's YAML 1.1 reader takes `yes`, `no`, `3`
//! and `~` as texts too) and writes a name that cannot nest because a shorter name holds a text
//! at its prefix (`menu` and `menu.open`) whole, as a dotted key in the deepest mapping there is.
//!
//! Reading is YAML 1.2 (saphyr): each root key is a language; a mapping whose keys are all CLDR
//! categories, `other` among them, is a plural key; other scalars are texts as written (a
//! plain `yes` is the text "yes", where Ruby's YAML 1.1 would make it a boolean); null values,
//! sequences and aliases are passed over with a warning.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, SpannedEventReceiver};

use super::{ExportFile, ParsedEntry, ReadError, ReadWarning, written_texts};
use crate::domain::model::{Key, PluralCategory, PluralForms, Text, TextRef};
use crate::domain::names::LanguageCode;

/// A language's file: `fr.yml`.
pub fn path(language: &LanguageCode) -> String {
    format!("{language}.yml")
}

// ---------------------------------------------------------------------------------------
// Writing

/// Two spaces per level.
fn push_indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A name's nesting: the mapping keys it goes under and its own key, splitting at each `.`
/// with text on both sides (`home.title` is `home`, `title`; `a..b` is `a`, `.b`).
fn segments(name: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at > name.len() {
            return None;
        }
        let rest = &name[at..];
        // A plain scan: names are short, too short for `memchr` to pay for its set-up.
        let split = (rest.bytes().position(|byte| byte == b'.')).filter(|&dot| dot > 0 && dot + 1 < rest.len());
        let range = match split {
            Some(dot) => at..at + dot,
            None => at..name.len(),
        };
        at = range.end + 1;
        Some(range)
    })
}

/// The file of `language`. Keys come sorted by name, so the names under one mapping come
/// together (every name that starts `home.` does) and each mapping is written once, as the
/// names arrive: the open mappings are a stack.
pub fn render(keys: &[impl Borrow<Key>], language: &LanguageCode) -> ExportFile {
    debug_assert!(keys.is_sorted_by(|a, b| a.borrow().name < b.borrow().name));
    // A name that also holds a text cannot be a mapping (`menu` and `menu.open`): the longer
    // name's rest is written whole where `menu` is. Names come sorted, so the names written
    // before this one that start it are a chain, each starting the next (`menu`, `menu-x`):
    // the texts a mapping of this name could be are among them.
    let mut before: Vec<&str> = Vec::new();
    let mut out = String::with_capacity(keys.len() * 80 + 16);
    push_key(&mut out, language.as_str());
    out.push_str(":\n");
    // The open mappings, as ranges of the name that opened them.
    let mut open: Vec<&str> = Vec::new();
    let mut parts: Vec<Range<usize>> = Vec::new();
    for (key, text) in written_texts(keys, language) {
        let name = key.name.as_str();
        while before.last().is_some_and(|last| !name.starts_with(last)) {
            before.pop();
        }
        parts.clear();
        parts.extend(segments(name));
        let (mappings, _) = parts.split_at(parts.len() - 1);
        let shared = open
            .iter()
            .zip(mappings)
            .take_while(|(open, part)| **open == &name[(*part).clone()])
            .count();
        open.truncate(shared);
        let mut own = parts[parts.len() - 1].clone();
        for part in &mappings[shared..] {
            if before.contains(&&name[..part.end]) {
                own = part.start..name.len();
                break;
            }
            push_indent(&mut out, open.len() + 1);
            push_key(&mut out, &name[part.clone()]);
            out.push_str(":\n");
            open.push(&name[part.clone()]);
        }
        before.push(name);
        let depth = open.len() + 1;
        if !key.description.is_empty() {
            push_comment(&mut out, &"  ".repeat(depth), &key.description, "\n");
        }
        push_indent(&mut out, depth);
        push_key(&mut out, &name[own]);
        out.push(':');
        match text {
            TextRef::Plain(value) => {
                out.push(' ');
                push_quoted(&mut out, value);
                out.push('\n');
            }
            TextRef::Plural(forms) => {
                out.push('\n');
                for (category, value) in forms.iter() {
                    push_indent(&mut out, depth + 1);
                    out.push_str(category.name());
                    out.push_str(": ");
                    push_quoted(&mut out, value);
                    out.push('\n');
                }
            }
        }
    }
    ExportFile {
        path: path(language),
        bytes: out.into_bytes(),
    }
}

/// A description as `#` lines, each indented by `indent` and ended by `newline`.
pub fn push_comment(out: &mut String, indent: &str, description: &str, newline: &str) {
    for line in description.lines() {
        out.push_str(indent);
        out.push('#');
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push_str(newline);
    }
}

/// A mapping key: as it is when YAML 1.1 and 1.2 both read it as that text, else quoted.
pub fn push_key(out: &mut String, name: &str) {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        && !is_yaml11_special(name);
    if plain {
        out.push_str(name);
    } else {
        push_quoted(out, name);
    }
}

/// Words YAML 1.1 (Ruby's Psych) reads as booleans or null.
fn is_yaml11_special(word: &str) -> bool {
    word.len() <= 5
        && ["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
            .iter()
            .any(|special| special.eq_ignore_ascii_case(word))
}

/// The bytes that are, or may start, a character [`push_quoted`] escapes.
const MAYBE_ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[0x7f] = true;
    table[0xc2] = true;
    table[0xe2] = true;
    table[0xef] = true;
    table
};

/// A double-quoted scalar: `\` and `"` escaped, control characters as escapes.
pub fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    // A byte scan: the characters to escape are ASCII ones and, beyond ASCII, the C1 controls
    // (`C2 80`..`C2 9F`), U+2028 and U+2029 (`E2 80 A8`/`A9`) and U+FEFF (`EF BB BF`), whose
    // lead bytes never occur inside another character. Runs between them are copied whole.
    let bytes = text.as_bytes();
    let (mut run, mut at) = (0, 0);
    while at < bytes.len() {
        // Most bytes are none of those: skipped by a table lookup each.
        if !MAYBE_ESCAPED[usize::from(bytes[at])] {
            at += 1;
            continue;
        }
        let next = |offset: usize| bytes.get(at + offset).copied();
        let special = match bytes[at] {
            b'"' | b'\\' | 0x00..=0x1f | 0x7f => 1,
            0xc2 if matches!(next(1), Some(0x80..=0x9f)) => 2,
            0xe2 if next(1) == Some(0x80) && matches!(next(2), Some(0xa8 | 0xa9)) => 3,
            0xef if next(1) == Some(0xbb) && next(2) == Some(0xbf) => 3,
            _ => {
                at += 1;
                continue;
            }
        };
        out.push_str(&text[run..at]);
        let c = text[at..].chars().next().unwrap_or_default();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
        at += special;
        run = at;
    }
    out.push_str(&text[run..]);
    out.push('"');
}

// ---------------------------------------------------------------------------------------
// Reading

/// A node of the file, with where it is (byte ranges).
#[derive(Debug)]
pub enum Node {
    Scalar {
        value: String,
        style: ScalarStyle,
        /// The scalar's text as written (for a block scalar, from its `|` or `>` to the end
        /// of its last line).
        span: Range<usize>,
        null: bool,
    },
    Mapping {
        entries: Vec<(Entry, Node)>,
        span: Range<usize>,
        flow: bool,
    },
    /// A sequence or an alias.
    Other { span: Range<usize> },
}

/// A mapping key.
#[derive(Debug)]
pub struct Entry {
    pub name: String,
    pub span: Range<usize>,
    pub line: usize,
    /// Whether the key is a plain scalar (`no:`, not `"no":`).
    pub plain: bool,
}

impl Node {
    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Scalar { span, .. } | Node::Mapping { span, .. } | Node::Other { span } => span.clone(),
        }
    }

    /// A plural key's forms, when this is a mapping of CLDR categories with `other`, or of two
    /// or more without it (Helpy's Russian `one`/`few`/`many`, which Ruby's i18n pluralizes
    /// all the same; the server cannot hold forms without `other`, so the reader passes it
    /// over with a warning, and the file keeps it). A form with no value (`zero:`, as GOV.UK's
    /// files leave the categories a language does not use) is no form: Ruby's i18n finds
    /// nothing there either. One category alone (`zero:`) is a mapping of one text.
    pub fn forms(&self) -> Option<Vec<(PluralCategory, &str)>> {
        let Node::Mapping { entries, .. } = self else {
            return None;
        };
        let mut forms = Vec::with_capacity(entries.len());
        // The categories seen, one bit each: Redmine gives `two:` twice in a mapping of one
        // text, which is one category.
        let mut seen = 0u8;
        for (entry, node) in entries {
            let category = PluralCategory::parse(&entry.name)?;
            seen |= 1 << category as u8;
            match node {
                Node::Scalar { null: true, .. } => {}
                Node::Scalar { value, .. } => forms.push((category, value.as_str())),
                _ => return None,
            }
        }
        let has_other = seen & (1 << PluralCategory::Other as u8) != 0;
        (has_other || seen.count_ones() >= 2).then_some(forms)
    }
}

/// The root keys of a file whose root is a mapping (a Rails file's languages, in file
/// order); `None` for a file that does not parse or whose root is no mapping.
pub fn root_keys(text: &str) -> Option<Vec<String>> {
    match parse(text) {
        Ok(Some(Node::Mapping { entries, .. })) => Some(entries.into_iter().map(|(entry, _)| entry.name).collect()),
        _ => None,
    }
}

/// Parses a YAML file into its root node (`None` for an empty file).
pub fn parse(text: &str) -> Result<Option<Node>, ReadError> {
    parse_with_aliases(text).map(|(root, _)| root)
}

/// The names an alias of an anchored mapping stands for, by where the alias is (the start
/// of its node's span): the anchored mapping's leaves, as dotted names below it.
type Aliased = HashMap<usize, Vec<String>>;

/// [`parse`], and what each alias of a mapping stands for (a merge key `<<: *defaults` brings
/// those names into the mapping it is in).
fn parse_with_aliases(text: &str) -> Result<(Option<Node>, Aliased), ReadError> {
    let mut builder = Builder {
        text,
        bytes: text.char_indices().map(|(at, _)| at).chain([text.len()]).collect(),
        stack: Vec::new(),
        root: None,
        line: 0,
        anchors: Vec::new(),
        anchored: HashMap::new(),
        aliased: HashMap::new(),
    };
    let mut parser = Parser::new_from_str(text);
    parser
        .load(&mut builder, false)
        .map_err(|err| ReadError::at(err.marker().line(), err.info().to_owned()))?;
    let mut root = builder.root;
    if let Some(root @ Node::Mapping { .. }) = &mut root
        && rooted_by_language(root)
        && let Node::Mapping { entries, .. } = root
    {
        for (_, language) in entries {
            name_keys_as_ruby_does(language);
        }
    }
    Ok((root, builder.aliased))
}

/// Builds the node tree from the parser's events.
struct Builder<'t> {
    text: &'t str,
    /// The byte offset of each character (the parser counts characters).
    bytes: Vec<usize>,
    stack: Vec<(Node, Option<Entry>)>,
    root: Option<Node>,
    /// The line of the event being handled (1-based).
    line: usize,
    /// The anchor of each node on the stack (0: none).
    anchors: Vec<usize>,
    /// The leaves of each anchored mapping, by anchor.
    anchored: HashMap<usize, Vec<String>>,
    aliased: Aliased,
}

impl Builder<'_> {
    fn range(&self, span: Span) -> Range<usize> {
        let at = |index: usize| self.bytes.get(index).copied().unwrap_or(self.text.len());
        at(span.start.index())..at(span.end.index())
    }

    /// Adds a finished node to the mapping being built (as a key, or as the value of the
    /// key before it), or makes it the root.
    fn add(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some((Node::Mapping { entries, .. }, pending)) => match pending.take() {
                Some(entry) => entries.push((entry, node)),
                None => {
                    let (name, span, plain) = match &node {
                        Node::Scalar { value, span, style, .. } => {
                            (value.clone(), span.clone(), *style == ScalarStyle::Plain)
                        }
                        other => (String::new(), other.span(), false),
                    };
                    *pending = Some(Entry {
                        name,
                        span,
                        line: self.line,
                        plain,
                    });
                }
            },
            Some(_) => {}
        }
    }
}

/// Names the keys below a Rails file's languages as Ruby's YAML 1.1 reader (Psych) gives them
/// to Rails: a plain `no`, `off` or `false` (any case) is the key `false`, `yes`, `on` or
/// `true` the key `true` (Alchemy's `no: "No"` is found as `false`, its quoted `"no":` as
/// `no`). A Symfony file's keys stay as written: Symfony's reader takes `on:` as `on`.
fn name_keys_as_ruby_does(node: &mut Node) {
    let Node::Mapping { entries, .. } = node else { return };
    for (entry, value) in entries {
        if entry.plain {
            for (words, name) in [(["yes", "on", "true"], "true"), (["no", "off", "false"], "false")] {
                if words.iter().any(|word| entry.name.eq_ignore_ascii_case(word)) {
                    entry.name = name.to_owned();
                }
            }
        }
        name_keys_as_ruby_does(value);
    }
}

impl<'input> SpannedEventReceiver<'input> for Builder<'_> {
    fn on_event(&mut self, event: Event<'input>, span: Span) {
        let range = self.range(span);
        self.line = span.start.line();
        match event {
            Event::Scalar(value, style, _, _) => {
                let mut range = range;
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                    // From the indicator (`|`, `>-`) to the end of the last line of text.
                    let before = &self.text[..range.start];
                    let indicator = before.rfind(['|', '>']).unwrap_or(range.start);
                    let content = &self.text[range.clone()];
                    let end = content.trim_end_matches([' ', '\t']).trim_end_matches(['\n', '\r']);
                    range = indicator..range.start + end.len();
                }
                let null = style == ScalarStyle::Plain && matches!(&*value, "~" | "null" | "Null" | "NULL" | "");
                self.add(Node::Scalar {
                    value: value.into_owned(),
                    style,
                    span: range,
                    null,
                });
            }
            Event::MappingStart(anchor, _) => {
                self.anchors.push(anchor);
                let flow = self.text[range.clone()].starts_with('{');
                self.stack.push((
                    Node::Mapping {
                        entries: Vec::new(),
                        span: range,
                        flow,
                    },
                    None,
                ));
            }
            Event::MappingEnd => {
                if let Some((mut node, _)) = self.stack.pop() {
                    if let Node::Mapping { span, .. } = &mut node {
                        span.end = range.end.max(span.start);
                    }
                    let anchor = self.anchors.pop().unwrap_or_default();
                    if anchor != 0 {
                        let mut found = Vec::new();
                        leaves(&node, "", &mut found);
                        let names = found.into_iter().map(|(name, _, _)| name).collect();
                        self.anchored.insert(anchor, names);
                    }
                    self.add(node);
                }
            }
            Event::SequenceStart(..) => {
                self.anchors.push(0);
                self.stack.push((Node::Other { span: range }, None));
            }
            Event::SequenceEnd => {
                self.anchors.pop();
                if let Some((mut node, _)) = self.stack.pop() {
                    if let Node::Other { span } = &mut node {
                        span.end = range.end;
                    }
                    self.add(node);
                }
            }
            Event::Alias(anchor) => {
                if let Some(names) = self.anchored.get(&anchor) {
                    self.aliased.insert(range.start, names.clone());
                }
                self.add(Node::Other { span: range });
            }
            _ => {}
        }
    }
}

/// The leaves of a language's mapping: each key's dotted name and node, in file order.
pub fn leaves<'n>(mapping: &'n Node, prefix: &str, out: &mut Vec<(String, &'n Entry, &'n Node)>) {
    let Node::Mapping { entries, .. } = mapping else { return };
    for (entry, node) in entries {
        let name = if prefix.is_empty() {
            entry.name.clone()
        } else {
            format!("{prefix}.{}", entry.name)
        };
        match node {
            Node::Mapping { .. } if node.forms().is_none() => leaves(node, &name, out),
            _ => out.push((name, entry, node)),
        }
    }
}

/// The description of the entry at `line` (1-based) of `lines`: the `#` comment lines
/// directly above it.
pub fn comment_above(lines: &[&str], line: usize) -> Option<String> {
    let mut comment: Vec<&str> = lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|line| line.trim())
        .take_while(|line| line.starts_with('#'))
        .map(|line| {
            let line = line.trim_start_matches('#');
            line.strip_prefix(' ').unwrap_or(line)
        })
        .collect();
    comment.reverse();
    (!comment.is_empty()).then(|| comment.join("\n"))
}

/// A file read: each root key's language and its entries, and the values passed over.
#[derive(Debug, Default)]
pub struct ReadFile {
    pub languages: Vec<(String, Vec<ParsedEntry>)>,
    pub warnings: Vec<ReadWarning>,
}

/// Whether a file's root keys are its languages (Rails: `fr:`), rather than its keys (a
/// Symfony app's `messages.fr.yaml`, whose path alone names the language): every root key
/// is a language code. An empty file is either.
pub fn rooted_by_language(root: &Node) -> bool {
    match root {
        Node::Mapping { entries, .. } => entries
            .iter()
            .all(|(entry, _)| LanguageCode::parse(&entry.name).is_ok()),
        _ => true,
    }
}

/// Reads a file: every root key is a language (see the module's notes).
pub fn read(bytes: &[u8]) -> Result<ReadFile, ReadError> {
    read_in(bytes, None)
}

/// Reads a file of the language its path names: a Rails file by its root keys (the path's
/// language wins over a single one, as the caller decides), a Symfony file, whose root keys
/// are not languages, as that language's keys.
pub fn read_in(bytes: &[u8], path_language: Option<&str>) -> Result<ReadFile, ReadError> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))?;
    let mut read = ReadFile::default();
    let (root, aliased) = parse_with_aliases(text)?;
    let Some(root) = root else {
        return Ok(read);
    };
    let Node::Mapping { entries, .. } = &root else {
        return Err(ReadError::at(1, "a Rails locale file is a mapping of languages"));
    };
    let lines: Vec<&str> = text.lines().collect();
    // A Symfony file's root is its path's language's keys; a Rails file's root keys are its
    // languages.
    let languages: Vec<(&str, &Node)> = match path_language {
        Some(language) if !rooted_by_language(&root) => vec![(language, &root)],
        _ => entries
            .iter()
            .map(|(entry, node)| (entry.name.as_str(), node))
            .collect(),
    };
    for (language, mapping) in languages {
        let mut found = Vec::new();
        leaves(mapping, "", &mut found);
        let mut entries = Vec::with_capacity(found.len());
        for (name, entry, node) in found {
            let warn = |message: String| ReadWarning {
                line: entry.line,
                key: name.clone(),
                message,
            };
            let value = match node {
                Node::Scalar { null: true, .. } => {
                    read.warnings
                        .push(warn(format!("{name:?} has no text (null), and is passed over")));
                    continue;
                }
                Node::Scalar { value, .. } => Text::Plain(value.clone()),
                Node::Mapping { .. } => {
                    let forms = node.forms().expect("leaves are texts or forms");
                    match PluralForms::new(forms.into_iter().map(|(category, value)| (category, value.to_owned()))) {
                        Ok(forms) => Text::Plural(forms),
                        Err(why) => {
                            read.warnings.push(warn(format!("{name:?}: {why}; it is passed over")));
                            continue;
                        }
                    }
                }
                // A merge key (`<<: *defaults`): each name it brings in, as Ruby reads them.
                Node::Other { span } if entry.name == "<<" && aliased.contains_key(&span.start) => {
                    let prefix = name.strip_suffix("<<").unwrap_or_default();
                    for merged in &aliased[&span.start] {
                        let merged = format!("{prefix}{merged}");
                        read.warnings.push(ReadWarning {
                            line: entry.line,
                            message: format!(
                                "{merged:?} comes from a merge key (<<: *...) and is passed over; the file keeps it"
                            ),
                            key: merged,
                        });
                    }
                    continue;
                }
                Node::Other { .. } => {
                    read.warnings.push(warn(format!(
                        "{name:?} is a list or an alias, not a text, and is passed over"
                    )));
                    continue;
                }
            };
            let mut parsed = ParsedEntry::plain(name, String::new()).at_line(entry.line);
            parsed.text = value;
            parsed.description = comment_above(&lines, entry.line);
            entries.push(parsed);
        }
        read.languages.push((language.to_owned(), entries));
    }
    Ok(read)
}

#[cfg(test)]
mod tests;
