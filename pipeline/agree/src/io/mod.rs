//! Annotation files: long TSV/CSV (a header naming `item` (or `task`), `annotator` (or
//! `worker`), `label` or `value`, optional `flags`), long JSONL
//! (`{"item","annotator","label"}`), wide TSV/CSV (`item` then one column per annotator),
//! and Label Studio exports (JSON, JSON-MIN, CSV; see [`label_studio`]).
//!
//! Every reader streams: rows go one at a time through a [`Collector`], which validates them
//! (empty fields, unknown items, blank or non-numeric values, the scale, duplicates) and
//! interns items, annotators and values, so memory grows with the number of annotations.
//! Bad rows become decisions naming file:line, never silent drops; cancelled Label Studio
//! annotations become `agree.cancelled` decisions in [`Annotations::skipped`] (not votes, not
//! errors).

mod collector;
mod delimited;
mod fast_long;
mod jsonl;
pub mod label_studio;
mod numbering;
mod pairs;
mod rows;

use crate::label::Label;
use crate::table::Table;
use kcurate_core::Decision;
use std::collections::BTreeSet;
use std::path::Path;

pub(crate) use collector::annotation_drop;
pub use collector::{Collector, parse_value};
use delimited::{
    csv_headers, csv_line, csv_next, csv_reader, read_delimited_long, read_delimited_wide,
};
use jsonl::{read_jsonl, scalar};
pub use label_studio::LabelStudio;
pub use rows::{export_label_studio, flag_decisions, to_matrix};

/// Every rule id this module writes, with its summary (listed by `kcurate rules`).
pub const RULES: &[(&str, &str)] = &[
    (
        "agree.bad_row",
        "an annotation row without item or annotator (file:line in the detail)",
    ),
    (
        "agree.out_of_scale",
        "an annotation value off the scale the stage expects",
    ),
    (
        "agree.duplicate",
        "a second annotation by the same annotator of the same item",
    ),
    (
        "agree.unknown_item",
        "an annotation of an item the batch did not contain",
    ),
    (
        "agree.no_label",
        "an annotation without a value: a blank cell, or a Label Studio annotation with no choice for the control (file:line:field)",
    ),
    (
        "agree.multiple_choices",
        "a Label Studio annotation with more than one choice (or result) for the control",
    ),
    (
        "agree.not_a_number",
        "a value that is not a finite number where numbers are aggregated (four, NaN, inf, 1e400; file:line:field)",
    ),
    (
        "agree.cancelled",
        "a cancelled (skipped) Label Studio annotation: not a vote",
    ),
    (
        "agree.too_many_annotators",
        "an annotation of an item that already has the most annotators allowed (limits.max_annotators_per_item, `agree --max-annotators-per-item`; file:line)",
    ),
    (
        "agree.over_limit",
        "an annotation line longer than limits.max_line_bytes (`agree --max-line-bytes`), or a Label Studio JSON task longer than limits.max_record_bytes (`agree --max-record-bytes`) or nested deeper than limits.max_depth: skipped to its end, not read (file:line)",
    ),
    (
        "agree.bad_task",
        "a Label Studio task whose `annotations` (or an annotation's `result`) is not a list, or an annotation that is not an object: no vote read from it (file:line, task number)",
    ),
    (
        "agree.flag_<flag>",
        "an item an annotator flagged (pii, toxic, unsure, ...)",
    ),
];

/// One annotation row as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The item's id.
    pub item: String,
    /// The annotator's id.
    pub annotator: String,
    /// The label given.
    pub value: Label,
    /// pii, toxic, bias, unsure, ...
    pub flags: Vec<String>,
}

/// What values are acceptable.
#[derive(Debug, Clone, Default)]
pub enum Scale {
    /// Any value.
    #[default]
    Any,
    /// Numbers in [min, max].
    Range(f64, f64),
    /// One of these labels.
    Labels(Vec<String>),
}

