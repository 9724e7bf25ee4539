//! Per-rule precision from curators' judgements: a sample of each rule's drops and edits
//! (`kcurate audit sample`) is read and judged `correct` (the rule was right to act) or
//! `wrong`; the judgements come back as the sample's TSV filled in or as a Label Studio
//! JSON export, and [`precision`] reports per rule `k/n correct` with a Wilson 95% interval.
//! A recipe can name a judgements file (`[audit] judgements = "..."`): the figures go into
//! the manifest (`rule_precision`, and how much of the release is judged, [`Coverage`]),
//! the dataset card and report.html.
//!
//! A judgement names its decision by item id and rule, and (since the sample writes it) by
//! the [`text_hash`] of what the decision removed or changed. It counts for a release only
//! where the release has that very decision: its item, its rule and its text
//! ([`JudgedIndex`], [`Found::Here`]). A judgement whose text the release holds under
//! another id ([`Found::ByText`]: the id moved, or the judgement was made on another
//! corpus or build where the same text was decided) is carried, reported apart and counted
//! only when the recipe asks for it (`[audit] count_carried = true`); one whose decision is
//! gone is stale. One without a text hash (files written before the column) can only be
//! matched by its id. `kcurate audit precision --add-text-hash` fills the column of an old
//! file from the release it was judged on.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod coverage;
pub use coverage::{BUSY, Carried, Coverage};

/// Columns of the sample TSV, in order. `judgement` is left empty for the curator.
pub const TSV_COLUMNS: [&str; 9] = [
    "item",
    "stage",
    "rule",
    "action",
    "text",
    "before",
    "after",
    TEXT_HASH_COLUMN,
    "judgement",
];

/// The column (and Label Studio task field) holding a judgement's [`text_hash`].
pub const TEXT_HASH_COLUMN: &str = "text_hash";

/// The hash a judgement keeps of its decision's text: the first 16 hex digits of the
/// SHA-256 of the decision's `text`, span `before` and span `after` (as written in
/// decisions.jsonl, so after the PII scrubber), joined by tabs. A drop is known by the
/// sentence it removed, an edit by its before and after.
pub fn text_hash(text: &str, before: &str, after: &str) -> String {
    let mut h = kcurate_core::hash::sha256_hex(format!("{text}\t{before}\t{after}").as_bytes());
    h.truncate(16);
    h
}

/// The name of the choice in the Label Studio labeling config.
pub const LS_CHOICE: &str = "judgement";

/// Why a judgements file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PrecisionError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory at fault.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A row is not a judgement (file:line and the column).
    #[error("{path}:{line}: {field}: {message}")]
    Parse {
        /// The file or directory at fault.
        path: String,
        /// 1-based line in the file.
        line: usize,
        /// The column or field at fault.
        field: String,
        /// What went wrong, in the words of the code that found it.
        message: String,
    },
}

/// One judged (or not yet judged) decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The item id the judged decision names.
    pub item: String,
    /// The rule id of the judged decision.
    pub rule: String,
    /// The [`text_hash`] of the judged decision (`None` in files written before the column).
    pub text_hash: Option<String>,
    /// `None`: not judged yet (an empty cell, a skipped task).
    pub correct: Option<bool>,
}

