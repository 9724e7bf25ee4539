//! Stage `tc` (corpus): KLUE TC (YNAT, §3.1) topic labels for headlines. Three annotators
//! (simulated from the source's topic field, seeded; or imported long TSV/JSONL) choose one
//! of KLUE's seven topics; gold = the topic at least `min_votes` of them chose (2 of 3),
//! else `tc.no_gold`. Nominal α of the annotations goes to the manifest. A corpus without
//! a topic field (the Wikinews crawl) gets its topics from keywords (`topic_rules`,
//! [`crate::tc_topics`], matching words, [`words`]): a headline no keyword maps leaves with
//! `tc.no_topic`, one whose keywords tie or are too few to settle a topic is the annotators'
//! to label: with imported annotations they decide it, with simulated ones (which only
//! echo a topic) it leaves with `tc.weak_topic`. The label
//! distribution goes to the manifest. Simulated annotators vote through the recipe's
//! `votes` table ([`crate::votes::VoteModel`], fitted on KLUE NLI dev: no topic votes are in
//! ../shared), which the card reports; the seven topics take its mean error rate.

pub mod words;

use crate::annotation_figures as figs;
use crate::tc_topics::{TopicHit, TopicRules, Unsettled};
use crate::votes::{VoteModel, Voter};
use kcurate_agree::aggregate::majority;
use kcurate_agree::alpha::{Level, alpha};
use kcurate_agree::label::{Label, Matrix};
use kcurate_core::{
    BuildCtx, BuildError, BuiltStage, CorpusStage, Kind, Out, Record, RuleId, StageEntry,
    parse_settings,
};
use serde_json::json;
use std::collections::BTreeMap;

/// The class order the release card declares (`ClassLabel`) is this one.
pub const TOPICS: [&str; 7] = kcurate_core::recipe::TC_TOPICS;

