//! The noise screen the `nli_hard` stage runs before hypothesis-only selection
//! (`rules/nli_screen.toml`): [`Screen`] holds the rules of the file, each a [`Check`] with
//! its thresholds or patterns as data; [`Screen::screen`] gives, per pair, the first rule
//! that fires (or none). Machine-translated NLI pairs that are broken (untranslated,
//! fragments, transcripts, copies, one pair under two labels) are what a hypothesis-only
//! model fails on most, so they leave before it scores anything.

use kcurate_core::rules::{RuleDef, RuleFileError, parse_rules};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Which side(s) of the pair a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    /// The premise only (`sides = "premise"`).
    Premise,
    /// The hypothesis only.
    Hypothesis,
    /// Either; the premise is read first (the default).
    Both,
}

/// What a rule checks, with its parameters from the rule file.
#[derive(Debug, Clone)]
pub enum Check {
    /// `conflict`: the same premise and hypothesis (punctuation and spacing aside) occur
    /// with more than one label in the input.
    Conflict,
    /// `hangul_share`: a side's Hangul share of letters (capitalised Latin words, names,
    /// not counted) is below the minimum.
    HangulShare {
        /// Lowest share in [0, 1].
        min_share: f64,
    },
    /// `untranslated`: a side has a run of Latin words holding a lower-case word longer
    /// than allowed (an English phrase left in the translation).
    Untranslated {
        /// Longest run allowed, in words.
        max_latin_run: usize,
    },
    /// `pattern`: a side matches one of the regular expressions.
    Pattern {
        /// The compiled `patterns`, tried in order.
        patterns: Vec<regex::Regex>,
    },
    /// `fragment`: a side ends neither in a question mark nor in a syllable of `finals`.
    Fragment {
        /// Last syllables of a complete sentence (다, 요, ...).
        finals: BTreeSet<char>,
    },
    /// `fillers`: a side has more filler tokens (transcribed speech: 어, 음, ...) than
    /// allowed.
    Fillers {
        /// The filler tokens.
        fillers: BTreeSet<String>,
        /// Most filler tokens allowed per side.
        max_fillers: usize,
    },
    /// `repeated`: a side repeats a phrase of two or more tokens at once, or one token
    /// three times in a row.
    Repeated,
    /// `length_ratio`: hypothesis length / premise length (chars) is outside the bounds.
    LengthRatio {
        /// Highest ratio allowed.
        max_ratio: f64,
        /// Lowest ratio allowed.
        min_ratio: f64,
    },
    /// `copy`: the hypothesis's text (punctuation and spacing aside) is inside the premise.
    Copy,
    /// Annotators' labels carried as fields (`votes`): fewer than `min_agree` equal the gold
    /// label. A missing vote field fires too (no silent pass on a set without votes).
    Agreement {
        /// The fields holding one annotator's label each (KLUE: the author and 4 validators).
        votes: Vec<String>,
        /// How many of them must equal the gold label (KLUE's gold needs 3 of 5).
        min_agree: usize,
    },
    /// One field (`field`, e.g. the hypothesis author's intended label) differs from the
    /// gold label, or is missing.
    FieldLabel {
        /// The field compared with the gold label.
        field: String,
    },
}

/// One rule of the screen file.
#[derive(Debug, Clone)]
pub struct ScreenRule {
    /// The rule id, the decision's rule.
    pub id: String,
    /// Which side(s) it reads (not used by `conflict`, `copy` and `length_ratio`, which
    /// read the pair).
    pub sides: Sides,
    /// What it checks.
    pub check: Check,
}

/// One NLI pair as the screen reads it: `fields` are the record's carried fields (the
/// annotators' labels for `agreement` and `field_label` rules).
#[derive(Debug, Clone)]
pub struct ScreenPair<'a> {
    /// The premise.
    pub premise: &'a str,
    /// The hypothesis.
    pub hypothesis: &'a str,
    /// The gold label (read by `conflict` and named in `copy`'s detail).
    pub label: &'a str,
    /// The record's carried fields, where the vote rules read annotators' labels; `None`
    /// when the pair came without fields.
    pub fields: Option<&'a BTreeMap<String, serde_json::Value>>,
}

impl ScreenPair<'_> {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields?.get(name)?.as_str()
    }
}

/// A rule that fired on a pair: its id and a detail for the decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The rule id.
    pub rule: String,
    /// Which side and what fired, for the decision's detail.
    pub detail: String,
    /// The measured value where there is one (share, run, ratio, count).
    pub score: Option<f64>,
}

