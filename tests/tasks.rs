//! Task recipes on data-samples: KLUE STS and JGLUE JSTS run end to end with simulated
//! annotators; the rows follow the public KLUE STS schema; dev/test respect the per-bin caps;
//! no sentence is in two splits; two thread counts give the same bytes.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn klue_sts_and_jsts_recipes_run_end_to_end() {
    for (recipe, cap) in [("configs/klue-sts.toml", 3), ("configs/jglue-jsts.toml", 3)] {
        let (_a, dir) = run_recipe(recipe, "1");
        let (_b, dir2) = run_recipe(recipe, "3");
        assert_eq!(
            tree(&dir),
            tree(&dir2),
            "{recipe}: thread count changed the bytes"
        );
        let mut sentence_split: BTreeMap<String, String> = BTreeMap::new();
        let mut per_bin: BTreeMap<(String, u64), usize> = BTreeMap::new();
        let mut sources = BTreeSet::new();
        for split in ["train", "validation", "test"] {
            for line in std::fs::read_to_string(dir.join(format!("sts/{split}.jsonl")))
                .unwrap()
                .lines()
            {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                for k in ["guid", "source", "sentence1", "sentence2"] {
                    assert!(r[k].is_string(), "{recipe}: {k} missing in {r}");
                }
                let scores: Vec<f64> = r["annotations"]["annotations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                let mean = scores.iter().sum::<f64>() / scores.len() as f64;
                assert!((r["labels"]["real-label"].as_f64().unwrap() - mean).abs() < 1e-6);
                assert_eq!(
                    r["labels"]["label"].as_f64().unwrap(),
                    format!("{mean:.1}").parse::<f64>().unwrap()
                );
                assert_eq!(
                    r["labels"]["binary-label"].as_u64().unwrap(),
                    u64::from(r["labels"]["label"].as_f64().unwrap() >= 3.0)
                );
                sources.insert(r["source"].as_str().unwrap().to_string());
                for k in ["sentence1", "sentence2"] {
                    let s = r[k].as_str().unwrap().to_string();
                    if let Some(prev) = sentence_split.insert(s.clone(), split.to_string()) {
                        assert_eq!(prev, split, "{recipe}: {s:?} is in {prev} and {split}");
                    }
                }
                if split != "train" {
                    let bin = (r["labels"]["label"].as_f64().unwrap() / 0.5).floor() as u64;
                    *per_bin.entry((split.to_string(), bin.min(9))).or_default() += 1;
                }
            }
        }
        assert!(per_bin.values().all(|n| *n <= cap), "{recipe}: {per_bin:?}");
        for s in [
            "paraKQC-para",
            "paraKQC-sampled",
            "news-sampled",
            "policy-sampled",
            "policy-rtt",
        ] {
            assert!(sources.contains(s), "{recipe}: no {s} pairs ({sources:?})");
        }
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert!(
            m["metrics"]["sts"]["alpha_interval"].as_f64().unwrap() > 0.3,
            "{}",
            m["metrics"]
        );
        // The simulator's fitted parameters are stated in the manifest and the card.
        assert!(
            m["metrics"]["sts"]["simulator"]["fitted_on"]
                .as_str()
                .unwrap()
                .contains("klue-sts-v1.1_dev.json")
        );
        let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(card.contains("| sts | simulator |"), "{recipe}: card");
    }
}

