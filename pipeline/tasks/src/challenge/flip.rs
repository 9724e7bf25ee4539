//! Polarity flips of a sentence's final predicate: the antonym lexicon
//! (`rules/antonyms.toml`) and negation rules (`rules/negation.toml`): long negation added
//! or removed with tense, politeness and honorifics kept (좋았어요 ↔ 좋지 않았어요), short
//! negation removed (안 좋다 → 좋다). Conjugation is rule-based and only applied where it is
//! regular; elsewhere no rule applies and the caller records a skip.

use kcurate_core::rules::{RuleDef, parse_rules};

mod guard;
pub use guard::Guard;
use guard::guard;

/// `rules/negation.toml`, built in: the flips must not depend on the working directory.
pub const NEGATION_TOML: &str = include_str!("../../../../rules/negation.toml");
/// `rules/antonyms.toml`, built in likewise.
pub const ANTONYMS_TOML: &str = include_str!("../../../../rules/antonyms.toml");

/// Endings after a stem, in the forms the rules keep: (form, "아" spelling, "어" spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Plain,
    Polite,
    Past,
    PastPolite,
    Formal,
    PastFormal,
    Neyo,
    Honorific,
}

fn split_tail(text: &str) -> (&str, &str) {
    let body = text.trim_end_matches(|c: char| {
        c.is_whitespace()
            || ".!?~^".contains(c)
            || ('ㄱ'..='ㅣ').contains(&c)
            || ('ᄀ'..='ᇿ').contains(&c)
    });
    (body, &text[body.len()..])
}

fn syllable(c: char) -> Option<(u32, u32, u32)> {
    let x = c as u32;
    (0xAC00..=0xD7A3).contains(&x).then(|| {
        (
            (x - 0xAC00) / 588,
            (x - 0xAC00) % 588 / 28,
            (x - 0xAC00) % 28,
        )
    })
}

/// Does the stem take 아 (last vowel ㅏ or ㅗ) rather than 어?
fn bright(stem: &str) -> bool {
    stem.chars()
        .last()
        .and_then(syllable)
        .is_some_and(|(_, v, _)| v == 0 || v == 8)
}

fn has_final(stem: &str) -> bool {
    stem.chars()
        .last()
        .and_then(syllable)
        .is_some_and(|(_, _, f)| f != 0)
}

/// Stems whose conjugation the rules handle: consonant-final, or ending in 하.
fn regular(stem: &str) -> bool {
    !stem.is_empty()
        && (has_final(stem) || stem.ends_with('하'))
        && stem.chars().all(|c| syllable(c).is_some())
}

/// Final syllables of adjectives and verbs that carry sentiment (a noun + copula such as
/// 최고다 is left to the antonym lexicon).
const PREDICATE_FINALS: &str = "좋있없하롭답싫밌많같높낮겹럽넓깊깝";

fn conj(stem: &str, form: Form) -> String {
    let a = bright(stem);
    if let Some(s) = stem.strip_suffix('하') {
        return match form {
            Form::Plain => format!("{s}하다"),
            Form::Polite => format!("{s}해요"),
            Form::Past => format!("{s}했다"),
            Form::PastPolite => format!("{s}했어요"),
            Form::Formal => format!("{s}합니다"),
            Form::PastFormal => format!("{s}했습니다"),
            Form::Neyo => format!("{s}하네요"),
            Form::Honorific => format!("{s}하세요"),
        };
    }
    let (v, past) = if a { ("아", "았") } else { ("어", "었") };
    match form {
        Form::Plain => format!("{stem}다"),
        Form::Polite => format!("{stem}{v}요"),
        Form::Past => format!("{stem}{past}다"),
        Form::PastPolite => format!("{stem}{past}어요"),
        Form::Formal => format!("{stem}습니다"),
        Form::PastFormal => format!("{stem}{past}습니다"),
        Form::Neyo => format!("{stem}네요"),
        Form::Honorific => format!("{stem}으세요"),
    }
}

