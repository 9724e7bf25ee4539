//! Fuzz targets (proptest, stable Rust) for the readers a user's file reaches in the core:
//! JSONL / CSV / TSV / JSON-array ingest through [`read_source`] and recipe TOML through
//! [`Recipe::parse`], and the manifest `kcurate_core::bounded::ReleaseFiles` reads sizes
//! from. Inputs are raw bytes and valid inputs mutated byte by byte.
//!
//! Cases per target: `KCURATE_FUZZ_CASES` (default small, so `make test` stays fast); with
//! `KCURATE_FUZZ_SECONDS` a target keeps running fresh batches until that much time has
//! passed (`make fuzz`). Each target prints its case count and time to stderr.

use kcurate_core::recipe::{FieldMap, Format, Recipe, SourceConfig, Style};
use kcurate_io::ingest::{Compression, Item, Problem, read_source};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{fuzz, mutate, mutation, special};

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        "[가-힣 ]{0,12}",
        "[a-z0-9 ,\t\"'{}\\[\\]\\\\]{0,12}",
        "\\PC{0,10}",
        Just(String::new()),
    ]
}

/// Rows of (id, text, label) cells.
fn rows() -> impl Strategy<Value = Vec<(String, String, String)>> {
    proptest::collection::vec((cell(), cell(), cell()), 0..12)
}

fn jsonl_of(rows: &[(String, String, String)]) -> Vec<u8> {
    rows.iter()
        .map(|(i, t, l)| format!("{}\n", serde_json::json!({"id": i, "text": t, "label": l})))
        .collect::<String>()
        .into_bytes()
}

fn json_of(rows: &[(String, String, String)]) -> Vec<u8> {
    let arr: Vec<_> = rows
        .iter()
        .map(|(i, t, l)| serde_json::json!({"id": i, "text": t, "label": l}))
        .collect();
    serde_json::to_vec_pretty(&arr).unwrap()
}

fn delimited_of(rows: &[(String, String, String)], delimiter: u8) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    w.write_record(["id", "text", "label"]).unwrap();
    for (i, t, l) in rows {
        w.write_record([i, t, l]).unwrap();
    }
    w.into_inner().unwrap()
}

/// The bytes of an input file: raw bytes, or a valid file of the format mutated.
fn input(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let valid = rows().prop_map(move |r| match format {
        Format::Jsonl | Format::Txt => jsonl_of(&r),
        Format::Json => json_of(&r),
        Format::Csv => delimited_of(&r, b','),
        Format::Tsv => delimited_of(&r, b'\t'),
    });
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..512),
        1 => proptest::collection::vec(special(), 0..64).prop_map(|v| v.concat()),
        4 => (valid, proptest::collection::vec(mutation(), 0..8)).prop_map(|(b, ms)| mutate(b, &ms)),
    ]
}

fn source(file: &str, format: Format, with_id: bool, max_record_bytes: usize) -> SourceConfig {
    SourceConfig {
        id: "fz".into(),
        path: file.into(),
        format,
        fields: FieldMap {
            text: "text".into(),
            id: with_id.then(|| "id".into()),
            date: None,
            label: Some("label".into()),
            extra: vec![],
            optional: vec!["label".into()],
        },
        license: Some("CC0-1.0".into()),
        domain: "d".into(),
        style: Style::Formal,
        attribution: String::new(),
        header: true,
        columns: vec![],
        quote: None,
        max_record_bytes: Some(max_record_bytes),
        limit: 0,
        hf_id: None,
        original: false,
        limits: Default::default(),
    }
}

/// Lines a line reader reports an item for: every line (1-based) longer than
/// `max_record_bytes` or not blank after the BOM and `\r` are taken off, as the JSONL reader
/// promises.
fn nonblank_lines(bytes: &[u8], max_record_bytes: usize) -> Vec<u64> {
    let mut segs: Vec<&[u8]> = bytes.split(|&c| c == b'\n').collect();
    if segs.last().is_some_and(|s| s.is_empty()) {
        segs.pop();
    }
    let mut out = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        let mut s: &[u8] = seg;
        if s.len() > max_record_bytes {
            out.push(i as u64 + 1);
            continue;
        }
        if i == 0 && s.starts_with(b"\xEF\xBB\xBF") {
            s = &s[3..];
        }
        if s.last() == Some(&b'\r') {
            s = &s[..s.len() - 1];
        }
        match std::str::from_utf8(s) {
            Ok(t) if t.trim().is_empty() => {}
            _ => out.push(i as u64 + 1),
        }
    }
    out
}

