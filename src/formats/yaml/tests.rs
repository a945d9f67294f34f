use super::*;
use crate::domain::model::{PluralCategory, PluralForms};

const RAILS: &str = "# The app's French texts\nfr:\n  home:\n    # The title\n    # of the page\n    title: \"Accueil \\\"x\\\"\"\n    plain: Bonjour le monde # trailing\n    single: 'l''été'\n    block: |\n      line one\n      line two\n  files:\n    one: \"%{count} fichier\"\n    other: fichiers\n  flow: {one: a, other: b}\n  list: [a, b]\n  num: 3\n  nothing:\n  émoji: \"😀 é\\t\\u00e9\"\n  zero_only:\n    zero: rien\n";

#[test]
fn plain_boolean_words_as_keys_are_the_names_ruby_reads() {
    let file = "en:\n  no: \"No\"\n  \"yes\": \"Yes\"\n  On: \"On\"\n  nope: \"Nope\"\n";
    let read = read(file.as_bytes()).unwrap();
    let names: Vec<&str> = read.languages[0].1.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["false", "yes", "true", "nope"]);
}

#[test]
fn a_symfony_file_is_its_paths_languages_keys_named_as_written() {
    // Sylius' `messages.fr.yml`: a root that is no language, `on:` as Symfony reads it.
    let file = "sylius:\n    form:\n        on: on\n        title: Titre\nmenu: Menu\n";
    let read = read_in(file.as_bytes(), Some("fr")).unwrap();
    assert_eq!(read.languages.len(), 1);
    let (language, entries) = &read.languages[0];
    assert_eq!(language, "fr");
    let names: Vec<&str> = entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["sylius.form.on", "sylius.form.title", "menu"]);
    // Without a path's language, or with a root of languages, it is read as Rails.
    assert!(read_in(b"fr:\n  on: oui\n", Some("fr")).unwrap().languages[0].1[0].name == "true");
}

#[test]
fn a_merge_key_names_each_text_it_brings_in() {
    let file = "en:\n  types: &types\n    pdf: PDF\n    deep:\n      doc: Word\n  filter:\n    values:\n      <<: *types\n      all: All\n";
    let read = read(file.as_bytes()).unwrap();
    let names: Vec<&str> = read.languages[0].1.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["types.pdf", "types.deep.doc", "filter.values.all"]);
    let warned: Vec<&str> = read.warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(warned, ["filter.values.pdf", "filter.values.deep.doc"]);
}

#[test]
fn plural_forms_without_other_are_one_key_passed_over_not_three_texts() {
    // Helpy's Russian: Ruby's i18n pluralizes the mapping, so it is no mapping of texts.
    let file = "ru:\n  collapsed:\n    one: \"1 сообщение\"\n    few: \"%{count} сообщения\"\n    many: \"%{count} сообщений\"\n";
    let read = read(file.as_bytes()).unwrap();
    assert!(read.languages[0].1.is_empty(), "{:?}", read.languages);
    let warned: Vec<&str> = read.warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(warned, ["collapsed"]);
}

