//! Short complete sentences: what filter.too_short_v2 keeps although the text is under
//! `min_chars`. The splitter's endings ([`ends_like_sentence`]) decide first; the word lists
//! of `rules/filter.toml` ([`ShortRules`]) add the informal predicates a short review ends
//! with (지루해, 좋아, 재밌는데, 모자람) that are not final inside running text.

use crate::ssplit::ends_like_sentence;
use kcurate_core::rules::{RuleDef, RuleFileError, parse_rules};
use std::path::Path;
use std::sync::OnceLock;

/// The rule file, compiled in so the filter needs no file at run time.
pub const RULES_TOML: &str = include_str!("../../../rules/filter.toml");

/// The rule whose word lists this module reads.
pub const RULE: &str = "filter.too_short_v2";

/// The word lists of filter.too_short_v2 (see rules/filter.toml).
#[derive(Debug, Clone, Default)]
pub struct ShortRules {
    complete_words: Vec<String>,
    complete_endings: Vec<String>,
    not_complete: Vec<String>,
}

impl ShortRules {
    /// Reads the lists from the rule `filter.too_short_v2` of a parsed rule file.
    pub fn from_defs(path: &Path, defs: &[RuleDef]) -> Result<ShortRules, RuleFileError> {
        let d = defs
            .iter()
            .find(|d| d.id == RULE)
            .ok_or_else(|| RuleFileError::Parse {
                path: path.to_path_buf(),
                message: format!("no rule {RULE}"),
            })?;
        let list = |key: &str| -> Result<Vec<String>, RuleFileError> {
            match d.params.get(key) {
                None => Ok(Vec::new()),
                Some(toml::Value::Array(a)) => a
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .map(String::from)
                            .ok_or_else(|| d.error(path, format!("`{key}` holds strings only")))
                    })
                    .collect(),
                Some(v) => Err(d.error(
                    path,
                    format!("`{key}` must be a list of strings, not {}", v.type_str()),
                )),
            }
        };
        for k in d.params.keys() {
            if !matches!(
                k.as_str(),
                "complete_words" | "complete_endings" | "not_complete"
            ) {
                return Err(d.error(
                    path,
                    format!("unknown key `{k}` (complete_words, complete_endings, not_complete)"),
                ));
            }
        }
        Ok(ShortRules {
            complete_words: list("complete_words")?,
            complete_endings: list("complete_endings")?,
            not_complete: list("not_complete")?,
        })
    }

    /// The lists of the compiled-in rules/filter.toml.
    pub fn builtin() -> &'static ShortRules {
        static R: OnceLock<ShortRules> = OnceLock::new();
        R.get_or_init(|| {
            let path = Path::new("rules/filter.toml");
            let defs = parse_rules(path, RULES_TOML).expect("rules/filter.toml parses");
            ShortRules::from_defs(path, &defs).expect("rules/filter.toml is valid")
        })
    }

    /// Does `text` end like a complete sentence: by the splitter's endings, or by these
    /// lists, once trailing punctuation, symbols and jamo (ㅋ, ㅠ) are set aside?
    pub fn completes(&self, text: &str) -> bool {
        if ends_like_sentence(text) {
            return true;
        }
        let core = text.trim_end_matches(|c: char| !is_syllable(c));
        if core.is_empty() {
            return false;
        }
        let last = core.split_whitespace().next_back().unwrap_or("");
        // A tail the splitter does not read as one (`좋다,`, `좋아요 ㅎ`) set aside; a lone
        // syllable left (`죵 ?`) is not a sentence.
        let joined: String = core.split_whitespace().collect();
        let listed = |w: &str| self.complete_words.iter().any(|x| x == w);
        if listed(last) || listed(&joined) {
            return true;
        }
        if last.chars().count() < 2 || self.not_complete.iter().any(|n| last.ends_with(n.as_str()))
        {
            return false;
        }
        (core.len() < text.len() && ends_like_sentence(core))
            || self
                .complete_endings
                .iter()
                .any(|e| last.ends_with(e.as_str()))
    }
}

#[inline]
fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_are_set_aside_and_lists_apply_to_the_last_word() {
        let r = ShortRules::builtin();
        for keep in [
            "재밌다,",
            "좋아요,",
            "보세요/",
            "좋아ㅠㅠ",
            "아 불쾌해",
            "너무 좋아.",
        ] {
            assert!(r.completes(keep), "{keep}");
        }
        for drop in [
            "ㅋㅋ",
            "-_-",
            "...",
            "최고~!",
            "이 영화",
            "굳ㅋ",
            "좋은 영화",
        ] {
            assert!(!r.completes(drop), "{drop}");
        }
    }

    #[test]
    fn a_bad_list_names_the_rule() {
        let t = "[[rule]]\nid = \"filter.too_short_v2\"\ndescription = \"x\"\ncomplete_words = \"뭐지\"\n[[rule.example]]\ntext = \"뭐지\"\nexpect = \"keep\"\n";
        let p = Path::new("f.toml");
        let e = ShortRules::from_defs(p, &parse_rules(p, t).unwrap()).unwrap_err();
        assert!(
            e.to_string()
                .contains("`complete_words` must be a list of strings"),
            "{e}"
        );
    }
}
