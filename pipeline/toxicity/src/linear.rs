//! Hashed character n-gram features + multinomial logistic regression.
//!
//! Features: every character n-gram (n in `ngram_min..=ngram_max`) of the text with a space
//! on either side, hashed (FNV-1a, stable across platforms) into `2^bits` buckets, counts
//! log-scaled and L2-normalised. Training: AdaGrad SGD over a seeded ChaCha8 shuffle, L2
//! weight decay; single-threaded, so the same data and seed give the same model bytes.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::tfidf::{Solver, Vocab, fit_lbfgs};

/// Features and training settings of a [`Linear`] model; saved in its file header, so a
/// model carries what it needs to featurise text the way it was trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// Shortest character n-gram (default 1).
    pub ngram_min: usize,
    /// Longest character n-gram (default 2).
    pub ngram_max: usize,
    /// Hashed features: `2^bits` buckets (default 18: 262,144).
    pub bits: u32,
    /// SGD passes over the shuffled data (default 8).
    pub epochs: usize,
    /// AdaGrad base step size (default 0.2).
    pub learning_rate: f64,
    /// L2 weight decay per step (default 1e-6).
    pub l2: f64,
    /// Seed of the ChaCha8 shuffle: the same data and seed give the same weights.
    pub seed: u64,
    /// Weights each example's loss by `n / (classes × count of its class)` (scikit-learn's
    /// `class_weight="balanced"`), so a rare class is not learnt as noise. Left out of the
    /// model file when off, so models without it keep their bytes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub balanced: bool,
    /// How character n-grams are cut: from the padded text (`char`, the default) or within
    /// each padded word (`char_wb`, scikit-learn's). Read by the tf-idf features only.
    #[serde(default, skip_serializing_if = "is_default")]
    pub analyzer: Analyzer,
    /// Exact-vocabulary tf-idf features ([`crate::tfidf`]) instead of hashed log counts.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tfidf: bool,
    /// With `tfidf`: tf = 1 + ln(count) instead of the count.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sublinear_tf: bool,
    /// With `tfidf`: also word 1..=n-grams, a second block normalised on its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_ngrams: Option<usize>,
    /// Inverse L2 strength of scikit-learn's objective: when set, training is full-batch
    /// L-BFGS to convergence ([`crate::tfidf::fit_lbfgs`]); epochs, learning rate, l2 and
    /// seed are then unused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// L-BFGS iteration cap (with `c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iter: Option<usize>,
}

/// Where character n-grams are cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Analyzer {
    /// N-grams of the whole text with a space on either side; they cross word boundaries.
    #[default]
    Char,
    /// N-grams inside each word padded with spaces (scikit-learn's `char_wb`).
    CharWb,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            ngram_min: 1,
            ngram_max: 2,
            bits: 18,
            epochs: 8,
            learning_rate: 0.2,
            l2: 1e-6,
            seed: 42,
            balanced: false,
            analyzer: Analyzer::Char,
            tfidf: false,
            sublinear_tf: false,
            word_ngrams: None,
            c: None,
            max_iter: None,
        }
    }
}

/// Sparse features of one text: (bucket, value), sorted by bucket.
pub fn features(text: &str, cfg: &TrainConfig) -> Vec<(u32, f32)> {
    let mut chars: Vec<char> = Vec::with_capacity(text.len() + 2);
    chars.push(' ');
    chars.extend(text.chars().flat_map(char::to_lowercase));
    chars.push(' ');
    let mask = (1u32 << cfg.bits) - 1;
    let mut idx: Vec<u32> = Vec::with_capacity(chars.len() * (cfg.ngram_max - cfg.ngram_min + 1));
    for n in cfg.ngram_min..=cfg.ngram_max {
        if chars.len() < n {
            continue;
        }
        for w in chars.windows(n) {
            // FNV-style over whole code points: stable across platforms and releases.
            let mut h: u32 = 0x811c_9dc5 ^ (n as u32);
            for c in w {
                h ^= *c as u32;
                h = h.wrapping_mul(0x0100_0193);
            }
            h ^= h >> 15;
            idx.push(h & mask);
        }
    }
    let mut out = counts(idx);
    let mut norm = 0.0f32;
    for (_, v) in out.iter_mut() {
        *v = 1.0 + v.ln();
        norm += *v * *v;
    }
    let norm = norm.sqrt().max(1e-12);
    for (_, v) in out.iter_mut() {
        *v /= norm;
    }
    out
}

/// Feature indices counted: (index, occurrences), sorted by index. The hashed and the
/// tf-idf features both start from these raw term frequencies.
pub(crate) fn counts(mut idx: Vec<u32>) -> Vec<(u32, f32)> {
    idx.sort_unstable();
    let mut out: Vec<(u32, f32)> = Vec::new();
    for i in idx {
        match out.last_mut() {
            Some((j, v)) if *j == i => *v += 1.0,
            _ => out.push((i, 1.0)),
        }
    }
    out
}

