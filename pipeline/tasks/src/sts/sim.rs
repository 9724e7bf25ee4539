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

use crate::rouge::{Metric, score, syllables};
use kcurate_agree::simulate::{std_normal, uniform};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

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

/// A pair with people's scores (a KLUE STS record).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredPair {
    /// KLUE's `guid`.
    pub guid: String,
    /// KLUE's `source` (`airbnb-rtt`, ...), which gives the [`Relation`].
    pub source: String,
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
    /// Annotator ids, parallel to `scores`.
    pub annotators: Vec<String>,
    /// Scores 0–5, one per annotator.
    pub scores: Vec<f64>,
}

/// Reading KLUE STS records or fitting the simulator failed.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// The text is not a JSON array.
    #[error("not a JSON array of KLUE STS records: {0}")]
    Json(String),
    /// A record's field is missing or of the wrong type.
    #[error("record {index}: {field}: missing or of the wrong type")]
    Field {
        /// 0-based record index.
        index: usize,
        /// The field.
        field: &'static str,
    },
    /// A record has different numbers of annotators and scores.
    #[error("record {index}: {n} annotators but {m} scores")]
    Lengths {
        /// 0-based record index.
        index: usize,
        /// Annotators.
        n: usize,
        /// Scores.
        m: usize,
    },
    /// No pairs with scores, or none of one relation.
    #[error("no {0} pairs to fit")]
    Empty(&'static str),
}

/// Reads a KLUE STS JSON array (`guid`, `source`, `sentence1`, `sentence2`,
/// `annotations.annotators`, `annotations.annotations`).
pub fn read_klue(text: &str) -> Result<Vec<ScoredPair>, FitError> {
    let recs: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| FitError::Json(e.to_string()))?;
    recs.iter()
        .enumerate()
        .map(|(index, r)| {
            let s = |field: &'static str| {
                r[field]
                    .as_str()
                    .map(String::from)
                    .ok_or(FitError::Field { index, field })
            };
            let arr = |field: &'static str| {
                r["annotations"][field]
                    .as_array()
                    .ok_or(FitError::Field { index, field })
            };
            let annotators = arr("annotators")?
                .iter()
                .map(|a| a.as_str().map(String::from))
                .collect::<Option<Vec<_>>>()
                .ok_or(FitError::Field {
                    index,
                    field: "annotators",
                })?;
            let scores = arr("annotations")?
                .iter()
                .map(serde_json::Value::as_f64)
                .collect::<Option<Vec<_>>>()
                .ok_or(FitError::Field {
                    index,
                    field: "annotations",
                })?;
            if annotators.len() != scores.len() {
                return Err(FitError::Lengths {
                    index,
                    n: annotators.len(),
                    m: scores.len(),
                });
            }
            Ok(ScoredPair {
                guid: s("guid")?,
                source: s("source")?,
                sentence1: s("sentence1")?,
                sentence2: s("sentence2")?,
                annotators,
                scores,
            })
        })
        .collect()
}

/// One person's fitted profile.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotatorFit {
    /// The annotator's id.
    pub id: String,
    /// Pairs the annotator scored with at least one other annotator.
    pub pairs: usize,
    /// Mean and SD of (score − mean of the other annotators of the pair).
    pub residual_mean: f64,
    /// SD of the same residuals.
    pub residual_sd: f64,
    /// Pearson r of the scores against the mean of the others' (KLUE's filter keeps ≥ 0.8).
    pub pearson_r: Option<f64>,
    /// The noise SD the simulator uses for this profile (others' noise and rounding taken out).
    pub noise_sd: f64,
}

/// A fit: the model and what it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The simulator table to paste into a recipe.
    pub model: SimModel,
    /// One profile per annotator.
    pub annotators: Vec<AnnotatorFit>,
    /// Pearson r of each overlap measure with the pairs' mean scores.
    pub pearson_by_metric: Vec<(&'static str, f64)>,
    /// Mean number of annotators per pair.
    pub mean_annotators_per_pair: f64,
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn pvar(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64
}

fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Isotonic (non-decreasing) fit of weighted points sorted by x: pool adjacent violators.
/// Returns (x mean, y mean, weight) per block.
pub fn pav(points: &[(f64, f64, f64)]) -> Vec<(f64, f64, f64)> {
    let mut blocks: Vec<(f64, f64, f64)> = Vec::new();
    for &p in points {
        blocks.push(p);
        while blocks.len() > 1 && blocks[blocks.len() - 2].1 > blocks[blocks.len() - 1].1 {
            let b = blocks.pop().expect("two blocks");
            let a = blocks.last_mut().expect("one block");
            let w = a.2 + b.2;
            *a = ((a.0 * a.2 + b.0 * b.2) / w, (a.1 * a.2 + b.1 * b.2) / w, w);
        }
    }
    blocks
}

/// The monotone map of (overlap, mean score) points: equal-count bins of at least
/// [`MIN_PER_BIN`] points, their means pooled where they decrease.
pub fn fit_map(points: &[(f64, f64)]) -> Vec<[f64; 2]> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let n = p.len();
    let k = (n / MIN_PER_BIN).max(1);
    let bins: Vec<(f64, f64, f64)> = (0..k)
        .map(|i| {
            let b = &p[i * n / k..(i + 1) * n / k];
            let xs: Vec<f64> = b.iter().map(|q| q.0).collect();
            let ys: Vec<f64> = b.iter().map(|q| q.1).collect();
            (mean(&xs), mean(&ys), b.len() as f64)
        })
        .collect();
    let mut knots: Vec<[f64; 2]> = Vec::new();
    for (x, y, _) in pav(&bins) {
        let (x, y) = (r3(x), r3(y));
        // Rounding can make two knots share an x; keep the later (higher) one.
        if knots.last().is_some_and(|l| l[0] >= x) {
            knots.pop();
        }
        knots.push([x, y]);
    }
    knots
}

