//! The card's Annotations: for each stage that reported agreement, Krippendorff's α with its
//! seeded bootstrap interval (metric `alpha`), the rule that made the gold labels
//! (`aggregator`), the annotators' reliability (`annotators`), and how to plan the next
//! round. The plan itself (`kcurate agree plan`) simulates hundreds of studies per size
//! tried, far too slow for a release, so the card names the command and its input instead.

use super::text::md_inline;
use crate::manifest::Manifest;
use serde_json::Value;
use std::fmt::Write;

fn num(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The section's list items without their `- ` marks, for the HTML report.
pub(crate) fn items(m: &Manifest) -> Vec<String> {
    section(m)
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// The "## Annotations" section, empty when no stage reported `alpha`.
pub(super) fn section(m: &Manifest) -> String {
    let mut s = String::new();
    for (stage, figs) in &m.metrics {
        if let Some(a) = figs.get("alpha") {
            if s.is_empty() {
                s.push_str("## Annotations\n\n");
            }
            stage_lines(
                &mut s,
                stage,
                a,
                figs.get("aggregator"),
                figs.get("annotators"),
            );
        }
    }
    s
}

fn stage_lines(s: &mut String, stage: &str, a: &Value, agg: Option<&Value>, ann: Option<&Value>) {
    let level = a.get("level").and_then(Value::as_str).unwrap_or("nominal");
    let value = num(a, "value").unwrap_or(f64::NAN);
    let _ = write!(
        s,
        "- Agreement (`{stage}` stage): Krippendorff's α ({level}) = {value:.3}"
    );
    let width = match (num(a, "low"), num(a, "high")) {
        (Some(lo), Some(hi)) => {
            let conf = num(a, "conf").unwrap_or(0.95) * 100.0;
            let reps = a.get("bootstrap").and_then(Value::as_u64).unwrap_or(0);
            let seed = a.get("seed").and_then(Value::as_u64).unwrap_or(0);
            let _ = write!(
                s,
                ", {conf:.0}% interval [{lo:.3}, {hi:.3}] ({} of the items, seed {seed})",
                count(reps, "bootstrap replicate", "bootstrap replicates")
            );
            Some(hi - lo)
        }
        _ => {
            s.push_str(" (too few items for a bootstrap interval)");
            None
        }
    };
    s.push_str(".\n");
    if let Some(rule) = agg.and_then(Value::as_str) {
        let _ = writeln!(s, "- Gold labels: {}.", md_inline(rule));
    }
    if let Some(ann) = ann {
        annotator_line(s, ann);
    }
    plan_line(
        s,
        ann.and_then(|x| x.get("file")).and_then(Value::as_str),
        level,
        width,
    );
    s.push('\n');
}

fn annotator_line(s: &mut String, ann: &Value) {
    let n = ann.get("count").and_then(Value::as_u64).unwrap_or(0);
    let _ = write!(s, "- Raters: {}", count(n, "annotator", "annotators"));
    if let (Some(lo), Some(mid), Some(hi)) = (num(ann, "min"), num(ann, "median"), num(ann, "max"))
    {
        let measure = ann
            .get("measure")
            .and_then(Value::as_str)
            .unwrap_or("reliability");
        let _ = write!(
            s,
            "; {}: lowest {lo:.3}, median {mid:.3}, highest {hi:.3}",
            md_inline(measure)
        );
    }
    match ann.get("left_out").and_then(Value::as_u64).unwrap_or(0) {
        0 => s.push_str(".\n"),
        k => {
            let verb = if k == 1 { "was" } else { "were" };
            let _ = writeln!(
                s,
                "; {} {verb} left out as unreliable.",
                count(k, "annotator", "annotators")
            );
        }
    }
}

/// The next round: the command that plans it, on this release's annotations file when the
/// labels were imported, with a target half as wide as this release's interval.
fn plan_line(s: &mut String, file: Option<&str>, level: &str, width: Option<f64>) {
    let w = width.map_or(0.1, |w| ((w / 2.0) * 100.0).round().max(1.0) / 100.0);
    let lv = if level == "nominal" {
        String::new()
    } else {
        format!(" --level {}", md_inline(level))
    };
    match file {
        Some(f) => {
            let _ = writeln!(
                s,
                "- Next round: `kcurate agree plan --input {}{lv} --target-width {w:.2}` fits these \
                 annotators and gives the items needed for α's interval to be {w:.2} wide (it \
                 simulates many studies, so the release does not run it).",
                md_inline(f)
            );
        }
        None => {
            let _ = writeln!(
                s,
                "- Next round: these annotations are not written to a file of their own; \
                 `kcurate agree plan --input pilot.tsv{lv} --target-width {w:.2}` on a pilot of \
                 people's labels (item, annotator, label) gives the items needed for α's \
                 interval to be {w:.2} wide."
            );
        }
    }
}
