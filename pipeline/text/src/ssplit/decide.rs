//! The decision at each space between two words: does a sentence end after this word,
//! given its core, its tail and the next word (punctuation, abbreviations and numbers,
//! emoticon tails, conjunctions, then the ending tables of `endings.rs`)?

use super::endings::{
    Ending, ending, ends_incomplete, ends_sentence, is_interjection, is_syllable,
};
use super::inword::{comma_cut, is_mood_mark, is_wish};
use super::nominal::nominal_sentence;
use super::words::Word;
use super::{is_any_word, is_number};

/// Particles that follow a noun and never open a sentence.
pub(super) const AFTER_NOUN: &[&str] = &[
    "보다는",
    "보단",
    "처럼",
    "만큼",
    "까지",
    "부터",
    "조차",
    "마저",
    "밖에",
];

/// Conjunctions of contrast or resumption that open a sentence, even after a word with no
/// ending (`80점 정도 근데 ...`): see [`decide`].
pub(super) const CONTRAST_OPENERS: &[&str] = &[
    "근데",
    "그런데",
    "하지만",
    "그러나",
    "그래도",
    "그치만",
    "그렇지만",
    "암튼",
    "아무튼",
    "어쨌든",
    "차라리",
    "더불어",
];

/// The other conjunctions and adverbs that open a sentence after a pause.
pub(super) const MORE_OPENERS: &[&str] = &["그리고", "그래서", "하여간", "여하튼"];

/// Is `s` a word that opens a sentence ([`CONTRAST_OPENERS`], [`MORE_OPENERS`])?
pub(super) fn is_opener(s: &str) -> bool {
    CONTRAST_OPENERS.contains(&s) || MORE_OPENERS.contains(&s)
}

pub(super) fn starts_with_opener(s: &str) -> bool {
    CONTRAST_OPENERS
        .iter()
        .chain(MORE_OPENERS)
        .any(|o| s.starts_with(o))
}

pub(super) const ABBREV: &[&str] = &[
    "no", "pp", "vol", "vols", "al", "ed", "eds", "trans", "rev", "p", "n.p", "n.d", "page",
    "para", "comp", "capt", "dept", "def", "viz", "mr", "mrs", "miss", "ms", "dr", "prof", "st",
    "co", "mm", "messrs", "mlle", "mme", "inc", "ltd", "corp", "jr", "sr", "vs", "mt", "ft", "fig",
    "eq", "e.g", "i.e", "approx", "gen", "gov", "sen", "rep", "lt", "col", "sgt",
];

pub(super) fn is_abbrev(core: &str) -> bool {
    // The last ASCII run of the core: `B.C`, `G.D.P`, `Dr`, `Z`, `(p`.
    let run_start = core
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphabetic() || c == '.'))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let run = &core[run_start..];
    if run.is_empty() {
        return false;
    }
    let letters = run.bytes().filter(|b| b.is_ascii_alphabetic()).count();
    if letters == 1 && run.len() == 1 {
        return true; // a single letter: an initial or a list marker
    }
    if run.contains('.') && letters <= 6 {
        return true; // B.C, G.D.P, U.S
    }
    if run.len() <= 6 {
        let mut buf = [0u8; 6];
        for (d, b) in buf.iter_mut().zip(run.bytes()) {
            *d = b.to_ascii_lowercase();
        }
        let low = std::str::from_utf8(&buf[..run.len()]).unwrap_or("");
        return ABBREV.contains(&low);
    }
    false
}

/// Whether a sentence ends after a word.
pub(super) enum Cut {
    Yes,
    No,
    /// A weak ending (`-음`, `-네`, ...): a sentence end unless the writer punctuates
    /// (see [`is_punctuated`]).
    UnlessPunctuated,
}

impl From<bool> for Cut {
    fn from(b: bool) -> Cut {
        if b { Cut::Yes } else { Cut::No }
    }
}

