//! Per-rule precision from curators' judgements: a sample of each rule's drops and edits
//! (`kcurate audit sample`) is read and judged `correct` (the rule was right to act) or
//! `wrong`; the judgements come back as the sample's TSV filled in or as a Label Studio
//! JSON export, and [`precision`] reports per rule `k/n correct` with a Wilson 95% interval.
//! A recipe can name a judgements file (`[audit] judgements = "..."`): the figures go into
//! the manifest (`rule_precision`), the dataset card and report.html.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Columns of the sample TSV, in order. `judgement` is left empty for the curator.
pub const TSV_COLUMNS: [&str; 8] = [
    "item",
    "stage",
    "rule",
    "action",
    "text",
    "before",
    "after",
    "judgement",
];

/// The name of the choice in the Label Studio labeling config.
pub const LS_CHOICE: &str = "judgement";

#[derive(Debug, thiserror::Error)]
pub enum PrecisionError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {field}: {message}")]
    Parse {
        path: String,
        line: usize,
        field: String,
        message: String,
    },
}

/// One judged (or not yet judged) decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub item: String,
    pub rule: String,
    /// `None`: not judged yet (an empty cell, a skipped task).
    pub correct: Option<bool>,
}

/// A rule's judged decisions: how many were judged, how many were right, and the Wilson
/// 95% interval of the precision, at fixed precision (4 places).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulePrecision {
    pub judged: u64,
    pub correct: u64,
    pub precision: f64,
    pub low: f64,
    pub high: f64,
    /// Judgements of this rule that name no decision of the release they were counted for
    /// (the item or the rule's decision on it is gone: judged on another build). Not counted
    /// in `judged`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stale: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RulePrecision {
    pub fn new(correct: u64, judged: u64) -> Self {
        let (low, high) = wilson(correct, judged);
        let r4 = |x: f64| (x * 1e4).round() / 1e4;
        RulePrecision {
            judged,
            correct,
            precision: if judged == 0 {
                0.0
            } else {
                r4(correct as f64 / judged as f64)
            },
            low: r4(low),
            high: r4(high),
            stale: 0,
        }
    }

    /// `48/50 correct, precision 0.96 [0.87, 0.99]`, and `; 2 stale judgements not counted`
    /// when some name no decision of the release.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}/{} correct, precision {:.2} [{:.2}, {:.2}]",
            self.correct, self.judged, self.precision, self.low, self.high
        );
        if self.stale > 0 {
            s.push_str(&format!(
                "; {} stale judgement{} (no such decision in this release) not counted",
                self.stale,
                if self.stale == 1 { "" } else { "s" }
            ));
        }
        s
    }
}

/// The Wilson score interval (z = 1.96, 95%) of `k` successes in `n` trials; (0, 1) when
/// nothing was judged.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Per rule, the precision of its judged decisions. An item judged twice for the same rule
/// counts once (its first judgement): a sample is a set of decisions, not of votes.
pub fn precision(judgements: &[Judgement]) -> BTreeMap<String, RulePrecision> {
    let mut seen = std::collections::BTreeSet::new();
    let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for j in judgements {
        let Some(ok) = j.correct else { continue };
        if !seen.insert((j.rule.as_str(), j.item.as_str())) {
            continue;
        }
        let c = counts.entry(j.rule.clone()).or_default();
        c.1 += 1;
        if ok {
            c.0 += 1;
        }
    }
    counts
        .into_iter()
        .map(|(r, (k, n))| (r, RulePrecision::new(k, n)))
        .collect()
}

/// [`precision`] over the judgements that name a decision of a release: `present` maps
/// (item, rule) to whether the release has that rule's decision on that item. The others are
/// counted per rule as `stale` (judged on a build whose items or decisions differ).
pub fn precision_in(
    judgements: &[Judgement],
    present: &BTreeMap<(String, String), bool>,
) -> BTreeMap<String, RulePrecision> {
    let (live, gone): (Vec<&Judgement>, Vec<&Judgement>) = judgements
        .iter()
        .filter(|j| j.correct.is_some())
        .partition(|j| {
            present
                .get(&(j.item.clone(), j.rule.clone()))
                .copied()
                .unwrap_or(false)
        });
    let live: Vec<Judgement> = live.into_iter().cloned().collect();
    let mut out = precision(&live);
    let mut seen = std::collections::BTreeSet::new();
    for j in gone {
        if seen.insert((j.rule.as_str(), j.item.as_str())) {
            out.entry(j.rule.clone())
                .or_insert_with(|| RulePrecision::new(0, 0))
                .stale += 1;
        }
    }
    out
}

