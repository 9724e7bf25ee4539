//! The plain-text plan `kcurate agree plan` prints without `--json`.

use super::{Aggregator, MIN_ITEMS, Plan, Target, Verdict};
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

fn recommended(p: &Plan) -> String {
    let at = format!("at {} annotators per item", p.annotators_per_item);
    let here = (p.redundancy.iter()).find(|r| r.annotators_per_item == p.annotators_per_item);
    match (p.verdict, p.items) {
        (Verdict::Planned, Some(n)) => format!(
            "Recommended: {n} items {at} ({} annotations)",
            n * p.annotators_per_item
        ),
        (Verdict::MetAtFewest, _) => format!(
            "Recommended: no number: {MIN_ITEMS} items {at}, the fewest a plan names, already \
             meet the target (fewer may do)"
        ),
        (Verdict::Unreachable, _) => format!(
            "Recommended: no number: the target is out of reach {at}; the aggregated accuracy \
             tends to {} however many items",
            here.and_then(|r| r.limit)
                .map_or("undefined".into(), |l| format!("{l:.4}"))
        ),
        _ => format!(
            "Recommended: not reachable within {} items {at}",
            p.max_items
        ),
    }
}

fn uncertainty_line(p: &Plan, u: &super::Uncertainty) -> String {
    let end = |b: &super::Bound| match (b.verdict, b.items) {
        (Verdict::Planned, Some(n)) => format!("{n} items"),
        (Verdict::MetAtFewest, _) => format!("{MIN_ITEMS} or fewer items"),
        (Verdict::Unreachable, _) => "none (out of reach)".into(),
        _ => format!("more than {} items", p.max_items),
    };
    format!(
        "Pilot uncertainty: the aggregated accuracy reached in the limit is {:.4} to {:.4} \
         (10th to 90th percentile of refits to the resampled pilot); items needed at \
         those: {} and {}",
        u.low.limit,
        u.high.limit,
        end(&u.low),
        end(&u.high)
    )
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
    let _ = writeln!(s, "{}", recommended(p));
    if let Some(u) = &p.uncertainty {
        let _ = writeln!(s, "{}", uncertainty_line(p, u));
    }
    let what = match p.target {
        Target::AlphaCi95Width { .. } => "median width",
        Target::Accuracy { .. } => "median accuracy  limit",
    };
    let _ = writeln!(
        s,
        "\nannotators/item  items  annotations  studies meeting  {what}"
    );
    if matches!(p.target, Target::Accuracy { .. }) {
        s.push_str("(limit: the accuracy a very large study reaches, net of the fit's bias)\n");
    }
    for r in &p.redundancy {
        let show = |x: Option<usize>| match r.verdict {
            Verdict::Planned => x.map_or("-".into(), |n| n.to_string()),
            Verdict::MetAtFewest => format!("<={MIN_ITEMS}"),
            Verdict::Unreachable => "none".into(),
            Verdict::BeyondMaxItems => format!(">{}", p.max_items),
        };
        let _ = writeln!(
            s,
            "{:>15}  {:>5}  {:>11}  {:>15.4}  {}",
            r.annotators_per_item,
            show(r.items),
            r.annotations.map_or("-".into(), |n| n.to_string()),
            r.share,
            r.median.map_or("undefined".into(), |m| format!("{m:.4}"))
                + &r.limit
                    .map_or(String::new(), |l| format!("           {l:.4}"))
        );
    }
    s.push_str("\nAssumptions:\n");
    for a in &p.assumptions {
        let _ = writeln!(s, "- {a}");
    }
    s
}
