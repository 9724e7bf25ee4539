//! Dawid–Skene EM with full confusion matrices, and the one-coin variant, following
//! crowd-kit 1.4.2 step for step (initial posteriors from vote shares; E-step in base 2;
//! M-step entries clipped at 1e-10; stop when the per-response evidence lower bound rises
//! by less than `tol`), so the labels match crowd-kit's on the reference input.

use serde::{Deserialize, Serialize};

const EPS: f64 = 1e-10;

/// Responses as dense indices: (item, worker, class).
#[derive(Debug, Clone, Default)]
pub struct Responses {
    /// Number of items; item indices are below it.
    pub items: usize,
    /// Number of workers (annotators); worker indices are below it.
    pub workers: usize,
    /// Number of classes; class indices are below it.
    pub classes: usize,
    /// One row per answer: (item, worker, class).
    pub rows: Vec<(u32, u32, u16)>,
}

/// Which worker model EM fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// A full confusion matrix per worker (classes² parameters each).
    Full,
    /// One skill per worker: right with probability s, otherwise uniform over the other
    /// classes.
    OneCoin,
}

/// What EM converged to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// Arg max class per item (the first on an exact tie); `None` for an item without answers.
    pub labels: Vec<Option<usize>>,
    /// Posterior per item and class (clipped below at 1e-10, as crowd-kit reports them).
    pub probas: Vec<Vec<f64>>,
    /// Class priors, summing to 1.
    pub priors: Vec<f64>,
    /// EM iterations run.
    pub iterations: usize,
    /// Full model: `errors[w][k][c]` = P(w answers k | true class c).
    pub errors: Vec<Vec<Vec<f64>>>,
    /// One-coin model: skill per worker (empty for the full model).
    pub skills: Vec<f64>,
}

fn vote_shares(r: &Responses) -> Vec<f64> {
    let k = r.classes;
    let mut p = vec![0.0; r.items * k];
    let mut n = vec![0.0; r.items];
    for &(i, _, c) in &r.rows {
        p[i as usize * k + c as usize] += 1.0;
        n[i as usize] += 1.0;
    }
    for i in 0..r.items {
        if n[i] > 0.0 {
            for c in 0..k {
                p[i * k + c] /= n[i];
            }
        }
    }
    p
}

fn priors(p: &[f64], r: &Responses, answered: &[bool]) -> Vec<f64> {
    let k = r.classes;
    let mut pr = vec![0.0; k];
    let n = answered.iter().filter(|a| **a).count().max(1) as f64;
    for i in 0..r.items {
        if answered[i] {
            for c in 0..k {
                pr[c] += p[i * k + c];
            }
        }
    }
    pr.iter().map(|x| x / n).collect()
}

/// errors[(w*k + answer)*k + c]; `present[w*k + answer]` marks answers w gave.
fn m_step_full(p: &[f64], r: &Responses, present: &[bool]) -> Vec<f64> {
    let k = r.classes;
    let mut e = vec![0.0; r.workers * k * k];
    for &(i, w, a) in &r.rows {
        let base = (w as usize * k + a as usize) * k;
        for c in 0..k {
            e[base + c] += p[i as usize * k + c];
        }
    }
    for w in 0..r.workers {
        for a in 0..k {
            if present[w * k + a] {
                for c in 0..k {
                    let x = &mut e[(w * k + a) * k + c];
                    if *x < EPS {
                        *x = EPS;
                    }
                }
            }
        }
        for c in 0..k {
            let s: f64 = (0..k)
                .filter(|&a| present[w * k + a])
                .map(|a| e[(w * k + a) * k + c])
                .sum();
            if s > 0.0 {
                for a in 0..k {
                    if present[w * k + a] {
                        e[(w * k + a) * k + c] /= s;
                    }
                }
            }
        }
    }
    e
}

/// One-coin: skill = mean posterior of the answered class over w's answers.
fn m_step_one_coin(p: &[f64], r: &Responses) -> (Vec<f64>, Vec<f64>) {
    let k = r.classes;
    let mut s = vec![0.0; r.workers];
    let mut n = vec![0.0; r.workers];
    for &(i, w, a) in &r.rows {
        s[w as usize] += p[i as usize * k + a as usize];
        n[w as usize] += 1.0;
    }
    let skills: Vec<f64> = s
        .iter()
        .zip(&n)
        .map(|(s, n)| if *n > 0.0 { s / n } else { 0.0 })
        .collect();
    let mut e = vec![0.0; r.workers * k * k];
    for w in 0..r.workers {
        for a in 0..k {
            for c in 0..k {
                let v = if a == c {
                    skills[w]
                } else {
                    (1.0 - skills[w]) / (k as f64 - 1.0)
                };
                e[(w * k + a) * k + c] = v.clamp(EPS, 1.0 - EPS);
            }
        }
    }
    (skills, e)
}