/// A rule's judged decisions: how many were judged, how many were right, and the Wilson
/// 95% interval of the precision, at fixed precision (4 places).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulePrecision {
    /// Decisions judged (a `correct` cell filled).
    pub judged: u64,
    /// Of those, judged right (the rule was right to act).
    pub correct: u64,
    /// correct / judged (0 when nothing was judged).
    pub precision: f64,
    /// Lower end of the Wilson 95% interval.
    pub low: f64,
    /// Upper end of the Wilson 95% interval.
    pub high: f64,
    /// Judgements of this rule that name no decision of the release they were counted for
    /// (the item or the rule's decision on it is gone: judged on another build). Not counted
    /// in `judged`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stale: u64,
    /// Judgements counted in `judged` that found their decision by its text, on an item
    /// whose id is not the one judged (counted only when the recipe sets `[audit]
    /// count_carried`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub moved: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RulePrecision {
    /// The precision and its Wilson interval from the counts, rounded to 4 places.
    pub fn new(correct: u64, judged: u64) -> Self {
        let (low, high) = wilson(correct, judged);
        let r4 = |x: f64| (x * 1e4).round() / 1e4;
        RulePrecision {
            judged,
            correct,
            precision: if judged == 0 {
                0.0
            } else {
                r4(correct as f64 / judged as f64)
            },
            low: r4(low),
            high: r4(high),
            stale: 0,
            moved: 0,
        }
    }

    /// `48/50 correct, precision 0.96 [0.87, 0.99]`, and `; 2 stale judgements not counted`
    /// when some name no decision of the release; `not judged` when nothing was judged.
    pub fn summary(&self) -> String {
        let mut s = if self.judged == 0 {
            // No judgement of this release: an interval of [0, 1] around 0.00 would read as
            // a measured precision.
            "not judged".to_string()
        } else {
            format!(
                "{}/{} correct, precision {:.2} [{:.2}, {:.2}]",
                self.correct, self.judged, self.precision, self.low, self.high
            )
        };
        if self.moved > 0 {
            s.push_str(&format!(
                "; {} of them found by text under another id (counted: [audit] count_carried)",
                self.moved
            ));
        }
        if self.stale > 0 {
            s.push_str(&format!(
                "; {} stale judgement{} (no such decision in this release) not counted",
                self.stale,
                if self.stale == 1 { "" } else { "s" }
            ));
        }
        s
    }
}

/// The Wilson score interval (z = 1.96, 95%) of `k` successes in `n` trials; (0, 1) when
/// nothing was judged.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Per rule, the precision of its judged decisions. An item judged twice for the same rule
/// counts once (its first judgement): a sample is a set of decisions, not of votes.
pub fn precision(judgements: &[Judgement]) -> BTreeMap<String, RulePrecision> {
    let mut seen = BTreeSet::new();
    let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for j in judgements {
        let Some(ok) = j.correct else { continue };
        if !seen.insert((j.rule.as_str(), j.item.as_str())) {
            continue;
        }
        let c = counts.entry(j.rule.clone()).or_default();
        c.1 += 1;
        if ok {
            c.0 += 1;
        }
    }
    counts
        .into_iter()
        .map(|(r, (k, n))| (r, RulePrecision::new(k, n)))
        .collect()
}

/// Which judgements name a decision of a release, filled as the release's decisions go by
/// ([`JudgedIndex::observe`]): a judgement with a text hash names a decision of its rule
/// with that text on its item ([`Found::Here`]; on another item it is only carried,
/// [`Found::ByText`]); one without needs a decision of its rule on its item.
#[derive(Debug, Clone, Default)]
pub struct JudgedIndex {
    /// (item, rule) of the judgements without a text hash → seen.
    by_item: BTreeMap<(String, String), bool>,
    /// (rule, text hash) of the judgements with one → seen on any item.
    by_text: BTreeMap<(String, String), bool>,
    /// (item, rule, text hash) of the judgements with one → seen on that very item.
    exact: BTreeMap<(String, String, String), bool>,
    /// Rules with a hashed judgement: only their decisions are hashed.
    hashed_rules: BTreeSet<String>,
}

impl JudgedIndex {
    /// An index of `judgements`, none of them matched yet.
    pub fn new(judgements: &[Judgement]) -> Self {
        let mut ix = JudgedIndex::default();
        for j in judgements {
            match &j.text_hash {
                None => {
                    ix.by_item.insert((j.item.clone(), j.rule.clone()), false);
                }
                Some(h) => {
                    ix.by_text.insert((j.rule.clone(), h.clone()), false);
                    ix.exact
                        .insert((j.item.clone(), j.rule.clone(), h.clone()), false);
                    ix.hashed_rules.insert(j.rule.clone());
                }
            }
        }
        ix
    }

    /// No judgement to match: the writer skips the lookups (and the hashing) altogether.
    pub fn is_empty(&self) -> bool {
        self.by_item.is_empty() && self.by_text.is_empty()
    }

