//! Reading a `values*/*.xml` file as aapt2 reads its strings and plurals.

use quick_xml::Reader;
use quick_xml::events::Event;

use super::*;

/// What a `values*/*.xml` file holds: its strings and plurals, and how many other resources
/// (`<string-array>`, `<dimen>`, `<color>`, ...) it skipped.
#[derive(Debug, Default)]
pub struct ReadFile {
    pub entries: Vec<ParsedEntry>,
    pub skipped: usize,
    /// Strings and plurals passed over: a plural without an `other` form, say.
    pub warnings: Vec<ReadWarning>,
}

/// Reads an Android resource file the way aapt2 reads its strings: XML first (entities,
/// CDATA), then Android's string syntax (backslash escapes, `\uXXXX`, double quotes that keep
/// spaces, runs of white space collapsed and trimmed outside quotes). Inline tags make the
/// text a markup text; the comment directly above an element is its description.
pub fn read(bytes: &[u8]) -> Result<ReadFile, ReadError> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    // Line numbers by binary search over the line ends, found once: counting from the start
    // for every element would make a file of n strings cost n² to read.
    let line_ends: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    let line_at = |position: u64| line_ends.partition_point(|end| *end < position as usize) + 1;
    let fail = |position: u64, message: String| ReadError::at(line_at(position), message);
    let mut file = ReadFile::default();
    let mut depth = 0usize;
    let mut comment: Option<String> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
        match event {
            Event::Start(start) if depth == 0 => {
                if start.name().as_ref() != b"resources" {
                    return Err(fail(position, "the root element must be <resources>".into()));
                }
                depth = 1;
            }
            // `<skip/>` and `<eat-comment/>` only drop the comment above them, as in aapt2.
            Event::Empty(empty) if depth == 1 && matches!(empty.name().as_ref(), b"skip" | b"eat-comment") => {
                comment = None;
            }
            Event::Empty(empty) if depth == 1 && empty.name().as_ref() == b"string" && is_default_product(&empty) => {
                let Some(name) = attribute(&empty, b"name") else {
                    return Err(fail(position, "an element has no `name` attribute".into()));
                };
                let mut entry = ParsedEntry::plain(name, String::new());
                entry.description = comment.take();
                entry.translatable = is_translatable(&empty);
                file.entries.push(entry.at_line(line_at(position)));
            }
            Event::Empty(_) if depth == 1 => {
                file.skipped += 1;
                comment = None;
            }
            Event::Start(start) if depth == 1 => {
                let line = line_at(position);
                let description = comment.take();
                let element = start.name().as_ref().to_vec();
                let name = match attribute(&start, b"name") {
                    Some(name) => name,
                    None if element == b"string" || element == b"plurals" => {
                        return Err(ReadError::at(line, "an element has no `name` attribute"));
                    }
                    None => String::new(),
                };
                let mut entry = match element.as_slice() {
                    // A build without `--product` keeps only the default variant of a string.
                    b"string" | b"plurals" if !is_default_product(&start) => {
                        reader
                            .read_to_end(start.name())
                            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
                        file.skipped += 1;
                        continue;
                    }
                    b"string" => {
                        let decoded = decode_content(&mut reader, b"string")
                            .map_err(|err| fail(reader.buffer_position(), err))?;
                        if decoded.reference {
                            file.warnings.push(ReadWarning {
                                line,
                                message: format!(
                                    "{name:?} is `{}`, a reference to another resource rather than a text: it is left in the file as it is",
                                    decoded.plain
                                ),
                                key: name,
                            });
                            continue;
                        }
                        let mut entry = ParsedEntry::plain(name, decoded.value());
                        entry.markup = decoded.markup;
                        entry.translatable = is_translatable(&start);
                        entry
                    }
                    b"plurals" => {
                        let translatable = is_translatable(&start);
                        let read = read_plurals(&mut reader, name.clone(), line).map_err(|err| match err.line {
                            Some(_) => err,
                            None => ReadError::at(line, err.message),
                        })?;
                        match read {
                            Ok(mut entry) => {
                                entry.translatable = translatable;
                                entry
                            }
                            Err(message) => {
                                file.warnings.push(ReadWarning {
                                    line,
                                    key: name,
                                    message,
                                });
                                continue;
                            }
                        }
                    }
                    _ => {
                        reader
                            .read_to_end(start.name())
                            .map_err(|err| fail(reader.error_position(), err.to_string()))?;
                        file.skipped += 1;
                        continue;
                    }
                };
                entry.description = description;
                file.entries.push(entry.at_line(line));
            }
            Event::Comment(text) if depth == 1 => {
                comment = Some(
                    text.decode()
                        .map_err(|err| fail(position, err.to_string()))?
                        .trim()
                        .to_owned(),
                );
            }
            // White space between elements keeps the comment; any other text drops it.
            Event::Text(text) if depth == 1 && !text.iter().all(u8::is_ascii_whitespace) => comment = None,
            Event::End(_) if depth == 1 => depth = 0,
            Event::Eof if depth == 0 => return Ok(file),
            Event::Eof => return Err(fail(position, "the file ends inside <resources>".into())),
            _ => {}
        }
    }
}

