//! make bench: training time, 5-fold cross-validation of the hashed and the char_wb model
//! (seeded folds, the same as bench/toxicity_baseline.py uses) over the labelled hate speech split, and scoring
//! throughput on one core over NSMC reviews with peak RSS at 1× and 4× the input.

use kcurate_toxicity::model::{
    ToxicityModel, cross_validate, folds, read_tsv, tfidf_config, train_config,
};
use std::time::Instant;

use kcurate_core::shared_dir as shared;

#[path = "../../../tests/common/nsmc.rs"]
mod nsmc;

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let tsv = shared().join("corpora/korean-hate-speech/labeled/train.tsv");
    let (data, sha) = read_tsv(&tsv).expect("labelled split");
    let cfg = train_config(42, false);
    let t = Instant::now();
    let model = ToxicityModel::train(&data, sha, &cfg);
    println!(
        "bench toxicity train: {:.2} s for {} comments, both heads, one core (target < 10 s)",
        t.elapsed().as_secs_f64(),
        data.len()
    );
    // The fold of each row, for the Python baseline to use the same split.
    let f = folds(data.len(), 5, 42);
    let fold_file = std::env::temp_dir().join("kcurate_toxicity_folds.txt");
    std::fs::write(
        &fold_file,
        f.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .expect("folds file");
    let (gf1, hf1) = cross_validate(&data, 5, 42, &cfg);
    println!(
        "bench toxicity 5-fold CV (seed 42), hashed: gender-bias F1 {gf1:.4}, hate macro F1 {hf1:.4} (folds written to {})",
        fold_file.display()
    );
    let t = Instant::now();
    let (gf2, hf2) = cross_validate(&data, 5, 42, &tfidf_config());
    println!(
        "bench toxicity 5-fold CV (seed 42), char_wb (the stage default): gender-bias F1 {gf2:.4}, hate macro F1 {hf2:.4} ({:.0} s)",
        t.elapsed().as_secs_f64()
    );

    let reviews = nsmc::reviews();
    let bytes: usize = reviews.iter().map(String::len).sum();
    for k in [1usize, 4] {
        let t = Instant::now();
        let mut dropped = 0usize;
        for _ in 0..k {
            for r in &reviews {
                let s = model.score(r);
                dropped += usize::from(s.gender_bias >= 0.5 || s.hate >= 0.9);
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "bench toxicity scoring {k}x: {:.1} MB/s on one core (target >= 20 MB/s), peak RSS {:.1} MB, {:.2}% of NSMC over KLUE's thresholds",
            (bytes * k) as f64 / 1e6 / s,
            vm_hwm_kb() as f64 / 1024.0,
            100.0 * dropped as f64 / (reviews.len() * k) as f64
        );
    }
}
