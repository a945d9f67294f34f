//! The writer's own small packs, joined into one without decompressing anything.
//!
//! The writer publishes a pack per batch of changes: at a few thousand writes a second, with
//! batches of a few writes, that is hundreds of packs a second, and maintenance's `git`
//! processes (a run merges what piled up since the last, and takes up to a second under that
//! load) fell behind: 200 to 1,100 packs were on disk during a stream of writes. Every read of
//! an object not in the newest packs then looked through each pack's index in turn, and each
//! new repository handle (the writer's every 32 packs, the webhooks' feed with it) compared
//! every pack file with every other (libgit2's pack folder scan is quadratic): a fifth of the
//! writer's CPU and two fifths of the feed's, in profiles.
//!
//! So when it reopens (every 32 packs) the writer joins the small ones it wrote, four into
//! one (see `JOINED_PACKS` in [`super::repo`] for why not more): each entry is copied
//! as its pack holds it, compressed, one pack after the other, and the new index is made from
//! theirs with the offsets moved. A delta entry names its base by the distance back to it
//! within the same pack, which copying keeps unless a copy in between was left out (an object
//! in two of the packs is kept once): then only that distance is written anew.
//! Maintenance leaves the packs the writer will join alone ([`super::follow::PackLog::held`]),
//! and merges joined packs as it merges any other.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use git2::Oid;

use super::pack_writer::{INDEX_IDS_AT, OFS_DELTA, PackWriter, count_in_index_head, put_base_distance};

/// A pack's header: `PACK`, the version, the number of objects.
const PACK_HEADER: usize = 12;
const CHECKSUM: usize = 20;
const ID: usize = 20;

/// One pack read for joining: its files, its entries' bytes, and each object's id, CRC-32 and
/// offset.
struct Source {
    stem: PathBuf,
    pack: Vec<u8>,
    objects: Vec<(Oid, u32, u64)>,
}

/// Joins the packs whose index files are `indexes` (names in `pack_dir`) into one pack.
/// Answers the new pack's name and the packs it holds (their paths without an extension),
/// which the caller deletes once the new pack is durable; `None` when fewer than two of them
/// are still there (a pack may have been merged away by maintenance meanwhile: its objects
/// are then in the pack maintenance wrote, and it is left out).
///
/// An object in more than one of them (the same file content written in two batches) is
/// kept once, its first copy; a delta whose base moved by that (a copy left out before it)
/// gets its new distance, and the rest of its bytes as they were.
pub(super) fn join(pack_dir: &Path, indexes: &[OsString]) -> io::Result<Option<(String, Vec<PathBuf>)>> {
    let mut sources = Vec::with_capacity(indexes.len());
    for index in indexes {
        let stem = pack_dir.join(index).with_extension("");
        match read(&stem) {
            Ok(source) => sources.push(source),
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(io::Error::other(format!("{}: {err}", stem.display()))),
        }
    }
    if sources.len() < 2 {
        return Ok(None);
    }
    let distinct: HashSet<Oid> = sources
        .iter()
        .flat_map(|source| source.objects.iter().map(|&(id, _, _)| id))
        .collect();
    let mut joined = PackWriter::create(pack_dir, distinct.len())?;
    // Where the first copy of each object went.
    let mut first_copy: HashMap<Oid, u64> = HashMap::with_capacity(distinct.len());
    for source in &mut sources {
        source.objects.sort_unstable_by_key(|&(_, _, offset)| offset);
        let end = (source.pack.len() - CHECKSUM) as u64;
        // Where each entry of this pack went in the joined one (a left-out copy: where the
        // first copy is).
        let mut moved: HashMap<u64, u64> = HashMap::with_capacity(source.objects.len());
        for (number, &(id, crc, offset)) in source.objects.iter().enumerate() {
            if let Some(&at) = first_copy.get(&id) {
                moved.insert(offset, at);
                continue;
            }
            let next = source.objects.get(number + 1).map_or(end, |&(_, _, next)| next);
            let bytes = &source.pack[offset as usize..next as usize];
            let at = match delta_base_distance(bytes)? {
                None => joined.add_raw(id, crc, bytes)?,
                Some((distance, data_at)) => {
                    let base = offset
                        .checked_sub(distance)
                        .and_then(|base| moved.get(&base))
                        .copied()
                        .ok_or_else(|| io::Error::other("a delta whose base is not before it in its pack"))?;
                    let new_distance = joined.offset() - base;
                    if new_distance == distance {
                        joined.add_raw(id, crc, bytes)?
                    } else {
                        let mut entry = bytes[..header_len(bytes)?].to_vec();
                        put_base_distance(&mut entry, new_distance);
                        entry.extend_from_slice(&bytes[data_at..]);
                        joined.add_raw(id, crc32fast::hash(&entry), &entry)?
                    }
                }
            };
            first_copy.insert(id, at);
            moved.insert(offset, at);
        }
    }
    let name = joined.finish()?;
    Ok(Some((name, sources.into_iter().map(|source| source.stem).collect())))
}