/// Reads `bytes` as a one-file source and checks what every reader promises: no panic,
/// every item names the file and a line of it (0 only for a file that cannot be read as a
/// whole), records have non-empty ids, and lines never go backwards. Returns the items'
/// lines.
fn read_checked(
    bytes: &[u8],
    format: Format,
    with_id: bool,
    max_record_bytes: usize,
) -> Result<Vec<(u64, bool)>, TestCaseError> {
    let d = tempfile::tempdir().unwrap();
    let name = match format {
        Format::Jsonl => "f.jsonl",
        Format::Json => "f.json",
        Format::Csv => "f.csv",
        Format::Tsv => "f.tsv",
        Format::Txt => "f.txt",
    };
    std::fs::write(d.path().join(name), bytes).unwrap();
    let src = source(name, format, with_id, max_record_bytes);
    let lines = bytes.iter().filter(|&&c| c == b'\n').count() as u64 + 1;
    let mut out = Vec::new();
    let mut last = 0u64;
    for item in read_source(&src, d.path()) {
        let (line, is_record) = match &item {
            Item::Record(r) => {
                prop_assert!(!r.id.is_empty(), "record without id: {:?}", r);
                prop_assert!(r.origin.file.ends_with(name), "origin {}", r.origin);
                prop_assert!(r.origin.line >= 1, "record at line 0: {}", r.origin);
                (r.origin.line, true)
            }
            Item::Malformed(m) => {
                prop_assert!(m.file.ends_with(name), "malformed without its file: {m}");
                prop_assert!(!m.reason.is_empty() && !m.field.is_empty(), "{m}");
                prop_assert!(
                    m.line >= 1 || m.kind == Problem::Source || format == Format::Json,
                    "a bad record without a line: {m}"
                );
                (m.line, false)
            }
        };
        if Compression::sniff(bytes) == Compression::None {
            prop_assert!(line <= lines, "line {line} past the file's {lines} lines");
        }
        if format != Format::Json {
            prop_assert!(line >= last, "line {line} after line {last}");
        }
        last = line;
        out.push((line, is_record));
    }
    prop_assert!(
        !out.is_empty(),
        "a file read into nothing, not even a decision"
    );
    Ok(out)
}

#[test]
fn fuzz_jsonl_ingest() {
    let s = (
        input(Format::Jsonl),
        any::<bool>(),
        prop_oneof![Just(1usize << 20), 8usize..64],
    );
    fuzz("ingest.jsonl", 128, s, |(bytes, with_id, max)| {
        let got = read_checked(&bytes, Format::Jsonl, with_id, max)?;
        if Compression::sniff(&bytes) != Compression::None {
            return Ok(());
        }
        // Conservation: one item per non-blank line, in order; a file with none is one
        // source-level decision.
        let want = nonblank_lines(&bytes, max);
        let lines: Vec<u64> = got.iter().map(|g| g.0).collect();
        if want.is_empty() {
            prop_assert_eq!(lines, vec![0]);
        } else {
            prop_assert_eq!(lines, want);
        }
        Ok(())
    });
}

#[test]
fn fuzz_csv_ingest() {
    let s = (
        input(Format::Csv),
        any::<bool>(),
        prop_oneof![Just(1usize << 20), 8usize..64],
    );
    fuzz("ingest.csv", 128, s, |(bytes, with_id, max)| {
        read_checked(&bytes, Format::Csv, with_id, max).map(drop)
    });
}

#[test]
fn fuzz_tsv_ingest() {
    let s = (
        input(Format::Tsv),
        any::<bool>(),
        prop_oneof![Just(1usize << 20), 8usize..64],
    );
    fuzz("ingest.tsv", 128, s, |(bytes, with_id, max)| {
        read_checked(&bytes, Format::Tsv, with_id, max).map(drop)
    });
}

#[test]
fn fuzz_json_array_ingest() {
    let s = (
        input(Format::Json),
        any::<bool>(),
        prop_oneof![Just(1usize << 20), 8usize..64],
    );
    fuzz("ingest.json", 128, s, |(bytes, with_id, max)| {
        read_checked(&bytes, Format::Json, with_id, max).map(drop)
    });
}

/// A JSON-array file whose elements are rows or values nested past the depth limits (also
/// past serde_json's 128): every element is one item, a record or an `ingest.over_limit`
/// decision for each deep one, in order (conservation; the file goes on after a deep one).
#[test]
fn fuzz_json_array_deep_elements() {
    let element = prop_oneof![
        3 => (cell(), cell()).prop_map(|(t, l)| (serde_json::json!({"text": t, "label": l}).to_string(), false)),
        1 => (1usize..400, prop_oneof![Just("["), Just("{\"a\":")], cell()).prop_map(|(n, open, t)| {
            let close = if open == "[" { "]" } else { "}" };
            let inner = serde_json::to_string(&t).unwrap();
            let v = format!("{}{inner}{}", open.repeat(n), close.repeat(n));
            (format!("{{\"text\": {inner}, \"m\": {v}}}"), n + 1 > 64)
        }),
    ];
    let s = (proptest::collection::vec(element, 1..8), "[ \n]{0,2}");
    fuzz("ingest.json.deep", 64, s, |(elements, sep)| {
        let body: Vec<&str> = elements.iter().map(|e| e.0.as_str()).collect();
        let bytes = format!("[{sep}{}{sep}]", body.join(&format!(",{sep}"))).into_bytes();
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("f.json"), &bytes).unwrap();
        let src = source("f.json", Format::Json, false, 1 << 20);
        let got: Vec<bool> = read_source(&src, d.path())
            .map(|item| match item {
                Item::Record(_) => Ok(false),
                Item::Malformed(m) if m.kind == Problem::Limit => Ok(true),
                Item::Malformed(m) => Err(m.to_string()),
            })
            .collect::<Result<_, _>>()
            .map_err(TestCaseError::fail)?;
        let want: Vec<bool> = elements.iter().map(|e| e.1).collect();
        prop_assert_eq!(got, want);
        Ok(())
    });
}

