//! The guards of `rules/negation.toml`: what each reads of a flip, and when it stops it.

use super::{Flip, FlipRulesError, flag, strings, syllable};
use kcurate_core::rules::RuleDef;

/// A guard of `rules/negation.toml`: a flip it matches is not made. `scope = "predicate"`
/// reads the predicate a negation would be added to (and the word before it), `scope =
/// "sentence"` the rest of the sentence before the predicate, for any flip.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The guard's rule id, named in the skip decision.
    pub id: String,
    /// `scope = "sentence"` (true) or `"predicate"` (false).
    pub sentence: bool,
    /// Words that are a negation on their own (안, 못).
    pub words: Vec<String>,
    /// Pieces that negate the word holding them (않, 없, 아니, ...).
    pub inside: Vec<String>,
    /// Predicate stems (exact) a negation is not added to.
    pub stems: Vec<String>,
    /// Endings of predicate stems a negation is not added to.
    pub stem_endings: Vec<String>,
    /// Endings of the predicate word a negation is not added to.
    pub endings: Vec<String>,
    /// Stops a negation added to a predicate repeated inside its own word (좋아요좋아요좋아요:
    /// the stem holds the ending again).
    pub repeated: bool,
    /// Stops a negation added to a stem longer than this many syllables: words run
    /// together without spaces (너무드라마가질질끌어서답답해요), where the negation would land
    /// on a whole clause.
    pub max_stem_syllables: Option<usize>,
    /// When not empty: stops a negation added to a stem that ends in none of these (the
    /// predicates that evaluate; 관람하다, 씁쓸하다, 억울하다 state or feel, and negating
    /// them reverses no review).
    pub only_stem_endings: Vec<String>,
    /// A sentence guard that reads the predicate word too (a connective run into it:
    /// 근데재밌다).
    pub with_predicate: bool,
    /// When not empty: the guard reads only flips of these rule kinds (`add_long`): a degree
    /// adverb before a long negation hedges (꽤 재밌지 않다, "not quite fun"), while short
    /// negation under it reverses (꽤 안 좋다).
    pub kinds: Vec<String>,
    /// Stops a negation added to a predicate word that begins with one of these, written
    /// without a space (꽤재미있다).
    pub prefixes: Vec<String>,
    /// Words that begin like one of [`Guard::prefixes`] but are one word, not the adverb
    /// written onto a predicate (다양하다, 다정하다, 다행이다 are no 다 + predicate).
    pub prefix_words: Vec<String>,
    /// Stops a flip that removes one of these negation words: 못 states an inability, and
    /// without it the sentence states an act (못 보겠다 → 보겠다), not the opposite judgement.
    pub removes: Vec<String>,
    /// A sentence guard: stops a flip whose tail holds one of these (faces that carry the
    /// sentence's polarity, ^^ or ㅡㅡ, and would contradict the reversed predicate).
    pub tail_inside: Vec<String>,
    /// A sentence guard: stops a flip whose head holds an evaluative predicate (a stem
    /// ending in one of these) joined to the final one by -고, -며 or -아서/-어서: a
    /// coordinated or reason clause (흥미롭고 유쾌하다, 훈훈해서 좋았다) keeps its polarity
    /// when the final predicate is reversed.
    pub head_stems: Vec<String>,
    /// A sentence guard: stops a flip whose head holds a word ending in one of these (a
    /// reason clause, 느껴져서, 귀여워서: the reason argues for the original polarity).
    pub head_endings: Vec<String>,
    /// With [`Guard::head_stems`]: also stops a flip whose head holds one of those
    /// predicates as an adverb (-게: 만족스럽게 재미있었음) or as a modifier of a noun, run
    /// into it or not (-은/-는/-ㄴ: 수준낮은영화 한심하다): the word keeps its polarity and
    /// contradicts the reversed predicate.
    pub modifiers: bool,
}

