//! The stage contract.
//!
//! A per-record stage implements [`Stage`]: `apply` gets one record and either keeps it
//! (possibly rewritten, or split into several children with `out.keep` called per child) or
//! drops it with a rule id. Whole-corpus work (dedup, pairing, splits) implements
//! [`CorpusStage`]. Stages never count: the runner keeps the books ([`StageStats`]) and
//! checks conservation: every input is either kept (emits at least one record) or
//! dropped with exactly one drop decision.
//!
//! A stage is built from its recipe table by a `build` function registered in the one
//! `STAGES` table of the binary; see [`BuildCtx`].

use crate::decision::{Action, Decision, RuleId, Span, round_score};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the stages know about each source of the recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SourceInfo {
    /// The source id the recipe gives.
    pub id: String,
    /// The source's domain (`news`, `reviews`, ...), as the recipe gives it.
    pub domain: String,
    /// `formal` or `colloquial`.
    pub style: String,
    /// The source's licence (SPDX id).
    pub license: String,
}

/// What a stage's `build` gets besides its own settings.
#[derive(Debug, Clone, Default)]
pub struct BuildCtx {
    /// The recipe's seed.
    pub seed: u64,
    /// Every source of the recipe, by id.
    pub sources: BTreeMap<String, SourceInfo>,
    /// Directory that relative paths in stage settings (models, imported scores, rule
    /// files) resolve against: the recipe file's directory unless `--root` names another.
    pub root: PathBuf,
    /// Files a stage read while building (models, score files); the runner records their
    /// sha256 in the manifest as inputs.
    pub extra_inputs: Vec<PathBuf>,
    /// Decisions about rows of those files a stage refused while building (an annotation
    /// row with an unknown label, say); the runner writes them to the decision stream, so
    /// nothing read is lost silently.
    pub input_decisions: Vec<Decision>,
    /// The recipe's split ratios, for stages that assign or check splits.
    pub split: crate::recipe::SplitConfig,
    /// The recipe's `[limits]`, for stages that read files (annotations).
    pub limits: crate::recipe::Limits,
}

impl BuildCtx {
    /// The context every stage of `recipe` builds in: its seed, sources, split ratios and
    /// limits, with relative paths resolved against `root` (the recipe's directory unless
    /// `--root` names another).
    pub fn for_recipe(recipe: &crate::recipe::Recipe, root: &Path) -> Self {
        BuildCtx {
            seed: recipe.seed,
            sources: recipe.source_infos(),
            root: root.to_path_buf(),
            extra_inputs: Vec::new(),
            input_decisions: Vec::new(),
            split: recipe.split.clone(),
            limits: recipe.limits,
        }
    }

