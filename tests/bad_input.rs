//! Bad input through the real binary: each defect becomes an `ingest.malformed` decision
//! naming file:line, the run finishes and the counts balance; with `on_error = "fail"` the
//! run stops with one message naming file:line:field.

mod common;
use common::*;
use std::path::Path;

fn recipe(dir: &Path, file: &str, format: &str, extra: &str, on_error: &str) -> std::path::PathBuf {
    let p = dir.join("r.toml");
    std::fs::write(&p, format!(
        "name = \"bad\"\nversion = \"1\"\nseed = 1\non_error = \"{on_error}\"\n[[source]]\nid = \"a\"\npath = \"{}\"\nformat = \"{format}\"\nlicense = \"CC0-1.0\"\ndomain = \"x\"\nstyle = \"formal\"\n{extra}\n[source.fields]\ntext = \"text\"\n",
        dir.join(file).display()
    )).unwrap();
    p
}

fn run_bad(file: &str, bytes: &[u8], format: &str, extra: &str) -> (serde_json::Value, String) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(file), bytes).unwrap();
    let r = recipe(d.path(), file, format, extra, "quarantine");
    let out = d.path().join("out");
    let o = kcurate(&["run", r.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "a run with quarantined input exits 3: {}",
        stderr(&o)
    );
    let rel = out.join("bad/1");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rel.join("manifest.json")).unwrap()).unwrap();
    let decisions = std::fs::read_to_string(rel.join("audit/decisions.jsonl")).unwrap();
    let ingest = m["stages"][0].clone();
    assert_eq!(ingest["name"], "ingest");
    assert_eq!(
        ingest["items_in"].as_u64().unwrap(),
        ingest["items_out"].as_u64().unwrap() + ingest["dropped"].as_u64().unwrap()
    );
    (ingest, decisions)
}

#[test]
fn truncated_json_line() {
    let (ingest, d) = run_bad(
        "a.jsonl",
        b"{\"text\":\"a\"}\n{\"text\":\"b\n{\"text\":\"c\"}\n",
        "jsonl",
        "",
    );
    assert_eq!(
        (ingest["items_out"].as_u64(), ingest["dropped"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(
        d.contains("ingest.malformed") && d.contains("a.jsonl:2"),
        "{d}"
    );
}

#[test]
fn invalid_utf8_names_the_byte_offset() {
    let (_, d) = run_bad("a.jsonl", b"{\"text\":\"\xed\xa0\x80\"}\n", "jsonl", "");
    assert!(
        d.contains("a.jsonl:1") && d.contains("byte offset 9"),
        "{d}"
    );
}

/// (An empty file is not a decision: it stops the run, see `tests/ingest_inputs.rs`.)
#[test]
fn missing_field_wrong_type() {
    let (_, d) = run_bad("a.jsonl", b"{\"x\":1}\n{\"text\":[1]}\n", "jsonl", "");
    assert!(
        d.contains("a.jsonl:1: text: missing field") && d.contains("a.jsonl:2: text: wrong type"),
        "{d}"
    );
}

/// A missing file stops the run with exit 2 and a message, not a crash (it was once a
/// decision in a release without the source, exit 3).
#[test]
fn missing_file_stops_the_run_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    let r = recipe(d.path(), "nope.jsonl", "jsonl", "", "quarantine");
    let out = d.path().join("out");
    let o = kcurate(&["run", r.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("nope.jsonl") && e.contains("cannot open"), "{e}");
    assert!(!out.join("bad/1").exists());
}

#[test]
fn crlf_bom_and_a_10mb_line_are_read() {
    let big = format!("{{\"text\":\"{}\"}}\r\n", "가".repeat((10 << 20) / 3));
    let mut bytes = b"\xEF\xBB\xBF{\"text\":\"a\"}\r\n".to_vec();
    bytes.extend_from_slice(big.as_bytes());
    bytes.extend_from_slice(b"{\"text\":\"b\"}\r\n{bad\r\n");
    let (ingest, _) = run_bad("a.jsonl", &bytes, "jsonl", "");
    assert_eq!(
        (ingest["items_out"].as_u64(), ingest["dropped"].as_u64()),
        (Some(3), Some(1))
    );
}

#[test]
fn tsv_row_with_too_few_columns() {
    let (ingest, d) = run_bad("a.tsv", b"id\ttext\n1\tok\n2\n", "tsv", "");
    assert_eq!(ingest["dropped"].as_u64(), Some(1));
    assert!(d.contains("a.tsv:3: text: too few columns"), "{d}");
}

#[test]
fn on_error_fail_stops_with_file_line_field() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.jsonl"),
        b"{\"text\":\"a\"}\n{\"txt\":\"b\"}\n",
    )
    .unwrap();
    let r = recipe(d.path(), "a.jsonl", "jsonl", "", "fail");
    let out = d.path().join("out");
    let o = kcurate(&["run", r.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("a.jsonl:2: text: missing field"), "{e}");
    assert_eq!(e.lines().filter(|l| l.contains("error")).count(), 1, "{e}");
    assert!(!out.join("bad/1").exists(), "a failed run left a release");
    let left: Vec<String> = std::fs::read_dir(out.join("bad"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !left.iter().any(|n| n.starts_with(".tmp-")),
        "a failed run left its temporary directory: {left:?}"
    );
}

/// An error names the file and says what went wrong once (typed errors carry their cause;
/// the binary does not print it twice).
#[test]
fn a_missing_release_is_named_once_with_its_cause() {
    let o = kcurate(&["verify", "/nonexistent/release"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("/nonexistent/release/manifest.json"), "{e}");
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
}
