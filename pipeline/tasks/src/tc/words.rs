//! Keyword matching by words for the YNAT topic rules: a keyword counts where it starts a
//! word and the rest of that word is particles or endings (경찰이, 국회에서는, 선수들), not
//! inside another word (입자 in 가입자, 임원 in 사임원). A keyword ending in `*` is a compound
//! head and may go on into the word (경찰* in 경찰청장); one starting with `*` is a compound
//! tail and may have a word before it (*대학교 in 서울대학교).

/// Particles, plural, the person suffix 자 (흡연자) and endings that may follow a keyword in its word, in any sequence of
/// up to three (들 + 에서 + 는), and the verb endings of a noun + 하다/되다 (발견했다,
/// 체포돼). Every split is tried, so the order does not matter.
const TAILS: &[&str] = &[
    "으로부터",
    "에서부터",
    "이라는",
    "으로서",
    "으로써",
    "로부터",
    "에게서",
    "이었다",
    "께서",
    "에서",
    "에게",
    "한테",
    "으로",
    "까지",
    "부터",
    "보다",
    "처럼",
    "마다",
    "이나",
    "이며",
    "이다",
    "였다",
    "이고",
    "이란",
    "라는",
    "로서",
    "로써",
    "에선",
    "에도",
    "과의",
    "와의",
    "에의",
    "이자",
    "만의",
    "조차",
    "마저",
    "이라",
    "인",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "에",
    "께",
    "로",
    "와",
    "과",
    "도",
    "만",
    "나",
    "며",
    "고",
    "들",
    "측",
    "씨",
    "서",
    "엔",
    "란",
    "등",
    "자",
    "하다",
    "한다",
    "했다",
    "하고",
    "하는",
    "하며",
    "하자",
    "했던",
    "한",
    "할",
    "해",
    "되다",
    "됐다",
    "되는",
    "된",
    "될",
    "돼",
    "당해",
    "당한",
    "시켜",
];

fn hangul(c: char) -> bool {
    ('가'..='힣').contains(&c)
}

/// A character that continues a word: a Hangul syllable, a letter or a digit.
fn wordish(c: char) -> bool {
    hangul(c) || c.is_alphanumeric()
}

/// Can `rest` be read as up to three particles or endings?
fn tail(rest: &str, depth: usize) -> bool {
    if rest.is_empty() {
        return true;
    }
    depth < 3
        && TAILS
            .iter()
            .any(|t| rest.strip_prefix(t).is_some_and(|r| tail(r, depth + 1)))
}

/// Whether `keyword` (with its optional `*` marks) occurs in `text` as a word or a word's
/// stem followed by particles.
pub fn matches(keyword: &str, text: &str) -> bool {
    let head = keyword.ends_with('*');
    let tail_ok = keyword.starts_with('*');
    let k = keyword.trim_start_matches('*').trim_end_matches('*');
    if k.is_empty() {
        return false;
    }
    let first = k.chars().next().unwrap_or(' ');
    text.match_indices(k).any(|(i, _)| {
        let before = text[..i].chars().last();
        // A Latin keyword (EU, NASA) may follow Hangul only where Hangul cannot be its
        // word's start, and the same holds for a Hangul keyword after Latin letters.
        let starts = tail_ok || before.is_none_or(|b| !(wordish(b) && wordish(first)));
        let after = &text[i + k.len()..];
        let end = after.find(|c: char| !wordish(c)).unwrap_or(after.len());
        let rest = &after[..end];
        // Latin or digits then Hangul particles read the same way (NASA는, IE9의).
        starts && (head || tail(rest, 0))
    })
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn keywords_match_words_and_stems_with_particles_only() {
        assert!(matches("입자", "입자 가속기 가동"));
        assert!(!matches("입자", "휴대전화 가입자 5천만 돌파"));
        assert!(matches("경찰", "경찰이 수사에 나섰다"));
        assert!(matches("국회", "국회에서는 법안이"));
        assert!(matches("선수", "선수들의 부상"));
        assert!(!matches("경찰", "경찰청장 취임"));
        assert!(matches("경찰*", "경찰청장 취임"));
        assert!(!matches("대학교", "서울대학교 개교"));
        assert!(matches("*대학교", "서울대학교 개교"));
        assert!(matches("NASA", "NASA는 오늘"));
        assert!(!matches("EU", "EURO 2012"));
        assert!(matches("EU", "\"EU, 난민 할당\""));
        assert!(matches("인터넷 검열", "중국의 인터넷 검열 강화"));
        assert!(!matches("임원", "학생회임원 선출"));
    }
}
