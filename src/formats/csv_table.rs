//! A translation table: one CSV file holding every language as a column, as Godot imports it
//! (`keys,en,de` or `,en,de`; or with `;` or a tab between cells, Godot's other delimiters),
//! as Blender add-ons and Laravel tools keep theirs (`name,en_US,ja_JP`; a row of language
//! names above the row of codes). A file set of
//! `format = "csv-table"` names the file itself (`translations/translations.csv`).
//!
//! The file is read cell by cell with each cell's place in the bytes, so that `pull` can
//! change one cell and keep every other byte: the rows above the header, quoting as each cell
//! has it, CRLF or LF, a byte order mark, columns that name no language, cells past the
//! header's last column, rows without a key.

use std::borrow::Borrow;

use super::{ExportFile, ParsedEntry, ReadError, ReadWarning, icu};
use crate::domain::model::{Key, Text, TextRef};
use crate::domain::names::LanguageCode;

/// One cell: its text (quotes undone) and where it is in the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    /// The cell's bytes, quotes included.
    pub span: std::ops::Range<usize>,
    pub quoted: bool,
}

/// One row: its cells, where it starts and ends (before its line end), and its line number.
#[derive(Debug, Clone)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub span: std::ops::Range<usize>,
    pub line: usize,
}

/// A table as read: its rows, which of them is the header, and each column's language.
#[derive(Debug)]
pub struct Table {
    pub rows: Vec<Row>,
    /// The index of the header row (the row of language codes); `None` for a file of one
    /// language without one, whose path names its language ([`table_in`]).
    pub header: Option<usize>,
    /// The language of each column after the key column, as the header writes it; `None` for
    /// a column that names no language (a note, an empty heading).
    pub languages: Vec<Option<String>>,
    /// What separates the cells: `,`, else `;` or a tab (the first that gives a header).
    pub delimiter: u8,
}

/// The cell delimiters a table may have, in the order they are tried.
const DELIMITERS: [u8; 3] = [b',', b';', b'\t'];

/// The rows of `text` (a CSV file's text after its byte order mark), as RFC 4180 reads them
/// with `delimiter` between cells: a cell in double quotes may hold delimiters, line ends and
/// doubled quotes; a line end is LF or CRLF. An empty line is a row of one empty cell.
pub fn rows(text: &str, delimiter: u8) -> Vec<Row> {
    let bytes = text.as_bytes();
    let mut rows = Vec::new();
    let mut at = 0;
    let mut line = 1;
    while at < bytes.len() {
        let row_start = at;
        let row_line = line;
        let mut cells = Vec::new();
        loop {
            let start = at;
            let mut value = String::new();
            let quoted = bytes.get(at) == Some(&b'"');
            if quoted {
                at += 1;
                let mut piece = at;
                loop {
                    match memchr::memchr(b'"', &bytes[at..]) {
                        Some(offset) => {
                            let quote = at + offset;
                            line += text[at..quote].matches('\n').count();
                            value.push_str(&text[piece..quote]);
                            if bytes.get(quote + 1) == Some(&b'"') {
                                value.push('"');
                                at = quote + 2;
                                piece = at;
                            } else {
                                at = quote + 1;
                                break;
                            }
                        }
                        None => {
                            // An unclosed quote runs to the end of the file, as spreadsheets
                            // read it.
                            line += text[at..].matches('\n').count();
                            value.push_str(&text[piece..]);
                            at = bytes.len();
                            break;
                        }
                    }
                }
                // Text after the closing quote belongs to the cell, as Python's reader has it.
                let rest = bytes[at..]
                    .iter()
                    .position(|byte| *byte == delimiter || matches!(byte, b'\n' | b'\r'))
                    .map_or(bytes.len(), |offset| at + offset);
                value.push_str(&text[at..rest]);
                at = rest;
            } else {
                let end = bytes[at..]
                    .iter()
                    .position(|byte| *byte == delimiter || matches!(byte, b'\n' | b'\r'))
                    .map_or(bytes.len(), |offset| at + offset);
                value.push_str(&text[at..end]);
                at = end;
            }
            cells.push(Cell {
                text: value,
                span: start..at,
                quoted,
            });
            match bytes.get(at) {
                Some(&byte) if byte == delimiter => at += 1,
                _ => break,
            }
        }
        let row_end = at;
        if bytes.get(at) == Some(&b'\r') {
            at += 1;
        }
        if bytes.get(at) == Some(&b'\n') {
            at += 1;
            line += 1;
        } else if row_end == at && at < bytes.len() {
            // A lone `\r` cannot end a cell's text without ending the row: step over it.
            at += 1;
        }
        rows.push(Row {
            cells,
            span: row_start..row_end,
            line: row_line,
        });
    }
    rows
}