/// The rules of a screen file, in file order: the first that fires decides.
#[derive(Debug, Clone)]
pub struct Screen {
    /// The rules.
    pub rules: Vec<ScreenRule>,
}

fn bad(path: &Path, id: &str, m: impl Into<String>) -> RuleFileError {
    RuleFileError::Rule {
        path: path.to_path_buf(),
        id: id.to_string(),
        message: m.into(),
    }
}

fn num(path: &Path, r: &RuleDef, key: &str) -> Result<f64, RuleFileError> {
    match r.params.get(key) {
        Some(toml::Value::Float(x)) => Ok(*x),
        Some(toml::Value::Integer(x)) => Ok(*x as f64),
        _ => Err(bad(path, &r.id, format!("needs a number `{key}`"))),
    }
}

fn strings(path: &Path, r: &RuleDef, key: &str) -> Result<Vec<String>, RuleFileError> {
    r.params
        .get(key)
        .and_then(|v| v.as_array())
        .ok_or_else(|| bad(path, &r.id, format!("needs a list `{key}`")))?
        .iter()
        .map(|v| {
            v.as_str()
                .map(String::from)
                .ok_or_else(|| bad(path, &r.id, format!("`{key}` holds strings only")))
        })
        .collect()
}

impl Screen {
    /// Parses a rule file's text (`path` names it in errors).
    pub fn parse(path: &Path, text: &str) -> Result<Screen, RuleFileError> {
        let defs = parse_rules(path, text)?;
        let mut rules = Vec::new();
        for r in &defs {
            let sides = match r.params.get("sides").and_then(|v| v.as_str()) {
                Some("premise") => Sides::Premise,
                Some("hypothesis") => Sides::Hypothesis,
                Some("both") | None => Sides::Both,
                Some(s) => return Err(bad(path, &r.id, format!("unknown sides {s:?}"))),
            };
            let kind = r
                .params
                .get("kind")
                .and_then(|v| v.as_str())
                .ok_or_else(|| bad(path, &r.id, "needs a `kind`"))?;
            let check = match kind {
                "conflict" => Check::Conflict,
                "hangul_share" => Check::HangulShare {
                    min_share: num(path, r, "min_share")?,
                },
                "untranslated" => Check::Untranslated {
                    max_latin_run: num(path, r, "max_latin_run")? as usize,
                },
                "pattern" => Check::Pattern {
                    patterns: strings(path, r, "patterns")?
                        .iter()
                        .map(|p| {
                            regex::Regex::new(p)
                                .map_err(|e| bad(path, &r.id, format!("pattern {p:?}: {e}")))
                        })
                        .collect::<Result<_, _>>()?,
                },
                "fragment" => Check::Fragment {
                    finals: r
                        .params
                        .get("finals")
                        .and_then(|v| v.as_str())
                        .ok_or_else(|| bad(path, &r.id, "needs a string `finals`"))?
                        .chars()
                        .collect(),
                },
                "fillers" => Check::Fillers {
                    fillers: strings(path, r, "fillers")?.into_iter().collect(),
                    max_fillers: num(path, r, "max_fillers")? as usize,
                },
                "repeated" => Check::Repeated,
                "length_ratio" => Check::LengthRatio {
                    max_ratio: num(path, r, "max_ratio")?,
                    min_ratio: num(path, r, "min_ratio")?,
                },
                "copy" => Check::Copy,
                "agreement" => Check::Agreement {
                    votes: strings(path, r, "votes")?,
                    min_agree: num(path, r, "min_agree")? as usize,
                },
                "field_label" => Check::FieldLabel {
                    field: r
                        .params
                        .get("field")
                        .and_then(|v| v.as_str())
                        .ok_or_else(|| bad(path, &r.id, "needs a string `field`"))?
                        .to_string(),
                },
                k => return Err(bad(path, &r.id, format!("unknown kind {k:?}"))),
            };
            rules.push(ScreenRule {
                id: r.id.clone(),
                sides,
                check,
            });
        }
        Ok(Screen { rules })
    }