/// The length of an entry's type-and-size header.
fn header_len(entry: &[u8]) -> io::Result<usize> {
    entry
        .iter()
        .position(|byte| byte & 0x80 == 0)
        .map(|last| last + 1)
        .ok_or_else(|| io::Error::other("a pack entry's header is cut short"))
}

/// For an offset delta (its base named by the distance back to it): that distance, and where
/// the compressed data starts after it; `None` for any other entry.
fn delta_base_distance(entry: &[u8]) -> io::Result<Option<(u64, usize)>> {
    let cut_short = || io::Error::other("a pack entry's header is cut short");
    let kind = entry.first().ok_or_else(cut_short)? >> 4 & 0x7;
    if kind != OFS_DELTA {
        return Ok(None);
    }
    let mut at = header_len(entry)?;
    let mut byte = *entry.get(at).ok_or_else(cut_short)?;
    let mut distance = u64::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        at += 1;
        byte = *entry.get(at).ok_or_else(cut_short)?;
        distance = ((distance + 1) << 7) | u64::from(byte & 0x7f);
    }
    Ok(Some((distance, at + 1)))
}

/// The files of the pack at `stem` (a path without an extension), the index first so that
/// no reader finds it without its pack; those not there are passed over.
pub(super) fn delete(stem: &Path) -> io::Result<()> {
    for extension in ["idx", "pack", "rev", "bitmap", "mtimes"] {
        match std::fs::remove_file(stem.with_extension(extension)) {
            Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
            _ => {}
        }
    }
    Ok(())
}

/// Reads the pack at `stem` (`.pack` and `.idx`) and checks that the two belong together.
fn read(stem: &Path) -> io::Result<Source> {
    let index = std::fs::read(stem.with_extension("idx"))?;
    let pack = std::fs::read(stem.with_extension("pack"))?;
    let objects = index_entries(&index)?;
    let header_ok = pack.len() >= PACK_HEADER + CHECKSUM
        && pack.starts_with(b"PACK")
        && pack[4..8] == 2u32.to_be_bytes()
        && pack[8..12] == u32::try_from(objects.len()).unwrap_or(u32::MAX).to_be_bytes();
    if !header_ok {
        return Err(io::Error::other("not a version 2 pack of its index's objects"));
    }
    // The index ends with the pack's checksum, then its own.
    let pack_checksum = &index[index.len() - 2 * CHECKSUM..index.len() - CHECKSUM];
    if &pack[pack.len() - CHECKSUM..] != pack_checksum {
        return Err(io::Error::other("the pack and its index do not belong together"));
    }
    let end = (pack.len() - CHECKSUM) as u64;
    if objects
        .iter()
        .any(|&(_, _, offset)| offset < PACK_HEADER as u64 || offset >= end)
    {
        return Err(io::Error::other("an index offset outside the pack"));
    }
    Ok(Source {
        stem: stem.to_owned(),
        pack,
        objects,
    })
}

