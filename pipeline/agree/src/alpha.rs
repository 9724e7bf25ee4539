//! Krippendorff's α (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").
//!
//! With the pairable values only (units with at least two values): the coincidence matrix
//! o_ck adds n_uc·n_uk/(m_u − 1) per unit (n_uc(n_uc − 1)/(m_u − 1) on the diagonal),
//! n_c = Σ_k o_ck, n = Σ_c n_c, and α = 1 − (n − 1)·Σ o_ck δ²(c,k) / Σ n_c n_k δ²(c,k).

use crate::label::{Label, Matrix};
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Nominal,
    Ordinal,
    Interval,
    Ratio,
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "nominal" => Ok(Level::Nominal),
            "ordinal" => Ok(Level::Ordinal),
            "interval" => Ok(Level::Interval),
            "ratio" => Ok(Level::Ratio),
            _ => Err(format!(
                "unknown level {s:?} (nominal, ordinal, interval, ratio)"
            )),
        }
    }
}

/// Per-unit value counts over a sorted value list: the only input α needs.
#[derive(Debug, Clone)]
pub struct UnitCounts {
    pub values: Vec<Label>,
    /// One row per unit: count of each value.
    pub counts: Vec<Vec<f64>>,
}

impl UnitCounts {
    pub fn from_matrix(m: &Matrix) -> UnitCounts {
        let values = m.values();
        let mut counts = Vec::with_capacity(m.items());
        for i in 0..m.items() {
            let mut row = vec![0.0; values.len()];
            for l in m.column(i) {
                let k = values.binary_search(l).expect("value is listed");
                row[k] += 1.0;
            }
            counts.push(row);
        }
        UnitCounts { values, counts }
    }

    /// From an items × categories count table.
    pub fn from_table(categories: Vec<Label>, table: Vec<Vec<f64>>) -> UnitCounts {
        // Sort the categories (α's ordinal metric needs the order) and permute columns.
        let mut order: Vec<usize> = (0..categories.len()).collect();
        order.sort_by(|&a, &b| categories[a].cmp(&categories[b]));
        let values = order.iter().map(|&k| categories[k].clone()).collect();
        let counts = table
            .into_iter()
            .map(|r| {
                order
                    .iter()
                    .map(|&k| r.get(k).copied().unwrap_or(0.0))
                    .collect()
            })
            .collect();
        UnitCounts { values, counts }
    }
}

