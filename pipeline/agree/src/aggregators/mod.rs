//! Skill-weighted aggregators that follow crowd-kit 1.4.2's classification models step for
//! step, so their labels equal crowd-kit's on the same input (fixtures in
//! `tests/fixtures/agree`, checked by `tests/agree_aggregators.rs`):
//!
//! - [`wawa`]: Worker Agreement with Aggregate (majority, skills as agreement with it, a
//!   skill-weighted majority).
//! - [`zbs`]: Zero-Based Skill (skills moved towards agreement with the weighted majority by
//!   a decaying learning rate, 100 steps).
//! - [`mace`]: MACE (Hovy et al. 2013), variational Bayes, crowd-kit's seeded start.
//! - [`glad`]: GLAD (Whitehill et al. 2009), worker ability and item difficulty by EM.
//! - [`mmsr`]: M-MSR (Ma and Olshevsky 2020), skills by robust rank-one completion of the
//!   workers' covariance, then a log-odds-weighted majority.
//! - [`kos`]: KOS (Karger, Oh and Shah 2011), message passing on binary labels.
//! - [`gold_majority`]: Gold Majority Vote, skills from the items with a known label, then a
//!   skill-weighted majority (it needs those labels, so it is not a [`Method`]).
//!
//! The one-coin Dawid–Skene model lives beside the full one in [`crate::dawid_skene`].
//! Every method takes [`Responses`] (classes indexed in kcurate's sorted value order) and
//! returns an [`Estimate`].

pub mod glad;
pub mod gold_majority;
pub mod kos;
pub mod mace;
pub mod mmsr;
mod numpy_rng;
pub mod vote;
pub mod wawa;
pub mod zbs;

use crate::dawid_skene::Responses;

/// Labels of the items and the probability each method gives its label.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Chosen class per item; `None` for an item without answers (or, in a weighted vote,
    /// an item whose answers all weigh 0).
    pub labels: Vec<Option<usize>>,
    /// The probability of the chosen class (0 where there is no label; NaN for a method
    /// that gives none, KOS).
    pub confidence: Vec<f64>,
}

/// Which crowd-kit model [`run`] fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// crowd-kit `Wawa()`.
    Wawa,
    /// crowd-kit `ZeroBasedSkill()` with its defaults.
    ZeroBasedSkill,
    /// crowd-kit `MACE()` with its defaults.
    Mace,
    /// crowd-kit `GLAD()` with its defaults.
    Glad,
    /// crowd-kit `MMSR()` with its defaults.
    Mmsr,
    /// crowd-kit `KOS()` with its defaults (two classes only: see [`kos::kos`]).
    Kos,
}

/// Fits `method` on `r` with crowd-kit's default settings.
pub fn run(r: &Responses, method: Method) -> Estimate {
    match method {
        Method::Wawa => wawa::wawa(r),
        Method::ZeroBasedSkill => zbs::zero_based_skill(r, &zbs::Settings::default()),
        Method::Mace => mace::mace(r, &mace::Settings::default()),
        Method::Glad => glad::glad(r, &glad::Settings::default()),
        Method::Mmsr => mmsr::mmsr(r, &mmsr::Settings::default()),
        Method::Kos => kos::kos(r, &kos::Settings::default()),
    }
}

/// The first class with the largest value of `row` (crowd-kit's `idxmax`: an exact tie goes
/// to the column first in its order); `None` when no value is a number above -inf.
pub(crate) fn first_max(row: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (c, &x) in row.iter().enumerate() {
        if x.is_nan() {
            continue;
        }
        if best.is_none_or(|b| x > row[b]) {
            best = Some(c);
        }
    }
    best
}
