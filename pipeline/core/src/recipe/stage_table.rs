//! One `[[stage]]` table, read once when the recipe loads: the stage's name, the runner's
//! filters, the settings its `build` gets, and the line of its header. Everything that
//! asks "which stages does this recipe run" (the runner, `check`, the card, the scrubber
//! the CLI uses) reads these, not the raw table.

use crate::stage::SourceInfo;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Keys of a `[[stage]]` table that the runner reads; the rest go to the stage.
pub const RUNNER_KEYS: [&str; 4] = ["name", "only_sources", "only_styles", "only_domains"];

/// The runner's own filters of a stage (`only_sources`, `only_styles`, `only_domains`),
/// as the recipe lists them; `None`: the stage sees every record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StageFilters {
    /// Source ids whose records the stage sees.
    pub only_sources: Option<Vec<String>>,
    /// Styles (`formal`, `colloquial`) whose records the stage sees.
    pub only_styles: Option<Vec<String>>,
    /// Domains whose records the stage sees.
    pub only_domains: Option<Vec<String>>,
}

impl StageFilters {
    /// The three filters as sets, in the order of [`RUNNER_KEYS`] after `name`.
    pub fn sets(&self) -> [Option<BTreeSet<String>>; 3] {
        let set = |v: &Option<Vec<String>>| v.as_ref().map(|v| v.iter().cloned().collect());
        [
            set(&self.only_sources),
            set(&self.only_styles),
            set(&self.only_domains),
        ]
    }

    fn slots(&mut self) -> [&mut Option<Vec<String>>; 3] {
        [
            &mut self.only_sources,
            &mut self.only_styles,
            &mut self.only_domains,
        ]
    }

    fn listed(&self) -> [&Option<Vec<String>>; 3] {
        [&self.only_sources, &self.only_styles, &self.only_domains]
    }
}

/// One `[[stage]]` of a recipe, parsed once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "toml::Table", into = "toml::Table")]
pub struct StageTable {
    /// The stage name (`name = "..."`), which finds its entry in the binary's `STAGES`
    /// table and names its decisions and books.
    pub name: String,
    /// The runner's filters.
    pub filters: StageFilters,
    /// Every other key: the settings the stage's `build` gets.
    pub settings: toml::Table,
    /// 1-based line of the table's `[[stage]]` header (set by [`super::Recipe::parse`]).
    pub line: usize,
    /// Whether the table has a string `name` (the recipe's validation refuses it if not).
    named: bool,
    /// Filters that are not lists of strings: build problems, so that `kcurate check`
    /// reports them with every other stage's.
    bad_filters: Vec<&'static str>,
}

impl StageTable {
    /// The table as the recipe writes it: name, filters and settings (keys in order).
    pub fn to_table(&self) -> toml::Table {
        let mut t = self.settings.clone();
        if self.named {
            t.insert("name".into(), toml::Value::String(self.name.clone()));
        }
        for (key, list) in RUNNER_KEYS[1..].iter().zip(self.filters.listed()) {
            if let Some(list) = list {
                let values = list.iter().cloned().map(toml::Value::String).collect();
                t.insert((*key).into(), toml::Value::Array(values));
            }
        }
        t
    }

    /// Whether the table names its stage with a string `name`.
    pub fn is_named(&self) -> bool {
        self.named
    }

    /// The filter keys whose value is not a list of strings (each "must be a list of
    /// strings").
    pub fn bad_filters(&self) -> &[&'static str] {
        &self.bad_filters
    }
}

impl From<toml::Table> for StageTable {
    fn from(mut table: toml::Table) -> Self {
        let (name, named) = match table.remove("name") {
            Some(toml::Value::String(s)) => (s, true),
            _ => (String::new(), false),
        };
        let mut bad_filters = Vec::new();
        let mut filters = StageFilters::default();
        for (key, slot) in RUNNER_KEYS[1..].iter().zip(filters.slots()) {
            let Some(v) = table.remove(*key) else {
                continue;
            };
            let list = v.as_array().and_then(|a| {
                a.iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            });
            match list {
                Some(list) => *slot = Some(list),
                None => bad_filters.push(*key),
            }
        }
        StageTable {
            name,
            filters,
            settings: table,
            line: 0,
            named,
            bad_filters,
        }
    }
}

impl From<StageTable> for toml::Table {
    fn from(s: StageTable) -> Self {
        s.to_table()
    }
}

impl super::Recipe {
    /// The first stage named `name`, if the recipe runs one.
    pub fn stage(&self, name: &str) -> Option<&StageTable> {
        self.stages.iter().find(|s| s.name == name)
    }

    /// Per source id, what a stage may know of its source (domain, style, licence).
    pub fn source_infos(&self) -> BTreeMap<String, SourceInfo> {
        self.sources
            .iter()
            .map(|s| {
                let info = SourceInfo {
                    id: s.id.clone(),
                    domain: s.domain.clone(),
                    style: s.style.as_str().to_string(),
                    license: s.license.clone().unwrap_or_default(),
                };
                (s.id.clone(), info)
            })
            .collect()
    }

    /// The names of the recipe's stages, in order.
    pub fn stage_names(&self) -> Vec<&str> {
        self.stages.iter().map(|s| s.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> StageTable {
        StageTable::from(toml::from_str::<toml::Table>(text).unwrap())
    }

    #[test]
    fn a_stage_table_splits_into_name_filters_and_settings_and_back() {
        let text = "name = \"filter\"\nonly_styles = [\"colloquial\", \"formal\"]\nmin_chars = 2";
        let st = table(text);
        assert_eq!(st.name, "filter");
        assert_eq!(
            st.filters.only_styles.as_deref(),
            Some(&["colloquial".to_string(), "formal".to_string()][..])
        );
        assert_eq!(st.settings.keys().collect::<Vec<_>>(), ["min_chars"]);
        assert!(st.is_named() && st.bad_filters().is_empty());
        assert_eq!(st.to_table(), toml::from_str::<toml::Table>(text).unwrap());
    }

    #[test]
    fn a_filter_keeps_the_order_the_recipe_lists() {
        let st = table("name = \"pii\"\nonly_sources = [\"b\", \"a\"]");
        assert_eq!(
            st.to_table()["only_sources"].to_string(),
            "[\"b\", \"a\"]",
            "the card prints the filter as written"
        );
    }

    #[test]
    fn a_nameless_table_or_a_filter_of_numbers_is_a_problem() {
        assert!(!table("min_chars = 2").is_named());
        let st = table("name = \"x\"\nonly_domains = [1]\nonly_styles = \"formal\"");
        assert_eq!(st.bad_filters(), ["only_styles", "only_domains"]);
    }
}
