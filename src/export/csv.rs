//! `{lang}.csv`: RFC 4180 (CRLF line ends, quotes doubled), UTF-8 without BOM, header
//! `key,{lang}`.

use super::{ExportFile, texts};
use crate::domain::model::Key;
use crate::domain::names::LanguageCode;

pub fn render(keys: &[Key], language: &LanguageCode) -> ExportFile {
    let mut writer = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::CRLF)
        .from_writer(Vec::new());
    // Writing records into a Vec cannot fail for I/O reasons, and every record has two fields.
    writer
        .write_record(["key", language.as_str()])
        .expect("writing CSV into memory");
    for (key, text) in texts(keys, language) {
        writer
            .write_record([key.name.as_str(), text])
            .expect("writing CSV into memory");
    }
    let bytes = writer.into_inner().expect("flushing CSV into memory");
    ExportFile {
        path: format!("{language}.csv"),
        bytes,
    }
}