/// Whether a string is for translation: not `translatable="false"`.
fn is_translatable(start: &quick_xml::events::BytesStart<'_>) -> bool {
    attribute(start, b"translatable").is_none_or(|value| value != "false")
}

/// Whether an element is for every product: no `product` attribute, or `product="default"`.
/// Variants for other products (`tablet`, `tv`, ...) are what `aapt2 link --product` picks.
fn is_default_product(start: &quick_xml::events::BytesStart<'_>) -> bool {
    attribute(start, b"product").is_none_or(|product| product == "default")
}

fn attribute(start: &quick_xml::events::BytesStart<'_>, name: &[u8]) -> Option<String> {
    start
        .attributes()
        .flatten()
        .find(|attribute| attribute.key.as_ref() == name)
        .and_then(|attribute| attribute.unescape_value().ok().map(|value| value.into_owned()))
}

/// Reads a `<plurals>` element after its start: the entry, or (inside) why it cannot be
/// taken (no `other` form), which passes it over rather than refusing the file.
fn read_plurals(
    reader: &mut Reader<&[u8]>,
    name: String,
    line: usize,
) -> Result<Result<ParsedEntry, String>, ReadError> {
    let mut forms = Vec::new();
    let mut markup = false;
    let mut decoded_forms = Vec::new();
    loop {
        match reader
            .read_event()
            .map_err(|err| ReadError::unplaced(err.to_string()))?
        {
            Event::Start(start) if start.name().as_ref() == b"item" => {
                let quantity = attribute(&start, b"quantity").unwrap_or_default();
                let category = PluralCategory::parse(&quantity).ok_or_else(|| {
                    ReadError::at(
                        line,
                        format!(
                            "plurals {name:?}: the quantity {quantity:?} is not one of {}",
                            PluralCategory::NAMES
                        ),
                    )
                })?;
                let decoded = decode_content(reader, b"item").map_err(|err| ReadError::at(line, err))?;
                markup |= decoded.markup;
                decoded_forms.push((category, decoded));
            }
            Event::Empty(start) if start.name().as_ref() == b"item" => {}
            Event::End(end) if end.name().as_ref() == b"plurals" => break,
            Event::Eof => return Err(ReadError::at(line, format!("plurals {name:?} is not closed"))),
            _ => {}
        }
    }
    for (category, decoded) in decoded_forms {
        forms.push((category, if markup { decoded.fragment } else { decoded.plain }));
    }
    let forms = match PluralForms::new(forms) {
        Ok(forms) => forms,
        Err(err) => return Ok(Err(format!("plurals {name:?} is passed over: {err}"))),
    };
    let mut entry = ParsedEntry::plural(name, forms);
    entry.markup = markup;
    Ok(Ok(entry))
}

