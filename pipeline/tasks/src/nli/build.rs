//! Stage `nli` (corpus): premises in, validated NLI pairs out (KLUE §3.3, JNLI).
//! A writer writes one hypothesis per label; validators label each pair; gold needs
//! `min_votes` of the labels (KLUE: 3 of 5 = writer + 4 validators; JNLI: 6 of 10), else the
//! pair leaves with `nli.no_gold`. Writers and validators are simulated (seeded) so the
//! recipe runs without people; validators vote through the recipe's `votes` table
//! ([`crate::votes::VoteModel`], fitted on KLUE NLI dev), which the card reports. Table 5 statistics go to the manifest. Dev and test come
//! from the premise sets a cross-fitted hypothesis-only model finds hardest, with per-source
//! quotas (by style); a premise set never straddles splits.

use super::quotas::Quotas;
use super::select::{LABELS, Pair, select};
use crate::annotation_figures as figs;
use crate::split_targets;
use crate::votes::VoteModel;
use kcurate_agree::aggregate::{majority, validation_stats};
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Kind, Out, Record, RuleId, SourceInfo,
    StageEntry, parse_settings,
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
    #[allow(
        clippy::too_many_lines,
        reason = "the NLI stage's whole-corpus pass: writers, validators, alpha and the card's figures share the pairs and their votes"
    )]
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let labels: Vec<&str> = LABELS.to_vec();
        let model = &self.votes;
        // Hypotheses and votes come from the simulated writers and validators.
        out.metric("label_origin", json!("simulated"));
        out.metric(
            "vote_model",
            serde_json::to_value(model).unwrap_or_default(),
        );
        let pool = model.pool(self.cfg.validators, 0, self.seed);
        let mut pairs: Vec<(usize, Pair, String, Vec<String>)> = Vec::new(); // premise idx, pair, gold, labels
        let mut votes: Vec<Vec<Label>> = Vec::new();
        let mut no_gold_of: BTreeMap<usize, usize> = BTreeMap::new();
        for (i, r) in recs.iter().enumerate() {
            for (k, (hyp, label)) in write_hypotheses(&r.text).into_iter().enumerate() {
                let id = format!("{}-h{k}", r.id);
                let mut labs = vec![label.to_string()];
                for v in &pool {
                    labs.push(model.vote_among(self.seed, &id, v, label, &labels));
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
        // Nominal α over writer and validators (raters × pairs), and the gold labels.
        let raters = votes.first().map_or(0, Vec::len);
        let rows: Vec<Vec<Option<Label>>> = (0..raters)
            .map(|k| votes.iter().map(|v| v.get(k).cloned()).collect())
            .collect();
        if let Some(a) = alpha(&Matrix::new(rows.clone()), Level::Nominal)
            .ok()
            .flatten()
        {
            out.metric("alpha_nominal", json!((a * 1e6).round() / 1e6));
        }
        figs::record_alpha(out, &rows, Level::Nominal, self.seed);
        let rule = format!(
            "majority: {} of the writer's and validators' labels",
            self.cfg.min_votes
        );
        figs::record_aggregator(out, &rule);
        let gold: Vec<Option<Label>> = votes
            .iter()
            .map(|v| majority(&v.iter().collect::<Vec<_>>(), self.cfg.min_votes))
            .collect();
        let agree = figs::agreement_with_gold(&rows, &gold);
        figs::record_annotators(out, "agreement with the gold label", &agree, 0, None);
        let mut dist: BTreeMap<&str, usize> = LABELS.iter().map(|l| (*l, 0)).collect();
        for p in &pairs {
            if let Some(n) = dist.get_mut(p.2.as_str()) {
                *n += 1;
            }
        }
        out.metric("label_distribution", json!(dist));
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
        // Dev and test take whole premise sets whose gold labels are exactly one entailment,
        // one neutral and one contradiction, so every source's dev and test are balanced by
        // construction and a quota of 3k pairs is k sets. Sets of the hypothesis-only pool
        // come first (lowest mean cross-entropy first); when the pool has too few complete
        // sets for a quota, the next-hardest sets outside it fill the rest (counted in the
        // metrics). Everything else is train.
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, p) in pairs.iter().enumerate() {
            sets.entry(p.0).or_default().push(k);
        }
        let complete = |ks: &Vec<usize>| {
            let mut g: Vec<&str> = ks.iter().map(|&k| pairs[k].2.as_str()).collect();
            g.sort_unstable();
            g == ["contradiction", "entailment", "neutral"]
        };
        let mut order: Vec<(bool, i64, u64, usize)> = sets
            .iter()
            .filter(|(_, ks)| complete(ks))
            .map(|(&i, ks)| {
                let (in_pool, mean_ce) = match &scored {
                    Some(sc) => (
                        ks.iter().any(|&k| sc[k].selected),
                        ks.iter().map(|&k| sc[k].ce).sum::<f64>() / ks.len() as f64,
                    ),
                    None => (true, 0.0),
                };
                // Integer micro-units keep the order exact and platform-independent.
                let ce = (mean_ce * 1e6).round() as i64;
                (
                    !in_pool,
                    ce,
                    seeded_u64(self.seed, recs[i].id.as_bytes()),
                    i,
                )
            })
            .collect();
        order.sort_unstable();
        let wanted_of = |src: &str| {
            if self.sources.get(src).is_some_and(|s| s.style == "formal") {
                self.cfg.formal_quota
            } else {
                self.cfg.colloquial_quota
            }
        };
        let mut sets_of: BTreeMap<String, usize> = BTreeMap::new();
        for &(_, _, _, i) in &order {
            *sets_of.entry(recs[i].source.clone()).or_default() += 1;
        }
        let wanted = recs
            .iter()
            .map(|r| (r.source.clone(), wanted_of(&r.source)));
        let quotas = Quotas::new(wanted.collect(), sets_of, self.cfg.min_train_share);
        let quota_of = |src: &str| quotas.allowed(src);
        let mut used: BTreeMap<(String, &str), usize> = BTreeMap::new();
        let mut split_of: BTreeMap<usize, &str> = BTreeMap::new();
        let mut extended = 0usize;
        for (outside_pool, _, _, i) in order {
            let src = &recs[i].source;
            let quota = quota_of(src);
            for sp in ["dev", "test"] {
                let u = used.entry((src.clone(), sp)).or_default();
                if *u + 3 <= quota {
                    *u += 3;
                    split_of.insert(i, sp);
                    extended += usize::from(outside_pool);
                    break;
                }
            }
        }
        let mut short: BTreeMap<String, usize> = BTreeMap::new();
        for src in recs
            .iter()
            .map(|r| &r.source)
            .collect::<std::collections::BTreeSet<_>>()
        {
            let wanted = quotas.wanted(src);
            for sp in ["dev", "test"] {
                let u = used.get(&(src.clone(), sp)).copied().unwrap_or(0);
                if u < wanted {
                    short.insert(format!("{src}/{sp}"), wanted - u);
                }
            }
        }
        let unmet = quotas.unmet(&used);
        if !unmet.is_empty() {
            out.metric(split_targets::METRIC, json!(unmet));
        }
        out.metric("quota_filled_beyond_pool_sets", json!(extended));
        out.metric("quota_shortfall_pairs", json!(short));
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

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Decision, Origin};

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
