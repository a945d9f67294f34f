use super::*;

fn key(name: &str, tags: &[&str], translations: &[(&str, &str)]) -> Key {
    let mut key = Key::named(KeyName::parse(name).unwrap());
    key.tags = tags.iter().map(|t| t.to_string()).collect();
    key.translations = translations
        .iter()
        .map(|(l, t)| (LanguageCode::parse(l).unwrap(), Text::from(*t)))
        .collect();
    key
}

fn plural_key() -> Key {
    let mut key = key("episodes", &["player"], &[]);
    key.plural = true;
    key.description = "Shown under a podcast;\nthe number of episodes.".into();
    let forms = |one: &str, other: &str| {
        Text::Plural(
            PluralForms::new([(PluralCategory::One, one.into()), (PluralCategory::Other, other.into())]).unwrap(),
        )
    };
    key.translations = [
        (LanguageCode::parse("en").unwrap(), forms("%d episode", "%d episodes")),
        (LanguageCode::parse("fr").unwrap(), forms("%d épisode", "%d épisodes")),
    ]
    .into_iter()
    .collect();
    key
}

#[test]
fn a_plural_key_has_one_form_per_line_in_cldr_order() {
    let text = String::from_utf8(write_key(&plural_key())).unwrap();
    assert_eq!(
        text,
        "name = \"episodes\"\ntags = [\"player\"]\ndescription = \"\"\"\nShown under a podcast;\nthe number of episodes.\"\"\"\nplural = true\n\n[translations.en]\none = \"%d episode\"\nother = \"%d episodes\"\n\n[translations.fr]\none = \"%d épisode\"\nother = \"%d épisodes\"\n"
    );
    assert_eq!(read_key(text.as_bytes()).unwrap(), plural_key());
}

#[test]
fn a_translation_of_the_other_kind_is_read_as_written_and_seen_in_the_key_kind() {
    // Korean written as one text in a plural key; Russian forms in a plain key.
    let plural = "name = \"items\"\ntags = []\nplural = true\n\n[translations]\nko = \"%d개\"\n\n[translations.en]\none = \"%d item\"\nother = \"%d items\"\n";
    let key = read_key(plural.as_bytes()).unwrap();
    let ko = LanguageCode::parse("ko").unwrap();
    assert_eq!(
        key.translations.get_written(&ko).and_then(|(text, _)| text.as_plain()),
        Some("%d개")
    );
    let seen = key.translations.get(&ko).and_then(TextRef::as_plural).unwrap();
    assert_eq!(seen.iter().collect::<Vec<_>>(), [(PluralCategory::Other, "%d개")]);
    assert_eq!(String::from_utf8(write_key(&key)).unwrap(), plural);
    let plain = "name = \"title\"\ntags = []\n\n[translations]\nen = \"Items\"\n\n[translations.ru]\none = \"Штука\"\nother = \"Штуки\"\n";
    let key = read_key(plain.as_bytes()).unwrap();
    let ru = LanguageCode::parse("ru").unwrap();
    assert_eq!(key.translations.get(&ru).and_then(TextRef::as_plain), Some("Штуки"));
    assert!(
        key.translations
            .get_written(&ru)
            .is_some_and(|(_, other_kind)| other_kind)
    );
    assert_eq!(String::from_utf8(write_key(&key)).unwrap(), plain);
}

#[test]
fn a_key_file_with_malformed_forms_is_refused() {
    assert!(read_key(b"name = \"k\"\nplural = true\n[translations.en]\none = \"x\"\n").is_err());
    assert!(read_key(b"name = \"k\"\nplural = true\n[translations.en]\nother = \"x\"\nsome = \"y\"\n").is_err());
    // A translation is a string or a table of forms, nothing else.
    assert!(read_key(b"name = \"k\"\n[translations]\nen = 3\n").is_err());
    assert!(read_key(b"name = \"k\"\n[translations]\nen = [\"x\"]\n").is_err());
    assert!(read_key(b"name = \"k\"\nplural = true\n[translations.en]\nother = 1\n").is_err());
}

#[test]
fn key_file_has_one_translation_per_line_in_code_order() {
    let text = String::from_utf8(write_key(&key(
        "home.title",
        &["ui"],
        &[("fr", "Bonjour"), ("en", "Hello")],
    )))
    .unwrap();
    assert_eq!(
        text,
        "name = \"home.title\"\ntags = [\"ui\"]\n\n[translations]\nen = \"Hello\"\nfr = \"Bonjour\"\n"
    );
}