    /// Marks a decision of the release: its item, rule, text and span.
    pub fn observe(&mut self, item: &str, rule: &str, text: &str, before: &str, after: &str) {
        if self.is_empty() {
            return;
        }
        if !self.by_item.is_empty()
            && let Some(seen) = self.by_item.get_mut(&(item.to_string(), rule.to_string()))
        {
            *seen = true;
        }
        if self.hashed_rules.contains(rule) {
            let h = text_hash(text, before, after);
            let key = (rule.to_string(), h);
            if let Some(seen) = self.by_text.get_mut(&key) {
                *seen = true;
                let (rule, h) = key;
                if let Some(seen) = self.exact.get_mut(&(item.to_string(), rule, h)) {
                    *seen = true;
                }
            }
        }
    }

    /// Marks a decision of the release as written in decisions.jsonl.
    pub fn observe_decision(&mut self, d: &kcurate_core::Decision) {
        if self.is_empty() {
            return;
        }
        let (before, after) = d
            .span
            .as_ref()
            .map_or(("", ""), |s| (s.before.as_str(), s.after.as_str()));
        self.observe(
            &d.item,
            d.rule.as_str(),
            d.text.as_deref().unwrap_or(""),
            before,
            after,
        );
    }

    /// Where the release has the decision `j` judged.
    pub fn find(&self, j: &Judgement) -> Found {
        match &j.text_hash {
            None => {
                let seen = self
                    .by_item
                    .get(&(j.item.clone(), j.rule.clone()))
                    .copied()
                    .unwrap_or(false);
                if seen { Found::ById } else { Found::Stale }
            }
            Some(h) => {
                let key = (j.item.clone(), j.rule.clone(), h.clone());
                if self.exact.get(&key).copied().unwrap_or(false) {
                    Found::Here
                } else if self
                    .by_text
                    .get(&(j.rule.clone(), h.clone()))
                    .copied()
                    .unwrap_or(false)
                {
                    Found::ByText
                } else {
                    Found::Stale
                }
            }
        }
    }

    /// The judgements sorted by what they name in the release: this release's figures per
    /// rule (judgements found [`Found::Here`] or [`Found::ById`], and the carried ones too
    /// when `count_carried`), the carried ones apart, and the stale ones. A decision judged
    /// twice counts once (its first judgement).
    pub fn matched(&self, judgements: &[Judgement], count_carried: bool) -> Matched {
        let mut out = Matched::default();
        let mut live = Vec::new();
        let mut seen = BTreeSet::new();
        let mut moved: BTreeMap<&str, u64> = BTreeMap::new();
        for j in judgements {
            let Some(ok) = j.correct else { continue };
            if !seen.insert((j.rule.as_str(), j.item.as_str())) {
                continue;
            }
            match self.find(j) {
                Found::Here => live.push(j.clone()),
                Found::ById => {
                    out.by_id_only += 1;
                    live.push(j.clone());
                }
                Found::ByText if count_carried => {
                    *moved.entry(&j.rule).or_default() += 1;
                    live.push(j.clone());
                }
                Found::ByText => {
                    let c = out.carried.entry(j.rule.clone()).or_default();
                    c.judged += 1;
                    c.correct += u64::from(ok);
                }
                Found::Stale => *out.stale.entry(j.rule.clone()).or_default() += 1,
            }
        }
        out.rules = precision(&live);
        for (rule, p) in &mut out.rules {
            p.moved = moved.get(rule.as_str()).copied().unwrap_or(0);
            p.stale = out.stale.get(rule).copied().unwrap_or(0);
        }
        out
    }

    /// This release's figures: [`JudgedIndex::matched`] without the carried judgements.
    pub fn precision(&self, judgements: &[Judgement]) -> BTreeMap<String, RulePrecision> {
        self.matched(judgements, false).rules
    }
}

/// Where a release has the decision a judgement names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Its item, its rule and its text: the very decision judged.
    Here,
    /// Its item and rule (the judgement has no text hash, so its text cannot be checked).
    ById,
    /// Its rule and its text, on another item: the judgement is carried from the build or
    /// corpus it was made on.
    ByText,
    /// Nowhere.
    Stale,
}