/// An element's text as aapt2 reads it: the plain text, and the same with its inline tags
/// (a markup text) when it has any.
struct Decoded {
    plain: String,
    fragment: String,
    markup: bool,
    /// Whether the element holds a resource reference (`@string/other`, `?attr/name`) as
    /// aapt2 reads one: unescaped and unquoted, nothing else around it.
    reference: bool,
}

impl Decoded {
    fn value(&self) -> String {
        if self.markup {
            self.fragment.clone()
        } else {
            self.plain.clone()
        }
    }
}

/// One character of the decoded text, and whether it is white space outside quotes (which
/// aapt2 trims at the ends of the string).
type DecodedChar = (char, bool);

/// Reads the content of the element just opened up to its end tag named `element`.
fn decode_content(reader: &mut Reader<&[u8]>, element: &[u8]) -> Result<Decoded, String> {
    let mut builder = StringBuilder::default();
    let mut pieces: Vec<Result<Vec<DecodedChar>, String>> = Vec::new();
    // The element's text as written, while it is only text (for a reference).
    let mut raw_text = Some(String::new());
    let mut depth = 0usize;
    let mut markup = false;
    // Whether the text has spans (tags aapt2 keeps as styles).
    let mut styled = false;
    loop {
        match reader.read_event().map_err(|err| err.to_string())? {
            Event::Text(text) => {
                let raw = text.decode().map_err(|err| err.to_string())?;
                if let Some(raw_text) = &mut raw_text {
                    raw_text.push_str(&raw);
                }
                pieces.push(Ok(builder.append(&raw)));
            }
            Event::CData(cdata) => {
                raw_text = None;
                let raw = std::str::from_utf8(&cdata).map_err(|err| err.to_string())?.to_owned();
                pieces.push(Ok(builder.append(&raw)));
            }
            Event::GeneralRef(reference) => {
                raw_text = None;
                let text = resolve_reference(&reference)
                    .ok_or_else(|| format!("unknown entity &{};", String::from_utf8_lossy(&reference)))?;
                pieces.push(Ok(builder.append(&text)));
            }
            // A span's tags (any but `<xliff:g>`, which aapt2 drops) end a run of text: aapt2
            // collapses white space within each run, not across.
            Event::Start(start) => {
                depth += 1;
                markup = true;
                raw_text = None;
                if is_span(start.name()) {
                    styled = true;
                    builder.last_was_space = false;
                }
                pieces.push(Err(format!("<{}>", String::from_utf8_lossy(&start))));
            }
            Event::Empty(empty) => {
                markup = true;
                raw_text = None;
                if is_span(empty.name()) {
                    styled = true;
                    builder.last_was_space = false;
                }
                pieces.push(Err(format!("<{}/>", String::from_utf8_lossy(&empty))));
            }
            Event::End(end) if depth == 0 && end.name().as_ref() == element => break,
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                if is_span(end.name()) {
                    builder.last_was_space = false;
                }
                pieces.push(Err(format!("</{}>", String::from_utf8_lossy(end.name().as_ref()))));
            }
            Event::Eof => return Err(format!("<{}> is not closed", String::from_utf8_lossy(element))),
            _ => {}
        }
    }
    // Trim white space from outside quotes at both ends of the whole text; aapt2 trims no
    // styled text.
    let chars: Vec<&DecodedChar> = pieces.iter().flat_map(|piece| piece.iter().flatten()).collect();
    let trimmable = |(_, trimmable): &&&DecodedChar| *trimmable && !styled;
    let leading = chars.iter().take_while(trimmable).count();
    let trailing = chars[leading..].iter().rev().take_while(trimmable).count();
    let keep = leading..chars.len() - trailing;
    let mut plain = String::new();
    let mut fragment = String::new();
    let mut index = 0;
    for piece in &pieces {
        match piece {
            Ok(text) => {
                let mut run = String::new();
                for (c, _) in text {
                    if keep.contains(&index) {
                        run.push(*c);
                    }
                    index += 1;
                }
                plain.push_str(&run);
                fragment.push_str(&xml_escape(&run));
            }
            Err(tag) => fragment.push_str(tag),
        }
    }
    Ok(Decoded {
        plain,
        fragment,
        markup,
        reference: raw_text.is_some_and(|raw| is_reference(raw.trim())),
    })
}

