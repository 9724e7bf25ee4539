//! The card's labels: where they came from (people, the source data, a simulator), the
//! `annotations_creators` that follows from it, each split's label distribution, and the
//! split targets the corpus could not meet.
//!
//! A task stage names its labels' origin in the metric `label_origin` (`simulated`,
//! `human`, `machine`). A release made only by stages that change no label
//! ([`KEEP_SOURCE_LABELS`]) carries a source's mapped `label` field: its own annotators'. Targets not met are the
//! stages' `targets_not_met` metric (see `kcurate_tasks::split_targets`).

use super::{CardError, CardFacts};
use crate::manifest::Manifest;
use kcurate_core::recipe::Recipe;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::BufRead;
use std::path::Path;

/// Where a release's labels came from.
#[derive(Debug, Clone, PartialEq)]
enum Origin {
    /// A stage says so (`simulated`, `human`, `machine`): (stage, origin).
    Stage(String, String),
    /// Mapped from sources' fields: (source, field).
    Source(Vec<(String, String)>),
    /// Nothing says.
    Unknown,
}

/// Stages that select among a source's labelled items and change no label: a release
/// made only by them carries the source's own labels.
const KEEP_SOURCE_LABELS: &[&str] = &["normalize", "nli_hard"];

fn origin(recipe: &Recipe, m: &Manifest) -> Origin {
    for (stage, figs) in &m.metrics {
        if let Some(o) = figs.get("label_origin").and_then(|v| v.as_str()) {
            return Origin::Stage(stage.clone(), o.to_string());
        }
    }
    // A derived release's labels are its parent's, or made from them: its parent's card
    // says which.
    if m.parent.is_some() {
        return Origin::Unknown;
    }
    let stages = recipe.stage_names();
    if !stages.iter().all(|n| KEEP_SOURCE_LABELS.contains(n)) {
        return Origin::Unknown;
    }
    let used: Vec<(String, String)> = recipe
        .sources
        .iter()
        .filter(|s| m.sources.iter().any(|r| r.id == s.id && r.status == "used"))
        .filter_map(|s| s.fields.label.clone().map(|f| (s.id.clone(), f)))
        .collect();
    if used.is_empty() || recipe.task.name == "sentences" {
        Origin::Unknown
    } else {
        Origin::Source(used)
    }
}

/// The card's `annotations_creators`: the recipe's when it declares them, else from where
/// the labels came: simulated or machine labels `machine-generated`, people's imported
/// scores `crowdsourced`, a source's own labels `found`; else the task's default.
pub(super) fn annotations_creators(recipe: &Recipe, m: &Manifest) -> Vec<String> {
    if !recipe.task.annotations_creators.is_empty() {
        return recipe.task.annotations_creators.clone();
    }
    let c = match origin(recipe, m) {
        Origin::Stage(_, o) if o == "human" => "crowdsourced",
        Origin::Stage(..) => "machine-generated",
        Origin::Source(_) => "found",
        Origin::Unknown => return recipe.task.hf_annotations_creators(),
    };
    vec![c.to_string()]
}

/// A row's label as the distribution counts it: a number by its 0.5-wide bin (STS
/// scores), a string or integer as written; `None` when the row has no label.
fn label_of(row: &serde_json::Value) -> Option<String> {
    let v = [&row["labels"]["label"], &row["gold_label"], &row["label"]]
        .into_iter()
        .find(|v| !v.is_null())?;
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) if n.is_f64() => {
            let b = ((n.as_f64()? / 0.5).floor().max(0.0) as usize).min(9);
            let lo = b as f64 * 0.5;
            Some(if b == 9 {
                format!("[{lo:.1}, 5.0]")
            } else {
                format!("[{lo:.1}, {:.1})", lo + 0.5)
            })
        }
        other => Some(other.to_string()),
    }
}

/// Each split's label counts, read back from `<task>/<split>.jsonl` under `dir`.
pub(super) fn distribution<'a>(
    dir: &Path,
    task: &str,
    splits: impl Iterator<Item = &'a String>,
) -> Result<BTreeMap<String, BTreeMap<String, u64>>, CardError> {
    let mut out = BTreeMap::new();
    for split in splits {
        let rel = format!("{task}/{split}.jsonl");
        let read = |e: &dyn std::fmt::Display| CardError::Read {
            path: rel.clone(),
            message: e.to_string(),
        };
        let f = std::fs::File::open(dir.join(&rel)).map_err(|e| read(&e))?;
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for line in std::io::BufReader::new(f).lines() {
            let row: serde_json::Value =
                serde_json::from_str(&line.map_err(|e| read(&e))?).map_err(|e| read(&e))?;
            if let Some(l) = label_of(&row) {
                *counts.entry(l).or_default() += 1;
            }
        }
        out.insert(split.clone(), counts);
    }
    Ok(out)
}

