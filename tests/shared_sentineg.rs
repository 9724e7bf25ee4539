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
    guards_hold(&rs);
    read_sample_holds(&dir, &rs, &m);
}

/// The guards hold: no negation was added to a sentence already negated, and no flip left a
/// double negation.
fn guards_hold(rs: &[serde_json::Value]) {
    for r in rs {
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
}

/// The read sample: every judged flip is in this release with the rule judged, or left it
/// with a decision (the balance, the cap or a guard cut it); the manifest and card count the
/// judged flips that remain.
fn read_sample_holds(dir: &std::path::Path, rs: &[serde_json::Value], m: &serde_json::Value) {
    let fixture = std::fs::read_to_string(
        repo().join("tests/fixtures/judgements/challenge-sentineg-nsmc.tsv"),
    )
    .unwrap();
    let ids: BTreeMap<&str, &str> = rs
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["flip_rule"].as_str().unwrap()))
        .collect();
    let decided = decided_items(dir);
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

/// What a judgement file's rows make of a release: how many were read, how many of them the
/// release still makes (with the rule and labels read), how many of those read right, and
/// how many it no longer makes (stale: a later change stopped or cut them).
#[derive(Debug, Default)]
struct Reading {
    read: usize,
    right: usize,
    present: usize,
    still_right: usize,
    stale: usize,
}

/// Matches the rows of a judgement file (item, rule, original_label, label, judgement, ...)
/// against the release's rows.
fn reading(text: &str, rs: &[serde_json::Value]) -> Reading {
    let by_id: BTreeMap<&str, &serde_json::Value> =
        rs.iter().map(|r| (r["id"].as_str().unwrap(), r)).collect();
    let mut g = Reading::default();
    for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let correct = f[4] == "correct";
        g.read += 1;
        g.right += usize::from(correct);
        let Some(r) = by_id.get(f[0]) else {
            eprintln!("read flip {} is not in this release (stale)", f[0]);
            g.stale += 1;
            continue;
        };
        assert_eq!(r["flip_rule"].as_str(), Some(f[1]), "{}", f[0]);
        assert_eq!(r["original_label"].as_str(), Some(f[2]), "{}", f[0]);
        assert_eq!(r["label"].as_str(), Some(f[3]), "{}", f[0]);
        g.present += 1;
        g.still_right += usize::from(correct);
    }
    eprintln!("{g:?}");
    g
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/fixtures/judgements").join(name)).unwrap()
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
    // A flip read on an earlier build of the parent can be gone from this one (the parent's
    // splitter and filters moved its sentence, a guard stops it, or the seeded balance cuts
    // it): it is counted as stale, and at most some may be; the file's recorded figure
    // counts every row it holds.
    let text = fixture("challenge-sentineg-nsmc-heldout.tsv");
    let g = reading(&text, &rs);
    assert_eq!(g.read, 40);
    // Of the read flips the release still makes, at least 90% read right.
    assert!(
        g.still_right * 10 >= g.present * 9,
        "{}/{} still made read right",
        g.still_right,
        g.present
    );
    // Stale: the file's header says which were stale when the guards stopped them (10); the
    // seeded balance, which cuts the larger label in a seeded order rather than predicate by
    // predicate, leaves others out, so up to half may be.
    assert!(g.stale <= 20, "{} of the 40 read flips are gone", g.stale);
    assert!(text.contains(&format!("heldout: {} of 40 correct", g.right)));
    assert!(g.right >= 35, "{}/40", g.right);
}

/// A fresh held-out parent: its salt (fixed before any run over it), the directory under
/// target/ the recipe reads, and its judgement file.
struct Fresh {
    salt: &'static str,
    dir: &'static str,
    recipe: &'static str,
    fixture: &'static str,
}

/// The bucket of a fresh held-out parent: a review whose id hashes (with the salt) to a first
/// hex digit of c to f, a quarter of the reviews.
fn fresh_bucket(salt: &str, review: &str) -> bool {
    let h = kcurate_core::hash::sha256_hex(format!("{salt}/{review}").as_bytes());
    matches!(h.as_bytes()[0], b'c'..=b'f')
}

/// The review id of a parent sentence id (`nsmc-<review>-s000`).
fn review_of(id: &str) -> &str {
    id.split('-').nth(1).unwrap_or("")
}

