//! The near-duplicate settings `dedup` and `assign_split` share (`near` and the MinHash
//! ones, `NearConfig::for_stage`): both stages read them from their recipe table alike,
//! with the same defaults and the same error messages.

use kcurate_core::{BuildCtx, StageEntry};
use kcurate_text::stages::{assign_split, dedup};

/// The build error for `settings` (a TOML table), or `ok`.
fn build(entry: &StageEntry, settings: &str) -> String {
    let table: toml::Table = toml::from_str(settings).expect("a TOML table");
    match (entry.build)(&table, &mut BuildCtx::default()) {
        Ok(_) => "ok".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn both_stages_read_and_check_the_near_settings_alike() {
    for (settings, want) in [
        ("", "ok"),
        ("near = false\nthreshold = 0.5", "ok"),
        ("ngram = 3\nnum_perm = 32\nbands = 8\nmin_chars = 4", "ok"),
        ("ngram = 0", "near: ngram must be from 1 to 64 (got 0)"),
        (
            "num_perm = 64\nbands = 3",
            "near: num_perm (64) must be a positive multiple of bands (3)",
        ),
        (
            "bands = 65\nnum_perm = 130",
            "near: num_perm (130) must be a positive multiple of bands (65)",
        ),
        ("threshold = 1.5", "near: threshold 1.5 is not in 0..1"),
        // Checked even when near dedup is off.
        (
            "near = false\nthreshold = -1.0",
            "near: threshold -1 is not in 0..1",
        ),
    ] {
        for entry in [&dedup::ENTRY, &assign_split::ENTRY] {
            assert_eq!(build(entry, settings), want, "{}: {settings:?}", entry.name);
        }
    }
}

/// Errors serde reports: an unknown key; a wrong type, of `near` (a field of the stage's
/// config: the message names it) and of a MinHash setting (flattened: it does not).
#[test]
fn setting_errors_are_serde_s() {
    for (settings, want) in [
        ("nearr = true", "settings: unknown field `nearr`"),
        (
            "near = \"yes\"",
            "settings: invalid type: string \"yes\", expected a boolean\nin `near`",
        ),
        (
            "ngram = \"5\"",
            "settings: invalid type: string \"5\", expected usize",
        ),
        (
            "threshold = \"x\"",
            "settings: invalid type: string \"x\", expected f64",
        ),
    ] {
        for entry in [&dedup::ENTRY, &assign_split::ENTRY] {
            assert_eq!(build(entry, settings), want, "{}: {settings:?}", entry.name);
        }
    }
}

/// Each stage's own settings stay its own.
#[test]
fn own_settings_stay_with_their_stage() {
    assert_eq!(build(&dedup::ENTRY, "exact = false"), "ok");
    assert_eq!(build(&assign_split::ENTRY, "fix = \"drop\""), "ok");
    assert_eq!(
        build(&dedup::ENTRY, "fix = \"drop\""),
        "settings: unknown field `fix`"
    );
    assert_eq!(
        build(&assign_split::ENTRY, "exact = false"),
        "settings: unknown field `exact`"
    );
    assert_eq!(
        build(&assign_split::ENTRY, "fix = \"x\""),
        "settings: unknown variant `x`, expected `move` or `drop`\nin `fix`"
    );
}