    /// Reads and parses a rule file.
    pub fn load(path: &Path) -> Result<Screen, RuleFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| RuleFileError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Screen::parse(path, &text)
    }

    /// The rules of several screens in order (the first file's rules fire first).
    pub fn chain(screens: Vec<Screen>) -> Screen {
        Screen {
            rules: screens.into_iter().flat_map(|s| s.rules).collect(),
        }
    }

    /// The first rule that fires on each pair (None: the pair passes).
    pub fn screen(&self, pairs: &[ScreenPair]) -> Vec<Option<Hit>> {
        // Conflicts are a property of the whole input: the labels each (premise, hypothesis)
        // carries.
        let mut labels: BTreeMap<(String, String), BTreeSet<&str>> = BTreeMap::new();
        for p in pairs {
            labels
                .entry((squash(p.premise), squash(p.hypothesis)))
                .or_default()
                .insert(p.label);
        }
        pairs
            .iter()
            .map(|p| {
                self.rules.iter().find_map(|r| {
                    if let Check::Conflict = r.check {
                        let l = &labels[&(squash(p.premise), squash(p.hypothesis))];
                        return (l.len() > 1).then(|| Hit {
                            rule: r.id.clone(),
                            detail: format!(
                                "the same premise and hypothesis carry the labels {}",
                                l.iter().copied().collect::<Vec<_>>().join("/")
                            ),
                            score: None,
                        });
                    }
                    check(r, p)
                })
            })
            .collect()
    }
}

/// Text without whitespace and punctuation (for copy and conflict checks).
fn squash(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).collect()
}

fn is_hangul(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c) || ('\u{3131}'..='\u{318E}').contains(&c)
}

/// Hangul share of a text's letters, where Latin words that start with a capital (names,
/// acronyms: Clinton, IBM) do not count: a Korean sentence keeps names in Latin script.
fn hangul_share(s: &str) -> Option<f64> {
    let (mut n, mut k) = (0usize, 0usize);
    let mut in_latin_name = false;
    let mut prev_latin = false;
    for c in s.chars() {
        let latin = c.is_ascii_alphabetic();
        if latin && !prev_latin {
            in_latin_name = c.is_ascii_uppercase();
        }
        prev_latin = latin;
        if !c.is_alphabetic() || (latin && in_latin_name) {
            continue;
        }
        n += 1;
        k += usize::from(is_hangul(c));
    }
    (n > 0).then(|| k as f64 / n as f64)
}

/// The longest run of consecutive words in Latin script (a word may carry a Korean
/// particle, which ends the run: `Library라는`) that holds a lower-case word of two or more
/// letters (of, the, de, la): an untranslated phrase, not a name (`Peter Newman`).
fn latin_run(s: &str) -> usize {
    let (mut best, mut run, mut lower) = (0, 0, false);
    for t in s.split_whitespace() {
        let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
        let head: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '\'' || *c == '-')
            .collect();
        let letters = head.chars().filter(|c| c.is_ascii_alphabetic()).count();
        let rest = &t[head.len()..];
        let particle = rest.chars().next().is_some_and(is_hangul);
        if letters == 0
            || (!rest.is_empty() && !particle && rest.chars().any(char::is_alphanumeric))
        {
            run = 0;
            lower = false;
            continue;
        }
        run += 1;
        lower |= letters >= 2 && head.starts_with(|c: char| c.is_ascii_lowercase());
        if lower {
            best = best.max(run);
        }
        if particle {
            run = 0;
            lower = false;
        }
    }
    best
}

fn tokens(s: &str) -> Vec<&str> {
    s.split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .filter(|t| !t.is_empty())
        .collect()
}

/// A phrase of two or more tokens immediately repeated ("다시 보지, 다시 보지"), or one
/// token three times in a row ("어, 어, 어"). A word said twice ("정말, 정말") is emphasis,
/// not noise, and does not count.
fn repeated(s: &str) -> Option<String> {
    let t = tokens(s);
    for i in 0..t.len().saturating_sub(2) {
        if t[i] == t[i + 1] && t[i] == t[i + 2] {
            return Some(t[i].to_string());
        }
    }
    for n in [2usize, 3] {
        for i in 0..t.len().saturating_sub(2 * n - 1) {
            if t[i..i + n] == t[i + n..i + 2 * n] {
                return Some(t[i..i + n].join(" "));
            }
        }
    }
    None
}

/// Ends like a sentence: a question mark, or a last syllable among `finals`.
fn fragment(s: &str, finals: &BTreeSet<char>) -> Option<char> {
    let body = s.trim_end_matches(|c: char| {
        c.is_whitespace() || (!c.is_alphanumeric() && c != '?' && c != '？')
    });
    if body.ends_with('?') || body.ends_with('？') {
        return None;
    }
    match body.chars().last() {
        Some(c) if finals.contains(&c) => None,
        Some(c) => Some(c),
        None => Some(' '),
    }
}

