//! What `kcurate agree` prints: items, annotators, coverage, α with a bootstrap interval,
//! Fleiss' κ, per-annotator reliability; and the aggregated labels.

use crate::aggregate::mean_score;
use crate::aggregators::Method;
use crate::alpha::{Level, Units, alpha_leave_one_out, alpha_units, bootstrap_units};
use crate::dawid_skene::{Model, Responses, fit};
use crate::io::Annotation;
use crate::kappa::fleiss_units;
use crate::label::Label;
use crate::reliability::reliability_table;
use crate::table::{Cell, Table};
use serde::Serialize;
use serde_json::Value;

/// Fixed precision for everything printed or written, so output bytes never depend on
/// summation order.
pub fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// One annotator's line of the report (figures rounded to 6 decimals, `None` = undefined).
#[derive(Debug, Clone, Serialize)]
pub struct AnnotatorRow {
    /// The annotator's name in the input.
    pub annotator: String,
    /// Labels the annotator gave.
    pub labels: usize,
    /// Pearson r against the mean of the others on the same items (numeric values only).
    pub pearson_r: Option<f64>,
    /// Mean nominal α of the annotator with each other annotator, two rows at a time.
    pub alpha_nominal_with_others: Option<f64>,
    /// α of everyone else at the report's level: above the overall α, this annotator
    /// lowers agreement.
    pub alpha_without: Option<f64>,
}

/// What `kcurate agree` reports (figures rounded to 6 decimals, `None` = undefined).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Distinct items.
    pub items: usize,
    /// Distinct annotators.
    pub annotators: usize,
    /// Labels (filled cells).
    pub labels: usize,
    /// Filled cells / (items × annotators).
    pub coverage: f64,
    /// The level α is computed at.
    pub level: Level,
    /// Krippendorff's α at `level`.
    pub alpha: Option<f64>,
    /// 95% bootstrap interval of α over units (`None` without replicates or when undefined).
    pub alpha_ci95: Option<(f64, f64)>,
    /// Fleiss' κ (unequal raters per item allowed).
    pub fleiss_kappa: Option<f64>,
    /// One row per annotator, in the table's annotator order.
    pub reliability: Vec<AnnotatorRow>,
}

/// [`summarize_table`] over annotation rows.
pub fn summarize(
    rows: &[Annotation],
    level: Level,
    bootstrap: usize,
    seed: u64,
) -> Result<Summary, crate::alpha::AlphaError> {
    summarize_table(&Table::from_annotations(rows), level, bootstrap, seed)
}

/// Items, annotators, coverage, α with its bootstrap interval, Fleiss' κ and a row per
/// annotator (labels, Pearson r against the others' mean, mean pairwise nominal α, α without
/// the annotator at `level`), all in time linear in the number of annotations.
pub fn summarize_table(
    t: &Table,
    level: Level,
    bootstrap: usize,
    seed: u64,
) -> Result<Summary, crate::alpha::AlphaError> {
    let u = Units::from_table(t);
    let alpha = alpha_units(&u, level)?;
    let ci = bootstrap_units(&u, level, bootstrap, 0.95, seed)?;
    let without = alpha_leave_one_out(t, &u, level)?;
    let rel = reliability_table(t);
    let per: Vec<AnnotatorRow> = t
        .annotators
        .iter()
        .zip(rel)
        .zip(without)
        .map(|((name, r), without)| AnnotatorRow {
            annotator: name.clone(),
            labels: r.labels,
            pearson_r: r.pearson_r.map(r6),
            alpha_nominal_with_others: r.alpha_nominal_pairwise_mean.map(r6),
            alpha_without: without.map(r6),
        })
        .collect();
    let cells = t.items.len() * t.annotators.len();
    Ok(Summary {
        items: t.items.len(),
        annotators: t.annotators.len(),
        labels: t.len(),
        coverage: if cells == 0 {
            0.0
        } else {
            r6(t.len() as f64 / cells as f64)
        },
        level,
        alpha: alpha.map(r6),
        alpha_ci95: ci.map(|(a, b)| (r6(a), r6(b))),
        fleiss_kappa: fleiss_units(&u).map(r6),
        reliability: per,
    })
}

fn show(x: Option<f64>) -> String {
    x.map_or("undefined".into(), |v| format!("{v:.4}"))
}

/// The plain-text report `kcurate agree` prints without `--json`.
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

/// How `kcurate agree --aggregate` turns an item's labels into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    /// The label given by at least `min_votes` annotators, with no tie; else no gold.
    Majority {
        /// Votes the winning label needs.
        min_votes: usize,
    },
    /// The mean score, rounded half to even.
    Mean {
        /// Decimal places of the rounded label.
        decimals: usize,
    },
    /// Dawid–Skene EM posteriors' arg max.
    DawidSkene {
        /// The one-coin model instead of full confusion matrices.
        one_coin: bool,
    },
    /// One of crowd-kit's skill-weighted models (its label and that label's probability,
    /// written as Dawid–Skene's are).
    Crowd(Method),
}

