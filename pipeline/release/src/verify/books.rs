//! The books against the release: each stage's decisions and `by_source` recounted from
//! `audit/decisions.jsonl`, the funnel's arithmetic (drops, conservation, each stage fed by
//! the one before, the last one's items are the rows), and `lengths` from the rows.

use super::{inconsistent, io_error};
use crate::manifest::{Manifest, ManifestError, Mismatch, StageCount};
use crate::writer::DECISIONS_JSONL;
use kcurate_core::StageStats;
use kcurate_core::recipe::Recipe;
use kcurate_core::stage::RuleCount;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;

/// key (stage or source) → rule → counts.
type Counts = BTreeMap<String, BTreeMap<String, RuleCount>>;

/// Checks the books of `m` against the decisions and rows of the release in `dir`, and
/// the stage names against the recipe copy `r` (when it parses).
pub(super) fn check(
    dir: &Path,
    m: &Manifest,
    r: Option<&Recipe>,
    listed: &BTreeSet<&str>,
    problems: &mut Vec<Mismatch>,
) -> Result<(), ManifestError> {
    if let Some(r) = r {
        check_stage_names(m, r, problems);
    }
    if listed.contains(DECISIONS_JSONL) {
        let (by_stage, by_source) = count_decisions(&dir.join(DECISIONS_JSONL), problems)?;
        check_stage_rules(m, by_stage, problems);
        compare(problems, "by_source", &m.by_source, &by_source);
    }
    check_funnel(m, r, problems);
    super::rows::check_lengths(dir, m, listed, problems)
}

/// `ingest`, `license`, then the recipe's stages, in order.
fn check_stage_names(m: &Manifest, r: &Recipe, problems: &mut Vec<Mismatch>) {
    let mut want: Vec<String> = vec!["ingest".into(), "license".into()];
    want.extend(r.stages.iter().map(|t| t.name.clone()));
    if want.len() != m.stages.len() {
        inconsistent(
            problems,
            "stages",
            format!(
                "{} stages recorded, the recipe copy runs {} (ingest and license first)",
                m.stages.len(),
                want.len()
            ),
        );
    }
    for (i, (s, w)) in m.stages.iter().zip(&want).enumerate() {
        if &s.name != w {
            inconsistent(
                problems,
                &format!("stages[{i}].name"),
                format!("{:?} recorded, the recipe copy runs {w:?} there", s.name),
            );
        }
    }
}

/// The decisions file's counts per stage and per source: rule → drops, edits, flags.
fn count_decisions(
    path: &Path,
    problems: &mut Vec<Mismatch>,
) -> Result<(Counts, Counts), ManifestError> {
    #[derive(serde::Deserialize)]
    struct Line {
        stage: String,
        rule: String,
        action: kcurate_core::Action,
        source: String,
    }
    let file = match kcurate_core::bounded::open_regular(path, path.parent()) {
        Ok((f, _)) => f,
        // Missing: reported as a missing output.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(io_error(path, e)),
    };
    let (mut by_stage, mut by_source) = (Counts::new(), Counts::new());
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| io_error(path, e))?;
        let d: Line = match serde_json::from_str(&line) {
            Ok(d) => d,
            Err(e) => {
                inconsistent(
                    problems,
                    "stages",
                    format!("{DECISIONS_JSONL}:{}: not a decision: {e}", i + 1),
                );
                continue;
            }
        };
        for (counts, key) in [(&mut by_stage, &d.stage), (&mut by_source, &d.source)] {
            let c = counts
                .entry(key.clone())
                .or_default()
                .entry(d.rule.clone())
                .or_default();
            match d.action {
                kcurate_core::Action::Drop => c.drop += 1,
                kcurate_core::Action::Edit => c.edit += 1,
                kcurate_core::Action::Flag => c.flag += 1,
            }
        }
    }
    Ok((by_stage, by_source))
}

/// Each stage's rules against the decisions of that stage (a stage name the recipe runs
/// twice: the two lines of the books together), and its drops against its rules' drops.
fn check_stage_rules(m: &Manifest, mut counted: Counts, problems: &mut Vec<Mismatch>) {
    let mut at: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, s) in m.stages.iter().enumerate() {
        at.entry(s.name.as_str()).or_default().push(i);
    }
    for (name, idx) in &at {
        let mut recorded: BTreeMap<String, RuleCount> = BTreeMap::new();
        for &i in idx {
            for (rule, c) in &m.stages[i].stats.rules {
                let e = recorded.entry(rule.clone()).or_default();
                e.drop += c.drop;
                e.edit += c.edit;
                e.flag += c.flag;
            }
        }
        let shown: Vec<String> = idx.iter().map(usize::to_string).collect();
        let prefix = format!("stages[{}].rules", shown.join("/"));
        let one = BTreeMap::from([(String::new(), counted.remove(*name).unwrap_or_default())]);
        let rec = BTreeMap::from([(String::new(), recorded)]);
        compare(problems, &prefix, &rec, &one);
    }
    // Rows of stage inputs (annotation files) refused while the stages were built are
    // decisions outside the books, counted as `metrics.inputs.refused_rows`.
    let outside: u64 = counted
        .values()
        .flat_map(|rules| rules.values())
        .map(|c| c.drop + c.edit + c.flag)
        .sum();
    let refused = m
        .metrics
        .get("inputs")
        .and_then(|i| i.get("refused_rows"))
        .and_then(|n| n.as_u64())
        .unwrap_or(0);
    if outside != refused {
        let stages: Vec<&String> = counted.keys().collect();
        inconsistent(
            problems,
            "metrics.inputs.refused_rows",
            format!(
                "{refused} recorded, {DECISIONS_JSONL} holds {outside} decision(s) of no stage of the books (stages {stages:?})"
            ),
        );
    }
    for (i, s) in m.stages.iter().enumerate() {
        let drops: u64 = s.stats.rules.values().map(|c| c.drop).sum();
        if drops != s.stats.dropped {
            inconsistent(
                problems,
                &format!("stages[{i}].dropped"),
                format!(
                    "{} recorded, its rules record {drops} drops",
                    s.stats.dropped
                ),
            );
        }
    }
}

