use super::*;
use crate::domain::model::Key;

fn code(raw: &str) -> LanguageCode {
    LanguageCode::parse(raw).unwrap()
}

/// Askbot's Persian `django.po` still has `xgettext`'s template header: the file is read
/// with Persian's usual formula and a warning, not refused.
#[test]
fn a_template_plural_forms_header_reads_with_the_usual_formula() {
    let file = "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n\"\n\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d فایل\"\nmsgstr[1] \"%d فایل‌ها\"\n";
    let (entries, warnings) = read(file.as_bytes(), &code("fa")).unwrap();
    assert_eq!(entries.len(), 1);
    assert!(matches!(entries[0].text, Text::Plural(_)), "{:?}", entries[0].text);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("INTEGER") && warnings[0].message.contains("usual formula"));
}

#[test]
fn a_keys_name_is_its_msgid_after_its_context_and_round_trips_through_the_writer() {
    let (en, pl) = (code("en"), code("pl"));
    let key = |name: &str, base: Text, translation: Text| {
        let mut key = Key::named(crate::domain::names::KeyName::parse(name).unwrap());
        key.plural = matches!(base, Text::Plural(_));
        key.translations.insert(en.clone(), base);
        key.translations.insert(pl.clone(), translation);
        key
    };
    let forms = |one: &str, other: &str| {
        Text::Plural(
            PluralForms::new([(PluralCategory::One, one.into()), (PluralCategory::Other, other.into())]).unwrap(),
        )
    };
    let symbols = join_name("unit-symbols", "degree,degrees,deg");
    let keys = [
        key("%d file", forms("%d file", "%d files"), forms("%d plik", "%d plików")),
        key("Open", Text::Plain("Open".into()), Text::Plain("Otwórz".into())),
        key(
            &symbols,
            Text::Plain("degree,degrees,deg".into()),
            Text::Plain("stopień,st".into()),
        ),
        // A key made on the server with an identifier for a name: the name is the msgid.
        key("home.title", Text::Plain("Welcome".into()), Text::Plain("Witaj".into())),
    ];
    let [file] = render_each(&keys, &en, &[&pl], "app").try_into().ok().unwrap();
    let text = String::from_utf8(file.bytes).unwrap();
    assert!(
        text.contains("\n\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\n"),
        "{text}"
    );
    assert!(text.contains("\n\nmsgid \"Open\"\nmsgstr \"Otwórz\"\n"), "{text}");
    assert!(
        text.contains("\n\nmsgctxt \"unit-symbols\"\nmsgid \"degree,degrees,deg\"\nmsgstr \"stopień,st\"\n"),
        "{text}"
    );
    assert!(text.contains("\n\nmsgid \"home.title\"\nmsgstr \"Witaj\"\n"), "{text}");
    let (entries, _) = read(text.as_bytes(), &pl).unwrap();
    let names: Vec<&str> = entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["%d file", "Open", symbols.as_str(), "home.title"]);
}

#[test]
fn one_context_on_many_entries_and_one_msgid_under_many_contexts_are_as_many_keys() {
    // GNOME Calculator's `unit-symbols`, Double Commander's `&Cancel` under 21 contexts,
    // Quod Libet's `Search` with and without `heading`.
    let text = "msgctxt \"unit-symbols\"\nmsgid \"degree,degrees,deg\"\nmsgstr \"степен\"\n\nmsgctxt \"unit-symbols\"\nmsgid \"radian,radians,rad\"\nmsgstr \"радијан\"\n\nmsgctxt \"tfrmmain.btncancel.caption\"\nmsgid \"&Cancel\"\nmsgstr \"Otkaži\"\n\nmsgctxt \"tfrmfind.btncancel.caption\"\nmsgid \"&Cancel\"\nmsgstr \"Prekini\"\n\nmsgid \"Search\"\nmsgstr \"Traži\"\n\nmsgctxt \"heading\"\nmsgid \"Search\"\nmsgstr \"Pretraga\"\n";
    let read = read_with_sources(text.as_bytes(), &code("sr")).unwrap();
    let names: Vec<String> = read
        .entries
        .iter()
        .map(|entry| entry.name.replace('\u{4}', "|"))
        .collect();
    assert_eq!(
        names,
        [
            "unit-symbols|degree,degrees,deg",
            "unit-symbols|radian,radians,rad",
            "tfrmmain.btncancel.caption|&Cancel",
            "tfrmfind.btncancel.caption|&Cancel",
            "Search",
            "heading|Search"
        ]
    );
    // The msgids are the base texts, without their contexts.
    let sources: Vec<&Text> = read.sources.iter().map(|entry| &entry.text).collect();
    assert_eq!(sources[0], &Text::Plain("degree,degrees,deg".into()));
    assert_eq!(sources[5], &Text::Plain("Search".into()));
    assert_eq!(split_name(&read.entries[5].name), (Some("heading"), "Search"));
    assert_eq!(split_name("Search"), (None, "Search"));
}

