use super::*;

#[test]
fn quotes_backslashes_and_line_breaks_are_escaped() {
    assert_eq!(escape("say \"hi\"\\\n\tnow"), "say \\\"hi\\\"\\\\\\n\\tnow");
    assert_eq!(escape("it's 100% 🎉"), "it's 100% 🎉");
    assert_eq!(escape("\u{1}"), "\\U0001");
}

#[test]
fn lproj_folders_use_bcp47() {
    assert_eq!(bcp47(&LanguageCode::parse("pt_BR").unwrap()), "pt-BR");
    assert_eq!(bcp47(&LanguageCode::parse("zh-Hans").unwrap()), "zh-Hans");
}

#[test]
fn format_value_types_come_from_the_first_conversion() {
    assert_eq!(format_value_type("%d episodes"), "d");
    assert_eq!(format_value_type("%ld files"), "ld");
    assert_eq!(format_value_type("100%% of %1$@"), "@");
    assert_eq!(format_value_type("%2$lld and %1$d"), "lld");
    assert_eq!(format_value_type("%.1f km"), "f");
    assert_eq!(format_value_type("no number"), "d");
}

#[test]
fn strings_files_are_read_as_corefoundation_reads_them() {
    let file = "/* Greeting */\n\"hello\" = \"Hi \\\"you\\\"\\n\\U00e9\\UD83D\\UDE00\";\n// note\nplain = value;\n\"same\";\n\n/* far */\n\n\"k\" = \"\\101\";";
    let entries = read_strings(file.as_bytes()).unwrap();
    let seen: Vec<(String, String, Option<String>)> = entries
        .into_iter()
        .map(|entry| (entry.name, entry.text.as_plain().unwrap().to_owned(), entry.description))
        .collect();
    assert_eq!(
        seen,
        [
            ("hello".into(), "Hi \"you\"\né😀".into(), Some("Greeting".into())),
            ("plain".into(), "value".into(), Some("note".into())),
            ("same".into(), "same".into(), None),
            ("k".into(), "A".into(), Some("far".into())),
        ]
    );
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("\"a\" = \"b\";".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(read_strings(&utf16).unwrap()[0].text.as_plain(), Some("b"));
    // UTF-16 without a byte order mark, either way round, reads and is stored as it was.
    for big_endian in [false, true] {
        let encoding = StringsEncoding::Utf16 { big_endian, bom: false };
        let bytes = encoding.encode("\"a\" = \"é\";");
        assert_eq!(decode_strings(&bytes).unwrap(), ("\"a\" = \"é\";".to_owned(), encoding));
    }
    // Only `\U` takes hex digits; an escape CoreFoundation does not know keeps its
    // character, and octal escapes are NeXTSTEP bytes.
    let escapes = read_strings(b"\"a\" = \"\\u203A \\U203A \\q \\326\\341 \\101\";").unwrap();
    assert_eq!(escapes[0].text.as_plain(), Some("u203A \u{203a} q áÆ A"));
    let err = read_strings(b"\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";").unwrap_err();
    assert_eq!(err.line, Some(3), "{err:?}");
}

#[test]
fn a_strings_table_written_as_a_property_list_reads_as_its_string_values() {
    // Quicksilver's Finder plug-in: `Localizable.strings` as an XML property list.
    let file = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<dict>\n\t<key>AppHideAction</key>\n\t<string>Hide &amp; seek</string>\n\t<key>Count</key>\n\t<integer>3</integer>\n\t<key>Open</key>\n\t<string>Open</string>\n</dict>\n</plist>\n";
    let entries = read_strings(file.as_bytes()).unwrap();
    let seen: Vec<(&str, &str)> = entries
        .iter()
        .map(|entry| (entry.name.as_str(), entry.text.as_plain().unwrap()))
        .collect();
    assert_eq!(seen, [("AppHideAction", "Hide & seek"), ("Open", "Open")]);
}

fn stringsdict(entries: &str) -> String {
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n{entries}</dict>\n</plist>\n")
}

fn plural_entry_xml(name: &str, format: &str, forms: &[(&str, &str)]) -> String {
    let forms: String = forms
        .iter()
        .map(|(category, text)| format!("<key>{category}</key><string>{text}</string>"))
        .collect();
    format!(
        "<key>{name}</key><dict><key>NSStringLocalizedFormatKey</key><string>{format}</string><key>v</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>NSStringFormatValueTypeKey</key><string>d</string>{forms}</dict></dict>\n"
    )
}

#[test]
fn a_stringsdict_entry_the_server_cannot_hold_is_a_warning_and_the_rest_is_read() {
    // An empty Belarusian `other`, an empty `one` (left out), and two variables.
    let file = stringsdict(
        &[
            plural_entry_xml("empty_other", "%#@v@", &[("one", "%d файл"), ("other", "")]),
            plural_entry_xml("delete_title", "%#@v@", &[("one", ""), ("other", "Delete %d items?")]),
            plural_entry_xml("two", "%#@v@ %#@w@", &[("other", "%d")]),
        ]
        .concat(),
    );
    let (entries, warnings) = read_stringsdict(file.as_bytes()).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].name, "delete_title");
    let forms = entries[0].text.as_plural().unwrap();
    assert_eq!(forms.get(PluralCategory::One), None);
    assert_eq!(forms.other_form(), "Delete %d items?");
    let named: Vec<&str> = warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(named, ["empty_other", "two"]);
    assert!(warnings[0].message.contains("stays in the file"), "{warnings:?}");
}

#[test]
fn a_utf16_file_with_two_byte_order_marks_reads_as_with_one() {
    // Quicksilver's `cs.lproj/Localizable.strings`: FF FE FF FE, then the table.
    let mut bytes = vec![0xff, 0xfe];
    for unit in "\u{feff}/* Merged */\n\"a\" = \"b\";\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let entries = read_strings(&bytes).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].name, "a");
    assert_eq!(entries[0].text.as_plain(), Some("b"));
}