fn sides<'a>(r: &ScreenRule, p: &ScreenPair<'a>) -> Vec<(&'static str, &'a str)> {
    match r.sides {
        Sides::Premise => vec![("premise", p.premise)],
        Sides::Hypothesis => vec![("hypothesis", p.hypothesis)],
        Sides::Both => vec![("premise", p.premise), ("hypothesis", p.hypothesis)],
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "a table: one arm per kind of screen rule"
)]
fn check(r: &ScreenRule, p: &ScreenPair) -> Option<Hit> {
    let hit = |detail: String, score: Option<f64>| {
        Some(Hit {
            rule: r.id.clone(),
            detail,
            score,
        })
    };
    match &r.check {
        Check::Conflict => None,
        Check::LengthRatio {
            max_ratio,
            min_ratio,
        } => {
            let ratio = p.hypothesis.chars().count() as f64 / p.premise.chars().count().max(1) as f64;
            if ratio > *max_ratio || ratio < *min_ratio {
                hit(
                    format!(
                        "hypothesis/premise length {ratio:.2} outside [{min_ratio}, {max_ratio}]"
                    ),
                    Some(ratio),
                )
            } else {
                None
            }
        }
        Check::Agreement { votes, min_agree } => {
            let missing: Vec<&str> = votes
                .iter()
                .filter(|v| p.field(v).is_none())
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                return hit(format!("no vote field {}", missing.join(", ")), None);
            }
            let agree = votes.iter().filter(|v| p.field(v) == Some(p.label)).count();
            (agree < *min_agree).then(|| Hit {
                rule: r.id.clone(),
                detail: format!(
                    "{agree} of {} labels ({}) are the gold label {} (min {min_agree})",
                    votes.len(),
                    votes
                        .iter()
                        .map(|v| p.field(v).unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join("/"),
                    p.label
                ),
                score: Some(agree as f64),
            })
        }
        Check::FieldLabel { field } => match p.field(field) {
            Some(v) if v == p.label => None,
            Some(v) => hit(format!("{field} {v} differs from the gold label {}", p.label), None),
            None => hit(format!("no field {field}"), None),
        },
        Check::Copy => {
            let (h, pr) = (squash(p.hypothesis), squash(p.premise));
            if !h.is_empty() && pr.contains(&h) {
                hit(
                    format!("the hypothesis is a copy of the premise's text (label {})", p.label),
                    None,
                )
            } else {
                None
            }
        }
        _ => sides(r, p).into_iter().find_map(|(side, text)| match &r.check {
            Check::HangulShare { min_share } => {
                let s = hangul_share(text).unwrap_or(1.0);
                (s < *min_share).then(|| Hit {
                    rule: r.id.clone(),
                    detail: format!("{side}: Hangul share of letters {s:.2} < {min_share}"),
                    score: Some(s),
                })
            }
            Check::Untranslated { max_latin_run } => {
                let run = latin_run(text);
                (run > *max_latin_run).then(|| Hit {
                    rule: r.id.clone(),
                    detail: format!(
                        "{side}: {run} Latin words in a row with a lower-case word (max {max_latin_run})"
                    ),
                    score: Some(run as f64),
                })
            }
            Check::Pattern { patterns } => patterns.iter().find_map(|re| {
                re.find(text).map(|m| Hit {
                    rule: r.id.clone(),
                    detail: format!("{side}: {:?} matches /{}/", m.as_str(), re.as_str()),
                    score: None,
                })
            }),
            Check::Fragment { finals } => fragment(text, finals).map(|c| Hit {
                rule: r.id.clone(),
                detail: format!("{side}: ends in {c:?}, not a sentence ending"),
                score: None,
            }),
            Check::Fillers {
                fillers,
                max_fillers,
            } => {
                let n = tokens(text).iter().filter(|t| fillers.contains(**t)).count();
                (n > *max_fillers).then(|| Hit {
                    rule: r.id.clone(),
                    detail: format!("{side}: {n} filler tokens (max {max_fillers})"),
                    score: Some(n as f64),
                })
            }
            Check::Repeated => repeated(text).map(|w| Hit {
                rule: r.id.clone(),
                detail: format!("{side}: {w:?} repeated"),
                score: None,
            }),
            _ => None,
        }),
    }
}

/// The rule file shipped with kcurate (`rules/nli_screen.toml`), for tests and defaults.
pub const NLI_SCREEN_TOML: &str = include_str!("../../../../rules/nli_screen.toml");

/// The annotator-agreement screen shipped with kcurate (`rules/nli_votes.toml`), for sets
/// that carry their validators' labels (KLUE NLI).
pub const NLI_VOTES_TOML: &str = include_str!("../../../../rules/nli_votes.toml");

#[cfg(test)]
mod tests;