/// A judgement cell: `correct`/`wrong` and the usual spellings of yes and no; empty is
/// "not judged".
fn judgement_value(s: &str) -> Result<Option<bool>, String> {
    match s.trim().to_lowercase().as_str() {
        "" | "-" | "skip" | "unsure" | "?" => Ok(None),
        "correct" | "right" | "ok" | "yes" | "y" | "1" | "true" | "o" | "맞음" => Ok(Some(true)),
        "wrong" | "incorrect" | "bad" | "no" | "n" | "0" | "false" | "x" | "틀림" => {
            Ok(Some(false))
        }
        other => Err(format!(
            "{other:?} is not a judgement; write correct or wrong (or leave it empty)"
        )),
    }
}

/// Reads judgements: a Label Studio JSON export (the file starts with `[`) or the sample's
/// TSV filled in (a header naming at least `item`, `rule` and `judgement`).
pub fn read_judgements(path: &Path) -> Result<Vec<Judgement>, PrecisionError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| PrecisionError::Io {
        path: shown.clone(),
        source: e,
    })?;
    if text.trim_start().starts_with('[') {
        read_label_studio(&shown, &text)
    } else {
        read_tsv(&shown, &text)
    }
}

fn read_tsv(shown: &str, text: &str) -> Result<Vec<Judgement>, PrecisionError> {
    let err = |line: usize, field: &str, message: String| PrecisionError::Parse {
        path: shown.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    // Leading `#` lines are comments (a judgements file says where its sample came from).
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, l)| l.starts_with('#'));
    let (header_line, header): (usize, Vec<&str>) = lines
        .next()
        .map(|(n, h)| (n + 1, h.split('\t').map(str::trim).collect()))
        .unwrap_or((1, Vec::new()));
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| err(header_line, name, "missing column in the header".into()))
    };
    let (ci, cr, cj) = (col("item")?, col("rule")?, col("judgement")?);
    let mut out = Vec::new();
    for (n, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = l.split('\t').collect();
        let cell = |c: usize| cells.get(c).copied().unwrap_or("");
        let item = cell(ci).trim();
        let rule = cell(cr).trim();
        if item.is_empty() || rule.is_empty() {
            return Err(err(n + 1, "item", "a row needs an item and a rule".into()));
        }
        let correct = judgement_value(cell(cj)).map_err(|m| err(n + 1, "judgement", m))?;
        out.push(Judgement {
            item: item.to_string(),
            rule: rule.to_string(),
            correct,
        });
    }
    Ok(out)
}

