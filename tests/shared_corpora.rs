//! Recipes over the real corpora in ../shared (run by `make test-shared`).

mod common;
use common::*;

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn nsmc_and_wikinews_run_end_to_end_with_per_rule_counts_in_the_card() {
    let (_out, dir) = run_recipe("configs/nsmc-wikinews.toml", "0");
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    // NSMC subset: 72,865 reviews in 1,508 files; Wikinews: 324 articles (../shared/corpora/README.md).
    assert_eq!(m["stages"][0]["items_in"], 72_865 + 324);
    assert_eq!(m["license"], "CC-BY-2.5");
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for st in m["stages"].as_array().unwrap() {
        for (rule, c) in st["rules"].as_object().unwrap() {
            let total = c["drop"].as_u64().unwrap() + c["edit"].as_u64().unwrap();
            assert!(
                card.contains(&format!("| {rule} | {} | {} |", c["drop"], c["edit"])),
                "card lacks {rule} ({total})"
            );
        }
    }
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn klue_sts_recipe_over_parakqc_runs_end_to_end() {
    let (_out, dir) = run_recipe("configs/klue-sts-parakqc.toml", "0");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let splits = &m["splits"]["sts"];
    println!(
        "paraKQC STS splits: {splits}; metrics {}",
        m["metrics"]["sts"]
    );
    assert!(splits["train"].as_u64().unwrap() > 1000, "{splits}");
    assert!(splits["validation"].as_u64().unwrap() <= 55 * 10);
    // The STS score distribution: dev+test over ten 0.5 bins, each within ±30% of the mean bin count,
    // and KLUE's annotator filter keeps at least 5 of the 7 simulated annotators.
    let sts = &m["metrics"]["sts"];
    let hist: Vec<f64> = sts["dev_test_histogram_0.5_bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let mean = hist.iter().sum::<f64>() / hist.len() as f64;
    println!(
        "dev+test histogram over 0.5 bins: {hist:?} (mean {mean:.1}); annotator r {}; dropped {}",
        sts["annotator_pearson_r"], sts["annotators_dropped"]
    );
    assert_eq!(hist.len(), 10);
    assert!(
        hist.iter().all(|c| (c - mean).abs() <= 0.3 * mean) && mean > 0.0,
        "{hist:?}"
    );
    let r = sts["annotator_pearson_r"].as_object().unwrap();
    assert_eq!(r.len(), 7);
    assert!(sts["annotators_dropped"].as_u64().unwrap() <= 2, "{sts}");
    // The pairs' scores follow their content: within every pair source, and paraphrases
    // score above same-topic pairs, which score above random pairs.
    let mut by_source: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for split in ["train", "validation", "test"] {
        for line in std::fs::read_to_string(dir.join(format!("sts/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            by_source
                .entry(v["source"].as_str().unwrap().to_string())
                .or_default()
                .push(v["labels"]["label"].as_f64().unwrap());
        }
    }
    let avg = |s: &str| by_source[s].iter().sum::<f64>() / by_source[s].len() as f64;
    println!(
        "mean label: paraKQC-para {:.2} ({}), paraKQC-sampled {:.2} ({}), paraKQC-random {:.2} ({})",
        avg("paraKQC-para"),
        by_source["paraKQC-para"].len(),
        avg("paraKQC-sampled"),
        by_source["paraKQC-sampled"].len(),
        avg("paraKQC-random"),
        by_source["paraKQC-random"].len()
    );
    assert!(avg("paraKQC-para") > avg("paraKQC-sampled") + 1.5);
    assert!(avg("paraKQC-sampled") > avg("paraKQC-random"));
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn tc_recipe_over_wikinews_and_sentineg_over_nsmc() {
    let out = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "run",
        "configs/klue-tc-wikinews.toml",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.path().join("klue-tc-wikinews/1.0.0/manifest.json")).unwrap(),
    )
    .unwrap();
    println!(
        "Wikinews TC splits {}; metrics {}",
        m["splits"]["tc"], m["metrics"]
    );
    let o = kcurate(&[
        "run",
        "configs/nsmc-wikinews.toml",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let parent = out.path().join("nsmc-wikinews-sentences/1.0.0");
    let (_, dir) = challenge(&parent, "configs/challenge-sentineg.toml", out.path(), &[]);
    let m = manifest(&dir);
    println!(
        "NSMC SentiNeg: {} ; rules {}",
        m["splits"]["sentineg"], m["stages"][2]["rules"]
    );
    assert!(kcurate(&["verify", dir.to_str().unwrap()]).status.success());
}
