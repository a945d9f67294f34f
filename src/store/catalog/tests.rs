//! Unit tests of the key index: order, search, bulk changes, snapshots, postings.

use super::search::{contains_ignoring_ascii_case, searched_fields};
use super::*;
use crate::domain::model::Text;
use crate::domain::names::LanguageCode;

fn entry(name: &str, texts: &[(&str, &str)]) -> KeyEntry {
    let mut key = Key::named(KeyName::parse(name).unwrap());
    key.translations = texts
        .iter()
        .map(|(l, t)| (LanguageCode::parse(l).unwrap(), Text::from(*t)))
        .collect();
    KeyEntry::new(key, format!("{name}.toml"))
}

fn page_names(index: &KeyIndex, query: &KeyQuery) -> Vec<String> {
    index
        .query(query, |keys| keys.iter().map(|key| key.name.to_string()).collect())
        .0
}

#[test]
fn entries_stay_sorted_by_code_point_and_duplicates_are_reported() {
    let (mut index, duplicates) =
        KeyIndex::from_entries(vec![entry("b", &[]), entry("B", &[]), entry("a", &[]), entry("b", &[])]);
    assert_eq!(duplicates.len(), 1);
    index.put(entry("ä", &[]));
    index.put(entry("A", &[]));
    let all = KeyQuery::new(None, None, None, None).unwrap();
    assert_eq!(page_names(&index, &all), ["A", "B", "a", "b", "ä"]);
    index.remove(&KeyName::parse("B").unwrap());
    assert_eq!(index.len(), 4);
}

#[test]
fn an_index_built_in_arrival_order_answers_as_one_built_at_once() {
    let arriving = || {
        let mut entries: Vec<KeyEntry> = (0..500)
            .map(|index| {
                let name = format!("k{}", (index * 7919) % 401);
                let mut entry = entry(&name, &[("en", &format!("Text {index} of {name}")), ("fr", "Texte")]);
                // Some keys in files made by hand, one of them twice.
                if index % 50 == 0 {
                    entry.hand_made_file = Some(format!("by-hand/{index}.toml").into());
                }
                entry
            })
            .collect();
        entries.push(entry("zz", &[("en", "last")]));
        entries
    };
    let (at_once, duplicates_at_once) = KeyIndex::from_entries(arriving());
    let mut builder = KeyIndex::builder();
    arriving().into_iter().for_each(|entry| builder.push(entry));
    let (built, duplicates) = builder.finish();
    assert_eq!(duplicates.len(), duplicates_at_once.len());
    assert_eq!(built.len(), 402);
    let summary = |index: &KeyIndex| -> Vec<(String, String, Option<String>)> {
        index
            .iter()
            .map(|entry| {
                (
                    entry.key.name.to_string(),
                    entry
                        .key
                        .translations
                        .get(&LanguageCode::parse("en").unwrap())
                        .unwrap()
                        .strings()
                        .collect(),
                    entry.hand_made_file.as_deref().map(str::to_owned),
                )
            })
            .collect()
    };
    assert_eq!(summary(&built), summary(&at_once));
    // The first of each name won: "k0" arrived first as text 0.
    assert_eq!(summary(&built)[0].1, "Text 0 of k0");
    for keyword in ["text 1", "TEXTE", "of k4", "last", "by-hand"] {
        let query = KeyQuery::new(Some(keyword), None, Some(500), None).unwrap();
        assert_eq!(page_names(&built, &query), page_names(&at_once, &query), "{keyword}");
    }
    for (file, owner) in &at_once.owners {
        assert_eq!(built.file_owner(file), Some(owner), "{file}");
    }
    assert_eq!(built.owners.len(), at_once.owners.len());
}

#[test]
fn keyword_matches_names_and_translations_without_regard_to_case() {
    let (index, _) = KeyIndex::from_entries(vec![
        entry("home.TITLE", &[("en", "Welcome")]),
        entry("bye", &[("de", "STRAßE")]),
        entry("other", &[("en", "x"), ("fr", "y")]),
    ]);
    let search = |keyword: &str| {
        let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
        page_names(&index, &query)
    };
    assert_eq!(search("title"), ["home.TITLE"]);
    assert_eq!(search("WELCOME"), ["home.TITLE"]);
    assert_eq!(search("straße"), ["bye"]);
    assert!(search("x\0y").is_empty(), "a keyword may not match across two fields");
    assert_eq!(search("ß"), ["bye"]);
}

