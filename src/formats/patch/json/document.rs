//! A JSON file as the patcher reads it: its objects and members, each with where it is in
//! the text, and the values as the reader takes them.

use std::ops::Range;

use crate::domain::model::{PluralCategory, PluralForms, Text};
use crate::formats::ReadError;

/// A JSON document's objects and members with where they are.
pub(super) struct Document {
    pub(super) objects: Vec<Object>,
    pub(super) members: Vec<Member>,
}

pub(super) struct Object {
    /// The dotted name of the object (`""` for the top one).
    pub(super) path: String,
    /// Whether it is a set of plural forms (a value, never a place for keys).
    pub(super) is_forms: bool,
    /// Where `{` and `}` are.
    pub(super) open: usize,
    pub(super) close: usize,
    pub(super) members: Vec<usize>,
}

pub(super) struct Member {
    pub(super) name: String,
    /// The object it is a member of.
    pub(super) parent: usize,
    /// Where the key's opening quote is, and where the key ends.
    pub(super) start: usize,
    pub(super) key_end: usize,
    pub(super) value: Range<usize>,
    /// Where the comma after the value is, when one follows.
    pub(super) comma: Option<usize>,
    /// The indentation of the member's line.
    pub(super) indent: String,
    pub(super) value_kind: ValueKind,
}

pub(super) enum ValueKind {
    String(String),
    Forms(Vec<(PluralCategory, String)>),
    Object(usize),
    /// A number, boolean or null: never a text (the reader refuses them anyway).
    Other,
}

impl Member {
    /// Whether the member holds `text`, as the reader would read it.
    pub(super) fn holds(&self, text: &Text) -> bool {
        match (&self.value_kind, text) {
            (ValueKind::String(value), Text::Plain(text)) => value == text,
            (ValueKind::Forms(forms), Text::Plural(text)) => {
                PluralForms::new(forms.iter().cloned()).is_ok_and(|forms| forms == *text)
            }
            _ => false,
        }
    }
}

impl Document {
    pub(super) fn parse(text: &str) -> Result<Self, ReadError> {
        let mut parser = Parser {
            text,
            at: 0,
            document: Document {
                objects: Vec::new(),
                members: Vec::new(),
            },
        };
        parser.space();
        if parser.peek() != Some(b'{') {
            return Err(parser.error("the file must hold one JSON object"));
        }
        parser.object(String::new())?;
        Ok(parser.document)
    }

    /// Every key with a text (a string or a set of forms): its dotted name and member.
    pub(super) fn leaves(&self) -> impl Iterator<Item = (String, usize)> + '_ {
        let mut out = Vec::new();
        if !self.objects.is_empty() {
            self.collect_leaves(0, &mut out);
        }
        out.into_iter()
    }

    fn collect_leaves(&self, object: usize, out: &mut Vec<(String, usize)>) {
        let path = &self.objects[object].path;
        for &member in &self.objects[object].members {
            let name = dotted(path, &self.members[member].name);
            match &self.members[member].value_kind {
                ValueKind::String(_) | ValueKind::Forms(_) => out.push((name, member)),
                ValueKind::Object(inner) => self.collect_leaves(*inner, out),
                ValueKind::Other => {}
            }
        }
    }

    /// The deepest object whose name leads to `name` (`home` for `home.subtitle`).
    pub(super) fn target_object(&self, name: &str) -> usize {
        let mut best = 0;
        for (index, object) in self.objects.iter().enumerate().filter(|(_, object)| !object.is_forms) {
            let leads = object.path.is_empty()
                || name
                    .strip_prefix(&object.path)
                    .is_some_and(|rest| rest.starts_with('.'));
            if leads && object.path.len() >= self.objects[best].path.len() {
                best = index;
            }
        }
        best
    }
}

