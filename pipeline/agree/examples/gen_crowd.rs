//! Writes a synthetic crowd-annotation file (long TSV `task, worker, label`) to stdout, the
//! shape crowdsourcing platforms produce: N items, L labels per item from distinct workers
//! drawn out of a crowd of W, K classes, each worker right with a fixed accuracy.
//!
//! With the defaults it writes exactly `../shared/reference/agreement/bench/input.tsv.gz`
//! decompressed (the generator in that folder's README: SplitMix64 from seed 20240601;
//! sha256 86d30caa…71af96). Used by `bench/agree_scale.sh` for the 1×/10× and crowd-size runs.
//!
//! ```sh
//! cargo run --release -p kcurate-agree --example gen_crowd -- \
//!     [--items 100000] [--labels 5] [--classes 3] [--workers 2000] [--seed 20240601] \
//!     [--format tsv|jsonl|label-studio] > input.tsv
//! ```

use std::io::{BufWriter, Write};

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64) as usize
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "the generator's script: its options, then the crowd drawn and written, in order"
)]
fn main() -> std::io::Result<()> {
    let mut items = 100_000usize;
    let mut labels = 5usize;
    let mut classes = 3usize;
    let mut workers = 2_000usize;
    let mut seed = 20_240_601u64;
    let mut format = String::from("tsv");
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [flag, value] = pair else {
            panic!("flags take a value: {args:?}")
        };
        let n = || value.parse::<usize>().expect("a number");
        match flag.as_str() {
            "--items" => items = n(),
            "--labels" => labels = n(),
            "--classes" => classes = n(),
            "--workers" => workers = n(),
            "--seed" => seed = value.parse().expect("a number"),
            "--format" => format = value.clone(),
            _ => panic!("unknown flag {flag}"),
        }
    }
    assert!(labels <= workers, "--labels must not exceed --workers");
    assert!(classes >= 2, "--classes must be at least 2");
    // Worker ids as wide as the crowd needs (4 digits for the reference crowd of 2,000).
    let wd = workers.saturating_sub(1).to_string().len().max(4);
    let td = items.saturating_sub(1).to_string().len().max(6);
    let mut rng = SplitMix64(seed);
    let accuracy: Vec<f64> = (0..workers).map(|_| 0.35 + 0.6 * rng.uniform()).collect();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match format.as_str() {
        "tsv" => writeln!(out, "task\tworker\tlabel")?,
        "label-studio" => out.write_all(b"[\n")?,
        "jsonl" => {}
        other => panic!("unknown format {other} (tsv, jsonl, label-studio)"),
    }
    let mut used: Vec<usize> = Vec::with_capacity(labels);
    for t in 0..items {
        let truth = rng.below(classes);
        used.clear();
        if format == "label-studio" {
            if t > 0 {
                out.write_all(b",\n")?;
            }
            write!(
                out,
                r#"{{"id":{},"data":{{"item":"t{t:0td$}"}},"annotations":["#,
                t + 1
            )?;
        }
        for k in 0..labels {
            let w = loop {
                let w = rng.below(workers);
                if !used.contains(&w) {
                    break w;
                }
            };
            used.push(w);
            let label = if rng.uniform() < accuracy[w] {
                truth
            } else {
                (truth + 1 + rng.below(classes - 1)) % classes
            };
            match format.as_str() {
                "tsv" => writeln!(out, "t{t:0td$}\tw{w:0wd$}\t{label}")?,
                "jsonl" => writeln!(
                    out,
                    r#"{{"item":"t{t:0td$}","annotator":"w{w:0wd$}","label":{label}}}"#
                )?,
                _ => write!(
                    out,
                    r#"{}{{"completed_by":{{"email":"w{w:0wd$}"}},"was_cancelled":false,"result":[{{"from_name":"label","to_name":"text","type":"choices","value":{{"choices":["{label}"]}}}}]}}"#,
                    if k > 0 { "," } else { "" }
                )?,
            }
        }
        if format == "label-studio" {
            out.write_all(b"]}")?;
        }
    }
    if format == "label-studio" {
        out.write_all(b"\n]\n")?;
    }
    out.flush()
}
