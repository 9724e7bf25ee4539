//! KLUE STS v1.1 dev in ../shared: every record's labels and agreement string recomputed
//! from its `annotations` with [`kcurate_tasks::sts::labels`]; the 0.5-bin histogram is
//! printed next to the uniform target (run with `-- --nocapture` to see it).

use kcurate_agree::label::Label;
use kcurate_tasks::sts::labels::{agreement, bin_of, bins, klue_labels};
use kcurate_tasks::sts::sim::{Fit, Relation, ScoredPair, SimModel, fit, read_klue, report};
use serde_json::Value;
use std::collections::BTreeMap;

use kcurate_core::shared_dir as shared;

#[test]
#[ignore = "needs ../shared: make test-shared"]
fn klue_sts_dev_labels_recompute_and_histogram() {
    let p = shared().join("corpora/klue/klue-sts-v1.1/klue-sts-v1.1_dev.json");
    let text = std::fs::read_to_string(&p).expect("KLUE STS dev");
    let recs: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    assert!(!recs.is_empty());
    let mut hist = vec![0usize; bins(0.5)];
    let mut mismatches = Vec::new();
    for r in &recs {
        let guid = r["guid"].as_str().expect("guid");
        let scores: Vec<f64> = r["annotations"]["annotations"]
            .as_array()
            .expect("annotations")
            .iter()
            .map(|x| x.as_f64().expect("numeric score"))
            .collect();
        let l = klue_labels(&scores, 1, 3.0).expect("scores");
        let want = &r["labels"];
        if Some(l.label) != want["label"].as_f64()
            || Some(l.real_label) != want["real-label"].as_f64()
            || Some(u64::from(l.binary)) != want["binary-label"].as_u64()
            || Some(agreement(&scores).as_str()) != r["annotations"]["agreement"].as_str()
        {
            mismatches.push(guid.to_string());
        }
        hist[bin_of(l.label, 0.5)] += 1;
    }
    let target = recs.len() as f64 / hist.len() as f64;
    println!("KLUE STS v1.1 dev (this subset): {} records", recs.len());
    println!("bin        count  uniform target");
    for (b, c) in hist.iter().enumerate() {
        println!(
            "[{:.1}, {:.1}{}  {c:5}  {target:.1}",
            b as f64 * 0.5,
            b as f64 * 0.5 + 0.5,
            if b + 1 == hist.len() { "]" } else { ")" }
        );
    }
    assert!(mismatches.is_empty(), "labels differ: {mismatches:?}");
    assert_eq!(hist.iter().sum::<usize>(), recs.len());
}

/// KLUE STS dev's path and pairs.
fn klue_sts_dev() -> (std::path::PathBuf, Vec<ScoredPair>) {
    let p = shared().join("corpora/klue/klue-sts-v1.1/klue-sts-v1.1_dev.json");
    let pairs = read_klue(&std::fs::read_to_string(&p).expect("KLUE STS dev")).expect("records");
    (p, pairs)
}

/// The simulator table of a shipped recipe's `sts` stage.
fn recipe_simulator(recipe: &str) -> SimModel {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let t: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join(recipe)).expect(recipe)).expect(recipe);
    let stage = t["stage"]
        .as_array()
        .expect("stages")
        .iter()
        .find(|s| s["name"].as_str() == Some("sts"))
        .expect("an sts stage");
    stage["simulator"]
        .clone()
        .try_into()
        .expect("simulator table")
}

/// The `sts` stage's simulator, fitted on KLUE STS dev, is the table the recipes carry
/// (`kcurate sts fit-sim` refits it).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sts_simulator_fit_matches_the_recipes() {
    let (p, pairs) = klue_sts_dev();
    for recipe in [
        "configs/klue-sts-parakqc.toml",
        "configs/klue-sts.toml",
        "configs/jglue-jsts.toml",
    ] {
        let m = recipe_simulator(recipe);
        // The para map's pairs as the table names them (`from`; its own when absent).
        let from: Vec<Relation> = if m.para.from.is_empty() {
            vec![Relation::Para]
        } else {
            m.para
                .from
                .iter()
                .map(|r| Relation::of_source(&format!("-{r}")))
                .collect()
        };
        let g = fit(&pairs, "klue-sts-v1.1_dev.json", &from).expect("fit");
        assert_eq!(
            m,
            g.model,
            "{recipe}: the simulator table differs from the fit; refit with `kcurate sts fit-sim --klue {} --para-from {}`",
            p.display(),
            m.para.from.join(",")
        );
    }
}