/// The ids, CRC-32s and offsets of a version 2 pack index (git's `gitformat-pack`).
fn index_entries(index: &[u8]) -> io::Result<Vec<(Oid, u32, u64)>> {
    let cut_short = || io::Error::other("the pack index is cut short");
    let count = count_in_index_head(index).ok_or_else(|| io::Error::other("not a version 2 pack index"))? as usize;
    if index.len() < INDEX_IDS_AT + 2 * CHECKSUM {
        return Err(cut_short());
    }
    let word = |at: usize| -> io::Result<u32> {
        let bytes = index.get(at..at + 4).ok_or_else(cut_short)?;
        Ok(u32::from_be_bytes(bytes.try_into().expect("four bytes")))
    };
    let crcs_at = INDEX_IDS_AT + count * ID;
    let offsets_at = crcs_at + count * 4;
    let large_at = offsets_at + count * 4;
    let mut entries = Vec::with_capacity(count);
    for number in 0..count {
        let id = index
            .get(INDEX_IDS_AT + number * ID..INDEX_IDS_AT + (number + 1) * ID)
            .ok_or_else(cut_short)?;
        let id = Oid::from_bytes(id).map_err(io::Error::other)?;
        let crc = word(crcs_at + number * 4)?;
        let small = word(offsets_at + number * 4)?;
        let offset = if small & 0x8000_0000 == 0 {
            u64::from(small)
        } else {
            let at = large_at + (small & 0x7fff_ffff) as usize * 8;
            let bytes = index.get(at..at + 8).ok_or_else(cut_short)?;
            u64::from_be_bytes(bytes.try_into().expect("eight bytes"))
        };
        entries.push((id, crc, offset));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitdb::{packed_commit, run_git as git};

    fn index_names(dir: &Path) -> Vec<OsString> {
        super::super::objects::index_names(&dir.join(".git/objects/pack")).unwrap()
    }

    #[test]
    fn packs_joined_hold_every_object_and_git_reads_them_all() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        // A pack with deltas (git's own, with offset deltas) and packs of one commit each.
        for number in 0..40 {
            let text: String = (0..200).map(|line| format!("line {line} of {number}\n")).collect();
            std::fs::write(dir.path().join("big.txt"), text).unwrap();
            git(dir.path(), &["add", "big.txt"]);
            git(dir.path(), &["commit", "-q", "-m", &format!("big {number}")]);
        }
        git(dir.path(), &["repack", "-q", "-d", "-a", "-f", "--depth=10"]);
        for name in ["a", "b", "c"] {
            packed_commit(dir.path(), name);
        }
        let before = index_names(dir.path());
        assert_eq!(before.len(), 4);
        let objects_before = git(dir.path(), &["count-objects", "-v"]);
        let pack_dir = dir.path().join(".git/objects/pack");
        let (name, joined) = join(&pack_dir, &before).unwrap().unwrap();
        assert_eq!(joined.len(), 4);
        for stem in &joined {
            delete(stem).unwrap();
        }
        assert_eq!(
            index_names(dir.path()),
            vec![OsString::from(format!("pack-{name}.idx"))]
        );
        // git checks every object, every delta and the index against the pack.
        git(dir.path(), &["fsck", "--strict", "--full"]);
        git(
            dir.path(),
            &["verify-pack", &format!(".git/objects/pack/pack-{name}.idx")],
        );
        let in_pack = |text: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix("in-pack: "))
                .unwrap()
                .to_owned()
        };
        let objects_after = git(dir.path(), &["count-objects", "-v"]);
        assert_eq!(in_pack(&objects_after), in_pack(&objects_before));
        assert_eq!(git(dir.path(), &["rev-list", "--count", "HEAD"]).trim(), "43");
        let log = git(dir.path(), &["log", "-p", "--format=%s"]);
        assert!(log.contains("line 199 of 39") && log.contains("line 0 of 0"));
    }

    #[test]
    fn a_pack_gone_meanwhile_is_left_out_and_one_pack_is_not_joined() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        for name in ["a", "b", "c"] {
            packed_commit(dir.path(), name);
        }
        let pack_dir = dir.path().join(".git/objects/pack");
        let mut names = index_names(dir.path());
        names.push(OsString::from("pack-0000000000000000000000000000000000000000.idx"));
        let (_, joined) = join(&pack_dir, &names).unwrap().unwrap();
        assert_eq!(joined.len(), 3);
        assert_eq!(join(&pack_dir, &names[..1]).unwrap(), None);
    }

    #[test]
    fn a_pack_that_does_not_match_its_index_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        for name in ["a", "b"] {
            packed_commit(dir.path(), name);
        }
        let pack_dir = dir.path().join(".git/objects/pack");
        let names = index_names(dir.path());
        let pack = pack_dir.join(&names[0]).with_extension("pack");
        let mut bytes = std::fs::read(&pack).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&pack, bytes).unwrap();
        assert!(join(&pack_dir, &names).is_err());
        // Nothing was written.
        assert_eq!(index_names(dir.path()).len(), 2);
    }

    /// Writes a pack of `objects` (a delta names the index of its base among them) with the
    /// writer's own pack writer; answers its index's name.
    fn own_pack(pack_dir: &Path, objects: &[(&[u8], Option<usize>)]) -> OsString {
        use flate2::{Compress, Compression};
        let mut pack = PackWriter::create(pack_dir, objects.len()).unwrap();
        let mut zlib = Compress::new(Compression::fast(), true);
        let mut at = Vec::new();
        for (data, base) in objects {
            let id = Oid::hash_object(git2::ObjectType::Blob, data).unwrap();
            at.push(match base {
                None => pack.add_whole(&mut zlib, id, git2::ObjectType::Blob, data).unwrap(),
                Some(base) => {
                    let delta = crate::gitdb::delta::encode(objects[*base].0, data).unwrap();
                    pack.add_delta(&mut zlib, id, at[*base], &delta).unwrap()
                }
            });
        }
        OsString::from(format!("pack-{}.idx", pack.finish().unwrap()))
    }

    /// An object in two packs is kept once; a delta with that copy between it and its base
    /// gets its new distance, and git reads everything back.
    #[test]
    fn an_object_in_two_packs_is_kept_once_and_the_deltas_after_it_still_find_their_base() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let pack_dir = dir.path().join(".git/objects/pack");
        let base: String = (0..100).map(|line| format!("line {line}\n")).collect();
        let changed = base.replace("line 50\n", "line fifty\n");
        let twice = "in both packs\n".repeat(20);
        let first = own_pack(&pack_dir, &[(twice.as_bytes(), None)]);
        let second = own_pack(
            &pack_dir,
            &[
                (base.as_bytes(), None),
                (twice.as_bytes(), None),
                (changed.as_bytes(), Some(0)),
            ],
        );
        let (name, _) = join(&pack_dir, &[first, second]).unwrap().unwrap();
        let index = format!(".git/objects/pack/pack-{name}.idx");
        let verified = git(dir.path(), &["verify-pack", "-v", &index]);
        assert!(verified.contains("non delta: 2 objects"), "{verified}");
        assert!(verified.contains("chain length = 1: 1 object"), "{verified}");
        for text in [&base, &changed, &twice] {
            let id = Oid::hash_object(git2::ObjectType::Blob, text.as_bytes()).unwrap();
            assert_eq!(git(dir.path(), &["cat-file", "blob", &id.to_string()]), *text);
        }
    }
}