#[test]
fn multi_line_texts_are_written_as_multi_line_strings() {
    let text = String::from_utf8(write_key(&key("k", &[], &[("en", "line one\nline two")]))).unwrap();
    assert!(text.contains("en = \"\"\"\nline one\nline two\"\"\""), "{text}");
}

#[test]
fn every_field_is_written_in_its_place_and_defaults_are_left_out() {
    let mut marked = key("promo", &[], &[("en", "<b>Now</b> & later"), ("de", "<b>Jetzt</b>")]);
    marked.markup = true;
    marked.description = "Banner".into();
    let mut counted = key("files", &["a", "b"], &[]);
    counted.plural = true;
    counted.markup = true;
    counted.translations = [(
        LanguageCode::parse("ar").unwrap(),
        Text::Plural(
            PluralForms::new([
                (PluralCategory::Many, "m".into()),
                (PluralCategory::Zero, "z".into()),
                (PluralCategory::Other, "o".into()),
                (PluralCategory::Two, "t".into()),
                (PluralCategory::Few, "f".into()),
                (PluralCategory::One, "n".into()),
            ])
            .unwrap(),
        ),
    )]
    .into_iter()
    .collect();
    let written = [marked, counted, key("bare", &[], &[])].map(|key| String::from_utf8(write_key(&key)).unwrap());
    assert_eq!(
        written,
        [
            "name = \"promo\"\ntags = []\ndescription = \"Banner\"\nmarkup = true\n\n[translations]\nde = \"<b>Jetzt</b>\"\nen = \"<b>Now</b> & later\"\n",
            "name = \"files\"\ntags = [\n    \"a\",\n    \"b\",\n]\nplural = true\nmarkup = true\n\n[translations.ar]\nzero = \"z\"\none = \"n\"\ntwo = \"t\"\nfew = \"f\"\nmany = \"m\"\nother = \"o\"\n",
            "name = \"bare\"\ntags = []\n\n[translations]\n",
        ]
    );
}

#[test]
fn a_keys_files_and_translatable_flag_are_written_only_when_set_and_read_back() {
    let mut placed = key("app_name", &[], &[("en", "Tusky")]);
    placed.translatable = false;
    placed.files.set(Platform::Android, Some("donottranslate.xml".into()));
    placed.files.set(Platform::Apple, Some("InfoPlist".into()));
    let text = String::from_utf8(write_key(&placed)).unwrap();
    assert_eq!(
        text,
        "name = \"app_name\"\ntags = []\ntranslatable = false\n\n[files]\nandroid = \"donottranslate.xml\"\napple = \"InfoPlist\"\n\n[translations]\nen = \"Tusky\"\n"
    );
    assert_eq!(read_key(text.as_bytes()).unwrap(), placed);
    // A hand edit cannot point a key's file out of its folder.
    assert!(read_key(b"name = \"k\"\n[files]\nandroid = \"../x.xml\"\n").is_err());
    assert!(read_key(b"name = \"k\"\n[files]\nios = \"x\"\n").is_err());
}

#[test]
fn a_keys_placeholder_syntax_and_names_are_written_only_when_set_and_read_back() {
    let mut android = key("greeting", &[], &[("en", "Hi %1$s")]);
    let plain = String::from_utf8(write_key(&android)).unwrap();
    assert!(!plain.contains("placeholder"), "{plain}");
    android.placeholders = Some(Syntax::Printf);
    android.placeholder_names = vec!["name".into()];
    let text = String::from_utf8(write_key(&android)).unwrap();
    assert_eq!(
        text,
        "name = \"greeting\"\ntags = []\nplaceholders = \"printf\"\nplaceholder_names = [\"name\"]\n\n[translations]\nen = \"Hi %1$s\"\n"
    );
    assert_eq!(read_key(text.as_bytes()).unwrap(), android);
    assert!(read_key(b"name = \"k\"\nplaceholders = \"java\"\n").is_err());
}

