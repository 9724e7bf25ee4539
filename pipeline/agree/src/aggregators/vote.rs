//! crowd-kit's `MajorityVote` with and without worker skills, and its `get_accuracy`: the
//! two steps Wawa and Zero-Based Skill are made of.
//!
//! Sums are in response order with Kahan compensation (pandas' grouped `sum`), so equal
//! weights give equal sums bit for bit as they do in crowd-kit; the normalised scores'
//! arg max is the first class on an exact tie (crowd-kit's `idxmax` over its sorted labels).

use super::{Estimate, first_max};
use crate::dawid_skene::Responses;

/// Per item, the share of the answers' weight each class got (all weights 1 when `skills`
/// is `None`), and its first arg max.
pub fn weighted_vote(r: &Responses, skills: Option<&[f64]>) -> Estimate {
    let k = r.classes;
    let mut sum = vec![0.0f64; r.items * k];
    let mut comp = vec![0.0f64; r.items * k];
    let mut answered = vec![false; r.items];
    for &(i, w, a) in &r.rows {
        let x = skills.map_or(1.0, |s| s[w as usize]);
        let at = i as usize * k + a as usize;
        let y = x - comp[at];
        let t = sum[at] + y;
        comp[at] = t - sum[at] - y;
        if comp[at].is_nan() {
            comp[at] = 0.0;
        }
        sum[at] = t;
        answered[i as usize] = true;
    }
    drop(comp);
    let mut labels = Vec::with_capacity(r.items);
    let mut confidence = Vec::with_capacity(r.items);
    for i in 0..r.items {
        let row = &mut sum[i * k..(i + 1) * k];
        let total: f64 = row.iter().sum();
        row.iter_mut().for_each(|x| *x /= total);
        let label = if answered[i] { first_max(row) } else { None };
        labels.push(label);
        confidence.push(label.map_or(0.0, |c| row[c]));
    }
    Estimate { labels, confidence }
}

/// Per worker, the share of their answers equal to `labels` of the item (answers to items
/// without a label do not count); NaN for a worker with no counted answer, as crowd-kit has
/// no skill for them.
pub fn accuracy(r: &Responses, labels: &[Option<usize>]) -> Vec<f64> {
    let mut hits = vec![0u64; r.workers];
    let mut n = vec![0u64; r.workers];
    for &(i, w, a) in &r.rows {
        if let Some(truth) = labels[i as usize] {
            n[w as usize] += 1;
            hits[w as usize] += u64::from(truth == a as usize);
        }
    }
    hits.iter()
        .zip(&n)
        .map(|(&h, &n)| {
            if n == 0 {
                f64::NAN
            } else {
                h as f64 / n as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn responses(rows: &[(u32, u32, u16)]) -> Responses {
        Responses {
            items: 2,
            workers: 3,
            classes: 3,
            rows: rows.to_vec(),
        }
    }

    #[test]
    fn a_tie_goes_to_the_first_class_and_weights_break_it() {
        let r = responses(&[(0, 0, 2), (0, 1, 1), (1, 0, 0), (1, 1, 0), (1, 2, 1)]);
        let mv = weighted_vote(&r, None);
        assert_eq!(mv.labels, vec![Some(1), Some(0)]);
        assert_eq!(mv.confidence, vec![0.5, 2.0 / 3.0]);
        let w = weighted_vote(&r, Some(&[0.9, 0.1, 0.5]));
        assert_eq!(w.labels, vec![Some(2), Some(0)]);
        assert_eq!(accuracy(&r, &mv.labels), vec![0.5, 1.0, 0.0]);
    }
}
