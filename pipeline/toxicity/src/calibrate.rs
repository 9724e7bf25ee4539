//! Thresholds for one domain from judged samples: for each head, the lowest threshold at
//! which the share of judged-clean items the head drops stays within a target false-drop rate
//! (`kcurate toxicity calibrate`), what it then catches, and the items nearest the threshold,
//! which are the ones worth judging next. The model learnt on news comments; a domain such as
//! reviews needs its own thresholds, set from text of that domain people read.

use crate::model::{Example, Scores, ToxicityModel};

/// One head's threshold at the target and what it does on the judged items.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadCalibration {
    /// `gender_bias` or `hate`, the stage setting this threshold is for.
    pub head: &'static str,
    /// Drop when the score is ≥ this (1.0: the head drops nothing the target allows).
    pub threshold: f64,
    /// Judged-clean items (neither gender-biased nor hateful/offensive).
    pub clean: usize,
    /// Of them, dropped by this head at `threshold`.
    pub clean_dropped: usize,
    /// Items of this head's class (gender bias; hate or offensive).
    pub positive: usize,
    /// Of them, dropped by this head at `threshold`.
    pub caught: usize,
}

/// An item near a threshold: its index in the data, its score and whether it is clean.
#[derive(Debug, Clone, PartialEq)]
pub struct NearItem {
    /// Index into the judged data (0-based, in file order).
    pub index: usize,
    /// The head's score.
    pub score: f64,
    /// Judged clean.
    pub clean: bool,
}

/// A head: its setting name, its score of a text, and whether a judged item is of its class.
type Head = (&'static str, fn(&Scores) -> f64, fn(&Example) -> bool);

fn is_clean(e: &Example) -> bool {
    !e.gender && e.hate == 0
}

/// The lowest threshold (4 decimals, rounded up) that drops at most `target` × clean of the
/// clean `scores`; 1.0 when even that would drop too many (scores of 1.0).
pub fn threshold_for(clean_scores: &[f64], target: f64) -> f64 {
    let mut s: Vec<f64> = clean_scores.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    // May drop the `allowed` highest; the threshold must clear the next one.
    let allowed = (target * s.len() as f64).floor() as usize;
    match s.get(allowed) {
        None => 0.0,
        Some(&next) => (((next * 1e4).floor() + 1.0) / 1e4).min(1.0),
    }
}

/// Both heads calibrated on `data` (judged items of one domain) at `target` (e.g. 0.03).
pub fn calibrate(model: &ToxicityModel, data: &[Example], target: f64) -> Vec<HeadCalibration> {
    let scores: Vec<Scores> = data.iter().map(|e| model.score(&e.text)).collect();
    let heads: [Head; 2] = [
        ("gender_bias", |s| s.gender_bias, |e| e.gender),
        ("hate", |s| s.hate, |e| e.hate > 0),
    ];
    heads
        .iter()
        .map(|(head, score, positive)| {
            let clean: Vec<f64> = data
                .iter()
                .zip(&scores)
                .filter(|(e, _)| is_clean(e))
                .map(|(_, s)| score(s))
                .collect();
            let threshold = threshold_for(&clean, target);
            let pos: Vec<f64> = data
                .iter()
                .zip(&scores)
                .filter(|(e, _)| positive(e))
                .map(|(_, s)| score(s))
                .collect();
            HeadCalibration {
                head,
                threshold,
                clean: clean.len(),
                clean_dropped: clean.iter().filter(|s| **s >= threshold).count(),
                positive: pos.len(),
                caught: pos.iter().filter(|s| **s >= threshold).count(),
            }
        })
        .collect()
}

/// The `n` items whose `head` score is nearest `threshold` (ties: file order).
pub fn near_threshold(
    model: &ToxicityModel,
    data: &[Example],
    head: &str,
    threshold: f64,
    n: usize,
) -> Vec<NearItem> {
    let mut items: Vec<NearItem> = data
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let s = model.score(&e.text);
            let score = if head == "gender_bias" {
                s.gender_bias
            } else {
                s.hate
            };
            NearItem {
                index,
                score,
                clean: is_clean(e),
            }
        })
        .collect();
    items.sort_by(|a, b| {
        (a.score - threshold)
            .abs()
            .total_cmp(&(b.score - threshold).abs())
            .then(a.index.cmp(&b.index))
    });
    items.truncate(n);
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_drops_no_more_clean_items_than_the_target_allows() {
        let clean: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
        // 3% of 100: the three highest (0.97, 0.98, 0.99) may drop, 0.96 must not.
        let t = threshold_for(&clean, 0.03);
        assert_eq!(t, 0.9601);
        assert_eq!(clean.iter().filter(|s| **s >= t).count(), 3);
        // No clean item may drop: above the highest.
        assert_eq!(threshold_for(&clean, 0.0), 0.9901);
        // A clean item scored 1.0 cannot be kept by any threshold: 1.0, the most that can.
        assert_eq!(threshold_for(&[1.0, 0.2], 0.0), 1.0);
        assert_eq!(threshold_for(&[], 0.03), 0.0);
    }
}
