//! Stage `sts` (corpus): sentences in, KLUE STS examples out.

use crate::sts::sim::SimModel;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, StageEntry, parse_settings,
};
use std::collections::BTreeMap;

mod annotate;
mod assign;
mod candidates;
mod intents;
mod rows;
mod splits;

use rows::drop_unpaired;

/// The `sts` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "sts",
    summary: "KLUE STS: intent pairs, GSM and RTT candidates, annotation, KLUE filters, uniform dev/test",
    doc: "What: turns sentences into scored sentence pairs. Candidates: sentences of `intent_sources` grouped \
into intents by the source's intent map when `intents` names one (paraKQC_v1.intents.tsv: block → \
intent, the block length from the source's lines), else by `intent_block` consecutive input lines: pairs within an intent \
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
bin (KLUE dev: 55), filled side by side; on a corpus too small for them the caps shrink in proportion \
until train keeps `min_train_share` (0.5) of the pairs, and every target not met is listed \
(targets_not_met, printed by the card and the run); no sentence is in two splits (sts.shared_sentence). Sentences in no pair \
leave with sts.unpaired.\n\
Why: KLUE §3.2; JGLUE JSTS for the variance filter.\n\
Example: 내일 서울 날씨 어때? / 내일 서울 날씨 알려줘 → paraKQC-para; its measure maps to a mean \
score, a seeded pair-level deviation is added, and seven annotators score around it.\n\
Settings: intent_sources, intents, intent_block (10), sampled_per_intent (1), sampled_most_similar (false), random_per_intent (0), gsm_sources, rtt, annotations, \
simulator (needed without annotations), annotators (7), \
spammers (1), min_r (0.8), min_alpha (0.2), decimals (1), binary_at (3.0), max_variance, outlier_sd, dev_per_bin (55), \
test_per_bin (55), min_train_share (0.5), source_quota (dev/test pairs per pair source; none), max_para_per_intent (3).",
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
    /// Intent source → its intent map (`block`/`line` and `intent` TSV); replaces
    /// `intent_block` for that source.
    #[serde(default)]
    intents: BTreeMap<String, String>,
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
    /// The dev/test caps shrink until train keeps at least this share of the pairs.
    #[serde(default = "min_train_share")]
    min_train_share: f64,
}

fn min_train_share() -> f64 {
    crate::split_targets::DEFAULT_MIN_TRAIN_SHARE
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
    /// Intent source → its intent map.
    intent_maps: BTreeMap<String, intents::IntentMap>,
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
    crate::split_targets::check_share(cfg.min_train_share)
        .map_err(|e| BuildError::setting("min_train_share", e.to_string()))?;
    let mut intent_maps = BTreeMap::new();
    for (src, p) in &cfg.intents {
        if !cfg.intent_sources.contains(src) {
            return Err(BuildError::setting(
                "intents",
                format!("{src:?} is not one of intent_sources"),
            ));
        }
        let path = ctx.resolve(p);
        intent_maps.insert(src.clone(), intents::read(&path)?);
        ctx.extra_inputs.push(path);
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
        rtt = read_rtt(&path)?;
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
        intent_maps,
    })))
}

/// Round-trip translations, `{"id","translation"}` JSONL (core's JSONL reader: gzip too,
/// errors naming file:line): sentence id → translation.
fn read_rtt(path: &std::path::Path) -> Result<BTreeMap<String, String>, BuildError> {
    let file_error = |e: kcurate_core::jsonl::JsonlError| {
        let (path, message) = match e {
            kcurate_core::jsonl::JsonlError::Io { path, source, .. } => (path, source.to_string()),
            kcurate_core::jsonl::JsonlError::Json { path, line, source } => {
                (format!("{path}:{line}"), source.to_string())
            }
            kcurate_core::jsonl::JsonlError::Field {
                path,
                line,
                field,
                message,
            } => (format!("{path}:{line}"), format!("{field}: {message}")),
        };
        BuildError::File { path, message }
    };
    let mut rtt = BTreeMap::new();
    for item in kcurate_core::jsonl::values(path).map_err(file_error)? {
        let (line, v) = item.map_err(file_error)?;
        match (v["id"].as_str(), v["translation"].as_str()) {
            (Some(i), Some(t)) => {
                rtt.insert(i.to_string(), t.to_string());
            }
            _ => {
                return Err(BuildError::File {
                    path: format!("{}:{line}", path.display()),
                    message: "needs string fields id and translation".into(),
                });
            }
        }
    }
    Ok(rtt)
}

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The guid of candidate pair `k` (`sts-00042`): the pair's id and KLUE's `guid`.
fn guid(k: usize) -> String {
    format!("sts-{:05}", k)
}

impl CorpusStage for StsStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let cands = self.candidates(&recs);
        let scores = self.scores(&cands, &recs, out);
        let kept = self.keep_reliable(scores, out);
        let mut dropped_pairs = Vec::new();
        let examples = self.labels(&kept.matrix, cands.len(), &mut dropped_pairs);
        let examples = self.drop_outliers(examples, &mut dropped_pairs);
        let assigned = self.assign_splits(&cands, &examples, &mut dropped_pairs, out);
        let used = self.write_pairs(&recs, &cands, &examples, &assigned, &kept.names, out);
        drop_unpaired(recs, &cands, &used, &dropped_pairs, out);
    }
}

#[cfg(test)]
mod tests;
