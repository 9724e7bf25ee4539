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

mod fast_long;
pub mod label_studio;

use crate::label::{Label, Matrix};
use crate::table::Table;
use kcurate_core::lines::BoundedLines;
use kcurate_core::{Action, Decision, RuleId};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::hash::BuildHasher;
use std::path::Path;

pub use label_studio::LabelStudio;

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
    fn check(&self, v: &Label) -> Result<(), String> {
        match (self, v) {
            (Scale::Any, _) => Ok(()),
            (Scale::Range(lo, hi), Label::Num(x)) if x >= lo && x <= hi => Ok(()),
            (Scale::Range(lo, hi), _) => Err(format!("value {v} outside the scale {lo}–{hi}")),
            (Scale::Labels(ls), Label::Text(s)) if ls.contains(s) => Ok(()),
            (Scale::Labels(ls), _) => Err(format!("label {v} not one of {}", ls.join(", "))),
        }
    }
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

fn decision(path: &str, line: u64, item: &str, rule: &str, detail: String) -> Decision {
    annotation_drop(
        item.to_string(),
        RuleId::new(rule),
        format!("{path}:{line}: {detail}"),
        format!("{path}:{line}"),
    )
}

/// A drop decision of the `agree` stage on annotation input (a row, an item or an
/// annotator): the one shape every agreement decision has.
pub(crate) fn annotation_drop(
    item: String,
    rule: RuleId,
    detail: String,
    origin: String,
) -> Decision {
    Decision {
        item,
        stage: "agree".into(),
        rule,
        action: Action::Drop,
        detail,
        score: None,
        span: None,
        text: None,
        source: "annotations".into(),
        origin,
    }
}

/// Parses a cell: a finite number when it reads as one, else text (so `NaN`, `inf` and
/// `1e400` are texts).
pub fn parse_value(s: &str) -> Label {
    let t = s.trim();
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map_or_else(|| Label::Text(t.to_string()), Label::Num)
}

/// Validates rows as a reader yields them and interns what it keeps.
pub struct Collector<'o> {
    path: String,
    opts: &'o ReadOptions<'o>,
    items: Interner,
    annotators: Interner,
    value_ids: BTreeMap<Label, u32>,
    values: Vec<Label>,
    /// Each accepted value as written (before trimming and parsing) with its id.
    raw_values: hashbrown::HashMap<String, u32>,
    /// (item << 32 | annotator) of every kept row.
    seen: hashbrown::HashSet<u64>,
    /// Annotators kept per item (by item id).
    per_item: Vec<u32>,
    /// Kept rows as (item, annotator, value), input order.
    triples: Vec<(u32, u32, u32)>,
    /// Flags of kept rows that have any: (row index, flags).
    flags: Vec<(usize, Vec<String>)>,
    rejected: Vec<Decision>,
    skipped: Vec<Decision>,
}

