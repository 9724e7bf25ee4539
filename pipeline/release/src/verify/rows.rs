//! `lengths` against the rows: a release whose rows are its records (documents, sentences)
//! has each row's text length recounted; a task's rows (pairs, examples: the task's own
//! schema) are counted per split, their text lengths being those of records the rows do
//! not hold whole.

use super::{inconsistent, io_error};
use crate::manifest::{Manifest, ManifestError, Mismatch, inside};
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;

/// Width of a length bucket, in characters (the writer's).
const BUCKET: u64 = 20;

/// `lengths` against the split files (see the module documentation).
pub(super) fn check_lengths(
    dir: &Path,
    m: &Manifest,
    listed: &BTreeSet<&str>,
    problems: &mut Vec<Mismatch>,
) -> Result<(), ManifestError> {
    let unit = m
        .stages
        .iter()
        .rev()
        .map(|s| s.stats.unit_out.as_str())
        .find(|u| !u.is_empty())
        .unwrap_or("");
    let records = matches!(unit, "documents" | "sentences");
    let mut counted: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    let mut rows: BTreeMap<&str, u64> = BTreeMap::new();
    for (task, splits) in &m.splits {
        for (split, n) in splits {
            *rows.entry(split.as_str()).or_default() += n;
            let rel = format!("{task}/{split}.jsonl");
            let p = inside(dir, &rel).filter(|_| listed.contains(rel.as_str()));
            if let (true, Some(p)) = (records, p) {
                count_lengths(
                    &p,
                    &rel,
                    counted.entry(split.clone()).or_default(),
                    problems,
                )?;
            }
        }
    }
    counted.retain(|_, b| !b.is_empty());
    if records {
        compare_lengths(&m.lengths, &counted, problems);
        return Ok(());
    }
    for (split, buckets) in &m.lengths {
        let sum: u64 = buckets.values().sum();
        let want = rows.get(split.as_str()).copied().unwrap_or(0);
        if sum != want {
            inconsistent(
                problems,
                &format!("lengths.{split}"),
                format!("{sum} rows in its buckets, the split holds {want}"),
            );
        }
        for b in buckets.keys().filter(|b| *b % BUCKET != 0) {
            inconsistent(
                problems,
                &format!("lengths.{split}.{b}"),
                format!("not a bucket: buckets start at multiples of {BUCKET}"),
            );
        }
    }
    for (split, n) in rows {
        if n > 0 && !m.lengths.contains_key(split) {
            inconsistent(
                problems,
                &format!("lengths.{split}"),
                format!("missing: the split holds {n} rows"),
            );
        }
    }
    Ok(())
}

/// Rows of a split file per text length bucket.
fn count_lengths(
    p: &Path,
    rel: &str,
    into: &mut BTreeMap<u64, u64>,
    problems: &mut Vec<Mismatch>,
) -> Result<(), ManifestError> {
    #[derive(serde::Deserialize)]
    struct Row<'a> {
        #[serde(borrow)]
        text: std::borrow::Cow<'a, str>,
    }
    let file = match kcurate_core::bounded::open_regular(p, p.parent()) {
        Ok((f, _)) => f,
        // Missing: reported as a missing output.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(p, e)),
    };
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| io_error(p, e))?;
        match serde_json::from_str::<Row>(&line) {
            Ok(r) => {
                let chars = r.text.chars().count() as u64;
                *into.entry(chars / BUCKET * BUCKET).or_default() += 1;
            }
            Err(e) => inconsistent(
                problems,
                "lengths",
                format!("{rel}:{}: a row without its text: {e}", i + 1),
            ),
        }
    }
    Ok(())
}

/// Recorded buckets against the counted ones, each difference named
/// `lengths.<split>.<bucket>`.
fn compare_lengths(
    recorded: &BTreeMap<String, BTreeMap<u64, u64>>,
    counted: &BTreeMap<String, BTreeMap<u64, u64>>,
    problems: &mut Vec<Mismatch>,
) {
    let empty = BTreeMap::new();
    let splits: BTreeSet<&String> = recorded.keys().chain(counted.keys()).collect();
    for split in splits {
        let (a, b) = (
            recorded.get(split).unwrap_or(&empty),
            counted.get(split).unwrap_or(&empty),
        );
        let buckets: BTreeSet<&u64> = a.keys().chain(b.keys()).collect();
        for k in buckets {
            let (x, y) = (a.get(k), b.get(k));
            if x != y {
                inconsistent(
                    problems,
                    &format!("lengths.{split}.{k}"),
                    format!(
                        "{} rows recorded, the split file holds {}",
                        x.copied().unwrap_or(0),
                        y.copied().unwrap_or(0)
                    ),
                );
            }
        }
    }
}
