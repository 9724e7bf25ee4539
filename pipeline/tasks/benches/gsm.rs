//! make bench: GSM speed. The reference `gsm_naive.py` (python3, run as a child process on
//! the same input in the same run: 2k for ROUGE-1/2, 1k for ROUGE-L, whose naive run takes
//! ~100 s at 2k) against the fast matcher, outputs compared byte for byte; the Rust naive
//! oracle against the fast matcher on the 2k input; then a 100k-sentence pool with ROUGE-1 and a 20k pool with ROUGE-L built
//! from NSMC reviews (bench/README.md says how).

use kcurate_tasks::gsm::{match_fast, match_naive, prepare};
use kcurate_tasks::rouge::Metric;
use std::time::Instant;

use kcurate_core::shared_dir as shared;

#[path = "../../../tests/common/nsmc.rs"]
mod nsmc;

/// NSMC reviews → sentences (kcurate's splitter) → NFC, white space runs to one space,
/// 10–140 code points with a Hangul syllable, exact duplicates dropped, in file order.
fn nsmc_pool(limit: usize) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for text in nsmc::reviews() {
        for s in kcurate_text::split_str(&text) {
            let s: String = s
                .nfc()
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let n = s.chars().count();
            if (10..=140).contains(&n)
                && s.chars().any(|c| ('가'..='힣').contains(&c))
                && seen.insert(s.clone())
            {
                out.push(s);
                if out.len() == limit {
                    return out;
                }
            }
        }
    }
    out
}

/// Runs `gsm_naive.py` on `input`; returns its own "seconds" (matching only, no I/O) and
/// its output bytes, or None when python3 is missing.
fn python_naive(input: &std::path::Path, metric: Metric) -> Option<(f64, Vec<u8>)> {
    let script = shared().join("reference/gsm/gsm_naive.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg("--input")
        .arg(input)
        .args(["--metric", metric.name(), "--seed", "42"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).ok()?;
    Some((err["seconds"].as_f64()?, out.stdout))
}

fn main() {
    for (size, metric) in [
        ("2k", Metric::Rouge1),
        ("2k", Metric::Rouge2),
        ("1k", Metric::RougeL),
    ] {
        let path = shared().join(format!("reference/gsm/gsm_input_{size}.jsonl"));
        let t = Instant::now();
        let mut ours = Vec::new();
        let file = std::fs::File::open(&path).expect("reference input");
        kcurate_tasks::gsm::run_gsm(
            std::io::BufReader::new(file),
            "input",
            &mut ours,
            metric,
            42,
        )
        .expect("valid input");
        let fast = t.elapsed().as_secs_f64();
        match python_naive(&path, metric) {
            Some((py, bytes)) => println!(
                "bench gsm {size} {} vs gsm_naive.py: python {py:.3} s, kcurate {fast:.3} s (read+match+write), ratio {:.0}x, identical bytes: {} (target: identical)",
                metric.name(),
                py / fast,
                bytes == ours
            ),
            None => println!(
                "bench gsm {size} {}: python3 unavailable, kcurate {fast:.3} s",
                metric.name()
            ),
        }
    }
    let input = std::fs::read_to_string(shared().join("reference/gsm/gsm_input_2k.jsonl"))
        .expect("reference input");
    let texts: Vec<String> = input
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    for metric in [Metric::Rouge1, Metric::RougeL] {
        let s = prepare(&refs, metric);
        let t = Instant::now();
        let a = match_naive(&s, metric, 42);
        let naive = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let b = match_fast(&s, metric, 42);
        let fast = t.elapsed().as_secs_f64();
        assert_eq!(a, b, "fast and naive disagree");
        println!(
            "bench gsm 2k {} vs Rust naive oracle: naive {naive:.3} s, fast {fast:.3} s, ratio {:.1}x (same pairs)",
            metric.name(),
            naive / fast
        );
    }
    let pool = nsmc_pool(100_000);
    let p: Vec<&str> = pool.iter().map(String::as_str).collect();
    let t = Instant::now();
    let s = prepare(&p, Metric::Rouge1);
    let (pairs, _) = match_fast(&s, Metric::Rouge1, 42);
    println!(
        "bench gsm rouge1 over {} NSMC sentences: {:.1} s, {} pairs (target < 60 s for 100k)",
        p.len(),
        t.elapsed().as_secs_f64(),
        pairs.len()
    );
    let p20: Vec<&str> = p[..p.len().min(20_000)].to_vec();
    let t = Instant::now();
    let s = prepare(&p20, Metric::RougeL);
    let (pairs, _) = match_fast(&s, Metric::RougeL, 42);
    println!(
        "bench gsm rougeL over {} NSMC sentences: {:.1} s, {} pairs (target < 60 s for 20k)",
        p20.len(),
        t.elapsed().as_secs_f64(),
        pairs.len()
    );
}
