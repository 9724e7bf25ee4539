//! The words after a sentence-like ending that show the sentence goes on (`좋다 라고`,
//! `먹다 보니`, a negation after `-지`): the context half of `endings.rs`.

use super::endings::{is_any, starts_with_any};

/// Words that, right after a sentence-like ending, show the sentence goes on: a quotative
/// or connective written apart (`좋다 라고`, `먹다 보니`), or a negation after `-지`.
#[allow(
    clippy::too_many_lines,
    reason = "a rule table: the words that show a sentence goes on, one arm per ending"
)]
pub(super) fn continues(core: &str, last: char, next: &str) -> bool {
    const ALWAYS: &[&str] = &[
        "라고",
        "라며",
        "라는",
        "라면서",
        "이라고",
        "하고",
        "하며",
        "하면서",
        "하는",
        "고",
        "며",
        "는",
        "등",
        "등의",
        "등을",
        "등이",
        "등은",
        "및",
        "라",
        "란",
        "이란",
    ];
    if is_any(next, ALWAYS) || next.starts_with('씨') || next.starts_with("좋겠") {
        return true;
    }
    if last == '다'
        && starts_with_any(
            next,
            &[
                "해서",
                "하여",
                "하였",
                "라거나",
                "판결",
                "판단했",
                "밝혔",
                "말했",
                "전했",
                "주장했",
                "보도했",
                "설명했",
                "강조했",
                "지적했",
                "덧붙였",
                "생각되",
                "생각됨",
                "생각함",
            ],
        )
    {
        // `부과한다 해서`, `재개한다 하였다`, `책임이 있다 판결했다`: a quotation without `고`
        return true;
    }
    if last == '다'
        && starts_with_any(
            next,
            &[
                "치더라도",
                "치지만",
                "치고",
                "치면",
                "쳐도",
                "치자",
                "친다면",
                "칩시다",
                "할까",
            ],
        )
    {
        return true; // `어렵다 치더라도`, `본다 할까봐`: `-다 치다`, `-다 하다`
    }
    if (last == '다' && starts_with_any(next, &["뭐다", "느끼", "느꼈"]))
        || (last == '게' && next.starts_with("아니"))
        || (last == '라' && next.starts_with("생각"))
        || is_any(next, &["이러고", "이러면서"])
    {
        // `수작이다 뭐다`, `중요하다 느끼게`, `될게 아니다`, `영화일거라 생각과 달리`,
        // `재밌겠다 이러고`: a quotation or a bound noun, the sentence goes on.
        return true;
    }
    if last == '다'
        && starts_with_any(
            next,
            &["하겠", "얘기", "이야기", "말하", "생각하", "생각했"],
        )
    {
        return true; // `살았다 하겠지`, `위치 좋다 얘기한듯`: a quotation without `고`
    }
    if next == "뭘"
        || (last == '지' && is_any(next, &["뭐", "머"]))
        || (last == '야' && starts_with_any(next, &["뭐야", "뭐냐", "뭐임"]))
        || (starts_with_any(core, &["뭐", "머", "뭔"]) && is_any(next, &["이게", "그게", "저게"]))
    {
        return true; // `나오는데요 뭘`, `가족이지 뭐`, `증거야 뭐야`, `뭐냐 이게`: the sentence goes on
    }
    if matches!(last, '나' | '가' | '까')
        && starts_with_any(next, &["봄", "봐", "보다", "보네", "봅", "보군", "보지"])
    {
        return true; // `만들었나 봄`, `하는가 보다`, `할까 봐`: `-나 보다`
    }
    match last {
        '다' => {
            starts_with_any(
                next,
                &[
                    "보니",
                    "보면",
                    "보니까",
                    "못해",
                    "못한",
                    "가도",
                    "해도",
                    "하더라도",
                    "싶",
                ],
            ) || (!core.ends_with("하다")
                && starts_with_any(
                    next,
                    &["갑", "갔", "가요", "가다", "가고", "왔", "오다", "와요"],
                ))
        }
        '음' | '함' | '움' | '됨' | '임' => is_any(
            next,
            &[
                "없이",
                "없는",
                "없고",
                "없음",
                "없어",
                "없다",
                "없었다",
                "없었어요",
                "없어요",
            ],
        ),
        '지' => starts_with_any(next, &["않", "못", "말", "마", "만", "아니"]),
        '까' => {
            starts_with_any(
                next,
                &[
                    "두려", "걱정", "염려", "싶", "봐", "말까", "하는", "고민", "우려", "생각",
                    "망설", "합니", "한다", "했", "해요", "아쉽",
                ],
            ) || next.ends_with('까')
        }
        '가' => starts_with_any(next, &["궁금", "싶", "하는", "의문", "고민", "생각"]),
        '길' => starts_with_any(
            next,
            &[
                "바라", "바랍", "바래", "빌", "빕", "기원", "원", "추천", "권", "희망", "부탁",
                "응원",
            ],
        ),
        '듯' => starts_with_any(
            next,
            &[
                "하", "한", "할", "했", "해", "합", "싶", "보", "이", "말", "되", "된",
            ],
        ),
        '어' | '아' | '야' | '워' => starts_with_any(
            next,
            &[
                "보", "봤", "본", "봐", "서", "도", "주", "줘", "준", "버", "놓", "야", "가", "있",
                "하", "한", "할", "했", "죽", "미", "되", "된", "오", "와", "온",
            ],
        ),
        _ => false,
    }
}
