//! `kcurate agree` run as a user runs it: Label Studio exports (cancelled annotations,
//! results without a choice, comments and other controls, JSON / JSON-MIN / CSV), values that
//! are not numbers where numbers are needed, and a crowd of 10,000 annotators.

mod common;

use common::{kcurate, stderr, stdout};
use serde_json::{Value, json};
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn labels(out: &str) -> Vec<(String, Value)> {
    out.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["item"].as_str().unwrap().to_string(), v["label"].clone())
        })
        .collect()
}

fn choice(name: &str, c: &[&str]) -> Value {
    json!({"from_name": name, "to_name": "text", "type": "choices", "value": {"choices": c}})
}

fn comment(text: &str) -> Value {
    json!({"from_name": "comment", "to_name": "text", "type": "textarea", "value": {"text": [text]}})
}

fn ann(who: &str, result: Vec<Value>) -> Value {
    json!({"completed_by": {"email": who}, "was_cancelled": false, "result": result})
}

/// Two tasks: p1 gets entailment from a and b, a cancelled "contradiction" by c and d,
/// and a comment; p2 gets neutral from a, an annotation with only a comment from b.
fn export() -> Value {
    let mut cancelled = ann("c", vec![choice("label", &["contradiction"])]);
    cancelled["was_cancelled"] = json!(true);
    let mut skipped = ann("d", vec![choice("label", &["contradiction"])]);
    skipped["was_cancelled"] = json!(true);
    json!([
        {"id": 1, "data": {"item": "p1", "premise": "문장"}, "annotations": [
            ann("a", vec![choice("label", &["entailment"]), comment("쉬움")]),
            ann("b", vec![choice("label", &["entailment"])]),
            cancelled,
            skipped,
        ]},
        {"id": 2, "data": {"item": "p2", "premise": "문장"}, "annotations": [
            ann("a", vec![choice("label", &["neutral"])]),
            ann("b", vec![comment("모르겠음")]),
        ]}
    ])
}

#[test]
fn cancelled_label_studio_annotations_are_not_votes() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "ls.json",
        &serde_json::to_string_pretty(&export()).unwrap(),
    );
    let o = kcurate(&[
        "agree",
        "--input",
        &p,
        "--format",
        "label-studio",
        "--aggregate",
        "majority",
        "--min-votes",
        "2",
    ]);
    // Two cancelled contradictions would tie the two entailments (no gold) if they counted.
    assert_eq!(
        labels(&stdout(&o))[0],
        ("p1".to_string(), json!("entailment")),
        "{}",
        stderr(&o)
    );
    let e = stderr(&o);
    assert_eq!(e.matches("agree.cancelled").count(), 2, "{e}");
    // The JSON summary counts them; only 4 votes remain.
    let o = kcurate(&["agree", "--input", &p, "--format", "label-studio", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["labels"], 3, "{v}");
    assert_eq!(v["cancelled_annotations"], 2);
}

