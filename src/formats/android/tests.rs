use super::*;

fn code(raw: &str) -> LanguageCode {
    LanguageCode::parse(raw).unwrap()
}

#[test]
fn qualifiers_follow_android_rules() {
    assert_eq!(qualifier(&code("fr")), "fr");
    assert_eq!(qualifier(&code("pt-BR")), "pt-rBR");
    assert_eq!(qualifier(&code("pt_br")), "pt-rBR");
    assert_eq!(qualifier(&code("es-419")), "es-r419");
    assert_eq!(qualifier(&code("zh-Hans")), "b+zh+Hans");
    assert_eq!(qualifier(&code("sr-Latn-RS")), "b+sr+Latn+RS");
    assert_eq!(qualifier(&code("fil")), "b+fil");
}

#[test]
fn resource_names_are_mapped_to_valid_ones() {
    assert_eq!(resource_name("home.title"), "home.title");
    assert_eq!(resource_name("errors/network"), "errors_network");
    assert_eq!(resource_name("1st"), "_1st");
    assert_eq!(resource_name(".hidden"), "_.hidden");
    assert_eq!(resource_name("class"), "class_");
    assert_eq!(resource_name("Hello, %@!"), "Hello_____");
}

#[test]
fn clashing_resource_names_name_both_keys() {
    let key = |name: &str| Key::named(KeyName::parse(name).unwrap());
    let err = resource_names(&[&key("a.b"), &key("a_b")]).unwrap_err().to_string();
    assert!(err.contains("\"a.b\"") && err.contains("\"a_b\""), "{err}");
    assert!(resource_names(&[&key("a.b"), &key("a.c")]).is_ok());
}

fn read_one(xml: &str) -> ParsedEntry {
    let file = read(format!("<resources>{xml}</resources>").as_bytes()).unwrap();
    file.entries.into_iter().next().unwrap()
}

/// The text of a `<string>` whose content is `xml`.
fn plain(xml: &str) -> String {
    read_one(&format!("<string name=\"k\">{xml}</string>"))
        .text
        .as_plain()
        .unwrap()
        .to_owned()
}

#[test]
fn strings_are_read_with_aapt2_rules() {
    assert_eq!(plain("  a \n  b  "), "a b");
    assert_eq!(plain("\"  keep  \" x"), "  keep   x");
    assert_eq!(
        plain("it\\'s \\\"q\\\" \\\\ \\n\\t \\u00e9 \\@"),
        "it's \"q\" \\ \n\t é @"
    );
    assert_eq!(plain("&amp;&lt;&#x41;"), "&<A");
    assert_eq!(plain("<![CDATA[<b>x</b>]]>"), "<b>x</b>");
    for text in [
        "apostrophe's",
        " lead",
        "trail ",
        "a  b",
        "@x",
        "?y",
        "tab\there",
        "line\nnext",
        "say \"hi\" \\o/",
        "<b>not markup</b> & more",
        "%1$s 100%",
    ] {
        let xml = content(text, false);
        assert_eq!(plain(&xml), text, "{xml}");
    }
}

#[test]
fn an_emoji_written_as_a_surrogate_pair_of_escapes_is_one_character() {
    // AntennaPod's `echo_listened_after_emoji_run`, and a lone surrogate beside it.
    assert_eq!(plain("\\uD83C\\uDFC3"), "\u{1F3C3}");
    assert_eq!(plain("\\uD83D\\uDDC4\\uFE0F"), "\u{1F5C4}\u{FE0F}");
    assert_eq!(plain("a\\uD83Cb"), "a\u{FFFD}b");
    assert_eq!(plain("\\uD83C\\u0041"), "\u{FFFD}A");
}

#[test]
fn a_backslash_before_an_entity_escapes_the_character_it_stands_for() {
    // Firefox's translations write `\&quot;Quit\&quot;`: aapt2 reads the entity as `"` and the
    // backslash escapes it, so the quotes are text (unescaped, they would only quote).
    assert_eq!(plain("select \\&quot;Quit\\&quot; from"), "select \"Quit\" from");
    assert_eq!(plain("a \\&amp; b"), "a & b");
    assert_eq!(plain("&quot;  two  &quot;"), "  two  ");
}

#[test]
fn inline_markup_is_kept_as_a_markup_text_and_written_back() {
    let entry = read_one("<string name=\"k\">Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>\\'s</string>");
    assert!(entry.markup);
    let text = entry.text.as_plain().unwrap();
    assert_eq!(text, "Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>'s");
    let written = content(text, true);
    assert_eq!(written, "Hi <b>you</b> &amp; <xliff:g id=\"n\">%1$s</xliff:g>\\'s");
    let again = read_one(&format!("<string name=\"k\">{written}</string>"));
    assert_eq!(again.text.as_plain(), Some(text));
}

