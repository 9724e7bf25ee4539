//! Annotator reliability: each annotator against the others, and KLUE STS's drop rule
//! ("annotators whose Pearson r < 0.80 or nominal α < 0.20 with others' annotations").

use crate::alpha::{Level, alpha};
use crate::label::{Label, Matrix};
use crate::table::Table;
use serde::{Deserialize, Serialize};

/// One annotator's agreement with the others (each `None` where undefined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    /// Row index in the matrix.
    pub annotator: usize,
    /// Items the annotator scored that at least one other annotator scored too.
    pub items_compared: usize,
    /// Pearson r of the annotator's scores against the mean of the others' on the same items.
    pub pearson_r: Option<f64>,
    /// Interval α of two rows: the annotator's scores and the others' mean on those items.
    pub alpha_interval_vs_mean_of_others: Option<f64>,
    /// Mean over every other annotator b of nominal α of the two rows [a; b].
    pub alpha_nominal_pairwise_mean: Option<f64>,
    /// Interval α of the matrix without this annotator.
    pub alpha_interval_leave_one_out: Option<f64>,
    /// Nominal α of the matrix without this annotator.
    pub alpha_nominal_leave_one_out: Option<f64>,
}

/// Pearson's r of paired values; `None` under two pairs or when either side is constant.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    if x.len() < 2 {
        return None;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some(sxy / (sxx * syy).sqrt())
}

/// Reliability of every annotator of a numeric matrix.
pub fn reliability(m: &Matrix) -> Vec<Reliability> {
    (0..m.annotators())
        .map(|a| {
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for i in 0..m.items() {
                let Some(x) = m.get(a, i).and_then(Label::num) else {
                    continue;
                };
                let others: Vec<f64> = (0..m.annotators())
                    .filter(|&b| b != a)
                    .filter_map(|b| m.get(b, i).and_then(Label::num))
                    .collect();
                if others.is_empty() {
                    continue;
                }
                xs.push(x);
                ys.push(others.iter().sum::<f64>() / others.len() as f64);
            }
            let two = Matrix::new(vec![
                xs.iter().map(|x| Some(Label::Num(*x))).collect(),
                ys.iter().map(|y| Some(Label::Num(*y))).collect(),
            ]);
            let pairwise: Vec<f64> = (0..m.annotators())
                .filter(|&b| b != a)
                .filter_map(|b| {
                    alpha(
                        &Matrix::new(vec![m.rows[a].clone(), m.rows[b].clone()]),
                        Level::Nominal,
                    )
                    .ok()
                    .flatten()
                })
                .collect();
            let rest = m.without(a);
            Reliability {
                annotator: a,
                items_compared: xs.len(),
                pearson_r: pearson(&xs, &ys),
                alpha_interval_vs_mean_of_others: alpha(&two, Level::Interval).ok().flatten(),
                alpha_nominal_pairwise_mean: (!pairwise.is_empty())
                    .then(|| pairwise.iter().sum::<f64>() / pairwise.len() as f64),
                alpha_interval_leave_one_out: alpha(&rest, Level::Interval).ok().flatten(),
                alpha_nominal_leave_one_out: alpha(&rest, Level::Nominal).ok().flatten(),
            }
        })
        .collect()
}

/// One annotator's reliability from the sparse table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReliability {
    /// Labels the annotator gave.
    pub labels: usize,
    /// Of those, the labels on items someone else labelled too (counted for Pearson r,
    /// so 0 when the values are not all numbers).
    pub items_compared: usize,
    /// As [`Reliability::pearson_r`]; `None` unless every value is a number.
    pub pearson_r: Option<f64>,
    /// As [`Reliability::alpha_nominal_pairwise_mean`]: the mean over every annotator b who
    /// shares an item with a of nominal α of the two rows [a; b] (pairs sharing no item have
    /// no pairable unit, so their α is undefined and leaves the mean, as it did over the
    /// dense matrix).
    pub alpha_nominal_pairwise_mean: Option<f64>,
}

