//! Every kind of bad input becomes a malformed item naming file, line and field; good
//! records around it still come through.

use kcurate_core::recipe::{FieldMap, Format, SourceConfig, Style};
use kcurate_io::ingest::{Item, Malformed, read_source};
use std::path::Path;

fn source(path: &str, format: Format) -> SourceConfig {
    SourceConfig {
        id: "s".into(),
        path: path.into(),
        format,
        fields: FieldMap {
            text: "text".into(),
            id: None,
            date: None,
            label: None,
            extra: vec![],
            optional: vec![],
        },
        license: Some("CC0-1.0".into()),
        domain: "test".into(),
        style: Style::Colloquial,
        attribution: String::new(),
        header: true,
        columns: vec![],
        quote: None,
        max_record_bytes: Some(1 << 20),
        limit: 0,
        hf_id: None,
        original: false,
        limits: Default::default(),
    }
}

fn read(dir: &Path, src: &SourceConfig) -> (Vec<String>, Vec<Malformed>) {
    let mut texts = Vec::new();
    let mut bad = Vec::new();
    for item in read_source(src, dir) {
        match item {
            Item::Record(r) => texts.push(r.text),
            Item::Malformed(m) => bad.push(m),
        }
    }
    (texts, bad)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

#[test]
fn truncated_json_line_is_malformed_with_its_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.jsonl",
        b"{\"text\":\"one\"}\n{\"text\":\"tw\n{\"text\":\"three\"}\n",
    );
    let (texts, bad) = read(d.path(), &source("a.jsonl", Format::Jsonl));
    assert_eq!(texts, ["one", "three"]);
    assert_eq!(bad.len(), 1);
    assert_eq!((bad[0].file.as_str(), bad[0].line), ("a.jsonl", 2));
    assert!(bad[0].reason.contains("invalid JSON"), "{}", bad[0]);
}

#[test]
fn invalid_utf8_reports_the_byte_offset() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.jsonl",
        b"{\"text\":\"ok\"}\n{\"text\":\"\xff\"}\n",
    );
    let (texts, bad) = read(d.path(), &source("a.jsonl", Format::Jsonl));
    assert_eq!(texts, ["ok"]);
    assert_eq!(bad[0].line, 2);
    // line 1 is 14 bytes; the bad byte is the 10th of line 2.
    assert!(bad[0].reason.contains("byte offset 23"), "{}", bad[0]);
}

#[test]
fn missing_field_and_wrong_type_name_the_field() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.jsonl", b"{\"txt\":\"x\"}\n{\"text\":5}\n[1]\n");
    let (texts, bad) = read(d.path(), &source("a.jsonl", Format::Jsonl));
    assert!(texts.is_empty());
    assert_eq!(bad.len(), 3);
    assert_eq!(
        (bad[0].line, bad[0].field.as_str(), bad[0].reason.as_str()),
        (1, "text", "missing field")
    );
    assert_eq!(bad[1].field, "text");
    assert!(bad[1].reason.contains("wrong type"), "{}", bad[1]);
    assert!(
        bad[2].reason.contains("expected a JSON object"),
        "{}",
        bad[2]
    );
}

#[test]
fn empty_and_missing_files_are_reported() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "e.jsonl", b"");
    let (_, bad) = read(d.path(), &source("e.jsonl", Format::Jsonl));
    assert!(bad[0].reason.contains("empty file"), "{}", bad[0]);
    let (_, bad) = read(d.path(), &source("nope.jsonl", Format::Jsonl));
    assert_eq!(bad[0].file, "nope.jsonl");
    assert!(bad[0].reason.contains("cannot open"), "{}", bad[0]);
}

#[test]
fn crlf_and_bom_are_accepted() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.jsonl",
        b"\xEF\xBB\xBF{\"text\":\"a\"}\r\n{\"text\":\"b\"}\r\n",
    );
    let (texts, bad) = read(d.path(), &source("a.jsonl", Format::Jsonl));
    assert_eq!(texts, ["a", "b"]);
    assert!(bad.is_empty());
    write(
        d.path(),
        "a.tsv",
        b"\xEF\xBB\xBFtext\tlabel\r\n\xEC\x95\x88\xEB\x85\x95\t1\r\n",
    );
    let (texts, bad) = read(d.path(), &source("a.tsv", Format::Tsv));
    assert_eq!(texts, ["안녕"]);
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn a_10mb_line_is_read_and_an_oversized_one_quarantined() {
    let d = tempfile::tempdir().unwrap();
    let big = "가".repeat((10 << 20) / 3);
    let mut data = format!("{{\"text\":\"{big}\"}}\n").into_bytes();
    data.extend_from_slice(b"{\"text\":\"after\"}\n");
    write(d.path(), "big.jsonl", &data);
    let mut src = source("big.jsonl", Format::Jsonl);
    src.max_record_bytes = Some(16 << 20);
    let (texts, bad) = read(d.path(), &src);
    assert_eq!(texts.len(), 2);
    assert!(bad.is_empty());
    src.max_record_bytes = Some(1 << 20);
    let (texts, bad) = read(d.path(), &src);
    assert_eq!(texts, ["after"]);
    assert_eq!(bad[0].line, 1);
    assert!(bad[0].reason.contains("longer than"), "{}", bad[0]);
}

#[test]
fn tsv_row_with_too_few_columns_names_the_missing_column() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.tsv", b"id\ttext\n1\tgood\n2\n3\tfine\n");
    let mut src = source("a.tsv", Format::Tsv);
    src.fields.id = Some("id".into());
    let (texts, bad) = read(d.path(), &src);
    assert_eq!(texts, ["good", "fine"]);
    assert_eq!((bad[0].line, bad[0].field.as_str()), (3, "text"));
    assert!(bad[0].reason.contains("too few columns"), "{}", bad[0]);
}

