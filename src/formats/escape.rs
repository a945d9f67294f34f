//! Escaping texts into a file's quoting, shared by the writers: a scan eight bytes at a time
//! that copies the runs between characters to escape whole, instead of pushing a text
//! character by character (the writers' largest cost on long texts).

/// The ASCII characters a quoting escapes: every byte below `below` and the bytes of `also`
/// (at most a few; each costs the scan a test per eight bytes).
#[derive(Debug, Clone, Copy)]
pub struct Specials {
    below: u8,
    also: &'static [u8],
    /// Bit `b` for each special byte `b`.
    mask: u128,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

impl Specials {
    pub const fn new(below: u8, also: &'static [u8]) -> Self {
        assert!(below <= 0x80, "only ASCII bytes are special");
        let mut mask = if below == 0 {
            0
        } else {
            u128::MAX >> (128 - below as u32)
        };
        let mut index = 0;
        while index < also.len() {
            assert!(also[index] < 0x80, "only ASCII bytes are special");
            mask |= 1 << also[index];
            index += 1;
        }
        Self { below, also, mask }
    }

    fn is_special(self, byte: u8) -> bool {
        byte < 0x80 && self.mask >> byte & 1 == 1
    }

    /// The high bit of each byte of `word` (read little-endian) that may be special: the
    /// lowest one set is the first special byte exactly (bytes above it may be false hits).
    fn hits(self, word: u64) -> u64 {
        // A byte below n (n ≤ 128) or equal to b, found in all eight at once: the classic
        // "has less" and "has zero byte" bit tricks, whose borrows only run upwards.
        let mut hits = word.wrapping_sub(ONES * u64::from(self.below)) & !word & HIGHS;
        for &byte in self.also {
            let equal = word ^ (ONES * u64::from(byte));
            hits |= equal.wrapping_sub(ONES) & !equal & HIGHS;
        }
        hits
    }
}

/// Appends `text` to `out`, each special byte written by `escape` (which may write nothing, to
/// leave it out, or the byte itself) and everything else copied. Only ASCII bytes are ever
/// special: an ASCII byte never occurs inside another character, so the runs between special
/// bytes are whole characters.
pub fn push_escaped(out: &mut String, text: &str, specials: Specials, mut escape: impl FnMut(u8, &mut String)) {
    let bytes = text.as_bytes();
    let (mut run, mut at) = (0, 0);
    while at < bytes.len() {
        // Eight bytes at a time to the next special one.
        if let Some(word) = bytes.get(at..at + 8) {
            let hits = specials.hits(u64::from_le_bytes(word.try_into().expect("eight bytes")));
            if hits == 0 {
                at += 8;
                continue;
            }
            at += hits.trailing_zeros() as usize / 8;
        }
        let byte = bytes[at];
        if specials.is_special(byte) {
            out.push_str(&text[run..at]);
            escape(byte, out);
            run = at + 1;
        }
        at += 1;
    }
    out.push_str(&text[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUOTE: Specials = Specials::new(0x20, b"\"\\");

    fn quoted(text: &str) -> String {
        let mut out = String::from("[");
        push_escaped(&mut out, text, QUOTE, |byte, out| match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            0 => {}
            other => out.push(char::from(other)),
        });
        out.push(']');
        out
    }

    #[test]
    fn escapes_the_bytes_asked_for_and_copies_everything_else() {
        assert_eq!(quoted(""), "[]");
        assert_eq!(quoted("plain"), "[plain]");
        assert_eq!(quoted("\"a\"\nb"), "[\\\"a\\\"\\nb]");
        assert_eq!(quoted("é\"😀\n日本"), "[é\\\"😀\\n日本]");
        assert_eq!(quoted("\n\n"), "[\\n\\n]");
        assert_eq!(quoted("left\0out, \t kept"), "[leftout, \t kept]");
    }

    /// Every position of a special byte in and across the eight-byte words, against the
    /// character-by-character rule.
    #[test]
    fn the_word_scan_finds_every_special_byte_wherever_it_is() {
        let slow = |text: &str| {
            let mut out = String::from("[");
            for c in text.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\0' => {}
                    c => out.push(c),
                }
            }
            out.push(']');
            out
        };
        let fillers = ["a", "é", "日", "😀", "\u{7f}", "~", "!", " ", "#"];
        for special in ["\"", "\\", "\n", "\0", "\t", "\u{1f}"] {
            for filler in fillers {
                for length in 0..20 {
                    for position in 0..=length {
                        let mut text = filler.repeat(position);
                        text.push_str(special);
                        text.push_str(&filler.repeat(length - position));
                        assert_eq!(quoted(&text), slow(&text), "{text:?}");
                    }
                }
            }
        }
        // Two special bytes at every pair of positions within and across words.
        for first in 0..18 {
            for second in first..18 {
                let mut text: Vec<char> = "abcdefghijklmnopqr".chars().collect();
                text[first] = '"';
                text[second] = '\n';
                let text: String = text.into_iter().collect();
                assert_eq!(quoted(&text), slow(&text), "{text:?}");
            }
        }
        // Bytes next to the specials in value (`!` is `"` + 1, `[` is `\` - 1, space is 0x20).
        assert_eq!(quoted("!#[] !#[] !#[]"), "[!#[] !#[] !#[]]");
    }
}
