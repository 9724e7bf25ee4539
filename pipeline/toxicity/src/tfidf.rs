//! Exact-vocabulary tf-idf features and a full-batch L2 logistic regression solved by
//! L-BFGS: scikit-learn's `TfidfVectorizer` + `LogisticRegression(C=…, class_weight=…)`,
//! the baseline the toxicity issue measures against.
//!
//! Features ([`Vocab`]): the n-grams of `analyzer` (`char_wb`: each whitespace-separated
//! word padded with one space either side, n-grams within it; `char`: the padded text),
//! lowercased, plus word n-grams when asked (tokens of ≥ 2 word characters, like
//! scikit-learn's default token pattern). The vocabulary is every n-gram of the training
//! texts, sorted; idf = ln((1 + n) / (1 + df)) + 1 (smooth idf); tf is the raw count (or
//! 1 + ln count, `sublinear_tf`); each block (characters, words) is L2-normalised on its own,
//! as a scikit-learn `FeatureUnion` of two vectorisers would be.
//!
//! Training ([`fit_lbfgs`]): minimises `Σ sw_i · CE_i / Σ sw + ‖W‖² / (2 C Σ sw)` (the
//! intercept is not penalised), scikit-learn's objective for the multinomial loss, with
//! L-BFGS (memory 10, backtracking Armijo line search) until the largest gradient entry is
//! ≤ `tol` (scikit-learn's `tol` = 1e-4) or `max_iter`. A two-class problem takes
//! `2 C`: softmax over two classes with both rows penalised is the binary logistic
//! regression scikit-learn fits with `C` at half the penalty. Single-threaded, fixed
//! summation order: the same data give the same bytes.

use crate::linear::{Analyzer, TrainConfig, counts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The vocabulary and idf of a fitted vectoriser. Terms are prefixed by their block
/// (`c` characters, `w` words) and sorted; the index of a term is its position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vocab {
    /// Block-prefixed n-grams, sorted (binary-searched by [`Vocab::transform`]).
    pub terms: Vec<String>,
    /// Smooth idf of each term, same order as `terms`.
    pub idf: Vec<f32>,
}

/// The block-prefixed n-grams of one text, in text order.
pub fn grams(text: &str, cfg: &TrainConfig) -> Vec<String> {
    let lower: String = text.chars().flat_map(char::to_lowercase).collect();
    let mut out = Vec::new();
    let mut push_char_grams = |w: &[char]| {
        for n in cfg.ngram_min..=cfg.ngram_max {
            if w.len() <= n {
                // scikit-learn counts a piece no longer than n once, then stops.
                let mut s = String::from("c");
                s.extend(w.iter());
                out.push(s);
                break;
            }
            for g in w.windows(n) {
                let mut s = String::from("c");
                s.extend(g.iter());
                out.push(s);
            }
        }
    };
    match cfg.analyzer {
        Analyzer::CharWb => {
            for word in lower.split_whitespace() {
                let mut w: Vec<char> = Vec::with_capacity(word.len() + 2);
                w.push(' ');
                w.extend(word.chars());
                w.push(' ');
                push_char_grams(&w);
            }
        }
        Analyzer::Char => {
            let mut w: Vec<char> = vec![' '];
            w.extend(lower.chars());
            w.push(' ');
            push_char_grams(&w);
        }
    }
    if let Some(wmax) = cfg.word_ngrams {
        let tokens: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| t.chars().count() >= 2)
            .collect();
        for n in 1..=wmax {
            for g in tokens.windows(n) {
                out.push(format!("w{}", g.join(" ")));
            }
        }
    }
    out
}

impl Vocab {
    /// Every n-gram of `texts`, with its smooth idf.
    pub fn fit(texts: &[&str], cfg: &TrainConfig) -> Vocab {
        let mut df: BTreeMap<String, u32> = BTreeMap::new();
        for t in texts {
            let mut g = grams(t, cfg);
            g.sort_unstable();
            g.dedup();
            for x in g {
                *df.entry(x).or_insert(0) += 1;
            }
        }
        let n = texts.len() as f64;
        let (terms, idf) = df
            .into_iter()
            .map(|(t, d)| (t, (((1.0 + n) / (1.0 + d as f64)).ln() + 1.0) as f32))
            .unzip();
        Vocab { terms, idf }
    }

