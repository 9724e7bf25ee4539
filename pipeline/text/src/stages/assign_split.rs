//! Stage `assign_split` (corpus): gives every record its split and fixes contamination.
//! Records a task stage already placed keep their split; the rest get the recipe's seeded
//! hash split. Then every dev/test text found in train, exactly or nearly (the dedup
//! crate's [`contamination`] check), is moved to train or dropped, each with a decision
//! naming its train twin: a release never leaks evaluation text into training silently.

use crate::dedup::{NearConfig, contamination};
use kcurate_core::recipe::SplitConfig;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, RuleId, StageEntry, parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The `assign_split` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "assign_split",
    summary: "Assigns splits (seeded hash) and moves or drops dev/test text found in train",
    doc: "What: a record without a `split` field gets the recipe's [split] ratios by a seeded \
hash of its id. Then the contamination check: a dev or test text whose dedup key equals a train \
text's (split.contamination_exact) or whose MinHash Jaccard estimate with one reaches the \
threshold (split.contamination_near) is moved to train (`fix = \"move\"`, a flag decision) or \
dropped (`fix = \"drop\"`); the detail names the train twin, the score is the similarity.\n\
Why: KLUE §2.3 and the Text issue: no dev/test sentence may appear, exactly or near, in train.\n\
Example: dev \"정말 재밌어요!!\" with train \"정말 재밌어요.\" → split.contamination_exact, moved to train.\n\
Settings: fix (\"move\" | \"drop\"), near (true), ngram (5), num_perm (64), bands (16), \
threshold (0.8), min_chars (10).",
    rules: &["split.contamination_exact", "split.contamination_near"],
    build,
};

#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, Default)]
#[serde(rename_all = "lowercase")]
enum Fix {
    #[default]
    Move,
    Drop,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    fix: Fix,
    #[serde(default = "yes")]
    near: bool,
    #[serde(flatten)]
    near_cfg: NearConfig,
}

fn yes() -> bool {
    true
}

struct AssignSplit {
    seed: u64,
    split: SplitConfig,
    fix: Fix,
    near: Option<NearConfig>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: Config = parse_settings(settings)?;
    cfg.near_cfg
        .validate()
        .map_err(|e| BuildError::setting("near", e.to_string()))?;
    Ok(BuiltStage::Corpus(Box::new(AssignSplit {
        seed: ctx.seed,
        split: ctx.split.clone(),
        fix: cfg.fix,
        near: cfg.near.then_some(cfg.near_cfg),
    })))
}

fn split_of(r: &Record) -> &str {
    r.fields
        .get("split")
        .and_then(|v| v.as_str())
        .unwrap_or("train")
}

impl CorpusStage for AssignSplit {
    fn run(&self, mut recs: Vec<Record>, out: &mut Out) {
        for r in &mut recs {
            if !r.fields.contains_key("split") {
                let s = self.split.assign(self.seed, &r.id);
                r.fields.insert("split".into(), json!(s));
            }
        }
        // Moving a text to train can make it the twin of another dev/test text, so the
        // check repeats until a round finds nothing (each round shrinks dev/test).
        let mut found: BTreeMap<String, (String, &'static str, f64)> = BTreeMap::new();
        loop {
            // Dropped texts join nothing; moved ones join train.
            let in_train = |r: &&Record| {
                split_of(r) == "train" || (self.fix == Fix::Move && found.contains_key(&r.id))
            };
            let train = recs
                .iter()
                .filter(in_train)
                .map(|r| (r.id.as_str(), r.text.as_str()));
            let eval = recs
                .iter()
                .filter(|r| split_of(r) != "train" && !found.contains_key(&r.id))
                .map(|r| (r.id.as_str(), r.text.as_str()));
            let round = contamination(train, eval, self.seed, self.near);
            if round.is_empty() {
                break;
            }
            for v in round {
                found.insert(v.eval_id, (v.train_id, v.kind, v.score));
            }
        }
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for mut r in recs {
            let Some((twin, kind, score)) = found.get(&r.id) else {
                out.keep(r);
                continue;
            };
            let rule = RuleId::new(format!("split.contamination_{kind}"));
            let from = split_of(&r).to_string();
            *counts.entry(format!("{from}_{kind}")).or_default() += 1;
            match self.fix {
                Fix::Move => {
                    let detail =
                        format!("{from} text {kind} duplicate of train {twin}; moved to train");
                    out.flag(&r, rule, detail, Some(*score));
                    r.fields.insert("split".into(), json!("train"));
                    out.keep(r);
                }
                Fix::Drop => {
                    let detail = format!("{from} text {kind} duplicate of train {twin}; dropped");
                    out.drop(r, rule, detail, Some(*score));
                }
            }
        }
        out.metric("contamination", json!(counts));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Decision, Kind, Origin};

    fn rec(id: &str, text: &str) -> Record {
        Record {
            id: id.into(),
            kind: Kind::Sentence,
            source: "s".into(),
            origin: Origin {
                file: "f".into(),
                line: 1,
            },
            text: text.into(),
            ..Record::default()
        }
    }

    fn run(fix: Fix, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>, u64) {
        let st = AssignSplit {
            seed: 42,
            split: SplitConfig::default(),
            fix,
            near: Some(NearConfig::default()),
        };
        let mut out = Out::new("assign_split");
        st.run(recs, &mut out);
        out.into_parts()
    }

    /// Many copies of one sentence under different ids: wherever the hash puts them, after
    /// the stage no dev/test record shares its text with train, and every move is a decision.
    fn copies() -> Vec<Record> {
        let mut v: Vec<Record> = (0..40)
            .map(|i| {
                rec(
                    &format!("r{i:02}"),
                    "이 영화는 정말 최고의 작품이었다고 생각합니다.",
                )
            })
            .collect();
        v.extend((0..40).map(|i| {
            rec(
                &format!("u{i:02}"),
                &format!(
                    "서로 다른 문장 {i}번은 겹치지 않는 내용을 {}개 담고 있다.",
                    i * 7
                ),
            )
        }));
        v
    }

    #[test]
    fn every_record_gets_a_split_and_contaminated_eval_text_moves_to_train() {
        let (kept, decisions, dropped) = run(Fix::Move, copies());
        assert_eq!((kept.len(), dropped), (80, 0));
        let train: Vec<&str> = kept
            .iter()
            .filter(|r| split_of(r) == "train")
            .map(|r| r.text.as_str())
            .collect();
        for r in kept.iter().filter(|r| split_of(r) != "train") {
            assert!(!train.contains(&r.text.as_str()), "{} leaks", r.id);
        }
        let moved = kept
            .iter()
            .filter(|r| r.id.starts_with('r') && split_of(r) == "train")
            .count();
        assert_eq!(moved, 40, "all copies end in train");
        assert!(!decisions.is_empty());
        assert!(
            decisions
                .iter()
                .all(|d| d.rule.as_str() == "split.contamination_exact")
        );
    }

    #[test]
    fn drop_fix_drops_with_a_decision_each() {
        let (kept, decisions, dropped) = run(Fix::Drop, copies());
        assert_eq!(kept.len() as u64 + dropped, 80);
        assert_eq!(decisions.len() as u64, dropped);
        assert!(dropped > 0);
    }

    #[test]
    fn a_split_set_by_a_task_stage_is_kept() {
        let mut r = rec("a", "혼자 있는 문장이다.");
        r.fields.insert("split".into(), json!("test"));
        let (kept, _, _) = run(Fix::Move, vec![r]);
        assert_eq!(split_of(&kept[0]), "test");
    }
}
