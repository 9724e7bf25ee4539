//! kcurate-toxicity: KLUE's gender-bias and hate filtering (§2.3, §6.2) with a model that
//! needs no network.
//!
//! - [`linear`]: hashed character n-gram features and a multinomial logistic regression
//!   trained by seeded AdaGrad SGD; reusable for any label set (the NLI hypothesis-only model
//!   and the challenge-set sentiment model use it too).
//! - [`model`]: the two-head toxicity model (gender bias; hate / offensive / none), its
//!   versioned file format, training from the Korean hate speech TSV, evaluation.
//! - [`reviews`]: labelled NSMC reviews (ids and labels; texts from the corpus) as training
//!   rows of a domain's own model, and out-of-fold scores to calibrate it.
//! - [`lexicon`]: the slur and threat rules of `rules/toxicity.toml`, each hit a drop with its
//!   own rule id, run before the model.
//! - [`stage`]: the `toxicity` stage: per-source thresholds (KLUE: gender bias ≥ 0.5, hate
//!   ≥ 0.9), off for formal news, from the built-in model or imported scores.
//! - [`calibrate`]: a domain's thresholds from judged samples at a target false-drop rate,
//!   and the items nearest them to judge next (`kcurate toxicity calibrate`).
//! - [`tfidf`]: exact-vocabulary tf-idf features and the L-BFGS solver of scikit-learn's
//!   baseline, used by [`linear`] when `tfidf` is set.

pub mod calibrate;
pub mod lexicon;

pub mod linear;
pub mod model;
pub mod reviews;
pub mod stage;
pub mod tfidf;
