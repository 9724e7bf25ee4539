//! The fast matcher: inverted indexes and exact upper bounds, so the pairs are the oracle's.
//!
//! ROUGE-1/2: the query's units are walked from the rarest to the most common through the
//! inverted index; after each unit, every sentence not yet seen shares at most `rest` units
//! with the query (the unscanned ones), so its score is at most max over live lengths L of
//! 2·min(rest, L)/(m + L); once that bound is below the best score found, the walk stops.
//! Sentences equal to the best on the bound could still win a tie only with a lower index,
//! and the walk continues while the bound is not strictly lower. ROUGE-L: the unigram
//! overlap bounds the LCS (LCS ≤ overlap), so candidates are sorted by that exact bound and
//! LCS is computed only while the bound can still beat (or tie with a lower index) the best.

use super::{Pair, Sentence, better, overlap, pair_score, permutation};
use crate::rouge::{Frac, Metric};
use std::collections::BTreeMap;

/// The pool's live sentence lengths, for the bound on unseen candidates.
struct Lengths(BTreeMap<u64, usize>);

impl Lengths {
    fn remove(&mut self, l: u64) {
        if let Some(c) = self.0.get_mut(&l) {
            *c -= 1;
            if *c == 0 {
                self.0.remove(&l);
            }
        }
    }

    /// max over live lengths L of 2·min(rest, L)/(m + L): the best score a sentence sharing
    /// at most `rest` units with the query can reach.
    fn bound(&self, rest: u64, m: u64) -> Frac {
        let mut best = Frac::new(0, 1);
        let below = self.0.range(..=rest).next_back().map(|(l, _)| *l);
        let above = self.0.range(rest..).next().map(|(l, _)| *l);
        for l in [below, above].into_iter().flatten() {
            let f = Frac::new(2 * rest.min(l), m + l);
            if f.cmp_exact(best).is_gt() {
                best = f;
            }
        }
        best
    }
}

/// Same pairs as [`match_naive`], with pruning that never changes a result.
pub fn match_fast(s: &[Sentence], metric: Metric, seed: u64) -> (Vec<Pair>, Option<usize>) {
    let n = s.len();
    let mut alive = vec![true; n];
    // For ROUGE-L the index and bounds use unigrams.
    let units: Vec<&Vec<(u64, u32)>> = s.iter().map(|x| &x.units).collect();
    let lens: Vec<u64> = s.iter().map(|x| x.len).collect();
    let mut postings: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        for (k, _) in u.iter() {
            postings.entry(*k).or_default().push(i as u32);
        }
    }
    let mut lengths = Lengths(BTreeMap::new());
    for l in &lens {
        *lengths.0.entry(*l).or_insert(0) += 1;
    }
    let mut stamp = vec![u32::MAX; n];
    let mut acc = vec![0u64; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut lowest_alive = 0usize;
    let mut pairs = Vec::with_capacity(n / 2);
    for (qn, q) in permutation(n, seed).into_iter().enumerate() {
        if !alive[q] {
            continue;
        }
        alive[q] = false;
        lengths.remove(lens[q]);
        while lowest_alive < n && !alive[lowest_alive] {
            lowest_alive += 1;
        }
        if lowest_alive == n {
            return (pairs, Some(q));
        }
        let m = lens[q];
        let mut toks: Vec<(usize, u64, u32)> = units[q]
            .iter()
            .map(|(k, c)| (postings.get(k).map_or(0, Vec::len), *k, *c))
            .collect();
        toks.sort_unstable();
        let mut best: Option<(Frac, usize)> = None;
        match metric {
            Metric::Rouge1 | Metric::Rouge2 => {
                let mut rest: u64 = toks.iter().map(|t| t.2 as u64).sum();
                for (_, k, c) in &toks {
                    rest -= *c as u64;
                    let list = postings.get_mut(k).expect("query tokens are indexed");
                    list.retain(|&t| alive[t as usize]);
                    for &t in list.iter() {
                        let t = t as usize;
                        if stamp[t] != qn as u32 {
                            stamp[t] = qn as u32;
                            let sc = Frac::new(2 * overlap(units[q], units[t]), m + lens[t]);
                            if better(sc, t, best) {
                                best = Some((sc, t));
                            }
                        }
                    }
                    if let Some((b, _)) = best
                        && lengths.bound(rest, m).cmp_exact(b).is_lt()
                    {
                        break;
                    }
                }
            }
            Metric::RougeL => {
                // Unigram overlaps of every live sentence sharing a token (the ROUGE-1 bound).
                for (_, k, c) in &toks {
                    let list = postings.get_mut(k).expect("query tokens are indexed");
                    list.retain(|&t| alive[t as usize]);
                    for &t in list.iter() {
                        let tu = t as usize;
                        if stamp[tu] != qn as u32 {
                            stamp[tu] = qn as u32;
                            acc[tu] = 0;
                            touched.push(t);
                        }
                        let tc = units[tu]
                            .binary_search_by_key(k, |x| x.0)
                            .map(|i| units[tu][i].1)
                            .unwrap_or(0);
                        acc[tu] += (*c).min(tc) as u64;
                    }
                }
                let mut cands: Vec<(Frac, usize)> = touched
                    .drain(..)
                    .map(|t| {
                        (
                            Frac::new(2 * acc[t as usize], m + lens[t as usize]),
                            t as usize,
                        )
                    })
                    .collect();
                cands.sort_by(|a, b| b.0.cmp_exact(a.0).then(a.1.cmp(&b.1)));
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
            }
        }
        // Nothing shares a unit (or every score is 0): the lowest index left, at 0.
        let (sc, t) = match best {
            Some((b, t)) if b.num > 0 => (b, t),
            _ => (Frac::new(0, m + lens[lowest_alive]), lowest_alive),
        };
        alive[t] = false;
        lengths.remove(lens[t]);
        pairs.push((q, t, sc));
    }
    (pairs, None)
}

