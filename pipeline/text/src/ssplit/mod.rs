//! A KSS-style Korean sentence splitter: rule based, no morpheme analyser, one pass.
//!
//! [`split_sentences`] returns the byte ranges of the sentences of a text. The ranges are
//! in order, never overlap, hold no leading or trailing whitespace, and everything between
//! them is whitespace: joining the pieces with the original separators gives the input
//! back, character for character.
//!
//! How it decides (the rule inventory of `../shared/reference/ssplit/README.md`):
//! 1. The text is cut into eojeols (whitespace words); a newline is a hard boundary.
//!    Inside a word, `좋았다.그런데` is cut after the punctuation.
//! 2. Each word is a *core* and a *tail*: trailing punctuation, closing quotes and
//!    brackets, footnote marks `[3]`, jamo runs (`ㅋㅋ ㅠㅠ`), emoticons (`^^ ;;`), `~`, `♥`
//!    and emoji. A word that is only a tail (`좋아요 ㅋㅋ`) joins the word before it: a tail
//!    belongs to the sentence it follows.
//! 3. No boundary falls inside a matched quote or bracket pair; a quote closed and
//!    followed by `라고/라며/하고/며/고` continues the sentence.
//! 4. `! ?` end a sentence; `.` does too except after abbreviations, initials, list
//!    markers (`1.` `ㄱ.` at a sentence start) and date chains (`2019. 3. 15.`), or before
//!    lower-case Latin; an ellipsis or an emoticon tail ends one unless the word before it
//!    ends in a particle or a connective (`그런데…`).
//! 5. Without punctuation, the word's last syllables decide (`endings.rs`), with the next
//!    word as context.

mod endings;

use endings::{
    Ending, ending, ends_incomplete, ends_sentence, is_interjection, is_syllable, nominal_sentence,
};

/// Byte ranges `[start, end)` of the sentences of `text`.
pub fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    split_into(text, &mut out);
    out
}

/// The sentences of `text` as slices of it.
pub fn split_str(text: &str) -> Vec<&str> {
    split_sentences(text)
        .into_iter()
        .map(|(s, e)| &text[s..e])
        .collect()
}

/// Like [`split_sentences`], reusing `out` (cleared first) to avoid an allocation per text.
pub fn split_into(text: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let protected = protected_spans(text);
    let words = words(text, &protected);
    if words.is_empty() {
        return;
    }
    // Needed only at a weak ending, which most texts do not have: found out then.
    let mut punctuated: Option<bool> = None;
    let mut prot = 0usize;
    let mut sent_start = words[0].start;
    let mut first_in_sentence = true;
    let mut prev_num_dot = false;
    for i in 0..words.len() {
        let w = &words[i];
        let Some(n) = words.get(i + 1) else {
            out.push((sent_start, w.end));
            break;
        };
        let mut cut = n.hard_before;
        if !cut {
            while prot < protected.len() && protected[prot].1 <= w.end {
                prot += 1;
            }
            let inside = prot < protected.len() && protected[prot].0 < w.end;
            // The word before this one in the same sentence, if nothing closes it.
            let before = match i.checked_sub(1).map(|k| &words[k]) {
                Some(b) if !first_in_sentence && !b.tail.punct() && !b.tail.emo => {
                    Some(&text[b.start..b.core_end])
                }
                _ => None,
            };
            if !inside {
                cut = w.forced
                    || match decide(text, w, n, first_in_sentence, before, prev_num_dot) {
                        Cut::Yes => true,
                        Cut::No => false,
                        Cut::UnlessPunctuated => {
                            !*punctuated.get_or_insert_with(|| is_punctuated(text, &words))
                        }
                    };
            }
        }
        let core = &text[w.start..w.core_end];
        prev_num_dot = w.tail.periods == 1 && is_number(core);
        if cut {
            out.push((sent_start, w.end));
            sent_start = n.start;
            first_in_sentence = true;
        } else {
            first_in_sentence = false;
        }
    }
}

/// Whether `text` ends the way a complete sentence does: its last word, without trailing
/// punctuation, closing quotes or emoticon and jamo tails, ends in a sentence-final ending
/// (`최고다.`, `재밌어요ㅋㅋ`, `추천함`), not in a bare noun, particle or fragment (`최고`,
/// `좋 아`, `ㅋㅋ`).
pub fn ends_like_sentence(text: &str) -> bool {
    let t = text.trim_end();
    let start = t
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_whitespace())
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let (core_end, _) = tail_of(t, start, t.len());
    ending(&t[start..core_end], "") != Ending::No
}

