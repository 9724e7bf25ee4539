//! `why`: the lineage of one item.

use crate::{AuditError, json_lines, related, row_id, rows};
use kcurate_release::Manifest;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

#[derive(Debug, Clone, Serialize)]
pub struct Lineage {
    pub item: String,
    /// The input file and line it came from.
    pub origin: Option<String>,
    pub source: Option<String>,
    /// Every decision on the item, its document or its sentences, in pipeline order.
    pub decisions: Vec<Value>,
    /// `task/split` when the item is in the release, else `dropped at <stage> by <rule>`.
    pub ended: String,
    /// The stages it passed, in order, up to where it ended.
    pub stages: Vec<String>,
}

/// Finds an item by id, or by its exact text among the released rows.
pub fn why(dir: &Path, id: Option<&str>, text: Option<&str>) -> Result<Vec<Lineage>, AuditError> {
    let m = Manifest::load(&dir.join("manifest.json"))?;
    let all_rows = rows(dir)?;
    let ids: Vec<String> = match (id, text) {
        (Some(i), _) => vec![i.to_string()],
        (None, Some(t)) => all_rows
            .iter()
            .filter(|(_, _, v)| {
                ["text", "sentence1", "premise"]
                    .iter()
                    .any(|k| v[*k].as_str() == Some(t))
            })
            .filter_map(|(_, _, v)| row_id(v).map(String::from))
            .collect(),
        (None, None) => Vec::new(),
    };
    let decisions = json_lines(&dir.join("audit/decisions.jsonl"))?;
    let order: Vec<String> = m.stages.iter().map(|s| s.name.clone()).collect();
    let mut out = Vec::new();
    for id in ids {
        let mut ds: Vec<Value> = decisions
            .iter()
            .filter(|(_, d)| d["item"].as_str().is_some_and(|x| related(x, &id)))
            .map(|(_, d)| d.clone())
            .collect();
        ds.sort_by_key(|d| {
            order
                .iter()
                .position(|s| d["stage"].as_str() == Some(s.as_str()))
                .unwrap_or(usize::MAX)
        });
        let row = all_rows
            .iter()
            .find(|(_, _, v)| row_id(v) == Some(id.as_str()));
        let own_drop = ds.iter().find(|d| {
            d["action"] == "drop"
                && d["item"]
                    .as_str()
                    .is_some_and(|x| x == id || id.starts_with(&format!("{x}-s")))
        });
        let (ended, last) = match (row, own_drop) {
            (Some((task, split, _)), _) => (format!("{task}/{split}"), order.len()),
            (None, Some(d)) => {
                let st = d["stage"].as_str().unwrap_or("?").to_string();
                (
                    format!("dropped at {st} by {}", d["rule"].as_str().unwrap_or("?")),
                    order
                        .iter()
                        .position(|s| *s == st)
                        .map_or(order.len(), |p| p + 1),
                )
            }
            (None, None) => ("not found in this release".to_string(), 0),
        };
        let origin = row
            .and_then(|(_, _, v)| v["origin"].as_str().map(String::from))
            .or_else(|| {
                ds.first()
                    .and_then(|d| d["origin"].as_str().map(String::from))
            });
        let source = row
            .and_then(|(_, _, v)| v["source"].as_str().map(String::from))
            .or_else(|| {
                ds.first()
                    .and_then(|d| d["source"].as_str().map(String::from))
            });
        out.push(Lineage {
            item: id,
            origin,
            source,
            decisions: ds,
            ended,
            stages: order[..last.min(order.len())].to_vec(),
        });
    }
    Ok(out)
}

pub fn render(l: &Lineage) -> String {
    let mut s = format!(
        "item    {}\nsource  {}\norigin  {}\nstages  {}\n",
        l.item,
        l.source.as_deref().unwrap_or("?"),
        l.origin.as_deref().unwrap_or("?"),
        l.stages.join(" → ")
    );
    for d in &l.decisions {
        let span = d
            .get("span")
            .filter(|v| v.is_object())
            .map(|sp| {
                format!(
                    " [{}..{}] {:?} → {:?}",
                    sp["start"],
                    sp["end"],
                    sp["before"].as_str().unwrap_or(""),
                    sp["after"].as_str().unwrap_or("")
                )
            })
            .unwrap_or_default();
        let score = d
            .get("score")
            .and_then(Value::as_f64)
            .map(|x| format!(" score {x}"))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {:<9} {:<5} {:<28} {}{span}{score}\n",
            d["stage"].as_str().unwrap_or(""),
            d["action"].as_str().unwrap_or(""),
            d["rule"].as_str().unwrap_or(""),
            d["detail"].as_str().unwrap_or("")
        ));
    }
    s.push_str(&format!("ended   {}\n", l.ended));
    s
}
