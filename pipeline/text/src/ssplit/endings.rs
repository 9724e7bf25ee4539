//! Korean sentence-final endings without a morpheme analyser: a table of the last one or
//! two syllables of an eojeol (whitespace word), with the word after it as context.
//!
//! The rules follow KSS's inventory (`-다`, `-요`, `-죠/-쥬`, `-까`, `-니/-냐/-나`, `-네`,
//! `-군/-구나`, `-지`, nominal `-음/-함/-됨/-임`, `-듯`, dialect `-유`) and its exceptions
//! (`-다며/-다는/-다고` are not final; `다` the adverb; `요` after a particle: `저는요`).

use super::continues::continues;

/// Jongseong (final consonant) index of a precomposed Hangul syllable, 0 = none.
#[inline]
pub(crate) fn final_of(c: char) -> Option<u32> {
    let u = c as u32;
    if (0xAC00..=0xD7A3).contains(&u) {
        Some((u - 0xAC00) % 28)
    } else {
        None
    }
}

#[inline]
pub(crate) fn is_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

const J_RIEUL: u32 = 8;
const J_BIEUP: u32 = 17;
const J_SSANGSIOT: u32 = 20;

pub(super) fn ends_with_any(s: &str, list: &[&str]) -> bool {
    list.iter().any(|x| s.ends_with(x))
}

pub(super) fn is_any(s: &str, list: &[&str]) -> bool {
    list.contains(&s)
}

pub(super) fn starts_with_any(s: &str, list: &[&str]) -> bool {
    list.iter().any(|x| s.starts_with(x))
}

/// Words ending in `다` that are not predicates: adverbs and nouns (`죄다` "all of them",
/// `최다` "the most", `뭐다` of `수작이다 뭐다`).
const NOT_PREDICATE_DA: &[&str] = &["죄다", "최다", "과다", "뭐다"];

/// Verbs whose stem ends in `이` (`벌이다`, `줄이다`): unlike the copula `-이다`, their
/// bare `-다` in edited text is the `-다가` of a clause that goes on.
const VERB_IDA: &[&str] = &[
    "벌이다",
    "먹이다",
    "죽이다",
    "붙이다",
    "줄이다",
    "높이다",
    "속이다",
    "녹이다",
    "끓이다",
    "기울이다",
];

/// Syllables before which `요` is the polite ending (`좋아요`, `하세요`, `했네요`), and its
/// cute form `용` too (`좋아용`, `살아야겠어용`).
const BEFORE_YO: &[char] = &[
    '어', '아', '해', '세', '네', '까', '에', '예', '워', '와', '게', '데', '래', '지', '봐', '줘',
    '돼', '서',
];

/// Syllables before which `요` (but not the rarer `용`) is the polite ending (`하죠요`,
/// `그런걸요`, `맞구요`).
const BEFORE_YO_ONLY: &[char] = &[
    '죠', '나', '걸', '니', '군', '죵', '쵸', '셔', '져', '겨', '꺼', '러', '려', '쥬', '여', '구',
    '고',
];

/// How sure an ending is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ending {
    /// Not a sentence-final ending.
    No,
    /// Final in informal writing (`좋음`, `재밌네`, `할듯`), but the same syllables close
    /// nouns and connectives in edited text: trusted only where the writer does not
    /// punctuate.
    Weak,
    /// A sentence-final ending in any register (`-었다`, `-습니다`, `-어요`, `-죠`, `-ㄹ까`).
    Strong,
}

/// Does the eojeol `core` (no trailing punctuation or tail) end a sentence, given the next
/// eojeol's core (`next`, empty at a line end)?
pub(crate) fn ends_sentence(core: &str, next: &str) -> bool {
    ending(core, next) != Ending::No
}