fn delta2(level: Level, c: usize, k: usize, values: &[Label], n: &[f64]) -> Option<f64> {
    if c == k {
        return Some(0.0);
    }
    Some(match level {
        Level::Nominal => 1.0,
        Level::Ordinal => {
            let (lo, hi) = if c < k { (c, k) } else { (k, c) };
            let s: f64 = n[lo..=hi].iter().sum();
            let d = s - (n[c] + n[k]) / 2.0;
            d * d
        }
        Level::Interval => {
            let d = values[c].num()? - values[k].num()?;
            d * d
        }
        Level::Ratio => {
            let (a, b) = (values[c].num()?, values[k].num()?);
            if a + b == 0.0 {
                0.0
            } else {
                ((a - b) / (a + b)).powi(2)
            }
        }
    })
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AlphaError {
    #[error("the {0:?} level needs numeric values; found {1:?}")]
    NotNumeric(Level, String),
}

/// α, or `None` when it is undefined (0/0: no pairable unit, or one value only).
pub fn alpha_counts(u: &UnitCounts, level: Level) -> Result<Option<f64>, AlphaError> {
    if matches!(level, Level::Interval | Level::Ratio)
        && let Some(bad) = u.values.iter().find(|v| v.num().is_none())
    {
        return Err(AlphaError::NotNumeric(level, bad.to_string()));
    }
    let v = u.values.len();
    let mut o = vec![0.0; v * v];
    for row in &u.counts {
        let m: f64 = row.iter().sum();
        if m < 2.0 {
            continue;
        }
        let present: Vec<usize> = (0..v).filter(|&k| row[k] > 0.0).collect();
        for &c in &present {
            for &k in &present {
                let pairs = if c == k {
                    row[c] * (row[c] - 1.0)
                } else {
                    row[c] * row[k]
                };
                o[c * v + k] += pairs / (m - 1.0);
            }
        }
    }
    let nc: Vec<f64> = (0..v).map(|c| (0..v).map(|k| o[c * v + k]).sum()).collect();
    let n: f64 = nc.iter().sum();
    if n == 0.0 {
        return Ok(None);
    }
    let (mut d_o, mut d_e) = (0.0, 0.0);
    for c in 0..v {
        for k in 0..v {
            if c == k {
                continue;
            }
            let d = delta2(level, c, k, &u.values, &nc).expect("numeric values checked above");
            d_o += o[c * v + k] * d;
            d_e += nc[c] * nc[k] * d;
        }
    }
    if d_e == 0.0 {
        return Ok(None);
    }
    Ok(Some(1.0 - (n - 1.0) * d_o / d_e))
}

pub fn alpha(m: &Matrix, level: Level) -> Result<Option<f64>, AlphaError> {
    alpha_counts(&UnitCounts::from_matrix(m), level)
}

/// A seeded bootstrap interval for α: units resampled with replacement `reps` times
/// (ChaCha8 from `seed`, so the interval is the same on every machine); the `level`
/// (e.g. 0.95) central interval of the defined replicates.
pub fn bootstrap_ci(
    u: &UnitCounts,
    level: Level,
    reps: usize,
    conf: f64,
    seed: u64,
) -> Result<Option<(f64, f64)>, AlphaError> {
    let pairable: Vec<&Vec<f64>> = u
        .counts
        .iter()
        .filter(|r| r.iter().sum::<f64>() >= 2.0)
        .collect();
    if pairable.is_empty() || reps == 0 {
        return Ok(None);
    }
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    let mut stats = Vec::with_capacity(reps);
    for _ in 0..reps {
        let counts = (0..pairable.len())
            .map(|_| pairable[rng.random_range(0..pairable.len())].clone())
            .collect();
        let sample = UnitCounts {
            values: u.values.clone(),
            counts,
        };
        if let Some(a) = alpha_counts(&sample, level)? {
            stats.push(a);
        }
    }
    if stats.is_empty() {
        return Ok(None);
    }
    stats.sort_by(f64::total_cmp);
    let q = |p: f64| stats[((p * (stats.len() - 1) as f64).round() as usize).min(stats.len() - 1)];
    let tail = (1.0 - conf) / 2.0;
    Ok(Some((q(tail), q(1.0 - tail))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(rows: &[&[Option<f64>]]) -> Matrix {
        Matrix::new(
            rows.iter()
                .map(|r| r.iter().map(|x| x.map(Label::Num)).collect())
                .collect(),
        )
    }

    #[test]
    fn one_value_only_is_undefined_not_one() {
        let m = nums(&[&[Some(1.0), Some(1.0)], &[Some(1.0), Some(1.0)]]);
        assert_eq!(alpha(&m, Level::Nominal).unwrap(), None);
    }

    #[test]
    fn single_rating_units_do_not_pair() {
        let m = nums(&[
            &[Some(1.0), Some(2.0), Some(5.0)],
            &[Some(1.0), Some(2.0), None],
        ]);
        assert_eq!(alpha(&m, Level::Nominal).unwrap(), Some(1.0));
    }

    #[test]
    fn bootstrap_is_seeded() {
        let m = nums(&[
            &[Some(1.0), Some(2.0), Some(3.0), Some(4.0)],
            &[Some(1.0), Some(2.0), Some(4.0), Some(4.0)],
        ]);
        let u = UnitCounts::from_matrix(&m);
        let a = bootstrap_ci(&u, Level::Interval, 200, 0.95, 7).unwrap();
        assert_eq!(a, bootstrap_ci(&u, Level::Interval, 200, 0.95, 7).unwrap());
        let (lo, hi) = a.unwrap();
        assert!(lo <= hi);
    }
}