/// `recorded` against `counted` (key → rule → counts); each difference named as
/// `<prefix>.<key>.<rule>.<action>` (no `<key>` part when it is empty).
fn compare(problems: &mut Vec<Mismatch>, prefix: &str, recorded: &Counts, counted: &Counts) {
    let empty = BTreeMap::new();
    let keys: BTreeSet<&String> = recorded.keys().chain(counted.keys()).collect();
    for k in keys {
        let (a, b) = (
            recorded.get(k).unwrap_or(&empty),
            counted.get(k).unwrap_or(&empty),
        );
        let rules: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for rule in rules {
            let zero = RuleCount::default();
            let (x, y) = (a.get(rule).unwrap_or(&zero), b.get(rule).unwrap_or(&zero));
            let at = match k.is_empty() {
                true => format!("{prefix}.{rule}"),
                false => format!("{prefix}.{k}.{rule}"),
            };
            for (action, r, c) in [
                ("drop", x.drop, y.drop),
                ("edit", x.edit, y.edit),
                ("flag", x.flag, y.flag),
            ] {
                if r != c {
                    inconsistent(
                        problems,
                        &format!("{at}.{action}"),
                        format!("{r} recorded, {DECISIONS_JSONL} holds {c}"),
                    );
                }
            }
            if !b.contains_key(rule) && x.drop + x.edit + x.flag == 0 {
                inconsistent(
                    problems,
                    &at,
                    format!("recorded, but {DECISIONS_JSONL} holds no decision of it"),
                );
            }
        }
    }
}

/// The funnel's arithmetic: a stage whose unit does not change conserves items; each stage
/// is fed what the one before it passed on (the recipe's first stage, what ingest passed
/// on); units follow; the licence gate counts the recipe's sources; the last stage's items
/// are the release's rows.
fn check_funnel(m: &Manifest, r: Option<&Recipe>, problems: &mut Vec<Mismatch>) {
    let s = &m.stages;
    for (i, st) in s.iter().enumerate() {
        check_stage_counts(i, st, problems);
        // The stage before: ingest for the recipe's first stage.
        let before = match i {
            0 | 1 => None,
            2 => Some(0),
            _ => Some(i - 1),
        };
        if let Some(b) = before {
            check_fed(i, &st.stats, b, &s[b].stats, problems);
        }
    }
    if let (Some(r), Some(l)) = (r, s.get(1).filter(|l| l.name == "license")) {
        let n = r.sources.len() as u64;
        if l.stats.items_in != n {
            inconsistent(
                problems,
                "stages[1].items_in",
                format!(
                    "{} recorded, the recipe copy has {n} sources",
                    l.stats.items_in
                ),
            );
        }
    }
    let rows: u64 = m.splits.values().flat_map(|t| t.values()).sum();
    if let Some(last) = s.len().checked_sub(1).filter(|&l| l >= 2)
        && s[last].stats.items_out != rows
    {
        inconsistent(
            problems,
            &format!("stages[{last}].items_out"),
            format!(
                "{} recorded, the release's splits hold {rows} rows",
                s[last].stats.items_out
            ),
        );
    }
}

/// One stage's own figures: conservation when its unit does not change, and units that
/// name what it counted (none for no items; `sources` for the licence gate).
fn check_stage_counts(i: usize, st: &StageCount, problems: &mut Vec<Mismatch>) {
    const UNITS: [&str; 4] = ["documents", "sentences", "pairs", "examples"];
    let x = &st.stats;
    let p = |f: &str| format!("stages[{i}].{f}");
    if x.unit_in == x.unit_out && x.items_in != x.items_out + x.dropped {
        inconsistent(
            problems,
            &format!("stages[{i}]"),
            format!(
                "{} {} is not {} {} + {} {}",
                p("items_in"),
                x.items_in,
                p("items_out"),
                x.items_out,
                p("dropped"),
                x.dropped
            ),
        );
    }
    let units: &[&str] = if st.name == "license" && i == 1 {
        &["sources"]
    } else {
        &UNITS
    };
    for (f, unit, n) in [
        ("unit_in", &x.unit_in, x.items_in),
        ("unit_out", &x.unit_out, x.items_out),
    ] {
        let ok = if n == 0 {
            unit.is_empty()
        } else {
            units.contains(&unit.as_str())
        };
        if !ok {
            inconsistent(problems, &p(f), format!("{unit:?} recorded for {n} items"));
        }
    }
}

/// Stage `i` is fed what stage `b` before it passed on, in the unit it passed on.
fn check_fed(i: usize, x: &StageStats, b: usize, y: &StageStats, problems: &mut Vec<Mismatch>) {
    if y.items_out != x.items_in {
        inconsistent(
            problems,
            &format!("stages[{i}].items_in"),
            format!(
                "stages[{i}].items_in {} is not stages[{b}].items_out {} (the stage before it)",
                x.items_in, y.items_out
            ),
        );
    }
    if !y.unit_out.is_empty() && !x.unit_in.is_empty() && y.unit_out != x.unit_in {
        inconsistent(
            problems,
            &format!("stages[{i}].unit_in"),
            format!(
                "{:?} recorded, stages[{b}].unit_out is {:?}",
                x.unit_in, y.unit_out
            ),
        );
    }
}
