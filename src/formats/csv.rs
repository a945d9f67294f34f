//! `{lang}.csv`: RFC 4180 (CRLF line ends, quotes doubled), UTF-8 without BOM, header
//! `key,{lang}`; a plural key's cell is an ICU MessageFormat plural ([`super::icu`]).
//!
//! Reading takes the header `key,{lang}[,{lang}...]`: one column per language.

use std::borrow::Borrow;

use super::{ExportFile, ParsedEntry, ReadError, icu, texts};
use crate::domain::model::{Key, TextRef};
use crate::domain::names::LanguageCode;

pub fn render(keys: &[impl Borrow<Key>], language: &LanguageCode) -> ExportFile {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::CRLF)
        .from_writer(Vec::new());
    // Writing records into a Vec cannot fail for I/O reasons, and every record has two fields.
    writer
        .write_record(["key", language.as_str()])
        .expect("writing CSV into memory");
    for (key, text) in texts(keys, language) {
        let cell = match text {
            TextRef::Plain(text) => std::borrow::Cow::Borrowed(text),
            TextRef::Plural(forms) => std::borrow::Cow::Owned(icu::write_plural(forms)),
        };
        writer
            .write_record([key.name.as_str(), &cell])
            .expect("writing CSV into memory");
    }
    let bytes = writer.into_inner().expect("flushing CSV into memory");
    ExportFile {
        path: path(language),
        bytes,
    }
}

/// The file a language's texts go to.
pub fn path(language: &LanguageCode) -> String {
    format!("{language}.csv")
}

/// Reads a CSV file: the header names the languages of the columns after `key`. An empty
/// cell is no text. Returns each column's language (as written) with its entries.
pub fn read(bytes: &[u8]) -> Result<Vec<(String, Vec<ParsedEntry>)>, ReadError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut reader = ::csv::ReaderBuilder::new().has_headers(false).from_reader(bytes);
    let mut records = reader.records();
    let line_of = |err: &::csv::Error| err.position().map(|position| position.line() as usize);
    let header = match records.next() {
        Some(Ok(header)) => header,
        Some(Err(err)) => {
            return Err(ReadError {
                line: line_of(&err),
                message: err.to_string(),
            });
        }
        None => {
            return Err(ReadError::at(
                1,
                "the file is empty; it needs the header `key,{language}`",
            ));
        }
    };
    if header.len() < 2 || !header[0].trim().eq_ignore_ascii_case("key") {
        return Err(ReadError::at(
            1,
            "the header must be `key,{language}` (more language columns may follow)",
        ));
    }
    let mut columns: Vec<(String, Vec<ParsedEntry>)> = header
        .iter()
        .skip(1)
        .map(|language| (language.trim().to_owned(), Vec::new()))
        .collect();
    for record in records {
        let record = record.map_err(|err| ReadError {
            line: line_of(&err),
            message: err.to_string(),
        })?;
        let line = record.position().map_or(0, |position| position.line() as usize);
        let name = record.get(0).unwrap_or_default();
        for (index, (_, entries)) in columns.iter_mut().enumerate() {
            let cell = record.get(index + 1).unwrap_or_default();
            if cell.is_empty() {
                continue;
            }
            let entry = match icu::read_plural(cell) {
                None => ParsedEntry::plain(name.to_owned(), cell.to_owned()),
                Some(Ok(forms)) => ParsedEntry::plural(name.to_owned(), forms),
                Some(Err(message)) => return Err(ReadError::at(line, format!("key {name:?}: {message}"))),
            };
            entries.push(entry.at_line(line));
        }
    }
    Ok(columns)
}
