//! Runs every example of `rules/noise.toml`: the rule under test (and `noise.blank`, which
//! tidies the blanks an edit leaves) turns `text` into `expect`, or drops it (`<drop>`).
//! News-scoped rules run with the news setting on.

use kcurate_text::noise::{BLANK_RULE, NoiseOutcome, NoiseRules};
use std::path::Path;

#[test]
fn every_noise_rule_example_passes() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../rules/noise.toml"
    ));
    let defs = kcurate_core::rules::load_rules(path).expect("rules/noise.toml loads");
    let all = NoiseRules::from_defs(path, &defs).expect("rules compile");
    let mut failures = Vec::new();
    let mut n = 0;
    for d in &defs {
        assert!(d.examples.len() >= 3, "{}: needs at least 3 examples", d.id);
        let mut rules = all.clone();
        rules.retain(|id| id == d.id || id == BLANK_RULE);
        for ex in &d.examples {
            n += 1;
            let expect = ex
                .expect
                .as_deref()
                .unwrap_or_else(|| panic!("{}: example without expect", d.id));
            let got = match rules.apply(&ex.text, true) {
                NoiseOutcome::Unchanged => ex.text.clone(),
                NoiseOutcome::Kept { text, .. } => text,
                NoiseOutcome::Dropped { rule, .. } => {
                    assert_eq!(rule, d.id, "dropped by another rule");
                    "<drop>".to_string()
                }
            };
            if got != expect {
                failures.push(format!(
                    "{}: {:?} → {:?}, expected {:?}",
                    d.id, ex.text, got, expect
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} examples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(n >= 3 * defs.len());
}

#[test]
fn news_rules_only_on_news_sources() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../rules/noise.toml"
    ));
    let rules = NoiseRules::load(path).expect("loads");
    let t = "(서울=연합뉴스) 홍길동 기자 = 정부가 발표했다. #속보";
    let news = match rules.apply(t, true) {
        NoiseOutcome::Kept { text, edits } => {
            assert!(edits.iter().any(|e| e.rule == "noise.news_press_tag"));
            text
        }
        o => panic!("{o:?}"),
    };
    assert_eq!(news, "정부가 발표했다.");
    let other = match rules.apply(t, false) {
        NoiseOutcome::Kept { text, .. } => text,
        o => panic!("{o:?}"),
    };
    assert_eq!(other, "(서울=연합뉴스) 홍길동 기자 = 정부가 발표했다.");
}
