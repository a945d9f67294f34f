//! A branch merged into a line, planned as a value: for the project's files that either side
//! changed since their common ancestor, each key is merged on its own, and each language of a
//! key on its own (its text with the base it was written against). The same change on both
//! sides merges; both sides changing one text differently, or one side deleting a key the
//! other changed, is a conflict unless a strategy or a resolution settles it. The project's
//! settings (`project.toml`) merge field by field, its languages as a set (each side's
//! additions and removals taken); a field both sides changed differently is a conflict that
//! only a strategy settles. Other files of the project (the app's kept files) merge whole: a
//! side's change is taken when the other left the file as it was, and the target's version
//! is kept when both changed it.
//!
//! Pure: the writer reads the three versions of every changed file and hands them in.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::domain::model::{Key, Project, Text};
use crate::domain::names::{KeyName, LanguageCode, ProjectName};
use crate::gitdb::TreeEdit;
use crate::store::files;

/// Which side a merge keeps where the two conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeStrategy {
    /// The line merged into (the target).
    Ours,
    /// The branch merged.
    Theirs,
}

/// A conflict settled by hand: the text one language of a key gets (`None`: no text; for a
/// key one side deleted, every conflict of it `None` deletes the key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub key: KeyName,
    pub language: LanguageCode,
    pub content: Option<String>,
}

/// A text both sides changed differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeConflict {
    pub key: KeyName,
    pub language: LanguageCode,
    pub base: Option<Text>,
    pub ours: Option<Text>,
    pub theirs: Option<Text>,
}

/// A project setting both sides changed differently: its field in the API's spelling, and
/// its value on each side as text (a list of languages joined with `, `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingConflict {
    pub field: &'static str,
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

/// What the merge does to one key of the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMerge {
    Added,
    Updated,
    Deleted,
}

/// One file of the project as the merge base, the target and the branch hold it (`None`:
/// absent there), its path relative to the project's folder.
#[derive(Debug, Clone)]
pub struct ThreeVersions {
    pub path: String,
    pub base: Option<Vec<u8>>,
    pub ours: Option<Vec<u8>>,
    pub theirs: Option<Vec<u8>>,
}

/// The merge as planned.
#[derive(Debug, Default)]
pub struct MergePlan {
    /// Edits of the target's tree, paths relative to the project's folder.
    pub edits: Vec<TreeEdit>,
    /// What happens to each key that changes in the target, by name.
    pub keys: Vec<(KeyName, KeyMerge)>,
    /// Conflicts nothing settled: with any, nothing may be written.
    pub conflicts: Vec<MergeConflict>,
    /// Settings both sides changed differently, with no strategy to settle them: with any,
    /// nothing may be written either.
    pub settings: Vec<SettingConflict>,
}

/// How conflicts are settled.
#[derive(Debug, Clone, Default)]
pub struct Settle {
    pub strategy: Option<MergeStrategy>,
    pub resolutions: Vec<Resolution>,
}

/// Plans the merge of the files `changed` (every file either side changed since the base).
/// `base_language` names the language a deleted-versus-changed conflict is reported in when
/// no text differs.
pub fn plan_merge(changed: Vec<ThreeVersions>, settle: &Settle, base_language: &LanguageCode) -> MergePlan {
    let resolutions: HashMap<(&KeyName, &LanguageCode), &Option<String>> = settle
        .resolutions
        .iter()
        .map(|resolution| ((&resolution.key, &resolution.language), &resolution.content))
        .collect();
    let mut plan = MergePlan::default();
    let mut keys: BTreeMap<KeyName, [Option<(String, Key)>; 3]> = BTreeMap::new();
    for file in changed {
        if file.path == crate::store::layout::PROJECT_FILE {
            merge_settings(file, settle, &mut plan);
            continue;
        }
        if !is_key_file(&file.path) {
            merge_whole_file(file, &mut plan.edits);
            continue;
        }
        for (side, bytes) in [file.base, file.ours, file.theirs].into_iter().enumerate() {
            // A file that does not parse on a side is taken as absent there; the writer
            // checks every file of the merged tree before it publishes it.
            if let Some(key) = bytes.and_then(|bytes| files::read_key(&bytes).ok()) {
                let name = key.name.clone();
                keys.entry(name).or_default()[side] = Some((file.path.clone(), key));
            }
        }
    }
    for (name, [base, ours, theirs]) in keys {
        let merged = merge_key(
            &name,
            base.as_ref(),
            ours.as_ref(),
            theirs.as_ref(),
            settle,
            &resolutions,
            base_language,
        );
        match merged {
            Merged::Keep => {}
            Merged::Conflicts(conflicts) => plan.conflicts.extend(conflicts),
            Merged::Take(result) => write_result(name, ours, result, &mut plan),
        }
    }
    plan
}

