//! Stage `nli` (corpus): premises in, validated NLI pairs out (KLUE §3.3, JNLI).
//! A writer writes one hypothesis per label; validators label each pair; gold needs
//! `min_votes` of the labels (KLUE: 3 of 5 = writer + 4 validators; JNLI: 6 of 10), else the
//! pair leaves with `nli.no_gold`. Writers and validators are simulated (seeded) so the
//! recipe runs without people. Table 5 statistics go to the manifest. Dev and test come
//! from the premise sets a cross-fitted hypothesis-only model finds hardest, with per-source
//! quotas (by style); a premise set never straddles splits.

use super::select::{LABELS, Pair, select};
use kcurate_agree::aggregate::{majority, validation_stats};
use kcurate_agree::label::Label;
use kcurate_agree::simulate;
use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Kind, Out, Record, RuleId, SourceInfo,
    StageEntry, parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

pub const ENTRY: StageEntry = StageEntry {
    name: "nli",
    summary: "KLUE NLI: hypotheses per label, k-of-n validation, hypothesis-only dev/test pool, per-source quotas",
    doc: "What: for each premise a (simulated) writer writes an entailment, a neutral and a contradiction \
hypothesis; `validators` (simulated, seeded) label each pair; gold = the label with at least \
`min_votes` of the writer's and validators' labels, else nli.no_gold. A hypothesis-only model is \
cross-fitted by premise (5 folds); the `pool_share` of premise sets with the lowest mean \
cross-entropy against the uniform distribution feed dev and test, up to `formal_quota` / \
`colloquial_quota` pairs per source and split; everything else is train. Rows follow the KLUE NLI \
schema (guid, source, premise, hypothesis, gold_label, author, label2…).\n\
Why: KLUE §3.3 (Table 5, hypothesis-only selection, 450/600 per source); JGLUE JNLI (10 workers, ≥ 6).\n\
Settings: validators (4), min_votes (3), pool_share (0.2), formal_quota (450), colloquial_quota (600).",
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

pub struct NliStage {
    cfg: NliConfig,
    seed: u64,
    sources: BTreeMap<String, SourceInfo>,
}

pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: NliConfig = parse_settings(settings)?;
    if cfg.min_votes == 0 || cfg.min_votes > cfg.validators + 1 {
        return Err(BuildError::setting(
            "min_votes",
            format!("must be 1..={} (writer + validators)", cfg.validators + 1),
        ));
    }
    Ok(BuiltStage::Corpus(Box::new(NliStage {
        cfg,
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
    fn name(&self) -> &str {
        "nli"
    }

    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let labels: Vec<&str> = LABELS.to_vec();
        let pool = simulate::pool(self.cfg.validators, 0, self.seed);
        let mut pairs: Vec<(usize, Pair, String, Vec<String>)> = Vec::new(); // premise idx, pair, gold, labels
        let mut votes: Vec<Vec<Label>> = Vec::new();
        let mut no_gold_of: BTreeMap<usize, usize> = BTreeMap::new();
        for (i, r) in recs.iter().enumerate() {
            for (k, (hyp, label)) in write_hypotheses(&r.text).into_iter().enumerate() {
                let id = format!("{}-h{k}", r.id);
                let mut labs = vec![label.to_string()];
                for v in &pool {
                    labs.push(simulate::nominal(self.seed, &id, v, label, &labels));
                }
                let l: Vec<Label> = labs.iter().map(|x| Label::Text(x.clone())).collect();
                let refs: Vec<&Label> = l.iter().collect();
                votes.push(l.clone());
                match majority(&refs, self.cfg.min_votes) {
                    Some(Label::Text(g)) => pairs.push((
                        i,
                        Pair {
                            id,
                            premise: r.text.clone(),
                            hypothesis: hyp,
                            label: g.clone(),
                            source: Some(r.source.clone()),
                        },
                        g,
                        labs,
                    )),
                    _ => *no_gold_of.entry(i).or_default() += 1,
                }
            }
        }
        let st = validation_stats(&votes, self.cfg.min_votes);
        out.metric(
            "table5_unanimous",
            json!((st.unanimous * 1e4).round() / 1e4),
        );
        out.metric(
            "table5_individual_equals_gold",
            json!((st.individual_equals_gold * 1e4).round() / 1e4),
        );
        out.metric("table5_no_gold", json!((st.no_gold * 1e4).round() / 1e4));
        out.metric("pairs_validated", json!(st.pairs));
        // Hypothesis-only selection of the dev/test pool.
        let plain: Vec<Pair> = pairs.iter().map(|p| p.1.clone()).collect();
        let scored = if plain.len() >= 30 {
            select(&plain, None, self.cfg.pool_share, 5, self.seed).ok()
        } else {
            None
        };
        if scored.is_some() {
            // The artefact review (KoBEST): what the release card and report show.
            let r = super::artifacts::report(&plain, 5, 0.7, 5, self.seed);
            out.metric(
                "hypothesis_only_accuracy_all",
                json!(r.hypothesis_only_accuracy_all),
            );
            out.metric(
                "hypothesis_only_accuracy_selected",
                json!(r.hypothesis_only_accuracy_selected),
            );
            out.metric(
                "artefact_words_over_70pct",
                json!(
                    r.flagged
                        .iter()
                        .take(10)
                        .map(|t| format!("{} → {} ({:.0}%)", t.token, t.label, t.share * 100.0))
                        .collect::<Vec<_>>()
                ),
            );
            out.metric("mean_hypothesis_length", json!(r.mean_length));
        }
        let selected = |k: usize| scored.as_ref().is_some_and(|s| s[k].selected);
        // Premise sets of the pool in a seeded order go to dev, then test, within quotas.
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, p) in pairs.iter().enumerate() {
            sets.entry(p.0).or_default().push(k);
        }
        let mut order: Vec<usize> = sets
            .keys()
            .copied()
            .filter(|i| sets[i].iter().any(|&k| selected(k)))
            .collect();
        order.sort_by_key(|i| seeded_u64(self.seed, recs[*i].id.as_bytes()));
        let mut used: BTreeMap<(String, &str), usize> = BTreeMap::new();
        let mut split_of: BTreeMap<usize, &str> = BTreeMap::new();
        for i in order {
            let src = &recs[i].source;
            let quota = if self.sources.get(src).is_some_and(|s| s.style == "formal") {
                self.cfg.formal_quota
            } else {
                self.cfg.colloquial_quota
            };
            let n = sets[&i].len();
            for sp in ["dev", "test"] {
                let u = used.entry((src.clone(), sp)).or_default();
                if *u + n <= quota {
                    *u += n;
                    split_of.insert(i, sp);
                    break;
                }
            }
        }
        for (k, (i, p, gold, labs)) in pairs.iter().enumerate() {
            let r = &recs[*i];
            let split = split_of.get(i).copied().unwrap_or("train");
            let mut row = serde_json::Map::new();
            row.insert("guid".into(), json!(p.id));
            row.insert("source".into(), json!(r.source));
            row.insert("premise".into(), json!(p.premise));
            row.insert("hypothesis".into(), json!(p.hypothesis));
            row.insert("gold_label".into(), json!(gold));
            row.insert("author".into(), json!(labs[0]));
            for (j, l) in labs.iter().enumerate().skip(1) {
                row.insert(format!("label{}", j + 1), json!(l));
            }
            let mut rec = r.child(p.id.clone(), Kind::Pair, p.hypothesis.clone());
            rec.parents = vec![r.id.clone()];
            rec.fields = BTreeMap::from([
                ("output".to_string(), serde_json::Value::Object(row)),
                ("split".to_string(), json!(split)),
            ]);
            if let Some(s) = &scored {
                rec.fields
                    .insert("hypothesis_only_ce".into(), json!(s[k].ce));
            }
            out.keep(rec);
        }
        let with_pairs: std::collections::BTreeSet<usize> = pairs.iter().map(|p| p.0).collect();
        for (i, r) in recs.into_iter().enumerate() {
            if !with_pairs.contains(&i) {
                let n = no_gold_of.get(&i).copied().unwrap_or(0);
                out.drop(
                    r,
                    RuleId::new("nli.no_gold"),
                    format!("none of its {n} pairs reached {} votes", self.cfg.min_votes),
                    None,
                );
            }
        }
    }
}