#[test]
fn the_base_each_translation_was_written_against_is_a_line_beside_the_texts() {
    let en = LanguageCode::parse("en").unwrap();
    let mut written = key("greeting", &[], &[("en", "Hello"), ("fr", "Bonjour"), ("de", "Hallo")]);
    written.settle_bases(&en, None, false);
    let text = String::from_utf8(write_key(&written)).unwrap();
    let hash = format!("{:08x}", crate::domain::text::base_hash(TextRef::Plain("Hello")));
    assert_eq!(
        text,
        format!(
            "name = \"greeting\"\ntags = []\n\n[translations]\nde = \"Hallo\"\nen = \"Hello\"\nfr = \"Bonjour\"\n\n[based_on]\nde = \"{hash}\"\nfr = \"{hash}\"\n"
        )
    );
    assert_eq!(read_key(text.as_bytes()).unwrap(), written);
    // A plural key's tables come first, the records after them.
    let mut plural = plural_key();
    plural.settle_bases(&en, None, false);
    let text = String::from_utf8(write_key(&plural)).unwrap();
    let tables = text.rfind("[translations.").expect(&text);
    assert!(
        text.find("\n[based_on]\n").is_some_and(|records| records > tables),
        "{text}"
    );
    assert_eq!(read_key(text.as_bytes()).unwrap(), plural);
    // Records that are not 8 hex digits are refused; one for a language without text is
    // dropped.
    assert!(read_key(b"name = \"k\"\n[translations]\nfr = \"x\"\n[based_on]\nfr = \"xyz\"\n").is_err());
    assert!(read_key(b"name = \"k\"\n[translations]\nfr = \"x\"\n[based_on]\nfr = \"00000000\"\n").is_err());
    let dropped = read_key(b"name = \"k\"\n[translations]\nfr = \"x\"\n[based_on]\nit = \"0000000a\"\n").unwrap();
    assert_eq!(dropped.translations.base_of(&LanguageCode::parse("it").unwrap()), None);
}

#[test]
fn hard_texts_round_trip() {
    let hard = [
        "it's \"quoted\" \\ back",
        "'''\"\"\"",
        "tab\there\r\nwindows",
        "trailing space ",
        "🎉 emoji and עברית",
        "\u{0}nul",
        "ends with quote\"",
        "ends with newline\n",
    ];
    for text in hard {
        let original = key("k", &["a", "b"], &[("en", text), ("pt_BR", text)]);
        let read = read_key(&write_key(&original)).unwrap();
        assert_eq!(read, original, "{text:?}");
    }
}

#[test]
fn project_file_round_trips_and_keeps_language_order() {
    let project = Project {
        name: ProjectName::parse("mobile").unwrap(),
        display_name: "Mobile".into(),
        description: "The \"app\"".into(),
        base_language: LanguageCode::parse("en").unwrap(),
        languages: ["fr", "en", "pt-BR"]
            .iter()
            .map(|l| LanguageCode::parse(l).unwrap())
            .collect(),
        placeholder_format: Some(Syntax::Printf),
    };
    let read = read_project(project.name.clone(), &write_project(&project)).unwrap();
    assert_eq!(read, project);
}

#[test]
fn a_key_file_with_a_bad_name_is_refused() {
    assert!(read_key(b"name = \"\"\n").is_err());
    assert!(read_key(b"name = 3\n").is_err());
    assert!(read_key(b"name = \"ok\"\n[translations]\n\"not a code\" = \"x\"\n").is_err());
}

#[test]
fn a_namespaced_key_and_names_real_apps_write_round_trip_through_the_file() {
    let common = Namespace::parse("settings/profile").unwrap();
    for name in [
        "title",
        " (%@)",
        "Failed to connect…\r\n",
        "line one\nline two",
        "\u{4}x",
        "tab\there",
    ] {
        let mut key = key(name, &[], &[("en", "Text")]);
        key.name = key.name.in_namespace(&common);
        let written = write_key(&key);
        let text = String::from_utf8(written.clone()).unwrap();
        assert!(text.contains("namespace = \"settings/profile\"\n"), "{text}");
        let read = read_key(&written).unwrap_or_else(|err| panic!("{name:?}: {err}\n{text}"));
        assert_eq!(read, key, "{text}");
    }
    let plain = key("title", &[], &[("en", "Text")]);
    let text = String::from_utf8(write_key(&plain)).unwrap();
    assert!(!text.contains("namespace"), "the default namespace is left out: {text}");
    assert!(read_key(b"name = \"k\"\nnamespace = \"/bad\"\n").is_err());
}
