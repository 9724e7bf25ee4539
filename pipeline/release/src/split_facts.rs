//! What the report shows about the released rows themselves: the label distribution per
//! split and source, and the gold score histogram (STS) per split, read back from the split
//! files as written, so the page describes the bytes a user downloads.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

/// The width of a score bin (KLUE STS reports its label distribution in 0.5 steps).
pub const SCORE_BIN: f64 = 0.5;

/// What the card and the report show of each split: rows per source and label, and the
/// score distribution of a scored task.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SplitFacts {
    /// split → source → label → rows. Rows without a source field count under `(none)`.
    pub labels: BTreeMap<String, BTreeMap<String, BTreeMap<String, u64>>>,
    /// split → bin index (score / [`SCORE_BIN`], floored; 5.0 falls in the last bin) → rows.
    pub scores: BTreeMap<String, BTreeMap<u32, u64>>,
}

/// The class label of a row: `label` (TC, SentiNeg, the default task) or `gold_label`
/// (NLI), when it is a string.
fn class_label(v: &Value) -> Option<&str> {
    v.get("label")
        .or_else(|| v.get("gold_label"))
        .and_then(Value::as_str)
}

/// The gold score of a row: KLUE STS's `labels.real-label` (or `labels.label`), or a
/// numeric `label` / `score`.
fn score(v: &Value) -> Option<f64> {
    let labels = v.get("labels");
    labels
        .and_then(|l| l.get("real-label").or_else(|| l.get("label")))
        .or_else(|| v.get("label"))
        .or_else(|| v.get("score"))
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0)
}

fn bin(s: f64, top: u32) -> u32 {
    ((s / SCORE_BIN).floor() as u32).min(top)
}

/// Reads `<dir>/<task>/<split>.jsonl` for every split.
pub fn collect<'a>(
    dir: &Path,
    task: &str,
    splits: impl IntoIterator<Item = &'a String>,
) -> std::io::Result<SplitFacts> {
    let mut f = SplitFacts::default();
    for split in splits {
        let path = dir.join(task).join(format!("{split}.jsonl"));
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            // A split with no rows has no file.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for line in std::io::BufReader::new(file).lines() {
            let line = line?;
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if let Some(l) = class_label(&v) {
                let source = v.get("source").and_then(Value::as_str).unwrap_or("(none)");
                *f.labels
                    .entry(split.clone())
                    .or_default()
                    .entry(source.to_string())
                    .or_default()
                    .entry(l.to_string())
                    .or_default() += 1;
            } else if let Some(s) = score(&v) {
                // Scores are 0..5 in every STS recipe; 5.0 belongs to the 4.5-5.0 bin.
                *f.scores
                    .entry(split.clone())
                    .or_default()
                    .entry(bin(s, 9))
                    .or_default() += 1;
            }
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_by_split_and_source_and_scores_in_half_point_bins() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("t")).unwrap();
        std::fs::write(
            dir.path().join("t/train.jsonl"),
            "{\"source\":\"a\",\"label\":\"pos\"}\n{\"source\":\"a\",\"label\":\"pos\"}\n{\"gold_label\":\"neutral\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("t/dev.jsonl"),
            "{\"labels\":{\"real-label\":0.2}}\n{\"labels\":{\"real-label\":4.5}}\n{\"labels\":{\"label\":5.0}}\n{\"score\":2.6}\n",
        )
        .unwrap();
        let splits = ["train".to_string(), "dev".into(), "test".into()];
        let f = collect(dir.path(), "t", &splits).unwrap();
        assert_eq!(f.labels["train"]["a"]["pos"], 2);
        assert_eq!(f.labels["train"]["(none)"]["neutral"], 1);
        assert_eq!(
            f.scores["dev"],
            BTreeMap::from([(0, 1), (5, 1), (9, 2)]),
            "0.2 → bin 0, 2.6 → bin 5, 4.5 and 5.0 → bin 9"
        );
        assert!(
            !f.labels.contains_key("test"),
            "a split without a file has no rows"
        );
    }
}
