//! The text stages, one file each, each exporting one `ENTRY`. The one list of every stage
//! a recipe can name is the binary's `STAGES` table (`pipeline/cli/src/stages.rs`).
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