/// Judgements sorted by what they name in a release ([`JudgedIndex::matched`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matched {
    /// rule → this release's precision (rules with at least one judgement counted).
    pub rules: BTreeMap<String, RulePrecision>,
    /// rule → judgements found by text under another id, not counted.
    pub carried: BTreeMap<String, Carried>,
    /// rule → judgements naming no decision of the release.
    pub stale: BTreeMap<String, u64>,
    /// Judgements counted by item and rule only (no text hash).
    pub by_id_only: u64,
}

/// A judgement cell: `correct`/`wrong` and the usual spellings of yes and no; empty is
/// "not judged".
fn judgement_value(s: &str) -> Result<Option<bool>, CellError> {
    match s.trim().to_lowercase().as_str() {
        "" | "-" | "skip" | "unsure" | "?" => Ok(None),
        "correct" | "right" | "ok" | "yes" | "y" | "1" | "true" | "o" | "맞음" => Ok(Some(true)),
        "wrong" | "incorrect" | "bad" | "no" | "n" | "0" | "false" | "x" | "틀림" => {
            Ok(Some(false))
        }
        other => Err(CellError::NotAJudgement(other.to_string())),
    }
}

/// A text hash cell: 16 lower-case hex digits, as [`text_hash`] writes them.
fn check_hash(h: &str) -> Result<String, CellError> {
    if h.len() == 16 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        Ok(h.to_string())
    } else {
        Err(CellError::NotATextHash(h.to_string()))
    }
}

/// Reads judgements: a Label Studio JSON export (the file starts with `[`) or the sample's
/// TSV filled in (a header naming at least `item`, `rule` and `judgement`).
pub fn read_judgements(path: &Path) -> Result<Vec<Judgement>, PrecisionError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| PrecisionError::Io {
        path: shown.clone(),
        source: e,
    })?;
    if text.trim_start().starts_with('[') {
        read_label_studio(&shown, &text)
    } else {
        read_tsv(&shown, &text)
    }
}

fn read_tsv(shown: &str, text: &str) -> Result<Vec<Judgement>, PrecisionError> {
    let err = |line: usize, field: &str, message: String| PrecisionError::Parse {
        path: shown.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    // Leading `#` lines are comments (a judgements file says where its sample came from).
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, l)| l.starts_with('#'));
    let (header_line, header): (usize, Vec<&str>) = lines
        .next()
        .map(|(n, h)| (n + 1, h.split('\t').map(str::trim).collect()))
        .unwrap_or((1, Vec::new()));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| err(header_line, name, "missing column in the header".into()))
    };
    let (ci, cr, cj) = (col("item")?, col("rule")?, col("judgement")?);
    // Files written before the text hash have no such column: their judgements need ids.
    let ch = header.iter().position(|h| *h == TEXT_HASH_COLUMN);
    let mut out = Vec::new();
    let mut verdicts = Verdicts::default();
    for (n, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = l.split('\t').collect();
        let cell = |c: usize| cells.get(c).copied().unwrap_or("");
        let item = cell(ci).trim();
        let rule = cell(cr).trim();
        if item.is_empty() || rule.is_empty() {
            return Err(err(n + 1, "item", "a row needs an item and a rule".into()));
        }
        let correct =
            judgement_value(cell(cj)).map_err(|m| err(n + 1, "judgement", m.to_string()))?;
        let text_hash = ch
            .map(|c| cell(c).trim())
            .filter(|h| !h.is_empty())
            .map(|h| check_hash(h).map_err(|m| err(n + 1, TEXT_HASH_COLUMN, m.to_string())))
            .transpose()?;
        verdicts
            .agree(rule, item, correct, format!("line {}", n + 1))
            .map_err(|m| err(n + 1, "judgement", m.to_string()))?;
        out.push(Judgement {
            item: item.to_string(),
            rule: rule.to_string(),
            text_hash,
            correct,
        });
    }
    Ok(out)
}

