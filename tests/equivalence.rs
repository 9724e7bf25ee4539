//! One equivalence test: the per-record chain gives the same records and decisions when
//! the runner drives it and when it runs as a Unix filter (`kcurate ingest | kcurate stage`),
//! the unit an external engine runs per partition.

mod common;
use common::*;
use std::io::Write;
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

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one comparison: the recipe, the runner's release and the filter pipeline's output, in order"
)]
fn runner_and_unix_filter_agree() {
    let work = tempfile::tempdir().unwrap();
    // The default recipe without its whole-corpus stages (dedup, assign_split), which a
    // filter cannot run.
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
    let recipe = work.path().join("chain.toml");
    std::fs::write(&recipe, text).unwrap();
    let r = recipe.to_str().unwrap();

    let out = work.path().join("out");
    let root = configs_dir();
    let o = kcurate(&[
        "run",
        r,
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "3",
        "--root",
        &root,
    ]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{}",
        stderr(&o)
    );
    let rel = out.join("kcurate-samples/1.0.0");
    let mut from_run = Vec::new();
    for split in ["train", "validation", "test"] {
        for line in std::fs::read_to_string(rel.join(format!("sentences/{split}.jsonl")))
            .unwrap()
            .lines()
        {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            from_run.push(format!(
                "{}\t{}",
                v["id"].as_str().unwrap(),
                v["text"].as_str().unwrap()
            ));
        }
    }
    from_run.sort();

    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    let dec1 = work.path().join("ingest-decisions.jsonl");
    let dec2 = work.path().join("stage-decisions.jsonl");
    let ingest = Command::new(&bin)
        .current_dir(repo())
        .args([
            "ingest",
            r,
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
            r,
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
    let mut from_filter: Vec<String> = stdout(&staged)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!(
                "{}\t{}",
                v["id"].as_str().unwrap(),
                v["text"].as_str().unwrap()
            )
        })
        .collect();
    from_filter.sort();
    assert!(!from_run.is_empty());
    assert_eq!(from_run, from_filter);

    let run_decisions =
        sorted_lines(&std::fs::read_to_string(rel.join("audit/decisions.jsonl")).unwrap());
    let filter_decisions = sorted_lines(
        &(std::fs::read_to_string(&dec1).unwrap() + &std::fs::read_to_string(&dec2).unwrap()),
    );
    assert_eq!(run_decisions, filter_decisions);
}
