//! Android's styled strings: literal runs and tags.

use super::*;

pub(super) enum MarkupPiece {
    Text(String),
    Tag(Segment),
}

/// Splits an Android styled string into literal runs (entities decoded) and tags. A text that
/// is not well-formed markup is one literal run, as written.
pub(super) fn markup_pieces(text: &str) -> Vec<MarkupPiece> {
    use quick_xml::events::Event;
    let literal = || vec![MarkupPiece::Text(text.to_owned())];
    let wrapped = format!("<r>{text}</r>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    let mut pieces = Vec::new();
    let mut run = String::new();
    let mut depth = 0usize;
    let flush = |run: &mut String, pieces: &mut Vec<MarkupPiece>| {
        if !run.is_empty() {
            pieces.push(MarkupPiece::Text(std::mem::take(run)));
        }
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(start)) => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                let raw = String::from_utf8_lossy(&start).into_owned();
                let attributes = raw[name.len()..].to_owned();
                pieces.push(MarkupPiece::Tag(Segment::Open { name, attributes }));
            }
            Ok(Event::Empty(start)) => {
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                let raw = String::from_utf8_lossy(&start).into_owned();
                let attributes = raw[name.len()..].to_owned();
                pieces.push(MarkupPiece::Tag(Segment::Open {
                    name: name.clone(),
                    attributes,
                }));
                pieces.push(MarkupPiece::Tag(Segment::Close { name }));
            }
            Ok(Event::End(end)) => {
                if depth == 0 {
                    return literal();
                }
                depth -= 1;
                if depth == 0 {
                    continue;
                }
                flush(&mut run, &mut pieces);
                let name = String::from_utf8_lossy(end.name().as_ref()).into_owned();
                pieces.push(MarkupPiece::Tag(Segment::Close { name }));
            }
            Ok(Event::Text(piece)) => match piece.decode() {
                Ok(decoded) => run.push_str(&decoded),
                Err(_) => return literal(),
            },
            Ok(Event::CData(data)) => run.push_str(&String::from_utf8_lossy(&data)),
            Ok(Event::GeneralRef(reference)) => {
                if let Ok(Some(c)) = reference.resolve_char_ref() {
                    run.push(c);
                } else if let Some(resolved) = reference
                    .decode()
                    .ok()
                    .and_then(|name| quick_xml::escape::resolve_predefined_entity(&name))
                {
                    run.push_str(resolved);
                } else {
                    return literal();
                }
            }
            // Not well formed (unclosed tags, a stray `&`): the text is literal, as the
            // Android export writes it.
            Err(_) => return literal(),
            Ok(Event::Eof) if depth != 0 => return literal(),
            Ok(Event::Eof) => break,
            Ok(_) => {}
        }
    }
    flush(&mut run, &mut pieces);
    pieces
}
