//! The packed translations: as a map, their packed form, written kinds and recorded bases.

mod packing {
    use super::super::*;
    use crate::domain::text::PluralForms;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    fn forms(pairs: &[(PluralCategory, &str)]) -> PluralForms {
        PluralForms::new(pairs.iter().map(|(category, text)| (*category, text.to_string()))).unwrap()
    }

    #[test]
    fn translations_stay_in_code_order_and_behave_as_a_map() {
        let mut texts: Translations = [("fr", "un"), ("en", "one"), ("fr", "une")]
            .into_iter()
            .map(|(language, text)| (code(language), Text::from(text)))
            .collect();
        assert_eq!(texts.len(), 2);
        assert_eq!(texts.get(&code("fr")).map(TextRef::to_owned), Some(Text::from("une")));
        texts.insert(code("de"), "eins".into());
        texts.insert(code("en"), "One".into());
        let order: Vec<&str> = texts.iter().map(|(language, _)| language.as_str()).collect();
        assert_eq!(order, ["de", "en", "fr"]);
        assert_eq!(texts.get(&code("en")).and_then(TextRef::as_plain), Some("One"));
        assert!(texts.remove(&code("de")));
        assert!(!texts.remove(&code("de")));
        texts.retain(|language, _| language.as_str() != "fr");
        assert_eq!(
            texts.values().map(TextRef::to_owned).collect::<Vec<_>>(),
            [Text::from("One")]
        );
        // Equal by content, whatever edits led there.
        let again: Translations = [(code("en"), Text::from("One"))].into_iter().collect();
        assert_eq!(texts, again);
    }

    #[test]
    fn packed_translations_give_back_every_text_and_form_as_stored() {
        let few = forms(&[
            (PluralCategory::One, "1 Datei"),
            (PluralCategory::Few, ""),
            (PluralCategory::Other, "# Dateien"),
        ]);
        let all = forms(&[
            (PluralCategory::Zero, "žádný"),
            (PluralCategory::One, "jeden"),
            (PluralCategory::Two, "dva"),
            (PluralCategory::Few, "několik"),
            (PluralCategory::Many, "mnoho"),
            (PluralCategory::Other, "jiné"),
        ]);
        let given = vec![
            (code("zh-Hans"), Text::Plain(String::new())),
            (code("de"), Text::Plural(few.clone())),
            (code("cs"), Text::Plural(all.clone())),
            (code("en"), Text::from("plain ✓")),
        ];
        let mut texts: Translations = given.clone().into_iter().collect();
        let mut expected = given;
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(texts.clone().into_iter().collect::<Vec<_>>(), expected);
        let de = texts.get(&code("de")).and_then(TextRef::as_plural).unwrap();
        assert_eq!(
            de.iter().collect::<Vec<_>>(),
            [(PluralCategory::One, "1 Datei"), (PluralCategory::Other, "# Dateien")]
        );
        assert_eq!(de.get(PluralCategory::Few), None);
        assert_eq!(de, few.as_ref());
        assert_eq!(texts.get(&code("cs")).unwrap(), Text::Plural(all.clone()));
        assert_eq!(texts.get(&code("zh-Hans")).and_then(TextRef::as_plain), Some(""));
        // Many changes at once: the last for a language wins, `None` removes.
        texts.apply([
            (code("cs"), None),
            (code("en"), Some(Text::from("first"))),
            (code("ar"), Some(Text::Plural(all.clone()))),
            (code("en"), Some(Text::from("second"))),
            (code("xx"), None),
        ]);
        let languages: Vec<&str> = texts.keys().map(LanguageCode::as_str).collect();
        assert_eq!(languages, ["ar", "de", "en", "zh-Hans"]);
        assert_eq!(texts.get(&code("en")).and_then(TextRef::as_plain), Some("second"));
        assert_eq!(texts.get(&code("ar")).unwrap(), Text::Plural(all));
        assert_eq!(texts.get(&code("de")).unwrap(), Text::Plural(few));
        // Codes are shared, not copied per translation.
        let (ar, _) = texts.iter().next().unwrap();
        assert!(std::ptr::eq(ar, code("ar").interned()));
    }

    #[test]
    fn packed_translations_come_back_from_their_parts_and_bad_parts_are_refused() {
        let texts: Translations = [
            (
                code("de"),
                Text::Plural(forms(&[
                    (PluralCategory::One, "eins"),
                    (PluralCategory::Other, "viele"),
                ])),
            ),
            (code("en"), Text::from("ünïcode")),
        ]
        .into_iter()
        .collect();
        let mut texts = texts;
        texts.set_base(&code("de"), Some(0x1234_abcd));
        let (slots, strings, form_ends, bases) = texts.packed();
        let slots: Vec<_> = slots.collect();
        assert_eq!(bases, [0x1234_abcd, 0]);
        let again = Translations::from_packed(slots.clone(), strings, form_ends, bases).unwrap();
        assert_eq!(again, texts);
        assert_eq!(again.base_of(&code("de")), Some(0x1234_abcd));
        assert_eq!(again.base_of(&code("en")), None);
        // Bases for some slots only, or all zero, are damage.
        assert!(Translations::from_packed(slots.clone(), strings, form_ends, &[1]).is_none());
        assert!(Translations::from_packed(slots.clone(), strings, form_ends, &[0, 0]).is_none());
        let refused = |slots: Vec<(&'static LanguageCode, u32, u32)>, strings: &str, ends: &[u32]| {
            Translations::from_packed(slots, strings, ends, &[]).is_none()
        };
        // Codes out of order, an end inside a character, a missing form end, text left over.
        assert!(refused(vec![slots[1], slots[0]], strings, form_ends));
        let mut inside = slots.clone();
        inside[1].1 -= 1;
        assert!(refused(inside, strings, form_ends));
        assert!(refused(slots.clone(), strings, &form_ends[..1]));
        assert!(refused(slots.clone(), &format!("{strings}!"), form_ends));
        // Plural forms without `other`.
        let mut no_other = slots.clone();
        no_other[0].2 &= !(1 << PluralCategory::Other.bit());
        assert!(refused(no_other, strings, form_ends));
        assert!(Translations::from_packed(Vec::new(), "", &[], &[]).is_some_and(|empty| empty.is_empty()));
    }
}