#[test]
fn search_stays_right_through_replacements_removals_and_rebuilds() {
    let mut index = KeyIndex::default();
    let padding = "x".repeat(500);
    for round in 0..5000 {
        index.put(entry("k", &[("en", &format!("round {round} {padding}"))]));
    }
    index.put(entry("other", &[("en", "plain")]));
    assert!(index.slots.len() < 5000, "dead slots were dropped by a rebuild");
    let search = |index: &KeyIndex, keyword: &str| {
        let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
        page_names(index, &query)
    };
    assert_eq!(search(&index, "round 4999 "), ["k"]);
    assert!(search(&index, "round 10 ").is_empty());
    // The same keywords again, after changes: cached matches must not outlive them.
    assert_eq!(search(&index, "plain"), ["other"]);
    index.put(entry("another", &[("en", "plain too")]));
    assert_eq!(search(&index, "plain"), ["another", "other"]);
    index.remove(&KeyName::parse("k").unwrap());
    assert!(search(&index, "round").is_empty());
    assert_eq!(search(&index, "PLAIN"), ["another", "other"]);
    index.put_many(vec![entry("zed", &[("en", "plain three")])]);
    assert_eq!(search(&index, "plain"), ["another", "other", "zed"]);
    let (merged, _) = KeyIndex::from_entries(vec![entry("b", &[("en", "bee")]), entry("a", &[("en", "ay")])]);
    assert_eq!(search(&merged, "ee"), ["b"]);
}

#[test]
fn a_snapshot_changed_in_bulk_keeps_its_slots_and_leaves_the_original_alone() {
    let (mut original, _) = KeyIndex::from_entries(
        (0..6000)
            .map(|n| entry(&format!("k{n:04}"), &[("en", &format!("text {n} old"))]))
            .collect(),
    );
    let mut past = original.snapshot();
    past.remove_where(|entry| entry.key.name.as_str() < "k5000");
    let mut incoming: Vec<KeyEntry> = (0..5000)
        .map(|n| entry(&format!("k{n:04}"), &[("en", &format!("text {n} new"))]))
        .collect();
    assert!(past.first_clash(&incoming).is_none());
    incoming.push(entry("k5999", &[("en", "a second file of k5999")]));
    let (kept, new) = past.first_clash(&incoming).expect("k5999 is still there");
    assert_eq!((kept.key.name.as_str(), new.key.name.as_str()), ("k5999", "k5999"));
    incoming.pop();
    assert!(past.put_many(incoming).is_empty());
    // 5,000 dead slots against 1,000 live ones would rebuild an index, but a snapshot's
    // entries are the original's, so it never renumbers them.
    assert_eq!(past.slots.len(), 11_000);
    let count = |index: &KeyIndex, keyword: &str| {
        let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
        index.query(&query, |_| ()).1.total_count
    };
    assert_eq!((count(&past, "new"), count(&past, "old")), (5000, 1000));
    assert_eq!((count(&original, "new"), count(&original, "old")), (0, 6000));
    // The original goes on as before, rebuilding when it should.
    original.remove_where(|entry| entry.key.name.as_str() >= "k1000");
    assert_eq!((original.len(), original.slots.len()), (1000, 1000));
    assert_eq!(past.len(), 6000);
    assert_eq!(count(&past, "text 4321 new"), 1);
}

#[test]
fn postings_round_trip_small_and_large_gaps() {
    let ids = [0, 1, 2, 130, 131, 20_000, 2_000_000, 4_000_000_000];
    let mut postings = Postings::default();
    for id in ids {
        postings.push(id);
    }
    assert_eq!(postings.ids().collect::<Vec<_>>(), ids);
    assert_eq!(postings.count, ids.len() as u32);
}

