//! YNAT topics from keywords (`rules/ynat_topics.toml`), for corpora without a category
//! field: [`TopicRules`] holds one [`TopicRule`] per topic (keywords, cancelling `not`
//! substrings, and for 세계 its place names and the topics it overrides);
//! [`TopicRules::decide`] gives the topic of a title and the body's lede when the evidence
//! settles it, and otherwise why not (no keyword, a digest, a tie or too little evidence:
//! such items are for the annotators, not the rules). Keywords match words
//! ([`crate::tc::words`]), not pieces of other words.

use kcurate_core::rules::{RuleDef, RuleFileError, parse_rules};
use std::path::Path;

/// One topic's rule.
#[derive(Debug, Clone)]
pub struct TopicRule {
    /// The rule id, named on the row and in the report.
    pub id: String,
    /// One of KLUE's seven YNAT topics.
    pub topic: String,
    /// Keywords whose presence votes for the topic (each counted once per text).
    pub keywords: Vec<String>,
    /// Place names: they vote only from the title (a biography's places in the lede say
    /// nothing of the story's section), and alone they settle nothing.
    pub places: Vec<String>,
    /// Substrings blanked out before matching (e.g. a keyword inside a longer word).
    pub not: Vec<String>,
    /// Topics taken out of the contest when a keyword of this rule is in the title.
    pub overrides: Vec<String>,
    /// Title substrings that cancel `overrides` (e.g. a Korean marker in a world story).
    pub unless: Vec<String>,
}

/// The rules of a topic file and its weights.
#[derive(Debug, Clone)]
pub struct TopicRules {
    /// One rule per topic, file order (the first wins a tie).
    pub rules: Vec<TopicRule>,
    /// What a keyword in the title counts, against 1 in the lede (default 2).
    pub title_weight: usize,
    /// Characters of the body that count as the lede (default 300).
    pub lede_chars: usize,
    /// Title substrings of digests (several stories): no topic.
    pub digest: Vec<String>,
    /// The least score that settles a topic (default 1).
    pub min_score: usize,
    /// How far the winner must lead the next contestant (default 0: a tie goes to the
    /// earlier rule).
    pub min_margin: usize,
}

/// Why the rules leave a headline's topic open.
#[derive(Debug, Clone, PartialEq)]
pub enum Unsettled {
    /// A digest's title (several stories).
    Digest,
    /// No keyword of any rule.
    NoKeyword,
    /// Keywords, but too few or tied: the scores of the contestants, best first.
    Weak(Vec<(String, usize)>),
}

/// The topic a headline got and why.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicHit {
    /// The winning rule's id.
    pub rule: String,
    /// Its topic.
    pub topic: String,
    /// Weighted keyword hits of the winner.
    pub score: usize,
    /// The winner's keywords found (title first), for the row and the report.
    pub keywords: Vec<String>,
}

fn list(path: &Path, r: &RuleDef, key: &str, required: bool) -> Result<Vec<String>, RuleFileError> {
    let bad = |m: String| RuleFileError::Rule {
        path: path.to_path_buf(),
        id: r.id.clone(),
        message: m,
    };
    match r.params.get(key) {
        None if !required => Ok(Vec::new()),
        None => Err(bad(format!("needs a list `{key}`"))),
        Some(v) => v
            .as_array()
            .ok_or_else(|| bad(format!("`{key}` must be a list of strings")))?
            .iter()
            .map(|x| {
                x.as_str()
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .ok_or_else(|| bad(format!("`{key}` holds non-empty strings only")))
            })
            .collect(),
    }
}

/// Distinct words of `words` in `text` (after blanking `r`'s `not` substrings), without
/// their `*` marks.
fn hits(r: &TopicRule, words: &[String], text: &str) -> Vec<String> {
    let mut t = text.to_string();
    for n in &r.not {
        t = t.replace(n.as_str(), " ");
    }
    // `경찰*` and `*경찰` are one keyword: the word it names counts once.
    let mut found: Vec<String> = Vec::new();
    for k in words.iter().filter(|k| crate::tc::words::matches(k, &t)) {
        let root = k.trim_matches('*').to_string();
        if !found.contains(&root) {
            found.push(root);
        }
    }
    found
}

/// One rule's evidence on a headline.
struct Score {
    score: usize,
    keywords: Vec<String>,
    in_title: usize,
    places_only: bool,
}

