//! `audit`: decisions per rule and source, shares of each source's input, seeded samples.

use crate::AuditError;
use crate::scan::{Where, scan};
use kcurate_release::Manifest;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

/// Which decisions `audit` counts and how many it samples.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this stage's decisions.
    pub stage: Option<String>,
    /// Only this rule's decisions.
    pub rule: Option<String>,
    /// Only this source's decisions.
    pub source: Option<String>,
    /// Sampled decisions per row (0: none).
    pub sample: usize,
    /// The seed of the sample.
    pub seed: u64,
    /// What computes the counts.
    pub engine: Engine,
}

/// What computes the per-rule counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Engine {
    /// A column scan with arrow (always built).
    #[default]
    Scan,
    /// A polars lazy query (feature `polars`).
    #[cfg(feature = "polars")]
    Polars,
}

/// One row of `audit`: a rule's decisions in one stage and source.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    /// The stage.
    pub stage: String,
    /// The rule id.
    pub rule: String,
    /// The source.
    pub source: String,
    /// Drops.
    pub drop: u64,
    /// Edits.
    pub edit: u64,
    /// Flags.
    pub flag: u64,
    /// Input records (distinct origins: file and line) of this source the rule touched.
    pub records: u64,
    /// `records` / the input records of this source the release accounts for (those with a
    /// released row or a decision): at most 1, however many times the rule acted on a record
    /// or its sentences.
    pub share_of_source_records: f64,
    /// Seeded sample of the decisions, as written.
    pub samples: Vec<serde_json::Value>,
}

/// Per-rule counts from the Parquet decisions (column scan, see [`crate::scan`]), shares of
/// each source's records, and seeded samples read back from the JSONL twin.
pub fn audit(dir: &Path, f: &Filter) -> Result<Vec<RuleRow>, AuditError> {
    let m = Manifest::load(&dir.join("manifest.json"))?;
    let filter = Where {
        stage: f.stage.clone(),
        rule: f.rule.clone(),
        source: f.source.clone(),
    };
    let parquet = dir.join("audit/decisions.parquet");
    let (counts, picks) = match f.engine {
        Engine::Scan => scan(&parquet, &filter, f.sample, f.seed)?,
        #[cfg(feature = "polars")]
        Engine::Polars => {
            let counts = crate::frame::counts(&parquet, &filter)?;
            // Samples are a top-k by seeded hash per group: the column scan picks them.
            let picks = if f.sample > 0 {
                scan(&parquet, &filter, f.sample, f.seed)?.1
            } else {
                Default::default()
            };
            (counts, picks)
        }
    };
    let samples = sample_rows(dir, &picks)?;
    // Input records each source brought in: the origins of its released rows and of its
    // decisions (a record is dropped whole, or has rows, or both when some sentences were
    // dropped); rows without an origin count one each.
    let (touched, mut per_source) = crate::scan::origins(&parquet, &filter)?;
    let unplaced = release_origins_per_source(dir, &m, &mut per_source)?;
    Ok(counts
        .into_iter()
        .map(|(key, c)| {
            let n = per_source.get(&key.2).map_or(0, |s| s.len() as u64)
                + unplaced.get(&key.2).copied().unwrap_or(0);
            let records = touched.get(&key).copied().unwrap_or(0);
            let share = (records as f64 / n.max(1) as f64 * 1e4).round() / 1e4;
            let samples = picks
                .get(&key)
                .map(|v| {
                    v.iter()
                        .filter_map(|(_, row)| samples.get(row).cloned())
                        .collect()
                })
                .unwrap_or_default();
            RuleRow {
                stage: key.0,
                rule: key.1,
                source: key.2,
                drop: c[0],
                edit: c[1],
                flag: c[2],
                records,
                share_of_source_records: share,
                samples,
            }
        })
        .collect())
}