/// Whether `text` is a resource reference as aapt2 reads one (`@string/other`,
/// `@android:string/ok`, `@*android:string/x`, `?attr/name`).
fn is_reference(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('@').or_else(|| text.strip_prefix('?')) else {
        return false;
    };
    let rest = rest.strip_prefix('*').unwrap_or(rest);
    let Some((kind, name)) = rest.split_once('/') else {
        return false;
    };
    let word = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.')
    };
    // `type` or `package:type`.
    word(name) && kind.split(':').count() <= 2 && kind.split(':').all(word)
}

/// Whether a tag inside a string is a span of styled text: any but `<xliff:g>` (a
/// placeholder's note for translators, which aapt2 drops, keeping its content).
fn is_span(name: quick_xml::name::QName<'_>) -> bool {
    !(name.local_name().as_ref() == b"g" && name.prefix().is_some())
}

/// The value of up to four hex digits after `\u`, taken from `chars`.
fn hex_unit(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> u32 {
    let mut code = 0u32;
    for _ in 0..4 {
        match chars.peek().and_then(|c| c.to_digit(16)) {
            Some(digit) => {
                code = code * 16 + digit;
                chars.next();
            }
            None => break,
        }
    }
    code
}

/// aapt2's string builder: the quote and escape state runs across the pieces of one string
/// (a backslash ends one piece and the entity it escapes is the next: Firefox's `\&quot;`).
#[derive(Default)]
struct StringBuilder {
    quoted: bool,
    last_was_space: bool,
    /// A backslash ended the last piece: the next piece's first character is escaped.
    escaping: bool,
}

impl StringBuilder {
    fn append(&mut self, text: &str) -> Vec<DecodedChar> {
        let mut out = Vec::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if std::mem::take(&mut self.escaping) {
                self.last_was_space = false;
                Self::escaped(c, &mut chars, &mut out);
                continue;
            }
            if !self.quoted && c.is_ascii_whitespace() {
                if !self.last_was_space {
                    out.push((' ', true));
                    self.last_was_space = true;
                }
                continue;
            }
            self.last_was_space = false;
            match c {
                '\\' => match chars.next() {
                    Some(escaped) => Self::escaped(escaped, &mut chars, &mut out),
                    None => self.escaping = true,
                },
                '"' => self.quoted = !self.quoted,
                c => out.push((c, false)),
            }
        }
        out
    }

    /// The character a backslash escapes (`c`, the one after it), and for `\u` its digits.
    fn escaped(c: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut Vec<DecodedChar>) {
        match c {
            't' => out.push(('\t', false)),
            'n' => out.push(('\n', false)),
            'u' => {
                let code = hex_unit(chars);
                // A character outside the Basic Multilingual Plane (an emoji) is written as
                // its UTF-16 surrogate pair, two escapes: `\uD83C\uDFC3`.
                let mut ahead = chars.clone();
                let pair = (0xD800..0xDC00).contains(&code) && ahead.next() == Some('\\') && ahead.next() == Some('u');
                let low = if pair { hex_unit(&mut ahead) } else { 0 };
                let decoded = if (0xDC00..0xE000).contains(&low) {
                    *chars = ahead;
                    char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    char::from_u32(code)
                };
                out.push((decoded.unwrap_or('\u{fffd}'), false));
            }
            other => out.push((other, false)),
        }
    }
}
