//! Label aggregation: k-of-n majority, mean scores, outlier and variance filters, and the
//! NLI validation statistics of KLUE Table 5.

use crate::label::{Label, Matrix};
use serde::{Deserialize, Serialize};

/// Gold = the label given by at least `min_votes` annotators (among the labels present);
/// `None` (no gold) when no label reaches it or the top count is shared.
pub fn majority(labels: &[&Label], min_votes: usize) -> Option<Label> {
    let mut counts: Vec<(&Label, usize)> = Vec::new();
    for l in labels {
        match counts.iter_mut().find(|(x, _)| x == l) {
            Some(e) => e.1 += 1,
            None => counts.push((l, 1)),
        }
    }
    let top = counts.iter().map(|c| c.1).max()?;
    let winners: Vec<&&Label> = counts.iter().filter(|c| c.1 == top).map(|c| &c.0).collect();
    (top >= min_votes && winners.len() == 1).then(|| (**winners[0]).clone())
}

/// Majority per item of a matrix.
pub fn majority_matrix(m: &Matrix, min_votes: usize) -> Vec<Option<Label>> {
    (0..m.items())
        .map(|i| majority(&m.column(i), min_votes))
        .collect()
}

/// Rounds like Python's `round(x, decimals)`: on the exact binary value, ties to even.
/// (Rust's float formatting rounds the exact value half to even, as Python does.)
pub fn round_half_even(x: f64, decimals: usize) -> f64 {
    format!("{x:.decimals$}")
        .parse()
        .expect("a formatted float parses")
}

/// The mean label of one item's scores (KLUE STS's `real-label` and `label`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeanScore {
    /// The mean of the scores present.
    pub real_label: Option<f64>,
    /// The mean rounded to `decimals`.
    pub label: Option<f64>,
}

/// The mean of `scores` and that mean rounded half to even to `decimals` places; both
/// `None` when there are no scores.
pub fn mean_score(scores: &[f64], decimals: usize) -> MeanScore {
    if scores.is_empty() {
        return MeanScore {
            real_label: None,
            label: None,
        };
    }
    let m = scores.iter().sum::<f64>() / scores.len() as f64;
    MeanScore {
        real_label: Some(m),
        label: Some(round_half_even(m, decimals)),
    }
}

/// Sample variance (n − 1 denominator) of one item's scores; `None` under two scores.
pub fn variance(scores: &[f64]) -> Option<f64> {
    if scores.len() < 2 {
        return None;
    }
    let n = scores.len() as f64;
    let m = scores.iter().sum::<f64>() / n;
    // Sample variance (n − 1), as JGLUE's variance filter uses.
    Some(scores.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0))
}

/// KLUE STS's outlier filter: items whose label lies more than `sd` standard deviations
/// from the mean label of all items. Returns the indices to drop.
pub fn outliers(labels: &[f64], sd: f64) -> Vec<usize> {
    if labels.len() < 2 {
        return Vec::new();
    }
    let n = labels.len() as f64;
    let m = labels.iter().sum::<f64>() / n;
    let s = (labels.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt();
    labels
        .iter()
        .enumerate()
        .filter(|(_, x)| (*x - m).abs() > sd * s)
        .map(|(i, _)| i)
        .collect()
}

/// KLUE Table 5: over validated pairs (writer's label + validators'), the share where
/// every label agrees, the share of individual labels equal to the gold, and the share
/// with no gold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationStats {
    /// Pairs (items) counted.
    pub pairs: usize,
    /// Share of pairs whose labels all agree, in [0, 1].
    pub unanimous: f64,
    /// Share of all individual labels equal to their pair's gold, in [0, 1] (labels of
    /// no-gold pairs count in the denominator only).
    pub individual_equals_gold: f64,
    /// Share of pairs with no gold (no label reaches `min_votes`, or a tie), in [0, 1].
    pub no_gold: f64,
    /// Pairs by number of labels agreeing with the gold (e.g. 5, 4, 3 of 5).
    pub by_agreement: std::collections::BTreeMap<usize, usize>,
}

/// [`ValidationStats`] of `items` (each the labels of one pair), gold by
/// [`majority`] with `min_votes`.
pub fn validation_stats(items: &[Vec<Label>], min_votes: usize) -> ValidationStats {
    let (mut unanimous, mut no_gold, mut equal, mut labels) = (0usize, 0usize, 0usize, 0usize);
    let mut by_agreement = std::collections::BTreeMap::new();
    for labs in items {
        let refs: Vec<&Label> = labs.iter().collect();
        labels += labs.len();
        if !labs.is_empty() && labs.iter().all(|l| l == &labs[0]) {
            unanimous += 1;
        }
        match majority(&refs, min_votes) {
            Some(g) => {
                let agree = labs.iter().filter(|l| **l == g).count();
                equal += agree;
                *by_agreement.entry(agree).or_insert(0) += 1;
            }
            None => no_gold += 1,
        }
    }
    let pairs = items.len();
    let share = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    ValidationStats {
        pairs,
        unanimous: share(unanimous, pairs),
        individual_equals_gold: share(equal, labels),
        no_gold: share(no_gold, pairs),
        by_agreement,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_python() {
        assert_eq!(round_half_even(3.25, 1), 3.2);
        assert_eq!(round_half_even(3.75, 1), 3.8);
        assert_eq!(round_half_even(2.6666666, 1), 2.7);
    }

    #[test]
    fn ties_have_no_gold() {
        let (a, b) = (Label::Text("a".into()), Label::Text("b".into()));
        assert_eq!(majority(&[&a, &a, &b, &b], 2), None);
        assert_eq!(majority(&[&a, &a, &b], 2), Some(a.clone()));
        assert_eq!(majority(&[&a, &b], 2), None);
    }
}