/// The `tc` stage's line in the binary's `STAGES` table.
pub const ENTRY: StageEntry = StageEntry {
    name: "tc",
    summary: "KLUE TC topic labels: 3 annotators, gold = a topic chosen by 2 of 3, α reported",
    doc: "What: each record (a headline) gets `annotators` topic choices among KLUE's seven topics — \
simulated from the record's `topic_field` (seeded, with `spammers` random annotators; votes follow \
the `votes` table fitted by `kcurate nli fit-votes`: the topic with probability 1 − scale × the \
table's mean error, else another topic at random; reported as vote_model) or imported \
(`annotations`, long TSV/JSONL keyed by record id); gold = the topic chosen by at least `min_votes`, \
else the record leaves with tc.no_gold. Nominal α (`alpha_nominal`; `alpha` with its seeded 95% \
bootstrap interval), the gold rule (`aggregator`), each annotator's agreement with the gold topic \
(`annotators`) and the gold label distribution (`label_distribution`) go to the manifest, and the \
card's Annotations states them. With `topic_rules` (a rule file such as \
rules/ynat_topics.toml), the topic the annotators start from is derived from keywords in the title \
and the first characters of the body (`body_field`) instead of `topic_field`; a headline no \
keyword maps leaves with tc.no_topic; one whose keywords are too few (the file's `min_score`) or \
lead the next topic by less than `min_margin`, or name only a place, is left to the annotators: \
imported annotations decide it (the row then names no topic rule), simulated annotators cannot \
(they start from a topic), so it leaves with tc.weak_topic naming the contestants. The row names the rule and keywords (`topic_rule`, \
`topic_keywords`). Rows: guid, title, label, date, annotations.\n\
Why: KLUE §3.1 (YNAT): three annotators, the first topic chosen by at least two.\n\
Settings: topic_field (\"topic\"), annotators (3), spammers (0), min_votes (2), annotations, \
topic_rules (path), body_field, votes (table, required without annotations).",
    rules: &["tc.no_gold", "tc.no_topic", "tc.weak_topic"],
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
    #[serde(default)]
    topic_rules: Option<String>,
    #[serde(default)]
    body_field: Option<String>,
    /// The annotators' vote model (`kcurate nli fit-votes` prints it).
    #[serde(default)]
    votes: Option<VoteModel>,
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

pub(crate) struct TcStage {
    cfg: TcConfig,
    seed: u64,
    imported: Option<BTreeMap<String, Vec<(String, String)>>>,
    topics: Option<TopicRules>,
}

/// Builds the stage from its recipe settings (see [`ENTRY`]'s doc).
pub fn build(settings: &toml::Table, ctx: &mut BuildCtx) -> Result<BuiltStage, BuildError> {
    let cfg: TcConfig = parse_settings(settings)?;
    let imported = match &cfg.annotations {
        None => None,
        Some(p) => {
            let kind = kcurate_agree::batch::BatchKind::Classification {
                labels: TOPICS.iter().map(|s| s.to_string()).collect(),
            };
            let rows = crate::annotations::import(ctx, p, &kind)?;
            let mut m: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
            for r in rows {
                m.entry(r.item)
                    .or_default()
                    .push((r.annotator, r.value.to_string()));
            }
            Some(m)
        }
    };
    let topics = match &cfg.topic_rules {
        None => None,
        Some(p) => Some(ctx.read_input(p, TopicRules::load)?),
    };
    match &cfg.votes {
        Some(m) => m
            .check()
            .map_err(|e| BuildError::setting("votes", e.to_string()))?,
        None if imported.is_none() => {
            return Err(BuildError::setting(
                "votes",
                "needed when there are no `annotations`: paste the table `kcurate nli fit-votes \
                 --klue <KLUE NLI dev JSON>` prints",
            ));
        }
        None => {}
    }
    if cfg.body_field.is_some() && topics.is_none() {
        return Err(BuildError::setting(
            "body_field",
            "is read only with topic_rules",
        ));
    }
    Ok(BuiltStage::Corpus(Box::new(TcStage {
        cfg,
        seed: ctx.seed,
        imported,
        topics,
    })))
}

/// The rule and detail of a headline the topic rules leave open.
fn unsettled(t: &TopicRules, why: &Unsettled) -> (&'static str, String) {
    match why {
        Unsettled::Digest => (
            "tc.no_topic",
            "a digest's title (several stories): no single topic".into(),
        ),
        Unsettled::NoKeyword => (
            "tc.no_topic",
            format!(
                "no keyword of the topic rules in the title or the body's first {} characters",
                t.lede_chars
            ),
        ),
        Unsettled::Weak(c) => {
            let c: Vec<String> = c.iter().map(|(t, n)| format!("{t} {n}")).collect();
            (
                "tc.weak_topic",
                format!(
                    "keywords do not settle a topic (scores: {}; needs {} and a lead of {}, \
                     and more than a place name): for the annotators",
                    if c.is_empty() {
                        "none left".into()
                    } else {
                        c.join(", ")
                    },
                    t.min_score,
                    t.min_margin
                ),
            )
        }
    }
}

impl CorpusStage for TcStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        let pool = match (&self.imported, &self.cfg.votes) {
            (None, Some(m)) => {
                out.metric("vote_model", serde_json::to_value(m).unwrap_or_default());
                m.pool(self.cfg.annotators, self.cfg.spammers, self.seed)
            }
            _ => Vec::new(),
        };
        let (recs, derived) = self.derive_topics(recs, out);
        let mut books = Books {
            dist: TOPICS.iter().map(|t| (*t, 0)).collect(),
            rows: vec![vec![None; recs.len()]; self.cfg.annotators],
            gold: Vec::with_capacity(recs.len()),
        };
        for (i, r) in recs.into_iter().enumerate() {
            let hit = derived.get(i).cloned().flatten();
            let choices = self.choices(&pool, &r, hit.as_ref());
            self.label(i, r, hit.as_ref(), &choices, &mut books, out);
        }
        self.record_figures(&books, out);
    }
}

/// What the pass gathers over the labelled records: the gold label distribution, each
/// annotator's row of choices and each record's gold label.
struct Books {
    dist: BTreeMap<&'static str, usize>,
    rows: Vec<Vec<Option<Label>>>,
    gold: Vec<Option<Label>>,
}

/// The steps of [`TcStage::run`], in the order it takes them.
impl TcStage {
    /// Topics from keywords first: a headline they do not settle leaves before annotation,
    /// unless people's annotations are there to settle it. The records that stay, with the
    /// topic derived for each (none without topic rules).
    fn derive_topics(
        &self,
        recs: Vec<Record>,
        out: &mut Out,
    ) -> (Vec<Record>, Vec<Option<TopicHit>>) {
        let mut derived: Vec<Option<TopicHit>> = Vec::new();
        let Some(t) = &self.topics else {
            return (recs, derived);
        };
        let mut kept = Vec::with_capacity(recs.len());
        for r in recs {
            let body = self
                .cfg
                .body_field
                .as_ref()
                .and_then(|f| r.fields.get(f))
                .and_then(|v| v.as_str())
                .unwrap_or("");
            match t.decide(&r.text, body) {
                Ok(h) => {
                    derived.push(Some(h));
                    kept.push(r);
                }
                Err(_) if self.imported.is_some() => {
                    derived.push(None);
                    kept.push(r);
                }
                Err(why) => {
                    let (rule, detail) = unsettled(t, &why);
                    out.drop(r, RuleId::new(rule), detail, None)
                }
            }
        }
        (kept, derived)
    }

