//! Several exported files in one zip archive, byte-stable: entries in path order, fixed
//! timestamps (1980-01-01) and permissions, so the same data gives the same bytes.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;

use super::ExportFile;

pub fn zip(files: &[ExportFile]) -> Result<Vec<u8>, zip::result::ZipError> {
    let mut sorted: Vec<&ExportFile> = files.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let mut archive = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for file in sorted {
        archive.start_file(file.path.as_str(), options)?;
        archive.write_all(&file.bytes)?;
    }
    Ok(archive.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_files_give_the_same_bytes_and_read_back() {
        let files = vec![
            ExportFile {
                path: "fr.json".into(),
                bytes: b"{}".to_vec(),
            },
            ExportFile {
                path: "en.json".into(),
                bytes: b"{\"a\": \"b\"}".to_vec(),
            },
        ];
        let first = zip(&files).unwrap();
        let reversed: Vec<ExportFile> = files.iter().rev().cloned().collect();
        assert_eq!(first, zip(&reversed).unwrap());
        let mut archive = zip::ZipArchive::new(Cursor::new(first)).unwrap();
        assert_eq!(
            archive.file_names().collect::<std::collections::BTreeSet<_>>(),
            ["en.json", "fr.json"].into()
        );
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("en.json").unwrap(), &mut text).unwrap();
        assert_eq!(text, "{\"a\": \"b\"}");
    }
}