impl Guard {
    fn negated(&self, text: &str) -> bool {
        text.split_whitespace().any(|w| {
            self.words.iter().any(|n| n == w) || self.inside.iter().any(|n| w.contains(n.as_str()))
        })
    }

    /// Whether the guard stops `f`, a flip made by a rule of `kind`.
    pub fn stops(&self, kind: &str, f: &Flip) -> bool {
        if !self.kinds.is_empty() && !self.kinds.iter().any(|k| k == kind) {
            return false;
        }
        if self.sentence {
            self.negated(&f.head)
                || (self.with_predicate && self.negated(&f.predicate))
                || self.tail_inside.iter().any(|t| f.tail.contains(t.as_str()))
                || f.head.split_whitespace().any(|w| {
                    self.evaluative_clause(w)
                        || {
                            let w = w.trim_end_matches(|c: char| !c.is_alphanumeric());
                            self.head_endings.iter().any(|e| w.ends_with(e.as_str()))
                        }
                        || (self.modifiers && self.evaluative_modifier(w))
                })
        } else if f.adds_negation {
            self.stops_addition(f)
        } else {
            self.removes.iter().any(|w| {
                f.predicate
                    .strip_prefix(w.as_str())
                    .is_some_and(|rest| rest.starts_with(' '))
            })
        }
    }

    /// Whether `word` is an evaluative predicate of [`Guard::head_stems`] ending in a
    /// connective (-고, -며, -아서/-어서, with 하 and the past).
    fn evaluative_clause(&self, word: &str) -> bool {
        const CONNECTIVES: [(&str, &str); 11] = [
            ("했고", "하"),
            ("하고", "하"),
            ("해서", "하"),
            ("하며", "하"),
            ("았고", ""),
            ("었고", ""),
            ("아서", ""),
            ("어서", ""),
            ("으며", ""),
            ("고", ""),
            ("며", ""),
        ];
        let word = word.trim_end_matches(|c: char| !c.is_alphanumeric());
        // ㅂ-irregular stems before -었고 (흥미로웠고 → 흥미롭).
        if let Some(s) = word.strip_suffix("웠고")
            && let Some(last) = s.chars().last()
            && let Some((l, v, 0)) = syllable(last)
            && let Some(b) = char::from_u32(0xAC00 + l * 588 + v * 28 + 17)
        {
            let stem = format!("{}{b}", &s[..s.len() - last.len_utf8()]);
            if self.head_stems.iter().any(|e| stem.ends_with(e.as_str())) {
                return true;
            }
        }
        CONNECTIVES.iter().any(|(end, stem_end)| {
            word.strip_suffix(end).is_some_and(|s| {
                let stem = format!("{s}{stem_end}");
                !s.is_empty() && self.head_stems.iter().any(|e| stem.ends_with(e.as_str()))
            })
        })
    }

    /// Whether `word` holds a predicate of [`Guard::head_stems`] as an adverb (-게, ending
    /// the word) or a modifier (anywhere in the word: a noun may be run into it).
    fn evaluative_modifier(&self, word: &str) -> bool {
        let word = word.trim_end_matches(|c: char| !c.is_alphanumeric());
        self.head_stems.iter().any(|stem| {
            word.ends_with(&format!("{stem}게"))
                || modifier_forms(stem)
                    .iter()
                    .any(|m| word.contains(m.as_str()))
        })
    }

    /// Whether the predicate guard stops `f`, a flip that adds a negation.
    fn stops_addition(&self, f: &Flip) -> bool {
        let before = f.head.split_whitespace().last().unwrap_or("");
        let stem = f.stem.as_deref().unwrap_or("");
        self.negated(&f.predicate)
            || self.words.iter().any(|n| n == before)
            || self.stems.iter().any(|s| s == stem)
            || self.stem_endings.iter().any(|e| stem.ends_with(e.as_str()))
            || self
                .endings
                .iter()
                .any(|e| f.predicate.ends_with(e.as_str()))
            || (self
                .prefixes
                .iter()
                .any(|p| f.predicate.len() > p.len() && f.predicate.starts_with(p.as_str()))
                && !self
                    .prefix_words
                    .iter()
                    .any(|w| f.predicate.starts_with(w.as_str())))
            || (self.repeated && repeated(stem, &f.predicate))
            || self
                .max_stem_syllables
                .is_some_and(|m| stem.chars().count() > m)
            || (!self.only_stem_endings.is_empty()
                && !self
                    .only_stem_endings
                    .iter()
                    .any(|e| stem.ends_with(e.as_str())))
    }
}

