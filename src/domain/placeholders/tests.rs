use super::*;

fn plain(text: &str, syntax: Syntax) -> Parsed {
    parse(text, syntax, Context::default())
}

fn arguments(text: &str, syntax: Syntax) -> Vec<(Argument, Kind)> {
    plain(text, syntax)
        .placeholders()
        .map(|placeholder| (placeholder.argument.clone(), placeholder.kind))
        .collect()
}

fn number(number: u32) -> Argument {
    Argument::Number(number)
}

fn name(name: &str) -> Argument {
    Argument::Name(name.to_owned())
}

#[test]
fn printf_reads_positions_types_and_escapes() {
    assert_eq!(
        arguments("Hello %1$s, you have %2$d messages", Syntax::Printf),
        [(number(1), Kind::String), (number(2), Kind::Int)]
    );
    // Implicit arguments take the next number; an explicit one does not move it.
    assert_eq!(
        arguments("%s and %2$s and %s", Syntax::Printf),
        [
            (number(1), Kind::String),
            (number(2), Kind::String),
            (number(2), Kind::String)
        ]
    );
    let parsed = plain("%.2f%% of %05d", Syntax::Printf);
    assert_eq!(
        parsed.segments,
        [
            Segment::Placeholder(Placeholder {
                argument: number(1),
                explicit: false,
                kind: Kind::Float,
                flags: String::new(),
                width: None,
                precision: Some(2),
            }),
            Segment::Text("% of ".into()),
            Segment::Placeholder(Placeholder {
                argument: number(2),
                explicit: false,
                kind: Kind::Int,
                flags: "0".into(),
                width: Some(5),
                precision: None,
            }),
        ]
    );
    // `%%` in a text with no placeholders is shown as written: two characters.
    assert_eq!(
        plain("100%% sure", Syntax::Printf).segments,
        [Segment::Text("100%% sure".into())]
    );
    // A lone `%` is literal.
    assert_eq!(
        plain("50% off %s", Syntax::Printf).segments[0],
        Segment::Text("50% off ".into())
    );
    // Java dates are kept as they are.
    assert!(plain("%1$tY", Syntax::Printf).has_raw());
}

#[test]
fn apple_reads_objects_lengths_and_plural_variables() {
    assert_eq!(
        arguments("%1$@ has %2$lld files, %d and %ld and %s", Syntax::Apple),
        [
            (number(1), Kind::Object),
            (number(2), Kind::Int64),
            (number(1), Kind::Int32),
            (number(2), Kind::Int64),
            (number(3), Kind::CString),
        ]
    );
    assert_eq!(arguments("%@", Syntax::Apple), [(number(1), Kind::Object)]);
    // Java has no `%@`: it is literal in printf.
    assert_eq!(arguments("%@", Syntax::Printf), []);
    assert!(plain("%#@files@", Syntax::Apple).has_raw());
}

#[test]
fn icu_reads_arguments_numbers_quotes_and_the_count() {
    assert_eq!(
        arguments(
            "{name} has {0} and {n, number} and {p, number, ::.00 group-off}",
            Syntax::Icu
        ),
        [
            (name("name"), Kind::Any),
            (number(1), Kind::Any),
            (name("n"), Kind::Number),
            (name("p"), Kind::Float),
        ]
    );
    assert_eq!(
        plain("It''s '{'literal'}' {x}", Syntax::Icu).segments,
        [
            Segment::Text("It's {literal} ".into()),
            Segment::Placeholder(Placeholder::new(name("x"), true, Kind::Any)),
        ]
    );
    // `#` is the count in a plural form only.
    let form = parse(
        "# items, '#'1",
        Syntax::Icu,
        Context {
            plural_form: true,
            markup: false,
        },
    );
    assert_eq!(
        form.segments,
        [
            Segment::Placeholder(Placeholder::new(name("count"), true, Kind::Count)),
            Segment::Text(" items, #1".into()),
        ]
    );
    assert_eq!(plain("#1", Syntax::Icu).segments, [Segment::Text("#1".into())]);
    // A text with literal braces (not an ICU message) is all literal.
    assert_eq!(
        plain("{\"a\": 1}", Syntax::Icu).segments,
        [Segment::Text("{\"a\": 1}".into())]
    );
    // A select has no other syntax.
    assert!(plain("{g, select, male {he} other {they}}", Syntax::Icu).has_raw());
}

