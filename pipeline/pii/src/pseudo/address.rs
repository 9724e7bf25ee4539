//! Pseudonymous Korean addresses: regions (시/도), place-name stems and numbers replaced
//! token by token, the address's shape kept.

use super::*;

pub(super) const SIDO_FULL: [&str; 9] = [
    "서울특별시",
    "부산광역시",
    "대구광역시",
    "인천광역시",
    "광주광역시",
    "대전광역시",
    "울산광역시",
    "경기도",
    "충청남도",
];
pub(super) const SIDO_SHORT: [&str; 10] = [
    "서울", "부산", "대구", "인천", "광주", "대전", "울산", "경기", "충남", "경북",
];
pub(super) const STEMS: [&str; 20] = [
    "한빛",
    "새별",
    "누리",
    "푸른",
    "은하",
    "솔밭",
    "가람",
    "하늘",
    "보람",
    "다솜",
    "미르",
    "해오름",
    "달빛",
    "샘골",
    "가온",
    "나래",
    "아름",
    "초록",
    "단비",
    "물빛",
];

/// A pseudonymous address of the same shape as `orig`, token by token: a 시·도 by another,
/// a 시·군·구 by another name of the gazetteer with the same ending, a road or place name by
/// a stem from [`STEMS`] with its suffix kept and its numbers scrambled.
pub(super) fn pseudo_address(orig: &str, rng: &mut ChaCha8Rng) -> String {
    orig.split(' ')
        .map(|tok| {
            let chars: Vec<char> = tok.chars().collect();
            if SIDO_FULL.contains(&tok)
                || tok.ends_with("특별자치시")
                || tok.ends_with("특별자치도")
                || tok.ends_with("광역시")
                || tok.ends_with("특별시")
                || (tok.ends_with('도')
                    && chars.len() >= 3
                    && !tok.chars().any(|c| c.is_ascii_digit()))
            {
                return SIDO_FULL[rng.random_range(0..SIDO_FULL.len())].to_string();
            }
            if SIDO_SHORT.contains(&tok) {
                return SIDO_SHORT[rng.random_range(0..SIDO_SHORT.len())].to_string();
            }
            let hangul_stem_end = chars
                .iter()
                .position(|c| c.is_ascii_digit() || *c == ',' || *c == '(' || *c == ')')
                .unwrap_or(chars.len());
            let stem: String = chars[..hangul_stem_end].iter().collect();
            let rest: String = chars[hangul_stem_end..].iter().collect();
            // A 시·군·구 becomes another name of the gazetteer with the same ending, so an
            // address without a 시·도 is still one (`pii.address_v2` needs a real name).
            if rest.is_empty()
                && let Some(suffix) = ["시", "군", "구"].into_iter().find(|x| stem.ends_with(x))
                && crate::detect::sigungu().contains(&stem)
            {
                let same: Vec<&String> = crate::detect::sigungu()
                    .iter()
                    .filter(|n| n.ends_with(suffix))
                    .collect();
                return same[rng.random_range(0..same.len())].clone();
            }
            for suffix in ["대로", "로", "길", "시", "군", "구", "동", "읍", "면", "리"]
            {
                if stem.chars().count() > suffix.chars().count()
                    && stem.ends_with(suffix)
                    && stem.chars().all(|c| ('가'..='힣').contains(&c))
                {
                    let mut r: Vec<char> = rest.chars().collect();
                    scramble(&mut r, rng, &|_| false);
                    let r: String = r.into_iter().collect();
                    return format!("{}{suffix}{r}", STEMS[rng.random_range(0..STEMS.len())]);
                }
            }
            let mut c: Vec<char> = tok.chars().collect();
            scramble(&mut c, rng, &|_| false);
            c.into_iter().collect()
        })
        .collect::<Vec<_>>()
        .join(" ")
}
