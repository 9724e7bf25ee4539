//! KOS (Karger, Oh and Shah 2011), as crowd-kit 1.4.2's `KOS`: binary labels only (the first
//! class +1, the second -1). Each answer carries a worker message, started at numpy's
//! `normal(1, 1)` after `np.random.seed(0)` (one draw per answer, in row order); a round sets
//! each answer's task message to the sum of the other answers' signed worker messages on its
//! task, then each answer's worker message to the sum of the worker's other signed task
//! messages. It runs `n_iter` rounds, stopping before a half-round whose sums pass 1e300 in
//! absolute value (the messages grow geometrically, so on most inputs that is what ends it).
//! An item's label is the sign of the sum of its signed worker messages.
//!
//! Sums are per group in row order with Kahan compensation (pandas' grouped `sum`), so the
//! messages follow crowd-kit's bit for bit on the same rows in the same order. KOS gives no
//! probability: [`Estimate::confidence`] is NaN for every item.

use super::Estimate;
use super::numpy_rng::LegacyNormal;
use crate::dawid_skene::Responses;

/// crowd-kit's parameters, defaults included.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Rounds at most (crowd-kit `n_iter`, 100).
    pub n_iter: usize,
    /// Seed of the starting worker messages (`random_state`, 0).
    pub seed: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            n_iter: 100,
            seed: 0,
        }
    }
}

/// crowd-kit's `_MAX` (`np.float_power(10, 300)`): a half-round whose sums pass it is not
/// taken, as the next would overflow to NaN.
const MAX: f64 = 1e300;

/// Per group, the Kahan-compensated sum of `values` (row `k` in group `group(k)`), in row
/// order; `None` when a sum passes [`MAX`] in absolute value.
fn group_sums(
    groups: usize,
    values: &[f64],
    group: impl Fn(usize) -> usize,
    sum: &mut Vec<f64>,
) -> Option<()> {
    sum.clear();
    sum.resize(groups, 0.0);
    let mut comp = vec![0.0f64; groups];
    for (k, &x) in values.iter().enumerate() {
        let g = group(k);
        let y = x - comp[g];
        let t = sum[g] + y;
        comp[g] = t - sum[g] - y;
        if comp[g].is_nan() {
            comp[g] = 0.0;
        }
        sum[g] = t;
    }
    (!sum.iter().any(|s| s.abs() > MAX)).then_some(())
}

/// KOS's labels of `r`, whose classes must be exactly two (crowd-kit refuses others; callers
/// check, and with another number of classes every label here is `None`). An item without
/// answers, or whose final sum is 0 or NaN (crowd-kit fails on such an item), has no label.
pub fn kos(r: &Responses, s: &Settings) -> Estimate {
    let none = || Estimate {
        labels: vec![None; r.items],
        confidence: vec![f64::NAN; r.items],
    };
    if r.classes != 2 {
        return none();
    }
    let sign: Vec<f64> = r
        .rows
        .iter()
        .map(|&(_, _, a)| if a == 0 { 1.0 } else { -1.0 })
        .collect();
    let item = |k: usize| r.rows[k].0 as usize;
    let worker = |k: usize| r.rows[k].1 as usize;
    let mut rng = LegacyNormal::new(s.seed);
    let mut reliability: Vec<f64> = r.rows.iter().map(|_| rng.next(1.0, 1.0)).collect();
    let mut multiplied = vec![0.0f64; r.rows.len()];
    let mut inferred = vec![0.0f64; r.rows.len()];
    let mut sum = Vec::new();
    for _ in 0..s.n_iter {
        for (m, (a, y)) in multiplied.iter_mut().zip(sign.iter().zip(&reliability)) {
            *m = a * y;
        }
        if group_sums(r.items, &multiplied, item, &mut sum).is_none() {
            break;
        }
        for (k, x) in inferred.iter_mut().enumerate() {
            *x = sum[item(k)] - multiplied[k];
        }
        for (m, (a, x)) in multiplied.iter_mut().zip(sign.iter().zip(&inferred)) {
            *m = a * x;
        }
        if group_sums(r.workers, &multiplied, worker, &mut sum).is_none() {
            break;
        }
        for (k, y) in reliability.iter_mut().enumerate() {
            *y = sum[worker(k)] - multiplied[k];
        }
    }
    for (m, (a, y)) in multiplied.iter_mut().zip(sign.iter().zip(&reliability)) {
        *m = a * y;
    }
    // The last sums are not checked against MAX: crowd-kit takes their signs as they are.
    let _ = group_sums(r.items, &multiplied, item, &mut sum);
    let mut answered = vec![false; r.items];
    r.rows
        .iter()
        .for_each(|&(i, _, _)| answered[i as usize] = true);
    let labels = sum
        .iter()
        .zip(&answered)
        .map(|(&x, &seen)| match () {
            _ if !seen => None,
            _ if x > 0.0 => Some(0),
            _ if x < 0.0 => Some(1),
            _ => None,
        })
        .collect();
    Estimate {
        labels,
        confidence: vec![f64::NAN; r.items],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four reliable workers and one who always answers the other class: KOS reads the
    /// contrarian's messages as negative and follows the reliable workers; a third class
    /// gives no labels.
    #[test]
    fn a_contrarian_is_outvoted_and_three_classes_give_no_labels() {
        let mut rows = Vec::new();
        for i in 0..40u32 {
            let t = (i % 2) as u16;
            for w in 0..4u32 {
                let wrong = (i + w) % 7 == 0;
                rows.push((i, w, if wrong { 1 - t } else { t }));
            }
            rows.push((i, 4, 1 - t));
        }
        let mut r = Responses {
            items: 41,
            workers: 5,
            classes: 2,
            rows,
        };
        let e = kos(&r, &Settings::default());
        let want: Vec<Option<usize>> = (0..40).map(|i| Some(i % 2)).chain([None]).collect();
        assert_eq!(e.labels, want);
        assert!(e.confidence.iter().all(|c| c.is_nan()));
        r.classes = 3;
        assert!(
            kos(&r, &Settings::default())
                .labels
                .iter()
                .all(Option::is_none)
        );
    }
}
