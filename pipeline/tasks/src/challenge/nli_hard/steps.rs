//! The steps of the `nli_hard` pass, in the order [`NliHard::run`] takes them: read the
//! pairs, screen them, score them with the hypothesis-only model, balance the hard ones,
//! write the kept rows.

use super::{NliHard, pair_source};
use crate::challenge::nli_screen::{Screen, ScreenPair};
use crate::nli::select::{LABELS, Pair, ce_uniform, cross_fit};
use kcurate_core::decision::round_score;
use kcurate_core::hash::seeded_u64;
use kcurate_core::{Out, Record, RuleId};
use kcurate_toxicity::linear::TrainConfig;
use serde_json::json;
use std::collections::BTreeMap;

/// A pair the hypothesis-only model does not find easy, with its probabilities and
/// cross-entropy against the uniform distribution.
pub(super) struct Hard {
    rec: Record,
    pair: Pair,
    probs: Vec<f64>,
    ce: f64,
}

/// How often the hypothesis-only model's best label is the gold one.
#[derive(Default)]
pub(super) struct Accuracy {
    /// Pairs scored.
    pub(super) scored: usize,
    /// Of those, pairs whose best label is the gold one.
    pub(super) right: usize,
}

/// Per source, how many pairs each label keeps.
pub(super) struct Quota(BTreeMap<String, usize>);

/// The label the probabilities rank first (the first one on a tie).
fn best_label(pr: &[f64]) -> usize {
    (0..pr.len()).fold(0, |b, i| if pr[i] > pr[b] { i } else { b })
}

impl NliHard {
    /// The records that are pairs (a premise and a known label); the rest leave.
    pub(super) fn pairs(&self, recs: Vec<Record>, out: &mut Out) -> Vec<(Record, Pair)> {
        let mut good: Vec<(Record, Pair)> = Vec::new();
        for r in recs {
            let premise = r
                .fields
                .get(&self.cfg.premise_field)
                .and_then(|v| v.as_str());
            let label = r.label.clone().unwrap_or_default();
            match premise {
                Some(p) if LABELS.contains(&label.as_str()) => {
                    let pair = Pair {
                        id: r.id.clone(),
                        premise: p.to_string(),
                        hypothesis: r.text.clone(),
                        label,
                        source: Some(pair_source(&r)),
                    };
                    good.push((r, pair));
                }
                _ => out.drop(
                    r,
                    RuleId::new("challenge.bad_pair"),
                    format!(
                        "needs a premise and a label among {} (label {label:?})",
                        LABELS.join("/")
                    ),
                    None,
                ),
            }
        }
        good
    }

    /// The probabilities of each pair: imported by id, else cross-fitted.
    pub(super) fn probabilities(&self, good: &[(Record, Pair)]) -> Vec<Option<Vec<f64>>> {
        let pairs: Vec<Pair> = good.iter().map(|(_, p)| p.clone()).collect();
        match &self.imported {
            Some(m) => pairs
                .iter()
                .map(|p| m.get(&p.id).map(|v| v.to_vec()))
                .collect(),
            None => cross_fit(
                &pairs,
                self.cfg.folds,
                self.seed,
                &TrainConfig {
                    ngram_max: 3,
                    ..TrainConfig::default()
                },
            )
            .into_iter()
            .map(Some)
            .collect(),
        }
    }

    /// Drops the pairs the model finds easy (or has no probabilities for); the rest are hard.
    pub(super) fn score(
        &self,
        good: Vec<(Record, Pair)>,
        probs: &[Option<Vec<f64>>],
        out: &mut Out,
    ) -> (Vec<Hard>, Accuracy) {
        let uniform = (LABELS.len() as f64).ln();
        let mut acc = Accuracy::default();
        let mut hard: Vec<Hard> = Vec::new();
        for (k, (r, p)) in good.into_iter().enumerate() {
            let Some(pr) = probs[k].clone() else {
                out.drop(
                    r,
                    RuleId::new("challenge.bad_pair"),
                    "no imported probabilities for this id",
                    None,
                );
                continue;
            };
            let ce = ce_uniform(&pr);
            let best = best_label(&pr);
            let gold = LABELS.iter().position(|l| *l == p.label).expect("checked");
            acc.scored += 1;
            acc.right += usize::from(best == gold);
            if best == gold && ce > uniform + self.cfg.near_uniform {
                out.drop(
                    r,
                    RuleId::new("challenge.hyp_only_easy"),
                    format!(
                        "the hypothesis-only model predicts {} (p {:.3}); cross-entropy vs uniform {:.4} > {:.4}",
                        LABELS[best],
                        pr[best],
                        ce,
                        uniform + self.cfg.near_uniform
                    ),
                    Some(pr[gold]),
                );
            } else {
                hard.push(Hard {
                    rec: r,
                    pair: p,
                    probs: pr,
                    ce,
                });
            }
        }
        (hard, acc)
    }