/// A key's merge: the target's version stays, a new version (or none) is written, or
/// conflicts remain.
#[allow(clippy::large_enum_variant, reason = "one at a time, consumed at once")]
enum Merged {
    Keep,
    Take(Option<(String, Key)>),
    Conflicts(Vec<MergeConflict>),
}

fn merge_key(
    name: &KeyName,
    base: Option<&(String, Key)>,
    ours: Option<&(String, Key)>,
    theirs: Option<&(String, Key)>,
    settle: &Settle,
    resolutions: &HashMap<(&KeyName, &LanguageCode), &Option<String>>,
    base_language: &LanguageCode,
) -> Merged {
    fn key(side: Option<&(String, Key)>) -> Option<&Key> {
        side.map(|(_, key)| key)
    }
    let (b, o, t) = (key(base), key(ours), key(theirs));
    if t == b || o == t {
        return Merged::Keep;
    }
    if o == b {
        return Merged::Take(theirs.cloned());
    }
    let (Some(o_key), Some(t_key)) = (o, t) else {
        // One side deleted the key, the other changed it.
        let changed = o.or(t).expect("not both absent: they differ");
        return delete_against_change(name, b, o, t, changed, ours, theirs, settle, resolutions, base_language);
    };
    let mut merged = o_key.clone();
    merge_fields(&mut merged, b, t_key);
    let mut conflicts = Vec::new();
    let languages: BTreeSet<&LanguageCode> = [b, o, t]
        .into_iter()
        .flatten()
        .flat_map(|key| key.translations.keys())
        .collect();
    let mut changes = Vec::new();
    for language in languages {
        // Each text as written, with whether it is of the other kind than the key's.
        let text = |key: Option<&Key>| {
            key.and_then(|key| {
                let (text, other_kind) = key.translations.get_written(language)?;
                Some((text.to_owned(), other_kind))
            })
        };
        let with_base = |key: Option<&Key>| (text(key), key.and_then(|key| key.translations.base_of(language)));
        let (tb, to, tt) = (with_base(b), with_base(o), with_base(t));
        if tt == tb || to == tt {
            continue;
        }
        if to == tb {
            changes.push((language.clone(), tt));
            continue;
        }
        // A plural key's forms are not one text: its conflicts are settled by a strategy.
        let resolution = resolutions.get(&(name, language)).filter(|_| !merged.plural);
        let settled = match (resolution, settle.strategy) {
            (Some(content), _) => Some((
                content.as_deref().map(|text| (Text::Plain(text.to_owned()), false)),
                None,
            )),
            (None, Some(MergeStrategy::Ours)) => None,
            (None, Some(MergeStrategy::Theirs)) => Some(tt),
            (None, None) => {
                conflicts.push(MergeConflict {
                    key: name.clone(),
                    language: language.clone(),
                    base: tb.0.map(|(text, _)| text),
                    ours: to.0.map(|(text, _)| text),
                    theirs: tt.0.map(|(text, _)| text),
                });
                None
            }
        };
        if let Some(settled) = settled {
            changes.push((language.clone(), settled));
        }
    }
    if !conflicts.is_empty() {
        return Merged::Conflicts(conflicts);
    }
    for (language, (text, base)) in changes {
        merged.translations.apply_written([(&language, text)]);
        merged
            .translations
            .set_base(&language, base.filter(|_| merged.translations.get(&language).is_some()));
    }
    let path = ours.map(|(path, _)| path.clone()).expect("ours is present");
    if &merged == o_key {
        Merged::Keep
    } else {
        Merged::Take(Some((path, merged)))
    }
}

