//! Each guard of `rules/negation.toml` that keeps a class of misread flips out, on a
//! sentence it stops (by its own id) and on one it lets through.

use crate::challenge::flip::Flipper;

/// The guard ids that stop some flip of `text`.
fn stopped_by(f: &Flipper, text: &str) -> Vec<String> {
    f.candidates(text)
        .stopped
        .iter()
        .map(|(g, _)| g.to_string())
        .collect()
}

/// `stops` is stopped by `guard`; `passes` is flipped and `guard` stops none of its flips.
fn holds(guard: &str, stops: &str, passes: &str) {
    let f = Flipper::load().unwrap();
    assert!(
        stopped_by(&f, stops).iter().any(|g| g == guard),
        "{guard} does not stop {stops:?}: {:?}",
        f.candidates(stops)
    );
    let c = f.candidates(passes);
    assert!(!c.flips.is_empty(), "{passes:?} gets no flip: {c:?}");
    assert!(
        !stopped_by(&f, passes).iter().any(|g| g == guard),
        "{guard} stops {passes:?}"
    );
}

#[test]
fn a_polarity_item_such_as_bare_byeol_stops_the_flip() {
    holds(
        "negation.guard_polarity_item",
        "별 재미없다..",
        "별이 빛나는 장면이 좋았다",
    );
    holds("negation.guard_polarity_item", "딱히 재미없다", "딱 좋다");
}

#[test]
fn a_ranking_before_the_predicate_stops_the_flip() {
    holds(
        "negation.guard_ranking",
        "최근 몇년간본 로코중 밑에서 세손가락안에 들 졸작이다.",
        "최근 몇년간 본 로코 중에 졸작이다.",
    );
    holds(
        "negation.guard_ranking",
        "최악의 배우들이 나와서 재미없다",
        "배우들이 나온 영화 재미없다",
    );
}

#[test]
fn a_degree_adverb_stops_long_negation_but_not_short() {
    holds("negation.guard_degree_long", "꽤재미있다", "재미있다");
    holds(
        "negation.guard_degree_long",
        "연출이 너무 섬세하다",
        "연출이 섬세하다",
    );
    // Short negation under the adverb reverses: 꽤 좋았다 → 꽤 안 좋았다.
    let f = Flipper::load().unwrap();
    let c = f.candidates("음악이 꽤 좋았다");
    assert_eq!(c.flips[0].1.text, "음악이 꽤 안 좋았다", "{c:?}");
    assert!(
        c.flips.iter().all(|(r, _)| *r != "negation.add_long"),
        "{c:?}"
    );
}

#[test]
fn removing_mot_is_stopped_and_removing_an_stays() {
    holds(
        "negation.guard_inability",
        "이건 완전 못 보겠다",
        "스토리가 안 재밌어요",
    );
}

#[test]
fn an_intensifier_prefix_stops_long_negation() {
    holds(
        "negation.guard_degree_long",
        "대박재밌다 ㅋㅋㅋ",
        "재밌다 ㅋㅋㅋ",
    );
}

#[test]
fn a_face_after_the_predicate_stops_the_flip() {
    holds("negation.guard_face", "역겹다 ㅡㅡ", "역겹다 ㅠㅠ");
    holds("negation.guard_face", "영화 좋아요!^^", "영화 좋아요!");
}

#[test]
fn a_coordinated_or_reason_clause_that_evaluates_stops_the_flip() {
    holds(
        "negation.guard_coordinated",
        "모험 이야기 흥미롭고 유쾌하다.",
        "모험 이야기 길고 유쾌하다.",
    );
    holds(
        "negation.guard_coordinated",
        "이야기가 훈훈해서 너무 좋았어요",
        "이야기가 길고 너무 좋았어요",
    );
}

#[test]
fn a_superlative_or_approximator_stops_long_negation() {
    holds("negation.guard_degree_long", "거의 완벽하다.", "완벽하다.");
    holds(
        "negation.guard_degree_long",
        "넘재미있었습니다...",
        "재미있었습니다...",
    );
}

#[test]
fn a_comparison_before_the_predicate_stops_the_flip() {
    holds(
        "negation.guard_comparison",
        "솔직히 영화보단 드라마가 재밌네요ㅋㅋㅋ",
        "솔직히 드라마가 재밌네요ㅋㅋㅋ",
    );
}

