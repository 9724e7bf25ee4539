//! kcurate-text: Unicode normalisation, noise rules, the Korean sentence splitter,
//! sentence filters and dedup (KLUE §2.3).
//!
//! - [`ssplit`]: the KSS-style splitter ([`split_sentences`]) and [`split_jsonl()`] behind
//!   `kcurate text split`.
//! - [`normalize`]: [`normalize::normalize`] with [`normalize::NormalizeOptions`].
//! - [`noise`]: [`noise::NoiseRules`], loaded from `rules/noise.toml`.
//! - [`gloss`]: CJK glosses in Korean text, which filter.cjk_over_10 does not count.
//! - [`short`]: [`short::ShortRules`], the short complete sentences filter.too_short_v2
//!   keeps (`rules/filter.toml`).
//! - [`dedup`]: [`dedup::Deduper`] (exact + MinHash/LSH) and [`dedup::contamination`].
//! - [`stages`]: the stages `normalize`, `noise`, `split`, `filter`, `dedup`, each with its
//!   `ENTRY` (listed once, in the binary's `STAGES` table).

pub mod dedup;
pub mod gloss;
pub mod noise;
pub mod normalize;
pub mod short;
pub mod split_jsonl;
pub mod ssplit;
pub mod stages;

pub use split_jsonl::{BadLine, SplitIoError, SplitReport, split_jsonl};
pub use ssplit::{split_sentences, split_str};
