//! The near-duplicate settings `dedup` and `assign_split` share, their defaults and checks.

use kcurate_core::BuildError;

/// Near-duplicate settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NearConfig {
    /// Character n-gram length.
    pub ngram: usize,
    /// MinHash functions; must be a multiple of `bands`.
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

/// Near-duplicate settings that cannot work; the message names the setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NearConfigError {
    /// `ngram` is 0: there would be no n-grams to hash.
    #[error("ngram must be at least 1")]
    Ngram,
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
        if self.ngram == 0 {
            return Err(NearConfigError::Ngram);
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
