//! M-MSR (Ma and Olshevsky 2020), as crowd-kit 1.4.2's `MMSR`: the workers' covariance
//! matrix (agreement on shared items, rescaled so a random worker scores 0) is completed as
//! a rank-one matrix s·sᵀ by the robust alternating "mean-subsequence-reduced" iteration
//! (each entry the mean of its column's ratios after the F largest and F smallest are cut),
//! from crowd-kit's seeded start (numpy's `RandomState(0)` uniform draws, workers numbered by
//! first appearance in the rows); the signs of the skills come from the eigenvector of the
//! signed-graph walk matrix W + I of smallest eigenvalue ([`signs`]); the labels are the
//! majority weighted by log((classes - 1)·p / (1 - p)), p each worker's probability of a
//! right answer.
//!
//! crowd-kit takes that eigenvector from ARPACK with a random start; here it is the power
//! iteration on I − D^{-1/2}·A·D^{-1/2} (the same eigenvector: W is similar to that symmetric
//! matrix), over the graph held sparsely, so only the signs of the entries are used and
//! those do not depend on the start. The matrices are held as neighbour lists, not
//! workers × workers.

use super::Estimate;
use super::numpy_rng::Mt19937;
use super::vote::weighted_vote;
use crate::dawid_skene::Responses;

mod signs;

/// crowd-kit's parameters, defaults included.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Rounds of the iteration at most (crowd-kit `n_iter`, 10,000).
    pub n_iter: usize,
    /// It stops when the Frobenius norm of the change of u·vᵀ is below this (`tol`, 1e-10).
    pub tol: f64,
    /// Seed of the start (`random_state`, 0).
    pub seed: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            n_iter: 10_000,
            tol: 1e-10,
            seed: 0,
        }
    }
}

/// The workers' covariance, in crowd-kit's worker order.
pub(super) struct Covariance {
    /// Per worker, the other workers it shares an item with and their covariance entry.
    pub(super) nbrs: Vec<Vec<(usize, f64)>>,
    /// crowd-kit's `valid_idx`: workers whose row of the full matrix (unshared pairs and the
    /// diagonal at -1/(classes - 1)) does not sum to 0.
    pub(super) valid: Vec<bool>,
}

/// Workers numbered by first appearance in `r.rows` (crowd-kit's `pd.unique`): `order[k]`
/// is the Responses index of crowd-kit's worker k.
fn first_appearance(r: &Responses) -> Vec<usize> {
    let mut seen = vec![false; r.workers];
    let mut order = Vec::new();
    for &(_, w, _) in &r.rows {
        if !std::mem::replace(&mut seen[w as usize], true) {
            order.push(w as usize);
        }
    }
    order
}

/// The covariance of the workers (`rank[w]` = crowd-kit's number of Responses worker w).
fn covariance(r: &Responses, rank: &[usize], n: usize, classes: f64) -> Covariance {
    let mut by_item: Vec<Vec<(usize, u16)>> = vec![Vec::new(); r.items];
    for &(i, w, a) in &r.rows {
        by_item[i as usize].push((rank[w as usize], a));
    }
    let mut pairs: Vec<(usize, usize, bool)> = Vec::new();
    for answers in &by_item {
        for &(w1, a1) in answers {
            for &(w2, a2) in answers {
                if w1 != w2 {
                    pairs.push((w1, w2, a1 == a2));
                }
            }
        }
    }
    pairs.sort_unstable();
    let mut nbrs: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let off = -1.0 / (classes - 1.0);
    for run in pairs.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let equal = run.iter().filter(|p| p.2).count() as f64;
        let c = equal / run.len() as f64 * classes / (classes - 1.0) + off;
        nbrs[run[0].0].push((run[0].1, c));
    }
    let valid = nbrs
        .iter()
        .map(|row| {
            let unshared = (n - row.len()) as f64;
            row.iter().map(|e| e.1).sum::<f64>() + unshared * off != 0.0
        })
        .collect();
    Covariance { nbrs, valid }
}

/// crowd-kit's `_remove_largest_and_smallest_F_value`: `x` without its `f` smallest and `f`
/// largest values, keeping those on the current value's side when fewer than `f` lie
/// beyond it (Python's slices for f = -1: only the largest value is kept).
fn trim(mut x: Vec<f64>, f: i64, a: f64, n_tasks: f64) -> Vec<f64> {
    x.sort_by(f64::total_cmp);
    let below = x.iter().filter(|&&v| v < a).count() as i64;
    let mut y: Vec<f64> = if below < f {
        x.into_iter().filter(|&v| v >= a).collect()
    } else {
        let start = if f < 0 {
            (x.len() as i64 + f).max(0)
        } else {
            f
        };
        x.split_off(start as usize)
    };
    let m = y.len() as i64;
    let above = y.iter().filter(|&&v| v > a).count() as i64;
    if above < f {
        y.retain(|&v| v <= a);
    } else {
        y.truncate((m - f).min(m) as usize);
    }
    if y.len() == 1 && y[0] == 0.0 {
        y[0] = 1.0 / n_tasks.sqrt();
    }
    y
}

/// One half-round: each entry of `out` the trimmed mean of its column's ratios to `by`.
fn half_round(cov: &Covariance, by: &[f64], out: &mut [f64], f: i64, n_tasks: f64) {
    for (j, row) in cov.nbrs.iter().enumerate() {
        let target = row.iter().map(|&(i, x)| x.abs() / by[i]).collect();
        let y = trim(target, f, out[j], n_tasks);
        if !y.is_empty() {
            out[j] = y.iter().sum::<f64>() / y.len() as f64;
        }
    }
}

