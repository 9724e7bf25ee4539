//! Annotation rows as other shapes: a Label Studio task batch, a dense matrix, and the
//! flag decisions of flagged items.

use super::{Annotation, annotation_drop};
use crate::label::Matrix;
use kcurate_core::{Decision, RuleId};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

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
    use super::super::{Format, Scale, read};
    use super::*;
    use crate::label::Label;

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
