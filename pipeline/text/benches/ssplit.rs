//! Splitter throughput on `../shared/reference/ssplit/bench_text.jsonl` (chars = Unicode
//! scalar values, as the reference's Python `len`). Each document is split in one call.

mod common;

use std::time::Instant;

fn main() {
    let texts = common::bench_texts();
    let chars: usize = texts.iter().map(|t| t.chars().count()).sum();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mut ranges = Vec::new();
    // Warm-up, then repeat until at least 2 s of split time.
    let mut sentences = 0usize;
    for t in &texts {
        kcurate_text::ssplit::split_into(t, &mut ranges);
        sentences += ranges.len();
    }
    let start = Instant::now();
    let mut rounds = 0u64;
    while rounds < 5 || start.elapsed().as_secs_f64() < 2.0 {
        for t in &texts {
            kcurate_text::ssplit::split_into(t, &mut ranges);
            std::hint::black_box(&ranges);
        }
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let cps = chars as f64 * rounds as f64 / secs;
    let bps = bytes as f64 * rounds as f64 / secs;
    println!(
        "bench ssplit docs: {} docs, {chars} chars, {sentences} sentences",
        texts.len()
    );
    println!("bench ssplit chars/s: {cps:.0} chars/s (target 11000000)");
    println!("bench ssplit bytes/s: {:.1} MB/s (target 26)", bps / 1e6);
}
