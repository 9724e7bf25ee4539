//! Fuzz target (proptest, stable Rust) for the parts reader `finalise` uses
//! ([`read_staged`]): parts built from random records, drop decisions, key lines
//! (`{"dedup":...}`) and the stats line that adds them up, cut into one or two part files
//! beside an ingest decisions file, then mutated line by line (a line dropped, doubled,
//! moved, a number made extreme, above all the stats line's) and byte by byte. Promised:
//! no panic; the unmutated parts are read; an error names a file of the case and a line it
//! has (0: the file as a whole).
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_core::recipe::Recipe;
use kcurate_core::record::Origin;
use kcurate_core::stage::RuleCount;
use kcurate_core::{Action, Decision, Record, RuleId, StageStats};
use kcurate_release::parts::{InputOrder, NamedStats, read_staged};
use proptest::prelude::*;
use serde_json::json;
use std::path::Path;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{LineEdit, Mutation, edit_lines, fuzz, joined, line_edit, mutate, mutation};

/// Two JSONL sources: `a` (one file) and `b` (a directory of two).
fn recipe(dir: &Path) -> Recipe {
    std::fs::create_dir_all(dir.join("b")).unwrap();
    for f in ["a.jsonl", "b/1.jsonl", "b/2.jsonl"] {
        std::fs::write(dir.join(f), "{}\n").unwrap();
    }
    let source = |id: &str, path: &str| {
        format!(
            "[[source]]\nid = {id:?}\npath = {path:?}\nformat = \"jsonl\"\n\
             license = \"CC0-1.0\"\ndomain = \"news\"\nstyle = \"formal\"\n\
             [source.fields]\ntext = \"text\"\n"
        )
    };
    let text = format!(
        "name = \"t\"\nversion = \"1\"\nseed = 1\n{}{}",
        source("a", "a.jsonl"),
        source("b", "b")
    );
    Recipe::parse("t.toml", &text).unwrap()
}

/// Where input item `i` comes from: (source, file, source index, file index).
fn place(i: usize) -> (&'static str, &'static str, u64, u64) {
    match i % 3 {
        0 => ("a", "a.jsonl", 0, 0),
        1 => ("b", "b/1.jsonl", 1, 0),
        _ => ("b", "b/2.jsonl", 1, 1),
    }
}

/// One part's lines for `items` (0: a record, 1: a record and its key line, 2: a drop of
/// stage `filter`), numbered from `first`, ending with the stats line that adds them up.
fn part(items: &[u8], first: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let (mut kept, mut dropped) = (0u64, 0u64);
    for (j, &kind) in items.iter().enumerate() {
        let i = first + j;
        let (source, file, s, f) = place(i);
        let line = i as u64 + 1;
        let id = format!("{source}-{i}");
        if kind == 2 {
            dropped += 1;
            let d = Decision {
                item: id,
                stage: "filter".into(),
                rule: RuleId::new("filter.short"),
                action: Action::Drop,
                detail: "short".into(),
                score: Some(0.5),
                span: None,
                text: Some("짧다".into()),
                source: source.into(),
                origin: format!("{file}:{line}"),
            };
            lines.push(json!({ "decision": d }).to_string());
            continue;
        }
        kept += 1;
        let r = Record {
            id: id.clone(),
            source: source.into(),
            origin: Origin {
                file: file.into(),
                line,
            },
            text: format!("기사 {i} 본문입니다."),
            ..Default::default()
        };
        lines.push(serde_json::to_string(&r).unwrap());
        if kind == 1 {
            let key = json!({"dedup": {
                "id": id, "at": [s, f, line, 0], "exact": format!("{:032x}", i * 7919),
                "meet": [format!("x{:024x}", i), format!("b{:016x}", i * 31)],
            }});
            lines.push(key.to_string());
        }
    }
    let stage = |name: &str, out: u64, drops: u64| NamedStats {
        name: name.into(),
        stats: StageStats {
            items_in: kept + dropped,
            items_out: out,
            dropped: drops,
            rules: (drops > 0)
                .then(|| {
                    let c = RuleCount {
                        drop: drops,
                        ..Default::default()
                    };
                    ("filter.short".to_string(), c)
                })
                .into_iter()
                .collect(),
            ..Default::default()
        },
    };
    let stats = [
        stage("normalize", kept + dropped, 0),
        stage("filter", kept, dropped),
    ];
    lines.push(json!({ "stats": stats }).to_string());
    lines
}

