//! The fast matcher: inverted indexes with counts, and for ROUGE-L exact upper bounds, so
//! the pairs are the oracle's.
//!
//! Each query walks the posting lists of its own units (unigrams, or bigrams for ROUGE-2),
//! adding min(count in query, count in candidate) to the candidate's accumulator: after
//! the walk every live sentence sharing a unit holds its exact multiset overlap, and every
//! other live sentence scores 0. Dead entries are removed from a list during the same pass,
//! so the lists shrink with the pool. Cost per query: the summed length of the query's
//! lists (a few times the pool size for common syllables) instead of one full merge per
//! pool sentence. ROUGE-L: LCS ≤ unigram overlap, so candidates are sorted by the exact
//! bound 2·overlap/(m + n) and LCS is computed only while the bound can still beat the best
//! (or tie it with a lower index). All comparisons are integer cross-multiplications.

use super::naive::better;
use super::{Pair, Sentence, pair_score, permutation};
use crate::rouge::{Frac, Metric};
use std::collections::BTreeMap;

/// Same pairs as [`super::match_naive`].
pub fn match_fast(s: &[Sentence], metric: Metric, seed: u64) -> (Vec<Pair>, Option<usize>) {
    let n = s.len();
    let mut alive = vec![true; n];
    let lens: Vec<u64> = s.iter().map(|x| x.len).collect();
    let Index {
        mut postings,
        qunits,
    } = Index::build(s);
    let mut scratch = Scratch {
        stamp: vec![u32::MAX; n],
        acc: vec![0u64; n],
        touched: Vec::new(),
    };
    let mut lowest_alive = 0usize;
    let mut pairs = Vec::with_capacity(n / 2);
    for (qn, q) in permutation(n, seed).into_iter().enumerate() {
        if !alive[q] {
            continue;
        }
        alive[q] = false;
        while lowest_alive < n && !alive[lowest_alive] {
            lowest_alive += 1;
        }
        if lowest_alive == n {
            return (pairs, Some(q));
        }
        let m = lens[q];
        scratch.accumulate(&mut postings, &qunits[q], &alive, qn as u32);
        let best = match metric {
            Metric::Rouge1 | Metric::Rouge2 => scratch.best_overlap(m, &lens),
            Metric::RougeL => scratch.best_lcs(s, q, &lens, metric),
        };
        // Nothing shares a unit (or every score is 0): the lowest index left, at 0.
        let (sc, t) = match best {
            Some((b, t)) if b.num > 0 => (b, t),
            _ => (Frac::new(0, m + lens[lowest_alive]), lowest_alive),
        };
        alive[t] = false;
        pairs.push((q, t, sc));
    }
    (pairs, None)
}

/// The inverted index over dense unit ids.
struct Index {
    /// postings[id] = (sentence, count) in ascending sentence order.
    postings: Vec<Vec<(u32, u32)>>,
    /// Each sentence's units as (dense id, count).
    qunits: Vec<Vec<(u32, u32)>>,
}

impl Index {
    /// Gives each unit key a dense id in order of first use and lists its sentences.
    fn build(s: &[Sentence]) -> Self {
        let mut dense: BTreeMap<u64, u32> = BTreeMap::new();
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut qunits: Vec<Vec<(u32, u32)>> = Vec::with_capacity(s.len());
        for (i, x) in s.iter().enumerate() {
            let mut u = Vec::with_capacity(x.units.len());
            for &(k, c) in &x.units {
                let next = dense.len() as u32;
                let d = *dense.entry(k).or_insert(next);
                if d as usize == postings.len() {
                    postings.push(Vec::new());
                }
                postings[d as usize].push((i as u32, c));
                u.push((d, c));
            }
            qunits.push(u);
        }
        Index { postings, qunits }
    }
}

/// Per-query accumulators, reused across queries: `stamp` marks which query last reset a
/// sentence's `acc`, so nothing is cleared between queries but the `touched` list.
struct Scratch {
    stamp: Vec<u32>,
    acc: Vec<u64>,
    touched: Vec<u32>,
}

impl Scratch {
    /// Walks the query's posting lists, adding each live sentence's overlap with the query
    /// and removing dead sentences from the lists as it goes.
    #[inline]
    fn accumulate(
        &mut self,
        postings: &mut [Vec<(u32, u32)>],
        units: &[(u32, u32)],
        alive: &[bool],
        stamp_q: u32,
    ) {
        let Scratch {
            stamp,
            acc,
            touched,
        } = self;
        for &(d, c) in units {
            postings[d as usize].retain(|&(t, ct)| {
                let tu = t as usize;
                if !alive[tu] {
                    return false;
                }
                if stamp[tu] != stamp_q {
                    stamp[tu] = stamp_q;
                    acc[tu] = 0;
                    touched.push(t);
                }
                acc[tu] += c.min(ct) as u64;
                true
            });
        }
    }

    /// ROUGE-1/2: the overlap is the score; the best touched sentence.
    #[inline]
    fn best_overlap(&mut self, m: u64, lens: &[u64]) -> Option<(Frac, usize)> {
        let mut best: Option<(Frac, usize)> = None;
        for &t in &self.touched {
            let t = t as usize;
            let sc = Frac::new(2 * self.acc[t], m + lens[t]);
            if better(sc, t, best) {
                best = Some((sc, t));
            }
        }
        self.touched.clear();
        best
    }

    /// ROUGE-L: candidates by their exact upper bound, LCS computed only while the bound
    /// can still beat the best (or tie it with a lower index).
    #[inline]
    fn best_lcs(
        &mut self,
        s: &[Sentence],
        q: usize,
        lens: &[u64],
        metric: Metric,
    ) -> Option<(Frac, usize)> {
        let m = lens[q];
        let acc = &self.acc;
        let mut cands: Vec<(Frac, usize)> = self
            .touched
            .drain(..)
            .map(|t| {
                let t = t as usize;
                (Frac::new(2 * acc[t], m + lens[t]), t)
            })
            .collect();
        cands.sort_by(|a, b| b.0.cmp_exact(a.0).then(a.1.cmp(&b.1)));
        let mut best: Option<(Frac, usize)> = None;
        for (ub, t) in cands {
            if let Some((b, bi)) = best
                && (ub.cmp_exact(b).is_lt() || (ub.cmp_exact(b).is_eq() && t > bi))
            {
                break;
            }
            let sc = pair_score(metric, &s[q], &s[t]);
            if better(sc, t, best) {
                best = Some((sc, t));
            }
        }
        best
    }
}
