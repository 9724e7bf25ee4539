//! SentiNeg over the real NSMC sentences (run by `make test-shared`): the parent release of
//! configs/nsmc-wikinews.toml, then configs/challenge-sentineg-nsmc.toml. Checks the flip
//! counts by kind, that the guards hold on every flip, that the sentence-level polarity model
//! dropped base labels it did not confirm, the label balance and predicate cap, the judged
//! precision of a read sample of flips (tests/fixtures/judgements/challenge-sentineg-nsmc.tsv)
//! in the manifest and card, and the reading of 40 flips on a held-out parent split
//! (tests/fixtures/judgements/challenge-sentineg-nsmc-heldout.tsv).

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
#[allow(
    clippy::too_many_lines,
    reason = "one run over a real corpus is checked figure by figure; a test per figure would rerun it"
)]
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
    // The label balance (no label over 60%) and the predicate cap (15%) keep a few dozen of
    // the flips the rules make on this split; every kind of rule still contributes.
    let n = rs.len();
    assert!((20..=120).contains(&n), "{n} flips");
    let long = by_rule.get("negation.add_long").copied().unwrap_or(0);
    assert!(long * 2 < n, "long negation is {long} of {n} flips");
    assert!(by_rule.get("negation.add_short").copied().unwrap_or(0) > 3);
    assert!(by_rule.get("antonym.lexicon").copied().unwrap_or(0) > 3);
    shares_hold(&rs, &m, 0.6, 0.15);
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
        "challenge.label_balance",
        "negation.guard_contrast",
        "negation.guard_evaluative_stem",
        "negation.guard_run_on",
        "negation.guard_rating_talk",
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
    // The read sample: every judged flip is in this release with the rule judged, or left it
    // with a decision (the balance, the cap or a guard cut it); the manifest and card count
    // the judged flips that remain.
    let fixture = std::fs::read_to_string(
        repo().join("tests/fixtures/judgements/challenge-sentineg-nsmc.tsv"),
    )
    .unwrap();
    let ids: BTreeMap<&str, &str> = rs
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["flip_rule"].as_str().unwrap()))
        .collect();
    let decided = decided_items(&dir);
    let (mut judged, mut present) = (0, 0);
    let mut per_rule: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for l in fixture.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        judged += 1;
        match ids.get(f[0]).copied() {
            Some(rule) => {
                assert_eq!(rule, f[2], "judged flip {} changed rule", f[0]);
                present += 1;
                let e = per_rule.entry(f[2].to_string()).or_default();
                e.0 += u64::from(f[4] == "correct");
                e.1 += 1;
            }
            None => assert!(
                decided.contains(f[0]),
                "judged flip {} is neither in the release nor decided",
                f[0]
            ),
        }
    }
    assert!(judged >= 50, "{judged} judged");
    assert!(present > 0, "no judged flip remains");
    let rp = m["rule_precision"].as_object().unwrap();
    let (k, n): (u64, u64) = rp.values().fold((0, 0), |(k, n), v| {
        (
            k + v["correct"].as_u64().unwrap(),
            n + v["judged"].as_u64().unwrap(),
        )
    });
    assert_eq!(n, present);
    assert!(k as f64 / n as f64 >= 0.9, "{k}/{n} read flips correct");
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for (rule, (k, n)) in &per_rule {
        assert!(
            card.contains(&format!("rule {rule}: {k}/{n} correct")),
            "{card}"
        );
    }
}

/// Items the release's decisions name (drops and edits).
fn decided_items(dir: &std::path::Path) -> std::collections::BTreeSet<String> {
    std::fs::read_to_string(dir.join("audit/decisions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let d: serde_json::Value = serde_json::from_str(l).unwrap();
            d["item"].as_str().unwrap().to_string()
        })
        .collect()
}

/// No label over `label_share` of the rows and no predicate made over `predicate_share`
/// (counted by the cut decisions' keys: here, by the flipped sentence's final word stem's
/// most common form 재미없); the manifest's distribution is the rows'.
fn shares_hold(
    rs: &[serde_json::Value],
    m: &serde_json::Value,
    label_share: f64,
    predicate_share: f64,
) {
    let n = rs.len() as f64;
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    for r in rs {
        *labels
            .entry(r["label"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    eprintln!("SentiNeg labels {labels:?}");
    assert_eq!(labels.len(), 2, "{labels:?}");
    for (l, c) in &labels {
        assert!(*c as f64 <= label_share * n, "{l}: {c} of {n}");
    }
    let dist = &m["metrics"]["sentineg"]["label_distribution"];
    for (l, c) in &labels {
        assert_eq!(dist[l].as_u64(), Some(*c), "{dist}");
    }
    // The predicate the brief named: flips that make 재미없 stay under the cap (one key per
    // form family, so a count by text is an upper bound for the key's).
    let made = rs
        .iter()
        .filter(|r| {
            let (o, t) = (r["original"].as_str().unwrap(), r["text"].as_str().unwrap());
            t.contains("재미없") && !o.contains("재미없")
        })
        .count() as f64;
    assert!(
        made <= predicate_share * n + 1.0,
        "재미없 made {made} of {n}"
    );
}

/// The recipe over the parent's train split (no judgement file used it): balanced labels and
/// the reading of 40 flips as recorded (35 of 40; the 0.9 aimed at is not reached, and the
/// test holds the recorded figure so a change that lowers it fails).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sentineg_on_a_held_out_parent_split_is_balanced_and_read() {
    let (out, parent) = run_recipe("configs/nsmc-wikinews.toml", "0");
    let recipe = "configs/challenge-sentineg-nsmc-train.toml";
    let (_, dir) = challenge(&parent, recipe, out.path(), &[]);
    let m = manifest(&dir);
    let rs = rows(&dir);
    eprintln!("held-out SentiNeg: {} flips", rs.len());
    assert!(rs.len() >= 200, "{} flips", rs.len());
    shares_hold(&rs, &m, 0.6, 0.15);
    let by_id: BTreeMap<&str, &serde_json::Value> =
        rs.iter().map(|r| (r["id"].as_str().unwrap(), r)).collect();
    let text = std::fs::read_to_string(
        repo().join("tests/fixtures/judgements/challenge-sentineg-nsmc-heldout.tsv"),
    )
    .unwrap();
    // A flip read on an earlier build of the parent can be gone from this one (the parent's
    // splitter and filters moved its sentence): it is counted as stale, and at most a few
    // may be; the file's recorded figure counts every row it holds.
    let (mut n, mut right, mut stale) = (0, 0, 0);
    for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        n += 1;
        right += usize::from(f[4] == "correct");
        let Some(r) = by_id.get(f[0]) else {
            eprintln!("read flip {} is not in this release (stale)", f[0]);
            stale += 1;
            continue;
        };
        assert_eq!(r["flip_rule"].as_str(), Some(f[1]), "{}", f[0]);
        assert_eq!(r["original_label"].as_str(), Some(f[2]), "{}", f[0]);
        assert_eq!(r["label"].as_str(), Some(f[3]), "{}", f[0]);
    }
    assert_eq!(n, 40);
    assert!(
        stale <= 8,
        "{stale} of the 40 read flips are gone from the release"
    );
    eprintln!("held-out SentiNeg read: {right}/40 correct, {stale} stale");
    assert!(text.contains(&format!("heldout: {right} of 40 correct")));
    assert!(right >= 35, "{right}/40");
}
