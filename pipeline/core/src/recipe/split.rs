//! `[split]`: the seeded hash split of records no task stage assigned, and the names the
//! release gives its splits.

use serde::{Deserialize, Serialize};

/// `[split]`: how records that no task stage assigned are split, by a seeded hash of
/// their id (so a record's split never depends on order or thread count).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitConfig {
    /// Share of records in `train`.
    #[serde(default = "default_train")]
    pub train: f64,
    /// The held-out split's share (`validation = ...` is the same key, as HF names it).
    #[serde(default = "default_dev", alias = "validation")]
    pub dev: f64,
    /// Share of records in `test`.
    #[serde(default = "default_dev")]
    pub test: f64,
    /// The names the three splits get in the release (files, manifest, card, report).
    #[serde(default)]
    pub names: SplitNames,
}

/// `[split] names`: the name each split role is released under. Stages speak of the roles
/// `train`, `dev` and `test`; the release writer names them. The default is the Hugging Face
/// convention (`train`, `validation`, `test`); a recipe keeping KLUE's `dev` says
/// `names = { dev = "dev" }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitNames {
    /// The train split's released name.
    #[serde(default = "name_train")]
    pub train: String,
    /// The held-out (dev) split's released name: `validation` unless the recipe says.
    #[serde(default = "name_dev")]
    pub dev: String,
    /// The test split's released name.
    #[serde(default = "name_test")]
    pub test: String,
}

fn name_train() -> String {
    "train".into()
}
fn name_dev() -> String {
    "validation".into()
}
fn name_test() -> String {
    "test".into()
}

impl Default for SplitNames {
    fn default() -> Self {
        SplitNames {
            train: name_train(),
            dev: name_dev(),
            test: name_test(),
        }
    }
}

impl SplitNames {
    /// The roles, in release order.
    pub const ROLES: [&'static str; 3] = ["train", "dev", "test"];

    /// The released name of a split role; any other split (one an input named, e.g. a
    /// `split` field) keeps its own name.
    pub fn name<'a>(&'a self, split: &'a str) -> &'a str {
        match split {
            "train" => &self.train,
            "dev" => &self.dev,
            "test" => &self.test,
            other => other,
        }
    }

    /// The role a released name stands for (`None` for a name that is no role's).
    pub fn role(&self, name: &str) -> Option<&'static str> {
        Self::ROLES.into_iter().find(|r| self.name(r) == name)
    }

    /// role → released name, as the manifest records it.
    pub fn to_map(&self) -> std::collections::BTreeMap<String, String> {
        Self::ROLES
            .into_iter()
            .map(|r| (r.to_string(), self.name(r).to_string()))
            .collect()
    }
}

fn default_train() -> f64 {
    0.8
}
fn default_dev() -> f64 {
    0.1
}

impl SplitConfig {
    /// The split of a record no stage assigned: a seeded hash of its id against the ratios,
    /// so it never depends on order or thread count.
    pub fn assign(&self, seed: u64, id: &str) -> &'static str {
        let x = crate::hash::seeded_u64(seed, id.as_bytes()) as f64 / (u64::MAX as f64 + 1.0);
        if x < self.train {
            "train"
        } else if x < self.train + self.dev {
            "dev"
        } else {
            "test"
        }
    }
}

impl Default for SplitConfig {
    fn default() -> Self {
        SplitConfig {
            train: 0.8,
            dev: 0.1,
            test: 0.1,
            names: SplitNames::default(),
        }
    }
}
