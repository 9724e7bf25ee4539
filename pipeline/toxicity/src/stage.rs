//! Stage `toxicity`: drops records that hit a slur or threat rule of the lexicon
//! (`rules/toxicity.toml`, each rule its own id), then records whose gender-bias score ≥ its
//! threshold (KLUE: 0.5) or whose hate score ≥ its threshold (KLUE: 0.9), thresholds per
//! source or per domain, never on formal news (KLUE §2.3, §6.2). Scores come from the built-in model (a model file, or trained
//! from a labelled TSV when the stage is built) or from an external classifier's JSONL; a
//! domain may have its own model, trained on its labelled reviews (`domain_train`).

use crate::lexicon::{Class, Finding, Lexicon};
use crate::model::{Example, Features, Scores, ToxicityModel, config_for, read_scores, read_tsv};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, Out, Record, RuleId, SourceInfo, Stage, StageEntry,
    parse_settings,
};
use std::collections::BTreeMap;

/// The `toxicity` stage, for the binary's one stage table.
pub const ENTRY: StageEntry = StageEntry {
    name: "toxicity",
    summary: "Gender-bias and hate filtering with per-source thresholds (KLUE: 0.5 and 0.9), off for formal news",
    doc: "What: scores each record for gender bias and hate and drops it when a score reaches its \
threshold (toxicity.gender_bias, toxicity.hate; the decision carries the score). Sources whose \
domain is news and style formal are passed through untouched.\n\
Why: KLUE §2.3 and §6.2 trained a gender-bias and a hate detector on the Korean hate speech \
dataset and removed sentences with gender-bias score ≥ 0.5 or hate score ≥ 0.9, per corpus, not \
on formal news.\n\
A lexicon (setting lexicon, e.g. rules/toxicity.toml) runs first: a slur or threat aimed at \
people drops the record with that rule's id (toxicity.slur_political_v3, ...) whatever the scores; \
a slur only quoted, defined or criticised (~로 몰아붙이는, ~라는 말, scare quotes) is kept and \
flagged toxicity.mention for a reader; the model trained on news comments misses slurs in other domains and reads mentions of women \
as bias, so a domain such as reviews takes its own thresholds (setting domains).\n\
Example: a comment scored gender_bias 0.71 → dropped by toxicity.gender_bias (score 0.71); a \
review calling raters 일베충 → dropped by toxicity.slur_political_v3 (the detail names the rule \
and where the term is, never the term).\n\
Settings: one of model (a `kcurate toxicity train` file), train (a labelled TSV to train on when \
the stage is built; seed = recipe seed; balanced = true weights the classes, see \
kcurate_toxicity::model::train_config; features: \"char_wb\" (the default: char_wb 1-3 \
tf-idf with sublinear tf, logistic regression C = 4, balanced, L-BFGS to convergence) or \"hashed\" \
(hashed char 1-2-grams, SGD; smaller, less accurate)) or scores (an external classifier's {\"id\",\"gender_bias\",\"hate\"} \
JSONL; records without a score are flagged toxicity.no_score); lexicon (a rule file; none by \
default); gender_bias (0.5), hate (0.9), domains (table source domain → {gender_bias, hate}), \
sources (table source id → {gender_bias, hate}; wins over domains), skip_formal_news (true); \
domain_train (table source domain → {labels: label files of NSMC reviews read and judged \
(movie_file, review_id, label clean|hateful|gender), texts: the NSMC raw directory they name, \
with_train (false): add them to train's TSV, weight (1): how many times each review then \
counts}): the sources of that domain are scored by a model of the same features trained on \
those reviews.",
    rules: &[
        "toxicity.gender_bias",
        "toxicity.hate",
        "toxicity.no_score",
        "toxicity.mention",
    ],
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
    #[serde(default)]
    domains: BTreeMap<String, Thresholds>,
    lexicon: Option<String>,
    #[serde(default)]
    balanced: bool,
    #[serde(default)]
    features: Features,
    #[serde(default = "yes")]
    skip_formal_news: bool,
    #[serde(default)]
    domain_train: BTreeMap<String, DomainTrain>,
}

/// A domain's own model: trained on labelled reviews of the domain (label files of
/// [`crate::reviews`], texts from the corpus directory `texts`); with `with_train`, on the
/// `train` TSV plus each review `weight` times.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DomainTrain {
    labels: Vec<String>,
    texts: String,
    #[serde(default)]
    with_train: bool,
    #[serde(default = "one")]
    weight: usize,
}

