use super::*;
use crate::domain::model::PluralCategory;
use crate::domain::names::KeyName;

fn code(raw: &str) -> LanguageCode {
    LanguageCode::parse(raw).unwrap()
}

fn key(syntax: Syntax, texts: &[(&str, &str)]) -> Key {
    let mut key = Key::named(KeyName::parse("k").unwrap());
    key.placeholders = Some(syntax);
    for (language, text) in texts {
        key.translations.insert(code(language), Text::from(*text));
    }
    key
}

fn plural_key(syntax: Syntax, language: &str, forms: &[(PluralCategory, &str)]) -> Key {
    let mut key = Key::named(KeyName::parse("k").unwrap());
    key.placeholders = Some(syntax);
    key.plural = true;
    key.translations.insert(
        code(language),
        Text::Plural(PluralForms::new(forms.iter().map(|(category, text)| (*category, text.to_string()))).unwrap()),
    );
    key
}

/// Each language's text of `key` written in `target` (as stored when unchanged), and the
/// warnings.
fn convert(key: &Key, target: Syntax, tags: Tags) -> (Vec<String>, Vec<String>) {
    let mut warnings = Vec::new();
    let converted = convert_key(key, &code("en"), target, tags, &mut warnings);
    let written = converted.as_ref().unwrap_or(key);
    let texts = written
        .translations
        .values()
        .map(|text| match text {
            TextRef::Plain(text) => text.to_owned(),
            TextRef::Plural(forms) => forms
                .iter()
                .map(|(category, text)| format!("{}: {text}", category.name()))
                .collect::<Vec<_>>()
                .join(" | "),
        })
        .collect();
    (texts, warnings.into_iter().map(|warning| warning.message).collect())
}

/// The text of a one-language key converted from `from` to `to`.
fn one(text: &str, from: Syntax, to: Syntax) -> String {
    let (texts, _) = convert(&key(from, &[("en", text)]), to, Tags::Html);
    texts.into_iter().next().unwrap()
}

#[test]
fn android_to_every_platform() {
    let android = "Hello %1$s, you have %2$d messages";
    assert_eq!(
        one(android, Syntax::Printf, Syntax::Apple),
        "Hello %1$@, you have %2$lld messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::Icu),
        "Hello {arg1}, you have {arg2} messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::I18next),
        "Hello {{arg1}}, you have {{arg2}} messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::Rails),
        "Hello %{arg1}, you have %{arg2} messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::Python),
        "Hello %(arg1)s, you have %(arg2)d messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::PythonBrace),
        "Hello {0}, you have {1} messages"
    );
    assert_eq!(
        one(android, Syntax::Printf, Syntax::Symfony),
        "Hello %arg1%, you have %arg2% messages"
    );
}

#[test]
fn placeholder_names_name_numbered_arguments() {
    let mut key = key(
        Syntax::Printf,
        &[
            ("en", "Hello %1$s, you have %2$d messages"),
            ("fr", "%2$d messages pour %1$s"),
        ],
    );
    key.placeholder_names = vec!["name".into(), "count".into()];
    let (texts, warnings) = convert(&key, Syntax::I18next, Tags::Html);
    assert_eq!(
        texts,
        [
            "Hello {{name}}, you have {{count}} messages",
            "{{count}} messages pour {{name}}"
        ]
    );
    assert!(warnings.is_empty());
}

#[test]
fn reordered_and_repeated_arguments_keep_their_numbers() {
    let key = key(
        Syntax::Printf,
        &[
            ("en", "%1$s sent %2$s to %1$s"),
            ("de", "%2$s wurde von %1$s an %1$s gesendet"),
        ],
    );
    let (texts, _) = convert(&key, Syntax::Apple, Tags::Strip);
    assert_eq!(
        texts,
        ["%2$@ wurde von %1$@ an %1$@ gesendet", "%1$@ sent %2$@ to %1$@"]
    );
    let (texts, _) = convert(&key, Syntax::Icu, Tags::Html);
    assert_eq!(
        texts,
        [
            "{arg2} wurde von {arg1} an {arg1} gesendet",
            "{arg1} sent {arg2} to {arg1}"
        ]
    );
}