/// A Label Studio export: per task, `data.item` and `data.rule` from the task file, and the
/// first annotation that was not cancelled, whose `judgement` choice is the verdict.
fn read_label_studio(shown: &str, text: &str) -> Result<Vec<Judgement>, PrecisionError> {
    let err = |line: usize, field: &str, message: String| PrecisionError::Parse {
        path: shown.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let tasks: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        err(
            e.line(),
            "-",
            format!("not a Label Studio JSON export: {e}"),
        )
    })?;
    let mut out = Vec::new();
    let mut verdicts = Verdicts::default();
    for (i, t) in tasks.iter().enumerate() {
        let field = |k: &str| format!("[{i}].data.{k}");
        let get = |k: &str| {
            t["data"][k]
                .as_str()
                .map(String::from)
                .ok_or_else(|| err(0, &field(k), "missing".into()))
        };
        let (item, rule) = (get("item")?, get("rule")?);
        let text_hash = t["data"][TEXT_HASH_COLUMN]
            .as_str()
            .filter(|h| !h.is_empty())
            .map(|h| check_hash(h).map_err(|m| err(0, &field(TEXT_HASH_COLUMN), m.to_string())))
            .transpose()?;
        let annotation = t["annotations"].as_array().and_then(|a| {
            a.iter()
                .find(|x| !x["was_cancelled"].as_bool().unwrap_or(false))
        });
        let choice = annotation.and_then(|a| {
            a["result"].as_array()?.iter().find_map(|r| {
                (r["from_name"] == LS_CHOICE).then(|| r["value"]["choices"][0].as_str())?
            })
        });
        let correct = match choice {
            None => None,
            Some(c) => judgement_value(c)
                .map_err(|m| err(0, &format!("[{i}].annotations.{LS_CHOICE}"), m.to_string()))?,
        };
        verdicts
            .agree(&rule, &item, correct, format!("task [{i}]"))
            .map_err(|m| err(0, &format!("[{i}].annotations.{LS_CHOICE}"), m.to_string()))?;
        out.push(Judgement {
            item,
            rule,
            text_hash,
            correct,
        });
    }
    Ok(out)
}

/// The verdict each (rule, item) got first, and where: a decision judged both correct and
/// wrong in one file is an error naming both places (precision counts a decision once, so
/// one of the two would otherwise be dropped without a word).
#[derive(Default)]
struct Verdicts(BTreeMap<(String, String), (bool, String)>);

impl Verdicts {
    fn agree(
        &mut self,
        rule: &str,
        item: &str,
        correct: Option<bool>,
        at: String,
    ) -> Result<(), CellError> {
        let Some(ok) = correct else { return Ok(()) };
        match self.0.entry((rule.to_string(), item.to_string())) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert((ok, at));
                Ok(())
            }
            std::collections::btree_map::Entry::Occupied(o) if o.get().0 != ok => {
                Err(CellError::Conflict {
                    rule: rule.to_string(),
                    item: item.to_string(),
                    first_correct: o.get().0,
                    first_at: o.get().1.clone(),
                    second_at: at,
                })
            }
            std::collections::btree_map::Entry::Occupied(_) => Ok(()),
        }
    }
}

/// A verdict as a judgements file spells it.
fn verdict_word(correct: bool) -> &'static str {
    if correct { "correct" } else { "wrong" }
}

/// Why a cell of a judgements file is refused.
#[derive(Debug, thiserror::Error)]
enum CellError {
    /// A judgement that is neither a spelling of correct nor of wrong.
    #[error("{0:?} is not a judgement; write correct or wrong (or leave it empty)")]
    NotAJudgement(String),
    /// A text hash that is not 16 lower-case hex digits.
    #[error("{0:?} is not a text hash (16 hex digits, as `kcurate audit sample` writes)")]
    NotATextHash(String),
    /// One decision judged correct in one place and wrong in another.
    #[error(
        "{rule} on {item:?} is judged {} at {first_at} and {} at {second_at}: keep one verdict",
        verdict_word(*first_correct),
        verdict_word(!*first_correct)
    )]
    Conflict {
        rule: String,
        item: String,
        first_correct: bool,
        first_at: String,
        second_at: String,
    },
}

#[cfg(test)]
mod tests;
