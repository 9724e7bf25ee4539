//! Inputs as users have them, through the real binary: duplicate record ids, bad split
//! fractions and stage settings that drop everything, CSV quoting gone wrong, sources that
//! are missing, empty or unreadable (exit 2, naming recipe, source and path), and gzip/zstd
//! compressed sources and side inputs. Each test guards a case that once passed
//! silently.

mod common;
use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A recipe `r.toml` in `dir` with one source per `(id, path, format, fields)`, the stages
/// `stages` (TOML) and `tail` (e.g. a `[split]` table).
fn recipe(dir: &Path, sources: &[(&str, &str, &str, &str)], stages: &str, tail: &str) -> PathBuf {
    let mut t = String::from("name = \"in\"\nversion = \"1\"\nseed = 1\n");
    for (id, path, format, fields) in sources {
        t.push_str(&format!(
            "\n[[source]]\nid = \"{id}\"\npath = \"{path}\"\nformat = \"{format}\"\nlicense = \"CC0-1.0\"\n\
             domain = \"x\"\nstyle = \"formal\"\n[source.fields]\ntext = \"text\"\n{fields}\n"
        ));
    }
    t.push_str(stages);
    t.push_str(tail);
    let p = dir.join("r.toml");
    std::fs::write(&p, t).unwrap();
    p
}

fn run(r: &Path, out: &Path) -> std::process::Output {
    kcurate(&[
        "run",
        r.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--threads",
        "2",
    ])
}

fn released_rows(rel: &Path) -> Vec<serde_json::Value> {
    let mut rows: Vec<serde_json::Value> = Vec::new();
    for split in ["train", "validation", "test"] {
        let p = rel.join("sentences").join(format!("{split}.jsonl"));
        if let Ok(text) = std::fs::read_to_string(&p) {
            rows.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
        }
    }
    rows.sort_by_key(|r| r["id"].as_str().unwrap().to_string());
    rows
}

fn decisions(rel: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(rel.join("audit/decisions.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ingest_counts(rel: &Path) -> (u64, u64, u64) {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rel.join("manifest.json")).unwrap()).unwrap();
    let s = &m["stages"][0];
    assert_eq!(s["name"], "ingest");
    let n = |k: &str| s[k].as_u64().unwrap();
    (n("items_in"), n("items_out"), n("dropped"))
}

/// A second record with an id already seen in the source is an `ingest.duplicate_id`
/// decision naming both lines; the release holds each id once.
#[test]
fn duplicate_record_ids_are_quarantined_naming_both_lines() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.jsonl"),
        "{\"id\":\"1\",\"text\":\"첫째 문장이다.\"}\n{\"id\":\"2\",\"text\":\"둘째 문장이다.\"}\n\
         {\"id\":\"1\",\"text\":\"다른 글이지만 같은 번호다.\"}\n",
    )
    .unwrap();
    let path = d.path().join("a.jsonl");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "jsonl", "id = \"id\"")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let rel = out.join("in/1");
    let rows = released_rows(&rel);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a-1", "a-2"], "each id released once");
    assert!(
        rows.iter()
            .all(|r| r["text"] != "다른 글이지만 같은 번호다.")
    );
    let ds = decisions(&rel);
    let dup: Vec<_> = ds
        .iter()
        .filter(|x| x["rule"] == "ingest.duplicate_id")
        .collect();
    assert_eq!(dup.len(), 1, "{ds:?}");
    let detail = dup[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("a.jsonl:3") && detail.contains("a.jsonl:1") && detail.contains("a-1"),
        "{detail}"
    );
    assert_eq!(ingest_counts(&rel), (3, 2, 1));
}

