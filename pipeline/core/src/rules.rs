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

#[derive(Debug, Clone, Deserialize)]
pub struct RuleExample {
    pub text: String,
    /// The expected output; for a drop rule, the literal `"<drop>"`; for a detector, the
    /// expected matched substrings may be given in `matches` instead.
    #[serde(default)]
    pub expect: Option<String>,
    #[serde(default)]
    pub matches: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RuleDef {
    pub id: String,
    pub description: String,
    #[serde(default)]
    pub why: Option<String>,
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

#[derive(Debug, thiserror::Error)]
pub enum RuleFileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: rule {id:?}: {message}")]
    Rule {
        path: PathBuf,
        id: String,
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
