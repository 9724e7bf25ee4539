//! make bench: detect and detect+pseudonymise throughput on one core over the NSMC reviews
//! in ../shared, and chars/s on the labelled dev set (the unit of the Presidio baseline).

use kcurate_pii::detect::detect;
use kcurate_pii::pseudo::{PiiKey, pseudonymise};
use std::time::Instant;

use kcurate_core::shared_dir as shared;

#[path = "../../../tests/common/nsmc.rs"]
mod nsmc;

fn pass(texts: &[String], key: &PiiKey, pseudo: bool) -> (f64, usize) {
    let t = Instant::now();
    let mut hits = 0;
    for text in texts {
        let spans = detect(text);
        hits += spans.len();
        if pseudo && !spans.is_empty() {
            let chars: Vec<char> = text.chars().collect();
            for s in &spans {
                let v: String = chars[s.start..s.end].iter().collect();
                std::hint::black_box(pseudonymise(key, &s.kind, &v));
            }
        }
    }
    (t.elapsed().as_secs_f64(), hits)
}

fn main() {
    let key = PiiKey::new(b"bench-key".to_vec()).expect("key");
    let reviews = nsmc::reviews();
    let bytes: usize = reviews.iter().map(String::len).sum();
    let (s, hits) = pass(&reviews, &key, false);
    println!(
        "bench pii detect over NSMC reviews: {:.1} MB/s ({} texts, {:.1} MB, {hits} spans) on one core",
        bytes as f64 / 1e6 / s,
        reviews.len(),
        bytes as f64 / 1e6
    );
    let (s, _) = pass(&reviews, &key, true);
    println!(
        "bench pii detect+pseudonymise over NSMC reviews: {:.1} MB/s on one core (target >= 50 MB/s)",
        bytes as f64 / 1e6 / s
    );
    let dev: Vec<String> = std::fs::read_to_string(shared().join("reference/pii/dev.jsonl"))
        .expect("dev.jsonl")
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<serde_json::Value>(l).ok()?["text"]
                .as_str()
                .map(String::from)
        })
        .collect();
    let chars: usize = dev.iter().map(|t| t.chars().count()).sum();
    let mut best = f64::MAX;
    for _ in 0..5 {
        best = best.min(pass(&dev, &key, true).0);
    }
    println!(
        "bench pii detect+pseudonymise on dev.jsonl: {:.0} chars/s (Presidio presidio-kr in the README: 78,023 chars/s detect only)",
        chars as f64 / best
    );
    let nsmc_cps = reviews.iter().map(|t| t.chars().count()).sum::<usize>() as f64 / s;
    println!("bench pii NSMC chars/s: {nsmc_cps:.0}");
}
