//! Split strategies usable by every recipe (KLUE TC §3.1): by date and by unseen terms.

use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, RuleId, StageEntry, parse_settings,
};
use serde_json::json;

/// The `split_date` stage's line in the binary's `STAGES` table.
pub const DATE_ENTRY: StageEntry = StageEntry {
    name: "split_date",
    summary: "Records dated on/after a cutoff go to dev/test, earlier ones to train; undated ones leave",
    doc: "What: parses each record's date (YYYY-MM-DD, YYYY.MM.DD or NSMC's YY.MM.DD); on or after `cutoff` \
the record goes to dev or test (seeded hash, `test_share`), before it to train; a record without a \
parseable date leaves with split.no_date (never a guess). Every record sent to dev/test gets a \
split.by_date flag.\n\
Why: KLUE TC (YNAT) put 2020 and later headlines in dev/test.\n\
Settings: cutoff (\"2020-01-01\"), test_share (0.5).",
    rules: &["split.no_date", "split.by_date"],
    build: build_date,
};

/// The `split_unseen` stage's line in the binary's `STAGES` table.
pub const UNSEEN_ENTRY: StageEntry = StageEntry {
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
struct DateConfig {
    #[serde(default = "cutoff")]
    cutoff: String,
    #[serde(default = "half")]
    test_share: f64,
}

fn cutoff() -> String {
    "2020-01-01".into()
}
fn half() -> f64 {
    0.5
}

pub use kcurate_core::date::parse_date;

pub(crate) struct SplitDate {
    cutoff: (u32, u32, u32),
    test_share: f64,
    seed: u64,
}

fn build_date(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let c: DateConfig = parse_settings(settings)?;
    let cutoff = parse_date(&c.cutoff)
        .ok_or_else(|| BuildError::setting("cutoff", format!("not a date: {:?}", c.cutoff)))?;
    Ok(BuiltStage::Corpus(Box::new(SplitDate {
        cutoff,
        test_share: c.test_share,
        seed: ctx.seed,
    })))
}

impl CorpusStage for SplitDate {
    fn name(&self) -> &str {
        "split_date"
    }

    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        for mut r in recs {
            let Some(d) = r.date.as_deref().and_then(parse_date) else {
                let d = format!("date {:?} cannot be read", r.date.as_deref().unwrap_or(""));
                out.drop(r, RuleId::new("split.no_date"), d, None);
                continue;
            };
            let split = if d >= self.cutoff {
                let x = seeded_u64(self.seed, r.id.as_bytes()) as f64 / u64::MAX as f64;
                let s = if x < self.test_share { "test" } else { "dev" };
                out.flag(
                    &r,
                    RuleId::new("split.by_date"),
                    format!("{}-{:02}-{:02} on/after the cutoff → {s}", d.0, d.1, d.2),
                    None,
                );
                s
            } else {
                "train"
            };
            r.fields.insert("split".into(), json!(split));
            out.keep(r);
        }
    }
}

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
    fn name(&self) -> &str {
        "split_unseen"
    }

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
