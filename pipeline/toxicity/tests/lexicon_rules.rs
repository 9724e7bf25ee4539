//! Runs every example of `rules/toxicity.toml`: an `expect = "<drop>"` example is a use of its
//! own rule (the lexicon drops it with that rule's id); `"<mention>"` is only a mention of its
//! own rule (kept and flagged); any other example is matched by no rule of the file.

use kcurate_toxicity::lexicon::{Finding, Lexicon};
use std::path::Path;

fn path() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../rules/toxicity.toml"
    ))
}

#[test]
fn every_example_of_the_lexicon_holds() {
    let defs = kcurate_core::rules::load_rules(path()).expect("rules/toxicity.toml loads");
    let lex = Lexicon::from_defs(path(), &defs).expect("patterns compile");
    assert!(defs.len() >= 8, "{} rules", defs.len());
    let mut n = 0;
    for (d, r) in defs.iter().zip(&lex.rules) {
        let mut drops = 0;
        for ex in &d.examples {
            let expect = ex.expect.as_deref().expect("every example has expect");
            n += 1;
            if expect == "<drop>" {
                drops += 1;
                assert!(
                    r.re.is_match(&ex.text.to_lowercase()),
                    "{}: {:?} should hit",
                    d.id,
                    ex.text
                );
                let hit = lex.find(&ex.text).map(|h| h.rule.id.clone());
                assert_eq!(hit.as_deref(), Some(d.id.as_str()), "{:?}", ex.text);
            } else if expect == "<mention>" {
                match lex.scan(&ex.text) {
                    Some(Finding::Mention(h)) => assert_eq!(h.rule.id, d.id, "{:?}", ex.text),
                    other => panic!("{}: {:?} should be a mention: {other:?}", d.id, ex.text),
                }
            } else {
                assert_eq!(
                    expect, ex.text,
                    "{}: a kept example expects its own text",
                    d.id
                );
                let hit = lex.find(&ex.text).map(|h| h.rule.id.clone());
                assert_eq!(hit, None, "{}: {:?} should not hit", d.id, ex.text);
            }
        }
        assert!(drops > 0, "{}: no positive example", d.id);
        assert!(drops < d.examples.len(), "{}: no negative example", d.id);
        for rv in d
            .params
            .get("review")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let nsmc = rv.get("nsmc").and_then(|v| v.as_str());
            let want = rv.get("expect").and_then(|v| v.as_str());
            assert!(
                nsmc.is_some_and(|n| n.contains(".json:"))
                    && matches!(want, Some("use" | "mention" | "none")),
                "{}: a [[rule.review]] names nsmc = \"<file>.json:<review_id>\" and expect = use, mention or none: {rv:?}",
                d.id
            );
        }
    }
    assert!(n >= 20);
}

#[test]
fn a_hit_names_its_rule_and_term() {
    let lex = Lexicon::load(path()).unwrap();
    let h = lex.find("평론가는 무시해라 좌빨들 영화").unwrap();
    assert_eq!(h.rule.id, "toxicity.slur_political_v3");
    assert_eq!(h.term, "좌빨");
    assert_eq!((h.start, h.end), (10, 12));
    // A mention (what someone is called) is not a hit; a use later in the text is.
    assert!(lex.find("이런 영화 만들면 또 좌좀 소리 듣겠지").is_none());
    let h = lex
        .find("좌좀 소리 듣기 싫으면 좌좀들은 보지 마라")
        .unwrap();
    assert_eq!((h.start, h.end), (13, 15));
    assert!(lex.find("여주 연기 좋다").is_none());
}

/// A slur quoted, criticised or reported is a mention; the same text aiming it at people
/// later is a use, and a use in any rule wins over a mention in an earlier one.
#[test]
fn a_mention_is_kept_for_review_and_a_use_still_drops() {
    let lex = Lexicon::load(path()).unwrap();
    let m = lex.scan("그 시절 사람들을 빨갱이로 몰아붙이던 사회");
    assert!(
        matches!(&m, Some(Finding::Mention(h)) if h.rule.id == "toxicity.slur_political_v3"),
        "{m:?}"
    );
    assert!(
        lex.find("그 시절 사람들을 빨갱이로 몰아붙이던 사회")
            .is_none()
    );
    for quoted in [
        "'빨갱이' 소리를 듣던 아버지",
        "\"김치녀\"라는 말이 싫다",
        "김치녀(?) 얘기",
    ] {
        assert!(
            matches!(lex.scan(quoted), Some(Finding::Mention(_))),
            "{quoted}"
        );
    }
    let h = lex
        .find("빨갱이로 몰아붙이는 영화라니 이런 빨갱이들이 만든 영화")
        .unwrap();
    assert_eq!(h.rule.id, "toxicity.slur_political_v3");
    assert_eq!(h.term, "빨갱이");
    assert_eq!(h.start, 19);
    let h = lex.find("김치녀(?) 타령하는 평론가 새끼들").unwrap();
    assert_eq!(h.rule.id, "toxicity.insult_at_people");
}

#[test]
fn a_bad_rule_file_names_the_rule() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("t.toml");
    std::fs::write(
        &p,
        "[[rule]]\nid = \"toxicity.x\"\ndescription = \"x\"\nclass = \"rude\"\npattern = \"a\"\n[[rule.example]]\ntext = \"a\"\nexpect = \"<drop>\"\n",
    )
    .unwrap();
    let e = Lexicon::load(&p).err().unwrap().to_string();
    assert!(e.contains("toxicity.x") && e.contains("class"), "{e}");
    std::fs::write(
        &p,
        "[[rule]]\nid = \"toxicity.x\"\ndescription = \"x\"\nclass = \"hate\"\npattern = \"(\"\n[[rule.example]]\ntext = \"a\"\nexpect = \"<drop>\"\n",
    )
    .unwrap();
    let e = Lexicon::load(&p).err().unwrap().to_string();
    assert!(e.contains("toxicity.x") && e.contains("pattern"), "{e}");
}
