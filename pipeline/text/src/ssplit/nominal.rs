//! Nominal sentences without punctuation (`가장좋아하는 한국영화 | 임감독은`): an adnominal,
//! a noun a review ends with, then a word that opens a new clause.

use super::endings::{Ending, ending, ends_with_any, is_any, is_syllable, starts_with_any};

/// Nouns that a review ends a nominal sentence with (`냄새가 나는듯한 영화`).
const NOMINAL_HEADS: &[&str] = &[
    "영화",
    "드라마",
    "작품",
    "애니",
    "명작",
    "수작",
    "걸작",
    "망작",
];

/// Last syllables of an adnominal (`-는`, `-던`, `-한`, `-은`, ...) before such a noun.
const ADNOMINAL_ENDS: &[char] = &[
    '는', '던', '한', '된', '운', '은', '인', '픈', '쁜', '른', '진', '난', '린',
];

/// Determiners that end like an adnominal but pick out a noun (`다른 영화 보러`).
const NOT_ADNOMINAL: &[&str] = &["다른", "같은", "이런", "그런", "저런", "어떤"];

/// Ends of a next word that is no topic or subject: adjectives in `-은` (`영화 보고싶은
/// 분`), bound forms (`영화 임에도`, `영화 인데도`, `1위이기도`). `-는` is not taken at
/// all (`영화 좋아하시는 분`: an adnominal as often as a topic), nor `-아도/-어도`
/// (`영화 찾아봐도`).
const NOT_NOMINAL_NEXT_ENDS: &[&str] = &[
    "같은", "좋은", "많은", "싶은", "없은", "작은", "높은", "낮은", "적은", "중이", "뿐이", "기도",
    "에도", "데도", "서도", "봐도", "해도", "어도", "아도", "다도",
];

/// Starts of a next word that goes on from the noun: a part of the film (`영화 분위기가`,
/// `영화 영상미가`, `애니 퀄리티가`), a bound form (`영화 임에도`), `많이` (`좋은 영화
/// 많이 만들어`).
const NOT_NOMINAL_NEXT_STARTS: &[&str] = &[
    "영상",
    "대사",
    "연기",
    "자체",
    "분위기",
    "퀄",
    "내용",
    "스토리",
    "연출",
    "음악",
    "주인",
    "제목",
    "결말",
    "임에",
    "인데",
    "같",
    "정도",
    "많",
];

/// Words that open a sentence after a nominal one (`그땐 별로였는데`).
const NOMINAL_NEXT_OPENERS: &[&str] = &["그땐", "그때는", "이젠", "지금은", "요즘은"];

/// A nominal sentence without punctuation: an adnominal (`before`), a noun a review ends
/// with (`core`), then a word that opens a new clause (`next`): a topic or subject with
/// its particle (`임감독은`, `긴장감도`), not a predicate or a noun going on (`영화 추천`,
/// `영화 중`). `가장좋아하는 한국영화 임감독은`, `나는듯한 영화 그땐`. A weak cut: trusted
/// only where the writer does not punctuate.
pub(crate) fn nominal_sentence(before: &str, core: &str, next: &str) -> bool {
    if !NOMINAL_HEADS.iter().any(|h| core.ends_with(h))
        || is_any(before, NOT_ADNOMINAL)
        || !before
            .chars()
            .next_back()
            .is_some_and(|c| ADNOMINAL_ENDS.contains(&c))
    {
        return false;
    }
    if is_any(next, NOMINAL_NEXT_OPENERS) {
        return true;
    }
    next.chars().count() >= 2
        && next.chars().all(is_syllable)
        && next.ends_with(['은', '이', '가', '도'])
        && ending(next, "") == Ending::No
        && !ends_with_any(next, NOT_NOMINAL_NEXT_ENDS)
        && !starts_with_any(next, NOT_NOMINAL_NEXT_STARTS)
}
