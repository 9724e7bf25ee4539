//! Noise rules (`rules/noise.toml`): regular expressions that edit text out (hashtags,
//! HTML, empty brackets, news boilerplate) or drop a record, as KLUE §2.3 describes.
//!
//! A rule's keys besides `id`, `description`, `why` and examples:
//! - `pattern`: a regular expression (Rust `regex` syntax);
//! - `action`: `"edit"` (default) or `"drop"`;
//! - `replace`: the replacement for an edit (default `""`; `$1` refers to a group);
//! - `transform = "html_unescape"`: replace each match by its decoded HTML entity instead;
//! - `scope`: `"any"` (default) or `"news"`: a news rule applies only to the sources the
//!   stage settings name as news (by domain, style or source id).
//!
//! Rules run in file order. After the edits the text is trimmed (rule `noise.blank`).

use kcurate_core::rules::{RuleDef, RuleFileError};
use regex::{Regex, RegexSet};
use std::path::Path;

/// What a match of a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoiseAction {
    /// Replace the match and keep the record (an `edit` decision).
    Edit,
    /// Drop the record (a `drop` decision).
    Drop,
}

/// Which sources a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every source.
    Any,
    /// Only the sources the stage settings name as news (boilerplate of Korean news).
    News,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transform {
    Replace,
    HtmlUnescape,
}

/// One compiled rule of `rules/noise.toml`.
#[derive(Debug, Clone)]
pub struct NoiseRule {
    /// The rule id (`noise.*`), the decision's rule.
    pub id: String,
    /// Edit or drop.
    pub action: NoiseAction,
    /// Every source or news only.
    pub scope: Scope,
    pattern: Regex,
    replace: String,
    transform: Transform,
}

/// The rule that trims the ends of an edited text.
pub const BLANK_RULE: &str = "noise.blank";

/// What applying the rules to one text did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoiseOutcome {
    /// No rule matched: the text stays as it is.
    Unchanged,
    /// The new text and the edits made (`rule`, span in chars of the text before that
    /// rule ran, before, after). The text is unchanged when there are no edits.
    Kept {
        /// The edited text.
        text: String,
        /// The edits, in the order the rules ran.
        edits: Vec<NoiseEdit>,
    },
    /// Dropped by `rule`; `matched` is the matched text (or the edits made before).
    Dropped {
        /// The drop rule's id.
        rule: String,
        /// What it matched.
        matched: String,
        /// Edits earlier rules made before the drop.
        edits: Vec<NoiseEdit>,
    },
}

/// One edit a rule made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoiseEdit {
    /// The rule id.
    pub rule: String,
    /// Start of the match, in chars of the text before this rule ran.
    pub start: usize,
    /// End of the match (exclusive), in the same chars.
    pub end: usize,
    /// The matched text.
    pub before: String,
    /// Its replacement (empty when removed).
    pub after: String,
}

/// The compiled rules of a noise rule file, in file order.
#[derive(Debug, Clone)]
pub struct NoiseRules {
    rules: Vec<NoiseRule>,
    /// The patterns of the rules for any source, in one automaton (see
    /// [`NoiseRules::apply`]).
    any_scope: RegexSet,
}

impl NoiseRules {
    /// Loads and compiles a rule file; errors name the file and the rule.
    pub fn load(path: &Path) -> Result<NoiseRules, RuleFileError> {
        let defs = kcurate_core::rules::load_rules(path)?;
        Self::from_defs(path, &defs)
    }

