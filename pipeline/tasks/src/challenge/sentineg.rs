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
use super::flip::{Candidates, Flip, Flipper};
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

/// Why a record leaves the stage: (rule id, detail, score).
type Leave<'a> = (&'a str, String, Option<f64>);

/// The decision for a record no rule flips: the first guard that stopped a flip, or
/// challenge.no_rule.
fn no_flip<'a>(cands: &Candidates<'a>) -> Leave<'a> {
    match cands.stopped.first() {
        Some((guard, rule)) => {
            let rules: Vec<&str> = cands.stopped.iter().map(|(_, r)| *r).collect();
            (
                guard,
                format!(
                    "stops {rule} (every rule that applies: {})",
                    rules.join(", ")
                ),
                None,
            )
        }
        None => (
            "challenge.no_rule",
            "no flip rule applies to the final predicate".into(),
            None,
        ),
    }
}

impl SentiNeg {
    /// The flip a record gets, checked; or None when it left with a decision.
    fn judge(&self, rec: Record, out: &mut Out) -> Option<Made> {
        match self.flip_of(&rec) {
            Ok((rule, flip, positive)) => {
                let key = predicate_key(&made_predicate(&flip), |w| self.flipper.stem(w));
                Some(Made {
                    rec,
                    rule: rule.to_string(),
                    flipped: flip.text,
                    positive,
                    key,
                })
            }
            Err((rule, detail, score)) => {
                out.drop(rec, RuleId::new(rule), detail, score);
                None
            }
        }
    }

    /// The rule and flip a record gets and whether its rating is positive, or why it leaves.
    fn flip_of(&self, rec: &Record) -> Result<(&str, Flip, bool), Leave<'_>> {
        let positive = self.positive(rec)?;
        let cands = self.flipper.candidates(&rec.text);
        if cands.flips.is_empty() {
            return Err(no_flip(&cands));
        }
        let pick = match &self.polarity {
            Some(m) => self.model_pick(m, rec, positive, &cands)?,
            None => 0,
        };
        let (rule, flip) = &cands.flips[pick];
        if let Some(m) = &self.polarity {
            self.head_check(m, positive, rule, flip)?;
        }
        if let Err((why, detail)) = self.checked(&rec.id) {
            return Err((why, format!("{detail} ({rule}: {:?})", flip.text), None));
        }
        Ok((rule, flip.clone(), positive))
    }

    /// Whether the record's rating is positive (`positive` list) or negative; a rating in
    /// neither list leaves with challenge.neutral_label.
    fn positive(&self, rec: &Record) -> Result<bool, Leave<'static>> {
        let label = rec.label.clone().unwrap_or_default();
        if self.cfg.positive.contains(&label) {
            Ok(true)
        } else if self.cfg.negative.contains(&label) {
            Ok(false)
        } else {
            Err((
                "challenge.neutral_label",
                format!("label {label:?} is neither positive nor negative"),
                None,
            ))
        }
    }

    /// The index of the flip to make: the sentence must read with its rating's polarity
    /// (challenge.polarity_disagrees / polarity_unsure), and the best-ranked flip whose
    /// predicate carries that polarity is made (else challenge.predicate_neutral).
    fn model_pick(
        &self,
        m: &Polarity,
        rec: &Record,
        positive: bool,
        cands: &Candidates<'_>,
    ) -> Result<usize, Leave<'static>> {
        let polarity = label_of(positive);
        let p = agree(m, positive, &rec.text);
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
            return Err((
                rule,
                format!(
                    "rated {polarity}, the sentence {reads}: p({polarity}) = {p:.3} (needs {c})"
                ),
                Some(p),
            ));
        }
        let scored: Vec<(f64, usize)> = cands
            .flips
            .iter()
            .enumerate()
            .map(|(i, (_, f))| (agree(m, positive, &f.predicate), i))
            .collect();
        match scored
            .iter()
            .find(|(p, _)| *p >= self.cfg.predicate_confidence)
        {
            Some((_, i)) => Ok(*i),
            None => {
                let (p, i) = scored[0];
                let (rule, f) = &cands.flips[i];
                Err((
                    "challenge.predicate_neutral",
                    format!(
                        "{rule} would change {:?}, which on its own reads p({polarity}) = {p:.3} (needs {})",
                        f.predicate, self.cfg.predicate_confidence
                    ),
                    Some(p),
                ))
            }
        }
    }

    /// The head the flip leaves must not read with the rating's polarity on its own
    /// (challenge.head_polar: the flipped sentence would argue both ways).
    fn head_check(
        &self,
        m: &Polarity,
        positive: bool,
        rule: &str,
        flip: &Flip,
    ) -> Result<(), Leave<'static>> {
        let polarity = label_of(positive);
        let head = flip.head.trim();
        let p = agree(m, positive, head);
        if head.chars().filter(|c| syllable_like(*c)).count() >= 2 && p >= self.cfg.head_confidence
        {
            return Err((
                "challenge.head_polar",
                format!(
                    "{rule} would leave {head:?}, which on its own reads p({polarity}) = {p:.3} (limit {}): the flipped sentence would argue both ways",
                    self.cfg.head_confidence
                ),
                Some(p),
            ));
        }
        Ok(())
    }
}

/// The probability the model gives the rating's polarity.
fn agree(m: &Polarity, positive: bool, text: &str) -> f64 {
    let p = m.p_positive(text);
    if positive { p } else { 1.0 - p }
}

/// The predicate a flip made: the flipped sentence between its head and its tail, so
/// laughter and faces after it (재미없어요 ㅎㅎ, 재미없다ㅋ: jamo are letters to Unicode) do
/// not make keys of their own, without the final punctuation.
fn made_predicate(flip: &Flip) -> String {
    let text = &flip.text;
    let end = text.len().saturating_sub(flip.tail.len());
    text.get(..end)
        .and_then(|t| t.strip_prefix(flip.head.as_str()))
        .unwrap_or(text)
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string()
}

#[cfg(test)]
mod tests;