/// A file copied into a directory source: every id of the copy is a duplicate. With dedup in
/// the recipe the copy is quarantined: the run ends 3, never with a conservation error.
#[test]
fn a_file_copied_into_a_directory_source_is_quarantined_not_an_abort() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("raw");
    std::fs::create_dir(&dir).unwrap();
    let body = "[\n{\"review_id\":\"7\",\"review\":\"재미있는 영화였다.\"},\n\
                {\"review_id\":\"8\",\"review\":\"지루한 영화였다.\"}\n]\n";
    std::fs::write(dir.join("100.json"), body).unwrap();
    std::fs::write(dir.join("100 copy.json"), body).unwrap();
    let stages = "\n[[stage]]\nname = \"dedup\"\n";
    let r = recipe(
        d.path(),
        &[("nsmc", dir.to_str().unwrap(), "json", "id = \"review_id\"")],
        stages,
        "",
    );
    let text = std::fs::read_to_string(&r)
        .unwrap()
        .replace("text = \"text\"", "text = \"review\"");
    std::fs::write(&r, text).unwrap();
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!stderr(&o).contains("conservation"), "{}", stderr(&o));
    let rel = out.join("in/1");
    let ids: Vec<String> = released_rows(&rel)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["nsmc-7", "nsmc-8"]);
    let dup: Vec<String> = decisions(&rel)
        .iter()
        .filter(|x| x["rule"] == "ingest.duplicate_id")
        .map(|x| x["detail"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(dup.len(), 2, "{dup:?}");
    // "100 copy.json" sorts first: it is read first and kept.
    assert!(
        dup[0].contains("100.json:2") && dup[0].contains("100 copy.json:2"),
        "{dup:?}"
    );
}

/// `train = nan` once sent every record to test with exit 0 and `check` ok.
#[test]
fn a_split_fraction_that_is_not_a_number_is_an_error_naming_the_line() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "한 줄이다.\n").unwrap();
    let path = d.path().join("a.txt");
    for (split, key) in [
        ("train = nan\ndev = 0.1\ntest = 0.1\n", "split.train"),
        ("train = 0.8\ndev = inf\ntest = 0.1\n", "split.dev"),
        ("train = 0.8\ndev = 0.3\ntest = -0.1\n", "split.test"),
    ] {
        let r = recipe(
            d.path(),
            &[("a", path.to_str().unwrap(), "txt", "")],
            "",
            &format!("\n[split]\n{split}"),
        );
        let text = std::fs::read_to_string(&r).unwrap();
        let line = text
            .lines()
            .position(|l| l.starts_with(key.trim_start_matches("split.")))
            .unwrap()
            + 1;
        let want = format!("r.toml:{line}: {key}:");
        // A recipe that does not validate is an error (2) for `check` as for `run`.
        let o = kcurate(&["check", r.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "check: {}", stderr(&o));
        assert!(stderr(&o).contains(&want), "{want}: {}", stderr(&o));
        let out = d.path().join("out");
        let o = run(&r, &out);
        assert_eq!(o.status.code(), Some(2), "run: {}", stderr(&o));
        assert!(stderr(&o).contains(&want), "{want}: {}", stderr(&o));
        assert!(!out.join("in/1").exists());
    }
}

/// Settings that make a stage drop everything by construction are refused by `check`.
#[test]
fn stage_settings_that_drop_everything_are_refused_by_check() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "한 줄이다.\n").unwrap();
    let path = d.path().join("a.txt");
    for (stage, key) in [
        ("name = \"filter\"\nmax_chars = 0\n", "max_chars"),
        ("name = \"nli_premise\"\nmax_chars = 0\n", "max_chars"),
        (
            "name = \"nli_premise\"\nmin_chars = 50\nmax_chars = 10\n",
            "min_chars",
        ),
    ] {
        let r = recipe(
            d.path(),
            &[("a", path.to_str().unwrap(), "txt", "")],
            &format!("\n[[stage]]\n{stage}"),
            "",
        );
        let o = kcurate(&["check", r.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{stage}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("r.toml:") && stderr(&o).contains(key),
            "{stage}: {}",
            stderr(&o)
        );
    }
}

