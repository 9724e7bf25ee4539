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

use unicode_normalization::UnicodeNormalization;

mod config;
pub(crate) use config::near_on;
pub use config::{MAX_NGRAM, MAX_NUM_PERM, NearConfig, NearConfigError};

/// The dedup key: NFC, lower case, letters and digits only.
pub fn dedup_key(text: &str) -> String {
    let mut buf = Vec::new();
    key_chars(text, &mut buf);
    buf.iter().filter_map(|&c| char::from_u32(c)).collect()
}

/// The dedup key as code points, into `out` (cleared first).
pub fn key_chars(text: &str, out: &mut Vec<u32>) {
    out.clear();
    let mut push = |c: char| {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase() as u32);
        } else if ('\u{AC00}'..='\u{D7A3}').contains(&c) || ('\u{3131}'..='\u{318E}').contains(&c) {
            out.push(c as u32);
        } else if !c.is_ascii() && c.is_alphanumeric() {
            out.extend(c.to_lowercase().map(|l| l as u32));
        }
    };
    if text.chars().all(crate::normalize::plain_char)
        || unicode_normalization::is_nfc_quick(text.chars())
            == unicode_normalization::IsNormalized::Yes
    {
        text.chars().for_each(&mut push);
    } else {
        text.nfc().for_each(&mut push);
    }
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

/// A seeded 128-bit hash of code points (two independent 64-bit lanes).
fn hash_key(seed: u64, key: &[u32]) -> (u64, u64) {
    let mut a = mix(seed ^ K1) ^ key.len() as u64;
    let mut b = mix(seed ^ K2) ^ (key.len() as u64).rotate_left(32);
    for pair in key.chunks(2) {
        let v = pair[0] as u64 | (pair.get(1).copied().unwrap_or(0x11_0000) as u64) << 32;
        a = mix(a ^ v).wrapping_add(K1);
        b = mix(b.wrapping_add(v) ^ K2).rotate_left(23);
    }
    (mix(a), mix(b))
}

/// MinHash signatures under one seed. Values are kept as 32 bits: the Jaccard estimate
/// gains a bias of about 2^-32 per position, and the index halves.
#[derive(Debug, Clone)]
pub struct MinHasher {
    cfg: NearConfig,
    a: Vec<u32>,
    b: Vec<u32>,
}

impl MinHasher {
    /// `cfg.num_perm` hash functions drawn from `seed`: the same seed gives the same
    /// signatures on every platform.
    pub fn new(seed: u64, cfg: NearConfig) -> Self {
        let mut s = seed ^ 0x006D_696E_6861_7368; // "minhash"
        let mut next = || {
            s = s.wrapping_add(K1);
            mix(s)
        };
        let a = (0..cfg.num_perm).map(|_| (next() as u32) | 1).collect();
        let b = (0..cfg.num_perm).map(|_| next() as u32).collect();
        MinHasher { cfg, a, b }
    }

    /// The signature of a key given as code points, into `sig`; false if the key is too
    /// short for near dedup.
    #[allow(unsafe_code)]
    pub fn signature_into(&self, key: &[u32], sig: &mut Vec<u32>) -> bool {
        sig.clear();
        if key.len() < self.cfg.min_chars.max(1) {
            return false;
        }
        let n = self.cfg.ngram.min(key.len());
        sig.resize(self.cfg.num_perm, u32::MAX);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { self.fold_shingles_avx2(key, n, sig) };
            return true;
        }
        self.fold_shingles(key, n, sig);
        true
    }

    /// [`fold_shingles`](Self::fold_shingles) compiled for AVX2: eight 32-bit multiplies at
    /// once where baseline x86-64 (SSE2) has none and emulates them. Integer arithmetic:
    /// the signature is the same bit for bit (tested).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fold_shingles_avx2(&self, key: &[u32], n: usize, sig: &mut [u32]) {
        self.fold_shingles(key, n, sig)
    }

    /// Folds every `n`-gram of `key` into the running minima `sig`.
    #[inline(always)]
    fn fold_shingles(&self, key: &[u32], n: usize, sig: &mut [u32]) {
        for w in key.windows(n) {
            let mut h = 0u64;
            for &c in w {
                h = (h ^ c as u64).wrapping_mul(0x100_0000_01B3).rotate_left(17);
            }
            let h = mix(h) as u32;
            // The family a·x + b (mod 2^32) over a well-mixed 32-bit shingle hash: it
            // vectorises.
            for ((m, a), b) in sig.iter_mut().zip(&self.a).zip(&self.b) {
                let v = h.wrapping_mul(*a).wrapping_add(*b);
                *m = (*m).min(v);
            }
        }
    }

    /// The signature of a text's dedup key (`None` if too short).
    pub fn signature(&self, text: &str) -> Option<Vec<u32>> {
        let mut k = Vec::new();
        key_chars(text, &mut k);
        let mut sig = Vec::new();
        self.signature_into(&k, &mut sig).then_some(sig)
    }

    /// One 64-bit key per band (band index mixed in). The band's values are mixed in two
    /// at a time, as one 64-bit word: half the mixing rounds of one value at a time.
    fn band_keys<'s>(&'s self, sig: &'s [u32]) -> impl Iterator<Item = u64> + 's {
        let rows = self.cfg.num_perm / self.cfg.bands;
        sig.chunks(rows).enumerate().map(|(i, c)| {
            let mut h = (i as u64).wrapping_mul(K2);
            for pair in c.chunks(2) {
                // Every band has the same number of rows, so a lone last value is no
                // ambiguity.
                let word = pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32;
                h = mix(h ^ word);
            }
            h
        })
    }
}