#[allow(
    clippy::too_many_lines,
    reason = "the splitter's rule table: one arm per final syllable with its exceptions, read as one list"
)]
pub(crate) fn ending(core: &str, next: &str) -> Ending {
    use Ending::*;
    let mut it = core.chars().rev();
    let Some(last) = it.next() else {
        return No;
    };
    if !is_syllable(last) {
        return No;
    }
    let prev = it.next();
    let prev_fin = prev.and_then(final_of);
    let prev_fin_is = |j: u32| prev_fin == Some(j);
    let single = prev.is_none();
    let weak = |b: bool| if b { Weak } else { No };
    if is_any(core, &["굿", "굳", "굿굿", "굳굳", "강추", "비추"]) {
        // `리얼리티 굿 존무어는`: a verdict word as a sentence of its own (not `강추 합니다`,
        // `강추 드립니다`); a bare `굿` only before a topic (not `굿 위치에서`, a title).
        return weak(
            !starts_with_any(
                next,
                &[
                    "하", "합", "해", "했", "한", "입", "이에", "이다", "드", "요",
                ],
            ) && (core.chars().count() > 1 || next.ends_with(['은', '는', '도'])),
        );
    }
    let e = match last {
        '다' => {
            if single
                || is_any(
                    core,
                    &[
                        "바다",
                        "사이다",
                        "캐나다",
                        "판다",
                        "보다",
                        "플로리다",
                        "가나다",
                        "베란다",
                        "아젠다",
                    ],
                )
                || ends_with_any(core, &["마다", "보다", "바다", "려다", "데다"])
                || NOT_PREDICATE_DA.contains(&core)
                || ends_with_any(core, &["둘다", "셋다", "거기다"])
            {
                No
            } else if prev == Some('하')
                || ends_with_any(core, VERB_IDA)
                || (prev == Some('니')
                    && core.chars().rev().nth(2).and_then(final_of) != Some(J_BIEUP))
            {
                // `-하다`, verbs in `-이다` (`벌이다`, not the copula), `-니다` without
                // `-ㅂ니다`: a final in a review (`지루하다`), but in edited text the `-다가` of a verb with
                // `가` dropped (`검색을 하다 뉴스를 본`, `시위를 벌이다 충돌했다`,
                // `곳곳을 다니다 이날`): trusted only where the writer does not punctuate.
                Weak
            } else if prev_fin_is(J_SSANGSIOT)
                || matches!(
                    prev,
                    Some(
                        '니' | '는'
                            | '이'
                            | '없'
                            | '같'
                            | '좋'
                            | '싶'
                            | '않'
                            | '많'
                            | '렵'
                            | '럽'
                            | '쁘'
                            | '겁'
                            | '답'
                            | '한'
                            | '된'
                            | '간'
                            | '온'
                            | '본'
                            | '준'
                            | '진'
                            | '난'
                            | '운'
                            | '친'
                            | '든'
                            | '싫'
                            | '하'
                            | '되'
                            | '있'
                    )
                )
            {
                Strong
            } else {
                Weak
            }
        }
        '요' => {
            if single
                || ends_with_any(
                    core,
                    &[
                        "는요",
                        "은요",
                        "를요",
                        "을요",
                        "필요",
                        "중요",
                        "주요",
                        "수요",
                        "요요",
                        "개요",
                        "소요",
                        "강요",
                        "동요",
                        "교요",
                        "대중가요",
                    ],
                )
            {
                No
            } else if prev.is_some_and(|p| BEFORE_YO.contains(&p) || BEFORE_YO_ONLY.contains(&p)) {
                Strong
            } else {
                Weak
            }
        }
        // `시치죠` (七条): a Japanese name, not `-죠`.
        '죠' if core.ends_with("시치죠") => No,
        '죠' => Strong,
        // `-용`: the cute form of `-요` (`살아야겠어용`, `좋아용`).
        '용' => weak(prev.is_some_and(|p| BEFORE_YO.contains(&p) || p == '겟')),
        '쥬' | '죵' => Weak,
        // Dialect `-나예`, `-지예`, `-어예` (Gyeongsang `-요`).
        '예' => weak(matches!(prev, Some('나' | '지' | '어' | '아' | '데')) && core != "아예"),
        '유' => weak(matches!(
            prev,
            Some(
                '아' | '어'
                    | '해'
                    | '돼'
                    | '와'
                    | '워'
                    | '봐'
                    | '줘'
                    | '래'
                    | '셔'
                    | '겨'
                    | '져'
                    | '혀'
            )
        )),
        '까' => {
            if prev_fin_is(J_RIEUL)
                || (prev == Some('니')
                    && core.chars().rev().nth(2).and_then(final_of) == Some(J_BIEUP))
            {
                Strong
            } else {
                No
            }
        }
        '니' => weak(prev_fin_is(J_SSANGSIOT) || prev == Some('잖')),
        // `-는가`, `-인가`, `-ㄴ가` questions.
        '가' => weak(
            matches!(prev, Some('는' | '인' | '떤' | '런' | '렇' | '닌' | '던'))
                && !is_any(
                    core,
                    &["무엇인가", "누군가", "언젠가", "어딘가", "뭔가", "왠지인가"],
                ),
        ),
        '냐' => weak(!single),
        '나' => {
            weak((prev_fin_is(J_SSANGSIOT) || prev == Some('구')) && !core.ends_with("누구나"))
        }
        // `-구먼`, `-구만`, and `-더만` (`폐인이더만`, `재밌더만`; not after a past tense or
        // `싶`, where it goes on: `봤더만 이건 뭐`, `싶더만 외로운`).
        '먼' | '만' => weak(
            prev == Some('구')
                || (last == '만'
                    && prev == Some('더')
                    && core.chars().rev().nth(2).is_some_and(|c| {
                        is_syllable(c)
                            && (final_of(c) != Some(J_SSANGSIOT) || matches!(c, '있' | '밌'))
                            && c != '싶'
                    })),
        ),
        // `비추해여`, `좋네여`: the cute spelling of `-요`.
        '여' => weak(matches!(prev, Some('해' | '세' | '네'))),
        '네' => weak(
            !single
                && !ends_with_any(
                    core,
                    &["동네", "그네", "우리네", "니네", "언니네", "엄마네", "건네"],
                ),
        ),
        '군' => {
            weak(prev_fin_is(J_SSANGSIOT) || matches!(prev, Some('는' | '좋' | '없' | '이' | '구')))
        }
        '지' => weak(
            prev_fin_is(J_SSANGSIOT)
                || matches!(prev, Some('야' | '렇' | '좋' | '잖' | '겠'))
                // `시작이지`, `명작이지`: the copula after a closed syllable (not the
                // loanwords `페이지`, `스테이지`, whose `이` follows an open one; not the
                // adverb `정말이지`, nor `뿐이지`, which goes on to a contrast).
                || (prev == Some('이')
                    && core.chars().rev().nth(2).and_then(final_of).is_some_and(|j| j != 0)
                    && !ends_with_any(core, &["정말이지", "증말이지", "뿐이지"]))
                // `물러나시지`, `보시지`: an honorific suggestion (not `메시지`).
                || (prev == Some('시') && !single && !core.ends_with("메시지")),
        ),
        '듯' => weak(prev_fin_is(J_RIEUL) || prev_fin_is(4)),
        '라' => weak(ends_with_any(
            core,
            &[
                "해라", "봐라", "마라", "거라", "와라", "줘라", "어라", "더라",
            ],
        )),
        '자' => weak(
            ends_with_any(
                core,
                &[
                    "보자", "가자", "먹자", "놀자", "쉬자", "살자", "자자", "듣자", "믿자",
                ],
            ) && !single,
        ),
        '게' => weak(
            prev_fin_is(J_RIEUL)
                && !single
                && !ends_with_any(
                    core,
                    &[
                        "알게",
                        "할게다",
                        "들게",
                        "길게",
                        "멀게",
                        "달게",
                        "칠게",
                        "글게",
                    ],
                ),
        ),
        '래' => weak(
            prev_fin_is(J_RIEUL) && !single && !ends_with_any(core, &["길래", "을래야", "몰래"]),
        ),
        '어' => weak(
            !single
                && ((prev_fin_is(J_SSANGSIOT) && prev != Some('있'))
                    || matches!(prev, Some('싶' | '싫' | '같' | '많' | '겠'))),
        ),
        '야' => weak(matches!(prev, Some('거' | '이' | '뭐' | '고' | '건' | '게')) && !single),
        '데' => weak(prev == Some('던')),
        '음' => weak(
            prev_fin.is_some_and(|j| j != 0)
                && !ends_with_any(
                    core,
                    &[
                        "웃음", "울음", "믿음", "걸음", "죽음", "얼음", "젊음", "물음", "묶음",
                        "졸음", "발음", "녹음", "잡음", "방음", "복음", "굉음", "묵음", "볶음",
                    ],
                ),
        ),
        '움' => {
            weak(!single && !ends_with_any(core, &["도움", "싸움", "배움", "세움", "채움", "리움"]))
        }
        '임' => weak(
            !single
                && !ends_with_any(
                    core,
                    &[
                        "게임",
                        "타임",
                        "책임",
                        "모임",
                        "네임",
                        "프레임",
                        "라임",
                        "크라임",
                        "직임",
                        "리임",
                        "신임",
                        "취임",
                        "연임",
                        "재임",
                        "사임",
                        "유임",
                        "퇴임",
                        "선임",
                        "후임",
                        "전임",
                        "부임",
                        "위임",
                        "일임",
                        "해임",
                        "역임",
                        "담임",
                        "중임",
                        "소임",
                    ],
                ),
        ),
        // `재밌게 봄` (saw), not the season (`봄 여름 가을`, `올봄`).
        '봄' => {
            let season = ends_with_any(core, &["올봄", "새봄", "봄봄", "이봄"])
                || (single && starts_with_any(next, &["봄", "여름", "가을", "겨울"]));
            weak(!season)
        }
        // Not a ship's name before what befell it (`천안함 사건`, `천안함 침몰`), nor a
        // noun before `등`/`및` (a list goes on).
        '함' | '됨' => {
            let ship = last == '함' && starts_with_any(next, SHIP_NOUNS);
            let list = is_any(next, &["등", "및", "등의", "등이", "등을", "등에", "등과"]);
            weak(!(ends_with_any(core, &["포함", "함함"]) || ship || list))
        }
        '짐' | '줌' | '옴' | '김' | '듬' | '냄' | '둠' | '늠' => weak(!single),
        '씀' => weak(!single && !core.ends_with("말씀")),
        // `귀여워`, `무서워`: the plain `-어` of a `ㅂ` adjective (not `타워`, `샤워`), an end
        // only where the text ends: inside a text it is as often a connective (`너무 어두워
        // 눈이 침침했던…`, a shared probe), so the splitter does not cut there, while the
        // short-sentence filter still sees `귀여워` as a sentence.
        '워' => weak(
            next.trim().is_empty()
                && !single
                && !ends_with_any(core, &["타워", "샤워", "파워", "리워", "키워", "세워"]),
        ),
        // `재밌잖아`: `-잖아`.
        '아' => weak(prev == Some('잖')),
        // `멋지당`, `좋당`: the cute `-다`.
        '당' => weak(
            prev_fin_is(J_SSANGSIOT)
                || matches!(prev, Some('지' | '좋' | '밌' | '없' | '같' | '싶'))
                // `합니당`: the cute `-ㅂ니다`.
                || (prev == Some('니')
                    && core.chars().rev().nth(2).and_then(final_of) == Some(J_BIEUP)),
        ),
        // `팬이됐슴`, `봤슴`: `-음` spelt `-슴` after a past tense.
        '슴' => weak(prev_fin_is(J_SSANGSIOT)),
        // `꼭 보시길`: a wish with `바란다` left out.
        '길' => weak(prev == Some('시')),
        _ => No,
    };
    if e != No && continues(core, last, next) {
        return No;
    }
    e
}

