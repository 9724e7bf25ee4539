//! The agreement figures a task stage records for the card's Annotations section: α with a
//! seeded bootstrap interval (`alpha`), the rule that made the gold labels (`aggregator`)
//! and a summary of the annotators' reliability (`annotators`). Small values only, no
//! per-item data, so the manifest stays readable.

use kcurate_agree::alpha::{Level, UnitCounts, alpha, bootstrap_ci};
use kcurate_agree::label::{Label, Matrix};
use kcurate_core::Out;
use serde_json::json;

/// Bootstrap replicates of α's interval: two stable decimals, and each replicate costs a few
/// draws per group of identical items, so it stays cheap on thousands of items.
const BOOTSTRAP: usize = 1000;
/// The central share of the replicates the interval covers.
const CONF: f64 = 0.95;

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Records `alpha` of the rater × item `rows` at `level` with its 95% bootstrap interval,
/// drawn from `seed` (the same bytes on every machine). Nothing when α is undefined.
pub(crate) fn record_alpha(out: &mut Out, rows: &[Vec<Option<Label>>], level: Level, seed: u64) {
    let m = Matrix::new(rows.to_vec());
    let Some(a) = alpha(&m, level).ok().flatten() else {
        return;
    };
    let ci = bootstrap_ci(&UnitCounts::from_matrix(&m), level, BOOTSTRAP, CONF, seed)
        .ok()
        .flatten();
    out.metric(
        "alpha",
        json!({
            "value": r6(a),
            "low": ci.map(|c| r6(c.0)),
            "high": ci.map(|c| r6(c.1)),
            "conf": CONF,
            "level": level,
            "bootstrap": BOOTSTRAP,
            "seed": seed,
        }),
    );
}

/// Each rater's share of labels equal to the item's gold, over the items with a gold label
/// the rater labelled; `None` for a rater with no such item.
pub(crate) fn agreement_with_gold(
    rows: &[Vec<Option<Label>>],
    gold: &[Option<Label>],
) -> Vec<Option<f64>> {
    rows.iter()
        .map(|row| {
            let (mut same, mut n) = (0usize, 0usize);
            for (l, g) in row.iter().zip(gold) {
                if let (Some(l), Some(g)) = (l, g) {
                    n += 1;
                    same += usize::from(l == g);
                }
            }
            (n > 0).then(|| same as f64 / n as f64)
        })
        .collect()
}

/// Records `annotators`: how many, how each one's reliability is measured (`measure`), its
/// min / median / max over those with a value, how many were left out, and the imported
/// annotations file (`file`, as the recipe names it) when the labels are people's.
pub(crate) fn record_annotators(
    out: &mut Out,
    measure: &str,
    per_rater: &[Option<f64>],
    left_out: usize,
    file: Option<&str>,
) {
    let mut v: Vec<f64> = per_rater.iter().flatten().copied().collect();
    v.sort_by(f64::total_cmp);
    let median = match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    };
    out.metric(
        "annotators",
        json!({
            "count": per_rater.len(),
            "measure": measure,
            "min": v.first().copied().map(r6),
            "median": median.map(r6),
            "max": v.last().copied().map(r6),
            "left_out": left_out,
            "file": file,
        }),
    );
}

/// Records `aggregator`: the rule that made each item's gold label from its annotations.
pub(crate) fn record_aggregator(out: &mut Out, rule: &str) {
    out.metric("aggregator", json!(rule));
}
