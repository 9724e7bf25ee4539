//! Derived releases and split strategies: a SentiNeg challenge release from the sample
//! release (verifies, rebuilds, names its parent, inherits its licence, a decision per
//! flip and per skip); the TC recipe's date and unseen-term splits hold and every moved
//! item has a decision.

mod common;
use common::*;
use std::collections::BTreeSet;

#[test]
fn sentineg_challenge_release_is_derived_verifiable_and_rebuildable() {
    let (out, parent) = default_release("2");
    let o = kcurate(&[
        "challenge",
        parent.to_str().unwrap(),
        "--recipe",
        "configs/challenge-sentineg.toml",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let dir = out.path().join("challenge-sentineg/1.0.0");
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let parent_sha = kcurate_sha(&parent.join("manifest.json"));
    assert_eq!(m["parent"]["manifest_sha256"], parent_sha.as_str());
    assert_eq!(m["license"], m["parent"]["license"]);
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    let mut flips = 0;
    for split in ["dev", "test"] {
        for line in std::fs::read_to_string(dir.join(format!("sentineg/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_ne!(r["label"], r["original_label"], "{r}");
            assert_ne!(r["text"], r["original"]);
            assert!(
                decisions.contains(&format!("\"item\":{}", r["id"])),
                "no decision for {}",
                r["id"]
            );
            flips += 1;
        }
    }
    assert!(flips > 0);
    assert!(
        decisions.contains("challenge.no_rule") || decisions.contains("challenge.neutral_label")
    );
    let re = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "rebuild",
        dir.join("manifest.json").to_str().unwrap(),
        "--out",
        re.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        tree(&dir),
        tree(&re.path().join("challenge-sentineg/1.0.0"))
    );
}

fn kcurate_sha(p: &std::path::Path) -> String {
    kcurate_core::hash::sha256_file(p).unwrap().0
}

#[test]
fn tc_recipe_date_and_unseen_term_splits_hold() {
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "run",
        "configs/klue-tc.toml",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&o)
    );
    let dir = out.path().join("klue-tc-samples/1.0.0");
    let terms = [
        "서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "수원", "전주",
    ];
    let read = |split: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join(format!("tc/{split}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let train = read("train");
    let train_terms: BTreeSet<&str> = terms
        .iter()
        .copied()
        .filter(|t| {
            train
                .iter()
                .any(|r| r["title"].as_str().unwrap().contains(t))
        })
        .collect();
    let decisions = std::fs::read_to_string(dir.join("audit/decisions.jsonl")).unwrap();
    for split in ["dev", "test"] {
        for r in read(split) {
            let title = r["title"].as_str().unwrap();
            assert!(r["date"].as_str().unwrap() >= "2020-01-01", "{r}");
            assert!(
                !train_terms.iter().any(|t| title.contains(t)),
                "{split} item shares a train term: {title}"
            );
            assert!(
                decisions.contains(&format!("\"item\":{},\"stage\":\"split_date\"", r["guid"])),
                "no split_date decision for {}",
                r["guid"]
            );
            assert!(
                [
                    "IT과학",
                    "경제",
                    "사회",
                    "생활문화",
                    "세계",
                    "스포츠",
                    "정치"
                ]
                .contains(&r["label"].as_str().unwrap())
            );
        }
    }
    // Every item the unseen-term rule moved is in train and has its decision.
    for l in decisions
        .lines()
        .filter(|l| l.contains("split.unseen_moved"))
    {
        let d: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(train.iter().any(|r| r["guid"] == d["item"]), "{d}");
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(m["metrics"]["tc"]["alpha_nominal"].as_f64().is_some());
}
