//! Stage `sentineg`: SentiNeg-style flips for two-class sentiment data (KoBEST §2.6). Each
//! record's rating is binarised (settings); with a polarity model (`sentiment_train`) the
//! sentence must itself read as its rating says; the flip rules of `rules/negation.toml` and
//! `rules/antonyms.toml` that apply to the final predicate and that no guard stops are
//! ranked (`prefer`), the best one whose predicate carries the sentiment is made, and the
//! label reversed. Records no rule can flip, that a guard stops, whose base label the model
//! does not confirm, and neutral ratings, leave with a decision.

#[cfg(test)]
mod guard_tests;

use super::balance::{Cut, Offer, predicate_key, select};
use super::flip::Flipper;
use super::polarity::Polarity;
use kcurate_agree::aggregate::majority;
use kcurate_agree::label::Label;
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Out, Record, RuleId, Span, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The `sentineg` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "sentineg",
    summary: "SentiNeg-style negation/antonym flips with label reversal (KoBEST §2.6)",
    doc: "What: binarises each record's label (`positive` / `negative` lists, e.g. NSMC ratings 9–10 and \
1–4; others leave with challenge.neutral_label). The flip rules of rules/negation.toml and \
rules/antonyms.toml that apply to the final predicate are ranked by their `prefer` (negation \
removed, then an antonym, then short negation 안 on a listed short predicate, then long \
negation -지 않다); a flip a guard of rules/negation.toml stops is not made (a negation added \
to a predicate already negated, or any flip of a sentence holding a negation before its \
predicate), and a record whose every flip a guard stopped leaves with the guard's id; a \
record no rule can flip leaves with challenge.no_rule. With `sentiment_train` (a JSONL of \
{text, label}, e.g. the parent release's train split), a sentence-level polarity model \
(hashed character n-gram logistic regression, balanced classes, seeded) is trained on the \
sentences whose label is positive or negative; a sentence whose own polarity disagrees with \
its rating at `sentence_confidence` or more leaves with challenge.polarity_disagrees, one \
the model is less sure of with challenge.polarity_unsure (score: the model's probability of \
the rating's polarity); and a flip is made only when the predicate it changes reads, on its \
own, with the rating's polarity at `predicate_confidence` or more (else \
challenge.predicate_neutral: negating a predicate that carries no sentiment does not reverse \
the sentence's), and only when the rest of the sentence before the predicate does not read \
with that polarity at `head_confidence` or more (else challenge.head_polar: the flipped \
sentence would argue both ways, 훈훈하고 웃기고 재미없다). The made flip is an edit decision with the rule id, the label is reversed, \
and the original text is kept in the `original` field for the people who check each flip. \
Of the flips made, no label stays above `max_label_share` of the rows (the larger side's flips \
are cut across its predicates in turn, seeded: challenge.label_balance) and no predicate made \
(its stem with its negation: 재미없, 안 좋) above `max_predicate_share` (challenge.predicate_cap); \
the label distribution goes to the manifest (label_distribution).\n\
Why: KoBEST §2.6 (SentiNeg): examples whose polarity is flipped by negation or antonyms. A \
review's rating is not each sentence's label, and a double negation does not flip.\n\
Example: \"스토리가 좋았어요\" (positive) → \"스토리가 안 좋았어요\" (negative), rule negation.add_short.\n\
People check each flip: `kcurate challenge export <derived release>` writes a batch (long TSV \
or Label Studio) whose `value` is accept or reject; filled in, it comes back through \
`verdicts` (any agreement format: long TSV/CSV/JSONL, or a Label Studio export when the file \
ends in .json). A flip stays when `min_votes` checkers accept it; rejected flips leave with \
challenge.rejected, flips without a majority with challenge.no_verdict, and flips nobody \
checked with challenge.unchecked (unless `unchecked = \"keep\"`).\n\
Settings: positive (list of labels), negative (list of labels), sentiment_train (path), \
sentence_confidence (0.8), predicate_confidence (0.6), head_confidence (0.7), verdicts (path), min_votes (2), \
unchecked (\"drop\" | \"keep\"), max_label_share (1: no cut), max_predicate_share (1: no cut).",
    rules: &[
        "challenge.neutral_label",
        "challenge.no_rule",
        "challenge.polarity_disagrees",
        "challenge.polarity_unsure",
        "challenge.predicate_neutral",
        "challenge.head_polar",
        "challenge.rejected",
        "challenge.no_verdict",
        "challenge.unchecked",
        "challenge.label_balance",
        "challenge.predicate_cap",
    ],
    build,
};

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    positive: Vec<String>,
    negative: Vec<String>,
    #[serde(default)]
    sentiment_train: Option<String>,
    #[serde(default = "point_eight")]
    sentence_confidence: f64,
    #[serde(default = "point_six")]
    predicate_confidence: f64,
    #[serde(default = "point_seven")]
    head_confidence: f64,
    #[serde(default)]
    verdicts: Option<String>,
    #[serde(default = "two")]
    min_votes: usize,
    #[serde(default)]
    unchecked: Unchecked,
    #[serde(default = "one")]
    max_label_share: f64,
    #[serde(default = "one")]
    max_predicate_share: f64,
}

