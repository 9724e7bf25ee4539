//! Fuzz target (proptest, stable Rust) for dedup through a shuffle: the key lines
//! `kcurate dedup-verdicts` reads ([`KeyLine::parse`], [`resolve`]) and the verdicts
//! `kcurate finalise --dedup-verdicts` reads and accounts for ([`DedupVerdicts::read`],
//! [`DedupVerdicts::check`], [`DedupVerdicts::account`]). Records with exact and near
//! duplicates and short texts give valid key lines and, through the replay, valid verdicts;
//! both files are then mutated line by line (a line dropped, doubled, moved, a number made
//! extreme) and byte by byte, and a record's text may be swapped for another's (an edited
//! part). Promised: no panic; the unmutated files are accounted for; an error names a file
//! of the case and a line it has.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_text::stages::dedup::{
    Claimed, ClaimedKey, DedupStage, DedupVerdicts, KeyLine, VerdictsError, from_settings, resolve,
};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{LineEdit, Mutation, edit_lines, fuzz, joined, line_edit, mutate, mutation};

/// Texts with an exact duplicate (same dedup key), near duplicates, an unrelated text and
/// ones too short for near dedup.
const TEXTS: [&str; 7] = [
    "서울 시내 버스 요금이 다음 달부터 이백 원 오른다고 시가 밝혔다",
    "서울 시내 버스 요금이, 다음 달부터 이백 원 오른다고 시가 밝혔다!!",
    "서울 시내 버스 요금이 다음 달부터 이백 원 오른다고 시가 오늘 밝혔다",
    "서울 시내 지하철 요금이 다음 달부터 이백 원 오른다고 시가 밝혔다",
    "올해 여름은 평년보다 덥고 비가 많이 올 것으로 기상청은 내다봤다",
    "짧은 글",
    "짧은 글.",
];

fn stage() -> DedupStage {
    let settings: toml::Table = toml::from_str("ngram = 3\nthreshold = 0.5").unwrap();
    from_settings(&settings, 7).unwrap()
}

/// The key lines of records `r{i}` with texts `TEXTS[texts[i]]`, tagged as `stage
/// --dedup-keys` writes them.
fn key_lines(stage: &DedupStage, texts: &[usize]) -> Vec<String> {
    let d = stage.deduper();
    texts
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let k = KeyLine::new(&d, &format!("r{i}"), [0, 0, i as u64 + 1, 0], TEXTS[t]);
            serde_json::json!({ "dedup": k }).to_string()
        })
        .collect()
}

/// A key-lines file as `dedup-verdicts` reads it: each line parsed, then replayed. The
/// verdicts as JSON lines.
fn replayed(stage: &DedupStage, path: &Path) -> Result<Vec<String>, VerdictsError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).unwrap();
    let mut lines = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let n = i as u64 + 1;
        let err = |message: String| VerdictsError {
            path: shown.clone(),
            line: n,
            message,
        };
        let line = std::str::from_utf8(line).map_err(|e| err(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        lines.push((n, KeyLine::parse(line).map_err(|e| err(e.to_string()))?));
    }
    let verdicts = resolve(stage, lines, &shown)?;
    Ok(verdicts
        .iter()
        .map(|v| serde_json::to_string(v).unwrap())
        .collect())
}

/// A meeting key as a part's reader holds it (`x` and 24 hex digits tagged with the top
/// bit, `b` and 16 as it is); `None` for one it refuses.
fn meet_code(k: &str) -> Option<u128> {
    let hex = |h: &str, n: usize| {
        (h.len() == n && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u128::from_str_radix(h, 16).ok())
            .flatten()
    };
    match k.split_at_checked(1)? {
        ("x", h) => hex(h, 24).map(|v| v | 1 << 127),
        ("b", h) => hex(h, 16),
        _ => None,
    }
}

/// The (possibly mutated) key lines by record id, as a part would carry them after each
/// record: its line in the part, and the key line with its meeting keys as numbers.
fn keys_by_id(path: &Path) -> BTreeMap<String, (u64, KeyLine, Vec<u128>)> {
    let bytes = std::fs::read(path).unwrap();
    let mut by_id = BTreeMap::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let Some(k) = std::str::from_utf8(line)
            .ok()
            .and_then(|l| KeyLine::parse(l).ok())
        else {
            continue;
        };
        let Some(meet) = k.meet.iter().map(|m| meet_code(m)).collect() else {
            continue;
        };
        by_id
            .entry(k.id.clone())
            .or_insert((2 * i as u64 + 2, k, meet));
    }
    by_id
}