#[test]
fn rails_files_are_read_as_ruby_reads_their_texts() {
    let read = read(RAILS.as_bytes()).unwrap();
    assert_eq!(read.languages.len(), 1);
    let (language, entries) = &read.languages[0];
    assert_eq!(language, "fr");
    let get = |name: &str| {
        entries
            .iter()
            .find(|entry| entry.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(get("home.title").text, Text::Plain("Accueil \"x\"".into()));
    assert_eq!(get("home.title").description.as_deref(), Some("The title\nof the page"));
    assert_eq!(get("home.plain").text, Text::Plain("Bonjour le monde".into()));
    assert_eq!(get("home.single").text, Text::Plain("l'été".into()));
    assert_eq!(get("home.block").text, Text::Plain("line one\nline two\n".into()));
    assert!(matches!(get("files").text, Text::Plural(_)));
    assert!(matches!(get("flow").text, Text::Plural(_)));
    assert_eq!(get("num").text, Text::Plain("3".into()));
    assert_eq!(get("émoji").text, Text::Plain("😀 é\té".into()));
    // `zero_only` has no `other`: a mapping of one text, `zero_only.zero`.
    assert_eq!(get("zero_only.zero").text, Text::Plain("rien".into()));
    let warned: Vec<&str> = read.warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(warned, ["list", "nothing"]);
}

#[test]
fn spans_cover_each_value_as_written() {
    let root = parse(RAILS).unwrap().unwrap();
    let Node::Mapping { entries, .. } = &root else { panic!() };
    let mut found = Vec::new();
    leaves(&entries[0].1, "", &mut found);
    let span = |name: &str| {
        let (_, _, node) = found.iter().find(|(leaf, _, _)| leaf == name).unwrap();
        &RAILS[node.span()]
    };
    assert_eq!(span("home.title"), "\"Accueil \\\"x\\\"\"");
    assert_eq!(span("home.plain"), "Bonjour le monde");
    assert_eq!(span("home.block"), "|\n      line one\n      line two");
    assert_eq!(span("émoji"), "\"😀 é\\t\\u00e9\"");
}

fn key(name: &str, text: Text, description: &str) -> Key {
    let mut key = Key::named(crate::domain::names::KeyName::parse(name).unwrap());
    key.plural = matches!(text, Text::Plural(_));
    key.description = description.to_owned();
    key.translations = [(LanguageCode::parse("fr").unwrap(), text)].into_iter().collect();
    key
}

#[test]
fn names_nest_at_dots_and_a_name_holding_a_text_keeps_the_longer_one_whole() {
    let forms = PluralForms::new([
        (PluralCategory::One, "un fichier".to_owned()),
        (PluralCategory::Other, "fichiers".to_owned()),
    ])
    .unwrap();
    let plain = |text: &str| Text::Plain(text.to_owned());
    let mut keys = vec![
        key("a", plain("A"), ""),
        key("a.b", plain("A.B"), ""),
        key("a-c", plain("A-C"), ""),
        key("a.d.e", plain("A.D.E"), "Two\nlines"),
        key("home.files", Text::Plural(forms), ""),
        key("home.title", plain("yes"), ""),
        key("no", plain("No"), ""),
        key("x..y", plain("XY"), ""),
    ];
    keys.sort_by(|a, b| a.name.cmp(&b.name));
    let file = render(&keys, &LanguageCode::parse("fr").unwrap());
    let text = String::from_utf8(file.bytes).unwrap();
    assert_eq!(
            text,
            "fr:\n  a: \"A\"\n  a-c: \"A-C\"\n  a.b: \"A.B\"\n  a.d.e: \"A.D.E\"\n  home:\n    files:\n      one: \"un fichier\"\n      other: \"fichiers\"\n    title: \"yes\"\n  \"no\": \"No\"\n  x:\n    \".y\": \"XY\"\n"
                .replace("  a.d.e", "  # Two\n  # lines\n  a.d.e")
                .replace("  a.b:", "  \"a.b\":")
                .replace("  a.d.e:", "  \"a.d.e\":")
        );
    // Read back, every name and text is as written.
    let read = read(text.as_bytes()).unwrap();
    let names: Vec<&str> = read.languages[0].1.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(
        names,
        ["a", "a-c", "a.b", "a.d.e", "home.files", "home.title", "no", "x..y"]
    );
}

#[test]
fn quoting_keeps_every_text_a_text() {
    let mut out = String::new();
    push_key(&mut out, "no");
    push_key(&mut out, "pt-BR");
    push_key(&mut out, "a b");
    push_quoted(&mut out, "tab\t\"q\" \\ \u{1} \u{2028} 😀 \u{85}\u{feff}é");
    assert_eq!(
        out,
        "\"no\"pt-BR\"a b\"\"tab\\t\\\"q\\\" \\\\ \\x01 \\u2028 😀 \\x85\\uFEFFé\""
    );
    let file = format!("fr:\n  k: {}\n", &out[out.rfind("\"tab").unwrap()..]);
    let read = read(file.as_bytes()).unwrap();
    assert_eq!(
        read.languages[0].1[0].text,
        Text::Plain("tab\t\"q\" \\ \u{1} \u{2028} 😀 \u{85}\u{feff}é".into())
    );
}

#[test]
fn a_plural_mapping_with_forms_left_empty_is_a_plural_key_of_the_forms_it_has() {
    let file =
        b"cy:\n  documents:\n    few:\n    many: ~\n    one: Dogfen\n    other: Dogfennau\n    two:\n    zero:\n";
    let read = read(file).unwrap();
    let (_, entries) = &read.languages[0];
    assert_eq!(entries.len(), 1, "{entries:?}");
    let Text::Plural(forms) = &entries[0].text else {
        panic!("{entries:?}");
    };
    assert_eq!(forms.iter().count(), 2);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
}
