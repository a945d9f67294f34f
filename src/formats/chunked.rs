//! A file written out as it is made: its text goes into a small buffer that is handed to the
//! file's writer (a zip entry's compressor, say) whenever it is full, so that a renderer holds
//! a few kilobytes of each file instead of all of it. A PO or XLIFF file of 100,000 keys is
//! 10–20 MB; rendered whole, each export took that much fresh memory per file, and the kernel
//! zeroing it was a fifth of the export's time.

use std::io::{self, Write};

/// How much text is held before it is written out.
const CHUNK: usize = 64 * 1024;

pub struct Chunked<W> {
    text: String,
    sink: W,
}

impl<W: Write> Chunked<W> {
    pub fn new(sink: W) -> Self {
        Self {
            text: String::with_capacity(CHUNK + CHUNK / 4),
            sink,
        }
    }

    /// The text not yet written out, to append to.
    pub fn text(&mut self) -> &mut String {
        &mut self.text
    }

    /// Writes the text out when the buffer is full (called between entries).
    pub fn settle(&mut self) -> io::Result<()> {
        if self.text.len() >= CHUNK {
            self.sink.write_all(self.text.as_bytes())?;
            self.text.clear();
        }
        Ok(())
    }

    /// Writes out the rest, and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        self.sink.write_all(self.text.as_bytes())?;
        Ok(self.sink)
    }
}
