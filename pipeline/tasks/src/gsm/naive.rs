//! The oracle: a direct transcription of the reference's all-pairs loop.

use super::{Pair, Sentence, pair_score, permutation};
use crate::rouge::{Frac, Metric};

/// Is (score, index) better than the current best (higher score; equal score, lower index)?
pub(crate) fn better(score: Frac, idx: usize, best: Option<(Frac, usize)>) -> bool {
    match best {
        None => true,
        Some((b, bi)) => match score.cmp_exact(b) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => idx < bi,
            std::cmp::Ordering::Less => false,
        },
    }
}

/// The oracle: every query scored against every sentence left in the pool.
pub fn match_naive(s: &[Sentence], metric: Metric, seed: u64) -> (Vec<Pair>, Option<usize>) {
    let n = s.len();
    let mut alive = vec![true; n];
    let mut pairs = Vec::with_capacity(n / 2);
    for q in permutation(n, seed) {
        if !alive[q] {
            continue;
        }
        alive[q] = false;
        let mut best: Option<(Frac, usize)> = None;
        for t in 0..n {
            if alive[t] {
                let sc = pair_score(metric, &s[q], &s[t]);
                if better(sc, t, best) {
                    best = Some((sc, t));
                }
            }
        }
        match best {
            Some((sc, t)) => {
                alive[t] = false;
                pairs.push((q, t, sc));
            }
            None => return (pairs, Some(q)),
        }
    }
    (pairs, None)
}
