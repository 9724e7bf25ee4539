//! Column scans of `audit/decisions.parquet`: only the columns a query needs are decoded
//! (stage, rule, source, action; item when sampling), row group by row group, so an audit
//! over millions of decisions stays fast and its memory flat. The JSONL twin is the oracle
//! (tests compare both).

use crate::AuditError;
use arrow::array::{Array, AsArray, RecordBatch, StringArray};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Decisions per (stage, rule, source): drop, edit, flag.
pub type Counts = BTreeMap<(String, String, String), [u64; 3]>;

/// What a scan keeps besides counts: per group, the `sample` smallest (hash, row) pairs.
pub type Picks = BTreeMap<(String, String, String), Vec<(u64, u64)>>;

/// A group (stage, rule, source) borrowed from a batch.
type Key<'a> = (&'a str, &'a str, &'a str);

/// Only rows whose stage, rule and source match (None matches all).
#[derive(Debug, Clone, Default)]
pub struct Where {
    /// Only this stage.
    pub stage: Option<String>,
    /// Only this rule.
    pub rule: Option<String>,
    /// Only this source.
    pub source: Option<String>,
}

impl Where {
    fn keeps(&self, stage: &str, rule: &str, source: &str) -> bool {
        self.stage.as_deref().is_none_or(|s| s == stage)
            && self.rule.as_deref().is_none_or(|r| r == rule)
            && self.source.as_deref().is_none_or(|s| s == source)
    }
}

fn action_slot(a: &str) -> usize {
    match a {
        "drop" => 0,
        "edit" => 1,
        _ => 2,
    }
}

fn column<'a>(b: &'a RecordBatch, name: &str) -> Option<&'a StringArray> {
    b.column_by_name(name)
        .and_then(|c| c.as_string_opt::<i32>())
}

/// The decision columns `names` of a batch (`stage`, `rule`, `source` and one more), or
/// the error naming the file when one is not strings.
fn decision_columns<'a>(
    b: &'a RecordBatch,
    names: [&str; 4],
    shown: &str,
) -> Result<[&'a StringArray; 4], AuditError> {
    match names.map(|n| column(b, n)) {
        [Some(a), Some(b), Some(c), Some(d)] => Ok([a, b, c, d]),
        _ => Err(parse_error(shown, &"decision columns are not strings")),
    }
}

/// A string cell; a null one is empty.
fn cell(a: &StringArray, i: usize) -> &str {
    if a.is_null(i) { "" } else { a.value(i) }
}

fn parse_error(shown: &str, e: &dyn std::fmt::Display) -> AuditError {
    AuditError::Parse {
        path: shown.to_string(),
        line: 0,
        message: e.to_string(),
    }
}

/// A reader of the `wanted` columns of a decisions Parquet file, in batches; `None` when the
/// file has fewer than `needed` of them (an empty decision file has no decision columns).
fn open_columns(
    parquet: &Path,
    wanted: &[&str],
    needed: usize,
) -> Result<Option<ParquetRecordBatchReader>, AuditError> {
    let shown = parquet.display().to_string();
    // `<release>/audit/decisions.parquet`: opened at the size its release's manifest records.
    let dir = parquet
        .parent()
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file = crate::release_files(dir)?
        .open(parquet)
        .map_err(|e| AuditError::Io {
            path: shown.clone(),
            source: e,
        })?
        .into_inner();
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| parse_error(&shown, &e))?;
    let schema = builder.parquet_schema();
    let leaves: Vec<usize> = (0..schema.num_columns())
        .filter(|&i| wanted.contains(&schema.column(i).name()))
        .collect();
    if leaves.len() < needed {
        return Ok(None);
    }
    let mask = ProjectionMask::leaves(schema, leaves);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(65_536)
        .build()
        .map_err(|e| parse_error(&shown, &e))?;
    Ok(Some(reader))
}

/// Counts decisions per (stage, rule, source, action) and, with `sample > 0`, picks per group
/// the rows whose seeded hash of `item \t rule` is smallest (row = 0-based row of the file,
/// the same as the JSONL line index).
pub fn scan(
    parquet: &Path,
    filter: &Where,
    sample: usize,
    seed: u64,
) -> Result<(Counts, Picks), AuditError> {
    guarded(parquet, || scan_unguarded(parquet, filter, sample, seed))
}

