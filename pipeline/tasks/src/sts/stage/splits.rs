//! The `sts` stage's splits: dev and test uniform over 0.5-wide score bins, filled side by
//! side, with per-bin caps that shrink with the corpus so that train keeps its share; no
//! sentence in two splits.

use super::assign::{DroppedPairs, Example};
use super::candidates::Candidate;
use super::{StsStage, guid};
use crate::split_targets::{self, Unmet};
use kcurate_core::Out;
use kcurate_core::hash::seeded_u64;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// The splits dev/test caps apply to, in the order a tie fills them.
const HELD: [&str; 2] = ["dev", "test"];

/// A label's 0.5-wide bin (5.0 falls in the last).
pub(super) fn bin(label: f64) -> usize {
    ((label / 0.5).floor().max(0.0) as usize).min(9)
}

/// A bin as the card prints it.
fn bin_name(b: usize) -> String {
    let lo = b as f64 * 0.5;
    if b == 9 {
        format!("[{lo:.1}, 5.0]")
    } else {
        format!("[{lo:.1}, {:.1})", lo + 0.5)
    }
}

/// One assignment: each example's split and the pairs that left for a shared sentence.
struct Fill {
    split: Vec<Option<&'static str>>,
    shared: DroppedPairs,
}

impl Fill {
    fn count(&self, name: &str) -> usize {
        self.split.iter().filter(|s| **s == Some(name)).count()
    }
}

impl StsStage {
    /// Each example's split. The per-bin caps (`dev_per_bin`, `test_per_bin`) shrink in
    /// proportion until train keeps `min_train_share` of the released pairs; the caps and
    /// every target not met go to the metrics.
    pub(super) fn assign_splits(
        &self,
        cands: &[Candidate],
        examples: &[Example],
        dropped: &mut DroppedPairs,
        out: &mut Out,
    ) -> Vec<Option<&'static str>> {
        let share = self.cfg.min_train_share;
        let wanted_caps = [self.cfg.dev_per_bin, self.cfg.test_per_bin];
        let mut avail = [0usize; 10];
        for ex in examples {
            avail[bin(ex.label)] += 1;
        }
        let wanted: usize = avail
            .iter()
            .map(|&a| a.min(wanted_caps[0] + wanted_caps[1]))
            .sum();
        let mut s = split_targets::scale(examples.len(), wanted, share);
        let mut caps = wanted_caps.map(|c| split_targets::shrink(c, s, 1));
        let fill = loop {
            let fill = self.fill(cands, examples, caps);
            let train = fill.count("train");
            let released = fill.split.iter().flatten().count();
            if caps == [0, 0] || split_targets::train_keeps(train, released, share) {
                break fill;
            }
            // Shared sentences cost train pairs the first estimate did not see: shrink on.
            s *= 0.9;
            let next = wanted_caps.map(|c| split_targets::shrink(c, s, 1));
            caps = if next == caps {
                caps.map(|c| c.saturating_sub(1))
            } else {
                next
            };
        };
        let unmet = self.unmet(examples, &fill, wanted_caps, caps, avail);
        out.metric("per_bin_caps", json!({"dev": caps[0], "test": caps[1]}));
        if !unmet.is_empty() {
            out.metric(split_targets::METRIC, json!(unmet));
        }
        dropped.extend(fill.shared);
        fill.split
    }

    /// Pairs in a seeded order go to dev or test (the one with fewer pairs in the pair's
    /// bin first, dev on a tie) while the bin's cap and the source quota allow and neither
    /// sentence is in the other split; else to train, unless a sentence is already in dev
    /// or test (`sts.shared_sentence`).
    fn fill(&self, cands: &[Candidate], examples: &[Example], caps: [usize; 2]) -> Fill {
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.sort_by_key(|&e| seeded_u64(self.seed, guid(examples[e].cand).as_bytes()));
        let mut split_of_sentence: BTreeMap<usize, &str> = BTreeMap::new();
        let mut per_bin: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut per_source: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        let mut fill = Fill {
            split: vec![None; examples.len()],
            shared: Vec::new(),
        };
        for &e in &order {
            let k = examples[e].cand;
            let (c, b) = (&cands[k], bin(examples[e].label));
            let prior: BTreeSet<&str> = [c.a, c.b]
                .iter()
                .filter_map(|s| split_of_sentence.get(s).copied())
                .collect();
            let n = |sp: usize, per_bin: &BTreeMap<(usize, usize), usize>| {
                per_bin.get(&(sp, b)).copied().unwrap_or(0)
            };
            let room = |sp: usize| {
                n(sp, &per_bin) < caps[sp]
                    && self.cfg.source_quota.is_none_or(|q| {
                        per_source
                            .get(&(sp, c.source.as_str()))
                            .copied()
                            .unwrap_or(0)
                            < q
                    })
                    && prior.iter().all(|p| *p == HELD[sp])
            };
            let first = usize::from(n(1, &per_bin) < n(0, &per_bin));
            let split = match [first, 1 - first].into_iter().find(|&sp| room(sp)) {
                Some(sp) => {
                    *per_bin.entry((sp, b)).or_default() += 1;
                    *per_source.entry((sp, c.source.as_str())).or_default() += 1;
                    HELD[sp]
                }
                None if prior.iter().all(|p| *p == "train") => "train",
                None => {
                    let other = prior.iter().next().copied().unwrap_or("?");
                    fill.shared.push((
                        k,
                        "sts.shared_sentence",
                        format!("a sentence is already in {other}"),
                    ));
                    continue;
                }
            };
            split_of_sentence.insert(c.a, split);
            split_of_sentence.insert(c.b, split);
            fill.split[e] = Some(split);
        }
        fill
    }

    /// The targets not met: a cap shrunk for train's share, and each bin below its cap.
    fn unmet(
        &self,
        examples: &[Example],
        fill: &Fill,
        wanted: [usize; 2],
        caps: [usize; 2],
        avail: [usize; 10],
    ) -> Vec<Unmet> {
        let share = self.cfg.min_train_share;
        let mut held = [[0usize; 10]; 2];
        for (ex, sp) in examples.iter().zip(&fill.split) {
            if let Some(i) = HELD.iter().position(|h| Some(*h) == *sp) {
                held[i][bin(ex.label)] += 1;
            }
        }
        let mut unmet = Vec::new();
        for (i, name) in HELD.iter().enumerate() {
            if caps[i] < wanted[i] {
                unmet.push(Unmet {
                    target: format!("{name} pairs per 0.5 bin"),
                    wanted: wanted[i],
                    got: caps[i],
                    why: split_targets::shrunk_why(examples.len(), "labelled pairs", share),
                });
            }
            for (b, &got) in held[i].iter().enumerate() {
                if got < caps[i] {
                    let why = if avail[b] < caps[0] + caps[1] {
                        format!("only {} labelled pairs score in this bin", avail[b])
                    } else if self.cfg.source_quota.is_some() {
                        "the bin's other pairs share a sentence with a pair of another split \
                         or their source's quota is full"
                            .to_string()
                    } else {
                        "the bin's other pairs share a sentence with a pair of another split"
                            .to_string()
                    };
                    unmet.push(Unmet {
                        target: format!("{name} pairs in bin {}", bin_name(b)),
                        wanted: caps[i],
                        got,
                        why,
                    });
                }
            }
        }
        unmet
    }
}
