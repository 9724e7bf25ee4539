//! Zero-Based Skill, as crowd-kit 1.4.2's `ZeroBasedSkill`: every worker starts at
//! 1/classes + eps; each of `n_iter` steps takes the skill-weighted majority and moves each
//! skill towards the worker's agreement with it by the learning rate, which is multiplied by
//! `lr_reduce_factor` at every `lr_steps_to_reduce`-th step (before that step). The labels
//! are the majority weighted by the final skills. crowd-kit runs every step (its `eps` is
//! only the starting offset), and so does this.

use super::Estimate;
use super::vote::{accuracy, weighted_vote};
use crate::dawid_skene::Responses;

/// crowd-kit's parameters, defaults included.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Steps (crowd-kit `n_iter`, 100).
    pub n_iter: usize,
    /// First learning rate (`lr_init`, 1.0).
    pub lr_init: f64,
    /// The rate is reduced at every step whose number is a multiple of this (20).
    pub lr_steps_to_reduce: usize,
    /// By this factor (0.5).
    pub lr_reduce_factor: f64,
    /// Added to the starting skill 1/classes (1e-5).
    pub eps: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            n_iter: 100,
            lr_init: 1.0,
            lr_steps_to_reduce: 20,
            lr_reduce_factor: 0.5,
            eps: 1e-5,
        }
    }
}

/// Zero-Based Skill's labels and the weighted share of each label.
pub fn zero_based_skill(r: &Responses, s: &Settings) -> Estimate {
    let mut skills = vec![1.0 / r.classes.max(1) as f64 + s.eps; r.workers];
    let mut lr = s.lr_init;
    for step in 1..=s.n_iter {
        if s.lr_steps_to_reduce > 0 && step % s.lr_steps_to_reduce == 0 {
            lr *= s.lr_reduce_factor;
        }
        let mv = weighted_vote(r, Some(&skills));
        let acc = accuracy(r, &mv.labels);
        for (s, a) in skills.iter_mut().zip(&acc) {
            *s += lr * (a - *s);
        }
    }
    weighted_vote(r, Some(&skills))
}
