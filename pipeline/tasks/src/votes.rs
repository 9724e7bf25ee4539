//! Simulated nominal votes (NLI validation, TC topics) that follow a gold or model label
//! through a confusion fitted on people's votes ([`VoteModel`], [`fit_klue_nli`]).
//!
//! The fit reads KLUE NLI's validation votes: every pair has a `gold_label` and four
//! validators' labels `label2`…`label5`. The pooled confusion P(vote | gold) is the share of
//! each vote per gold label; a validator slot's error rate over the pooled one gives the
//! spread of annotators' carefulness (KLUE does not say one slot is one person, so the
//! slots' spread is a lower bound of the people's). KLUE dev keeps only pairs whose gold is
//! a majority, so the errors are those of validators who were mostly right.
//!
//! A simulated annotator draws a scale from that spread (seeded); its vote on an item is the
//! truth with probability 1 − scale·error(truth), else another label in proportion to the
//! confusion row. Each (seed, item, annotator) has its own stream, so votes do not depend on
//! order or threads.
//!
//! A label set the confusion does not cover (KLUE TC's seven topics; no topic votes are in
//! ../shared) takes the fitted mean error rate ([`VoteModel::mean_error`]) with the same
//! per-voter scale, an error going to one of the other labels at random
//! ([`VoteModel::vote_among`]). A spammer (recipe `spammers`) answers uniformly at random.
//!
//! Builders (`nli`, `tc`) take the table as their `votes` setting, printed by
//! `kcurate nli fit-votes --klue <KLUE NLI dev JSON>`, and report it in the card.

use kcurate_agree::simulate::uniform;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The fitted confusion and the spread of annotators' error rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteModel {
    /// The file the confusion was fitted on.
    pub fitted_on: String,
    /// P(vote | gold): gold label → vote label → share (each row sums to 1).
    pub confusion: BTreeMap<String, BTreeMap<String, f64>>,
    /// Range of an annotator's error rate over the pooled one.
    pub error_scale: [f64; 2],
}

/// One simulated voter.
#[derive(Debug, Clone, PartialEq)]
pub struct Voter {
    /// `voter00`, …
    pub id: String,
    /// Multiplies the label's pooled error rate (clamped to [0, 1]) for this voter.
    pub error_scale: f64,
    /// Answers uniformly at random, whatever the truth.
    pub spammer: bool,
}

/// Fitting the vote model from KLUE NLI records failed.
#[derive(Debug, thiserror::Error)]
pub enum VoteFitError {
    /// The text is not a JSON array.
    #[error("not a JSON array of KLUE NLI records: {0}")]
    Json(String),
    /// A record's field is missing or not a string.
    #[error("record {index}: {field}: missing or not a string")]
    Field {
        /// 0-based record index.
        index: usize,
        /// The field.
        field: String,
    },
    /// No record had votes.
    #[error("no votes to fit")]
    Empty,
}

/// A vote model out of range ([`VoteModel::check`]); the message names the key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VoteModelError {
    /// `error_scale` is not `[lo, hi]` with 0 ≤ lo ≤ hi, both finite.
    #[error("error_scale [{lo}, {hi}] is not 0 ≤ lo ≤ hi")]
    ErrorScale {
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// The confusion table is empty.
    #[error("confusion has no rows")]
    NoRows,
    /// A share in a gold label's row is outside [0, 1].
    #[error("confusion.{gold}: a share outside [0, 1]")]
    Share {
        /// The row's gold label.
        gold: String,
    },
    /// A gold label's row does not sum to 1 (±0.01).
    #[error("confusion.{gold}: shares sum to {sum}, not 1")]
    RowSum {
        /// The row's gold label.
        gold: String,
        /// What the row sums to.
        sum: f64,
    },
}

