//! Stage `sentineg`: SentiNeg-style flips for two-class sentiment data (KoBEST §2.6). Each
//! record's rating is binarised (settings), one applicable flip rule is chosen per record by
//! a seeded hash (so negation and antonym flips mix), the text is rewritten and the label
//! reversed. Records no rule can flip, and neutral ratings, leave with a decision.

use super::flip::Flipper;
use kcurate_agree::aggregate::majority;
use kcurate_agree::io::Scale;
use kcurate_agree::label::Label;
use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, Span, Stage, StageEntry, parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

pub const ENTRY: StageEntry = StageEntry {
    name: "sentineg",
    summary: "SentiNeg-style negation/antonym flips with label reversal (KoBEST §2.6)",
    doc: "What: binarises each record's label (`positive` / `negative` lists, e.g. NSMC ratings 9–10 and \
1–4; others leave with challenge.neutral_label), applies one flip rule of rules/antonyms.toml or \
rules/negation.toml (chosen among those that apply by a seeded hash; edit decision with the rule \
id), and reverses the label; a record no rule can flip leaves with challenge.no_rule. The \
original text is kept in the `original` field for the people who check each flip.\n\
Why: KoBEST §2.6 (SentiNeg): examples whose polarity is flipped by negation or antonyms.\n\
Example: \"스토리가 좋았어요\" (positive) → \"스토리가 좋지 않았어요\" (negative), rule negation.add_long.\n\
People check each flip: `kcurate challenge export <derived release>` writes a batch (long TSV \
or Label Studio) whose `value` is accept or reject; filled in, it comes back through \
`verdicts` (any agreement format: long TSV/CSV/JSONL, or a Label Studio export when the file \
ends in .json). A flip stays when `min_votes` checkers accept it; rejected flips leave with \
challenge.rejected, flips without a majority with challenge.no_verdict, and flips nobody \
checked with challenge.unchecked (unless `unchecked = \"keep\"`).\n\
Settings: positive (list of labels), negative (list of labels), verdicts (path), \
min_votes (2), unchecked (\"drop\" | \"keep\").",
    rules: &[
        "challenge.neutral_label",
        "challenge.no_rule",
        "challenge.rejected",
        "challenge.no_verdict",
        "challenge.unchecked",
    ],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    positive: Vec<String>,
    negative: Vec<String>,
    #[serde(default)]
    verdicts: Option<String>,
    #[serde(default = "two")]
    min_votes: usize,
    #[serde(default)]
    unchecked: Unchecked,
}

fn two() -> usize {
    2
}

#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Unchecked {
    #[default]
    Drop,
    Keep,
}

/// The labels a checker gives a generated sentence.
pub const VERDICTS: [&str; 2] = ["accept", "reject"];

pub struct SentiNeg {
    cfg: Config,
    flipper: Flipper,
    seed: u64,
    /// Per flipped record id, the checkers' verdicts (when the recipe imports them).
    verdicts: Option<BTreeMap<String, Vec<Label>>>,
}

pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: Config = parse_settings(settings)?;
    let flipper = Flipper::load().map_err(|e| BuildError::setting("rules", e))?;
    let verdicts = match &cfg.verdicts {
        None => None,
        Some(p) => {
            let scale = Scale::Labels(VERDICTS.iter().map(|s| s.to_string()).collect());
            let rows = crate::annotations::import(ctx, p, &scale)?;
            let mut m: BTreeMap<String, Vec<Label>> = BTreeMap::new();
            for r in rows {
                m.entry(r.item).or_default().push(r.value);
            }
            Some(m)
        }
    };
    Ok(BuiltStage::Record(Box::new(SentiNeg {
        cfg,
        flipper,
        seed: ctx.seed,
        verdicts,
    })))
}

impl SentiNeg {
    /// Whether people's verdicts keep this flip; `Err` is the drop (rule, detail).
    fn checked(&self, id: &str) -> Result<(), (&'static str, String)> {
        let Some(all) = &self.verdicts else {
            return Ok(());
        };
        let Some(v) = all.get(id) else {
            return match self.cfg.unchecked {
                Unchecked::Keep => Ok(()),
                Unchecked::Drop => Err(("challenge.unchecked", "no checker saw this flip".into())),
            };
        };
        let refs: Vec<&Label> = v.iter().collect();
        let accepts = v.iter().filter(|l| l.to_string() == "accept").count();
        match majority(&refs, self.cfg.min_votes).map(|l| l.to_string()) {
            Some(l) if l == "accept" => Ok(()),
            Some(_) => Err((
                "challenge.rejected",
                format!(
                    "{} of {} checkers rejected the flip",
                    v.len() - accepts,
                    v.len()
                ),
            )),
            None => Err((
                "challenge.no_verdict",
                format!(
                    "{accepts} accept, {} reject: no verdict reaches {} votes",
                    v.len() - accepts,
                    self.cfg.min_votes
                ),
            )),
        }
    }
}

impl Stage for SentiNeg {
    fn name(&self) -> &str {
        "sentineg"
    }

    fn apply(&self, mut rec: Record, out: &mut Out) {
        let label = rec.label.clone().unwrap_or_default();
        let polarity = if self.cfg.positive.contains(&label) {
            "positive"
        } else if self.cfg.negative.contains(&label) {
            "negative"
        } else {
            out.drop(
                rec,
                RuleId::new("challenge.neutral_label"),
                format!("label {label:?} is neither positive nor negative"),
                None,
            );
            return;
        };
        let cands = self.flipper.candidates(&rec.text);
        if cands.is_empty() {
            out.drop(
                rec,
                RuleId::new("challenge.no_rule"),
                "no flip rule applies to the final predicate",
                None,
            );
            return;
        }
        let pick = (seeded_u64(self.seed, rec.id.as_bytes()) % cands.len() as u64) as usize;
        let (rule, flipped) = cands[pick].clone();
        if let Err((why, detail)) = self.checked(&rec.id) {
            out.drop(
                rec,
                RuleId::new(why),
                format!("{detail} ({rule}: {flipped:?})"),
                None,
            );
            return;
        }
        let before = rec.text.clone();
        out.edit_with(
            &rec,
            RuleId::new(rule),
            format!(
                "{polarity} → {}",
                if polarity == "positive" {
                    "negative"
                } else {
                    "positive"
                }
            ),
            Span {
                start: 0,
                end: before.chars().count(),
                before: before.clone(),
                after: flipped.clone(),
            },
        );
        rec.fields.insert("original".into(), json!(before));
        rec.fields.insert("original_label".into(), json!(polarity));
        rec.fields.insert("flip_rule".into(), json!(rule));
        rec.label = Some(
            if polarity == "positive" {
                "negative"
            } else {
                "positive"
            }
            .to_string(),
        );
        rec.text = flipped;
        out.keep(rec);
    }
}
