//! make bench: GSM speed. The fast matcher against the naive oracle on the 2k reference
//! input (same run), then a 100k-sentence pool with ROUGE-1 and a 20k pool with ROUGE-L built
//! from NSMC reviews (bench/README.md says how).

use kcurate_tasks::gsm::{match_fast, match_naive, prepare};
use kcurate_tasks::rouge::Metric;
use std::time::Instant;

fn shared() -> std::path::PathBuf {
    std::env::var("KCURATE_SHARED")
        .map(Into::into)
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared").into())
}

/// NSMC reviews → sentences (kcurate's splitter) → NFC, white space runs to one space,
/// 10–140 code points with a Hangul syllable, exact duplicates dropped, in file order.
fn nsmc_pool(limit: usize) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let dir = shared().join("corpora/nsmc/raw");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("nsmc")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for f in files {
        let v: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(f).expect("read")).expect("json");
        for r in v {
            let Some(text) = r["review"].as_str() else {
                continue;
            };
            for s in kcurate_text::split_str(text) {
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
    }
    out
}

fn main() {
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
            "bench gsm 2k {}: naive {naive:.3} s, fast {fast:.3} s, ratio {:.1}x (same pairs)",
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
