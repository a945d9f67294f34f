//! Packs and their indexes, written by hand: every pack the writer publishes. libgit2's pack
//! builder spent most of a bulk import searching for deltas, and its indexer then read the
//! pack it had just written again, hashing and inflating every object, to make the index
//! (mapping and unmapping the pack for each object, which interrupts the other core). Here
//! each object is compressed once, whole ([`PackWriter::add_all`], runs of them on every core
//! at once: a large commit, whose deltas maintenance finds later in the background) or as a
//! delta the writer knows of ([`PackWriter::add_delta`]: an older version of a tree it
//! rewrote), and the index comes from what was written: the ids are known, and so are the
//! offsets and CRC-32s.
//!
//! Formats: git's `gitformat-pack` (pack version 2, index version 2). The pack is written to
//! a temporary file in the pack folder and renamed once complete, then the index likewise:
//! a pack is used only once its index is there, so no reader sees half a pack.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::{Compress, Compression, FlushCompress, Status};
use git2::{ObjectType, Oid};
use sha1::{Digest, Sha1};

use super::runs;

/// The first bytes of a version 2 pack index.
pub(super) const INDEX_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];
/// A version 2 pack index (git's `gitformat-pack`): a magic number ([`INDEX_MAGIC`]) and
/// version, 256 fan-out counts (the last is the number of objects), then the sorted ids.
pub(super) const INDEX_IDS_AT: usize = 8 + 256 * 4;

/// The number of objects of a version 2 pack index, from its first [`INDEX_IDS_AT`] bytes;
/// `None` when they are not those of one.
pub(super) fn count_in_index_head(head: &[u8]) -> Option<u64> {
    if head.len() < INDEX_IDS_AT || head[..4] != INDEX_MAGIC || head[4..8] != 2u32.to_be_bytes() {
        return None;
    }
    let last: [u8; 4] = head[INDEX_IDS_AT - 4..INDEX_IDS_AT].try_into().expect("four bytes");
    Some(u64::from(u32::from_be_bytes(last)))
}

pub struct PackWriter {
    dir: PathBuf,
    temporary: PathBuf,
    file: BufWriter<File>,
    hash: Sha1,
    /// Id, CRC-32 of the entry's bytes, and offset, for each object written.
    entries: Vec<(Oid, u32, u64)>,
    offset: u64,
    done: bool,
}

