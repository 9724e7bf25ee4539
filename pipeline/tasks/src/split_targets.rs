//! Dev/test sizes as caps that follow the corpus, shared by the task builders (STS bins,
//! NLI per-source quotas).
//!
//! A recipe's dev/test targets (KLUE: 55 STS pairs a 0.5 bin, 450/600 NLI pairs a source)
//! describe a full-sized corpus. On a smaller one, filling them first would leave train
//! with almost nothing, so a builder shrinks them in proportion until train keeps at least
//! `min_train_share` of the items, and every target it could not meet is reported under
//! one metric, [`METRIC`], that the card and the run's funnel print.

use serde::Serialize;

/// The metric under which a stage lists its [`Unmet`] targets (absent when all were met).
pub const METRIC: &str = "targets_not_met";

/// The share of items train keeps at least, unless the recipe says otherwise.
pub const DEFAULT_MIN_TRAIN_SHARE: f64 = 0.5;

/// A dev/test target the corpus could not meet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmet {
    /// What the target counts (`dev pairs per 0.5 bin`, `klue/test pairs`).
    pub target: String,
    /// What the recipe asked for.
    pub wanted: usize,
    /// What the release holds.
    pub got: usize,
    /// Why, in a reader's words.
    pub why: String,
}

/// The factor (0–1) that shrinks `wanted` dev+test items so that train keeps at least
/// `min_train_share` of `items`.
pub fn scale(items: usize, wanted: usize, min_train_share: f64) -> f64 {
    if wanted == 0 {
        return 1.0;
    }
    let room = (items as f64 * (1.0 - min_train_share)).floor().max(0.0);
    (room / wanted as f64).min(1.0)
}

/// `target` shrunk by `s`, rounded down to a multiple of `step` (NLI keeps whole
/// entailment/neutral/contradiction sets).
pub fn shrink(target: usize, s: f64, step: usize) -> usize {
    let step = step.max(1);
    let n = (target as f64 * s).floor() as usize;
    n / step * step
}

/// Whether `train` of `total` items meets the share (an empty release trivially does).
pub fn train_keeps(train: usize, total: usize, min_train_share: f64) -> bool {
    total == 0 || train as f64 >= min_train_share * total as f64 - 1e-9
}

/// A `min_train_share` outside [0, 1).
#[derive(Debug, thiserror::Error)]
#[error("must be at least 0 and below 1, not {0}")]
pub struct ShareOutOfRange(pub f64);

/// Checks a recipe's `min_train_share`.
pub fn check_share(share: f64) -> Result<(), ShareOutOfRange> {
    if (0.0..1.0).contains(&share) {
        Ok(())
    } else {
        Err(ShareOutOfRange(share))
    }
}

/// The reason a cap shrank, as the card and the funnel print it.
pub fn shrunk_why(items: usize, unit: &str, min_train_share: f64) -> String {
    format!(
        "the corpus gives {items} {unit}; the targets shrink in proportion so that train keeps at least {:.0}% of them",
        min_train_share * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_shrink_only_when_train_would_fall_below_its_share() {
        assert_eq!(scale(10_000, 1_100, 0.5), 1.0);
        let s = scale(680, 1_100, 0.5);
        assert!((s - 340.0 / 1_100.0).abs() < 1e-12);
        assert_eq!(shrink(55, s, 1), 17);
        assert_eq!(shrink(450, 0.1, 3), 45);
        assert_eq!(shrink(10, 0.5, 3), 3);
        assert!(train_keeps(340, 680, 0.5) && !train_keeps(339, 680, 0.5));
        assert!(check_share(1.0).is_err() && check_share(0.5).is_ok());
    }
}
