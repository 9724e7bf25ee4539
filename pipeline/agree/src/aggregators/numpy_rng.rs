//! numpy's legacy `RandomState(seed)` uniform draws (MT19937 seeded by `init_genrand`, two
//! 32-bit outputs per 53-bit double), its legacy normal draws and the digamma function: what
//! crowd-kit's MACE, M-MSR and KOS start from (and MACE updates with), reproduced so their
//! seeded starts are the same here.

const N: usize = 624;
const M: usize = 397;

/// MT19937 as numpy's `RandomState` seeds it from an integer.
pub(crate) struct Mt19937 {
    key: [u32; N],
    pos: usize,
}

impl Mt19937 {
    /// `np.random.RandomState(seed)`.
    pub(crate) fn new(seed: u32) -> Mt19937 {
        let mut key = [0u32; N];
        key[0] = seed;
        for i in 1..N {
            let p = key[i - 1];
            key[i] = 1_812_433_253u32
                .wrapping_mul(p ^ (p >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { key, pos: N }
    }

    fn generate(&mut self) {
        let (upper, lower) = (0x8000_0000u32, 0x7fff_ffffu32);
        for i in 0..N {
            let y = (self.key[i] & upper) | (self.key[(i + 1) % N] & lower);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            self.key[i] = self.key[(i + M) % N] ^ (y >> 1) ^ mag;
        }
        self.pos = 0;
    }

    fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.generate();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random_sample()`: a double in [0, 1) from 27 + 26 bits.
    pub(crate) fn next_f64(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }
}

/// numpy's legacy `RandomState.normal(loc, scale)`: the polar method over the uniform draws,
/// each rejection-sampled pair giving two normals, the second kept for the next call (numpy's
/// `legacy_gauss`), so a seeded sequence equals numpy's draw for draw.
pub(crate) struct LegacyNormal {
    mt: Mt19937,
    kept: Option<f64>,
}

impl LegacyNormal {
    /// After `np.random.seed(seed)`.
    pub(crate) fn new(seed: u32) -> LegacyNormal {
        LegacyNormal {
            mt: Mt19937::new(seed),
            kept: None,
        }
    }

    /// `normal(loc, scale)`: `loc + scale · gauss`.
    pub(crate) fn next(&mut self, loc: f64, scale: f64) -> f64 {
        loc + scale * self.gauss()
    }

    fn gauss(&mut self) -> f64 {
        if let Some(g) = self.kept.take() {
            return g;
        }
        let (x1, x2, r2) = loop {
            let x1 = 2.0 * self.mt.next_f64() - 1.0;
            let x2 = 2.0 * self.mt.next_f64() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                break (x1, x2, r2);
            }
        };
        let f = (-2.0 * r2.ln() / r2).sqrt();
        self.kept = Some(f * x1);
        f * x2
    }
}

/// ψ(x) for x > 0: the recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then the asymptotic
/// series (as cephes, which scipy's `digamma` uses, does for positive arguments).
pub(crate) fn digamma(mut x: f64) -> f64 {
    let mut shift = 0.0;
    while x < 10.0 {
        shift -= 1.0 / x;
        x += 1.0;
    }
    // Bernoulli terms B2k / (2k) of the series in 1/x².
    const A: [f64; 7] = [
        8.333_333_333_333_333e-2,
        -2.109_279_609_279_609e-2,
        7.575_757_575_757_576e-3,
        -4.166_666_666_666_667e-3,
        3.968_253_968_253_968e-3,
        -8.333_333_333_333_333e-3,
        8.333_333_333_333_333e-2,
    ];
    let z = 1.0 / (x * x);
    // cephes' polevl: A holds the highest power first.
    let poly = A.iter().fold(0.0, |acc, a| acc * z + a) * z;
    x.ln() - 0.5 / x - poly + shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_equal_numpys_random_state_zero() {
        let mut r = Mt19937::new(0);
        let got: Vec<f64> = (0..3).map(|_| r.next_f64()).collect();
        assert_eq!(
            got,
            [0.5488135039273248, 0.7151893663724195, 0.6027633760716439]
        );
    }

    #[test]
    fn normals_equal_numpys_after_seed_zero() {
        let mut r = LegacyNormal::new(0);
        let got: Vec<f64> = (0..5).map(|_| r.next(1.0, 1.0)).collect();
        assert_eq!(
            got,
            [
                2.764052345967664,
                1.4001572083672233,
                1.9787379841057393,
                3.240893199201458,
                2.8675579901499675
            ]
        );
    }

    #[test]
    fn digamma_equals_scipys() {
        for (x, want) in [
            (0.5, -1.9635100260214235),
            (1.0, -0.5772156649015329),
            (10.3, 2.2828154464391224),
            (123.4567, 4.811835016874864),
        ] {
            let got = digamma(x);
            assert!(
                (got - want).abs() <= 4e-15 * want.abs().max(1.0),
                "{x}: {got} {want}"
            );
        }
    }
}
