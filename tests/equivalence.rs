//! One equivalence test: the per-record chain gives the same records and decisions when
//! the runner drives it and when it runs as a Unix filter (`kcurate ingest | kcurate stage`),
//! the unit an external engine runs per partition.

mod common;
use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// `id\ttext` of a record's JSON line.
fn id_text(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    format!(
        "{}\t{}",
        v["id"].as_str().unwrap(),
        v["text"].as_str().unwrap()
    )
}

/// The default recipe without its whole-corpus stages (dedup, assign_split), which a filter
/// cannot run, written into `work`.
fn chain_recipe(work: &Path) -> PathBuf {
    let mut text = std::fs::read_to_string(repo().join("configs/default.toml")).unwrap();
    for name in ["dedup", "assign_split"] {
        let start = text
            .find(&format!("[[stage]]\nname = \"{name}\""))
            .unwrap_or_else(|| panic!("default recipe has {name}"));
        let end = text[start..]
            .find("\n\n")
            .map_or(text.len(), |e| start + e + 2);
        text.replace_range(start..end, "");
    }
    let recipe = work.join("chain.toml");
    std::fs::write(&recipe, text).unwrap();
    recipe
}

/// The records (`id\ttext`, sorted) and decision lines (sorted) of the release the runner
/// writes for `recipe`.
fn through_runner(recipe: &str, work: &Path) -> (Vec<String>, Vec<String>) {
    let out = work.join("out");
    let o = kcurate(&[
        "run",
        recipe,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "3",
        "--root",
        &configs_dir(),
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&o)
    );
    let rel = out.join("kcurate-samples/1.0.0");
    let mut records = Vec::new();
    for split in ["train", "validation", "test"] {
        for line in std::fs::read_to_string(rel.join(format!("sentences/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            records.push(id_text(line));
        }
    }
    records.sort();
    let decisions =
        sorted_lines(&std::fs::read_to_string(rel.join("audit/decisions.jsonl")).unwrap());
    (records, decisions)
}

/// The records (`id\ttext`, sorted) and decision lines (sorted) of
/// `kcurate ingest RECIPE | kcurate stage --recipe RECIPE`.
fn through_filter(recipe: &str, work: &Path) -> (Vec<String>, Vec<String>) {
    let root = configs_dir();
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let dec1 = work.join("ingest-decisions.jsonl");
    let dec2 = work.join("stage-decisions.jsonl");
    let ingest = Command::new(&bin)
        .current_dir(repo())
        .args([
            "ingest",
            recipe,
            "--decisions",
            dec1.to_str().unwrap(),
            "--root",
            &root,
        ])
        .output()
        .unwrap();
    assert_eq!(ingest.status.code(), Some(3), "{}", stderr(&ingest));
    let mut stage = Command::new(&bin)
        .current_dir(repo())
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .args([
            "stage",
            "--recipe",
            recipe,
            "--decisions",
            dec2.to_str().unwrap(),
            "--root",
            &root,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    stage
        .stdin
        .take()
        .unwrap()
        .write_all(&ingest.stdout)
        .unwrap();
    let staged = stage.wait_with_output().unwrap();
    assert!(staged.status.success(), "{}", stderr(&staged));
    let mut records: Vec<String> = stdout(&staged).lines().map(id_text).collect();
    records.sort();
    let decisions = sorted_lines(
        &(std::fs::read_to_string(&dec1).unwrap() + &std::fs::read_to_string(&dec2).unwrap()),
    );
    (records, decisions)
}

#[test]
fn runner_and_unix_filter_agree() {
    let work = tempfile::tempdir().unwrap();
    let recipe = chain_recipe(work.path());
    let r = recipe.to_str().unwrap();
    let (from_run, run_decisions) = through_runner(r, work.path());
    let (from_filter, filter_decisions) = through_filter(r, work.path());
    assert!(!from_run.is_empty());
    assert_eq!(from_run, from_filter);
    assert_eq!(run_decisions, filter_decisions);
}
