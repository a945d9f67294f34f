//! Android `res/values*/strings.xml`, written so that `aapt2` compiles and links it and reads
//! every text back unchanged.
//!
//! Android's resource compiler reads a `<string>` in two layers: XML first (so `<` and `&`
//! are XML-escaped, which keeps markup-looking text as text), then its own string syntax,
//! where `'`, `"`, `\` need a backslash, a leading `@` or `?` would make a reference, runs of
//! spaces collapse unless the text is in double quotes, and `\n`, `\t`, `\uXXXX` are escapes.

use std::collections::HashMap;
use std::fmt::Write as _;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::{ExportError, ExportFile, texts};
use crate::domain::model::Key;
use crate::domain::names::{KeyName, LanguageCode};

/// Android resource names of the keys, checked for clashes in `R.string`.
pub fn resource_names(keys: &[Key]) -> Result<HashMap<KeyName, String>, ExportError> {
    let mut names = HashMap::with_capacity(keys.len());
    let mut fields: HashMap<String, &KeyName> = HashMap::with_capacity(keys.len());
    for key in keys {
        let name = resource_name(key.name.as_str());
        // `R.string` fields read `.` as `_`, so `a.b` and `a_b` clash there.
        if let Some(other) = fields.insert(name.replace('.', "_"), &key.name) {
            return Err(ExportError::NameClash(format!(
                "The keys {:?} and {:?} both become the Android resource name {:?}; rename one of them or filter by tags.",
                other.as_str(),
                key.name.as_str(),
                name.replace('.', "_")
            )));
        }
        names.insert(key.name.clone(), name);
    }
    Ok(names)
}

/// Renders one language's `strings.xml`; the base language goes into `values/`.
pub fn render(keys: &[Key], names: &HashMap<KeyName, String>, language: &LanguageCode, is_base: bool) -> ExportFile {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 4);
    // Writing XML into a Vec cannot fail for I/O reasons.
    let write = "writing XML into memory";
    writer
        .write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))
        .expect(write);
    writer
        .create_element("resources")
        .write_inner_content(|writer| {
            for (key, text) in texts(keys, language) {
                let mut element = writer
                    .create_element("string")
                    .with_attribute(("name", names[&key.name].as_str()));
                if text.contains('%') {
                    // Without this, aapt2 refuses texts like "%s of %s" or "100% %d".
                    element = element.with_attribute(("formatted", "false"));
                }
                element.write_text_content(BytesText::new(&escape(text)))?;
            }
            Ok::<(), std::io::Error>(())
        })
        .expect(write);
    let mut bytes = writer.into_inner();
    bytes.push(b'\n');
    let folder = if is_base {
        "values".to_owned()
    } else {
        format!("values-{}", qualifier(language))
    };
    ExportFile {
        path: format!("{folder}/strings.xml"),
        bytes,
    }
}

/// A key name as a valid resource name: characters outside `[A-Za-z0-9_.]` become `_`, a
/// leading digit or `.` gets a `_` in front, a Java keyword gets a `_` after it.
pub fn resource_name(key: &str) -> String {
    let mut name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        name.insert(0, '_');
    }
    if JAVA_KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// The resource qualifier of a language: `fr`, `pt-rBR` for a language and region, and the
/// BCP 47 form `b+zh+Hans` for everything else.
pub fn qualifier(language: &LanguageCode) -> String {
    let subtags: Vec<&str> = language.subtags().collect();
    let primary = subtags[0].to_ascii_lowercase();
    let is_region = |tag: &str| {
        (tag.len() == 2 && tag.bytes().all(|b| b.is_ascii_alphabetic()))
            || (tag.len() == 3 && tag.bytes().all(|b| b.is_ascii_digit()))
    };
    match &subtags[1..] {
        [] if primary.len() == 2 => primary,
        [region] if primary.len() == 2 && is_region(region) => {
            format!("{primary}-r{}", region.to_ascii_uppercase())
        }
        rest => std::iter::once(primary.as_str())
            .chain(rest.iter().copied())
            .fold("b".to_owned(), |acc, tag| acc + "+" + tag),
    }
}

/// Escapes a text for Android's string syntax (the XML layer is escaped by the writer).
pub fn escape(text: &str) -> String {
    let keep_spaces = text.starts_with(' ') || text.ends_with(' ') || text.contains("  ");
    let mut out = String::with_capacity(text.len() + 8);
    if keep_spaces {
        out.push('"');
    }
    for (index, c) in text.chars().enumerate() {
        match c {
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '@' | '?' if index == 0 => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    if keep_spaces {
        out.push('"');
    }
    out
}

const JAVA_KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "void",
    "volatile",
    "while",
    "_",
];

#[cfg(test)]
mod tests {
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
        let key = |name: &str| Key {
            name: KeyName::parse(name).unwrap(),
            tags: vec![],
            translations: Default::default(),
        };
        let err = resource_names(&[key("a.b"), key("a_b")]).unwrap_err().to_string();
        assert!(err.contains("\"a.b\"") && err.contains("\"a_b\""), "{err}");
        assert!(resource_names(&[key("a.b"), key("a.c")]).is_ok());
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
}
