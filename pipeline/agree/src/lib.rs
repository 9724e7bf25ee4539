//! kcurate-agree: agreement statistics and label aggregation for crowd annotations, as
//! KLUE, JGLUE and KoBEST used them to accept or reject labels.
//!
//! - [`label::Label`] and [`label::Matrix`]: ratings, annotators × items, `None` = missing
//!   (small inputs and the reference vectors).
//! - [`table::Table`]: the same ratings held sparse (per item its (annotator, value) list),
//!   what [`io::read_table`] streams a file into and [`report`] computes on, in time and
//!   memory linear in the number of annotations.
//! - [`alpha`]: Krippendorff's α at the nominal, ordinal, interval and ratio levels, with a
//!   seeded bootstrap interval.
//! - [`kappa`]: Fleiss' κ (equal or unequal raters) and Cohen's κ (unweighted, linear,
//!   quadratic).
//! - [`reliability`]: per-annotator Pearson r, α against the others, leave-one-out α, and
//!   KLUE STS's drop rule.
//! - [`aggregate`]: k-of-n majority with an explicit no-gold outcome, mean scores with
//!   Python-style rounding, outlier and variance filters, NLI validation statistics.
//! - [`dawid_skene`]: Dawid–Skene EM (full confusion matrices) and its one-coin variant.
//! - [`aggregators`]: crowd-kit's Wawa, Zero-Based Skill, MACE, GLAD and M-MSR, label for label.
//!
//! - [`io`]: the annotation readers (long and wide TSV/CSV/JSONL, Label Studio exports)
//!   that turn rows into annotations or a table, bad rows into decisions.
//! - [`batch`]: annotation batches (TSV templates, Label Studio tasks and configs).
//! - [`report`]: what `kcurate agree` prints and aggregates; [`simulate`]: seeded
//!   annotators for runs without people.
//! - [`plan`]: how many items the next round needs (`kcurate agree plan`), by simulating
//!   studies from a Dawid–Skene fit of a pilot.
//!
//! A coefficient that is 0/0 is `None` ("undefined"), never 1 and never 0.

pub mod aggregate;
pub mod aggregators;
pub mod alpha;
pub mod batch;
pub mod dawid_skene;
pub mod io;
pub mod kappa;
pub mod label;
pub mod plan;
pub mod reliability;
pub mod report;
pub mod simulate;
pub mod table;

pub use label::{Label, Matrix};
pub use table::Table;
