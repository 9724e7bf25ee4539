//! Decisions: the side records that say why an item left or changed.

use serde::{Deserialize, Serialize};

/// A stable, namespaced rule id such as `noise.hashtag` or `ingest.malformed`.
///
/// Ids are never renamed: a rule whose meaning changes gets a new id (`_v2`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuleId(String);

impl RuleId {
    /// Panics on an id without a namespace: rule ids are written by developers, not read
    /// from input, so a bad one is a programming error caught by the first test.
    pub fn new(id: impl Into<String>) -> Self {
        let id = id.into();
        assert!(
            Self::is_valid(&id),
            "rule id {id:?} must be `namespace.name` in [a-z0-9_.]"
        );
        RuleId(id)
    }

    /// Whether `id` is `namespace.name` in `[a-z0-9_.]`.
    pub fn is_valid(id: &str) -> bool {
        let Some((ns, name)) = id.split_once('.') else {
            return false;
        };
        !ns.is_empty()
            && !name.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.')
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a decision did to its item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The item left the pipeline.
    Drop,
    /// The item's text changed (the span says where).
    Edit,
    /// The item was marked and went on unchanged.
    Flag,
}

impl Action {
    /// The action as the decisions spell it (`drop`, `edit`, `flag`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Drop => "drop",
            Action::Edit => "edit",
            Action::Flag => "flag",
        }
    }
}

/// An edit's before/after, with character (Unicode scalar) offsets into the text before
/// the edit. For PII, `before` holds a keyed fingerprint, never the original.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First character of the edited range.
    pub start: usize,
    /// One past the last character of the edited range.
    pub end: usize,
    /// The text before the edit (a keyed fingerprint for PII).
    pub before: String,
    /// The text after the edit.
    pub after: String,
}

/// `{item, stage, rule, action, detail, score, span, text}` plus the item's source and origin
/// so an auditor can find the input line without a join.
///
/// `text` is what a drop removed: the dropped item's text as the stage saw it (or a
/// quarantined input line), so a curator can read every drop. An edit's removed text is its
/// span's `before`. When the recipe pseudonymises PII, the writer's scrubber replaces
/// personal data in `text` (as in `detail` and the span) by keyed fingerprints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The id of the item decided on.
    pub item: String,
    /// The stage that decided.
    pub stage: String,
    /// The rule that decided.
    pub rule: RuleId,
    /// What was done.
    pub action: Action,
    /// A short reason for a reader (thresholds, matched words).
    pub detail: String,
    /// A score at fixed precision, when the rule has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// An edit's span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// What a drop removed (see above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The source of the item.
    pub source: String,
    /// The item's `file:line`.
    pub origin: String,
}

/// Scores are written at fixed precision so that summation order or float formatting can
/// never change a release's bytes.
pub fn round_score(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_need_a_namespace() {
        assert!(RuleId::is_valid("noise.hashtag"));
        assert!(RuleId::is_valid("filter.cjk_over_10"));
        assert!(!RuleId::is_valid("hashtag"));
        assert!(!RuleId::is_valid("Noise.Hashtag"));
        assert!(!RuleId::is_valid(".x"));
    }

    #[test]
    fn scores_round_to_six_places() {
        assert_eq!(round_score(0.123_456_789), 0.123_457);
    }
}