impl TopicRules {
    /// Parses a rule file's text (`path` names it in errors); every topic must be KLUE's.
    pub fn parse(path: &Path, text: &str) -> Result<TopicRules, RuleFileError> {
        let defs = parse_rules(path, text)?;
        let top: toml::Table = toml::from_str(text).map_err(|e| RuleFileError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let int = |k: &str, d: usize| -> Result<usize, RuleFileError> {
            match top.get(k) {
                None => Ok(d),
                Some(toml::Value::Integer(i)) if *i >= 0 => Ok(*i as usize),
                Some(_) => Err(RuleFileError::Parse {
                    path: path.to_path_buf(),
                    message: format!("`{k}` must be a non-negative integer"),
                }),
            }
        };
        let digest = match top.get("digest") {
            None => Vec::new(),
            Some(v) => v
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect())
                .ok_or_else(|| RuleFileError::Parse {
                    path: path.to_path_buf(),
                    message: "`digest` must be a list of strings".into(),
                })?,
        };
        let mut rules = Vec::new();
        for r in &defs {
            let topic = r
                .params
                .get("topic")
                .and_then(|v| v.as_str())
                .ok_or_else(|| RuleFileError::Rule {
                    path: path.to_path_buf(),
                    id: r.id.clone(),
                    message: "needs a `topic`".into(),
                })?;
            if !crate::tc::TOPICS.contains(&topic) {
                return Err(RuleFileError::Rule {
                    path: path.to_path_buf(),
                    id: r.id.clone(),
                    message: format!(
                        "topic {topic:?} is not one of KLUE's seven ({})",
                        crate::tc::TOPICS.join(", ")
                    ),
                });
            }
            rules.push(TopicRule {
                id: r.id.clone(),
                topic: topic.to_string(),
                keywords: list(path, r, "keywords", true)?,
                not: list(path, r, "not", false)?,
                places: list(path, r, "places", false)?,
                overrides: list(path, r, "overrides", false)?,
                unless: list(path, r, "unless", false)?,
            });
        }
        Ok(TopicRules {
            rules,
            title_weight: int("title_weight", 2)?,
            lede_chars: int("lede_chars", 300)?,
            digest,
            min_score: int("min_score", 1)?,
            min_margin: int("min_margin", 0)?,
        })
    }

    /// Reads and parses a rule file.
    pub fn load(path: &Path) -> Result<TopicRules, RuleFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| RuleFileError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        TopicRules::parse(path, &text)
    }

    /// Is the title a digest's (several stories under one headline)?
    pub fn is_digest(&self, title: &str) -> bool {
        self.digest.iter().any(|d| title.contains(d.as_str()))
    }

    /// The topic of a headline when the keywords settle it (see [`TopicRules::decide`]).
    pub fn classify(&self, title: &str, body: &str) -> Option<TopicHit> {
        self.decide(title, body).ok()
    }

    fn score(&self, r: &TopicRule, title: &str, lede: &str) -> Score {
        let t = hits(r, &r.keywords, title);
        let l = hits(r, &r.keywords, lede);
        let p = hits(r, &r.places, title);
        let mut kw = t.clone();
        kw.extend(p.iter().cloned());
        kw.extend(l.iter().filter(|k| !t.contains(k)).cloned());
        // All places of a title count as one: several places are still only a where.
        let in_title = t.len() + usize::from(!p.is_empty());
        Score {
            score: in_title * self.title_weight + l.iter().filter(|k| !t.contains(k)).count(),
            keywords: kw,
            in_title,
            places_only: !p.is_empty() && t.is_empty() && l.is_empty(),
        }
    }

    /// The topic of a headline (`body`: the article text, of which the first `lede_chars`
    /// characters count), or why the keywords do not settle it: a digest's title, no
    /// keyword, or evidence below `min_score`, a lead under `min_margin` over the next
    /// topic, or place names with nothing else.
    pub fn decide(&self, title: &str, body: &str) -> Result<TopicHit, Unsettled> {
        if self.is_digest(title) {
            return Err(Unsettled::Digest);
        }
        let lede: String = body.chars().take(self.lede_chars).collect();
        let scored: Vec<Score> = self
            .rules
            .iter()
            .map(|r| self.score(r, title, &lede))
            .collect();
        if scored.iter().all(|s| s.score == 0) {
            return Err(Unsettled::NoKeyword);
        }
        // Topics a title-level override (세계 without a Korean marker) takes out of the contest.
        // What the overridden topics saw is the event abroad: it counts for the overrider.
        let mut out: Vec<&str> = Vec::new();
        let mut scored = scored;
        for (i, r) in self.rules.iter().enumerate() {
            if !r.overrides.is_empty()
                && scored[i].in_title > 0
                && !r.unless.iter().any(|u| title.contains(u.as_str()))
            {
                out.extend(r.overrides.iter().map(String::as_str));
                let event = self
                    .rules
                    .iter()
                    .zip(&scored)
                    .filter(|(o, _)| r.overrides.contains(&o.topic))
                    .map(|(_, s)| s.score)
                    .max()
                    .unwrap_or(0);
                scored[i].score += event;
            }
        }
        // Contestants, best first (a stable sort keeps file order among equals).
        let mut order: Vec<usize> = (0..self.rules.len())
            .filter(|i| !out.contains(&self.rules[*i].topic.as_str()) && scored[*i].score > 0)
            .collect();
        order.sort_by_key(|i| std::cmp::Reverse(scored[*i].score));
        let weak = || {
            Unsettled::Weak(
                order
                    .iter()
                    .map(|i| (self.rules[*i].topic.clone(), scored[*i].score))
                    .collect(),
            )
        };
        let Some(&best) = order.first() else {
            return Err(weak());
        };
        let top = scored[best].score;
        let next = order.get(1).map_or(0, |i| scored[*i].score);
        // A place alone: nothing else in the title or lede names what happened there.
        let alone = scored[best].places_only && scored.iter().filter(|s| s.score > 0).count() == 1;
        if top < self.min_score || top - next < self.min_margin || alone {
            return Err(weak());
        }
        Ok(TopicHit {
            rule: self.rules[best].id.clone(),
            topic: self.rules[best].topic.clone(),
            score: top,
            keywords: scored[best].keywords.clone(),
        })
    }
}

