//! The `split_unseen` stage, a split strategy usable by every recipe (KLUE TC §3.1): dev/test
//! keep only items whose terms never occur in train.

use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, RuleId, StageEntry, parse_settings,
};
use serde_json::json;

/// The `split_unseen` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "split_unseen",
    summary: "Dev/test keep only items whose terms never occur in train; the rest move to train",
    doc: "What: runs after a split stage; a dev/test record containing any of `terms` that also occurs in a \
train record moves to train (flag split.unseen_moved naming the term).\n\
Why: KLUE TC's unseen-term split keeps dev/test free of the train set's named entities and keywords.\n\
Settings: terms (list of strings).",
    rules: &["split.unseen_moved"],
    build: build_unseen,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UnseenConfig {
    terms: Vec<String>,
}

pub(crate) struct SplitUnseen {
    terms: Vec<String>,
}

fn build_unseen(settings: &toml::Table, _ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let c: UnseenConfig = parse_settings(settings)?;
    if c.terms.is_empty() {
        return Err(BuildError::setting("terms", "give at least one term"));
    }
    Ok(BuiltStage::Corpus(Box::new(SplitUnseen { terms: c.terms })))
}

impl CorpusStage for SplitUnseen {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let split = |r: &Record| {
            r.fields
                .get("split")
                .and_then(|v| v.as_str())
                .unwrap_or("train")
                .to_string()
        };
        let seen_in_train: std::collections::BTreeSet<&str> = self
            .terms
            .iter()
            .filter(|t| {
                recs.iter()
                    .any(|r| split(r) == "train" && r.text.contains(t.as_str()))
            })
            .map(String::as_str)
            .collect();
        for mut r in recs {
            if split(&r) != "train"
                && let Some(t) = seen_in_train.iter().find(|t| r.text.contains(**t))
            {
                out.flag(
                    &r,
                    RuleId::new("split.unseen_moved"),
                    format!("term {t:?} occurs in train: {} → train", split(&r)),
                    None,
                );
                r.fields.insert("split".into(), json!("train"));
            }
            out.keep(r);
        }
    }
}
