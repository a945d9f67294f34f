//! String Catalogs patched in place: the app's catalog is read as a tree with its members in
//! the file's order, the server's values are put into it key by key and language by
//! language, and the tree is written back in the catalog's layout (Xcode's, or the `"key":
//! value` and `{}` of a catalog a script wrote; a catalog with nothing to change keeps its
//! bytes).
//!
//! A localization whose text and review state are the server's keeps its node as it is (with
//! whatever else Xcode recorded in it); a different one takes the server's (a localization
//! held whole, with `substitutions` or device variations, is compared as JSON). Languages the
//! export lacks, `extractionState`, and keys with an App Shortcut's `stringSet` (which the
//! server does not hold) stay as they are. A key the server deleted goes; a key the
//! server never had stays; a key new to the catalog goes in at its place in Xcode's order.

use super::{Body, Edited, PatchInput, Patched};
use crate::formats::ReadError;
use crate::formats::xcstrings::{self, Node, xcode_order};

/// The names of a catalog's keys, in file order.
pub fn names(bytes: &[u8]) -> Result<Vec<String>, ReadError> {
    let root = xcstrings::parse(bytes)?;
    Ok(strings(&root).iter().map(|(name, _)| name.clone()).collect())
}

fn strings(root: &Node) -> &[(String, Node)] {
    root.get("strings").map(Node::members).unwrap_or_default()
}

pub fn patch(input: &PatchInput<'_>) -> Result<Patched, ReadError> {
    let local = xcstrings::parse(input.local)?;
    let exported = xcstrings::parse(input.exported)?;
    // Both must be catalogs this server reads.
    xcstrings::read(input.local)?;
    let source = exported
        .get("sourceLanguage")
        .cloned()
        .unwrap_or(Node::String(String::new()));
    let theirs = strings(&exported);
    let mut keys: Vec<(String, Node)> = Vec::with_capacity(theirs.len());
    for (name, entry) in strings(&local) {
        match theirs.iter().find(|(their_name, _)| their_name == name) {
            Some((_, their_entry)) => keys.push((name.clone(), merge_entry(entry, their_entry))),
            None if holds_only_what_the_server_reads(entry) && (input.deleted)(name) => {}
            None => keys.push((name.clone(), entry.clone())),
        }
    }
    for (name, entry) in theirs {
        if !keys.iter().any(|(own, _)| own == name) {
            insert_in_order(&mut keys, name.clone(), entry.clone());
        }
    }
    let names = keys.iter().map(|(name, _)| name.clone()).collect();
    let mut root = local.clone();
    if let Node::Object(members) = &mut root {
        set_member(members, "sourceLanguage", Some(source));
        set_member(members, "strings", Some(Node::Object(keys)));
    }
    let body = if root == local {
        Body::Edited(Edited::default())
    } else {
        let mut out = String::with_capacity(input.local.len() + input.exported.len() / 8);
        let local_text = std::str::from_utf8(input.local).unwrap_or_default();
        xcstrings::write_node_in(&mut out, &root, 2, xcstrings::Layout::of(local_text));
        // What follows the catalog's last brace (Xcode writes nothing; a script a newline).
        out.push_str(&local_text[local_text.trim_end().len()..]);
        Body::Bytes(out.into_bytes())
    };
    Ok(Patched {
        body,
        names: input.is_base.then_some(names),
        whole: false,
    })
}

/// Whether every localization of an entry is one the server holds: an entry with a
/// `stringSet` never reached the server, so it is not the server's to delete.
fn holds_only_what_the_server_reads(entry: &Node) -> bool {
    let localizations = entry.get("localizations").map(Node::members).unwrap_or_default();
    localizations
        .iter()
        .all(|(_, localization)| xcstrings::is_held(localization))
}