/// (score, mean of the others' scores, score − that mean) of one annotator on one pair.
type Residual = (f64, f64, f64);

/// Fits the simulator on pairs with people's scores. `fitted_on` names the file. The para
/// map is fitted on the pairs of the relations in `para_from` (`[Para]`: KLUE's own
/// paraKQC-para pairs; `[Rtt]`: round-trip translations, pairs written to mean the same).
pub fn fit(pairs: &[ScoredPair], fitted_on: &str, para_from: &[Relation]) -> Result<Fit, FitError> {
    // Annotators: residual against the mean of the others on the same pair.
    let mut res: BTreeMap<&str, Vec<Residual>> = BTreeMap::new();
    let mut sizes = Vec::new();
    for p in pairs {
        if p.scores.len() < 2 {
            continue;
        }
        sizes.push(p.scores.len() as f64);
        let sum: f64 = p.scores.iter().sum();
        for (a, x) in p.annotators.iter().zip(&p.scores) {
            let others = (sum - x) / (p.scores.len() - 1) as f64;
            res.entry(a).or_default().push((*x, others, x - others));
        }
    }
    if sizes.is_empty() {
        return Err(FitError::Empty("annotated"));
    }
    let nbar = mean(&sizes);
    let raw: Vec<(String, Vec<Residual>)> =
        res.into_iter().map(|(a, v)| (a.to_string(), v)).collect();
    let var_all: Vec<f64> = raw
        .iter()
        .map(|(_, v)| pvar(&v.iter().map(|t| t.2).collect::<Vec<_>>()))
        .collect();
    let mean_var = mean(&var_all);
    // var(x_a − mean of others) ≈ σ_a² + σ̄²/(n−1) with σ̄² = mean_var·(n−1)/n; rounding to
    // integers adds 1/12 that the simulator's own rounding puts back.
    let annotators: Vec<AnnotatorFit> = raw
        .iter()
        .zip(&var_all)
        .map(|((id, v), var)| {
            let r: Vec<f64> = v.iter().map(|t| t.2).collect();
            let xs: Vec<f64> = v.iter().map(|t| t.0).collect();
            let ys: Vec<f64> = v.iter().map(|t| t.1).collect();
            AnnotatorFit {
                id: id.clone(),
                pairs: v.len(),
                residual_mean: mean(&r),
                residual_sd: var.sqrt(),
                pearson_r: kcurate_agree::reliability::pearson(&xs, &ys),
                noise_sd: (var - mean_var / nbar - 1.0 / 12.0).max(0.0).sqrt(),
            }
        })
        .collect();
    let biases: Vec<f64> = annotators
        .iter()
        .map(|a| a.residual_mean * (nbar - 1.0) / nbar)
        .collect();
    let bias_var = pvar(&biases);
    let noise: Vec<f64> = annotators.iter().map(|a| a.noise_sd).collect();
    let observed_noise_var = mean_var * (nbar - 1.0) / nbar;
    let fit_rel = |rel: Relation, from: &[Relation]| -> Result<RelationFit, FitError> {
        let these: Vec<&ScoredPair> = pairs
            .iter()
            .filter(|p| from.contains(&Relation::of_source(&p.source)) && !p.scores.is_empty())
            .collect();
        if these.is_empty() {
            return Err(FitError::Empty(rel.name()));
        }
        let ys: Vec<f64> = these.iter().map(|p| mean(&p.scores)).collect();
        // The measure with the highest Pearson r (the first on a tie).
        let (feature, pearson, xs) = Feature::ALL
            .iter()
            .map(|f| {
                let xs: Vec<f64> = these
                    .iter()
                    .map(|p| f.of(&p.sentence1, &p.sentence2))
                    .collect();
                let r = kcurate_agree::reliability::pearson(&xs, &ys).unwrap_or(0.0);
                (*f, r, xs)
            })
            .fold(
                None,
                |best: Option<(Feature, f64, Vec<f64>)>, c| match best {
                    Some(b) if b.1 >= c.1 => Some(b),
                    _ => Some(c),
                },
            )
            .expect("three features");
        let pts: Vec<(f64, f64)> = xs.into_iter().zip(ys).collect();
        let mut f = RelationFit {
            pairs: pts.len(),
            feature,
            pearson: r3(pearson),
            knots: fit_map(&pts),
            item_sd: 0.0,
            from: if from == [rel] {
                Vec::new()
            } else {
                from.iter().map(|r| r.name().to_string()).collect()
            },
        };
        let resid: Vec<f64> = pts.iter().map(|(x, y)| y - f.map(*x)).collect();
        let n: Vec<f64> = these.iter().map(|p| p.scores.len() as f64).collect();
        let explained =
            (observed_noise_var + bias_var) * mean(&n.iter().map(|k| 1.0 / k).collect::<Vec<_>>());
        f.item_sd = r3((pvar(&resid) - explained).max(0.0).sqrt());
        Ok(f)
    };
    let model = SimModel {
        fitted_on: format!(
            "{fitted_on}: {} pairs, {} annotators",
            pairs.len(),
            annotators.len()
        ),
        bias_sd: r3(bias_var.sqrt()),
        noise_sd: [
            r3(noise.iter().copied().fold(f64::INFINITY, f64::min)),
            r3(noise.iter().copied().fold(0.0, f64::max)),
        ],
        para: fit_rel(Relation::Para, para_from)?,
        rtt: fit_rel(Relation::Rtt, &[Relation::Rtt])?,
        sampled: fit_rel(Relation::Sampled, &[Relation::Sampled])?,
    };
    let means: Vec<f64> = pairs.iter().map(|p| mean(&p.scores)).collect();
    let pearson_by_metric = [
        ("rouge1", Metric::Rouge1),
        ("rouge2", Metric::Rouge2),
        ("rougeL", Metric::RougeL),
    ]
    .into_iter()
    .map(|(name, m)| {
        let xs: Vec<f64> = pairs
            .iter()
            .map(|p| score(m, &syllables(&p.sentence1), &syllables(&p.sentence2)).f64())
            .collect();
        (
            name,
            kcurate_agree::reliability::pearson(&xs, &means).unwrap_or(0.0),
        )
    })
    .collect();
    Ok(Fit {
        model,
        annotators,
        pearson_by_metric,
        mean_annotators_per_pair: nbar,
    })
}