/// Writes a fresh held-out parent where its recipe reads it (target/<dir>/): the parent
/// release's NSMC sentences of every split whose review is in [`fresh_bucket`] and not
/// `excluded` (the reviews some tests/fixtures file named when the slice was drawn, frozen in
/// the judgement file), and the parent's train split less the bucket's reviews (the polarity
/// model's training set). Returns both files' line counts.
fn write_fresh_parent(
    fresh: &Fresh,
    parent: &std::path::Path,
    excluded: &[&str],
) -> (usize, usize) {
    let dir = repo().join("target").join(fresh.dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (mut slice, mut train) = (String::new(), String::new());
    let (mut n, mut t) = (0, 0);
    for split in ["train", "validation", "test"] {
        let text =
            std::fs::read_to_string(parent.join(format!("sentences/{split}.jsonl"))).unwrap();
        for l in text.lines() {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let review = review_of(r["id"].as_str().unwrap());
            let picked = r["source"] == "nsmc" && fresh_bucket(fresh.salt, review);
            if picked && !excluded.contains(&review) {
                slice.push_str(l);
                slice.push('\n');
                n += 1;
            }
            if split == "train" && !picked {
                train.push_str(l);
                train.push('\n');
                t += 1;
            }
        }
    }
    std::fs::write(dir.join("sentences.jsonl"), slice).unwrap();
    std::fs::write(dir.join("train.jsonl"), train).unwrap();
    (n, t)
}

/// Builds the recipe of a fresh parent (its slice written first, checked against the counts
/// its judgement file records) and checks no label over 60% and the 재미없 cap; returns the
/// judgement file, the reading of its rows, and the release's flips.
fn fresh_release(fresh: &Fresh) -> (String, Reading, usize) {
    let (out, parent) = run_recipe("configs/nsmc-wikinews.toml", "0");
    let text = fixture(fresh.fixture);
    let excluded: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# excluded:"))
        .flat_map(|l| l.split_whitespace())
        .collect();
    assert!(excluded.len() > 500, "{} excluded reviews", excluded.len());
    let (n, t) = write_fresh_parent(fresh, &parent, &excluded);
    eprintln!(
        "fresh parent {}: {n} sentences, polarity training {t}",
        fresh.salt
    );
    assert!(
        text.contains(&format!(
            "slice: {n} sentences; polarity training {t} sentences"
        )),
        "the slice is not the one read: {n}, {t}"
    );
    let (_, dir) = challenge(&parent, fresh.recipe, out.path(), &[]);
    let rs = rows(&dir);
    eprintln!("fresh SentiNeg {}: {} flips", fresh.salt, rs.len());
    // The cap keys a flip by the predicate it made without the laughter after it, so the
    // flips that make 재미없, counted by text, stay under the recipe's 0.15.
    shares_hold(&rs, &manifest(&dir), 0.6, 0.15);
    let g = reading(&text, &rs);
    assert_eq!(g.read, 40);
    for l in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let id = l.split('\t').next().unwrap();
        assert!(!excluded.contains(&review_of(id)), "{id}");
    }
    (text, g, rs.len())
}

/// A reading made while rules were written from it (or before a later rule change): of the
/// read flips the release still makes, no smaller a share reads right than the `tag: <right>
/// of 40 correct` recorded in its header, and at most `max_stale` of them are gone.
fn tuned_reading_holds(text: &str, g: &Reading, tag: &str, max_stale: usize) {
    assert!(
        g.stale <= max_stale,
        "{} of the 40 read flips are gone",
        g.stale
    );
    assert!(text.contains(&format!("{tag}: {} of 40 correct", g.right)));
    assert!(
        g.still_right * 40 >= g.present * g.right,
        "{}/{} read right, recorded {}/40",
        g.still_right,
        g.present,
        g.right
    );
}

/// The flip count the header of a judgement file records last (its lines "…: N flips,
/// negative …"): a parent or rule change that moves the count adds a line saying why.
fn latest_flips(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| {
            l.split(" flips, negative")
                .next()
                .filter(|h| h.len() < l.len())
        })
        .filter_map(|h| h.rsplit(' ').next()?.parse().ok())
        .next_back()
        .expect("the header records the release's flips")
}

