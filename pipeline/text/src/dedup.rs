//! Exact and near-duplicate detection, and the release contamination check.
//!
//! - Exact: a 128-bit hash of the *dedup key* (NFC text, lower-cased, letters and digits
//!   only, so spacing and punctuation differences do not hide a duplicate).
//! - Near: MinHash over character n-grams of the key with `num_perm` seeded hash functions,
//!   LSH with `bands` bands; a candidate is a near duplicate when the share of equal
//!   MinHash values (the Jaccard estimate) reaches `threshold`.
//!
//! [`Deduper`] is incremental: records are offered in a stable order and the first of a
//! group is kept, so the index holds only hashes of the kept texts (memory grows with the
//! number of distinct texts, not with the input). Hashes are seeded and portable (no
//! `std` hasher, no hash-map iteration order reaches an output).

use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;

/// Near-duplicate settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NearConfig {
    /// Character n-gram length.
    pub ngram: usize,
    /// MinHash functions; must be a multiple of `bands`.
    pub num_perm: usize,
    pub bands: usize,
    /// Jaccard estimate at or above which two texts are near duplicates.
    pub threshold: f64,
    /// Keys shorter than this (in chars) are only checked for exact duplicates.
    pub min_chars: usize,
}

impl Default for NearConfig {
    fn default() -> Self {
        NearConfig {
            ngram: 5,
            num_perm: 64,
            bands: 16,
            threshold: 0.8,
            min_chars: 10,
        }
    }
}

impl NearConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.ngram == 0 {
            return Err("ngram must be at least 1".into());
        }
        if self.bands == 0 || self.num_perm == 0 || !self.num_perm.is_multiple_of(self.bands) {
            return Err(format!(
                "num_perm ({}) must be a positive multiple of bands ({})",
                self.num_perm, self.bands
            ));
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!("threshold {} is not in 0..1", self.threshold));
        }
        Ok(())
    }
}