/// The app's entry with the server's comment, `shouldTranslate` and localizations.
fn merge_entry(own: &Node, theirs: &Node) -> Node {
    let Node::Object(members) = own else {
        return theirs.clone();
    };
    if !holds_only_what_the_server_reads(own) {
        return own.clone();
    }
    let mut members = members.clone();
    // An empty comment (Mac Mouse Fix's `"comment" : ""`) says no description, as the
    // server's lack of one does: it stays as written.
    let their_comment = theirs.get("comment").cloned();
    let own_empty = matches!(own.get("comment"), Some(Node::String(comment)) if comment.is_empty());
    // A description is held with `\n` line ends: a comment written with `\r\n` (LuLu's) that
    // says the same stays as written.
    let same_lines = match (own.get("comment"), &their_comment) {
        (Some(Node::String(own)), Some(Node::String(theirs))) => own.replace("\r\n", "\n") == *theirs,
        _ => false,
    };
    if (their_comment.is_some() || !own_empty) && !same_lines {
        set_member(&mut members, "comment", their_comment);
    }
    set_member(&mut members, "shouldTranslate", theirs.get("shouldTranslate").cloned());
    let their_localizations = theirs.get("localizations").map(Node::members).unwrap_or_default();
    let mut localizations: Vec<(String, Node)> =
        own.get("localizations").map(Node::members).unwrap_or_default().to_vec();
    for (language, localization) in their_localizations {
        match localizations
            .iter_mut()
            .find(|(own_language, _)| own_language == language)
        {
            Some((_, own_localization)) => {
                let localization = &as_plain_where_it_was(own_localization, localization);
                let same = if xcstrings::is_text(own_localization) && xcstrings::is_text(localization) {
                    meaning(own_localization) == meaning(localization)
                } else {
                    // Held whole: the same JSON, whatever the order of its members.
                    own_localization.same_value(localization)
                };
                if !same {
                    *own_localization = localization.clone();
                }
            }
            None => insert_in_order(&mut localizations, language.clone(), localization.clone()),
        }
    }
    let localizations = (!localizations.is_empty()).then_some(Node::Object(localizations));
    set_member(&mut members, "localizations", localizations);
    Node::Object(members)
}

/// The server's localization as the app writes it: plural forms of `other` alone (a
/// language whose only category it is) where the app has a plain `stringUnit` are that
/// `stringUnit` (see [`xcstrings::read`]); anything else as it is.
fn as_plain_where_it_was(own: &Node, theirs: &Node) -> Node {
    let forms = theirs
        .get("variations")
        .and_then(|variations| variations.get("plural"))
        .map(Node::members)
        .unwrap_or_default();
    match forms {
        [(category, form)] if category == "other" && own.get("stringUnit").is_some() => match form.get("stringUnit") {
            Some(unit) => Node::Object(vec![("stringUnit".to_owned(), unit.clone())]),
            None => theirs.clone(),
        },
        _ => theirs.clone(),
    }
}

/// What a localization says as the server holds it: each text, and whether the translation
/// needs review. The server keeps one review flag per translation, so a catalog whose plural
/// forms have states of their own (`one` `needs_review`, `other` `translated`) says the same
/// as the export's (every form `needs_review`) and keeps its per-form states; the exact state
/// name of a reviewed text (`new`, `translated`) is the app's own too.
fn meaning(localization: &Node) -> (Vec<(String, String)>, bool) {
    let mut review = false;
    let mut unit = |prefix: &str, unit: &Node| {
        let value = unit.get("value").and_then(|value| match value {
            Node::String(text) => Some(text.clone()),
            _ => None,
        });
        review |= matches!(unit.get("state"), Some(Node::String(state)) if state == "needs_review");
        (prefix.to_owned(), value.unwrap_or_default())
    };
    if let Some(string_unit) = localization.get("stringUnit") {
        let texts = vec![unit("", string_unit)];
        return (texts, review);
    }
    let plural = localization
        .get("variations")
        .and_then(|variations| variations.get("plural"))
        .map(Node::members)
        .unwrap_or_default();
    let mut forms: Vec<(String, String)> = plural
        .iter()
        .filter_map(|(category, form)| Some(unit(category, form.get("stringUnit")?)))
        .collect();
    forms.sort();
    (forms, review)
}

/// Sets (`Some`) or removes (`None`) a member; a new one goes at its place in Xcode's order.
fn set_member(members: &mut Vec<(String, Node)>, name: &str, value: Option<Node>) {
    let position = members.iter().position(|(own, _)| own == name);
    match (position, value) {
        (Some(position), Some(value)) => members[position].1 = value,
        (Some(position), None) => {
            members.remove(position);
        }
        (None, Some(value)) => insert_in_order(members, name.to_owned(), value),
        (None, None) => {}
    }
}

