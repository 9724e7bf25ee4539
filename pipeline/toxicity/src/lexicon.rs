//! The slur and threat lexicon (`rules/toxicity.toml`): one regular expression per rule,
//! each with its own rule id and class (gender bias or hate). A hit drops the record before
//! the model is asked; the first rule in file order that hits decides.
//!
//! Use or mention: a slur aimed at people (plural, vocative, an insult beside it) is a use; a
//! slur quoted, defined, criticised or reported ("~로 몰아붙이는", "~라는 말", scare quotes,
//! "(?)") is a mention. A rule says which by context patterns around each match:
//! `use_before` / `use_after` make it a use whatever else is around it; `mention_before` /
//! `mention_after` make it a mention; a match with neither is a use. `except` (anchored at
//! the start of the match) makes a match no hit at all. A use drops the record; a text whose
//! only matches are mentions is kept and flagged for review ([`Lexicon::scan`]).

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
    /// Matched at the start of a hit, it makes the hit no hit at all.
    pub except: Option<Regex>,
    /// Context that makes a match a use or a mention.
    pub context: Context,
}

/// Patterns around a match that say whether it is a use or a mention; each `*_before` is
/// matched against the text ending where the match starts, each `*_after` against the text
/// starting where it ends.
#[derive(Debug, Default)]
pub struct Context {
    /// Before the match: a use (an insult or address in front of it).
    pub use_before: Option<Regex>,
    /// After the match: a use (plural, vocative, an insult after it).
    pub use_after: Option<Regex>,
    /// Before the match: a mention (an opening quote).
    pub mention_before: Option<Regex>,
    /// After the match: a mention (`~로 몰아붙이는`, `~라는 말`, `(?)`, a closing quote).
    pub mention_after: Option<Regex>,
}

impl Context {
    /// Whether the match `start..end` (bytes of `text`) is a use: a use pattern matches, or
    /// no mention pattern does.
    fn is_use(&self, text: &str, start: usize, end: usize) -> bool {
        let (before, after) = (&text[..start], &text[end..]);
        let m = |r: &Option<Regex>, t: &str| r.as_ref().is_some_and(|r| r.is_match(t));
        if m(&self.use_before, before) || m(&self.use_after, after) {
            return true;
        }
        !(m(&self.mention_before, before) || m(&self.mention_after, after))
    }
}

/// What the lexicon makes of a text: a use of a slur (drop) or only mentions (review).
#[derive(Debug, Clone)]
pub enum Finding<'a> {
    /// The first use, in rule order: the record is dropped with the rule's id.
    Use(Hit<'a>),
    /// No use, and this is the first mention in rule order: kept and flagged for review.
    Mention(Hit<'a>),
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

impl Hit<'_> {
    /// `start..end` in chars, as decisions show where the term is.
    pub fn end_points(&self) -> String {
        format!("{}..{}", self.start, self.end)
    }
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
    /// `class` (`gender` or `hate`) and a `pattern`, and may have an `except` and the
    /// [`Context`] patterns `use_before`, `use_after`, `mention_before`, `mention_after`.
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
            let ctx = |key: &str, anchor: fn(&str) -> String| -> Result<_, RuleFileError> {
                d.string_param(path, key)?
                    .map(|p| Regex::new(&anchor(p)).map_err(|e| bad(format!("{key}: {e}"))))
                    .transpose()
            };
            let context = Context {
                use_before: ctx("use_before", |p| format!("(?:{p})$"))?,
                use_after: ctx("use_after", |p| format!("^(?:{p})"))?,
                mention_before: ctx("mention_before", |p| format!("(?:{p})$"))?,
                mention_after: ctx("mention_after", |p| format!("^(?:{p})"))?,
            };
            rules.push(LexiconRule {
                id: d.id.clone(),
                class,
                re,
                except,
                context,
            });
        }
        Ok(Lexicon { rules })
    }

    /// The first use of a slur (rule order, then text order), if any; mentions are skipped.
    pub fn find(&self, text: &str) -> Option<Hit<'_>> {
        match self.scan(text) {
            Some(Finding::Use(h)) => Some(h),
            _ => None,
        }
    }

    /// The first use in rule order or, when the text has none, its first mention.
    pub fn scan(&self, text: &str) -> Option<Finding<'_>> {
        let lower = text.to_lowercase();
        let mut mention = None;
        for r in &self.rules {
            for m in r.re.find_iter(&lower) {
                if r.except
                    .as_ref()
                    .is_some_and(|e| e.is_match(&lower[m.start()..]))
                {
                    continue;
                }
                let hit = Hit {
                    rule: r,
                    term: m.as_str().trim().to_string(),
                    start: lower[..m.start()].chars().count(),
                    end: lower[..m.end()].chars().count(),
                };
                if r.context.is_use(&lower, m.start(), m.end()) {
                    return Some(Finding::Use(hit));
                }
                mention.get_or_insert(hit);
            }
        }
        mention.map(Finding::Mention)
    }
}
