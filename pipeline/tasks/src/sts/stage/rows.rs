//! The `sts` stage's output: the released pairs as records carrying KLUE STS rows, and the
//! sentences in no released pair, each leaving with its reason.

use super::assign::{DroppedPairs, Example};
use super::candidates::Candidate;
use super::{StsStage, guid, r6};
use crate::rouge::{Metric, score, syllables};
use crate::sts::labels::{agreement, sig16};
use kcurate_core::{Kind, Out, Record, RuleId};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

impl StsStage {
    /// Keeps each assigned example as a pair record (the KLUE STS row under `output`, its
    /// split, its ROUGE-1) naming its sentences as parents; reports the dev/test histogram
    /// over 0.5 bins. Returns the indices of the sentences in a released pair.
    pub(super) fn write_pairs(
        &self,
        recs: &[Record],
        cands: &[Candidate],
        examples: &[Example],
        assigned: &[Option<&str>],
        annotators: &[String],
        out: &mut Out,
    ) -> BTreeSet<usize> {
        let mut used_as_parent: BTreeSet<usize> = BTreeSet::new();
        let mut hist = [0u64; 10];
        for (e, ex) in examples.iter().enumerate() {
            let Some(split) = assigned[e] else { continue };
            let (k, label) = (ex.cand, ex.label);
            let c = &cands[k];
            let (s1, s2) = (&recs[c.a], &recs[c.b]);
            let sentence2 = c.translation.clone().unwrap_or_else(|| s2.text.clone());
            used_as_parent.insert(c.a);
            used_as_parent.insert(c.b);
            if split != "train" {
                hist[((label / 0.5).floor() as usize).min(9)] += 1;
            }
            let agreement = agreement(&ex.scores);
            let row = json!({
                "guid": guid(k),
                "source": c.source,
                "sentence1": s1.text,
                "sentence2": sentence2,
                "labels": {"label": label, "real-label": sig16(ex.real), "binary-label": u8::from(label >= self.cfg.binary_at)},
                "annotations": {"agreement": agreement, "annotators": annotators, "annotations": ex.scores.iter().map(|s| *s as i64).collect::<Vec<_>>()},
            });
            let mut rec = s1.child(guid(k), Kind::Pair, s1.text.clone());
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
        used_as_parent
    }
}

/// Sentences in no released pair leave with a reason: their pair's drop, else
/// `sts.unpaired`.
pub(super) fn drop_unpaired(
    recs: Vec<Record>,
    cands: &[Candidate],
    used_as_parent: &BTreeSet<usize>,
    dropped_pairs: &DroppedPairs,
    out: &mut Out,
) {
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