/// The names a keyword matches, found by checking every key: what the index must agree with.
fn brute_force(index: &KeyIndex, keyword: &str) -> Vec<String> {
    let lowered = keyword.to_lowercase();
    index
        .iter()
        .filter(|entry| searched_fields(&entry.key).any(|field| field.to_lowercase().contains(&lowered)))
        .map(|entry| entry.key.name.to_string())
        .collect()
}

#[test]
fn indexed_search_agrees_with_checking_every_key_through_changes_and_rebuilds() {
    let text = |i: usize| format!("Écran {} bouton n°{i} — {}", i % 7, ["ok", "annuler", "fermer"][i % 3]);
    let (mut index, _) = KeyIndex::from_entries(
        (0..3000)
            .map(|i| {
                entry(
                    &format!("screen{}.button{i}", i % 13),
                    &[("en", &text(i)), ("fr", "Même texte")],
                )
            })
            .collect(),
    );
    let keywords = [
        "button12",
        "n°1",
        "écran 3",
        "ÉCRAN 3",
        "annul",
        "fermer",
        "même",
        "xyz",
        "on",
        "b",
        "screen1",
        "12",
        "n 2 b",
        "e\u{0}f",
        "button2999",
        "screen12.button2",
    ];
    let check = |index: &KeyIndex| {
        for keyword in keywords {
            let query = KeyQuery::new(Some(keyword), None, Some(1000), None).unwrap();
            let mut found = page_names(index, &query);
            let expected = brute_force(index, keyword);
            let total = index.query(&query, |_| ()).1.total_count;
            assert_eq!(total as usize, expected.len(), "{keyword}");
            found.truncate(expected.len());
            assert_eq!(found, expected[..found.len()], "{keyword}");
        }
    };
    check(&index);
    // Replacements, removals and new keys; enough replacements to force a rebuild.
    for round in 0..5000 {
        let i = round % 50;
        index.put(entry(
            &format!("screen{}.button{i}", i % 13),
            &[("en", &format!("changed {round}"))],
        ));
    }
    assert!(index.dead < REBUILD_MIN_DEAD, "the index was rebuilt");
    for i in (0..3000).step_by(7) {
        index.remove(&KeyName::parse(&format!("screen{}.button{i}", i % 13)).unwrap());
    }
    index.put(entry("new.key", &[("en", "un bouton ajouté")]));
    check(&index);
    assert_eq!(
        page_names(&index, &KeyQuery::new(Some("changed 4998"), None, None, None).unwrap()).len(),
        1
    );
}

#[test]
fn an_ascii_field_is_searched_without_regard_to_case_and_without_a_copy() {
    for (haystack, needle, found) in [
        ("Welcome HOME", "home", true),
        ("Welcome HOME", "come h", true),
        ("HOME", "home", true),
        ("HOM", "home", false),
        ("hoMe, again", "h", true),
        ("x-1 and X-2", "x-2", true),
        ("#1 Tag", "#1 t", true),
        ("", "a", false),
        ("abc", "", true),
        ("ab", "abc", false),
        ("aXbxc", "xc", true),
    ] {
        assert_eq!(
            contains_ignoring_ascii_case(haystack.as_bytes(), needle.as_bytes()),
            found,
            "{needle:?} in {haystack:?}"
        );
    }
    let (index, _) = KeyIndex::from_entries(vec![
        entry("plain", &[("en", "Open the DOOR"), ("de", "Öffne die TÜR")]),
        entry("kelvin", &[("en", "\u{212A}elvin")]),
    ]);
    let search = |keyword: &str| {
        let query = KeyQuery::new(Some(keyword), None, None, None).unwrap();
        page_names(&index, &query)
    };
    assert_eq!(search("the door"), ["plain"]);
    assert_eq!(search("die tür"), ["plain"], "a field that is not ASCII is lower-cased");
    assert_eq!(search("ÖFFNE"), ["plain"]);
    assert_eq!(
        search("kelvin"),
        ["kelvin"],
        "the Kelvin sign lower-cases to an ASCII k"
    );
}
