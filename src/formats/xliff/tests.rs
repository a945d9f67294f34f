use super::*;

#[test]
fn a_markup_texts_inline_elements_are_written_as_they_are_where_the_version_has_them() {
    let angular = "Last <x id=\"INTERPOLATION\" equiv-text=\"{{ n }}\"/> days &amp; <g id=\"1\">more</g>";
    assert!(is_inline_content(angular, Version::V1));
    assert!(!is_inline_content(angular, Version::V2), "<x/> and <g> are 1.2's");
    assert!(is_inline_content("<pc id=\"1\">a<ph id=\"2\"/></pc>", Version::V2));
    // Android's markup, a broken fragment, an unknown entity: escaped as text.
    for text in ["<b>bold</b>", "<x id=\"1\">", "a &nbsp; b", "<g id=\"1\"><b>x</b></g>"] {
        assert!(!is_inline_content(text, Version::V1), "{text}");
    }
    let unit = UnitData {
        name: "days".into(),
        translate: true,
        source: angular.into(),
        target: Some("<b>bold</b>".into()),
        outdated: false,
        note: None,
        markup: true,
    };
    let mut out = String::new();
    write_unit_v1(&mut out, unit.as_text(), "", "\n");
    assert!(out.contains(&format!("<source>{angular}</source>")), "{out}");
    assert!(out.contains("&lt;b&gt;bold&lt;/b&gt;</target>"), "{out}");
}

#[test]
fn written_texts_read_back_as_they_were() {
    let unit = UnitData {
        name: "say \"hi\" & <go>".into(),
        translate: true,
        source: "Tab\there\r\nand 😀 <b>&amp;</b> ]]> 'q'".into(),
        target: Some("{count, plural, one {# x} other {# ys}}".into()),
        outdated: true,
        note: Some("note\nlines".into()),
        markup: false,
    };
    for version in [Version::V1, Version::V2] {
        let mut out = String::from("<xliff version=\"");
        out.push_str(if version == Version::V1 { "1.2" } else { "2.0" });
        out.push_str(
            "\" srcLang=\"en\" trgLang=\"fr\"><file id=\"f\" source-language=\"en\" target-language=\"fr\"><body>\n",
        );
        match version {
            Version::V1 => write_unit_v1(&mut out, unit.as_text(), "  ", "\n"),
            Version::V2 => write_unit_v2(&mut out, unit.as_text(), "k1", "  ", "\n"),
        }
        out.push_str("</body></file></xliff>");
        let document = parse(&out).unwrap();
        assert_eq!(document.units.len(), 1, "{out}");
        assert_eq!(document.units[0].data, unit, "{out}");
    }
}

#[test]
fn characters_xml_cannot_hold_are_code_points_in_2_0_and_left_out_elsewhere() {
    let text = "a&b<c>d\re\u{1}f\u{FFFE}g\u{FFFD}h\ti\nj\u{FFFF}";
    let escaped = |code_points| {
        let mut out = String::new();
        push_escaped(&mut out, text, code_points);
        out
    };
    assert_eq!(
        escaped(true),
        "a&amp;b&lt;c&gt;d&#13;e<cp hex=\"0001\"/>f<cp hex=\"FFFE\"/>g\u{FFFD}h\ti\nj<cp hex=\"FFFF\"/>"
    );
    assert_eq!(escaped(false), "a&amp;b&lt;c&gt;d&#13;efg\u{FFFD}h\ti\nj");
    let mut attribute = String::new();
    push_escaped_attribute(&mut attribute, "say \"hi\"\n&\t<");
    assert_eq!(attribute, "say &quot;hi&quot;&#10;&amp;&#9;&lt;");
}

#[test]
fn unit_ids_of_version_2_are_name_tokens() {
    let ids = UnitIds::of_names(["k1", "a b", "ok.name", "x/y"].into_iter());
    assert_eq!(ids.id("ok.name"), "ok.name");
    assert_eq!(ids.id("a b"), "k2");
    assert_eq!(ids.id("x/y"), "k3");
    assert_eq!(ids.id("a b"), "k2");
}