/// The fields beside the texts: the branch's value where the target left the base's.
fn merge_fields(merged: &mut Key, base: Option<&Key>, theirs: &Key) {
    let Some(base) = base else { return };
    macro_rules! take_theirs {
        ($($field:ident),*) => {$(
            if merged.$field == base.$field {
                merged.$field = theirs.$field.clone();
            }
        )*};
    }
    take_theirs!(
        tags,
        description,
        plural,
        markup,
        translatable,
        files,
        max_length,
        ignore_checks,
        xcode
    );
}

#[allow(clippy::too_many_arguments, reason = "the three sides, twice, and how to settle")]
fn delete_against_change(
    name: &KeyName,
    b: Option<&Key>,
    o: Option<&Key>,
    t: Option<&Key>,
    changed: &Key,
    ours: Option<&(String, Key)>,
    theirs: Option<&(String, Key)>,
    settle: &Settle,
    resolutions: &HashMap<(&KeyName, &LanguageCode), &Option<String>>,
    base_language: &LanguageCode,
) -> Merged {
    let text = |key: Option<&Key>, language: &LanguageCode| {
        key.and_then(|key| key.translations.get(language).map(|text| text.to_owned()))
    };
    let mut languages: Vec<&LanguageCode> = changed
        .translations
        .keys()
        .chain(b.into_iter().flat_map(|key| key.translations.keys()))
        .filter(|language| text(b, language) != text(Some(changed), language))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if languages.is_empty() {
        languages.push(base_language);
    }
    let resolved: Vec<Option<&Option<String>>> = languages
        .iter()
        .map(|language| resolutions.get(&(name, *language)).copied())
        .collect();
    if resolved.iter().all(Option::is_some) {
        if resolved.iter().all(|content| content.is_some_and(Option::is_none)) {
            return take_side(None);
        }
        let side = if o.is_some() { ours } else { theirs };
        let (path, mut key) = side.cloned().expect("the changed side is present");
        for (language, content) in languages.iter().zip(resolved) {
            let content = content.and_then(|content| content.clone()).map(Text::Plain);
            key.translations.apply([(*language, content)]);
        }
        return take_side(Some((path, key)));
    }
    match settle.strategy {
        Some(MergeStrategy::Ours) => Merged::Keep,
        Some(MergeStrategy::Theirs) => take_side(theirs.cloned()),
        None => Merged::Conflicts(
            languages
                .into_iter()
                .map(|language| MergeConflict {
                    key: name.clone(),
                    language: language.clone(),
                    base: text(b, language),
                    ours: text(o, language),
                    theirs: text(t, language),
                })
                .collect(),
        ),
    }
}

fn take_side(side: Option<(String, Key)>) -> Merged {
    Merged::Take(side)
}

/// Puts a key's merged version (or its removal) into the plan, against the target's.
fn write_result(name: KeyName, ours: Option<(String, Key)>, result: Option<(String, Key)>, plan: &mut MergePlan) {
    let ours_path = ours.as_ref().map(|(path, _)| path.clone());
    match result {
        Some((path, key)) => {
            if let Some(old) = ours_path.filter(|old| *old != path) {
                plan.edits.push(TreeEdit::Remove { path: old });
            }
            plan.edits.push(TreeEdit::Write {
                path,
                contents: files::write_key(&key).into(),
            });
            let change = if ours.is_some() {
                KeyMerge::Updated
            } else {
                KeyMerge::Added
            };
            plan.keys.push((name, change));
        }
        None => {
            if let Some(path) = ours_path {
                plan.edits.push(TreeEdit::Remove { path });
                plan.keys.push((name, KeyMerge::Deleted));
            }
        }
    }
}

