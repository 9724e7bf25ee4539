//! kcurate-release: runs a recipe and writes a release that verifies and rebuilds byte for
//! byte.
//!
//! - [`runner`]: builds the stages a recipe names, streams records through them (in
//!   parallel chunks whose results are merged in input order), keeps the books
//!   ([`kcurate_core::StageStats`]) and checks conservation.
//! - [`row`]: a record's release row, built as a JSON value (plain) and written directly
//!   (the fast path every row takes), held equal by its tests.
//! - [`writer`]: the release directory: splits as JSONL and Parquet, decisions, manifest,
//!   dataset card; written in a temporary directory and renamed into place.
//! - [`manifest`]: the manifest and the input checks of `rebuild`.
//! - [`verify`]: every field of a manifest checked against its release, or against the
//!   digest of its fields the writer records.
//! - [`card`]: the dataset card (Hugging Face front matter + datasheet).
//! - [`report`]: the self-contained `report.html` (with a few examples of what each rule
//!   touched).
//! - [`parts`]: the parts an engine leaves after running the per-record stages on
//!   partitions, read back in input order for `finalise`.
//! - [`precision`]: per-rule precision with Wilson intervals from curators' judgements.
//! - [`parquet_out`]: JSONL → Parquet through arrow, streaming (flat rows of strings take
//!   a one-pass decoder, `flat_json`, with arrow_json as its oracle and fallback).
//! - [`parquet_stream`]: a JSONL file's Parquet twin written alongside it, row groups
//!   encoded on the thread pool while the run goes on.

pub mod card;
mod flat_json;
pub mod manifest;
pub mod parquet_out;
pub mod parquet_stream;
pub mod parts;
pub mod precision;
pub mod report;
pub mod row;
pub mod runner;
pub mod split_facts;
pub mod verify;
pub mod writer;

pub use manifest::Manifest;
pub use runner::{RunError, RunOptions, finalise_recipe, run_recipe};
