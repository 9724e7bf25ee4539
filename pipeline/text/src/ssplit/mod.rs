//! A KSS-style Korean sentence splitter: rule based, no morpheme analyser, one pass.
//!
//! [`split_sentences`] returns the byte ranges of the sentences of a text. The ranges are
//! in order, never overlap, hold no leading or trailing whitespace, and everything between
//! them is whitespace: joining the pieces with the original separators gives the input
//! back, character for character.
//!
//! How it decides (the rule inventory of `../shared/reference/ssplit/README.md`):
//! 1. The text is cut into eojeols (whitespace words); a newline is a hard boundary, except
//!    inside a number wrapped after a hyphen (`010-2345-` / `6789`). Inside a word,
//!    `좋았다.그런데` is cut after the punctuation.
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
//!
//! Files: `words.rs` (words, cores and tails), `inword.rs` (boundaries inside a word with no
//! space), `quotes.rs` (step 3's pairs), `decide.rs` (steps 4 and 5 at each space),
//! `endings.rs` with `continues.rs` (the ending table and the words that go on from an
//! ending) and `nominal.rs` (nominal sentences without punctuation).

mod continues;
mod decide;
mod endings;
mod inword;
mod nominal;
mod quotes;
#[cfg(test)]
mod tests;
mod words;

use decide::{Cut, decide, is_punctuated};
use endings::{Ending, ending};
use quotes::protected_spans;
use words::{tail_of, words};

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

pub(super) fn is_any_word(s: &str, list: &[&str]) -> bool {
    list.contains(&s)
}

pub(super) fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}
