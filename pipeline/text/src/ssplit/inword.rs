//! Sentence boundaries inside a whitespace word, with no space: after a tail
//! (`좋았다.그런데`, `재밌다ㅋㅋ또`, `좋았다.10점`), after a comma (`봤습니다,역시`), or an ending
//! glued to the next sentence (`울었습니다크리스틴`).

use super::decide::{AFTER_NOUN, starts_with_opener};
use super::endings::{
    Ending, ending, ends_incomplete, ends_sentence, final_of, is_interjection, is_syllable,
};
use super::is_any_word;
use super::words::{is_emoji, tail_kind, tail_of};

/// At `i` (a syllable right after a tail character) inside the word starting at `s`:
/// is this a sentence boundary with no space (`좋았다.그런데`, `재밌다ㅋㅋ또`)?
pub(super) fn inner_cut(text: &str, s: usize, i: usize) -> bool {
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
pub(super) fn alnum_cut(text: &str, s: usize, i: usize) -> bool {
    let (core_end, tail) = tail_of(text, s, i);
    inner_cut(text, s, i) && (tail.emo || tail.excl_q || ends_sentence(&text[s..core_end], ""))
}

/// `s` starts with digits or Latin letters that are a word, not part of an emoticon: not
/// followed by a tail mark or an emoticon's mouth (`ㅠ0ㅠ`, `♥0♥`, `ㅅ1ㅂ`, `^3<`, `-0-`), and
/// not the thumbs `b`, `bb`, `d` alone (but `b급`).
pub(super) fn starts_alnum_word(s: &str) -> bool {
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
pub(super) fn is_mood_mark(c: char) -> bool {
    matches!(
        c,
        'ㅋ' | 'ㅎ' | 'ㅠ' | 'ㅜ' | 'ㅡ' | ';' | '^' | '~' | '∼' | '～' | '♥' | '♡' | '❤'
    ) || is_emoji(c)
}

/// The text starts with a particle or a copula written against a tail (`ㅋㅋ랑`, `ㅠㅠ이`,
/// `실수~~래...`).
pub(super) fn starts_with_particle(s: &str) -> bool {
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
pub(super) fn is_wish(core: &str, next: &str) -> bool {
    ["었으면", "았으면", "였으면", "했으면", "됐으면", "졌으면"]
        .iter()
        .any(|x| core.ends_with(x))
        && !["좋", "하", "해", "한", "싶", "바", "합"]
            .iter()
            .any(|x| next.starts_with(x))
}

/// The rest of the whitespace word that starts at `i`.
pub(super) fn word_rest(text: &str, i: usize) -> &str {
    let r = &text[i..];
    &r[..r.find(char::is_whitespace).unwrap_or(r.len())]
}

/// At a syllable right after `before` (a word so far ending in commas, `봤습니다,역시`): is
/// the comma a sentence end? One comma after a sentence-final ending is; two or more
/// (`남달라,,`) are a pause, like `..`, that closes any word leaving nothing open.
pub(super) fn comma_cut(before: &str) -> bool {
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
pub(super) fn glued_end(before: &str, rest: &str) -> bool {
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
    let bieup = final_of(p2) == Some(17);
    match last {
        '다' => {
            (p1 == '니' && bieup)
                || final_of(p1) == Some(20)
                || matches!(p1, '같' | '없' | '싶' | '않')
        }
        '까' => p1 == '니' && bieup,
        // `등떠밀었니절대`: a past-tense question.
        '니' => final_of(p1) == Some(20),
        // Not the transliterations `요하네스`, `하네스`, `하네다`: a name, not `-하네`.
        '네' => {
            (final_of(p1) == Some(20) || p1 == '하')
                && !rest.starts_with('스')
                && !(p1 == '하' && (p2 == '요' || rest.starts_with('다')))
        }
        '요' => {
            matches!(
                p1,
                '네' | '세' | '어' | '아' | '해' | '워' | '봐' | '돼' | '예' | '에'
            ) && ending(before, "") == Ending::Strong
        }
        _ => false,
    }
}

/// At `i` (a digit) inside the word starting at `s`: does a numbered item (`1.`, `2)`) begin
/// here, glued to a sentence-final ending with or without its full stop (`확실하다.1.`,
/// `안된다2.`)? Only a one- or two-digit number closed by `.` or `)` at the end of the word or
/// before a syllable counts, so `좋다.10점`, `1위.2위` and `2019.3.15.` are left to the
/// other rules.
pub(super) fn list_number_cut(text: &str, s: usize, i: usize) -> bool {
    if text[..i]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_ascii_digit())
    {
        return false;
    }
    let rest = word_rest(text, i);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if !(1..=2).contains(&digits) {
        return false;
    }
    let after = &rest[digits..];
    let Some(after) = after.strip_prefix(['.', ')']) else {
        return false;
    };
    if !after.chars().next().is_none_or(is_syllable) {
        return false;
    }
    let (core_end, _) = tail_of(text, s, i);
    let marks = &text[core_end..i];
    // With its full stop any Korean word closes the item or sentence (`확실하다.1.`,
    // `촬영기법.5.`); without, only a strong ending does (`안된다2.`, not `하다2.`).
    let core = &text[s..core_end];
    match marks {
        "." => core.chars().next_back().is_some_and(is_syllable),
        "" => ending(core, "") == Ending::Strong,
        _ => false,
    }
}
