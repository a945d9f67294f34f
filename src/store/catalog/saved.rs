//! A project's keys as loaded (entries and search postings), saved beside the repository so
//! that a restart reads them back instead of parsing every key file again.
//!
//! At 100,000 keys in 50 languages, parsing the TOML files and indexing their text takes
//! about 5 s of both cores; reading this file back takes a fraction of that. The file names
//! the keys tree it was made from. The loader ([`super::super::scan`]) uses it only through
//! that tree: when the project's keys tree at HEAD is another one (commits since, made here
//! or by hand), it applies the difference between the two trees, file by file, on top.
//!
//! The file is a magic line, then frames (length, CRC-32, payload): a header, the keys in
//! name order (postcard, a few hundred a frame), the postings (little-endian words, a few
//! thousand a frame), and an end frame. Anything that does not check out, from a torn write
//! to a frame that decodes to keys out of order, makes the whole file unusable, and the keys
//! are read from git instead.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;

use git2::Oid;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{KeyEntry, KeyIndex, Postings, Slot};
use crate::domain::key_files::{FileName, KeyFiles, Platform};
use crate::domain::model::{Check, Key, Syntax, Translations, XcodeEntry};
use crate::domain::names::{KeyName, LanguageCode};

const MAGIC: &[u8] = b"locstore saved keys v9\n";
const KEYS_A_FRAME: usize = 512;
const GRAMS_A_FRAME: usize = 8192;
/// No frame written is near this; a larger length read back is damage.
const LARGEST_FRAME: usize = 1 << 30;
const END: &[u8] = b"end";

#[derive(Serialize, Deserialize)]
struct Header<'a> {
    /// The keys tree the entries were read from.
    tree: &'a str,
    /// Slot ids given so far (dead ones included): the postings refer to them.
    slots: u32,
    entries: u32,
    grams: u32,
    /// The language codes of all translations; keys refer to them by position.
    #[serde(borrow)]
    languages: Vec<&'a str>,
}