fn scan_unguarded(
    parquet: &Path,
    filter: &Where,
    sample: usize,
    seed: u64,
) -> Result<(Counts, Picks), AuditError> {
    let shown = parquet.display().to_string();
    let err = |e: &dyn std::fmt::Display| parse_error(&shown, e);
    let wanted: &[&str] = if sample > 0 {
        &["stage", "rule", "source", "action", "item"]
    } else {
        &["stage", "rule", "source", "action"]
    };
    let (mut counts, mut picks) = (Counts::new(), Picks::new());
    // An empty decision file has no decision columns.
    let Some(reader) = open_columns(parquet, wanted, 4)? else {
        return Ok((counts, picks));
    };
    let mut row0 = 0u64;
    for batch in reader {
        let b = batch.map_err(|e| err(&e))?;
        let [st, ru, so, ac] = decision_columns(&b, ["stage", "rule", "source", "action"], &shown)?;
        let item = column(&b, "item");
        // Per batch, group by borrowed strings; merged into the owned map once per group.
        let mut local: HashMap<Key, [u64; 3]> = HashMap::new();
        let mut local_picks: HashMap<Key, Vec<(u64, u64)>> = HashMap::new();
        for i in 0..b.num_rows() {
            let key = (cell(st, i), cell(ru, i), cell(so, i));
            if !filter.keeps(key.0, key.1, key.2) {
                continue;
            }
            local.entry(key).or_default()[action_slot(cell(ac, i))] += 1;
            if sample > 0 {
                let it = item.map_or("", |a| cell(a, i));
                let h = kcurate_core::hash::seeded_u64(seed, format!("{it}\t{}", key.1).as_bytes());
                let v = local_picks.entry(key).or_default();
                v.push((h, row0 + i as u64));
                if v.len() > 4 * sample {
                    v.sort_unstable();
                    v.truncate(sample);
                }
            }
        }
        for (k, c) in local {
            let e = counts
                .entry((k.0.to_string(), k.1.to_string(), k.2.to_string()))
                .or_default();
            for s in 0..3 {
                e[s] += c[s];
            }
        }
        for (k, v) in local_picks {
            let e = picks
                .entry((k.0.to_string(), k.1.to_string(), k.2.to_string()))
                .or_default();
            e.extend(v);
            e.sort_unstable();
            e.truncate(sample);
        }
        row0 += b.num_rows() as u64;
    }
    Ok((counts, picks))
}

/// Per group, the input records (distinct `origin`s) its decisions touched; per source,
/// every origin any decision names (the denominator's decided half).
pub type Origins = (
    BTreeMap<(String, String, String), u64>,
    BTreeMap<String, std::collections::HashSet<String>>,
);

/// Distinct input records (`origin`, the input file and line) per (stage, rule, source) group
/// that `filter` keeps, and per source the origins of all its decisions. A rule that edits a
/// document five times touched one record, and a document split into sentences is one
/// record: shares computed on records stay within 100%.
pub fn origins(parquet: &Path, filter: &Where) -> Result<Origins, AuditError> {
    guarded(parquet, || origins_unguarded(parquet, filter))
}

/// Runs a read of `parquet`, turning a panic into an error naming the file: the parquet and
/// arrow crates panic on some corrupt files (found by fuzzing: a negative column start in
/// the footer, definition levels past their buffer), which must not crash `audit`.
fn guarded<T>(
    parquet: &Path,
    read: impl FnOnce() -> Result<T, AuditError>,
) -> Result<T, AuditError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(AuditError::Parse {
            path: parquet.display().to_string(),
            line: 0,
            message: format!("corrupt Parquet file: {why}"),
        })
    })
}

