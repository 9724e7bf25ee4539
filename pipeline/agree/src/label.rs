//! Ratings: a label is a number or a text; a matrix holds annotators × items.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// One rating. Numbers order numerically and before texts; texts order by bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Label {
    /// A number (a score, or a category written as a number).
    Num(f64),
    /// A text category.
    Text(String),
}

impl Label {
    /// The number, or `None` for a text.
    pub fn num(&self) -> Option<f64> {
        match self {
            Label::Num(x) => Some(*x),
            Label::Text(_) => None,
        }
    }

    /// From a JSON value (numbers and strings; anything else is not a label).
    pub fn from_json(v: &serde_json::Value) -> Option<Label> {
        match v {
            serde_json::Value::Number(n) => n.as_f64().map(Label::Num),
            serde_json::Value::String(s) => Some(Label::Text(s.clone())),
            _ => None,
        }
    }

    /// As JSON: a whole number below 1e15 as an integer (`3`, not `3.0`), other numbers as
    /// floats, texts as strings.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Label::Num(x) if x.fract() == 0.0 && x.abs() < 1e15 => serde_json::json!(*x as i64),
            Label::Num(x) => serde_json::json!(x),
            Label::Text(s) => serde_json::json!(s),
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Num(x) => write!(f, "{x}"),
            Label::Text(s) => f.write_str(s),
        }
    }
}

impl PartialEq for Label {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Label {}
impl PartialOrd for Label {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Label {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self, o) {
            (Label::Num(a), Label::Num(b)) => a.total_cmp(b),
            (Label::Num(_), Label::Text(_)) => Ordering::Less,
            (Label::Text(_), Label::Num(_)) => Ordering::Greater,
            (Label::Text(a), Label::Text(b)) => a.cmp(b),
        }
    }
}

/// Ratings, rows = annotators, columns = items, `None` = missing.
#[derive(Debug, Clone, Default)]
pub struct Matrix {
    /// One row per annotator; rows may be shorter than the item count (the rest missing).
    pub rows: Vec<Vec<Option<Label>>>,
}

impl Matrix {
    /// From annotator rows.
    pub fn new(rows: Vec<Vec<Option<Label>>>) -> Self {
        Matrix { rows }
    }

    /// Number of annotators (rows).
    pub fn annotators(&self) -> usize {
        self.rows.len()
    }

    /// Number of items: the longest row.
    pub fn items(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Annotator `a`'s label of item `i`, `None` when missing or out of range.
    pub fn get(&self, a: usize, i: usize) -> Option<&Label> {
        self.rows
            .get(a)
            .and_then(|r| r.get(i))
            .and_then(Option::as_ref)
    }

    /// The labels of item `i`, in annotator order.
    pub fn column(&self, i: usize) -> Vec<&Label> {
        (0..self.annotators())
            .filter_map(|a| self.get(a, i))
            .collect()
    }

    /// Every distinct label, sorted.
    pub fn values(&self) -> Vec<Label> {
        let mut v: Vec<Label> = self.rows.iter().flatten().flatten().cloned().collect();
        v.sort();
        v.dedup();
        v
    }

    /// The matrix without annotator `a`.
    pub fn without(&self, a: usize) -> Matrix {
        Matrix {
            rows: self
                .rows
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != a)
                .map(|(_, r)| r.clone())
                .collect(),
        }
    }

    /// From JSON rows (numbers, strings, nulls).
    pub fn from_json(rows: &serde_json::Value) -> Option<Matrix> {
        let rows = rows.as_array()?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(r.as_array()?.iter().map(Label::from_json).collect());
        }
        Some(Matrix { rows: out })
    }
}
