//! Wawa (Worker Agreement with Aggregate), as crowd-kit 1.4.2's `Wawa`: the plain majority
//! (a tie to the first class), each worker's skill = the share of their answers equal to it,
//! then the majority weighted by those skills.

use super::Estimate;
use super::vote::{accuracy, weighted_vote};
use crate::dawid_skene::Responses;

/// Wawa's labels and the weighted share of each label.
pub fn wawa(r: &Responses) -> Estimate {
    let mv = weighted_vote(r, None);
    let skills = accuracy(r, &mv.labels);
    weighted_vote(r, Some(&skills))
}
