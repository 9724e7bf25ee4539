//! Stage `nli` (corpus): premises in, validated NLI pairs out (KLUE §3.3, JNLI).
//! A writer writes one hypothesis per label; validators label each pair; gold needs
//! `min_votes` of the labels (KLUE: 3 of 5 = writer + 4 validators; JNLI: 6 of 10), else the
//! pair leaves with `nli.no_gold`. Writers and validators are simulated (seeded) so the
//! recipe runs without people; validators vote through the recipe's `votes` table
//! ([`crate::votes::VoteModel`], fitted on KLUE NLI dev), which the card reports. Table 5 statistics go to the manifest. Dev and test come
//! from the premise sets a cross-fitted hypothesis-only model finds hardest, with per-source
//! quotas (by style); a premise set never straddles splits.

mod run;

use crate::split_targets;
use crate::votes::VoteModel;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, SourceInfo, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The `nli` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "nli",
    summary: "KLUE NLI: hypotheses per label, k-of-n validation, hypothesis-only dev/test pool, per-source quotas",
    doc: "What: for each premise a (simulated) writer writes an entailment, a neutral and a contradiction \
hypothesis; `validators` (simulated, seeded) label each pair; gold = the label with at least \
`min_votes` of the writer's and validators' labels, else nli.no_gold. Validators vote through \
the `votes` table (P(vote | gold) and a per-validator error scale, fitted on KLUE NLI dev by \
`kcurate nli fit-votes`; reported as vote_model). Nominal α of the writer's and validators' labels \
(alpha_nominal; `alpha` with its seeded 95% bootstrap interval), the gold rule (`aggregator`), each \
annotator's agreement with the gold label (`annotators`) and the gold label counts \
(label_distribution) go to the manifest, and the card's Annotations states them. A hypothesis-only model is \
cross-fitted by premise (5 folds); the `pool_share` of premise sets with the lowest mean \
cross-entropy against the uniform distribution feed dev and test: whole premise sets whose gold \
labels are one entailment, one neutral and one contradiction, exactly `formal_quota` / \
`colloquial_quota` pairs per source and split (multiples of 3; labels balanced by construction); \
when the pool has too few such sets the next-hardest sets fill the quota, and a quota the corpus \
cannot fill is reported as quota_shortfall_pairs; everything else is train. Rows follow the KLUE NLI \
schema (guid, source, premise, hypothesis, gold_label, author, label2…).\n\
Why: KLUE §3.3 (Table 5, hypothesis-only selection, 450/600 per source); JGLUE JNLI (10 workers, ≥ 6).\n\
On a source too small for its quotas they shrink in proportion (whole sets) until train keeps \
`min_train_share` (0.5) of its pairs; every quota not met is listed (targets_not_met). \
Settings: validators (4), min_votes (3), pool_share (0.2), formal_quota (450), colloquial_quota (600), \
min_train_share (0.5), votes (table, required).",
    rules: &["nli.no_gold"],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NliConfig {
    #[serde(default = "four")]
    validators: usize,
    #[serde(default = "three")]
    min_votes: usize,
    #[serde(default = "share")]
    pool_share: f64,
    #[serde(default = "q450")]
    formal_quota: usize,
    #[serde(default = "q600")]
    colloquial_quota: usize,
    /// The validators' vote model (`kcurate nli fit-votes` prints it).
    votes: Option<VoteModel>,
    /// A source's quotas shrink until train keeps at least this share of its pairs.
    #[serde(default = "min_train_share")]
    min_train_share: f64,
}

fn min_train_share() -> f64 {
    split_targets::DEFAULT_MIN_TRAIN_SHARE
}

fn four() -> usize {
    4
}
fn three() -> usize {
    3
}
fn share() -> f64 {
    0.2
}
fn q450() -> usize {
    450
}
fn q600() -> usize {
    600
}

pub(crate) struct NliStage {
    cfg: NliConfig,
    votes: VoteModel,
    seed: u64,
    sources: BTreeMap<String, SourceInfo>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let mut cfg: NliConfig = parse_settings(settings)?;
    split_targets::check_share(cfg.min_train_share)
        .map_err(|e| BuildError::setting("min_train_share", e.to_string()))?;
    for (key, q) in [
        ("formal_quota", cfg.formal_quota),
        ("colloquial_quota", cfg.colloquial_quota),
    ] {
        if q % 3 != 0 {
            return Err(BuildError::setting(
                key,
                format!("{q} is not a multiple of 3: dev/test take one pair per label"),
            ));
        }
    }
    let Some(votes) = cfg.votes.take() else {
        return Err(BuildError::setting(
            "votes",
            "needed: paste the table `kcurate nli fit-votes --klue <KLUE NLI dev JSON>` prints",
        ));
    };
    votes
        .check()
        .map_err(|e| BuildError::setting("votes", e.to_string()))?;
    if cfg.min_votes == 0 || cfg.min_votes > cfg.validators + 1 {
        return Err(BuildError::setting(
            "min_votes",
            format!("must be 1..={} (writer + validators)", cfg.validators + 1),
        ));
    }
    Ok(BuiltStage::Corpus(Box::new(NliStage {
        cfg,
        votes,
        seed: ctx.seed,
        sources: ctx.sources.clone(),
    })))
}

