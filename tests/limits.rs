//! `[limits]` through the real binary: past each limit (line length, record size, nesting
//! depth, annotators per item) an input becomes a decision naming file:line and its rule
//! id; the run goes on (exit 3), or stops with `on_error = "fail"`; a very long line is
//! skipped, never read into memory.

mod common;
use common::*;
use std::io::Write;
use std::path::Path;

/// A one-source recipe over `file` (next to the recipe), with `limits` as the `[limits]`
/// table's body (none when empty) and `extra` lines in the source table.
fn recipe(
    dir: &Path,
    file: &str,
    format: &str,
    limits: &str,
    extra: &str,
    on_error: &str,
) -> String {
    let mut t = format!(
        "name = \"lim\"\nversion = \"1\"\nseed = 1\non_error = \"{on_error}\"\n\n[[source]]\nid = \"a\"\n\
         path = \"{file}\"\nformat = \"{format}\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n\
         {extra}\n[source.fields]\ntext = \"text\"\n"
    );
    if !limits.is_empty() {
        t.push_str(&format!("\n[limits]\n{limits}\n"));
    }
    let p = dir.join("r.toml");
    std::fs::write(&p, t).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs the recipe; returns the exit code, stderr, the decisions and the released texts.
fn run(dir: &Path, recipe: &str) -> (Option<i32>, String, Vec<serde_json::Value>, Vec<String>) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = dir.join(format!("out-{n}"));
    let o = kcurate(&["run", recipe, "--out", out.to_str().unwrap()]);
    let rel = out.join("lim/1");
    let decisions = std::fs::read_to_string(rel.join("audit/decisions.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut texts = Vec::new();
    for split in ["train", "validation", "test"] {
        if let Ok(t) = std::fs::read_to_string(rel.join(format!("sentences/{split}.jsonl"))) {
            for l in t.lines() {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                texts.push(v["text"].as_str().unwrap().to_string());
            }
        }
    }
    texts.sort();
    (o.status.code(), stderr(&o), decisions, texts)
}

/// The one `ingest.over_limit` decision, checked to name `origin` (file:line).
fn over_limit<'a>(decisions: &'a [serde_json::Value], origin: &str) -> &'a serde_json::Value {
    let found: Vec<&serde_json::Value> = decisions
        .iter()
        .filter(|d| d["rule"] == "ingest.over_limit")
        .collect();
    assert_eq!(found.len(), 1, "{decisions:?}");
    let d = found[0];
    assert_eq!(d["origin"], origin, "{d}");
    assert!(
        d["detail"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{origin}:")),
        "{d}"
    );
    d
}

#[test]
fn a_line_past_max_line_bytes_is_quarantined_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let long = "가".repeat(2000);
    std::fs::write(
        d.path().join("a.jsonl"),
        format!(
            "{{\"text\":\"첫 문장이다.\"}}\n{{\"text\":\"{long}\"}}\n{{\"text\":\"셋째 문장이다.\"}}\n"
        ),
    )
    .unwrap();
    let r = recipe(
        d.path(),
        "a.jsonl",
        "jsonl",
        "max_line_bytes = 1000",
        "",
        "quarantine",
    );
    let (code, err, ds, texts) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    let dec = over_limit(&ds, "a.jsonl:2");
    assert!(
        dec["detail"]
            .as_str()
            .unwrap()
            .contains("limits.max_line_bytes (1000 bytes"),
        "{dec}"
    );
    assert_eq!(texts, ["셋째 문장이다.", "첫 문장이다."]);
    // The quoted line is cut, not the 6 kB line.
    assert!(
        dec["text"].as_str().unwrap().chars().count() <= 500,
        "{dec}"
    );

    // The same line under on_error = "fail" stops the run, naming file:line and the rule.
    let r = recipe(
        d.path(),
        "a.jsonl",
        "jsonl",
        "max_line_bytes = 1000",
        "",
        "fail",
    );
    let out = d.path().join("out-fail");
    let o = kcurate(&["run", &r, "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a.jsonl:2") && stderr(&o).contains("max_line_bytes"),
        "{}",
        stderr(&o)
    );
    assert!(!out.join("lim/1").exists());
}

