//! `make bench` (bench/crates/audit.sh): per-rule counts over N synthetic decisions
//! (default 10,000,000; `KCURATE_AUDIT_BENCH_N` to change). Writes the decisions as the
//! runner does (JSONL, then Parquet through the release crate), then times the column scan
//! of `kcurate audit` against the simple version (every JSONL line parsed), checking both
//! give the same counts. Prints `bench ...` lines.

use kcurate_audit::scan::{Counts, Where, scan};
use std::io::{BufRead, BufWriter, Write};
use std::time::Instant;

const RULES: [&str; 12] = [
    "ingest.malformed",
    "normalize.nfc",
    "noise.hashtag",
    "noise.byline",
    "split.empty",
    "filter.too_short",
    "filter.cjk_over_10",
    "dedup.exact",
    "dedup.near",
    "toxicity.hate",
    "pii.phone",
    "pii.email",
];
const SOURCES: [&str; 6] = ["nsmc", "wikinews", "policy", "news", "reviews", "intents"];
const ACTIONS: [&str; 3] = ["drop", "edit", "flag"];

fn main() {
    let n: u64 = std::env::var("KCURATE_AUDIT_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let jsonl = dir.path().join("decisions.jsonl");
    let parquet = dir.path().join("decisions.parquet");
    let t = Instant::now();
    {
        let mut w = BufWriter::new(std::fs::File::create(&jsonl).expect("create"));
        for i in 0..n {
            let h = kcurate_core::hash::seeded_u64(7, &i.to_le_bytes());
            let rule = RULES[(h % RULES.len() as u64) as usize];
            let stage = rule.split('.').next().expect("dotted");
            let source = SOURCES[((h >> 8) % SOURCES.len() as u64) as usize];
            let action = ACTIONS[((h >> 16) % 3) as usize];
            writeln!(
                w,
                r#"{{"item":"{source}-{i:09}-s{:03}","stage":"{stage}","rule":"{rule}","action":"{action}","detail":"synthetic decision {i} with a detail of typical length","score":{:.6},"source":"{source}","origin":"corpora/{source}/part-{:04}.jsonl:{}"}}"#,
                h % 7,
                (h % 1000) as f64 / 1000.0,
                h % 1500,
                i + 1
            )
            .expect("write");
        }
    }
    let bytes = std::fs::metadata(&jsonl).expect("meta").len();
    eprintln!(
        "wrote {n} decisions ({:.0} MB) in {:.1} s",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    kcurate_release::parquet_out::jsonl_to_parquet(&jsonl, &parquet).expect("parquet");
    println!(
        "bench audit: decisions.parquet written for {n} decisions in {:.1} s (part of every release)",
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let (counts, _) = scan(&parquet, &Where::default(), 0, 42).expect("scan");
    let scan_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let filtered = scan(
        &parquet,
        &Where {
            rule: Some("dedup.near".into()),
            ..Default::default()
        },
        5,
        42,
    )
    .expect("scan");
    let sample_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let oracle = simple_counts(&jsonl);
    let simple_s = t.elapsed().as_secs_f64();
    assert_eq!(counts, oracle, "column scan and simple count disagree");
    assert!(filtered.1.values().all(|v| v.len() == 5));
    println!(
        "bench audit: per-rule counts over {n} decisions: {scan_s:.2} s (column scan of decisions.parquet); \
         simple JSONL parse {simple_s:.2} s ({:.1}x); same counts",
        simple_s / scan_s
    );
    println!("bench audit: one rule with 5 seeded samples per source: {sample_s:.2} s");
    #[cfg(feature = "polars")]
    {
        let t = Instant::now();
        let by_polars = kcurate_audit::frame::counts(&parquet, &Where::default()).expect("polars");
        let polars_s = t.elapsed().as_secs_f64();
        assert_eq!(by_polars, counts, "polars and the column scan disagree");
        println!(
            "bench audit: per-rule counts over {n} decisions by a polars lazy query: {polars_s:.2} s; same counts"
        );
    }
}

/// The simple version: every JSONL line parsed (typed, borrowed), counted in a map.
fn simple_counts(path: &std::path::Path) -> Counts {
    #[derive(serde::Deserialize)]
    struct D<'a> {
        #[serde(borrow)]
        stage: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        rule: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        source: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        action: std::borrow::Cow<'a, str>,
    }
    let mut c = Counts::new();
    let r = std::io::BufReader::new(std::fs::File::open(path).expect("open"));
    for line in r.lines() {
        let line = line.expect("read");
        let d: D = serde_json::from_str(&line).expect("json");
        let slot = match d.action.as_ref() {
            "drop" => 0,
            "edit" => 1,
            _ => 2,
        };
        c.entry((
            d.stage.into_owned(),
            d.rule.into_owned(),
            d.source.into_owned(),
        ))
        .or_default()[slot] += 1;
    }
    c
}