/// Inserts before the first member that comes after `name` in Xcode's order.
fn insert_in_order(members: &mut Vec<(String, Node)>, name: String, value: Node) {
    let position = members
        .iter()
        .position(|(own, _)| xcode_order(own, &name).is_gt())
        .unwrap_or(members.len());
    members.insert(position, (name, value));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(local: &'a str, exported: &'a str, deleted: &'a (dyn Fn(&str) -> bool + Sync)) -> PatchInput<'a> {
        PatchInput {
            local: local.as_bytes(),
            exported: exported.as_bytes(),
            order: None,
            deleted,
            is_base: true,
            prepared: None,
        }
    }

    fn catalog(strings: &str) -> String {
        format!("{{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {{\n{strings}\n  }},\n  \"version\" : \"1.0\"\n}}")
    }

    fn unit(language: &str, state: &str, value: &str) -> String {
        format!(
            "        \"{language}\" : {{\n          \"stringUnit\" : {{\n            \"state\" : \"{state}\",\n            \"value\" : \"{value}\"\n          }}\n        }}"
        )
    }

    fn key(name: &str, before: &str, units: &[String]) -> String {
        format!(
            "    \"{name}\" : {{\n{before}      \"localizations\" : {{\n{}\n      }}\n    }}",
            units.join(",\n")
        )
    }

    #[test]
    fn only_changed_localizations_change_and_the_apps_own_entries_stay() {
        let local = catalog(
            &[
                key("Added in the app", "", &[unit("de", "translated", "Neu")]),
                key(
                    "Hello",
                    "      \"extractionState\" : \"manual\",\n",
                    &[unit("de", "translated", "Hallo"), unit("fr", "translated", "Salut")],
                ),
                key("Old", "", &[unit("de", "translated", "Alt")]),
            ]
            .join(",\n"),
        );
        let exported = catalog(
            &[
                key("Bye", "", &[unit("de", "translated", "Tschüss")]),
                key(
                    "Hello",
                    "",
                    &[unit("de", "needs_review", "Hallo"), unit("fr", "translated", "Salut")],
                ),
            ]
            .join(",\n"),
        );
        let deleted = |name: &str| name == "Old";
        let patched = patch(&input(&local, &exported, &deleted)).unwrap();
        let expected = catalog(
            &[
                key("Added in the app", "", &[unit("de", "translated", "Neu")]),
                key("Bye", "", &[unit("de", "translated", "Tschüss")]),
                key(
                    "Hello",
                    "      \"extractionState\" : \"manual\",\n",
                    &[unit("de", "needs_review", "Hallo"), unit("fr", "translated", "Salut")],
                ),
            ]
            .join(",\n"),
        );
        assert_eq!(
            String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap(),
            expected
        );
        assert_eq!(patched.names.unwrap(), ["Added in the app", "Bye", "Hello"]);
    }

    #[test]
    fn a_comment_with_crlf_line_ends_that_says_the_description_stays_as_written() {
        // LuLu: `"comment" : "Installed version (%@),\r\nis the latest."`; the server holds
        // the description with `\n`.
        let local = "{\n  \"sourceLanguage\" : \"en\",\n  \"strings\" : {\n    \"Done\" : {\n      \"comment\" : \"Two\\r\\nlines\",\n      \"localizations\" : {\n        \"de\" : {\n          \"stringUnit\" : {\n            \"state\" : \"translated\",\n            \"value\" : \"Fertig\"\n          }\n        }\n      }\n    }\n  },\n  \"version\" : \"1.0\"\n}";
        let exported = local.replace("Two\\r\\nlines", "Two\\nlines");
        assert_eq!(patched_text(local, &exported), local);
        let changed = local.replace("Two\\r\\nlines", "Other\\nlines");
        let patched = patched_text(local, &changed);
        assert!(patched.contains("\"comment\" : \"Other\\nlines\""), "{patched}");
    }

    #[test]
    fn an_empty_comment_is_no_description_and_stays_while_a_changed_text_is_patched() {
        // Mac Mouse Fix: `"comment" : ""` on keys the server holds without a description.
        let empty = "      \"comment\" : \"\",\n";
        let local = catalog(&key("Hello", empty, &[unit("de", "translated", "Hallo")]));
        let exported = catalog(&key("Hello", "", &[unit("de", "translated", "Servus")]));
        assert_eq!(patched_text(&local, &exported), local.replace("Hallo", "Servus"));
    }

    #[test]
    fn a_catalog_that_says_what_the_server_says_keeps_its_bytes() {
        // Hand-formatted, but the same values.
        let local = "{\"sourceLanguage\":\"en\",\"strings\":{\"Hello\":{\"localizations\":{\"de\":{\"stringUnit\":{\"state\":\"translated\",\"value\":\"Hallo\"}}}}},\"version\":\"1.0\"}";
        let exported = catalog(&key("Hello", "", &[unit("de", "translated", "Hallo")]));
        let never = |_: &str| false;
        let patched = patch(&input(local, &exported, &never)).unwrap();
        assert!(patched.body.keeps(local.as_bytes()));
    }

    fn plural(language: &str, forms: &[(&str, &str, &str)]) -> String {
        let forms: Vec<String> = forms
            .iter()
            .map(|(category, state, value)| {
                format!(
                    "              \"{category}\" : {{\n                \"stringUnit\" : {{\n                  \"state\" : \"{state}\",\n                  \"value\" : \"{value}\"\n                }}\n              }}"
                )
            })
            .collect();
        format!(
            "        \"{language}\" : {{\n          \"variations\" : {{\n            \"plural\" : {{\n{}\n            }}\n          }}\n        }}",
            forms.join(",\n")
        )
    }

    fn patched_text(local: &str, exported: &str) -> String {
        let asked = |name: &str| panic!("the server is asked about {name:?}");
        let patched =
            super::super::patch(crate::formats::ExportFormat::Xcstrings, &input(local, exported, &asked)).unwrap();
        String::from_utf8(patched.body.into_bytes(local.as_bytes())).unwrap()
    }

    #[test]
    fn a_catalog_a_script_wrote_keeps_its_layout_when_one_text_changes() {
        // Meshtastic's: `"key": value`, `{}`, a newline at the end.
        let script = |text: &str| text.replace("\" : ", "\": ").replace("{\n\n      }", "{}");
        let only_comment = "    \"Empty\" : {\n\n      }";
        let local = script(&format!(
            "{}\n",
            catalog(
                &[
                    only_comment.to_owned(),
                    key("Hello", "", &[unit("de", "translated", "Hallo")])
                ]
                .join(",\n")
            )
        ));
        let exported = catalog(
            &[
                only_comment.to_owned(),
                key("Hello", "", &[unit("de", "translated", "Servus")]),
            ]
            .join(",\n"),
        );
        let expected = local.replace("Hallo", "Servus");
        assert!(
            local.contains("\"Empty\": {},\n") && !local.contains("\" : "),
            "{local}"
        );
        assert_eq!(patched_text(&local, &exported), expected);
    }

    #[test]
    fn per_form_states_stay_while_the_texts_and_the_review_flag_are_the_servers() {
        // Ice Cubes' `be`: `one` needs review, `other` is translated; the server keeps one flag.
        let local = catalog(&key(
            "%lld posts",
            "",
            &[plural(
                "be",
                &[
                    ("one", "needs_review", "%lld допіс"),
                    ("other", "translated", "%lld допісаў"),
                ],
            )],
        ));
        let exported = catalog(&key(
            "%lld posts",
            "",
            &[plural(
                "be",
                &[
                    ("one", "needs_review", "%lld допіс"),
                    ("other", "needs_review", "%lld допісаў"),
                ],
            )],
        ));
        assert_eq!(patched_text(&local, &exported), local);
    }

    #[test]
    fn a_plain_unit_held_as_the_other_form_is_written_back_plain() {
        let local = catalog(&key(
            "n %lld",
            "",
            &[
                plural(
                    "en",
                    &[
                        ("one", "translated", "%lld other"),
                        ("other", "translated", "%lld others"),
                    ],
                ),
                unit("ko", "translated", "님 외 %lld명이 "),
            ],
        ));
        let same = catalog(&key(
            "n %lld",
            "",
            &[
                plural(
                    "en",
                    &[
                        ("one", "translated", "%lld other"),
                        ("other", "translated", "%lld others"),
                    ],
                ),
                plural("ko", &[("other", "translated", "님 외 %lld명이 ")]),
            ],
        ));
        assert_eq!(patched_text(&local, &same), local);
        let changed = same.replace("님 외 %lld명이 ", "외 %lld명");
        assert_eq!(
            patched_text(&local, &changed),
            local.replace("님 외 %lld명이 ", "외 %lld명")
        );
    }

    #[test]
    fn string_sets_and_the_empty_key_stay_as_they_are_and_the_server_is_not_asked() {
        let string_set = "    \"Create a document in ${applicationName}\" : {\n      \"localizations\" : {\n        \"de\" : {\n          \"stringSet\" : {\n            \"state\" : \"translated\",\n            \"values\" : [\n              \"Ein Dokument in ${applicationName} erstellen\"\n            ]\n          }\n        }\n      }\n    }";
        let local = catalog(&[key("", "", &[unit("de", "translated", "")]), string_set.to_owned()].join(",\n"));
        let exported = catalog("");
        // The server is asked only about the string set's key, which it never had.
        let asked = |name: &str| {
            assert!(!name.is_empty(), "the server is asked about the empty key");
            false
        };
        let patched = super::super::patch(
            crate::formats::ExportFormat::Xcstrings,
            &input(&local, &exported, &asked),
        )
        .unwrap();
        assert!(patched.body.keeps(local.as_bytes()));
    }
}