/// The stem and form of a final predicate word, where conjugation is regular.
fn parse(word: &str) -> Option<(String, Form)> {
    const H: [(&str, Form); 8] = [
        ("했습니다", Form::PastFormal),
        ("했어요", Form::PastPolite),
        ("했다", Form::Past),
        ("합니다", Form::Formal),
        ("해요", Form::Polite),
        ("하네요", Form::Neyo),
        ("하세요", Form::Honorific),
        ("하다", Form::Plain),
    ];
    for (end, form) in H {
        if let Some(s) = word.strip_suffix(end) {
            return Some((format!("{s}하"), form));
        }
    }
    const E: [(&str, Form); 13] = [
        ("았습니다", Form::PastFormal),
        ("었습니다", Form::PastFormal),
        ("았어요", Form::PastPolite),
        ("었어요", Form::PastPolite),
        ("았다", Form::Past),
        ("었다", Form::Past),
        ("습니다", Form::Formal),
        ("으세요", Form::Honorific),
        ("아요", Form::Polite),
        ("어요", Form::Polite),
        ("네요", Form::Neyo),
        ("다", Form::Plain),
        ("음", Form::Plain),
    ];
    for (end, form) in E {
        if let Some(s) = word.strip_suffix(end) {
            let ok_vowel = match end.chars().next() {
                Some('았') | Some('아') => bright(s),
                Some('었') | Some('어') => !bright(s),
                _ => true,
            };
            if regular(s) && ok_vowel && end != "음" {
                return Some((s.to_string(), form));
            }
        }
    }
    None
}

fn last_word(body: &str) -> (&str, &str) {
    match body.rfind(' ') {
        Some(i) => (&body[..i + 1], &body[i + 1..]),
        None => ("", body),
    }
}

/// One flip of a sentence's final predicate: the rewritten sentence, the part of the
/// sentence before the predicate (`head`), the predicate as it was, and whether the rule adds
/// a negation (the guards of `rules/negation.toml` read these).
#[derive(Debug, Clone, PartialEq)]
pub struct Flip {
    /// The whole sentence with its predicate flipped.
    pub text: String,
    /// The sentence before the predicate.
    pub head: String,
    /// The predicate word as it was.
    pub predicate: String,
    /// The rule adds a negation (rather than removing one or swapping an antonym).
    pub adds_negation: bool,
    /// The predicate's stem, for the rules that add a negation to it.
    pub stem: Option<String>,
    /// What follows the predicate: punctuation, jamo laughter, faces (^^, ㅡㅡ).
    pub tail: String,
}

/// Applies one rule kind; `None` when it does not apply.
pub fn apply(kind: &str, text: &str, antonyms: &[(String, String)]) -> Option<String> {
    flip(kind, text, antonyms, &[]).map(|f| f.text)
}