/// The rule file shipped with kcurate (`rules/ynat_topics.toml`).
pub const YNAT_TOPICS_TOML: &str = include_str!("../../../rules/ynat_topics.toml");

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> TopicRules {
        TopicRules::parse(Path::new("rules/ynat_topics.toml"), YNAT_TOPICS_TOML).unwrap()
    }

    #[test]
    fn every_ynat_topic_has_a_rule() {
        let r = rules();
        for t in crate::tc::TOPICS {
            assert!(r.rules.iter().any(|x| x.topic == t), "{t}");
        }
        assert_eq!((r.title_weight, r.lede_chars), (2, 300));
        assert_eq!((r.min_score, r.min_margin), (2, 1));
    }

    #[test]
    fn title_hits_outweigh_the_lede_and_ties_are_left_open() {
        let r = rules();
        let h = r
            .decide(
                "야구 대표팀 귀국",
                "국회와 정부는 대통령과 함께 환영 행사를 열었다.",
            )
            .unwrap();
        assert_eq!(h.topic, "스포츠", "{h:?}");
        assert_eq!(r.classify("짧은 글", "내용 없음"), None);
        // The lede only: the body's first characters decide.
        let h = r
            .classify("오늘의 일", "법원은 피고인에게 징역 2년을 선고했다.")
            .unwrap();
        assert_eq!(h.topic, "사회");
        let far = format!("{}법원 징역", "가".repeat(400));
        assert_eq!(r.decide("오늘의 일", &far), Err(Unsettled::NoKeyword));
        // A tie, or a single lede keyword, is for the annotators.
        let tie = r.decide("축구 대표팀, 국회 청문회", "");
        assert!(
            matches!(&tie, Err(Unsettled::Weak(c)) if c.len() == 2),
            "{tie:?}"
        );
        assert!(matches!(
            r.decide("오늘의 일", "법원은 말했다."),
            Err(Unsettled::Weak(_))
        ));
        // Places alone say where, not what; in the lede they do not count.
        assert!(matches!(
            r.decide("브라질과 칠레", ""),
            Err(Unsettled::Weak(_))
        ));
        let h = r
            .decide("수학자 별세", "프랑스와 미국에서 가르쳤다.")
            .unwrap();
        assert_eq!(h.topic, "사회");
        let h = r.decide("리비아 카다피, 퇴진 거부", "").unwrap();
        assert_eq!(h.topic, "세계");
    }

    #[test]
    fn a_topic_outside_ynat_is_refused() {
        let t = "[[rule]]\nid = \"ynat.x\"\ndescription = \"x\"\ntopic = \"연예\"\nkeywords = [\"a\"]\n[[rule.example]]\ntext = \"a\"\n";
        let e = TopicRules::parse(Path::new("r.toml"), t).unwrap_err();
        assert!(e.to_string().contains("ynat.x"), "{e}");
    }
}