fn e_step(r: &Responses, pr: &[f64], e: &[f64], answered: &[bool]) -> Vec<f64> {
    let k = r.classes;
    let mut lp = vec![0.0; r.items * k];
    let log_prior: Vec<f64> = pr.iter().map(|p| p.max(EPS).log2()).collect();
    // Each worker's confusion entries are logged once, not once per response.
    let log_e: Vec<f64> = e.iter().map(|x| x.log2()).collect();
    for &(i, w, a) in &r.rows {
        let base = (w as usize * k + a as usize) * k;
        for c in 0..k {
            lp[i as usize * k + c] += log_e[base + c];
        }
    }
    for i in 0..r.items {
        let row = &mut lp[i * k..(i + 1) * k];
        if !answered[i] {
            row.iter_mut().for_each(|x| *x = 0.0);
            continue;
        }
        for c in 0..k {
            row[c] += log_prior[c];
        }
        let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let mut s = 0.0;
        for x in row.iter_mut() {
            *x = (*x - mx).exp2();
            s += *x;
        }
        for x in row.iter_mut() {
            *x = (*x / s).max(EPS);
        }
    }
    lp
}

fn elbo(r: &Responses, p: &[f64], pr: &[f64], e: &[f64], answered: &[bool]) -> f64 {
    let k = r.classes;
    let log_prior: Vec<f64> = pr.iter().map(|x| x.max(EPS).ln()).collect();
    let ln_e: Vec<f64> = e.iter().map(|x| x.ln()).collect();
    let mut joint = 0.0;
    for &(i, w, a) in &r.rows {
        let base = (w as usize * k + a as usize) * k;
        for c in 0..k {
            joint += p[i as usize * k + c] * (ln_e[base + c] + log_prior[c]);
        }
    }
    let mut entropy = 0.0;
    for i in 0..r.items {
        if answered[i] {
            for c in 0..k {
                let q = p[i * k + c].max(EPS);
                entropy -= q * q.ln();
            }
        }
    }
    (joint + entropy) / r.rows.len().max(1) as f64
}

/// Fits the model; `tol = f64::NEG_INFINITY` runs exactly `n_iter` iterations.
pub fn fit(r: &Responses, model: Model, n_iter: usize, tol: f64) -> Fit {
    let k = r.classes;
    let mut answered = vec![false; r.items];
    let mut present = vec![false; r.workers * k];
    for &(i, w, a) in &r.rows {
        answered[i as usize] = true;
        present[w as usize * k + a as usize] = true;
    }
    let mut p = vote_shares(r);
    let mut pr = priors(&p, r, &answered);
    let (mut skills, mut e) = match model {
        Model::Full => (Vec::new(), m_step_full(&p, r, &present)),
        Model::OneCoin => m_step_one_coin(&p, r),
    };
    let mut loss = f64::NEG_INFINITY;
    let mut iterations = 0;
    for _ in 0..n_iter {
        iterations += 1;
        p = e_step(r, &pr, &e, &answered);
        pr = priors(&p, r, &answered);
        match model {
            Model::Full => e = m_step_full(&p, r, &present),
            Model::OneCoin => (skills, e) = m_step_one_coin(&p, r),
        }
        let new_loss = elbo(r, &p, &pr, &e, &answered);
        if new_loss - loss < tol {
            break;
        }
        loss = new_loss;
    }
    let probas: Vec<Vec<f64>> = (0..r.items)
        .map(|i| p[i * k..(i + 1) * k].to_vec())
        .collect();
    let labels = probas
        .iter()
        .enumerate()
        .map(|(i, row)| {
            answered[i].then(|| {
                let mut best = 0;
                for c in 1..k {
                    if row[c] > row[best] {
                        best = c;
                    }
                }
                best
            })
        })
        .collect();
    let errors = match model {
        Model::Full => (0..r.workers)
            .map(|w| {
                (0..k)
                    .map(|a| (0..k).map(|c| e[(w * k + a) * k + c]).collect())
                    .collect()
            })
            .collect(),
        Model::OneCoin => Vec::new(),
    };
    Fit {
        labels,
        probas,
        priors: pr,
        iterations,
        errors,
        skills,
    }
}