    /// A stage setting's path: as given when absolute, else below [`BuildCtx::root`].
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            self.root.join(p)
        }
    }

    /// Reads an input file a setting names: `p` resolved ([`BuildCtx::resolve`]), read by
    /// `read`, then recorded in [`BuildCtx::extra_inputs`] (the manifest hashes it). A
    /// failure is a [`BuildError::File`] naming the resolved path.
    pub fn read_input<T, E: std::fmt::Display>(
        &mut self,
        p: &str,
        read: impl FnOnce(&Path) -> Result<T, E>,
    ) -> Result<T, BuildError> {
        let path = self.resolve(p);
        let value = read(&path).map_err(|e| BuildError::File {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.extra_inputs.push(path);
        Ok(value)
    }
}

/// A stage's settings were wrong; `key` is the dotted path inside the stage table.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A setting is missing, of the wrong type or out of range.
    #[error("{key}: {message}")]
    Setting {
        /// The dotted path of the setting inside the stage table.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A file a setting names cannot be read or parsed.
    #[error("{path}: {message}")]
    File {
        /// The file as the setting names it.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl BuildError {
    /// A [`BuildError::Setting`] for the setting `key`.
    pub fn setting(key: impl Into<String>, message: impl Into<String>) -> Self {
        BuildError::Setting {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// Parses a stage's settings table with serde (use `#[serde(deny_unknown_fields)]` on the
/// config struct) and turns a failure into a [`BuildError`].
pub fn parse_settings<T: serde::de::DeserializeOwned>(
    settings: &toml::Table,
) -> Result<T, BuildError> {
    T::deserialize(toml::Value::Table(settings.clone())).map_err(|e| {
        let message = crate::recipe::with_closest_key(e.to_string().trim());
        BuildError::setting("settings", message)
    })
}

/// One line of the binary's `STAGES` table: the name a recipe uses and how to build it
/// from the recipe's `[[stage]]` table (minus the runner's own keys `name`,
/// `only_sources`, `only_styles`, `only_domains`).
pub struct StageEntry {
    /// The name a recipe's `[[stage]]` table gives (`name = "..."`).
    pub name: &'static str,
    /// One line for `kcurate stages`.
    pub summary: &'static str,
    /// What it does / why (paper §) / example / settings, for `kcurate stages --doc`.
    pub doc: &'static str,
    /// The rule ids its code can cite in decisions (rules kept as data, in `rules/*.toml`,
    /// are listed from their files); `kcurate rules` prints both.
    pub rules: &'static [&'static str],
    /// Builds the stage from its settings table.
    pub build: fn(&toml::Table, &mut BuildCtx) -> Result<BuiltStage, BuildError>,
}

/// A per-record stage. Its name is its [`StageEntry`]'s: the registry holds the names, and
/// the runner names a stage's decisions from the recipe's plan.
pub trait Stage: Send + Sync {
    /// Keeps `rec` (possibly changed, or as several children) or drops it, through `out`.
    fn apply(&self, rec: Record, out: &mut Out);
}

/// A stage that needs the whole corpus at once (named, like [`Stage`], by its entry).
pub trait CorpusStage: Send + Sync {
    /// Keeps or drops every record of `recs` through `out` (a record it makes names its
    /// parents).
    fn run(&self, recs: Vec<Record>, out: &mut Out);

    /// The stage in its online form, when it has one: a stage whose verdict on a record
    /// depends only on the records before it (dedup's first-kept rule) can take the corpus
    /// a batch at a time, in the order `run` would get it, holding only compact keys. The
    /// runner then never holds the corpus for it.
    fn online(&self) -> Option<Box<dyn OnlineStage + '_>> {
        None
    }

    /// The stage in its two-pass form, when it has one: a stage that decides on a compact
    /// key per record (a split and text hashes) can see the corpus twice, a batch at a
    /// time, keeping the keys on disk under `dir` (a directory it may create, and that the
    /// runner removes), never the records. The runner then never holds the corpus for it.
    fn keyed(&self, dir: &std::path::Path) -> Option<Box<dyn KeyedStage + '_>> {
        let _ = dir;
        None
    }
}

/// A whole-corpus stage in two passes (see [`CorpusStage::keyed`]). The first pass gives it
/// each record's key ([`key`](Self::key), in parallel) and then the keys in the order
/// [`CorpusStage::run`] would get the records ([`note`](Self::note)); [`decide`](Self::decide)
/// decides on them; the second pass gives it the same records again, in the same order, a
/// batch at a time ([`apply`](Self::apply)). Over both passes it keeps, drops, flags and
/// reports exactly what `run` does, in the same order.
pub trait KeyedStage: Send + Sync {
    /// Appends the key of `rec` to `key`.
    fn key(&self, rec: &Record, key: &mut Vec<u8>);
    /// Takes the next record's key, in corpus order.
    fn note(&mut self, key: &[u8]) -> std::io::Result<()>;
    /// After the last key: decides, and reports its metrics through `out`.
    fn decide(&mut self, out: &mut Out) -> std::io::Result<()>;
    /// Keeps or drops each record of the next batch through `out`, under its own id (it
    /// makes no records).
    fn apply(&mut self, recs: Vec<Record>, out: &mut Out);
}

/// A whole-corpus stage fed a batch at a time (see [`CorpusStage::online`]). Over the
/// batches of a corpus, in order, it keeps, drops and reports exactly what
/// [`CorpusStage::run`] does over the whole corpus, in the same order.
pub trait OnlineStage: Send {
    /// Keeps or drops each record of the next batch through `out`, given every batch before.
    fn offer(&mut self, recs: Vec<Record>, out: &mut Out);
}

/// A built stage: per record or whole corpus.
pub enum BuiltStage {
    /// A stage that sees one record at a time.
    Record(Box<dyn Stage>),
    /// A stage that sees the whole corpus at once.
    Corpus(Box<dyn CorpusStage>),
}

/// Counts of one stage; they add up across threads and partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageStats {
    /// Items the stage received.
    pub items_in: u64,
    /// Items the stage passed on (children of a split count one each).
    pub items_out: u64,
    /// Items the stage dropped, each with one drop decision.
    pub dropped: u64,
    /// Decisions per rule id, split by action.
    pub rules: BTreeMap<String, RuleCount>,
    /// The unit of the items the stage received (`documents`, `sentences`, `pairs`,
    /// `examples`: their records' kind), and of the items it passed on; empty when it saw
    /// none. The split stage turns documents into sentences, a task builder sentences into
    /// pairs: report.html draws one funnel per unit.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit_in: String,
    /// The unit of the items it passed on (see `unit_in`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit_out: String,
}

/// A rule's decisions in one stage, by action.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleCount {
    /// Drops.
    pub drop: u64,
    /// Edits.
    pub edit: u64,
    /// Flags.
    pub flag: u64,
}