/// The dedup key: NFC, lower case, letters and digits only.
pub fn dedup_key(text: &str) -> String {
    text.nfc()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

const K1: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xC2B2_AE3D_27D4_EB4F;

#[inline]
fn mix(mut x: u64) -> u64 {
    // splitmix64 finaliser
    x ^= x >> 30;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A seeded, portable 64-bit hash of bytes.
pub fn hash64(seed: u64, data: &[u8]) -> u64 {
    let mut h = mix(seed ^ K1) ^ (data.len() as u64).wrapping_mul(K2);
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        h = mix(h ^ u64::from_le_bytes(b)).wrapping_add(K1);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        h = mix(h ^ u64::from_le_bytes(b) ^ 0xFF);
    }
    mix(h)
}

/// MinHash signatures under one seed.
#[derive(Debug, Clone)]
pub struct MinHasher {
    cfg: NearConfig,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHasher {
    pub fn new(seed: u64, cfg: NearConfig) -> Self {
        let mut s = seed ^ 0x006D_696E_6861_7368; // "minhash"
        let mut next = || {
            s = s.wrapping_add(K1);
            mix(s)
        };
        let a = (0..cfg.num_perm).map(|_| next() | 1).collect();
        let b = (0..cfg.num_perm).map(|_| next()).collect();
        MinHasher { cfg, a, b }
    }

    /// The signature of a key (`None` if the key is too short for near dedup).
    pub fn signature(&self, key: &str) -> Option<Vec<u64>> {
        let chars: Vec<u32> = key.chars().map(|c| c as u32).collect();
        if chars.len() < self.cfg.min_chars.max(1) {
            return None;
        }
        let n = self.cfg.ngram.min(chars.len());
        let mut sig = vec![u64::MAX; self.cfg.num_perm];
        for w in chars.windows(n) {
            let mut h = 0u64;
            for &c in w {
                h = (h ^ c as u64).wrapping_mul(0x100_0000_01B3).rotate_left(17);
            }
            let h = mix(h);
            for ((m, a), b) in sig.iter_mut().zip(&self.a).zip(&self.b) {
                let v = h.wrapping_mul(*a).wrapping_add(*b);
                if v < *m {
                    *m = v;
                }
            }
        }
        Some(sig)
    }

    fn band_keys<'s>(&'s self, sig: &'s [u64]) -> impl Iterator<Item = (u32, u64)> + 's {
        let rows = self.cfg.num_perm / self.cfg.bands;
        sig.chunks(rows).enumerate().map(|(i, c)| {
            let mut h = i as u64;
            for &v in c {
                h = mix(h ^ v);
            }
            (i as u32, h)
        })
    }
}

/// Share of equal positions of two signatures: the Jaccard estimate.
pub fn jaccard_estimate(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// What [`Deduper::offer`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Keep,
    /// Same key as the kept record with this index (in order of `offer` calls that kept).
    Exact {
        twin: usize,
    },
    Near {
        twin: usize,
        score: f64,
    },
}

/// An incremental dedup index.
pub struct Deduper {
    exact: bool,
    near: Option<MinHasher>,
    threshold: f64,
    keys: HashMap<(u64, u64), usize>,
    buckets: HashMap<(u32, u64), Vec<usize>>,
    sigs: Vec<Option<Vec<u64>>>,
    kept: usize,
    seed: u64,
}

impl Deduper {
    pub fn new(seed: u64, exact: bool, near: Option<NearConfig>) -> Self {
        Deduper {
            exact,
            threshold: near.map(|n| n.threshold).unwrap_or(1.0),
            near: near.map(|n| MinHasher::new(seed, n)),
            keys: HashMap::new(),
            buckets: HashMap::new(),
            sigs: Vec::new(),
            kept: 0,
            seed,
        }
    }

    /// Number of kept texts so far.
    pub fn kept(&self) -> usize {
        self.kept
    }

    fn key_hash(&self, key: &str) -> (u64, u64) {
        (
            hash64(self.seed, key.as_bytes()),
            hash64(self.seed ^ K2, key.as_bytes()),
        )
    }

    /// Looks `text` up without adding it.
    pub fn lookup(&self, text: &str) -> Verdict {
        let key = dedup_key(text);
        self.lookup_key(&key, None).0
    }

    fn lookup_key(
        &self,
        key: &str,
        sig_out: Option<&mut Option<Vec<u64>>>,
    ) -> (Verdict, (u64, u64)) {
        let kh = self.key_hash(key);
        if self.exact
            && let Some(&twin) = self.keys.get(&kh)
        {
            return (Verdict::Exact { twin }, kh);
        }
        if let Some(mh) = &self.near
            && let Some(sig) = mh.signature(key)
        {
            let mut best: Option<(usize, f64)> = None;
            for bk in mh.band_keys(&sig) {
                if let Some(list) = self.buckets.get(&bk) {
                    for &i in list {
                        if let Some(Some(other)) = self.sigs.get(i) {
                            let s = jaccard_estimate(&sig, other);
                            // Lowest index wins a tie, so the result is order-independent.
                            let better = match best {
                                None => true,
                                Some((bi, bs)) => s > bs || (s == bs && i < bi),
                            };
                            if s >= self.threshold && better {
                                best = Some((i, s));
                            }
                        }
                    }
                }
            }
            if let Some((twin, score)) = best {
                return (Verdict::Near { twin, score }, kh);
            }
            if let Some(o) = sig_out {
                *o = Some(sig);
            }
        }
        (Verdict::Keep, kh)
    }

    /// Offers the next text in order: a duplicate of an earlier kept text is reported,
    /// anything else is kept and indexed.
    pub fn offer(&mut self, text: &str) -> Verdict {
        let key = dedup_key(text);
        let mut sig = None;
        let (v, kh) = self.lookup_key(&key, Some(&mut sig));
        if v != Verdict::Keep {
            return v;
        }
        let idx = self.kept;
        self.kept += 1;
        if self.exact {
            self.keys.insert(kh, idx);
        }
        if let (Some(mh), Some(sig)) = (&self.near, &sig) {
            for bk in mh.band_keys(sig) {
                self.buckets.entry(bk).or_default().push(idx);
            }
        }
        self.sigs.push(sig);
        v
    }
}

/// A dev/test text found in train.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub eval_id: String,
    pub train_id: String,
    /// `exact` or `near`.
    pub kind: &'static str,
    pub score: f64,
}

/// The contamination check of a release: every `eval` text (dev/test) that appears in
/// `train`, exactly (same dedup key) or nearly (MinHash Jaccard ≥ threshold). Violations
/// come in `eval` order; the split stage fixes them (moves or drops) and records why.
pub fn contamination<'a>(
    train: impl IntoIterator<Item = (&'a str, &'a str)>,
    eval: impl IntoIterator<Item = (&'a str, &'a str)>,
    seed: u64,
    near: Option<NearConfig>,
) -> Vec<Violation> {
    let mut idx = Deduper::new(seed, true, near);
    let mut train_ids: Vec<&str> = Vec::new();
    for (id, text) in train {
        if idx.offer(text) == Verdict::Keep {
            train_ids.push(id);
        }
    }
    let mut out = Vec::new();
    for (id, text) in eval {
        let (kind, twin, score) = match idx.lookup(text) {
            Verdict::Keep => continue,
            Verdict::Exact { twin } => ("exact", twin, 1.0),
            Verdict::Near { twin, score } => ("near", twin, score),
        };
        out.push(Violation {
            eval_id: id.to_string(),
            train_id: train_ids
                .get(twin)
                .map(|s| s.to_string())
                .unwrap_or_default(),
            kind,
            score,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_spacing_and_punctuation() {
        assert_eq!(dedup_key("정말 재밌어요!!"), dedup_key("정말재밌어요."));
        assert_eq!(dedup_key("ABC d"), "abcd");
    }

    #[test]
    fn exact_and_near() {
        let mut d = Deduper::new(42, true, Some(NearConfig::default()));
        let a = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요";
        let b = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어요!";
        let c = "이 영화는 정말 최고의 작품이었다고 생각합니다 배우들의 연기도 훌륭했어";
        let z = "주말에 가족들과 함께 공원에 다녀왔는데 날씨가 좋아서 즐거웠습니다";
        assert_eq!(d.offer(a), Verdict::Keep);
        assert_eq!(d.offer(z), Verdict::Keep);
        assert_eq!(d.offer(b), Verdict::Exact { twin: 0 });
        match d.offer(c) {
            Verdict::Near { twin, score } => {
                assert_eq!(twin, 0);
                assert!(score >= 0.8, "{score}");
            }
            v => panic!("expected near, got {v:?}"),
        }
        assert_eq!(d.kept(), 2);
    }

    #[test]
    fn seeded_and_portable() {
        assert_eq!(hash64(1, b"abc"), hash64(1, b"abc"));
        assert_ne!(hash64(1, b"abc"), hash64(2, b"abc"));
        // Golden value: a change would silently change which twin a release keeps.
        assert_eq!(hash64(0, b""), 5_197_578_548_964_807_871);
        assert_eq!(
            hash64(42, "정말 재밌어요".as_bytes()),
            1_248_164_935_329_261_326
        );
        let m = MinHasher::new(7, NearConfig::default());
        assert_eq!(
            m.signature("가나다라마바사아자차"),
            m.signature("가나다라마바사아자차")
        );
    }

    #[test]
    fn contamination_lists_violations() {
        let train = [
            (
                "t1",
                "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다",
            ),
            ("t2", "다른 문장입니다 전혀 관련이 없는 내용"),
        ];
        let eval = [
            (
                "d1",
                "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔다.",
            ),
            (
                "d2",
                "서울의 날씨가 오늘 매우 맑고 따뜻했다고 기상청이 밝혔어",
            ),
            ("d3", "완전히 새로운 평가 문장이라서 문제가 없다"),
        ];
        let v = contamination(train, eval, 42, Some(NearConfig::default()));
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].eval_id.as_str(), v[0].train_id.as_str(), v[0].kind),
            ("d1", "t1", "exact")
        );
        assert_eq!((v[1].eval_id.as_str(), v[1].kind), ("d2", "near"));
    }
}
