//! Fleiss' κ and Cohen's κ.

use crate::alpha::Units;
use crate::label::{Label, Matrix};
use serde::{Deserialize, Serialize};

/// Items × categories counts from a matrix, over `categories` (sorted values if empty).
pub fn count_table(m: &Matrix, categories: &[Label]) -> (Vec<Label>, Vec<Vec<f64>>) {
    let cats: Vec<Label> = if categories.is_empty() {
        m.values()
    } else {
        categories.to_vec()
    };
    let table = (0..m.items())
        .map(|i| {
            let mut row = vec![0.0; cats.len()];
            for l in m.column(i) {
                if let Some(k) = cats.iter().position(|c| c == l) {
                    row[k] += 1.0;
                }
            }
            row
        })
        .collect();
    (cats, table)
}

/// Fleiss' κ from an items × categories count table. Equal raters per item: the textbook
/// formula. Unequal raters: Gwet (2014, irrCAC): p_a over items with r_i ≥ 2, π_k over
/// items with r_i ≥ 1. `None` when undefined (one category used, no pairable item).
pub fn fleiss(table: &[Vec<f64>]) -> Option<f64> {
    let k = table.iter().map(Vec::len).max().unwrap_or(0);
    let (mut pa_sum, mut pa_n) = (0.0, 0usize);
    let mut pi = vec![0.0; k];
    let mut pi_n = 0usize;
    for row in table {
        let r: f64 = row.iter().sum();
        if r >= 1.0 {
            pi_n += 1;
            for (c, n) in row.iter().enumerate() {
                pi[c] += n / r;
            }
        }
        if r >= 2.0 {
            pa_n += 1;
            pa_sum += row.iter().map(|n| n * (n - 1.0)).sum::<f64>() / (r * (r - 1.0));
        }
    }
    if pa_n == 0 || pi_n == 0 {
        return None;
    }
    let pa = pa_sum / pa_n as f64;
    let pe: f64 = pi.iter().map(|p| (p / pi_n as f64).powi(2)).sum();
    if (1.0 - pe).abs() < 1e-15 {
        return None;
    }
    Some((pa - pe) / (1.0 - pe))
}

/// [`fleiss`] over grouped units (the categories are the units' values): one term per
/// distinct count vector, weighted by how many items have it.
pub fn fleiss_units(u: &Units) -> Option<f64> {
    let (mut pa_sum, mut pa_n) = (0.0, 0.0);
    let mut pi = vec![0.0; u.values.len()];
    let mut pi_n = 0.0;
    for (counts, r, w) in u.weighted() {
        if r >= 1.0 {
            pi_n += w;
            for &(c, n) in counts {
                pi[c as usize] += w * (n / r);
            }
        }
        if r >= 2.0 {
            pa_n += w;
            pa_sum +=
                w * (counts.iter().map(|(_, n)| n * (n - 1.0)).sum::<f64>() / (r * (r - 1.0)));
        }
    }
    if pa_n == 0.0 || pi_n == 0.0 {
        return None;
    }
    let pa = pa_sum / pa_n;
    let pe: f64 = pi.iter().map(|p| (p / pi_n).powi(2)).sum();
    if (1.0 - pe).abs() < 1e-15 {
        return None;
    }
    Some((pa - pe) / (1.0 - pe))
}

/// Disagreement weights of Cohen's κ, from the distance |i − j| of category positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weights {
    /// Unweighted: 1 for any disagreement.
    None,
    /// |i − j|.
    Linear,
    /// (i − j)².
    Quadratic,
}

/// Cohen's κ of two raters over `categories` (positions give the weights), as
/// scikit-learn computes it: κ = 1 − Σ w·C / Σ w·E. `None` when undefined.
pub fn cohen(a: &[Label], b: &[Label], categories: &[Label], weights: Weights) -> Option<f64> {
    let k = categories.len();
    let pos = |l: &Label| categories.iter().position(|c| c == l);
    let mut c = vec![0.0; k * k];
    for (x, y) in a.iter().zip(b) {
        if let (Some(i), Some(j)) = (pos(x), pos(y)) {
            c[i * k + j] += 1.0;
        }
    }
    let n: f64 = c.iter().sum();
    if n == 0.0 {
        return None;
    }
    let rows: Vec<f64> = (0..k).map(|i| (0..k).map(|j| c[i * k + j]).sum()).collect();
    let cols: Vec<f64> = (0..k).map(|j| (0..k).map(|i| c[i * k + j]).sum()).collect();
    let (mut num, mut den) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let d = (i as f64 - j as f64).abs();
            let w = match weights {
                Weights::None => f64::from(u8::from(i != j)),
                Weights::Linear => d,
                Weights::Quadratic => d * d,
            };
            num += w * c[i * k + j];
            den += w * rows[i] * cols[j] / n;
        }
    }
    if den == 0.0 {
        return None;
    }
    Some(1.0 - num / den)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_category_is_undefined() {
        assert_eq!(fleiss(&[vec![3.0, 0.0], vec![3.0, 0.0]]), None);
        let y = vec![Label::Text("a".into()); 4];
        assert_eq!(
            cohen(&y, &y, &[Label::Text("a".into())], Weights::None),
            None
        );
    }
}
