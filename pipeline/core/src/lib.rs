//! kcurate-core: the vocabulary every other crate shares.
//!
//! - [`Record`]: one document, sentence, pair or example flowing through the stages.
//! - [`Decision`]: why an item was dropped, edited or flagged (`{item, stage, rule, action, detail, score, span}`).
//! - [`Stage`] / [`CorpusStage`] and [`Out`]: the stage contract; the runner keeps the books.
//! - [`recipe`]: the release recipe (`configs/*.toml`) with file/line-accurate errors.
//! - [`ingest`]: streaming readers for JSONL, TSV/CSV, plain text and JSON arrays.
//! - [`lines`]: the bounded line reader under every line-shaped input (ingest, annotations).
//! - [`jsonl`]: the reader of JSONL side inputs (values with line numbers, file:line errors, gzip).
//! - [`license`]: the licence gate.
//! - [`hash`]: sha256 and stable ids.
//! - [`bounded`]: the opener of files read from a release or a recipe (regular files only,
//!   sizes checked before reading).
//! - [`spill_crypt`]: the encryption of what a run spills to disk (pre-`pii` records, ids).
//! - [`text`]: the multiset overlap of sorted lists and markup escaping.
//! - [`alloc`]: the memory allocator of the binaries (and benchmarks), via [`global_allocator!`].

pub mod alloc;
pub mod bounded;
pub mod date;
pub mod decision;
pub mod hash;
pub mod ingest;
pub mod jsonl;
pub mod license;
pub mod lines;
pub mod recipe;
pub mod record;
pub mod rules;
pub mod spill_crypt;
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
