//! Korean ROUGE at the syllable level: after NFC, every code point that is not white space
//! is one token (a Hangul syllable, a Latin letter, a digit, a punctuation mark). ROUGE-1,
//! ROUGE-2 and ROUGE-L F1 (β = 1) as exact fractions `num/den`, so comparisons never depend
//! on floating point. Eojeol (space-separated word) tokens are an option.
//!
//! The `rouge-score` Python package scores every Korean pair 0 with its default tokenizer:
//! it keeps only `[a-z0-9]+` tokens, so Hangul text becomes empty.

use unicode_normalization::UnicodeNormalization;

/// Which ROUGE F1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Unigram overlap.
    Rouge1,
    /// Bigram overlap.
    Rouge2,
    /// Longest common subsequence.
    RougeL,
}

/// A metric name that is not one of `rouge1`, `rouge2`, `rougeL`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric {0:?} (rouge1, rouge2, rougeL)")]
pub struct UnknownMetric(pub String);

impl std::str::FromStr for Metric {
    type Err = UnknownMetric;
    fn from_str(s: &str) -> Result<Self, UnknownMetric> {
        match s {
            "rouge1" => Ok(Metric::Rouge1),
            "rouge2" => Ok(Metric::Rouge2),
            "rougeL" => Ok(Metric::RougeL),
            _ => Err(UnknownMetric(s.to_string())),
        }
    }
}

impl Metric {
    /// The name the CLI and the output use (`rouge1`, `rouge2`, `rougeL`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Rouge1 => "rouge1",
            Metric::Rouge2 => "rouge2",
            Metric::RougeL => "rougeL",
        }
    }
}

/// Syllable tokens: NFC, white space removed, one token per code point.
pub fn syllables(text: &str) -> Vec<char> {
    text.nfc().filter(|c| !c.is_whitespace()).collect()
}

/// Eojeol tokens: NFC, split on white space.
pub fn eojeols(text: &str) -> Vec<String> {
    text.nfc()
        .collect::<String>()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// An exact score num/den (den > 0; a zero denominator is 0/1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frac {
    /// Numerator.
    pub num: u64,
    /// Denominator, never 0.
    pub den: u64,
}

impl Frac {
    /// `num/den`, or 0/1 when `den` is 0.
    pub fn new(num: u64, den: u64) -> Frac {
        if den == 0 {
            Frac { num: 0, den: 1 }
        } else {
            Frac { num, den }
        }
    }

    /// Exact order of two fractions (cross-multiplied): 6/30 and 8/40 are equal.
    pub fn cmp_exact(self, o: Frac) -> std::cmp::Ordering {
        (self.num as u128 * o.den as u128).cmp(&(o.num as u128 * self.den as u128))
    }

    /// The nearest f64 (for display and statistics; comparisons use [`Frac::cmp_exact`]).
    pub fn f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Rounded to 6 decimals, ties to even, as `I.DDDDDD`.
    pub fn six(self) -> String {
        let x = self.num as u128 * 1_000_000;
        let (mut q, r) = (x / self.den as u128, x % self.den as u128);
        if 2 * r > self.den as u128 || (2 * r == self.den as u128 && q % 2 == 1) {
            q += 1;
        }
        format!("{}.{:06}", q / 1_000_000, q % 1_000_000)
    }
}

/// Multiset overlap of two sorted token lists (core's, shared with `why`).
pub use kcurate_core::text::overlap_sorted;

/// Longest common subsequence length (dynamic programme, two rows).
pub fn lcs<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// ROUGE F1 of two token sequences as an exact fraction.
pub fn score<T: Ord + Clone>(metric: Metric, s: &[T], t: &[T]) -> Frac {
    match metric {
        Metric::Rouge1 => {
            let (mut a, mut b) = (s.to_vec(), t.to_vec());
            a.sort();
            b.sort();
            Frac::new(2 * overlap_sorted(&a, &b), (s.len() + t.len()) as u64)
        }
        Metric::Rouge2 => {
            let bi = |x: &[T]| -> Vec<(T, T)> {
                let mut v: Vec<(T, T)> =
                    x.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect();
                v.sort();
                v
            };
            let (a, b) = (bi(s), bi(t));
            Frac::new(2 * overlap_sorted(&a, &b), (a.len() + b.len()) as u64)
        }
        Metric::RougeL => Frac::new(2 * lcs(s, t) as u64, (s.len() + t.len()) as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_examples() {
        let s = syllables("힛걸 진심 최고다 그 어떤 히어로보다 멋지다");
        let t = syllables("힛걸 진심 최고로 멋지다.");
        assert_eq!((s.len(), t.len()), (18, 11));
        assert_eq!(score(Metric::Rouge1, &s, &t).six(), "0.689655");
        assert_eq!(score(Metric::Rouge2, &s, &t).six(), "0.518519");
        assert_eq!(score(Metric::RougeL, &s, &t).six(), "0.689655");
        assert_eq!(
            lcs(
                &"ABCBDAB".chars().collect::<Vec<_>>(),
                &"BDCABA".chars().collect::<Vec<_>>()
            ),
            4
        );
        assert_eq!(Frac::new(2, 256).six(), "0.007812");
        assert_eq!(Frac::new(1, 3).six(), "0.333333");
        assert_eq!(Frac::new(2, 3).six(), "0.666667");
        assert_eq!(Frac::new(0, 0).six(), "0.000000");
    }
}