/// Whether a header cell names a language: a language code (`en`, `pt-BR`, Blender's
/// `en_US`, Godot's `zh_TW`).
fn is_language(cell: &str) -> bool {
    let cell = cell.trim();
    cell.len() <= 16 && LanguageCode::parse(cell).is_ok()
}

/// Reads the table of a file's text: the header is the first of its first rows whose cells
/// after the first are mostly language codes (empty cells aside), so a row of language names above
/// it (Twill's) is kept as it is and not read.
pub fn table(text: &str) -> Result<Table, ReadError> {
    DELIMITERS
        .iter()
        .find_map(|&delimiter| table_with(text, delimiter))
        .ok_or_else(|| {
            ReadError::at(
                1,
                "no header row of language codes: a translation table starts `key,en,de` (or `,en,de`)",
            )
        })
}

/// The table of `text` read with `delimiter`, when one of its first rows is a header.
fn table_with(text: &str, delimiter: u8) -> Option<Table> {
    let rows = rows(text, delimiter);
    let header = rows.iter().take(3).position(|row| {
        let named: Vec<&Cell> = row
            .cells
            .iter()
            .skip(1)
            .filter(|cell| !cell.text.trim().is_empty())
            .collect();
        let languages = named.iter().filter(|cell| is_language(&cell.text)).count();
        languages > 0 && 2 * languages >= named.len()
    })?;
    let languages = rows[header]
        .cells
        .iter()
        .skip(1)
        .map(|cell| Some(cell.text.trim().to_owned()).filter(|language| is_language(language)))
        .collect();
    Some(Table {
        rows,
        header: Some(header),
        languages,
        delimiter,
    })
}

impl Table {
    /// The rows of texts: those after the header (every row of a file without one).
    pub fn texts(&self) -> &[Row] {
        &self.rows[self.header.map_or(0, |header| header + 1)..]
    }
}

/// The table of a file whose path names its language (`locales/fr_FR/menus.csv`): by its
/// header when one of its first rows names that language among its columns, else rows of
/// `key;text` in that language without a header, as games keep a file per language (OpenVic's
/// `locales/en_GB/menus.csv`, with `;;` comment rows). Without a language, [`table`].
pub fn table_in(text: &str, language: Option<&str>) -> Result<Table, ReadError> {
    let Some(language) = language else {
        return table(text);
    };
    let fold = |code: &str| code.to_ascii_lowercase().replace('_', "-");
    match table(text) {
        Ok(table)
            if table
                .languages
                .iter()
                .flatten()
                .any(|named| fold(named) == fold(language)) =>
        {
            Ok(table)
        }
        _ => Ok(without_header(text, language)),
    }
}

/// A file of one language's rows without a header: the delimiter is the one (`;` first, then
/// `,` and a tab) that gives the most rows a key and a text; `;` for a file of no rows.
fn without_header(text: &str, language: &str) -> Table {
    let pairs = |delimiter: u8| {
        rows(text, delimiter)
            .iter()
            .filter(|row| row.cells.len() >= 2 && !row.cells[0].text.is_empty())
            .count()
    };
    let mut delimiter = b';';
    let mut most = pairs(delimiter);
    for other in [b',', b'\t'] {
        let found = pairs(other);
        if found > most {
            (delimiter, most) = (other, found);
        }
    }
    Table {
        rows: rows(text, delimiter),
        header: None,
        languages: vec![Some(language.to_owned())],
        delimiter,
    }
}

/// Whether the first rows of a file make it a translation table ([`table`]).
pub fn is_table(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let head = &bytes[..bytes.len().min(64 * 1024)];
    // A cut in the middle of a character or a quoted cell still shows the first rows.
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(err) => match std::str::from_utf8(&head[..err.valid_up_to()]) {
            Ok(text) => text,
            Err(_) => return false,
        },
    };
    table(text).is_ok()
}

/// What a table holds, language by language (as the header writes each), with what was
/// passed over: a row whose key is empty keeps its cells in the file; a key given twice is
/// read as the platforms read it, the last row winning (the upload names it).
pub struct Read {
    pub columns: Vec<(String, Vec<ParsedEntry>)>,
    pub warnings: Vec<ReadWarning>,
}

/// Reads a translation table's texts. An empty cell is no text; a cell that is an ICU plural
/// message (`{count, plural, one {...} other {...}}`) is a plural key's forms.
pub fn read(bytes: &[u8]) -> Result<Read, ReadError> {
    read_in(bytes, None)
}

