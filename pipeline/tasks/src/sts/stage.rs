//! Stage `sts` (corpus): sentences in, KLUE STS examples out.

use crate::rouge::{Metric, score, syllables};
use crate::sts::labels::{agreement, score_sd, sd_outliers, sig16};
use crate::sts::sim::SimModel;
use kcurate_agree::aggregate::{mean_score, variance};
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_agree::reliability::{klue_sts_drops, reliability};
use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Kind, Out, Record, RuleId, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

mod candidates;

/// The `sts` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "sts",
    summary: "KLUE STS: intent pairs, GSM and RTT candidates, annotation, KLUE filters, uniform dev/test",
    doc: "What: turns sentences into scored sentence pairs. Candidates: sentences of `intent_sources` grouped \
into intents of `intent_block` consecutive input lines (paraKQC: 10): pairs within an intent \
(paraKQC-para), across intents of one topic (paraKQC-sampled, with the next `sampled_per_intent` \
intents of the topic; with `sampled_most_similar` the two utterances with the highest ROUGE-1, as \
GSM would pick) and, `random_per_intent` times per \
intent, with an intent of another topic (paraKQC-random); Greedy Sentence Matching with \
ROUGE-1 over `gsm_sources` (<source>-sampled); `rtt` = {\"id\",\"translation\"} JSONL pairs a sentence \
with its round-trip translation (<source>-rtt). Each pair gets `annotators` 0–5 scores, imported \
(`annotations`: long TSV/JSONL or a Label Studio export, keyed by pair guid) or simulated from the \
`simulator` table (seeded; `spammers` of them random): a content measure of the pair (syllable \
ROUGE-1/ROUGE-2 or length ratio, the one fitted per relation) through a monotone map per relation \
(para, rtt, sampled) plus a pair-level deviation, then per-annotator bias and \
noise, all fitted on KLUE STS dev (`kcurate sts fit-sim` prints the table). \
Annotators with r < min_r or nominal α < min_alpha are dropped (agree.annotator_unreliable); \
label = mean rounded to one decimal, binary = label >= `binary_at` (3.0); `max_variance` drops \
high-variance pairs (sts.variance, JSTS); `outlier_sd` (KLUE: 2.0) drops pairs whose score SD is \
that many SDs above the mean SD (sts.outlier_sd). Dev and test take at most `dev_per_bin`/`test_per_bin` pairs per 0.5 \
bin (KLUE dev: 55); no sentence is in two splits (sts.shared_sentence). Sentences in no pair \
leave with sts.unpaired.\n\
Why: KLUE §3.2; JGLUE JSTS for the variance filter.\n\
Example: 내일 서울 날씨 어때? / 내일 서울 날씨 알려줘 → paraKQC-para; its measure maps to a mean \
score, a seeded pair-level deviation is added, and seven annotators score around it.\n\
Settings: intent_sources, intent_block (10), sampled_per_intent (1), sampled_most_similar (false), random_per_intent (0), gsm_sources, rtt, annotations, \
simulator (needed without annotations), annotators (7), \
spammers (1), min_r (0.8), min_alpha (0.2), decimals (1), binary_at (3.0), max_variance, outlier_sd, dev_per_bin (55), \
test_per_bin (55), source_quota (dev/test pairs per pair source; none), max_para_per_intent (3).",
    rules: &[
        "agree.annotator_unreliable",
        "sts.no_annotation",
        "sts.outlier_sd",
        "sts.shared_sentence",
        "sts.unpaired",
        "sts.variance",
    ],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StsConfig {
    #[serde(default)]
    intent_sources: Vec<String>,
    #[serde(default = "ten")]
    intent_block: u64,
    #[serde(default)]
    gsm_sources: Vec<String>,
    #[serde(default)]
    rtt: Option<String>,
    #[serde(default)]
    annotations: Option<String>,
    /// The fitted simulator (needed when there are no `annotations`).
    #[serde(default)]
    simulator: Option<SimModel>,
    /// Pairs per intent with an utterance of an intent of another topic (paraKQC-random).
    #[serde(default)]
    random_per_intent: usize,
    /// Pairs per intent with the next intents of the same topic (paraKQC-sampled), one each.
    #[serde(default = "one")]
    sampled_per_intent: usize,
    /// Such a pair takes the two utterances with the highest syllable ROUGE-1 (as KLUE's GSM
    /// picks sampled partners) instead of fixed positions.
    #[serde(default)]
    sampled_most_similar: bool,
    #[serde(default = "seven")]
    annotators: usize,
    #[serde(default = "one")]
    spammers: usize,
    #[serde(default = "min_r")]
    min_r: f64,
    #[serde(default = "min_alpha")]
    min_alpha: f64,
    #[serde(default = "one")]
    decimals: usize,
    #[serde(default)]
    max_variance: Option<f64>,
    /// KLUE's outlier filter: drop pairs whose score SD is more than this many SDs above
    /// the mean score SD (KLUE: 2.0). Off when absent.
    #[serde(default)]
    outlier_sd: Option<f64>,
    /// binary-label = 1 when label >= this (KLUE: 3.0).
    #[serde(default = "three_f")]
    binary_at: f64,
    #[serde(default = "fifty_five")]
    dev_per_bin: usize,
    #[serde(default = "fifty_five")]
    test_per_bin: usize,
    #[serde(default = "three")]
    max_para_per_intent: usize,
    /// At most this many dev (and test) pairs per pair source (`paraKQC-para`, `policy-rtt`, ...).
    #[serde(default)]
    source_quota: Option<usize>,
}