    /// Number of terms: the feature dimension.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// No terms (fitted on texts with no n-grams).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Sparse tf-idf features (index, value), sorted by index; n-grams outside the
    /// vocabulary are ignored.
    pub fn transform(&self, text: &str, cfg: &TrainConfig) -> Vec<(u32, f32)> {
        let idx: Vec<u32> = grams(text, cfg)
            .iter()
            .filter_map(|g| {
                self.terms
                    .binary_search_by(|t| t.as_str().cmp(g))
                    .ok()
                    .map(|i| i as u32)
            })
            .collect();
        let mut out = counts(idx);
        for (i, v) in out.iter_mut() {
            let tf = if cfg.sublinear_tf { 1.0 + v.ln() } else { *v };
            *v = tf * self.idf[*i as usize];
        }
        // L2 per block: terms are sorted, so each block is a contiguous index range.
        for block in [b'c', b'w'] {
            let in_block = |i: u32| self.terms[i as usize].as_bytes()[0] == block;
            let norm: f32 = out
                .iter()
                .filter(|(i, _)| in_block(*i))
                .map(|(_, v)| v * v)
                .sum::<f32>()
                .sqrt();
            if norm > 0.0 {
                for (i, v) in out.iter_mut() {
                    if in_block(*i) {
                        *v /= norm;
                    }
                }
            }
        }
        out
    }
}

/// What the solver reports: iterations run and whether the gradient test was met.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// L-BFGS iterations run.
    pub iterations: usize,
    /// Whether the largest gradient entry reached `tol` before `max_iter`.
    pub converged: bool,
    /// Largest absolute gradient entry at the end.
    pub grad_max: f64,
}

/// The penalty and stopping rule of [`fit_lbfgs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Solver {
    /// scikit-learn's C (inverse L2 strength).
    pub c: f64,
    /// Iteration cap; the fit reports `converged = false` when it is reached.
    pub max_iter: usize,

    /// Stop when the largest gradient entry is ≤ tol.
    pub tol: f64,
}