impl std::ops::AddAssign<&StageStats> for StageStats {
    fn add_assign(&mut self, o: &StageStats) {
        self.items_in += o.items_in;
        self.items_out += o.items_out;
        self.dropped += o.dropped;
        if self.unit_in.is_empty() {
            self.unit_in.clone_from(&o.unit_in);
        }
        if self.unit_out.is_empty() {
            self.unit_out.clone_from(&o.unit_out);
        }
        for (k, v) in &o.rules {
            let e = self.rules.entry(k.clone()).or_default();
            e.drop += v.drop;
            e.edit += v.edit;
            e.flag += v.flag;
        }
    }
}

impl StageStats {
    /// Notes the unit of an item received (the first one names it).
    pub fn unit_in_of(&mut self, kind: crate::Kind) {
        if self.unit_in.is_empty() {
            self.unit_in = kind.unit().to_string();
        }
    }

    /// Notes the unit of an item passed on (the first one names it).
    pub fn unit_out_of(&mut self, kind: crate::Kind) {
        if self.unit_out.is_empty() {
            self.unit_out = kind.unit().to_string();
        }
    }

    /// Counts decision `d` under its rule and action.
    pub fn count(&mut self, d: &Decision) {
        let e = self.rules.entry(d.rule.as_str().to_string()).or_default();
        match d.action {
            Action::Drop => e.drop += 1,
            Action::Edit => e.edit += 1,
            Action::Flag => e.flag += 1,
        }
    }
}

/// Where a stage puts its results. Drops need a [`RuleId`]: a drop without a reason does
/// not compile.
pub struct Out {
    stage: String,
    kept: Vec<Record>,
    decisions: Vec<Decision>,
    dropped: u64,
    metrics: BTreeMap<String, serde_json::Value>,
}

impl Out {
    /// An empty `Out` for the stage named `stage`.
    pub fn new(stage: impl Into<String>) -> Self {
        Out {
            stage: stage.into(),
            kept: Vec::new(),
            decisions: Vec::new(),
            dropped: 0,
            metrics: BTreeMap::new(),
        }
    }

    /// The name of the stage this `Out` collects for.
    pub fn stage(&self) -> &str {
        &self.stage
    }

    /// The record goes on (possibly changed; a stage may keep several children of one input).
    pub fn keep(&mut self, rec: Record) {
        self.kept.push(rec);
    }

    /// The record leaves the pipeline because of `rule`. The decision keeps the record's
    /// text (moved, not copied), so the audit can show what was dropped.
    pub fn drop(
        &mut self,
        rec: Record,
        rule: RuleId,
        detail: impl Into<String>,
        score: Option<f64>,
    ) {
        self.dropped += 1;
        self.push(&rec, rule, Action::Drop, detail.into(), score, None);
        if let Some(d) = self.decisions.last_mut() {
            d.text = Some(rec.text);
        }
    }

    /// Records an edit of `rec` (call before keeping the edited record).
    pub fn edit(&mut self, rec: &Record, rule: RuleId, span: Span) {
        self.push(rec, rule, Action::Edit, String::new(), None, Some(span));
    }

    /// Records an edit with a detail text and an optional score.
    pub fn edit_with(&mut self, rec: &Record, rule: RuleId, detail: impl Into<String>, span: Span) {
        self.push(rec, rule, Action::Edit, detail.into(), None, Some(span));
    }

    /// Marks `rec` without removing it.
    pub fn flag(
        &mut self,
        rec: &Record,
        rule: RuleId,
        detail: impl Into<String>,
        score: Option<f64>,
    ) {
        self.push(rec, rule, Action::Flag, detail.into(), score, None);
    }

