//! The steps of the `nli` stage's whole-corpus pass, in the order [`NliStage::run`] takes
//! them: write and validate the pairs, record the annotation figures, score the
//! hypothesis-only pool, fill the dev/test quotas, write the rows.

use super::{NliStage, write_hypotheses};
use crate::annotation_figures as figs;
use crate::nli::quotas::Quotas;
use crate::nli::select::{LABELS, Pair, Scored, select};
use crate::split_targets;
use kcurate_agree::aggregate::{majority, validation_stats};
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_core::hash::seeded_u64;
use kcurate_core::{Kind, Out, Record, RuleId};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// A pair that reached gold: its premise's index, the pair, its gold label and the
/// writer's and validators' labels (the writer's first).
pub(super) struct Validated {
    premise: usize,
    pair: Pair,
    gold: String,
    labels: Vec<String>,
}

/// What validation gives: the pairs with gold, every pair's votes (with or without gold)
/// and, per premise, how many of its pairs missed gold.
pub(super) struct Validation {
    pub(super) pairs: Vec<Validated>,
    votes: Vec<Vec<Label>>,
    no_gold_of: BTreeMap<usize, usize>,
}

/// A complete premise set's place in the dev/test order: outside the hypothesis-only pool
/// last, then lowest mean cross-entropy (micro-units), then a seeded hash, then the index.
type SetKey = (bool, i64, u64, usize);

/// Which split each premise set (by premise index) went to; absent means train.
pub(super) type Splits = BTreeMap<usize, &'static str>;

impl NliStage {
    /// The simulated writer's three hypotheses per premise, each labelled by the writer
    /// and the validators; a pair whose labels reach `min_votes` gets gold.
    pub(super) fn validate(&self, recs: &[Record]) -> Validation {
        let labels: Vec<&str> = LABELS.to_vec();
        let model = &self.votes;
        let pool = model.pool(self.cfg.validators, 0, self.seed);
        let mut v = Validation {
            pairs: Vec::new(),
            votes: Vec::new(),
            no_gold_of: BTreeMap::new(),
        };
        for (i, r) in recs.iter().enumerate() {
            for (k, (hyp, label)) in write_hypotheses(&r.text).into_iter().enumerate() {
                let id = format!("{}-h{k}", r.id);
                let mut labs = vec![label.to_string()];
                for val in &pool {
                    labs.push(model.vote_among(self.seed, &id, val, label, &labels));
                }
                let l: Vec<Label> = labs.iter().map(|x| Label::Text(x.clone())).collect();
                let refs: Vec<&Label> = l.iter().collect();
                v.votes.push(l.clone());
                match majority(&refs, self.cfg.min_votes) {
                    Some(Label::Text(g)) => v.pairs.push(Validated {
                        premise: i,
                        pair: Pair {
                            id,
                            premise: r.text.clone(),
                            hypothesis: hyp,
                            label: g.clone(),
                            source: Some(r.source.clone()),
                        },
                        gold: g,
                        labels: labs,
                    }),
                    _ => *v.no_gold_of.entry(i).or_default() += 1,
                }
            }
        }
        v
    }

    /// Table 5 statistics, nominal α over writer and validators (raters × pairs), the gold
    /// rule, each annotator's agreement with gold and the gold label distribution.
    pub(super) fn record_votes(&self, v: &Validation, out: &mut Out) {
        let votes = &v.votes;
        let st = validation_stats(votes, self.cfg.min_votes);
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
        for p in &v.pairs {
            if let Some(n) = dist.get_mut(p.gold.as_str()) {
                *n += 1;
            }
        }
        out.metric("label_distribution", json!(dist));
    }

