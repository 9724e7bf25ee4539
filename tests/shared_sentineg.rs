//! SentiNeg over the real NSMC sentences (run by `make test-shared`): the parent release of
//! configs/nsmc-wikinews.toml, then configs/challenge-sentineg-nsmc.toml. Checks the flip
//! counts by kind, that the guards hold on every flip, that the sentence-level polarity model
//! dropped base labels it did not confirm, and the judged precision of a read sample of 51
//! flips (tests/fixtures/judgements/challenge-sentineg-nsmc.tsv) in the manifest and card.

mod common;
use common::*;
use std::collections::BTreeMap;

fn rows(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut v = Vec::new();
    for split in ["validation", "test"] {
        for l in std::fs::read_to_string(dir.join(format!("sentineg/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            v.push(serde_json::from_str(l).unwrap());
        }
    }
    v
}

/// A word that is a negation (안, 못) or holds one (않, 없, 아니).
fn negated(text: &str) -> bool {
    text.split_whitespace()
        .any(|w| w == "안" || w == "못" || ["않", "없", "아니"].iter().any(|n| w.contains(n)))
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sentineg_over_nsmc_flips_meaning_with_guards_and_read_precision() {
    let (out, parent) = run_recipe("configs/nsmc-wikinews.toml", "0");
    let recipe = "configs/challenge-sentineg-nsmc.toml";
    let (_, dir) = challenge(&parent, recipe, out.path(), &[]);
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
    let m = manifest(&dir);
    let st = m["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "sentineg")
        .unwrap();
    let count = |rule: &str, what: &str| st["rules"][rule][what].as_u64().unwrap_or(0);
    let rs = rows(&dir);
    let mut by_rule: BTreeMap<String, usize> = BTreeMap::new();
    for r in &rs {
        *by_rule
            .entry(r["flip_rule"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    eprintln!(
        "NSMC SentiNeg flips by rule {by_rule:?}; stage rules {}",
        st["rules"]
    );
    // Branch tasks-sentineg at 5b40ce7 gave 200 flips (antonym 79, add_long 78, add_short 43);
    // main at e65004c (this branch's base) gave 993, 825 of them (83%) long negation appended.
    let n = rs.len();
    assert!((150..=400).contains(&n), "{n} flips");
    let long = by_rule.get("negation.add_long").copied().unwrap_or(0);
    assert!(long * 2 < n, "long negation is {long} of {n} flips");
    assert!(by_rule.get("negation.add_short").copied().unwrap_or(0) > 20);
    // Each guard and each check of the base label acted on real sentences.
    for rule in [
        "negation.guard_negated_predicate",
        "negation.guard_non_evaluative",
        "negation.guard_negated_sentence",
        "negation.guard_polarity_item",
        "negation.guard_repeated_predicate",
        "challenge.polarity_disagrees",
        "challenge.polarity_unsure",
        "challenge.predicate_neutral",
        "challenge.head_polar",
    ] {
        assert!(count(rule, "drop") > 0, "{rule} dropped nothing");
    }
    // The guards hold: no negation was added to a sentence already negated, and no flip left
    // a double negation.
    for r in &rs {
        let (orig, text) = (r["original"].as_str().unwrap(), r["text"].as_str().unwrap());
        let rule = r["flip_rule"].as_str().unwrap();
        assert_ne!(r["label"], r["original_label"], "{r}");
        if rule.starts_with("negation.add_") {
            assert!(!negated(orig), "{rule} on a negated sentence: {r}");
        }
        let negations = text.matches("않").count()
            + text
                .split_whitespace()
                .filter(|w| *w == "안" || *w == "못")
                .count();
        assert!(negations <= 1, "double negation: {r}");
    }
    // The read sample: every judged flip is in this release, with the rule judged; 46 of 51
    // read flips were correct, and the card carries each rule's precision.
    let fixture = std::fs::read_to_string(
        repo().join("tests/fixtures/judgements/challenge-sentineg-nsmc.tsv"),
    )
    .unwrap();
    let ids: BTreeMap<&str, &str> = rs
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["flip_rule"].as_str().unwrap()))
        .collect();
    let mut judged = 0;
    for l in fixture.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(
            ids.get(f[0]).copied(),
            Some(f[2]),
            "judged flip {} is not in the release as {}: the judgements are stale, sample and read again",
            f[0],
            f[2]
        );
        judged += 1;
    }
    assert!(judged >= 50, "{judged} judged");
    let rp = m["rule_precision"].as_object().unwrap();
    let (k, n): (u64, u64) = rp.values().fold((0, 0), |(k, n), v| {
        (
            k + v["correct"].as_u64().unwrap(),
            n + v["judged"].as_u64().unwrap(),
        )
    });
    assert_eq!(n, judged);
    assert!(k as f64 / n as f64 >= 0.9, "{k}/{n} read flips correct");
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        card.contains("rule negation.add_short: 17/17 correct"),
        "{card}"
    );
}