/// The targets the stages could not meet, one line each (`<stage>: <target>: <got> of
/// <wanted> (<why>)`), for the card and the run's funnel.
pub fn unmet_lines(m: &Manifest) -> Vec<String> {
    let mut lines = Vec::new();
    for (stage, figs) in &m.metrics {
        for u in figs
            .get("targets_not_met")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            lines.push(format!(
                "{stage}: {}: {} of {} ({})",
                u["target"].as_str().unwrap_or("?"),
                u["got"],
                u["wanted"],
                u["why"].as_str().unwrap_or("")
            ));
        }
    }
    lines
}

/// The card's `## Labels` section: origin, the simulated-labels warning, the label
/// distribution of every split and the targets not met.
pub(super) fn section(recipe: &Recipe, m: &Manifest, facts: &CardFacts) -> String {
    let mut s = String::from("## Labels\n\n");
    match origin(recipe, m) {
        Origin::Stage(stage, o) if o == "simulated" => {
            let _ = writeln!(
                s,
                "Annotations: **simulated**. Every label was drawn by the `{stage}` stage's seeded \
                 simulated annotators, not given by people. **The labels are simulated and not for \
                 publication**: use this release to test a pipeline, not to report or compare models.\n"
            );
        }
        Origin::Stage(stage, o) => {
            let who = if o == "human" {
                "people's annotations, imported"
            } else {
                "a model's labels, made"
            };
            let _ = writeln!(s, "Annotations: **{o}**: {who} by the `{stage}` stage.\n");
        }
        Origin::Source(fields) => {
            let named: Vec<String> = fields
                .iter()
                .map(|(src, f)| format!("`{src}` field `{f}`"))
                .collect();
            let _ = writeln!(
                s,
                "Annotations: **human**, carried from the source data ({}): the labels its own annotators gave.\n",
                named.join(", ")
            );
        }
        Origin::Unknown => {
            s.push_str("Annotations: no stage records where the labels came from.\n\n")
        }
    }
    write_distribution(&mut s, m, facts);
    let unmet = unmet_lines(m);
    if !unmet.is_empty() {
        s.push_str("Split targets the corpus could not meet:\n\n");
        for l in unmet {
            let _ = writeln!(s, "- {}", super::text::md_inline(&l));
        }
        s.push('\n');
    }
    s
}

fn write_distribution(s: &mut String, m: &Manifest, facts: &CardFacts) {
    let Some(task_splits) = m.splits.values().next() else {
        return;
    };
    let splits: Vec<&String> = super::in_role_order(m, task_splits)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| facts.labels.contains_key(*n))
        .collect();
    let mut labels: Vec<&String> = facts.labels.values().flat_map(|c| c.keys()).collect();
    labels.sort();
    labels.dedup();
    if labels.is_empty() {
        return;
    }
    s.push_str("Label distribution per split:\n\n| label |");
    for sp in &splits {
        let _ = write!(s, " {sp} |");
    }
    s.push_str("\n| --- |");
    s.push_str(&" ---: |".repeat(splits.len()));
    s.push('\n');
    for l in labels {
        let _ = write!(s, "| {} |", super::text::md_inline(l));
        for sp in &splits {
            let n = facts.labels[*sp].get(l).copied().unwrap_or(0);
            let _ = write!(s, " {n} |");
        }
        s.push('\n');
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_count_by_half_point_bin_and_class_labels_as_written() {
        let sts = |x: f64| json!({"labels": {"label": x}});
        assert_eq!(label_of(&sts(0.0)).as_deref(), Some("[0.0, 0.5)"));
        assert_eq!(label_of(&sts(2.5)).as_deref(), Some("[2.5, 3.0)"));
        assert_eq!(label_of(&sts(5.0)).as_deref(), Some("[4.5, 5.0]"));
        let nli = json!({"gold_label": "neutral", "label": 1});
        assert_eq!(label_of(&nli).as_deref(), Some("neutral"));
        assert_eq!(label_of(&json!({"label": 3})).as_deref(), Some("3"));
        assert_eq!(label_of(&json!({"text": "x"})), None);
    }
}
