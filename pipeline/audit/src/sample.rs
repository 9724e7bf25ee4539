//! `audit sample` and `audit precision`: the precision loop for curators.
//!
//! [`sample`] picks, per rule, up to N of its drops and edits (the smallest seeded hashes of
//! `item \t rule`: a stratified sample, each rule its own stratum, the same for the same
//! seed), and [`write_sample`] writes them three ways: `tasks.json` (Label Studio tasks),
//! `labeling-config.xml` (its labeling interface: correct / wrong), and `sample.tsv`
//! (columns [`TSV_COLUMNS`], `judgement` empty). The filled TSV or the Label Studio export
//! comes back through [`precision_report`]: per rule `k/n correct` with a Wilson 95%
//! interval, and the rules of the release nobody judged.

use crate::AuditError;
use kcurate_release::precision::{
    Carried, JudgedIndex, Judgement, LS_CHOICE, RulePrecision, TEXT_HASH_COLUMN, TSV_COLUMNS,
    read_judgements, text_hash,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// One sampled decision, as the curator reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleRow {
    pub item: String,
    pub stage: String,
    pub rule: String,
    pub action: String,
    /// What a drop removed (empty for an edit).
    pub text: String,
    /// An edit's span before and after (empty for a drop).
    pub before: String,
    pub after: String,
    /// [`text_hash`] of text, before and after: a judgement finds its decision by it when
    /// an upstream change moved the item's id.
    pub text_hash: String,
    pub source: String,
    pub origin: String,
}

/// Which rules a sample or a precision report covers: a rule passes when its id is one of
/// `rules` (or `rules` is empty) and its stage one of `stages` (or `stages` is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleFilter {
    /// Rule ids (`toxicity.slur_political_v3`); empty: every rule.
    pub rules: Vec<String>,
    /// Stage names (`toxicity`); empty: every stage.
    pub stages: Vec<String>,
}

impl RuleFilter {
    /// Whether a decision of `rule` made by `stage` is covered.
    pub fn passes(&self, stage: &str, rule: &str) -> bool {
        (self.rules.is_empty() || self.rules.iter().any(|r| r == rule))
            && (self.stages.is_empty() || self.stages.iter().any(|s| s == stage))
    }

    /// Filters naming a rule or stage that `dir`'s release never used: a typo would
    /// otherwise give an empty sample that looks like "nothing to judge".
    pub fn unknown_in(&self, m: &kcurate_release::Manifest) -> Vec<String> {
        let known_stage = |s: &str| m.stages.iter().any(|st| st.name == s);
        let known_rule = |r: &str| m.stages.iter().any(|st| st.stats.rules.contains_key(r));
        let mut unknown: Vec<String> = self
            .stages
            .iter()
            .filter(|s| !known_stage(s))
            .map(|s| format!("stage {s}"))
            .collect();
        unknown.extend(
            self.rules
                .iter()
                .filter(|r| !known_rule(r))
                .map(|r| format!("rule {r}")),
        );
        unknown
    }
}

