//! Polarity flips of a sentence's final predicate: the antonym lexicon
//! (`rules/antonyms.toml`) and negation rules (`rules/negation.toml`): long negation added
//! or removed with tense, politeness and honorifics kept (좋았어요 ↔ 좋지 않았어요), short
//! negation removed (안 좋다 → 좋다). Conjugation is rule-based and only applied where it is
//! regular; elsewhere no rule applies and the caller records a skip.

use kcurate_core::rules::{RuleDef, parse_rules};

pub const NEGATION_TOML: &str = include_str!("../../../../rules/negation.toml");
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
const PREDICATE_FINALS: &str = "좋있없하롭답싫밌많같높낮겹럽넓깊";

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

/// Applies one rule kind; `None` when it does not apply.
pub fn apply(kind: &str, text: &str, antonyms: &[(String, String)]) -> Option<String> {
    let (body, tail) = split_tail(text);
    match kind {
        "antonym" => {
            for (a, b) in antonyms {
                for (from, to) in [(a, b), (b, a)] {
                    if let Some(head) = body.strip_suffix(from.as_str())
                        && (head.is_empty() || head.ends_with(' '))
                    {
                        return Some(format!("{head}{to}{tail}"));
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
            regular(stem).then(|| format!("{head}{}{tail}", conj(stem, form)))
        }
        "remove_short" => {
            let (head, word) = last_word(body);
            // 안/못 as a word of its own (`조안 까고싶다` holds a name, not a negation).
            let h = ["안 ", "못 "].iter().find_map(|n| {
                head.strip_suffix(n)
                    .filter(|h| h.is_empty() || h.ends_with(' '))
            })?;
            (!word.is_empty()).then(|| format!("{h}{word}{tail}"))
        }
        "add_long" => {
            let (head, word) = last_word(body);
            if word.contains("않") || head.ends_with("안 ") || head.ends_with("못 ") {
                return None;
            }
            let (stem, form) = parse(word)?;
            let last = stem.chars().last()?;
            PREDICATE_FINALS
                .contains(last)
                .then(|| format!("{head}{stem}지 {}{tail}", conj("않", form)))
        }
        _ => None,
    }
}

/// The rule files, parsed once.
pub struct Flipper {
    pub antonyms: Vec<(String, String)>,
    /// (rule id, kind, invertible), in order.
    pub rules: Vec<(String, String, bool)>,
}

impl Flipper {
    pub fn load() -> Result<Flipper, String> {
        let neg: Vec<RuleDef> =
            parse_rules(std::path::Path::new("rules/negation.toml"), NEGATION_TOML)
                .map_err(|e| e.to_string())?;
        let ant: Vec<RuleDef> =
            parse_rules(std::path::Path::new("rules/antonyms.toml"), ANTONYMS_TOML)
                .map_err(|e| e.to_string())?;
        let mut antonyms = Vec::new();
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
        }
        // Longer surface forms first, so 최고였다 wins over 최고.
        antonyms.sort_by_key(|(a, b)| std::cmp::Reverse(a.chars().count().max(b.chars().count())));
        let mut rules = vec![("antonym.lexicon".to_string(), "antonym".to_string(), true)];
        for r in &neg {
            let kind = r
                .params
                .get("kind")
                .and_then(|k| k.as_str())
                .ok_or(format!("{}: no kind", r.id))?;
            let inv = r
                .params
                .get("invertible")
                .and_then(|k| k.as_bool())
                .unwrap_or(false);
            rules.push((r.id.clone(), kind.to_string(), inv));
        }
        Ok(Flipper { antonyms, rules })
    }

    /// Every rule that applies, with its result, in rule order.
    pub fn candidates(&self, text: &str) -> Vec<(&str, String)> {
        self.rules
            .iter()
            .filter_map(|(id, kind, _)| apply(kind, text, &self.antonyms).map(|t| (id.as_str(), t)))
            .collect()
    }

    pub fn rule_kind(&self, id: &str) -> Option<&str> {
        self.rules.iter().find(|r| r.0 == id).map(|r| r.1.as_str())
    }

    pub fn invertible(&self, id: &str) -> bool {
        self.rules.iter().any(|r| r.0 == id && r.2)
    }
}
