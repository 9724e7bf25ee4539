//! Fuzz targets (proptest, stable Rust) for the Parquet reader `kcurate audit` uses on
//! `audit/decisions.parquet` ([`scan`] and [`origins`]): a valid decisions file written by
//! the release writer, then mutated byte by byte (flips, truncation, inserted and
//! duplicated runs), and raw bytes. Promised: no panic, an error naming the file; the
//! unmutated file counts every row.
//!
//! Cases: `KCURATE_FUZZ_CASES` (default small, for `make test`); `KCURATE_FUZZ_SECONDS`
//! keeps going for that long (`make fuzz`).

use kcurate_audit::scan::{Where, origins, scan};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

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

/// A decisions file of `rows` rows, as the release writes it.
fn decisions_parquet(dir: &std::path::Path, rows: usize) -> Vec<u8> {
    let jsonl = dir.join("decisions.jsonl");
    let body: String = (0..rows)
        .map(|i| {
            let rule = ["quality.too_short", "dedup.exact", "pii.phone"][i % 3];
            let action = ["drop", "edit", "flag"][i % 3];
            format!(
                "{}\n",
                serde_json::json!({
                    "stage": rule.split('.').next().unwrap(),
                    "rule": rule,
                    "source": format!("s{}", i % 2),
                    "action": action,
                    "item": format!("s{}:{i}", i % 2),
                    "origin": format!("f.jsonl:{}", i + 1),
                    "detail": "세부",
                })
            )
        })
        .collect();
    std::fs::write(&jsonl, body).unwrap();
    let out = dir.join("seed.parquet");
    kcurate_release::parquet_out::jsonl_to_parquet(&jsonl, &out).unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn fuzz_audit_parquet_reader() {
    let d = tempfile::tempdir().unwrap();
    let seed = decisions_parquet(d.path(), 40);
    // The seed itself reads back whole: every row counted once.
    let (counts, _) = scan(&d.path().join("seed.parquet"), &Where::default(), 2, 7).unwrap();
    let total: u64 = counts.values().flat_map(|c| c.iter()).sum();
    assert_eq!(total, 40, "{counts:?}");
    let s = prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..512),
        6 => proptest::collection::vec(mutation(), 1..6).prop_map(move |ms| mutate(seed.clone(), &ms)),
    ];
    fuzz("audit.parquet", 256, (s, 0usize..3), |(bytes, sample)| {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("decisions.parquet");
        std::fs::write(&path, &bytes).unwrap();
        let shown = path.display().to_string();
        if let Err(e) = scan(&path, &Where::default(), sample, 7) {
            prop_assert!(
                e.to_string().contains(&shown),
                "error without the file: {}",
                e
            );
        }
        if let Err(e) = origins(&path, &Where::default()) {
            prop_assert!(
                e.to_string().contains(&shown),
                "error without the file: {}",
                e
            );
        }
        Ok(())
    });
}

/// Found by `fuzz_audit_parquet_reader`: the parquet crate panicked on corrupt files
/// ("column start and length should not be negative", "offset + len out of bounds") and
/// took `audit` down. Every other byte of a decisions file overwritten in turn with 0xFF
/// now reads as Ok or as an error naming the file.
#[test]
fn corrupt_decisions_parquet_is_an_error_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let seed = decisions_parquet(d.path(), 40);
    let path = d.path().join("decisions.parquet");
    let shown = path.display().to_string();
    for at in (0..seed.len()).step_by(2) {
        for v in [0xFFu8] {
            let mut b = seed.clone();
            b[at] = v;
            std::fs::write(&path, &b).unwrap();
            for e in [
                scan(&path, &Where::default(), 1, 7).err(),
                origins(&path, &Where::default()).err(),
            ]
            .into_iter()
            .flatten()
            {
                assert!(e.to_string().contains(&shown), "byte {at} = {v}: {e}");
            }
        }
    }
}
