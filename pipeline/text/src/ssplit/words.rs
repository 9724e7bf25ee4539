//! The words of a text: whitespace words (eojeols), cut again where a sentence ends inside
//! one with no space (`좋았다.그런데`, see `inword.rs`), each split into a core and a tail of
//! punctuation, closing marks, jamo, emoticons and emoji; a tail-only word joins the one
//! before it.

use super::endings::is_syllable;
use super::inword::{
    alnum_cut, comma_cut, glued_end, inner_cut, list_number_cut, starts_alnum_word, word_rest,
};

#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Tail {
    pub(super) periods: u16,
    pub(super) ellipsis: bool,
    pub(super) excl_q: bool,
    pub(super) emo: bool,
    pub(super) close: bool,
}

impl Tail {
    fn merge(&mut self, o: &Tail) {
        self.periods += o.periods;
        self.ellipsis |= o.ellipsis;
        self.excl_q |= o.excl_q;
        self.emo |= o.emo;
        self.close |= o.close;
    }
    pub(super) fn punct(&self) -> bool {
        self.periods > 0 || self.ellipsis || self.excl_q
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Word {
    pub(super) start: usize,
    pub(super) core_end: usize,
    pub(super) end: usize,
    pub(super) tail: Tail,
    /// A newline lies between this word and the one before.
    pub(super) hard_before: bool,
    /// The boundary after this word was decided while cutting it (`좋았다.그런데`).
    pub(super) forced: bool,
}

#[inline]
pub(super) fn is_jamo(c: char) -> bool {
    ('\u{3131}'..='\u{318E}').contains(&c) || ('\u{1100}'..='\u{11FF}').contains(&c)
}

#[inline]
pub(super) fn is_emoji(c: char) -> bool {
    let u = c as u32;
    (0x1F300..=0x1FAFF).contains(&u)
        || (0x2600..=0x27BF).contains(&u)
        || (0x1F000..=0x1F2FF).contains(&u)
}

#[inline]
pub(super) fn is_close(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '」' | '』' | '》' | '〉' | '】' | '）' | '］'
    )
}

/// Classifies a tail character; `None` if it is not one.
#[inline]
pub(super) fn tail_kind(c: char) -> Option<u8> {
    Some(match c {
        '.' | '。' | '．' => 1,
        '…' | '⋯' | '‥' => 2,
        '!' | '?' | '！' | '？' | '‼' | '⁉' => 3,
        '\u{FE0F}' => 4, // the emoji presentation selector of `‼️`
        '~' | '∼' | '～' | '^' | ';' | '♥' | '♡' | '❤' | '★' | '☆' | '_' | '♪' | '♬' => {
            4
        }
        c if is_jamo(c) || is_emoji(c) => 4,
        c if is_close(c) => 5,
        _ => return None,
    })
}

/// Scans `text[start..end]` backward over its tail; returns where the core ends.
pub(super) fn tail_of(text: &str, start: usize, end: usize) -> (usize, Tail) {
    let s = &text[start..end];
    let mut t = Tail::default();
    let mut core_end = s.len();
    let mut dots_run = 0u16;
    let b = s.as_bytes();
    loop {
        // Footnote mark `[12]`.
        if core_end >= 3 && b[core_end - 1] == b']' {
            let mut j = core_end - 1;
            while j > 0 && b[j - 1].is_ascii_digit() {
                j -= 1;
            }
            if j < core_end - 1 && j > 0 && b[j - 1] == b'[' && j - 1 > 0 {
                core_end = j - 1;
                t.close = true;
                continue;
            }
        }
        // Emoticon `:)` (`글쎄요:)`).
        if [":)", ":(", ":D", ";)"]
            .iter()
            .any(|e| s[..core_end].ends_with(e))
        {
            core_end -= 2;
            t.emo = true;
            continue;
        }
        let Some(c) = s[..core_end].chars().next_back() else {
            break;
        };
        let Some(k) = tail_kind(c) else {
            break;
        };
        match k {
            1 => dots_run += 1,
            2 => t.ellipsis = true,
            3 => t.excl_q = true,
            4 => t.emo = true,
            _ => t.close = true,
        }
        if k != 1 {
            if dots_run >= 2 {
                t.ellipsis = true;
            } else {
                t.periods += dots_run;
            }
            dots_run = 0;
        }
        core_end -= c.len_utf8();
    }
    if dots_run >= 2 {
        t.ellipsis = true;
    } else {
        t.periods += dots_run;
    }
    (start + core_end, t)
}

/// Cuts the text into words (whitespace-separated, plus cuts after punctuation inside a
/// word), then joins tail-only words to the word before them.
pub(super) fn words(text: &str, protected: &[(usize, usize)]) -> Vec<Word> {
    let mut units: Vec<Word> = Vec::with_capacity(text.len() / 8 + 1);
    let mut start: Option<usize> = None;
    let mut hard = false;
    let mut prev: char = ' ';
    let push = |units: &mut Vec<Word>, s: usize, e: usize, hard: bool, forced: bool| {
        let (core_end, tail) = tail_of(text, s, e);
        // A number wrapped after a hyphen (`010-2345-` / `6789`) goes on across the line.
        let hard = hard && !units.last().is_some_and(|w| wrapped_number(text, w.end, s));
        units.push(Word {
            start: s,
            core_end,
            end: e,
            tail,
            hard_before: hard,
            forced,
        });
    };
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                push(&mut units, s, i, hard, false);
                hard = false;
            }
            if c == '\n' || c == '\r' || c == '\u{2029}' || c == '\u{2028}' {
                hard = true;
            }
        } else {
            match start {
                None => start = Some(i),
                Some(s) => {
                    if let Some(forced) = cut_before(text, s, i, c, prev) {
                        push(&mut units, s, i, hard, forced);
                        hard = false;
                        start = Some(i);
                    }
                }
            }
        }
        prev = c;
    }
    if let Some(s) = start {
        push(&mut units, s, text.len(), hard, false);
    }
    join_tails(&mut units, protected);
    units
}

