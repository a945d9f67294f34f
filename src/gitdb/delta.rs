//! git's delta format (`gitformat-pack`, "Deltified representation"), written for the one
//! case the writer meets: two versions of a tree that differ in one place. A commit changes
//! one entry of each tree on the path it edits, so the versions of such a tree within a
//! batch share everything before that entry and everything after it; the delta copies those
//! two runs from the base and inserts what lies between. No search for matches elsewhere:
//! that search (libgit2's pack builder, against a window of ten objects for every object)
//! was what a small pack cost.

/// The most bytes one copy instruction takes here (its size then fits in two bytes).
const MOST_COPIED: usize = 0xffff;
/// The most bytes one insert instruction carries (its opcode is the count).
const MOST_INSERTED: usize = 0x7f;

/// The delta that makes `target` from `base`, or `None` when the base is too large for the
/// format's four offset bytes.
pub fn encode(base: &[u8], target: &[u8]) -> Option<Vec<u8>> {
    u32::try_from(base.len()).ok()?;
    let prefix = base.iter().zip(target).take_while(|(a, b)| a == b).count();
    let room = base.len().min(target.len()) - prefix;
    let suffix = base
        .iter()
        .rev()
        .zip(target.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let middle = &target[prefix..target.len() - suffix];
    let mut delta = Vec::with_capacity(24 + middle.len() + middle.len() / MOST_INSERTED);
    put_size(&mut delta, base.len());
    put_size(&mut delta, target.len());
    put_copy(&mut delta, 0, prefix);
    for chunk in middle.chunks(MOST_INSERTED) {
        delta.push(chunk.len() as u8);
        delta.extend_from_slice(chunk);
    }
    put_copy(&mut delta, base.len() - suffix, suffix);
    Some(delta)
}

/// A size in the delta's header: seven bits a byte, low bits first, the top bit set on every
/// byte but the last.
fn put_size(delta: &mut Vec<u8>, mut size: usize) {
    while size >= 0x80 {
        delta.push((size as u8 & 0x7f) | 0x80);
        size >>= 7;
    }
    delta.push(size as u8);
}

/// Copy instructions for `len` bytes of the base from `offset`: an opcode with the top bit
/// set whose low four bits say which bytes of the offset follow and the next three which
/// bytes of the size (bytes that are zero are left out).
fn put_copy(delta: &mut Vec<u8>, mut offset: usize, mut len: usize) {
    while len > 0 {
        let size = len.min(MOST_COPIED);
        let at = delta.len();
        delta.push(0x80);
        for (bit, byte) in (offset as u32).to_le_bytes().into_iter().enumerate() {
            if byte != 0 {
                delta[at] |= 1 << bit;
                delta.push(byte);
            }
        }
        for (bit, byte) in (size as u16).to_le_bytes().into_iter().enumerate() {
            if byte != 0 {
                delta[at] |= 0x10 << bit;
                delta.push(byte);
            }
        }
        offset += size;
        len -= size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What git does with a delta (`patch-delta.c`), for checking the encoder's instructions
    /// one by one; that git reads the packs they go in is `pack_writer`'s test.
    fn apply(base: &[u8], delta: &[u8]) -> Vec<u8> {
        let mut at = 0;
        let mut size = || {
            let (mut value, mut shift) = (0usize, 0);
            loop {
                let byte = delta[at];
                at += 1;
                value |= usize::from(byte & 0x7f) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    return value;
                }
            }
        };
        assert_eq!(size(), base.len());
        let target_len = size();
        let mut target = Vec::new();
        while at < delta.len() {
            let op = delta[at];
            at += 1;
            if op & 0x80 == 0 {
                let len = usize::from(op);
                target.extend_from_slice(&delta[at..at + len]);
                at += len;
                continue;
            }
            let (mut offset, mut len) = (0usize, 0usize);
            for bit in 0..4 {
                if op & (1 << bit) != 0 {
                    offset |= usize::from(delta[at]) << (8 * bit);
                    at += 1;
                }
            }
            for bit in 0..3 {
                if op & (0x10 << bit) != 0 {
                    len |= usize::from(delta[at]) << (8 * bit);
                    at += 1;
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            target.extend_from_slice(&base[offset..offset + len]);
        }
        assert_eq!(target.len(), target_len);
        target
    }

    #[test]
    fn deltas_rebuild_the_target() {
        let long: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 253) as u8).collect();
        let mut inserted = long.clone();
        inserted.splice(
            70_000..70_000,
            b"a new entry, longer than one insert instruction can carry: ".repeat(3),
        );
        let mut removed = long.clone();
        removed.drain(100..150);
        let cases: [(&[u8], &[u8]); 9] = [
            (b"", b""),
            (b"", b"all new"),
            (b"all gone", b""),
            (b"same", b"same"),
            (b"abcXdef", b"abcYYdef"),
            (b"aaaa", b"aaaaaa"),
            (b"aaaaaa", b"aaaa"),
            (&long, &inserted),
            (&inserted, &removed),
        ];
        for (base, target) in cases {
            let delta = encode(base, target).unwrap();
            assert_eq!(apply(base, &delta), target, "{} → {} bytes", base.len(), target.len());
        }
    }

    #[test]
    fn one_changed_place_makes_a_small_delta() {
        let base: Vec<u8> = (0..5_000u32).map(|i| (i % 251) as u8).collect();
        let mut target = base.clone();
        target.splice(2_500..2_500, [7u8; 40]);
        let delta = encode(&base, &target).unwrap();
        // Two sizes, two copies, one insert of 40 bytes.
        assert!(delta.len() < 60, "{} bytes", delta.len());
    }
}