/// Applies one rule kind with its parameters (`stems` of `add_short`); `None` when it does not
/// apply.
pub fn flip(
    kind: &str,
    text: &str,
    antonyms: &[(String, String)],
    stems: &[String],
) -> Option<Flip> {
    let (body, tail) = split_tail(text);
    let mk = |head: &str, predicate: &str, new: String, adds: bool| Flip {
        text: format!("{head}{new}{tail}"),
        head: head.to_string(),
        predicate: predicate.to_string(),
        adds_negation: adds,
        stem: None,
        tail: tail.to_string(),
    };
    match kind {
        "antonym" => {
            for (a, b) in antonyms {
                for (from, to) in [(a, b), (b, a)] {
                    if let Some(head) = body.strip_suffix(from.as_str())
                        && (head.is_empty() || head.ends_with(' '))
                    {
                        return Some(mk(head, from, to.clone(), false));
                    }
                }
            }
            None
        }
        "remove_long" => {
            let i = body.rfind("지 않")?;
            let (stem_part, end) = (&body[..i], &body[i + "지 않".len()..]);
            let (head, stem) = last_word(stem_part);
            let (_, form) = parse(&format!("않{end}")).filter(|(s, _)| s == "않")?;
            regular(stem).then(|| mk(head, &body[head.len()..], conj(stem, form), false))
        }
        "remove_short" | "remove_short_predicate" => {
            let (head, word) = last_word(body);
            // The second kind only where what 안/못 negates is a regular predicate
            // (`집중도 안 돼고` → `집중도 돼고` is a fragment).
            if kind == "remove_short_predicate" && parse(word).is_none() {
                return None;
            }
            // 안/못 as a word of its own (`조안 까고싶다` holds a name, not a negation).
            let h = ["안 ", "못 "].iter().find_map(|n| {
                head.strip_suffix(n)
                    .filter(|h| h.is_empty() || h.ends_with(' '))
            })?;
            (!word.is_empty()).then(|| mk(h, &body[h.len()..], word.to_string(), false))
        }
        "add_short" => {
            let (head, word) = last_word(body);
            let (stem, _) = parse(word)?;
            stems.contains(&stem).then(|| Flip {
                stem: Some(stem.clone()),
                ..mk(head, word, format!("안 {word}"), true)
            })
        }
        "add_long" => {
            let (head, word) = last_word(body);
            if word.contains("않") || head.ends_with("안 ") || head.ends_with("못 ") {
                return None;
            }
            let (stem, form) = parse(word)?;
            let last = stem.chars().last()?;
            PREDICATE_FINALS.contains(last).then(|| Flip {
                stem: Some(stem.clone()),
                ..mk(head, word, format!("{stem}지 {}", conj("않", form)), true)
            })
        }
        _ => None,
    }
}

/// What the rules make of a sentence: the flips no guard stops, best first, and the flips a
/// guard stopped (guard id, rule id).
#[derive(Debug, Default)]
pub struct Candidates<'a> {
    /// (rule id, flip), most preferred rule first.
    pub flips: Vec<(&'a str, Flip)>,
    /// (guard id, rule id) of each flip a guard stopped.
    pub stopped: Vec<(&'a str, &'a str)>,
}

/// The rule files, parsed once.
pub struct Flipper {
    /// Antonym pairs (either side flips to the other), longest surface form first.
    pub antonyms: Vec<(String, String)>,
    /// (rule id, kind, invertible), most preferred first (the rules' `prefer` rank).
    pub rules: Vec<(String, String, bool)>,
    /// The predicate stems `add_short` negates with 안.
    pub stems: Vec<String>,
    /// The guards, in file order; the first that matches stops a flip.
    pub guards: Vec<Guard>,
}

fn strings(r: &RuleDef, key: &str) -> Vec<String> {
    r.params
        .get(key)
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(String::from))
        .collect()
}

fn flag(r: &RuleDef, key: &str) -> bool {
    r.params.get(key).and_then(|k| k.as_bool()).unwrap_or(false)
}

fn prefer(r: &RuleDef) -> i64 {
    r.params
        .get("prefer")
        .and_then(|p| p.as_integer())
        .unwrap_or(i64::MAX)
}