#[test]
fn a_reason_clause_stops_the_flip() {
    holds(
        "negation.guard_reason",
        "귀여워서 보기좋았다ㅎㅎ",
        "보기좋았다ㅎㅎ",
    );
}

#[test]
fn a_universal_quantifier_stops_long_negation() {
    holds(
        "negation.guard_degree_long",
        "비주얼 스토리 모두 완벽하다.",
        "비주얼 스토리가 완벽하다.",
    );
}

#[test]
fn a_contracted_concession_stops_the_flip() {
    holds(
        "negation.guard_contrast",
        "팬인 내가 봐도 노잼..",
        "내가 보기에 노잼..",
    );
}

#[test]
fn an_irregular_coordinated_evaluation_stops_the_flip() {
    holds(
        "negation.guard_coordinated",
        "반전도 흥미로웠고 연기도 최고였음",
        "반전도 있었고 연기도 최고였음",
    );
}

#[test]
fn clipped_review_endings_share_their_predicates_stem() {
    let f = Flipper::load().unwrap();
    for w in [
        "재미없음",
        "재미없네",
        "재미없어",
        "재미없었음",
        "재미없다",
        "재미없었어요",
    ] {
        assert_eq!(f.stem(w).as_deref(), Some("재미없"), "{w}");
    }
    assert_eq!(f.stem("지루함").as_deref(), Some("지루하"));
    assert_eq!(f.stem("노잼"), None);
}

#[test]
fn a_hedging_degree_word_outside_the_common_list_stops_long_negation() {
    holds(
        "negation.guard_degree_long",
        "쫌 유치하다",
        "결말이 유치하다",
    );
    holds("negation.guard_degree_long", "완젼좋아요", "완벽해요");
    // 다 run into the predicate makes a partial negation (다재밌지 않아요: not all fun).
    holds(
        "negation.guard_degree_long",
        "SF 영화는 다재밌어요",
        "SF 영화는 유치해요",
    );
}

#[test]
fn a_bare_boda_comparison_stops_the_flip() {
    holds(
        "negation.guard_comparison",
        "화씨911보다 깔끔하다.",
        "화면이 깔끔하다.",
    );
}

#[test]
fn an_evaluative_adverb_or_modifier_in_the_head_stops_the_flip() {
    holds(
        "negation.guard_coordinated",
        "만족스럽게 재미있었음",
        "오랜만에 재미있었음",
    );
    holds(
        "negation.guard_coordinated",
        "수준낮은영화 한심하다",
        "감독이 한심하다",
    );
    holds(
        "negation.guard_coordinated",
        "아름다운 화면 지루하다",
        "화면이 지루하다",
    );
}

#[test]
fn a_judgement_kept_in_the_head_stops_the_flip() {
    let g = "negation.guard_head_judgement";
    holds(g, "굳 재밌어요!", "오늘 재밌어요!");
    holds(g, "아 백점만점애 백점 너무 재밌다", "아 너무 재밌다");
    holds(g, "미안해 재미없어.......", "영화가 재미없어.......");
    holds(
        g,
        "이영화를 왜받나할정도로 너무 지루합니다.",
        "이영화는 너무 지루합니다.",
    );
    holds(g, "아이가 배우는것도있고 좋아요", "아이와 보기 좋아요");
}

#[test]
fn a_criticism_ending_in_anil_tende_stops_the_flip() {
    holds(
        "negation.guard_negated_sentence",
        "대중이 바란건 이런게 아닐텐데~ 기왕 로맨스를 다룰거면 제대로 하던지 정말 지루하네요.",
        "기왕 로맨스를 다룰거면 정말 지루하네요.",
    );
    holds(
        "negation.guard_contrast",
        "원작은 좋았을텐데 영화는 지루하네요.",
        "원작도 영화도 지루하네요.",
    );
}

#[test]
fn a_word_that_begins_like_a_degree_prefix_is_no_prefix() {
    holds(
        "negation.guard_degree_long",
        "SF 영화는 다재밌어요",
        "볼거리가 다양하다",
    );
    holds(
        "negation.guard_degree_long",
        "SF 영화는 다유치해요",
        "주인공이 다정하다",
    );
}
