//! Annotation files: long TSV/CSV (a header naming `item`, `annotator`, `label` or `value`,
//! optional `flags`), long JSONL (`{"item","annotator","label"}`), wide TSV/CSV (`item`
//! then one column per annotator), and Label Studio JSON (export task batches, import a
//! completed export). Bad rows become decisions naming file:line, never silent drops.

use crate::label::{Label, Matrix};
use kcurate_core::{Action, Decision, RuleId};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub item: String,
    pub annotator: String,
    pub value: Label,
    /// pii, toxic, bias, unsure, ...
    pub flags: Vec<String>,
}

/// What values are acceptable.
#[derive(Debug, Clone, Default)]
pub enum Scale {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Long,
    Wide,
    LabelStudio,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "long" => Ok(Format::Long),
            "wide" => Ok(Format::Wide),
            "label-studio" => Ok(Format::LabelStudio),
            _ => Err(format!("unknown format {s:?} (long, wide, label-studio)")),
        }
    }
}

/// Annotations read from a file, with the rows that were refused as decisions.
#[derive(Debug, Clone, Default)]
pub struct Annotations {
    pub rows: Vec<Annotation>,
    pub rejected: Vec<Decision>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Format {
        path: String,
        line: u64,
        message: String,
    },
}

fn reject(path: &str, line: u64, item: &str, rule: &str, detail: String) -> Decision {
    Decision {
        item: item.to_string(),
        stage: "agree".into(),
        rule: RuleId::new(rule),
        action: Action::Drop,
        detail: format!("{path}:{line}: {detail}"),
        score: None,
        span: None,
        text: None,
        source: "annotations".into(),
        origin: format!("{path}:{line}"),
    }
}

/// Parses a cell: a number when it reads as one, else text.
pub fn parse_value(s: &str) -> Label {
    let t = s.trim();
    t.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map_or_else(|| Label::Text(t.to_string()), Label::Num)
}

/// Reads annotations, validating each row: known item (when `known_items` is given), a
/// value on the scale, at most one annotation per annotator and item.
pub fn read(
    path: &Path,
    format: Format,
    scale: &Scale,
    known_items: Option<&BTreeSet<String>>,
) -> Result<Annotations, ReadError> {
    let shown = path.display().to_string();
    let raw: Vec<(u64, String, String, String, Vec<String>)> = match format {
        Format::LabelStudio => read_label_studio(path)?,
        _ if shown.ends_with(".jsonl") => read_jsonl(path)?,
        Format::Long => read_delimited_long(path)?,
        Format::Wide => read_delimited_wide(path)?,
    };
    let mut out = Annotations::default();
    let mut seen = BTreeSet::new();
    for (line, item, annotator, value, flags) in raw {
        if item.is_empty() || annotator.is_empty() {
            out.rejected.push(reject(
                &shown,
                line,
                &item,
                "agree.bad_row",
                "empty item or annotator".into(),
            ));
            continue;
        }
        if let Some(k) = known_items
            && !k.contains(&item)
        {
            out.rejected.push(reject(
                &shown,
                line,
                &item,
                "agree.unknown_item",
                format!("unknown item {item:?}"),
            ));
            continue;
        }
        let v = parse_value(&value);
        if let Err(e) = scale.check(&v) {
            out.rejected
                .push(reject(&shown, line, &item, "agree.out_of_scale", e));
            continue;
        }
        if !seen.insert((item.clone(), annotator.clone())) {
            out.rejected.push(reject(
                &shown,
                line,
                &item,
                "agree.duplicate",
                format!("annotator {annotator:?} already labelled item {item:?}"),
            ));
            continue;
        }
        out.rows.push(Annotation {
            item,
            annotator,
            value: v,
            flags,
        });
    }
    Ok(out)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ReadError + '_ {
    move |e| ReadError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

fn delimiter(path: &Path) -> u8 {
    if path.extension().is_some_and(|e| e == "csv") {
        b','
    } else {
        b'\t'
    }
}

type RawRow = (u64, String, String, String, Vec<String>);

fn read_delimited_long(path: &Path) -> Result<Vec<RawRow>, ReadError> {
    let shown = path.display().to_string();
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter(path))
        .flexible(true)
        .from_path(path)
        .map_err(|e| ReadError::Io {
            path: shown.clone(),
            source: std::io::Error::other(e),
        })?;
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: 1,
            message: e.to_string(),
        })?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(ci), Some(ca)) = (col("item"), col("annotator")) else {
        return Err(ReadError::Format {
            path: shown,
            line: 1,
            message: format!(
                "the header must name `item` and `annotator` (found: {})",
                headers.join(", ")
            ),
        });
    };
    let Some(cv) = col("label").or_else(|| col("value")) else {
        return Err(ReadError::Format {
            path: shown,
            line: 1,
            message: "the header must name `label` or `value`".into(),
        });
    };
    let cf = col("flags");
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: e.position().map_or(0, |p| p.line()),
            message: e.to_string(),
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let get = |i: usize| rec.get(i).unwrap_or("").to_string();
        let flags = cf
            .map(|i| {
                get(i)
                    .split(',')
                    .map(|f| f.trim().to_string())
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        rows.push((line, get(ci), get(ca), get(cv), flags));
    }
    Ok(rows)
}