/// The built-in negation or antonym rules are wrong (a broken build, not bad input).
#[derive(Debug, thiserror::Error)]
pub enum FlipRulesError {
    /// A rule file does not parse or a rule lacks examples.
    #[error(transparent)]
    Rules(#[from] kcurate_core::rules::RuleFileError),
    /// A negation rule has no `kind`.
    #[error("{id}: no kind")]
    NoKind {
        /// The rule's id.
        id: String,
    },
    /// A guard's `scope` is neither `predicate` nor `sentence`.
    #[error("{id}: scope must be \"predicate\" or \"sentence\", not {scope:?}")]
    Scope {
        /// The rule's id.
        id: String,
        /// The scope it gives, if any.
        scope: Option<String>,
    },
}

impl Flipper {
    /// Parses the built-in rule files.
    pub fn load() -> Result<Flipper, FlipRulesError> {
        let neg: Vec<RuleDef> =
            parse_rules(std::path::Path::new("rules/negation.toml"), NEGATION_TOML)?;
        let ant: Vec<RuleDef> =
            parse_rules(std::path::Path::new("rules/antonyms.toml"), ANTONYMS_TOML)?;
        let mut antonyms = Vec::new();
        let mut ranked = Vec::new();
        for r in &ant {
            for p in r
                .params
                .get("pairs")
                .and_then(|p| p.as_array())
                .into_iter()
                .flatten()
            {
                if let (Some(a), Some(b)) = (
                    p.get(0).and_then(|x| x.as_str()),
                    p.get(1).and_then(|x| x.as_str()),
                ) {
                    antonyms.push((a.to_string(), b.to_string()));
                }
            }
            ranked.push((prefer(r), (r.id.clone(), "antonym".to_string(), true)));
        }
        // Longer surface forms first, so 최고였다 wins over 최고.
        antonyms.sort_by_key(|(a, b)| std::cmp::Reverse(a.chars().count().max(b.chars().count())));
        let mut stems = Vec::new();
        let mut guards = Vec::new();
        for r in &neg {
            let kind = r
                .params
                .get("kind")
                .and_then(|k| k.as_str())
                .ok_or_else(|| FlipRulesError::NoKind { id: r.id.clone() })?;
            if kind == "guard" {
                guards.push(guard(r)?);
                continue;
            }
            if kind == "add_short" {
                stems.extend(strings(r, "stems"));
            }
            let inv = r
                .params
                .get("invertible")
                .and_then(|k| k.as_bool())
                .unwrap_or(false);
            ranked.push((prefer(r), (r.id.clone(), kind.to_string(), inv)));
        }
        ranked.sort_by_key(|(p, _)| *p);
        let rules = ranked.into_iter().map(|(_, r)| r).collect();
        Ok(Flipper {
            antonyms,
            rules,
            stems,
            guards,
        })
    }

    /// One rule kind on `text`, with this flipper's lexicon and stems.
    pub fn flip(&self, kind: &str, text: &str) -> Option<Flip> {
        flip(kind, text, &self.antonyms, &self.stems)
    }

    /// The stem of a predicate word where its conjugation is regular (재미없었다 → 재미없),
    /// also in the clipped endings of reviews that no rule conjugates (재미없음, 재미없네,
    /// 재미없어, 지루함): the predicate cap counts all forms of one predicate together.
    pub fn stem(&self, word: &str) -> Option<String> {
        const CLIPPED: [(&str, &str); 10] = [
            ("했음", "하"),
            ("함", "하"),
            ("었음", ""),
            ("았음", ""),
            ("었어", ""),
            ("았어", ""),
            ("음", ""),
            ("네", ""),
            ("어", ""),
            ("아", ""),
        ];
        parse(word).map(|(s, _)| s).or_else(|| {
            CLIPPED.iter().find_map(|(end, stem_end)| {
                let s = format!("{}{stem_end}", word.strip_suffix(end)?);
                regular(&s).then_some(s)
            })
        })
    }

    /// Every rule that applies, most preferred first, and the flips the guards stopped.
    pub fn candidates(&self, text: &str) -> Candidates<'_> {
        let mut c = Candidates::default();
        for (id, kind, _) in &self.rules {
            let Some(f) = self.flip(kind, text) else {
                continue;
            };
            match self.guards.iter().find(|g| g.stops(kind, &f)) {
                Some(g) => c.stopped.push((g.id.as_str(), id.as_str())),
                None => c.flips.push((id.as_str(), f)),
            }
        }
        c
    }

    /// The kind of rule `id` (`antonym`, `add_long`, ...), `None` for an unknown id.
    pub fn rule_kind(&self, id: &str) -> Option<&str> {
        self.rules.iter().find(|r| r.0 == id).map(|r| r.1.as_str())
    }

    /// Whether the rule's `invertible` flag is set: flipping its output back gives the
    /// input. Antonym rules always are.
    pub fn invertible(&self, id: &str) -> bool {
        self.rules.iter().any(|r| r.0 == id && r.2)
    }
}