/// Whether the word running from byte `s` is cut before the character `c` at byte `i`
/// (`prev` the character before it): `Some(forced)` when a new word starts at `i`, where
/// `forced` marks a cut inside written text rather than a tail written against the next
/// word; `None` when the word goes on.
#[inline]
fn cut_before(text: &str, s: usize, i: usize, c: char, prev: char) -> Option<bool> {
    if c.is_ascii_digit() && list_number_cut(text, s, i) {
        // `확실하다.1.`, `안된다2.`: a numbered item glued to the end of the
        // sentence before it starts the next one (see [`list_number_cut`]).
        return Some(true);
    }
    if (is_syllable(c) || (c.is_ascii_digit() && matches!(prev, '!' | '?')))
        && tail_kind(prev).is_some()
    {
        if inner_cut(text, s, i) {
            return Some(true);
        }
        // `못늘립니까 ㅠㅠ제 꿈이`, `좋아하는듯 !!말로만`, `다카요시 .그건`: a
        // tail written against the next word belongs to the word before it.
        return text[s..i]
            .chars()
            .all(|t| matches!(tail_kind(t), Some(1..=4)))
            .then_some(false);
    }
    if tail_kind(prev).is_some() && starts_alnum_word(&text[i..]) {
        // `재밌다ㅋㅋ10점`, `영화ㅋㅋgood`, `좋았다.10점을`: a tail then a digit or
        // Latin letter; see [`alnum_cut`].
        if alnum_cut(text, s, i) {
            return Some(true);
        }
        // `영화 ㅋㅋ10점`: the tail belongs to the word before it.
        return text[s..i]
            .chars()
            .all(|t| matches!(tail_kind(t), Some(3 | 4)))
            .then_some(false);
    }
    // `좋겠다6명전부`, `기억이나네요b급`: an ending glued to a digit or a
    // Latin letter as to a syllable (see [`glued_end`]).
    ((is_syllable(c) || starts_alnum_word(&text[i..]))
        && ((prev == ',' && is_syllable(c) && comma_cut(&text[s..i]))
            || (matches!(prev, '다' | '요' | '까' | '네' | '니')
                && glued_end(&text[s..i], word_rest(text, i)))))
    .then_some(true)
}

/// Joins tail-only words to the word before them (same line), in place.
fn join_tails(units: &mut Vec<Word>, protected: &[(usize, usize)]) {
    let mut n = 0usize;
    for k in 0..units.len() {
        let u = units[k];
        // An opening quote written apart (`생각났다. " 연탄재 ...`) starts the next sentence.
        let opens = protected.binary_search_by(|p| p.0.cmp(&u.start)).is_ok();
        if n > 0 && u.core_end == u.start && !u.hard_before && !units[n - 1].forced && !opens {
            let w = &mut units[n - 1];
            w.end = u.end;
            w.tail.merge(&u.tail);
            w.forced = u.forced;
            continue;
        }
        units[n] = u;
        n += 1;
    }
    units.truncate(n);
}

/// Whether the word ending at byte `end` closes with `<digit>-` and the next line starts
/// with a digit at byte `next`: one number broken across a line, not two sentences.
fn wrapped_number(text: &str, end: usize, next: usize) -> bool {
    let mut before = text[..end].chars().rev();
    let dash = before
        .next()
        .is_some_and(|c| matches!(c, '-' | '\u{2010}' | '\u{FF0D}'));
    let digit =
        |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || ('０'..='９').contains(&c));
    dash && digit(before.next()) && digit(text[next..].chars().next())
}