#[derive(Serialize, Deserialize)]
struct KeyRecord<'a> {
    id: u32,
    name: &'a str,
    #[serde(borrow)]
    tags: Vec<&'a str>,
    description: &'a str,
    plural: bool,
    markup: bool,
    translatable: bool,
    /// The key's app files: Android, Apple, web.
    files: [Option<&'a str>; 3],
    file: Option<&'a str>,
    /// Per language: its position in the header's list, the end of its strings, its forms
    /// word (see [`Translations::packed`]).
    languages: Vec<(u16, u32, u32)>,
    texts: &'a str,
    form_ends: Vec<u32>,
    /// The recorded bases: none, or one per language (see [`Translations::packed`]).
    bases: Vec<u32>,
    max_length: Option<u32>,
    /// Positions in [`Check::ALL`].
    ignore_checks: Vec<u8>,
    /// Xcode's `extractionState`, whether the key is its own source text, whether it is
    /// held whole, and the nodes kept as Xcode wrote them.
    #[serde(borrow)]
    xcode: (Option<&'a str>, bool, bool, Vec<(&'a str, &'a str)>),
    /// The placeholder syntax, as its position in [`Syntax::ALL`], and the argument names.
    placeholders: Option<u8>,
    #[serde(borrow)]
    placeholder_names: Vec<&'a str>,
}

fn damaged(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

impl KeyIndex {
    /// Writes the index, as read from the keys tree `tree`, to `path` (through a temporary
    /// file and a rename, so a reader never sees half of it).
    pub fn save(&self, tree: Oid, path: &Path) -> io::Result<()> {
        let temporary = path.with_extension("tmp");
        let written = self
            .write_to(tree, &temporary)
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }

    fn write_to(&self, tree: Oid, path: &Path) -> io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        out.write_all(MAGIC)?;
        let mut languages: Vec<&'static LanguageCode> = Vec::new();
        let mut positions: FxHashMap<*const LanguageCode, u16> = FxHashMap::default();
        for entry in &self.entries {
            for (language, _, _) in entry.key.translations.packed().0 {
                if let std::collections::hash_map::Entry::Vacant(vacant) = positions.entry(language) {
                    let position = u16::try_from(languages.len())
                        .map_err(|_| io::Error::other("more than 65,536 language codes"))?;
                    vacant.insert(position);
                    languages.push(language);
                }
            }
        }
        let tree = tree.to_string();
        let header = Header {
            tree: &tree,
            slots: self.slots.len() as u32,
            entries: self.entries.len() as u32,
            grams: self.grams.len() as u32,
            languages: languages.iter().map(|language| language.as_str()).collect(),
        };
        write_frame(&mut out, &postcard::to_stdvec(&header).map_err(io::Error::other)?)?;
        for chunk in self.entries.chunks(KEYS_A_FRAME) {
            let records: Vec<KeyRecord<'_>> = chunk.iter().map(|entry| record(entry, &positions)).collect();
            write_frame(&mut out, &postcard::to_stdvec(&records).map_err(io::Error::other)?)?;
        }
        let mut grams: Vec<(&u32, &Postings)> = self.grams.iter().collect();
        grams.sort_unstable_by_key(|(gram, _)| **gram);
        for chunk in grams.chunks(GRAMS_A_FRAME) {
            let mut payload = Vec::new();
            for (gram, postings) in chunk {
                for word in [**gram, postings.next, postings.count, postings.bytes.len() as u32] {
                    payload.extend_from_slice(&word.to_le_bytes());
                }
                payload.extend_from_slice(&postings.bytes);
            }
            write_frame(&mut out, &payload)?;
        }
        write_frame(&mut out, END)?;
        out.into_inner().map_err(io::IntoInnerError::into_error)?.sync_all()
    }

    /// Reads an index written by [`save`](Self::save), with the keys tree it was read from.
    pub fn load_saved(path: &Path) -> io::Result<(Oid, KeyIndex)> {
        let mut input = BufReader::with_capacity(1 << 20, File::open(path)?);
        let mut magic = vec![0; MAGIC.len()];
        input.read_exact(&mut magic)?;
        if magic != MAGIC {
            return Err(damaged("not a saved keys file of this version"));
        }
        let header_bytes = read_frame(&mut input)?;
        let header: Header<'_> = postcard::from_bytes(&header_bytes).map_err(|err| damaged(err.to_string()))?;
        let tree = Oid::from_str(header.tree).map_err(|err| damaged(err.to_string()))?;
        let languages = header
            .languages
            .iter()
            .map(|code| LanguageCode::parse(code).map(|code| code.interned()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| damaged(err.to_string()))?;
        let mut index = KeyIndex {
            slots: (0..header.slots).map(|_| Slot { entry: None }).collect(),
            ..KeyIndex::default()
        };
        index.entries.reserve_exact(header.entries as usize);
        while index.entries.len() < header.entries as usize {
            let frame = read_frame(&mut input)?;
            let records: Vec<KeyRecord<'_>> = postcard::from_bytes(&frame).map_err(|err| damaged(err.to_string()))?;
            for record in records {
                let entry = Arc::new(entry(record, &languages)?);
                let slot = index
                    .slots
                    .get_mut(entry.id as usize)
                    .filter(|slot| slot.entry.is_none())
                    .ok_or_else(|| damaged("a key's id is out of range or taken twice"))?;
                slot.entry = Some(entry.clone());
                if index.entries.last().is_some_and(|last| last.key.name >= entry.key.name) {
                    return Err(damaged("keys out of name order"));
                }
                index.note_owner(&entry);
                index.entries.push(entry);
            }
        }
        if index.entries.len() != header.entries as usize {
            return Err(damaged("more keys than the header says"));
        }
        index.dead = index.slots.len() - index.entries.len();
        index.grams.reserve(header.grams as usize);
        while index.grams.len() < header.grams as usize {
            let frame = read_frame(&mut input)?;
            let mut rest = frame.as_slice();
            while !rest.is_empty() {
                let (gram, postings) = read_postings(&mut rest, header.slots)?;
                if index.grams.insert(gram, postings).is_some() {
                    return Err(damaged("a three-byte sequence listed twice"));
                }
            }
        }
        if index.grams.len() != header.grams as usize || read_frame(&mut input)? != END {
            return Err(damaged("the file does not end where its header says"));
        }
        Ok((tree, index))
    }
}

fn record<'a>(entry: &'a KeyEntry, positions: &FxHashMap<*const LanguageCode, u16>) -> KeyRecord<'a> {
    let key = &entry.key;
    let (slots, texts, form_ends, bases) = key.translations.packed();
    KeyRecord {
        id: entry.id,
        name: key.name.identity(),
        tags: key.tags.iter().map(String::as_str).collect(),
        description: &key.description,
        plural: key.plural,
        markup: key.markup,
        translatable: key.translatable,
        files: Platform::ALL.map(|platform| key.files.get(platform)),
        file: entry.hand_made_file.as_deref(),
        languages: slots
            .map(|(language, end, forms)| (positions[&(language as *const LanguageCode)], end, forms))
            .collect(),
        texts,
        form_ends: form_ends.to_vec(),
        bases: bases.to_vec(),
        max_length: key.max_length,
        ignore_checks: key
            .ignore_checks
            .iter()
            .map(|check| Check::ALL.iter().position(|known| known == check).unwrap_or(0) as u8)
            .collect(),
        xcode: (
            key.xcode.extraction_state.as_deref(),
            key.xcode.source_from_key,
            key.xcode.whole,
            key.xcode
                .nodes
                .iter()
                .map(|(language, node)| (language.as_str(), node.as_str()))
                .collect(),
        ),
        placeholders: key
            .placeholders
            .and_then(|syntax| Syntax::ALL.iter().position(|known| *known == syntax))
            .map(|position| position as u8),
        placeholder_names: key.placeholder_names.iter().map(String::as_str).collect(),
    }
}

