//! Rule files (`rules/*.toml`): every rule has an id, a description and examples that the
//! test suite runs. Crates parse their own rule parameters from [`RuleDef::params`].
//!
//! ```toml
//! [[rule]]
//! id = "noise.hashtag"
//! description = "Hashtags are removed"
//! why = "KLUE §2.3"
//! pattern = "#\\S+"
//! [[rule.example]]
//! text = "좋아요 #맛집"
//! expect = "좋아요"
//! ```

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One `[[rule.example]]`: an input and what the rule makes of it.
#[derive(Debug, Clone, Deserialize)]
pub struct RuleExample {
    /// The input text.
    pub text: String,
    /// The expected output; for a drop rule, the literal `"<drop>"`; for a detector, the
    /// expected matched substrings may be given in `matches` instead.
    #[serde(default)]
    pub expect: Option<String>,
    /// A detector's expected matched substrings.
    #[serde(default)]
    pub matches: Vec<String>,
}

/// One `[[rule]]` of a rule file.
#[derive(Debug, Clone, Deserialize)]
pub struct RuleDef {
    /// The rule id (`namespace.name`).
    pub id: String,
    /// What the rule does, in a sentence.
    pub description: String,
    /// Why (the paper section it follows).
    #[serde(default)]
    pub why: Option<String>,
    /// The examples the tests run.
    #[serde(default, rename = "example")]
    pub examples: Vec<RuleExample>,
    /// Every other key of the rule (pattern, action, type, context words, ...).
    #[serde(flatten)]
    pub params: toml::Table,
}

impl RuleDef {
    /// An error about this rule of the file at `path` (the loaders of each crate's rule
    /// parameters report through it, so every message names the file and the rule).
    pub fn error(&self, path: &Path, message: impl Into<String>) -> RuleFileError {
        RuleFileError::Rule {
            path: path.to_path_buf(),
            id: self.id.clone(),
            message: message.into(),
        }
    }

    /// The string parameter `key`: `None` when the rule has no such key, an error naming
    /// the type when it is not a string.
    pub fn string_param(&self, path: &Path, key: &str) -> Result<Option<&str>, RuleFileError> {
        match self.params.get(key) {
            None => Ok(None),
            Some(toml::Value::String(v)) => Ok(Some(v)),
            Some(v) => Err(self.error(
                path,
                format!("`{key}` must be a string, not {}", v.type_str()),
            )),
        }
    }
}

#[derive(Debug, Deserialize)]
struct RuleFile {
    #[serde(default)]
    rule: Vec<RuleDef>,
}

/// A rule file that cannot be read or is wrong.
#[derive(Debug, thiserror::Error)]
pub enum RuleFileError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        /// The rule file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML of rules.
    #[error("{path}: {message}")]
    Parse {
        /// The rule file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A rule is wrong (its id, a duplicate, no examples).
    #[error("{path}: rule {id:?}: {message}")]
    Rule {
        /// The rule file.
        path: PathBuf,
        /// The rule's id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

/// Parses a rule file's text. Checks ids and that every rule has examples.
pub fn parse_rules(path: &Path, text: &str) -> Result<Vec<RuleDef>, RuleFileError> {
    let file: RuleFile = toml::from_str(text).map_err(|e| RuleFileError::Parse {
        path: path.to_path_buf(),
        message: e.to_string().trim().to_string(),
    })?;
    let mut seen = std::collections::BTreeSet::new();
    for r in &file.rule {
        let bad = |m: &str| RuleFileError::Rule {
            path: path.to_path_buf(),
            id: r.id.clone(),
            message: m.to_string(),
        };
        if !crate::decision::RuleId::is_valid(&r.id) {
            return Err(bad("id must be `namespace.name` in [a-z0-9_.]"));
        }
        if !seen.insert(r.id.clone()) {
            return Err(bad("duplicate id"));
        }
        if r.examples.is_empty() {
            return Err(bad("a rule needs at least one [[rule.example]]"));
        }
    }
    Ok(file.rule)
}

/// Reads and parses the rule file at `path` (see [`parse_rules`]).
pub fn load_rules(path: &Path) -> Result<Vec<RuleDef>, RuleFileError> {
    let text = std::fs::read_to_string(path).map_err(|e| RuleFileError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    parse_rules(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_without_examples_is_refused() {
        let t = "[[rule]]\nid = \"a.b\"\ndescription = \"x\"\n";
        let e = parse_rules(Path::new("r.toml"), t).unwrap_err();
        assert!(e.to_string().contains("at least one"), "{e}");
    }

    #[test]
    fn params_keep_unknown_keys() {
        let t = "[[rule]]\nid = \"a.b\"\ndescription = \"x\"\npattern = \"#\"\n[[rule.example]]\ntext = \"#\"\nexpect = \"\"\n";
        let r = parse_rules(Path::new("r.toml"), t).unwrap();
        assert_eq!(r[0].params["pattern"].as_str(), Some("#"));
        assert_eq!(r[0].examples.len(), 1);
    }
}