/// An interjection (`와`, `헐`, `에고`) that a pause closes as a sentence of its own
/// (`와.. 역시 최고`).
pub(crate) fn is_interjection(core: &str) -> bool {
    is_any(
        core,
        &[
            "와",
            "우와",
            "헐",
            "에고",
            "아오",
            "휴",
            "흠",
            "음",
            "하",
            "아",
            "어휴",
            "아이고",
            "오",
            "캬",
        ],
    )
}

/// The eojeol ends with something that cannot end a sentence (a particle or a connective),
/// so a tail (`ㅋㅋ`, `...`) after it is a pause, not a sentence end.
pub(crate) fn ends_incomplete(core: &str) -> bool {
    let Some(last) = core.chars().next_back() else {
        return true;
    };
    if !is_syllable(last) {
        return matches!(last, ',' | '，' | '、' | ':' | '-');
    }
    // Adverbs and `등` that a pause (`좀..`, `너무...`, `등..`) follows mid-sentence.
    if is_any(
        core,
        &[
            "좀", "더", "너무", "넘", "정말", "진짜", "완전", "그냥", "막", "참", "왜", "등",
            "엄청", "되게", "아주", "매우", "제일", "가장", "넘나", "이게", "그게", "저게",
        ],
    ) || core.ends_with("느니")
    {
        return true;
    }
    matches!(
        last,
        '고' | '서'
            | '며'
            | '면'
            | '데'
            | '만'
            | '는'
            | '은'
            | '를'
            | '을'
            | '의'
            | '에'
            | '와'
            | '과'
            | '로'
            | '랑'
            | '및'
            | '또'
            | '그'
            | '근'
            | '런'
            | '려'
            | '도'
            | '이'
            | '가'
            | '건'
            | '한'
    ) && !ends_sentence(core, "")
}

/// Nouns a ship's name (`천안함`, `독도함`) stands before: `-함` there is no ending.
const SHIP_NOUNS: &[&str] = &[
    "사건",
    "사태",
    "침몰",
    "폭침",
    "피격",
    "사고",
    "함장",
    "장병",
    "승조원",
    "용사",
    "관련",
    "유족",
    "희생",
];
