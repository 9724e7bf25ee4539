//! make bench: agreement and aggregation on the 100k items × 5 labels input of
//! ../shared/reference/agreement/bench, against crowd-kit's labels and timings there.

use flate2::read::GzDecoder;
use kcurate_agree::alpha::{Level, UnitCounts, alpha_counts};
use kcurate_agree::dawid_skene::{Model, Responses, fit};
use kcurate_agree::kappa::fleiss;
use kcurate_agree::label::Label;
use std::collections::HashMap;
use std::io::Read;
use std::time::Instant;

use kcurate_core::shared_dir as shared;

fn gunzip(p: &std::path::Path) -> String {
    let mut s = String::new();
    GzDecoder::new(std::fs::File::open(p).expect("bench input"))
        .read_to_string(&mut s)
        .expect("gzip");
    s
}

fn main() {
    let dir = shared().join("reference/agreement/bench");
    let text = gunzip(&dir.join("input.tsv.gz"));
    let (r, items) = parse(&text);
    let table = agreement(&r);
    let want = crowdkit_labels(
        &gunzip(&dir.join("crowdkit_labels.tsv.gz")),
        &items,
        r.items,
    );
    // crowd-kit's MajorityVote breaks ties towards the smallest label.
    let mv: Vec<u16> = table
        .iter()
        .map(|row| (0..3).fold(0, |b, c| if row[c] > row[b] { c } else { b }) as u16)
        .collect();
    let same_mv = mv.iter().zip(&want).filter(|(a, w)| **a == w[0]).count();
    println!(
        "bench agree majority: identical to crowd-kit on {same_mv}/{} items (target: all)",
        r.items
    );
    dawid_skene(&r, &want);
}

/// The long TSV as responses (items and workers numbered in order of first use), timed;
/// with the item numbers by task id.
fn parse(text: &str) -> (Responses, HashMap<String, usize>) {
    let t0 = Instant::now();
    let mut items = HashMap::new();
    let mut workers = HashMap::new();
    let mut r = Responses {
        classes: 3,
        ..Default::default()
    };
    for line in text.lines().skip(1) {
        let mut f = line.split('\t');
        let (t, w, l) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let n = items.len();
        let i = *items.entry(t.to_string()).or_insert(n);
        let n = workers.len();
        let w = *workers.entry(w.to_string()).or_insert(n);
        r.rows.push((i as u32, w as u32, l.parse::<u16>().unwrap()));
    }
    r.items = items.len();
    r.workers = workers.len();
    println!(
        "bench agree parse: {:.3} s for {} rows",
        t0.elapsed().as_secs_f64(),
        r.rows.len()
    );
    (r, items)
}

/// Nominal α (with the count table) and Fleiss' κ, timed; the count table (items × classes).
fn agreement(r: &Responses) -> Vec<Vec<f64>> {
    let t = Instant::now();
    let mut table = vec![vec![0.0; 3]; r.items];
    for &(i, _, c) in &r.rows {
        table[i as usize][c as usize] += 1.0;
    }
    let u = UnitCounts {
        values: (0..3).map(|c| Label::Num(c as f64)).collect(),
        counts: table.clone(),
    };
    let a = alpha_counts(&u, Level::Nominal).unwrap().unwrap();
    let ta = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let k = fleiss(&table).unwrap();
    let tk = t.elapsed().as_secs_f64();
    println!(
        "bench agree alpha nominal: {a:.10} in {:.1} ms incl. count table (target < 50 ms; reference 0.2237790550)",
        ta * 1e3
    );
    println!(
        "bench agree fleiss kappa: {k:.10} in {:.1} ms (target < 50 ms; reference 0.2237775026)",
        tk * 1e3
    );
    table
}

/// crowd-kit's columns: task, majority_vote, dawid_skene, dawid_skene_100; per item.
fn crowdkit_labels(ck: &str, items: &HashMap<String, usize>, n: usize) -> Vec<[u16; 3]> {
    let mut want: Vec<[u16; 3]> = vec![[0; 3]; n];
    for line in ck.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let i = items[f[0]];
        want[i] = [
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        ];
    }
    want
}

/// Dawid-Skene at crowd-kit's default tolerance and for exactly 100 iterations, timed
/// against crowd-kit's times and compared with its labels.
fn dawid_skene(r: &Responses, want: &[[u16; 3]]) {
    for (name, tol, col, reference) in [
        ("default tol (1e-5)", 1e-5, 1, 6.43),
        ("exactly 100 iterations", f64::NEG_INFINITY, 2, 62.3),
    ] {
        let t = Instant::now();
        let f = fit(r, Model::Full, 100, tol);
        let s = t.elapsed().as_secs_f64();
        let same = f
            .labels
            .iter()
            .zip(want)
            .filter(|(l, w)| l.map(|c| c as u16) == Some(w[col]))
            .count();
        println!(
            "bench agree dawid-skene {name}: {s:.3} s, {} iterations, {:.1}x faster than crowd-kit's {reference} s (target >= 10x); labels equal on {:.3}% (target >= 99.9%)",
            f.iterations,
            reference / s,
            100.0 * same as f64 / r.items as f64
        );
    }
}