fn entry(record: KeyRecord<'_>, languages: &[&'static LanguageCode]) -> io::Result<KeyEntry> {
    let name = KeyName::from_identity(record.name).map_err(|err| damaged(err.to_string()))?;
    let slots = record
        .languages
        .iter()
        .map(|&(position, end, forms)| Some((*languages.get(position as usize)?, end, forms)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| damaged("a language out of range"))?;
    let translations = Translations::from_packed(slots, record.texts, &record.form_ends, &record.bases)
        .ok_or_else(|| damaged(format!("the texts of key {:?} do not check out", record.name)))?;
    if translations
        .values()
        .any(|text| text.as_plural().is_some() != record.plural)
    {
        return Err(damaged(format!("key {:?} mixes plain and plural texts", record.name)));
    }
    Ok(KeyEntry {
        key: Key {
            name,
            tags: record.tags.into_iter().map(str::to_owned).collect(),
            description: record.description.to_owned(),
            plural: record.plural,
            markup: record.markup,
            translatable: record.translatable,
            files: key_files(record.files)?,
            max_length: record.max_length,
            ignore_checks: record
                .ignore_checks
                .iter()
                .map(|&index| Check::ALL.get(index as usize).copied())
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| damaged("a check out of range"))?,
            xcode: XcodeEntry {
                extraction_state: record.xcode.0.map(str::to_owned),
                source_from_key: record.xcode.1,
                whole: record.xcode.2,
                nodes: record
                    .xcode
                    .3
                    .into_iter()
                    .map(|(language, node)| (language.to_owned(), node.to_owned()))
                    .collect(),
            },
            placeholders: match record.placeholders {
                Some(position) => Some(
                    *Syntax::ALL
                        .get(position as usize)
                        .ok_or_else(|| damaged("a placeholder syntax out of range"))?,
                ),
                None => None,
            },
            placeholder_names: record.placeholder_names.into_iter().map(str::to_owned).collect(),
            translations,
        },
        id: record.id,
        hand_made_file: record.file.map(Box::from),
    })
}

/// A record's files, checked as a key file's are.
fn key_files(files: [Option<&str>; 3]) -> io::Result<KeyFiles> {
    let mut key_files = KeyFiles::default();
    for (platform, file) in Platform::ALL.into_iter().zip(files) {
        if let Some(file) = file {
            let file = FileName::parse(platform, file).map_err(|err| damaged(err.0))?;
            key_files.set(platform, Some(file));
        }
    }
    Ok(key_files)
}

/// Reads one postings list, checking that its ids ascend below `slots`.
fn read_postings(rest: &mut &[u8], slots: u32) -> io::Result<(u32, Postings)> {
    let mut word = || -> io::Result<u32> {
        let (bytes, after) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| damaged("a cut postings list"))?;
        *rest = after;
        Ok(u32::from_le_bytes(*bytes))
    };
    let (gram, next, count, length) = (word()?, word()?, word()?, word()? as usize);
    if rest.len() < length {
        return Err(damaged("a cut postings list"));
    }
    let (bytes, after) = rest.split_at(length);
    *rest = after;
    let postings = Postings {
        bytes: bytes.to_vec(),
        next,
        count,
    };
    let (mut seen, mut last) = (0u32, None);
    for id in postings.ids() {
        if id >= slots || last.is_some_and(|last| id <= last) {
            return Err(damaged("postings out of range or order"));
        }
        last = Some(id);
        seen += 1;
    }
    if seen != count || last.map_or(0, |last| last + 1) != next {
        return Err(damaged("postings that do not match their count"));
    }
    Ok((gram, postings))
}

fn write_frame(out: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    out.write_all(&(payload.len() as u32).to_le_bytes())?;
    out.write_all(&crc32fast::hash(payload).to_le_bytes())?;
    out.write_all(payload)
}