fn r4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl VoteModel {
    /// The labels, sorted.
    pub fn labels(&self) -> Vec<&str> {
        self.confusion.keys().map(String::as_str).collect()
    }

    /// Error rate of a label: 1 − P(vote = gold | gold).
    pub fn error(&self, gold: &str) -> f64 {
        self.confusion
            .get(gold)
            .map_or(0.0, |row| 1.0 - row.get(gold).copied().unwrap_or(0.0))
    }

    /// Mean of the labels' error rates (the rate a label outside the confusion gets).
    pub fn mean_error(&self) -> f64 {
        if self.confusion.is_empty() {
            return 0.0;
        }
        self.confusion.keys().map(|g| self.error(g)).sum::<f64>() / self.confusion.len() as f64
    }

    /// A table a builder can use: rows sum to 1 (±0.01), shares and scales are in range.
    pub fn check(&self) -> Result<(), VoteModelError> {
        let [lo, hi] = self.error_scale;
        if !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi) {
            return Err(VoteModelError::ErrorScale { lo, hi });
        }
        if self.confusion.is_empty() {
            return Err(VoteModelError::NoRows);
        }
        for (g, row) in &self.confusion {
            if row.values().any(|p| !(0.0..=1.0).contains(p)) {
                return Err(VoteModelError::Share { gold: g.clone() });
            }
            let sum: f64 = row.values().sum();
            if (sum - 1.0).abs() > 0.01 {
                return Err(VoteModelError::RowSum {
                    gold: g.clone(),
                    sum,
                });
            }
        }
        Ok(())
    }

    /// `n` voters with error scales drawn uniformly from `error_scale`; the last `spammers`
    /// of them answer at random.
    pub fn pool(&self, n: usize, spammers: usize, seed: u64) -> Vec<Voter> {
        let [lo, hi] = self.error_scale;
        (0..n)
            .map(|k| Voter {
                id: format!("voter{k:02}"),
                error_scale: lo + (hi - lo) * uniform(seed, &format!("voter\t{k}"), "scale"),
                spammer: k >= n - spammers.min(n),
            })
            .collect()
    }

    /// `v`'s vote on `item` among `labels`. A truth the confusion covers votes through its
    /// row ([`Self::vote`]); another label set errs at [`Self::mean_error`] × the voter's
    /// scale, uniformly over the other labels. A spammer picks any label uniformly.
    pub fn vote_among(
        &self,
        seed: u64,
        item: &str,
        v: &Voter,
        truth: &str,
        labels: &[&str],
    ) -> String {
        let u = uniform(seed, item, &v.id);
        if v.spammer && !labels.is_empty() {
            let k = ((u * labels.len() as f64) as usize).min(labels.len() - 1);
            return labels[k].to_string();
        }
        if self.confusion.contains_key(truth) {
            return self.vote(seed, item, v, truth);
        }
        let others: Vec<&&str> = labels.iter().filter(|l| **l != truth).collect();
        let err = (self.mean_error() * v.error_scale).clamp(0.0, 1.0);
        if u >= err || others.is_empty() {
            return truth.to_string();
        }
        let k = ((u / err * others.len() as f64) as usize).min(others.len() - 1);
        others[k].to_string()
    }

    /// `v`'s vote on `item` whose true (gold or model) label is `truth`. A label the model
    /// does not know is returned as it is.
    pub fn vote(&self, seed: u64, item: &str, v: &Voter, truth: &str) -> String {
        let Some(row) = self.confusion.get(truth) else {
            return truth.to_string();
        };
        let err = (self.error(truth) * v.error_scale).clamp(0.0, 1.0);
        let u = uniform(seed, item, &v.id);
        if u >= err {
            return truth.to_string();
        }
        // Another label, in proportion to the confusion row's off-diagonal shares.
        let others: Vec<(&String, f64)> = row
            .iter()
            .filter(|(l, _)| *l != truth)
            .map(|(l, p)| (l, *p))
            .collect();
        let total: f64 = others.iter().map(|o| o.1).sum();
        if total <= 0.0 {
            return truth.to_string();
        }
        let mut at = u / err * total;
        for (l, p) in &others {
            if at < *p {
                return (*l).clone();
            }
            at -= p;
        }
        others[others.len() - 1].0.clone()
    }

    /// The table as a recipe carries it, under the header `table` (`stage.votes`).
    pub fn to_toml(&self, table: &str) -> String {
        let mut s = format!("[{table}]\n");
        let _ = writeln!(s, "fitted_on = {:?}", self.fitted_on);
        let _ = writeln!(
            s,
            "error_scale = [{}, {}]",
            self.error_scale[0], self.error_scale[1]
        );
        for (g, row) in &self.confusion {
            let cells: Vec<String> = row.iter().map(|(l, p)| format!("{l} = {p}")).collect();
            let _ = writeln!(s, "confusion.{g} = {{ {} }}", cells.join(", "));
        }
        s
    }
}