/// Weights (`dim × k`, row-major) and biases of the L2 logistic regression on sparse rows
/// (feature indices < `dim`), `k` classes.
pub fn fit_lbfgs(
    rows: &[Vec<(u32, f32)>],
    targets: &[usize],
    sample_w: &[f64],
    (dim, k): (usize, usize),
    solver: Solver,
) -> (Vec<f64>, Vec<f64>, Fit) {
    let c = if k == 2 { 2.0 * solver.c } else { solver.c };
    let sw_sum: f64 = sample_w.iter().sum::<f64>().max(1e-12);
    let nw = dim * k;
    let objective = |x: &[f64], g: &mut [f64]| -> f64 {
        g.iter_mut().for_each(|v| *v = 0.0);
        let (w, b) = x.split_at(nw);
        let mut loss = 0.0;
        let mut z = vec![0.0f64; k];
        for (n, row) in rows.iter().enumerate() {
            z.copy_from_slice(b);
            for (i, v) in row {
                let r = &w[*i as usize * k..(*i as usize + 1) * k];
                for cl in 0..k {
                    z[cl] += r[cl] * *v as f64;
                }
            }
            let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
            let lse = m + s.ln();
            let sw = sample_w[n] / sw_sum;
            loss += sw * (lse - z[targets[n]]);
            for cl in 0..k {
                let p = (z[cl] - lse).exp();
                let d = sw * (p - if cl == targets[n] { 1.0 } else { 0.0 });
                g[nw + cl] += d;
                for (i, v) in row {
                    g[*i as usize * k + cl] += d * *v as f64;
                }
            }
        }
        let lam = 1.0 / (c * sw_sum);
        let mut reg = 0.0;
        for (gj, wj) in g.iter_mut().zip(w) {
            reg += wj * wj;
            *gj += lam * wj;
        }
        loss + 0.5 * lam * reg
    };
    let (x, fit) = lbfgs(objective, vec![0.0; nw + k], solver.max_iter, solver.tol);
    let (w, b) = x.split_at(nw);
    (w.to_vec(), b.to_vec(), fit)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// The L-BFGS two-loop recursion: the search direction `-H g` from the stored steps `s` and
/// gradient changes `y` (steepest descent, scaled, when there are none).
fn direction(g: &[f64], s_hist: &[Vec<f64>], y_hist: &[Vec<f64>]) -> Vec<f64> {
    let mut d: Vec<f64> = g.iter().map(|v| -v).collect();
    let mut alpha = vec![0.0; s_hist.len()];
    for j in (0..s_hist.len()).rev() {
        let rho = 1.0 / dot(&y_hist[j], &s_hist[j]);
        alpha[j] = rho * dot(&s_hist[j], &d);
        for (di, yi) in d.iter_mut().zip(&y_hist[j]) {
            *di -= alpha[j] * yi;
        }
    }
    let gamma = match (s_hist.last(), y_hist.last()) {
        (Some(s), Some(y)) => dot(s, y) / dot(y, y),
        _ => 1.0 / max_abs(g).max(1e-12).max(dot(g, g).sqrt()),
    };
    d.iter_mut().for_each(|v| *v *= gamma);
    for j in 0..s_hist.len() {
        let rho = 1.0 / dot(&y_hist[j], &s_hist[j]);
        let beta = rho * dot(&y_hist[j], &d);
        for (di, si) in d.iter_mut().zip(&s_hist[j]) {
            *di += (alpha[j] - beta) * si;
        }
    }
    d
}

/// Minimises a smooth convex `f` (value, and gradient written into its second argument).
pub fn lbfgs(
    mut f: impl FnMut(&[f64], &mut [f64]) -> f64,
    mut x: Vec<f64>,
    max_iter: usize,
    tol: f64,
) -> (Vec<f64>, Fit) {
    const MEM: usize = 10;
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = f(&x, &mut g);
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut x_new = vec![0.0; n];
    let mut g_new = vec![0.0; n];
    let mut it = 0;
    while it < max_iter {
        if max_abs(&g) <= tol {
            break;
        }
        it += 1;
        let mut d = direction(&g, &s_hist, &y_hist);
        let mut slope = dot(&g, &d);
        if slope >= 0.0 {
            // Not a descent direction (numerical trouble): restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            d = g.iter().map(|v| -v).collect();
            slope = dot(&g, &d);
        }
        // Backtracking Armijo.
        let mut step = 1.0;
        let mut f_new;
        let mut tries = 0;
        loop {
            for ((xn, xo), dj) in x_new.iter_mut().zip(&x).zip(&d) {
                *xn = xo + step * dj;
            }
            f_new = f(&x_new, &mut g_new);
            if f_new <= fx + 1e-4 * step * slope || tries >= 40 {
                break;
            }
            step *= 0.5;
            tries += 1;
        }
        if f_new > fx {
            break;
        }
        let s: Vec<f64> = x_new.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        if dot(&s, &y) > 1e-12 {
            if s_hist.len() == MEM {
                s_hist.remove(0);
                y_hist.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
        }
        std::mem::swap(&mut x, &mut x_new);
        std::mem::swap(&mut g, &mut g_new);
        fx = f_new;
    }
    let grad_max = max_abs(&g);
    (
        x,
        Fit {
            iterations: it,
            converged: grad_max <= tol,
            grad_max,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_wb_grams_follow_scikit_learn() {
        let cfg = TrainConfig {
            analyzer: Analyzer::CharWb,
            ngram_min: 1,
            ngram_max: 3,
            ..TrainConfig::default()
        };
        // sklearn: TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3)).build_analyzer()("Ab c")
        let g = grams("Ab c", &cfg);
        let want = [
            " ", "a", "b", " ", " a", "ab", "b ", " ab", "ab ", " ", "c", " ", " c", "c ", " c ",
        ];
        let got: Vec<&str> = g.iter().map(|s| &s[1..]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn tfidf_rows_are_unit_length_and_idf_is_smooth() {
        let cfg = TrainConfig {
            analyzer: Analyzer::CharWb,
            ngram_max: 3,
            tfidf: true,
            ..TrainConfig::default()
        };
        let v = Vocab::fit(&["가나", "가다"], &cfg);
        let i = v.terms.binary_search(&"c가".to_string()).unwrap();
        assert!((v.idf[i] - 1.0).abs() < 1e-6, "df 2 of 2: ln(3/3) + 1");
        let j = v.terms.binary_search(&"c나".to_string()).unwrap();
        assert!((v.idf[j] as f64 - ((3.0f64 / 2.0).ln() + 1.0)).abs() < 1e-6);
        let f = v.transform("가나 없음", &cfg);
        let n: f32 = f.iter().map(|(_, x)| x * x).sum();
        assert!((n - 1.0).abs() < 1e-5);
    }

    #[test]
    fn lbfgs_converges_on_a_quadratic() {
        let (x, fit) = lbfgs(
            |x, g| {
                g[0] = 2.0 * (x[0] - 3.0);
                g[1] = 20.0 * (x[1] + 1.0);
                (x[0] - 3.0).powi(2) + 10.0 * (x[1] + 1.0).powi(2)
            },
            vec![0.0, 0.0],
            100,
            1e-8,
        );
        assert!(fit.converged, "{fit:?}");
        assert!((x[0] - 3.0).abs() < 1e-6 && (x[1] + 1.0).abs() < 1e-6);
    }
}
