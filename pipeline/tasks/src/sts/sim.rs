//! Simulated STS annotators fitted on people's scores ([`SimModel`], [`fit`]).
//!
//! A pair's simulated score follows its content: a content measure of the pair ([`Feature`]:
//! syllable ROUGE-1 or ROUGE-2 F1, or the length ratio) goes through a monotone map to a 0–5
//! mean score, one map per way the pair was made ([`Relation`]: same intent, round-trip
//! translation, sampled), because on KLUE STS dev the same overlap means different things (a
//! round-trip translation with little overlap still scores 4; a sampled pair with much
//! overlap scores 2). The fit picks per relation the measure whose Pearson r with people's
//! mean scores is highest (KLUE STS dev: ROUGE-1 for sampled pairs, r 0.63; for paraphrases
//! overlap hardly matters and a missing clause, seen in the length ratio, does). The pair's true score is that
//! mean plus a pair-level deviation (the part of people's judgement overlap misses), and
//! each simulated annotator adds a bias of its own and noise of its own before rounding to an
//! integer 0–5, as KLUE's annotators did.
//!
//! Every parameter comes from [`fit`] over a KLUE-format file with per-annotator scores
//! (`kcurate sts fit-sim --klue FILE` prints the recipe block): the maps are isotonic
//! (pool-adjacent-violators) over equal-count bins of at least [`MIN_PER_BIN`] pairs; the
//! pair-level SD is the residual SD of the pairs' mean scores less what the annotators' noise
//! and bias explain; an annotator's bias and noise are the mean and SD of its residual against
//! the mean of the other annotators of the same pair, corrected for the others' noise and for
//! rounding.

mod fitting;

use crate::rouge::{Metric, score, syllables};
pub use fitting::{
    AnnotatorFit, Fit, FitError, ScoredPair, fit, fit_map, pav, read_klue, report, to_toml,
};
use kcurate_agree::simulate::{std_normal, uniform};
use serde::{Deserialize, Serialize};

/// Pairs per bin of the fitted maps, at least.
pub const MIN_PER_BIN: usize = 10;

/// How a candidate pair was made, which decides the map from overlap to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// Two utterances of one intent (`paraKQC-para`).
    Para,
    /// A sentence and its round-trip translation (`<source>-rtt`).
    Rtt,
    /// Sampled pairs: greedy ROUGE matching, the same topic, random (`-sampled`, `-random`).
    Sampled,
}

impl Relation {
    /// The relation of a KLUE STS `source` value (`airbnb-rtt`, `paraKQC-para`, ...).
    pub fn of_source(source: &str) -> Relation {
        if source.ends_with("-rtt") {
            Relation::Rtt
        } else if source.ends_with("-para") {
            Relation::Para
        } else {
            Relation::Sampled
        }
    }

    /// The relation's key in the simulator table (`para`, `rtt`, `sampled`).
    pub fn name(self) -> &'static str {
        match self {
            Relation::Para => "para",
            Relation::Rtt => "rtt",
            Relation::Sampled => "sampled",
        }
    }
}

/// A content measure of a pair, in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// Syllable ROUGE-1 F1.
    Rouge1,
    /// Syllable ROUGE-2 F1.
    Rouge2,
    /// Shorter over longer length in syllables (white space excluded).
    LengthRatio,
}

impl Feature {
    /// Every feature, in the order fits report them.
    pub const ALL: [Feature; 3] = [Feature::Rouge1, Feature::Rouge2, Feature::LengthRatio];

    /// The feature of the pair (a, b), in [0, 1]; symmetric.
    pub fn of(self, a: &str, b: &str) -> f64 {
        let (a, b) = (syllables(a), syllables(b));
        match self {
            Feature::Rouge1 => score(Metric::Rouge1, &a, &b).f64(),
            Feature::Rouge2 => score(Metric::Rouge2, &a, &b).f64(),
            Feature::LengthRatio => {
                let (x, y) = (a.len().min(b.len()), a.len().max(b.len()));
                if y == 0 { 0.0 } else { x as f64 / y as f64 }
            }
        }
    }

    /// The feature's name in fits and settings (`rouge1`, `rouge2`, `length_ratio`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::Rouge1 => "rouge1",
            Feature::Rouge2 => "rouge2",
            Feature::LengthRatio => "length_ratio",
        }
    }
}

/// One relation's fitted map and pair-level SD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelationFit {
    /// Pairs the fit saw.
    pub pairs: usize,
    /// The content measure the map reads.
    pub feature: Feature,
    /// Pearson r of that measure with the pairs' mean scores in the fit.
    pub pearson: f64,
    /// (measure, mean score) knots, x ascending, y non-decreasing; linear between knots,
    /// flat outside them.
    pub knots: Vec<[f64; 2]>,
    /// SD of the pair-level deviation from the map.
    pub item_sd: f64,
    /// The KLUE relations whose pairs the map was fitted on, when not only its own (`para`
    /// fitted on `["rtt"]`: pairs written to say the same thing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<String>,
}

impl RelationFit {
    /// The mean score the map gives to overlap `x`.
    pub fn map(&self, x: f64) -> f64 {
        let k = &self.knots;
        if x <= k[0][0] {
            return k[0][1];
        }
        for w in k.windows(2) {
            let ([x0, y0], [x1, y1]) = (w[0], w[1]);
            if x <= x1 {
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
            }
        }
        k[k.len() - 1][1]
    }

