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

/// The generator's options (see the file's doc for the flags).
struct Options {
    items: usize,
    labels: usize,
    classes: usize,
    workers: usize,
    seed: u64,
    format: String,
}

impl Options {
    fn from_args() -> Options {
        let mut o = Options {
            items: 100_000,
            labels: 5,
            classes: 3,
            workers: 2_000,
            seed: 20_240_601,
            format: String::from("tsv"),
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        for pair in args.chunks(2) {
            let [flag, value] = pair else {
                panic!("flags take a value: {args:?}")
            };
            let n = || value.parse::<usize>().expect("a number");
            match flag.as_str() {
                "--items" => o.items = n(),
                "--labels" => o.labels = n(),
                "--classes" => o.classes = n(),
                "--workers" => o.workers = n(),
                "--seed" => o.seed = value.parse().expect("a number"),
                "--format" => o.format = value.clone(),
                _ => panic!("unknown flag {flag}"),
            }
        }
        assert!(o.labels <= o.workers, "--labels must not exceed --workers");
        assert!(o.classes >= 2, "--classes must be at least 2");
        o
    }
}

/// Writes the crowd's labels in the chosen format: ids padded to fixed widths, one draw
/// order for every format (so the labels are the same in each).
struct Writer<W: Write> {
    out: W,
    o: Options,
    rng: SplitMix64,
    accuracy: Vec<f64>,
    /// Digits of a worker id (4 for the reference crowd of 2,000) and of a task id.
    wd: usize,
    td: usize,
}

fn main() -> std::io::Result<()> {
    let o = Options::from_args();
    let mut rng = SplitMix64(o.seed);
    let accuracy: Vec<f64> = (0..o.workers).map(|_| 0.35 + 0.6 * rng.uniform()).collect();
    let mut w = Writer {
        out: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        wd: o.workers.saturating_sub(1).to_string().len().max(4),
        td: o.items.saturating_sub(1).to_string().len().max(6),
        o,
        rng,
        accuracy,
    };
    w.write_all()
}

impl<W: Write> Writer<W> {
    fn write_all(&mut self) -> std::io::Result<()> {
        match self.o.format.as_str() {
            "tsv" => writeln!(self.out, "task\tworker\tlabel")?,
            "label-studio" => self.out.write_all(b"[\n")?,
            "jsonl" => {}
            other => panic!("unknown format {other} (tsv, jsonl, label-studio)"),
        }
        let mut used: Vec<usize> = Vec::with_capacity(self.o.labels);
        for t in 0..self.o.items {
            self.write_item(t, &mut used)?;
        }
        if self.o.format == "label-studio" {
            self.out.write_all(b"\n]\n")?;
        }
        self.out.flush()
    }

    /// Task `t`: its true class, then its labels from distinct workers.
    fn write_item(&mut self, t: usize, used: &mut Vec<usize>) -> std::io::Result<()> {
        let (classes, workers, td) = (self.o.classes, self.o.workers, self.td);
        let truth = self.rng.below(classes);
        used.clear();
        let studio = self.o.format == "label-studio";
        if studio {
            if t > 0 {
                self.out.write_all(b",\n")?;
            }
            write!(
                self.out,
                r#"{{"id":{},"data":{{"item":"t{t:0td$}"}},"annotations":["#,
                t + 1
            )?;
        }
        for k in 0..self.o.labels {
            let w = loop {
                let w = self.rng.below(workers);
                if !used.contains(&w) {
                    break w;
                }
            };
            used.push(w);
            let label = if self.rng.uniform() < self.accuracy[w] {
                truth
            } else {
                (truth + 1 + self.rng.below(classes - 1)) % classes
            };
            self.write_label(t, k, w, label)?;
        }
        if studio {
            self.out.write_all(b"]}")?;
        }
        Ok(())
    }

    /// One label: a TSV or JSONL line, or the `k`th annotation of a Label Studio task.
    fn write_label(&mut self, t: usize, k: usize, w: usize, label: usize) -> std::io::Result<()> {
        let (td, wd) = (self.td, self.wd);
        match self.o.format.as_str() {
            "tsv" => writeln!(self.out, "t{t:0td$}\tw{w:0wd$}\t{label}"),
            "jsonl" => writeln!(
                self.out,
                r#"{{"item":"t{t:0td$}","annotator":"w{w:0wd$}","label":{label}}}"#
            ),
            _ => write!(
                self.out,
                r#"{}{{"completed_by":{{"email":"w{w:0wd$}"}},"was_cancelled":false,"result":[{{"from_name":"label","to_name":"text","type":"choices","value":{{"choices":["{label}"]}}}}]}}"#,
                if k > 0 { "," } else { "" }
            ),
        }
    }
}
