//! kcurate-core: the vocabulary every other crate shares.
//!
//! - [`Record`]: one document, sentence, pair or example flowing through the stages.
//! - [`Decision`]: why an item was dropped, edited or flagged (`{item, stage, rule, action, detail, score, span}`).
//! - [`Stage`] / [`CorpusStage`] and [`Out`]: the stage contract; the runner keeps the books.
//! - [`recipe`]: the release recipe (`configs/*.toml`) with file/line-accurate errors.
//! - [`ingest`]: streaming readers for JSONL, TSV/CSV, plain text and JSON arrays.
//! - [`license`]: the licence gate.
//! - [`hash`]: sha256 and stable ids.

pub mod decision;
pub mod hash;
pub mod ingest;
pub mod license;
pub mod recipe;
pub mod record;
pub mod rules;
pub mod stage;

pub use decision::{Action, Decision, RuleId, Span};
pub use record::{Kind, Origin, Record};
pub use stage::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, SourceInfo, Stage, StageEntry, StageStats,
    parse_settings,
};