fn origins_unguarded(parquet: &Path, filter: &Where) -> Result<Origins, AuditError> {
    let shown = parquet.display().to_string();
    let err = |e: &dyn std::fmt::Display| parse_error(&shown, e);
    let mut groups: BTreeMap<(String, String, String), std::collections::HashSet<String>> =
        BTreeMap::new();
    let mut per_source: BTreeMap<String, std::collections::HashSet<String>> = BTreeMap::new();
    let Some(reader) = open_columns(parquet, &["stage", "rule", "source", "origin"], 4)? else {
        return Ok((BTreeMap::new(), per_source));
    };
    for batch in reader {
        let b = batch.map_err(|e| err(&e))?;
        let [st, ru, so, or] = decision_columns(&b, ["stage", "rule", "source", "origin"], &shown)?;
        for i in 0..b.num_rows() {
            let (stage, rule, source, origin) =
                (cell(st, i), cell(ru, i), cell(so, i), cell(or, i));
            if !per_source.get(source).is_some_and(|s| s.contains(origin)) {
                per_source
                    .entry(source.to_string())
                    .or_default()
                    .insert(origin.to_string());
            }
            if filter.keeps(stage, rule, source) {
                let key = (stage.to_string(), rule.to_string(), source.to_string());
                groups.entry(key).or_default().insert(origin.to_string());
            }
        }
    }
    Ok((
        groups
            .into_iter()
            .map(|(k, v)| (k, v.len() as u64))
            .collect(),
        per_source,
    ))
}

/// Filters the engines' tests run: none, one rule, stage and source, a source with no rows.
#[cfg(test)]
pub(crate) fn filters() -> Vec<Where> {
    vec![
        Where::default(),
        Where {
            rule: Some("dedup.exact".into()),
            ..Default::default()
        },
        Where {
            source: Some("b".into()),
            stage: Some("noise".into()),
            ..Default::default()
        },
        Where {
            source: Some("nobody".into()),
            ..Default::default()
        },
    ]
}

/// Synthetic decisions (JSONL and its Parquet twin) for the engines' tests.
#[cfg(test)]
pub(crate) fn write_decisions(dir: &Path, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::io::Write;
    let j = dir.join("d.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&j).unwrap());
    for i in 0..n {
        let rule = ["filter.too_short", "dedup.exact", "noise.hashtag"][i % 3];
        let action = ["drop", "drop", "edit", "flag"][i % 4];
        let source = ["a", "b"][i % 2];
        let d = serde_json::json!({"item": format!("x{i}"), "stage": rule.split('.').next().unwrap(),
            "rule": rule, "action": action, "detail": "", "source": source,
            "origin": "f:1"});
        writeln!(w, "{d}").unwrap();
    }
    drop(w);
    let p = dir.join("d.parquet");
    kcurate_release::parquet_out::jsonl_to_parquet(&j, &p).unwrap();
    (j, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The simple version: every JSONL line parsed, counted in a map.
    fn oracle(jsonl: &Path, f: &Where) -> Counts {
        let mut c = Counts::new();
        for l in std::fs::read_to_string(jsonl).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or("").to_string();
            if f.keeps(&s("stage"), &s("rule"), &s("source")) {
                c.entry((s("stage"), s("rule"), s("source"))).or_default()
                    [action_slot(&s("action"))] += 1;
            }
        }
        c
    }

    #[test]
    fn parquet_scan_counts_equal_the_jsonl_oracle_with_and_without_filters() {
        let d = tempfile::tempdir().unwrap();
        // More rows than one batch, so merging across batches is exercised.
        let (j, p) = write_decisions(d.path(), 70_000);
        for f in filters() {
            let (c, _) = scan(&p, &f, 0, 1).unwrap();
            assert_eq!(c, oracle(&j, &f), "{f:?}");
        }
    }

    #[test]
    fn samples_are_the_smallest_hashes_of_each_group() {
        let d = tempfile::tempdir().unwrap();
        let (_, p) = write_decisions(d.path(), 3_000);
        let (_, picks) = scan(&p, &Where::default(), 3, 9).unwrap();
        for ((_, rule, _), v) in &picks {
            assert_eq!(v.len(), 3);
            assert!(v.windows(2).all(|w| w[0] < w[1]));
            for (h, row) in v {
                let expect =
                    kcurate_core::hash::seeded_u64(9, format!("x{row}\t{rule}").as_bytes());
                assert_eq!(*h, expect);
            }
        }
        let (_, again) = scan(&p, &Where::default(), 3, 9).unwrap();
        assert_eq!(picks, again);
    }
}
