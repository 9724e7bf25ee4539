//! GLAD (Whitehill et al. 2009), as crowd-kit 1.4.2's `GLAD`: each worker has an ability
//! α (prior N(1, 1)), each item a difficulty β (prior N(1, 1)), and a worker answers an
//! item correctly with probability σ(α·e^β), otherwise uniformly one of the other classes.
//! EM from α = β = 1 and a uniform class prior: the E-step gives each item's posterior; the
//! M-step maximises the expected log-likelihood plus the log-priors over (α, β) by at most
//! `m_step_max_iter` Polak–Ribière conjugate-gradient steps (scipy's `minimize(method="CG")`
//! stops when the largest gradient entry is below `m_step_tol`; so does this). EM stops when
//! the objective per melted row (answers × classes) rises by less than `tol`, or after
//! `n_iter` rounds; the labels are the posteriors of the last E-step, as crowd-kit's are.
//!
//! crowd-kit's M-step stops at 25 steps long before the gradient tolerance, so where EM ends
//! depends on the optimiser's path: [`cg`] follows scipy's (its line search is MINPACK's
//! `dcsrch` as scipy ports it), but sums in another order, and the posteriors differ from
//! crowd-kit's in the last digits (the labels on the 1,000-item fixture are identical).

use super::{Estimate, first_max};
use crate::dawid_skene::Responses;

mod cg;
mod dcsrch;

/// crowd-kit's parameters, defaults included.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// EM rounds at most (crowd-kit `n_iter`, 100).
    pub n_iter: usize,
    /// EM stops when the objective per melted row rises by less than this (`tol`, 1e-5).
    pub tol: f64,
    /// Conjugate-gradient steps per M-step at most (`m_step_max_iter`, 25).
    pub m_step_max_iter: usize,
    /// An M-step stops when no gradient entry exceeds this in magnitude (`m_step_tol`, 1e-2).
    pub m_step_tol: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            n_iter: 100,
            tol: 1e-5,
            m_step_max_iter: 25,
            m_step_tol: 1e-2,
        }
    }
}

/// ln √(2π): the log of the standard normal density is -x²/2 minus this.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// crowd-kit's `_softplus`: ln(1 + eˣ), taken as x above 30 and as 0 below -30.
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else if x < -30.0 {
        0.0
    } else {
        x.exp().ln_1p()
    }
}

/// The M-step's objective for fixed posteriors: `q[row]` is the posterior of the row's own
/// answer (the melted rows of the other classes weigh 1 - q together, since an item's
/// posteriors sum to 1).
pub(super) struct Objective<'a> {
    r: &'a Responses,
    q: Vec<f64>,
    /// ln(classes - 1): a wrong answer is one of the other classes, uniformly.
    log_others: f64,
}

impl Objective<'_> {
    /// -Q and its gradient `g` at `x` = (α per worker, β per item).
    pub(super) fn eval(&self, x: &[f64], g: &mut [f64]) -> f64 {
        let nw = self.r.workers;
        let (alpha, beta) = x.split_at(nw);
        let exp_beta: Vec<f64> = beta.iter().map(|b| b.exp()).collect();
        g.fill(0.0);
        let mut q = 0.0;
        for (&(i, w, _), &p) in self.r.rows.iter().zip(&self.q) {
            let (i, w) = (i as usize, w as usize);
            let eb = exp_beta[i];
            let z = alpha[w] * eb;
            let log_sigma = -softplus(-z);
            q += p * log_sigma + (1.0 - p) * (-softplus(z) - self.log_others);
            let d = p - 1.0 / (1.0 + (-z).exp());
            g[w] -= d * eb;
            g[nw + i] -= d * alpha[w] * eb;
        }
        for (v, gv) in x.iter().zip(g.iter_mut()) {
            let d = v - 1.0;
            q -= 0.5 * d * d + LN_SQRT_2PI;
            *gv += d;
        }
        -q
    }
}

/// Posterior per item and class (row-major) at `x`, with a uniform class prior.
fn e_step(r: &Responses, x: &[f64], log_others: f64) -> Vec<f64> {
    let k = r.classes;
    let (alpha, beta) = x.split_at(r.workers);
    let mut lp = vec![-(k as f64).ln(); r.items * k];
    for &(i, w, a) in &r.rows {
        let z = alpha[w as usize] * beta[i as usize].exp();
        let wrong = -softplus(z) - log_others;
        let row = &mut lp[i as usize * k..(i as usize + 1) * k];
        for (c, v) in row.iter_mut().enumerate() {
            *v += if c == a as usize {
                -softplus(-z)
            } else {
                wrong
            };
        }
    }
    for row in lp.chunks_mut(k) {
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        let lse = m + s.ln();
        row.iter_mut().for_each(|v| *v = (*v - lse).exp());
    }
    lp
}