/// Fits the vote model on KLUE NLI records (`gold_label`, `label2`…`label5`). `fitted_on`
/// names the file.
pub fn fit_klue_nli(text: &str, fitted_on: &str) -> Result<VoteModel, VoteFitError> {
    let recs: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| VoteFitError::Json(e.to_string()))?;
    let slots = ["label2", "label3", "label4", "label5"];
    let mut counts: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut slot_err = [(0u64, 0u64); 4];
    for (index, r) in recs.iter().enumerate() {
        let get = |f: &str| {
            r[f].as_str().map(String::from).ok_or(VoteFitError::Field {
                index,
                field: f.to_string(),
            })
        };
        let gold = get("gold_label")?;
        for (s, f) in slots.iter().enumerate() {
            let v = get(f)?;
            *counts
                .entry(gold.clone())
                .or_default()
                .entry(v.clone())
                .or_default() += 1;
            slot_err[s].0 += u64::from(v != gold);
            slot_err[s].1 += 1;
        }
    }
    let all: u64 = slot_err.iter().map(|s| s.1).sum();
    if all == 0 {
        return Err(VoteFitError::Empty);
    }
    let pooled = slot_err.iter().map(|s| s.0).sum::<u64>() as f64 / all as f64;
    let labels: Vec<String> = counts
        .values()
        .flat_map(|r| r.keys().cloned())
        .chain(counts.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let confusion = counts
        .iter()
        .map(|(g, row)| {
            let n: u64 = row.values().sum();
            (
                g.clone(),
                labels
                    .iter()
                    .map(|l| {
                        (
                            l.clone(),
                            r4(row.get(l).copied().unwrap_or(0) as f64 / n as f64),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let scales: Vec<f64> = slot_err
        .iter()
        .filter(|s| s.1 > 0)
        .map(|s| {
            if pooled > 0.0 {
                s.0 as f64 / s.1 as f64 / pooled
            } else {
                1.0
            }
        })
        .collect();
    Ok(VoteModel {
        fitted_on: format!("{fitted_on}: {} pairs, {all} validator votes", recs.len()),
        confusion,
        error_scale: [
            r4(scales.iter().copied().fold(f64::INFINITY, f64::min)),
            r4(scales.iter().copied().fold(0.0, f64::max)),
        ],
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A three-label model for unit tests.
    pub(crate) fn model() -> VoteModel {
        let row = |e: f64, n: f64, c: f64| {
            BTreeMap::from([
                ("contradiction".to_string(), c),
                ("entailment".to_string(), e),
                ("neutral".to_string(), n),
            ])
        };
        VoteModel {
            fitted_on: "test".into(),
            confusion: BTreeMap::from([
                ("entailment".to_string(), row(0.9, 0.08, 0.02)),
                ("neutral".to_string(), row(0.05, 0.9, 0.05)),
                ("contradiction".to_string(), row(0.0, 0.1, 0.9)),
            ]),
            error_scale: [0.8, 1.2],
        }
    }

    #[test]
    fn votes_follow_the_truth_with_the_fitted_confusion() {
        let m = model();
        let pool = m.pool(5, 0, 3);
        assert_eq!(pool, m.pool(5, 0, 3));
        assert!(pool.iter().all(|v| (0.8..=1.2).contains(&v.error_scale)));
        // One voter with scale 1: the vote shares match the row.
        let v = Voter {
            id: "v".into(),
            error_scale: 1.0,
            spammer: false,
        };
        let mut c: BTreeMap<String, u32> = BTreeMap::new();
        for i in 0..20_000 {
            *c.entry(m.vote(3, &format!("i{i}"), &v, "entailment"))
                .or_default() += 1;
        }
        let share = |l: &str| f64::from(c.get(l).copied().unwrap_or(0)) / 20_000.0;
        assert!((share("entailment") - 0.9).abs() < 0.01, "{c:?}");
        assert!((share("neutral") - 0.08).abs() < 0.01, "{c:?}");
        assert!((share("contradiction") - 0.02).abs() < 0.005, "{c:?}");
        // Contradiction is never read as entailment (a zero in the row).
        assert!(
            (0..5000).all(|i| m.vote(3, &format!("i{i}"), &v, "contradiction") != "entailment")
        );
        // Deterministic; unknown labels pass through.
        assert_eq!(m.vote(3, "x", &v, "neutral"), m.vote(3, "x", &v, "neutral"));
        assert_eq!(m.vote(3, "x", &v, "사회"), "사회");
        // A careless voter errs more.
        let careless = Voter {
            id: "v".into(),
            error_scale: 3.0,
            spammer: false,
        };
        let wrong = (0..20_000)
            .filter(|i| m.vote(3, &format!("i{i}"), &careless, "entailment") != "entailment")
            .count();
        assert!((wrong as f64 / 20_000.0 - 0.3).abs() < 0.015, "{wrong}");
    }

    #[test]
    fn labels_outside_the_confusion_err_at_the_mean_rate_and_spammers_are_uniform() {
        let m = model();
        assert!((m.mean_error() - 0.1).abs() < 1e-9);
        assert!(m.check().is_ok());
        let topics = ["a", "b", "c", "d"];
        let v = Voter {
            id: "v".into(),
            error_scale: 2.0,
            spammer: false,
        };
        let mut c: BTreeMap<String, u32> = BTreeMap::new();
        for i in 0..20_000 {
            *c.entry(m.vote_among(5, &format!("i{i}"), &v, "a", &topics))
                .or_default() += 1;
        }
        // Error 0.1 × 2 = 0.2, spread over b, c, d.
        assert!((f64::from(c["a"]) / 20_000.0 - 0.8).abs() < 0.01, "{c:?}");
        for l in ["b", "c", "d"] {
            assert!(
                (f64::from(c[l]) / 20_000.0 - 0.2 / 3.0).abs() < 0.01,
                "{c:?}"
            );
        }
        // A known label goes through its row, as `vote` does.
        assert_eq!(
            m.vote_among(5, "x", &v, "neutral", &LABELS3),
            m.vote(5, "x", &v, "neutral")
        );
        let spam = Voter {
            spammer: true,
            ..v.clone()
        };
        let n_a = (0..8_000)
            .filter(|i| m.vote_among(5, &format!("i{i}"), &spam, "a", &topics) == "a")
            .count();
        assert!((n_a as f64 / 8_000.0 - 0.25).abs() < 0.02, "{n_a}");
        assert_eq!(m.pool(4, 1, 9).iter().filter(|v| v.spammer).count(), 1);
        let mut bad = m.clone();
        bad.confusion
            .get_mut("neutral")
            .unwrap()
            .insert("neutral".into(), 0.5);
        assert!(bad.check().is_err());
    }

    const LABELS3: [&str; 3] = ["contradiction", "entailment", "neutral"];

    #[test]
    fn fit_counts_the_validators_votes() {
        let text = r#"[
          {"gold_label":"entailment","label2":"entailment","label3":"neutral","label4":"entailment","label5":"entailment"},
          {"gold_label":"neutral","label2":"neutral","label3":"neutral","label4":"neutral","label5":"contradiction"}
        ]"#;
        let m = fit_klue_nli(text, "t").expect("fit");
        assert_eq!(m.confusion["entailment"]["neutral"], 0.25);
        assert_eq!(m.confusion["neutral"]["contradiction"], 0.25);
        assert_eq!(m.confusion["neutral"]["entailment"], 0.0);
        // Slots 3 and 5 err once in two (rate 0.5), slots 2 and 4 never; pooled 0.25.
        assert_eq!(m.error_scale, [0.0, 2.0]);
        let back: toml::Table = toml::from_str(&m.to_toml("votes")).expect("toml");
        let t: VoteModel = back["votes"].clone().try_into().expect("model");
        assert_eq!(t, m);
        assert!(matches!(
            fit_klue_nli(r#"[{"gold_label":"neutral"}]"#, "t"),
            Err(VoteFitError::Field { index: 0, .. })
        ));
    }
}
