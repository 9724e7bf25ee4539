//! Split names: a recipe that says nothing releases `train`, `validation`, `test`
//! (the Hugging Face convention); `[split] names` renames them, and the files, manifest,
//! card (`configs`, `dataset_info.splits`), report, verify, rebuild and `why` all follow.

mod common;
use common::*;

fn manifest(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn the_default_names_are_hugging_faces() {
    let (_out, dir) = default_release("2");
    let m = manifest(&dir);
    assert_eq!(m["split_names"]["dev"], "validation");
    let splits: Vec<&String> = m["splits"]["sentences"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(splits, ["test", "train", "validation"]);
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    // The card lists them in HF's order, each pointing at its file.
    let order: Vec<usize> = ["split: train", "split: validation", "split: test"]
        .iter()
        .map(|s| {
            card.find(s)
                .unwrap_or_else(|| panic!("{s} not in the card"))
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(
        card.contains("path: \"sentences/validation.jsonl\""),
        "{card}"
    );
    assert!(card.contains("  - name: validation\n"), "{card}");
    assert!(!card.contains("dev.jsonl"));
}

#[test]
fn a_recipe_keeping_dev_releases_dev_everywhere() {
    let text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    assert!(text.trim_end().ends_with("test = 0.1"), "[split] is last");
    let tmp = tempfile::tempdir().unwrap();
    let recipe = tmp.path().join("dev.toml");
    std::fs::write(&recipe, format!("{text}names = {{ dev = \"dev\" }}\n")).unwrap();
    let (_out, dir) = run_config_copy(recipe.to_str().unwrap(), "2");
    assert!(dir.join("sentences/dev.jsonl").exists());
    assert!(dir.join("sentences/dev.parquet").exists());
    assert!(!dir.join("sentences/validation.jsonl").exists());
    let m = manifest(&dir);
    assert_eq!(m["split_names"]["dev"], "dev");
    // The same records as under the default names: only the name moved.
    let (_o2, hf) = default_release("2");
    assert_eq!(
        std::fs::read(dir.join("sentences/dev.jsonl")).unwrap(),
        std::fs::read(hf.join("sentences/validation.jsonl")).unwrap()
    );
    assert_eq!(
        m["splits"]["sentences"]["dev"],
        manifest(&hf)["splits"]["sentences"]["validation"]
    );
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        card.contains("  - split: dev\n    path: \"sentences/dev.jsonl\""),
        "{card}"
    );
    assert!(card.contains("  - name: dev\n"), "{card}");
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(report.contains("<td>sentences/dev</td>"), "{report}");
    assert!(!report.contains("sentences/validation"));
    let o = kcurate(&["verify", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Rebuild (from the recipe copy, which carries the names) gives the same bytes.
    let again = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "rebuild",
        dir.join("manifest.json").to_str().unwrap(),
        "--out",
        again.path().to_str().unwrap(),
        "--root",
        &configs_dir(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let rebuilt = again.path().join("kcurate-samples/1.0.0");
    assert_eq!(tree(&dir), tree(&rebuilt));
    // `why` names the released split of a kept sentence.
    let first = std::fs::read_to_string(dir.join("sentences/dev.jsonl")).unwrap();
    let row: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let o = kcurate(&["why", dir.to_str().unwrap(), row["id"].as_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("sentences/dev"), "{}", stdout(&o));
}

#[test]
fn a_challenge_reads_the_parents_split_files_under_the_parents_names() {
    // A parent that keeps `dev`; the challenge recipe names the file by HF's name.
    let text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let recipe = tmp.path().join("dev.toml");
    std::fs::write(&recipe, format!("{text}names = {{ dev = \"dev\" }}\n")).unwrap();
    let (_out, parent) = run_config_copy(recipe.to_str().unwrap(), "2");
    let challenge = std::fs::read_to_string(repo().join("configs/challenge-sentineg.toml"))
        .unwrap()
        .replace(
            "release:sentences/test.jsonl",
            "release:sentences/validation.jsonl",
        );
    let c = tmp.path().join("challenge.toml");
    std::fs::write(&c, &challenge).unwrap();
    let o = kcurate(&[
        "check",
        c.to_str().unwrap(),
        "--release",
        parent.to_str().unwrap(),
        "--root",
        &configs_dir(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(!stderr(&o).contains("validation.jsonl"), "{}", stderr(&o));
}