/// A trained classifier over `labels`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Linear {
    /// How it was trained and how it featurises text.
    pub config: TrainConfig,
    /// Class names; probabilities and `targets` use this order.
    pub labels: Vec<String>,
    /// Row-major: bucket × class.
    #[serde(skip)]
    pub weights: Vec<f32>,
    /// One intercept per class.
    pub bias: Vec<f32>,
    /// The tf-idf vocabulary (with `config.tfidf`); weights then have one row per term.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocab: Option<Vocab>,
    /// The solver's report (with `config.c`): iterations and the final gradient.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverReport>,
}

/// How full-batch training ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverReport {
    /// L-BFGS iterations run.
    pub iterations: usize,
    /// Whether the gradient tolerance was met before the iteration cap.
    pub converged: bool,
    /// Largest gradient entry at the end, rounded to 1e-9.
    pub grad_max: f64,
}

fn softmax(z: &mut [f64]) {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut s = 0.0;
    for x in z.iter_mut() {
        *x = (*x - m).exp();
        s += *x;
    }
    for x in z.iter_mut() {
        *x /= s;
    }
}

impl Linear {
    fn scores(&self, f: &[(u32, f32)]) -> Vec<f64> {
        let k = self.labels.len();
        let mut z: Vec<f64> = self.bias.iter().map(|b| *b as f64).collect();
        for (i, v) in f {
            let row = &self.weights[*i as usize * k..(*i as usize + 1) * k];
            for c in 0..k {
                z[c] += (row[c] * v) as f64;
            }
        }
        z
    }

    /// The sparse features of `text` for this model: tf-idf over its vocabulary, or hashed.
    pub fn featurise(&self, text: &str) -> Vec<(u32, f32)> {
        match &self.vocab {
            Some(v) => v.transform(text, &self.config),
            None => features(text, &self.config),
        }
    }

    fn dim(&self) -> usize {
        match &self.vocab {
            Some(v) => v.len(),
            None => 1usize << self.config.bits,
        }
    }

    /// Class probabilities, in `labels` order.
    pub fn predict_proba(&self, text: &str) -> Vec<f64> {
        self.predict_proba_features(&self.featurise(text))
    }

    /// Class probabilities from precomputed [`features`] (several heads with one config
    /// share them).
    pub fn predict_proba_features(&self, f: &[(u32, f32)]) -> Vec<f64> {
        let mut z = self.scores(f);
        softmax(&mut z);
        z
    }

    /// The most probable label (the first on a tie).
    pub fn predict(&self, text: &str) -> &str {
        let p = self.predict_proba(text);
        let best = (0..p.len()).fold(0, |b, c| if p[c] > p[b] { c } else { b });
        &self.labels[best]
    }

