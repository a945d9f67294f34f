use super::*;

#[test]
fn xcodes_order_puts_punctuation_first_case_last_and_numbers_by_value() {
    let mut names = vec!["b", "Comment", "2x2", "10x10", "COMMENT", "...", "%@", "", "a"];
    names.sort_by(|a, b| xcode_order(a, b));
    assert_eq!(names, ["", "...", "%@", "2x2", "10x10", "a", "b", "Comment", "COMMENT"]);
    // The collation keys order the same way.
    let mut by_keys = vec!["COMMENT", "10x10", "b", "a", "%@", "2x2", "Comment", "...", ""];
    sort_in_xcode_order(&mut by_keys, |name| name);
    assert_eq!(by_keys, names);
}

fn catalog(strings: &str) -> String {
    format!(r#"{{"sourceLanguage": "en", "version": "1.1", "strings": {{{strings}}}}}"#)
}

fn entries<'a>(catalog: &'a Catalog, language: &str) -> &'a [ParsedEntry] {
    &catalog.languages.iter().find(|(own, _)| own == language).unwrap().1
}

#[test]
fn a_key_without_a_source_value_is_its_own_source_text() {
    let read = read(catalog(r#""Hello" : {}, "%lld days" : {"localizations": {"de": {"variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "ein Tag"}}, "other": {"stringUnit": {"state": "needs_review", "value": "%lld Tage"}}}}}}}"#).as_bytes()).unwrap();
    let en = entries(&read, "en");
    assert_eq!(en[0].text, Text::Plain("Hello".into()));
    assert!(en[0].xcode.as_ref().unwrap().source_from_key);
    assert_eq!(en[1].text, Text::Plural(PluralForms::other("%lld days".into())));
    let de = entries(&read, "de");
    assert!(de[0].outdated, "a form to review makes the translation outdated");
    assert_eq!(read.skipped, 0);
}

#[test]
fn substitutions_and_device_variations_are_held_whole_in_every_language() {
    // CotEditor's two plural variables in one text; Ice Cubes' device variations.
    let read = read(catalog(r#""a" : {"localizations": {"en": {"stringUnit": {"state": "translated", "value": "%#@n@"}, "substitutions": {"n": {"argNum": 1, "formatSpecifier": "lld", "variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "%arg file"}}, "other": {"stringUnit": {"state": "translated", "value": "%arg files"}}}}}}}, "de": {"stringUnit": {"state": "needs_review", "value": "%lld Dateien"}}}}, "b" : {"extractionState": "manual", "localizations": {"fr": {"variations": {"device": {"mac": {"stringUnit": {"state": "translated", "value": "Cliquer"}}}}}}}, "c" : {"comment": "Kept", "shouldTranslate": false, "extractionState": "stale"}"#).as_bytes()).unwrap();
    assert_eq!(read.skipped, 0);
    let en = entries(&read, "en");
    assert_eq!(en.len(), 3);
    assert_eq!(
        en[0].text,
        Text::Plain(r#"{"stringUnit":{"state":"translated","value":"%#@n@"},"substitutions":{"n":{"argNum":1,"formatSpecifier":"lld","variations":{"plural":{"one":{"stringUnit":{"state":"translated","value":"%arg file"}},"other":{"stringUnit":{"state":"translated","value":"%arg files"}}}}}}}"#.into())
    );
    assert!(en[0].xcode.as_ref().unwrap().whole);
    // A plain language of a key held whole is held whole too, its state inside.
    let de = entries(&read, "de");
    assert_eq!(
        de[0].text,
        Text::Plain(r#"{"stringUnit":{"state":"needs_review","value":"%lld Dateien"}}"#.into())
    );
    assert!(!de[0].outdated);
    // Without a source localization the key name is the source text.
    let b = en[1].xcode.as_ref().unwrap();
    assert!(b.whole && b.source_from_key);
    assert_eq!(b.extraction_state.as_deref(), Some("manual"));
    assert_eq!(en[1].text, Text::Plain("b".into()));
    assert_eq!(en[2].description.as_deref(), Some("Kept"));
    assert!(!en[2].translatable);
    assert!(!en[2].xcode.as_ref().unwrap().whole);
}

#[test]
fn shapes_the_reader_does_not_know_are_held_whole_not_refused() {
    for localization in [
        r#"{"variations": {"plural": {"several": {"stringUnit": {"state": "translated", "value": "x"}}}}}"#,
        r#"{"stringUnit": {"state": "translated"}}"#,
        r#"{"stringUnit": {"state": "translated", "value": "x", "future": 1}}"#,
        r#"{"stringUnit": {"state": "translated", "value": "x"}, "variations": {}}"#,
        r#"{}"#,
    ] {
        let read = read(catalog(&format!(r#""k" : {{"localizations": {{"de": {localization}}}}}"#)).as_bytes())
            .unwrap_or_else(|err| panic!("{localization}: {err}"));
        let de = entries(&read, "de");
        let held: serde_json::Value = serde_json::from_str(de[0].text.as_plain().unwrap()).unwrap();
        assert_eq!(held, serde_json::from_str::<serde_json::Value>(localization).unwrap());
    }
}

#[test]
fn a_string_set_and_the_empty_key_are_passed_over_with_a_warning_naming_them() {
    // CotEditor's App Shortcuts and DuckDuckGo's empty key.
    let read = read(catalog(r#""" : {"localizations": {"de": {"stringUnit": {"state": "translated", "value": ""}}}}, "Create a document in ${applicationName}" : {"extractionState": "extracted_with_value", "localizations": {"bg": {"stringSet": {"state": "translated", "values": ["Създай документ в ${applicationName}"]}}, "en": {"stringSet": {"state": "new", "values": ["Create a document in ${applicationName}"]}}}}, "Kept" : {}"#).as_bytes()).unwrap();
    assert_eq!(read.skipped, 2);
    let named: Vec<&str> = read.warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(named, ["", "Create a document in ${applicationName}"]);
    assert!(read.warnings[1].message.contains("stringSet"), "{:?}", read.warnings);
    let en = entries(&read, "en");
    assert_eq!(en.len(), 1);
    assert_eq!(en[0].name, "Kept");
}

#[test]
fn a_plain_unit_beside_plural_forms_is_the_other_form_of_a_language_with_only_other() {
    // Ice Cubes' Korean `notifications-others-count %lld`.
    let read = read(catalog(r#""n %lld" : {"localizations": {"en": {"variations": {"plural": {"one": {"stringUnit": {"state": "translated", "value": "%lld other"}}, "other": {"stringUnit": {"state": "translated", "value": "%lld others"}}}}}, "ko": {"stringUnit": {"state": "translated", "value": "님 외 %lld명이 "}}, "de": {"stringUnit": {"state": "translated", "value": "%lld andere"}}}}"#).as_bytes()).unwrap();
    assert_eq!(
        entries(&read, "ko")[0].text,
        Text::Plural(PluralForms::other("님 외 %lld명이 ".into()))
    );
    // German has `one` too: its plain text stays plain (the upload passes it over).
    assert_eq!(entries(&read, "de")[0].text, Text::Plain("%lld andere".into()));
}

#[test]
fn what_is_not_a_catalog_is_refused_with_why() {
    for (text, why) in [
        ("[]", "one JSON object"),
        (r#"{"version": "1.0", "strings": {}}"#, "sourceLanguage"),
        (
            r#"{"sourceLanguage": "en", "version": "1.0", "strings": {"a": 1}}"#,
            "key \"a\"",
        ),
        ("{", "EOF"),
    ] {
        let err = read(text.as_bytes()).unwrap_err().to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
}

/// A catalog of a version newer than those known (1.0 to 1.3; NetNewsWire's say 1.2) is
/// read, with a warning, never refused.
#[test]
fn a_catalog_of_a_newer_version_is_read_and_said() {
    let read = read(
        r#"{"sourceLanguage": "en", "version": "2.0", "strings": {"a": {"localizations": {"en": {"stringUnit": {"state": "translated", "value": "A"}}}}}}"#
            .as_bytes(),
    )
    .unwrap();
    assert_eq!(entries(&read, "en")[0].text, Text::Plain("A".into()));
    assert!(read.warnings[0].message.contains("\"2.0\""), "{:?}", read.warnings);
}

#[test]
fn a_catalog_written_reads_back_as_the_same_node_layout() {
    let text = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Calculator\" : {\n\n    },\n    \"x\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"X\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}";
    let node = parse(text.as_bytes()).unwrap();
    let mut out = String::new();
    write_node(&mut out, &node, 2);
    assert_eq!(out, text);
}