/// [`reliability`]'s Pearson r and pairwise nominal α for every annotator of a sparse table,
/// in time linear in Σ over items of (ratings per item)², with no items × annotators matrix:
/// two-rater nominal α needs, per pair, only the shared items, the disagreements among them
/// and the value counts, all gathered from the annotator's own items.
pub fn reliability_table(t: &Table) -> Vec<TableReliability> {
    let numeric: Option<Vec<f64>> = t.values.iter().map(Label::num).collect();
    let (start, items) = t.by_annotator();
    let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
    let mut vals: Vec<u32> = Vec::new();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    (0..t.annotators.len())
        .map(|a| {
            pairs.clear();
            xs.clear();
            ys.clear();
            for &i in &items[start[a]..start[a + 1]] {
                let cells = t.item(i as usize);
                let x = cells
                    .iter()
                    .find(|c| c.annotator == a as u32)
                    .expect("the annotator rated the item")
                    .value;
                for c in cells.iter().filter(|c| c.annotator != a as u32) {
                    pairs.push((c.annotator, x, c.value));
                }
                if let Some(num) = &numeric
                    && cells.len() > 1
                {
                    let sum: f64 = cells.iter().map(|c| num[c.value as usize]).sum();
                    let mine = num[x as usize];
                    xs.push(mine);
                    ys.push((sum - mine) / (cells.len() - 1) as f64);
                }
            }
            // Grouped by the other annotator (ascending, the order the α's are averaged in);
            // within a group the order does not matter.
            pairs.sort_unstable_by_key(|p| p.0);
            let mut alphas = Vec::new();
            for run in pairs.chunk_by(|p, q| p.0 == q.0) {
                let s = run.len() as f64;
                let d = run.iter().filter(|p| p.1 != p.2).count() as f64;
                vals.clear();
                vals.extend(run.iter().flat_map(|p| [p.1, p.2]));
                vals.sort_unstable();
                let same: f64 = vals
                    .chunk_by(|x, y| x == y)
                    .map(|c| (c.len() * c.len()) as f64)
                    .sum();
                let n = 2.0 * s;
                let (d_o, d_e) = (2.0 * d, n * n - same);
                if d_e != 0.0 {
                    alphas.push(1.0 - (n - 1.0) * d_o / d_e);
                }
            }
            TableReliability {
                labels: start[a + 1] - start[a],
                items_compared: xs.len(),
                pearson_r: numeric.as_ref().and_then(|_| pearson(&xs, &ys)),
                alpha_nominal_pairwise_mean: (!alphas.is_empty())
                    .then(|| alphas.iter().sum::<f64>() / alphas.len() as f64),
            }
        })
        .collect()
}

/// KLUE STS's rule: drop an annotator whose r against the others' mean is below `min_r`
/// or whose nominal α with the others (the pairwise mean) is below `min_alpha`. Returns
/// each dropped annotator with the reason.
pub fn klue_sts_drops(rel: &[Reliability], min_r: f64, min_alpha: f64) -> Vec<(usize, String)> {
    rel.iter()
        .filter_map(|r| {
            let low_r = r.pearson_r.is_none_or(|x| x < min_r);
            let low_a = r.alpha_nominal_pairwise_mean.is_none_or(|x| x < min_alpha);
            (low_r || low_a).then(|| {
                (r.annotator, format!(
                    "pearson r {} (min {min_r}), nominal alpha with others {} (min {min_alpha})",
                    r.pearson_r.map_or("undefined".into(), |x| format!("{x:.4}")),
                    r.alpha_nominal_pairwise_mean.map_or("undefined".into(), |x| format!("{x:.4}"))
                ))
            })
        })
        .collect()
}

/// KLUE STS's drops as decisions (`agree.annotator_unreliable`), one per dropped annotator.
pub fn drop_decisions(
    rel: &[Reliability],
    names: &[String],
    min_r: f64,
    min_alpha: f64,
) -> Vec<kcurate_core::Decision> {
    klue_sts_drops(rel, min_r, min_alpha)
        .into_iter()
        .map(|(a, why)| kcurate_core::Decision {
            score: rel.get(a).and_then(|r| r.pearson_r),
            ..crate::io::annotation_drop(
                names.get(a).cloned().unwrap_or_else(|| a.to_string()),
                kcurate_core::RuleId::new("agree.annotator_unreliable"),
                why,
                String::new(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;

    #[test]
    fn unreliable_annotators_are_dropped_as_decisions() {
        let good: Vec<f64> = vec![0., 1., 2., 3., 4., 5., 1., 2., 3., 4.];
        let noisy: Vec<f64> = vec![5., 0., 4., 1., 0., 2., 5., 0., 1., 0.];
        let row = |v: &[f64], d: f64| {
            v.iter()
                .map(|x| Some(Label::Num((x + d).min(5.0))))
                .collect()
        };
        // Six annotators who agree (up to integer rounding), one who answers at random.
        let mut rows: Vec<Vec<Option<Label>>> = (0..6)
            .map(|k| row(&good, if k == 5 { 1.0 } else { 0.0 }))
            .collect();
        rows.push(row(&noisy, 0.0));
        let rel = reliability(&Matrix::new(rows));
        let names: Vec<String> = ["a", "b", "c", "d", "e", "f", "spammer"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let d = drop_decisions(&rel, &names, 0.8, 0.2);
        // The random one fails both tests; the one who scores a point high keeps a high r but
        // agrees with nobody on the exact score, so nominal α drops it too (as in KLUE's rule).
        let dropped: Vec<&str> = d.iter().map(|x| x.item.as_str()).collect();
        assert_eq!(dropped, ["f", "spammer"], "{d:?}");
        assert!(d[0].score.unwrap() > 0.8 && d[1].score.unwrap() < 0.0);
        assert!(
            d.iter()
                .all(|x| x.rule.as_str() == "agree.annotator_unreliable")
        );
    }
}