fn dotted(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
    document: Document,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn error(&self, message: &str) -> ReadError {
        let line = self.text[..self.at.min(self.text.len())].matches('\n').count() + 1;
        ReadError::at(line, message)
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), ReadError> {
        self.space();
        if self.peek() != Some(byte) {
            return Err(self.error(&format!("expected `{}`", byte as char)));
        }
        self.at += 1;
        Ok(())
    }

    /// A string token, decoded by serde_json.
    fn string(&mut self) -> Result<(String, Range<usize>), ReadError> {
        self.space();
        let start = self.at;
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string"));
        }
        self.at += 1;
        loop {
            match self.peek() {
                Some(b'\\') => self.at += 2,
                Some(b'"') => {
                    self.at += 1;
                    break;
                }
                Some(_) => self.at += 1,
                None => return Err(self.error("a string is not closed")),
            }
        }
        let token = &self.text[start..self.at];
        let decoded = serde_json::from_str::<String>(token).map_err(|err| self.error(&err.to_string()))?;
        Ok((decoded, start..self.at))
    }

    /// An object, from its `{`; answers its index.
    /// Passes over a value that is no string or object: a number, `true`, `false`, `null`, or
    /// an array over any lines (Ente's `"examples": [\n "..."\n ]`), strings and all.
    fn skip_value(&mut self) -> Result<(), ReadError> {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Some(b'"') if depth > 0 => {
                    self.string()?;
                    continue;
                }
                Some(b'[' | b'{') => depth += 1,
                Some(b']' | b'}') if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return Ok(());
                    }
                }
                Some(byte) if depth > 0 || !(matches!(byte, b',' | b'}') || byte.is_ascii_whitespace()) => {}
                Some(_) => return Ok(()),
                None if depth == 0 => return Ok(()),
                None => return Err(self.error("an array is not closed")),
            }
            self.at += 1;
        }
    }

    fn object(&mut self, path: String) -> Result<usize, ReadError> {
        self.space();
        let open = self.at;
        self.expect(b'{')?;
        let index = self.document.objects.len();
        self.document.objects.push(Object {
            path: path.clone(),
            is_forms: false,
            open,
            close: open,
            members: Vec::new(),
        });
        self.space();
        if self.peek() == Some(b'}') {
            self.document.objects[index].close = self.at;
            self.at += 1;
            return Ok(index);
        }
        loop {
            let (name, key) = self.string()?;
            let line_start = self.text[..key.start].rfind('\n').map_or(0, |newline| newline + 1);
            let indent: String = self.text[line_start..key.start]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            self.expect(b':')?;
            self.space();
            let value_start = self.at;
            let value_kind = match self.peek() {
                Some(b'"') => ValueKind::String(self.string()?.0),
                Some(b'{') => {
                    let inner = self.object(dotted(&path, &name))?;
                    match forms_of(&self.document, inner) {
                        Some(forms) => {
                            self.document.objects[inner].is_forms = true;
                            ValueKind::Forms(forms)
                        }
                        None => ValueKind::Object(inner),
                    }
                }
                _ => {
                    self.skip_value()?;
                    ValueKind::Other
                }
            };
            let value = value_start..self.at;
            self.space();
            let comma = (self.peek() == Some(b',')).then_some(self.at);
            let member = self.document.members.len();
            self.document.members.push(Member {
                name,
                parent: index,
                start: key.start,
                key_end: key.end,
                value,
                comma,
                indent,
                value_kind,
            });
            self.document.objects[index].members.push(member);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.document.objects[index].close = self.at;
                    self.at += 1;
                    return Ok(index);
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }
}

/// The forms of an object that is a set of plural forms (`other` among them, every member a
/// form name with a string), as the reader decides.
fn forms_of(document: &Document, object: usize) -> Option<Vec<(PluralCategory, String)>> {
    let members = &document.objects[object].members;
    let mut forms = Vec::new();
    for &member in members {
        let member = &document.members[member];
        let (Some(category), ValueKind::String(text)) = (PluralCategory::parse(&member.name), &member.value_kind)
        else {
            return None;
        };
        forms.push((category, text.clone()));
    }
    forms
        .iter()
        .any(|(category, _)| *category == PluralCategory::Other)
        .then_some(forms)
}