fn is_any_word(s: &str, list: &[&str]) -> bool {
    list.contains(&s)
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[derive(Debug, Default, Clone, Copy)]
struct Tail {
    periods: u16,
    ellipsis: bool,
    excl_q: bool,
    emo: bool,
    close: bool,
}

impl Tail {
    fn merge(&mut self, o: &Tail) {
        self.periods += o.periods;
        self.ellipsis |= o.ellipsis;
        self.excl_q |= o.excl_q;
        self.emo |= o.emo;
        self.close |= o.close;
    }
    fn punct(&self) -> bool {
        self.periods > 0 || self.ellipsis || self.excl_q
    }
}

#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    core_end: usize,
    end: usize,
    tail: Tail,
    /// A newline lies between this word and the one before.
    hard_before: bool,
    /// The boundary after this word was decided while cutting it (`좋았다.그런데`).
    forced: bool,
}

#[inline]
fn is_jamo(c: char) -> bool {
    ('\u{3131}'..='\u{318E}').contains(&c) || ('\u{1100}'..='\u{11FF}').contains(&c)
}

#[inline]
fn is_emoji(c: char) -> bool {
    let u = c as u32;
    (0x1F300..=0x1FAFF).contains(&u)
        || (0x2600..=0x27BF).contains(&u)
        || (0x1F000..=0x1F2FF).contains(&u)
}

#[inline]
fn is_close(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | ')' | ']' | '}' | '」' | '』' | '》' | '〉' | '】' | '）' | '］'
    )
}

