//! The one warning shape of the API: what a write passed over or found wrong, the write being
//! made all the same.

use poem_openapi::Object;

use crate::domain::names::quote_for_message;

/// Something a write passed over or found wrong, the write being made all the same: an
/// upload's entry it could not take (`path`, `line`), or a failing check of a key written
/// (`check`, `severity`, and `form` for one plural form). One shape across the API.
#[derive(Debug, Clone, Object)]
pub struct WarningItem {
    /// What is wrong.
    pub message: String,
    /// The key's name.
    #[oai(skip_serializing_if_is_none)]
    pub key: Option<String>,
    /// The key's namespace, when it is not the default one.
    #[oai(skip_serializing_if_is_none)]
    pub namespace: Option<String>,
    /// The language of the text concerned.
    #[oai(skip_serializing_if_is_none)]
    pub language: Option<String>,
    /// An uploaded file, as in the upload's `files`.
    #[oai(skip_serializing_if_is_none)]
    pub path: Option<String>,
    /// The entry's line in that file (0 when unknown).
    #[oai(skip_serializing_if_is_none)]
    pub line: Option<u64>,
    /// The failing check: `placeholders`, `plural_forms`, `markup`, `max_length`,
    /// `whitespace`, `end_punctuation`, `same_as_base` or `empty_form`.
    #[oai(skip_serializing_if_is_none)]
    pub check: Option<String>,
    /// `error` or `warning`.
    #[oai(skip_serializing_if_is_none)]
    pub severity: Option<String>,
    /// The plural form concerned (`one`, `few`, ...).
    #[oai(skip_serializing_if_is_none)]
    pub form: Option<String>,
}

/// The most check warnings a write answers; a final warning says how many more there are.
pub const MOST_WARNINGS: usize = 1000;

impl WarningItem {
    /// A warning about the answer as a whole (how many more were left out), of no key.
    pub fn about_all(message: String) -> Self {
        Self {
            message,
            key: None,
            namespace: None,
            language: None,
            path: None,
            line: None,
            check: None,
            severity: None,
            form: None,
        }
    }

    /// The failing checks of a write as warnings, with a last one counting those left out.
    pub fn of_checks(failures: Vec<crate::store::quality::KeyFailure>, total: usize) -> Vec<Self> {
        let shown = failures.len();
        let mut warnings: Vec<Self> = failures
            .into_iter()
            .map(|found| Self {
                message: found.failure.message,
                key: Some(found.key.to_string()),
                namespace: Some(found.key.namespace().to_owned()).filter(|namespace| !namespace.is_empty()),
                language: Some(found.failure.language.to_string()),
                path: None,
                line: None,
                check: Some(found.failure.check.name().to_owned()),
                severity: Some(found.failure.severity.name().to_owned()),
                form: found.failure.form.map(|form| form.name().to_owned()),
            })
            .collect();
        if total > shown {
            warnings.push(Self::about_all(format!(
                "{} more failing checks are not listed here; GET .../checks lists them all.",
                total - shown
            )));
        }
        warnings
    }
}

/// Check names as sent (`ignoreChecks`, `check=`), checked; `parameter` names the field in the
/// error.
pub fn parse_checks(parameter: &str, names: &[String]) -> Result<Vec<crate::domain::model::Check>, String> {
    names
        .iter()
        .map(|name| {
            crate::domain::model::Check::parse(name).ok_or_else(|| {
                format!(
                    "{parameter}: there is no check {}; the checks are {}.",
                    quote_for_message(name),
                    crate::domain::model::Check::NAMES
                )
            })
        })
        .collect()
}
