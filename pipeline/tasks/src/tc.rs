//! Stage `tc` (corpus): KLUE TC (YNAT, §3.1) topic labels for headlines. Three annotators
//! (simulated from the source's topic field, seeded; or imported long TSV/JSONL) choose one
//! of KLUE's seven topics; gold = the topic at least `min_votes` of them chose (2 of 3),
//! else `tc.no_gold`. Nominal α of the annotations goes to the manifest.

use kcurate_agree::aggregate::majority;
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_agree::simulate;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Kind, Out, Record, RuleId, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The class order the release card declares (`ClassLabel`) is this one.
pub const TOPICS: [&str; 7] = kcurate_core::recipe::TC_TOPICS;

pub const ENTRY: StageEntry = StageEntry {
    name: "tc",
    summary: "KLUE TC topic labels: 3 annotators, gold = a topic chosen by 2 of 3, α reported",
    doc: "What: each record (a headline) gets `annotators` topic choices among KLUE's seven topics — \
simulated from the record's `topic_field` (seeded, with `spammers` random annotators) or imported \
(`annotations`, long TSV/JSONL keyed by record id); gold = the topic chosen by at least `min_votes`, \
else the record leaves with tc.no_gold. Nominal α goes to the manifest. Rows: guid, title, label, \
date, annotations.\n\
Why: KLUE §3.1 (YNAT): three annotators, the first topic chosen by at least two.\n\
Settings: topic_field (\"topic\"), annotators (3), spammers (0), min_votes (2), annotations.",
    rules: &["tc.no_gold"],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TcConfig {
    #[serde(default = "topic")]
    topic_field: String,
    #[serde(default = "three")]
    annotators: usize,
    #[serde(default)]
    spammers: usize,
    #[serde(default = "two")]
    min_votes: usize,
    #[serde(default)]
    annotations: Option<String>,
}

fn topic() -> String {
    "topic".into()
}
fn three() -> usize {
    3
}
fn two() -> usize {
    2
}

pub struct TcStage {
    cfg: TcConfig,
    seed: u64,
    imported: Option<BTreeMap<String, Vec<(String, String)>>>,
}

pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: TcConfig = parse_settings(settings)?;
    let imported = match &cfg.annotations {
        None => None,
        Some(p) => {
            let scale =
                kcurate_agree::io::Scale::Labels(TOPICS.iter().map(|s| s.to_string()).collect());
            let rows = crate::annotations::import(ctx, p, &scale)?;
            let mut m: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
            for r in rows {
                m.entry(r.item)
                    .or_default()
                    .push((r.annotator, r.value.to_string()));
            }
            Some(m)
        }
    };
    Ok(BuiltStage::Corpus(Box::new(TcStage {
        cfg,
        seed: ctx.seed,
        imported,
    })))
}

impl CorpusStage for TcStage {
    fn name(&self) -> &str {
        "tc"
    }

    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let pool = simulate::pool(self.cfg.annotators, self.cfg.spammers, self.seed);
        let mut rows: Vec<Vec<Option<Label>>> = vec![vec![None; recs.len()]; self.cfg.annotators];
        for (i, r) in recs.into_iter().enumerate() {
            let choices: Vec<(String, String)> = match &self.imported {
                Some(m) => m.get(&r.id).cloned().unwrap_or_default(),
                None => {
                    let truth = r
                        .fields
                        .get(&self.cfg.topic_field)
                        .and_then(|v| v.as_str())
                        .filter(|t| TOPICS.contains(t))
                        .unwrap_or("사회")
                        .to_string();
                    pool.iter()
                        .map(|a| {
                            (
                                a.id.clone(),
                                simulate::nominal(self.seed, &r.id, a, &truth, &TOPICS),
                            )
                        })
                        .collect()
                }
            };
            for (k, (_, c)) in choices.iter().enumerate().take(self.cfg.annotators) {
                rows[k][i] = Some(Label::Text(c.clone()));
            }
            let labels: Vec<Label> = choices.iter().map(|c| Label::Text(c.1.clone())).collect();
            let refs: Vec<&Label> = labels.iter().collect();
            match majority(&refs, self.cfg.min_votes) {
                Some(g) => {
                    let row = json!({
                        "guid": r.id,
                        "title": r.text,
                        "label": g.to_string(),
                        "date": r.date,
                        "annotations": {"annotators": choices.iter().map(|c| c.0.clone()).collect::<Vec<_>>(), "annotations": choices.iter().map(|c| c.1.clone()).collect::<Vec<_>>()},
                    });
                    let mut rec = r.child(r.id.clone(), Kind::Example, r.text.clone());
                    rec.label = Some(g.to_string());
                    rec.fields.insert("output".into(), row);
                    out.keep(rec);
                }
                None => {
                    let d = format!(
                        "no topic chosen by {} of {}",
                        self.cfg.min_votes,
                        choices.len()
                    );
                    out.drop(r, RuleId::new("tc.no_gold"), d, None)
                }
            }
        }
        if let Some(a) = alpha(&Matrix::new(rows), Level::Nominal).ok().flatten() {
            out.metric("alpha_nominal", json!((a * 1e6).round() / 1e6));
        }
    }
}
