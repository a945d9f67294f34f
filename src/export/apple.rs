//! `{lang}.lproj/Localizable.strings`: `"key" = "text";` lines in UTF-8, with the escapes of
//! Apple's strings-file parser.

use std::fmt::Write;

use super::{ExportFile, texts};
use crate::domain::model::Key;
use crate::domain::names::LanguageCode;

pub fn render(keys: &[Key], language: &LanguageCode) -> ExportFile {
    let mut out = String::new();
    for (key, text) in texts(keys, language) {
        let _ = writeln!(out, "\"{}\" = \"{}\";", escape(key.name.as_str()), escape(text));
    }
    ExportFile {
        path: format!("{}.lproj/Localizable.strings", bcp47(language)),
        bytes: out.into_bytes(),
    }
}

/// The code in BCP 47 form, as Xcode names `.lproj` folders: `pt_BR` becomes `pt-BR`.
pub fn bcp47(language: &LanguageCode) -> String {
    language.as_str().replace('_', "-")
}

/// Escapes a string for a double-quoted strings-file literal.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\U{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
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
}
