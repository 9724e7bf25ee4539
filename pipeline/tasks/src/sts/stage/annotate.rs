//! The `sts` stage's scores, pair × annotator (imported, or drawn from the simulator), and
//! KLUE's annotator filter with the agreement metrics it reports.

use super::candidates::Candidate;
use super::{StsStage, guid, r6};
use crate::annotation_figures as figs;
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_agree::reliability::{klue_sts_drops, reliability};
use kcurate_core::{Out, Record, RuleId};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// Scores: one row per annotator (named in `names`), one column per candidate pair.
pub(super) struct Scores {
    pub(super) names: Vec<String>,
    pub(super) matrix: Vec<Vec<Option<Label>>>,
}

impl StsStage {
    /// Each candidate's scores: the imported ones, matched by pair guid, or the simulated
    /// annotators' (the simulator table goes to the metrics).
    pub(super) fn scores(&self, cands: &[Candidate], recs: &[Record], out: &mut Out) -> Scores {
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
                out.metric("label_origin", json!("human"));
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
                    out.metric("label_origin", json!("simulated"));
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
        Scores { names, matrix }
    }

    /// KLUE's annotator filter: an annotator with r < `min_r` or nominal α < `min_alpha`
    /// against the others is flagged (`agree.annotator_unreliable`) and left out. Reports
    /// interval α over the kept annotators, how many were dropped and everyone's r.
    /// Returns the kept annotators' scores.
    pub(super) fn keep_reliable(&self, scores: Scores, out: &mut Out) -> Scores {
        let Scores { names, matrix } = scores;
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
        let kept_names: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|(a, _)| !dropped.contains(a))
            .map(|(_, n)| n.clone())
            .collect();
        if let Some(x) = alpha(&Matrix::new(kept_rows.clone()), Level::Interval)
            .ok()
            .flatten()
        {
            out.metric("alpha_interval", json!(r6(x)));
        }
        figs::record_alpha(out, &kept_rows, Level::Interval, self.seed);
        figs::record_aggregator(out, "mean of the kept annotators' scores");
        let r: Vec<Option<f64>> = rel.iter().map(|x| x.pearson_r).collect();
        let file = self
            .cfg
            .annotations
            .as_deref()
            .filter(|_| self.imported.is_some());
        let measure = "Pearson r with the mean of the others' scores";
        figs::record_annotators(out, measure, &r, dropped.len(), file);
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
        Scores {
            names: kept_names,
            matrix: kept_rows,
        }
    }
}
