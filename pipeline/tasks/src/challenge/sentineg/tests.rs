//! The stage on toy records: guards, ranking, and the polarity model's checks.

use super::*;
use kcurate_core::Decision;
use kcurate_core::record::{Kind, Origin};

fn rec(i: usize, text: &str, label: &str) -> Record {
    Record {
        id: format!("s{i:03}"),
        kind: Kind::Sentence,
        source: "parent".into(),
        origin: Origin {
            file: "sentences/test.jsonl".into(),
            line: i as u64 + 1,
        },
        text: text.into(),
        label: Some(label.into()),
        ..Record::default()
    }
}

/// A toy polarity model: 재밌/좋/최고 positive, 지루/최악/별로 negative, 배우/영화 neutral.
fn model() -> Polarity {
    let mut d = Vec::new();
    for _ in 0..20 {
        for t in ["재밌어요", "좋았다", "최고", "재밌다 좋다", "배우", "영화"] {
            d.push((
                t.to_string(),
                !["배우", "영화"].contains(&t) || d.len() % 2 == 0,
            ));
        }
        for t in ["지루했다", "최악", "별로", "지루하고 최악", "배우", "영화"] {
            d.push((
                t.to_string(),
                ["배우", "영화"].contains(&t) && d.len() % 2 == 0,
            ));
        }
    }
    Polarity::train(&d, 3)
}

fn stage(polarity: Option<Polarity>) -> SentiNeg {
    let cfg: Config = toml::from_str(
        "positive = [\"10\"]\nnegative = [\"1\"]\nsentence_confidence = 0.7\npredicate_confidence = 0.6\nhead_confidence = 0.7",
    )
    .unwrap();
    SentiNeg {
        cfg,
        flipper: Flipper::load().unwrap(),
        polarity,
        verdicts: None,
        seed: 1,
    }
}

fn run(s: &SentiNeg, recs: Vec<Record>) -> (Vec<Record>, Vec<Decision>) {
    let mut out = Out::new("sentineg");
    CorpusStage::run(s, recs, &mut out);
    let (kept, d, _) = out.into_parts();
    (kept, d)
}

fn rule_of<'a>(d: &'a [Decision], item: &str) -> &'a str {
    d.iter().find(|x| x.item == item).unwrap().rule.as_str()
}

#[test]
fn guards_drop_with_their_own_rule_ids_and_the_best_ranked_flip_is_made() {
    let s = stage(None);
    let (kept, d) = run(
        &s,
        vec![
            rec(0, "정말 재미없다", "10"),
            rec(1, "보고 있어요", "10"),
            rec(2, "기대 안 했는데 정말 좋았다", "10"),
            rec(3, "연기가 좋았어요", "10"),
            rec(4, "결말이 깔끔했다", "10"),
            rec(5, "배우가 안 좋다", "1"),
        ],
    );
    // 재미없다 → 재미있다 (antonym) is a removal, so the predicate guard lets it through.
    assert_eq!(rule_of(&d, "s000"), "antonym.lexicon");
    assert_eq!(rule_of(&d, "s001"), "negation.guard_non_evaluative");
    assert_eq!(rule_of(&d, "s002"), "negation.guard_negated_sentence");
    // 좋았어요 has no antonym entry: short negation outranks long negation.
    assert_eq!(rule_of(&d, "s003"), "negation.add_short");
    assert_eq!(rule_of(&d, "s004"), "negation.add_long");
    assert_eq!(rule_of(&d, "s005"), "negation.remove_short_v2");
    let texts: Vec<&str> = kept.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "정말 재미있다",
            "연기가 안 좋았어요",
            "결말이 깔끔하지 않았다",
            "배우가 좋다"
        ]
    );
    assert_eq!(kept[3].label.as_deref(), Some("positive"));
}

#[test]
fn the_model_confirms_base_labels_predicates_and_heads() {
    let s = stage(Some(model()));
    let (kept, d) = run(
        &s,
        vec![
            rec(0, "영화 재밌어요", "10"),
            rec(1, "별로다 별로다 좋았다", "10"),
            rec(2, "좋다 좋았다 좋다 좋았다", "1"),
            // A head the lexicon of negation.guard_head_judgement does not hold, which the
            // model reads as positive.
            rec(3, "좋다 좋다 좋다 좋았다", "10"),
        ],
    );
    assert_eq!(kept.len(), 1, "{d:?}");
    assert_eq!(kept[0].text, "영화 재미없어요");
    assert_eq!(rule_of(&d, "s001"), "challenge.polarity_unsure");
    assert_eq!(rule_of(&d, "s002"), "challenge.polarity_disagrees");
    assert_eq!(rule_of(&d, "s003"), "challenge.head_polar");
    let sc = d.iter().find(|x| x.item == "s002").unwrap().score.unwrap();
    assert!(sc < 0.2, "{sc}");
}

/// The cap's key is the predicate made, without the laughter or face after it: 재미없어요 ㅎㅎ,
/// 재미없다ㅋ and 재미없음 are one key.
#[test]
fn the_cap_key_ignores_laughter_after_the_predicate() {
    let f = Flipper::load().unwrap();
    let key = |text: &str| {
        let (_, flip) = f.candidates(text).flips.remove(0);
        predicate_key(&made_predicate(&flip), |w| f.stem(w))
    };
    assert_eq!(key("스토리가 재밌어요 ㅎㅎ"), "재미없");
    assert_eq!(key("진짜 재밌다ㅋ"), "재미없");
    assert_eq!(key("재밌다."), "재미없");
}
