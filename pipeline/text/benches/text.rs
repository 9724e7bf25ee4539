//! The whole text chain (normalize → noise → split → filter → dedup) on one thread over
//! `../shared/corpora/nsmc/raw` (JSON arrays of `{"review", ...}`, parsed here with
//! serde_json, one file at a time), in MB/s of review text, with the peak RSS (VmHWM)
//! after reading the input once (1×) and four times (4×, streaming: the same files again,
//! through the same stages and the same dedup index).

mod common;

// The chain runs in the kcurate binary with its allocator; so it does here (the binary's
// allocator module, the out-of-memory hook unused).
#[allow(dead_code)]
#[path = "../../cli/src/alloc.rs"]
mod alloc;

use kcurate_core::{Out, Record, Stage};
use kcurate_text::dedup::{Deduper, NearConfig, Verdict};
use kcurate_text::noise::NoiseRules;
use kcurate_text::normalize::NormalizeOptions;
use kcurate_text::stages::filter::{FilterConfig, FilterStage};
use kcurate_text::stages::noise::NoiseStage;
use kcurate_text::stages::normalize::NormalizeStage;
use kcurate_text::stages::split::SplitStage;
use std::collections::BTreeSet;
use std::time::Instant;

/// One NSMC review; the other fields (`date`, `rating`, ids) are skipped by serde.
#[derive(serde::Deserialize)]
struct Review {
    #[serde(default)]
    review: String,
}

#[derive(Default)]
struct Tally {
    docs: u64,
    text_bytes: u64,
    file_bytes: u64,
    sentences: u64,
    kept: u64,
    decisions: u64,
}

#[allow(
    clippy::too_many_lines,
    reason = "the benchmark's script: inputs, each timed step and the printed table, in order"
)]
fn main() {
    let dir = common::shared_dir().join("corpora/nsmc/raw");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let rules = NoiseRules::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../rules/noise.toml"
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let filter: FilterConfig =
        toml::from_str("min_chars = 4\nmax_chars = 300\nmin_hangul_share = 0.5\nmax_repeat = 10")
            .unwrap_or_else(|e| panic!("{e}"));
    let stages: Vec<(&str, Box<dyn Stage>)> = vec![
        (
            "normalize",
            Box::new(NormalizeStage::new(NormalizeOptions::default())),
        ),
        ("noise", Box::new(NoiseStage::new(rules, BTreeSet::new()))),
        ("split", Box::new(SplitStage)),
        ("filter", Box::new(FilterStage::new(filter))),
    ];
    let near = (std::env::var("KCURATE_BENCH_NO_NEAR").is_err()).then(NearConfig::default);
    let mut dedup = Deduper::new(42, true, near);
    let mut t = Tally::default();
    let mut outs: Vec<Out> = stages.iter().map(|(name, _)| Out::new(*name)).collect();
    let mut decisions = Vec::new();
    let mut batch: Vec<Record> = Vec::new();
    let mut next: Vec<Record> = Vec::new();
    let start = Instant::now();
    let mut pass_secs = Vec::new();
    let mut rss = Vec::new();
    let mut stage_secs = [0f64; 5];
    // Time inside the five stages over all passes (no file reading or JSON parsing).
    let mut chain_secs = 0f64;
    // KCURATE_BENCH_PASSES=1 runs one pass (for profiling).
    let passes: usize = std::env::var("KCURATE_BENCH_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    for pass in 0..passes {
        let p0 = Instant::now();
        for f in &files {
            let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            t.file_bytes += data.len() as u64;
            let arr: Vec<Review> =
                serde_json::from_slice(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            // A file's reviews go through each stage together (the timers run once per
            // file and stage, not per record), and its sentences are offered to dedup in
            // order, as the corpus stage offers a whole corpus.
            batch.clear();
            for (i, v) in arr.into_iter().enumerate() {
                let text = v.review;
                t.docs += 1;
                t.text_bytes += text.len() as u64;
                batch.push(Record {
                    id: format!(
                        "nsmc-{pass}-{}-{i}",
                        f.file_stem().and_then(|s| s.to_str()).unwrap_or("")
                    ),
                    source: "nsmc".into(),
                    text,
                    ..Default::default()
                });
            }
            for (k, (_, st)) in stages.iter().enumerate() {
                let t0 = Instant::now();
                next.clear();
                // One `Out` per stage, reused record after record, as the runner's workers
                // do.
                let out = &mut outs[k];
                for rec in batch.drain(..) {
                    st.apply(rec, out);
                    out.drain_into(&mut next, &mut decisions);
                }
                t.decisions += decisions.len() as u64;
                decisions.clear();
                std::mem::swap(&mut batch, &mut next);
                let dt = t0.elapsed().as_secs_f64();
                chain_secs += dt;
                if pass == 0 {
                    stage_secs[k] += dt;
                }
            }
            let t0 = Instant::now();
            for v in dedup.offer_batch(batch.iter().map(|r| r.text.as_str())) {
                t.sentences += 1;
                if v == Verdict::Keep {
                    t.kept += 1;
                } else {
                    t.decisions += 1;
                }
            }
            let dt = t0.elapsed().as_secs_f64();
            chain_secs += dt;
            if pass == 0 {
                stage_secs[4] += dt;
            }
        }
        pass_secs.push(p0.elapsed().as_secs_f64());
        if pass == 0 || pass == 3 {
            rss.push(common::peak_rss_kb().unwrap_or(0));
        }
    }
    if passes != 4 {
        println!(
            "bench text chain {passes} pass(es): {:.1} MB/s review text",
            t.text_bytes as f64 / 1e6 / start.elapsed().as_secs_f64()
        );
        return;
    }
    let secs = start.elapsed().as_secs_f64();
    let text_mb = t.text_bytes as f64 / 1e6;
    println!(
        "bench text chain input: {} files, {} reviews, {:.1} MB review text, {:.1} MB JSON (x4); {} sentences, {} kept, {} decisions",
        files.len(),
        t.docs,
        text_mb,
        t.file_bytes as f64 / 1e6,
        t.sentences,
        t.kept,
        t.decisions
    );
    let stages_1x: f64 = stage_secs.iter().sum();
    println!(
        "bench text chain 1x: {:.1} MB/s review text in the five stages (target 20); with reading and parsing the JSON: {:.1} MB/s review text, {:.1} MB/s JSON input",
        text_mb / 4.0 / stages_1x,
        text_mb / 4.0 / pass_secs[0],
        t.file_bytes as f64 / 4.0 / 1e6 / pass_secs[0]
    );
    println!(
        "bench text chain 4x: {:.1} MB/s review text in the five stages (target 20); with reading and parsing: {:.1} MB/s",
        text_mb / chain_secs,
        text_mb / secs
    );
    for (name, secs) in ["normalize", "noise", "split", "filter", "dedup"]
        .iter()
        .zip(stage_secs)
    {
        println!("bench text stage {name} (1x): {secs:.3} s");
    }
    println!("bench text chain peak RSS 1x: {} kB", rss[0]);
    println!(
        "bench text chain peak RSS 4x: {} kB (target: flat, = 1x)",
        rss[1]
    );
}