    /// The annotators' `(annotator, topic)` choices for one record: imported, or simulated
    /// from the derived topic, else the record's topic field.
    fn choices(&self, pool: &[Voter], r: &Record, hit: Option<&TopicHit>) -> Vec<(String, String)> {
        match (&self.imported, &self.cfg.votes) {
            (Some(m), _) => m.get(&r.id).cloned().unwrap_or_default(),
            // Refused at build: no votes to simulate from means no choices.
            (None, None) => Vec::new(),
            (None, Some(model)) => {
                let truth = match hit {
                    Some(h) => h.topic.clone(),
                    None => r
                        .fields
                        .get(&self.cfg.topic_field)
                        .and_then(|v| v.as_str())
                        .filter(|t| TOPICS.contains(t))
                        .unwrap_or("사회")
                        .to_string(),
                };
                pool.iter()
                    .map(|a| {
                        (
                            a.id.clone(),
                            model.vote_among(self.seed, &r.id, a, &truth, &TOPICS),
                        )
                    })
                    .collect()
            }
        }
    }

    /// Record `i`'s gold topic from its choices: kept with its row, or dropped without one.
    fn label(
        &self,
        i: usize,
        r: Record,
        hit: Option<&TopicHit>,
        choices: &[(String, String)],
        books: &mut Books,
        out: &mut Out,
    ) {
        for (k, (_, c)) in choices.iter().enumerate().take(self.cfg.annotators) {
            books.rows[k][i] = Some(Label::Text(c.clone()));
        }
        let labels: Vec<Label> = choices.iter().map(|c| Label::Text(c.1.clone())).collect();
        let refs: Vec<&Label> = labels.iter().collect();
        let g = majority(&refs, self.cfg.min_votes);
        books.gold.push(g.clone());
        let Some(g) = g else {
            let d = format!(
                "no topic chosen by {} of {}",
                self.cfg.min_votes,
                choices.len()
            );
            out.drop(r, RuleId::new("tc.no_gold"), d, None);
            return;
        };
        let mut row = json!({
            "guid": r.id,
            "title": r.text,
            "label": g.to_string(),
            "date": r.date,
            "annotations": {"annotators": choices.iter().map(|c| c.0.clone()).collect::<Vec<_>>(), "annotations": choices.iter().map(|c| c.1.clone()).collect::<Vec<_>>()},
        });
        if let Some(h) = hit {
            row["topic_rule"] = json!(h.rule);
            row["topic_keywords"] = json!(h.keywords);
        }
        if let Some(n) = books.dist.get_mut(g.to_string().as_str()) {
            *n += 1;
        }
        let mut rec = r.child(r.id.clone(), Kind::Example, r.text.clone());
        rec.label = Some(g.to_string());
        rec.fields.insert("output".into(), row);
        out.keep(rec);
    }

    /// The manifest's figures: label distribution and origin, α, the gold rule and each
    /// annotator's agreement with the gold topic.
    fn record_figures(&self, books: &Books, out: &mut Out) {
        let Books { dist, rows, gold } = books;
        out.metric("label_distribution", json!(dist));
        // The card's annotations_creators and Labels section read where the votes came from.
        let origin = if self.imported.is_some() {
            "human"
        } else {
            "simulated"
        };
        out.metric("label_origin", json!(origin));
        if let Some(a) = alpha(&Matrix::new(rows.clone()), Level::Nominal)
            .ok()
            .flatten()
        {
            out.metric("alpha_nominal", json!((a * 1e6).round() / 1e6));
        }
        figs::record_alpha(out, rows, Level::Nominal, self.seed);
        let rule = format!("majority: {} of the annotators' topics", self.cfg.min_votes);
        figs::record_aggregator(out, &rule);
        let agree = figs::agreement_with_gold(rows, gold);
        let file = self
            .cfg
            .annotations
            .as_deref()
            .filter(|_| self.imported.is_some());
        figs::record_annotators(out, "agreement with the gold topic", &agree, 0, file);
    }
}