/// Whether `predicate` repeats itself inside its word: its ending (after `stem`) is found
/// again in the stem after its first syllable (좋아요좋아요좋아요); 다양하다 begins with its
/// ending 다 and is one word.
fn repeated(stem: &str, predicate: &str) -> bool {
    let after_first = stem.chars().next().map_or("", |c| &stem[c.len_utf8()..]);
    predicate
        .strip_prefix(stem)
        .is_some_and(|end| !end.is_empty() && after_first.contains(end))
}

/// A guard of `rules/negation.toml` from its rule.
pub(super) fn guard(r: &RuleDef) -> Result<Guard, FlipRulesError> {
    let sentence = match r.params.get("scope").and_then(|k| k.as_str()) {
        Some("sentence") => true,
        Some("predicate") => false,
        other => {
            return Err(FlipRulesError::Scope {
                id: r.id.clone(),
                scope: other.map(String::from),
            });
        }
    };
    Ok(Guard {
        id: r.id.clone(),
        sentence,
        words: strings(r, "words"),
        inside: strings(r, "inside"),
        stems: strings(r, "stems"),
        stem_endings: strings(r, "stem_endings"),
        endings: strings(r, "endings"),
        repeated: flag(r, "repeated"),
        max_stem_syllables: r
            .params
            .get("max_stem_syllables")
            .and_then(|k| k.as_integer())
            .and_then(|n| usize::try_from(n).ok()),
        with_predicate: flag(r, "with_predicate"),
        only_stem_endings: strings(r, "only_stem_endings"),
        kinds: strings(r, "kinds"),
        prefixes: strings(r, "prefixes"),
        prefix_words: strings(r, "prefix_words"),
        removes: strings(r, "removes"),
        tail_inside: strings(r, "tail_inside"),
        head_stems: strings(r, "head_stems"),
        head_endings: strings(r, "head_endings"),
        modifiers: flag(r, "modifiers"),
    })
}

/// The modifier (adnominal) forms of a predicate stem: 유치하 → 유치한, 낮 → 낮은, 재밌 →
/// 재밌는, 흥미롭 → 흥미로운 (ㅂ-irregular), 오글거리 → 오글거리는; a vowel-final stem
/// other than 하 takes ㄴ (멋지 → 멋진).
fn modifier_forms(stem: &str) -> Vec<String> {
    let Some(last) = stem.chars().last() else {
        return Vec::new();
    };
    let body = &stem[..stem.len() - last.len_utf8()];
    let Some((l, v, f)) = syllable(last) else {
        return Vec::new();
    };
    let with_final = |f: u32| char::from_u32(0xAC00 + l * 588 + v * 28 + f);
    match f {
        // 있/없 and verbs in -거리 take -는.
        _ if stem.ends_with('있') || stem.ends_with('없') || stem.ends_with("거리") => {
            vec![format!("{stem}는")]
        }
        // ㅂ: 흥미롭 → 흥미로운, 역겹 → 역겨운 (ㅂ-irregular adjectives).
        17 => with_final(0)
            .map(|c| vec![format!("{body}{c}운"), format!("{stem}은")])
            .unwrap_or_default(),
        0 => with_final(4)
            .map(|c| vec![format!("{body}{c}")])
            .unwrap_or_default(),
        _ => vec![format!("{stem}은")],
    }
}