/// A Label Studio export: per task, `data.item` and `data.rule` from the task file, and the
/// first annotation that was not cancelled, whose `judgement` choice is the verdict.
fn read_label_studio(shown: &str, text: &str) -> Result<Vec<Judgement>, PrecisionError> {
    let err = |line: usize, field: &str, message: String| PrecisionError::Parse {
        path: shown.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let tasks: Vec<Value> = serde_json::from_str(text).map_err(|e| {
        err(
            e.line(),
            "-",
            format!("not a Label Studio JSON export: {e}"),
        )
    })?;
    let mut out = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let field = |k: &str| format!("[{i}].data.{k}");
        let get = |k: &str| {
            t["data"][k]
                .as_str()
                .map(String::from)
                .ok_or_else(|| err(0, &field(k), "missing".into()))
        };
        let (item, rule) = (get("item")?, get("rule")?);
        let annotation = t["annotations"].as_array().and_then(|a| {
            a.iter()
                .find(|x| !x["was_cancelled"].as_bool().unwrap_or(false))
        });
        let choice = annotation.and_then(|a| {
            a["result"].as_array()?.iter().find_map(|r| {
                (r["from_name"] == LS_CHOICE).then(|| r["value"]["choices"][0].as_str())?
            })
        });
        let correct = match choice {
            None => None,
            Some(c) => judgement_value(c)
                .map_err(|m| err(0, &format!("[{i}].annotations.{LS_CHOICE}"), m))?,
        };
        out.push(Judgement {
            item,
            rule,
            correct,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_the_worked_example() {
        // 48 of 50: precision 0.96, Wilson 95% [0.8654, 0.9890].
        let r = RulePrecision::new(48, 50);
        assert_eq!(r.summary(), "48/50 correct, precision 0.96 [0.87, 0.99]");
        assert!(
            (r.low - 0.8654).abs() < 1e-4 && (r.high - 0.9890).abs() < 1e-4,
            "{r:?}"
        );
        // All right is not certainty; none judged is no information.
        let (lo, hi) = wilson(20, 20);
        assert!(
            (lo - 0.8389).abs() < 1e-4 && (hi - 1.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn tsv_judgements_count_once_per_item_and_skip_empty_cells() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("j.tsv");
        std::fs::write(
            &p,
            "item\tstage\trule\taction\ttext\tbefore\tafter\tjudgement\n\
             a\tfilter\tfilter.too_short\tdrop\t최고다.\t\t\tcorrect\n\
             b\tfilter\tfilter.too_short\tdrop\tㅋ\t\t\twrong\n\
             a\tfilter\tfilter.too_short\tdrop\t최고다.\t\t\twrong\n\
             c\tnoise\tnoise.hashtag\tedit\t\t #속보\t \t\n",
        )
        .unwrap();
        let p = precision(&read_judgements(&p).unwrap());
        assert_eq!(p["filter.too_short"].correct, 1);
        assert_eq!(p["filter.too_short"].judged, 2);
        assert!(
            !p.contains_key("noise.hashtag"),
            "an empty cell is not judged"
        );
    }

    #[test]
    fn judgements_of_decisions_the_release_lacks_are_stale() {
        let j = |item: &str, rule: &str, ok: bool| Judgement {
            item: item.into(),
            rule: rule.into(),
            correct: Some(ok),
        };
        let judged = [
            j("a", "dedup.near", true),
            j("b", "dedup.near", false),
            j("c", "dedup.near", true),
            j("d", "filter.old", true),
        ];
        let present: BTreeMap<(String, String), bool> = [
            (("a".into(), "dedup.near".into()), true),
            (("b".into(), "dedup.near".into()), true),
            (("c".into(), "dedup.near".into()), false),
            (("d".into(), "filter.old".into()), false),
        ]
        .into();
        let p = precision_in(&judged, &present);
        assert_eq!(
            p["dedup.near"].summary(),
            "1/2 correct, precision 0.50 [0.09, 0.91]; 1 stale judgement (no such decision in this release) not counted"
        );
        assert_eq!((p["filter.old"].judged, p["filter.old"].stale), (0, 1));
    }

    #[test]
    fn a_bad_judgement_names_file_line_and_field() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("j.tsv");
        std::fs::write(&p, "# provenance\nitem\trule\tjudgement\na\tx.y\tmaybe\n").unwrap();
        let e = read_judgements(&p).unwrap_err().to_string();
        assert!(e.ends_with("j.tsv:3: judgement: \"maybe\" is not a judgement; write correct or wrong (or leave it empty)"), "{e}");
    }

    #[test]
    fn label_studio_exports_take_the_first_annotation_not_cancelled() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("export.json");
        let choice = |c: &str, cancelled: bool| {
            serde_json::json!({"was_cancelled": cancelled, "result": [
                {"from_name": "judgement", "to_name": "text", "type": "choices",
                 "value": {"choices": [c]}}]})
        };
        let export = serde_json::json!([
            {"data": {"item": "a", "rule": "dedup.near"},
             "annotations": [choice("wrong", true), choice("correct", false)]},
            {"data": {"item": "b", "rule": "dedup.near"},
             "annotations": [choice("wrong", false)]},
            {"data": {"item": "c", "rule": "dedup.near"}, "annotations": []},
        ]);
        std::fs::write(&p, export.to_string()).unwrap();
        let j = read_judgements(&p).unwrap();
        assert_eq!(
            j.iter().map(|x| x.correct).collect::<Vec<_>>(),
            [Some(true), Some(false), None]
        );
        assert_eq!(
            precision(&j)["dedup.near"].summary(),
            "1/2 correct, precision 0.50 [0.09, 0.91]"
        );
    }
}
