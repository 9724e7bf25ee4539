//! The near-duplicate settings `dedup` and `assign_split` share, their defaults and checks.

use kcurate_core::BuildError;

/// Near-duplicate settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NearConfig {
    /// Character n-gram length (1..=[`MAX_NGRAM`]).
    pub ngram: usize,
    /// MinHash functions (1..=[`MAX_NUM_PERM`]); must be a multiple of `bands`.
    pub num_perm: usize,
    /// LSH bands (1..=64); two texts become candidates when one band of `num_perm / bands`
    /// values is equal. More bands find lower similarities and cost more entries.
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

/// The most MinHash functions a recipe may ask for: each is 4 bytes of every text's
/// signature and one hash per n-gram, so the memory and time of a run grow with it
/// (1,024 already estimates a Jaccard similarity to within ±0.03).
pub const MAX_NUM_PERM: usize = 1024;

/// The longest n-gram a recipe may ask for (a longer one matches only near-copies that the
/// exact key already finds).
pub const MAX_NGRAM: usize = 64;

/// Near-duplicate settings that cannot work; the message names the setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NearConfigError {
    /// `ngram` is 0: there would be no n-grams to hash.
    #[error("ngram must be from 1 to {MAX_NGRAM} (got {0})")]
    Ngram(usize),
    /// `num_perm` is over [`MAX_NUM_PERM`].
    #[error("num_perm must be at most {MAX_NUM_PERM} (got {0})")]
    NumPerm(usize),
    /// `num_perm` is not a positive multiple of `bands`, or `bands` is 0 or over 64.
    #[error("num_perm ({num_perm}) must be a positive multiple of bands ({bands})")]
    Bands {
        /// The `num_perm` setting.
        num_perm: usize,
        /// The `bands` setting.
        bands: usize,
    },
    /// `threshold` is outside 0..=1 (or NaN).
    #[error("threshold {0} is not in 0..1")]
    Threshold(f64),
}

impl NearConfig {
    /// Checks that the settings describe a working MinHash/LSH index.
    pub fn validate(&self) -> Result<(), NearConfigError> {
        if self.ngram == 0 || self.ngram > MAX_NGRAM {
            return Err(NearConfigError::Ngram(self.ngram));
        }
        if self.num_perm > MAX_NUM_PERM {
            return Err(NearConfigError::NumPerm(self.num_perm));
        }
        if self.bands == 0
            || self.bands > 64
            || self.num_perm == 0
            || !self.num_perm.is_multiple_of(self.bands)
        {
            return Err(NearConfigError::Bands {
                num_perm: self.num_perm,
                bands: self.bands,
            });
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(NearConfigError::Threshold(self.threshold));
        }
        Ok(())
    }

    /// The near-duplicate settings of a stage's recipe table (`dedup`, `assign_split`):
    /// `on` is its `near` key (default [`near_on`]), these settings are flattened beside
    /// it. Checked even when off (an error names `near`); `None` when off. The two keys stay
    /// fields of each stage's config: one struct holding both would need a nested
    /// `serde(flatten)` under `deny_unknown_fields` (serde does not support it), or would
    /// put `near` behind the flatten, where its type error no longer says ``in `near` ``.
    pub fn for_stage(self, on: bool) -> Result<Option<NearConfig>, BuildError> {
        self.validate()
            .map_err(|e| BuildError::setting("near", e.to_string()))?;
        Ok(on.then_some(self))
    }
}

/// The default of a stage's `near` setting: on.
pub(crate) fn near_on() -> bool {
    true
}
