//! The NLI builder's dev/test quotas per source as caps that follow the corpus: a source
//! too small for its quota (KLUE: 450 formal, 600 colloquial pairs a split) gets it shrunk
//! in proportion, in whole entailment/neutral/contradiction sets, so that train keeps
//! `min_train_share` of the source's balanced pairs; every quota not met is reported.

use crate::split_targets::{self, Unmet};
use std::collections::BTreeMap;

/// Each source's quota as the recipe wants it and as the corpus allows it.
pub struct Quotas {
    /// source → (wanted, allowed) pairs a split.
    by_source: BTreeMap<String, (usize, usize)>,
    /// source → complete label sets.
    sets: BTreeMap<String, usize>,
    min_train_share: f64,
}

impl Quotas {
    /// `wanted`: source → the recipe's quota; `sets`: source → its complete label sets.
    pub fn new(
        wanted: BTreeMap<String, usize>,
        sets: BTreeMap<String, usize>,
        min_train_share: f64,
    ) -> Self {
        let by_source = wanted
            .into_iter()
            .map(|(src, q)| {
                let pairs = 3 * sets.get(&src).copied().unwrap_or(0);
                let s = split_targets::scale(pairs, 2 * q, min_train_share);
                (src, (q, split_targets::shrink(q, s, 3)))
            })
            .collect();
        Quotas {
            by_source,
            sets,
            min_train_share,
        }
    }

    /// The pairs a split of `src` may take.
    pub fn allowed(&self, src: &str) -> usize {
        self.by_source.get(src).map_or(0, |q| q.1)
    }

    /// The recipe's quota of `src`.
    pub fn wanted(&self, src: &str) -> usize {
        self.by_source.get(src).map_or(0, |q| q.0)
    }

    /// The quotas not met, given the pairs each (source, split) took: a quota shrunk for
    /// train's share, and a split below its allowed quota.
    pub fn unmet(&self, used: &BTreeMap<(String, &str), usize>) -> Vec<Unmet> {
        let mut out = Vec::new();
        for (src, &(wanted, allowed)) in &self.by_source {
            let sets = self.sets.get(src).copied().unwrap_or(0);
            for sp in ["dev", "test"] {
                let got = used.get(&(src.clone(), sp)).copied().unwrap_or(0);
                let target = format!("{src}/{sp} pairs");
                if allowed < wanted {
                    out.push(Unmet {
                        target: target.clone(),
                        wanted,
                        got: allowed,
                        why: split_targets::shrunk_why(
                            3 * sets,
                            "balanced pairs",
                            self.min_train_share,
                        ),
                    });
                }
                if got < allowed {
                    out.push(Unmet {
                        target,
                        wanted: allowed,
                        got,
                        why: "too few complete entailment/neutral/contradiction sets".into(),
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_source_gets_whole_sets_and_a_large_one_its_quota() {
        let q = Quotas::new(
            BTreeMap::from([("a".to_string(), 450), ("b".to_string(), 12)]),
            BTreeMap::from([("a".to_string(), 100), ("b".to_string(), 100)]),
            0.5,
        );
        // 300 pairs of a: dev + test take at most 150, 75 each, in whole sets.
        assert_eq!((q.allowed("a"), q.wanted("a")), (75, 450));
        assert_eq!(q.allowed("b"), 12);
        let used = BTreeMap::from([
            (("a".to_string(), "dev"), 75),
            (("a".to_string(), "test"), 75),
            (("b".to_string(), "dev"), 12),
            (("b".to_string(), "test"), 9),
        ]);
        let unmet = q.unmet(&used);
        let named: Vec<(&str, usize, usize)> = unmet
            .iter()
            .map(|u| (u.target.as_str(), u.wanted, u.got))
            .collect();
        assert_eq!(
            named,
            [
                ("a/dev pairs", 450, 75),
                ("a/test pairs", 450, 75),
                ("b/test pairs", 12, 9)
            ]
        );
    }
}
