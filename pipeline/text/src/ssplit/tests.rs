//! The splitter's unit tests: sentences of real review and news text, and properties.

use super::quotes::{may_quote, protected_spans_scan};
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

/// Informal sentence ends without a space or with a comma: cut there, but
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
/// `-더라`/`-던가`, an interjection or a conjunction glued after a mark.
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
/// a topic or subject; not a noun phrase that goes on.
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
/// `차라리` after a nominal end a sentence.
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

#[test]
fn a_number_wrapped_after_a_hyphen_stays_in_its_sentence() {
    assert_eq!(
        sents("연락처는 010-2345-\n6789 입니다. 카드 5375-2814-\n0096-2710 끝"),
        [
            "연락처는 010-2345-\n6789 입니다.",
            "카드 5375-2814-\n0096-2710 끝"
        ]
    );
    // So does a wrapped range of years; other line breaks stay boundaries.
    assert_eq!(
        sents("기간은 2019-\n2020년 목록"),
        ["기간은 2019-\n2020년 목록"]
    );
    assert_eq!(sents("점수 10\n-5점 감점"), ["점수 10", "-5점 감점"]);
    assert_eq!(sents("다음 -\n1. 여권"), ["다음 -", "1. 여권"]);
}

/// News: no cut inside a name that merely ends like a sentence (`요하네|스버그`, `천안함|
/// 사건`, `시치죠`), none before a bracketed CJK gloss, and a numbered item glued to the end
/// of the sentence before it starts the next one.
#[test]
fn news_names_glosses_and_glued_numbered_items() {
    for one in [
        "남아프리카 공화국의 요하네스버그에서 열린 회의에 참석했다.",
        "지난해 연평도 포격과 천안함 사건 등에 대한 입장을 밝혔다.",
        "그는 시치죠 가문의 후손이다.",
        "하기무라 스즈 (萩村 スズ)가 출연했다.",
        "방송윤리·프로그램향상기구 (放送倫理・番組向上機構)는 권고했다.",
    ] {
        assert_eq!(sents(one), [one], "{one}");
    }
    assert_eq!(
        sents("이것은 확실하다.1. 첫째 항목이다."),
        ["이것은 확실하다.", "1. 첫째 항목이다."]
    );
    assert_eq!(
        sents("그러면 안된다2. 둘째 항목이다."),
        ["그러면 안된다", "2. 둘째 항목이다."]
    );
    // Still cut: an ending glued to a sentence, a score after a full stop; not cut: ranks.
    assert_eq!(
        sents("정말 재밌네다음편도 볼래"),
        ["정말 재밌네", "다음편도 볼래"]
    );
    assert_eq!(sents("좋았다.10점 준다"), ["좋았다.", "10점 준다"]);
    assert_eq!(sents("1위.2위 순이다"), ["1위.2위 순이다"]);
}