/// A file other than a key's: the branch's version when the target left the base's.
fn merge_whole_file(file: ThreeVersions, edits: &mut Vec<TreeEdit>) {
    if file.ours != file.base || file.theirs == file.ours {
        return;
    }
    edits.push(match file.theirs {
        Some(contents) => TreeEdit::Write {
            path: file.path,
            contents: contents.into(),
        },
        None => TreeEdit::Remove { path: file.path },
    });
}

/// The project's settings merged field by field (see the module's comment); a file that does
/// not parse on a side merges whole.
fn merge_settings(file: ThreeVersions, settle: &Settle, plan: &mut MergePlan) {
    let name = ProjectName::parse("merged").expect("a valid project name");
    let read = |bytes: &Option<Vec<u8>>| files::read_project(name.clone(), bytes.as_deref()?).ok();
    let (Some(base), Some(ours), Some(theirs)) = (read(&file.base), read(&file.ours), read(&file.theirs)) else {
        merge_whole_file(file, &mut plan.edits);
        return;
    };
    let mut merged = ours.clone();
    let mut conflicts = Vec::new();
    let mut field = |field: &'static str, value: fn(&Project) -> String, set: fn(&mut Project, &Project)| {
        let (b, o, t) = (value(&base), value(&ours), value(&theirs));
        if o == t || t == b {
            return;
        }
        if o == b {
            set(&mut merged, &theirs);
            return;
        }
        match settle.strategy {
            Some(MergeStrategy::Ours) => {}
            Some(MergeStrategy::Theirs) => set(&mut merged, &theirs),
            None => conflicts.push(SettingConflict {
                field,
                base: b,
                ours: o,
                theirs: t,
            }),
        }
    };
    field(
        "displayName",
        |project| project.display_name.clone(),
        |merged, theirs| merged.display_name = theirs.display_name.clone(),
    );
    field(
        "description",
        |project| project.description.clone(),
        |merged, theirs| merged.description = theirs.description.clone(),
    );
    field(
        "baseLanguageISO",
        |project| project.base_language.to_string(),
        |merged, theirs| merged.base_language = theirs.base_language.clone(),
    );
    field(
        "placeholderFormat",
        |project| {
            project
                .placeholder_format
                .map(|syntax| syntax.name())
                .unwrap_or_default()
                .to_owned()
        },
        |merged, theirs| merged.placeholder_format = theirs.placeholder_format,
    );
    // Languages: the target's, less those the branch removed, with those it added.
    let removed: Vec<&LanguageCode> = base
        .languages
        .iter()
        .filter(|code| !theirs.languages.contains(code))
        .collect();
    merged.languages.retain(|code| !removed.contains(&code));
    for code in &theirs.languages {
        if !base.languages.contains(code) && !merged.languages.contains(code) {
            merged.languages.push(code.clone());
        }
    }
    if !merged.languages.contains(&merged.base_language) {
        // A side removed the language the other made (or kept) the base one.
        let list = |project: &Project| project.languages_list();
        match settle.strategy {
            Some(MergeStrategy::Ours) => merged.languages = ours.languages.clone(),
            Some(MergeStrategy::Theirs) => merged.languages = theirs.languages.clone(),
            None => conflicts.push(SettingConflict {
                field: "languagesISO",
                base: list(&base),
                ours: list(&ours),
                theirs: list(&theirs),
            }),
        }
        if !merged.languages.contains(&merged.base_language) {
            merged.languages.push(merged.base_language.clone());
        }
    }
    if !conflicts.is_empty() {
        plan.settings.extend(conflicts);
        return;
    }
    if merged != ours {
        plan.edits.push(TreeEdit::Write {
            path: file.path,
            contents: files::write_project(&merged).into(),
        });
    }
}

