//! The people's side of KLUE NLI (§3.3): a batch of premises for writers (one hypothesis per
//! label), a batch of written pairs for validators, and gold from the writer's label plus
//! the validators' (k of n; no gold otherwise), with KLUE's Table 5 statistics.

use super::select::{LABELS, Pair};
use kcurate_agree::aggregate::{ValidationStats, majority, validation_stats};
use kcurate_agree::batch::Item;
use kcurate_agree::io::Annotation;
use kcurate_agree::label::Label;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One writer task per premise and label: `{"id","premise_id","premise","label","source","hypothesis":""}`.
pub fn writer_batch(premises: &[(String, String, Option<String>)]) -> Vec<Value> {
    premises
        .iter()
        .flat_map(|(id, p, src)| LABELS.iter().map(move |l| json!({"id": format!("{id}-{l}"), "premise_id": id, "premise": p, "label": l, "source": src, "hypothesis": ""})))
        .collect()
}

/// Validator items (Label Studio's tasks): each pair's premise and hypothesis.
pub fn validator_items(pairs: &[Pair]) -> Vec<Item> {
    pairs
        .iter()
        .map(|p| {
            (
                p.id.clone(),
                vec![
                    ("premise".into(), p.premise.clone()),
                    ("hypothesis".into(), p.hypothesis.clone()),
                ],
            )
        })
        .collect()
}

/// The validators' long TSV template (`item, annotator, label` with the label left empty)
/// for `validators` annotators.
pub fn validator_batch(pairs: &[Pair], validators: usize) -> String {
    let mut s = String::from("item\tannotator\tlabel\n");
    for p in pairs {
        for v in 0..validators {
            s.push_str(&format!("{}\tvalidator{:02}\t\n", p.id, v + 1));
        }
    }
    s
}

/// A pair with its gold, or why it has none.
pub struct Gold {
    /// KLUE NLI rows (guid, source, premise, hypothesis, gold_label, author, label2…).
    pub rows: Vec<Value>,
    /// (pair id, detail) of pairs without gold.
    pub no_gold: Vec<(String, String)>,
    /// KLUE Table 5's figures over the validated pairs.
    pub stats: ValidationStats,
}

/// Gold = the label with at least `min_votes` among the writer's and the validators' labels.
pub fn gold(pairs: &[Pair], votes: &[Annotation], min_votes: usize) -> Gold {
    let mut by_item: BTreeMap<&str, Vec<(&str, String)>> = BTreeMap::new();
    for a in votes {
        by_item
            .entry(a.item.as_str())
            .or_default()
            .push((a.annotator.as_str(), a.value.to_string()));
    }
    let (mut rows, mut no_gold, mut all) = (Vec::new(), Vec::new(), Vec::new());
    for p in pairs {
        let mut labels = vec![p.label.clone()];
        let mut v = by_item.get(p.id.as_str()).cloned().unwrap_or_default();
        v.sort();
        labels.extend(v.into_iter().map(|x| x.1));
        let l: Vec<Label> = labels.iter().map(|x| Label::Text(x.clone())).collect();
        all.push(l.clone());
        let refs: Vec<&Label> = l.iter().collect();
        match majority(&refs, min_votes) {
            Some(g) => {
                let mut row = serde_json::Map::new();
                row.insert("guid".into(), json!(p.id));
                row.insert("source".into(), json!(p.source));
                row.insert("premise".into(), json!(p.premise));
                row.insert("hypothesis".into(), json!(p.hypothesis));
                row.insert("gold_label".into(), json!(g.to_string()));
                row.insert("author".into(), json!(labels[0]));
                for (k, x) in labels.iter().enumerate().skip(1) {
                    row.insert(format!("label{}", k + 1), json!(x));
                }
                rows.push(Value::Object(row));
            }
            None => no_gold.push((
                p.id.clone(),
                format!(
                    "no label reached {min_votes} of {}: {}",
                    labels.len(),
                    labels.join(", ")
                ),
            )),
        }
    }
    Gold {
        rows,
        no_gold,
        stats: validation_stats(&all, min_votes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_and_validator_batches_and_gold() {
        let w = writer_batch(&[("p1".into(), "철수는 학교에 갔다.".into(), None)]);
        assert_eq!(w.len(), 3);
        assert_eq!(w[2]["id"], "p1-contradiction");
        let pairs = vec![
            Pair {
                id: "a".into(),
                premise: "철수는 학교에 갔다.".into(),
                hypothesis: "철수는 집에 있었다.".into(),
                label: "contradiction".into(),
                source: None,
            },
            Pair {
                id: "b".into(),
                premise: "철수는 학교에 갔다.".into(),
                hypothesis: "철수는 학생이다.".into(),
                label: "neutral".into(),
                source: None,
            },
        ];
        assert_eq!(validator_batch(&pairs, 4).lines().count(), 9);
        assert_eq!(validator_items(&pairs).len(), 2);
        let vote = |i: &str, who: &str, l: &str| Annotation {
            item: i.into(),
            annotator: who.into(),
            value: Label::Text(l.into()),
            flags: vec![],
        };
        let votes = vec![
            vote("a", "v1", "contradiction"),
            vote("a", "v2", "contradiction"),
            vote("a", "v3", "neutral"),
            vote("a", "v4", "contradiction"),
            vote("b", "v1", "entailment"),
            vote("b", "v2", "entailment"),
            vote("b", "v3", "contradiction"),
            vote("b", "v4", "contradiction"),
        ];
        let g = gold(&pairs, &votes, 3);
        assert_eq!(g.rows.len(), 1);
        assert_eq!(g.rows[0]["gold_label"], "contradiction");
        assert_eq!(g.rows[0]["label5"], "contradiction");
        assert_eq!(g.no_gold[0].0, "b");
        assert_eq!(g.stats.no_gold, 0.5);
    }
}