    /// Balance: per source, the same count per label; then the same count per source.
    /// Which pairs stay (by index into `hard`), chosen by a seeded hash, and the quota.
    pub(super) fn balance(&self, hard: &[Hard]) -> (Vec<bool>, Quota) {
        let mut cells: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for (i, h) in hard.iter().enumerate() {
            let src = h.pair.source.clone().unwrap_or_default();
            cells
                .entry((src, h.pair.label.clone()))
                .or_default()
                .push(i);
        }
        let mut per_source: BTreeMap<String, usize> = BTreeMap::new();
        for (src, _) in cells.keys() {
            let n = LABELS
                .iter()
                .map(|l| cells.get(&(src.clone(), l.to_string())).map_or(0, Vec::len))
                .min()
                .unwrap_or(0);
            per_source.insert(src.clone(), n);
        }
        if self.cfg.balance_sources {
            let n = per_source.values().copied().min().unwrap_or(0);
            per_source.values_mut().for_each(|v| *v = n);
        }
        let mut keep = vec![false; hard.len()];
        for ((src, _), idx) in &mut cells {
            idx.sort_by_key(|&i| (seeded_u64(self.seed, hard[i].rec.id.as_bytes()), i));
            for &i in idx.iter().take(per_source[src]) {
                keep[i] = true;
            }
        }
        (keep, Quota(per_source))
    }

    /// Keeps the chosen pairs with their output row, drops the surplus; the count kept per
    /// `source/label` and how many kept pairs the model labels right.
    pub(super) fn emit(
        &self,
        hard: Vec<Hard>,
        keep: &[bool],
        quota: &Quota,
        out: &mut Out,
    ) -> (BTreeMap<String, usize>, usize) {
        let mut kept_by: BTreeMap<String, usize> = BTreeMap::new();
        let mut right_kept = 0usize;
        for (i, h) in hard.into_iter().enumerate() {
            let Hard {
                rec: mut r,
                pair: p,
                probs: pr,
                ce,
            } = h;
            let src = p.source.clone().unwrap_or_default();
            if !keep[i] {
                out.drop(
                    r,
                    RuleId::new("challenge.balance"),
                    format!(
                        "source {src:?} keeps {} pairs per label{}",
                        quota.0[&src],
                        if self.cfg.balance_sources {
                            " (the smallest source's count)"
                        } else {
                            ""
                        }
                    ),
                    None,
                );
                continue;
            }
            *kept_by.entry(format!("{src}/{}", p.label)).or_default() += 1;
            let best = best_label(&pr);
            right_kept += usize::from(LABELS[best] == p.label);
            let row = json!({
                "guid": r.fields.get("guid").and_then(|v| v.as_str()).unwrap_or(&p.id),
                "source": src,
                "premise": p.premise,
                "hypothesis": p.hypothesis,
                "gold_label": p.label,
                "hypothesis_only_label": LABELS[best],
                "hypothesis_only_ce": round_score(ce),
                "hypothesis_only_probs": pr.iter().map(|x| round_score(*x)).collect::<Vec<_>>(),
            });
            r.fields.insert("output".into(), row);
            out.keep(r);
        }
        (kept_by, right_kept)
    }
}

/// Drops the pairs a rule of the screen fires on, counting them per rule.
pub(super) fn screen_pairs(
    screen: &Screen,
    good: Vec<(Record, Pair)>,
    out: &mut Out,
) -> Vec<(Record, Pair)> {
    let hits = screen.screen(
        &good
            .iter()
            .map(|(r, p)| ScreenPair {
                premise: &p.premise,
                hypothesis: &p.hypothesis,
                label: &p.label,
                fields: Some(&r.fields),
            })
            .collect::<Vec<_>>(),
    );
    let mut screened: BTreeMap<String, usize> =
        screen.rules.iter().map(|r| (r.id.clone(), 0)).collect();
    let mut passed = Vec::with_capacity(good.len());
    for ((r, p), hit) in good.into_iter().zip(hits) {
        match hit {
            None => passed.push((r, p)),
            Some(h) => {
                *screened.entry(h.rule.clone()).or_default() += 1;
                out.drop(r, RuleId::new(h.rule), h.detail, h.score.map(round_score));
            }
        }
    }
    out.metric("screened", json!(screened));
    passed
}