#[test]
fn only_default_products_are_read_and_skip_elements_drop_the_comment() {
    let file = read(
        br#"<resources>
  <!-- Shown on phones -->
  <string name="where">On your phone</string>
  <string name="where" product="tablet">On your tablet</string>
  <string name="size" product="tv">Big</string>
  <string name="size" product="default">Normal</string>
  <!-- Not about the next one --> <skip />
  <string name="blank" />
</resources>"#,
    )
    .unwrap();
    let read: Vec<_> = file
        .entries
        .iter()
        .map(|entry| {
            (
                entry.name.as_str(),
                entry.text.as_plain().unwrap(),
                entry.description.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("where", "On your phone", Some("Shown on phones")),
            ("size", "Normal", None),
            ("blank", "", None)
        ]
    );
    assert_eq!(file.skipped, 2, "the tablet and tv variants");
}

#[test]
fn plurals_comments_and_other_resources() {
    let file = read(
        b"<?xml version=\"1.0\"?>\n<resources>\n  <!-- Episodes count -->\n  <plurals name=\"eps\">\n    <item quantity=\"one\">%d episode</item>\n    <item quantity=\"other\">%d episodes</item>\n  </plurals>\n  <string-array name=\"a\"><item>x</item></string-array>\n  <dimen name=\"d\">2dp</dimen>\n  <string name=\"s\">S</string>\n</resources>\n",
    )
    .unwrap();
    assert_eq!(file.skipped, 2);
    assert_eq!(file.entries.len(), 2);
    let plural = &file.entries[0];
    assert_eq!(plural.description.as_deref(), Some("Episodes count"));
    assert_eq!(plural.line, 4);
    let forms = plural.text.as_plural().unwrap();
    assert_eq!(forms.get(PluralCategory::One), Some("%d episode"));
    assert_eq!(file.entries[1].description, None);
    let err = read(b"<resources>\n<string name=\"a\">x</strin>\n</resources>").unwrap_err();
    assert_eq!(err.line, Some(2), "{err}");
}

#[test]
fn a_language_without_texts_is_an_empty_resources_element() {
    let keys: Vec<Key> = Vec::new();
    let file = render(
        &keys,
        &HashMap::new(),
        &LanguageCode::parse("de").unwrap(),
        false,
        "strings.xml",
    );
    assert_eq!(file.path, "values-de/strings.xml");
    assert_eq!(
        String::from_utf8(file.bytes).unwrap(),
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>\n</resources>\n"
    );
}

#[test]
fn texts_are_escaped_for_aapt2() {
    assert_eq!(escape("it's"), "it\\'s");
    assert_eq!(escape("@string/x"), "\\@string/x");
    assert_eq!(escape("?attr"), "\\?attr");
    assert_eq!(escape("a@b?"), "a@b?");
    assert_eq!(escape("line\nnext\ttab"), "line\\nnext\\ttab");
    assert_eq!(escape(" padded  "), "\" padded  \"");
    assert_eq!(escape("say \"hi\" \\o/"), "say \\\"hi\\\" \\\\o/");
}

/// Each entry of a file read, as its name and plain text.
fn plain_texts(file: &super::read::ReadFile) -> Vec<(&str, &str)> {
    file.entries
        .iter()
        .map(|entry| (entry.name.as_str(), entry.text.as_ref().as_plain().unwrap()))
        .collect()
}

/// aapt2 trims the white space at the ends of a plain text (`<xliff:g>` makes none styled) but
/// not of a styled one, and collapses each run of text between a span's tags on its own (what
/// Debian's aapt2 made of each of these strings, AOSP's `perms_new_perm_prefix` among them).
#[test]
fn white_space_is_read_as_aapt2_reads_it_around_spans() {
    let file = super::read::read(
        br#"<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
    <string name="font"><font size="12">NEW: </font></string>
    <string name="plain">  plain trailing  </string>
    <string name="runs">x <b>y </b> </string>
    <string name="xliff"> x <xliff:g id="a">y</xliff:g> </string>
    <string name="across">x <xliff:g id="a"> y</xliff:g></string>
    <string name="both">x <xliff:g id="a">y</xliff:g> <b> z</b></string>
</resources>"#,
    )
    .unwrap();
    let texts = plain_texts(&file);
    assert_eq!(
        texts,
        [
            ("font", "<font size=\"12\">NEW: </font>"),
            ("plain", "plain trailing"),
            ("runs", "x <b>y </b> "),
            ("xliff", "x <xliff:g id=\"a\">y</xliff:g>"),
            ("across", "x <xliff:g id=\"a\">y</xliff:g>"),
            ("both", "x <xliff:g id=\"a\">y</xliff:g> <b> z</b>"),
        ]
    );
}

/// A string that is a reference to another resource (AOSP's `global_action_restart` is
/// `@string/sim_restart_button`) is no text: it is passed over with a warning and stays in the
/// app's file; the same characters escaped are a text.
#[test]
fn a_resource_reference_is_passed_over_and_an_escaped_one_is_a_text() {
    let file = super::read::read(
        br#"<resources>
    <string name="restart" translatable="false">@string/sim_restart_button</string>
    <string name="framework">@android:string/ok</string>
    <string name="attribute"> ?android:attr/textColor </string>
    <string name="literal">\@string/x</string>
    <string name="quoted">"@string/x"</string>
    <string name="at">@</string>
    <string name="handle">@home town</string>
</resources>"#,
    )
    .unwrap();
    let texts = plain_texts(&file);
    assert_eq!(
        texts,
        [
            ("literal", "@string/x"),
            ("quoted", "@string/x"),
            ("at", "@"),
            ("handle", "@home town")
        ]
    );
    let warned: Vec<&str> = file.warnings.iter().map(|warning| warning.key.as_str()).collect();
    assert_eq!(warned, ["restart", "framework", "attribute"]);
    assert!(
        file.warnings[0].message.contains("@string/sim_restart_button"),
        "{:?}",
        file.warnings
    );
}
