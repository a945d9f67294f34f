//! Where a key lives in an app's own files, per platform family: the Android resource file
//! in `values*/`, the Apple strings table, the web namespace. Uploads set it from where they
//! found the key; exports and `locstore pull` write the key back there.

use std::fmt;

use super::names::NameError;

/// A platform family whose apps spread their texts over several files of a language folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    Android,
    Apple,
    Web,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Android, Platform::Apple, Platform::Web];

    pub fn name(self) -> &'static str {
        match self {
            Platform::Android => "android",
            Platform::Apple => "apple",
            Platform::Web => "web",
        }
    }

    /// The file a key without an entry goes to: Android `strings.xml`, Apple `Localizable`;
    /// the web has none (the language's one file).
    pub fn default_file(self) -> Option<&'static str> {
        match self {
            Platform::Android => Some("strings.xml"),
            Platform::Apple => Some("Localizable"),
            Platform::Web => None,
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A key's file per platform family; a family without an entry uses its default file.
///
/// Invariant: every name is a [`FileName`]'s rules: one path component, relative to a
/// language's folder, that cannot climb out of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyFiles {
    pub android: Option<String>,
    pub apple: Option<String>,
    pub web: Option<String>,
}

impl KeyFiles {
    pub fn is_empty(&self) -> bool {
        self.android.is_none() && self.apple.is_none() && self.web.is_none()
    }

    pub fn get(&self, platform: Platform) -> Option<&str> {
        match platform {
            Platform::Android => self.android.as_deref(),
            Platform::Apple => self.apple.as_deref(),
            Platform::Web => self.web.as_deref(),
        }
    }

    /// The key's file for `platform`, or the family's default.
    pub fn file_or_default(&self, platform: Platform) -> Option<&str> {
        self.get(platform).or(platform.default_file())
    }

    pub fn set(&mut self, platform: Platform, file: Option<String>) {
        let slot = match platform {
            Platform::Android => &mut self.android,
            Platform::Apple => &mut self.apple,
            Platform::Web => &mut self.web,
        };
        *slot = file;
    }

    /// The entries present, in [`Platform::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Platform, &str)> {
        Platform::ALL
            .into_iter()
            .filter_map(|platform| self.get(platform).map(|file| (platform, file)))
    }
}

/// A validated file entry of [`KeyFiles`].
pub struct FileName;

impl FileName {
    /// Longest file entry, in characters.
    pub const MAX_CHARS: usize = 100;

    /// Checks a file entry of `platform`: a single path component (no `/` or `\`, not `.` or
    /// `..`, no leading dot), no control characters; Android's must end in `.xml`, Apple's
    /// and the web's are names without their extension.
    pub fn parse(platform: Platform, raw: &str) -> Result<String, NameError> {
        let refuse = |why: &str| {
            Err(NameError(format!(
                "files.{platform} {raw:?} {why}; give a file name relative to a language's folder, such as {}.",
                match platform {
                    Platform::Android => "\"plurals.xml\"",
                    Platform::Apple => "\"InfoPlist\"",
                    Platform::Web => "\"common\"",
                }
            )))
        };
        if raw.is_empty() {
            return refuse("is empty");
        }
        if raw.chars().count() > Self::MAX_CHARS {
            return refuse(&format!("is longer than {} characters", Self::MAX_CHARS));
        }
        if raw.contains(['/', '\\']) || raw.starts_with('.') {
            return refuse("is not a single file name (it has a slash or starts with a dot)");
        }
        if raw.chars().any(char::is_control) || raw.contains([':', '*', '?', '"', '<', '>', '|']) {
            return refuse("holds a character that file names cannot have");
        }
        match platform {
            Platform::Android if !raw.ends_with(".xml") || raw.len() == 4 => refuse("is not an .xml file name"),
            Platform::Apple if raw.ends_with(".strings") || raw.ends_with(".stringsdict") => {
                refuse("names the table with its extension")
            }
            Platform::Web if raw.ends_with(".json") => refuse("names the namespace with its extension"),
            _ => Ok(raw.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_entries_are_single_names_of_their_family() {
        assert_eq!(
            FileName::parse(Platform::Android, "plurals.xml").unwrap(),
            "plurals.xml"
        );
        assert_eq!(FileName::parse(Platform::Apple, "InfoPlist").unwrap(), "InfoPlist");
        assert_eq!(FileName::parse(Platform::Web, "common").unwrap(), "common");
        for (platform, hostile) in [
            (Platform::Android, "../strings.xml"),
            (Platform::Android, "strings"),
            (Platform::Android, ".xml"),
            (Platform::Android, "a/b.xml"),
            (Platform::Apple, ".."),
            (Platform::Apple, "Localizable.strings"),
            (Platform::Apple, "a\\b"),
            (Platform::Web, "common.json"),
            (Platform::Web, ""),
            (Platform::Web, "a\nb"),
        ] {
            assert!(FileName::parse(platform, hostile).is_err(), "{platform} {hostile:?}");
        }
    }

    #[test]
    fn a_family_without_an_entry_uses_its_default_file() {
        let mut files = KeyFiles::default();
        assert_eq!(files.file_or_default(Platform::Android), Some("strings.xml"));
        assert_eq!(files.file_or_default(Platform::Apple), Some("Localizable"));
        assert_eq!(files.file_or_default(Platform::Web), None);
        files.set(Platform::Android, Some("plurals.xml".into()));
        assert_eq!(files.file_or_default(Platform::Android), Some("plurals.xml"));
        assert_eq!(files.iter().collect::<Vec<_>>(), [(Platform::Android, "plurals.xml")]);
    }
}