fn read_delimited_wide(path: &Path) -> Result<Vec<RawRow>, ReadError> {
    let shown = path.display().to_string();
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter(path))
        .flexible(true)
        .from_path(path)
        .map_err(|e| ReadError::Io {
            path: shown.clone(),
            source: std::io::Error::other(e),
        })?;
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: 1,
            message: e.to_string(),
        })?
        .iter()
        .map(String::from)
        .collect();
    if headers.first().map(|h| h.trim_start_matches('\u{feff}')) != Some("item") {
        return Err(ReadError::Format {
            path: shown,
            line: 1,
            message: "a wide file starts with an `item` column, then one column per annotator"
                .into(),
        });
    }
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: e.position().map_or(0, |p| p.line()),
            message: e.to_string(),
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let item = rec.get(0).unwrap_or("").to_string();
        for (k, ann) in headers.iter().enumerate().skip(1) {
            let v = rec.get(k).unwrap_or("").trim();
            if !v.is_empty() {
                rows.push((line, item.clone(), ann.clone(), v.to_string(), Vec::new()));
            }
        }
    }
    Ok(rows)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn read_jsonl(path: &Path) -> Result<Vec<RawRow>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let mut rows = Vec::new();
    for (n, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(l).map_err(|e| ReadError::Format {
            path: path.display().to_string(),
            line: n as u64 + 1,
            message: format!("invalid JSON: {e}"),
        })?;
        let value = v
            .get("label")
            .or_else(|| v.get("value"))
            .map(scalar)
            .unwrap_or_default();
        let flags = v
            .get("flags")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect())
            .unwrap_or_default();
        rows.push((
            n as u64 + 1,
            v.get("item").map(scalar).unwrap_or_default(),
            v.get("annotator").map(scalar).unwrap_or_default(),
            value,
            flags,
        ));
    }
    Ok(rows)
}

/// A completed Label Studio export: a JSON array of tasks, each with `data.item` (or the
/// task `id`) and `annotations[].result[].value.{choices|number|rating}` plus
/// `annotations[].completed_by`.
fn read_label_studio(path: &Path) -> Result<Vec<RawRow>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let shown = path.display().to_string();
    let tasks: Vec<Value> = serde_json::from_str(&text).map_err(|e| ReadError::Format {
        path: shown.clone(),
        line: e.line() as u64,
        message: format!("not a Label Studio export: {e}"),
    })?;
    let mut rows = Vec::new();
    for (t, task) in tasks.iter().enumerate() {
        let item = task
            .pointer("/data/item")
            .or_else(|| task.get("id"))
            .map(scalar)
            .unwrap_or_default();
        for ann in task
            .get("annotations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let who = ann
                .get("completed_by")
                .map(|c| c.get("email").map(scalar).unwrap_or_else(|| scalar(c)))
                .unwrap_or_default();
            for r in ann
                .get("result")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let v = &r["value"];
                let value = v
                    .get("choices")
                    .and_then(|c| c.get(0))
                    .or_else(|| v.get("number"))
                    .or_else(|| v.get("rating"))
                    .map(scalar)
                    .unwrap_or_default();
                rows.push((t as u64 + 1, item.clone(), who.clone(), value, Vec::new()));
            }
        }
    }
    Ok(rows)
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
            Decision {
                item: item.to_string(),
                stage: "agree".into(),
                rule: RuleId::new(format!("agree.flag_{flag}")),
                action: Action::Drop,
                detail: format!("flagged {flag} by {}", who.join(", ")),
                score: None,
                span: None,
                text: None,
                source: "annotations".into(),
                origin: String::new(),
            }
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
            {"completed_by": 3, "result": [{"value": {"choices": ["entailment"]}}]},
            {"completed_by": 4, "result": [{"value": {"choices": ["neutral"]}}]}]}]);
        std::fs::write(&p, export.to_string()).unwrap();
        let a = read(&p, Format::LabelStudio, &Scale::Any, None).unwrap();
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[1].value, Label::Text("neutral".into()));
        let batch = export_label_studio(&[("p1".into(), vec![("premise".into(), "문장".into())])]);
        assert_eq!(batch[0]["data"]["premise"], "문장");
    }
}
