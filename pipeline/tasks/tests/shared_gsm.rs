//! Byte-identical outputs to ../shared/reference/gsm for both inputs and all three metrics,
//! through the same library call `kcurate sts gsm` makes; the oracle agrees on the 1k input.

use kcurate_tasks::gsm::{match_fast, match_naive, prepare, read_input, run_gsm};
use kcurate_tasks::rouge::Metric;
use std::io::BufReader;

use kcurate_core::shared_dir as shared;

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn outputs_match_the_reference_byte_for_byte() {
    let dir = shared().join("reference/gsm");
    for size in ["1k", "2k"] {
        let path = dir.join(format!("gsm_input_{size}.jsonl"));
        for metric in [Metric::Rouge1, Metric::Rouge2, Metric::RougeL] {
            let file = std::fs::File::open(&path).expect("reference input");
            let mut out = Vec::new();
            let sum = run_gsm(
                BufReader::new(file),
                &path.display().to_string(),
                &mut out,
                metric,
                42,
            )
            .expect("valid input");
            let want =
                std::fs::read(dir.join(format!("gsm_naive_out_{size}_{}.jsonl", metric.name())))
                    .expect("reference output");
            assert!(
                out == want,
                "{size} {}: output differs from the reference",
                metric.name()
            );
            assert_eq!(sum.pairs * 2 + usize::from(sum.unmatched.is_some()), sum.n);
        }
    }
}

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn oracle_equals_fast_on_the_1k_input() {
    let path = shared().join("reference/gsm/gsm_input_1k.jsonl");
    let file = std::fs::File::open(&path).expect("reference input");
    let (_, texts) = read_input(BufReader::new(file), "1k").expect("valid input");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for metric in [Metric::Rouge1, Metric::Rouge2, Metric::RougeL] {
        let s = prepare(&refs, metric);
        for seed in [42, 7] {
            assert_eq!(
                match_fast(&s, metric, seed),
                match_naive(&s, metric, seed),
                "{} seed {seed}",
                metric.name()
            );
        }
    }
}
