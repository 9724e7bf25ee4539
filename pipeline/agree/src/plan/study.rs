//! One simulated study: items drawn from a [`Pool`], each labelled by a fixed number of
//! distinct annotators, and what the study would measure on them (α's interval width, the
//! aggregated labels' accuracy).
//!
//! Item i of a study draws from its own ChaCha8 stream keyed by (study seed, i), so a study
//! of n items is the first n items of the same study with more: the planner's search
//! compares sizes on the same draws, and no thread count changes a draw.

use super::pool::{DS_ITERATIONS, DS_TOL, Pool, categorical, mix};
use crate::alpha::{AlphaError, Level, Units, bootstrap_units};
use crate::dawid_skene::{Model, Responses, fit};
use crate::label::Label;
use crate::report::majority_cells;
use crate::table::Cell;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// How a study turns each item's labels into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregator {
    /// k-of-n majority ([`majority_cells`]); an item without a majority has no label.
    Majority {
        /// The k of k-of-n.
        min_votes: usize,
    },
    /// Dawid–Skene EM with full confusion matrices, as `kcurate agree --aggregate
    /// dawid-skene` runs it.
    DawidSkene,
    /// Dawid–Skene's one-coin variant.
    OneCoin,
}

/// A simulated study: `per_item` answers per item, annotators numbered over a pool of
/// `workers` (the pool's annotators, each repeated as often as needed to have `per_item`
/// distinct ones per item).
#[derive(Debug, Clone)]
pub struct Study {
    /// Number of classes.
    pub classes: usize,
    /// Distinct annotators answers may come from.
    pub workers: usize,
    /// Answers per item.
    pub per_item: usize,
    /// The true class of each item.
    pub truth: Vec<u16>,
    /// Item i's answers are `answers[i * per_item..(i + 1) * per_item]`: (annotator, class).
    pub answers: Vec<(u32, u16)>,
}

