//! `agree --gold FILE`: the known labels Gold Majority Vote takes each annotator's skill from
//! (TSV, or CSV by the `.csv` extension; a header naming `item` (or `task`) and `label` (or
//! `value`, `gold`, `true_label`)), and the checks KOS needs of the labels.

use anyhow::{Context, bail};
use kcurate_agree::aggregators::gold_majority;
use kcurate_agree::io::parse_value;
use kcurate_agree::label::Label;
use kcurate_agree::report::write_estimate;
use kcurate_agree::table::Table;
use std::collections::BTreeMap;
use std::path::Path;

/// Item id -> gold label of `path`; an error names file:line:field for an empty cell, a
/// short row or an item given twice.
pub fn read_gold(path: &Path) -> anyhow::Result<BTreeMap<String, Label>> {
    let shown = path.display();
    let delimiter = if path.extension().is_some_and(|e| e == "csv") {
        b','
    } else {
        b'\t'
    };
    let file = std::fs::File::open(path).with_context(|| format!("--gold {shown}"))?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(std::io::BufReader::new(file));
    let headers: Vec<String> = rdr
        .headers()
        .with_context(|| format!("{shown}:1: the header"))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
        .collect();
    let col = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| headers.iter().position(|h| h == n))
    };
    let (Some(ci), Some(cl)) = (
        col(&["item", "task"]),
        col(&["label", "value", "gold", "true_label"]),
    ) else {
        bail!(
            "{shown}:1: the header must name `item` (or `task`) and `label` (or `value`, `gold`, `true_label`) (found: {})",
            headers.join(", ")
        );
    };
    let mut gold = BTreeMap::new();
    let mut first_line: BTreeMap<String, u64> = BTreeMap::new();
    for rec in rdr.records() {
        let rec = rec.with_context(|| format!("{shown}: not TSV/CSV"))?;
        let line = rec.position().map_or(0, |p| p.line());
        let cell = |c: usize| rec.get(c).map(str::trim).filter(|s| !s.is_empty());
        let item = cell(ci).with_context(|| {
            format!("{shown}:{line}: field `{}`: empty or missing", headers[ci])
        })?;
        let label = cell(cl).with_context(|| {
            format!("{shown}:{line}: field `{}`: empty or missing", headers[cl])
        })?;
        if let Some(prev) = first_line.insert(item.to_string(), line) {
            bail!(
                "{shown}:{line}: field `{}`: item {item} has a gold label already (line {prev})",
                headers[ci]
            );
        }
        gold.insert(item.to_string(), parse_value(label));
    }
    Ok(gold)
}

/// Writes Gold Majority Vote's labels of `t` (gold from `path`); an annotator with no
/// answer on a gold item is an error naming them, as crowd-kit refuses them.
pub fn write_gold_majority(
    t: &Table,
    path: &Path,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    let gold = read_gold(path)?;
    let (classes, missing) = gold_majority::gold_classes(t, &gold);
    if missing > 0 {
        eprintln!(
            "--gold {}: {missing} of {} gold items are not in --input (not used)",
            path.display(),
            gold.len()
        );
    }
    let e = gold_majority::gold_majority_table(t, &classes).map_err(|e| {
        let names: Vec<&str> = e.workers.iter().take(10).map(|&w| t.annotators[w].as_str()).collect();
        anyhow::anyhow!(
            "--gold {}: {} annotator(s) answered no item with a gold label, so Gold Majority Vote has no skill for them: {}{}",
            path.display(),
            e.workers.len(),
            names.join(", "),
            if e.workers.len() > names.len() { ", ..." } else { "" }
        )
    })?;
    write_estimate(t, e, out)?;
    Ok(())
}

/// KOS takes exactly two labels: an error naming the file and the field otherwise.
pub fn check_binary(t: &Table, shown: &str) -> anyhow::Result<()> {
    if t.values.len() != 2 {
        let labels: Vec<String> = t.values.iter().take(10).map(Label::to_string).collect();
        bail!(
            "{shown}: field `label`: --aggregate kos takes binary labels only (exactly two distinct labels, as crowd-kit's KOS); this file has {}: {}{}",
            t.values.len(),
            labels.join(", "),
            if t.values.len() > labels.len() {
                ", ..."
            } else {
                ""
            }
        );
    }
    Ok(())
}
