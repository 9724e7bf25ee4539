//! NLI task pieces (KLUE §3.3): hypothesis-only dev/test selection.
//!
//! A hypothesis-only classifier (hashed character n-grams + logistic regression, the
//! toxicity crate's [`kcurate_toxicity::linear`]) is cross-fitted by premise group: the pairs
//! are split into k folds by premise (seeded), and every pair is scored by the model trained
//! on the other folds, so no example is scored by a model that saw its premise. Per example,
//! the cross-entropy between the uniform distribution and the prediction,
//! H(u, p) = −(1/3)·Σ log p_k; per premise set, the mean. The sets with the lowest mean (the
//! model can least tell their labels from the hypothesis alone) form the dev/test pool.

pub mod artifacts;
pub mod batches;
pub mod build;
pub mod input;
pub mod premise;
pub mod quotas;
pub mod select;
