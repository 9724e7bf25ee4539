//! kcurate-text: Unicode normalisation, noise rules, the Korean sentence splitter,
//! sentence filters and dedup.
//!
//! - [`ssplit`]: the KSS-style splitter ([`ssplit::split_sentences`]) and
//!   [`split_jsonl`] behind `kcurate text split`.
pub mod split_jsonl;
pub mod ssplit;

pub use split_jsonl::{BadLine, SplitIoError, SplitReport, split_jsonl};
pub use ssplit::{split_sentences, split_str};
