//! MINPACK-2's `dcsrch` line search as scipy 1.17 ports it (`scipy/optimize/_dcsrch.py`,
//! driven by `scalar_search_wolfe1`): the step scipy's conjugate gradient takes, so GLAD's
//! M-step follows crowd-kit's path. Only what that caller reaches is kept: the start checks
//! that cannot fail there (positive step within [1e-100, 1e100], descent slope) are gone.

/// A function along the search line: value and slope at a step.
pub(super) trait Line {
    /// φ(step) and φ'(step).
    fn at(&mut self, step: f64) -> (f64, f64);
}

/// Bracket state between trials (the Fortran's saved variables).
struct Search {
    brackt: bool,
    stage: u8,
    finit: f64,
    ginit: f64,
    gtest: f64,
    width: f64,
    width1: f64,
    x: Point,
    y: Point,
    stmin: f64,
    stmax: f64,
}

/// A step with its value and slope (`stx, fx, gx` and `sty, fy, gy` in the Fortran).
#[derive(Clone, Copy)]
struct Point {
    st: f64,
    f: f64,
    g: f64,
}

const FTOL: f64 = 1e-4;
const GTOL: f64 = 0.4;
const XTOL: f64 = 1e-14;
const STPMIN: f64 = 1e-100;
const STPMAX: f64 = 1e100;

/// The accepted step, its value and slope; `None` when the search warns (scipy then tries
/// its other line search).
pub(super) fn search(
    line: &mut impl Line,
    first: f64,
    f0: f64,
    g0: f64,
) -> Option<(f64, f64, f64)> {
    let mut s = Search {
        brackt: false,
        stage: 1,
        finit: f0,
        ginit: g0,
        gtest: FTOL * g0,
        width: STPMAX - STPMIN,
        width1: (STPMAX - STPMIN) / 0.5,
        x: Point {
            st: 0.0,
            f: f0,
            g: g0,
        },
        y: Point {
            st: 0.0,
            f: f0,
            g: g0,
        },
        stmin: 0.0,
        stmax: first + 4.0 * first,
    };
    let mut stp = first;
    for _ in 0..100 {
        if !stp.is_finite() {
            return None;
        }
        let (f, g) = line.at(stp);
        match s.iterate(stp, f, g) {
            Next::Converged => return Some((stp, f, g)),
            Next::Warn => return None,
            Next::Try(next) => stp = next,
        }
    }
    None
}

enum Next {
    Converged,
    Warn,
    Try(f64),
}

impl Search {
    fn iterate(&mut self, stp: f64, f: f64, g: f64) -> Next {
        let ftest = self.finit + stp * self.gtest;
        if self.stage == 1 && f <= ftest && g >= 0.0 {
            self.stage = 2;
        }
        if f <= ftest && g.abs() <= GTOL * -self.ginit {
            return Next::Converged;
        }
        let rounding = self.brackt && (stp <= self.stmin || stp >= self.stmax);
        let narrow = self.brackt && self.stmax - self.stmin <= XTOL * self.stmax;
        let at_max = stp == STPMAX && f <= ftest && g <= self.gtest;
        let at_min = stp == STPMIN && (f > ftest || g >= self.gtest);
        if rounding || narrow || at_max || at_min {
            return Next::Warn;
        }
        let mut next;
        if self.stage == 1 && f <= self.x.f && f > ftest {
            // The modified function ψ(t) = φ(t) − φ(0) − t·gtest while in stage 1.
            let m = |p: Point| Point {
                st: p.st,
                f: p.f - p.st * self.gtest,
                g: p.g - self.gtest,
            };
            let (mut x, mut y) = (m(self.x), m(self.y));
            let trial = Point {
                st: stp,
                f: f - stp * self.gtest,
                g: g - self.gtest,
            };
            next = dcstep(
                &mut x,
                &mut y,
                trial,
                &mut self.brackt,
                self.stmin,
                self.stmax,
            );
            let back = |p: Point| Point {
                st: p.st,
                f: p.f + p.st * self.gtest,
                g: p.g + self.gtest,
            };
            (self.x, self.y) = (back(x), back(y));
        } else {
            let trial = Point { st: stp, f, g };
            next = dcstep(
                &mut self.x,
                &mut self.y,
                trial,
                &mut self.brackt,
                self.stmin,
                self.stmax,
            );
        }
        if self.brackt {
            if (self.y.st - self.x.st).abs() >= 0.66 * self.width1 {
                next = self.x.st + 0.5 * (self.y.st - self.x.st);
            }
            self.width1 = self.width;
            self.width = (self.y.st - self.x.st).abs();
            self.stmin = self.x.st.min(self.y.st);
            self.stmax = self.x.st.max(self.y.st);
        } else {
            self.stmin = next + 1.1 * (next - self.x.st);
            self.stmax = next + 4.0 * (next - self.x.st);
        }
        next = next.clamp(STPMIN, STPMAX);
        if self.brackt
            && (next <= self.stmin
                || next >= self.stmax
                || self.stmax - self.stmin <= XTOL * self.stmax)
        {
            next = self.x.st;
        }
        Next::Try(next)
    }
}

