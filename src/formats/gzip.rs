//! A gzip file deflated in pieces on several threads, as pigz makes one: each piece is
//! deflated on its own and ends on a byte boundary (a sync flush), so the pieces join into one
//! deflate stream that any gzip reader reads; their CRC-32s are combined for the trailer.
//! Large exports that are not zips (a String Catalog of every language) are stored so.

use std::io::{self, Write};

use flate2::{Compress, Compression, FlushCompress, Status};

/// A piece of the file, deflated.
pub struct Piece {
    deflated: Vec<u8>,
    crc: crc32fast::Hasher,
    length: u64,
}

/// Deflates `text` as a piece of a stream (its end when `last`), at level 1 as the exports'
/// zips are.
pub fn deflate(text: &[u8], last: bool) -> Piece {
    let mut compress = Compress::new(Compression::new(1), false);
    let mut deflated = Vec::with_capacity(text.len() / 4 + 1024);
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    loop {
        if deflated.capacity() - deflated.len() < 1024 {
            deflated.reserve(deflated.capacity().max(4096));
        }
        let read = usize::try_from(compress.total_in()).expect("a piece fits in memory");
        let status = compress
            .compress_vec(&text[read..], &mut deflated, flush)
            .expect("deflating into memory does not fail");
        let all_read = usize::try_from(compress.total_in()).expect("a piece fits in memory") == text.len();
        let done = match status {
            Status::StreamEnd => true,
            // A flush is complete when everything is read and the output was not filled up.
            _ => !last && all_read && deflated.len() < deflated.capacity(),
        };
        if done {
            break;
        }
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(text);
    Piece {
        deflated,
        crc,
        length: text.len() as u64,
    }
}

/// Writes the pieces of one gzip file in order: the header first, the trailer at `finish`.
pub struct Writer<W> {
    out: W,
    crc: crc32fast::Hasher,
    length: u64,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        // Magic, deflate, no flags, no time, no extra flags, "unknown" system (RFC 1952).
        out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])?;
        Ok(Self {
            out,
            crc: crc32fast::Hasher::new(),
            length: 0,
        })
    }

    /// Appends the next piece; the last one pushed must have been deflated as `last`.
    pub fn push(&mut self, piece: &Piece) -> io::Result<()> {
        self.out.write_all(&piece.deflated)?;
        self.crc.combine(&piece.crc);
        self.length += piece.length;
        Ok(())
    }

    /// Writes the trailer: the CRC-32 of the text and its length modulo 2^32.
    pub fn finish(mut self) -> io::Result<W> {
        let crc = self.crc.clone().finalize();
        self.out.write_all(&crc.to_le_bytes())?;
        self.out.write_all(&(self.length as u32).to_le_bytes())?;
        Ok(self.out)
    }
}

/// The length of the text a gzip file written by [`Writer`] holds, from its trailer (modulo
/// 2^32: exports are smaller).
pub fn text_length(file: &mut (impl io::Read + io::Seek)) -> io::Result<u64> {
    file.seek(io::SeekFrom::End(-4))?;
    let mut length = [0; 4];
    file.read_exact(&mut length)?;
    file.seek(io::SeekFrom::Start(0))?;
    Ok(u64::from(u32::from_le_bytes(length)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gzip_of(pieces: &[&[u8]]) -> Vec<u8> {
        let mut writer = Writer::new(Vec::new()).unwrap();
        for (index, piece) in pieces.iter().enumerate() {
            writer.push(&deflate(piece, index + 1 == pieces.len())).unwrap();
        }
        writer.finish().unwrap()
    }

    #[test]
    fn pieces_deflated_apart_read_back_as_one_file() {
        // Repetitive and random-looking pieces, an empty one, and one larger than the
        // output's first allocation.
        let noise: Vec<u8> = (0..300_000u32)
            .map(|n| (n.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let pieces: Vec<Vec<u8>> = vec![
            b"{\n  \"sourceLanguage\" : \"en\",".repeat(100),
            Vec::new(),
            noise,
            "ünïcödé 🎉 ".repeat(5000).into_bytes(),
        ];
        let borrowed: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
        let file = gzip_of(&borrowed);
        let whole = pieces.concat();
        let mut read = Vec::new();
        // flate2's reader checks the CRC-32 and the length in the trailer.
        flate2::read::GzDecoder::new(file.as_slice())
            .read_to_end(&mut read)
            .unwrap();
        assert!(read == whole);
        assert_eq!(
            text_length(&mut std::io::Cursor::new(&file)).unwrap(),
            whole.len() as u64
        );
        // And gzip itself reads it.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("text.gz"), &file).unwrap();
        let output = std::process::Command::new("gzip")
            .arg("-dc")
            .arg(dir.path().join("text.gz"))
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(output.stdout == whole);
    }

    #[test]
    fn one_piece_and_no_text_are_files_too() {
        let mut read = Vec::new();
        flate2::read::GzDecoder::new(gzip_of(&[b"only"]).as_slice())
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, b"only");
        read.clear();
        flate2::read::GzDecoder::new(gzip_of(&[b""]).as_slice())
            .read_to_end(&mut read)
            .unwrap();
        assert!(read.is_empty());
    }
}
