//! The precision loop on the sample release: `audit sample` draws a stratified sample
//! (filtered by rule and stage as the full sample drew it), a curator's judgements (TSV or
//! a Label Studio export) give per-rule precision through `audit precision`, and
//! `[audit] judgements` puts the figures into the card, report.html and manifest.

mod common;
use common::*;
use std::path::Path;

/// A sample of the sample release judged by a curator: dedup.exact 3 of 4 correct,
/// everything else correct except filter.too_short_v2, left unjudged.
struct Judged {
    work: tempfile::TempDir,
    _release: tempfile::TempDir,
    dir: std::path::PathBuf,
    /// The sample's rows, split into their nine fields.
    rows: Vec<Vec<String>>,
    /// Label Studio's tasks.json for the sample.
    tasks: serde_json::Value,
    /// The judgements as a file from before the text hash column.
    labels: std::path::PathBuf,
}

/// The curator's judgement of a decision by `rule`; `wrong_left` counts down the dedup.exact
/// ones still to be judged wrong. `None`: left unjudged.
fn judgement(rule: &str, wrong_left: &mut usize) -> Option<&'static str> {
    match rule {
        "filter.too_short_v2" => None,
        "dedup.exact" if *wrong_left > 0 => {
            *wrong_left -= 1;
            Some("wrong")
        }
        _ => Some("correct"),
    }
}

fn judged_sample() -> Judged {
    let (release, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let tsv = audit_sample(
        &dir,
        &work.path().join("sample"),
        &["--per-rule", "4", "--seed", "3"],
    );
    let mut lines = tsv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "item\tstage\trule\taction\ttext\tbefore\tafter\ttext_hash\tjudgement"
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let tasks: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("sample/tasks.json")).unwrap(),
    )
    .unwrap();
    let mut filled = String::from("item\tstage\trule\taction\ttext\tbefore\tafter\tjudgement\n");
    let mut wrong_left = 1;
    for r in &rows {
        filled.push_str(&r[..7].join("\t"));
        filled.push('\t');
        filled.push_str(judgement(&r[2], &mut wrong_left).unwrap_or(""));
        filled.push('\n');
    }
    let labels = work.path().join("judged.tsv");
    std::fs::write(&labels, filled).unwrap();
    Judged {
        work,
        _release: release,
        dir,
        rows,
        tasks,
        labels,
    }
}