fn ten() -> u64 {
    10
}
fn seven() -> usize {
    7
}
fn one() -> usize {
    1
}
fn three() -> usize {
    3
}
fn three_f() -> f64 {
    3.0
}
fn min_r() -> f64 {
    0.8
}
fn min_alpha() -> f64 {
    0.2
}
fn fifty_five() -> usize {
    55
}

pub(crate) struct StsStage {
    cfg: StsConfig,
    seed: u64,
    rtt: BTreeMap<String, String>,
    imported: Option<Vec<kcurate_agree::io::Annotation>>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: StsConfig = parse_settings(settings)?;
    for s in cfg.intent_sources.iter().chain(&cfg.gsm_sources) {
        if !ctx.sources.contains_key(s) {
            return Err(BuildError::setting(
                "sources",
                format!("no source {s:?} in the recipe"),
            ));
        }
    }
    if cfg.annotators < 2 || cfg.spammers >= cfg.annotators {
        return Err(BuildError::setting(
            "annotators",
            "need at least 2 annotators and fewer spammers than annotators",
        ));
    }
    match &cfg.simulator {
        Some(m) => m
            .check()
            .map_err(|e| BuildError::setting("simulator", e.to_string()))?,
        None if cfg.annotations.is_none() => {
            return Err(BuildError::setting(
                "simulator",
                "needed when there are no `annotations`: paste the table `kcurate sts fit-sim --klue \
                 <KLUE STS file with per-annotator scores>` prints",
            ));
        }
        None => {}
    }
    let mut rtt = BTreeMap::new();
    if let Some(p) = &cfg.rtt {
        let path = ctx.resolve(p);
        let text = std::fs::read_to_string(&path).map_err(|e| BuildError::File {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        for (n, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: serde_json::Value = serde_json::from_str(l).map_err(|e| BuildError::File {
                path: format!("{}:{}", path.display(), n + 1),
                message: e.to_string(),
            })?;
            match (v["id"].as_str(), v["translation"].as_str()) {
                (Some(i), Some(t)) => {
                    rtt.insert(i.to_string(), t.to_string());
                }
                _ => {
                    return Err(BuildError::File {
                        path: format!("{}:{}", path.display(), n + 1),
                        message: "needs string fields id and translation".into(),
                    });
                }
            }
        }
        ctx.extra_inputs.push(path);
    }
    let imported = match &cfg.annotations {
        None => None,
        Some(p) => Some(crate::annotations::import(
            ctx,
            p,
            &kcurate_agree::batch::BatchKind::StsSlider,
        )?),
    };
    Ok(BuiltStage::Corpus(Box::new(StsStage {
        cfg,
        seed: ctx.seed,
        rtt,
        imported,
    })))
}

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl CorpusStage for StsStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let cands = self.candidates(&recs);
        let guid = |k: usize| format!("sts-{:05}", k);
        // Scores: pair × annotator.
        let pool = match (&self.imported, &self.cfg.simulator) {
            (None, Some(m)) => m.pool(self.cfg.annotators, self.cfg.spammers, self.seed),
            _ => Vec::new(),
        };
        let names: Vec<String> = match &self.imported {
            Some(rows) => rows
                .iter()
                .map(|r| r.annotator.clone())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            None => pool.iter().map(|a| a.id.clone()).collect(),
        };
        let mut matrix = vec![vec![None; cands.len()]; names.len()];
        match &self.imported {
            Some(rows) => {
                let index: BTreeMap<String, usize> =
                    (0..cands.len()).map(|k| (guid(k), k)).collect();
                for r in rows {
                    if let (Some(&k), Ok(a)) =
                        (index.get(&r.item), names.binary_search(&r.annotator))
                    {
                        matrix[a][k] = Some(r.value.clone());
                    }
                }
            }
            None => {
                if let Some(m) = &self.cfg.simulator {
                    out.metric("simulator", serde_json::to_value(m).unwrap_or_default());
                    for (k, c) in cands.iter().enumerate() {
                        let s2 = c.translation.as_deref().unwrap_or(&recs[c.b].text);
                        let truth = m.truth(self.seed, &guid(k), c.relation, &recs[c.a].text, s2);
                        for (a, ann) in pool.iter().enumerate() {
                            matrix[a][k] = Some(Label::Num(ann.score(self.seed, &guid(k), truth)));
                        }
                    }
                }
            }
        }
        // KLUE's annotator filter.
        let m = Matrix::new(matrix.clone());
        let rel = reliability(&m);
        let dropped: BTreeSet<usize> = klue_sts_drops(&rel, self.cfg.min_r, self.cfg.min_alpha)
            .into_iter()
            .map(|(a, why)| {
                let rec = Record {
                    id: format!("annotator:{}", names[a]),
                    source: "annotations".into(),
                    ..Default::default()
                };
                out.flag(
                    &rec,
                    RuleId::new("agree.annotator_unreliable"),
                    why,
                    rel[a].pearson_r,
                );
                a
            })
            .collect();
        let kept_rows: Vec<Vec<Option<Label>>> = matrix
            .iter()
            .enumerate()
            .filter(|(a, _)| !dropped.contains(a))
            .map(|(_, r)| r.clone())
            .collect();
        let kept_names: Vec<&String> = names
            .iter()
            .enumerate()
            .filter(|(a, _)| !dropped.contains(a))
            .map(|(_, n)| n)
            .collect();
        if let Some(x) = alpha(&Matrix::new(kept_rows.clone()), Level::Interval)
            .ok()
            .flatten()
        {
            out.metric("alpha_interval", json!(r6(x)));
        }
        out.metric("annotators_dropped", json!(dropped.len()));
        out.metric(
            "annotator_pearson_r",
            json!(
                names
                    .iter()
                    .zip(&rel)
                    .map(|(n, r)| (n.clone(), r.pearson_r.map(r6)))
                    .collect::<BTreeMap<_, _>>()
            ),
        );
        // Labels and the variance filter.
        let mut examples: Vec<(usize, f64, f64, Vec<f64>)> = Vec::new(); // cand, label, real, scores
        let mut used_as_parent: BTreeSet<usize> = BTreeSet::new();
        let mut dropped_pairs: Vec<(usize, &str, String)> = Vec::new();
        for k in 0..cands.len() {
            let scores: Vec<f64> = kept_rows
                .iter()
                .filter_map(|r| r[k].as_ref().and_then(Label::num))
                .collect();
            let ms = mean_score(&scores, self.cfg.decimals);
            let (Some(label), Some(real)) = (ms.label, ms.real_label) else {
                dropped_pairs.push((k, "sts.no_annotation", "no annotation".into()));
                continue;
            };
            if let (Some(maxv), Some(v)) = (self.cfg.max_variance, variance(&scores))
                && v >= maxv
            {
                dropped_pairs.push((
                    k,
                    "sts.variance",
                    format!("score variance {v:.3} >= {maxv}"),
                ));
                continue;
            }
            examples.push((k, label, real, scores));
        }
        // KLUE's 2-SD filter over the pairs' score SDs (one-sided: large disagreement).
        if let Some(k_sd) = self.cfg.outlier_sd {
            let sds: Vec<f64> = examples.iter().map(|e| score_sd(&e.3)).collect();
            let drop: BTreeSet<usize> = sd_outliers(&sds, k_sd).into_iter().collect();
            let mut kept = Vec::with_capacity(examples.len());
            for (e, ex) in examples.into_iter().enumerate() {
                if drop.contains(&e) {
                    dropped_pairs.push((
                        ex.0,
                        "sts.outlier_sd",
                        format!("score SD {:.3} over {k_sd} SDs above the mean SD", sds[e]),
                    ));
                } else {
                    kept.push(ex);
                }
            }
            examples = kept;
        }
        // Uniform dev/test: per 0.5 bin, pairs in a seeded order; no sentence in two splits.
        let mut order: Vec<usize> = (0..examples.len()).collect();
        order.sort_by_key(|&e| seeded_u64(self.seed, guid(examples[e].0).as_bytes()));
        let mut split_of_sentence: BTreeMap<usize, &str> = BTreeMap::new();
        let mut per_bin: BTreeMap<(&str, usize), usize> = BTreeMap::new();
        let mut per_source: BTreeMap<(&str, String), usize> = BTreeMap::new();
        let mut assigned: Vec<Option<&str>> = vec![None; examples.len()];
        for &e in &order {
            let (k, label, _, _) = &examples[e];
            let c = &cands[*k];
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
                    dropped_pairs.push((
                        *k,
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
        let mut hist = [0u64; 10];
        for (e, (k, label, real, scores)) in examples.iter().enumerate() {
            let Some(split) = assigned[e] else { continue };
            let c = &cands[*k];
            let (s1, s2) = (&recs[c.a], &recs[c.b]);
            let sentence2 = c.translation.clone().unwrap_or_else(|| s2.text.clone());
            used_as_parent.insert(c.a);
            used_as_parent.insert(c.b);
            if split != "train" {
                hist[((label / 0.5).floor() as usize).min(9)] += 1;
            }
            let agreement = agreement(scores);
            let row = json!({
                "guid": guid(*k),
                "source": c.source,
                "sentence1": s1.text,
                "sentence2": sentence2,
                "labels": {"label": label, "real-label": sig16(*real), "binary-label": u8::from(*label >= self.cfg.binary_at)},
                "annotations": {"agreement": agreement, "annotators": kept_names, "annotations": scores.iter().map(|s| *s as i64).collect::<Vec<_>>()},
            });
            let mut rec = s1.child(guid(*k), Kind::Pair, s1.text.clone());
            rec.parents = if c.a == c.b {
                vec![s1.id.clone()]
            } else {
                vec![s1.id.clone(), s2.id.clone()]
            };
            rec.fields = BTreeMap::from([
                ("output".to_string(), row),
                ("split".to_string(), json!(split)),
                (
                    "rouge1".to_string(),
                    json!(r6(score(
                        Metric::Rouge1,
                        &syllables(&s1.text),
                        &syllables(&sentence2)
                    )
                    .f64())),
                ),
            ]);
            out.keep(rec);
        }
        out.metric("dev_test_histogram_0.5_bins", json!(hist));
        // Sentences in no released pair leave with a reason.
        let dropped_for: BTreeMap<usize, (&str, &String)> = dropped_pairs
            .iter()
            .flat_map(|(k, r, d)| [(cands[*k].a, (*r, d)), (cands[*k].b, (*r, d))])
            .collect();
        for (i, r) in recs.into_iter().enumerate() {
            if !used_as_parent.contains(&i) {
                match dropped_for.get(&i) {
                    Some((rule, d)) => {
                        let d = format!("its pair was dropped: {d}");
                        out.drop(r, RuleId::new(*rule), d, None)
                    }
                    None => out.drop(r, RuleId::new("sts.unpaired"), "in no candidate pair", None),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
