//! Annotator reliability: each annotator against the others, and KLUE STS's drop rule
//! ("annotators whose Pearson r < 0.80 or nominal α < 0.20 with others' annotations").

use crate::alpha::{Level, alpha};
use crate::label::{Label, Matrix};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reliability {
    pub annotator: usize,
    pub items_compared: usize,
    /// Pearson r of the annotator's scores against the mean of the others' on the same items.
    pub pearson_r: Option<f64>,
    pub alpha_interval_vs_mean_of_others: Option<f64>,
    /// Mean over every other annotator b of nominal α of the two rows [a; b].
    pub alpha_nominal_pairwise_mean: Option<f64>,
    pub alpha_interval_leave_one_out: Option<f64>,
    pub alpha_nominal_leave_one_out: Option<f64>,
}

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
