//! What `kcurate agree` prints: items, annotators, coverage, α with a bootstrap interval,
//! Fleiss' κ, per-annotator reliability; and the aggregated labels.

use crate::aggregate::{majority, mean_score};
use crate::alpha::{Level, UnitCounts, alpha_counts, bootstrap_ci};
use crate::dawid_skene::{Model, Responses, fit};
use crate::io::{Annotation, to_matrix};
use crate::kappa::{count_table, fleiss};
use crate::label::Label;
use crate::reliability::{Reliability, reliability};
use serde::Serialize;
use serde_json::{Value, json};

/// Fixed precision for everything printed or written, so output bytes never depend on
/// summation order.
pub fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[derive(Debug, Clone, Serialize)]
pub struct AnnotatorRow {
    pub annotator: String,
    pub labels: usize,
    pub pearson_r: Option<f64>,
    pub alpha_nominal_with_others: Option<f64>,
    pub alpha_without: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub items: usize,
    pub annotators: usize,
    pub labels: usize,
    /// Filled cells / (items × annotators).
    pub coverage: f64,
    pub level: Level,
    pub alpha: Option<f64>,
    pub alpha_ci95: Option<(f64, f64)>,
    pub fleiss_kappa: Option<f64>,
    pub reliability: Vec<AnnotatorRow>,
}

pub fn summarize(
    rows: &[Annotation],
    level: Level,
    bootstrap: usize,
    seed: u64,
) -> Result<Summary, crate::alpha::AlphaError> {
    let (annotators, items, m) = to_matrix(rows);
    let u = UnitCounts::from_matrix(&m);
    let alpha = alpha_counts(&u, level)?;
    let ci = bootstrap_ci(&u, level, bootstrap, 0.95, seed)?;
    let (_, table) = count_table(&m, &[]);
    let numeric = m.values().iter().all(|v| v.num().is_some());
    let rel: Vec<Reliability> = if numeric { reliability(&m) } else { Vec::new() };
    let per: Vec<AnnotatorRow> = annotators
        .iter()
        .enumerate()
        .map(|(a, name)| {
            let r = rel.get(a);
            let without = if level == Level::Nominal {
                r.and_then(|r| r.alpha_nominal_leave_one_out)
            } else {
                r.and_then(|r| r.alpha_interval_leave_one_out)
            };
            AnnotatorRow {
                annotator: name.clone(),
                labels: m.rows[a].iter().flatten().count(),
                pearson_r: r.and_then(|r| r.pearson_r).map(r6),
                alpha_nominal_with_others: pairwise_nominal(&m, a).map(r6),
                alpha_without: without
                    .or_else(|| {
                        alpha_counts(&UnitCounts::from_matrix(&m.without(a)), level)
                            .ok()
                            .flatten()
                    })
                    .map(r6),
            }
        })
        .collect();
    let cells = items.len() * annotators.len();
    Ok(Summary {
        items: items.len(),
        annotators: annotators.len(),
        labels: rows.len(),
        coverage: if cells == 0 {
            0.0
        } else {
            r6(rows.len() as f64 / cells as f64)
        },
        level,
        alpha: alpha.map(r6),
        alpha_ci95: ci.map(|(a, b)| (r6(a), r6(b))),
        fleiss_kappa: fleiss(&table).map(r6),
        reliability: per,
    })
}

/// Mean nominal α of annotator `a` paired with each other annotator (labels of any kind).
fn pairwise_nominal(m: &crate::label::Matrix, a: usize) -> Option<f64> {
    let v: Vec<f64> = (0..m.annotators())
        .filter(|&b| b != a)
        .filter_map(|b| {
            let two = crate::label::Matrix::new(vec![m.rows[a].clone(), m.rows[b].clone()]);
            crate::alpha::alpha(&two, Level::Nominal).ok().flatten()
        })
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn show(x: Option<f64>) -> String {
    x.map_or("undefined".into(), |v| format!("{v:.4}"))
}

pub fn render_table(s: &Summary) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "items        {}\nannotators   {}\nlabels       {}\ncoverage     {:.1}%\n",
        s.items,
        s.annotators,
        s.labels,
        s.coverage * 100.0
    ));
    let ci = s
        .alpha_ci95
        .map_or(String::new(), |(a, b)| format!(" (95% CI {a:.4}–{b:.4})"));
    let level = format!("{:?}", s.level).to_lowercase();
    out.push_str(&format!(
        "alpha ({level})  {}{ci}\nfleiss kappa {}\n",
        show(s.alpha),
        show(s.fleiss_kappa)
    ));
    out.push_str("\nannotator            labels  pearson_r  alpha_w_others  alpha_without\n");
    for r in &s.reliability {
        out.push_str(&format!(
            "{:<20} {:>6}  {:>9}  {:>14}  {:>13}\n",
            r.annotator,
            r.labels,
            show(r.pearson_r),
            show(r.alpha_nominal_with_others),
            show(r.alpha_without)
        ));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    Majority { min_votes: usize },
    Mean { decimals: usize },
    DawidSkene { one_coin: bool },
}

/// One `{"item","label"}` object per item (first-seen order); `label` null where no gold.
pub fn aggregate(rows: &[Annotation], how: Aggregation) -> Vec<Value> {
    let (_, items, m) = to_matrix(rows);
    match how {
        Aggregation::Majority { min_votes } => items
            .iter()
            .enumerate()
            .map(|(i, id)| json!({"item": id, "label": majority(&m.column(i), min_votes).map(|l| l.to_json())}))
            .collect(),
        Aggregation::Mean { decimals } => items
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let s: Vec<f64> = m.column(i).iter().filter_map(|l| l.num()).collect();
                let ms = mean_score(&s, decimals);
                json!({"item": id, "label": ms.label, "real_label": ms.real_label.map(r6)})
            })
            .collect(),
        Aggregation::DawidSkene { one_coin } => {
            let cats: Vec<Label> = m.values();
            let mut r = Responses { items: items.len(), workers: m.annotators(), classes: cats.len(), rows: Vec::new() };
            for i in 0..m.items() {
                for w in 0..m.annotators() {
                    if let Some(l) = m.get(w, i) {
                        let c = cats.binary_search(l).expect("value listed");
                        r.rows.push((i as u32, w as u32, c as u16));
                    }
                }
            }
            let f = fit(&r, if one_coin { Model::OneCoin } else { Model::Full }, 100, 1e-5);
            items
                .iter()
                .enumerate()
                .map(|(i, id)| {
                    let label = f.labels[i].map(|c| cats[c].to_json());
                    let p = f.labels[i].map(|c| r6(f.probas[i][c]));
                    json!({"item": id, "label": label, "posterior": p})
                })
                .collect()
        }
    }
}