/// An ingest decisions file: `ingest.malformed` for the lines after the parts' items.
fn ingest_decisions(after: usize, n: usize) -> Vec<String> {
    (after..after + n)
        .map(|i| {
            let (source, file, ..) = place(i);
            let d = Decision {
                item: format!("{source}-{i}"),
                stage: "ingest".into(),
                rule: RuleId::new("ingest.malformed"),
                action: Action::Drop,
                detail: "not JSON".into(),
                score: None,
                span: None,
                text: Some("{".into()),
                source: source.into(),
                origin: format!("{file}:{}", i + 1),
            };
            serde_json::to_string(&d).unwrap()
        })
        .collect()
}

/// A case: the items, where the second part starts, the number of ingest decisions, and
/// per file (part-0, part-1, decisions) its line edits and byte mutations.
type Case = (Vec<u8>, usize, usize, Vec<(Vec<LineEdit>, Vec<Mutation>)>);

fn case() -> impl Strategy<Value = Case> {
    let edits = (
        proptest::collection::vec(line_edit("{\"stats\":"), 0..3),
        proptest::collection::vec(mutation(), 0..3),
    );
    (
        proptest::collection::vec(0u8..3, 0..10),
        0usize..12,
        0usize..3,
        proptest::collection::vec(edits, 3),
    )
}

#[test]
fn fuzz_parts_reader() {
    let d = tempfile::tempdir().unwrap();
    let order = InputOrder::new(&recipe(d.path()), d.path());
    fuzz(
        "release.parts",
        256,
        case(),
        |(items, cut, ingest, edits)| {
            let cut = cut.min(items.len());
            let c = tempfile::tempdir().unwrap();
            let parts = c.path().join("parts");
            std::fs::create_dir(&parts).unwrap();
            let files = [
                (parts.join("part-0"), part(&items[..cut], 0)),
                (parts.join("part-1"), part(&items[cut..], cut)),
                (
                    c.path().join("ingest.jsonl"),
                    ingest_decisions(items.len(), ingest),
                ),
            ];
            let decisions = [files[2].0.clone()];
            for (path, lines) in &files {
                std::fs::write(path, joined(lines)).unwrap();
            }
            let valid = read_staged(&parts, &decisions, &order);
            prop_assert!(valid.is_ok(), "valid parts refused: {}", valid.unwrap_err());
            let mutated = edits.iter().any(|(l, b)| !l.is_empty() || !b.is_empty());
            let mut line_counts = Vec::new();
            for ((path, lines), (l, b)) in files.iter().zip(&edits) {
                let bytes = mutate(joined(&edit_lines(lines.clone(), l)), b);
                line_counts.push((
                    path.display().to_string(),
                    bytes.split(|&c| c == b'\n').count(),
                ));
                std::fs::write(path, bytes).unwrap();
            }
            match read_staged(&parts, &decisions, &order) {
                Ok(s) => {
                    prop_assert_eq!(s.records.len(), s.read_at.len());
                    prop_assert_eq!(s.records.len(), s.keys.len());
                }
                Err(e) => {
                    prop_assert!(mutated, "unmutated parts refused: {}", e);
                    let shown = e.to_string();
                    let known = line_counts.iter().find(|(p, _)| *p == e.path);
                    prop_assert!(
                        known.is_some(),
                        "error names no file of the case: {}",
                        shown
                    );
                    let lines = known.unwrap().1 as u64;
                    prop_assert!(
                        e.line <= lines,
                        "line {} of {} lines: {}",
                        e.line,
                        lines,
                        shown
                    );
                    let head = format!("{}:{}: ", e.path, e.line);
                    prop_assert!(shown.starts_with(&head), "not file:line: {}", shown);
                }
            }
            Ok(())
        },
    );
}
