//! A seeded annotation simulator, so annotation steps run end to end without people:
//! annotators with a skill (chance of the true label), a bias (score offset) and a few
//! spammers (uniformly random answers). Every (seed, item, annotator) draws from its own
//! ChaCha8 stream keyed by a hash, so the output never depends on order or threads.

use kcurate_core::hash::seeded_u64;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// One simulated annotator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotator {
    /// `ann00`, `ann01`, …
    pub id: String,
    /// Chance of giving the true label (nominal) or the noise scale's inverse (scores).
    pub skill: f64,
    /// Added to every score.
    pub bias: f64,
    /// Answers uniformly at random, whatever the truth.
    pub spammer: bool,
}

/// A pool of `n` annotators: skills between 0.6 and 0.95, small biases, and
/// `spammers` of them answering at random.
pub fn pool(n: usize, spammers: usize, seed: u64) -> Vec<Annotator> {
    (0..n)
        .map(|k| {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seeded_u64(
                seed,
                format!("annotator\t{k}").as_bytes(),
            ));
            Annotator {
                id: format!("ann{k:02}"),
                skill: 0.6 + 0.35 * rng.random::<f64>(),
                bias: (rng.random::<f64>() - 0.5) * 0.6,
                spammer: k >= n - spammers.min(n),
            }
        })
        .collect()
}

fn rng_for(seed: u64, item: &str, who: &str) -> rand::rngs::ChaCha8Rng {
    rand::rngs::ChaCha8Rng::seed_from_u64(seeded_u64(seed, format!("{item}\t{who}").as_bytes()))
}

/// A nominal label: the truth with probability `skill`, else another label at random.
pub fn nominal(seed: u64, item: &str, a: &Annotator, truth: &str, labels: &[&str]) -> String {
    let mut rng = rng_for(seed, item, &a.id);
    if a.spammer || labels.len() < 2 {
        return labels[rng.random_range(0..labels.len())].to_string();
    }
    if rng.random::<f64>() < a.skill {
        return truth.to_string();
    }
    let others: Vec<&&str> = labels.iter().filter(|l| **l != truth).collect();
    others[rng.random_range(0..others.len())].to_string()
}

/// A score on [lo, hi] in steps of 1: truth + bias + noise (wider for less skilled
/// annotators), clamped; spammers answer uniformly.
pub fn score(seed: u64, item: &str, a: &Annotator, truth: f64, lo: f64, hi: f64) -> f64 {
    let mut rng = rng_for(seed, item, &a.id);
    if a.spammer {
        return (lo + (rng.random::<f64>() * (hi - lo + 1.0)).floor()).min(hi);
    }
    let spread = (1.0 - a.skill) * 3.0;
    let noise = (rng.random::<f64>() - 0.5) * 2.0 * spread;
    (truth + a.bias + noise).round().clamp(lo, hi)
}

/// A standard normal draw (Box–Muller) from the stream of (seed, item, who): the same
/// arguments give the same number whatever else is drawn, in any order or thread.
pub fn std_normal(seed: u64, item: &str, who: &str) -> f64 {
    let mut rng = rng_for(seed, item, who);
    // 1 - u lies in (0, 1], so the logarithm is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A uniform draw on [0, 1) from the stream of (seed, item, who).
pub fn uniform(seed: u64, item: &str, who: &str) -> f64 {
    rng_for(seed, item, who).random::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_do_not_depend_on_order() {
        let p = pool(5, 1, 9);
        let a = nominal(9, "x", &p[0], "e", &["e", "n", "c"]);
        let _ = nominal(9, "y", &p[0], "e", &["e", "n", "c"]);
        assert_eq!(a, nominal(9, "x", &p[0], "e", &["e", "n", "c"]));
        assert!(p[4].spammer && !p[3].spammer);
        let s = score(9, "x", &p[1], 3.0, 0.0, 5.0);
        assert!((0.0..=5.0).contains(&s));
    }

    #[test]
    fn std_normal_has_mean_zero_and_unit_sd() {
        let xs: Vec<f64> = (0..20_000)
            .map(|i| std_normal(3, &format!("i{i}"), "a"))
            .collect();
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt();
        assert!(m.abs() < 0.03, "{m}");
        assert!((sd - 1.0).abs() < 0.03, "{sd}");
        assert_eq!(std_normal(3, "i1", "a"), std_normal(3, "i1", "a"));
        assert_ne!(std_normal(3, "i1", "a"), std_normal(3, "i1", "b"));
        assert!((0.0..1.0).contains(&uniform(3, "i1", "a")));
    }
}