/// Share of equal positions of two signatures: the Jaccard estimate.
pub fn jaccard_estimate(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// What [`Deduper::offer`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// New: kept, and added to the index.
    Keep,
    /// Same key as the kept record with this index (in order of `offer` calls that kept).
    Exact {
        /// Index of the kept twin.
        twin: usize,
    },
    /// A MinHash Jaccard estimate at or above the threshold with a kept record.
    Near {
        /// Index of the kept twin (as for `Exact`).
        twin: usize,
        /// The Jaccard estimate, in [threshold, 1].
        score: f64,
    },
}

mod tables;

use tables::{BucketTable, ExactTable, NONE, SigStore};

/// Candidates checked per band at most (the newest first), so that a crowded bucket of
/// boilerplate cannot make the check quadratic.
const MAX_CANDIDATES_PER_BAND: usize = 16;

/// An incremental dedup index. Memory per kept text: 24 bytes of exact key, and with near
/// dedup `4 × num_perm` bytes of signature plus about 20 bytes per band (an 8-byte entry and its share of the slots).
pub struct Deduper {
    exact: bool,
    near: Option<MinHasher>,
    threshold: f64,
    seed: u64,
    keys: ExactTable,
    /// Bucket key → newest entry `signature number × bands + band`, and the entries.
    heads: BucketTable,
    /// Kept signatures, `num_perm` values each; entry `s × bands + band` of `heads` is a
    /// band of signature `s`, and `owner[s]` is the kept index of its text. Texts too short
    /// for near dedup have no signature and take no entries.
    sigs: SigStore,
    owner: Vec<u32>,
    kept: usize,
    /// Reused by [`offer`](Self::offer), so that one text at a time allocates nothing.
    scratch: Prepared,
}

impl Deduper {
    /// An empty index; `exact` checks dedup keys, `near` (validated) adds MinHash/LSH with
    /// functions seeded by `seed`.
    pub fn new(seed: u64, exact: bool, near: Option<NearConfig>) -> Self {
        Deduper {
            exact,
            threshold: near.map(|n| n.threshold).unwrap_or(1.0),
            near: near.map(|n| MinHasher::new(seed, n)),
            seed,
            keys: ExactTable::new(),
            heads: BucketTable::new(),
            sigs: SigStore::new(near.map_or(0, |n| n.num_perm)),
            owner: Vec::new(),
            kept: 0,
            scratch: Prepared::default(),
        }
    }

    /// Reserves room for `n` more kept texts (the corpus stage knows its size).
    pub fn reserve(&mut self, n: usize) {
        if self.exact {
            self.keys.reserve(n);
        }
        if let Some(mh) = &self.near {
            self.heads.reserve(n * mh.cfg.bands);
            self.owner.reserve(n);
        }
    }

    /// Number of kept texts so far.
    pub fn kept(&self) -> usize {
        self.kept
    }

    /// Looks `text` up without adding it.
    pub fn lookup(&self, text: &str) -> Verdict {
        let mut p = Prepared::default();
        self.prepare_key(text, &mut p);
        self.prepare_sig(&mut p);
        self.lookup_parts(p.kh, p.has_sig.then_some((&p.sig[..], &p.bands[..])))
    }