    /// Compiles parsed rules (`path` is for error messages); keys as the module doc says.
    pub fn from_defs(path: &Path, defs: &[RuleDef]) -> Result<NoiseRules, RuleFileError> {
        let mut rules = Vec::with_capacity(defs.len());
        for d in defs {
            let bad = |m: String| d.error(path, m);
            let s = |k: &str| d.string_param(path, k).map(|v| v.map(String::from));
            for k in d.params.keys() {
                if !matches!(
                    k.as_str(),
                    "pattern" | "action" | "replace" | "transform" | "scope"
                ) {
                    return Err(bad(format!(
                        "unknown key `{k}` (pattern, action, replace, transform, scope)"
                    )));
                }
            }
            let pat = s("pattern")?.ok_or_else(|| bad("missing `pattern`".into()))?;
            let pattern = Regex::new(&pat).map_err(|e| bad(format!("pattern: {e}")))?;
            let action = match s("action")?.as_deref() {
                None | Some("edit") => NoiseAction::Edit,
                Some("drop") => NoiseAction::Drop,
                Some(o) => return Err(bad(format!("action {o:?}: expected \"edit\" or \"drop\""))),
            };
            let scope = match s("scope")?.as_deref() {
                None | Some("any") => Scope::Any,
                Some("news") => Scope::News,
                Some(o) => return Err(bad(format!("scope {o:?}: expected \"any\" or \"news\""))),
            };
            let transform = match s("transform")?.as_deref() {
                None => Transform::Replace,
                Some("html_unescape") => Transform::HtmlUnescape,
                Some(o) => return Err(bad(format!("transform {o:?}: expected \"html_unescape\""))),
            };
            rules.push(NoiseRule {
                id: d.id.clone(),
                action,
                scope,
                pattern,
                replace: s("replace")?.unwrap_or_default(),
                transform,
            });
        }
        Self::new(rules).map_err(|e| RuleFileError::Rule {
            path: path.to_path_buf(),
            id: "*".into(),
            message: format!("the patterns of the rules for any source, together: {e}"),
        })
    }

    fn new(rules: Vec<NoiseRule>) -> Result<NoiseRules, regex::Error> {
        let any_scope = RegexSet::new(
            rules
                .iter()
                .filter(|r| r.scope == Scope::Any)
                .map(|r| r.pattern.as_str()),
        )?;
        Ok(NoiseRules { rules, any_scope })
    }

    /// The rules, in the order they run.
    pub fn rules(&self) -> &[NoiseRule] {
        &self.rules
    }

    /// Keeps only the rules whose id `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let mut rules = std::mem::take(&mut self.rules);
        rules.retain(|r| keep(&r.id));
        *self = Self::new(rules).expect("a subset of patterns that compiled together compiles");
    }

    /// Applies the rules in order; `news` says whether news-scoped rules apply.
    pub fn apply(&self, text: &str, news: bool) -> NoiseOutcome {
        // Most texts of other sources than news match no rule. One pass of their rules'
        // patterns together finds that out for half the time of the searches one by one,
        // each with its own set-up. A rule that does not match the text could only come to
        // match after another rule's edit, so when none matches the text as it is, none
        // changes it. News texts skip this: with the news patterns (long Hangul classes
        // with counted repeats) the joint automaton searched over 100 times slower than the
        // rules one by one, and news boilerplate matches often anyway.
        if !news && !self.any_scope.is_match(text) {
            return NoiseOutcome::Unchanged;
        }
        self.apply_each(text, news)
    }

    /// [`apply`](Self::apply) without the joint pre-check: each rule searches in turn.
    fn apply_each(&self, text: &str, news: bool) -> NoiseOutcome {
        let mut cur = std::borrow::Cow::Borrowed(text);
        let mut edits = Vec::new();
        for r in &self.rules {
            if r.scope == Scope::News && !news {
                continue;
            }
            match r.action {
                NoiseAction::Drop => {
                    if let Some(m) = r.pattern.find(&cur) {
                        return NoiseOutcome::Dropped {
                            rule: r.id.clone(),
                            matched: m.as_str().to_string(),
                            edits,
                        };
                    }
                }
                NoiseAction::Edit => {
                    if let Some(new) = edit(r, &cur, &mut edits) {
                        cur = new.into();
                    }
                }
            }
        }
        if !edits.is_empty() {
            let t = cur.trim();
            if t.len() != cur.len() {
                let lead = cur.len() - cur.trim_start().len();
                let start = cur[..lead].chars().count();
                let total = cur.chars().count();
                let trail = cur[lead + t.len()..].chars().count();
                if lead > 0 {
                    edits.push(NoiseEdit {
                        rule: BLANK_RULE.into(),
                        start: 0,
                        end: start,
                        before: cur[..lead].into(),
                        after: String::new(),
                    });
                }
                if trail > 0 {
                    edits.push(NoiseEdit {
                        rule: BLANK_RULE.into(),
                        start: total - trail,
                        end: total,
                        before: cur[lead + t.len()..].into(),
                        after: String::new(),
                    });
                }
                cur = t.to_string().into();
            }
        }
        NoiseOutcome::Kept {
            text: cur.into_owned(),
            edits,
        }
    }
}

