//! Fuzz target (proptest, stable Rust) for the judgements reader `audit precision` and a
//! recipe's `[audit] judgements` use: filled-in sample TSVs (with repeated and conflicting
//! rows, comments, a text hash column) and Label Studio exports, built from random
//! judgements, then mutated byte by byte, and raw bytes. Promised: no panic; an error names
//! the file; a file read twice gives the same judgements; a file read without error has no
//! decision judged both correct and wrong.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_release::precision::read_judgements;
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{fuzz, mutate, mutation};

/// (item, rule, judgement cell).
fn rows() -> impl Strategy<Value = Vec<(u8, u8, &'static str)>> {
    let cell = prop_oneof![
        Just("correct"),
        Just("wrong"),
        Just(""),
        Just("맞음"),
        Just("x"),
        Just("maybe"),
    ];
    proptest::collection::vec((0u8..6, 0u8..3, cell), 0..12)
}

fn tsv(rows: &[(u8, u8, &str)], hash: bool) -> Vec<u8> {
    let mut s = String::from("# sample of a release\nitem\trule\tjudgement");
    if hash {
        s.push_str("\ttext_hash");
    }
    s.push('\n');
    for (i, r, j) in rows {
        s.push_str(&format!("s-{i}\tfilter.r{r}\t{j}"));
        if hash {
            s.push_str(&format!("\t{:016x}", u64::from(*i) * 977));
        }
        s.push('\n');
    }
    s.into_bytes()
}

fn label_studio(rows: &[(u8, u8, &str)]) -> Vec<u8> {
    let v: Vec<_> = rows
        .iter()
        .map(|(i, r, j)| {
            json!({
                "data": {"item": format!("s-{i}"), "rule": format!("filter.r{r}")},
                "annotations": [{"was_cancelled": false, "result": [
                    {"from_name": "judgement", "value": {"choices": [j]}}
                ]}],
            })
        })
        .collect();
    serde_json::to_vec(&v).unwrap()
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    let valid = (rows(), 0u8..3).prop_map(|(r, kind)| match kind {
        0 => tsv(&r, false),
        1 => tsv(&r, true),
        _ => label_studio(&r),
    });
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..256),
        4 => (valid, proptest::collection::vec(mutation(), 0..6))
            .prop_map(|(b, ms)| mutate(b, &ms)),
    ]
}

#[test]
fn fuzz_judgements_reader() {
    fuzz("release.judgements", 256, file(), |bytes| {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("judged.tsv");
        std::fs::write(&path, &bytes).unwrap();
        match read_judgements(&path) {
            Ok(js) => {
                let again = read_judgements(&path).unwrap();
                prop_assert_eq!(&js, &again);
                let mut verdict: BTreeMap<(&str, &str), bool> = BTreeMap::new();
                for j in &js {
                    if let Some(ok) = j.correct {
                        let first = *verdict.entry((&j.rule, &j.item)).or_insert(ok);
                        prop_assert_eq!(first, ok, "{} on {} judged both ways", j.rule, j.item);
                    }
                }
            }
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(
                    shown.contains("judged.tsv"),
                    "error without the file: {}",
                    shown
                );
            }
        }
        Ok(())
    });
}
