//! Polak–Ribière conjugate gradient as scipy's `minimize(method="CG")` runs it: the "PR+"
//! restart, MINPACK's `dcsrch` line search ([`super::dcsrch`]) with scipy's constants
//! (c1 = 1e-4, c2 = 0.4) and first step (from the previous decrease), a step kept only when
//! the next direction still descends, and the stop (largest gradient entry at most `gtol`, or
//! `max_iter` steps). When `dcsrch` fails or its step is not kept, scipy tries its second
//! line search (`line_search_wolfe2`); here that is Nocedal and Wright's bracket-and-zoom
//! (Algorithms 3.5 and 3.6), the same conditions by a different path.

use super::Objective;
use super::dcsrch;

const C1: f64 = 1e-4;
const C2: f64 = 0.4;
/// Evaluations allowed to bracket a step, and to zoom into the bracket.
const MAX_EVALS: usize = 40;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn inf_norm(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// One trial step: its length, the point, value, gradient and slope along the direction.
struct Trial {
    a: f64,
    x: Vec<f64>,
    f: f64,
    g: Vec<f64>,
    slope: f64,
}

struct Ray<'a, 'b> {
    obj: &'a Objective<'b>,
    x: &'a [f64],
    p: &'a [f64],
    f0: f64,
    slope0: f64,
}

impl Ray<'_, '_> {
    fn at(&self, a: f64) -> Trial {
        let x: Vec<f64> = self.x.iter().zip(self.p).map(|(x, p)| x + a * p).collect();
        let mut g = vec![0.0; x.len()];
        let f = self.obj.eval(&x, &mut g);
        let slope = dot(&g, self.p);
        Trial { a, x, f, g, slope }
    }

    fn sufficient(&self, t: &Trial) -> bool {
        t.f <= self.f0 + C1 * t.a * self.slope0
    }

    fn curvature(&self, t: &Trial) -> bool {
        t.slope.abs() <= -C2 * self.slope0
    }

    /// A step meeting the strong Wolfe conditions, or `None` when none is found.
    fn fallback(&self, first: f64, start: Trial) -> Option<Trial> {
        let mut prev = start;
        let mut a = first;
        for n in 0..MAX_EVALS {
            let t = self.at(a);
            if !self.sufficient(&t) || (n > 0 && t.f >= prev.f) {
                return self.zoom(prev, t);
            }
            if self.curvature(&t) {
                return Some(t);
            }
            if t.slope >= 0.0 {
                return self.zoom(t, prev);
            }
            prev = t;
            a *= 2.0;
        }
        None
    }

    /// Narrows [lo, hi] (lo the better end) to a strong-Wolfe step.
    fn zoom(&self, mut lo: Trial, mut hi: Trial) -> Option<Trial> {
        for _ in 0..MAX_EVALS {
            let t = self.at(interpolate(&lo, &hi));
            if !self.sufficient(&t) || t.f >= lo.f {
                hi = t;
            } else {
                if self.curvature(&t) {
                    return Some(t);
                }
                if t.slope * (hi.a - lo.a) >= 0.0 {
                    hi = lo;
                }
                lo = t;
            }
            if (hi.a - lo.a).abs() < 1e-12 * lo.a.abs().max(1e-12) {
                break;
            }
        }
        (lo.a > 0.0 && lo.f < self.f0).then_some(lo)
    }
}

/// The ray as `dcsrch` sees it, keeping the last trial (the step it accepts is its last).
struct Probe<'a, 'b, 'c> {
    ray: &'a Ray<'b, 'c>,
    last: Option<Trial>,
}

impl dcsrch::Line for Probe<'_, '_, '_> {
    fn at(&mut self, step: f64) -> (f64, f64) {
        let t = self.ray.at(step);
        let out = (t.f, t.slope);
        self.last = Some(t);
        out
    }
}

/// The next direction by PR+ from `p` at the step `t` (gradient before the step `g`), if it
/// still descends enough (scipy's `descent_condition`, σ₃ = 0.01) or the step is final.
fn next_direction(p: &[f64], g: &[f64], t: &Trial, gtol: f64) -> Option<Vec<f64>> {
    let yk_dot: f64 = t.g.iter().zip(g).map(|(a, b)| (a - b) * a).sum();
    let beta = (yk_dot / dot(g, g)).max(0.0);
    let next: Vec<f64> = p.iter().zip(&t.g).map(|(pj, gj)| -gj + beta * pj).collect();
    let descends = dot(&next, &t.g) <= -0.01 * dot(&t.g, &t.g);
    (inf_norm(&t.g) <= gtol || descends).then_some(next)
}

/// One conjugate-gradient step: the accepted trial and the next direction.
fn step(ray: &Ray<'_, '_>, first: f64, g: &[f64], gtol: f64) -> Option<(Trial, Vec<f64>)> {
    let mut probe = Probe { ray, last: None };
    if dcsrch::search(&mut probe, first, ray.f0, ray.slope0).is_some() {
        let t = probe.last.take()?;
        if let Some(next) = next_direction(ray.p, g, &t, gtol) {
            return Some((t, next));
        }
    }
    let start = Trial {
        a: 0.0,
        x: Vec::new(),
        f: ray.f0,
        g: Vec::new(),
        slope: ray.slope0,
    };
    let t = ray.fallback(first, start)?;
    let next =
        next_direction(ray.p, g, &t, gtol).unwrap_or_else(|| t.g.iter().map(|v| -v).collect());
    Some((t, next))
}

/// The minimiser of the cubic through both ends' values and slopes, kept inside the middle
/// 80% of the bracket (bisection when the cubic has no usable minimum there).
fn interpolate(lo: &Trial, hi: &Trial) -> f64 {
    let (a0, a1) = (lo.a, hi.a);
    let d1 = lo.slope + hi.slope - 3.0 * (lo.f - hi.f) / (a0 - a1);
    let disc = d1 * d1 - lo.slope * hi.slope;
    let mid = 0.5 * (a0 + a1);
    if disc < 0.0 {
        return mid;
    }
    let d2 = (a1 - a0).signum() * disc.sqrt();
    let a = a1 - (a1 - a0) * (hi.slope + d2 - d1) / (hi.slope - lo.slope + 2.0 * d2);
    let (left, right) = (a0.min(a1), a0.max(a1));
    let margin = 0.1 * (right - left);
    if a.is_finite() && a > left + margin && a < right - margin {
        a
    } else {
        mid
    }
}

/// Minimises `obj` from `x`; returns the last point reached.
pub(super) fn minimize(obj: &Objective<'_>, x: Vec<f64>, max_iter: usize, gtol: f64) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    let mut f = obj.eval(&x, &mut g);
    let mut x = x;
    // scipy's start: as if the previous step had decreased f by half the gradient's norm.
    let mut f_before = f + dot(&g, &g).sqrt() / 2.0;
    let mut p: Vec<f64> = g.iter().map(|v| -v).collect();
    for _ in 0..max_iter {
        if inf_norm(&g) <= gtol {
            break;
        }
        let slope0 = dot(&g, &p);
        // scipy: min(1, 1.01·2·(f − f_before)/slope), 1 when that is negative.
        let mut first = (1.01 * 2.0 * (f - f_before) / slope0).min(1.0);
        if first < 0.0 || slope0 == 0.0 {
            first = 1.0;
        }
        let ray = Ray {
            obj,
            x: &x,
            p: &p,
            f0: f,
            slope0,
        };
        let Some((t, next)) = step(&ray, first, &g, gtol) else {
            break;
        };
        p = next;
        f_before = f;
        (x, f, g) = (t.x, t.f, t.g);
    }
    x
}