fn edit(r: &NoiseRule, text: &str, edits: &mut Vec<NoiseEdit>) -> Option<String> {
    let mut it = r.pattern.captures_iter(text).peekable();
    it.peek()?;
    let mut out = String::with_capacity(text.len());
    let mut last = 0usize;
    let mut chars_before = 0usize;
    let mut changed = false;
    for caps in it {
        let Some(m) = caps.get(0) else { continue };
        if m.start() == m.end() {
            continue;
        }
        let mut rep = String::new();
        match r.transform {
            Transform::Replace => caps.expand(&r.replace, &mut rep),
            Transform::HtmlUnescape => rep = html_unescape(m.as_str()),
        }
        if rep == m.as_str() {
            continue;
        }
        chars_before += text[last..m.start()].chars().count();
        let len = m.as_str().chars().count();
        edits.push(NoiseEdit {
            rule: r.id.clone(),
            start: chars_before,
            end: chars_before + len,
            before: m.as_str().to_string(),
            after: rep.clone(),
        });
        chars_before += len;
        out.push_str(&text[last..m.start()]);
        out.push_str(&rep);
        last = m.end();
        changed = true;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Decodes one HTML entity (`&amp;`, `&#39;`, `&#x27;`); an unknown one becomes a space.
pub fn html_unescape(e: &str) -> String {
    let inner = e.trim_start_matches('&').trim_end_matches(';');
    let named = match inner {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        "middot" => Some('·'),
        "hellip" => Some('…'),
        "lsquo" => Some('‘'),
        "rsquo" => Some('’'),
        "ldquo" => Some('“'),
        "rdquo" => Some('”'),
        "ndash" => Some('–'),
        "mdash" => Some('—'),
        _ => None,
    };
    if let Some(c) = named {
        return c.to_string();
    }
    let num = if let Some(h) = inner
        .strip_prefix("#x")
        .or_else(|| inner.strip_prefix("#X"))
    {
        u32::from_str_radix(h, 16).ok()
    } else if let Some(d) = inner.strip_prefix('#') {
        d.parse().ok()
    } else {
        None
    };
    match num.and_then(char::from_u32) {
        Some(c) if !c.is_control() || c == '\n' || c == '\t' => c.to_string(),
        _ => " ".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The bundled rules, compiled once for all cases.
    fn rules() -> &'static NoiseRules {
        static RULES: std::sync::LazyLock<NoiseRules> = std::sync::LazyLock::new(|| {
            NoiseRules::load(Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../rules/noise.toml"
            )))
            .expect("the bundled rules load")
        });
        &RULES
    }

    /// The joint pre-check changes nothing: a text it passes over is one that the rules
    /// run one by one leave as it is, and any other text gets their outcome.
    fn same_as_each(rules: &NoiseRules, text: &str, news: bool) -> Result<(), TestCaseError> {
        let each = rules.apply_each(text, news);
        match rules.apply(text, news) {
            NoiseOutcome::Unchanged => prop_assert_eq!(
                each,
                NoiseOutcome::Kept {
                    text: text.to_string(),
                    edits: Vec::new()
                }
            ),
            joint => prop_assert_eq!(joint, each),
        }
        Ok(())
    }

    #[test]
    fn pre_check_agrees_on_every_rule_example() {
        let rules = rules();
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../rules/noise.toml"
        ));
        for d in kcurate_core::rules::load_rules(path).expect("loads") {
            for ex in &d.examples {
                for news in [false, true] {
                    same_as_each(rules, &ex.text, news).unwrap_or_else(|e| panic!("{e}"));
                }
            }
        }
    }

    proptest! {
        #[test]
        fn pre_check_agrees_on_any_text(
            t in "[가-힣ㅋ a-z0-9#&;<>/()\\[\\]{}「」=@.ⓒ\t\u{A0}]{0,40}",
            news in any::<bool>(),
        ) {
            same_as_each(rules(), &t, news)?;
        }
    }
}