#[test]
fn klue_nli_and_jnli_recipes_respect_quotas_and_premise_sets() {
    for (recipe, quota, votes) in [
        ("configs/klue-nli.toml", 12, 3),
        ("configs/jglue-jnli.toml", 12, 6),
    ] {
        let (_a, dir) = run_recipe(recipe, "1");
        let (_b, dir2) = run_recipe(recipe, "2");
        assert_eq!(
            tree(&dir),
            tree(&dir2),
            "{recipe}: thread count changed the bytes"
        );
        let mut premise_split: BTreeMap<String, String> = BTreeMap::new();
        let mut per_source: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut labels: BTreeMap<(String, String), BTreeMap<String, usize>> = BTreeMap::new();
        for split in ["train", "validation", "test"] {
            for line in std::fs::read_to_string(dir.join(format!("nli/{split}.jsonl")))
                .unwrap()
                .lines()
            {
                let r: serde_json::Value = serde_json::from_str(line).unwrap();
                let p = r["premise"].as_str().unwrap().to_string();
                if let Some(prev) = premise_split.insert(p.clone(), split.to_string()) {
                    assert_eq!(
                        prev, split,
                        "{recipe}: a premise set straddles {prev} and {split}"
                    );
                }
                // Gold is the label of at least `votes` of writer + validators.
                let all: Vec<&str> = std::iter::once(r["author"].as_str().unwrap())
                    .chain((2..=10).filter_map(|k| r[format!("label{k}")].as_str()))
                    .collect();
                let gold = r["gold_label"].as_str().unwrap();
                assert!(
                    all.iter().filter(|l| **l == gold).count() >= votes,
                    "{recipe}: {r}"
                );
                if split != "train" {
                    *per_source
                        .entry((split.to_string(), r["source"].as_str().unwrap().to_string()))
                        .or_default() += 1;
                    *labels
                        .entry((split.to_string(), r["source"].as_str().unwrap().to_string()))
                        .or_default()
                        .entry(gold.to_string())
                        .or_default() += 1;
                }
            }
        }
        assert!(!per_source.is_empty(), "{recipe}: empty dev/test");
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        // Every source fills its quota exactly in dev and in test (the samples are large
        // enough: no shortfall is reported), one third of it per label.
        assert_eq!(
            m["metrics"]["nli"]["quota_shortfall_pairs"],
            serde_json::json!({}),
            "{recipe}"
        );
        let sources: BTreeSet<&str> = per_source.keys().map(|(_, s)| s.as_str()).collect();
        for src in sources {
            for split in ["validation", "test"] {
                let key = (split.to_string(), src.to_string());
                assert_eq!(per_source.get(&key), Some(&quota), "{recipe}: {key:?}");
                let l = &labels[&key];
                assert_eq!(l.len(), 3, "{recipe}: {key:?} {l:?}");
                assert!(
                    l.values().all(|n| *n == quota / 3),
                    "{recipe}: {key:?} {l:?}"
                );
            }
        }
        assert!(
            m["metrics"]["nli"]["table5_individual_equals_gold"]
                .as_f64()
                .unwrap()
                > 0.5
        );
    }
}