    /// Hypothesis-only selection of the dev/test pool (none under 30 pairs), with the
    /// artefact review (KoBEST) the release card and report show.
    pub(super) fn hypothesis_only(
        &self,
        pairs: &[Validated],
        out: &mut Out,
    ) -> Option<Vec<Scored>> {
        let plain: Vec<Pair> = pairs.iter().map(|p| p.pair.clone()).collect();
        let scored = if plain.len() >= 30 {
            select(&plain, None, self.cfg.pool_share, 5, self.seed).ok()
        } else {
            None
        };
        if scored.is_some() {
            let r = crate::nli::artifacts::report(&plain, 5, 0.7, 5, self.seed);
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
        scored
    }

    /// Dev and test take whole premise sets whose gold labels are exactly one entailment,
    /// one neutral and one contradiction, so every source's dev and test are balanced by
    /// construction and a quota of 3k pairs is k sets. Sets of the hypothesis-only pool
    /// come first (lowest mean cross-entropy first); when the pool has too few complete
    /// sets for a quota, the next-hardest sets outside it fill the rest (counted in the
    /// metrics). Everything else is train.
    pub(super) fn assign_splits(
        &self,
        recs: &[Record],
        pairs: &[Validated],
        scored: Option<&[Scored]>,
        out: &mut Out,
    ) -> Splits {
        let order = self.set_order(recs, pairs, scored);
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
        let mut used: BTreeMap<(String, &str), usize> = BTreeMap::new();
        let mut split_of: Splits = BTreeMap::new();
        let mut extended = 0usize;
        for (outside_pool, _, _, i) in order {
            let src = &recs[i].source;
            let quota = quotas.allowed(src);
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
        let unmet = quotas.unmet(&used);
        if !unmet.is_empty() {
            out.metric(split_targets::METRIC, json!(unmet));
        }
        out.metric("quota_filled_beyond_pool_sets", json!(extended));
        out.metric(
            "quota_shortfall_pairs",
            json!(shortfall(recs, &quotas, &used)),
        );
        split_of
    }

    /// The complete premise sets in the order they fill dev and test.
    fn set_order(
        &self,
        recs: &[Record],
        pairs: &[Validated],
        scored: Option<&[Scored]>,
    ) -> Vec<SetKey> {
        let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, p) in pairs.iter().enumerate() {
            sets.entry(p.premise).or_default().push(k);
        }
        let complete = |ks: &Vec<usize>| {
            let mut g: Vec<&str> = ks.iter().map(|&k| pairs[k].gold.as_str()).collect();
            g.sort_unstable();
            g == ["contradiction", "entailment", "neutral"]
        };
        let mut order: Vec<SetKey> = sets
            .iter()
            .filter(|(_, ks)| complete(ks))
            .map(|(&i, ks)| {
                let (in_pool, mean_ce) = match scored {
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
        order
    }

    /// One row per validated pair with its split; a premise none of whose pairs reached
    /// gold leaves with `nli.no_gold`.
    pub(super) fn emit(
        &self,
        recs: Vec<Record>,
        v: &Validation,
        scored: Option<&[Scored]>,
        split_of: &Splits,
        out: &mut Out,
    ) {
        for (k, p) in v.pairs.iter().enumerate() {
            let r = &recs[p.premise];
            let split = split_of.get(&p.premise).copied().unwrap_or("train");
            let mut rec = r.child(p.pair.id.clone(), Kind::Pair, p.pair.hypothesis.clone());
            rec.parents = vec![r.id.clone()];
            rec.fields = BTreeMap::from([
                ("output".to_string(), row(r, p)),
                ("split".to_string(), json!(split)),
            ]);
            if let Some(s) = scored {
                rec.fields
                    .insert("hypothesis_only_ce".into(), json!(s[k].ce));
            }
            out.keep(rec);
        }
        let with_pairs: BTreeSet<usize> = v.pairs.iter().map(|p| p.premise).collect();
        for (i, r) in recs.into_iter().enumerate() {
            if !with_pairs.contains(&i) {
                let n = v.no_gold_of.get(&i).copied().unwrap_or(0);
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

/// Pairs short of the wanted quota, per `source/split`.
fn shortfall(
    recs: &[Record],
    quotas: &Quotas,
    used: &BTreeMap<(String, &str), usize>,
) -> BTreeMap<String, usize> {
    let mut short: BTreeMap<String, usize> = BTreeMap::new();
    for src in recs.iter().map(|r| &r.source).collect::<BTreeSet<_>>() {
        let wanted = quotas.wanted(src);
        for sp in ["dev", "test"] {
            let u = used.get(&(src.clone(), sp)).copied().unwrap_or(0);
            if u < wanted {
                short.insert(format!("{src}/{sp}"), wanted - u);
            }
        }
    }
    short
}

/// The KLUE NLI row of a validated pair of premise record `r`.
fn row(r: &Record, p: &Validated) -> serde_json::Value {
    let mut row = serde_json::Map::new();
    row.insert("guid".into(), json!(p.pair.id));
    row.insert("source".into(), json!(r.source));
    row.insert("premise".into(), json!(p.pair.premise));
    row.insert("hypothesis".into(), json!(p.pair.hypothesis));
    row.insert("gold_label".into(), json!(p.gold));
    row.insert("author".into(), json!(p.labels[0]));
    for (j, l) in p.labels.iter().enumerate().skip(1) {
        row.insert(format!("label{}", j + 1), json!(l));
    }
    serde_json::Value::Object(row)
}
