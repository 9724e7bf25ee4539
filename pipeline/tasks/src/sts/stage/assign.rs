//! The `sts` stage's labels and splits: a pair's label from its kept scores, the variance
//! and 2-SD outlier filters, and the uniform dev/test assignment (per 0.5 bin, no sentence
//! in two splits).

use super::StsStage;
use super::candidates::Candidate;
use super::guid;
use crate::sts::labels::{score_sd, sd_outliers};
use kcurate_agree::aggregate::{mean_score, variance};
use kcurate_agree::label::Label;
use kcurate_core::hash::seeded_u64;
use std::collections::{BTreeMap, BTreeSet};

/// A labelled pair.
pub(super) struct Example {
    /// The candidate's index (its guid's number).
    pub(super) cand: usize,
    /// The mean score rounded to the recipe's decimals.
    pub(super) label: f64,
    /// The mean score unrounded.
    pub(super) real: f64,
    /// The kept annotators' scores.
    pub(super) scores: Vec<f64>,
}

/// Candidates that leave: (candidate index, rule id, detail).
pub(super) type DroppedPairs = Vec<(usize, &'static str, String)>;

impl StsStage {
    /// Each candidate's label from the kept annotators' scores `rows`; a pair without a
    /// score (`sts.no_annotation`) or with a variance at or above `max_variance`
    /// (`sts.variance`) leaves.
    pub(super) fn labels(
        &self,
        rows: &[Vec<Option<Label>>],
        n_cands: usize,
        dropped: &mut DroppedPairs,
    ) -> Vec<Example> {
        let mut examples = Vec::new();
        for k in 0..n_cands {
            let scores: Vec<f64> = rows
                .iter()
                .filter_map(|r| r[k].as_ref().and_then(Label::num))
                .collect();
            let ms = mean_score(&scores, self.cfg.decimals);
            let (Some(label), Some(real)) = (ms.label, ms.real_label) else {
                dropped.push((k, "sts.no_annotation", "no annotation".into()));
                continue;
            };
            if let (Some(maxv), Some(v)) = (self.cfg.max_variance, variance(&scores))
                && v >= maxv
            {
                dropped.push((
                    k,
                    "sts.variance",
                    format!("score variance {v:.3} >= {maxv}"),
                ));
                continue;
            }
            examples.push(Example {
                cand: k,
                label,
                real,
                scores,
            });
        }
        examples
    }

    /// KLUE's 2-SD filter over the pairs' score SDs (one-sided: large disagreement), when
    /// the recipe sets `outlier_sd`.
    pub(super) fn drop_outliers(
        &self,
        examples: Vec<Example>,
        dropped: &mut DroppedPairs,
    ) -> Vec<Example> {
        let Some(k_sd) = self.cfg.outlier_sd else {
            return examples;
        };
        let sds: Vec<f64> = examples.iter().map(|e| score_sd(&e.scores)).collect();
        let drop: BTreeSet<usize> = sd_outliers(&sds, k_sd).into_iter().collect();
        let mut kept = Vec::with_capacity(examples.len());
        for (e, ex) in examples.into_iter().enumerate() {
            if drop.contains(&e) {
                dropped.push((
                    ex.cand,
                    "sts.outlier_sd",
                    format!("score SD {:.3} over {k_sd} SDs above the mean SD", sds[e]),
                ));
            } else {
                kept.push(ex);
            }
        }
        kept
    }

    /// Uniform dev/test: pairs in a seeded order fill dev, then test, up to the per-bin
    /// (0.5 wide) caps and the per-source quota; the rest go to train. A pair whose
    /// sentence is already in another split leaves (`sts.shared_sentence`). Returns each
    /// example's split.
    pub(super) fn assign_splits(
        &self,
        cands: &[Candidate],
        examples: &[Example],
        dropped: &mut DroppedPairs,
    ) -> Vec<Option<&'static str>> {
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.sort_by_key(|&e| seeded_u64(self.seed, guid(examples[e].cand).as_bytes()));
        let mut split_of_sentence: BTreeMap<usize, &str> = BTreeMap::new();
        let mut per_bin: BTreeMap<(&str, usize), usize> = BTreeMap::new();
        let mut per_source: BTreeMap<(&str, String), usize> = BTreeMap::new();
        let mut assigned: Vec<Option<&'static str>> = vec![None; examples.len()];
        for &e in &order {
            let (k, label) = (examples[e].cand, examples[e].label);
            let c = &cands[k];
            let bin = ((label / 0.5).floor() as usize).min(9);
            let sentences = [c.a, c.b];
            let prior: BTreeSet<&str> = sentences
                .iter()
                .filter_map(|s| split_of_sentence.get(s).copied())
                .collect();
            let choice = ["dev", "test"].into_iter().find(|sp| {
                let cap = if *sp == "dev" {
                    self.cfg.dev_per_bin
                } else {
                    self.cfg.test_per_bin
                };
                per_bin.get(&(*sp, bin)).copied().unwrap_or(0) < cap
                    && self.cfg.source_quota.is_none_or(|q| {
                        per_source
                            .get(&(*sp, c.source.clone()))
                            .copied()
                            .unwrap_or(0)
                            < q
                    })
                    && prior.iter().all(|p| p == sp)
            });
            let split = match choice {
                Some(sp) => sp,
                None if prior.iter().all(|p| *p == "train") => "train",
                None => {
                    dropped.push((
                        k,
                        "sts.shared_sentence",
                        format!(
                            "a sentence is already in {}",
                            prior.iter().next().unwrap_or(&"?")
                        ),
                    ));
                    continue;
                }
            };
            *per_bin.entry((split, bin)).or_default() += 1;
            *per_source.entry((split, c.source.clone())).or_default() += 1;
            for s in sentences {
                split_of_sentence.insert(s, split);
            }
            assigned[e] = Some(split);
        }
        assigned
    }
}
