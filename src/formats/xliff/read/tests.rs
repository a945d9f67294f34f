use super::*;

const XCODE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="App/InfoPlist.xcstrings" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="CFBundleName" xml:space="preserve">
        <source>App</source>
        <target state="translated">Anwendung</target>
        <note>Bundle name</note>
      </trans-unit>
    </body>
  </file>
  <file original="App/Localizable.xcstrings" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="CFBundleName" xml:space="preserve">
        <source>Other</source>
        <target state="translated">Andere</target>
      </trans-unit>
      <trans-unit id="Click&#10;here" xml:space="preserve">
        <source>Click
here</source>
        <target state="needs-review-translation">Klick&#13;
hier &amp; &lt;da&gt; <![CDATA[<b>]]></target>
      </trans-unit>
      <trans-unit id="files" resname="files.count">
        <source>{count, plural, one {# file} other {# files}}</source>
        <target state="translated">{count, plural, one {eine Datei} other {Dateien}}</target>
      </trans-unit>
      <trans-unit id="new"><source>New</source><target state="new">New</target></trans-unit>
      <trans-unit id="none"><source>None</source></trans-unit>
      <trans-unit id="markup"><source>A <g id="1">b</g></source><target>A <g id="1">b</g></target></trans-unit>
    </body>
  </file>
</xliff>
"#;

#[test]
fn xcode_files_are_read_as_translate_toolkit_reads_them() {
    let read = read(XCODE.as_bytes()).unwrap();
    assert_eq!(read.language.as_deref(), Some("de"));
    let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["CFBundleName", "Click\nhere", "files.count", "markup"]);
    assert_eq!(read.entries[0].text, Text::Plain("Anwendung".into()));
    assert_eq!(read.entries[0].description.as_deref(), Some("Bundle name"));
    assert_eq!(read.entries[1].text, Text::Plain("Klick\r\nhier & <da> <b>".into()));
    assert!(read.entries[1].outdated);
    assert!(matches!(read.entries[2].text, Text::Plural(_)));
    // A unit with inline elements holds its XML content, a markup text.
    let markup = read.entries.iter().find(|entry| entry.name == "markup").unwrap();
    assert_eq!(markup.text, Text::Plain("A <g id=\"1\">b</g>".into()));
    assert!(markup.markup && !read.entries[0].markup);
    // The repeated id is passed over, with why.
    assert_eq!(read.warnings.len(), 1);
    // Each with the line its unit starts on.
    let lines: Vec<usize> = read.entries.iter().map(|entry| entry.line).collect();
    assert_eq!(lines, [5, 18, 24, 30]);
    let lines: Vec<usize> = read.warnings.iter().map(|warning| warning.line).collect();
    assert_eq!(lines, [14]);
}

#[test]
fn a_source_file_gives_its_targets_or_sources() {
    let file = XCODE.replace("target-language=\"de\"", "target-language=\"en\"");
    let read = read(file.as_bytes()).unwrap();
    assert_eq!(read.language.as_deref(), Some("en"));
    let new = read.entries.iter().find(|entry| entry.name == "new").unwrap();
    assert_eq!(new.text, Text::Plain("New".into()));
    let none = read.entries.iter().find(|entry| entry.name == "none").unwrap();
    assert_eq!(none.text, Text::Plain("None".into()));
    assert!(read.entries.iter().all(|entry| !entry.outdated));
}

#[test]
fn an_alternative_translations_target_is_not_the_units() {
    // Vienna's Lithuanian file: a translation memory's `<alt-trans>` after the unit's target.
    let file = XCODE.replace(
        "<target state=\"translated\">Anwendung</target>",
        "<target state=\"translated\">Anwendung</target>\n        <alt-trans match-quality=\"90\"><source>Apps</source><target xml:lang=\"de\">Weitere</target><note>tm</note></alt-trans>",
    );
    let read = read(file.as_bytes()).unwrap();
    let texts: Vec<&Text> = read
        .entries
        .iter()
        .filter(|entry| entry.name == "CFBundleName")
        .map(|entry| &entry.text)
        .collect();
    assert_eq!(texts, [&Text::Plain("Anwendung".into())]);
    assert!(!texts.contains(&&Text::Plain("Weitere".into())), "{texts:?}");
    // The unit's own note after it is its description, not the suggestion's.
    let name = read.entries.iter().find(|entry| entry.name == "CFBundleName").unwrap();
    assert_eq!(name.description.as_deref(), Some("Bundle name"));
}

/// The version from the first bytes alone, as the reader takes it (the CLI pulls Bolt's
/// 1.2 and 2.0 files each in its own version).
#[test]
fn a_files_version_is_read_from_its_xliff_element() {
    let v2 = br#"<?xml version="1.0" encoding="utf-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de"><file id="f">"#;
    let v1 = br#"<?xml version="1.0"?><!-- a comment --><xliff version="1.2"><file source-language="en""#;
    assert_eq!(version_of(v2), Some(Version::V2));
    assert_eq!(version_of(v1), Some(Version::V1));
    assert_eq!(version_of(b"<resources><string/></resources>"), None);
    assert_eq!(version_of(br#"<xliff version="3.0">"#), None);
}

#[test]
fn version_2_units_are_read_by_name_with_their_segment_state() {
    let file = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
  <file id="f1">
    <unit id="k1" name="a b">
      <notes><note>First</note><note>Second</note></notes>
      <segment state="initial"><source>Hi</source><target>Salut</target></segment>
    </unit>
    <unit id="ok"><segment state="final"><source>OK</source><target>D'accord</target></segment></unit>
    <unit id="todo"><segment><source>Later</source></segment></unit>
    <unit id="split"><segment><source>A</source><target>B</target></segment><segment><source>C</source><target>D</target></segment></unit>
  </file>
</xliff>"#;
    let document = parse(file).unwrap();
    assert_eq!(document.version, Version::V2);
    let read = read(file.as_bytes()).unwrap();
    let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["a b", "ok"]);
    assert!(read.entries[0].outdated);
    assert_eq!(read.entries[0].description.as_deref(), Some("First"));
    assert!(!read.entries[1].outdated);
    assert_eq!(read.warnings.len(), 1);
}

#[test]
fn files_that_are_not_xliff_are_refused_with_their_line() {
    assert!(read(b"<resources/>").is_err());
    assert!(read(b"<xliff version=\"3.0\"/>").is_err());
    let err = read(b"<xliff version=\"1.2\">\n<file><body><trans-unit id=\"a\"><source>x</target>").unwrap_err();
    assert_eq!(err.line, Some(2));
}

#[test]
fn symfony_units_are_keyed_by_resname_else_source_and_the_paths_language_wins() {
    // Symfony Validator's `validators.no.xlf` says `nb`; its unit 37 is keyed by its
    // `resname`, unit 38 (without one) by its source, as Symfony's loader keys them.
    let file = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">
    <file source-language=\"en\" target-language=\"nb\" datatype=\"plaintext\" original=\"file.ext\">
        <body>
            <trans-unit id=\"37\" resname=\"This is not a valid IP address.\">
                <source>This value is not a valid IP address.</source>
                <target state=\"needs-review-translation\">Denne verdien er ikke en gyldig IP-adresse.</target>
            </trans-unit>
            <trans-unit id=\"38\">
                <source>This value is not a valid language.</source>
                <target>Denne verdien er ikke et gyldig språk.</target>
            </trans-unit>
        </body>
    </file>
</xliff>
";
    let read = read_in(file.as_bytes(), Some("no")).unwrap();
    assert_eq!(read.language.as_deref(), Some("no"));
    let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(
        names,
        ["This is not a valid IP address.", "This value is not a valid language."]
    );
    assert!(read.entries[0].outdated);
    // Without a path's language, the file's own.
    assert_eq!(super::read(file.as_bytes()).unwrap().language.as_deref(), Some("nb"));
}

#[test]
fn an_angular_translation_without_target_language_is_its_paths_language() {
    let file = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>
<xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">
  <file source-language=\"en\" datatype=\"plaintext\" original=\"ng2.template\">
    <body>
      <trans-unit id=\"routes.about\" datatype=\"html\">
        <source>about</source>
        <target state=\"translated\">sobre</target>
      </trans-unit>
      <trans-unit id=\"4472298507300372923\" datatype=\"html\">
        <source>View and manage</source>
        <target state=\"new\">View and manage</target>
      </trans-unit>
    </body>
  </file>
</xliff>
";
    let read = read_in(file.as_bytes(), Some("es")).unwrap();
    assert_eq!(read.language.as_deref(), Some("es"));
    let names: Vec<&str> = read.entries.iter().map(|entry| entry.name.as_str()).collect();
    assert_eq!(names, ["routes.about"], "a `new` target is not a text");
    assert_eq!(read.source_language.as_deref(), Some("en"));
    assert_eq!(read.sources.len(), 2, "its sources are the base texts");
}
