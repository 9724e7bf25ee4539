//! The names a source's files go by in a release: in records' `origin`, in decisions and in
//! the manifest's inputs. A release is published, so a name carries neither the build
//! machine's directories nor personal data that a file name may hold (a directory of
//! exports named after their authors, `010-1234-5678 hong@example.com.jsonl`):
//!
//! - a file of a relative source path goes by that path (`../data-samples/reviews/1.json`);
//! - a file of an absolute source path goes by the source id and its path below the
//!   source (`nsmc/ratings.txt`);
//! - a file whose name holds personal data (as the check the binary installs with
//!   [`set_personal_check`] finds it: kcurate's PII detector) goes by the source id and its
//!   1-based place in the source's sorted listing (`reviews/#3`).
//!
//! Core cannot depend on the PII crate (the crate map runs the other way), so the binary
//! installs the detector once at start; without it (a library's tests) only the absolute
//! rule applies.

use crate::recipe::SourceConfig;
use std::path::Path;
use std::sync::OnceLock;

/// Whether a name holds personal data.
pub type PersonalCheck = fn(&str) -> bool;

static PERSONAL: OnceLock<PersonalCheck> = OnceLock::new();

/// Installs the check that finds personal data in file names (the binary calls it once,
/// with the PII detector); a second call is ignored.
pub fn set_personal_check(check: PersonalCheck) {
    let _ = PERSONAL.set(check);
}

/// Whether `name` holds personal data by the installed check (`false` with none).
pub fn holds_personal_data(name: &str) -> bool {
    PERSONAL.get().is_some_and(|check| check(name))
}

/// The release name of the `index`-th (0-based) file of `src`'s listing, `shown` being its
/// path as the recipe gives it (the source path, or the source path and the file's name
/// below it).
pub fn release_name(src: &SourceConfig, index: usize, shown: &str) -> String {
    let base = src.path.trim_end_matches('/');
    let below = shown
        .strip_prefix(base)
        .map(|r| r.trim_start_matches('/'))
        .filter(|r| !r.is_empty());
    // The source path is the recipe author's; what a listing adds below it is not.
    let personal = match below {
        Some(r) => holds_personal_data(r),
        None => Path::new(base)
            .file_name()
            .is_some_and(|n| holds_personal_data(&n.to_string_lossy())),
    };
    if personal {
        return format!("{}/#{}", src.id, index + 1);
    }
    if !Path::new(&src.path).is_absolute() {
        return shown.to_string();
    }
    let name = match below {
        Some(r) => r.to_string(),
        None => Path::new(base)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    format!("{}/{name}", src.id)
}

/// The name of a source as a whole (a refused source's decision): its path when relative
/// and free of personal data, else the source id.
pub fn source_name(src: &SourceConfig) -> String {
    if Path::new(&src.path).is_absolute() || holds_personal_data(&src.path) {
        src.id.clone()
    } else {
        src.path.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &str) -> SourceConfig {
        let mut src: SourceConfig = toml::from_str(
            "id = \"nsmc\"\npath = \"x\"\nformat = \"tsv\"\ndomain = \"x\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        src.path = path.into();
        src
    }

    #[test]
    fn absolute_source_paths_become_the_source_id_and_the_path_below() {
        let src = source("/home/u/data/ratings.txt");
        assert_eq!(release_name(&src, 0, &src.path), "nsmc/ratings.txt");
        let src = source("/home/u/data/");
        assert_eq!(
            release_name(&src, 4, "/home/u/data/a/b.json"),
            "nsmc/a/b.json"
        );
        assert_eq!(source_name(&src), "nsmc");
        let src = source("data-samples/reviews");
        assert_eq!(
            release_name(&src, 0, "data-samples/reviews/1.json"),
            "data-samples/reviews/1.json"
        );
        assert_eq!(source_name(&src), "data-samples/reviews");
    }

    #[test]
    fn a_name_holding_personal_data_becomes_its_place_in_the_listing() {
        set_personal_check(|n| n.contains('@'));
        let src = source("exports");
        assert_eq!(
            release_name(&src, 2, "exports/hong@example.com.jsonl"),
            "nsmc/#3"
        );
        assert_eq!(release_name(&src, 0, "exports/a.jsonl"), "exports/a.jsonl");
        let src = source("/home/u/hong@example.com.jsonl");
        assert_eq!(release_name(&src, 0, &src.path), "nsmc/#1");
        assert_eq!(source_name(&src), "nsmc");
        let recorded = crate::recipe::Recipe::recorded_path;
        assert_eq!(
            recorded("/home/u/hong@example.com.toml", None),
            "recipe.toml"
        );
        assert_eq!(recorded("/home/u/r.toml", None), "r.toml");
    }
}