    fn push(
        &mut self,
        rec: &Record,
        rule: RuleId,
        action: Action,
        detail: String,
        score: Option<f64>,
        span: Option<Span>,
    ) {
        self.decisions.push(Decision {
            item: rec.id.clone(),
            stage: self.stage.clone(),
            rule,
            action,
            detail,
            score: score.map(round_score),
            span,
            text: None,
            source: rec.source.clone(),
            origin: rec.origin.to_string(),
        });
    }

    /// How many records were kept so far.
    pub fn kept_len(&self) -> usize {
        self.kept.len()
    }

    /// How many records were dropped so far.
    pub fn dropped_count(&self) -> u64 {
        self.dropped
    }

    /// The decisions recorded so far.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// A corpus-level figure the release should report (agreement α, Table 5 statistics,
    /// thresholds used...). The runner stores a corpus stage's metrics in the manifest
    /// under the stage name and the card prints them. Use fixed-precision numbers.
    pub fn metric(&mut self, key: impl Into<String>, value: serde_json::Value) {
        self.metrics.insert(key.into(), value);
    }

    /// Takes the metrics recorded so far (the runner calls this before `into_parts`).
    pub fn take_metrics(&mut self) -> BTreeMap<String, serde_json::Value> {
        std::mem::take(&mut self.metrics)
    }

    /// Hands the results to the runner.
    pub fn into_parts(self) -> (Vec<Record>, Vec<Decision>, u64) {
        (self.kept, self.decisions, self.dropped)
    }

    /// Moves what the stage produced so far onto the ends of `kept` and `decisions` and
    /// returns how many records it dropped. The `Out` is then empty and keeps its buffers,
    /// so one `Out` serves a stage record after record without allocating again.
    pub fn drain_into(&mut self, kept: &mut Vec<Record>, decisions: &mut Vec<Decision>) -> u64 {
        kept.append(&mut self.kept);
        decisions.append(&mut self.decisions);
        std::mem::take(&mut self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_add_up() {
        let mut a = StageStats {
            items_in: 2,
            items_out: 1,
            dropped: 1,
            ..Default::default()
        };
        a.rules.insert(
            "x.y".into(),
            RuleCount {
                drop: 1,
                edit: 0,
                flag: 0,
            },
        );
        let mut b = a.clone();
        b += &a;
        assert_eq!(b.items_in, 4);
        assert_eq!(b.rules["x.y"].drop, 2);
    }

    #[test]
    fn drop_records_a_decision_with_origin() {
        let mut out = Out::new("filter");
        let rec = Record {
            id: "a".into(),
            source: "s".into(),
            text: "짧다.".into(),
            ..Default::default()
        };
        out.edit(
            &rec,
            RuleId::new("noise.x"),
            Span {
                start: 0,
                end: 1,
                before: "짧".into(),
                after: String::new(),
            },
        );
        out.drop(rec, RuleId::new("filter.len"), "too short", Some(0.1234567));
        let (kept, decisions, dropped) = out.into_parts();
        assert!(kept.is_empty());
        assert_eq!(dropped, 1);
        assert_eq!(decisions[1].score, Some(0.123457));
        assert_eq!(decisions[1].origin, ":0");
        // A drop keeps the text it removed; an edit's removed text is its span.
        assert_eq!(decisions[1].text.as_deref(), Some("짧다."));
        assert_eq!(decisions[0].text, None);
        let line = serde_json::to_string(&decisions[0]).unwrap();
        assert!(
            !line.contains("\"text\""),
            "an edit writes no text key: {line}"
        );
    }

    /// A reused `Out` hands over each record's results once and starts the next record
    /// empty: the same as a new `Out` per record.
    #[test]
    fn drain_into_empties_the_out_for_the_next_record() {
        let rec = |id: &str| Record {
            id: id.into(),
            source: "s".into(),
            ..Default::default()
        };
        let mut out = Out::new("filter");
        let (mut kept, mut decisions) = (Vec::new(), Vec::new());
        out.drop(rec("a"), RuleId::new("filter.len"), "too short", None);
        assert_eq!(out.drain_into(&mut kept, &mut decisions), 1);
        out.keep(rec("b"));
        assert_eq!(out.drain_into(&mut kept, &mut decisions), 0);
        assert_eq!(out.drain_into(&mut kept, &mut decisions), 0);
        let ids: Vec<&str> = kept.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["b"]);
        assert_eq!(decisions.len(), 1);
        assert_eq!(decisions[0].item, "a");
        assert_eq!(out.stage(), "filter");
    }
}
