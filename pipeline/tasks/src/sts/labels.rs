//! KLUE STS labels from annotator scores, as the public KLUE STS release writes them:
//! `real-label` = the mean of the kept annotators' 0–5 scores written with 16 significant
//! digits (C's `%.16g`: the public file has 3.714285714285714 for 26/7, whose shortest f64
//! form is 3.7142857142857144; `%.16g` reproduces all 141 records of the dev subset in
//! ../shared, the plain f64 mean only 93), `label` = that mean rounded
//! to one decimal (ties to even on the exact binary value, like Python's `round`),
//! `binary-label` = 1 when `label` ≥ 3.0, and `agreement` = how many annotators gave each
//! integer score 0..5 (`"0:0:0:2:5:0"`). Also the score bins of the uniform dev/test and
//! KLUE's "larger than 2 standard deviation" pair filter (§3.2).

use kcurate_agree::aggregate::mean_score;

/// The three label fields of one pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlueLabels {
    /// The mean rounded half to even to `decimals` (KLUE: one decimal), in [0, 5].
    pub label: f64,
    /// The mean as written with 16 significant digits.
    pub real_label: f64,
    /// 1 when `label` ≥ the binary threshold (KLUE: 3.0), else 0.
    pub binary: u8,
}

/// Labels from the kept annotators' scores; None when there is no score.
pub fn klue_labels(scores: &[f64], decimals: usize, binary_at: f64) -> Option<KlueLabels> {
    let m = mean_score(scores, decimals);
    let (label, real_label) = (m.label?, m.real_label?);
    Some(KlueLabels {
        label,
        real_label: sig16(real_label),
        binary: u8::from(label >= binary_at),
    })
}

/// `x` rounded to 16 significant digits (`%.16g`), as an f64.
pub fn sig16(x: f64) -> f64 {
    format!("{x:.15e}").parse().unwrap_or(x)
}

/// `"n0:n1:n2:n3:n4:n5"`: annotators per integer score (scores are clamped to 0..=5 and
/// truncated, so an imported 3.5 counts as 3).
pub fn agreement(scores: &[f64]) -> String {
    let mut counts = [0u32; 6];
    for s in scores {
        counts[(s.max(0.0) as usize).min(5)] += 1;
    }
    counts
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(":")
}

/// Number of `width`-wide bins covering 0–5.
pub fn bins(width: f64) -> usize {
    ((5.0 / width).ceil() as usize).max(1)
}

/// The bin of a label: `floor(label / width)`, with 5.0 in the last bin (4.5–5.0 for 0.5).
pub fn bin_of(label: f64, width: f64) -> usize {
    ((label / width).floor().max(0.0) as usize).min(bins(width) - 1)
}

/// The sample standard deviation of one pair's scores (0 for fewer than two).
pub fn score_sd(scores: &[f64]) -> f64 {
    kcurate_agree::aggregate::variance(scores).map_or(0.0, f64::sqrt)
}

/// KLUE's outlier filter ("pairs whose annotations are showing larger than 2 standard
/// deviation"), read as: pairs whose score SD lies more than `k` standard deviations above
/// the mean score SD over all pairs. One-sided: unanimous pairs are never outliers.
/// Returns the indices to drop, ascending.
pub fn sd_outliers(sds: &[f64], k: f64) -> Vec<usize> {
    if sds.len() < 2 {
        return Vec::new();
    }
    let n = sds.len() as f64;
    let m = sds.iter().sum::<f64>() / n;
    let s = (sds.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt();
    sds.iter()
        .enumerate()
        .filter(|(_, x)| **x - m > k * s)
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn klue_example_record() {
        // klue-sts-v1_dev_00003: [4,4,3,4,4,3,4] → 3.7 / 3.714285714285714 / 1, "0:0:0:2:5:0".
        let s = [4.0, 4.0, 3.0, 4.0, 4.0, 3.0, 4.0];
        let l = klue_labels(&s, 1, 3.0).expect("scores");
        assert_eq!(l.label, 3.7);
        assert_eq!(l.real_label, 3.714285714285714);
        assert_eq!(l.binary, 1);
        assert_eq!(agreement(&s), "0:0:0:2:5:0");
        assert_eq!(sig16(17.0 / 6.0), 2.833333333333333);
        assert_eq!(sig16(1.0 / 6.0), 0.1666666666666667);
        assert_eq!(klue_labels(&[], 1, 3.0), None);
        assert_eq!(klue_labels(&[3.0, 2.0], 1, 3.0).expect("scores").binary, 0);
    }

    #[test]
    fn bins_and_outliers() {
        assert_eq!(bins(0.5), 10);
        assert_eq!(bin_of(0.0, 0.5), 0);
        assert_eq!(bin_of(0.49, 0.5), 0);
        assert_eq!(bin_of(0.5, 0.5), 1);
        assert_eq!(bin_of(5.0, 0.5), 9);
        assert_eq!(bin_of(4.6, 1.0), 4);
        let mut sds = vec![0.5; 20];
        sds.push(2.5);
        sds.push(0.0);
        assert_eq!(sd_outliers(&sds, 2.0), vec![20]);
        assert!(sd_outliers(&[1.0], 2.0).is_empty());
    }
}