    fn check(&self, relation: &'static str) -> Result<(), SimModelError> {
        if self.knots.is_empty() {
            return Err(SimModelError::NoKnots { relation });
        }
        for w in self.knots.windows(2) {
            if w[1][0] <= w[0][0] || w[1][1] < w[0][1] {
                return Err(SimModelError::KnotOrder {
                    relation,
                    before: w[0],
                    after: w[1],
                });
            }
        }
        if self
            .knots
            .iter()
            .any(|[x, y]| !(0.0..=1.0).contains(x) || !(0.0..=5.0).contains(y))
        {
            return Err(SimModelError::KnotRange { relation });
        }
        if !(self.item_sd >= 0.0 && self.item_sd.is_finite()) {
            return Err(SimModelError::ItemSd { relation });
        }
        Ok(())
    }
}

/// A simulator table out of range ([`SimModel::check`]); the message names the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimModelError {
    /// A relation's `knots` list is empty.
    #[error("{relation}.knots: at least one knot")]
    NoKnots {
        /// `para`, `rtt` or `sampled`.
        relation: &'static str,
    },
    /// Two consecutive knots where x does not increase or y decreases.
    #[error(
        "{relation}.knots: x must increase and y must not decrease ({before:?} then {after:?})"
    )]
    KnotOrder {
        /// `para`, `rtt` or `sampled`.
        relation: &'static str,
        /// The earlier knot, `[x, y]`.
        before: [f64; 2],
        /// The knot after it.
        after: [f64; 2],
    },
    /// A knot outside x ∈ [0, 1] (overlap) or y ∈ [0, 5] (STS score).
    #[error("{relation}.knots: x in [0, 1], y in [0, 5]")]
    KnotRange {
        /// `para`, `rtt` or `sampled`.
        relation: &'static str,
    },
    /// A relation's `item_sd` is negative or not finite.
    #[error("{relation}.item_sd: a finite number >= 0")]
    ItemSd {
        /// `para`, `rtt` or `sampled`.
        relation: &'static str,
    },
    /// `noise_sd` is not `[low, high]` with 0 ≤ low ≤ high < ∞.
    #[error("noise_sd: [low, high] with 0 <= low <= high")]
    NoiseSd,
    /// `bias_sd` is negative or not finite.
    #[error("bias_sd: a finite number >= 0")]
    BiasSd,
}

/// The simulator's parameters: the `simulator` table of an `sts` stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimModel {
    /// Where the parameters come from (file, pairs, annotators).
    pub fitted_on: String,
    /// SD of the annotators' biases (their means are 0).
    pub bias_sd: f64,
    /// Range of the annotators' noise SDs; each simulated annotator draws one uniformly.
    pub noise_sd: [f64; 2],
    /// The map for paraphrase pairs.
    pub para: RelationFit,
    /// The map for round-trip translation pairs.
    pub rtt: RelationFit,
    /// The map for sampled pairs.
    pub sampled: RelationFit,
}

impl SimModel {
    /// The fitted map of relation `r`.
    pub fn relation(&self, r: Relation) -> &RelationFit {
        match r {
            Relation::Para => &self.para,
            Relation::Rtt => &self.rtt,
            Relation::Sampled => &self.sampled,
        }
    }

    /// Checks the ranges; the message names the key.
    pub fn check(&self) -> Result<(), SimModelError> {
        for r in [Relation::Para, Relation::Rtt, Relation::Sampled] {
            self.relation(r).check(r.name())?;
        }
        let [lo, hi] = self.noise_sd;
        if !(lo >= 0.0 && lo <= hi && hi.is_finite()) {
            return Err(SimModelError::NoiseSd);
        }
        if !(self.bias_sd >= 0.0 && self.bias_sd.is_finite()) {
            return Err(SimModelError::BiasSd);
        }
        Ok(())
    }

    /// A pair's true score: the map at its content measure plus its seeded pair-level
    /// deviation.
    pub fn truth(&self, seed: u64, item: &str, r: Relation, a: &str, b: &str) -> f64 {
        let f = self.relation(r);
        f.map(f.feature.of(a, b)) + f.item_sd * std_normal(seed, item, "pair")
    }

    /// `n` annotators, the last `spammers` of them answering at random; bias and noise SD of
    /// each drawn from the seed.
    pub fn pool(&self, n: usize, spammers: usize, seed: u64) -> Vec<SimAnnotator> {
        let [lo, hi] = self.noise_sd;
        (0..n)
            .map(|k| {
                let key = format!("annotator\t{k}");
                SimAnnotator {
                    id: format!("ann{k:02}"),
                    bias: self.bias_sd * std_normal(seed, &key, "bias"),
                    noise_sd: lo + (hi - lo) * uniform(seed, &key, "noise"),
                    spammer: k >= n - spammers.min(n),
                }
            })
            .collect()
    }
}

/// One simulated annotator.
#[derive(Debug, Clone, PartialEq)]
pub struct SimAnnotator {
    /// `ann00`, `ann01`, …
    pub id: String,
    /// Added to every true score (score points).
    pub bias: f64,
    /// SD of the normal noise added per score (score points).
    pub noise_sd: f64,
    /// Answers uniformly at random, whatever the truth.
    pub spammer: bool,
}

impl SimAnnotator {
    /// The annotator's integer score 0–5 for `item` whose true score is `truth`: truth +
    /// bias + seeded normal noise, rounded and clamped; a spammer answers uniformly.
    pub fn score(&self, seed: u64, item: &str, truth: f64) -> f64 {
        if self.spammer {
            return (uniform(seed, item, &self.id) * 6.0).floor().min(5.0);
        }
        (truth + self.bias + self.noise_sd * std_normal(seed, item, &self.id))
            .round()
            .clamp(0.0, 5.0)
    }
}

#[cfg(test)]
mod tests;