/// `before` is the word before `w` in the same sentence (`None` when `w` is the first, or
/// when a mark closes the word before).
#[allow(
    clippy::too_many_lines,
    reason = "the splitter's decision list, in order: the first rule that applies decides"
)]
pub(super) fn decide(
    text: &str,
    w: &Word,
    n: &Word,
    first: bool,
    before: Option<&str>,
    prev_num_dot: bool,
) -> Cut {
    let core = &text[w.start..w.core_end];
    let next = &text[n.start..n.core_end];
    let t = &w.tail;
    if core.is_empty() {
        // A tail at the start of a sentence (`... 그래서`): keep going.
        return Cut::No;
    }
    if !t.punct() && opens_cjk_gloss(&text[n.start..]) {
        // `시치죠 (七条)`: a bracketed Chinese or Japanese gloss belongs to the word before it.
        return Cut::No;
    }
    let quoted_cont = t.close
        && matches!(
            next,
            "라고"
                | "라며"
                | "라는"
                | "라면서"
                | "이라고"
                | "하고"
                | "하며"
                | "하면서"
                | "고"
                | "며"
                | "라"
                | "란"
                | "에서"
                | "에"
                | "는"
                | "은"
                | "을"
                | "를"
                | "이"
                | "가"
                | "의"
                | "로"
                | "으로"
                | "와"
                | "과"
                | "도"
                | "만"
                | "이라는"
                | "처럼"
                | "이란"
                | "하는"
                | "라고요"
                | "고요"
        );
    if t.periods == 0
        && !t.excl_q
        && is_any_word(
            next,
            &["는", "은", "를", "을", "라는", "란", "이란", "라고"],
        )
    {
        return Cut::No; // `아니더라... 는 말씀`: a particle written apart
    }
    if !t.excl_q && is_any_word(next, AFTER_NOUN) {
        return Cut::No; // `살리기. 보다는`: a particle written apart, after a stray mark
    }
    if !t.punct() && !t.emo && core.ends_with(',') {
        // `궁금해진다, 후안호세는`, `뭐여,,, 그래서`: see [`comma_cut`]; not before a
        // vocative (`아닙니다, 여러분`). A weak ending with a comma is a list item
        // (`청결도, 체크인, 친절함, 위치는`, `아테네, 스파르타`).
        return (!quoted_cont && next != "여러분" && comma_cut(core)).into();
    }
    if t.punct() {
        if quoted_cont {
            return Cut::No;
        }
        if t.excl_q {
            return Cut::Yes;
        }
        if t.ellipsis {
            return (!ends_incomplete(core)
                || is_interjection(core)
                || is_opener(next)
                || is_wish(core, next))
            .into();
        }
        // One or more single full stops.
        if t.emo {
            return Cut::Yes; // `좋았다.ㅋㅋ`
        }
        if is_abbrev(core) {
            return Cut::No;
        }
        let next_first = text[n.start..].chars().next().unwrap_or(' ');
        if next_first.is_ascii_lowercase() {
            return Cut::No;
        }
        if is_number(core) {
            // `1.` list marker; `2019. 3. 15.` date chain.
            if first || prev_num_dot || next_first.is_ascii_digit() {
                return Cut::No;
            }
            return Cut::Yes;
        }
        if first && core.chars().count() == 1 {
            let c = core.chars().next().unwrap_or(' ');
            if ('ㄱ'..='ㅎ').contains(&c) || ('가'..='하').contains(&c) && core.len() == 3 {
                return Cut::No; // `ㄱ.` `가.` list markers
            }
        }
        return Cut::Yes;
    }
    if t.emo {
        if core.ends_with(|c: char| c.is_ascii_digit())
            && next.starts_with(|c: char| c.is_ascii_digit())
        {
            return Cut::No; // `약 25 ~ 30km/h`: a range
        }
        let marks = &text[w.core_end..w.end];
        let run = marks.chars().filter(|&c| is_mood_mark(c)).count() >= 2
            && marks.chars().all(|c| is_mood_mark(c) || c.is_whitespace());
        // `예쁘고^^ 강추`, `나오고ㅡㅡ 연기`: a `-고` closed by a run of mood marks ends an
        // informal sentence.
        let go_end = run && core.ends_with('고') && core.chars().count() >= 2;
        return (!ends_incomplete(core) || ends_sentence(core, next) || go_end).into();
    }
    if is_any_word(next, CONTRAST_OPENERS)
        && core.chars().next_back().is_some_and(is_syllable)
        && (!ends_incomplete(core)
            || ["정도", "태도", "제도", "온도", "속도"]
                .iter()
                .any(|x| core.ends_with(x)))
        && !["긴", "기는", "기도", "기만", "게", "보다", "엔", "에", "나"]
            .iter()
            .any(|x| core.ends_with(x))
    {
        // `80점 정도 근데 ...`, `마스크는 인정 근데 ...`: a conjunction that opens a
        // sentence after a word that does not leave one open (not `지루하긴 하지만`, `더 락보다
        // 차라리`, `볼빠엔 차라리`, `말투나 차라리`).
        // `근데`, `그치만`, `암튼` are spoken forms that edited text does not use.
        return if is_any_word(next, &["근데", "그치만", "암튼"]) {
            Cut::Yes
        } else {
            Cut::UnlessPunctuated
        };
    }
    let quote_closed = t.close
        && text[..w.end]
            .chars()
            .next_back()
            .is_some_and(|c| matches!(c, '"' | '”' | '\'' | '’' | '」' | '』'));
    match ending(core, next) {
        Ending::Strong => Cut::Yes,
        // `뜨거운 사람이었느냐 " 타올랐던`: a quotation closed after a weak ending ends it.
        Ending::Weak if quote_closed && !quoted_cont => Cut::Yes,
        Ending::Weak => Cut::UnlessPunctuated,
        Ending::No if before.is_some_and(|b| nominal_sentence(b, core, next)) => {
            Cut::UnlessPunctuated
        }
        Ending::No => Cut::No,
    }
}

