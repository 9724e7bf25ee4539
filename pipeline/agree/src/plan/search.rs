//! The search for the smallest number of items that meets a target: sizes doubled from
//! [`MIN_ITEMS`] until enough simulated studies meet it, then bisected between the last
//! size that did not and the first that did, down to one item (the share meeting an
//! accuracy target moves in steps as n·A crosses an integer, so a coarse ladder can land
//! a twofold step away from the answer).
//!
//! Study s draws its pool (one of the given pools, s modulo their number) and its items
//! from streams keyed by (seed, s), so every size is judged on the same studies, and
//! studies run on any number of threads with the same figures.

use super::pool::{Pool, mix};
use super::study::{Aggregator, simulate};
use crate::alpha::{AlphaError, Level};
use crate::label::Label;
use serde::Serialize;

/// What a study must achieve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// α's 95% bootstrap interval no wider than this.
    AlphaCi95Width {
        /// The widest acceptable interval (hi − lo).
        width: f64,
    },
    /// At least this share of items aggregated to their true class.
    Accuracy {
        /// The least acceptable share, in (0, 1).
        accuracy: f64,
        /// The aggregator the study will use.
        aggregator: Aggregator,
    },
}

/// The fewest items a plan names: below it a study's accuracy moves in steps too coarse to
/// mean anything (one item is right or wrong), and α's interval is itself unreliable.
pub const MIN_ITEMS: usize = 30;

/// What a search concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A number of items was found.
    Planned,
    /// Already [`MIN_ITEMS`] meet the target: any study of the sizes a plan names does.
    MetAtFewest,
    /// No number of items meets it: the aggregator's accuracy with these annotators tends
    /// to less than the target.
    Unreachable,
    /// Reachable in the limit, but not within `max_items`.
    BeyondMaxItems,
}

/// What the simulated studies run on.
pub(crate) struct Sim<'a> {
    pub(crate) pools: &'a [Pool],
    pub(crate) studies: usize,
    /// The share of studies that must meet the target.
    pub(crate) assurance: f64,
    /// The most items a search may name.
    pub(crate) max_items: usize,
    pub(crate) values: &'a [Label],
    pub(crate) level: Level,
    pub(crate) target: Target,
    pub(crate) bootstrap: usize,
    pub(crate) seed: u64,
    pub(crate) threads: usize,
}

/// How the studies of one size fared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Outcome {
    /// Items per study.
    pub items: usize,
    /// Share of studies that met the target.
    pub share: f64,
    /// The median over studies of what the target measures (interval width or accuracy);
    /// `None` when no study had it defined.
    pub median: Option<f64>,
}

/// The result of one search.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Found {
    /// What the search concluded.
    pub verdict: Verdict,
    /// The smallest size that met the target (`None` unless the verdict is `Planned`).
    pub items: Option<usize>,
    /// The studies at that size (or at `max_items` when it was not met).
    pub at: Outcome,
}

impl Sim<'_> {
    fn measure(&self, s: usize, n: usize, r: usize) -> Result<Option<f64>, AlphaError> {
        let study_seed = mix(mix(self.seed, s as u64), r as u64);
        let study = simulate(&self.pools[s % self.pools.len()], n, r, study_seed);
        Ok(match self.target {
            Target::AlphaCi95Width { .. } => study.alpha_width(
                self.values,
                self.level,
                self.bootstrap,
                mix(study_seed, 0xb007),
            )?,
            Target::Accuracy { aggregator, .. } => Some(study.accuracy(aggregator)),
        })
    }

    fn meets(&self, m: Option<f64>) -> bool {
        match (self.target, m) {
            (Target::AlphaCi95Width { width }, Some(w)) => w <= width,
            (Target::Accuracy { accuracy, .. }, Some(a)) => a >= accuracy,
            (_, None) => false,
        }
    }

    /// Every study at `n` items of `r` annotators, on up to `threads` threads (each a
    /// contiguous range of studies; results kept in study order).
    pub(crate) fn run(&self, n: usize, r: usize) -> Result<Outcome, AlphaError> {
        let studies = self.studies;
        let chunk = studies.div_ceil(self.threads.max(1)).max(1);
        let parts: Vec<Result<Vec<Option<f64>>, AlphaError>> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..studies)
                .step_by(chunk)
                .map(|from| {
                    let to = (from + chunk).min(studies);
                    sc.spawn(move || (from..to).map(|s| self.measure(s, n, r)).collect())
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a study thread does not panic"))
                .collect()
        });
        let mut ms = Vec::with_capacity(studies);
        for p in parts {
            ms.extend(p?);
        }
        let met = ms.iter().filter(|m| self.meets(**m)).count();
        let mut defined: Vec<f64> = ms.iter().flatten().copied().collect();
        defined.sort_by(f64::total_cmp);
        Ok(Outcome {
            items: n,
            share: met as f64 / studies.max(1) as f64,
            median: (!defined.is_empty()).then(|| defined[defined.len() / 2]),
        })
    }

    /// The smallest number of items at `r` annotators per item at which at least
    /// the assurance of the studies meet the target (doubling from [`MIN_ITEMS`], then
    /// bisection down to one item).
    pub(crate) fn search(&self, r: usize) -> Result<Found, AlphaError> {
        let (assurance, max_items) = (self.assurance, self.max_items);
        let (mut lo, mut n) = (MIN_ITEMS - 1, MIN_ITEMS.min(max_items));
        let mut best = loop {
            let o = self.run(n, r)?;
            if o.share >= assurance {
                break o;
            }
            if n >= max_items {
                return Ok(Found {
                    verdict: Verdict::BeyondMaxItems,
                    items: None,
                    at: o,
                });
            }
            lo = n;
            n = (n * 2).min(max_items);
        };
        if n == MIN_ITEMS {
            return Ok(Found {
                verdict: Verdict::MetAtFewest,
                items: None,
                at: best,
            });
        }
        let mut hi = n;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let o = self.run(mid, r)?;
            if o.share >= assurance {
                (hi, best) = (mid, o);
            } else {
                lo = mid;
            }
        }
        Ok(Found {
            verdict: Verdict::Planned,
            items: Some(hi),
            at: best,
        })
    }
}