/// The decisions at the picked rows (0-based lines of decisions.jsonl), streamed.
fn sample_rows(
    dir: &Path,
    picks: &crate::scan::Picks,
) -> Result<BTreeMap<u64, serde_json::Value>, AuditError> {
    let wanted: std::collections::BTreeSet<u64> =
        picks.values().flatten().map(|(_, row)| *row).collect();
    let mut out = BTreeMap::new();
    let Some(&last) = wanted.iter().next_back() else {
        return Ok(out);
    };
    crate::for_each_decision(dir, |d| {
        let n = d.line as u64 - 1;
        if n > last {
            return Ok(ControlFlow::Break(()));
        }
        if wanted.contains(&n) {
            out.insert(n, d.value()?);
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(out)
}

/// Adds the origins of every released row to its source's set, streamed; returns per
/// source the rows that name no origin.
fn release_origins_per_source(
    dir: &Path,
    m: &Manifest,
    per_source: &mut BTreeMap<String, std::collections::HashSet<String>>,
) -> Result<BTreeMap<String, u64>, AuditError> {
    #[derive(serde::Deserialize)]
    struct Row {
        #[serde(default)]
        source: Option<String>,
        #[serde(default)]
        origin: Option<String>,
    }
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for (task, splits) in &m.splits {
        for split in splits.keys() {
            let p = dir.join(task).join(format!("{split}.jsonl"));
            let shown = p.display().to_string();
            let file = crate::release_files(dir)?
                .open(&p)
                .map_err(|e| AuditError::Io {
                    path: shown.clone(),
                    source: e,
                })?;
            for (n, line) in BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| AuditError::Io {
                    path: shown.clone(),
                    source: e,
                })?;
                let r: Row = serde_json::from_str(&line).map_err(|e| AuditError::Parse {
                    path: shown.clone(),
                    line: n + 1,
                    message: e.to_string(),
                })?;
                let source = r.source.unwrap_or_default();
                match r.origin {
                    Some(o) => {
                        per_source.entry(source).or_default().insert(o);
                    }
                    None => *out.entry(source).or_default() += 1,
                }
            }
        }
    }
    Ok(out)
}

/// What a decision removed or changed, for reading: a drop's text, an edit's
/// `before` → `after`, else its detail.
pub fn touched_text(d: &serde_json::Value) -> String {
    if let Some(t) = d["text"].as_str() {
        return format!("{t:?}");
    }
    if d["span"].is_object() {
        return format!(
            "{:?} → {:?}",
            d["span"]["before"].as_str().unwrap_or(""),
            d["span"]["after"].as_str().unwrap_or("")
        );
    }
    d["detail"].as_str().unwrap_or("").to_string()
}

/// The table; `records` is the input records the rule touched, `share` their share of the
/// source's records. With `show_text`, each sample shows what the decision removed or
/// changed (see [`touched_text`]) under its detail.
pub fn render_table(rows: &[RuleRow], show_text: bool) -> String {
    let mut s = format!(
        "{:<10} {:<28} {:<12} {:>7} {:>7} {:>7} {:>8} {:>8}\n",
        "stage", "rule", "source", "drop", "edit", "flag", "records", "share"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<10} {:<28} {:<12} {:>7} {:>7} {:>7} {:>8} {:>7.2}%\n",
            r.stage,
            r.rule,
            r.source,
            r.drop,
            r.edit,
            r.flag,
            r.records,
            r.share_of_source_records * 100.0
        ));
        for x in &r.samples {
            s.push_str(&format!(
                "    e.g. {} {} {}\n",
                x["item"].as_str().unwrap_or(""),
                x["action"].as_str().unwrap_or(""),
                x["detail"].as_str().unwrap_or("")
            ));
            if show_text {
                s.push_str(&format!("         {}\n", touched_text(x)));
            }
        }
    }
    s
}

/// The rows as CSV with a header.
pub fn render_csv(rows: &[RuleRow]) -> String {
    let mut s = String::from("stage,rule,source,drop,edit,flag,records,share_of_source_records\n");
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            r.stage, r.rule, r.source, r.drop, r.edit, r.flag, r.records, r.share_of_source_records
        ));
    }
    s
}