/// A 512 MiB line (gzip: under 1 MB on disk) under the default limits, with the address
/// space capped well below the line's size: the reader skips it to its newline instead of
/// holding it (it once grew a buffer to the line's length).
#[test]
fn a_very_long_line_is_skipped_without_reading_it_into_memory() {
    let d = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"text\":\"before the long line.\"}\n{\"text\":\"")
        .unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..512 {
        gz.write_all(&chunk).unwrap();
    }
    gz.write_all(b"\"}\n{\"text\":\"after the long line.\"}\n")
        .unwrap();
    std::fs::write(d.path().join("a.jsonl.gz"), gz.finish().unwrap()).unwrap();
    let r = recipe(d.path(), "a.jsonl.gz", "jsonl", "", "", "quarantine");
    let out = d.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("kcurate");
    // 400 MiB of address space: enough for the run (threads, allocator arenas), not for
    // the line.
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 409600 && exec \"{}\" run \"{r}\" --out \"{}\" --threads 1",
            bin.display(),
            out.display()
        ))
        .env("KCURATE_PII_KEY", SAMPLE_KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let ds: Vec<serde_json::Value> =
        std::fs::read_to_string(out.join("lim/1/audit/decisions.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    over_limit(&ds, "a.jsonl.gz:2");
}

#[test]
fn a_csv_row_past_the_limits_is_quarantined_and_the_rows_after_it_are_read() {
    let d = tempfile::tempdir().unwrap();
    // Line 3 is longer than max_line_bytes; the row of lines 5-7 has a quoted field spanning
    // lines, one of them (6) too long.
    let long = "x".repeat(600);
    std::fs::write(
        d.path().join("a.csv"),
        format!(
            "id,text\n1,first row\n2,{long}\n3,third row\n4,\"quoted\n{long}\nend\"\n5,fifth row\n"
        ),
    )
    .unwrap();
    let r = recipe(
        d.path(),
        "a.csv",
        "csv",
        "max_line_bytes = 500",
        "",
        "quarantine",
    );
    let (code, err, ds, texts) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    let over: Vec<&str> = ds
        .iter()
        .filter(|d| d["rule"] == "ingest.over_limit")
        .map(|d| d["origin"].as_str().unwrap())
        .collect();
    assert_eq!(over, ["a.csv:3", "a.csv:5"], "{ds:?}");
    assert_eq!(texts, ["fifth row", "first row", "third row"]);
}

#[test]
fn a_quoted_field_past_max_record_bytes_stops_that_file_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    // An unclosed quote on line 3: without the record limit, the rest of the file (10k
    // short lines) would be read into that one field.
    let mut t = String::from("id,text\n1,first row\n2,\"never closed\n");
    for i in 0..10_000 {
        t.push_str(&format!("{i},filler line\n"));
    }
    std::fs::write(d.path().join("a.csv"), t).unwrap();
    let r = recipe(
        d.path(),
        "a.csv",
        "csv",
        "max_record_bytes = 4096",
        "",
        "quarantine",
    );
    let (code, err, ds, texts) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    let dec = over_limit(&ds, "a.csv:3");
    assert!(
        dec["detail"]
            .as_str()
            .unwrap()
            .contains("max_record_bytes (4096 bytes)"),
        "{dec}"
    );
    assert_eq!(texts, ["first row"]);
    // A source's own max_record_bytes overrides [limits].
    let r = recipe(
        d.path(),
        "a.csv",
        "csv",
        "max_record_bytes = 4096",
        "max_record_bytes = 100000000",
        "quarantine",
    );
    let (code, err, ds, _) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        ds.iter()
            .any(|d| d["rule"] == "ingest.malformed" && d["origin"] == "a.csv:3"),
        "{ds:?}"
    );
}

#[test]
fn a_record_nested_past_max_depth_is_quarantined() {
    let d = tempfile::tempdir().unwrap();
    let deep = format!("{}1{}", "[".repeat(9), "]".repeat(9));
    std::fs::write(
        d.path().join("a.jsonl"),
        format!(
            "{{\"text\":\"얕은 문장이다.\",\"meta\":{{\"a\":[1]}}}}\n{{\"text\":\"깊은 문장이다.\",\"meta\":{deep}}}\n"
        ),
    )
    .unwrap();
    let r = recipe(
        d.path(),
        "a.jsonl",
        "jsonl",
        "max_depth = 5",
        "",
        "quarantine",
    );
    let (code, err, ds, texts) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    let dec = over_limit(&ds, "a.jsonl:2");
    assert!(
        dec["detail"]
            .as_str()
            .unwrap()
            .contains("a.jsonl:2: meta: JSON nested deeper than limits.max_depth (5 levels)"),
        "{dec}"
    );
    assert_eq!(texts, ["얕은 문장이다."]);
    // 100k levels under the default limit: a decision, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    std::fs::write(
        d.path().join("a.jsonl"),
        format!("{{\"text\":\"문장이다.\"}}\n{{\"text\":\"x\",\"meta\":{deep}}}\n"),
    )
    .unwrap();
    let r = recipe(d.path(), "a.jsonl", "jsonl", "", "", "quarantine");
    let (code, err, ds, _) = run(d.path(), &r);
    assert_eq!(code, Some(3), "{err}");
    let dec = over_limit(&ds, "a.jsonl:2");
    assert!(
        dec["detail"].as_str().unwrap().contains("(64 levels)"),
        "{dec}"
    );
}