#[test]
fn named_arguments_take_numbers_by_first_appearance_in_the_base_text() {
    let key = key(
        Syntax::Rails,
        &[
            ("en", "%{user} liked %{post}"),
            ("ja", "%{post}が%{user}にいいねされました"),
        ],
    );
    let (texts, _) = convert(&key, Syntax::Printf, Tags::Markup);
    assert_eq!(texts, ["%1$s liked %2$s", "%2$sが%1$sにいいねされました"]);
    let (texts, _) = convert(&key, Syntax::Apple, Tags::Strip);
    assert_eq!(texts, ["%1$@ liked %2$@", "%2$@が%1$@にいいねされました"]);
    // Names stay names between named syntaxes.
    let (texts, _) = convert(&key, Syntax::Icu, Tags::Html);
    assert_eq!(texts, ["{user} liked {post}", "{post}が{user}にいいねされました"]);
}

#[test]
fn the_arg_n_names_of_an_export_come_back_as_their_numbers() {
    // Exported from printf to ICU, uploaded again as ICU, exported to Android.
    let key = key(Syntax::Icu, &[("en", "{arg2} before {arg1}")]);
    let (texts, _) = convert(&key, Syntax::Printf, Tags::Markup);
    assert_eq!(texts, ["%2$s before %1$s"]);
}

#[test]
fn types_convert_between_printf_and_apple() {
    assert_eq!(
        one("%d of %s, %.2f%%, %c", Syntax::Printf, Syntax::Apple),
        "%lld of %@, %.2f%%, %c"
    );
    assert_eq!(
        one("%lld, %d, %@, %s, %.1f", Syntax::Apple, Syntax::Printf),
        "%d, %d, %s, %s, %.1f"
    );
    assert_eq!(one("%ld and %lu", Syntax::Apple, Syntax::Printf), "%d and %d");
    assert_eq!(one("%05d|%-3s|%,d", Syntax::Printf, Syntax::Apple), "%05lld|%-3@|%'lld");
}