#[test]
fn csv_quoted_fields_hold_newlines_and_headerless_tsv_uses_columns() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.csv",
        b"title,text\n\"t\",\"line one\nline \"\"two\"\"\"\n",
    );
    let (texts, bad) = read(d.path(), &source("a.csv", Format::Csv));
    assert_eq!(texts, ["line one\nline \"two\""]);
    assert!(bad.is_empty());
    write(d.path(), "b.tsv", b"0\t1\t\"quoted\" text\r\n");
    let mut src = source("b.tsv", Format::Tsv);
    src.header = false;
    src.columns = vec!["topic".into(), "act".into(), "text".into()];
    let (texts, _) = read(d.path(), &src);
    assert_eq!(texts, ["\"quoted\" text"]);
}

#[test]
fn json_array_directory_reads_files_in_name_order_with_lines() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("raw")).unwrap();
    write(d.path(), "raw/2.json", b"[\n  {\"text\": \"c\"}\n]\n");
    write(
        d.path(),
        "raw/1.json",
        b"[\n  {\"text\": \"a\"},\n  {\"text\": \"b\"},\n  {\"text\": \n",
    );
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for item in read_source(&source("raw", Format::Json), d.path()) {
        match item {
            Item::Record(r) => lines.push((r.text, r.origin.to_string())),
            Item::Malformed(m) => bad.push(m),
        }
    }
    assert_eq!(
        lines,
        [
            ("a".into(), "raw/1.json:2".into()),
            ("b".into(), "raw/1.json:3".into()),
            ("c".to_string(), "raw/2.json:2".to_string())
        ]
    );
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].file, "raw/1.json");
    assert_eq!(bad[0].line, 4, "{}", bad[0]);
}

#[test]
fn ids_are_stable_record_numbers_or_mapped_ids() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.jsonl",
        b"{\"text\":\"a\",\"k\":7}\n{\"text\":\"b\",\"k\":8}\n",
    );
    let ids = |src: &SourceConfig| -> Vec<String> {
        read_source(src, d.path())
            .filter_map(|i| {
                if let Item::Record(r) = i {
                    Some(r.id)
                } else {
                    None
                }
            })
            .collect()
    };
    let mut src = source("a.jsonl", Format::Jsonl);
    assert_eq!(ids(&src), ["s-0000001", "s-0000002"]);
    src.fields.id = Some("k".into());
    assert_eq!(ids(&src), ["s-7", "s-8"]);
}

#[test]
fn crlf_and_multiline_csv_rows_report_their_own_lines() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.tsv", b"0\ta\r\n0\tb\r\n0\tc\r\n");
    let mut src = source("a.tsv", Format::Tsv);
    src.header = false;
    src.columns = vec!["x".into(), "text".into()];
    let lines: Vec<u64> = read_source(&src, d.path())
        .filter_map(|i| {
            if let Item::Record(r) = i {
                Some(r.origin.line)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(lines, [1, 2, 3]);
    write(
        d.path(),
        "b.csv",
        b"n,text\r\n1,\"two\r\nlines\"\r\n2,next\r\n",
    );
    let lines: Vec<u64> = read_source(&source("b.csv", Format::Csv), d.path())
        .filter_map(|i| {
            if let Item::Record(r) = i {
                Some(r.origin.line)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(lines, [2, 4]);
}

/// Found by `fuzz_json_array_ingest`: a second array (or any text) after the closing `]`
/// was ignored, so its records vanished without a decision.
#[test]
fn json_array_content_after_the_closing_bracket_is_malformed() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.json"),
        "[{\"text\": \"첫째\"}]\n[{\"text\": \"둘째\"}]\n",
    )
    .unwrap();
    let (texts, bad) = read(d.path(), &source("a.json", Format::Json));
    assert_eq!(texts, ["첫째"]);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].line, 2, "{}", bad[0]);
    assert!(bad[0].reason.contains("after the JSON array"), "{}", bad[0]);
}

/// Found by `fuzz_json_array_ingest`: `[]` read into nothing at all, where an empty JSONL
/// file is a decision that stops the run.
#[test]
fn json_empty_array_is_an_empty_file() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.json"), " [ \n ] \n").unwrap();
    let (texts, bad) = read(d.path(), &source("a.json", Format::Json));
    assert!(texts.is_empty());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(
        bad[0].kind,
        kcurate_io::ingest::Problem::Source,
        "{}",
        bad[0]
    );
    assert!(bad[0].reason.contains("no records"), "{}", bad[0]);
}

/// Found by `fuzz_tsv_ingest`: a header with a trailing delimiter has an unnamed last
/// column, and a short row then named an empty field (`f.tsv:2: : too few columns`).
#[test]
fn short_row_under_an_unnamed_column_names_its_position() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.tsv", "id\ttext\t\n1\t좋다\n".as_bytes());
    let (texts, bad) = read(d.path(), &source("a.tsv", Format::Tsv));
    assert!(texts.is_empty());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(
        (bad[0].line, bad[0].field.as_str()),
        (2, "column 3"),
        "{}",
        bad[0]
    );
}

/// Found by `fuzz_csv_ingest`: invalid UTF-8 under an unnamed header column named field ''.
#[test]
fn invalid_utf8_under_an_unnamed_column_names_its_position() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.csv", b"id,text,\n1,good,\xff\n");
    let (texts, bad) = read(d.path(), &source("a.csv", Format::Csv));
    assert!(texts.is_empty());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(
        (bad[0].line, bad[0].field.as_str()),
        (2, "column 3"),
        "{}",
        bad[0]
    );
}