/// Reads a table whose path may name its language ([`table_in`]). In a file without a
/// header, a row without a key is a comment (`;; Main Menu`), and no warning.
pub fn read_in(bytes: &[u8], language: Option<&str>) -> Result<Read, ReadError> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
        .map_err(|_| ReadError::unplaced("the file is not UTF-8"))?;
    let table = table_in(text, language)?;
    let mut columns: Vec<(String, Vec<ParsedEntry>)> = Vec::new();
    let mut column_of = Vec::new();
    for language in &table.languages {
        column_of.push(language.as_ref().map(
            |language| match columns.iter().position(|(known, _)| known == language) {
                Some(index) => index,
                None => {
                    columns.push((language.clone(), Vec::new()));
                    columns.len() - 1
                }
            },
        ));
    }
    let mut warnings = Vec::new();
    for row in table.texts() {
        let name = row.cells[0].text.as_str();
        let has_text = row.cells.iter().skip(1).any(|cell| !cell.text.is_empty());
        if name.is_empty() {
            if has_text && table.header.is_some() {
                warnings.push(ReadWarning {
                    line: row.line,
                    key: String::new(),
                    message: "a row without a key; it stays in the file as it is".into(),
                });
            }
            continue;
        }
        if row.cells.len() > table.languages.len() + 1
            && row.cells[table.languages.len() + 1..]
                .iter()
                .any(|cell| !cell.text.is_empty())
        {
            warnings.push(ReadWarning {
                line: row.line,
                key: name.to_owned(),
                message: format!(
                    "the row has {} cells where the header has {}; the cells past the header's last column stay in the file as they are",
                    row.cells.len(),
                    table.languages.len() + 1
                ),
            });
        }
        for (cell, column) in row.cells.iter().skip(1).zip(&column_of) {
            let Some(column) = column else { continue };
            if cell.text.is_empty() {
                continue;
            }
            let entry = match icu::read_plural(&cell.text) {
                None => ParsedEntry::plain(name.to_owned(), cell.text.clone()),
                Some(Ok(forms)) => ParsedEntry::plural(name.to_owned(), forms),
                // Not a plural the server can hold as forms: the text as it is.
                Some(Err(_)) => ParsedEntry::plain(name.to_owned(), cell.text.clone()),
            };
            columns[*column].1.push(entry.at_line(row.line));
        }
    }
    Ok(Read { columns, warnings })
}

/// The canonical table of `keys` in `languages` (the base language first): header
/// `key,{lang},...`, one row per key, RFC 4180 with CRLF, what `pull` patches an app's table
/// from.
pub fn render(keys: &[impl Borrow<Key>], languages: &[LanguageCode], path: &str) -> ExportFile {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let mut header = vec!["key"];
    header.extend(languages.iter().map(LanguageCode::as_str));
    // Writing records into a Vec cannot fail for I/O reasons.
    writer.write_record(&header).expect("writing CSV into memory");
    for key in keys {
        let key = key.borrow();
        let mut record = vec![key.name.as_str().to_owned()];
        for language in languages {
            record.push(match key.translations.get(language) {
                Some(TextRef::Plain(text)) => text.to_owned(),
                Some(TextRef::Plural(forms)) => icu::write_plural(forms),
                None => String::new(),
            });
        }
        writer.write_record(&record).expect("writing CSV into memory");
    }
    ExportFile {
        path: path.to_owned(),
        bytes: writer.into_inner().expect("flushing CSV into memory"),
    }
}

/// The file a table's export goes to: the one file a set of this format names.
pub const PATH: &str = "table.csv";