impl PackWriter {
    /// Starts a pack of `count` objects in `dir`.
    pub fn create(dir: &Path, count: usize) -> io::Result<Self> {
        let count = u32::try_from(count).map_err(|_| io::Error::other("more than 2^32 objects"))?;
        let temporary = temporary_path(dir, "pack");
        let mut pack = Self {
            dir: dir.to_owned(),
            file: BufWriter::with_capacity(1 << 20, File::create(&temporary)?),
            temporary,
            hash: Sha1::new(),
            entries: Vec::with_capacity(count as usize),
            offset: 0,
            done: false,
        };
        let mut header = Vec::with_capacity(12);
        header.extend_from_slice(b"PACK");
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&count.to_be_bytes());
        pack.put(&header)?;
        Ok(pack)
    }

    /// Appends `objects` in their order, compressed on up to `threads` threads at once (each
    /// a run of them of about the same size), then written one after the other.
    pub fn add_all(&mut self, objects: &[(Oid, ObjectType, Vec<u8>)], threads: usize) -> io::Result<()> {
        let compressed = runs::on_threads(
            objects,
            threads,
            |(_, _, data)| data.len(),
            |run| {
                // Fast compression: maintenance rewrites the objects as deltas anyway.
                let mut zlib = Compress::new(Compression::fast(), true);
                run.iter()
                    .map(|(id, kind, data)| Entry::of(&mut zlib, *id, *kind, data))
                    .collect::<io::Result<Vec<Entry>>>()
            },
        );
        for run in compressed {
            for entry in run? {
                self.put_entry(entry)?;
            }
        }
        Ok(())
    }

    /// Appends one object whole, compressed by `zlib`; answers where it starts in the pack.
    pub fn add_whole(&mut self, zlib: &mut Compress, id: Oid, kind: ObjectType, data: &[u8]) -> io::Result<u64> {
        let at = self.offset;
        self.put_entry(Entry::of(zlib, id, kind, data)?)?;
        Ok(at)
    }

    /// Appends one object as `delta` (see [`super::delta`]) of the object at `base` (an
    /// offset this pack answered before), compressed by `zlib`; answers where it starts.
    pub fn add_delta(&mut self, zlib: &mut Compress, id: Oid, base: u64, delta: &[u8]) -> io::Result<u64> {
        let at = self.offset;
        let distance = at
            .checked_sub(base)
            .filter(|&distance| distance > 0)
            .ok_or_else(|| io::Error::other("a delta's base must come before it"))?;
        let mut bytes = object_header(OFS_DELTA, delta.len());
        put_base_distance(&mut bytes, distance);
        compress(zlib, delta, &mut bytes)?;
        let crc = crc32fast::hash(&bytes);
        self.put_entry(Entry { id, bytes, crc })?;
        Ok(at)
    }

    /// Appends an entry as another pack holds it (`bytes`: its header and compressed data,
    /// `crc`: their CRC-32); answers where it starts. A delta's base must be given by id or
    /// by a distance that holds in this pack ([`super::join`]).
    pub fn add_raw(&mut self, id: Oid, crc: u32, bytes: &[u8]) -> io::Result<u64> {
        let at = self.offset;
        self.entries.push((id, crc, at));
        self.put(bytes)?;
        Ok(at)
    }

    /// Where the next entry starts.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn put_entry(&mut self, entry: Entry) -> io::Result<()> {
        self.entries.push((entry.id, entry.crc, self.offset));
        self.put(&entry.bytes)
    }

    /// Ends the pack, writes its index, and returns the pack's name (its checksum in hex).
    pub fn finish(mut self) -> io::Result<String> {
        let checksum: [u8; 20] = std::mem::take(&mut self.hash).finalize().into();
        self.file.write_all(&checksum)?;
        self.file.flush()?;
        let name = hex::encode(checksum);
        let pack_path = self.dir.join(format!("pack-{name}.pack"));
        std::fs::rename(&self.temporary, &pack_path)?;
        self.done = true;
        let index = self.index(&checksum);
        let temporary = temporary_path(&self.dir, "idx");
        let written = std::fs::write(&temporary, index)
            .and_then(|()| std::fs::rename(&temporary, self.dir.join(format!("pack-{name}.idx"))));
        if let Err(err) = written {
            let _ = std::fs::remove_file(&temporary);
            let _ = std::fs::remove_file(&pack_path);
            return Err(err);
        }
        Ok(name)
    }

    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.file.write_all(bytes)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// The version 2 index: a fan-out table of how many ids start with each byte or a lower
    /// one, the sorted ids, their CRC-32s, their offsets (those past 2^31 in a table of
    /// 64-bit offsets after), the pack's checksum and the index's own.
    fn index(&mut self, pack_checksum: &[u8; 20]) -> Vec<u8> {
        self.entries.sort_unstable_by_key(|(id, _, _)| *id);
        let mut index = Vec::with_capacity(8 + 1024 + self.entries.len() * 28 + 40);
        index.extend_from_slice(&INDEX_MAGIC);
        index.extend_from_slice(&2u32.to_be_bytes());
        let mut fanout = [0u32; 256];
        for (id, _, _) in &self.entries {
            fanout[usize::from(id.as_bytes()[0])] += 1;
        }
        let mut total = 0u32;
        for count in fanout {
            total += count;
            index.extend_from_slice(&total.to_be_bytes());
        }
        for (id, _, _) in &self.entries {
            index.extend_from_slice(id.as_bytes());
        }
        for (_, crc, _) in &self.entries {
            index.extend_from_slice(&crc.to_be_bytes());
        }
        let mut large = Vec::new();
        for &(_, _, offset) in &self.entries {
            match u32::try_from(offset) {
                Ok(small) if small < 0x8000_0000 => index.extend_from_slice(&small.to_be_bytes()),
                _ => {
                    let position = u32::try_from(large.len()).unwrap_or(u32::MAX) | 0x8000_0000;
                    index.extend_from_slice(&position.to_be_bytes());
                    large.push(offset);
                }
            }
        }
        for offset in large {
            index.extend_from_slice(&offset.to_be_bytes());
        }
        index.extend_from_slice(pack_checksum);
        let own: [u8; 20] = Sha1::digest(&index).into();
        index.extend_from_slice(&own);
        index
    }
}

/// An object as the pack holds it: its header and compressed bytes, and their CRC-32.
struct Entry {
    id: Oid,
    bytes: Vec<u8>,
    crc: u32,
}

impl Entry {
    /// The entry of one object, compressed by `zlib`.
    fn of(zlib: &mut Compress, id: Oid, kind: ObjectType, data: &[u8]) -> io::Result<Self> {
        let type_bits: u8 = match kind {
            ObjectType::Commit => 1,
            ObjectType::Tree => 2,
            ObjectType::Blob => 3,
            ObjectType::Tag => 4,
            _ => return Err(io::Error::other("an object of unknown type")),
        };
        let mut bytes = object_header(type_bits, data.len());
        compress(zlib, data, &mut bytes)?;
        let crc = crc32fast::hash(&bytes);
        Ok(Self { id, bytes, crc })
    }
}