mod kind_tests {
    use super::super::*;
    use crate::domain::text::PluralForms;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    fn other_kind(texts: &Translations, language: &str) -> bool {
        texts
            .get_written(&code(language))
            .is_some_and(|(_, other_kind)| other_kind)
    }

    #[test]
    fn a_text_of_the_other_kind_is_held_as_written_and_seen_in_the_keys_kind() {
        let forms = PluralForms::new([
            (PluralCategory::One, "1 Stück".into()),
            (PluralCategory::Other, "# Stück".into()),
        ])
        .unwrap();
        // A plural key: English forms, Korean written as one text.
        let mut texts: Translations = [(code("en"), Text::Plural(forms.clone()))].into_iter().collect();
        texts.apply_written([(code("ko"), Some((Text::from("#개"), true)))]);
        texts.set_base(&code("ko"), Some(9));
        assert!(other_kind(&texts, "ko") && !other_kind(&texts, "en"));
        assert_eq!(texts.get_written(&code("ko")), Some((TextRef::Plain("#개"), true)));
        let seen = texts.get(&code("ko")).and_then(TextRef::as_plural).unwrap();
        assert_eq!(seen.iter().collect::<Vec<_>>(), [(PluralCategory::Other, "#개")]);
        assert_eq!(seen.to_owned(), PluralForms::other("#개".into()));
        assert!(texts.values().all(TextRef::is_plural));
        let mut hint = 0;
        assert_eq!(
            texts.get_near_written(&code("ko"), &mut hint),
            Some((TextRef::Plain("#개"), 9))
        );
        // The mark survives edits of other languages and the packed form.
        texts.insert(code("de"), Text::Plural(forms.clone()));
        assert!(other_kind(&texts, "ko"));
        let (slots, strings, ends, bases) = texts.packed();
        let again = Translations::from_packed(slots.collect(), strings, ends, bases).unwrap();
        assert_eq!(again, texts);
        assert!(other_kind(&again, "ko"));
        // The mark is part of equality: the same text written as forms is another file.
        let mut as_forms = texts.clone();
        as_forms.insert(code("ko"), Text::Plural(PluralForms::other("#개".into())));
        assert_ne!(as_forms, texts);
        assert_eq!(as_forms.get(&code("ko")), texts.get(&code("ko")));
        // A text set in the key's kind replaces the written one, and the mark goes.
        assert!(!other_kind(&as_forms, "ko"));
        // Made plain, the key holds Korean's text as it was and English's `other` form.
        texts.set_kind(false);
        assert!(!other_kind(&texts, "ko"));
        assert_eq!(texts.get(&code("ko")), Some(TextRef::Plain("#개")));
        assert_eq!(texts.get(&code("en")), Some(TextRef::Plain("# Stück")));
        assert_eq!(texts.base_of(&code("ko")), Some(9));
        // A mark on a plain slot with other bits set is damage.
        let (slots, strings, ends, bases) = texts.packed();
        let mut slots: Vec<_> = slots.collect();
        slots[1].2 = OTHER_KIND | 1 << FORM_BITS;
        assert!(Translations::from_packed(slots, strings, ends, bases).is_none());
    }
}

mod base_tests {
    use super::super::*;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    #[test]
    fn a_recorded_base_stays_with_its_translation_through_changes_of_others_and_of_its_text() {
        let mut texts: Translations = [(code("en"), Text::from("Hi")), (code("fr"), Text::from("Salut"))]
            .into_iter()
            .collect();
        assert_eq!(texts.base_of(&code("fr")), None);
        texts.set_base(&code("fr"), Some(7));
        texts.insert(code("de"), "Hallo".into());
        texts.remove(&code("en"));
        assert_eq!(texts.base_of(&code("fr")), Some(7));
        assert_eq!(texts.base_of(&code("de")), None);
        texts.insert(code("fr"), "Bonjour".into());
        assert_eq!(texts.base_of(&code("fr")), Some(7), "a replaced text keeps its record");
        texts.retain(|language, _| language.as_str() == "fr");
        assert_eq!(texts.base_of(&code("fr")), Some(7));
        // A record is part of equality: a confirmed translation is a change to commit.
        let mut other = texts.clone();
        other.set_base(&code("fr"), Some(8));
        assert_ne!(other, texts);
        other.set_base(&code("fr"), None);
        texts.set_base(&code("fr"), None);
        assert_eq!(other, texts);
        // No record for a language without text.
        texts.set_base(&code("it"), Some(3));
        assert_eq!(texts.base_of(&code("it")), None);
    }
}