fn one() -> usize {
    1
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

pub(crate) struct ToxicityStage {
    lexicon: Option<Lexicon>,
    scorer: Scorer,
    /// Models trained for one domain (`domain_train`), and which sources read which.
    domain_models: Vec<ToxicityModel>,
    model_of: BTreeMap<String, usize>,
    defaults: (f64, f64),
    per_source: BTreeMap<String, (f64, f64)>,
    skip: std::collections::BTreeSet<String>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    Ok(BuiltStage::Record(Box::new(build_stage(settings, ctx)?)))
}

fn build_stage(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<ToxicityStage, BuildError> {
    let cfg: ToxicityConfig = parse_settings(settings)?;
    let base = match &cfg.train {
        Some(t) => Some(ctx.read_input(t, read_tsv)?),
        None => None,
    };
    let scorer = scorer(&cfg, ctx, base.as_ref())?;
    let (domain_models, model_of) = domain_models(&cfg, ctx, base.as_ref())?;
    let lexicon = match &cfg.lexicon {
        Some(l) => Some(ctx.read_input(l, Lexicon::load)?),
        None => None,
    };
    let per_source = per_source_thresholds(&cfg, ctx)?;
    let skip = ctx
        .sources
        .values()
        .filter(|s: &&SourceInfo| cfg.skip_formal_news && s.domain == "news" && s.style == "formal")
        .map(|s| s.id.clone())
        .collect();
    Ok(ToxicityStage {
        lexicon,
        scorer,
        domain_models,
        model_of,
        defaults: (cfg.gender_bias, cfg.hate),
        per_source,
        skip,
    })
}

/// The scores' source: a model file, a model trained on the labelled TSV `base` (the
/// `train` setting, read), or imported scores.
fn scorer(
    cfg: &ToxicityConfig,
    ctx: &mut BuildCtx,
    base: Option<&(Vec<Example>, String)>,
) -> Result<Scorer, BuildError> {
    Ok(match (&cfg.model, base, &cfg.scores) {
        (Some(m), None, None) => Scorer::Model(Box::new(ctx.read_input(m, ToxicityModel::load)?)),
        (None, Some((data, sha)), None) => Scorer::Model(Box::new(ToxicityModel::train(
            data,
            sha.clone(),
            &config_for(cfg.features, ctx.seed, cfg.balanced),
        ))),
        (None, None, Some(s)) => Scorer::Imported(ctx.read_input(s, read_scores)?),
        _ => {
            return Err(BuildError::setting(
                "model",
                "give exactly one of model, train or scores",
            ));
        }
    })
}

/// One model per `domain_train` entry, trained on that domain's labelled reviews (plus
/// `base`, the read `train` TSV, with `with_train`), and the index of the model each source
/// of the domain reads. The label files are inputs; the review texts come from the corpus a
/// source of the recipe reads.
fn domain_models(
    cfg: &ToxicityConfig,
    ctx: &mut BuildCtx,
    base: Option<&(Vec<Example>, String)>,
) -> Result<(Vec<ToxicityModel>, BTreeMap<String, usize>), BuildError> {
    let mut models = Vec::new();
    let mut model_of = BTreeMap::new();
    for (dom, d) in &cfg.domain_train {
        let key = format!("domain_train.{dom}");
        let base = match (d.with_train, base) {
            (false, _) => None,
            (true, Some(b)) => Some(b),
            (true, None) => {
                return Err(BuildError::setting(
                    key,
                    "with_train needs train (the labelled TSV the reviews are added to)",
                ));
            }
        };
        if d.labels.is_empty() || d.weight == 0 {
            return Err(BuildError::setting(
                key,
                "needs at least one label file and a weight >= 1",
            ));
        }
        let sources: Vec<String> = ctx
            .sources
            .values()
            .filter(|s| &s.domain == dom)
            .map(|s| s.id.clone())
            .collect();
        if sources.is_empty() {
            return Err(BuildError::setting(
                key,
                "no source of the recipe has this domain",
            ));
        }
        let texts = ctx.resolve(&d.texts);
        let (mut reviews, mut shas) = (Vec::new(), Vec::new());
        for l in &d.labels {
            let (ex, s) = ctx.read_input(l, |p| crate::reviews::examples(p, &texts))?;
            reviews.extend(ex);
            shas.push(s);
        }
        let rows = match base {
            Some((data, sha)) => {
                shas.push(format!("{sha} x{}", d.weight));
                crate::reviews::training_rows(data, &reviews, d.weight)
            }
            None => reviews,
        };
        let sha = kcurate_core::hash::sha256_hex(shas.join(" ").as_bytes());
        let train_cfg = config_for(cfg.features, ctx.seed, cfg.balanced);
        models.push(ToxicityModel::train(&rows, sha, &train_cfg));
        for s in sources {
            model_of.insert(s, models.len() - 1);
        }
    }
    Ok((models, model_of))
}

/// Every threshold in 0..1, and the (gender_bias, hate) thresholds of each source that a
/// `domains` or `sources` entry sets: a domain's apply to every source of that domain, a
/// source's own win.
fn per_source_thresholds(
    cfg: &ToxicityConfig,
    ctx: &BuildCtx,
) -> Result<BTreeMap<String, (f64, f64)>, BuildError> {
    let top = [
        ("gender_bias".to_string(), Some(cfg.gender_bias)),
        ("hate".to_string(), Some(cfg.hate)),
    ];
    let named = cfg
        .sources
        .iter()
        .chain(&cfg.domains)
        .flat_map(|(name, t)| {
            [
                (format!("{name}.gender_bias"), t.gender_bias),
                (format!("{name}.hate"), t.hate),
            ]
        });
    for (k, v) in top.into_iter().chain(named) {
        if let Some(v) = v
            && !(0.0..=1.0).contains(&v)
        {
            return Err(BuildError::setting(
                k,
                format!("threshold {v} outside 0..1"),
            ));
        }
    }
    let pick = |t: &Thresholds| {
        (
            t.gender_bias.unwrap_or(cfg.gender_bias),
            t.hate.unwrap_or(cfg.hate),
        )
    };
    let mut per_source = BTreeMap::new();
    for (dom, t) in &cfg.domains {
        let of_domain: Vec<&SourceInfo> =
            ctx.sources.values().filter(|s| &s.domain == dom).collect();
        if of_domain.is_empty() {
            return Err(BuildError::setting(
                format!("domains.{dom}"),
                "no source of the recipe has this domain",
            ));
        }
        for s in of_domain {
            per_source.insert(s.id.clone(), pick(t));
        }
    }
    for (src, t) in &cfg.sources {
        if !ctx.sources.contains_key(src) {
            return Err(BuildError::setting(
                format!("sources.{src}"),
                "no such source in the recipe",
            ));
        }
        per_source.insert(src.clone(), pick(t));
    }
    Ok(per_source)
}

fn kind(c: Class) -> &'static str {
    match c {
        Class::Gender => "gender-bias",
        Class::Hate => "hate",
    }
}

impl Stage for ToxicityStage {
    fn apply(&self, rec: Record, out: &mut Out) {
        if self.skip.contains(&rec.source) {
            out.keep(rec);
            return;
        }
        match self.lexicon.as_ref().and_then(|l| l.scan(&rec.text)) {
            Some(Finding::Use(hit)) => {
                // The rule names the word; the detail never repeats it (the dropped text is
                // the decision's own, scrubbed like every drop's).
                let d = format!(
                    "{} lexicon rule {} (chars {})",
                    kind(hit.rule.class),
                    hit.rule.id,
                    hit.end_points()
                );
                out.drop(rec, RuleId::new(&hit.rule.id), d, None);
                return;
            }
            // A slur quoted, defined or criticised: a reader decides; the model still scores.
            Some(Finding::Mention(hit)) => {
                let d = format!(
                    "{} lexicon rule {} mentioned, not used (chars {})",
                    kind(hit.rule.class),
                    hit.rule.id,
                    hit.end_points()
                );
                out.flag(&rec, RuleId::new("toxicity.mention"), d, None);
            }
            None => {}
        }
        let own = self
            .model_of
            .get(&rec.source)
            .map(|i| &self.domain_models[*i]);
        let s = match (own, &self.scorer) {
            (Some(m), _) => m.score(&rec.text),
            (None, Scorer::Model(m)) => m.score(&rec.text),
            (None, Scorer::Imported(map)) => match map.get(&rec.id) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::Out;

    fn ctx(dir: &std::path::Path) -> BuildCtx {
        let mut ctx = BuildCtx {
            seed: 42,
            root: dir.to_path_buf(),
            ..Default::default()
        };
        for (id, domain) in [("reviews_a", "reviews"), ("comments", "comments")] {
            ctx.sources.insert(
                id.into(),
                SourceInfo {
                    id: id.into(),
                    domain: domain.into(),
                    style: "colloquial".into(),
                    license: String::new(),
                },
            );
        }
        ctx
    }

    fn rec(id: &str, source: &str, text: &str) -> Record {
        Record {
            id: id.into(),
            source: source.into(),
            text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn lexicon_hits_drop_with_their_rule_and_domains_take_their_thresholds() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("s.jsonl"),
            "{\"id\":\"a\",\"gender_bias\":0.8,\"hate\":0.1}\n{\"id\":\"b\",\"gender_bias\":0.8,\"hate\":0.1}\n{\"id\":\"c\",\"gender_bias\":0.0,\"hate\":0.0}\n{\"id\":\"d\",\"gender_bias\":0.0,\"hate\":0.0}\n",
        )
        .unwrap();
        let lexicon = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/toxicity.toml");
        let settings: toml::Table = toml::from_str(&format!(
            "scores = \"s.jsonl\"\nlexicon = {lexicon:?}\ndomains = {{ reviews = {{ gender_bias = 0.9 }} }}\n"
        ))
        .unwrap();
        let mut c = ctx(d.path());
        let BuiltStage::Record(st) = build(&settings, &mut c).unwrap() else {
            panic!("a record stage")
        };
        assert_eq!(c.extra_inputs.len(), 2, "scores and lexicon are inputs");
        let mut out = Out::new("toxicity");
        // 0.8 < the reviews threshold 0.9: kept; the same score elsewhere: dropped at 0.5.
        st.apply(rec("a", "reviews_a", "여주 연기 좋다"), &mut out);
        st.apply(rec("b", "comments", "여주 연기 좋다"), &mut out);
        // A slur is dropped whatever the scores, with the lexicon rule's id.
        st.apply(rec("c", "reviews_a", "일베충들 평점테러 봐라"), &mut out);
        // A slur only reported (what people were called) is kept, flagged for a reader.
        st.apply(
            rec("d", "reviews_a", "유족들을 빨갱이로 몰아붙이던 시절"),
            &mut out,
        );
        let ds: Vec<(&str, &str)> = out
            .decisions()
            .iter()
            .map(|d| (d.item.as_str(), d.rule.as_str()))
            .collect();
        assert_eq!(
            ds,
            [
                ("b", "toxicity.gender_bias"),
                ("c", "toxicity.slur_political_v3"),
                ("d", "toxicity.mention")
            ]
        );
        assert_eq!(
            out.decisions()[2].detail,
            "hate lexicon rule toxicity.slur_political_v3 mentioned, not used (chars 5..8)"
        );
        assert_eq!(
            out.decisions()[1].detail,
            "hate lexicon rule toxicity.slur_political_v3 (chars 0..3)"
        );
        assert!(!out.decisions()[1].detail.contains("일베충"));
        assert_eq!(out.kept_len(), 2);
    }

    #[test]
    fn a_domain_trained_on_its_labelled_reviews_scores_its_sources_with_its_own_model() {
        let d = tempfile::tempdir().unwrap();
        let base = "comments\tcontain_gender_bias\tbias\thate\n\
            좋은 기사 감사합니다\tFalse\tnone\tnone\n좋은 소식이네요\tFalse\tnone\tnone\n\
            이 기자 진짜 쓰레기\tFalse\tothers\thate\n기레기 꺼져라\tFalse\tothers\thate\n";
        std::fs::write(d.path().join("t.tsv"), base).unwrap();
        std::fs::create_dir(d.path().join("raw")).unwrap();
        std::fs::write(
            d.path().join("raw/7.json"),
            r#"[{"review":"평점 준 것들 수준 하고는","review_id":"11"},{"review":"재밌는 영화 추천","review_id":"12"}]"#,
        )
        .unwrap();
        std::fs::write(
            d.path().join("l.tsv"),
            "movie_file\treview_id\tlabel\n7.json\t11\thateful\n7.json\t12\tclean\n",
        )
        .unwrap();
        let settings: toml::Table = toml::from_str(
            "train = \"t.tsv\"\ndomain_train = { reviews = { labels = [\"l.tsv\"], texts = \"raw\", with_train = true, weight = 2 } }\n",
        )
        .unwrap();
        let mut c = ctx(d.path());
        let st = build_stage(&settings, &mut c).unwrap();
        assert_eq!(
            c.extra_inputs.len(),
            2,
            "the training TSV and the label file"
        );
        assert_eq!(st.model_of.keys().collect::<Vec<_>>(), ["reviews_a"]);
        let Scorer::Model(news) = &st.scorer else {
            panic!("a trained model")
        };
        let text = "평점 준 것들 수준 하고는";
        let own = st.domain_models[0].score(text).hate;
        assert!(own > news.score(text).hate + 0.2, "{own}");
        // Without train there is nothing to add the reviews to; the reviews alone are a model.
        std::fs::write(d.path().join("s.jsonl"), "").unwrap();
        let alone = "scores = \"s.jsonl\"\ndomain_train = { reviews = { labels = [\"l.tsv\"], texts = \"raw\" } }\n";
        let settings: toml::Table = toml::from_str(alone).unwrap();
        let st = build_stage(&settings, &mut ctx(d.path())).unwrap();
        assert_eq!(st.domain_models[0].examples, 2);
        let with = alone.replace("\" }", "\", with_train = true }");
        let settings: toml::Table = toml::from_str(&with).unwrap();
        let e = build(&settings, &mut ctx(d.path()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("domain_train.reviews"), "{e}");
    }

    #[test]
    fn a_domain_without_sources_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("s.jsonl"), "").unwrap();
        let settings: toml::Table =
            toml::from_str("scores = \"s.jsonl\"\ndomains = { movies = { hate = 0.99 } }\n")
                .unwrap();
        let e = build(&settings, &mut ctx(d.path()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("domains.movies"), "{e}");
    }
}