#[test]
fn floats_keep_their_precision_where_the_target_can_say_it() {
    assert_eq!(
        one("%.2f km", Syntax::Printf, Syntax::Icu),
        "{arg1, number, ::.00 group-off} km"
    );
    assert_eq!(
        one("%f", Syntax::Printf, Syntax::Icu),
        "{arg1, number, ::.000000 group-off}"
    );
    assert_eq!(one("%.2f km", Syntax::Printf, Syntax::Rails), "%<arg1>.2f km");
    assert_eq!(one("%.2f km", Syntax::Printf, Syntax::Python), "%.2f km");
    assert_eq!(one("%.2f km", Syntax::Printf, Syntax::PythonBrace), "{0:.2f} km");
    assert_eq!(
        one("{d, number, ::.00 group-off} km", Syntax::Icu, Syntax::Printf),
        "%1$.2f km"
    );
    let (texts, warnings) = convert(&key(Syntax::Printf, &[("en", "%.2f km")]), Syntax::I18next, Tags::Html);
    assert_eq!(texts, ["{{arg1}} km"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn percent_signs_are_escaped_only_where_the_text_is_formatted() {
    assert_eq!(one("100%% of %s", Syntax::Printf, Syntax::Icu), "100% of {arg1}");
    assert_eq!(one("100% of {n}", Syntax::Icu, Syntax::Printf), "100%% of %1$s");
    assert_eq!(one("100% of {n}", Syntax::Icu, Syntax::Apple), "100%% of %1$@");
    assert_eq!(one("100% of {n}", Syntax::Icu, Syntax::Rails), "100%% of %{n}");
    assert_eq!(one("100% of {n}", Syntax::Icu, Syntax::Python), "100%% of %(n)s");
    // Without placeholders the text is shown as written: no escape to add or read.
    assert_eq!(one("100% sure", Syntax::Icu, Syntax::Printf), "100% sure");
    assert_eq!(one("100%% sure", Syntax::Printf, Syntax::Icu), "100%% sure");
}

#[test]
fn braces_apostrophes_and_hashes_are_quoted_for_icu() {
    assert_eq!(one("It's {%s}", Syntax::Printf, Syntax::Icu), "It''s '{'{arg1}'}'");
    assert_eq!(one("{ literal", Syntax::Printf, Syntax::Icu), "'{' literal");
    assert_eq!(one("It''s '{'{name}'}'", Syntax::Icu, Syntax::Printf), "It's {%1$s}");
    assert_eq!(
        one("{x} and {{y}}", Syntax::PythonBrace, Syntax::Icu),
        "{x} and '{'y'}'"
    );
    assert_eq!(one("{x} '{y}'", Syntax::Icu, Syntax::PythonBrace), "{x} {{y}}");
    // A `#` is literal outside plurals, and quoted inside them.
    assert_eq!(one("#%d", Syntax::Printf, Syntax::Icu), "#{arg1}");
}

#[test]
fn a_placeholder_inside_a_plural_form_is_the_count() {
    let android = plural_key(
        Syntax::Printf,
        "en",
        &[(PluralCategory::One, "%d file #1"), (PluralCategory::Other, "%d files")],
    );
    let (texts, _) = convert(&android, Syntax::Icu, Tags::Html);
    // ARB's plural is one ICU message: the forms go into it as written.
    assert_eq!(
        texts,
        ["{count, plural, one {{count} file '#'1} other {{count} files}}"]
    );
    let (texts, _) = convert(&android, Syntax::I18next, Tags::Html);
    assert_eq!(texts, ["one: {{count}} file #1 | other: {{count}} files"]);
    let (texts, _) = convert(&android, Syntax::Apple, Tags::Strip);
    assert_eq!(texts, ["one: %lld file #1 | other: %lld files"]);
    // And back: ICU's `#` and i18next's `{{count}}` are an integer.
    let arb = plural_key(
        Syntax::Icu,
        "en",
        &[(PluralCategory::One, "# file"), (PluralCategory::Other, "# files")],
    );
    let (texts, _) = convert(&arb, Syntax::Printf, Tags::Markup);
    assert_eq!(texts, ["one: %1$d file | other: %1$d files"]);
    let web = plural_key(
        Syntax::I18next,
        "en",
        &[
            (PluralCategory::One, "{{count}} file"),
            (PluralCategory::Other, "{{count}} files"),
        ],
    );
    let (texts, _) = convert(&web, Syntax::Apple, Tags::Strip);
    assert_eq!(texts, ["one: %1$lld file | other: %1$lld files"]);
}

#[test]
fn markup_around_a_placeholder_is_kept_stripped_or_written_back() {
    let mut key = key(
        Syntax::Printf,
        &[("en", "Tap <b>%1$s</b> &amp; <xliff:g id=\"n\">%2$d</xliff:g> &lt;3")],
    );
    key.markup = true;
    let (texts, warnings) = convert(&key, Syntax::Apple, Tags::Strip);
    assert_eq!(texts, ["Tap %1$@ & %2$lld <3"]);
    assert_eq!(warnings, ["the markup tags are stripped: the format has none"]);
    let (texts, warnings) = convert(&key, Syntax::I18next, Tags::Html);
    assert_eq!(texts, ["Tap <b>{{arg1}}</b> & {{arg2}} <3"]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let (texts, _) = convert(&key, Syntax::Icu, Tags::Html);
    assert_eq!(texts, ["Tap <b>{arg1}</b> & {arg2} '<'3"]);
    // Android to Android: as stored.
    let (texts, _) = convert(&key, Syntax::Printf, Tags::Markup);
    assert_eq!(texts, ["Tap <b>%1$s</b> &amp; <xliff:g id=\"n\">%2$d</xliff:g> &lt;3"]);
    // From the web into Android markup: tags kept, literal `<` and `&` escaped.
    let mut web = self::key(Syntax::I18next, &[("en", "<b>{{name}}</b> &amp; co")]);
    web.markup = true;
    let (texts, _) = convert(&web, Syntax::Printf, Tags::Markup);
    assert_eq!(texts, ["<b>%1$s</b> &amp; co"]);
}

#[test]
fn what_a_target_cannot_write_is_left_as_it_is_and_warned() {
    let (texts, warnings) = convert(
        &key(
            Syntax::Icu,
            &[("en", "{g, select, male {He} other {They}} liked {post}")],
        ),
        Syntax::Printf,
        Tags::Markup,
    );
    assert_eq!(texts, ["{g, select, male {He} other {They}} liked %1$s"]);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("select"), "{warnings:?}");
    let (_, warnings) = convert(
        &key(Syntax::Rails, &[("en", "%{a} {{b}}")]),
        Syntax::I18next,
        Tags::Html,
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn the_same_syntax_or_no_syntax_is_written_as_stored() {
    let android = key(Syntax::Printf, &[("en", "%1$s 100%%")]);
    let mut warnings = Vec::new();
    assert!(convert_key(&android, &code("en"), Syntax::Printf, Tags::Markup, &mut warnings).is_none());
    let mut unknown = android.clone();
    unknown.placeholders = None;
    assert!(convert_key(&unknown, &code("en"), Syntax::Apple, Tags::Strip, &mut warnings).is_none());
    // Texts with nothing to convert are borrowed, not copied.
    let plain = key(Syntax::Printf, &[("en", "Save"), ("fr", "Enregistrer")]);
    assert!(convert_key(&plain, &code("en"), Syntax::Apple, Tags::Strip, &mut warnings).is_none());
    assert!(warnings.is_empty());
}

#[test]
fn every_pair_of_syntaxes_round_trips_a_simple_text() {
    // From each syntax to each other and back, the numbered or named arguments survive.
    let samples = [
        (Syntax::Printf, "Hi %1$s, %2$d new"),
        (Syntax::Apple, "Hi %1$@, %2$lld new"),
        (Syntax::Icu, "Hi {name}, {count} new"),
        (Syntax::I18next, "Hi {{name}}, {{count}} new"),
        (Syntax::Rails, "Hi %{name}, %{count} new"),
        (Syntax::Python, "Hi %(name)s, %(count)s new"),
        (Syntax::PythonBrace, "Hi {name}, {count} new"),
        (Syntax::Symfony, "Hi %name%, %count% new"),
    ];
    for (from, text) in samples {
        for (to, _) in samples {
            let there = one(text, from, to);
            let mut back_key = key(to, &[("en", &there)]);
            back_key.placeholder_names = vec!["name".into(), "count".into()];
            let (back, _) = convert(&back_key, from, Tags::Html);
            let mut names_key = key(from, &[("en", text)]);
            names_key.placeholder_names = vec!["name".into(), "count".into()];
            let (again, _) = convert(&names_key, from, Tags::Html);
            // Types are the target's where it has none (`%2$d` comes back as `%2$s` from a
            // syntax without types), so compare argument by argument.
            let parsed_back = placeholders::parse(&back[0], from, Context::default());
            let parsed_again = placeholders::parse(&again[0], from, Context::default());
            let names = Names::new(&["name".into(), "count".into()], []);
            assert_eq!(
                placeholders::signature(&parsed_back, &names),
                placeholders::signature(&parsed_again, &names),
                "{from} {text:?} -> {to} {there:?} -> {:?}",
                back[0]
            );
        }
    }
}

/// A one-key conversion with its plural flag: the texts, the warnings, whether it is a plural.
fn convert_plural(key: &Key, target: Syntax) -> (Vec<String>, Vec<String>, bool) {
    let (texts, warnings) = convert(key, target, Tags::Html);
    let mut ignored = Vec::new();
    let plural = convert_key(key, &code("en"), target, Tags::Html, &mut ignored).is_some_and(|key| key.plural);
    (texts, warnings, plural)
}

#[test]
fn icu_plural_messages_are_written_as_plural_forms() {
    let key = key(
        Syntax::Icu,
        &[
            (
                "en",
                "{count, plural, one {# file in {city}} other {# files in {city}}}",
            ),
            (
                "fr",
                "{count, plural, one {# fichier dans {city}} other {# fichiers dans {city}}}",
            ),
        ],
    );
    let (texts, warnings, plural) = convert_plural(&key, Syntax::Printf);
    assert_eq!(
        texts,
        [
            "one: %1$d file in %2$s | other: %1$d files in %2$s",
            "one: %1$d fichier dans %2$s | other: %1$d fichiers dans %2$s"
        ]
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(plural);
    let (texts, _, _) = convert_plural(&key, Syntax::Apple);
    assert_eq!(texts[0], "one: %1$lld file in %2$@ | other: %1$lld files in %2$@");
    let (texts, _, _) = convert_plural(&key, Syntax::I18next);
    assert_eq!(
        texts[0],
        "one: {{count}} file in {{city}} | other: {{count}} files in {{city}}"
    );
    let (texts, _, _) = convert_plural(&key, Syntax::Rails);
    assert_eq!(
        texts[0],
        "one: %{count} file in %{city} | other: %{count} files in %{city}"
    );
    // ARB keeps the message whole.
    let (texts, warnings, plural) = convert_plural(&key, Syntax::Icu);
    assert_eq!(
        texts[0],
        "{count, plural, one {# file in {city}} other {# files in {city}}}"
    );
    assert!(warnings.is_empty() && !plural);
}

#[test]
fn the_plural_argument_is_the_count_and_numbers_follow_first_appearance() {
    // `{n}` in a case of `{n, plural, ...}` is the count, as `#` is; the city comes first.
    let key = key(
        Syntax::Icu,
        &[("en", "{n, plural, one {{city}: {n} item} other {{city}: # items}}")],
    );
    let (texts, warnings, _) = convert_plural(&key, Syntax::I18next);
    assert_eq!(
        texts,
        ["one: {{city}}: {{count}} item | other: {{city}}: {{count}} items"]
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let (texts, _, _) = convert_plural(&key, Syntax::Printf);
    assert_eq!(texts, ["one: %1$s: %2$d item | other: %1$s: %2$d items"]);
    // A `{count}` beside a plural of `n` is another argument: the message is left whole.
    let clash = self::key(
        Syntax::Icu,
        &[("en", "{n, plural, one {# of {count}} other {# of {count}}}")],
    );
    let (texts, warnings, plural) = convert_plural(&clash, Syntax::I18next);
    assert_eq!(texts, ["{n, plural, one {# of {count}} other {# of {count}}}"]);
    assert!(!plural && !warnings.is_empty());
}

#[test]
fn quoting_in_cases_is_read_as_icu_reads_it() {
    let key = key(
        Syntax::Icu,
        &[(
            "en",
            "{count, plural, one {it''s # for '{'{name}'}'} other {'#'# for {name}, 100%}}",
        )],
    );
    let (texts, _, _) = convert_plural(&key, Syntax::Rails);
    assert_eq!(
        texts,
        ["one: it's %{count} for {%{name}} | other: #%{count} for %{name}, 100%%"]
    );
    let (texts, _, _) = convert_plural(&key, Syntax::Printf);
    assert_eq!(texts, ["one: it's %1$d for {%2$s} | other: #%1$d for %2$s, 100%%"]);
    // Cases in another order, with spaces, are written in CLDR order.
    let key = self::key(Syntax::Icu, &[("en", " {count,plural,other{# items}  one {# item}} ")]);
    let (texts, _, _) = convert_plural(&key, Syntax::I18next);
    assert_eq!(texts, ["one: {{count}} item | other: {{count}} items"]);
}

#[test]
fn exact_values_are_left_out_with_a_warning_and_1_is_one_where_one_is_1_alone() {
    let key = key(
        Syntax::Icu,
        &[
            (
                "en",
                "{count, plural, =0 {No files} =1 {One file} one {# file} other {# files}}",
            ),
            (
                "fr",
                "{count, plural, =0 {Aucun} =1 {Un fichier} one {# fichier} other {# fichiers}}",
            ),
            (
                "ru",
                "{count, plural, =1 {Один файл} one {# файл} few {# файла} many {# файлов} other {# файла}}",
            ),
        ],
    );
    let (texts, warnings, plural) = convert_plural(&key, Syntax::Printf);
    assert!(plural);
    assert_eq!(
        texts,
        [
            // English's `one` holds 1 alone: `=1` is what ICU prints for it.
            "one: One file | other: %1$d files",
            // French's `one` holds 0 and 1; Russian's 21 too: `=1` is left out.
            "one: %1$d fichier | other: %1$d fichiers",
            "one: %1$d файл | few: %1$d файла | many: %1$d файлов | other: %1$d файла",
        ]
    );
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    assert!(warnings[0].contains("`=0`"), "{warnings:?}");
    assert!(warnings[1].contains("`=0`") && warnings[2].contains("`=1`") && warnings[3].contains("`=1`"));
}

#[test]
fn select_nested_and_broken_messages_stay_whole() {
    for message in [
        "{g, select, female {she} other {they}}",
        "{count, plural, one {{g, select, female {her file} other {their file}}} other {# files}}",
        "{count, plural, one {# {k, plural, one {x} other {y}}} other {# files}}",
        "{count, plural, offset:1 one {x} other {y}}",
        "{count, plural, one {# file}}",
        "{count, plural, one {# file} one {# file} other {# files}}",
        "{count, plural, few {# a} =x {b} other {c}}",
    ] {
        let key = key(Syntax::Icu, &[("en", message)]);
        let (texts, _, plural) = convert_plural(&key, Syntax::Printf);
        assert!(!plural, "{message}");
        assert_eq!(texts, [message]);
    }
    // A plain text beside a plural message becomes the key's `other` form.
    let key = key(
        Syntax::Icu,
        &[
            ("en", "{count, plural, one {# file} other {# files}}"),
            ("fr", "Fichiers de {name}"),
        ],
    );
    let (texts, _, plural) = convert_plural(&key, Syntax::I18next);
    assert!(plural);
    assert_eq!(
        texts,
        [
            "one: {{count}} file | other: {{count}} files",
            "other: Fichiers de {{name}}"
        ]
    );
}

/// The one-pass conversion of Java printf texts for Apple writes what the full conversion
/// writes, on every line of every text file of the fixtures (real apps' strings in every
/// format, so printf's hard cases and much that is not printf at all) and on hand-made cases.
#[test]
fn the_one_pass_printf_to_apple_conversion_writes_what_the_full_one_does() {
    let full = |text: &str| {
        let context = Context {
            plural_form: false,
            markup: false,
        };
        let parsed = placeholders::parse(text, Syntax::Printf, context);
        let names = Names::new(&[], [&parsed]);
        render::render(&parsed, Syntax::Apple, context, Tags::Strip, &names, &mut Vec::new())
    };
    let lines = printf_lines();
    let mut fast_ones = 0;
    for line in &lines {
        if let Some(written) = fast::printf_to_apple(line) {
            assert_eq!(written, full(line), "{line:?}");
            fast_ones += 1;
        }
    }
    assert!(
        fast_ones > 1000,
        "only {fast_ones} of {} lines took the one pass",
        lines.len()
    );
}

/// Every line with a `%` of every fixture file (real apps' files of every format, so
/// printf's hard cases and much that is not printf at all), and hand-made cases.
fn printf_lines() -> Vec<String> {
    let mut lines: Vec<String> = [
        "Hello %1$s, you have %2$d messages",
        "%s sent %d files (%.1f MB, 100%%)",
        "%2$s before %1$s, then %s",
        "%s then %2$s and %d, 5%% \"off\"",
        "%05d %-8s %,d %+.2f %x %X %o %e %G %c",
        "%f and %.0f and %.00f and %01$s",
        "50% off",
        "100%",
        "%n%s",
        "%b %S %tY %h",
        "%1$s %1$s %0$s",
        "% d %#x %'d",
        "no placeholders, only 100%% here",
        "%10.3f|%-5c|%.5s",
        "%99999999999d",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for entry in walkdir::WalkDir::new(root).into_iter().filter_map(Result::ok) {
        if entry.file_type().is_file()
            && let Ok(text) = std::fs::read_to_string(entry.path())
        {
            lines.extend(text.lines().filter(|line| line.contains('%')).map(str::to_owned));
        }
    }
    lines
}

/// An Apple `.strings` export whose writer converts the common keys as it escapes them writes
/// the same bytes as one whose keys were all converted before: every fixture line with a `%`
/// as a key's text, with quotes and a line break around it in a second language.
#[test]
fn converting_as_the_apple_writer_escapes_writes_what_converting_before_does() {
    use crate::domain::model::Project;
    use crate::domain::names::ProjectName;
    use crate::formats::Export;
    let languages = [code("en"), code("fr")];
    let project = Project {
        name: ProjectName::parse("app").unwrap(),
        display_name: "App".into(),
        description: String::new(),
        base_language: languages[0].clone(),
        languages: languages.to_vec(),
        placeholder_format: Some(Syntax::Printf),
    };
    let keys: Vec<Key> = printf_lines()
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut key = key(Syntax::Printf, &[("en", line), ("fr", &format!("\"{line}\"\n\\"))]);
            key.name = KeyName::parse(&format!("k{index}")).unwrap();
            key
        })
        .collect();
    let on_write_keys = keys.iter().filter(|key| converts_on_write(key)).count();
    assert!(on_write_keys > 1000, "only {on_write_keys} keys converted on write");
    let files = |on_write: bool| {
        let (converted, warnings) = converted(&keys, ExportFormat::AppleStrings, &languages[0], on_write);
        let mut export = Export::new(ExportFormat::AppleStrings, &project, &converted, &languages).unwrap();
        if on_write {
            export = export.converting_on_write();
        }
        let files: Vec<_> = languages.iter().flat_map(|language| export.render(language)).collect();
        (files, warnings)
    };
    let (before, before_warnings) = files(false);
    let (on_write, on_write_warnings) = files(true);
    assert_eq!(before_warnings, on_write_warnings);
    assert_eq!(before.len(), on_write.len());
    for (before, on_write) in before.iter().zip(&on_write) {
        assert_eq!(before.path, on_write.path);
        for (before, on_write) in String::from_utf8_lossy(&before.bytes)
            .lines()
            .zip(String::from_utf8_lossy(&on_write.bytes).lines())
        {
            assert_eq!(before, on_write);
        }
        assert_eq!(before.bytes, on_write.bytes);
    }
}
