//! `kcurate agree --aggregate one-coin|wawa|zero-based-skill|mace|glad|mmsr|kos|gold-majority`
//! against crowd-kit 1.4.2's `OneCoinDawidSkene`, `Wawa`, `ZeroBasedSkill`, `MACE`, `GLAD`,
//! `MMSR`, `KOS` and `GoldMajorityVote` (their defaults) on 1,000-item crowd files (KOS on a
//! two-class one; GoldMajorityVote with 200 gold labels): the reference labels were computed once with
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
//! kcurate from power iteration) and KOS (whose start is numpy's normal draws in row order:
//! the fixture's rows are in the order kcurate holds them). KOS gives no probability: its
//! posteriors are null.

mod common;

use common::{kcurate, stderr, stdout};
use serde_json::Value;
use std::collections::BTreeMap;

const INPUT: &str = "tests/fixtures/agree/crowdkit_crowd1000_by_worker.tsv";

/// item -> (label, posterior) of a crowd-kit reference file (posterior NaN where the file
/// has none: KOS).
fn reference(name: &str) -> BTreeMap<String, (String, f64)> {
    let path = common::repo().join("tests/fixtures/agree").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut want = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let p = f.get(2).map_or(f64::NAN, |p| p.parse().unwrap());
        want.insert(f[0].to_string(), (f[1].to_string(), p));
    }
    assert_eq!(want.len(), 1000, "{name} holds 1,000 items");
    want
}

/// item -> (label, posterior; NaN where null) of `kcurate agree --aggregate method` on the
/// fixture input (`more`: further arguments).
fn kcurate_labels(method: &str, input: &str, more: &[&str]) -> BTreeMap<String, (String, f64)> {
    let mut args = vec!["agree", "--input", input, "--aggregate", method];
    args.extend(more);
    let o = kcurate(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut got = BTreeMap::new();
    for line in stdout(&o).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let label = match &v["label"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let post = v["posterior"].as_f64().unwrap_or(f64::NAN);
        got.insert(v["item"].as_str().unwrap().to_string(), (label, post));
    }
    got
}

fn assert_equals_crowd_kit(method: &str, fixture: &str) {
    assert_equals_crowd_kit_on(method, fixture, INPUT, &[]);
}

fn assert_equals_crowd_kit_on(method: &str, fixture: &str, input: &str, more: &[&str]) {
    let want = reference(fixture);
    let got = kcurate_labels(method, input, more);
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
        if p.is_nan() {
            assert!(got[item].1.is_nan(), "{method}: {item} has a posterior");
        } else if got[item].0 == *label {
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

#[test]
fn kos_labels_equal_crowd_kit_on_1000_binary_items() {
    assert_equals_crowd_kit_on(
        "kos",
        "crowdkit_kos.tsv",
        "tests/fixtures/agree/crowd1000_binary_by_worker.tsv",
        &[],
    );
}

#[test]
fn gold_majority_labels_equal_crowd_kit_on_1000_items() {
    assert_equals_crowd_kit_on(
        "gold-majority",
        "crowdkit_gold_majority.tsv",
        INPUT,
        &["--gold", "tests/fixtures/agree/crowd1000_gold.tsv"],
    );
}

/// KOS takes two labels: three are refused naming the file and the field.
#[test]
fn kos_refuses_three_labels_naming_the_file_and_field() {
    let o = kcurate(&["agree", "--input", INPUT, "--aggregate", "kos"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{INPUT}: field `label`"))
            && err.contains("binary labels only")
            && err.contains("this file has 3: 0, 1, 2"),
        "{err}"
    );
}

/// Gold Majority Vote needs --gold; a gold file's empty cell, a second label for an item,
/// and an annotator who answered no gold item are errors naming file:line:field or the
/// annotator; a gold label no one gave counts as every answer wrong.
#[test]
fn gold_majority_checks_its_gold_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("votes.tsv");
    std::fs::write(
        &input,
        "item\tannotator\tlabel\ni1\ta\tx\ni1\tb\ty\ni2\ta\tx\ni2\tb\ty\ni3\ta\ty\ni3\tb\tx\n",
    )
    .unwrap();
    let input = input.to_str().unwrap();
    let run = |gold: &str| {
        let path = dir.path().join("gold.csv");
        std::fs::write(&path, gold).unwrap();
        kcurate(&[
            "agree",
            "--input",
            input,
            "--aggregate",
            "gold-majority",
            "--gold",
            path.to_str().unwrap(),
        ])
    };
    let o = kcurate(&["agree", "--input", input, "--aggregate", "gold-majority"]);
    assert!(!o.status.success() && stderr(&o).contains("needs --gold"));
    let o = run("item,label\ni1,x\ni2,\n");
    assert!(
        stderr(&o).contains("gold.csv:3: field `label`: empty"),
        "{}",
        stderr(&o)
    );
    let o = run("task,gold\ni1,x\ni1,y\n");
    assert!(
        stderr(&o).contains("gold.csv:3: field `task`: item i1 has a gold label already (line 2)"),
        "{}",
        stderr(&o)
    );
    // b is right on both gold items, a on neither: b's answer wins on i3.
    let o = run("item,label\ni1,y\ni2,y\ni9,x\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 3 gold items are not in --input"));
    let i3 = stdout(&o).lines().nth(2).unwrap().to_string();
    assert_eq!(i3, r#"{"item":"i3","label":"x","posterior":1.0}"#);
    // A gold label no one gave: both annotators are wrong on it, and c answered no gold item.
    let o = run("item,label\ni1,z\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(r#"{"item":"i2","label":null,"posterior":null}"#));
    let with_c = dir.path().join("c.tsv");
    std::fs::write(&with_c, "item\tannotator\tlabel\ni1\ta\tx\ni2\tc\ty\n").unwrap();
    let o = kcurate(&[
        "agree",
        "--input",
        with_c.to_str().unwrap(),
        "--aggregate",
        "gold-majority",
        "--gold",
        dir.path().join("gold.csv").to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("1 annotator(s) answered no item with a gold label")
            && stderr(&o).contains("gold label, so Gold Majority Vote has no skill for them: c"),
        "{}",
        stderr(&o)
    );
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
