//! An annotator pool as Dawid–Skene sees it: a class prior, a confusion matrix per
//! annotator and each annotator's share of the work. Fitted from a pilot, or written down
//! directly (a known pool, to check the planner against).

use crate::dawid_skene::{Model, Responses, fit};
use rand::{RngExt, SeedableRng};
use serde::Serialize;

/// Answers an annotator seen on no items of a class is taken to have given like the pool:
/// each annotator's confusion row is shrunk towards the pooled one as if the pool had this
/// many more answers of that class, so an annotator seen on a handful of items does not
/// look perfect (an unsmoothed fit puts probability 1 on the few answers seen).
const SHRINK: f64 = 2.0;

/// EM settings `kcurate agree --aggregate dawid-skene` uses, so the planner's fits and the
/// study's aggregation are the same computation.
pub(crate) const DS_ITERATIONS: usize = 100;
pub(crate) const DS_TOL: f64 = 1e-5;

/// Annotators that answer independently given each item's true class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pool {
    /// P(true class = c), summing to 1.
    pub priors: Vec<f64>,
    /// `confusion[w][c][k]` = P(annotator w answers k | true class c); rows sum to 1.
    pub confusion: Vec<Vec<Vec<f64>>>,
    /// Each annotator's share of the answers, summing to 1.
    pub weights: Vec<f64>,
}

/// A 64-bit mix (splitmix64's finaliser): seeds for streams keyed by numbers, cheap enough
/// to derive one per simulated item.
pub(crate) fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The index drawn from a categorical distribution by the uniform `u` in [0, 1).
pub(crate) fn categorical(p: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    for (k, x) in p.iter().enumerate() {
        acc += x;
        if u < acc {
            return k;
        }
    }
    // Rounding can leave the sum a hair under 1: the last class with mass takes the rest.
    p.iter().rposition(|x| *x > 0.0).unwrap_or(0)
}

impl Pool {
    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.priors.len()
    }

    /// Number of annotators.
    pub fn annotators(&self) -> usize {
        self.weights.len()
    }

    /// Annotator `w`'s chance of giving the true class, averaged over the prior.
    pub fn accuracy(&self, w: usize) -> f64 {
        (0..self.classes())
            .map(|c| self.priors[c] * self.confusion[w][c][c])
            .sum()
    }

    /// Fits the pool to responses by Dawid–Skene EM (full confusion matrices), each
    /// annotator's confusion shrunk towards the pooled one (see [`SHRINK`]) and weighted by
    /// its number of answers.
    pub fn fit(r: &Responses) -> Pool {
        let f = fit(r, Model::Full, DS_ITERATIONS, DS_TOL);
        let (k, nw) = (r.classes, r.workers);
        // n[w][c]: the expected number of w's answers on items of true class c.
        let mut n = vec![vec![0.0; k]; nw];
        let mut answers = vec![0usize; nw];
        for &(i, w, _) in &r.rows {
            answers[w as usize] += 1;
            for (c, p) in f.probas[i as usize].iter().enumerate() {
                n[w as usize][c] += p;
            }
        }
        let e = |w: usize, c: usize, a: usize| f.errors[w][a][c];
        let pooled: Vec<Vec<f64>> = (0..k)
            .map(|c| {
                let total: f64 = (0..nw).map(|w| n[w][c]).sum();
                (0..k)
                    .map(|a| match total > 0.0 {
                        true => (0..nw).map(|w| n[w][c] * e(w, c, a)).sum::<f64>() / total,
                        false => 1.0 / k as f64,
                    })
                    .collect()
            })
            .collect();
        let confusion = (0..nw)
            .map(|w| {
                (0..k)
                    .map(|c| {
                        let row: Vec<f64> = (0..k)
                            .map(|a| n[w][c] * e(w, c, a) + SHRINK * pooled[c][a])
                            .collect();
                        let s: f64 = row.iter().sum();
                        row.into_iter().map(|x| x / s).collect()
                    })
                    .collect()
            })
            .collect();
        let total = answers.iter().sum::<usize>().max(1) as f64;
        Pool {
            priors: f.priors,
            confusion,
            weights: answers.iter().map(|a| *a as f64 / total).collect(),
        }
    }

    /// [`Pool::fit`] to the pilot's items resampled with replacement (ChaCha8 from `seed`):
    /// one draw of what the pilot could have shown, so simulated studies carry the pilot's
    /// own uncertainty.
    pub fn fit_resampled(r: &Responses, seed: u64) -> Pool {
        let mut by_item: Vec<Vec<(u32, u16)>> = vec![Vec::new(); r.items];
        for &(i, w, c) in &r.rows {
            by_item[i as usize].push((w, c));
        }
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
        let mut rows = Vec::with_capacity(r.rows.len());
        for i in 0..r.items {
            let pick = rng.random_range(0..r.items);
            rows.extend(by_item[pick].iter().map(|&(w, c)| (i as u32, w, c)));
        }
        Pool::fit(&Responses {
            items: r.items,
            workers: r.workers,
            classes: r.classes,
            rows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_recovers_a_known_pool_and_shrinks_rarely_seen_annotators() {
        let truth = Pool {
            priors: vec![0.5, 0.3, 0.2],
            confusion: (0..4)
                .map(|w| {
                    let s = 0.7 + 0.05 * w as f64;
                    (0..3)
                        .map(|c| {
                            (0..3)
                                .map(|k| if k == c { s } else { (1.0 - s) / 2.0 })
                                .collect()
                        })
                        .collect()
                })
                .collect(),
            weights: vec![0.25; 4],
        };
        let s = crate::plan::study::simulate(&truth, 3000, 3, 7);
        let fitted = Pool::fit(&s.responses());
        for (p, q) in fitted.priors.iter().zip(&truth.priors) {
            assert!((p - q).abs() < 0.03, "{:?}", fitted.priors);
        }
        for w in 0..4 {
            assert!((fitted.accuracy(w) - truth.accuracy(w)).abs() < 0.03);
        }
        for row in fitted.confusion.iter().flatten() {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            assert!(
                row.iter().all(|x| *x > 0.0),
                "shrinkage leaves no zero: {row:?}"
            );
        }
    }
}