/// `audit precision RELEASE --labels LABELS <extra…>`, which must succeed: its output.
fn precision(dir: &Path, labels: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "audit",
        "precision",
        dir.to_str().unwrap(),
        "--labels",
        labels.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = kcurate(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    (stdout(&o), stderr(&o))
}

const DEDUP_EXACT_PRECISION: &str = "rule dedup.exact: 3/4 correct, precision 0.75 [0.30, 0.95]";

/// The sample is stratified: up to 4 per rule, every rule with drops or edits present (flags
/// are not sampled), with a text hash and an empty judgement column, and Label Studio tasks
/// and config beside it.
#[test]
fn audit_sample_is_stratified_by_rule_with_label_studio_tasks() {
    let j = judged_sample();
    assert!(
        j.rows
            .iter()
            .all(|r| r.len() == 9 && r[7].len() == 16 && r[8].is_empty())
    );
    let mut per_rule = std::collections::BTreeMap::<&str, usize>::new();
    for r in &j.rows {
        *per_rule.entry(r[2].as_str()).or_default() += 1;
    }
    assert!(per_rule.values().all(|n| *n <= 4));
    assert_eq!(per_rule["dedup.exact"], 4);
    assert!(per_rule.contains_key("filter.too_short_v2") && per_rule.contains_key("noise.hashtag"));
    assert!(
        !per_rule.contains_key("split.contamination_near"),
        "flags are not sampled"
    );
    assert_eq!(j.tasks.as_array().unwrap().len(), j.rows.len());
    let config = std::fs::read_to_string(j.work.path().join("sample/labeling-config.xml")).unwrap();
    assert!(config.contains("<Choices name=\"judgement\"") && config.contains("$text"));
}

#[test]
fn audit_precision_of_a_judged_sample_gives_per_rule_figures() {
    let j = judged_sample();
    let (out, _) = precision(&j.dir, &j.labels, &[]);
    assert!(out.contains(&format!("{DEDUP_EXACT_PRECISION}\n")), "{out}");
    assert!(
        out.contains("rule filter.too_short_v2: not judged (2 decisions)\n"),
        "{out}"
    );
}

/// A judgements file from before the text hash column gets it from the release it was
/// judged on: the same hashes the sample wrote, the same figures.
#[test]
fn add_text_hash_gives_an_old_judgements_file_the_samples_hashes() {
    let j = judged_sample();
    let (plain, _) = precision(&j.dir, &j.labels, &[]);
    let hashed = j.work.path().join("judged-hashed.tsv");
    let (out, err) = precision(
        &j.dir,
        &j.labels,
        &["--add-text-hash", hashed.to_str().unwrap()],
    );
    assert_eq!(out, plain);
    assert!(
        err.contains(&format!(
            "{} rows hashed, 0 had a hash, 0 name no decision",
            j.rows.len()
        )),
        "{err}"
    );
    let again = std::fs::read_to_string(&hashed).unwrap();
    let mut again = again.lines();
    assert_eq!(
        again.next().unwrap(),
        "item\tstage\trule\taction\ttext\tbefore\tafter\tjudgement\ttext_hash"
    );
    for (r, l) in j.rows.iter().zip(again) {
        assert_eq!(l.rsplit('\t').next().unwrap(), r[7], "{l}");
    }
}

/// The same judgements as a Label Studio export of tasks.json give the same figures.
#[test]
fn a_label_studio_export_of_the_same_judgements_gives_the_same_precision() {
    let j = judged_sample();
    let (plain, _) = precision(&j.dir, &j.labels, &[]);
    let mut export = j.tasks.clone();
    let mut wrong_left = 1;
    for t in export.as_array_mut().unwrap() {
        let Some(choice) = judgement(t["data"]["rule"].as_str().unwrap(), &mut wrong_left) else {
            continue;
        };
        t["annotations"] = serde_json::json!([{"was_cancelled": false, "result": [
            {"from_name": "judgement", "to_name": "text", "type": "choices",
             "value": {"choices": [choice]}}]}]);
    }
    let ls = j.work.path().join("export.json");
    std::fs::write(&ls, export.to_string()).unwrap();
    let o = kcurate(&[
        "audit",
        "precision",
        j.dir.to_str().unwrap(),
        "--labels",
        ls.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&o), plain, "{}", stderr(&o));
}

/// The recipe names the judgements: the card and report.html carry the figures, and the
/// file is an input of the release.
#[test]
fn judgements_named_by_the_recipe_reach_the_card_report_and_manifest() {
    let j = judged_sample();
    let (_c, judged) = default_variant(&[(
        "[task]",
        &format!(
            "[audit]\njudgements = {:?}\n\n[task]",
            j.labels.to_str().unwrap()
        ),
    )]);
    let card = std::fs::read_to_string(judged.join("README.md")).unwrap();
    assert!(
        card.contains(&format!("- {DEDUP_EXACT_PRECISION}\n")),
        "{card}"
    );
    assert!(
        card.contains("- rule filter.too_short_v2: not judged\n"),
        "{card}"
    );
    let html = std::fs::read_to_string(judged.join("report.html")).unwrap();
    assert!(html.contains(&format!("<li>{DEDUP_EXACT_PRECISION}</li>")));
    let m = manifest(&judged);
    assert_eq!(m["rule_precision"]["dedup.exact"]["correct"], 3);
    assert!(
        m["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["path"].as_str().unwrap().ends_with("judged.tsv")),
        "{}",
        m["inputs"]
    );
    // The positional form of `audit` still works next to its subcommands.
    let o = kcurate(&["audit", judged.to_str().unwrap(), "--stage", "noise"]);
    assert!(
        o.status.success() && stdout(&o).contains("noise.hashtag"),
        "{}",
        stderr(&o)
    );
}

/// The rows (header left out) of `audit sample` over the sample release, 3 per rule, with
/// `extra` filters, written under `work/name`.
fn sample_rows(dir: &Path, work: &Path, name: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--per-rule", "3"];
    args.extend_from_slice(extra);
    let tsv = audit_sample(dir, &work.join(name), &args);
    tsv.lines().skip(1).map(str::to_string).collect()
}

fn rule_of(l: &str) -> &str {
    l.split('\t').nth(2).unwrap()
}

fn stage_of(l: &str) -> &str {
    l.split('\t').nth(1).unwrap()
}

/// `audit sample --rule`: one rule's stratum is the same as in the full sample (a curator
/// judging one rule gets the same rows either way).
#[test]
fn audit_sample_by_rule_keeps_the_rules_stratum_as_drawn() {
    let (_a, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let all = sample_rows(&dir, work.path(), "all", &[]);
    let one = sample_rows(&dir, work.path(), "one", &["--rule", "dedup.exact"]);
    let want: Vec<String> = all
        .iter()
        .filter(|l| rule_of(l) == "dedup.exact")
        .cloned()
        .collect();
    assert!(!want.is_empty());
    assert_eq!(
        one, want,
        "one rule's stratum is the same as in the full sample"
    );
}

/// `audit sample --stage`: the strata of the stages named, as drawn; with `--rule` too, only
/// what passes both.
#[test]
fn audit_sample_by_stage_keeps_those_stages_strata_as_drawn() {
    let (_a, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let all = sample_rows(&dir, work.path(), "all", &[]);
    let two = sample_rows(
        &dir,
        work.path(),
        "two",
        &["--stage", "filter", "--stage", "noise"],
    );
    let want: Vec<String> = all
        .iter()
        .filter(|l| matches!(stage_of(l), "filter" | "noise"))
        .cloned()
        .collect();
    assert!(two.len() > 1 && two.iter().any(|l| stage_of(l) == "noise"));
    assert_eq!(two, want);
    let both = sample_rows(
        &dir,
        work.path(),
        "both",
        &["--stage", "dedup", "--rule", "noise.hashtag"],
    );
    assert!(
        both.is_empty(),
        "a rule outside the stage: nothing passes both"
    );
}

#[test]
fn audit_sample_refuses_a_rule_the_release_never_used_and_writes_nothing() {
    let (_a, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "audit",
        "sample",
        dir.to_str().unwrap(),
        "--rule",
        "toxicity.no_such_rule",
        "--out",
        work.path().join("typo").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("has no rule toxicity.no_such_rule"),
        "{}",
        stderr(&o)
    );
    assert!(
        !work.path().join("typo").exists(),
        "nothing written on a refused filter"
    );
}

/// Precision over all rules, then over one rule or one stage: only the rules asked for,
/// each line as in the full report.
#[test]
fn audit_precision_reports_only_the_rules_and_stages_asked_for() {
    let (_a, dir) = default_release("2");
    let work = tempfile::tempdir().unwrap();
    let all = sample_rows(&dir, work.path(), "all", &[]);
    let mut filled =
        String::from("item\tstage\trule\taction\ttext\tbefore\tafter\ttext_hash\tjudgement\n");
    for l in &all {
        filled.push_str(l);
        filled.push_str("correct\n");
    }
    let labels = work.path().join("judged.tsv");
    std::fs::write(&labels, filled).unwrap();
    let (every, _) = precision(&dir, &labels, &[]);
    let (only, _) = precision(&dir, &labels, &["--rule", "dedup.exact"]);
    let line = only
        .lines()
        .find(|l| l.starts_with("rule dedup.exact:"))
        .expect("dedup.exact line");
    assert!(every.contains(line), "{every}");
    assert!(
        only.lines()
            .filter(|l| l.starts_with("rule "))
            .all(|l| l.starts_with("rule dedup.exact:")),
        "{only}"
    );
    let (stage, _) = precision(&dir, &labels, &["--stage", "filter"]);
    assert!(
        stage
            .lines()
            .filter(|l| l.starts_with("rule "))
            .all(|l| l.starts_with("rule filter.")),
        "{stage}"
    );
    assert!(stage.contains("rule filter."), "{stage}");
}