/// ‖u·vᵀ − u₀·v₀ᵀ‖_F from the changes (no cancellation between the two products).
fn change(u: &[f64], v: &[f64], u0: &[f64], v0: &[f64]) -> f64 {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let du: Vec<f64> = u.iter().zip(u0).map(|(a, b)| a - b).collect();
    let dv: Vec<f64> = v.iter().zip(v0).map(|(a, b)| a - b).collect();
    let sq =
        dot(&du, &du) * dot(v, v) + dot(u0, u0) * dot(&dv, &dv) + 2.0 * dot(&du, u0) * dot(v, &dv);
    sq.max(0.0).sqrt()
}

/// The rank-one factor u (scaled to the norm of √(u·vᵀ)) of the covariance's absolute values.
fn m_msr(cov: &Covariance, s: &Settings, n_tasks: f64) -> Vec<f64> {
    let n = cov.nbrs.len();
    let sparsity = cov.nbrs.iter().map(Vec::len).min().unwrap_or(0) as i64;
    let f = sparsity / 2 - 1;
    let mut rng = Mt19937::new(s.seed);
    let mut u: Vec<f64> = (0..n).map(|_| rng.next_f64()).collect();
    let mut v = u.clone();
    for _ in 0..s.n_iter {
        let (u0, v0) = (u.clone(), v.clone());
        half_round(cov, &u, &mut v, f, n_tasks);
        half_round(cov, &v, &mut u, f, n_tasks);
        if change(&u, &v, &u0, &v0) < s.tol {
            break;
        }
    }
    let norm = |a: &[f64]| a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let k = (norm(&u) / norm(&v)).sqrt();
    u.iter().map(|x| x / k).collect()
}

/// M-MSR's labels and the weighted share of each.
pub fn mmsr(r: &Responses, s: &Settings) -> Estimate {
    let order = first_appearance(r);
    let mut present = vec![false; r.classes];
    for &(_, _, a) in &r.rows {
        present[a as usize] = true;
    }
    let classes = present.iter().filter(|&&p| p).count();
    if classes < 2 {
        // One class (or none): the covariance is undefined and every vote is that class.
        return weighted_vote(r, None);
    }
    let k = classes as f64;
    let mut rank = vec![0; r.workers];
    for (c, &w) in order.iter().enumerate() {
        rank[w] = c;
    }
    let n_tasks = {
        let mut answered = vec![false; r.items];
        r.rows
            .iter()
            .for_each(|&(i, _, _)| answered[i as usize] = true);
        answered.iter().filter(|&&a| a).count() as f64
    };
    let cov = covariance(r, &rank, order.len(), k);
    let x = signs::signed(&cov, &m_msr(&cov, s, n_tasks));
    let (hi, lo) = (
        1.0 - 1.0 / n_tasks.sqrt(),
        -1.0 / (k - 1.0) + 1.0 / n_tasks.sqrt(),
    );
    let mut skills = vec![0.0; r.workers];
    for (c, &w) in order.iter().enumerate() {
        let p = x[c].min(hi).max(lo) * (k - 1.0) / k + 1.0 / k;
        skills[w] = (p * (k - 1.0) / (1.0 - p)).ln();
    }
    weighted_vote(r, Some(&skills))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's slices: with f = -1 only the largest value is left; with f = 1 the smallest
    /// and largest go; with fewer than f values below the current one, those below stay out.
    #[test]
    fn trim_cuts_as_crowd_kit_does() {
        assert_eq!(trim(vec![3.0, 1.0, 2.0], -1, 2.0, 4.0), vec![3.0]);
        assert_eq!(trim(vec![4.0, 1.0, 3.0, 2.0], 1, 2.5, 4.0), vec![2.0, 3.0]);
        assert_eq!(trim(vec![4.0, 1.0, 3.0, 2.0], 2, 1.5, 4.0), vec![2.0]);
        assert_eq!(trim(vec![0.0], 0, 1.0, 4.0), vec![0.5]);
    }

    /// Five workers right 90% of the time and one who always gives the other class: M-MSR
    /// reads the contrarian backwards (negative skill), and on the item it shares with one
    /// good worker the skills' sum is negative, so crowd-kit's normalised scores (divided by
    /// that sum) put the contrarian's own answer first. crowd-kit 1.4.2 `MMSR()` on the same
    /// rows gives the same labels and the score 4.333568 on that item.
    #[test]
    fn a_contrarian_is_read_backwards_and_a_negative_total_flips_the_scores() {
        let mut rows = Vec::new();
        for i in 0..60u32 {
            let t = (i % 2) as u16;
            for w in 0..5u32 {
                let wrong = (i * 7 + w * 3) % 10 == 0;
                rows.push((i, w, if wrong { 1 - t } else { t }));
            }
            rows.push((i, 5, 1 - t));
        }
        rows.extend([(60, 5, 1), (60, 0, 0)]);
        let r = Responses {
            items: 61,
            workers: 6,
            classes: 2,
            rows,
        };
        let e = mmsr(&r, &Settings::default());
        assert_eq!(e.labels[..2], [Some(0), Some(1)]);
        assert_eq!(e.labels[60], Some(1));
        assert!(
            (e.confidence[60] - 4.333_568).abs() < 1e-6,
            "{}",
            e.confidence[60]
        );
    }
}
