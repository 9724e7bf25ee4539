//! The slur and threat lexicon (`rules/toxicity.toml`): one regular expression per rule,
//! each with its own rule id and class (gender bias or hate). A hit drops the record before
//! the model is asked; the first rule in file order that hits decides. A rule may name an
//! `except` pattern: a match of `pattern` at which `except` also matches (anchored at the
//! start of the match, e.g. a slur followed by 소리 "being called X") is a mention, not a hit.

use kcurate_core::rules::{RuleDef, RuleFileError, load_rules};
use regex::Regex;
use std::path::Path;

/// Which kind of toxicity a rule finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Gender bias: counted with the model's gender-bias drops.
    Gender,
    /// Hate: counted with the model's hate drops.
    Hate,
}

/// One compiled lexicon rule.
#[derive(Debug)]
pub struct LexiconRule {
    /// The rule id, `toxicity.*`: the decision's rule.
    pub id: String,
    /// What it finds.
    pub class: Class,
    /// The `pattern`, matched against the lower-cased text.
    pub re: Regex,
    /// Matched at the start of a hit, it makes the hit a mention (not counted).
    pub except: Option<Regex>,
}

/// A rule that hit, the matched term and where it is (chars of the lower-cased text).
#[derive(Debug, Clone)]
pub struct Hit<'a> {
    /// The rule that hit.
    pub rule: &'a LexiconRule,
    /// The matched text, trimmed (tests and rule examples read it; decisions do not carry it).
    pub term: String,
    /// Start of the match, in chars.
    pub start: usize,
    /// End of the match (exclusive), in chars.
    pub end: usize,
}

/// The rules of one lexicon file, in file order.
pub struct Lexicon {
    /// The rules; the first that hits decides.
    pub rules: Vec<LexiconRule>,
}

impl Lexicon {
    /// Loads and compiles a rule file; errors name the file and the rule.
    pub fn load(path: &Path) -> Result<Lexicon, RuleFileError> {
        Lexicon::from_defs(path, &load_rules(path)?)
    }

    /// Compiles parsed rules (`path` is for error messages): each needs a `toxicity.` id, a
    /// `class` (`gender` or `hate`) and a `pattern`, and may have an `except`.
    pub fn from_defs(path: &Path, defs: &[RuleDef]) -> Result<Lexicon, RuleFileError> {
        let mut rules = Vec::with_capacity(defs.len());
        for d in defs {
            let bad = |m: String| d.error(path, m);
            if !d.id.starts_with("toxicity.") {
                return Err(bad("a toxicity rule id starts with `toxicity.`".into()));
            }
            let class = match d.params.get("class").and_then(|v| v.as_str()) {
                Some("gender") => Class::Gender,
                Some("hate") => Class::Hate,
                other => return Err(bad(format!("class: {other:?} (gender or hate)"))),
            };
            let pattern = d
                .string_param(path, "pattern")?
                .ok_or_else(|| bad("pattern: missing".into()))?;
            let re = Regex::new(pattern).map_err(|e| bad(format!("pattern: {e}")))?;
            let except = match d.string_param(path, "except")? {
                None => None,
                Some(e) => Some(
                    Regex::new(&format!("^(?:{e})")).map_err(|e| bad(format!("except: {e}")))?,
                ),
            };
            rules.push(LexiconRule {
                id: d.id.clone(),
                class,
                re,
                except,
            });
        }
        Ok(Lexicon { rules })
    }

    /// The first rule (in file order) with a match in the lower-cased text that its
    /// `except` does not make a mention.
    pub fn find(&self, text: &str) -> Option<Hit<'_>> {
        let lower = text.to_lowercase();
        self.rules.iter().find_map(|r| {
            r.re.find_iter(&lower)
                .find(|m| {
                    r.except
                        .as_ref()
                        .is_none_or(|e| !e.is_match(&lower[m.start()..]))
                })
                .map(|m| Hit {
                    rule: r,
                    term: m.as_str().trim().to_string(),
                    start: lower[..m.start()].chars().count(),
                    end: lower[..m.end()].chars().count(),
                })
        })
    }
}
