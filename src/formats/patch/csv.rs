//! Patching a translation table ([`crate::formats::csv_table`]) cell by cell: a cell whose
//! text is the server's keeps its bytes; a changed one gets the new text, quoted as the file
//! quotes (every cell, or only where a cell needs it); a key the server deleted loses its row;
//! a key new to the table gets a row at the end. Columns that name no language, or a language
//! the export lacks, the rows above the header, cells past the header's last column and the
//! line ends stay as they are.
//!
//! A file of one language without a header (a game's `locales/fr_FR/menus.csv` of `KEY;text`
//! rows, [`csv_table::table_in`]) is patched the same way as a table of that one column, but
//! for what a file of one language has no cell for: a key without a text in it gets no row,
//! and a row whose text the server no longer has goes.

use std::collections::HashMap;

use super::{Edits, PatchInput, Patched, utf8};
use crate::formats::ReadError;
use crate::formats::csv_table::{self, Table};

/// The patched table.
pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    patch_in(input, None)
}

/// The patched table of a file whose path names its language ([`csv_table::table_in`]).
pub fn patch_in(input: &PatchInput<'_>, language: Option<&str>) -> Result<Patched, ReadError> {
    let text = utf8(input.local)?;
    let local = csv_table::table_in(text, language)?;
    let one_language = local.header.is_none();
    let exported_text = utf8(input.exported)?;
    let exported = csv_table::table(exported_text)?;
    // The export's texts: key → (language → cell text).
    let mut server: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut order = Vec::new();
    for row in exported.texts() {
        let name = row.cells[0].text.as_str();
        let cells = (0..exported.languages.len())
            .map(|index| row.cells.get(index + 1).map_or("", |cell| cell.text.as_str()))
            .collect();
        if server.insert(name, cells).is_none() {
            order.push(name);
        }
    }
    // Each local column's column in the export, for the columns of a language it has.
    let columns: Vec<Option<usize>> = local
        .languages
        .iter()
        .map(|language| {
            let language = language.as_deref()?;
            exported
                .languages
                .iter()
                .position(|known| known.as_deref().is_some_and(|known| same_language(known, language)))
        })
        .collect();
    let style = Style::of(&local, text);
    let mut edits = Edits::default();
    // A key given twice is read from its last row (as Godot reads it): the rows before it
    // are not the key's text and stay as they are.
    let rows = local.texts();
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (index, row) in rows.iter().enumerate() {
        last.insert(row.cells[0].text.as_str(), index);
    }
    let mut seen = std::collections::HashSet::new();
    for (index, row) in rows.iter().enumerate() {
        let name = row.cells[0].text.as_str();
        if name.is_empty() || last.get(name) != Some(&index) {
            continue;
        }
        seen.insert(name);
        let gone = match server.get(name) {
            None => (input.deleted)(name),
            Some(texts) => one_language && columns[0].is_none_or(|column| texts[column].is_empty()),
        };
        if gone {
            // The row and its line end.
            let end = line_end_after(text, row.span.end);
            edits.replace(row.span.start..end, "");
            continue;
        }
        let Some(texts) = server.get(name) else {
            continue;
        };
        // The row's cells, with those a short row gains.
        let mut width = row.cells.len();
        for (index, column) in columns.iter().enumerate() {
            let Some(column) = column else { continue };
            let wanted = texts[*column];
            match row.cells.get(index + 1) {
                Some(cell) if cell.text == wanted => {}
                Some(cell) => edits.replace(cell.span.clone(), style.cell(wanted, cell.quoted)),
                None if wanted.is_empty() => {}
                // A short row gains the cells up to this one.
                None => {
                    // The column's cell is cell `index + 1`: a delimiter before each cell added.
                    let missing = index + 2 - width;
                    width = index + 2;
                    let mut added = style.delimiter.to_string().repeat(missing);
                    added.push_str(&style.cell(wanted, style.quote_all));
                    edits.insert(row.span.end, added);
                }
            }
        }
    }
    // Keys new to the table, at its end, in the export's order.
    let mut added = String::new();
    for name in order.iter().filter(|name| !seen.contains(**name)) {
        let texts = &server[name];
        if one_language && columns[0].is_none_or(|column| texts[column].is_empty()) {
            continue;
        }
        let mut cells = vec![style.cell(name, style.quote_all)];
        for column in &columns {
            cells.push(match column {
                Some(column) => style.cell(texts[*column], style.quote_all),
                None => style.cell("", style.quote_all),
            });
        }
        added.push_str(&cells.join(style.delimiter.to_string().as_str()));
        added.push_str(style.line_end);
    }
    if !added.is_empty() {
        let end = text.len();
        if !text.is_empty() && !text.ends_with('\n') {
            added.insert_str(0, style.line_end);
        }
        edits.insert(end, added);
    }
    Ok(Patched::of(input, edits, text, Vec::new()))
}

