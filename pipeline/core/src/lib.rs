//! kcurate-core: the vocabulary every other crate shares.
//!
//! - [`Record`]: one document, sentence, pair or example flowing through the stages.
//! - [`Decision`]: why an item was dropped, edited or flagged (`{item, stage, rule, action, detail, score, span}`).
//! - [`Stage`] / [`CorpusStage`] and [`Out`]: the stage contract; the runner keeps the books.
//! - [`recipe`]: the release recipe (`configs/*.toml`) with file/line-accurate errors.
//! - [`lines`]: the bounded line reader under every line-shaped input (kcurate-io's readers,
//!   annotations).
//! - [`jsonl`]: the reader of JSONL side inputs (values with line numbers, file:line errors;
//!   gzip and zstd through [`open`], the opener the binary installs).
//! - [`json_scan`]: the string-skipping bracket scan over JSON text (readers of JSON arrays and
//!   Label Studio exports).
//! - [`names`]: the names source files go by in a release (no absolute path, no personal data).
//! - [`license`]: the licence gate.
//! - [`hash`]: sha256 and stable ids.
//! - [`bounded`]: the opener of files read from a release or a recipe (regular files only,
//!   sizes checked before reading).
//! - [`text`]: the multiset overlap of sorted lists and markup escaping.
//!
//! The source readers and the spill encryption are kcurate-io's; the memory allocator is the
//! binary's.

pub mod bounded;
pub mod date;
pub mod decision;
pub mod hash;
pub mod json_scan;
pub mod jsonl;
pub mod license;
pub mod lines;
pub mod names;
pub mod open;
pub mod recipe;
pub mod record;
pub mod rules;
pub mod stage;
pub mod text;

pub use decision::{Action, Decision, RuleId, Span};

/// Where the real corpora and reference outputs live for the tests and benchmarks over them
/// (`make test-shared`, `make bench`): `$KCURATE_SHARED`, else `../shared` beside the
/// checkout. A user's fresh clone has none; nothing in `make test` needs it.
pub fn shared_dir() -> std::path::PathBuf {
    std::env::var("KCURATE_SHARED")
        .map(Into::into)
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared").into())
}
pub use record::{Kind, Origin, Record};
pub use stage::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, KeyedStage, OnlineStage, Out, SourceInfo, Stage,
    StageEntry, StageStats, parse_settings,
};
