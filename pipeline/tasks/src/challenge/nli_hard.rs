//! Stage `nli_hard` (corpus): a hypothesis-only-hard NLI challenge set derived from an NLI
//! release. A hypothesis-only model is cross-fitted by premise group (the NLI task's
//! [`crate::nli::select::cross_fit`]) or its probabilities are imported; a pair stays when the
//! model gets its label wrong or is near uniform on it (cross-entropy against the uniform
//! distribution within `near_uniform` of ln 3). The survivors are balanced: the same count
//! per label within each source and, with `balance_sources`, the same count per source.
//! Every pair that leaves names why: easy for the hypothesis-only model, or balance.
//! With `screen` (a rule file, `rules/nli_screen.toml`), broken pairs (untranslated,
//! fragments, transcripts, copies, conflicting labels) leave first, each with the rule that
//! fired ([`super::nli_screen`]), and the model is fitted on the rest only.

mod steps;

use super::nli_screen::Screen;
use crate::nli::select::read_probs;
use kcurate_core::decision::round_score;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, StageEntry, parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The `nli_hard` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "nli_hard",
    summary: "Hypothesis-only-hard NLI pairs, balanced per source and label (a derived set)",
    doc: "What: scores each NLI pair (text = hypothesis, label = gold label, field premise) with a \
hypothesis-only model cross-fitted by premise group (premise in `premise_field`) (`folds`, seeded) or with imported \
probabilities (`probs`: {\"id\",\"p_entailment\",\"p_neutral\",\"p_contradiction\"} JSONL). A pair \
the model labels correctly with cross-entropy against the uniform distribution more than \
`near_uniform` above ln 3 leaves with challenge.hyp_only_easy (score = the model's probability \
of the gold label). The rest are balanced: per source (field `source`, else the record's \
source) the same count per label, and with `balance_sources` the same count per source; the \
surplus, chosen by a seeded hash, leaves with challenge.balance. Pairs without a premise or \
with a label outside entailment/neutral/contradiction leave with challenge.bad_pair. With \
`screen` (a rule file such as rules/nli_screen.toml), every pair is screened first: a pair a \
rule of the file fires on (non-Korean or untranslated text, a citation, a premise without a \
predicate, fillers, repeated words, an extreme length ratio, a copied hypothesis, the same \
pair under two labels) leaves with that rule's id, and the model is fitted on the rest; the \
counts per rule go to the manifest (`screened`). `screen` may list several files (their rules \
fire in that order), e.g. rules/nli_votes.toml first for sets that carry their validators' \
labels (a pair whose gold label fewer than 4 of 5 annotators chose leaves); `skip_rules` names \
rules of those files not applied (one written for translated text that misfires on the set).\n\
Why: KLUE §3.3 and KoBEST's artefact review: examples a hypothesis-only model cannot solve \
test inference rather than annotation artefacts.\n\
The row keeps the parent's `guid` when the recipe carries it as a field.\n\
Settings: folds (5), near_uniform (0.05), balance_sources (true), probs (path), \
premise_field (\"premise\"), screen (a path or a list of paths, none by default), skip_rules (rule ids, none).",
    rules: &[
        "challenge.hyp_only_easy",
        "challenge.balance",
        "challenge.bad_pair",
    ],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default = "five")]
    folds: usize,
    #[serde(default = "margin")]
    near_uniform: f64,
    #[serde(default = "yes")]
    balance_sources: bool,
    #[serde(default)]
    probs: Option<String>,
    #[serde(default = "premise_key")]
    premise_field: String,
    #[serde(default)]
    screen: Option<ScreenFiles>,
    #[serde(default)]
    skip_rules: Vec<String>,
}

/// `screen`: one rule file, or several whose rules fire in the order given.
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum ScreenFiles {
    One(String),
    Many(Vec<String>),
}

