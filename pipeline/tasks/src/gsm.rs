//! Greedy Sentence Matching (KLUE §3.2, Algorithm 1), exactly as
//! `../shared/reference/gsm/README.md` specifies: SplitMix64 + Fisher–Yates order, each
//! query paired with the highest-scoring sentence still in the pool (exact fractions; ties
//! to the lowest index), written in the reference's JSONL format.
//!
//! [`match_naive`] scores every pair (the oracle). [`match_fast`] gives the same pairs:
//! ROUGE-1/2 walk the query's tokens from rarest to most common through an inverted index
//! and stop once no unseen sentence can reach the best score (an exact upper bound from the
//! unscanned tokens and the pool's sentence lengths); ROUGE-L uses the ROUGE-1 score as an
//! exact upper bound of the LCS score and computes LCS only while the bound can still win.

use crate::rouge::{Frac, Metric, lcs, syllables};
use std::collections::BTreeMap;
use std::io::Write;

/// SplitMix64, as the reference defines it.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The query order: Fisher–Yates driven by SplitMix64 (`j = next() % (i + 1)`).
pub fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

/// A sentence as token ids.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub seq: Vec<u32>,
    /// Sorted (key, count) of the metric's units (unigrams, or bigrams for ROUGE-2).
    pub units: Vec<(u64, u32)>,
    /// Number of units (m, or m′ for ROUGE-2).
    pub len: u64,
}

/// Interns tokens in first-seen order (deterministic) and builds each sentence's units.
pub fn prepare(texts: &[&str], metric: Metric) -> Vec<Sentence> {
    let mut ids: BTreeMap<char, u32> = BTreeMap::new();
    texts
        .iter()
        .map(|t| {
            let seq: Vec<u32> = syllables(t)
                .into_iter()
                .map(|c| {
                    let n = ids.len() as u32;
                    *ids.entry(c).or_insert(n)
                })
                .collect();
            let mut keys: Vec<u64> = match metric {
                Metric::Rouge2 => seq
                    .windows(2)
                    .map(|w| ((w[0] as u64) << 32) | w[1] as u64)
                    .collect(),
                _ => seq.iter().map(|&x| x as u64).collect(),
            };
            keys.sort_unstable();
            let len = keys.len() as u64;
            let mut units: Vec<(u64, u32)> = Vec::new();
            for k in keys {
                match units.last_mut() {
                    Some((u, c)) if *u == k => *c += 1,
                    _ => units.push((k, 1)),
                }
            }
            Sentence { seq, units, len }
        })
        .collect()
}

fn overlap(a: &[(u64, u32)], b: &[(u64, u32)]) -> u64 {
    let (mut i, mut j, mut o) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                o += a[i].1.min(b[j].1) as u64;
                i += 1;
                j += 1;
            }
        }
    }
    o
}

/// The exact score of a pair.
pub fn pair_score(metric: Metric, s: &Sentence, t: &Sentence) -> Frac {
    match metric {
        Metric::RougeL => Frac::new(
            2 * lcs(&s.seq, &t.seq) as u64,
            s.seq.len() as u64 + t.seq.len() as u64,
        ),
        _ => Frac::new(2 * overlap(&s.units, &t.units), s.len + t.len),
    }
}

/// One matched pair: query index, partner index, score.
pub type Pair = (usize, usize, Frac);

/// Is (score, index) better than the current best (higher score; equal score, lower index)?
fn better(score: Frac, idx: usize, best: Option<(Frac, usize)>) -> bool {
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

/// Writes pairs and the summary line in the reference's exact format.
pub fn write_output(
    mut out: impl Write,
    ids: &[String],
    pairs: &[Pair],
    unmatched: Option<usize>,
    metric: Metric,
    seed: u64,
) -> std::io::Result<()> {
    let js = |s: &str| serde_json::to_string(s).expect("strings serialise");
    for (a, b, sc) in pairs {
        writeln!(
            out,
            "{{\"a\":{},\"b\":{},\"score\":{}}}",
            js(&ids[*a]),
            js(&ids[*b]),
            sc.six()
        )?;
    }
    let un: Vec<String> = unmatched.iter().map(|u| js(&ids[*u])).collect();
    writeln!(
        out,
        "{{\"summary\":{{\"metric\":\"{}\",\"seed\":{seed},\"n\":{},\"pairs\":{},\"unmatched\":[{}]}}}}",
        metric.name(),
        ids.len(),
        pairs.len(),
        un.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_and_permutation_vectors() {
        let mut r = SplitMix64::new(42);
        assert_eq!(
            [r.next(), r.next()],
            [13679457532755275413, 2949826092126892291]
        );
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next(), 16294208416658607535);
        assert_eq!(permutation(5, 42), [1, 2, 0, 4, 3]);
        assert_eq!(permutation(10, 1), [4, 2, 8, 1, 9, 3, 0, 6, 7, 5]);
        assert_eq!(&permutation(1000, 42)[..6], [650, 152, 78, 670, 854, 316]);
    }
}
