//! `[release]`: what a release says about itself that no stage decides. Today that is one
//! statement: a recipe without a `pii` stage says so on purpose, with the reason the card
//! prints (`pii = "none"`, `pii_reason = "..."`); without it, `kcurate check` warns.

use serde::{Deserialize, Serialize};

/// `[release]`: statements the recipe makes about its release.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseConfig {
    /// `"none"`: the recipe releases its text without a `pii` stage on purpose.
    #[serde(default)]
    pub pii: Option<PiiStatement>,
    /// Why no `pii` stage is needed (the text is synthetic, or a parent release already
    /// pseudonymised it); required with `pii = "none"`, printed in the card.
    #[serde(default)]
    pub pii_reason: Option<String>,
    /// Why this dataset was built, for whom and for what (the card's Motivation). A
    /// shipped recipe's motivation copied into a recipe for another dataset is refused.
    #[serde(default)]
    pub motivation: Option<String>,
}

impl ReleaseConfig {
    /// Whether the recipe states nothing in `[release]`.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// What `[release] pii` may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PiiStatement {
    /// No `pii` stage runs, and that is intended.
    None,
}

/// How the personal data of a release's text is handled, as its card states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PiiHandling {
    /// A `pii` stage runs.
    Stage,
    /// No `pii` stage, acknowledged with this reason (`[release] pii = "none"`).
    Acknowledged(String),
    /// No `pii` stage and no statement (`kcurate check` warns).
    Unstated,
}

impl super::Recipe {
    /// Whether the recipe runs a `pii` stage.
    pub fn has_pii_stage(&self) -> bool {
        self.stage("pii").is_some()
    }

    /// How the release's personal data is handled: by a `pii` stage, by none on purpose,
    /// or by none without a word.
    pub fn pii_handling(&self) -> PiiHandling {
        if self.has_pii_stage() {
            return PiiHandling::Stage;
        }
        match (&self.release.pii, &self.release.pii_reason) {
            (Some(PiiStatement::None), Some(reason)) => PiiHandling::Acknowledged(reason.clone()),
            _ => PiiHandling::Unstated,
        }
    }

    /// The warning `kcurate check` gives a recipe that releases text without a `pii` stage
    /// and does not say why.
    pub fn pii_warning(&self) -> Option<String> {
        (self.pii_handling() == PiiHandling::Unstated).then(|| {
            "no `pii` stage: the release's text is not pseudonymised (add a `pii` stage, or state \
             `[release] pii = \"none\"` with `pii_reason` if the text holds no personal data)"
                .to_string()
        })
    }

    /// The note `kcurate check` gives a recipe that does not say why its dataset is built.
    pub fn motivation_warning(&self) -> Option<String> {
        self.release
            .motivation
            .as_deref()
            .is_none_or(|m| m.trim().is_empty())
            .then(|| {
                "no `[release] motivation`: the card will say the recipe does not state why this \
             dataset was built"
                    .to_string()
            })
    }

    /// `[release]` problems: a statement that contradicts the stages or gives no reason,
    /// or a motivation copied from a shipped recipe for another dataset, as (key, message).
    pub(super) fn release_problem(&self) -> Option<(&'static str, String)> {
        if let Some(m) = &self.release.motivation
            && let Some(template) = super::templates::motivation_copied_from(&self.name, m)
        {
            return Some((
                "motivation",
                format!(
                    "is the motivation of the shipped recipe {template}, written for another \
                     dataset: say why this one is built"
                ),
            ));
        }
        let r = &self.release;
        let reason = r.pii_reason.as_deref().map(str::trim);
        match r.pii {
            Some(PiiStatement::None) if self.has_pii_stage() => Some((
                "pii",
                "\"none\", but the recipe runs a `pii` stage: remove one of them".into(),
            )),
            Some(PiiStatement::None) if reason.is_none_or(str::is_empty) => Some((
                "pii_reason",
                "`pii = \"none\"` needs a reason: why the text holds no personal data".into(),
            )),
            None if reason.is_some() => Some((
                "pii_reason",
                "a reason without `pii = \"none\"`: state both, or neither".into(),
            )),
            _ => None,
        }
    }
}
