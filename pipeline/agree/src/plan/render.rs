//! The plain-text plan `kcurate agree plan` prints without `--json`.

use super::{Aggregator, MIN_ITEMS, Plan, Target};
use std::fmt::Write;

fn target_line(p: &Plan) -> String {
    let studies = format!(
        "in at least {:.0}% of {} simulated studies (seed {})",
        p.assurance * 100.0,
        p.studies,
        p.seed
    );
    match p.target {
        Target::AlphaCi95Width { width } => format!(
            "Target: α's 95% bootstrap interval ({} replicates) no wider than {width} {studies}",
            p.bootstrap
        ),
        Target::Accuracy {
            accuracy,
            aggregator,
        } => {
            let agg = match aggregator {
                Aggregator::Majority { min_votes } => {
                    format!("majority, {min_votes} vote(s) at least")
                }
                Aggregator::DawidSkene => "Dawid–Skene".into(),
                Aggregator::OneCoin => "Dawid–Skene one-coin".into(),
            };
            format!("Target: aggregated-label accuracy ({agg}) at least {accuracy} {studies}")
        }
    }
}

/// The plan as a few lines and a table (figures at 4 decimals).
pub fn render(p: &Plan) -> String {
    let mut s = String::new();
    let pl = &p.pilot;
    let _ = writeln!(
        s,
        "Pilot: {} items, {} annotators, {} labels, {} annotators per item (median)",
        pl.items, pl.annotators, pl.labels, pl.annotators_per_item
    );
    let ci = pl
        .alpha_ci95
        .map_or("undefined".into(), |(a, b)| format!("[{a:.4}, {b:.4}]"));
    let _ = writeln!(s, "α ({:?}): {:.4}, 95% interval {ci}", pl.level, pl.alpha);
    let priors: Vec<String> = (pl.priors.iter())
        .map(|(l, p)| format!("{l} {p:.4}"))
        .collect();
    let _ = writeln!(s, "Class prior (Dawid–Skene): {}", priors.join(", "));
    let mut acc: Vec<f64> = pl.reliability.iter().map(|a| a.accuracy).collect();
    acc.sort_by(f64::total_cmp);
    if let (Some(lo), Some(hi)) = (acc.first(), acc.last()) {
        let _ = writeln!(
            s,
            "Annotator accuracy (Dawid–Skene): min {lo:.4}, median {:.4}, max {hi:.4}",
            acc[acc.len() / 2]
        );
    }
    let _ = writeln!(s, "{}", target_line(p));
    match p.items {
        Some(n) => {
            let _ = writeln!(
                s,
                "Recommended: {n} items at {} annotators per item ({} annotations){}",
                p.annotators_per_item,
                n * p.annotators_per_item,
                match n == MIN_ITEMS {
                    true => " (the fewest a plan names; fewer may do)",
                    false => "",
                }
            );
        }
        None => {
            let _ = writeln!(
                s,
                "Recommended: not reachable within {} items at {} annotators per item",
                p.max_items, p.annotators_per_item
            );
        }
    }
    let what = match p.target {
        Target::AlphaCi95Width { .. } => "median width",
        Target::Accuracy { .. } => "median accuracy",
    };
    let _ = writeln!(
        s,
        "\nannotators/item  items  annotations  studies meeting  {what}"
    );
    for r in &p.redundancy {
        let show = |x: Option<usize>| x.map_or(format!(">{}", p.max_items), |n| n.to_string());
        let _ = writeln!(
            s,
            "{:>15}  {:>5}  {:>11}  {:>15.4}  {}",
            r.annotators_per_item,
            show(r.items),
            r.annotations.map_or("-".into(), |n| n.to_string()),
            r.share,
            r.median.map_or("undefined".into(), |m| format!("{m:.4}"))
        );
    }
    s.push_str("\nAssumptions:\n");
    for a in &p.assumptions {
        let _ = writeln!(s, "- {a}");
    }
    s
}