/// A reading drawn once after the rules were last changed and read blind: the release makes
/// the flip count its header records last, at most `max_stale` read flips are gone (a later
/// change of the parent, never of a SentiNeg rule, recorded in the header), the header's
/// `tag: <right> of 40 correct` is the count of `correct` rows, at least `min_right` of 40
/// read right, and of the read flips still made no smaller a share than `min_right` of 40.
fn blind_reading_holds(fresh: &Fresh, tag: &str, min_right: usize, max_stale: usize) {
    let (text, g, n) = fresh_release(fresh);
    assert_eq!(n, latest_flips(&text), "flips");
    assert!(
        g.stale <= max_stale,
        "{} read flips are gone: the reading no longer describes the release",
        g.stale
    );
    assert!(
        text.contains(&format!("{tag}: {} of 40 correct", g.right)),
        "the header does not record {} of 40 correct",
        g.right
    );
    assert!(g.right >= min_right, "{}/40", g.right);
    assert!(
        g.still_right * 40 >= g.present * min_right,
        "{}/{} read right",
        g.still_right,
        g.present
    );
}

/// The recipe over the first fresh held-out parent (configs/challenge-sentineg-nsmc-fresh.toml;
/// tests/fixtures/judgements/challenge-sentineg-nsmc-fresh.tsv, read while its rules were
/// written): of the read flips the release still makes, no smaller a share reads right than
/// the 33 of 40 recorded.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sentineg_on_a_fresh_parent_is_balanced_and_reads_right() {
    let (text, g, n) = fresh_release(&Fresh {
        salt: "sentineg-fresh-20261129",
        dir: "sentineg-fresh",
        recipe: "configs/challenge-sentineg-nsmc-fresh.toml",
        fixture: "challenge-sentineg-nsmc-fresh.tsv",
    });
    assert!(n >= 60, "{n} flips");
    // Stale: the guards written from this reading stop its five wrong add_long flips and one
    // wrong antonym flip, and the seeded balance (the larger label cut in a seeded order, no
    // longer predicate by predicate) leaves out others read right: 19 of 40 as built.
    tuned_reading_holds(&text, &g, "fresh", 20);
}

/// The recipe over the second fresh held-out parent (configs/challenge-sentineg-nsmc-fresh2.toml),
/// drawn once and read once (tests/fixtures/judgements/challenge-sentineg-nsmc-fresh2.tsv, 34
/// of 40 right); the head-judgement guard was written from its six wrong flips, so it is no
/// longer fresh: of the read flips the release still makes, no smaller a share reads right.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sentineg_on_a_second_fresh_parent_reads_as_recorded() {
    let (text, g, n) = fresh_release(&Fresh {
        salt: "sentineg-fresh-20261130",
        dir: "sentineg-fresh2",
        recipe: "configs/challenge-sentineg-nsmc-fresh2.toml",
        fixture: "challenge-sentineg-nsmc-fresh2.tsv",
    });
    assert_eq!(n, latest_flips(&text), "flips");
    // Stale: the head-judgement guards written from this reading stop its six wrong flips
    // and none of the 34 right; the parent's later toxicity drops change the polarity model's
    // training a little, and its seeded balance leaves out one more flip read right (7).
    tuned_reading_holds(&text, &g, "fresh2", 7);
}

/// The recipe over the third fresh held-out parent (configs/challenge-sentineg-nsmc-fresh3.toml),
/// drawn once after the rules were last changed, its 40 flips written unread
/// (tests/fixtures/judgements/challenge-sentineg-nsmc-fresh3.tsv) and read once by someone who
/// wrote none of the rules: 39 of 40 right, at least 36 (the 0.9 aimed at) kept.
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sentineg_on_a_third_fresh_parent_reads_as_recorded() {
    blind_reading_holds(
        &Fresh {
            salt: "sentineg-fresh-20261201",
            dir: "sentineg-fresh3",
            recipe: "configs/challenge-sentineg-nsmc-fresh3.toml",
            fixture: "challenge-sentineg-nsmc-fresh3.tsv",
        },
        "fresh3",
        36,
        // Read at 1745543; the parent's later toxicity drops change the polarity model's
        // training a little, and two flips read right are no longer made (see the header).
        2,
    );
}
