//! Runs every example of `rules/toxicity.toml`: an `expect = "<drop>"` example is matched by
//! its own rule (and the lexicon drops it with that rule's id, or an earlier rule's); any
//! other example is matched by no rule of the file.

use kcurate_toxicity::lexicon::Lexicon;
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
                assert!(lex.find(&ex.text).is_some());
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
    }
    assert!(n >= 20);
}

#[test]
fn a_hit_names_its_rule_and_term() {
    let lex = Lexicon::load(path()).unwrap();
    let h = lex.find("평론가는 무시해라 좌빨들 영화").unwrap();
    assert_eq!(h.rule.id, "toxicity.slur_political_v2");
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