/// A JSON-array element nested past the depth limit that takes the general parse path (keys
/// with escapes, a syntax error deep inside) is one `ingest.over_limit` decision naming its
/// line; the elements after it are read (every element is a record or a decision), not the
/// rest of the file skipped.
#[test]
fn a_json_array_element_nested_past_128_levels_is_one_decision_and_the_file_goes_on() {
    let d = tempfile::tempdir().unwrap();
    for deep in [
        // Past the limit and broken inside: the limit is named, and the file goes on (this
        // one skipped the rest of the file before).
        format!(
            "{{\"text\":\"x\",\"m\":{}1 2{}}}",
            "[".repeat(300),
            "]".repeat(300)
        ),
        format!("{}{}", "[".repeat(200), "]".repeat(200)),
        // Strings holding brackets and a key with an escape (the general path from the start).
        format!(
            "{{\"te\\u0078t\":\"x\",\"m\":{}\"]}}\"{}}}",
            "{\"a\":[".repeat(100),
            "]}".repeat(100)
        ),
    ] {
        std::fs::write(
            d.path().join("a.json"),
            format!(
                "[{{\"text\":\"첫 문장이다.\"}},\n{deep},\n{{\"text\":\"둘째 문장이다.\"}},\n{deep}\n,{{\"text\":\"셋째 문장이다.\"}}]\n"
            ),
        )
        .unwrap();
        let r = recipe(d.path(), "a.json", "json", "", "", "quarantine");
        let (code, err, ds, texts) = run(d.path(), &r);
        assert_eq!(code, Some(3), "{err}");
        let deep: Vec<&serde_json::Value> = ds
            .iter()
            .filter(|d| d["rule"] == "ingest.over_limit")
            .collect();
        assert_eq!(deep.len(), 2, "{ds:?}");
        assert_eq!(deep[0]["origin"], "a.json:2", "{ds:?}");
        assert_eq!(deep[1]["origin"], "a.json:4", "{ds:?}");
        assert!(
            deep[0]["detail"]
                .as_str()
                .unwrap()
                .contains("JSON nested deeper than limits.max_depth (64 levels)"),
            "{ds:?}"
        );
        assert!(
            !ds.iter().any(|d| d["rule"] == "ingest.malformed"),
            "{ds:?}"
        );
        assert_eq!(texts, ["둘째 문장이다.", "셋째 문장이다.", "첫 문장이다."]);
    }
}

#[test]
fn check_states_the_limits_and_refuses_bad_ones_by_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.jsonl"), "{\"text\":\"문장이다.\"}\n").unwrap();
    let r = recipe(d.path(), "a.jsonl", "jsonl", "", "", "quarantine");
    let o = kcurate(&["check", &r]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "limits: max_line_bytes 16777216, max_record_bytes 16777216, max_depth 64, \
             max_annotators_per_item 1000 (the defaults: the recipe has no [limits])"
        ),
        "{}",
        stdout(&o)
    );
    let r = recipe(
        d.path(),
        "a.jsonl",
        "jsonl",
        "max_depth = 500",
        "",
        "quarantine",
    );
    let o = kcurate(&["check", &r]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("r.toml:18: limits.max_depth: must be from 1 to 128 (got 500)"),
        "{}",
        stderr(&o)
    );
    let r = recipe(
        d.path(),
        "a.jsonl",
        "jsonl",
        "max_lines = 5",
        "",
        "quarantine",
    );
    let o = kcurate(&["check", &r]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("max_lines"), "{}", stderr(&o));
}

