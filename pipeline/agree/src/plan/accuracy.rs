//! What an accuracy target needs besides the search: the accuracy a study tends to as it
//! grows (a target above it is out of reach at any size), and how far the pilot pins that
//! down.
//!
//! The expected accuracy of aggregated labels does not depend on the number of items; only
//! its spread does, and the items needed grow as (spread / margin)², the margin being that
//! expected accuracy minus the target. The plan is therefore made from the pilot's fit as
//! it stands (a mixture over refits of resampled pilots would count the pilot's
//! uncertainty as study-to-study spread and pad the plan many times over), and the
//! pilot's uncertainty is reported beside it: the expected accuracy under the 10th and
//! 90th percentile of refits to resampled pilots, and the items each would need.
//!
//! A Dawid–Skene fit of a small pilot is optimistic about what Dawid–Skene will achieve:
//! noise in the fitted confusion matrices looks like information a refit can use. The
//! refits to resampled pilots are optimistic about the pilot's fit in the same way, so the
//! mean of their limits minus the fit's own (the bootstrap estimate of that bias) is added
//! to the target the simulated studies are held to.

use super::pool::{Pool, mix};
use super::search::{Found, MIN_ITEMS, Sim, Target, Verdict};
use super::study::{Aggregator, simulate};
use crate::alpha::AlphaError;
use serde::Serialize;

/// Items of the study whose accuracy stands for the limit: its Monte Carlo standard error
/// is below 0.004 at any accuracy.
const LIMIT_ITEMS: usize = 20_000;

/// Items per refit when ranking the refits of resampled pilots by their limit (the same
/// items for all, so their order is not Monte Carlo noise).
const RANK_ITEMS: usize = 4_000;

/// The accuracy `how` reaches on a very large study of `r` annotators per item from `pool`.
pub(crate) fn limit(pool: &Pool, r: usize, how: Aggregator, seed: u64) -> f64 {
    simulate(pool, LIMIT_ITEMS, r, mix(seed, 0x1141)).accuracy(how)
}

/// One end of the range the pilot leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bound {
    /// The accuracy a very large study reaches under this refit.
    pub limit: f64,
    /// What a search from this refit concluded.
    pub verdict: Verdict,
    /// The items it recommends.
    pub items: Option<usize>,
}

/// How far the pilot pins the plan down (accuracy targets, at the pilot's redundancy).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Uncertainty {
    /// Annotators as weak as the 10th percentile of refits to resampled pilots.
    pub low: Bound,
    /// Annotators as strong as the 90th percentile.
    pub high: Bound,
}

/// The accuracy each of `refits` reaches at `r` annotators per item on the same study,
/// ascending (ties by refit), and the bootstrap estimate of the fit's bias: their mean
/// minus what `fitted` reaches on that study.
pub(crate) fn ranked(
    fitted: &Pool,
    refits: &[Pool],
    r: usize,
    how: Aggregator,
    seed: u64,
) -> (Vec<(f64, usize)>, f64) {
    let seed = mix(seed, 0x5eed);
    let mut ranked: Vec<(f64, usize)> = (refits.iter().enumerate())
        .map(|(b, p)| (simulate(p, RANK_ITEMS, r, seed).accuracy(how), b))
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mean = ranked.iter().map(|x| x.0).sum::<f64>() / ranked.len().max(1) as f64;
    let own = simulate(fitted, RANK_ITEMS, r, seed).accuracy(how);
    (ranked, mean - own)
}

/// The pilot's uncertainty: a search from each of the refits at the 10th and 90th
/// percentile of `ranked`, their limits less `bias`.
pub(crate) fn uncertainty(
    sim: &Sim<'_>,
    refits: &[Pool],
    ranked: &[(f64, usize)],
    bias: f64,
    r: usize,
    how: Aggregator,
) -> Result<Uncertainty, AlphaError> {
    let at = |q: f64| ranked[((ranked.len() - 1) as f64 * q).round() as usize].1;
    let bound = |b: usize| -> Result<Bound, AlphaError> {
        let pool = std::slice::from_ref(&refits[b]);
        let f = search_or_limit(
            &Sim {
                pools: pool,
                ..*sim
            },
            r,
            how,
            bias,
        )?;
        Ok(Bound {
            limit: super::r6(limit(&refits[b], r, how, sim.seed) - bias),
            verdict: f.verdict,
            items: f.items,
        })
    };
    Ok(Uncertainty {
        low: bound(at(0.1))?,
        high: bound(at(0.9))?,
    })
}

/// The search at `r` annotators per item (the target raised by `bias`), or `Unreachable`
/// without one when the limit of the (single) pool less `bias` is below the target.
pub(crate) fn search_or_limit(
    sim: &Sim<'_>,
    r: usize,
    how: Aggregator,
    bias: f64,
) -> Result<Found, AlphaError> {
    let target = match sim.target {
        Target::Accuracy { accuracy, .. } => accuracy,
        Target::AlphaCi95Width { .. } => return sim.search(r),
    };
    if limit(&sim.pools[0], r, how, sim.seed) - bias < target {
        return Ok(Found {
            verdict: Verdict::Unreachable,
            items: None,
            at: sim.run(MIN_ITEMS, r)?,
        });
    }
    let shifted = Target::Accuracy {
        accuracy: target + bias,
        aggregator: how,
    };
    Sim {
        target: shifted,
        ..*sim
    }
    .search(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alpha::Level;
    use crate::label::Label;

    fn pool(s: f64) -> Pool {
        Pool {
            priors: vec![0.5, 0.5],
            confusion: vec![vec![vec![s, 1.0 - s], vec![1.0 - s, s]]; 4],
            weights: vec![0.25; 4],
        }
    }

    fn sim<'a>(pools: &'a [Pool], values: &'a [Label], accuracy: f64) -> Sim<'a> {
        Sim {
            pools,
            studies: 100,
            assurance: 0.8,
            max_items: 5000,
            values,
            level: Level::Nominal,
            target: Target::Accuracy {
                accuracy,
                aggregator: Aggregator::Majority { min_votes: 1 },
            },
            bootstrap: 0,
            seed: 3,
            threads: 1,
        }
    }

    #[test]
    fn the_plan_is_the_first_size_that_meets_the_target_and_a_target_past_the_limit_has_none() {
        let values = [Label::Text("a".into()), Label::Text("b".into())];
        // Three annotators of 0.8 each: majority is right with 0.896.
        let p = [pool(0.8)];
        let how = Aggregator::Majority { min_votes: 1 };
        let s = sim(&p, &values, 0.87);
        let f = search_or_limit(&s, 3, how, 0.0).unwrap();
        assert_eq!(f.verdict, Verdict::Planned);
        let n = f.items.unwrap();
        assert!(s.run(n, 3).unwrap().share >= 0.8);
        assert!(s.run(n - 1, 3).unwrap().share < 0.8, "{n} is not the first");
        let f = search_or_limit(&sim(&p, &values, 0.9), 3, how, 0.0).unwrap();
        assert_eq!((f.verdict, f.items), (Verdict::Unreachable, None));
        let f = search_or_limit(&sim(&p, &values, 0.6), 3, how, 0.0).unwrap();
        assert_eq!((f.verdict, f.items), (Verdict::MetAtFewest, None));
    }
}