/// Does the writer of this text end sentences with punctuation, in an edited register?
/// Then the weak endings (`-음`, `-네`, `-듯`, ...) are nouns and connectives more often
/// than sentence ends. Emoticon, jamo or ellipsis tails, or polite `-요` endings, mark an
/// informal writer, whose weak endings are trusted.
pub(super) fn is_punctuated(text: &str, words: &[Word]) -> bool {
    let mut punct = 0usize;
    let mut bare = 0usize;
    let mut informal = 0usize;
    for (i, w) in words.iter().enumerate() {
        let core = &text[w.start..w.core_end];
        let last = core.chars().next_back();
        if w.tail.emo || w.tail.ellipsis {
            informal += 2;
            continue;
        }
        if !last.is_some_and(is_syllable) {
            continue;
        }
        let strong = ending(core, "") == Ending::Strong;
        if strong && last == Some('요') {
            informal += 1;
        }
        if i + 1 == words.len() {
            break;
        }
        if w.tail.periods > 0 || w.tail.excl_q {
            punct += 1;
        } else if strong {
            bare += 1;
        }
    }
    punct >= 2 && bare * 2 <= punct && informal < 2
}

/// `s` opens a bracket whose content (up to 30 characters) holds a Chinese character or
/// Japanese kana: a gloss of the word before it (`(萩村 スズ)`, `(放送倫理・番組向上機構)`).
fn opens_cjk_gloss(s: &str) -> bool {
    let Some(inner) = s.strip_prefix('(').or_else(|| s.strip_prefix('（')) else {
        return false;
    };
    inner
        .chars()
        .take(30)
        .take_while(|&c| !matches!(c, ')' | '）'))
        .any(|c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}'))
}