impl Scale {
    fn check(&self, v: &Label) -> Result<(), OutOfScale> {
        match (self, v) {
            (Scale::Any, _) => Ok(()),
            (Scale::Range(lo, hi), Label::Num(x)) if x >= lo && x <= hi => Ok(()),
            (Scale::Range(lo, hi), _) => Err(OutOfScale::Range {
                value: v.to_string(),
                lo: *lo,
                hi: *hi,
            }),
            (Scale::Labels(ls), Label::Text(s)) if ls.contains(s) => Ok(()),
            (Scale::Labels(ls), _) => Err(OutOfScale::Labels {
                value: v.to_string(),
                labels: ls.join(", "),
            }),
        }
    }
}

/// A value the [`Scale`] does not accept (the reason of an `agree.out_of_scale` row).
#[derive(Debug, thiserror::Error)]
enum OutOfScale {
    /// A value outside a numeric range.
    #[error("value {value} outside the scale {lo}–{hi}")]
    Range { value: String, lo: f64, hi: f64 },
    /// A label not among the scale's.
    #[error("label {value} not one of {labels}")]
    Labels { value: String, labels: String },
}

/// The layout of an annotation file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One row per annotation: `item, annotator, value[, flags]` (TSV, CSV or JSONL).
    Long,
    /// One row per item, one column per annotator.
    Wide,
    /// A Label Studio export: JSON or JSON-MIN (`.json`), or CSV (`.csv`/`.tsv`).
    LabelStudio,
}

/// A format name that is not one of `long`, `wide`, `label-studio`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {0:?} (long, wide, label-studio)")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        match s {
            "long" => Ok(Format::Long),
            "wide" => Ok(Format::Wide),
            "label-studio" => Ok(Format::LabelStudio),
            _ => Err(UnknownFormat(s.to_string())),
        }
    }
}

/// What a value must be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Numbers {
    /// Numbers and texts alike.
    #[default]
    Any,
    /// A value that is not a finite number is a rejected row (`agree.not_a_number`).
    Reject,
    /// A value that is not a finite number is an error naming file:line:field (the interval
    /// and ratio levels of α are undefined on texts).
    Require,
}

/// How to read an annotation file.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions<'a> {
    /// Acceptable values; a value off the scale is a rejected row.
    pub scale: Scale,
    /// When given, a row naming another item is a rejected row (a release's item ids).
    pub known_items: Option<&'a BTreeSet<String>>,
    /// Whether values must be numbers.
    pub numbers: Numbers,
    /// Which control of a Label Studio export holds the votes.
    pub label_studio: LabelStudio,
    /// `max_line_bytes` (a longer line of a TSV/CSV/JSONL file is an `agree.over_limit`
    /// decision, skipped unread), `max_record_bytes` and `max_depth` (the same for a task of
    /// a Label Studio JSON export) and `max_annotators_per_item` (a further annotator's
    /// annotation of the item is an `agree.too_many_annotators` decision).
    pub limits: kcurate_core::recipe::Limits,
    /// Threads the long TSV/CSV reader may use (0: one per core; at 2 or more it reads the
    /// next block while the rows of the last are validated, and a large table's cells are
    /// put in order on that many). The result does not depend on it.
    pub threads: usize,
}

impl ReadOptions<'_> {
    /// [`ReadOptions::threads`], 0 resolved to the number of cores.
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }
}

/// Annotations read from a file, with the rows that were refused as decisions.
#[derive(Debug, Clone, Default)]
pub struct Annotations {
    /// The kept annotations, input order.
    pub rows: Vec<Annotation>,
    /// Rows that could not be used (quarantined input).
    pub rejected: Vec<Decision>,
    /// Annotations that are not votes by their author's choice (cancelled in Label Studio).
    pub skipped: Vec<Decision>,
}

/// Annotations read into the sparse table.
#[derive(Debug, Clone, Default)]
pub struct TableRead {
    /// The kept annotations.
    pub table: Table,
    /// Rows that could not be used (quarantined input), as [`Annotations::rejected`].
    pub rejected: Vec<Decision>,
    /// Annotations that are not votes, as [`Annotations::skipped`].
    pub skipped: Vec<Decision>,
}

