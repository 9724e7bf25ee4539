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

/// Time spent, per stage on the first pass and in the five stages over all passes, with
/// each pass's wall time and the peak RSS after the first and the fourth pass.
#[derive(Default)]
struct Timing {
    stage_secs: [f64; 5],
    // Time inside the five stages over all passes (no file reading or JSON parsing).
    chain_secs: f64,
    pass_secs: Vec<f64>,
    rss: Vec<u64>,
}

impl Timing {
    /// Adds `dt` seconds spent in stage `k` during pass `pass`.
    fn add(&mut self, pass: usize, k: usize, dt: f64) {
        self.chain_secs += dt;
        if pass == 0 {
            self.stage_secs[k] += dt;
        }
    }
}

/// The four per-record stages and the dedup index, with the buffers reused file after file.
struct Chain {
    stages: Vec<(&'static str, Box<dyn Stage>)>,
    outs: Vec<Out>,
    dedup: Deduper,
    decisions: Vec<kcurate_core::Decision>,
    batch: Vec<Record>,
    next: Vec<Record>,
}

fn main() {
    let files = input_files();
    let mut chain = Chain::new();
    let mut t = Tally::default();
    let mut timing = Timing::default();
    let start = Instant::now();
    // KCURATE_BENCH_PASSES=1 runs one pass (for profiling).
    let passes: usize = std::env::var("KCURATE_BENCH_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    for pass in 0..passes {
        let p0 = Instant::now();
        for f in &files {
            chain.run_file(f, pass, &mut t, &mut timing);
        }
        timing.pass_secs.push(p0.elapsed().as_secs_f64());
        if pass == 0 || pass == 3 {
            timing.rss.push(common::peak_rss_kb().unwrap_or(0));
        }
    }
    if passes != 4 {
        println!(
            "bench text chain {passes} pass(es): {:.1} MB/s review text",
            t.text_bytes as f64 / 1e6 / start.elapsed().as_secs_f64()
        );
        return;
    }
    print_table(files.len(), &t, &timing, start.elapsed().as_secs_f64());
}

/// The NSMC raw files, in name order.
fn input_files() -> Vec<std::path::PathBuf> {
    let dir = common::shared_dir().join("corpora/nsmc/raw");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

impl Chain {
    fn new() -> Self {
        let rules = NoiseRules::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../rules/noise.toml"
        )))
        .unwrap_or_else(|e| panic!("{e}"));
        let filter: FilterConfig = toml::from_str(
            "min_chars = 4\nmax_chars = 300\nmin_hangul_share = 0.5\nmax_repeat = 10",
        )
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
        let outs = stages.iter().map(|(name, _)| Out::new(*name)).collect();
        Chain {
            stages,
            outs,
            dedup: Deduper::new(42, true, near),
            decisions: Vec::new(),
            batch: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Reads one file and runs its reviews through the chain. A file's reviews go through
    /// each stage together (the timers run once per file and stage, not per record), and
    /// its sentences are offered to dedup in order, as the corpus stage offers a whole
    /// corpus.
    fn run_file(&mut self, f: &std::path::Path, pass: usize, t: &mut Tally, timing: &mut Timing) {
        self.read_batch(f, pass, t);
        for k in 0..self.stages.len() {
            let t0 = Instant::now();
            self.next.clear();
            // One `Out` per stage, reused record after record, as the runner's workers do.
            let out = &mut self.outs[k];
            let st = &self.stages[k].1;
            for rec in self.batch.drain(..) {
                st.apply(rec, out);
                out.drain_into(&mut self.next, &mut self.decisions);
            }
            t.decisions += self.decisions.len() as u64;
            self.decisions.clear();
            std::mem::swap(&mut self.batch, &mut self.next);
            timing.add(pass, k, t0.elapsed().as_secs_f64());
        }
        let t0 = Instant::now();
        for v in self
            .dedup
            .offer_batch(self.batch.iter().map(|r| r.text.as_str()))
        {
            t.sentences += 1;
            if v == Verdict::Keep {
                t.kept += 1;
            } else {
                t.decisions += 1;
            }
        }
        timing.add(pass, 4, t0.elapsed().as_secs_f64());
    }

    /// Parses one file's reviews into the batch, as records.
    fn read_batch(&mut self, f: &std::path::Path, pass: usize, t: &mut Tally) {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        t.file_bytes += data.len() as u64;
        let arr: Vec<Review> =
            serde_json::from_slice(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        self.batch.clear();
        for (i, v) in arr.into_iter().enumerate() {
            let text = v.review;
            t.docs += 1;
            t.text_bytes += text.len() as u64;
            self.batch.push(Record {
                id: format!(
                    "nsmc-{pass}-{}-{i}",
                    f.file_stem().and_then(|s| s.to_str()).unwrap_or("")
                ),
                source: "nsmc".into(),
                text,
                ..Default::default()
            });
        }
    }
}

/// Prints the table of a four-pass run; `secs` is its whole wall time.
fn print_table(files: usize, t: &Tally, timing: &Timing, secs: f64) {
    let text_mb = t.text_bytes as f64 / 1e6;
    println!(
        "bench text chain input: {} files, {} reviews, {:.1} MB review text, {:.1} MB JSON (x4); {} sentences, {} kept, {} decisions",
        files,
        t.docs,
        text_mb,
        t.file_bytes as f64 / 1e6,
        t.sentences,
        t.kept,
        t.decisions
    );
    let stages_1x: f64 = timing.stage_secs.iter().sum();
    let pass_secs = &timing.pass_secs;
    println!(
        "bench text chain 1x: {:.1} MB/s review text in the five stages (target 20); with reading and parsing the JSON: {:.1} MB/s review text, {:.1} MB/s JSON input",
        text_mb / 4.0 / stages_1x,
        text_mb / 4.0 / pass_secs[0],
        t.file_bytes as f64 / 4.0 / 1e6 / pass_secs[0]
    );
    println!(
        "bench text chain 4x: {:.1} MB/s review text in the five stages (target 20); with reading and parsing: {:.1} MB/s",
        text_mb / timing.chain_secs,
        text_mb / secs
    );
    for (name, secs) in ["normalize", "noise", "split", "filter", "dedup"]
        .iter()
        .zip(timing.stage_secs)
    {
        println!("bench text stage {name} (1x): {secs:.3} s");
    }
    println!("bench text chain peak RSS 1x: {} kB", timing.rss[0]);
    println!(
        "bench text chain peak RSS 4x: {} kB (target: flat, = 1x)",
        timing.rss[1]
    );
}