fn knots_toml(k: &[[f64; 2]]) -> String {
    let inner: Vec<String> = k.iter().map(|[x, y]| format!("[{x}, {y}]")).collect();
    format!("[{}]", inner.join(", "))
}

/// The `simulator` table of an `sts` stage, as the recipe carries it.
pub fn to_toml(m: &SimModel) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "[stage.simulator]");
    let _ = writeln!(s, "fitted_on = {:?}", m.fitted_on);
    let _ = writeln!(s, "bias_sd = {}", m.bias_sd);
    let _ = writeln!(s, "noise_sd = [{}, {}]", m.noise_sd[0], m.noise_sd[1]);
    for r in [Relation::Para, Relation::Rtt, Relation::Sampled] {
        let f = m.relation(r);
        let from = if f.from.is_empty() {
            String::new()
        } else {
            format!(", from = {:?}", f.from)
        };
        let _ = writeln!(
            s,
            "{} = {{ pairs = {}, feature = {:?}, pearson = {}, item_sd = {}, knots = {}{from} }}",
            r.name(),
            f.pairs,
            f.feature.name(),
            f.pearson,
            f.item_sd,
            knots_toml(&f.knots)
        );
    }
    s
}

/// A human-readable account of a fit (what `kcurate sts fit-sim` prints as comments).
pub fn report(f: &Fit) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# overlap measures against the pairs' mean scores (Pearson r): {}",
        f.pearson_by_metric
            .iter()
            .map(|(n, r)| format!("{n} {r:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "# {:.2} annotators per pair; per annotator: id pairs residual_mean residual_sd pearson_r noise_sd",
        f.mean_annotators_per_pair
    );
    for a in &f.annotators {
        let _ = writeln!(
            s,
            "#   {} {} {:+.3} {:.3} {} {:.3}",
            a.id,
            a.pairs,
            a.residual_mean,
            a.residual_sd,
            a.pearson_r.map_or("-".into(), |r| format!("{r:.3}")),
            a.noise_sd
        );
    }
    s
}

#[cfg(test)]
mod tests;