    fn lookup_parts(&self, kh: (u64, u64), sig: Option<(&[u32], &[u64])>) -> Verdict {
        if self.exact
            && let Some(twin) = self.keys.get(kh)
        {
            return Verdict::Exact {
                twin: twin as usize,
            };
        }
        let (Some(mh), Some((sig, keys))) = (&self.near, sig) else {
            return Verdict::Keep;
        };
        let bands = mh.cfg.bands as u32;
        let n = mh.cfg.num_perm;
        // A candidate fails once more than this many positions differ.
        let max_miss = ((1.0 - self.threshold) * n as f64).floor() as usize;
        let mut checked: [usize; 32] = [usize::MAX; 32];
        let mut n_checked = 0usize;
        // The first candidate at or above the threshold, in band order and newest first
        // within a band: a function of the kept texts only, so the result is stable.
        // All bucket heads first: independent loads, so their cache misses overlap.
        self.heads.prefetch(keys);
        let mut heads = [NONE; 64];
        for (h, &bk) in heads.iter_mut().zip(keys) {
            *h = self.heads.get(bk);
        }
        for &head in &heads[..keys.len()] {
            let mut e = head;
            let mut seen = 0;
            while e != NONE && seen < MAX_CANDIDATES_PER_BAND {
                let s = e / bands;
                let i = self.owner[s as usize] as usize;
                e = self.heads.older(e);
                seen += 1;
                if checked[..n_checked.min(32)].contains(&i) {
                    continue;
                }
                checked[n_checked % 32] = i;
                n_checked += 1;
                let other = self.sigs.get(s);
                let mut miss = 0usize;
                for (a, b) in sig.iter().zip(other) {
                    miss += usize::from(a != b);
                    if miss > max_miss {
                        break;
                    }
                }
                if miss <= max_miss {
                    return Verdict::Near {
                        twin: i,
                        score: (n - miss) as f64 / n as f64,
                    };
                }
            }
        }
        Verdict::Keep
    }

    /// Offers the next text in order: a duplicate of an earlier kept text is reported,
    /// anything else is kept and indexed.
    pub fn offer(&mut self, text: &str) -> Verdict {
        let mut p = std::mem::take(&mut self.scratch);
        self.prepare_key(text, &mut p);
        self.prepare_sig(&mut p);
        let v = self.commit(&p);
        self.scratch = p;
        v
    }

    /// [`offer`](Self::offer) for each text in order, with the same verdicts. The texts go
    /// a window at a time: all their exact keys are hashed and their slots prefetched, then
    /// the texts that are no known exact duplicate get signatures and their bucket slots
    /// are prefetched, then each is looked up and indexed in order. The index outgrows the
    /// caches on a real corpus, and one text at a time leaves its memory loads nothing to
    /// overlap with.
    pub fn offer_batch<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) -> Vec<Verdict> {
        const WINDOW: usize = 64;
        let mut window: Vec<Prepared> = Vec::with_capacity(WINDOW);
        let mut spare: Vec<Prepared> = Vec::new();
        let mut out = Vec::new();
        let mut texts = texts.into_iter().peekable();
        while texts.peek().is_some() {
            for text in texts.by_ref().take(WINDOW) {
                let mut p = spare.pop().unwrap_or_default();
                self.prepare_key(text, &mut p);
                if self.exact {
                    self.keys.prefetch(p.kh);
                }
                window.push(p);
            }
            for p in &mut window {
                self.prepare_sig(p);
                self.heads.prefetch(&p.bands);
            }
            for p in window.drain(..) {
                out.push(self.commit(&p));
                spare.push(p);
            }
        }
        out
    }

    /// A text's keys as this index hashes them, for [`offer_keys`](Self::offer_keys) and
    /// [`lookup_keys`](Self::lookup_keys) later (by any index of the same seed and settings).
    pub fn keys(&self, text: &str) -> TextKeys {
        let mut key = Vec::new();
        key_chars(text, &mut key);
        let mut sig = Vec::new();
        let has_sig = self
            .near
            .as_ref()
            .is_some_and(|mh| mh.signature_into(&key, &mut sig));
        TextKeys {
            exact: hash_key(self.seed, &key),
            sig: has_sig.then_some(sig),
        }
    }

    /// [`offer`](Self::offer) for a text given by its [`keys`](Self::keys): the same verdict.
    pub fn offer_keys(&mut self, k: &TextKeys) -> Verdict {
        let mut p = std::mem::take(&mut self.scratch);
        self.fill_prepared(k, &mut p);
        let v = self.commit(&p);
        self.scratch = p;
        v
    }

    /// [`lookup`](Self::lookup) for a text given by its [`keys`](Self::keys).
    pub fn lookup_keys(&self, k: &TextKeys) -> Verdict {
        let mut p = Prepared::default();
        self.fill_prepared(k, &mut p);
        self.lookup_parts(p.kh, p.has_sig.then_some((&p.sig[..], &p.bands[..])))
    }

    /// The keys under which this index can find a text again, as its tables compare them:
    /// the exact key's 96 bits that the exact table confirms (when exact dedup is on),
    /// and each band key's 63 bits that a bucket is told apart by (when the text has a
    /// signature). Two texts can only meet in [`offer`](Self::offer) or
    /// [`lookup`](Self::lookup) when they share one of these: a text that shares none with
    /// any other is kept and never named as a twin, so an engine that groups texts by these
    /// keys (a shuffle) finds every text whose verdict depends on another.
    pub fn meeting_keys(&self, k: &TextKeys) -> MeetingKeys {
        let bands = match (&self.near, &k.sig) {
            (Some(mh), Some(sig)) => mh
                .band_keys(sig)
                .map(|b| b & 0x7FFF_FFFF_FFFF_FFFF)
                .collect(),
            _ => Vec::new(),
        };
        MeetingKeys {
            exact: self.exact.then_some((k.exact.0, k.exact.1 as u32)),
            bands,
        }
    }

    fn fill_prepared(&self, k: &TextKeys, p: &mut Prepared) {
        p.key.clear();
        p.kh = k.exact;
        p.sig.clear();
        p.bands.clear();
        p.has_sig = false;
        if let (Some(mh), Some(sig)) = (&self.near, &k.sig) {
            p.has_sig = true;
            p.sig.extend_from_slice(sig);
            p.bands.extend(mh.band_keys(sig));
        }
    }

    /// Hashes a text's exact key.
    fn prepare_key(&self, text: &str, p: &mut Prepared) {
        key_chars(text, &mut p.key);
        p.kh = hash_key(self.seed, &p.key);
    }

    /// Unless the text is already a known exact duplicate: its MinHash signature and band
    /// keys.
    fn prepare_sig(&self, p: &mut Prepared) {
        p.has_sig = false;
        p.sig.clear();
        p.bands.clear();
        if self.exact && self.keys.get(p.kh).is_some() {
            // Kept keys are never removed: the commit finds it again.
            return;
        }
        if let Some(mh) = &self.near
            && mh.signature_into(&p.key, &mut p.sig)
        {
            p.has_sig = true;
            p.bands.extend(mh.band_keys(&p.sig));
        }
    }

    /// Looks a prepared text up and indexes it when it is kept.
    fn commit(&mut self, p: &Prepared) -> Verdict {
        let v = self.lookup_parts(p.kh, p.has_sig.then_some((&p.sig[..], &p.bands[..])));
        if v == Verdict::Keep {
            let idx = self.kept as u32;
            self.kept += 1;
            if self.exact {
                self.keys.insert(p.kh, idx);
            }
            if let Some(mh) = &self.near {
                let bands = mh.cfg.bands as u32;
                if p.has_sig {
                    let s = self.sigs.push(&p.sig);
                    self.owner.push(idx);
                    for (b, &bk) in p.bands.iter().enumerate() {
                        debug_assert_eq!(self.heads.entries(), (s * bands + b as u32) as usize);
                        self.heads.push(bk);
                    }
                }
            }
        }
        v
    }
}