impl ScreenFiles {
    fn paths(&self) -> Vec<&str> {
        match self {
            ScreenFiles::One(p) => vec![p.as_str()],
            ScreenFiles::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

fn premise_key() -> String {
    "premise".into()
}

fn five() -> usize {
    5
}
fn margin() -> f64 {
    0.05
}
fn yes() -> bool {
    true
}

struct NliHard {
    cfg: Config,
    seed: u64,
    imported: Option<BTreeMap<String, [f64; 3]>>,
    screen: Option<Screen>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: Config = parse_settings(settings)?;
    if cfg.folds < 2 {
        return Err(BuildError::setting("folds", "needs at least 2 folds"));
    }
    if cfg.near_uniform.is_nan() || cfg.near_uniform < 0.0 {
        return Err(BuildError::setting("near_uniform", "must be ≥ 0"));
    }
    let imported = match &cfg.probs {
        None => None,
        Some(p) => Some(ctx.read_input(p, read_probs)?),
    };
    let screen = match &cfg.screen {
        None => None,
        Some(files) => {
            let mut screens = Vec::new();
            for p in files.paths() {
                screens.push(ctx.read_input(p, Screen::load)?);
            }
            let mut screen = Screen::chain(screens);
            for id in &cfg.skip_rules {
                if !screen.rules.iter().any(|r| &r.id == id) {
                    return Err(BuildError::setting(
                        "skip_rules",
                        format!("{id:?} is not a rule of the screen files"),
                    ));
                }
            }
            screen.rules.retain(|r| !cfg.skip_rules.contains(&r.id));
            Some(screen)
        }
    };
    if cfg.screen.is_none() && !cfg.skip_rules.is_empty() {
        return Err(BuildError::setting("skip_rules", "needs `screen`"));
    }
    Ok(BuiltStage::Corpus(Box::new(NliHard {
        cfg,
        seed: ctx.seed,
        imported,
        screen,
    })))
}

/// The source a pair is balanced under: the parent release's `source` column when carried.
fn pair_source(r: &Record) -> String {
    r.fields
        .get("source")
        .and_then(|v| v.as_str())
        .unwrap_or(&r.source)
        .to_string()
}

impl CorpusStage for NliHard {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let mut good = self.pairs(recs, out);
        if let Some(screen) = &self.screen {
            good = steps::screen_pairs(screen, good, out);
        }
        let probs = self.probabilities(&good);
        let (hard, acc) = self.score(good, &probs, out);
        let (keep, quota) = self.balance(&hard);
        let (kept_by, right_kept) = self.emit(hard, &keep, &quota, out);
        let kept: usize = kept_by.values().sum();
        out.metric("kept_per_source_label", json!(kept_by));
        out.metric(
            "hypothesis_only_accuracy",
            json!({
                "scored": acc.scored,
                "all": round_score(acc.right as f64 / acc.scored.max(1) as f64),
                "kept": kept,
                "on_kept": round_score(right_kept as f64 / kept.max(1) as f64),
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::{Decision, Kind, Origin};

    fn rec(i: usize, src: &str, premise: &str, hyp: &str, label: &str) -> Record {
        let mut r = Record {
            id: format!("p{i:03}"),
            kind: Kind::Pair,
            source: "parent".into(),
            origin: Origin {
                file: "nli/train.jsonl".into(),
                line: i as u64 + 1,
            },
            text: hyp.into(),
            label: Some(label.into()),
            ..Record::default()
        };
        r.fields.insert("premise".into(), json!(premise));
        r.fields.insert("source".into(), json!(src));
        r
    }

    /// Half the premise sets use one template per label (an artefact the model learns:
    /// easy), half rotate the templates across labels (nothing to learn: hard).
    fn corpus() -> Vec<Record> {
        let templates = [
            "{g}번 사건이 있었다.",
            "{g}번 사건은 전혀 없다.",
            "{g}번 사건은 아마 어제였다.",
        ];
        let labels = ["entailment", "contradiction", "neutral"];
        let mut v = Vec::new();
        for g in 0..120 {
            let src = if g % 2 == 0 { "news" } else { "reviews" };
            let p = format!("전제 {g}번은 어떤 사건을 말한다.");
            let shift = if g < 60 { 0 } else { g % 3 };
            for (k, label) in labels.iter().enumerate() {
                let hyp = templates[(k + shift) % 3].replace("{g}", &g.to_string());
                v.push(rec(3 * g + k, src, &p, &hyp, label));
            }
        }
        v
    }

    fn run_with(
        cfg: Config,
        imported: Option<BTreeMap<String, [f64; 3]>>,
        recs: Vec<Record>,
    ) -> (Vec<Record>, Vec<Decision>, u64) {
        let stage = NliHard {
            cfg,
            seed: 7,
            imported,
            screen: None,
        };
        let mut out = Out::new("nli_hard");
        stage.run(recs, &mut out);
        out.into_parts()
    }

    fn run(cfg: Config, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>, u64) {
        run_with(cfg, None, recs)
    }

    fn cfg() -> Config {
        Config {
            folds: 5,
            near_uniform: 0.05,
            balance_sources: true,
            probs: None,
            premise_field: premise_key(),
            screen: None,
            skip_rules: Vec::new(),
        }
    }

    #[test]
    fn kept_pairs_are_balanced_per_source_and_label_and_every_drop_has_a_decision() {
        let n = corpus().len();
        let (kept, decisions, dropped) = run(cfg(), corpus());
        assert_eq!(kept.len() as u64 + dropped, n as u64);
        assert_eq!(decisions.len() as u64, dropped);
        assert!(!kept.is_empty(), "the rotated sets are hard");
        let mut cells: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in &kept {
            let o = &r.fields["output"];
            *cells
                .entry((
                    o["source"].as_str().unwrap().into(),
                    o["gold_label"].as_str().unwrap().into(),
                ))
                .or_default() += 1;
        }
        let counts: Vec<usize> = cells.values().copied().collect();
        assert!(counts.windows(2).all(|w| w[0] == w[1]), "{cells:?}");
        // The 없다 artefact makes contradictions easy: some leave for that reason.
        assert!(
            decisions
                .iter()
                .any(|d| d.rule.as_str() == "challenge.hyp_only_easy")
        );
    }

    #[test]
    fn imported_probabilities_decide_and_a_missing_id_is_a_decision() {
        let recs = corpus();
        let mut m = BTreeMap::new();
        for r in recs.iter().skip(1) {
            // Confidently right on entailment, uniform elsewhere.
            let p = if r.label.as_deref() == Some("entailment") {
                [0.9, 0.05, 0.05]
            } else {
                [1.0 / 3.0; 3]
            };
            m.insert(r.id.clone(), p);
        }
        let (kept, decisions, _) = run_with(
            Config {
                balance_sources: false,
                ..cfg()
            },
            Some(m),
            recs,
        );
        assert!(
            kept.is_empty(),
            "no entailment survives, so balance keeps none"
        );
        let easy = decisions
            .iter()
            .filter(|d| d.rule.as_str() == "challenge.hyp_only_easy")
            .count();
        assert_eq!(easy, 119);
        assert!(
            decisions
                .iter()
                .any(|d| d.rule.as_str() == "challenge.bad_pair" && d.item == "p000")
        );
    }

    fn build_with(settings: &str) -> Result<BuiltStage, BuildError> {
        let t: toml::Table = toml::from_str(settings).unwrap();
        let mut ctx = BuildCtx {
            root: std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")),
            ..BuildCtx::default()
        };
        build(&t, &mut ctx)
    }

    #[test]
    fn screen_files_chain_in_order_and_skip_rules_must_name_one_of_their_rules() {
        let two = "screen = [\"rules/nli_votes.toml\", \"rules/nli_screen.toml\"]\n";
        assert!(build_with(two).is_ok());
        assert!(build_with(&format!("{two}skip_rules = [\"nli_screen.fragment\"]")).is_ok());
        let e = build_with(&format!("{two}skip_rules = [\"nli_screen.nope\"]"))
            .err()
            .unwrap();
        assert!(e.to_string().contains("nli_screen.nope"), "{e}");
        assert!(build_with("skip_rules = [\"nli_screen.fragment\"]").is_err());
    }

    #[test]
    fn a_contested_gold_label_leaves_before_selection_with_the_votes_rule() {
        let screen = Screen::chain(vec![
            Screen::parse(
                std::path::Path::new("rules/nli_votes.toml"),
                super::super::nli_screen::NLI_VOTES_TOML,
            )
            .unwrap(),
        ]);
        let mut recs = corpus();
        for (i, r) in recs.iter_mut().enumerate() {
            let gold = r.label.clone().unwrap();
            // Every tenth pair: two of the four validators chose another label.
            let other = if gold == "neutral" {
                "entailment"
            } else {
                "neutral"
            };
            r.fields.insert("author".into(), json!(gold));
            for (k, slot) in ["label2", "label3", "label4", "label5"].iter().enumerate() {
                let v = if i % 10 == 0 && k < 2 {
                    other
                } else {
                    gold.as_str()
                };
                r.fields.insert((*slot).into(), json!(v));
            }
        }
        let n = recs.len();
        let stage = NliHard {
            cfg: cfg(),
            seed: 7,
            imported: None,
            screen: Some(screen),
        };
        let mut out = Out::new("nli_hard");
        stage.run(recs, &mut out);
        let (kept, decisions, dropped) = out.into_parts();
        assert_eq!(kept.len() as u64 + dropped, n as u64);
        let contested: Vec<&Decision> = decisions
            .iter()
            .filter(|d| d.rule.as_str() == "nli_votes.agreement")
            .collect();
        assert_eq!(contested.len(), n.div_ceil(10));
        assert!(
            contested[0].detail.contains("3 of 5"),
            "{}",
            contested[0].detail
        );
        assert!(
            kept.iter()
                .all(|r| r.fields["label2"] == r.fields["author"])
        );
    }

    #[test]
    fn reruns_are_identical() {
        let ids = || -> Vec<String> { run(cfg(), corpus()).0.into_iter().map(|r| r.id).collect() };
        let (a, b) = (ids(), ids());
        assert!(!a.is_empty());
        assert_eq!(a, b);
    }
}
