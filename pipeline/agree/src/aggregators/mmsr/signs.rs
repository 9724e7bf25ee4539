//! crowd-kit's `_sign_determination_valid`: the covariance's sign pattern as a graph over the
//! valid workers (a negative entry, the diagonal and an unshared pair included, joins two
//! workers directly; a positive one through a node of its own, so it joins them by a path of
//! two), whose walk matrix W = D⁻¹A has an eigenvalue near -1 when the workers split into
//! two camps; the signs of that eigenvector's worker entries are the signs of the skills,
//! turned so that most are positive.
//!
//! The eigenvector is the dominant one of I − N, N = D^{-1/2}·A·D^{-1/2} (similar to W, so
//! D^{-1/2} times its eigenvectors are W's, with the same signs), by power iteration.

use super::super::numpy_rng::Mt19937;
use super::Covariance;

/// Power-iteration rounds at most, and the change of the unit vector that ends them.
const MAX_ROUNDS: usize = 100_000;
const SETTLED: f64 = 1e-13;

/// The graph: worker nodes first (valid workers in order), then one node per positive pair.
struct Graph {
    /// Per worker node, the worker nodes it does NOT join directly (a pair shared with a
    /// covariance >= 0); every other worker node, itself included, it does.
    not_joined: Vec<Vec<usize>>,
    /// Per positive pair node, its two worker nodes.
    pairs: Vec<(usize, usize)>,
    /// Per worker node, its pair nodes (as indices into `pairs`).
    pair_nodes: Vec<Vec<usize>>,
    /// 1/√degree per node (worker nodes, then pair nodes).
    inv_sqrt_deg: Vec<f64>,
}

fn graph(cov: &Covariance) -> (Graph, Vec<usize>) {
    let valid: Vec<usize> = (0..cov.valid.len()).filter(|&w| cov.valid[w]).collect();
    let mut node = vec![usize::MAX; cov.valid.len()];
    for (a, &w) in valid.iter().enumerate() {
        node[w] = a;
    }
    let k = valid.len();
    let mut not_joined = vec![Vec::new(); k];
    let mut pairs = Vec::new();
    let mut pair_nodes = vec![Vec::new(); k];
    for (a, &w) in valid.iter().enumerate() {
        for &(j, c) in &cov.nbrs[w] {
            let b = node[j];
            if b == usize::MAX || c < 0.0 {
                continue;
            }
            not_joined[a].push(b);
            if c > 0.0 && a < b {
                pair_nodes[a].push(pairs.len());
                pair_nodes[b].push(pairs.len());
                pairs.push((a, b));
            }
        }
    }
    let mut inv_sqrt_deg: Vec<f64> = (0..k)
        .map(|a| (k - not_joined[a].len() + pair_nodes[a].len()) as f64)
        .collect();
    inv_sqrt_deg.extend(std::iter::repeat_n(2.0, pairs.len()));
    inv_sqrt_deg.iter_mut().for_each(|d| *d = 1.0 / d.sqrt());
    let g = Graph {
        not_joined,
        pairs,
        pair_nodes,
        inv_sqrt_deg,
    };
    (g, valid)
}

impl Graph {
    /// `out` = (I − N)·y.
    fn apply(&self, y: &[f64], out: &mut [f64]) {
        let k = self.not_joined.len();
        let z: Vec<f64> = y
            .iter()
            .zip(&self.inv_sqrt_deg)
            .map(|(a, b)| a * b)
            .collect();
        let total: f64 = z[..k].iter().sum();
        for a in 0..k {
            let mut s = total - self.not_joined[a].iter().map(|&b| z[b]).sum::<f64>();
            s += self.pair_nodes[a].iter().map(|&e| z[k + e]).sum::<f64>();
            out[a] = y[a] - self.inv_sqrt_deg[a] * s;
        }
        for (e, &(a, b)) in self.pairs.iter().enumerate() {
            out[k + e] = y[k + e] - self.inv_sqrt_deg[k + e] * (z[a] + z[b]);
        }
    }

    /// The unit eigenvector of I − N of the largest eigenvalue.
    fn dominant(&self) -> Vec<f64> {
        let n = self.inv_sqrt_deg.len();
        let mut rng = Mt19937::new(1);
        let mut y: Vec<f64> = (0..n).map(|_| rng.next_f64() - 0.5).collect();
        let mut next = vec![0.0; n];
        for _ in 0..MAX_ROUNDS {
            self.apply(&y, &mut next);
            let norm = next.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm == 0.0 {
                break;
            }
            next.iter_mut().for_each(|v| *v /= norm);
            let moved = y
                .iter()
                .zip(&next)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            std::mem::swap(&mut y, &mut next);
            if moved < SETTLED {
                break;
            }
        }
        y
    }
}

/// `s_abs` with crowd-kit's signs (0 for a worker that is not valid).
pub(super) fn signed(cov: &Covariance, s_abs: &[f64]) -> Vec<f64> {
    let (g, valid) = graph(cov);
    let v = g.dominant();
    let sign = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    let turn = sign(v[..valid.len()].iter().map(|&x| sign(x)).sum());
    let mut out = vec![0.0; s_abs.len()];
    for (a, &w) in valid.iter().enumerate() {
        out[w] = turn * s_abs[w] * sign(v[a]);
    }
    out
}