/// The minimiser of the cubic through (st, f, g) of `a` and `b`, for `dcstep`'s cases.
fn cubic(a: Point, b: Point, clamp_root: bool) -> (f64, f64) {
    let theta = 3.0 * (a.f - b.f) / (b.st - a.st) + a.g + b.g;
    let s = theta.abs().max(a.g.abs()).max(b.g.abs());
    let mut disc = (theta / s).powi(2) - (a.g / s) * (b.g / s);
    if clamp_root {
        disc = disc.max(0.0);
    }
    (theta, s * disc.sqrt())
}

/// MINPACK's `dcstep`: the next trial step, and the bracket (x the best step so far, y the
/// other end) updated with the trial `t`.
fn dcstep(
    x: &mut Point,
    y: &mut Point,
    t: Point,
    brackt: &mut bool,
    stpmin: f64,
    stpmax: f64,
) -> f64 {
    let sgnd = t.g.signum() * x.g.signum() * f64::from(u8::from(t.g != 0.0 && x.g != 0.0));
    let stpf = if t.f > x.f {
        let (theta, mut gamma) = cubic(*x, t, false);
        if t.st < x.st {
            gamma = -gamma;
        }
        let p = (gamma - x.g) + theta;
        let q = ((gamma - x.g) + gamma) + t.g;
        let stpc = x.st + p / q * (t.st - x.st);
        let stpq = x.st + ((x.g / ((x.f - t.f) / (t.st - x.st) + x.g)) / 2.0) * (t.st - x.st);
        *brackt = true;
        if (stpc - x.st).abs() <= (stpq - x.st).abs() {
            stpc
        } else {
            stpc + (stpq - stpc) / 2.0
        }
    } else if sgnd < 0.0 {
        let (theta, mut gamma) = cubic(*x, t, false);
        if t.st > x.st {
            gamma = -gamma;
        }
        let p = (gamma - t.g) + theta;
        let q = ((gamma - t.g) + gamma) + x.g;
        let stpc = t.st + p / q * (x.st - t.st);
        let stpq = t.st + (t.g / (t.g - x.g)) * (x.st - t.st);
        *brackt = true;
        if (stpc - t.st).abs() > (stpq - t.st).abs() {
            stpc
        } else {
            stpq
        }
    } else if t.g.abs() < x.g.abs() {
        smaller_slope(x, y, t, *brackt, stpmin, stpmax)
    } else if *brackt {
        let (theta, mut gamma) = cubic(t, *y, false);
        if t.st > y.st {
            gamma = -gamma;
        }
        let p = (gamma - t.g) + theta;
        let q = ((gamma - t.g) + gamma) + y.g;
        t.st + p / q * (y.st - t.st)
    } else if t.st > x.st {
        stpmax
    } else {
        stpmin
    };
    if t.f > x.f {
        *y = t;
    } else {
        if sgnd < 0.0 {
            *y = *x;
        }
        *x = t;
    }
    stpf
}

/// `dcstep`'s third case: lower value, same slope sign, slope decreasing in magnitude.
fn smaller_slope(x: &Point, y: &Point, t: Point, brackt: bool, stpmin: f64, stpmax: f64) -> f64 {
    let (theta, mut gamma) = cubic(*x, t, true);
    if t.st > x.st {
        gamma = -gamma;
    }
    let p = (gamma - t.g) + theta;
    let q = (gamma + (x.g - t.g)) + gamma;
    let r = p / q;
    let stpc = if r < 0.0 && gamma != 0.0 {
        t.st + r * (x.st - t.st)
    } else if t.st > x.st {
        stpmax
    } else {
        stpmin
    };
    let stpq = t.st + (t.g / (t.g - x.g)) * (x.st - t.st);
    if brackt {
        let stpf = if (stpc - t.st).abs() < (stpq - t.st).abs() {
            stpc
        } else {
            stpq
        };
        if t.st > x.st {
            (t.st + 0.66 * (y.st - t.st)).min(stpf)
        } else {
            (t.st + 0.66 * (y.st - t.st)).max(stpf)
        }
    } else {
        let stpf = if (stpc - t.st).abs() > (stpq - t.st).abs() {
            stpc
        } else {
            stpq
        };
        stpf.clamp(stpmin, stpmax)
    }
}
