//! The `split_date` stage, a split strategy usable by every recipe (KLUE TC §3.1): records
//! dated on/after a cutoff go to dev/test.

use kcurate_core::hash::seeded_u64;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, RuleId, StageEntry, parse_settings,
};
use serde_json::json;

/// The `split_date` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
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