impl<'o> Collector<'o> {
    /// An empty collector for the file at `path`, validating with `opts`.
    pub fn new(path: &Path, opts: &'o ReadOptions<'o>) -> Self {
        Collector {
            path: path.display().to_string(),
            opts,
            items: Interner::default(),
            annotators: Interner::default(),
            value_ids: BTreeMap::new(),
            values: Vec::new(),
            raw_values: hashbrown::HashMap::new(),
            seen: hashbrown::HashSet::default(),
            per_item: Vec::new(),
            triples: Vec::new(),
            flags: Vec::new(),
            rejected: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// The file's name in messages and decisions (its path, or what [`Collector::named`]
    /// set).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The name messages and decisions give the file instead of its path (`-` for an
    /// input read from stdin).
    pub fn named(mut self, shown: &str) -> Self {
        self.path = shown.to_string();
        self
    }

    /// A row that cannot be used (`rule`, with file:line in the detail).
    pub fn reject(&mut self, line: u64, item: &str, rule: &str, detail: String) {
        self.rejected
            .push(decision(&self.path, line, item, rule, detail));
    }

    /// An annotation that is not a vote by its author's choice.
    pub fn skip(&mut self, line: u64, item: &str, rule: &str, detail: String) {
        self.skipped
            .push(decision(&self.path, line, item, rule, detail));
    }

    /// Lines a reader skipped for their length (1-based), each an `agree.over_limit`
    /// decision.
    pub fn reject_long_lines(&mut self, lines: &[u64]) {
        let max = self.opts.limits.max_line_bytes;
        for &l in lines {
            self.reject(
                l,
                "",
                "agree.over_limit",
                format!(
                    "line longer than limits.max_line_bytes ({max} bytes): skipped to its end, not read"
                ),
            );
        }
    }

    /// One rating: `field` names where the value was (for messages).
    pub fn vote(
        &mut self,
        line: u64,
        item: &str,
        annotator: &str,
        field: &str,
        value: &str,
        flags: Vec<String>,
    ) -> Result<(), ReadError> {
        if item.is_empty() || annotator.is_empty() {
            self.reject(
                line,
                item,
                "agree.bad_row",
                "empty item or annotator".into(),
            );
            return Ok(());
        }
        if let Some(k) = self.opts.known_items
            && !k.contains(item)
        {
            self.reject(
                line,
                item,
                "agree.unknown_item",
                format!("unknown item {item:?}"),
            );
            return Ok(());
        }
        // A value already kept is valid again: its id without parsing or checking it. A new
        // one is interned only when its row is kept.
        let known_value = self.raw_values.get(value).copied();
        let new_value = match known_value {
            Some(_) => None,
            None => match self.check_value(line, item, annotator, field, value)? {
                Some(v) => Some(v),
                None => return Ok(()),
            },
        };
        let i = self.items.intern(item);
        if self.per_item.len() <= i as usize {
            self.per_item.resize(i as usize + 1, 0);
        }
        let max = self.opts.limits.max_annotators_per_item;
        let full = self.per_item[i as usize] as usize >= max;
        let known = self.annotators.get(annotator);
        // A known annotator's pair is a duplicate when already seen (checked before the
        // item's limit); a new annotator's cannot be.
        let a = match known {
            Some(a) if !full => {
                if !self.seen.insert(pair(i, a)) {
                    self.reject_duplicate(line, item, annotator);
                    return Ok(());
                }
                a
            }
            Some(a) if self.seen.contains(&pair(i, a)) => {
                self.reject_duplicate(line, item, annotator);
                return Ok(());
            }
            _ if full => {
                self.reject(
                    line,
                    item,
                    "agree.too_many_annotators",
                    format!(
                        "item {item:?} already has {max} annotators (limits.max_annotators_per_item); annotator {annotator:?} not counted"
                    ),
                );
                return Ok(());
            }
            _ => {
                let a = self.annotators.intern(annotator);
                self.seen.insert(pair(i, a));
                a
            }
        };
        self.per_item[i as usize] += 1;
        let vi = match (known_value, new_value) {
            (Some(vi), _) => vi,
            (None, v) => {
                let v = v.expect("a value not known was checked");
                let next = self.values.len() as u32;
                let vi = *self.value_ids.entry(v).or_insert_with_key(|v| {
                    self.values.push(v.clone());
                    next
                });
                self.raw_values.insert(value.to_string(), vi);
                vi
            }
        };
        if !flags.is_empty() {
            self.flags.push((self.triples.len(), flags));
        }
        self.triples.push((i, a, vi));
        Ok(())
    }

    fn reject_duplicate(&mut self, line: u64, item: &str, annotator: &str) {
        self.reject(
            line,
            item,
            "agree.duplicate",
            format!("annotator {annotator:?} already labelled item {item:?}"),
        );
    }

    /// A value not kept before: the label when the options accept it, else `None` with the
    /// row rejected (or the error).
    fn check_value(
        &mut self,
        line: u64,
        item: &str,
        annotator: &str,
        field: &str,
        value: &str,
    ) -> Result<Option<Label>, ReadError> {
        if value.trim().is_empty() {
            self.reject(
                line,
                item,
                "agree.no_label",
                format!("{field}: no value (annotator {annotator:?})"),
            );
            return Ok(None);
        }
        let v = parse_value(value);
        if v.num().is_none() {
            let message = format!("{field}: {:?} is not a finite number", value.trim());
            match self.opts.numbers {
                Numbers::Any => {}
                Numbers::Reject => {
                    self.reject(line, item, "agree.not_a_number", message);
                    return Ok(None);
                }
                Numbers::Require => {
                    return Err(ReadError::Field {
                        path: self.path.clone(),
                        line,
                        field: field.to_string(),
                        message: format!(
                            "{:?} is not a finite number (this level of α needs numbers)",
                            value.trim()
                        ),
                    });
                }
            }
        }
        if let Err(e) = self.opts.scale.check(&v) {
            self.reject(line, item, "agree.out_of_scale", e);
            return Ok(None);
        }
        Ok(Some(v))
    }

    /// The kept rows in input order.
    pub fn into_annotations(self) -> Annotations {
        let mut flags = self.flags.into_iter().peekable();
        let rows = self
            .triples
            .iter()
            .enumerate()
            .map(|(k, &(i, a, v))| Annotation {
                item: self.items.names[i as usize].clone(),
                annotator: self.annotators.names[a as usize].clone(),
                value: self.values[v as usize].clone(),
                flags: flags
                    .next_if(|(r, _)| *r == k)
                    .map(|f| f.1)
                    .unwrap_or_default(),
            })
            .collect();
        Annotations {
            rows,
            rejected: self.rejected,
            skipped: self.skipped,
        }
    }

    /// The kept rows as the sparse table.
    pub fn into_table(self) -> TableRead {
        TableRead {
            table: Table::build(
                self.items.names,
                self.annotators.names,
                self.values,
                &self.triples,
            ),
            rejected: self.rejected,
            skipped: self.skipped,
        }
    }
}

fn pair(item: u32, annotator: u32) -> u64 {
    (u64::from(item) << 32) | u64::from(annotator)
}

/// Names interned to dense indices, first-seen order: each name is held once (the table
/// holds indices into `names`), and a name equal to the previous one (rows grouped by item)
/// is found without hashing.
#[derive(Default)]
struct Interner {
    names: Vec<String>,
    index: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    last: Option<u32>,
}

impl Interner {
    fn get(&self, s: &str) -> Option<u32> {
        let h = self.hasher.hash_one(s);
        self.index
            .find(h, |&k| self.names[k as usize] == s)
            .copied()
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(k) = self.last
            && self.names[k as usize] == s
        {
            return k;
        }
        let h = self.hasher.hash_one(s);
        let (names, hasher) = (&mut self.names, &self.hasher);
        let k = match self.index.entry(
            h,
            |&k| names[k as usize] == s,
            |&k| hasher.hash_one(names[k as usize].as_str()),
        ) {
            hashbrown::hash_table::Entry::Occupied(e) => *e.get(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let k = names.len() as u32;
                names.push(s.to_string());
                e.insert(k);
                k
            }
        };
        self.last = Some(k);
        k
    }
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

fn delimiter(path: &Path) -> u8 {
    if path.extension().is_some_and(|e| e == "csv") {
        b','
    } else {
        b'\t'
    }
}

/// A TSV/CSV annotation file read through core's bounded line reader (cut lines are its
/// [`BoundedLines::cuts`]).
pub(crate) type CsvFile = csv::Reader<BoundedLines<std::io::BufReader<std::fs::File>>>;

pub(crate) fn csv_reader(path: &Path, max_line_bytes: usize) -> Result<CsvFile, ReadError> {
    Ok(csv::ReaderBuilder::new()
        .delimiter(delimiter(path))
        .flexible(true)
        .from_reader(BoundedLines::new(open(path)?, max_line_bytes)))
}

pub(crate) fn csv_headers(path: &Path, rdr: &mut CsvFile) -> Result<Vec<String>, ReadError> {
    Ok(rdr
        .headers()
        .map_err(|e| ReadError::Format {
            path: path.display().to_string(),
            line: 1,
            message: e.to_string(),
        })?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect())
}

/// The next record into `rec`; `false` at the end.
pub(crate) fn csv_next(
    path: &Path,
    rdr: &mut CsvFile,
    rec: &mut csv::StringRecord,
) -> Result<bool, ReadError> {
    rdr.read_record(rec).map_err(|e| ReadError::Format {
        path: path.display().to_string(),
        line: e.position().map_or(0, |p| p.line()),
        message: e.to_string(),
    })
}

/// The columns of a long file's header: item, annotator, value, the value column's name
/// and flags (an error naming what the header lacks).
pub(crate) fn long_columns(
    headers: &[String],
    shown: &str,
) -> Result<(usize, usize, usize, String, Option<usize>), ReadError> {
    let col = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| headers.iter().position(|h| h == n))
    };
    let (Some(ci), Some(ca)) = (col(&["item", "task"]), col(&["annotator", "worker"])) else {
        return Err(ReadError::Format {
            path: shown.to_string(),
            line: 1,
            message: format!(
                "the header must name `item` (or `task`) and `annotator` (or `worker`) (found: {})",
                headers.join(", ")
            ),
        });
    };
    let Some(cv) = col(&["label", "value"]) else {
        return Err(ReadError::Format {
            path: shown.to_string(),
            line: 1,
            message: "the header must name `label` or `value`".into(),
        });
    };
    Ok((ci, ca, cv, headers[cv].clone(), col(&["flags"])))
}

/// The plain long TSV/CSV reader (the `csv` crate): what [`fast_long`] is tested against,
/// and what reads the files it steps aside from (quoted fields, `\r`, long lines).
fn read_delimited_long(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let shown = c.path().to_string();
    let named = Path::new(&shown);
    let mut rdr = csv_reader(path, c.opts.limits.max_line_bytes)?;
    let headers = csv_headers(named, &mut rdr)?;
    let (ci, ca, cv, field, cf) = long_columns(&headers, &shown)?;
    let mut rec = csv::StringRecord::new();
    while csv_next(named, &mut rdr, &mut rec)? {
        let line = rec.position().map_or(0, |p| p.line());
        let get = |i: usize| rec.get(i).unwrap_or("");
        let flags = cf
            .map(|i| {
                get(i)
                    .split(',')
                    .map(|f| f.trim().to_string())
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        c.vote(line, get(ci), get(ca), &field, get(cv), flags)?;
    }
    c.reject_long_lines(rdr.get_ref().cuts());
    Ok(())
}

fn read_delimited_wide(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let mut rdr = csv_reader(path, c.opts.limits.max_line_bytes)?;
    let shown = c.path().to_string();
    let named = Path::new(&shown);
    let headers = csv_headers(named, &mut rdr)?;
    if headers.first().map(String::as_str) != Some("item") {
        return Err(ReadError::Format {
            path: shown.clone(),
            line: 1,
            message: "a wide file starts with an `item` column, then one column per annotator"
                .into(),
        });
    }
    let mut rec = csv::StringRecord::new();
    while csv_next(named, &mut rdr, &mut rec)? {
        let line = rec.position().map_or(0, |p| p.line());
        let item = rec.get(0).unwrap_or("");
        for (k, ann) in headers.iter().enumerate().skip(1) {
            // A blank cell is "not annotated", not a value.
            let v = rec.get(k).unwrap_or("").trim();
            if !v.is_empty() {
                c.vote(line, item, ann, ann, v, Vec::new())?;
            }
        }
    }
    c.reject_long_lines(rdr.get_ref().cuts());
    Ok(())
}

pub(crate) fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn read_jsonl(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let mut r = BoundedLines::new(open(path)?, c.opts.limits.max_line_bytes);
    let shown = c.path().to_string();
    let mut n = 0u64;
    loop {
        let l = match r.next_line().map_err(io(path))? {
            None => break,
            Some(None) => {
                n += 1;
                c.reject_long_lines(&[n]);
                continue;
            }
            Some(Some(bytes)) => bytes,
        };
        n += 1;
        let l = std::str::from_utf8(l).map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: n,
            message: format!("invalid UTF-8: {e}"),
        })?;
        if l.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(l.trim_start_matches('\u{feff}')).map_err(|e| {
            ReadError::Format {
                path: shown.clone(),
                line: n,
                message: format!("invalid JSON: {e}"),
            }
        })?;
        let (field, value) = match (v.get("label"), v.get("value")) {
            (Some(x), _) => ("label", scalar(x)),
            (None, Some(x)) => ("value", scalar(x)),
            (None, None) => ("label", String::new()),
        };
        let flags = v
            .get("flags")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect())
            .unwrap_or_default();
        let item = v.get("item").map(scalar).unwrap_or_default();
        let annotator = v.get("annotator").map(scalar).unwrap_or_default();
        c.vote(n, &item, &annotator, field, &value, flags)?;
    }
    Ok(())
}