/// Appends `data` compressed by `zlib` (reset first) to `bytes`.
fn compress(zlib: &mut Compress, data: &[u8], bytes: &mut Vec<u8>) -> io::Result<()> {
    // Room for the worst case (zlib's bound is below this), so one call usually does.
    bytes.reserve(data.len() + data.len() / 64 + 64);
    zlib.reset();
    loop {
        let consumed = usize::try_from(zlib.total_in()).map_or(data.len(), |read| read.min(data.len()));
        let status = zlib
            .compress_vec(&data[consumed..], bytes, FlushCompress::Finish)
            .map_err(io::Error::other)?;
        if status == Status::StreamEnd {
            return Ok(());
        }
        bytes.reserve(bytes.capacity().max(64));
    }
}

/// A pack that was not finished leaves no temporary file behind.
impl Drop for PackWriter {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// A name in the pack folder that git's own clean-up recognises (`tmp_*`) and that no other
/// writer uses.
fn temporary_path(dir: &Path, kind: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let number = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("tmp_locstore_{}_{number}.{kind}", std::process::id()))
}

/// The type of an entry that is a delta of an earlier entry of the same pack.
pub(super) const OFS_DELTA: u8 = 6;

/// How far back a delta's base starts, after the entry's header: seven bits a byte, high
/// bits first, each byte but the last with its top bit set and standing for one more than
/// its value (so that no two encodings mean the same distance).
pub(super) fn put_base_distance(bytes: &mut Vec<u8>, mut distance: u64) {
    let mut encoded = vec![(distance & 0x7f) as u8];
    distance >>= 7;
    while distance > 0 {
        distance -= 1;
        encoded.push(0x80 | (distance & 0x7f) as u8);
        distance >>= 7;
    }
    bytes.extend(encoded.iter().rev());
}