/// The simulated writer: one hypothesis per label from templates over the premise.
pub fn write_hypotheses(premise: &str) -> [(String, &'static str); 3] {
    let p = premise.trim().trim_end_matches('.');
    let words: Vec<&str> = p.split_whitespace().collect();
    let entail = if words.len() > 3 {
        format!("{}.", words[1..].join(" "))
    } else {
        format!("{p}.")
    };
    let contra = if let Some(stem) = p.strip_suffix("했다") {
        format!("{stem}하지 않았다.")
    } else if let Some(stem) = p.strip_suffix("한다") {
        format!("{stem}하지 않는다.")
    } else if let Some(stem) = p.strip_suffix("있다") {
        format!("{stem}없다.")
    } else if let Some(stem) = p.strip_suffix("이다") {
        format!("{stem}이 아니다.")
    } else {
        format!("{p}는 사실이 아니다.")
    };
    let neutral = format!("{p}. 많은 사람들이 이를 반겼다.");
    [
        (entail, "entailment"),
        (neutral, "neutral"),
        (contra, "contradiction"),
    ]
}

impl CorpusStage for NliStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        // Hypotheses and votes come from the simulated writers and validators.
        out.metric("label_origin", json!("simulated"));
        out.metric(
            "vote_model",
            serde_json::to_value(&self.votes).unwrap_or_default(),
        );
        let v = self.validate(&recs);
        self.record_votes(&v, out);
        let scored = self.hypothesis_only(&v.pairs, out);
        let split_of = self.assign_splits(&recs, &v.pairs, scored.as_deref(), out);
        self.emit(recs, &v, scored.as_deref(), &split_of, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Decision, Kind, Origin};

    fn stage(quota: usize) -> NliStage {
        let mut sources = BTreeMap::new();
        sources.insert(
            "news".to_string(),
            SourceInfo {
                id: "news".into(),
                style: "formal".into(),
                ..Default::default()
            },
        );
        NliStage {
            cfg: NliConfig {
                validators: 4,
                min_votes: 3,
                pool_share: 0.2,
                formal_quota: quota,
                colloquial_quota: quota,
                votes: None,
                min_train_share: 0.5,
            },
            votes: crate::votes::tests::model(),
            seed: 3,
            sources,
        }
    }

    fn premises(n: usize) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                id: format!("news-{i:04}"),
                kind: Kind::Sentence,
                source: "news".into(),
                origin: Origin {
                    file: "news.jsonl".into(),
                    line: i as u64 + 1,
                },
                text: format!("시청은 {i}번째 사업을 지난달에 시작했다."),
                ..Record::default()
            })
            .collect()
    }

    fn run(st: &NliStage, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>, serde_json::Value) {
        let mut out = Out::new("nli");
        st.run(recs, &mut out);
        let m = out.take_metrics();
        let (kept, ds, _) = out.into_parts();
        (kept, ds, json!(m))
    }

    fn per_split(kept: &[Record]) -> BTreeMap<String, usize> {
        let mut n = BTreeMap::new();
        for r in kept {
            *n.entry(r.fields["split"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        n
    }

    #[test]
    fn quotas_are_exact_when_the_corpus_allows_and_shortfalls_are_reported() {
        let (kept, _, m) = run(&stage(12), premises(60));
        let n = per_split(&kept);
        assert_eq!((n["dev"], n["test"]), (12, 12), "{n:?}");
        assert_eq!(m["quota_shortfall_pairs"], json!({}));
        // A quota larger than the corpus: filled as far as it goes, the rest reported.
        let (kept, _, m) = run(&stage(300), premises(40));
        let n = per_split(&kept);
        let short = &m["quota_shortfall_pairs"];
        assert_eq!(
            short["news/dev"].as_u64().unwrap() + n.get("dev").copied().unwrap_or(0) as u64,
            300
        );
        assert!(short["news/test"].as_u64().unwrap() > 0);
    }

    #[test]
    fn quotas_shrink_so_that_train_keeps_half_and_the_shrink_is_reported() {
        // 40 premises of 3 pairs: 120 pairs, so dev and test take at most 30 each.
        let (kept, _, m) = run(&stage(300), premises(40));
        let n = per_split(&kept);
        assert!(n["train"] * 2 >= kept.len(), "{n:?}");
        let unmet = m[split_targets::METRIC].as_array().unwrap();
        assert!(
            unmet
                .iter()
                .any(|u| u["target"] == "news/dev pairs" && u["wanted"] == 300 && u["got"] == 30),
            "{unmet:?}"
        );
        let (_, _, m) = run(&stage(12), premises(60));
        assert!(m.get(split_targets::METRIC).is_none(), "{m}");
    }

    #[test]
    fn a_quota_that_is_not_a_multiple_of_three_is_refused() {
        let mut t = toml::Table::new();
        t.insert("formal_quota".into(), toml::Value::Integer(10));
        let mut ctx = BuildCtx::default();
        assert!(build(&t, &mut ctx).is_err());
    }
}