/// Classifies a tail character; `None` if it is not one.
#[inline]
fn tail_kind(c: char) -> Option<u8> {
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
fn tail_of(text: &str, start: usize, end: usize) -> (usize, Tail) {
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
fn words(text: &str, protected: &[(usize, usize)]) -> Vec<Word> {
    let mut units: Vec<Word> = Vec::with_capacity(text.len() / 8 + 1);
    let mut start: Option<usize> = None;
    let mut hard = false;
    let mut prev: char = ' ';
    let push = |units: &mut Vec<Word>, s: usize, e: usize, hard: bool, forced: bool| {
        let (core_end, tail) = tail_of(text, s, e);
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
                    if (is_syllable(c) || (c.is_ascii_digit() && matches!(prev, '!' | '?')))
                        && tail_kind(prev).is_some()
                    {
                        if inner_cut(text, s, i) {
                            push(&mut units, s, i, hard, true);
                            hard = false;
                            start = Some(i);
                        } else if text[s..i]
                            .chars()
                            .all(|t| matches!(tail_kind(t), Some(1..=4)))
                        {
                            // `못늘립니까 ㅠㅠ제 꿈이`, `좋아하는듯 !!말로만`, `다카요시 .그건`: a
                            // tail written against the next word belongs to the word before it.
                            push(&mut units, s, i, hard, false);
                            hard = false;
                            start = Some(i);
                        }
                    } else if tail_kind(prev).is_some() && starts_alnum_word(&text[i..]) {
                        // `재밌다ㅋㅋ10점`, `영화ㅋㅋgood`, `좋았다.10점을`: a tail then a digit or
                        // Latin letter; see [`alnum_cut`].
                        if alnum_cut(text, s, i) {
                            push(&mut units, s, i, hard, true);
                            hard = false;
                            start = Some(i);
                        } else if text[s..i]
                            .chars()
                            .all(|t| matches!(tail_kind(t), Some(3 | 4)))
                        {
                            // `영화 ㅋㅋ10점`: the tail belongs to the word before it.
                            push(&mut units, s, i, hard, false);
                            hard = false;
                            start = Some(i);
                        }
                    } else if (is_syllable(c) || starts_alnum_word(&text[i..]))
                        && ((prev == ',' && is_syllable(c) && comma_cut(&text[s..i]))
                            || (matches!(prev, '다' | '요' | '까' | '네' | '니')
                                && glued_end(&text[s..i], word_rest(text, i))))
                    {
                        // `좋겠다6명전부`, `기억이나네요b급`: an ending glued to a digit or a
                        // Latin letter as to a syllable (see [`glued_end`]).
                        push(&mut units, s, i, hard, true);
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
    // Join tail-only words to the word before them (same line), in place.
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
    units
}

/// At `i` (a syllable right after a tail character) inside the word starting at `s`:
/// is this a sentence boundary with no space (`좋았다.그런데`, `재밌다ㅋㅋ또`)?
fn inner_cut(text: &str, s: usize, i: usize) -> bool {
    let (core_end, tail) = tail_of(text, s, i);
    if core_end == s {
        return false;
    }
    let core = &text[s..core_end];
    let Some(last) = core.chars().next_back() else {
        return false;
    };
    if !is_syllable(last) {
        return false;
    }
    if tail.close {
        return false; // `하십니까?'에서`: a quote closed and a particle follows
    }
    if tail.excl_q {
        return true;
    }
    // `기억이...그리고`: a conjunction that opens a sentence, after a full stop or a pause.
    let opener = starts_with_opener(&text[i..]);
    if (tail.periods > 0 || tail.ellipsis) && is_any_word(word_rest(text, i), AFTER_NOUN) {
        return false; // `살리기.보다는`: a particle after a stray mark
    }
    if tail.periods > 0 {
        // `1편을.보았던`, `음향등은.괜찮았어요`, `강.추`: a full stop typed for a space after a
        // particle, a connective or one syllable is no sentence end.
        return opener || !(ends_incomplete(core) || core.chars().count() == 1);
    }
    if tail.ellipsis {
        // `에고...내용은`: an interjection closed by a pause, as in [`decide`].
        return opener
            || !ends_incomplete(core)
            || is_interjection(core)
            || is_wish(core, word_rest(text, i));
    }
    if tail.emo {
        let marks = &text[core_end..i];
        if marks.chars().count() >= 2
            && marks.chars().all(is_mood_mark)
            && !starts_with_particle(&text[i..])
        {
            // `허세가득한영화ㅋㅋㅋㅋ김남길한테`, `황당;;그렇게`, `완전조아~~시즌2`: a run of
            // laughter, tears, `;;` or `~~` closes a nominal sentence too, unless a particle or
            // connective leaves it open. A single `~` does not (`서울역~검암역`), nor jamo
            // that spell a censored word (`쪽ㅂㄹ랑`, `성ㅡㅣ괴`).
            // `나오고ㅡㅡ연기`: a `-고` closed by such a run, as in [`decide`].
            return ends_sentence(core, "")
                || !ends_incomplete(core)
                || is_interjection(core)
                || (core.ends_with('고') && core.chars().count() >= 2);
        }
        if marks.chars().all(|c| matches!(c, '~' | '∼' | '～')) {
            // `영화~좋네요`: one tilde after a word that leaves nothing open, before a word
            // that is a sentence by itself (not the range `서울역~검암역`).
            let rest = word_rest(text, i);
            return ends_sentence(core, "")
                || (core.chars().count() >= 2
                    && !ends_incomplete(core)
                    && (ending(rest, "") == Ending::Strong || opener));
        }
        // `건지;하여간`: one mark, then a conjunction that opens a sentence.
        return ends_sentence(core, "") || (opener && !ends_incomplete(core));
    }
    false
}

/// At `i` (a digit or Latin letter right after a tail character) inside the word starting
/// at `s`: a sentence boundary with no space? As [`inner_cut`] before a syllable, but a
/// full stop or an ellipsis counts only after a sentence-final ending (`좋았다.10점`, not
/// `네이버.com`, `1위.2위`).
fn alnum_cut(text: &str, s: usize, i: usize) -> bool {
    let (core_end, tail) = tail_of(text, s, i);
    inner_cut(text, s, i) && (tail.emo || tail.excl_q || ends_sentence(&text[s..core_end], ""))
}

/// `s` starts with digits or Latin letters that are a word, not part of an emoticon: not
/// followed by a tail mark or an emoticon's mouth (`ㅠ0ㅠ`, `♥0♥`, `ㅅ1ㅂ`, `^3<`, `-0-`), and
/// not the thumbs `b`, `bb`, `d` alone (but `b급`).
fn starts_alnum_word(s: &str) -> bool {
    let run = s.len()
        - s.trim_start_matches(|c: char| c.is_ascii_alphanumeric())
            .len();
    run > 0
        && (!s[..run].bytes().all(|b| matches!(b, b'b' | b'd')) || s[run..].starts_with('급'))
        && s[run..]
            .chars()
            .next()
            .is_none_or(|c| tail_kind(c).is_none() && !matches!(c, '<' | '>' | '-' | '=' | '*'))
}

/// Marks of laughter, tears and mood that a run of closes a sentence: `ㅋ ㅎ ㅠ ㅜ ㅡ ; ^ ~`,
/// hearts and emoji (not the other jamo, which spell censored words: `ㅅㅂ`).
fn is_mood_mark(c: char) -> bool {
    matches!(
        c,
        'ㅋ' | 'ㅎ' | 'ㅠ' | 'ㅜ' | 'ㅡ' | ';' | '^' | '~' | '∼' | '～' | '♥' | '♡' | '❤'
    ) || is_emoji(c)
}

/// The text starts with a particle or a copula written against a tail (`ㅋㅋ랑`, `ㅠㅠ이`,
/// `실수~~래...`).
fn starts_with_particle(s: &str) -> bool {
    let mut it = s.chars();
    let c = it.next();
    let alone = !it.next().is_some_and(is_syllable);
    matches!(
        c,
        Some('랑' | '을' | '를' | '은' | '는' | '의' | '와' | '과' | '로' | '에')
    ) || (alone
        && matches!(
            c,
            Some(
                '이' | '가'
                    | '도'
                    | '요'
                    | '래'
                    | '라'
                    | '란'
                    | '야'
                    | '임'
                    | '다'
                    | '지'
                    | '죠'
                    | '네'
            )
        ))
}

/// `-었으면` closing a wish with `좋겠다` left out (`진지충들 꺼졌으면... 이건`), unless the
/// next word says it (`봤으면... 좋겠다`).
fn is_wish(core: &str, next: &str) -> bool {
    ["었으면", "았으면", "였으면", "했으면", "됐으면", "졌으면"]
        .iter()
        .any(|x| core.ends_with(x))
        && !["좋", "하", "해", "한", "싶", "바", "합"]
            .iter()
            .any(|x| next.starts_with(x))
}

/// The rest of the whitespace word that starts at `i`.
fn word_rest(text: &str, i: usize) -> &str {
    let r = &text[i..];
    &r[..r.find(char::is_whitespace).unwrap_or(r.len())]
}

/// Particles that follow a noun and never open a sentence.
const AFTER_NOUN: &[&str] = &[
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
const CONTRAST_OPENERS: &[&str] = &[
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
const MORE_OPENERS: &[&str] = &["그리고", "그래서", "하여간", "여하튼"];

/// Is `s` a word that opens a sentence ([`CONTRAST_OPENERS`], [`MORE_OPENERS`])?
fn is_opener(s: &str) -> bool {
    CONTRAST_OPENERS.contains(&s) || MORE_OPENERS.contains(&s)
}

fn starts_with_opener(s: &str) -> bool {
    CONTRAST_OPENERS
        .iter()
        .chain(MORE_OPENERS)
        .any(|o| s.starts_with(o))
}

/// At a syllable right after `before` (a word so far ending in commas, `봤습니다,역시`): is
/// the comma a sentence end? One comma after a sentence-final ending is; two or more
/// (`남달라,,`) are a pause, like `..`, that closes any word leaving nothing open.
fn comma_cut(before: &str) -> bool {
    let stem = before.trim_end_matches(',');
    let commas = before.len() - stem.len();
    if !stem.chars().next_back().is_some_and(is_syllable) {
        return false;
    }
    if commas >= 2 {
        !ends_incomplete(stem) || is_interjection(stem)
    } else {
        // `별로더라,`, `디스하던가,`: weak endings that no noun of a list ends in.
        ending(stem, "") == Ending::Strong
            || (["더라", "던가", "잖아"].iter().any(|x| stem.ends_with(x))
                && ending(stem, "") == Ending::Weak)
    }
}

/// A sentence-final ending glued to the next sentence with no space or mark
/// (`울었습니다크리스틴`, `못한것같다앞뒤퍼즐은`, `좋겠다지금은`): only the endings that are
/// unambiguous inside a word (`-습니다`/`-ㅂ니다`/`-ㅂ니까`, past or future `-다`, `-같다`,
/// `-없다`, `-싶다`, `-않다`, polite `-요`), and only when what follows does not begin like a
/// connective or particle going on from them (`했다가`, `있다는`, `같다고`, `습니다만`).
fn glued_end(before: &str, rest: &str) -> bool {
    const GOES_ON: &[char] = &[
        '고', '는', '며', '면', '가', '간', '갈', '만', '라', '란', '래', '니', '구', '지', '요',
        '용', '던', '든', '더', '기', '나', '네', '냐', '시', '손', '치', '쳐', '하', '한', '할',
        '해', '했', '죠', '거', '게', '도', '서', '를', '을', '의', '에', '와', '랑', '오', '싶',
        '잖', '이', '인', '임', '은', '겠', '군', '죵', '여', '염', '듯', '께', '옹', '느', '드',
    ];
    let Some(r0) = rest.chars().next() else {
        return false;
    };
    if GOES_ON.contains(&r0) || rest.chars().filter(|&c| is_syllable(c)).count() < 2 {
        // `지` goes on only as `-다지만`, `-다지요` (`좋겠다지금은` is two sentences).
        if r0 != '지' || ["지만", "지요", "지?"].iter().any(|x| rest.starts_with(x)) {
            return false;
        }
    }
    let mut it = before.chars().rev();
    let (Some(last), Some(p1), Some(p2)) = (it.next(), it.next(), it.next()) else {
        return false;
    };
    if !(is_syllable(p1) && is_syllable(p2)) {
        return false;
    }
    let bieup = endings::final_of(p2) == Some(17);
    match last {
        '다' => {
            (p1 == '니' && bieup)
                || endings::final_of(p1) == Some(20)
                || matches!(p1, '같' | '없' | '싶' | '않')
        }
        '까' => p1 == '니' && bieup,
        // `등떠밀었니절대`: a past-tense question.
        '니' => endings::final_of(p1) == Some(20),
        '네' => endings::final_of(p1) == Some(20) || p1 == '하',
        '요' => {
            matches!(
                p1,
                '네' | '세' | '어' | '아' | '해' | '워' | '봐' | '돼' | '예' | '에'
            ) && ending(before, "") == Ending::Strong
        }
        _ => false,
    }
}

const ABBREV: &[&str] = &[
    "no", "pp", "vol", "vols", "al", "ed", "eds", "trans", "rev", "p", "n.p", "n.d", "page",
    "para", "comp", "capt", "dept", "def", "viz", "mr", "mrs", "miss", "ms", "dr", "prof", "st",
    "co", "mm", "messrs", "mlle", "mme", "inc", "ltd", "corp", "jr", "sr", "vs", "mt", "ft", "fig",
    "eq", "e.g", "i.e", "approx", "gen", "gov", "sen", "rep", "lt", "col", "sgt",
];

fn is_abbrev(core: &str) -> bool {
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
enum Cut {
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
fn decide(
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
fn is_punctuated(text: &str, words: &[Word]) -> bool {
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

const MAX_QUOTE_BYTES: usize = 1200;

/// Matched quote and bracket pairs, as merged byte intervals `[open, after_close)`.
fn protected_spans(text: &str) -> Vec<(usize, usize)> {
    if !may_quote(text.as_bytes()) {
        return Vec::new();
    }
    protected_spans_scan(text)
}

/// False when the text has none of the brackets and quotes [`protected_spans_scan`] pairs
/// up, so it would find no span: most reviews, checked on bytes without decoding a char.
fn may_quote(b: &[u8]) -> bool {
    b.iter().enumerate().any(|(i, &x)| match x {
        b'(' | b'[' | b'{' | b')' | b']' | b'}' | b'"' | b'\'' => true,
        // U+3000–U+303F: 「」『』《》〈〉【】 and other CJK punctuation.
        0xE3 => b.get(i + 1) == Some(&0x80),
        // ‘ ’ “ ” (U+2018, U+2019, U+201C, U+201D).
        0xE2 => {
            b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0x98 | 0x99 | 0x9C | 0x9D))
        }
        // U+FF00–U+FF3F: （ ） ［ ］ and other full-width forms.
        0xEF => b.get(i + 1) == Some(&0xBC),
        _ => false,
    })
}

fn protected_spans_scan(text: &str) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    // Stack of (opening char, byte offset).
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut prev = ' ';
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, c)| c).unwrap_or(' ');
        match c {
            '\n' | '\r' => stack.clear(),
            '(' | '[' | '{' | '「' | '『' | '《' | '〈' | '【' | '“' | '‘' | '（' | '［' => {
                stack.push((c, i))
            }
            ')' | ']' | '}' | '」' | '』' | '》' | '〉' | '】' | '”' | '’' | '）' | '］' =>
            {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    '}' => '{',
                    '」' => '「',
                    '』' => '『',
                    '》' => '《',
                    '〉' => '〈',
                    '】' => '【',
                    '”' => '“',
                    '’' => '‘',
                    '）' => '（',
                    _ => '［',
                };
                let alt = match c {
                    '”' => '"',
                    '’' => '\'',
                    _ => open,
                };
                if let Some(k) = stack.iter().rposition(|&(o, _)| o == open || o == alt) {
                    pairs.push((stack[k].1, i + c.len_utf8()));
                    stack.truncate(k);
                }
            }
            '"' => {
                if let Some(k) = stack.iter().rposition(|&(o, _)| o == '"' || o == '“') {
                    pairs.push((stack[k].1, i + 1));
                    stack.truncate(k);
                } else {
                    stack.push(('"', i));
                }
            }
            '\'' => {
                let apostrophe = prev.is_ascii_alphanumeric() && next.is_ascii_alphanumeric();
                if !apostrophe {
                    if let Some(k) = stack.iter().rposition(|&(o, _)| o == '\'' || o == '‘') {
                        if !prev.is_whitespace() {
                            pairs.push((stack[k].1, i + 1));
                            stack.truncate(k);
                        }
                    } else if !next.is_whitespace() {
                        stack.push(('\'', i));
                    }
                }
            }
            _ => {}
        }
        prev = c;
    }
    if pairs.is_empty() {
        return pairs;
    }
    // A pair longer than any sentence is a stray quote, not a quotation.
    pairs.retain(|&(s, e)| e - s <= MAX_QUOTE_BYTES);
    if pairs.is_empty() {
        return pairs;
    }
    pairs.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(pairs.len());
    for (s, e) in pairs {
        match merged.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The byte pre-check never hides a span the scan would find.
        #[test]
        fn may_quote_is_false_only_without_spans(
            t in "[가-힣ㅋㅠ a-z0-9.!?…~“”‘’「」『』《》〈〉【】（）［］()\\[\\]{}\"'、。ー–—]{0,40}"
        ) {
            if !may_quote(t.as_bytes()) {
                prop_assert!(protected_spans_scan(&t).is_empty());
            }
            prop_assert_eq!(protected_spans(&t), protected_spans_scan(&t));
        }
    }

    #[test]
    fn may_quote_sees_every_bracket_and_quote() {
        for c in "()[]{}\"'「」『』《》〈〉【】“”‘’（）［］".chars() {
            assert!(may_quote(c.to_string().as_bytes()), "{c}");
        }
        assert!(!may_quote("재밌어요ㅋㅋ 또 볼래요… 최고!".as_bytes()));
    }

    fn sents(t: &str) -> Vec<&str> {
        split_str(t)
    }

    #[test]
    fn endings_without_punctuation() {
        assert_eq!(
            sents("오늘은 날씨가 좋다 내일은 비가 온다고 한다"),
            ["오늘은 날씨가 좋다", "내일은 비가 온다고 한다"]
        );
        assert_eq!(
            sents("배우들 연기 좋음 스토리는 좀 아쉬움 그래도 추천함"),
            ["배우들 연기 좋음", "스토리는 좀 아쉬움", "그래도 추천함"]
        );
        assert_eq!(
            sents("저는요 그게 제일 좋아요"),
            ["저는요 그게 제일 좋아요"]
        );
        assert_eq!(
            sents("그는 힘들다며 자리를 떴다 모두가 놀랐다"),
            ["그는 힘들다며 자리를 떴다", "모두가 놀랐다"]
        );
    }

    /// Words whose last syllables look like a sentence ending but are an adverb, a noun or
    /// a verb's `-다가` with `가` dropped: no cut after them in punctuated text, nor after
    /// the adverbs and nouns in unpunctuated reviews.
    #[test]
    fn look_alike_endings_do_not_cut() {
        for t in [
            "그는 인터넷 검색을 하다 관련 뉴스를 보고 신고했다. 경찰은 수사에 나섰다. 조사는 계속된다.",
            "시민들은 항의 시위를 벌이다 경찰과 충돌했다. 부상자는 없었다. 조사는 계속된다.",
            "그는 산 곳곳을 다니다 오후에 발견됐다. 가족이 확인했다. 조사는 계속된다.",
            "그는 몰래 자리를 떴다. 아무도 몰랐다. 조사는 계속된다.",
            "신임 장관이 취임했다. 첫 회의가 열렸다. 조사는 계속된다.",
            "이 팀은 통산 최다 우승국이 됐다. 팬들이 환호했다. 조사는 계속된다.",
        ] {
            assert_eq!(sents(t).len(), 3, "{t}");
        }
        assert_eq!(
            sents("이정재 정우성 둘다 너무 멋있음"),
            ["이정재 정우성 둘다 너무 멋있음"]
        );
        assert_eq!(
            sents("한국영화는 죄다 10점 줬네"),
            ["한국영화는 죄다 10점 줬네"]
        );
        assert_eq!(
            sents("좀더 길게 나왔으면 좋겠어요"),
            ["좀더 길게 나왔으면 좋겠어요"]
        );
        // In an unpunctuated review the same `-하다` and `-이다` still end a sentence.
        assert_eq!(
            sents("너무 지루하다 다시는 안 봄"),
            ["너무 지루하다", "다시는 안 봄"]
        );
        assert_eq!(
            sents("역사에 남을 명작이다 꼭 보세요"),
            ["역사에 남을 명작이다", "꼭 보세요"]
        );
    }

    #[test]
    fn review_pauses_and_stray_marks() {
        assert_eq!(
            sents("1편을.보았던 사람들에게는 아쉬운 정도입니다"),
            ["1편을.보았던 사람들에게는 아쉬운 정도입니다"]
        );
        assert_eq!(
            sents("드라마 못늘립니까 ㅠㅠ제 꿈이 감독인데 재밌어요"),
            ["드라마 못늘립니까 ㅠㅠ", "제 꿈이 감독인데 재밌어요"]
        );
        assert_eq!(
            sents("연출은 80점 정도 근데 스토리는 기대하지 마세요"),
            ["연출은 80점 정도", "근데 스토리는 기대하지 마세요"]
        );
        assert_eq!(
            sents("제목과 소재가 좀.. 초딩틱 해서 아쉽다"),
            ["제목과 소재가 좀.. 초딩틱 해서 아쉽다"]
        );
    }

    #[test]
    fn complete_sentence_endings() {
        for t in [
            "최고다.",
            "재밌어요ㅋㅋ",
            "추천함",
            "좋았다!!",
            "볼만하네요~",
        ] {
            assert!(ends_like_sentence(t), "{t}");
        }
        for t in ["최고", "좋 아", "ㅋㅋ", "굿!!", "1점", ""] {
            assert!(!ends_like_sentence(t), "{t}");
        }
    }

    #[test]
    fn quotes_tails_numbers() {
        assert_eq!(
            sents("그는 \"정말 좋다. 또 오고 싶다\"라고 말했다. 나도 동의했다."),
            [
                "그는 \"정말 좋다. 또 오고 싶다\"라고 말했다.",
                "나도 동의했다."
            ]
        );
        assert_eq!(
            sents("\"내일 보자.\" 그녀가 웃으며 말했다."),
            ["\"내일 보자.\"", "그녀가 웃으며 말했다."]
        );
        assert_eq!(
            sents("재밌어요ㅠㅠ 또 볼래요"),
            ["재밌어요ㅠㅠ", "또 볼래요"]
        );
        assert_eq!(sents("좋아요 ㅋㅋ 또 볼래요"), ["좋아요 ㅋㅋ", "또 볼래요"]);
        assert_eq!(
            sents("평점은 3.5점이다. 생각보다 낮다."),
            ["평점은 3.5점이다.", "생각보다 낮다."]
        );
        assert_eq!(
            sents("정답은 42. 다음 문제로 넘어가자."),
            ["정답은 42.", "다음 문제로 넘어가자."]
        );
        assert_eq!(
            sents("B.C. 경찰은 말했다. 수사는 계속된다."),
            ["B.C. 경찰은 말했다.", "수사는 계속된다."]
        );
        assert_eq!(
            sents("정말 좋았다.그런데 너무 비쌌다."),
            ["정말 좋았다.", "그런데 너무 비쌌다."]
        );
        assert_eq!(
            sents("준비물은 다음과 같다.\n1. 여권\n2. 지갑"),
            ["준비물은 다음과 같다.", "1. 여권", "2. 지갑"]
        );
    }

    /// Informal sentence ends without a space or with a comma (issue 19): cut there, but
    /// not in ranges, lists, or words that go on.
    #[test]
    fn glued_comma_and_tail_ends() {
        assert_eq!(
            sents("정말 잘 봤습니다다음 편도 기대합니다"),
            ["정말 잘 봤습니다", "다음 편도 기대합니다"]
        );
        assert_eq!(sents("시간이 없었다가 생겼다"), ["시간이 없었다가 생겼다"]);
        assert_eq!(
            sents("연기가 어색했다, 스토리는 좋았다"),
            ["연기가 어색했다,", "스토리는 좋았다"]
        );
        assert_eq!(
            sents("청결도, 체크인, 친절함, 위치는 최고였어요"),
            ["청결도, 체크인, 친절함, 위치는 최고였어요"]
        );
        assert_eq!(
            sents("열차는 서울역~검암역 구간을 달린다."),
            ["열차는 서울역~검암역 구간을 달린다."]
        );
        assert_eq!(
            sents("주인공 영화~좋네요 또 볼래요"),
            ["주인공 영화~", "좋네요", "또 볼래요"]
        );
        assert_eq!(
            sents("그냥 영화ㅋㅋ다음엔 안봄"),
            ["그냥 영화ㅋㅋ", "다음엔 안봄"]
        );
        assert_eq!(sents("너무 ㅅㅂ같은 영화"), ["너무 ㅅㅂ같은 영화"]);
        assert_eq!(sents("별로였다 .그래도 봄"), ["별로였다 .", "그래도 봄"]);
        assert_eq!(
            sents("그는 말했다. \" 다시 오겠다 \" 그리고 떠났다."),
            ["그는 말했다.", "\" 다시 오겠다 \"", "그리고 떠났다."]
        );
    }

    /// Digits and Latin words glued to a tail or an ending, `-이지`/`-시지`, a comma after
    /// `-더라`/`-던가`, an interjection or a conjunction glued after a mark (issue 19).
    #[test]
    fn glued_words_and_informal_endings() {
        assert_eq!(
            sents("재밌다ㅋㅋ10점 줍니다"),
            ["재밌다ㅋㅋ", "10점 줍니다"]
        );
        assert_eq!(
            sents("다음 편이 나오면 좋겠다3편은 언제 나오나"),
            ["다음 편이 나오면 좋겠다", "3편은 언제 나오나"]
        );
        assert_eq!(
            sents("울다가 웃었네요b급영화 최고"),
            ["울다가 웃었네요", "b급영화 최고"]
        );
        assert_eq!(
            sents("정말 좋았다.2편도 봐야지"),
            ["정말 좋았다.", "2편도 봐야지"]
        );
        for t in [
            "너무 슬퍼요ㅠ0ㅠ",
            "너무 재밌어요bb",
            "네이버.com에서 봤다",
            "너무 귀여워^3^",
            "돈이 아까울 뿐이지 배우는 좋았다",
            "다 그렇지 뭐",
            "홈페이지 주소를 봤다",
            "정말이지 대단한 영화다",
        ] {
            assert_eq!(sents(t), [t], "{t}");
        }
        assert_eq!(
            sents("이 정도면 명작이지 배우들도 좋았다"),
            ["이 정도면 명작이지", "배우들도 좋았다"]
        );
        assert_eq!(
            sents("생각보다 재밌더라, 배우들도 좋았다"),
            ["생각보다 재밌더라,", "배우들도 좋았다"]
        );
        assert_eq!(
            sents("에고...내용은 별로였다"),
            ["에고...", "내용은 별로였다"]
        );
        assert_eq!(
            sents("왜 그랬는지;하여간 별로다"),
            ["왜 그랬는지;", "하여간 별로다"]
        );
        assert_eq!(
            sents("누가 등 떠밀었니절대 나오지 마라"),
            ["누가 등 떠밀었니", "절대 나오지 마라"]
        );
    }

    /// A nominal sentence without punctuation: an adnominal, a noun a review ends with, then
    /// a topic or subject (issue 19); not a noun phrase that goes on.
    #[test]
    fn nominal_sentence_before_a_topic() {
        assert_eq!(
            sents("오랜만에 본 따뜻한 영화 배우들이 다 좋았다"),
            ["오랜만에 본 따뜻한 영화", "배우들이 다 좋았다"]
        );
        for t in [
            "정말 좋은 영화 많이 만들어 주세요",
            "다른 영화 보러 갔다가 봤다",
            "잔잔한 영화 좋아하시는 분께 추천",
            "잔잔한 영화 분위기가 좋았다",
            "이만한 영화 찾아봐도 없다",
        ] {
            assert_eq!(sents(t), [t], "{t}");
        }
        // Punctuated text: the nominal cut is weak.
        let t = "그는 오래 기다린 영화 감독이 되었다. 팬들이 기뻐했다. 조사는 계속된다.";
        assert_eq!(sents(t).len(), 3, "{t}");
    }

    /// Quotations and bound forms after an ending go on; `-더만`, `-해여`, `-고ㅡㅡ`, and
    /// `차라리` after a nominal end a sentence (issue 19).
    #[test]
    fn informal_ends_and_quotations() {
        for t in [
            "여자들이 좋아할듯 할 내용이다",
            "모두 수작이다 뭐다 말이 많다",
            "연기가 중요하다 느끼게 해준 영화",
            "한번 봐서 될게 아니다",
            "그냥 야한 영화일거라 생각과 달리 좋았다",
            "와 재밌겠다 이러고 봤다",
            "원작이 좋다고 해서 봤더만 이건 뭐",
            "그 영화보다 차라리 이게 낫다",
        ] {
            assert_eq!(sents(t), [t], "{t}");
        }
        assert_eq!(
            sents("역시 재밌더만 평점이 왜 이래"),
            ["역시 재밌더만", "평점이 왜 이래"]
        );
        assert_eq!(
            sents("팬이면 비추해여 분량이 너무 적다"),
            ["팬이면 비추해여", "분량이 너무 적다"]
        );
        assert_eq!(
            sents("배우들이 계속 나오고ㅡㅡ연기는 별로다"),
            ["배우들이 계속 나오고ㅡㅡ", "연기는 별로다"]
        );
        assert_eq!(
            sents("내용도 최악 차라리 웃기기라도 하지"),
            ["내용도 최악", "차라리 웃기기라도 하지"]
        );
        assert_eq!(
            sents("정말 좋았어요^^3기가 기대된다"),
            ["정말 좋았어요^^", "3기가 기대된다"]
        );
        assert_eq!(sents("너무 좋다!!^^3<"), ["너무 좋다!!^^3<"]);
    }

    #[test]
    fn ranges_cover_the_text() {
        let t = "  좋다.그런데  나빴다 ㅋㅋ \n 끝 ";
        let r = split_sentences(t);
        let mut last = 0;
        for &(s, e) in &r {
            assert!(t[last..s].chars().all(char::is_whitespace));
            assert!(s < e);
            last = e;
        }
        assert!(t[last..].chars().all(char::is_whitespace));
        assert!(split_sentences("   ").is_empty());
    }
}