/// Writes `body` to `work/name`: its path.
fn write_in(work: &Path, name: &str, body: &str) -> String {
    let p = work.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

/// Two premises out to writers (`nli export-writers`), who fill in one hypothesis per task:
/// the path of the six pairs they wrote, under `work`.
fn written_nli_pairs(work: &Path) -> String {
    let premises = write_in(
        work,
        "premises.jsonl",
        "{\"id\":\"p1\",\"text\":\"정부는 내년부터 기초연금 지급 대상을 확대한다.\",\"source\":\"policy\"}\n{\"id\":\"p2\",\"text\":\"경찰은 사고 원인을 조사하고 있다.\",\"source\":\"news\"}\n",
    );
    let o = kcurate(&["nli", "export-writers", "--input", &premises]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut written = String::new();
    for line in stdout(&o).lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let h = format!(
            "{} ({})",
            v["premise"].as_str().unwrap(),
            v["label"].as_str().unwrap()
        );
        v["hypothesis"] = serde_json::json!(h);
        written.push_str(&format!("{v}\n"));
    }
    assert_eq!(written.lines().count(), 6);
    write_in(work, "pairs.jsonl", &written)
}

/// Written pairs go out to validators as a TSV (a row per pair and validator) and as a
/// Label Studio batch.
#[test]
fn nli_written_pairs_go_out_to_validators_as_tsv_and_label_studio() {
    let work = tempfile::tempdir().unwrap();
    let pairs = written_nli_pairs(work.path());
    let o = kcurate(&[
        "nli",
        "export-validators",
        "--input",
        &pairs,
        "--validators",
        "4",
    ]);
    assert_eq!(stdout(&o).lines().count(), 1 + 6 * 4);
    let ls = work.path().join("ls");
    let o = kcurate(&[
        "nli",
        "export-validators",
        "--input",
        &pairs,
        "--label-studio",
        ls.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let config = std::fs::read_to_string(ls.join("labeling-config.xml")).unwrap();
    assert!(config.contains("<Choices name=\"nli_label\""), "{config}");
    assert!(config.contains("value=\"$premise\"") && config.contains("value=\"$hypothesis\""));
    let tasks: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(ls.join("tasks.json")).unwrap()).unwrap();
    assert_eq!(tasks.len(), 6);
}

/// Four validators' labels (simulated, seeded; the truth is the writer's label) give every
/// pair a gold row with KLUE's fields or a no-gold line.
#[test]
fn nli_validators_votes_give_gold_or_a_no_gold_line_for_every_pair() {
    let work = tempfile::tempdir().unwrap();
    let pairs = written_nli_pairs(work.path());
    let o = kcurate(&[
        "simulate",
        "--input",
        &pairs,
        "--kind",
        "nominal",
        "--labels",
        "entailment,neutral,contradiction",
        "--annotators",
        "4",
        "--spammers",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let votes = write_in(work.path(), "votes.tsv", &stdout(&o));
    let o = kcurate(&["nli", "gold", "--input", &pairs, "--votes", &votes]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("Table 5: pairs 6"), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!rows.is_empty());
    for r in &rows {
        for k in [
            "guid",
            "premise",
            "hypothesis",
            "gold_label",
            "author",
            "label2",
            "label5",
        ] {
            assert!(r.get(k).is_some(), "{k} missing: {r}");
        }
    }
    let no_gold = stderr(&o)
        .lines()
        .filter(|l| l.starts_with("nli.no_gold"))
        .count();
    assert_eq!(
        rows.len() + no_gold,
        6,
        "every pair has gold or a no-gold line"
    );
}

#[test]
fn nli_artifacts_of_written_pairs_count_them_by_label() {
    let work = tempfile::tempdir().unwrap();
    let pairs = written_nli_pairs(work.path());
    let o = kcurate(&[
        "nli",
        "artifacts",
        "--input",
        &pairs,
        "--min-count",
        "1",
        "--json",
    ]);
    let a: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(a["pairs"], 6);
    assert!(a["mean_length"]["neutral"].as_f64().unwrap() > 0.0);
}

#[test]
fn sts_annotation_batch_goes_out_and_comes_back() {
    let (_a, dir) = run_recipe("configs/klue-sts.toml", "2");
    let o = kcurate(&["sts", "export", dir.to_str().unwrap(), "--annotators", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // People fill in 0–5 scores (here: a fixed pattern per pair and annotator).
    let mut filled = String::from("item\tannotator\tvalue\n");
    for line in stdout(&o).lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        // Annotators agree on a per-pair score; the fifth scores one point higher.
        let base: usize = f[0].trim_start_matches("sts-").parse::<usize>().unwrap() % 5;
        let v = if f[1] == "annotator05" {
            base + 1
        } else {
            base
        };
        filled.push_str(&format!("{}\t{}\t{v}\n", f[0], f[1]));
    }
    let work = tempfile::tempdir().unwrap();
    let ann = work.path().join("scores.tsv");
    std::fs::write(&ann, filled).unwrap();
    let recipe = std::fs::read_to_string(repo().join("configs/klue-sts.toml"))
        .unwrap()
        .replace(
            "annotators = 7",
            &format!(
                "annotators = 5\nannotations = \"{}\"\nsource_quota = 2",
                ann.display()
            ),
        )
        .replace(
            "name = \"klue-sts-samples\"",
            "name = \"klue-sts-annotated\"",
        );
    let rp = work.path().join("annotated.toml");
    std::fs::write(&rp, recipe).unwrap();
    let (_b, dir2) = run_config_copy(rp.to_str().unwrap(), "2");
    let mut per_source: BTreeMap<(String, String), usize> = BTreeMap::new();
    for split in ["train", "validation", "test"] {
        for line in std::fs::read_to_string(dir2.join(format!("sts/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let who: Vec<&str> = r["annotations"]["annotators"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert!(
                who.iter().all(|w| w.starts_with("annotator")),
                "imported annotators expected: {who:?}"
            );
            if split != "train" {
                *per_source
                    .entry((split.to_string(), r["source"].as_str().unwrap().to_string()))
                    .or_default() += 1;
            }
        }
    }
    assert!(
        !per_source.is_empty() && per_source.values().all(|n| *n <= 2),
        "{per_source:?}"
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir2.join("manifest.json")).unwrap()).unwrap();
    assert!(
        m["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["path"].as_str().unwrap().ends_with("scores.tsv")),
        "the annotation file is an input of the release"
    );
    assert!(
        m["metrics"]["sts"].get("simulator").is_none(),
        "imported scores replace the simulator"
    );
}

/// A Label Studio export of the `sts export --label-studio` tasks goes back through the same
/// recipe's `annotations` setting (a `.json` file is read as Label Studio); its scores, not
/// the simulator's, make the labels.
#[test]
fn sts_label_studio_export_replaces_the_simulator() {
    let (_a, dir) = run_recipe("configs/klue-sts.toml", "2");
    let batch = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "sts",
        "export",
        dir.to_str().unwrap(),
        "--label-studio",
        batch.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let config = std::fs::read_to_string(batch.path().join("labeling-config.xml")).unwrap();
    assert!(config.contains("<Number name=\"score\""), "{config}");
    let mut tasks: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(batch.path().join("tasks.json")).unwrap()).unwrap();
    assert!(!tasks.is_empty());
    let score = |item: &str, who: usize| -> u64 {
        (item.trim_start_matches("sts-").parse::<u64>().unwrap() + u64::from(who == 3)) % 6
    };
    for t in &mut tasks {
        let item = t["data"]["item"].as_str().unwrap().to_string();
        t["annotations"] = serde_json::json!(
            (0..4)
                .map(|w| serde_json::json!({
                    "completed_by": {"email": format!("rater{w}@example.org")},
                    // A comment is no vote: only the config's control is read.
                    "result": [{"from_name": "score", "to_name": "pair", "type": "number",
                                "value": {"number": score(&item, w)}},
                               {"from_name": "comment", "to_name": "pair", "type": "textarea",
                                "value": {"text": ["4"]}}]
                }))
                .collect::<Vec<_>>()
        );
    }
    let work = tempfile::tempdir().unwrap();
    let ann = work.path().join("export.json");
    std::fs::write(&ann, serde_json::to_string(&tasks).unwrap()).unwrap();
    let recipe = std::fs::read_to_string(repo().join("configs/klue-sts.toml"))
        .unwrap()
        .replace(
            "annotators = 7",
            &format!("annotators = 4\nannotations = \"{}\"", ann.display()),
        )
        .replace("min_r = 0.6", "min_r = -1.0")
        .replace("min_alpha = 0.05", "min_alpha = -1.0")
        .replace("name = \"klue-sts-samples\"", "name = \"klue-sts-ls\"");
    let rp = work.path().join("ls.toml");
    std::fs::write(&rp, recipe).unwrap();
    let (_b, dir2) = run_config_copy(rp.to_str().unwrap(), "2");
    let mut rows = 0;
    for split in ["train", "validation", "test"] {
        for line in std::fs::read_to_string(dir2.join(format!("sts/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let g = r["guid"].as_str().unwrap();
            let want: Vec<u64> = (0..4).map(|w| score(g, w)).collect();
            let got: Vec<u64> = r["annotations"]["annotations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(got, want, "{g}");
            assert_eq!(r["annotations"]["annotators"][0], "rater0@example.org");
            rows += 1;
        }
    }
    assert!(rows > 0);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir2.join("manifest.json")).unwrap()).unwrap();
    assert!(m["metrics"]["sts"].get("simulator").is_none());
}

/// Without imported scores the `sts` stage needs the fitted simulator table; `check` says so.
#[test]
fn sts_without_annotations_or_simulator_fails_check() {
    let text = std::fs::read_to_string(repo().join("configs/klue-sts.toml")).unwrap();
    let cut = text.find("[stage.simulator]").unwrap();
    let end = text.find("\n[task]").unwrap();
    let work = tempfile::tempdir().unwrap();
    let rp = work.path().join("nosim.toml");
    std::fs::write(&rp, format!("{}{}", &text[..cut], &text[end..])).unwrap();
    let o = kcurate(&[
        "check",
        rp.to_str().unwrap(),
        "--root",
        repo().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("simulator") && all.contains("fit-sim"),
        "{all}"
    );
}