    /// Trains on `texts` with gold `targets` (indices into `labels`).
    pub fn train(
        texts: &[&str],
        targets: &[usize],
        labels: Vec<String>,
        cfg: &TrainConfig,
    ) -> Linear {
        let k = labels.len();
        let vocab = cfg.tfidf.then(|| Vocab::fit(texts, cfg));
        let mut m = Linear {
            config: cfg.clone(),
            labels,
            weights: Vec::new(),
            bias: vec![0.0; k],
            vocab,
            solver: None,
        };
        let dim = m.dim();
        m.weights = vec![0.0; dim * k];
        let feats: Vec<Vec<(u32, f32)>> = texts.iter().map(|t| m.featurise(t)).collect();
        // Balanced class weights: n / (k × count of the class); 1 each when off.
        let class_w: Vec<f64> = if cfg.balanced {
            let mut count = vec![0usize; k];
            for t in targets {
                count[*t] += 1;
            }
            count
                .iter()
                .map(|c| texts.len() as f64 / (k as f64 * (*c).max(1) as f64))
                .collect()
        } else {
            vec![1.0; k]
        };
        if let Some(c) = cfg.c {
            let sw: Vec<f64> = targets.iter().map(|t| class_w[*t]).collect();
            let solver = Solver {
                c,
                max_iter: cfg.max_iter.unwrap_or(1000),
                tol: 1e-4,
            };
            let (w, b, fit) = fit_lbfgs(&feats, targets, &sw, (dim, k), solver);
            m.weights = w.iter().map(|v| *v as f32).collect();
            m.bias = b.iter().map(|v| *v as f32).collect();
            m.solver = Some(SolverReport {
                iterations: fit.iterations,
                converged: fit.converged,
                grad_max: (fit.grad_max * 1e9).round() / 1e9,
            });
            return m;
        }
        let mut g2 = vec![1e-8f32; dim * k];
        let mut gb = vec![1e-8f64; k];
        let mut order: Vec<usize> = (0..texts.len()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let lr = cfg.learning_rate as f32;
        for _ in 0..cfg.epochs {
            order.shuffle(&mut rng);
            for &n in &order {
                let f = &feats[n];
                let mut p = m.scores(f);
                softmax(&mut p);
                let wt = class_w[targets[n]];
                for c in 0..k {
                    let g = (wt * (p[c] - if c == targets[n] { 1.0 } else { 0.0 })) as f32;
                    for (i, v) in f {
                        let w = *i as usize * k + c;
                        let grad = g * v + cfg.l2 as f32 * m.weights[w];
                        g2[w] += grad * grad;
                        m.weights[w] -= lr * grad / g2[w].sqrt();
                    }
                    gb[c] += (g as f64) * (g as f64);
                    m.bias[c] -= (cfg.learning_rate * g as f64 / gb[c].sqrt()) as f32;
                }
            }
        }
        m
    }

    /// Little-endian bytes: a JSON header line, then the weights as f32.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec(self).expect("model header serialises");
        out.push(b'\n');
        for w in &self.weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Reads one model written by [`Linear::to_bytes`] from the start of `b`; returns it and
    /// the number of bytes it took, so several models can follow one another in a file.
    pub fn from_bytes(b: &[u8]) -> Result<(Linear, usize), LinearFormatError> {
        let nl = b
            .iter()
            .position(|&c| c == b'\n')
            .ok_or(LinearFormatError::NoHeader)?;
        let mut m: Linear = serde_json::from_slice(&b[..nl])
            .map_err(|e| LinearFormatError::Header(e.to_string()))?;
        let n = m.dim() * m.labels.len();
        let body = &b[nl + 1..];
        if body.len() < n * 4 {
            return Err(LinearFormatError::Truncated {
                have: body.len(),
                need: n * 4,
            });
        }
        m.weights = body[..n * 4]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok((m, nl + 1 + n * 4))
    }
}

/// Bytes that are not a model [`Linear::to_bytes`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinearFormatError {
    /// No newline ends a JSON header line.
    #[error("no model header")]
    NoHeader,
    /// The header line is not the JSON of a model.
    #[error("model header: {0}")]
    Header(String),
    /// Fewer weight bytes than the header's dimensions need.
    #[error("model weights truncated: {have} of {need} bytes")]
    Truncated {
        /// Bytes after the header.
        have: usize,
        /// Bytes the weights take (4 per f32).
        need: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> (Vec<&'static str>, Vec<usize>) {
        let texts = vec![
            "정말 좋아요",
            "최고의 영화",
            "너무 좋았다",
            "별로예요",
            "최악의 영화",
            "너무 싫었다",
        ];
        (texts, vec![0, 0, 0, 1, 1, 1])
    }

    #[test]
    fn learns_a_toy_task_deterministically() {
        let (t, y) = toy();
        let cfg = TrainConfig {
            bits: 12,
            epochs: 30,
            ..Default::default()
        };
        let a = Linear::train(&t, &y, vec!["pos".into(), "neg".into()], &cfg);
        let b = Linear::train(&t, &y, vec!["pos".into(), "neg".into()], &cfg);
        assert_eq!(a.to_bytes(), b.to_bytes(), "same data and seed, same bytes");
        assert_eq!(a.predict("좋아요 최고"), "pos");
        assert_eq!(a.predict("최악 싫었다"), "neg");
        let (back, _) = Linear::from_bytes(&a.to_bytes()).unwrap();
        assert_eq!(back.predict_proba("좋아요"), a.predict_proba("좋아요"));
    }

    #[test]
    fn balanced_weights_lift_a_rare_class() {
        // 1 positive among 9: unweighted, the positive text scores lower than weighted.
        let texts = vec![
            "나쁜 말",
            "좋은 말",
            "좋은 날",
            "좋은 글",
            "좋은 밤",
            "좋은 꿈",
            "좋은 곳",
            "좋은 때",
            "좋은 책",
        ];
        let y = vec![1, 0, 0, 0, 0, 0, 0, 0, 0];
        let labels = || vec!["none".to_string(), "bad".to_string()];
        let cfg = TrainConfig {
            bits: 12,
            epochs: 3,
            ..Default::default()
        };
        let plain = Linear::train(&texts, &y, labels(), &cfg);
        let bal = Linear::train(
            &texts,
            &y,
            labels(),
            &TrainConfig {
                balanced: true,
                ..cfg.clone()
            },
        );
        assert!(bal.predict_proba("나쁜")[1] > plain.predict_proba("나쁜")[1]);
        assert!(String::from_utf8_lossy(&bal.to_bytes()).contains("\"balanced\":true"));
        assert!(
            !String::from_utf8_lossy(&plain.to_bytes()).contains("balanced"),
            "off: same header as before"
        );
    }

    #[test]
    fn features_are_normalised() {
        let f = features("가나다라", &TrainConfig::default());
        let n: f32 = f.iter().map(|(_, v)| v * v).sum();
        assert!((n - 1.0).abs() < 1e-5);
    }
}
