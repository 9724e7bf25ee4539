//! Every example of rules/negation.toml and rules/antonyms.toml, and the round trip: a
//! sentence flipped by an invertible rule and flipped back is the original.

use kcurate_core::rules::parse_rules;
use kcurate_tasks::challenge::flip::{ANTONYMS_TOML, Flipper, NEGATION_TOML, apply};
use proptest::prelude::*;

#[test]
fn every_rule_example_holds() {
    let f = Flipper::load().unwrap();
    for (path, text) in [
        ("rules/negation.toml", NEGATION_TOML),
        ("rules/antonyms.toml", ANTONYMS_TOML),
    ] {
        for r in parse_rules(std::path::Path::new(path), text).unwrap() {
            let kind = r
                .params
                .get("kind")
                .and_then(|k| k.as_str())
                .unwrap_or("antonym");
            for ex in &r.examples {
                if kind == "guard" {
                    let c = f.candidates(&ex.text);
                    let stopped = c.stopped.iter().any(|(g, _)| *g == r.id);
                    assert_eq!(
                        stopped,
                        ex.expect.as_deref() == Some("<stopped>"),
                        "{}: {:?} (flips {:?}, stopped {:?})",
                        r.id,
                        ex.text,
                        c.flips,
                        c.stopped
                    );
                    if stopped {
                        assert!(
                            c.flips.iter().all(|(_, fl)| !fl.adds_negation),
                            "{}: {:?} still gets a negation added: {:?}",
                            r.id,
                            ex.text,
                            c.flips
                        );
                    }
                    continue;
                }
                assert_eq!(
                    f.flip(kind, &ex.text).map(|x| x.text).as_deref(),
                    ex.expect.as_deref(),
                    "{}: {:?}",
                    r.id,
                    ex.text
                );
            }
        }
    }
}

#[test]
fn add_and_remove_long_negation_are_inverses_on_the_examples() {
    let f = Flipper::load().unwrap();
    for t in [
        "좋다",
        "배우 연기가 좋았어요ㅠㅠ",
        "결말이 재미있습니다.",
        "음악이 정말 좋네요!!",
        "감독님 연출이 훌륭하세요",
    ] {
        let neg = apply("add_long", t, &f.antonyms).unwrap();
        assert_eq!(
            apply("remove_long", &neg, &f.antonyms).as_deref(),
            Some(t),
            "{t} → {neg}"
        );
    }
}

proptest! {
    #[test]
    fn invertible_flips_round_trip(
        head in prop::sample::select(vec!["", "정말 ", "스토리가 ", "배우 연기가 너무 "]),
        word in prop::sample::select(vec!["좋다", "좋아요", "좋았다", "좋았어요", "좋습니다", "재미있다", "재미있었어요", "지루했다", "훌륭하다", "최고였다", "재미없다"]),
        tail in prop::sample::select(vec!["", ".", "!!", "ㅋㅋ", " ㅠㅠ"]),
    ) {
        let f = Flipper::load().unwrap();
        let text = format!("{head}{word}{tail}");
        for (id, kind, invertible) in &f.rules {
            if !invertible {
                continue;
            }
            if let Some(flipped) = f.flip(kind, &text).map(|x| x.text) {
                let back = match kind.as_str() {
                    "add_long" => apply("remove_long", &flipped, &f.antonyms),
                    "add_short" => apply("remove_short", &flipped, &f.antonyms),
                    "remove_long" => apply("add_long", &flipped, &f.antonyms),
                    _ => apply(kind, &flipped, &f.antonyms),
                };
                prop_assert_eq!(back.as_deref(), Some(text.as_str()), "{}: {} → {}", id, text, flipped);
            }
        }
    }
}