/// `check` says which split a recipe without `[split]` gets.
#[test]
fn check_names_the_default_split() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "한 줄이다.\n").unwrap();
    let path = d.path().join("a.txt");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "txt", "")],
        "",
        "",
    );
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("split: train 0.8, validation 0.1, test 0.1 (the default"),
        "{}",
        stdout(&o)
    );
}

/// A quote never closed once swallowed the rest of the file into one released record.
#[test]
fn an_unclosed_csv_quote_is_a_decision_at_the_line_it_opened() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.csv"),
        "id,text\n1,앞의 행이다.\n2,\"닫히지 않은 따옴표\n3,삼킨 행이다.\n4,마지막 행이다.\n",
    )
    .unwrap();
    let path = d.path().join("a.csv");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "csv", "id = \"id\"")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let rel = out.join("in/1");
    let rows = released_rows(&rel);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["text"], "앞의 행이다.");
    let ds = decisions(&rel);
    let bad: Vec<&str> = ds
        .iter()
        .filter(|x| x["rule"] == "ingest.malformed")
        .map(|x| x["detail"].as_str().unwrap())
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains("a.csv:3:") && bad[0].contains("unclosed quote"),
        "{bad:?}"
    );
    assert_eq!(ingest_counts(&rel), (2, 1, 1));
}

/// A stray quote that pairs with a later row's opening quote once swallowed the rows
/// between into one field, silently: the closing quote is followed by text.
#[test]
fn a_stray_csv_quote_that_pairs_with_a_later_one_is_a_decision() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.csv"),
        "id,text\n1,\"떠돌이 따옴표\n2,삼킨 행이다.\n3,\"인용\" 뒤에 글\n4,\"정상 인용\"\n",
    )
    .unwrap();
    let path = d.path().join("a.csv");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "csv", "id = \"id\"")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let rel = out.join("in/1");
    let texts: Vec<String> = released_rows(&rel)
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts, ["정상 인용"]);
    let bad: Vec<String> = decisions(&rel)
        .iter()
        .map(|x| x["detail"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains("a.csv:2:") && bad[0].contains("closing quote"),
        "{bad:?}"
    );
}

/// A quoted field that holds newlines and closes is not an unclosed quote.
#[test]
fn a_closed_multiline_quote_is_one_good_row() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.csv"),
        "\u{feff}id,text\r\n1,\"여러 줄\r\n\"\"인용\"\" 문장이다.\"\r\n2,끝이다.",
    )
    .unwrap();
    let path = d.path().join("a.csv");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "csv", "id = \"id\"")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = released_rows(&out.join("in/1"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["text"], "여러 줄\r\n\"인용\" 문장이다.");
}

/// A row with more fields than the header once had its text cut at the first comma.
#[test]
fn a_csv_row_with_extra_columns_is_malformed_not_cut() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.csv"),
        "id,text\n1,쉼표가, 따옴표 없이 들어간 행\n2,정상 행이다.\n3,빈 열이 하나 더,\n",
    )
    .unwrap();
    let path = d.path().join("a.csv");
    let r = recipe(
        d.path(),
        &[("a", path.to_str().unwrap(), "csv", "id = \"id\"")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let rel = out.join("in/1");
    let texts: Vec<String> = released_rows(&rel)
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts, ["정상 행이다.", "빈 열이 하나 더"]);
    let bad: Vec<String> = decisions(&rel)
        .iter()
        .filter(|x| x["rule"] == "ingest.malformed")
        .map(|x| x["detail"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(bad.len(), 1);
    assert!(
        bad[0].contains("a.csv:2:") && bad[0].contains("too many columns: 3 of 2"),
        "{bad:?}"
    );
}

/// Runs `r` and checks it stops with exit 2 before writing, naming the recipe file, the
/// source id and `path`.
fn assert_stops_naming(r: &Path, source: &str, path: &str, reason: &str) {
    let out = r.parent().unwrap().join("out");
    let o = run(r, &out);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("{}:", r.display()))
            && e.contains(&format!("\"{source}\""))
            && e.contains(path)
            && e.contains(reason),
        "want recipe, source {source}, {path}, {reason}: {e}"
    );
    assert!(!out.join("in/1").exists(), "no release is written");
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "check: {}", stdout(&o));
    assert!(
        stderr(&o).contains(path) && stderr(&o).contains(reason),
        "check: {}",
        stderr(&o)
    );
}