/// Reads, checks and accounts for the verdicts at `verdicts` against the records
/// (`part-0`, record `i` at line `2i + 1`, its key line from `keys`).
fn finalised(
    stage: &DedupStage,
    verdicts: &Path,
    keys: &Path,
    texts: &[&str],
) -> Result<(), VerdictsError> {
    let v = DedupVerdicts::read(verdicts, stage)?;
    let ids: Vec<String> = (0..texts.len()).map(|i| format!("r{i}")).collect();
    v.check(ids.iter().map(String::as_str))?;
    let by_id = keys_by_id(keys);
    let given: Vec<Claimed> = ids
        .iter()
        .zip(texts)
        .enumerate()
        .map(|(i, (id, text))| Claimed {
            id,
            text,
            part: "part-0",
            line: 2 * i as u64 + 1,
            key: by_id.get(id).map(|(line, k, meet)| ClaimedKey {
                line: *line,
                at: k.at,
                exact: &k.exact,
                meet,
            }),
        })
        .collect();
    v.account(stage, &given)
}

/// A case: the records' texts, a swap of one record's text for another's, and per file
/// (key lines, verdicts) its line edits and byte mutations.
type Case = (
    Vec<usize>,
    Option<(usize, usize)>,
    Vec<(Vec<LineEdit>, Vec<Mutation>)>,
);

fn case() -> impl Strategy<Value = Case> {
    let edits = (
        proptest::collection::vec(line_edit("{"), 0..3),
        proptest::collection::vec(mutation(), 0..3),
    );
    (
        proptest::collection::vec(0..TEXTS.len(), 0..10),
        proptest::option::weighted(0.2, (any::<usize>(), 0..TEXTS.len())),
        proptest::collection::vec(edits, 2),
    )
}

/// The error names `files` (path, lines) or the part, at a line it has.
fn names_a_line(e: &VerdictsError, files: &[(String, u64)]) -> Result<(), TestCaseError> {
    let shown = e.to_string();
    let lines = files.iter().find(|(p, _)| *p == e.path).map(|f| f.1);
    prop_assert!(
        lines.is_some(),
        "error names no file of the case: {}",
        shown
    );
    prop_assert!(
        (1..=lines.unwrap()).contains(&e.line),
        "line {} of {} lines: {}",
        e.line,
        lines.unwrap(),
        shown
    );
    let head = format!("{}:{}: ", e.path, e.line);
    prop_assert!(shown.starts_with(&head), "not file:line: {}", shown);
    Ok(())
}

#[test]
fn fuzz_dedup_verdicts() {
    let stage = stage();
    fuzz(
        "text.dedup_verdicts",
        256,
        case(),
        |(picked, swap, edits)| {
            let d = tempfile::tempdir().unwrap();
            let (keys, verdicts) = (d.path().join("keys.jsonl"), d.path().join("verdicts.jsonl"));
            let key_text = key_lines(&stage, &picked);
            std::fs::write(&keys, joined(&key_text)).unwrap();
            let verdict_text = replayed(&stage, &keys).unwrap();
            std::fs::write(&verdicts, joined(&verdict_text)).unwrap();
            let mut texts: Vec<&str> = picked.iter().map(|&t| TEXTS[t]).collect();
            let valid = finalised(&stage, &verdicts, &keys, &texts);
            prop_assert!(
                valid.is_ok(),
                "valid verdicts refused: {}",
                valid.unwrap_err()
            );

            let mut files = Vec::new();
            for ((path, lines), (l, b)) in [(&keys, key_text), (&verdicts, verdict_text)]
                .into_iter()
                .zip(&edits)
            {
                let bytes = mutate(joined(&edit_lines(lines, l)), b);
                let n = bytes.split(|&c| c == b'\n').count() as u64;
                files.push((path.display().to_string(), n));
                std::fs::write(path, bytes).unwrap();
            }
            if let (Some((i, t)), false) = (swap, texts.is_empty()) {
                let n = texts.len();
                texts[i % n] = TEXTS[t];
            }
            // Record i at line 2i + 1, key line i after it at 2i + 2 (see `keys_by_id`).
            let key_lines = files[0].1;
            files.push((
                "part-0".to_string(),
                2 * (texts.len() as u64).max(key_lines),
            ));
            if let Err(e) = replayed(&stage, &keys) {
                names_a_line(&e, &files)?;
            }
            if let Err(e) = finalised(&stage, &verdicts, &keys, &texts) {
                names_a_line(&e, &files)?;
            }
            Ok(())
        },
    );
}

/// The texts give the fuzz cases both kinds of verdict to mutate, and short texts none.
#[test]
fn the_texts_give_exact_and_near_drops() {
    let stage = stage();
    let d = tempfile::tempdir().unwrap();
    let keys = d.path().join("keys.jsonl");
    std::fs::write(&keys, joined(&key_lines(&stage, &[0, 1, 2, 3, 4, 5, 6]))).unwrap();
    let verdicts = replayed(&stage, &keys).unwrap().join("\n");
    assert!(
        verdicts.contains(r#""id":"r1","rule":"dedup.exact","twin":"r0""#),
        "{verdicts}"
    );
    assert!(
        verdicts.contains(r#""rule":"dedup.near","twin":"r0""#),
        "{verdicts}"
    );
    assert!(
        verdicts.contains(r#""id":"r6","rule":"dedup.exact","twin":"r5""#),
        "{verdicts}"
    );
}
