//! How much of a release its judgements cover: the rules judged among those busy enough to
//! matter, the share of drops and edits made by rules nobody judged, and the judgements
//! that do not belong to the release (carried by text, stale), kept apart from its figures.

use super::{Matched, RulePrecision};
use crate::manifest::StageCount;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A rule with at least this many drops and edits in a release is busy: a reader of the
/// card should expect it to be judged.
pub const BUSY: u64 = 50;

/// Judgements of a rule found by their text under another id: judged on another build or
/// corpus, so not this release's figure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// Judgements carried (a verdict filled).
    pub judged: u64,
    /// Of those, judged right.
    pub correct: u64,
}

/// What the judgements of a release cover (manifest `judged`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// The judgements file's name (its directory is left out: no path of the machine that
    /// built the release goes into it).
    pub file: String,
    /// Carried judgements count in the figures (`[audit] count_carried`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub count_carried: bool,
    /// Rules with [`BUSY`] or more drops and edits in the release.
    pub busy_rules: u64,
    /// Of those, the rules with at least one judgement counted.
    pub busy_judged: u64,
    /// Rules with at least one judgement counted, busy or not.
    pub rules_judged: u64,
    /// Drops and edits in the release.
    pub decisions: u64,
    /// Of those, made by rules with no judgement counted.
    pub unjudged_decisions: u64,
    /// rule → judgements found by text under another id, not counted in its figure.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub carried: BTreeMap<String, Carried>,
    /// rule → judgements naming no decision of the release.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stale: BTreeMap<String, u64>,
    /// Judgements counted by item and rule only (the file has no text hash for them).
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub by_id_only: u64,
}

impl Coverage {
    /// The coverage of `matched` (judgements read from `file`) over a release's books.
    pub fn new(file: &str, count_carried: bool, stages: &[StageCount], matched: &Matched) -> Self {
        let mut acted: BTreeMap<&str, u64> = BTreeMap::new();
        for (rule, c) in stages.iter().flat_map(|s| s.stats.rules.iter()) {
            *acted.entry(rule.as_str()).or_default() += c.drop + c.edit;
        }
        let judged = |r: &str| matched.rules.get(r).is_some_and(|p| p.judged > 0);
        let busy: Vec<&str> = acted
            .iter()
            .filter(|(_, n)| **n >= BUSY)
            .map(|(r, _)| *r)
            .collect();
        Coverage {
            file: file.to_string(),
            count_carried,
            busy_rules: busy.len() as u64,
            busy_judged: busy.iter().filter(|r| judged(r)).count() as u64,
            rules_judged: matched.rules.values().filter(|p| p.judged > 0).count() as u64,
            decisions: acted.values().sum(),
            unjudged_decisions: acted
                .iter()
                .filter(|(r, _)| !judged(r))
                .map(|(_, n)| n)
                .sum(),
            carried: matched.carried.clone(),
            stale: matched.stale.clone(),
            by_id_only: matched.by_id_only,
        }
    }

    /// The file names no decision of the release: every judgement in it is carried or
    /// stale, so no figure of the release comes from it.
    pub fn file_is_stale(&self) -> bool {
        self.rules_judged == 0 && (!self.carried.is_empty() || !self.stale.is_empty())
    }

    /// The lines the card and report.html say of the coverage, before the rules' figures:
    /// how much is judged, and a warning when the file is stale.
    pub fn lines(&self) -> Vec<String> {
        let share = if self.decisions == 0 {
            0.0
        } else {
            self.unjudged_decisions as f64 * 100.0 / self.decisions as f64
        };
        let mut out = vec![format!(
            "Judged in this release: {} of the {} rules with {BUSY} or more drops and edits ({} rules judged in all); \
             {share:.1}% of the release's drops and edits ({} of {}) were made by rules not judged in this release.",
            self.busy_judged,
            self.busy_rules,
            self.rules_judged,
            self.unjudged_decisions,
            self.decisions
        )];
        if self.file_is_stale() {
            let carried: u64 = self.carried.values().map(|c| c.judged).sum();
            let stale: u64 = self.stale.values().sum();
            out.push(format!(
                "Warning: the judgements file {} names no decision of this release (carried by text from \
                 another id: {carried}; stale: {stale}): it was made on another build or corpus, and no rule's \
                 figure comes from it.",
                self.file
            ));
        }
        if self.by_id_only > 0 {
            out.push(format!(
                "{} judgements have no text hash and were matched by item and rule only \
                 (kcurate audit precision --add-text-hash adds it from the release they were judged on).",
                self.by_id_only
            ));
        }
        out
    }

    /// What a rule's line adds after its figure (or after `not judged`): the judgements
    /// carried by text and the stale ones, neither counted.
    pub fn notes(&self, rule: &str, figure: Option<&RulePrecision>) -> String {
        let mut s = String::new();
        if let Some(c) = self.carried.get(rule) {
            s.push_str(&format!(
                "; carried from {} by text: {} of {} correct, not counted",
                self.file, c.correct, c.judged
            ));
        }
        // A counted rule's own summary already names its stale judgements.
        if figure.is_none_or(|p| p.judged == 0)
            && let Some(n) = self.stale.get(rule)
        {
            s.push_str(&format!(
                "; {n} stale judgement{} (no such decision in this release)",
                if *n == 1 { "" } else { "s" }
            ));
        }
        s
    }
}