/// A Label Studio task batch for annotators: one task per item with its texts.
pub fn export_label_studio(items: &[(String, Vec<(String, String)>)]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|(id, texts)| {
                let mut data = serde_json::Map::new();
                data.insert("item".into(), json!(id));
                for (k, v) in texts {
                    data.insert(k.clone(), json!(v));
                }
                json!({ "data": data })
            })
            .collect(),
    )
}

/// Annotations as a matrix (annotators sorted, items in first-seen order).
pub fn to_matrix(rows: &[Annotation]) -> (Vec<String>, Vec<String>, Matrix) {
    let annotators: Vec<String> = rows
        .iter()
        .map(|r| r.annotator.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut items: Vec<String> = Vec::new();
    let mut index = BTreeMap::new();
    for r in rows {
        if !index.contains_key(&r.item) {
            index.insert(r.item.clone(), items.len());
            items.push(r.item.clone());
        }
    }
    let mut m = vec![vec![None; items.len()]; annotators.len()];
    for r in rows {
        let a = annotators
            .binary_search(&r.annotator)
            .expect("annotator listed");
        m[a][index[&r.item]] = Some(r.value.clone());
    }
    (annotators, items, Matrix::new(m))
}

/// Annotation flags that remove an item (KLUE asked annotators to flag PII, toxic and
/// unsure items): one drop decision per flagged item, `agree.flag_<flag>`, naming who
/// flagged it. Items come in first-seen order.
pub fn flag_decisions(rows: &[Annotation], drop_flags: &[&str]) -> Vec<Decision> {
    let mut by_item: BTreeMap<&str, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for r in rows {
        for f in &r.flags {
            if let Some(flag) = drop_flags.iter().find(|d| **d == f.as_str()) {
                if !by_item.contains_key(r.item.as_str()) {
                    order.push(&r.item);
                }
                by_item
                    .entry(&r.item)
                    .or_default()
                    .entry(flag)
                    .or_default()
                    .push(&r.annotator);
            }
        }
    }
    order
        .into_iter()
        .map(|item| {
            let (flag, who) = by_item[item]
                .iter()
                .next()
                .expect("an item here has a flag");
            annotation_drop(
                item.to_string(),
                RuleId::new(format!("agree.flag_{flag}")),
                format!("flagged {flag} by {}", who.join(", ")),
                String::new(),
            )
        })
        .collect()
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

    #[test]
    fn flags_become_drop_decisions() {
        let a = |item: &str, who: &str, flags: &[&str]| Annotation {
            item: item.into(),
            annotator: who.into(),
            value: Label::Num(3.0),
            flags: flags.iter().map(|f| f.to_string()).collect(),
        };
        let rows = vec![
            a("x", "p", &["pii"]),
            a("y", "p", &[]),
            a("x", "q", &["pii"]),
            a("z", "q", &["unsure"]),
        ];
        let d = flag_decisions(&rows, &["pii", "toxic", "unsure"]);
        assert_eq!(d.len(), 2);
        assert_eq!(
            (d[0].item.as_str(), d[0].rule.as_str(), d[0].detail.as_str()),
            ("x", "agree.flag_pii", "flagged pii by p, q")
        );
        assert_eq!(d[1].rule.as_str(), "agree.flag_unsure");
    }

    #[test]
    fn label_studio_round_trip() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("ls.json");
        let export = json!([{"data": {"item": "p1"}, "annotations": [
            {"completed_by": 3, "result": [{"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": ["entailment"]}}]},
            {"completed_by": 4, "result": [{"from_name": "label", "to_name": "text", "type": "choices", "value": {"choices": ["neutral"]}}]}]}]);
        std::fs::write(&p, export.to_string()).unwrap();
        let a = read(&p, Format::LabelStudio, &Scale::Any, None).unwrap();
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[1].value, Label::Text("neutral".into()));
        let batch = export_label_studio(&[("p1".into(), vec![("premise".into(), "문장".into())])]);
        assert_eq!(batch[0]["data"]["premise"], "문장");
    }
}
