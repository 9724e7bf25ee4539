//! The text stages, one file each, each with its `ENTRY` for the binary's `STAGES` table.
//!
//! | stage | kind | rules |
//! | --- | --- | --- |
//! | [`normalize`] | record | `normalize.*` edits |
//! | [`noise`] | record | `rules/noise.toml` edits and drops |
//! | [`split`] | record (document → sentences) | `split.empty` |
//! | [`filter`] | record | `filter.cjk_over_10`, `filter.too_short_v2` (`filter.too_short`), `filter.too_long`, `filter.hangul_share_v2` (`filter.hangul_share`), `filter.repeat_run_cap` (`filter.repeat_run`) |
//! | [`dedup`] | corpus | `dedup.exact`, `dedup.near` |
//! | [`assign_split`] | corpus | `split.contamination_exact`, `split.contamination_near` |

pub mod assign_split;
pub mod dedup;
pub mod filter;
pub mod noise;
pub mod normalize;
pub mod split;

/// Every stage of this crate, in pipeline order.
pub const ENTRIES: &[&kcurate_core::StageEntry] = &[
    &normalize::ENTRY,
    &noise::ENTRY,
    &split::ENTRY,
    &filter::ENTRY,
    &dedup::ENTRY,
    &assign_split::ENTRY,
];
