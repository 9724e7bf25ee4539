//! Stage `toxicity`: drops records whose gender-bias score ≥ its threshold (KLUE: 0.5) or
//! whose hate score ≥ its threshold (KLUE: 0.9), thresholds per source, never on formal
//! news (KLUE §2.3, §6.2). Scores come from the built-in model (a model file, or trained
//! from a labelled TSV when the stage is built) or from an external classifier's JSONL.

use crate::linear::TrainConfig;
use crate::model::{Scores, ToxicityModel, read_scores, read_tsv};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, SourceInfo, Stage, StageEntry,
    parse_settings,
};
use std::collections::BTreeMap;

pub const ENTRY: StageEntry = StageEntry {
    name: "toxicity",
    summary: "Gender-bias and hate filtering with per-source thresholds (KLUE: 0.5 and 0.9), off for formal news",
    doc: "What: scores each record for gender bias and hate and drops it when a score reaches its \
threshold (toxicity.gender_bias, toxicity.hate; the decision carries the score). Sources whose \
domain is news and style formal are passed through untouched.\n\
Why: KLUE §2.3 and §6.2 trained a gender-bias and a hate detector on the Korean hate speech \
dataset and removed sentences with gender-bias score ≥ 0.5 or hate score ≥ 0.9, per corpus, not \
on formal news.\n\
Example: a comment scored gender_bias 0.71 → dropped by toxicity.gender_bias (score 0.71).\n\
Settings: one of model (a `kcurate toxicity train` file), train (a labelled TSV to train on when \
the stage is built; seed = recipe seed) or scores (an external classifier's {\"id\",\"gender_bias\",\"hate\"} \
JSONL; records without a score are flagged toxicity.no_score); gender_bias (0.5), hate (0.9), \
sources (table source id → {gender_bias, hate}), skip_formal_news (true).",
    rules: &["toxicity.gender_bias", "toxicity.hate", "toxicity.no_score"],
    build,
};

#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Thresholds {
    gender_bias: Option<f64>,
    hate: Option<f64>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToxicityConfig {
    model: Option<String>,
    train: Option<String>,
    scores: Option<String>,
    #[serde(default = "half")]
    gender_bias: f64,
    #[serde(default = "nine_tenths")]
    hate: f64,
    #[serde(default)]
    sources: BTreeMap<String, Thresholds>,
    #[serde(default = "yes")]
    skip_formal_news: bool,
}

fn half() -> f64 {
    0.5
}
fn nine_tenths() -> f64 {
    0.9
}
fn yes() -> bool {
    true
}

enum Scorer {
    Model(Box<ToxicityModel>),
    Imported(BTreeMap<String, Scores>),
}

pub struct ToxicityStage {
    scorer: Scorer,
    defaults: (f64, f64),
    per_source: BTreeMap<String, (f64, f64)>,
    skip: std::collections::BTreeSet<String>,
}

pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: ToxicityConfig = parse_settings(settings)?;
    let file_err = |p: &std::path::Path, e: String| BuildError::File {
        path: p.display().to_string(),
        message: e,
    };
    let scorer = match (&cfg.model, &cfg.train, &cfg.scores) {
        (Some(m), None, None) => {
            let p = ctx.resolve(m);
            let model = ToxicityModel::load(&p).map_err(|e| file_err(&p, e.to_string()))?;
            ctx.extra_inputs.push(p);
            Scorer::Model(Box::new(model))
        }
        (None, Some(t), None) => {
            let p = ctx.resolve(t);
            let (data, sha) = read_tsv(&p).map_err(|e| file_err(&p, e.to_string()))?;
            ctx.extra_inputs.push(p);
            let tc = TrainConfig {
                seed: ctx.seed,
                ..TrainConfig::default()
            };
            Scorer::Model(Box::new(ToxicityModel::train(&data, sha, &tc)))
        }
        (None, None, Some(s)) => {
            let p = ctx.resolve(s);
            let scores = read_scores(&p).map_err(|e| file_err(&p, e.to_string()))?;
            ctx.extra_inputs.push(p);
            Scorer::Imported(scores)
        }
        _ => {
            return Err(BuildError::setting(
                "model",
                "give exactly one of model, train or scores",
            ));
        }
    };
    for (k, v) in [("gender_bias", cfg.gender_bias), ("hate", cfg.hate)] {
        if !(0.0..=1.0).contains(&v) {
            return Err(BuildError::setting(
                k,
                format!("threshold {v} outside 0..1"),
            ));
        }
    }
    let mut per_source = BTreeMap::new();
    for (src, t) in &cfg.sources {
        if !ctx.sources.contains_key(src) {
            return Err(BuildError::setting(
                format!("sources.{src}"),
                "no such source in the recipe",
            ));
        }
        per_source.insert(
            src.clone(),
            (
                t.gender_bias.unwrap_or(cfg.gender_bias),
                t.hate.unwrap_or(cfg.hate),
            ),
        );
    }
    let skip = ctx
        .sources
        .values()
        .filter(|s: &&SourceInfo| cfg.skip_formal_news && s.domain == "news" && s.style == "formal")
        .map(|s| s.id.clone())
        .collect();
    Ok(BuiltStage::Record(Box::new(ToxicityStage {
        scorer,
        defaults: (cfg.gender_bias, cfg.hate),
        per_source,
        skip,
    })))
}

impl Stage for ToxicityStage {
    fn name(&self) -> &str {
        "toxicity"
    }

    fn apply(&self, rec: Record, out: &mut Out) {
        if self.skip.contains(&rec.source) {
            out.keep(rec);
            return;
        }
        let s = match &self.scorer {
            Scorer::Model(m) => m.score(&rec.text),
            Scorer::Imported(map) => match map.get(&rec.id) {
                Some(s) => *s,
                None => {
                    out.flag(
                        &rec,
                        RuleId::new("toxicity.no_score"),
                        "no imported score for this id",
                        None,
                    );
                    out.keep(rec);
                    return;
                }
            },
        };
        let (tg, th) = self
            .per_source
            .get(&rec.source)
            .copied()
            .unwrap_or(self.defaults);
        if s.gender_bias >= tg {
            let d = format!(
                "gender bias {:.4} >= {tg} (hate {:.4})",
                s.gender_bias, s.hate
            );
            out.drop(
                rec,
                RuleId::new("toxicity.gender_bias"),
                d,
                Some(s.gender_bias),
            );
        } else if s.hate >= th {
            let d = format!(
                "hate {:.4} >= {th} (gender bias {:.4})",
                s.hate, s.gender_bias
            );
            out.drop(rec, RuleId::new("toxicity.hate"), d, Some(s.hate));
        } else {
            out.keep(rec);
        }
    }
}
