//! MACE (Hovy et al. 2013, "Learning Whom to Trust with MACE"), variational Bayes, as
//! crowd-kit 1.4.2's `MACE()` computes it, so the labels are crowd-kit's:
//!
//! - Workers and labels are numbered in first-seen order of the responses (pandas'
//!   `factorize`); a worker's spamming and strategy parameters start from numpy's
//!   `RandomState(0)` uniform draws on [1, 2.5), normalised per row. crowd-kit's 10 restarts
//!   all reseed with 0, so they are one run repeated: it is run once.
//! - Each of the 50 iterations is a variational M-step (digamma normalisation, priors 0.5,
//!   0.5 on spamming and 10 on each label) and an E-step (products over an item's responses
//!   in response order; sums per worker with pandas' compensated summation).
//! - crowd-kit's M-step takes the expected label counts in sorted worker × sorted label order
//!   and its E-step reads them by first-seen numbers; this keeps that pairing, so its output
//!   is crowd-kit's. crowd-kit's labels therefore depend on the order of the input rows; they
//!   equal these when the rows come as kcurate holds them (items in first-seen order, each
//!   item's answers by annotator).
//! - The label is the first-seen label with the largest posterior (crowd-kit's `idxmax` over
//!   labels in first-seen order).

use super::numpy_rng::{Mt19937, digamma};
use super::{Estimate, first_max};
use crate::dawid_skene::Responses;

/// crowd-kit's parameters of the VB method, defaults included.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Iterations (crowd-kit `n_iter`, 50).
    pub n_iter: usize,
    /// The start draws lie in [1, 2 + default_noise) (0.5).
    pub default_noise: f64,
    /// Beta prior on not spamming (`alpha`, 0.5).
    pub alpha: f64,
    /// Beta prior on spamming (`beta`, 0.5).
    pub beta: f64,
    /// Seed of the start draws (`random_state`, 0).
    pub seed: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            n_iter: 50,
            default_noise: 0.5,
            alpha: 0.5,
            beta: 0.5,
            seed: 0,
        }
    }
}

/// Dirichlet prior of a worker's strategy over labels (crowd-kit's fixed 10).
const STRATEGY_PRIOR: f64 = 10.0;

/// pandas' grouped `sum`: Kahan-compensated, in row order.
#[derive(Clone, Copy, Default)]
struct Kahan {
    sum: f64,
    comp: f64,
}

impl Kahan {
    fn add(&mut self, x: f64) {
        let y = x - self.comp;
        let t = self.sum + y;
        self.comp = t - self.sum - y;
        if self.comp.is_nan() {
            self.comp = 0.0;
        }
        self.sum = t;
    }
}

/// One response with both numberings: `wf`, `lf` first-seen, `w`, `l` sorted (kcurate's
/// order, counting only workers and labels that answer or are answered).
struct Row {
    item: usize,
    wf: usize,
    lf: usize,
    w: usize,
    l: usize,
}

/// The responses renumbered; the sorted class of each first-seen label number; the number
/// of workers that answer.
struct Numbering {
    rows: Vec<Row>,
    class_of: Vec<usize>,
    workers: usize,
}

/// Rank of each index among the present ones (`usize::MAX` for an absent one).
fn present_rank(present: &[bool]) -> Vec<usize> {
    let mut n = 0;
    present
        .iter()
        .map(|&p| {
            n += usize::from(p);
            if p { n - 1 } else { usize::MAX }
        })
        .collect()
}

fn numbering(r: &Responses) -> Numbering {
    let (mut wcode, mut lcode) = (vec![usize::MAX; r.workers], vec![usize::MAX; r.classes]);
    let (mut workers, mut class_of) = (0, Vec::new());
    for &(_, w, l) in &r.rows {
        let (w, l) = (w as usize, l as usize);
        if wcode[w] == usize::MAX {
            (wcode[w], workers) = (workers, workers + 1);
        }
        if lcode[l] == usize::MAX {
            lcode[l] = class_of.len();
            class_of.push(l);
        }
    }
    let wrank = present_rank(&wcode.iter().map(|&c| c != usize::MAX).collect::<Vec<_>>());
    let lrank = present_rank(&lcode.iter().map(|&c| c != usize::MAX).collect::<Vec<_>>());
    let rows = r
        .rows
        .iter()
        .map(|&(i, w, l)| Row {
            item: i as usize,
            wf: wcode[w as usize],
            lf: lcode[l as usize],
            w: wrank[w as usize],
            l: lrank[l as usize],
        })
        .collect();
    Numbering {
        rows,
        class_of,
        workers,
    }
}

/// Workers' parameters: `spam[f]` = (knowing, spamming) by first-seen number; `theta` a
/// workers × labels table read as `theta[wf * k + lf]` (see the module doc).
struct Params {
    spam: Vec<[f64; 2]>,
    theta: Vec<f64>,
}