#[test]
fn named_syntaxes_read_their_arguments() {
    assert_eq!(
        arguments("{{name}} {{- html}} {{n, number}}", Syntax::I18next),
        [
            (name("name"), Kind::Any),
            (name("html"), Kind::Any),
            (name("n"), Kind::Number)
        ]
    );
    assert!(
        plain("$t(other.key) {{x, datetime}}", Syntax::I18next)
            .segments
            .iter()
            .all(|segment| !matches!(segment, Segment::Placeholder(_)))
    );
    assert_eq!(
        arguments("%{name} has %<total>.2f and %%{not}", Syntax::Rails),
        [(name("name"), Kind::Any), (name("total"), Kind::Float)]
    );
    assert_eq!(
        plain("%{a}%%{b}", Syntax::Rails).segments[1],
        Segment::Text("%{b}".into())
    );
    assert_eq!(
        arguments("%(name)s has %d and %.1f", Syntax::Python),
        [
            (name("name"), Kind::String),
            (number(1), Kind::Int),
            (number(2), Kind::Float)
        ]
    );
    assert_eq!(
        arguments("{} {0} {name} {1:.2f} {{literal}}", Syntax::PythonBrace),
        [
            (number(1), Kind::Any),
            (number(1), Kind::Any),
            (name("name"), Kind::Any),
            (number(2), Kind::Float)
        ]
    );
    assert_eq!(
        arguments("%name% and {{ limit }} 100%", Syntax::Symfony),
        [(name("name"), Kind::Any), (name("limit"), Kind::Any)]
    );
    assert_eq!(arguments("%1$s {x} {{y}}", Syntax::None), []);
}

#[test]
fn markup_is_read_as_tags_around_literal_runs() {
    let parsed = parse(
        "<b>%1$s</b> &amp; <xliff:g id=\"n\">%2$d</xliff:g> &lt;3",
        Syntax::Printf,
        Context {
            plural_form: false,
            markup: true,
        },
    );
    assert_eq!(
        parsed.segments,
        [
            Segment::Open {
                name: "b".into(),
                attributes: String::new()
            },
            Segment::Placeholder(Placeholder::new(number(1), true, Kind::String)),
            Segment::Close { name: "b".into() },
            Segment::Text(" & ".into()),
            Segment::Open {
                name: "xliff:g".into(),
                attributes: " id=\"n\"".into()
            },
            Segment::Placeholder(Placeholder::new(number(2), true, Kind::Int)),
            Segment::Close { name: "xliff:g".into() },
            Segment::Text(" <3".into()),
        ]
    );
}

#[test]
fn names_number_by_declaration_then_first_appearance_and_arg_n_is_n() {
    let base = plain("%{who} sent %{what} to %{who}", Syntax::Rails);
    let names = Names::new(&[], [&base]);
    assert_eq!(names.number_of(&name("who")), Some(1));
    assert_eq!(names.number_of(&name("what")), Some(2));
    assert_eq!(names.number_of(&name("arg7")), Some(7));
    assert_eq!(names.name_of(&number(2)), "what");
    assert_eq!(names.name_of(&number(3)), "arg3");
    let declared = Names::new(&["what".to_owned()], [&base]);
    assert_eq!(declared.number_of(&name("what")), Some(1));
    assert_eq!(declared.number_of(&name("who")), Some(2));
}

#[test]
fn one_argument_in_four_syntaxes_has_one_signature() {
    let names = Names::new(&["name".to_owned()], []);
    let signatures: Vec<_> = [
        ("Hi %1$s", Syntax::Printf),
        ("Hi %1$@", Syntax::Apple),
        ("Hi {0}", Syntax::Icu),
        ("Hi {{name}}", Syntax::I18next),
        ("Hi %{name}", Syntax::Rails),
    ]
    .iter()
    .map(|(text, syntax)| signature(&plain(text, *syntax), &names))
    .collect();
    assert!(signatures.windows(2).all(|pair| pair[0] == pair[1]), "{signatures:?}");
}

#[test]
fn a_text_s_syntax_is_guessed_from_its_first_placeholder() {
    assert_eq!(guess("Hello %1$s"), Some(Syntax::Printf));
    assert_eq!(guess("Hello %@"), Some(Syntax::Apple));
    assert_eq!(guess("%lld files"), Some(Syntax::Apple));
    assert_eq!(guess("Hello {{name}}"), Some(Syntax::I18next));
    assert_eq!(guess("Hello {name}"), Some(Syntax::Icu));
    assert_eq!(guess("Hello %{name}"), Some(Syntax::Rails));
    assert_eq!(guess("Hello %(name)s"), Some(Syntax::Python));
    assert_eq!(guess("100% sure, {"), None);
    assert_eq!(guess("plain"), None);
}

#[test]
fn every_syntax_has_a_name_that_parses_back() {
    for syntax in Syntax::ALL {
        assert_eq!(Syntax::parse(syntax.name()), Some(syntax));
    }
    assert_eq!(Syntax::parse("java"), None);
}