/// Two language codes the same but for case and `-`/`_`.
fn same_language(a: &str, b: &str) -> bool {
    let fold = |code: &str| code.to_ascii_lowercase().replace('_', "-");
    fold(a) == fold(b)
}

/// The end of the line end after `at` (CRLF or LF), or `at` at the end of the text.
fn line_end_after(text: &str, at: usize) -> usize {
    let rest = &text.as_bytes()[at..];
    match rest {
        [b'\r', b'\n', ..] => at + 2,
        [b'\n', ..] | [b'\r', ..] => at + 1,
        _ => at,
    }
}

/// How a file writes its cells: whether it quotes every cell, its delimiter and its line end.
struct Style {
    quote_all: bool,
    delimiter: char,
    line_end: &'static str,
}

impl Style {
    fn of(table: &Table, text: &str) -> Self {
        let cells = table.texts().iter().flat_map(|row| &row.cells);
        let (quoted, bare) = cells.fold((0, 0), |(quoted, bare), cell| {
            if cell.quoted {
                (quoted + 1, bare)
            } else {
                (quoted, bare + 1)
            }
        });
        Self {
            quote_all: quoted > 0 && bare == 0,
            delimiter: char::from(table.delimiter),
            line_end: super::line_ending(text),
        }
    }

    /// `text` as a cell: in double quotes (quotes doubled) when asked or when it needs them.
    fn cell(&self, text: &str, quote: bool) -> String {
        let needs = text.contains([self.delimiter, '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ');
        if quote || needs {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(local: &str, exported: &str, deleted: &[&str]) -> String {
        let deleted = |name: &str| deleted.contains(&name);
        let input = PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: None,
            deleted: &deleted,
            is_base: true,
            prepared: None,
        };
        let patched = patch(&input).unwrap();
        String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap()
    }

    #[test]
    fn a_table_with_the_servers_texts_keeps_every_byte() {
        // Tanks of Freedom's quoted table with CRLF, Twill's two header rows with a BOM.
        for local in [
            "\"\",\"en\",\"de\"\r\n\"LABEL_YES\",\"YES\",\"JA\"\r\n\"TIP\",\"say \"\"hi\"\"\",\"\"\r\n",
            "\u{feff}Language,English,German\nISO639-1Code,en,de\nauth.back,Back,Zurück\n",
            ",en,de\nKEY_A,\"two\nlines  \",zwei\nKEY_B,b,B,an extra cell\n",
        ] {
            let exported = match local.contains("auth.back") {
                true => "key,en,de\r\nauth.back,Back,Zurück\r\n",
                false if local.contains("KEY_A") => "key,en,de\r\nKEY_A,\"two\nlines  \",zwei\r\nKEY_B,b,B\r\n",
                false => "key,en,de\r\nLABEL_YES,YES,JA\r\nTIP,\"say \"\"hi\"\"\",\r\n",
            };
            assert_eq!(patched(local, exported, &[]), local);
        }
    }

    #[test]
    fn a_changed_cell_changes_alone_in_the_files_quoting() {
        let local = "\"\",\"en\",\"de\"\r\n\"A\",\"Yes\",\"Ja\"\r\n\"B\",\"No\",\"Nein\"\r\n";
        let exported = "key,en,de\r\nA,Yes,Jawohl\r\nB,No,Nein\r\nC,New,Neu\r\n";
        assert_eq!(
            patched(local, exported, &[]),
            "\"\",\"en\",\"de\"\r\n\"A\",\"Yes\",\"Jawohl\"\r\n\"B\",\"No\",\"Nein\"\r\n\"C\",\"New\",\"Neu\"\r\n"
        );
        let bare = "keys,en,de\nA,Yes,Ja\nB,No,Nein\nX,kept,behalten\n";
        let exported = "key,en,de\r\nA,\"Yes, sir\",Ja\r\n";
        assert_eq!(
            patched(bare, exported, &["B"]),
            "keys,en,de\nA,\"Yes, sir\",Ja\nX,kept,behalten\n"
        );
    }

    #[test]
    fn a_key_given_twice_is_patched_in_its_last_row_only() {
        // Tanks of Freedom's `translations_de.csv` gives `LABEL_BACK` twice.
        let local = ",de\nLABEL_BACK,> ZURÜCK\nLABEL_PLAY,SPIELEN\nLABEL_BACK,ZURÜCK\n";
        assert_eq!(
            patched(local, "key,de\r\nLABEL_BACK,ZURÜCK\r\nLABEL_PLAY,SPIELEN\r\n", &[]),
            local
        );
        assert_eq!(
            patched(local, "key,de\r\nLABEL_BACK,Zurück\r\nLABEL_PLAY,SPIELEN\r\n", &[]),
            ",de\nLABEL_BACK,> ZURÜCK\nLABEL_PLAY,SPIELEN\nLABEL_BACK,Zurück\n"
        );
    }

    #[test]
    fn a_file_of_one_language_is_patched_with_its_languages_column() {
        // OpenVic's `locales/fr_FR/menus.csv`: the French column of the set's table.
        let local = "\n;; Main Menu\nMAINMENU_TITLE;OpenVic\nMAINMENU_NEW_GAME;Nouveau Jeu\nMAINMENU_EXIT;Quitter\nLOCAL_ONLY;Ici\n";
        let exported = "key,en_GB,fr_FR\r\nMAINMENU_EXIT,Exit,\r\nMAINMENU_NEW_GAME,New Game,Nouvelle partie\r\nMAINMENU_OPTIONS,Options,\"Options; tout\"\r\nMAINMENU_TITLE,OpenVic,OpenVic\r\nONLY_ENGLISH,Only,\r\n";
        let deleted = |name: &str| name == "GONE";
        let input = PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: None,
            deleted: &deleted,
            is_base: false,
            prepared: None,
        };
        let patched = patch_in(&input, Some("fr_FR")).unwrap();
        // A changed text in place; a text the server no longer has takes its row; a key with
        // a French text is added, one without none; the app's own row and comments stay.
        assert_eq!(
            String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap(),
            "\n;; Main Menu\nMAINMENU_TITLE;OpenVic\nMAINMENU_NEW_GAME;Nouvelle partie\nLOCAL_ONLY;Ici\nMAINMENU_OPTIONS;\"Options; tout\"\n"
        );
        // A new language's file, from nothing: its rows, `;` between cells.
        let input = PatchInput { local: b"", ..input };
        let patched = patch_in(&input, Some("fr-FR")).unwrap();
        assert_eq!(
            String::from_utf8(patched.body.into_bytes(b"")).unwrap(),
            "MAINMENU_NEW_GAME;Nouvelle partie\nMAINMENU_OPTIONS;\"Options; tout\"\nMAINMENU_TITLE;OpenVic\n"
        );
    }

    #[test]
    fn a_semicolon_table_is_patched_with_semicolons() {
        let local = "keys;en;fr\nHELLO;Hello;Bonjour\nBYE;Bye\n";
        let exported = "key,en,fr\r\nHELLO,Hello,\"Salut; toi\"\r\nBYE,Bye,Au revoir\r\nNEW,\"New, too\",Neuf\r\n";
        assert_eq!(
            patched(local, exported, &[]),
            "keys;en;fr\nHELLO;Hello;\"Salut; toi\"\nBYE;Bye;Au revoir\nNEW;New, too;Neuf\n"
        );
    }

    #[test]
    fn a_short_row_gains_the_cells_up_to_each_text_it_lacks() {
        let local = "keys,en,de,fr\nA,a\nB,b\n";
        let exported = "key,en,de,fr\r\nA,a,ä,à\r\nB,b,,bé\r\n";
        assert_eq!(patched(local, exported, &[]), "keys,en,de,fr\nA,a,ä,à\nB,b,,bé\n");
    }

    #[test]
    fn columns_the_export_lacks_and_blender_locale_names_are_matched_or_kept() {
        let local = "name,en_US,ja_JP,notes\nA,Hello,,for testers\n";
        let exported = "key,en_US,ja_JP\r\nA,Hello,こんにちは\r\n";
        assert_eq!(
            patched(local, exported, &[]),
            "name,en_US,ja_JP,notes\nA,Hello,こんにちは,for testers\n"
        );
    }
}
