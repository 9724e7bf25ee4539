//! Chinese and Japanese glosses in Korean text: `(放送倫理・番組向上機構)` after the Korean
//! name of a body, `(萩村 スズ)` after a person's. filter.cjk_over_10 counts the CJK
//! characters outside such glosses, so a Korean news sentence that glosses its names stays,
//! while a sentence written in Chinese or Japanese is still dropped.

/// Chinese characters (CJK ideographs) and Japanese kana.
#[inline]
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FA1F}' | '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9D}')
}

#[inline]
fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// CJK characters of `text` outside bracketed glosses, when Korean text stands outside them:
/// a gloss is a `(...)` or `（...）` span right after a Korean word. A text with no Hangul
/// outside its brackets counts every CJK character (it is not Korean with glosses).
pub fn cjk_outside_glosses(text: &str) -> usize {
    let (mut depth, mut outside, mut inside, mut hangul) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            _ if is_cjk(c) => {
                if depth == 0 {
                    outside += 1;
                } else {
                    inside += 1;
                }
            }
            _ if depth == 0 && is_syllable(c) => hangul += 1,
            _ => {}
        }
    }
    if hangul == 0 {
        outside + inside
    } else {
        outside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glosses_after_korean_do_not_count() {
        assert_eq!(
            cjk_outside_glosses("방송윤리·프로그램향상기구(放送倫理・番組向上機構)는 권고했다."),
            0
        );
        assert_eq!(
            cjk_outside_glosses("하기무라 스즈(萩村 スズ)가 출연했다."),
            0
        );
        // A Chinese sentence, bracketed or not, is counted whole.
        assert_eq!(cjk_outside_glosses("(安倍晋三 日本 總理)"), 8);
        assert_eq!(cjk_outside_glosses("安倍晋三 日本 總理 記者會見 開催"), 14);
        assert_eq!(
            cjk_outside_glosses("安倍晋三 日本 總理 記者會見 開催 했다"),
            14
        );
    }
}