#[test]
fn an_obsolete_entrys_flags_are_not_the_next_entrys() {
    // kk.po: `#, fuzzy` above `#~ msgid`, then a live entry.
    let text = "msgid \"a\"\nmsgstr \"A\"\n\n#, fuzzy\n#~ msgid \"Root must be non-zero\"\n#~ msgstr \"x\"\n\nmsgid \"b\"\nmsgstr \"B\"\n";
    let (entries, _) = read(text.as_bytes(), &code("kk")).unwrap();
    assert_eq!(entries.len(), 2);
    assert!(!entries[1].outdated, "the obsolete entry's fuzzy flag stays with it");
}

#[test]
fn gettext_locale_names_map_to_the_projects_codes() {
    assert_eq!(locale_language("sr@latin").as_deref(), Some("sr-Latn"));
    assert_eq!(locale_language("sr_RS@latin").as_deref(), Some("sr-Latn-RS"));
    assert_eq!(locale_language("ca@valencia").as_deref(), Some("ca-valencia"));
    assert_eq!(locale_language("pt_BR").as_deref(), Some("pt_BR"));
    assert_eq!(locale_language("zh_Hans").as_deref(), Some("zh_Hans"));
    assert_eq!(locale_language("quodlibet"), None);
    // Serbian in Latin script has Serbian's plural categories (CLDR's parent of
    // `sr-Latn` is the root locale, whose only category is `other`).
    let rule = PluralRule::of(&code("sr-Latn"));
    assert!(rule.categories.contains(&Some(PluralCategory::Few)), "{rule:?}");
}

#[test]
fn reads_what_gettext_reads() {
    let text = "msgid \"\"\nmsgstr \"\"\n\"Language: pl\\n\"\n\"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n\"\n\n#. Shown on the start page.\n#, fuzzy, c-format\nmsgctxt \"home.title\"\nmsgid \"Welcome\"\nmsgstr \"\"\n\"Witaj\\n\"\n\"\\\"tu\\\"\\t\\101\\x42\"\n\n#~ msgid \"old\"\n#~ msgstr \"stary\"\n\nmsgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d plik\"\nmsgstr[1] \"%d pliki\"\nmsgstr[2] \"%d plików\"\n\nmsgid \"untranslated\"\nmsgstr \"\"\n";
    let (entries, warnings) = read(text.as_bytes(), &code("pl")).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].name, "home.title\u{4}Welcome");
    assert_eq!(entries[0].text, Text::Plain("Witaj\n\"tu\"\tAB".into()));
    assert_eq!(entries[0].description.as_deref(), Some("Shown on the start page."));
    assert!(entries[0].outdated);
    assert_eq!(entries[1].name, "%d file");
    let Text::Plural(forms) = &entries[1].text else {
        panic!()
    };
    assert_eq!(forms.get(PluralCategory::Few), Some("%d pliki"));
    assert_eq!(forms.get(PluralCategory::Many), Some("%d plików"));
    assert_eq!(
        forms.other_form(),
        "%d plików",
        "Polish `other` (fractions) has no index"
    );
}

#[test]
fn a_plural_entry_whose_other_index_is_empty_is_passed_over() {
    // Horizon's fuzzy Czech entries translate `msgstr[0]` alone; Czech's formula sends
    // index 2 to `other`, so the one form is no plural the server can hold.
    let text = "msgid \"\"\nmsgstr \"\"\n\"Language: cs\\n\"\n\"Plural-Forms: nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;\\n\"\n\n#, fuzzy\nmsgid \"Group\"\nmsgid_plural \"Groups\"\nmsgstr[0] \"Skupina\"\nmsgstr[1] \"\"\nmsgstr[2] \"\"\n";
    let (entries, warnings) = read(text.as_bytes(), &code("cs")).unwrap();
    assert!(entries.is_empty(), "{entries:?}");
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].message.contains("msgstr[2], its `other` form, is empty"),
        "{}",
        warnings[0].message
    );
}

#[test]
fn what_gettext_refuses_is_refused() {
    for bad in [
        "msgid \"a\nmsgstr \"b\"\n",
        "msgid \"a\"\nmsgstr \"\\q\"\n",
        "foo \"a\"\n",
    ] {
        assert!(read(bad.as_bytes(), &code("en")).is_err(), "{bad}");
    }
}
