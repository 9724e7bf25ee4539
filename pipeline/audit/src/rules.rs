//! `audit`: decisions per rule and source, shares of each source's input, seeded samples.

use crate::{AuditError, json_lines};
use kcurate_core::hash::seeded_u64;
use kcurate_release::Manifest;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub stage: Option<String>,
    pub rule: Option<String>,
    pub source: Option<String>,
    pub sample: usize,
    pub seed: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    pub stage: String,
    pub rule: String,
    pub source: String,
    pub drop: u64,
    pub edit: u64,
    pub flag: u64,
    /// Decisions / items this source brought into the stage's input... approximated by the
    /// source's ingested records (the manifest has no per-source stage inputs).
    pub share_of_source_records: f64,
    pub samples: Vec<serde_json::Value>,
}

/// Rows per (stage, rule, source), with their (hash, decision) samples.
type Groups = BTreeMap<(String, String, String), (RuleRow, Vec<(u64, serde_json::Value)>)>;

pub fn audit(dir: &Path, f: &Filter) -> Result<Vec<RuleRow>, AuditError> {
    let m = Manifest::load(&dir.join("manifest.json"))?;
    let decisions = json_lines(&dir.join("audit/decisions.jsonl"))?;
    let mut per_source_records: BTreeMap<String, u64> = BTreeMap::new();
    let mut groups: Groups = BTreeMap::new();
    for (_, d) in &decisions {
        let get = |k: &str| d[k].as_str().unwrap_or("").to_string();
        let (stage, rule, source) = (get("stage"), get("rule"), get("source"));
        if f.stage.as_ref().is_some_and(|s| *s != stage)
            || f.rule.as_ref().is_some_and(|r| *r != rule)
            || f.source.as_ref().is_some_and(|s| *s != source)
        {
            continue;
        }
        let e = groups
            .entry((stage.clone(), rule.clone(), source.clone()))
            .or_insert_with(|| {
                (
                    RuleRow {
                        stage,
                        rule,
                        source,
                        drop: 0,
                        edit: 0,
                        flag: 0,
                        share_of_source_records: 0.0,
                        samples: Vec::new(),
                    },
                    Vec::new(),
                )
            });
        match d["action"].as_str() {
            Some("drop") => e.0.drop += 1,
            Some("edit") => e.0.edit += 1,
            _ => e.0.flag += 1,
        }
        if f.sample > 0 {
            // Seeded sample: keep the `sample` decisions with the smallest hash of their item.
            let h = seeded_u64(
                f.seed,
                format!(
                    "{}\t{}",
                    d["item"].as_str().unwrap_or(""),
                    d["rule"].as_str().unwrap_or("")
                )
                .as_bytes(),
            );
            e.1.push((h, d.clone()));
            e.1.sort_by_key(|x| x.0);
            e.1.truncate(f.sample);
        }
    }
    // Records each source brought in: ingest decisions + outputs are not per source in the
    // manifest, so count from the split rows and drop decisions.
    for row in crate::rows(dir)? {
        *per_source_records
            .entry(row.2["source"].as_str().unwrap_or("").to_string())
            .or_default() += 1;
    }
    for (_, d) in &decisions {
        if d["action"] == "drop" {
            *per_source_records
                .entry(d["source"].as_str().unwrap_or("").to_string())
                .or_default() += 1;
        }
    }
    let _ = m;
    Ok(groups
        .into_values()
        .map(|(mut r, s)| {
            let n = per_source_records
                .get(&r.source)
                .copied()
                .unwrap_or(0)
                .max(1);
            r.share_of_source_records =
                ((r.drop + r.edit + r.flag) as f64 / n as f64 * 1e4).round() / 1e4;
            r.samples = s.into_iter().map(|x| x.1).collect();
            r
        })
        .collect())
}

pub fn render_table(rows: &[RuleRow]) -> String {
    let mut s = format!(
        "{:<10} {:<28} {:<12} {:>7} {:>7} {:>7} {:>8}\n",
        "stage", "rule", "source", "drop", "edit", "flag", "share"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<10} {:<28} {:<12} {:>7} {:>7} {:>7} {:>7.2}%\n",
            r.stage,
            r.rule,
            r.source,
            r.drop,
            r.edit,
            r.flag,
            r.share_of_source_records * 100.0
        ));
        for x in &r.samples {
            s.push_str(&format!(
                "    e.g. {} {}\n",
                x["item"].as_str().unwrap_or(""),
                x["detail"].as_str().unwrap_or("")
            ));
        }
    }
    s
}

pub fn render_csv(rows: &[RuleRow]) -> String {
    let mut s = String::from("stage,rule,source,drop,edit,flag,share_of_source_records\n");
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            r.stage, r.rule, r.source, r.drop, r.edit, r.flag, r.share_of_source_records
        ));
    }
    s
}
