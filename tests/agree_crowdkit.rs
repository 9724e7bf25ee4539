//! `kcurate agree --aggregate dawid-skene` against crowd-kit 1.4.2's `DawidSkene` on a
//! 1,000-item crowd file: the reference labels were computed once with crowd-kit
//! and copied into `tests/fixtures/agree` with their provenance (README there).

mod common;

use common::{kcurate, stderr, stdout};
use serde_json::Value;
use std::collections::BTreeMap;

#[test]
fn dawid_skene_labels_equal_crowd_kit_on_1000_items() {
    let reference = std::fs::read_to_string(
        common::repo().join("tests/fixtures/agree/crowd1000.crowdkit-ds.tsv"),
    )
    .unwrap();
    let mut want: BTreeMap<String, (String, f64)> = BTreeMap::new();
    for line in reference.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        want.insert(f[0].to_string(), (f[1].to_string(), f[2].parse().unwrap()));
    }
    assert_eq!(want.len(), 1000, "the fixture holds 1,000 items");

    let o = kcurate(&[
        "agree",
        "--input",
        "tests/fixtures/agree/crowd1000.tsv",
        "--aggregate",
        "dawid-skene",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut got: BTreeMap<String, (String, f64)> = BTreeMap::new();
    for line in stdout(&o).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let label = match &v["label"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let post = v["posterior"].as_f64().unwrap();
        got.insert(v["item"].as_str().unwrap().to_string(), (label, post));
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "one label per item"
    );
    let differ: Vec<_> = want
        .iter()
        .filter(|(item, (label, _))| got[*item].0 != *label)
        .map(|(item, (label, _))| format!("{item}: kcurate {}, crowd-kit {label}", got[item].0))
        .collect();
    // The tolerance: >= 99.9% identical labels, i.e. at most 1 of 1,000.
    assert!(
        differ.len() <= 1,
        "labels differ from crowd-kit's: {differ:?}"
    );
    let worst = want
        .iter()
        .filter(|(item, (label, _))| got[*item].0 == *label)
        .map(|(item, (_, p))| ((got[item].1 - p).abs(), item))
        .fold(
            (0.0f64, None),
            |a, (d, i)| if d > a.0 { (d, Some(i)) } else { a },
        );
    assert!(
        worst.0 <= 1e-6 + 1e-12,
        "posterior off crowd-kit's by {} at {:?}",
        worst.0,
        worst.1
    );
}