/// A text's keys for a [`Deduper`] (see [`Deduper::keys`]): the hash of its dedup key and,
/// when the key is long enough for near dedup, its MinHash signature. They stand for the
/// text: offered or looked up, they get the verdicts the text gets.
#[derive(Debug, Clone, PartialEq)]
pub struct TextKeys {
    /// The 128-bit hash of the text's dedup key (exact duplicates share it).
    pub exact: (u64, u64),
    /// The MinHash signature (`num_perm` values), or `None` when the key is too short for
    /// near dedup.
    pub sig: Option<Vec<u32>>,
}

/// Where a text can meet another in a [`Deduper`] (see [`Deduper::meeting_keys`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MeetingKeys {
    /// The exact key's first 64 bits and the low 32 of its second half (what the exact
    /// table confirms a match on); `None` when exact dedup is off.
    pub exact: Option<(u64, u32)>,
    /// Each band key without its top bit (what a bucket is told apart by), band order;
    /// empty without near dedup or for a text too short for it.
    pub bands: Vec<u64>,
}

/// A text hashed for the index, before it is looked up.
#[derive(Default)]
struct Prepared {
    key: Vec<u32>,
    kh: (u64, u64),
    has_sig: bool,
    sig: Vec<u32>,
    bands: Vec<u64>,
}

/// A dev/test text found in train.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The dev/test record.
    pub eval_id: String,
    /// The first kept train record it repeats.
    pub train_id: String,
    /// `exact` or `near`.
    pub kind: &'static str,
    /// The Jaccard estimate in [0, 1]; 1 for an exact repeat.
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
    let train: Vec<(&str, &str)> = train.into_iter().collect();
    idx.reserve(train.len());
    let verdicts = idx.offer_batch(train.iter().map(|&(_, text)| text));
    let train_ids: Vec<&str> = train
        .iter()
        .zip(verdicts)
        .filter(|(_, v)| *v == Verdict::Keep)
        .map(|(&(id, _), _)| id)
        .collect();
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
mod tests;