/// A missing source once let the run go on without it (exit 3, like one bad line).
#[test]
fn a_missing_source_stops_the_run_with_exit_2() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "한 줄이다.\n").unwrap();
    let good = d.path().join("a.txt");
    let gone = d.path().join("gone.jsonl");
    let r = recipe(
        d.path(),
        &[
            ("a", good.to_str().unwrap(), "txt", ""),
            ("b", gone.to_str().unwrap(), "jsonl", ""),
        ],
        "",
        "",
    );
    assert_stops_naming(&r, "b", gone.to_str().unwrap(), "cannot open");
}

/// An empty directory, or one without files of the format, once gave an empty release.
#[test]
fn an_empty_directory_stops_the_run() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("raw");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not json\n").unwrap();
    let r = recipe(
        d.path(),
        &[("raw", dir.to_str().unwrap(), "json", "")],
        "",
        "",
    );
    assert_stops_naming(&r, "raw", dir.to_str().unwrap(), "no *.json files");
}

/// An empty file (or only blank lines) is not a source with no problems.
#[test]
fn an_empty_source_file_stops_the_run() {
    for (name, format, bytes) in [
        ("e.jsonl", "jsonl", &b""[..]),
        ("e.txt", "txt", &b"\n  \n"[..]),
        ("e.csv", "csv", &b""[..]),
        ("h.csv", "csv", &b"id,text\n"[..]),
        ("e.json", "json", &b"  \n"[..]),
    ] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let r = recipe(d.path(), &[("e", p.to_str().unwrap(), format, "")], "", "");
        let out = d.path().join("out");
        let o = run(&r, &out);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert!(
            e.contains("r.toml:") && e.contains("\"e\"") && e.contains(name) && e.contains("empty"),
            "{name}: {e}"
        );
        assert!(!out.join("in/1").exists());
    }
}

/// A file that cannot be decompressed (a gzip header, then garbage) stops the run.
#[test]
fn a_corrupt_compressed_file_stops_the_run() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("a.jsonl.gz");
    let mut bytes = gzip(b"{\"text\":\"a\"}\n");
    let n = bytes.len();
    bytes.truncate(n / 2);
    std::fs::write(&p, &bytes).unwrap();
    let r = recipe(d.path(), &[("a", p.to_str().unwrap(), "jsonl", "")], "", "");
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a.jsonl.gz") && stderr(&o).contains("\"a\""),
        "{}",
        stderr(&o)
    );
}

