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

mod fast;
mod io;
mod naive;

pub use fast::match_fast;
pub use io::{GsmError, GsmSummary, read_input, run_gsm, write_output};
pub use naive::match_naive;

use crate::rouge::{Frac, Metric, lcs, syllables};
use std::collections::BTreeMap;

/// SplitMix64, as the reference defines it.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The generator whose state starts at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64-bit output (advances the state by the golden-ratio increment).
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
    /// The sentence's syllables as token ids, in text order.
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

pub(crate) fn overlap(a: &[(u64, u32)], b: &[(u64, u32)]) -> u64 {
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