/// [`aggregate_table`] over annotation rows.
pub fn aggregate(rows: &[Annotation], how: Aggregation) -> Vec<Value> {
    aggregate_table(&Table::from_annotations(rows), how)
}

/// One aggregated item as `kcurate agree --aggregate` writes it (a JSON object with these
/// fields in this order; `label` null where there is no gold).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum AggRow<'a> {
    /// `{"item","label"}`.
    Majority {
        /// The item's id.
        item: &'a str,
        /// The majority label, as its input JSON.
        label: Option<&'a Value>,
    },
    /// `{"item","label","real_label"}`.
    Mean {
        /// The item's id.
        item: &'a str,
        /// The mean rounded half to even.
        label: Option<f64>,
        /// The mean, 6 decimals.
        real_label: Option<f64>,
    },
    /// `{"item","label","posterior"}`.
    DawidSkene {
        /// The item's id.
        item: &'a str,
        /// The posterior's arg max, as its input JSON.
        label: Option<&'a Value>,
        /// Its posterior probability in [0, 1], 6 decimals.
        posterior: Option<f64>,
    },
}

/// The k-of-n majority of one item's cells by value index (interned values are equal
/// exactly when their indices are): the value given at least `min_votes` times when no other
/// value is given as often. `counts` is scratch of at least `values` zeros, left zeroed.
pub fn majority_cells(cells: &[Cell], min_votes: usize, counts: &mut [u32]) -> Option<u32> {
    let (mut top, mut best, mut shared) = (0u32, 0u32, false);
    for c in cells {
        let n = &mut counts[c.value as usize];
        *n += 1;
        if *n > top {
            (top, best, shared) = (*n, c.value, false);
        } else if *n == top {
            shared = true;
        }
    }
    for c in cells {
        counts[c.value as usize] = 0;
    }
    (top > 0 && top as usize >= min_votes && !shared).then_some(best)
}

