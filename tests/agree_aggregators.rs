//! `kcurate agree --aggregate one-coin|wawa|zero-based-skill|mace|glad|mmsr` against crowd-kit
//! 1.4.2's `OneCoinDawidSkene`, `Wawa`, `ZeroBasedSkill`, `MACE`, `GLAD` and `MMSR` (their
//! defaults) on a 1,000-item crowd file: the reference labels were computed once with
//! crowd-kit by `bench/crowdkit_fixture_ref.py` and copied into `tests/fixtures/agree` with
//! their provenance (the README there, and each file's first line).
//!
//! Tolerance: at least 99% of the labels identical (at most 10 of 1,000 may differ: MACE's
//! and EM's optima can move with the last bits of exp and log), and each posterior of an
//! identical label within 1e-6 of crowd-kit's. When the fixtures were made every label and
//! posterior was identical. The same tolerance holds for GLAD (whose M-step stops after 25
//! conjugate-gradient steps far from converged, so its result depends on the optimiser's
//! path: kcurate takes scipy's steps, MINPACK's `dcsrch` included, but sums in another
//! order) and M-MSR (whose skills' signs crowd-kit takes from ARPACK with a random start,
//! kcurate from power iteration).

mod common;

use common::{kcurate, stderr, stdout};
use serde_json::Value;
use std::collections::BTreeMap;

const INPUT: &str = "tests/fixtures/agree/crowdkit_crowd1000_by_worker.tsv";

/// item -> (label, posterior) of a crowd-kit reference file.
fn reference(name: &str) -> BTreeMap<String, (String, f64)> {
    let path = common::repo().join("tests/fixtures/agree").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut want = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        want.insert(f[0].to_string(), (f[1].to_string(), f[2].parse().unwrap()));
    }
    assert_eq!(want.len(), 1000, "{name} holds 1,000 items");
    want
}

/// item -> (label, posterior) of `kcurate agree --aggregate method` on the fixture input.
fn kcurate_labels(method: &str) -> BTreeMap<String, (String, f64)> {
    let o = kcurate(&["agree", "--input", INPUT, "--aggregate", method]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut got = BTreeMap::new();
    for line in stdout(&o).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let label = match &v["label"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let post = v["posterior"].as_f64().unwrap();
        got.insert(v["item"].as_str().unwrap().to_string(), (label, post));
    }
    got
}

fn assert_equals_crowd_kit(method: &str, fixture: &str) {
    let want = reference(fixture);
    let got = kcurate_labels(method);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{method}: one label per item"
    );
    let differ: Vec<String> = want
        .iter()
        .filter(|(item, (label, _))| got[*item].0 != *label)
        .map(|(item, (label, _))| format!("{item}: kcurate {}, crowd-kit {label}", got[item].0))
        .collect();
    assert!(
        differ.len() <= 10,
        "{method}: {} of 1,000 labels differ from crowd-kit's: {differ:?}",
        differ.len()
    );
    for (item, (label, p)) in &want {
        if got[item].0 == *label {
            let d = (got[item].1 - p).abs();
            assert!(
                d <= 1e-6 + 1e-12,
                "{method}: {item}'s posterior is {} , crowd-kit's {p}",
                got[item].1
            );
        }
    }
}

#[test]
fn one_coin_dawid_skene_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("one-coin", "crowdkit_one_coin.tsv");
}

#[test]
fn wawa_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("wawa", "crowdkit_wawa.tsv");
}

#[test]
fn zero_based_skill_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("zero-based-skill", "crowdkit_zero_based_skill.tsv");
}

#[test]
fn mace_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("mace", "crowdkit_mace.tsv");
}

#[test]
fn glad_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("glad", "crowdkit_glad.tsv");
}

#[test]
fn mmsr_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit("mmsr", "crowdkit_mmsr.tsv");
}

/// Wawa weighs each annotator by their agreement with the plain majority (whose ties go
/// to the first label in sorted order, as crowd-kit's do), so a tie between a reliable and a
/// less reliable annotator goes to the reliable one.
#[test]
fn wawa_weights_annotators_by_their_agreement_with_the_majority() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("votes.tsv");
    let mut rows = String::from("item\tannotator\tlabel\n");
    for i in 0..4 {
        rows.push_str(&format!("i{i}\ta\tx\ni{i}\tb\tx\ni{i}\tc\tx\n"));
    }
    rows.push_str("tie\ta\ty\ntie\tc\tx\n");
    rows.push_str("c_off\ta\tx\nc_off\tb\tx\nc_off\tc\ty\n");
    rows.push_str("odd\ta\ty\nodd\tb\ty\nodd\td\tx\n");
    std::fs::write(&input, rows).unwrap();
    let labels = |method: &str| -> BTreeMap<String, Value> {
        let o = kcurate(&[
            "agree",
            "--input",
            input.to_str().unwrap(),
            "--aggregate",
            method,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["item"].as_str().unwrap().into(), v["label"].clone())
            })
            .collect()
    };
    // The plain majority has no gold on `tie`; crowd-kit's (Wawa's first step) takes x, so a
    // agrees with it 6 of 7 times and c 5 of 6: Wawa gives a's y.
    assert_eq!(labels("majority")["tie"], Value::Null);
    let wawa = labels("wawa");
    assert_eq!(wawa["tie"], "y");
    assert_eq!(wawa["c_off"], "x");
    assert_eq!(wawa["odd"], "y");
}