/// Picks `r` distinct annotators of `cum` (cumulative weights, the last 1) by weighted
/// draws, a repeat drawn again; after many repeats (a pool whose weight sits on fewer
/// annotators than `r`) the rest are taken in order, so the loop always ends.
fn pick(cum: &[f64], r: usize, rng: &mut rand::rngs::ChaCha8Rng, out: &mut Vec<u32>) {
    out.clear();
    let mut tries = 0;
    while out.len() < r && tries < 64 * r {
        tries += 1;
        let u: f64 = rng.random();
        let v = cum.partition_point(|c| *c <= u).min(cum.len() - 1) as u32;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    for v in 0..cum.len() as u32 {
        if out.len() == r {
            break;
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
}

/// A study of `items` items, `per_item` distinct annotators each, drawn from `pool` with
/// the streams of `seed`.
pub fn simulate(pool: &Pool, items: usize, per_item: usize, seed: u64) -> Study {
    let nw = pool.annotators();
    let copies = per_item.div_ceil(nw.max(1)).max(1);
    let workers = nw * copies;
    let mut cum = Vec::with_capacity(workers);
    let mut acc = 0.0;
    for v in 0..workers {
        acc += pool.weights[v % nw] / copies as f64;
        cum.push(acc);
    }
    let mut truth = Vec::with_capacity(items);
    let mut answers = Vec::with_capacity(items * per_item);
    let mut chosen = Vec::with_capacity(per_item);
    for i in 0..items {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(mix(seed, i as u64));
        let t = categorical(&pool.priors, rng.random());
        truth.push(t as u16);
        pick(&cum, per_item, &mut rng, &mut chosen);
        for &v in &chosen {
            let row = &pool.confusion[v as usize % nw][t];
            answers.push((v, categorical(row, rng.random()) as u16));
        }
    }
    Study {
        classes: pool.classes(),
        workers,
        per_item,
        truth,
        answers,
    }
}

impl Study {
    /// Number of items.
    pub fn items(&self) -> usize {
        self.truth.len()
    }

    fn item(&self, i: usize) -> &[(u32, u16)] {
        &self.answers[i * self.per_item..(i + 1) * self.per_item]
    }

    /// The answers as Dawid–Skene's input.
    pub fn responses(&self) -> Responses {
        Responses {
            items: self.items(),
            workers: self.workers,
            classes: self.classes,
            rows: (0..self.items())
                .flat_map(|i| self.item(i).iter().map(move |&(w, c)| (i as u32, w, c)))
                .collect(),
        }
    }

    /// The width of α's 95% bootstrap interval (`reps` replicates, ChaCha8 from `seed`),
    /// classes standing for `values`; `None` where α is undefined.
    pub fn alpha_width(
        &self,
        values: &[Label],
        level: Level,
        reps: usize,
        seed: u64,
    ) -> Result<Option<f64>, AlphaError> {
        let mut flat: Vec<(u32, f64)> = Vec::with_capacity(self.answers.len());
        let mut ends = Vec::with_capacity(self.items());
        let mut classes: Vec<u16> = Vec::with_capacity(self.per_item);
        for i in 0..self.items() {
            classes.clear();
            classes.extend(self.item(i).iter().map(|a| a.1));
            classes.sort_unstable();
            for run in classes.chunk_by(|a, b| a == b) {
                flat.push((u32::from(run[0]), run.len() as f64));
            }
            ends.push(flat.len());
        }
        let starts = std::iter::once(0).chain(ends.iter().copied());
        let units = Units::from_sparse(
            values.to_vec(),
            starts.zip(&ends).map(|(s, &e)| &flat[s..e]),
        );
        Ok(bootstrap_units(&units, level, reps, 0.95, seed)?.map(|(lo, hi)| hi - lo))
    }

    /// The share of items whose aggregated label is their true class (an item without one
    /// counts as wrong).
    pub fn accuracy(&self, how: Aggregator) -> f64 {
        if self.items() == 0 {
            return 0.0;
        }
        let right = match how {
            Aggregator::Majority { min_votes } => {
                let mut counts = vec![0u32; self.classes];
                let mut cells = Vec::with_capacity(self.per_item);
                (0..self.items())
                    .filter(|&i| {
                        cells.clear();
                        cells.extend(self.item(i).iter().map(|&(w, c)| Cell {
                            annotator: w,
                            value: u32::from(c),
                        }));
                        majority_cells(&cells, min_votes, &mut counts)
                            == Some(u32::from(self.truth[i]))
                    })
                    .count()
            }
            Aggregator::DawidSkene | Aggregator::OneCoin => {
                let model = match how {
                    Aggregator::OneCoin => Model::OneCoin,
                    _ => Model::Full,
                };
                let f = fit(&self.responses(), model, DS_ITERATIONS, DS_TOL);
                (f.labels.iter().zip(&self.truth))
                    .filter(|(l, t)| **l == Some(usize::from(**t)))
                    .count()
            }
        };
        right as f64 / self.items() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Pool {
        Pool {
            priors: vec![0.6, 0.4],
            confusion: vec![vec![vec![0.9, 0.1], vec![0.2, 0.8]]; 2],
            weights: vec![0.7, 0.3],
        }
    }

    #[test]
    fn a_smaller_study_is_the_start_of_a_larger_one() {
        let (small, big) = (simulate(&pool(), 50, 2, 3), simulate(&pool(), 80, 2, 3));
        assert_eq!(small.truth[..], big.truth[..50]);
        assert_eq!(small.answers[..], big.answers[..100]);
        assert_ne!(simulate(&pool(), 50, 2, 4).answers, small.answers);
    }

    #[test]
    fn more_annotators_per_item_than_the_pool_has_repeats_each_as_distinct_copies() {
        let s = simulate(&pool(), 30, 5, 1);
        assert_eq!(s.workers, 6);
        for i in 0..30 {
            let mut w: Vec<u32> = s.item(i).iter().map(|a| a.0).collect();
            w.sort_unstable();
            w.dedup();
            assert_eq!(w.len(), 5);
        }
    }

    #[test]
    fn majority_of_two_good_annotators_is_right_about_as_often_as_the_model_says() {
        let s = simulate(&pool(), 20_000, 2, 5);
        // Both right, or (a 1-1 tie has no majority) never: 0.6·0.81 + 0.4·0.64.
        let want = 0.6 * 0.81 + 0.4 * 0.64;
        let got = s.accuracy(Aggregator::Majority { min_votes: 1 });
        assert!((got - want).abs() < 0.01, "{got} vs {want}");
        let ds = s.accuracy(Aggregator::DawidSkene);
        assert!(ds > got, "{ds} vs {got}");
        let values = [Label::Text("a".into()), Label::Text("b".into())];
        let w = s
            .alpha_width(&values, Level::Nominal, 200, 1)
            .unwrap()
            .unwrap();
        assert!(w > 0.0 && w < 0.05, "{w}");
    }
}