/// KLUE STS dev's pairs scored by people and by the simulator: each pair's mean score,
/// by relation too, and the simulated annotators' score table.
#[derive(Default)]
struct Scored {
    real: Vec<f64>,
    simu: Vec<f64>,
    by_rel: BTreeMap<&'static str, (Vec<f64>, Vec<f64>)>,
    sim_rows: Vec<Vec<Option<Label>>>,
}

/// Simulates the people's pairs: as many annotators per pair as the people, drawn from a
/// pool of 17 like theirs.
fn simulate_people(f: &Fit, pairs: &[ScoredPair]) -> Scored {
    let pool = f.model.pool(17, 0, 42);
    let mut out = Scored {
        sim_rows: vec![vec![None; pairs.len()]; 17],
        ..Default::default()
    };
    for (k, pr) in pairs.iter().enumerate() {
        let rel = Relation::of_source(&pr.source);
        let t = f
            .model
            .truth(42, &pr.guid, rel, &pr.sentence1, &pr.sentence2);
        let n = pr.scores.len();
        let scores: Vec<f64> = (0..n)
            .map(|j| {
                let a = (k * 5 + j) % 17;
                let s = pool[a].score(42, &pr.guid, t);
                out.sim_rows[a][k] = Some(Label::Num(s));
                s
            })
            .collect();
        let (r, s) = (
            pr.scores.iter().sum::<f64>() / n as f64,
            scores.iter().sum::<f64>() / n as f64,
        );
        out.real.push(r);
        out.simu.push(s);
        let e = out.by_rel.entry(rel.name()).or_default();
        e.0.push(r);
        e.1.push(s);
    }
    out
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn sd(x: &[f64]) -> f64 {
    let m = mean(x);
    (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / x.len() as f64).sqrt()
}

/// Simulating KLUE STS dev's own pairs with the simulator fitted on them gives label
/// statistics and annotator agreement like the people's (figures printed).
#[test]
#[ignore = "needs ../shared: make test-shared"]
fn sts_simulator_reproduces_klue_dev_labels_and_agreement() {
    let (_, pairs) = klue_sts_dev();
    let f = fit(&pairs, "klue-sts-v1.1_dev.json", &[Relation::Para]).expect("fit");
    print!("{}", report(&f));
    let Scored {
        real,
        simu,
        by_rel,
        sim_rows,
    } = simulate_people(&f, &pairs);
    println!(
        "pair labels, people vs simulated: mean {:.3} vs {:.3}, SD {:.3} vs {:.3}",
        mean(&real),
        mean(&simu),
        sd(&real),
        sd(&simu)
    );
    for (rel, (r, s)) in &by_rel {
        println!(
            "  {rel}: mean {:.3} vs {:.3}, SD {:.3} vs {:.3}",
            mean(r),
            mean(s),
            sd(r),
            sd(s)
        );
        assert!((mean(r) - mean(s)).abs() < 0.35, "{rel}");
        assert!((sd(r) - sd(s)).abs() < 0.3, "{rel}");
    }
    let rel = kcurate_agree::reliability::reliability(&kcurate_agree::label::Matrix::new(sim_rows));
    let mut sim_r: Vec<f64> = rel.iter().filter_map(|r| r.pearson_r).collect();
    let mut real_r: Vec<f64> = f.annotators.iter().filter_map(|a| a.pearson_r).collect();
    sim_r.sort_by(f64::total_cmp);
    real_r.sort_by(f64::total_cmp);
    let below = |x: &[f64]| x.iter().filter(|r| **r < 0.8).count();
    println!(
        "annotator r vs the others' mean: people median {:.3} ({} of {} below 0.8), simulated median {:.3} ({} of {} below 0.8)",
        real_r[real_r.len() / 2],
        below(&real_r),
        real_r.len(),
        sim_r[sim_r.len() / 2],
        below(&sim_r),
        sim_r.len()
    );
    assert!((real_r[real_r.len() / 2] - sim_r[sim_r.len() / 2]).abs() < 0.06);
    assert!((sd(&real) - sd(&simu)).abs() / sd(&real) < 0.15);
}
