//! YNAT topics from keywords (`rules/ynat_topics.toml`), for corpora without a category
//! field: [`TopicRules`] holds one [`TopicRule`] per topic (keywords, cancelling `not`
//! substrings, and for 세계 the topics it overrides); [`TopicRules::classify`] gives the
//! topic of a title and the body's lede, or none when no keyword matches.

use kcurate_core::rules::{RuleDef, RuleFileError, parse_rules};
use std::path::Path;

/// One topic's rule.
#[derive(Debug, Clone)]
pub struct TopicRule {
    /// The rule id, named on the row and in the report.
    pub id: String,
    /// One of KLUE's seven YNAT topics.
    pub topic: String,
    /// Substrings whose presence votes for the topic (each counted once per text).
    pub keywords: Vec<String>,
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

/// Distinct keywords of `r` in `text` (after blanking the `not` substrings).
fn hits(r: &TopicRule, text: &str) -> Vec<String> {
    let mut t = text.to_string();
    for n in &r.not {
        t = t.replace(n.as_str(), " ");
    }
    r.keywords
        .iter()
        .filter(|k| t.contains(k.as_str()))
        .cloned()
        .collect()
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
                overrides: list(path, r, "overrides", false)?,
                unless: list(path, r, "unless", false)?,
            });
        }
        Ok(TopicRules {
            rules,
            title_weight: int("title_weight", 2)?,
            lede_chars: int("lede_chars", 300)?,
            digest,
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

    /// The topic of a headline (`body`: the article text, of which the first `lede_chars`
    /// characters count), or None when no keyword of any rule matches or the title is a
    /// digest's.
    pub fn classify(&self, title: &str, body: &str) -> Option<TopicHit> {
        if self.is_digest(title) {
            return None;
        }
        let lede: String = body.chars().take(self.lede_chars).collect();
        let scored: Vec<(usize, Vec<String>, usize)> = self
            .rules
            .iter()
            .map(|r| {
                let t = hits(r, title);
                let l = hits(r, &lede);
                let score = t.len() * self.title_weight + l.len();
                let mut kw = t.clone();
                kw.extend(l.into_iter().filter(|k| !t.contains(k)));
                (score, kw, t.len())
            })
            .collect();
        // Topics a title-level override (세계 without a Korean marker) takes out of the contest.
        let mut out: Vec<&str> = Vec::new();
        for (r, (_, _, in_title)) in self.rules.iter().zip(&scored) {
            if !r.overrides.is_empty()
                && *in_title > 0
                && !r.unless.iter().any(|u| title.contains(u.as_str()))
            {
                out.extend(r.overrides.iter().map(String::as_str));
            }
        }
        let mut best: Option<usize> = None;
        for (i, r) in self.rules.iter().enumerate() {
            if out.contains(&r.topic.as_str()) || scored[i].0 == 0 {
                continue;
            }
            if best.is_none_or(|b| scored[i].0 > scored[b].0) {
                best = Some(i);
            }
        }
        best.map(|i| TopicHit {
            rule: self.rules[i].id.clone(),
            topic: self.rules[i].topic.clone(),
            score: scored[i].0,
            keywords: scored[i].1.clone(),
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
    }

    #[test]
    fn title_hits_outweigh_the_lede_and_ties_go_to_the_earlier_rule() {
        let r = rules();
        let h = r
            .classify(
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
        assert_eq!(r.classify("오늘의 일", &far), None);
    }

    #[test]
    fn a_topic_outside_ynat_is_refused() {
        let t = "[[rule]]\nid = \"ynat.x\"\ndescription = \"x\"\ntopic = \"연예\"\nkeywords = [\"a\"]\n[[rule.example]]\ntext = \"a\"\n";
        let e = TopicRules::parse(Path::new("r.toml"), t).unwrap_err();
        assert!(e.to_string().contains("ynat.x"), "{e}");
    }
}