fn is_key_file(path: &str) -> bool {
    path.starts_with("keys/") && path.ends_with(".toml")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "keys/0/0/0/title.toml";

    fn key_file(texts: &[(&str, &str)]) -> Option<Vec<u8>> {
        let mut text = String::from("name = \"title\"\ntags = []\n\n[translations]\n");
        for (language, content) in texts {
            text.push_str(&format!("{language} = \"{content}\"\n"));
        }
        Some(text.into_bytes())
    }

    fn merged(base: Option<Vec<u8>>, ours: Option<Vec<u8>>, theirs: Option<Vec<u8>>, settle: &Settle) -> MergePlan {
        let file = ThreeVersions {
            path: PATH.into(),
            base,
            ours,
            theirs,
        };
        plan_merge(vec![file], settle, &LanguageCode::parse("en").unwrap())
    }

    fn written_fr(plan: &MergePlan) -> Option<String> {
        plan.edits.iter().find_map(|edit| match edit {
            TreeEdit::Write { contents, .. } => files::read_key(contents)
                .ok()?
                .translations
                .get(&LanguageCode::parse("fr").unwrap())
                .map(|text| text.to_owned().as_plain().unwrap_or_default().to_owned()),
            _ => None,
        })
    }

    #[test]
    fn languages_changed_on_different_sides_merge_and_the_same_change_is_no_conflict() {
        let base = key_file(&[("en", "Home"), ("fr", "Accueil")]);
        let ours = key_file(&[("en", "Start"), ("fr", "Accueil")]);
        let theirs = key_file(&[("en", "Home"), ("fr", "Maison")]);
        let plan = merged(base.clone(), ours, theirs, &Settle::default());
        assert!(plan.conflicts.is_empty());
        assert_eq!(plan.keys, [(KeyName::parse("title").unwrap(), KeyMerge::Updated)]);
        assert_eq!(written_fr(&plan).as_deref(), Some("Maison"));

        let same = key_file(&[("en", "Home"), ("fr", "Maison")]);
        let plan = merged(base, same.clone(), same, &Settle::default());
        assert!(plan.conflicts.is_empty() && plan.edits.is_empty());
    }

    #[test]
    fn one_text_changed_differently_is_a_conflict_until_settled() {
        let base = key_file(&[("fr", "Accueil")]);
        let ours = key_file(&[("fr", "Page")]);
        let theirs = key_file(&[("fr", "Maison")]);
        let plan = merged(base.clone(), ours.clone(), theirs.clone(), &Settle::default());
        assert_eq!(plan.conflicts.len(), 1);
        let conflict = &plan.conflicts[0];
        assert_eq!(
            (&conflict.base, &conflict.ours, &conflict.theirs),
            (
                &Some(Text::from("Accueil")),
                &Some(Text::from("Page")),
                &Some(Text::from("Maison"))
            )
        );
        assert!(plan.edits.is_empty());

        let theirs_win = Settle {
            strategy: Some(MergeStrategy::Theirs),
            resolutions: Vec::new(),
        };
        let plan = merged(base.clone(), ours.clone(), theirs.clone(), &theirs_win);
        assert_eq!(written_fr(&plan).as_deref(), Some("Maison"));
        let resolved = Settle {
            strategy: None,
            resolutions: vec![Resolution {
                key: KeyName::parse("title").unwrap(),
                language: LanguageCode::parse("fr").unwrap(),
                content: Some("Les deux".into()),
            }],
        };
        let plan = merged(base, ours, theirs, &resolved);
        assert_eq!(written_fr(&plan).as_deref(), Some("Les deux"));
    }

    #[test]
    fn a_deletion_against_a_change_is_a_conflict_and_a_plain_deletion_merges() {
        let base = key_file(&[("fr", "Accueil")]);
        let changed = key_file(&[("fr", "Maison")]);
        let plan = merged(base.clone(), None, changed, &Settle::default());
        assert_eq!(plan.conflicts.len(), 1);
        assert_eq!(plan.conflicts[0].ours, None);
        let plan = merged(base.clone(), base, None, &Settle::default());
        assert_eq!(plan.edits, [TreeEdit::Remove { path: PATH.into() }]);
        assert_eq!(plan.keys, [(KeyName::parse("title").unwrap(), KeyMerge::Deleted)]);
    }

    fn project_file(name: &str, base: &str, languages: &[&str]) -> Option<Vec<u8>> {
        let project = Project {
            name: ProjectName::parse("mobile").unwrap(),
            display_name: name.into(),
            description: String::new(),
            base_language: LanguageCode::parse(base).unwrap(),
            languages: languages
                .iter()
                .map(|code| LanguageCode::parse(code).unwrap())
                .collect(),
            placeholder_format: None,
        };
        Some(files::write_project(&project))
    }

    fn merged_settings(
        ours: Option<Vec<u8>>,
        theirs: Option<Vec<u8>>,
        settle: &Settle,
    ) -> (MergePlan, Option<Project>) {
        let file = ThreeVersions {
            path: crate::store::layout::PROJECT_FILE.into(),
            base: project_file("Mobile", "en", &["en", "fr"]),
            ours,
            theirs,
        };
        let plan = plan_merge(vec![file], settle, &LanguageCode::parse("en").unwrap());
        let written = plan.edits.iter().find_map(|edit| match edit {
            TreeEdit::Write { contents, .. } => {
                files::read_project(ProjectName::parse("mobile").unwrap(), contents).ok()
            }
            _ => None,
        });
        (plan, written)
    }

    fn codes(project: &Project) -> Vec<&str> {
        project.languages.iter().map(LanguageCode::as_str).collect()
    }

    #[test]
    fn project_settings_merge_field_by_field_and_languages_as_a_set() {
        // The target added German, the branch Japanese and renamed the project.
        let (plan, written) = merged_settings(
            project_file("Mobile", "en", &["en", "fr", "de"]),
            project_file("Mobile app", "en", &["en", "fr", "ja"]),
            &Settle::default(),
        );
        assert!(plan.settings.is_empty(), "{:?}", plan.settings);
        let written = written.expect("the merged settings are written");
        assert_eq!(codes(&written), ["en", "fr", "de", "ja"]);
        assert_eq!(written.display_name, "Mobile app");

        // The branch removed French; the target left the languages alone.
        let (_, written) = merged_settings(
            project_file("Mobile", "en", &["en", "fr"]),
            project_file("Mobile", "en", &["en"]),
            &Settle::default(),
        );
        assert_eq!(codes(&written.unwrap()), ["en"]);

        // Only the target changed: nothing to write.
        let (plan, written) = merged_settings(
            project_file("Mobile app", "en", &["en", "fr"]),
            project_file("Mobile", "en", &["en", "fr"]),
            &Settle::default(),
        );
        assert!(written.is_none() && plan.settings.is_empty());
    }

    #[test]
    fn a_setting_changed_differently_on_both_sides_is_a_conflict_only_a_strategy_settles() {
        let ours = || project_file("Mobile", "fr", &["en", "fr"]);
        let theirs = || project_file("Phone", "en", &["en"]);
        let (plan, written) = merged_settings(ours(), theirs(), &Settle::default());
        assert!(written.is_none());
        let fields: Vec<&str> = plan.settings.iter().map(|conflict| conflict.field).collect();
        // The branch removed French, which the target made the base language.
        assert_eq!(fields, ["languagesISO"], "{:?}", plan.settings);

        let ours = || project_file("Mobile app", "en", &["en", "fr"]);
        let (plan, _) = merged_settings(ours(), theirs(), &Settle::default());
        assert_eq!(
            plan.settings,
            [SettingConflict {
                field: "displayName",
                base: "Mobile".into(),
                ours: "Mobile app".into(),
                theirs: "Phone".into(),
            }]
        );
        let theirs_wins = Settle {
            strategy: Some(MergeStrategy::Theirs),
            resolutions: Vec::new(),
        };
        let (plan, written) = merged_settings(ours(), theirs(), &theirs_wins);
        assert!(plan.settings.is_empty());
        let written = written.unwrap();
        assert_eq!((written.display_name.as_str(), codes(&written)), ("Phone", vec!["en"]));
    }
}