fn one() -> f64 {
    1.0
}

fn two() -> usize {
    2
}
fn point_eight() -> f64 {
    0.8
}
fn point_six() -> f64 {
    0.6
}
fn point_seven() -> f64 {
    0.7
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

pub(crate) struct SentiNeg {
    cfg: Config,
    flipper: Flipper,
    polarity: Option<Polarity>,
    /// Per flipped record id, the checkers' verdicts (when the recipe imports them).
    verdicts: Option<BTreeMap<String, Vec<Label>>>,
    seed: u64,
}

/// A flip made and checked, before the release's balance and caps choose among them.
struct Made {
    rec: Record,
    rule: String,
    flipped: String,
    positive: bool,
    key: String,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: Config = parse_settings(settings)?;
    let flipper = Flipper::load().map_err(|e| BuildError::setting("rules", e.to_string()))?;
    for (key, v) in [
        ("sentence_confidence", cfg.sentence_confidence),
        ("predicate_confidence", cfg.predicate_confidence),
        ("head_confidence", cfg.head_confidence),
    ] {
        if !(0.5..=1.0).contains(&v) {
            return Err(BuildError::setting(
                key,
                format!("must be in [0.5, 1], not {v}"),
            ));
        }
    }
    for (key, v) in [
        ("max_label_share", cfg.max_label_share),
        ("max_predicate_share", cfg.max_predicate_share),
    ] {
        if !(v > 0.0 && v <= 1.0) {
            return Err(BuildError::setting(
                key,
                format!("must be in (0, 1], not {v}"),
            ));
        }
    }
    let seed = ctx.seed;
    let polarity = match &cfg.sentiment_train {
        None => None,
        // A file of the parent release that `kcurate challenge` has not filled in: `kcurate
        // check` without --release (its notes say so for the sources, which name the parent
        // too, so no run reaches this). Nothing to train on yet.
        Some(p) if p.starts_with("release:") => None,
        Some(p) => Some(ctx.read_input(p, |path| {
            Polarity::train_jsonl(path, &cfg.positive, &cfg.negative, seed)
        })?),
    };
    let verdicts = match &cfg.verdicts {
        None => None,
        Some(p) => {
            let rows = crate::annotations::import(
                ctx,
                p,
                &kcurate_agree::batch::BatchKind::SentiNegCheck,
            )?;
            let mut m: BTreeMap<String, Vec<Label>> = BTreeMap::new();
            for r in rows {
                m.entry(r.item).or_default().push(r.value);
            }
            Some(m)
        }
    };
    Ok(BuiltStage::Corpus(Box::new(SentiNeg {
        cfg,
        flipper,
        polarity,
        verdicts,
        seed,
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

/// A Hangul syllable: the head check skips heads too short to carry a sentiment.
fn syllable_like(c: char) -> bool {
    ('가'..='힣').contains(&c)
}

impl CorpusStage for SentiNeg {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let made: Vec<Made> = recs
            .into_iter()
            .filter_map(|r| self.judge(r, out))
            .collect();
        let offers: Vec<Offer> = made
            .iter()
            .map(|m| Offer {
                id: m.rec.id.clone(),
                label: label_of(!m.positive).into(),
                key: m.key.clone(),
            })
            .collect();
        let (keep, cut) = select(
            &offers,
            self.seed,
            self.cfg.max_label_share,
            self.cfg.max_predicate_share,
        );
        let mut dist: BTreeMap<&str, usize> = [("negative", 0), ("positive", 0)].into();
        for i in &keep {
            *dist.entry(offers[*i].label.as_str()).or_default() += 1;
        }
        let n = keep.len();
        for (i, m) in made.into_iter().enumerate() {
            match cut.get(&i) {
                None => emit(m, out),
                Some(c) => {
                    let (rule, detail) = match c {
                        Cut::Balance => (
                            "challenge.label_balance",
                            format!(
                                "a flip to {} would put that label over {} of the release's {n} rows",
                                offers[i].label, self.cfg.max_label_share
                            ),
                        ),
                        Cut::Predicate => (
                            "challenge.predicate_cap",
                            format!(
                                "{:?} would be made more than {} of the release's {n} rows",
                                offers[i].key, self.cfg.max_predicate_share
                            ),
                        ),
                    };
                    out.drop(
                        m.rec,
                        RuleId::new(rule),
                        format!("{detail} ({}: {:?})", m.rule, m.flipped),
                        None,
                    )
                }
            }
        }
        out.metric("label_distribution", json!(dist));
    }
}

fn label_of(positive: bool) -> &'static str {
    if positive { "positive" } else { "negative" }
}

/// Records a made flip and keeps the flipped record.
fn emit(m: Made, out: &mut Out) {
    let Made {
        mut rec,
        rule,
        flipped,
        positive,
        ..
    } = m;
    let before = rec.text.clone();
    out.edit_with(
        &rec,
        RuleId::new(rule.clone()),
        format!("{} → {}", label_of(positive), label_of(!positive)),
        Span {
            start: 0,
            end: before.chars().count(),
            before: before.clone(),
            after: flipped.clone(),
        },
    );
    rec.fields.insert("original".into(), json!(before));
    rec.fields
        .insert("original_label".into(), json!(label_of(positive)));
    rec.fields.insert("flip_rule".into(), json!(rule));
    rec.label = Some(label_of(!positive).to_string());
    rec.text = flipped;
    out.keep(rec);
}

impl SentiNeg {
    /// The flip a record gets, checked; or None when it left with a decision.
    fn judge(&self, rec: Record, out: &mut Out) -> Option<Made> {
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
            return None;
        };
        let positive = polarity == "positive";
        let cands = self.flipper.candidates(&rec.text);
        if cands.flips.is_empty() {
            match cands.stopped.first() {
                Some((guard, rule)) => {
                    let guard = RuleId::new(*guard);
                    let rules: Vec<&str> = cands.stopped.iter().map(|(_, r)| *r).collect();
                    out.drop(
                        rec,
                        guard,
                        format!(
                            "stops {rule} (every rule that applies: {})",
                            rules.join(", ")
                        ),
                        None,
                    )
                }
                None => out.drop(
                    rec,
                    RuleId::new("challenge.no_rule"),
                    "no flip rule applies to the final predicate",
                    None,
                ),
            }
            return None;
        }
        // The probability the model gives the rating's polarity.
        let agree = |m: &Polarity, t: &str| {
            let p = m.p_positive(t);
            if positive { p } else { 1.0 - p }
        };
        let mut pick = &cands.flips[0];
        if let Some(m) = &self.polarity {
            let p = agree(m, &rec.text);
            let c = self.cfg.sentence_confidence;
            if p < c {
                let (rule, reads) = if p <= 1.0 - c {
                    ("challenge.polarity_disagrees", "reads the other way")
                } else {
                    (
                        "challenge.polarity_unsure",
                        "reads neither way with confidence",
                    )
                };
                out.drop(
                    rec,
                    RuleId::new(rule),
                    format!(
                        "rated {polarity}, the sentence {reads}: p({polarity}) = {p:.3} (needs {c})"
                    ),
                    Some(p),
                );
                return None;
            }
            let scored: Vec<(f64, usize)> = cands
                .flips
                .iter()
                .enumerate()
                .map(|(i, (_, f))| (agree(m, &f.predicate), i))
                .collect();
            match scored
                .iter()
                .find(|(p, _)| *p >= self.cfg.predicate_confidence)
            {
                Some((_, i)) => pick = &cands.flips[*i],
                None => {
                    let (p, i) = scored[0];
                    let (rule, f) = &cands.flips[i];
                    out.drop(
                        rec,
                        RuleId::new("challenge.predicate_neutral"),
                        format!(
                            "{rule} would change {:?}, which on its own reads p({polarity}) = {p:.3} (needs {})",
                            f.predicate, self.cfg.predicate_confidence
                        ),
                        Some(p),
                    );
                    return None;
                }
            }
        }
        if let Some(m) = &self.polarity {
            let head = pick.1.head.trim();
            let p = agree(m, head);
            if head.chars().filter(|c| syllable_like(*c)).count() >= 2
                && p >= self.cfg.head_confidence
            {
                out.drop(
                    rec,
                    RuleId::new("challenge.head_polar"),
                    format!(
                        "{} would leave {head:?}, which on its own reads p({polarity}) = {p:.3} (limit {}): the flipped sentence would argue both ways",
                        pick.0, self.cfg.head_confidence
                    ),
                    Some(p),
                );
                return None;
            }
        }
        let (rule, flip) = pick;
        let (rule, flipped) = (*rule, flip.text.clone());
        if let Err((why, detail)) = self.checked(&rec.id) {
            out.drop(
                rec,
                RuleId::new(why),
                format!("{detail} ({rule}: {flipped:?})"),
                None,
            );
            return None;
        }
        let key = predicate_key(&made_predicate(&flip.text, &flip.head), |w| {
            self.flipper.stem(w)
        });
        Some(Made {
            rec,
            rule: rule.to_string(),
            flipped,
            positive,
            key,
        })
    }
}

/// The predicate a flip made: the flipped sentence after its head, without the final
/// punctuation.
fn made_predicate(text: &str, head: &str) -> String {
    text.strip_prefix(head)
        .unwrap_or(text)
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcurate_core::Decision;
    use kcurate_core::record::{Kind, Origin};

    fn rec(i: usize, text: &str, label: &str) -> Record {
        Record {
            id: format!("s{i:03}"),
            kind: Kind::Sentence,
            source: "parent".into(),
            origin: Origin {
                file: "sentences/test.jsonl".into(),
                line: i as u64 + 1,
            },
            text: text.into(),
            label: Some(label.into()),
            ..Record::default()
        }
    }

    /// A toy polarity model: 재밌/좋/최고 positive, 지루/최악/별로 negative, 배우/영화 neutral.
    fn model() -> Polarity {
        let mut d = Vec::new();
        for _ in 0..20 {
            for t in ["재밌어요", "좋았다", "최고", "재밌다 좋다", "배우", "영화"]
            {
                d.push((
                    t.to_string(),
                    !["배우", "영화"].contains(&t) || d.len() % 2 == 0,
                ));
            }
            for t in ["지루했다", "최악", "별로", "지루하고 최악", "배우", "영화"]
            {
                d.push((
                    t.to_string(),
                    ["배우", "영화"].contains(&t) && d.len() % 2 == 0,
                ));
            }
        }
        Polarity::train(&d, 3)
    }

    fn stage(polarity: Option<Polarity>) -> SentiNeg {
        let cfg: Config = toml::from_str(
            "positive = [\"10\"]\nnegative = [\"1\"]\nsentence_confidence = 0.7\npredicate_confidence = 0.6\nhead_confidence = 0.7",
        )
        .unwrap();
        SentiNeg {
            cfg,
            flipper: Flipper::load().unwrap(),
            polarity,
            verdicts: None,
            seed: 1,
        }
    }

    fn run(s: &SentiNeg, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>) {
        let mut out = Out::new("sentineg");
        CorpusStage::run(s, recs, &mut out);
        let (kept, d, _) = out.into_parts();
        (kept, d)
    }

    fn rule_of<'a>(d: &'a [Decision], item: &str) -> &'a str {
        d.iter().find(|x| x.item == item).unwrap().rule.as_str()
    }

    #[test]
    fn guards_drop_with_their_own_rule_ids_and_the_best_ranked_flip_is_made() {
        let s = stage(None);
        let (kept, d) = run(
            &s,
            vec![
                rec(0, "정말 재미없다", "10"),
                rec(1, "보고 있어요", "10"),
                rec(2, "기대 안 했는데 정말 좋았다", "10"),
                rec(3, "연기가 좋았어요", "10"),
                rec(4, "결말이 깔끔했다", "10"),
                rec(5, "배우가 안 좋다", "1"),
            ],
        );
        // 재미없다 → 재미있다 (antonym) is a removal, so the predicate guard lets it through.
        assert_eq!(rule_of(&d, "s000"), "antonym.lexicon");
        assert_eq!(rule_of(&d, "s001"), "negation.guard_non_evaluative");
        assert_eq!(rule_of(&d, "s002"), "negation.guard_negated_sentence");
        // 좋았어요 has no antonym entry: short negation outranks long negation.
        assert_eq!(rule_of(&d, "s003"), "negation.add_short");
        assert_eq!(rule_of(&d, "s004"), "negation.add_long");
        assert_eq!(rule_of(&d, "s005"), "negation.remove_short_v2");
        let texts: Vec<&str> = kept.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "정말 재미있다",
                "연기가 안 좋았어요",
                "결말이 깔끔하지 않았다",
                "배우가 좋다"
            ]
        );
        assert_eq!(kept[3].label.as_deref(), Some("positive"));
    }

    #[test]
    fn the_model_confirms_base_labels_predicates_and_heads() {
        let s = stage(Some(model()));
        let (kept, d) = run(
            &s,
            vec![
                rec(0, "영화 재밌어요", "10"),
                rec(1, "지루했다 좋았다", "10"),
                rec(2, "재밌다 좋다 재밌어요 좋았다", "1"),
                rec(3, "재밌어요 재밌다 좋다 좋았다", "10"),
            ],
        );
        assert_eq!(kept.len(), 1, "{d:?}");
        assert_eq!(kept[0].text, "영화 재미없어요");
        assert_eq!(rule_of(&d, "s001"), "challenge.polarity_unsure");
        assert_eq!(rule_of(&d, "s002"), "challenge.polarity_disagrees");
        assert_eq!(rule_of(&d, "s003"), "challenge.head_polar");
        let sc = d.iter().find(|x| x.item == "s002").unwrap().score.unwrap();
        assert!(sc < 0.2, "{sc}");
    }
}