/// A relative source path resolves against the recipe file's directory, whatever directory
/// the run starts in (the helper runs from the repository root); `--root` overrides it, and
/// a missing file is named with the path the run looked for. (Relative paths once resolved
/// from the working directory and gave an empty release that `verify` passed.)
#[test]
fn a_relative_path_resolves_against_the_recipe_directory_and_root_overrides_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("data")).unwrap();
    std::fs::write(d.path().join("data/a.txt"), "한 줄이다.\n").unwrap();
    let r = recipe(d.path(), &[("a", "data/a.txt", "txt", "")], "", "");
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = released_rows(&out.join("in/1"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["origin"], "data/a.txt:1");
    let o = kcurate(&["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // --root elsewhere: the file is not there, and the message says where it looked.
    let other = tempfile::tempdir().unwrap();
    let o = kcurate(&[
        "run",
        r.to_str().unwrap(),
        "--out",
        d.path().join("out2").to_str().unwrap(),
        "--root",
        other.path().to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    let looked = other.path().join("data/a.txt");
    assert!(
        e.contains(&format!("looked for {}", looked.display())) && e.contains("--root"),
        "{e}"
    );
    let o = kcurate(&[
        "check",
        r.to_str().unwrap(),
        "--root",
        other.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("looked for {}", looked.display())),
        "{}",
        stderr(&o)
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 3).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Per variant of a source file: its released (text, line) pairs and the decisions'
/// locations.
type Read = (Vec<(String, String)>, Vec<String>);

/// Runs a recipe over `bytes` written as `name` (source `format` with `fields`) and reads
/// back what [`Read`] compares, checking the manifest hashes the file as it is on disk.
fn read_variant(
    ext: &str,
    kind: &str,
    format: &str,
    fields: &str,
    bytes: &[u8],
    name: &str,
) -> Read {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    let r = recipe(
        d.path(),
        &[("s", p.to_str().unwrap(), format, fields)],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(3), "{ext} {kind}: {}", stderr(&o));
    let rel = out.join("in/1");
    let rows: Vec<(String, String)> = released_rows(&rel)
        .iter()
        .map(|r| {
            let origin = r["origin"].as_str().unwrap();
            let line = origin.rsplit(':').next().unwrap().to_string();
            (r["text"].as_str().unwrap().to_string(), line)
        })
        .collect();
    let bad: Vec<String> = decisions(&rel)
        .iter()
        .map(|x| {
            let detail = x["detail"].as_str().unwrap();
            // The location without the file name.
            detail[detail.find(':').unwrap()..].to_string()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{ext} {kind}: {rows:?} {bad:?}");
    assert_eq!(bad.len(), 1, "{ext} {kind}: {bad:?}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rel.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        m["inputs"][0]["sha256"].as_str().unwrap(),
        sha256_hex(bytes),
        "{ext} {kind}: the manifest hashes the file on disk"
    );
    assert_eq!(m["inputs"][0]["size"].as_u64(), Some(bytes.len() as u64));
    (rows, bad)
}

/// Every format reads the same from a gzip or zstd file as from the plain one, found by
/// magic bytes (also under a name without `.gz`/`.zst`); a bad line is named by its line in
/// the decompressed text; the manifest hashes the file as it is on disk.
#[test]
fn gzip_and_zstd_sources_read_like_plain_ones() {
    let cases: [(&str, &str, &str, &[u8]); 5] = [
        (
            "jsonl",
            "jsonl",
            "id = \"id\"",
            "{\"id\":\"1\",\"text\":\"첫 줄이다.\"}\n\n{\"id\":\"2\",\"text\":\"둘째 줄이다.\"}\n{bad\n"
                .as_bytes(),
        ),
        (
            "tsv",
            "tsv",
            "id = \"id\"",
            "id\ttext\n1\t첫 줄이다.\n2\t둘째 줄이다.\n3\n".as_bytes(),
        ),
        (
            "csv",
            "csv",
            "id = \"id\"",
            "id,text\r\n1,\"첫 줄,\r\n이어진다.\"\r\n2,둘째 줄이다.\r\n3\r\n".as_bytes(),
        ),
        (
            "txt",
            "txt",
            "",
            b"\xEF\xBB\xBFfirst line\nsecond line\n\xff bad utf-8\n",
        ),
        (
            "json",
            "json",
            "id = \"id\"",
            "[\n{\"id\":\"1\",\"text\":\"첫 줄이다.\"},\n{\"id\":\"2\",\"text\":\"둘째 줄이다.\"},\n{\"id\":\"3\"}\n]\n"
                .as_bytes(),
        ),
    ];
    for (ext, format, fields, plain) in cases {
        let mut seen: Vec<Read> = Vec::new();
        for (kind, bytes, name) in [
            ("plain", plain.to_vec(), format!("a.{ext}")),
            ("gzip", gzip(plain), format!("a.{ext}.gz")),
            ("zstd", zstd(plain), format!("a.{ext}.zst")),
            ("gzip, plain name", gzip(plain), format!("b.{ext}")),
        ] {
            seen.push(read_variant(ext, kind, format, fields, &bytes, &name));
        }
        for s in &seen[1..] {
            assert_eq!(s, &seen[0], "{ext}: compressed reads like plain");
        }
    }
}

/// A directory source takes `*.jsonl.gz` and `*.json.zst` files with the plain ones.
#[test]
fn a_directory_source_reads_compressed_files_of_its_format() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("raw");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("1.json"), "[{\"text\":\"하나다.\"}]").unwrap();
    std::fs::write(
        dir.join("2.json.gz"),
        gzip("[{\"text\":\"둘이다.\"}]".as_bytes()),
    )
    .unwrap();
    std::fs::write(
        dir.join("3.json.zst"),
        zstd("[{\"text\":\"셋이다.\"}]".as_bytes()),
    )
    .unwrap();
    std::fs::write(dir.join("4.parquet"), b"PAR1").unwrap();
    let r = recipe(
        d.path(),
        &[("r", dir.to_str().unwrap(), "json", "")],
        "",
        "",
    );
    let out = d.path().join("out");
    let o = run(&r, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut texts: Vec<String> = released_rows(&out.join("in/1"))
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    texts.sort();
    assert_eq!(texts, ["둘이다.", "셋이다.", "하나다."]);
}

/// The exit status table is in `--help`.
#[test]
fn help_lists_the_exit_codes() {
    let o = kcurate(&["--help"]);
    let h = stdout(&o);
    for code in [
        "0  ok",
        "1  a check failed",
        "2  error",
        "3  run: the release was written",
        "4  finalise: refused",
    ] {
        assert!(h.contains(code), "{code}: {h}");
    }
}

/// A JSONL side input a stage reads (the sts stage's round-trip translations) may be
/// compressed like a source: the binary installs the readers' decoders under core's JSONL
/// reader, so a zstd or gzip copy builds the same pairs as the plain file.
#[test]
fn gzip_and_zstd_side_inputs_read_like_plain_ones() {
    let d = tempfile::tempdir().unwrap();
    let configs = repo().join("configs");
    let text = std::fs::read_to_string(configs.join("klue-sts.toml")).unwrap();
    let rtt = std::fs::read(repo().join("data-samples/sts/rtt.jsonl")).unwrap();
    let plain_line = "rtt = \"../data-samples/sts/rtt.jsonl\"";
    assert!(
        text.contains(plain_line),
        "klue-sts.toml reads its rtt file"
    );
    let mut splits = Vec::new();
    for (name, bytes) in [
        ("plain", rtt.clone()),
        ("gz", gzip(&rtt)),
        ("zst", zstd(&rtt)),
    ] {
        let side = d.path().join(format!("rtt.{name}"));
        std::fs::write(&side, bytes).unwrap();
        let r = d.path().join(format!("{name}.toml"));
        let line = format!("rtt = {:?}", side.to_str().unwrap());
        std::fs::write(&r, text.replace(plain_line, &line)).unwrap();
        let out = d.path().join(format!("out-{name}"));
        let o = kcurate(&[
            "run",
            r.to_str().unwrap(),
            "--root",
            configs.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "2",
        ]);
        assert!(
            o.status.code().is_some_and(|c| c == 0 || c == 3),
            "{name}: {}",
            stderr(&o)
        );
        let rel = out.join("klue-sts-samples/1.0.0/sts");
        let files: Vec<(String, Vec<u8>)> = ["train", "validation", "test"]
            .iter()
            .map(|s| {
                (
                    s.to_string(),
                    std::fs::read(rel.join(format!("{s}.jsonl"))).unwrap(),
                )
            })
            .collect();
        assert!(
            files.iter().any(|(_, b)| !b.is_empty()),
            "{name}: pairs built"
        );
        splits.push(files);
    }
    assert_eq!(splits[0], splits[1], "gzip side input");
    assert_eq!(splits[0], splits[2], "zstd side input");
}