#[test]
fn a_result_without_a_choice_is_a_rejected_row_not_an_empty_label() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "ls.json", &export().to_string());
    let o = kcurate(&[
        "agree",
        "--input",
        &p,
        "--format",
        "label-studio",
        "--aggregate",
        "majority",
    ]);
    // b's comment-only annotation of p2 is no vote: p2's gold is a's neutral, and no "" label
    // appears anywhere.
    let got = labels(&stdout(&o));
    assert_eq!(
        got[1],
        ("p2".to_string(), json!("neutral")),
        "{}",
        stderr(&o)
    );
    assert!(!stdout(&o).contains(r#""label":"""#), "{}", stdout(&o));
    let e = stderr(&o);
    assert_eq!(e.matches("agree.no_label").count(), 1, "{e}");
    assert!(e.contains("ls.json:1: task 2 annotation 2"), "{e}");
    assert_eq!(o.status.code(), Some(3), "a rejected row exits 3");
    let o = kcurate(&["agree", "--input", &p, "--format", "label-studio", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rejected_rows"], 1, "{v}");
}

#[test]
fn comments_and_other_controls_are_not_votes() {
    let d = tempfile::tempdir().unwrap();
    // Two choice controls: votes come from the one named, the comment never counts.
    let e = json!([{"data": {"item": "x"}, "annotations": [
        ann("a", vec![choice("label", &["entailment"]), choice("quality", &["bad"]), comment("?")]),
        ann("b", vec![choice("label", &["entailment"]), choice("quality", &["good"])]),
    ]}]);
    let p = write(d.path(), "two.json", &e.to_string());
    let o = kcurate(&[
        "agree",
        "--input",
        &p,
        "--format",
        "label-studio",
        "--from-name",
        "quality",
        "--aggregate",
        "majority",
    ]);
    assert_eq!(
        labels(&stdout(&o))[0].1,
        Value::Null,
        "bad vs good: no gold"
    );
    let o = kcurate(&["agree", "--input", &p, "--format", "label-studio", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("two controls carry votes"),
        "{}",
        stderr(&o)
    );
    // The labeling config names the control.
    let cfg = write(
        d.path(),
        "config.xml",
        r#"<View><Text name="text" value="$premise"/><Choices name="label" toName="text"><Choice value="entailment"/></Choices><TextArea name="comment" toName="text"/></View>"#,
    );
    let o = kcurate(&[
        "agree",
        "--input",
        &p,
        "--format",
        "label-studio",
        "--label-config",
        &cfg,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["labels"].clone(), v["annotators"].clone()),
        (json!(2), json!(2)),
        "{v}"
    );
}

/// The batch of `export()` as Label Studio's converter writes it in JSON-MIN and CSV: one
/// row per annotation that was not cancelled, the control's value under its name, the
/// comment under its own.
fn json_min() -> Value {
    json!([
        {"item": "p1", "premise": "문장", "id": 1, "label": "entailment", "comment": "쉬움", "annotator": "a", "annotation_id": 1},
        {"item": "p1", "premise": "문장", "id": 1, "label": "entailment", "annotator": "b", "annotation_id": 2},
        {"item": "p2", "premise": "문장", "id": 2, "label": "neutral", "annotator": "a", "annotation_id": 5},
        {"item": "p2", "premise": "문장", "id": 2, "comment": "모르겠음", "annotator": "b", "annotation_id": 6}
    ])
}

const CSV: &str = "annotation_id,annotator,comment,id,item,label,premise\n\
1,a,쉬움,1,p1,entailment,문장\n\
2,b,,1,p1,entailment,문장\n\
5,a,,2,p2,neutral,문장\n\
6,b,모르겠음,2,p2,,문장\n\
,,,3,p3,,문장\n";

#[test]
fn label_studio_json_json_min_and_csv_exports_give_the_same_votes() {
    let d = tempfile::tempdir().unwrap();
    let full = write(d.path(), "full.json", &export().to_string());
    let min = write(d.path(), "min.json", &json_min().to_string());
    let csv = write(d.path(), "export.csv", CSV);
    let run = |p: &str| {
        let o = kcurate(&[
            "agree",
            "--input",
            p,
            "--format",
            "label-studio",
            "--from-name",
            "label",
            "--json",
            "--bootstrap",
            "0",
        ]);
        let mut v: Value = serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("{p}: {e}: {}", stderr(&o)));
        v.as_object_mut().unwrap().remove("cancelled_annotations");
        (v, stderr(&o).matches("agree.no_label").count())
    };
    let (a, na) = run(&full);
    assert_eq!(
        (a["items"].clone(), a["labels"].clone()),
        (json!(2), json!(3)),
        "{a}"
    );
    assert_eq!(run(&min), (a.clone(), na));
    assert_eq!(run(&csv), (a, na));
    // JSON-MIN and CSV do not say which column is the control.
    let o = kcurate(&[
        "agree",
        "--input",
        &csv,
        "--format",
        "label-studio",
        "--json",
    ]);
    assert!(stderr(&o).contains("--from-name"), "{}", stderr(&o));
}

#[test]
fn mean_at_interval_level_rejects_values_that_are_not_numbers() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "s.tsv",
        "item\tannotator\tvalue\nx\ta\t3\nx\tb\tfour\nx\tc\tNaN\nx\td\tinf\nx\te\t1e400\nx\tf\t\nx\tg\t4\n",
    );
    let o = kcurate(&[
        "agree",
        "--input",
        &p,
        "--aggregate",
        "mean",
        "--level",
        "interval",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    for (line, rule) in [
        (3, "agree.not_a_number"),
        (4, "agree.not_a_number"),
        (5, "agree.not_a_number"),
        (6, "agree.not_a_number"),
        (7, "agree.no_label"),
    ] {
        assert!(
            e.contains(&format!("{rule}: {p}:{line}: value")),
            "{rule} at line {line}: {e}"
        );
    }
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["real_label"], 3.5, "{v}");
}

#[test]
fn interval_level_errors_name_file_line_and_field() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "s.tsv",
        "item\tannotator\tvalue\nx\ta\t3\nx\tb\tfour\n",
    );
    let o = kcurate(&["agree", "--input", &p, "--level", "interval"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("{p}:3:value: \"four\" is not a finite number")),
        "{}",
        stderr(&o)
    );
    let j = write(
        d.path(),
        "s.jsonl",
        "{\"item\":\"x\",\"annotator\":\"a\",\"label\":2}\n{\"item\":\"x\",\"annotator\":\"b\",\"label\":\"NaN\"}\n",
    );
    let o = kcurate(&["agree", "--input", &j, "--level", "ratio"]);
    assert!(
        stderr(&o).contains(&format!("{j}:2:label:")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ten_thousand_annotators_finish() {
    // 2,000 items × 5 labels from a crowd of 10,000 (before: a dense items × annotators
    // matrix and pairwise work over every pair of annotators; 10k did not finish in 300 s).
    let d = tempfile::tempdir().unwrap();
    let mut s = String::from("item\tannotator\tlabel\n");
    for i in 0..2000u64 {
        for k in 0..5u64 {
            let w = (i * 7919 + k * 2003) % 10_000;
            let l = (i + u64::from(k == 4)) % 3;
            s.push_str(&format!("t{i}\tw{w:05}\t{l}\n"));
        }
    }
    let p = write(d.path(), "crowd.tsv", &s);
    // Output to a file: a pipe nobody reads while waiting would fill up and block.
    let out = d.path().join("out.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kcurate"))
        .args(["agree", "--input", &p, "--json"])
        .stdout(std::fs::File::create(&out).unwrap())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed().as_secs() > 120 {
            child.kill().unwrap();
            panic!("agree --json on 10,000 annotators ran past 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(
        (v["items"].clone(), v["labels"].clone()),
        (json!(2000), json!(10_000))
    );
    assert_eq!(
        v["reliability"].as_array().unwrap().len(),
        v["annotators"].as_u64().unwrap() as usize
    );
}

#[test]
fn a_label_studio_task_of_an_odd_shape_is_a_rejected_row_naming_the_task() {
    let d = tempfile::tempdir().unwrap();
    let e = json!([
        {"id": 1, "data": {"item": "p1"}, "annotations": [
            ann("a", vec![choice("label", &["entailment"])]),
            ann("b", vec![choice("label", &["entailment"])]),
        ]},
        {"id": 2, "data": {"item": "p2"}, "annotations": {"0": ann("a", vec![choice("label", &["neutral"])])}},
        {"id": 3, "data": {"item": "p3"}, "annotations": [
            "not an annotation",
            {"completed_by": {"email": "b"}, "result": {"0": choice("label", &["neutral"])}},
        ]},
    ]);
    let p = write(d.path(), "odd.json", &e.to_string());
    let o = kcurate(&["agree", "--input", &p, "--format", "label-studio"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.matches("agree.bad_task").count(), 3, "{err}");
    assert!(err.contains("task 2: `annotations` is an object"), "{err}");
    assert!(err.contains("task 3 annotation 1"), "{err}");
    assert!(
        err.contains("task 3 annotation 2: `result` is an object"),
        "{err}"
    );
}