/// A pack entry's header: the type in bits 4–6 of the first byte, the size below it and
/// then seven bits a byte, low bits first, each byte but the last with its top bit set.
fn object_header(type_bits: u8, size: usize) -> Vec<u8> {
    let mut header = Vec::with_capacity(10);
    let mut byte = (type_bits << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest > 0 {
        header.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    header.push(byte);
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::gitdb::{run_git, run_git_bytes};

    /// git itself reads the pack and index back: every object, with its content.
    #[test]
    fn git_verifies_the_pack_and_reads_every_object() {
        let dir = tempfile::tempdir().unwrap();
        run_git(dir.path(), &["init", "-q"]);
        let pack_dir = dir.path().join(".git/objects/pack");
        // Sizes across the header's byte boundaries (15, 16, 2047, 2048 bytes) and one large.
        let contents: Vec<Vec<u8>> = [0usize, 1, 15, 16, 100, 2047, 2048, 300_000]
            .iter()
            .map(|&size| (0..size).map(|index| (index * 7 % 251) as u8).collect())
            .collect();
        let mut pack = PackWriter::create(&pack_dir, contents.len()).unwrap();
        let objects: Vec<(Oid, ObjectType, Vec<u8>)> = contents
            .iter()
            .map(|content| {
                (
                    Oid::hash_object(ObjectType::Blob, content).unwrap(),
                    ObjectType::Blob,
                    content.clone(),
                )
            })
            .collect();
        // In two calls, on three threads: runs compressed apart, written in order.
        let (first, second) = objects.split_at(3);
        pack.add_all(first, 3).unwrap();
        pack.add_all(second, 3).unwrap();
        let ids: Vec<Oid> = objects.iter().map(|(id, _, _)| *id).collect();
        let name = pack.finish().unwrap();
        let index = pack_dir.join(format!("pack-{name}.idx"));
        let verified = run_git(dir.path(), &["verify-pack", "-v", index.to_str().unwrap()]);
        assert!(
            verified.contains(&format!("non delta: {}", contents.len())),
            "{verified}"
        );
        for (id, content) in ids.iter().zip(&contents) {
            assert_eq!(
                &run_git_bytes(dir.path(), &["cat-file", "blob", &id.to_string()]),
                content
            );
        }
        let names: Vec<String> = std::fs::read_dir(&pack_dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|name| !name.starts_with("tmp_")), "{names:?}");
    }

    /// Versions of a tree-like object, each a delta of the one before it in the pack (the
    /// newer version), read back by git: the chain's lengths, and every object's content.
    #[test]
    fn git_reads_a_chain_of_deltas() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| run_git_bytes(dir.path(), args);
        git(&["init", "-q"]);
        let pack_dir = dir.path().join(".git/objects/pack");
        // The newest version first: 3,000 entries of 40 bytes, then one fewer each time,
        // taken out in different places. The first delta's base lies beyond a filler, over
        // 16,383 bytes back (three bytes of distance), each later one's just before it (one
        // byte); `distances_are_encoded_as_git_reads_them` covers the two-byte case.
        let mut versions = vec![
            (0..3_000u32)
                .flat_map(|i| format!("{i:08} some entry of forty bytes..\n").into_bytes())
                .collect::<Vec<u8>>(),
        ];
        for step in 1..6 {
            let mut older = versions.last().unwrap().clone();
            let at = (step * 7_919) % (older.len() / 40) * 40;
            older.drain(at..at + 40);
            versions.push(older);
        }
        let mut pack = PackWriter::create(&pack_dir, versions.len() + 1).unwrap();
        let mut zlib = Compress::new(Compression::default(), true);
        let ids: Vec<Oid> = versions
            .iter()
            .map(|data| Oid::hash_object(ObjectType::Blob, data).unwrap())
            .collect();
        let mut base = pack
            .add_whole(&mut zlib, ids[0], ObjectType::Blob, &versions[0])
            .unwrap();
        let filler: Vec<u8> = (0..20_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let filler_id = Oid::hash_object(ObjectType::Blob, &filler).unwrap();
        pack.add_whole(&mut zlib, filler_id, ObjectType::Blob, &filler).unwrap();
        for pair in 1..versions.len() {
            let delta = crate::gitdb::delta::encode(&versions[pair - 1], &versions[pair]).unwrap();
            assert!(delta.len() < 100, "{} bytes", delta.len());
            base = pack.add_delta(&mut zlib, ids[pair], base, &delta).unwrap();
        }
        let name = pack.finish().unwrap();
        let index = pack_dir.join(format!("pack-{name}.idx"));
        let verified = String::from_utf8(git(&["verify-pack", "-v", index.to_str().unwrap()])).unwrap();
        assert!(verified.contains("non delta: 2 objects"), "{verified}");
        for length in 1..versions.len() {
            assert!(
                verified.contains(&format!("chain length = {length}: 1 object")),
                "{verified}"
            );
        }
        for (id, data) in ids.iter().zip(&versions) {
            assert_eq!(&git(&["cat-file", "blob", &id.to_string()]), data);
        }
        git(&["fsck", "--strict"]);
    }

    /// Distances at the edges of one, two and three bytes, read back as git reads them
    /// (`packfile.c`: each further byte adds one before shifting in its seven bits).
    #[test]
    fn distances_are_encoded_as_git_reads_them() {
        for distance in [1u64, 127, 128, 16_511, 16_512, 2_113_663, 2_113_664, 1 << 40] {
            let mut bytes = Vec::new();
            put_base_distance(&mut bytes, distance);
            let mut read = u64::from(bytes[0] & 0x7f);
            for &byte in &bytes[1..] {
                read = ((read + 1) << 7) | u64::from(byte & 0x7f);
            }
            assert_eq!(read, distance, "{bytes:?}");
            let expected_len = match distance {
                ..=127 => 1,
                128..=16_511 => 2,
                16_512..=2_113_663 => 3,
                _ => bytes.len(),
            };
            assert_eq!(bytes.len(), expected_len, "{distance}");
            assert!(bytes[..bytes.len() - 1].iter().all(|byte| byte & 0x80 != 0));
            assert_eq!(bytes[bytes.len() - 1] & 0x80, 0);
        }
    }

    #[test]
    fn a_delta_needs_its_base_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut pack = PackWriter::create(dir.path(), 1).unwrap();
        let mut zlib = Compress::new(Compression::default(), true);
        let id = Oid::hash_object(ObjectType::Blob, b"x").unwrap();
        let at = pack.add_whole(&mut zlib, id, ObjectType::Blob, b"x").unwrap();
        assert!(pack.add_delta(&mut zlib, id, at + 100, b"").is_err());
    }

    #[test]
    fn a_pack_given_up_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let mut pack = PackWriter::create(dir.path(), 1).unwrap();
        let x = (
            Oid::hash_object(ObjectType::Blob, b"x").unwrap(),
            ObjectType::Blob,
            b"x".to_vec(),
        );
        pack.add_all(&[x], 2).unwrap();
        drop(pack);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
