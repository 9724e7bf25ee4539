//! Gold Majority Vote, as crowd-kit 1.4.2's `GoldMajorityVote`: each worker's skill is the
//! share of their answers equal to the known (gold) label on the items that have one; the
//! labels are the majority weighted by those skills (crowd-kit's `MajorityVote` with skills:
//! sums in row order, an exact tie to the first class).
//!
//! crowd-kit refuses a worker with no answer on a gold item (its `MajorityVote` has no skill
//! for them); so does [`gold_majority`], naming them.

use super::Estimate;
use super::vote::{accuracy, weighted_vote};
use crate::dawid_skene::Responses;
use crate::label::Label;
use crate::table::Table;
use std::collections::BTreeMap;

/// A gold label that is none of the responses' classes: no answer equals it.
pub const UNSEEN: usize = usize::MAX;

/// Workers with no answer on an item with a gold label.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} annotator(s) answered no item with a gold label", workers.len())]
pub struct NoGoldAnswers {
    /// The workers' indices, ascending.
    pub workers: Vec<usize>,
}

/// Gold Majority Vote's labels of `r` and the weighted share of each, `gold[i]` the class of
/// item i's gold label ([`UNSEEN`] for a label no one gave; `None`: no gold label).
pub fn gold_majority(r: &Responses, gold: &[Option<usize>]) -> Result<Estimate, NoGoldAnswers> {
    let skills = accuracy(r, gold);
    let mut answered = vec![false; r.workers];
    r.rows
        .iter()
        .for_each(|&(_, w, _)| answered[w as usize] = true);
    let workers: Vec<usize> = (0..r.workers)
        .filter(|&w| answered[w] && skills[w].is_nan())
        .collect();
    if !workers.is_empty() {
        return Err(NoGoldAnswers { workers });
    }
    Ok(weighted_vote(r, Some(&skills)))
}

/// Per item of `t`, the class (value index) of its label in `gold` (item id -> gold label;
/// [`UNSEEN`] for a label none of `t`'s annotators gave, `None` for an item without one),
/// and how many gold items `t` does not hold (they weigh nothing, as in crowd-kit).
pub fn gold_classes(t: &Table, gold: &BTreeMap<String, Label>) -> (Vec<Option<usize>>, usize) {
    let mut found = 0;
    let classes = t
        .items
        .iter()
        .map(|id| {
            gold.get(id).map(|label| {
                found += 1;
                t.values.binary_search(label).unwrap_or(UNSEEN)
            })
        })
        .collect();
    (classes, gold.len() - found)
}

/// [`gold_majority`] on a table's annotations, `gold` as [`gold_classes`] gives it.
pub fn gold_majority_table(t: &Table, gold: &[Option<usize>]) -> Result<Estimate, NoGoldAnswers> {
    gold_majority(&crate::report::responses(t), gold)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worker 0 matches both gold labels, worker 1 neither, worker 2 one of two: on the
    /// item without gold worker 1's answer weighs nothing; a worker without gold answers is
    /// named.
    #[test]
    fn skills_come_from_the_gold_items_only() {
        let mut r = Responses {
            items: 3,
            workers: 3,
            classes: 2,
            rows: vec![
                (0, 0, 0),
                (0, 1, 1),
                (0, 2, 0),
                (1, 0, 1),
                (1, 1, 0),
                (1, 2, 0),
                (2, 0, 0),
                (2, 1, 1),
                (2, 2, 1),
            ],
        };
        let e = gold_majority(&r, &[Some(0), Some(1), None]).unwrap();
        assert_eq!(e.labels, vec![Some(0), Some(1), Some(0)]);
        assert!((e.confidence[2] - 1.0 / 1.5).abs() < 1e-15);
        let unseen = gold_majority(&r, &[Some(UNSEEN), Some(1), None]).unwrap();
        assert_eq!(unseen.labels[2], Some(0));
        r.rows.push((2, 3, 1));
        r.workers = 4;
        let err = gold_majority(&r, &[Some(0), Some(1), None]).unwrap_err();
        assert_eq!(err.workers, vec![3]);
    }
}
