//! Fuzz targets (proptest, stable Rust) for the Label Studio export reader (JSON, JSON-MIN
//! and CSV exports): valid exports built from random tasks, then mutated byte by byte, and
//! raw bytes. Promised: no panic; an error names the file; what is read comes back the same
//! the second time.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_agree::io::{Format, ReadOptions, read_with};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::json;

/// Runs `test` over `strategy` for `KCURATE_FUZZ_CASES` cases (default `default`), again
/// and again until `KCURATE_FUZZ_SECONDS` have passed when that is set (`make fuzz`).
fn fuzz<S: Strategy>(
    name: &str,
    default: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f64>().ok());
    let cases = env("KCURATE_FUZZ_CASES").map_or(default, |c| c.max(1.0) as u32);
    let seconds = env("KCURATE_FUZZ_SECONDS");
    let start = std::time::Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz {name}: {e}");
        }
        total += u64::from(cases);
        if seconds.is_none_or(|s| start.elapsed().as_secs_f64() >= s) {
            break;
        }
    }
    eprintln!(
        "fuzz {name}: {total} cases in {:.1} s, 0 failures",
        start.elapsed().as_secs_f64()
    );
}

fn special() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"\"".to_vec()),
        Just(b",".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"{".to_vec()),
        Just(b"}".to_vec()),
        Just(b"[".to_vec()),
        Just(b"]".to_vec()),
        Just(b"\\".to_vec()),
        Just(b"\\u".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xFF\xFE".to_vec()),
        Just(b"\xED\xA0\x80".to_vec()),
        Just(b"\0".to_vec()),
        Just("한국어".as_bytes().to_vec()),
        Just(b"\"text\":".to_vec()),
        Just(b"null".to_vec()),
        Just(b"1e400".to_vec()),
        Just(b"                ".to_vec()),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), special()).prop_map(|(i, s)| Mutation::Insert(i, s)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn mutate(mut b: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let n = b.len();
        match m {
            Mutation::Flip(i, x) if n > 0 => b[i % n] = *x,
            Mutation::Insert(i, s) => {
                let at = i % (n + 1);
                b.splice(at..at, s.iter().copied());
            }
            Mutation::Delete(i, k) if n > 0 => {
                let at = i % n;
                b.drain(at..(at + k).min(n));
            }
            Mutation::Truncate(i) => b.truncate(i % (n + 1)),
            Mutation::Duplicate(i, k) if n > 0 => {
                let at = i % n;
                let piece = b[at..(at + k).min(n)].to_vec();
                b.splice(at..at, piece);
            }
            _ => {}
        }
    }
    b
}

#[derive(Debug, Clone)]
struct Ann {
    annotator: u8,
    choices: Vec<String>,
    cancelled: bool,
    from_name: String,
}

fn label() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("긍정".to_string()),
        Just("부정".to_string()),
        Just("3".to_string()),
        Just("NaN".to_string()),
        Just(String::new()),
        "\\PC{0,6}",
    ]
}

fn ann() -> impl Strategy<Value = Ann> {
    (
        0u8..6,
        proptest::collection::vec(label(), 0..3),
        prop::bool::weighted(0.1),
        prop_oneof![4 => Just("sentiment".to_string()), 1 => Just("other".to_string())],
    )
        .prop_map(|(annotator, choices, cancelled, from_name)| Ann {
            annotator,
            choices,
            cancelled,
            from_name,
        })
}

/// Tasks: (task id, text, annotations).
fn tasks() -> impl Strategy<Value = Vec<(u8, String, Vec<Ann>)>> {
    proptest::collection::vec(
        (
            0u8..20,
            "[가-힣 ,\"]{0,10}",
            proptest::collection::vec(ann(), 0..5),
        ),
        0..8,
    )
}

fn export_json(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let v: Vec<_> = tasks
        .iter()
        .map(|(id, text, anns)| {
            let annotations: Vec<_> = anns
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    json!({
                        "id": k,
                        "completed_by": a.annotator,
                        "was_cancelled": a.cancelled,
                        "result": [{
                            "from_name": a.from_name,
                            "to_name": "text",
                            "type": "choices",
                            "value": {"choices": a.choices},
                        }],
                    })
                })
                .collect();
            json!({"id": id, "data": {"text": text}, "annotations": annotations})
        })
        .collect();
    serde_json::to_vec_pretty(&v).unwrap()
}

fn min_rows(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<(u8, String, u8, String)> {
    tasks
        .iter()
        .flat_map(|(id, text, anns)| {
            anns.iter().map(move |a| {
                (
                    *id,
                    text.clone(),
                    a.annotator,
                    a.choices.first().cloned().unwrap_or_default(),
                )
            })
        })
        .collect()
}

fn export_json_min(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let v: Vec<_> = min_rows(tasks)
        .into_iter()
        .map(|(id, text, who, choice)| {
            json!({"id": id, "text": text, "sentiment": choice, "annotator": who})
        })
        .collect();
    serde_json::to_vec(&v).unwrap()
}

fn export_csv(tasks: &[(u8, String, Vec<Ann>)]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["annotation_id", "annotator", "id", "sentiment", "text"])
        .unwrap();
    for (k, (id, text, who, choice)) in min_rows(tasks).into_iter().enumerate() {
        w.write_record([k.to_string(), who.to_string(), id.to_string(), choice, text])
            .unwrap();
    }
    w.into_inner().unwrap()
}

/// (file name, bytes) of an export.
fn export() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    let valid = (tasks(), 0u8..3).prop_map(|(t, kind)| match kind {
        0 => ("ls.json", export_json(&t)),
        1 => ("ls.json", export_json_min(&t)),
        _ => ("ls.csv", export_csv(&t)),
    });
    prop_oneof![
        1 => (prop_oneof![Just("ls.json"), Just("ls.csv")], proptest::collection::vec(any::<u8>(), 0..256)),
        4 => (valid, proptest::collection::vec(mutation(), 0..6))
            .prop_map(|((name, b), ms)| (name, mutate(b, &ms))),
    ]
}

#[test]
fn fuzz_label_studio_reader() {
    fuzz("agree.label_studio", 256, export(), |(name, bytes)| {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let opts = ReadOptions::default();
        match read_with(&path, Format::LabelStudio, &opts) {
            Ok(a) => {
                let again = read_with(&path, Format::LabelStudio, &opts).unwrap();
                prop_assert_eq!(format!("{:?}", a.rows), format!("{:?}", again.rows));
                prop_assert_eq!(a.rejected.len(), again.rejected.len());
            }
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(shown.contains(name), "error without the file: {}", shown);
            }
        }
        Ok(())
    });
}