fn objective<'a>(r: &'a Responses, probas: &[f64], log_others: f64) -> Objective<'a> {
    let k = r.classes;
    let q = r
        .rows
        .iter()
        .map(|&(i, _, a)| probas[i as usize * k + a as usize])
        .collect();
    Objective { r, q, log_others }
}

/// GLAD's labels and the posterior of each.
pub fn glad(r: &Responses, s: &Settings) -> Estimate {
    let mut answered = vec![false; r.items];
    for &(i, _, _) in &r.rows {
        answered[i as usize] = true;
    }
    if r.classes < 2 {
        // One class: every answered item has it, and GLAD's wrong-answer term is undefined.
        return Estimate {
            labels: answered.iter().map(|&a| a.then_some(0)).collect(),
            confidence: answered
                .iter()
                .map(|&a| if a { 1.0 } else { 0.0 })
                .collect(),
        };
    }
    let log_others = ((r.classes - 1) as f64).ln();
    let melted = (r.rows.len() * r.classes).max(1) as f64;
    let mut x = vec![1.0; r.workers + r.items];
    let mut grad = vec![0.0; x.len()];
    let mut probas = e_step(r, &x, log_others);
    // crowd-kit compares its first per-row objective with the whole (not per-row) one, so
    // the first round never stops EM.
    let mut q = -objective(r, &probas, log_others).eval(&x, &mut grad);
    for _ in 0..s.n_iter {
        let last = q;
        probas = e_step(r, &x, log_others);
        let obj = objective(r, &probas, log_others);
        x = cg::minimize(&obj, x, s.m_step_max_iter, s.m_step_tol);
        q = -obj.eval(&x, &mut grad) / melted;
        if q - last < s.tol {
            break;
        }
    }
    let k = r.classes;
    let mut labels = Vec::with_capacity(r.items);
    let mut confidence = Vec::with_capacity(r.items);
    for (i, row) in probas.chunks(k).enumerate() {
        let label = if answered[i] { first_max(row) } else { None };
        labels.push(label);
        confidence.push(label.map_or(0.0, |c| row[c]));
    }
    Estimate { labels, confidence }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn responses(rows: &[(u32, u32, u16)], items: usize, workers: usize) -> Responses {
        Responses {
            items,
            workers,
            classes: 2,
            rows: rows.to_vec(),
        }
    }

    /// Worker 2 disagrees with workers 0 and 1 on every item they share, so GLAD gives it a
    /// low ability: on the last item, where only worker 2 and worker 0 answer, worker 0 wins.
    #[test]
    fn an_unreliable_worker_loses_a_two_way_tie() {
        let mut rows = Vec::new();
        for i in 0..6u32 {
            let truth = (i % 2) as u16;
            rows.extend([(i, 0, truth), (i, 1, truth), (i, 2, 1 - truth)]);
        }
        rows.extend([(6, 0, 0), (6, 2, 1)]);
        let e = glad(&responses(&rows, 8, 3), &Settings::default());
        assert_eq!(e.labels[..7], [0, 1, 0, 1, 0, 1, 0].map(Some));
        assert_eq!(e.labels[7], None, "an item without answers has no label");
        assert!(e.confidence[6] > 0.5 && e.confidence[6] < 1.0);
    }

    /// The gradient [`Objective::eval`] returns is the derivative of its value (central
    /// differences), so the conjugate-gradient M-step climbs the objective crowd-kit defines.
    #[test]
    fn the_gradient_is_the_objectives_derivative() {
        let rows = [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 1), (2, 1, 0)];
        let r = responses(&rows, 3, 2);
        let obj = Objective {
            r: &r,
            q: vec![0.7, 0.2, 0.9, 0.6, 0.4],
            log_others: 0.0,
        };
        let x = [0.3, 1.7, -0.4, 0.8, 1.2];
        let mut g = [0.0; 5];
        obj.eval(&x, &mut g);
        for j in 0..x.len() {
            let h = 1e-6;
            let (mut up, mut down) = (x, x);
            up[j] += h;
            down[j] -= h;
            let mut scratch = [0.0; 5];
            let numeric = (obj.eval(&up, &mut scratch) - obj.eval(&down, &mut scratch)) / (2.0 * h);
            assert!(
                (numeric - g[j]).abs() < 1e-6,
                "entry {j}: {numeric} vs {}",
                g[j]
            );
        }
    }
}
