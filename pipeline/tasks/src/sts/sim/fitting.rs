//! Fitting the simulator on people's scores ([`fit`] over [`read_klue`]'s pairs) and
//! printing the fit ([`to_toml`], [`report`]): what `kcurate sts fit-sim` runs.

use super::{Feature, MIN_PER_BIN, Relation, RelationFit, SimModel};
use crate::rouge::{Metric, score, syllables};
use std::collections::BTreeMap;
use std::fmt::Write;

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

pub(super) fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

pub(super) fn pvar(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64
}

pub(super) fn r3(x: f64) -> f64 {
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
    let people = fit_annotators(pairs)?;
    let annotators = people.annotators;
    let nbar = people.mean_per_pair;
    let biases: Vec<f64> = annotators
        .iter()
        .map(|a| a.residual_mean * (nbar - 1.0) / nbar)
        .collect();
    let bias_var = pvar(&biases);
    let noise: Vec<f64> = annotators.iter().map(|a| a.noise_sd).collect();
    let observed_noise_var = people.mean_var * (nbar - 1.0) / nbar;
    let people_var = observed_noise_var + bias_var;
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
        para: fit_relation(pairs, Relation::Para, para_from, people_var)?,
        rtt: fit_relation(pairs, Relation::Rtt, &[Relation::Rtt], people_var)?,
        sampled: fit_relation(pairs, Relation::Sampled, &[Relation::Sampled], people_var)?,
    };
    Ok(Fit {
        model,
        annotators,
        pearson_by_metric: pearson_by_metric(pairs),
        mean_annotators_per_pair: nbar,
    })
}

/// The annotators' profiles, with the mean number of annotators per pair and the mean
/// residual variance they come from.
struct People {
    annotators: Vec<AnnotatorFit>,
    mean_per_pair: f64,
    mean_var: f64,
}

/// Each annotator's residual against the mean of the others on the same pair, and the
/// noise SD that leaves once the others' noise and rounding are taken out.
fn fit_annotators(pairs: &[ScoredPair]) -> Result<People, FitError> {
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
    Ok(People {
        annotators,
        mean_per_pair: nbar,
        mean_var,
    })
}

/// The map of relation `rel`, fitted on the pairs of the relations `from`: the measure with
/// the highest Pearson r with the pairs' mean scores, its monotone map, and the pair-level
/// SD left once `people_var` (the annotators' noise and bias variance) is taken out.
fn fit_relation(
    pairs: &[ScoredPair],
    rel: Relation,
    from: &[Relation],
    people_var: f64,
) -> Result<RelationFit, FitError> {
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
    let explained = people_var * mean(&n.iter().map(|k| 1.0 / k).collect::<Vec<_>>());
    f.item_sd = r3((pvar(&resid) - explained).max(0.0).sqrt());
    Ok(f)
}

/// Pearson r of each syllable ROUGE measure with the pairs' mean scores.
fn pearson_by_metric(pairs: &[ScoredPair]) -> Vec<(&'static str, f64)> {
    let means: Vec<f64> = pairs.iter().map(|p| mean(&p.scores)).collect();
    [
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
    .collect()
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