/// An annotation file that cannot be read at all (a bad row is a decision instead).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file (`-` for stdin).
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file's layout is wrong (no header, no votes control, not JSON, over a limit).
    #[error("{path}:{line}: {message}")]
    Format {
        /// The file (`-` for stdin).
        path: String,
        /// 1-based line, 0 for the whole file.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A field holds a value the options forbid (e.g. a text where numbers are required).
    #[error("{path}:{line}:{field}: {message}")]
    Field {
        /// The file (`-` for stdin).
        path: String,
        /// 1-based line.
        line: u64,
        /// The column or JSON field.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Runs the reader `format` names over `path` into `c`.
pub fn read_into(path: &Path, format: Format, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let opts = c.opts;
    match format {
        Format::LabelStudio => label_studio::read(path, &opts.label_studio, c),
        _ if path.extension().is_some_and(|e| e == "jsonl") => read_jsonl(path, c),
        Format::Long => {
            // KCURATE_AGREE_PLAIN_READER=1 (hidden, for benchmarks): the plain reader only, to
            // time the fast path against it in one binary.
            let plain = std::env::var_os("KCURATE_AGREE_PLAIN_READER").is_some();
            if plain || !fast_long::read(path, c)? {
                read_delimited_long(path, c)?;
            }
            Ok(())
        }
        Format::Wide => read_delimited_wide(path, c),
    }
}

/// Reads annotations, validating each row: known item (when `known_items` is given), a
/// value on the scale, at most one annotation per annotator and item.
pub fn read(
    path: &Path,
    format: Format,
    scale: &Scale,
    known_items: Option<&BTreeSet<String>>,
) -> Result<Annotations, ReadError> {
    let opts = ReadOptions {
        scale: scale.clone(),
        known_items,
        ..Default::default()
    };
    read_with(path, format, &opts)
}

/// [`read`] with every option.
pub fn read_with(
    path: &Path,
    format: Format,
    opts: &ReadOptions<'_>,
) -> Result<Annotations, ReadError> {
    let mut c = Collector::new(path, opts);
    read_into(path, format, &mut c)?;
    Ok(c.into_annotations())
}

/// Reads annotations straight into the sparse item × annotator table.
pub fn read_table(
    path: &Path,
    format: Format,
    opts: &ReadOptions<'_>,
) -> Result<TableRead, ReadError> {
    read_table_named(path, &path.display().to_string(), format, opts)
}

/// [`read_table`] of the file at `path`, named `shown` in messages and decisions.
pub fn read_table_named(
    path: &Path,
    shown: &str,
    format: Format,
    opts: &ReadOptions<'_>,
) -> Result<TableRead, ReadError> {
    let mut c = Collector::new(path, opts).named(shown);
    read_into(path, format, &mut c)?;
    Ok(c.into_table())
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ReadError + '_ {
    move |e| ReadError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

pub(crate) fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>, ReadError> {
    let f = std::fs::File::open(path).map_err(io(path))?;
    Ok(std::io::BufReader::with_capacity(1 << 16, f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_rows_become_decisions_naming_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.tsv");
        std::fs::write(
            &p,
            "item\tannotator\tvalue\nx\ta\t3\nx\ta\t4\ny\tb\t9\nz\tc\t2\n",
        )
        .unwrap();
        let known: BTreeSet<String> = ["x", "y"].iter().map(|s| s.to_string()).collect();
        let a = read(&p, Format::Long, &Scale::Range(0.0, 5.0), Some(&known)).unwrap();
        assert_eq!(a.rows.len(), 1);
        let rules: Vec<&str> = a.rejected.iter().map(|d| d.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "agree.duplicate",
                "agree.out_of_scale",
                "agree.unknown_item"
            ]
        );
        assert!(
            a.rejected[0].detail.contains("a.tsv:3"),
            "{}",
            a.rejected[0].detail
        );
    }
}
