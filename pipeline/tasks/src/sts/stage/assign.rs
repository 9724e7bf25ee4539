//! The `sts` stage's labels: a pair's label from its kept scores, and the variance and
//! 2-SD outlier filters.

use super::StsStage;
use crate::sts::labels::{score_sd, sd_outliers};
use kcurate_agree::aggregate::{mean_score, variance};
use kcurate_agree::label::Label;
use std::collections::BTreeSet;

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
}