/// Per rule, up to `per_rule` of its drops and edits, chosen by seeded hash; rules in id
/// order, each rule's rows in hash order. Decisions are streamed from decisions.jsonl.
/// Each rule is its own stratum, so a rule's rows do not depend on `filter`.
pub fn sample(
    dir: &Path,
    per_rule: usize,
    seed: u64,
    filter: &RuleFilter,
) -> Result<Vec<SampleRow>, AuditError> {
    let mut picks: BTreeMap<String, Vec<(u64, SampleRow)>> = BTreeMap::new();
    crate::for_each_decision(dir, |line| {
        let d = line.value()?;
        let s = |k: &str| d[k].as_str().unwrap_or("").to_string();
        let action = s("action");
        if action != "drop" && action != "edit" {
            return Ok(ControlFlow::Continue(()));
        }
        if !filter.passes(
            d["stage"].as_str().unwrap_or(""),
            d["rule"].as_str().unwrap_or(""),
        ) {
            return Ok(ControlFlow::Continue(()));
        }
        let (item, rule) = (s("item"), s("rule"));
        let h = kcurate_core::hash::seeded_u64(seed, format!("{item}\t{rule}").as_bytes());
        let v = picks.entry(rule.clone()).or_default();
        // One decision per item and rule (a judgement is keyed by both): another edit of
        // the rule on the same item has the same hash.
        if (v.len() == per_rule && v.last().is_none_or(|(top, _)| *top <= h))
            || v.iter().any(|(x, r)| *x == h && r.item == item)
        {
            return Ok(ControlFlow::Continue(()));
        }
        let at = v.partition_point(|(x, _)| *x <= h);
        let (text, before, after) = decision_text(&d);
        v.insert(
            at,
            (
                h,
                SampleRow {
                    item,
                    stage: s("stage"),
                    rule,
                    action,
                    text_hash: text_hash(&text, &before, &after),
                    text,
                    before,
                    after,
                    source: s("source"),
                    origin: s("origin"),
                },
            ),
        );
        v.truncate(per_rule);
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(picks
        .into_values()
        .flat_map(|v| v.into_iter().map(|(_, r)| r))
        .collect())
}

/// A decision's text, span before and span after (empty where it has none).
fn decision_text(d: &Value) -> (String, String, String) {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    (
        s(&d["text"]),
        s(&d["span"]["before"]),
        s(&d["span"]["after"]),
    )
}

/// The Label Studio labeling interface for the sample's tasks: the rule and action as a
/// header, what was removed (a drop's text, an edit's before and after), and one choice.
pub fn labeling_config() -> String {
    format!(
        r#"<View>
  <Header value="$rule ($action) on $item"/>
  <Text name="text" value="$text"/>
  <Text name="before" value="$before"/>
  <Text name="after" value="$after"/>
  <Choices name="{LS_CHOICE}" toName="text" choice="single" showInline="true" required="true">
    <Choice value="correct" hint="the rule was right to drop or change this"/>
    <Choice value="wrong" hint="the rule damaged content or acted on something it should not"/>
  </Choices>
</View>
"#
    )
}

/// A TSV cell: tabs and line breaks become spaces (the text is for reading; the item and
/// rule columns identify the decision).
fn cell(s: &str) -> String {
    s.chars()
        .map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The files of a sample for judging: `sample.tsv` (judgement column empty), `tasks.json`
/// (Label Studio tasks) and `labeling-config.xml`, each as its name and bytes.
pub fn sample_files(rows: &[SampleRow]) -> Vec<(&'static str, Vec<u8>)> {
    let tasks: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::json!({ "data": r }))
        .collect();
    let json = serde_json::to_string_pretty(&tasks).expect("tasks serialise") + "\n";
    let mut tsv = TSV_COLUMNS.join("\t");
    tsv.push('\n');
    for r in rows {
        let cells = [
            &r.item,
            &r.stage,
            &r.rule,
            &r.action,
            &r.text,
            &r.before,
            &r.after,
            &r.text_hash,
        ];
        tsv.push_str(&cells.iter().map(|c| cell(c)).collect::<Vec<_>>().join("\t"));
        tsv.push_str("\t\n");
    }
    vec![
        ("sample.tsv", tsv.into_bytes()),
        ("tasks.json", json.into_bytes()),
        ("labeling-config.xml", labeling_config().into_bytes()),
    ]
}

/// Writes [`sample_files`] into `out` (created); returns their paths.
pub fn write_sample(rows: &[SampleRow], out: &Path) -> Result<Vec<PathBuf>, AuditError> {
    std::fs::create_dir_all(out).map_err(|e| AuditError::Io {
        path: out.display().to_string(),
        source: e,
    })?;
    let mut paths = Vec::new();
    for (name, bytes) in sample_files(rows) {
        let p = out.join(name);
        std::fs::write(&p, bytes).map_err(|e| AuditError::Io {
            path: p.display().to_string(),
            source: e,
        })?;
        paths.push(p);
    }
    Ok(paths)
}

/// A rule of the release with its precision, or `None` when nobody judged it.
#[derive(Debug, Clone, Serialize)]
pub struct RuleJudged {
    pub rule: String,
    /// Its drops and edits in the release (0 for a judged rule the release does not have).
    pub decisions: u64,
    pub precision: Option<RulePrecision>,
    /// Its judgements found only by their text under another id: not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
    /// Its judgements naming no decision of the release, when it has no figure (a rule
    /// with one names them in it).
    #[serde(skip_serializing_if = "is_zero")]
    pub stale: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Reads judgements and reports, per rule with drops or edits in the release (and per rule
/// judged), its precision; rules in id order, only those `filter` covers (a judged rule the
/// release lacks has no stage, so a stage filter leaves it out).
pub fn precision_report(
    dir: &Path,
    labels: &Path,
    filter: &RuleFilter,
) -> Result<Vec<RuleJudged>, AuditError> {
    let m = kcurate_release::Manifest::load(&dir.join("manifest.json"))?;
    let judged: Vec<Judgement> = read_judgements(labels).map_err(|e| AuditError::Parse {
        path: labels.display().to_string(),
        line: 0,
        message: e.to_string(),
    })?;
    // Which judgements name a decision of this release (the others are stale).
    let mut ix = JudgedIndex::new(&judged);
    crate::for_each_decision(dir, |line| {
        let d = line.value()?;
        let (text, before, after) = decision_text(&d);
        ix.observe(
            d["item"].as_str().unwrap_or(""),
            d["rule"].as_str().unwrap_or(""),
            &text,
            &before,
            &after,
        );
        Ok(ControlFlow::Continue(()))
    })?;
    let mut matched = ix.matched(&judged, false);
    let p = &mut matched.rules;
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut stage_of: BTreeMap<&str, &str> = BTreeMap::new();
    for st in &m.stages {
        for (r, c) in &st.stats.rules {
            stage_of.insert(r, &st.name);
            if c.drop + c.edit > 0 {
                *counts.entry(r.clone()).or_default() += c.drop + c.edit;
            }
        }
    }
    let covered = |r: &String| filter.passes(stage_of.get(r.as_str()).copied().unwrap_or(""), r);
    let mut rules: Vec<String> = counts
        .keys()
        .chain(p.keys())
        .chain(matched.carried.keys())
        .chain(matched.stale.keys())
        .filter(|r| covered(r))
        .cloned()
        .collect();
    rules.sort();
    rules.dedup();
    Ok(rules
        .into_iter()
        .map(|r| {
            let precision = p.remove(&r);
            RuleJudged {
                decisions: counts.get(&r).copied().unwrap_or(0),
                carried: matched.carried.remove(&r),
                stale: match precision {
                    Some(_) => 0,
                    None => matched.stale.get(&r).copied().unwrap_or(0),
                },
                precision,
                rule: r,
            }
        })
        .collect())
}

/// What [`add_text_hashes`] did to a judgements file's rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HashFill {
    /// Rows that got the text hash of their decision in the release.
    pub filled: usize,
    /// Rows that had one already (left as they were).
    pub kept: usize,
    /// Rows naming no decision of the release (left without: they stay id-matched).
    pub missing: usize,
}

/// Writes `labels` (a judgements TSV, possibly from before the text hash column) to `out`
/// with a [`TEXT_HASH_COLUMN`] filled from the decisions of `dir`, the release the rows were
/// judged on: a row gets the hash of the first decision of its rule on its item, as
/// [`sample`] would have written it. Comment lines, columns and judgements are kept.
pub fn add_text_hashes(dir: &Path, labels: &Path, out: &Path) -> Result<HashFill, AuditError> {
    let shown = labels.display().to_string();
    let text = std::fs::read_to_string(labels).map_err(|e| AuditError::Io {
        path: shown.clone(),
        source: e,
    })?;
    let parse = |line: usize, message: String| AuditError::Parse {
        path: shown.clone(),
        line,
        message,
    };
    if text.trim_start().starts_with('[') {
        return Err(parse(
            1,
            "a Label Studio export: its tasks carry the text hash already (from tasks.json); only a TSV gets the column added".into(),
        ));
    }
    let lines: Vec<&str> = text.lines().collect();
    let h = lines
        .iter()
        .position(|l| !l.starts_with('#'))
        .ok_or_else(|| parse(1, "no header line".into()))?;
    let mut header: Vec<String> = lines[h].split('\t').map(|c| c.trim().to_string()).collect();
    let col = |name: &str| header.iter().position(|c| c == name);
    let (Some(ci), Some(cr)) = (col("item"), col("rule")) else {
        return Err(parse(
            h + 1,
            "the header needs item and rule columns".into(),
        ));
    };
    let ch = match col(TEXT_HASH_COLUMN) {
        Some(c) => c,
        None => {
            header.push(TEXT_HASH_COLUMN.to_string());
            header.len() - 1
        }
    };
    let rows: Vec<Vec<String>> = lines[h + 1..]
        .iter()
        .map(|l| {
            let mut cells: Vec<String> = l.split('\t').map(String::from).collect();
            if !l.trim().is_empty() && cells.len() < header.len() {
                cells.resize(header.len(), String::new());
            }
            cells
        })
        .collect();
    let mut wanted: BTreeMap<(String, String), Option<String>> = rows
        .iter()
        .filter(|c| c.len() > cr)
        .map(|c| ((c[ci].trim().to_string(), c[cr].trim().to_string()), None))
        .collect();
    hash_wanted_decisions(dir, &mut wanted)?;
    let mut fill = HashFill::default();
    let mut body = String::new();
    for l in &lines[..h] {
        body.push_str(l);
        body.push('\n');
    }
    body.push_str(&header.join("\t"));
    body.push('\n');
    for mut cells in rows {
        if cells.len() > cr {
            let key = (cells[ci].trim().to_string(), cells[cr].trim().to_string());
            if !cells[ch].trim().is_empty() {
                fill.kept += 1;
            } else if let Some(Some(hash)) = wanted.get(&key) {
                cells[ch] = hash.clone();
                fill.filled += 1;
            } else {
                fill.missing += 1;
            }
        }
        body.push_str(&cells.join("\t"));
        body.push('\n');
    }
    std::fs::write(out, body).map_err(|e| AuditError::Io {
        path: out.display().to_string(),
        source: e,
    })?;
    Ok(fill)
}

/// Fills each wanted (item, rule) with the text hash of its first decision in the release.
fn hash_wanted_decisions(
    dir: &Path,
    wanted: &mut BTreeMap<(String, String), Option<String>>,
) -> Result<(), AuditError> {
    crate::for_each_decision(dir, |line| {
        let d = line.value()?;
        let key = (
            d["item"].as_str().unwrap_or("").to_string(),
            d["rule"].as_str().unwrap_or("").to_string(),
        );
        if let Some(slot) = wanted.get_mut(&key)
            && slot.is_none()
        {
            let (text, before, after) = decision_text(&d);
            *slot = Some(text_hash(&text, &before, &after));
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(())
}

/// `rule X: 48/50 correct, precision 0.96 [0.87, 0.99]`, or `rule Y: not judged (N
/// decisions)`.
/// Judgements carried by text and stale ones follow, never counted.
pub fn render_precision(rows: &[RuleJudged]) -> String {
    rows.iter()
        .map(|r| {
            let mut s = match &r.precision {
                Some(p) => format!("rule {}: {}", r.rule, p.summary()),
                None => format!("rule {}: not judged ({} decisions)", r.rule, r.decisions),
            };
            if let Some(c) = &r.carried {
                s.push_str(&format!(
                    "; found by text under another id: {} of {} correct, not counted",
                    c.correct, c.judged
                ));
            }
            if r.stale > 0 {
                s.push_str(&format!(
                    "; {} stale judgement{} (no such decision in this release)",
                    r.stale,
                    if r.stale == 1 { "" } else { "s" }
                ));
            }
            s.push('\n');
            s
        })
        .collect()
}