fn start(workers: usize, k: usize, s: &Settings) -> Params {
    let draw = |n: usize| {
        let mut rng = Mt19937::new(s.seed);
        (0..n)
            .map(|_| rng.next_f64() * (1.0 + s.default_noise) + 1.0)
            .collect::<Vec<f64>>()
    };
    let spam = draw(workers * 2)
        .chunks(2)
        .map(|p| {
            let t = p[0] + p[1];
            [p[0] / t, p[1] / t]
        })
        .collect();
    let mut theta = draw(workers * k);
    for row in theta.chunks_mut(k) {
        let t: f64 = row.iter().sum();
        row.iter_mut().for_each(|x| *x /= t);
    }
    Params { spam, theta }
}

/// What an E-step yields: per item the label marginals (first-seen label order) and their
/// sum; per worker the expected counts.
struct Expected {
    gold: Vec<f64>,
    instance: Vec<f64>,
    /// Sorted worker × sorted label.
    strategy: Vec<Kahan>,
    /// By first-seen worker number: (knowing, spamming).
    knowing: Vec<[Kahan; 2]>,
}

fn e_step(rows: &[Row], items: usize, workers: usize, k: usize, p: &Params) -> Expected {
    let mut gold = vec![1.0f64; items * k];
    for r in rows {
        let [s0, s1] = p.spam[r.wf];
        let th = p.theta[r.wf * k + r.lf];
        for l in 0..k {
            gold[r.item * k + l] *= s0 * th + s1 * f64::from(u8::from(l == r.lf));
        }
    }
    gold.iter_mut().for_each(|g| *g /= k as f64);
    let instance: Vec<f64> = gold.chunks(k).map(|g| g.iter().sum()).collect();
    let mut strategy = vec![Kahan::default(); workers * k];
    let mut knowing = vec![[Kahan::default(); 2]; workers];
    for r in rows {
        let [s0, s1] = p.spam[r.wf];
        let th = p.theta[r.wf * k + r.lf];
        let g = &gold[r.item * k..(r.item + 1) * k];
        let mut sm = 0.0;
        for (l, gl) in g.iter().enumerate() {
            sm += gl / (s0 * th + s1 * f64::from(u8::from(l == r.lf)));
        }
        let sm = sm * s0 * th / instance[r.item];
        strategy[r.w * k + r.l].add(sm);
        knowing[r.wf][0].add(sm);
        knowing[r.wf][1].add(g[r.lf] * s1 / (s0 * th + s1) / instance[r.item]);
    }
    Expected {
        gold,
        instance,
        strategy,
        knowing,
    }
}

/// crowd-kit's `variational_normalize` of one row: exp ψ(x + prior) / exp ψ(Σ (x + prior)).
fn variational_row(x: impl Iterator<Item = f64> + Clone, prior: &[f64], out: &mut [f64]) {
    let norm: f64 = x.clone().zip(prior).map(|(x, h)| x + h).sum();
    let norm = digamma(norm).exp();
    for ((o, x), h) in out.iter_mut().zip(x).zip(prior) {
        *o = digamma(x + h).exp() / norm;
    }
}

fn m_step(e: &Expected, k: usize, s: &Settings, p: &mut Params) {
    let priors = [s.alpha, s.beta];
    for (spam, kn) in p.spam.iter_mut().zip(&e.knowing) {
        variational_row(kn.iter().map(|c| c.sum), &priors, spam);
    }
    let strategy_prior = vec![STRATEGY_PRIOR; k];
    for (row, counts) in p.theta.chunks_mut(k).zip(e.strategy.chunks(k)) {
        variational_row(counts.iter().map(|c| c.sum), &strategy_prior, row);
    }
}

/// MACE's labels and their posterior.
pub fn mace(r: &Responses, s: &Settings) -> Estimate {
    let Numbering {
        rows,
        class_of,
        workers,
    } = numbering(r);
    let k = class_of.len();
    let mut labels = vec![None; r.items];
    let mut confidence = vec![0.0; r.items];
    if k == 0 {
        return Estimate { labels, confidence };
    }
    let mut p = start(workers, k, s);
    let mut e = e_step(&rows, r.items, workers, k, &p);
    for _ in 0..s.n_iter {
        m_step(&e, k, s, &mut p);
        e = e_step(&rows, r.items, workers, k, &p);
    }
    let mut answered = vec![false; r.items];
    rows.iter().for_each(|row| answered[row.item] = true);
    let mut probas = vec![0.0; k];
    for (i, g) in e.gold.chunks(k).enumerate() {
        if !answered[i] {
            continue;
        }
        for (p, x) in probas.iter_mut().zip(g) {
            *p = x / e.instance[i];
        }
        if let Some(f) = first_max(&probas) {
            labels[i] = Some(class_of[f]);
            confidence[i] = probas[f];
        }
    }
    Estimate { labels, confidence }
}
