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

#[path = "../../../tests/common/fuzz.rs"]
mod fuzz_harness;
use fuzz_harness::{fuzz, mutate, mutation};

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
