//! An upload of several file sets in one zip (`locstore push` of an app with several modules,
//! bundles or platforms): `sets.json` says what each set is, and each set's files are under a
//! folder named by its place in that list.

use serde::Deserialize;

use crate::api::error::ApiError;
use crate::domain::key_files::{FileName, Platform};
use crate::domain::names::{Namespace, Tag};
use crate::formats::ExportFormat;
use crate::formats::upload::{self, Unzipped, Upload, UploadError};

/// The manifest's name in the zip.
pub const MANIFEST: &str = "sets.json";

/// One set of the upload, read.
pub struct SetUpload {
    pub upload: Upload,
    pub namespace: Namespace,
    pub tags: Vec<String>,
    /// The key file of the set's keys in a key space other sets share (a Rails locale
    /// file's family: `devise` for `devise.{lang}.yml`, `""` for `{lang}.yml`); `None`: the set
    /// does not share its key space this way (see [`super::plan::UploadPlan::new`]).
    pub file: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    sets: Vec<ManifestSet>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestSet {
    #[serde(rename = "type")]
    format: String,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    file: Option<String>,
}

/// Unpacks the zip and reads each set's files as an upload of its format; answers the sets,
/// and the paths of the zip that are in no set.
pub fn read(body: &[u8], max_unpacked: usize) -> Result<(Vec<SetUpload>, Vec<String>), ApiError> {
    let failed = |err: UploadError| match err {
        UploadError::Invalid(message) => ApiError::invalid(message),
        UploadError::TooLarge(message) => ApiError::payload_too_large(message),
    };
    let mut files = upload::unzip(body, max_unpacked).map_err(failed)?;
    let manifest_at = files
        .iter()
        .position(|(path, _)| path == MANIFEST)
        .ok_or_else(|| ApiError::invalid(format!("The zip has no {MANIFEST} saying what its file sets are.")))?;
    let (_, manifest) = files.swap_remove(manifest_at);
    let manifest: Manifest = serde_json::from_slice(&manifest)
        .map_err(|err| ApiError::invalid(format!("{MANIFEST} is not a list of file sets: {err}.")))?;
    let mut by_set: Vec<Vec<Unzipped>> = manifest.sets.iter().map(|_| Vec::new()).collect();
    let mut strays = Vec::new();
    for (path, bytes) in files {
        let place = path
            .split_once('/')
            .and_then(|(place, rest)| Some((place.parse::<usize>().ok()?, rest.to_owned())));
        match place {
            Some((place, rest)) if place < by_set.len() => by_set[place].push((rest, bytes)),
            _ => strays.push(path),
        }
    }
    let mut sets = Vec::with_capacity(by_set.len());
    for (place, (set, files)) in manifest.sets.into_iter().zip(by_set).enumerate() {
        let at = |message: String| ApiError::invalid(format!("{MANIFEST}: set {place}: {message}"));
        let format = ExportFormat::parse(&set.format).ok_or_else(|| {
            at(format!(
                "unknown type {:?} (one of {})",
                set.format,
                ExportFormat::NAMES
            ))
        })?;
        let namespace = Namespace::parse(set.namespace.as_deref().unwrap_or_default()).map_err(|err| at(err.0))?;
        let tags = set
            .tags
            .iter()
            .map(|tag| Tag::parse(tag).map(Tag::into_string).map_err(|err| at(err.0)))
            .collect::<Result<Vec<_>, _>>()?;
        let file = match set.file {
            Some(file) if !file.is_empty() => Some(FileName::parse(Platform::Web, &file).map_err(|err| at(err.0))?),
            other => other,
        };
        let upload = upload::read_unzipped(format, files).map_err(|err| match err {
            UploadError::Invalid(message) => ApiError::invalid(format!("set {place}: {message}")),
            UploadError::TooLarge(message) => ApiError::payload_too_large(message),
        })?;
        sets.push(SetUpload {
            upload,
            namespace,
            tags,
            file,
        });
    }
    Ok((sets, strays))
}
