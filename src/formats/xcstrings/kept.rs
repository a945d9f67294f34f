//! Localizations kept as Xcode wrote them ([`crate::domain::model::XcodeEntry::nodes`]): those in a shape an export
//! would not write for the same text and review state, and units with an empty value. The
//! export writes such a node back while it says what the key holds.

use super::{Node, read_localization};
use crate::domain::model::{Key, PluralCategory, Text, TextRef};
use crate::domain::names::LanguageCode;

/// The nodes of `localizations` to keep, by language, sorted: where the export would write
/// another node for the text read (`texts`) and its state, or the value is empty (no
/// translation on the server). The source language's state is the server's "current".
pub(super) fn nodes_to_keep(
    localizations: &[(String, Node)],
    texts: &[(&str, (Text, bool))],
    source: &str,
) -> Vec<(String, String)> {
    let mut nodes: Vec<(String, String)> = localizations
        .iter()
        .filter_map(|(language, node)| {
            let (_, (text, outdated)) = texts.iter().find(|(own, _)| own == language)?;
            let outdated = *outdated && language != source;
            let empty = matches!(text, Text::Plain(value) if value.is_empty());
            (empty || !fresh_node(text.as_ref(), outdated).same_value(node)).then(|| (language.clone(), node.to_json()))
        })
        .collect();
    nodes.sort();
    nodes
}

/// The node `key` keeps for `language`, when it says `text`, to review or not (`None`: in any
/// state, as for the source language, never to review on the server).
pub(super) fn kept_node(key: &Key, language: &LanguageCode, text: TextRef<'_>, outdated: Option<bool>) -> Option<Node> {
    let (_, node) = key.xcode.nodes.iter().find(|(own, _)| own == language.as_str())?;
    Node::from_whole_text(node).filter(|node| says(node, text, outdated))
}

/// The localization an export writes for `text`, to review or not: a `stringUnit`, or plural
/// variations with their forms by category name.
fn fresh_node(text: TextRef<'_>, outdated: bool) -> Node {
    let state = if outdated { "needs_review" } else { "translated" };
    let unit = |value: &str| {
        Node::Object(vec![(
            "stringUnit".to_owned(),
            Node::Object(vec![
                ("state".to_owned(), Node::String(state.to_owned())),
                ("value".to_owned(), Node::String(value.to_owned())),
            ]),
        )])
    };
    match text {
        TextRef::Plain(value) => unit(value),
        TextRef::Plural(forms) => {
            let mut categories: Vec<(PluralCategory, &str)> = forms.iter().collect();
            categories.sort_by(|a, b| a.0.name().cmp(b.0.name()));
            let plural = categories
                .into_iter()
                .map(|(category, value)| (category.name().to_owned(), unit(value)))
                .collect();
            Node::Object(vec![(
                "variations".to_owned(),
                Node::Object(vec![("plural".to_owned(), Node::Object(plural))]),
            )])
        }
    }
}

/// Whether Xcode's `node` of a localization says what `text` says, to review (`Some(true)`)
/// or not (`Some(false)`), or in any state (`None`: the source language, which is never to
/// review on the server): then an export writes the node as Xcode wrote it.
fn says(node: &Node, text: TextRef<'_>, outdated: Option<bool>) -> bool {
    let Some((read, read_outdated)) = read_localization(node) else {
        return false;
    };
    let same_text = match (&read, text) {
        // A plain unit of a language whose only form is `other`, read into a plural key.
        (Text::Plain(value), TextRef::Plural(forms)) => forms.iter().count() == 1 && forms.other_form() == value,
        _ => text == read,
    };
    same_text && outdated.is_none_or(|outdated| outdated == read_outdated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::PluralForms;

    #[test]
    fn nodes_the_export_would_write_otherwise_are_kept_while_they_say_what_the_key_holds() {
        // Ice Cubes' shapes: forms of mixed review states, a unit without a state, a plain
        // Korean unit in a plural key, an empty value; and a plain unit the export writes alike.
        let mixed = r#"{"variations":{"plural":{"one":{"stringUnit":{"state":"needs_review","value":"%lld post"}},"other":{"stringUnit":{"state":"translated","value":"%lld posts"}}}}}"#;
        let no_state = r#"{"stringUnit":{"value":"Hallo"}}"#;
        let korean = r#"{"stringUnit":{"state":"translated","value":"%lld개"}}"#;
        let empty = r#"{"stringUnit":{"state":"needs_review","value":""}}"#;
        let plain = r#"{"stringUnit":{"state":"translated","value":"Salut"}}"#;
        let strings = format!(
            r#""k" : {{"localizations": {{"be": {mixed}, "en": {{"variations":{{"plural":{{"one":{{"stringUnit":{{"state":"translated","value":"%lld post"}}}},"other":{{"stringUnit":{{"state":"translated","value":"%lld posts"}}}}}}}}}}, "ko": {korean}, "nb": {empty}}}}}, "h" : {{"localizations": {{"de": {no_state}, "en": {{"stringUnit":{{"state":"translated","value":"Hello"}}}}, "fr": {plain}}}}}"#
        );
        let text = format!(r#"{{"sourceLanguage": "en", "version": "1.1", "strings": {{{strings}}}}}"#);
        let read = super::super::read(text.as_bytes()).unwrap();
        let (_, en) = read.languages.iter().find(|(language, _)| language == "en").unwrap();
        let nodes = |name: &str| {
            let entry = en.iter().find(|entry| entry.name == name).unwrap();
            entry
                .xcode
                .as_ref()
                .unwrap()
                .nodes
                .iter()
                .map(|(language, _)| language.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes("k"), ["be", "ko", "nb"]);
        assert_eq!(nodes("h"), ["de"]);
        let node = |json: &str| serde_json::from_str::<Node>(json).unwrap();
        let forms = PluralForms::new([
            (PluralCategory::One, "%lld post".to_owned()),
            (PluralCategory::Other, "%lld posts".to_owned()),
        ])
        .unwrap();
        let plural = Text::Plural(forms);
        assert!(says(&node(mixed), plural.as_ref(), Some(true)));
        assert!(!says(&node(mixed), plural.as_ref(), Some(false)), "the state differs");
        let korean_forms = Text::Plural(PluralForms::other("%lld개".to_owned()));
        assert!(says(&node(korean), korean_forms.as_ref(), Some(false)));
        assert!(says(&node(no_state), TextRef::Plain("Hallo"), Some(false)));
        assert!(
            !says(&node(no_state), TextRef::Plain("Guten Tag"), Some(false)),
            "the text changed"
        );
        assert!(says(&node(empty), TextRef::Plain(""), None));
    }
}