/// Calls `f` with each item's aggregated row, items in first-seen order, in time linear in
/// the number of annotations (nothing is collected: the CLI writes each row as it comes).
pub fn for_each_aggregate<E>(
    t: &Table,
    how: Aggregation,
    mut f: impl FnMut(&AggRow<'_>) -> Result<(), E>,
) -> Result<(), E> {
    // Each distinct value's JSON once, not once per item.
    let json: Vec<Value> = t.values.iter().map(Label::to_json).collect();
    match how {
        Aggregation::Majority { min_votes } => {
            let mut counts = vec![0u32; t.values.len()];
            for (i, id) in t.items.iter().enumerate() {
                let gold = majority_cells(t.item(i), min_votes, &mut counts);
                f(&AggRow::Majority {
                    item: id,
                    label: gold.map(|v| &json[v as usize]),
                })?;
            }
        }
        Aggregation::Mean { decimals } => {
            let mut s: Vec<f64> = Vec::new();
            for (i, id) in t.items.iter().enumerate() {
                s.clear();
                s.extend(
                    t.item(i)
                        .iter()
                        .filter_map(|c| t.values[c.value as usize].num()),
                );
                let ms = mean_score(&s, decimals);
                f(&AggRow::Mean {
                    item: id,
                    label: ms.label,
                    real_label: ms.real_label.map(r6),
                })?;
            }
        }
        Aggregation::DawidSkene { one_coin } => {
            emit_fitted(t, &json, fit_dawid_skene(t, one_coin), &mut f)?
        }
        Aggregation::Crowd(m) => {
            let e = crate::aggregators::run(&responses(t), m);
            emit_fitted(t, &json, (e.labels, e.confidence), &mut f)?
        }
    }
    Ok(())
}

/// The table as dense responses (items, annotators and values by their table index).
pub(crate) fn responses(t: &Table) -> Responses {
    let mut r = Responses {
        items: t.items.len(),
        workers: t.annotators.len(),
        classes: t.values.len(),
        rows: Vec::with_capacity(t.len()),
    };
    for i in 0..t.items.len() {
        for c in t.item(i) {
            r.rows.push((i as u32, c.annotator, c.value as u16));
        }
    }
    r
}

/// Per item Dawid–Skene's label (a value index) and its posterior.
fn fit_dawid_skene(t: &Table, one_coin: bool) -> (Vec<Option<usize>>, Vec<f64>) {
    let model = if one_coin {
        Model::OneCoin
    } else {
        Model::Full
    };
    let fit = fit(&responses(t), model, 100, 1e-5);
    let confidence = (fit.labels.iter().zip(&fit.probas))
        .map(|(l, p)| l.map_or(0.0, |c| p[c]))
        .collect();
    (fit.labels, confidence)
}

/// Calls `f` with each item's fitted label (a value index) and its probability.
fn emit_fitted<E>(
    t: &Table,
    json: &[Value],
    (labels, confidence): (Vec<Option<usize>>, Vec<f64>),
    f: &mut impl FnMut(&AggRow<'_>) -> Result<(), E>,
) -> Result<(), E> {
    for (i, id) in t.items.iter().enumerate() {
        f(&AggRow::DawidSkene {
            item: id,
            label: labels[i].map(|c| &json[c]),
            // A method without probabilities (KOS) writes null.
            posterior: labels[i]
                .map(|_| r6(confidence[i]))
                .filter(|p| p.is_finite()),
        })?;
    }
    Ok(())
}

/// Writes each item's aggregated row as a JSONL line.
pub fn write_aggregate(
    t: &Table,
    how: Aggregation,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for_each_aggregate(t, how, |row| {
        serde_json::to_writer(&mut *out, row)?;
        out.write_all(b"\n")
    })
}

/// Writes a fitted estimate of `t`'s items (labels as value indices) as JSONL lines, as
/// [`write_aggregate`] writes Dawid–Skene's.
pub fn write_estimate(
    t: &Table,
    e: crate::aggregators::Estimate,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let json: Vec<Value> = t.values.iter().map(Label::to_json).collect();
    emit_fitted(t, &json, (e.labels, e.confidence), &mut |row| {
        serde_json::to_writer(&mut *out, row)?;
        out.write_all(b"\n")
    })
}

/// One `{"item","label"}` object per item (first-seen order); `label` null where no gold.
pub fn aggregate_table(t: &Table, how: Aggregation) -> Vec<Value> {
    let mut rows = Vec::with_capacity(t.items.len());
    for_each_aggregate(t, how, |row| {
        rows.push(serde_json::to_value(row)?);
        Ok::<_, serde_json::Error>(())
    })
    .expect("an aggregated row is plain JSON");
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alpha::alpha;
    use crate::label::Matrix;
    use crate::reliability::reliability;
    use rand::{RngExt, SeedableRng};

    /// Majority on value indices equals [`crate::aggregate::majority`] on the labels, ties
    /// and thresholds included.
    #[test]
    fn majority_on_indices_equals_majority_on_labels() {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
        let values: Vec<Label> = (0..4).map(|k| Label::Num(k as f64)).collect();
        let mut counts = vec![0u32; values.len()];
        for _ in 0..2000 {
            let n = rng.random_range(0..7);
            let cells: Vec<Cell> = (0..n)
                .map(|a| Cell {
                    annotator: a,
                    value: rng.random_range(0..values.len() as u32),
                })
                .collect();
            let refs: Vec<&Label> = cells.iter().map(|c| &values[c.value as usize]).collect();
            for k in 0..5 {
                let want = crate::aggregate::majority(&refs, k);
                let got =
                    majority_cells(&cells, k, &mut counts).map(|v| values[v as usize].clone());
                assert_eq!(got, want, "{cells:?} k={k}");
                assert!(counts.iter().all(|&c| c == 0));
            }
        }
    }

    /// Seeded sparse matrices: the table's statistics equal the dense computations they
    /// replace (α, α without each annotator at every level, Pearson r, pairwise α).
    #[test]
    fn table_statistics_equal_the_dense_ones() {
        for seed in 0..40u64 {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
            let (na, ni) = (rng.random_range(2..7), rng.random_range(1..25));
            let rows: Vec<Vec<Option<Label>>> = (0..na)
                .map(|_| {
                    (0..ni)
                        .map(|_| {
                            (rng.random::<f64>() < 0.6)
                                .then(|| Label::Num(rng.random_range(0..4) as f64))
                        })
                        .collect()
                })
                .collect();
            let m = Matrix::new(rows);
            let t = Table::from_matrix(&m);
            let u = Units::from_table(&t);
            let close = |a: Option<f64>, b: Option<f64>, what: &str| match (a, b) {
                (Some(x), Some(y)) => {
                    assert!((x - y).abs() < 1e-9, "seed {seed} {what}: {x} vs {y}")
                }
                (x, y) => assert_eq!(x, y, "seed {seed} {what}"),
            };
            let dense = reliability(&m);
            let table = crate::reliability::reliability_table(&t);
            for level in [
                Level::Nominal,
                Level::Ordinal,
                Level::Interval,
                Level::Ratio,
            ] {
                close(
                    alpha_units(&u, level).unwrap(),
                    alpha(&m, level).unwrap(),
                    "alpha",
                );
                let loo = alpha_leave_one_out(&t, &u, level).unwrap();
                for (a, got) in loo.iter().enumerate() {
                    close(*got, alpha(&m.without(a), level).unwrap(), "leave one out");
                }
            }
            for (d, s) in dense.iter().zip(&table) {
                close(s.pearson_r, d.pearson_r, "pearson");
                close(
                    s.alpha_nominal_pairwise_mean,
                    d.alpha_nominal_pairwise_mean,
                    "pairwise",
                );
                assert_eq!(s.items_compared, d.items_compared);
            }
        }
    }
}