/// The recipes the repository ships, as seeds to mutate.
fn recipes() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Values that a recipe key should refuse or handle: non-finite, negative, huge, empty,
/// path-like, wrong type.
fn odd_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("1e400".to_string()),
        Just("18446744073709551616".to_string()),
        Just("\"\"".to_string()),
        Just("\"..\"".to_string()),
        Just("\"../../x\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("true".to_string()),
        "\"\\PC{0,8}\"",
    ]
}

#[test]
fn fuzz_recipe_toml() {
    let seeds = recipes();
    prop_assert_seeds(&seeds);
    let n = seeds.len();
    let s = (
        0..n,
        proptest::collection::vec((any::<usize>(), odd_value()), 0..4),
        proptest::collection::vec(mutation(), 0..6),
    );
    fuzz("recipe.toml", 256, s, |(i, values, ms)| {
        // Swap some values for odd ones, then mutate bytes.
        let mut lines: Vec<String> = seeds[i].lines().map(str::to_string).collect();
        for (at, v) in &values {
            let k = at % lines.len();
            if let Some(eq) = lines[k].find(" = ") {
                lines[k] = format!("{} = {v}", &lines[k][..eq]);
            }
        }
        let bytes = mutate(lines.join("\n").into_bytes(), &ms);
        let text = String::from_utf8_lossy(&bytes);
        match Recipe::parse("fz.toml", &text) {
            Ok(r) => {
                // What parses has passed validation: split fractions are finite,
                // non-negative and sum to 1.
                let sp = &r.split;
                for x in [sp.train, sp.dev, sp.test] {
                    prop_assert!(x.is_finite() && x >= 0.0, "accepted split {:?}", sp);
                }
                prop_assert!((sp.train + sp.dev + sp.test - 1.0).abs() < 1e-6, "{:?}", sp);
            }
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(
                    shown.starts_with("fz.toml:"),
                    "error without file:line: {shown}"
                );
            }
        }
        Ok(())
    });
}

fn prop_assert_seeds(seeds: &[String]) {
    assert!(!seeds.is_empty(), "no recipes under configs/");
    for (i, s) in seeds.iter().enumerate() {
        assert!(
            Recipe::parse("seed.toml", s).is_ok(),
            "seed {i} does not parse"
        );
    }
}

/// A release's `manifest.json` (its `outputs`, what [`ReleaseFiles`] reads) and one output
/// file, the manifest mutated byte by byte.
fn manifest_bytes() -> impl Strategy<Value = Vec<u8>> {
    let valid = (0u64..64, "[a-z/.]{0,12}").prop_map(|(size, extra)| {
        serde_json::to_vec(&serde_json::json!({
            "format_version": 1,
            "outputs": [
                {"path": "sentences/train.jsonl", "sha256": "0", "size": size},
                {"path": extra, "sha256": "0", "size": 1},
            ],
        }))
        .unwrap()
    });
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..128),
        4 => (valid, proptest::collection::vec(mutation(), 0..6))
            .prop_map(|(b, ms)| mutate(b, &ms)),
    ]
}

/// The bounded opener of release files: no panic; a manifest that reads gives each listed
/// file at its recorded size only (refused otherwise, naming the size); an error names the
/// manifest.
#[test]
fn fuzz_release_files_manifest() {
    use kcurate_core::bounded::ReleaseFiles;
    fuzz("core.release_files", 128, manifest_bytes(), |bytes| {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sentences")).unwrap();
        let train = d.path().join("sentences/train.jsonl");
        std::fs::write(&train, "{\"id\":\"a\"}\n").unwrap();
        std::fs::write(d.path().join("manifest.json"), &bytes).unwrap();
        match ReleaseFiles::of(d.path()) {
            Ok(files) => {
                let read = files.read_to_string(&train);
                match files.recorded("sentences/train.jsonl") {
                    Some(11) | None => prop_assert!(read.is_ok(), "{:?}", read),
                    Some(n) => {
                        let e = read.unwrap_err().to_string();
                        prop_assert!(e.contains(&format!("records {n}")), "{}", e);
                    }
                }
            }
            Err(e) => {
                prop_assert!(e.to_string().contains("manifest.json"), "{}", e);
            }
        }
        Ok(())
    });
}