#[test]
fn agree_quarantines_annotators_past_the_limit_per_item_and_long_lines() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("votes.tsv");
    let long = "y".repeat(300);
    std::fs::write(
        &p,
        format!(
            "item\tannotator\tlabel\nq1\ta1\tyes\nq1\ta2\tyes\nq1\ta3\tno\nq1\ta4\tyes\nq2\ta4\tno\nq2\ta1\tno\nq3\ta1\t{long}\nq3\ta2\tyes\n"
        ),
    )
    .unwrap();
    let o = kcurate(&[
        "agree",
        "--input",
        p.to_str().unwrap(),
        "--max-annotators-per-item",
        "3",
        "--max-line-bytes",
        "200",
        "--json",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    let shown = p.display().to_string();
    assert!(
        e.contains(&format!(
            "agree.too_many_annotators: {shown}:5: item \"q1\" already has 3 annotators"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "agree.over_limit: {shown}:8: line longer than limits.max_line_bytes (200 bytes)"
        )),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rejected_rows"], 2, "{v}");
    // Under the defaults every row counts.
    let o = kcurate(&[
        "agree",
        "--input",
        p.to_str().unwrap(),
        "--json",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `kcurate agree` over the Label Studio export `p` (JSON out, no bootstrap), `extra` added.
fn agree_label_studio(p: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "agree",
        "--input",
        p.to_str().unwrap(),
        "--format",
        "label-studio",
        "--json",
        "--bootstrap",
        "0",
    ];
    args.extend_from_slice(extra);
    kcurate(&args)
}

/// A Label Studio JSON export is read task by task with a byte cap per task: a task longer
/// than `--max-record-bytes` (or nested past max_depth) is an `agree.over_limit` decision
/// naming file:line and the task's index, skipped unread; the tasks after it count. The same
/// for JSON-MIN rows.
#[test]
fn a_label_studio_task_past_max_record_bytes_is_one_decision_and_the_export_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let task = |id: &str, who: &str, choice: &str, pad: usize| {
        format!(
            "{{\"id\": \"{id}\", \"data\": {{\"text\": \"{}\"}}, \"annotations\": [{{\"completed_by\": {{\"email\": \"{who}\"}}, \"result\": [{{\"from_name\": \"label\", \"type\": \"choices\", \"value\": {{\"choices\": [\"{choice}\"]}}}}]}}]}}",
            "가".repeat(pad)
        )
    };
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let p = d.path().join("export.json");
    std::fs::write(
        &p,
        format!(
            "[\n{},\n{},\n{},\n{},\n{deep},\n{}\n]\n",
            task("t1", "a", "yes", 1),
            task("t1", "b", "yes", 1),
            task("t2", "a", "no", 20_000),
            task("t2", "b", "no", 1),
            task("t3", "a", "yes", 1),
        ),
    )
    .unwrap();
    let run = |extra: &[&str]| agree_label_studio(&p, extra);
    let o = run(&["--max-record-bytes", "10000"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    let shown = p.display().to_string();
    assert!(
        e.contains(&format!(
            "agree.over_limit: {shown}:4: task 3: longer than limits.max_record_bytes (10000 bytes"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "agree.over_limit: {shown}:6: task 5: JSON nested deeper than limits.max_depth (64 levels)"
        )),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rejected_rows"], 2, "{v}");
    // Votes of t1 (a, b), t2 (b) and t3 (a): 4 of 3 items × 2 annotators.
    assert!(
        (v["coverage"].as_f64().unwrap() - 4.0 / 6.0).abs() < 1e-5,
        "{v}"
    );
    // Under the default cap the long task counts.
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rejected_rows"], 1, "{v}");
    assert!(
        (v["coverage"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-5,
        "{v}"
    );
    // JSON-MIN: one row per annotation, the same cap.
    std::fs::write(
        &p,
        format!(
            "[{{\"id\": \"t1\", \"annotator\": \"a\", \"label\": \"yes\"}},\n{{\"id\": \"t1\", \"annotator\": \"b\", \"label\": \"{}\"}},\n{{\"id\": \"t1\", \"annotator\": \"c\", \"label\": \"yes\"}},\n{{\"id\": \"t2\", \"annotator\": \"a\", \"label\": \"no\"}},\n{{\"id\": \"t2\", \"annotator\": \"c\", \"label\": \"no\"}}]",
            "n".repeat(500)
        ),
    )
    .unwrap();
    let o = run(&["--max-record-bytes", "200", "--from-name", "label"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "agree.over_limit: {shown}:2: task 2: longer than limits.max_record_bytes (200 bytes"
        )),
        "{}",
        stderr(&o)
    );
}
