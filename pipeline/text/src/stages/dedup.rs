//! Stage `dedup` (corpus): exact and MinHash/LSH near-duplicate removal, first kept.

use crate::dedup::{Deduper, NearConfig, Verdict};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, OnlineStage, Out, Record, RuleId, StageEntry,
    parse_settings,
};

/// The `dedup` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "dedup",
    summary: "Exact (normalised text) and near-duplicate (MinHash + LSH over char n-grams) removal, first kept",
    doc: "What: walks the records in their stable order and keeps the first of each group of \
duplicates. Exact: same dedup key (NFC, lower case, letters and digits only) → dedup.exact. \
Near: MinHash over character n-grams of the key, LSH banding for candidates, Jaccard \
estimate ≥ threshold → dedup.near. Each drop names the kept twin in its detail; the score \
is the Jaccard estimate. Hash functions are seeded with the recipe seed.\n\
Why: KLUE §2.3 removes duplicates; near duplicates inflate agreement and leak across splits.\n\
Example: \"정말 재밌어요!!\" after \"정말 재밌어요.\" → dedup.exact \"duplicate of <id>\".\n\
Settings: exact (default true), near (default true), ngram (5; 1..=64), num_perm (64; 1..=1024), bands (16; 1..=64), \
threshold (0.8), min_chars (10: shorter keys are only checked exactly).",
    rules: &["dedup.exact", "dedup.near"],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DedupConfig {
    #[serde(default = "yes")]
    exact: bool,
    #[serde(default = "crate::dedup::near_on")]
    near: bool,
    #[serde(flatten)]
    near_cfg: NearConfig,
}

fn yes() -> bool {
    true
}

/// Drops exact and near duplicates of earlier records (`dedup.exact`, `dedup.near`); the
/// first of a group in input order is kept.
pub struct DedupStage {
    seed: u64,
    exact: bool,
    near: Option<NearConfig>,
}

impl DedupStage {
    /// `seed` seeds the MinHash functions; `exact` turns on exact dedup; `near` (validated)
    /// turns on MinHash/LSH near dedup.
    pub fn new(seed: u64, exact: bool, near: Option<NearConfig>) -> Self {
        DedupStage { seed, exact, near }
    }

    /// An empty index with this stage's seed and settings.
    pub fn deduper(&self) -> Deduper {
        Deduper::new(self.seed, self.exact, self.near)
    }

    /// The Jaccard estimate a near duplicate reaches (1 without near dedup).
    pub fn threshold(&self) -> f64 {
        self.near.map_or(1.0, |n| n.threshold)
    }
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    Ok(BuiltStage::Corpus(Box::new(from_settings(
        settings, ctx.seed,
    )?)))
}

/// The stage a recipe's `[[stage]]` settings (without the runner's keys) and seed describe:
/// what `kcurate stage --dedup-keys` and `kcurate dedup-verdicts` hash with.
pub fn from_settings(settings: &toml::Table, seed: u64) -> Result<DedupStage, BuildError> {
    let cfg: DedupConfig = parse_settings(settings)?;
    let near = cfg.near_cfg.for_stage(cfg.near)?;
    Ok(DedupStage::new(seed, cfg.exact, near))
}

impl CorpusStage for DedupStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let mut online = self.start();
        online.deduper.reserve(recs.len());
        online.offer(recs, out);
    }

    fn online(&self) -> Option<Box<dyn OnlineStage + '_>> {
        Some(Box::new(self.start()))
    }
}

impl DedupStage {
    fn start(&self) -> OnlineDedup {
        OnlineDedup {
            deduper: Deduper::new(self.seed, self.exact, self.near),
            kept_ids: String::new(),
            kept_ends: Vec::new(),
        }
    }
}

/// Dedup a batch at a time: the index of kept texts and the ids of the kept records (one
/// string, for the drops' details), never the records.
struct OnlineDedup {
    deduper: Deduper,
    kept_ids: String,
    /// Where each kept id ends in `kept_ids`.
    kept_ends: Vec<usize>,
}

impl OnlineDedup {
    fn kept_id(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.kept_ends[i - 1] };
        &self.kept_ids[start..self.kept_ends[i]]
    }
}

impl OnlineStage for OnlineDedup {
    fn offer(&mut self, recs: Vec<Record>, out: &mut Out) {
        let verdicts = self
            .deduper
            .offer_batch(recs.iter().map(|r| r.text.as_str()));
        for (rec, verdict) in recs.into_iter().zip(verdicts) {
            match verdict {
                Verdict::Keep => {
                    self.kept_ids.push_str(&rec.id);
                    self.kept_ends.push(self.kept_ids.len());
                    out.keep(rec);
                }
                Verdict::Exact { twin } => drop_duplicate(out, rec, self.kept_id(twin), None),
                Verdict::Near { twin, score } => {
                    drop_duplicate(out, rec, self.kept_id(twin), Some(score))
                }
            }
        }
    }
}

/// The one form of a dedup drop: `dedup.exact` (`near` None, score 1) or `dedup.near`
/// (its Jaccard estimate), naming the kept twin.
fn drop_duplicate(out: &mut Out, rec: Record, twin: &str, near: Option<f64>) {
    match near {
        None => {
            let detail = format!("duplicate of {twin}");
            out.drop(rec, RuleId::new("dedup.exact"), detail, Some(1.0));
        }
        Some(score) => {
            let detail = format!("near-duplicate of {twin} (jaccard {score:.3})");
            out.drop(rec, RuleId::new("dedup.near"), detail, Some(score));
        }
    }
}

mod shuffle;

pub use shuffle::{
    Claimed, ClaimedKey, DecidedDedup, DedupVerdicts, KeyLine, VerdictLine, VerdictsError,
    meet_codes, resolve,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_name_the_kept_twin() {
        let mk = |id: &str, t: &str| Record {
            id: id.into(),
            text: t.into(),
            ..Default::default()
        };
        let recs = vec![
            mk("a", "정말 재밌어요."),
            mk("b", "정말 재밌어요!!"),
            mk("c", "배우들의 연기가 정말 훌륭했고 음악도 아름다웠던 영화"),
            mk(
                "d",
                "배우들의 연기가 정말 훌륭했고 음악도 아름다웠던 영화다",
            ),
        ];
        let st = DedupStage::new(42, true, Some(NearConfig::default()));
        let mut out = Out::new("dedup");
        st.run(recs, &mut out);
        let (kept, dec, dropped) = out.into_parts();
        assert_eq!(
            kept.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        assert_eq!(dropped, 2);
        assert_eq!(dec[0].rule.as_str(), "dedup.exact");
        assert_eq!(dec[0].detail, "duplicate of a");
        assert_eq!(dec[1].rule.as_str(), "dedup.near");
        assert!(
            dec[1].detail.starts_with("near-duplicate of c"),
            "{}",
            dec[1].detail
        );
    }
}
