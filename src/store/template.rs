//! The files of a new data repository, carried inside the binary so that `locstore serve`
//! starts from any working directory.

/// `repo-template/`, file by file; a test checks that this list and the folder agree.
pub const FILES: &[(&str, &[u8])] = &[
    (".gitattributes", include_bytes!("../../repo-template/.gitattributes")),
    ("README.md", include_bytes!("../../repo-template/README.md")),
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_list_matches_the_template_folder() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("repo-template");
        let mut on_disk: Vec<String> = walkdir::WalkDir::new(&folder)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| {
                entry
                    .path()
                    .strip_prefix(&folder)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = super::FILES.iter().map(|(path, _)| path.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }
}
