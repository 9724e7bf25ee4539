//! `[task]`: what the release holds, and the Hugging Face metadata its card declares.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[task]`: what the release holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskConfig {
    /// Directory name inside the release (`sentences`, `sts`, `nli`, `tc`, ...).
    pub name: String,
    /// Hugging Face `task_categories` for the card.
    #[serde(default)]
    pub task_categories: Vec<String>,
    /// Hugging Face `task_ids` for the card (default: from the task name, `nli`, `sts`,
    /// `tc`; none for others).
    #[serde(default)]
    pub task_ids: Vec<String>,
    /// Hugging Face `annotations_creators` (default: `no-annotation` for `sentences`,
    /// else `machine-generated`, as the bundled recipes' simulated annotators are).
    #[serde(default)]
    pub annotations_creators: Vec<String>,
    /// Hugging Face `language_creators` (default: `found`, and for `nli`, whose hypotheses
    /// the bundled recipes' simulated writers write, `machine-generated` too).
    #[serde(default)]
    pub language_creators: Vec<String>,
    /// Label columns whose values are a closed set: column → names in class-index order.
    /// The card declares them as `ClassLabel` features, and the run refuses a written value
    /// outside the set. Default: from the task name (`nli`: `label`; `tc`: `label`).
    #[serde(default)]
    pub class_labels: BTreeMap<String, Vec<String>>,
}

/// KLUE NLI's labels in class-index order (the tasks crate's `nli::select::LABELS` is this
/// constant).
pub const NLI_LABELS: [&str; 3] = ["entailment", "neutral", "contradiction"];
/// KLUE TC's topics in class-index order (the tasks crate's `tc::TOPICS` is this constant).
pub const TC_TOPICS: [&str; 7] = [
    "IT과학",
    "경제",
    "사회",
    "생활문화",
    "세계",
    "스포츠",
    "정치",
];

impl TaskConfig {
    /// The card's `task_ids`: the recipe's, else the HF id of the task kind.
    pub fn hf_task_ids(&self) -> Vec<String> {
        if !self.task_ids.is_empty() {
            return self.task_ids.clone();
        }
        let id = match self.name.as_str() {
            "nli" => "natural-language-inference",
            "sts" => "semantic-similarity-scoring",
            "tc" => "topic-classification",
            "sentineg" => "sentiment-classification",
            _ => return Vec::new(),
        };
        vec![id.to_string()]
    }

    /// The card's `annotations_creators`: the recipe's, else `no-annotation` for plain
    /// sentences and `machine-generated` for a task's labels.
    pub fn hf_annotations_creators(&self) -> Vec<String> {
        if !self.annotations_creators.is_empty() {
            return self.annotations_creators.clone();
        }
        let c = if self.name == "sentences" {
            "no-annotation"
        } else {
            "machine-generated"
        };
        vec![c.to_string()]
    }

    /// The card's `language_creators`: the recipe's, else `found` (and
    /// `machine-generated` for `nli`'s written hypotheses).
    pub fn hf_language_creators(&self) -> Vec<String> {
        if !self.language_creators.is_empty() {
            return self.language_creators.clone();
        }
        let mut v = vec!["found".to_string()];
        if self.name == "nli" {
            v.push("machine-generated".to_string());
        }
        v
    }

    /// Closed-set label columns (column → names in class order): the recipe's, else those
    /// the task kind writes (`nli`: `gold_label`, and `hypothesis_only_label` in a
    /// challenge set; `tc`: `label`).
    pub fn closed_labels(&self) -> BTreeMap<String, Vec<String>> {
        if !self.class_labels.is_empty() {
            return self.class_labels.clone();
        }
        let names = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cols: &[(&str, &[&str])] = match self.name.as_str() {
            "nli" => &[
                ("gold_label", &NLI_LABELS),
                ("hypothesis_only_label", &NLI_LABELS),
            ],
            "tc" => &[("label", &TC_TOPICS)],
            _ => &[],
        };
        cols.iter()
            .map(|(c, l)| (c.to_string(), names(l)))
            .collect()
    }
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            name: "sentences".into(),
            task_categories: vec!["text-classification".into()],
            task_ids: Vec::new(),
            annotations_creators: Vec::new(),
            language_creators: Vec::new(),
            class_labels: BTreeMap::new(),
        }
    }
}
