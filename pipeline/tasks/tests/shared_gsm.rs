//! Byte-identical outputs to ../shared/reference/gsm for both inputs and all three metrics.
#![cfg(feature = "shared")]

use kcurate_tasks::gsm::{match_fast, prepare, write_output};
use kcurate_tasks::rouge::Metric;

fn shared() -> std::path::PathBuf {
    std::env::var("KCURATE_SHARED")
        .map(Into::into)
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared").into())
}

#[test]
fn outputs_match_the_reference_byte_for_byte() {
    let dir = shared().join("reference/gsm");
    for size in ["1k", "2k"] {
        let input = std::fs::read_to_string(dir.join(format!("gsm_input_{size}.jsonl"))).unwrap();
        let rows: Vec<serde_json::Value> = input
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let ids: Vec<String> = rows
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        let texts: Vec<&str> = rows.iter().map(|r| r["text"].as_str().unwrap()).collect();
        for metric in [Metric::Rouge1, Metric::Rouge2, Metric::RougeL] {
            let s = prepare(&texts, metric);
            let (pairs, un) = match_fast(&s, metric, 42);
            let mut out = Vec::new();
            write_output(&mut out, &ids, &pairs, un, metric, 42).unwrap();
            let want =
                std::fs::read(dir.join(format!("gsm_naive_out_{size}_{}.jsonl", metric.name())))
                    .unwrap();
            assert!(
                out == want,
                "{size} {}: output differs from the reference",
                metric.name()
            );
        }
    }
}