fn read_frame(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = [0u8; 8];
    input.read_exact(&mut head)?;
    let length = u32::from_le_bytes(head[..4].try_into().expect("four bytes")) as usize;
    let checksum = u32::from_le_bytes(head[4..].try_into().expect("four bytes"));
    if length > LARGEST_FRAME {
        return Err(damaged("a frame longer than any written"));
    }
    let mut payload = vec![0; length];
    input.read_exact(&mut payload)?;
    if crc32fast::hash(&payload) != checksum {
        return Err(damaged("a frame whose checksum does not match"));
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::{PluralCategory, PluralForms, Text};
    use crate::domain::query::KeyQuery;

    fn key(name: &str, texts: &[(&str, &str)]) -> Key {
        let mut key = Key::named(KeyName::parse(name).unwrap());
        key.translations = texts
            .iter()
            .map(|(language, text)| (LanguageCode::parse(language).unwrap(), Text::from(*text)))
            .collect();
        key
    }

    fn search(index: &KeyIndex, keyword: &str) -> Vec<String> {
        let query = KeyQuery::new(Some(keyword), None, Some(1000), None).unwrap();
        index
            .query(&query, |keys| keys.iter().map(|key| key.name.to_string()).collect())
            .0
    }

    #[test]
    fn a_saved_index_reads_back_the_same_keys_search_and_changes() {
        let mut entries: Vec<KeyEntry> = (0..2000)
            .map(|n| {
                let name = format!("screen{}.item{n}", n % 7);
                let file = format!("{name}.toml");
                KeyEntry::new(
                    key(&name, &[("en", &format!("Item {n}")), ("fr", &format!("Élément {n}"))]),
                    file,
                )
            })
            .collect();
        let mut plural = key("cart.items", &[]);
        plural.plural = true;
        plural.tags = vec!["cart".into(), "ios".into()];
        plural.description = "Shown under the cart".into();
        plural.translations.insert(
            LanguageCode::parse("pl").unwrap(),
            Text::Plural(
                PluralForms::new([
                    (PluralCategory::One, "1 produkt".to_owned()),
                    (PluralCategory::Few, "# produkty".to_owned()),
                    (PluralCategory::Other, "# produktów".to_owned()),
                ])
                .unwrap(),
            ),
        );
        entries.push(KeyEntry::new(plural, "made/by hand.toml".into()));
        let (mut index, _) = KeyIndex::from_entries(entries);
        // Dead slots too: ids in the file keep their gaps.
        index.remove(&KeyName::parse("screen3.item10").unwrap());
        index.put(KeyEntry::new(
            key("screen1.item1", &[("en", "Replaced")]),
            "screen1.item1.toml".into(),
        ));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys");
        let tree = Oid::from_str("4b825dc642cb6eb9a060e54bf8d69288fbe66904").unwrap();
        index.save(tree, &path).unwrap();
        let (read_tree, mut again) = KeyIndex::load_saved(&path).unwrap();
        assert_eq!(read_tree, tree);
        let keys = |index: &KeyIndex| {
            index
                .iter()
                .map(|entry| (entry.key.clone(), entry.file()))
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(&again), keys(&index));
        assert_eq!(
            again.file_owner("made/by hand.toml").map(KeyName::as_str),
            Some("cart.items")
        );
        for keyword in ["item 1", "élément 19", "replaced", "produkt", "it", "zzz"] {
            assert_eq!(search(&again, keyword), search(&index, keyword), "{keyword}");
        }
        // It goes on changing as the original would.
        for index in [&mut index, &mut again] {
            index.put(KeyEntry::new(
                key("new.one", &[("en", "Brand new item")]),
                "new.one.toml".into(),
            ));
            index.remove(&KeyName::parse("screen2.item2").unwrap());
        }
        assert_eq!(search(&again, "item"), search(&index, "item"));
    }

    #[test]
    fn a_damaged_or_cut_file_is_refused() {
        let (index, _) = KeyIndex::from_entries(
            (0..600)
                .map(|n| KeyEntry::new(key(&format!("k{n}"), &[("en", "text")]), format!("k{n}.toml")))
                .collect(),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys");
        index.save(Oid::ZERO_SHA1, &path).unwrap();
        let whole = std::fs::read(&path).unwrap();
        let cut = dir.path().join("cut");
        std::fs::write(&cut, &whole[..whole.len() - 5]).unwrap();
        assert!(KeyIndex::load_saved(&cut).is_err());
        let mut flipped = whole.clone();
        flipped[whole.len() / 2] ^= 1;
        std::fs::write(&cut, &flipped).unwrap();
        assert!(KeyIndex::load_saved(&cut).is_err());
        assert!(KeyIndex::load_saved(&dir.path().join("missing")).is_err());
        assert_eq!(KeyIndex::load_saved(&path).unwrap().1.len(), 600);
    }
}