/// A text as a cell's text: a plural as its ICU message.
pub fn cell_text(text: &Text) -> String {
    match text.as_ref() {
        TextRef::Plain(text) => text.to_owned(),
        TextRef::Plural(forms) => icu::write_plural(forms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(bytes: &str) -> Vec<(String, Vec<(String, String)>)> {
        read(bytes.as_bytes())
            .unwrap()
            .columns
            .into_iter()
            .map(|(language, entries)| {
                let entries = entries
                    .into_iter()
                    .map(|entry| {
                        (
                            entry.name,
                            entry.text.as_ref().as_plain().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect();
                (language, entries)
            })
            .collect()
    }

    #[test]
    fn godot_blender_and_laravel_tables_are_read_column_by_column() {
        // Tanks of Freedom: every cell quoted, an empty quoted top-left cell, CRLF.
        assert_eq!(
            texts("\"\",\"en\",\"de\"\r\n\"YES\",\"YES\",\"JA \"\"!\"\"\"\r\n"),
            [
                ("en".to_owned(), vec![("YES".to_owned(), "YES".to_owned())]),
                ("de".to_owned(), vec![("YES".to_owned(), "JA \"!\"".to_owned())]),
            ]
        );
        // Cats Blender Plugin: Blender's locale names, a cell of lines with spaces, an empty
        // cell for an untranslated text.
        assert_eq!(
            texts("name,en_US,ja_JP\nMain.error,\"\n\nFaulty!   \n\",\n"),
            [
                (
                    "en_US".to_owned(),
                    vec![("Main.error".to_owned(), "\n\nFaulty!   \n".to_owned())]
                ),
                ("ja_JP".to_owned(), vec![]),
            ]
        );
        // Twill: a byte order mark and a row of language names above the row of codes.
        assert_eq!(
            texts("\u{feff}Language,English,German\nISO639-1Code,en,de\nauth.back,Back,\n"),
            [
                ("en".to_owned(), vec![("auth.back".to_owned(), "Back".to_owned())]),
                ("de".to_owned(), vec![]),
            ]
        );
    }

    #[test]
    fn a_row_with_a_cell_past_the_header_reads_its_own_columns_and_is_named() {
        // Tanks of Freedom's `translations_de.csv`: an unquoted comma made a third cell.
        let read = read(b",de\nTIP_13,\"Das HQ\",\"es zu verlieren\"\nTIP_14,Ok\n").unwrap();
        assert_eq!(read.columns[0].1.len(), 2);
        assert_eq!(read.columns[0].1[0].text.as_ref().as_plain(), Some("Das HQ"));
        assert_eq!(read.warnings.len(), 1);
        assert_eq!(read.warnings[0].key, "TIP_13");
    }

    #[test]
    fn godots_semicolon_and_tab_tables_are_read_with_their_delimiter() {
        // OpenVic's `helpers.csv` (`delimiter=1` in its `.csv.import`): a comma is text.
        assert_eq!(
            texts("keys;en;fr\nHELLO;Hello, world;\"Bonjour; monde\"\n"),
            [
                ("en".to_owned(), vec![("HELLO".to_owned(), "Hello, world".to_owned())]),
                ("fr".to_owned(), vec![("HELLO".to_owned(), "Bonjour; monde".to_owned())]),
            ]
        );
        assert_eq!(table("keys\ten\tde\nA\ta\tb\n").unwrap().delimiter, b'\t');
        assert_eq!(table("keys,en;x,de\nA,a,b\n").unwrap().delimiter, b',');
        assert!(!is_table(b"id;name;price\n1;apple;3\n"));
    }

    #[test]
    fn files_without_a_header_of_language_codes_are_no_tables() {
        assert!(is_table(b"keys,en,de\nA,a,b\n"));
        assert!(!is_table(b"id,name,price\n1,apple,3\n"));
        assert!(!is_table(b""));
    }

    #[test]
    fn a_file_of_one_language_without_a_header_is_read_as_its_paths_language() {
        // OpenVic's `locales/en_GB/menus.csv`: a blank first line, `;;` comment rows, bare
        // quotes and commas inside texts. A row `OK;Oui` is no header of languages here.
        let file = "\n;; Main Menu\nOK;Oui\nMAINMENU_NEW_GAME;New Game\nHELP;Use the \"search-path\" option, then retry\n\n;; Other\nEMPTY;\n";
        let read = read_in(file.as_bytes(), Some("en_GB")).unwrap();
        assert!(
            read.warnings.is_empty(),
            "{:?}",
            read.warnings.iter().map(|w| &w.message).collect::<Vec<_>>()
        );
        let [(language, entries)] = read.columns.as_slice() else {
            panic!("one language");
        };
        assert_eq!(language, "en_GB");
        let texts: Vec<(&str, &str)> = entries
            .iter()
            .map(|entry| (entry.name.as_str(), entry.text.as_ref().as_plain().unwrap()))
            .collect();
        assert_eq!(
            texts,
            [
                ("OK", "Oui"),
                ("MAINMENU_NEW_GAME", "New Game"),
                ("HELP", "Use the \"search-path\" option, then retry")
            ]
        );
        assert_eq!(entries[0].line, 3);
        // Tab-separated rows take the tab; a table with a header of its language stays a table.
        let tabs = table_in("A\tx, y\nB\tz\n", Some("fr")).unwrap();
        assert_eq!((tabs.delimiter, tabs.header), (b'\t', None));
        let headed = table_in("keys;fr\nA;a\n", Some("fr")).unwrap();
        assert_eq!((headed.delimiter, headed.header), (b';', Some(0)));
        // Without a language, a file without a header is no table.
        assert!(read_in(file.replace("OK;Oui\n", "").as_bytes(), None).is_err());
    }
}
