//! Dedup decided through an engine's shuffle (the Spark driver): each record's keys as a
//! partition computes them ([`KeyLine`]), the replay in input order of the records that
//! share a key with another ([`resolve`]), and the verdicts `kcurate finalise` applies in
//! place of running the index over the whole corpus ([`DedupVerdicts`], [`DecidedDedup`]).
//!
//! Why the replay of the colliding records alone is exact: a [`Deduper`] compares a text
//! only with kept texts that share its exact key or one of its LSH buckets (its
//! [`meeting keys`](Deduper::meeting_keys)). A record that shares none with any other record
//! is kept and never named, so it changes no verdict; every record a colliding record can
//! meet is itself colliding, so offering the colliding records alone, in input order, gives
//! each the verdict (and twin, and score) of the whole run, crowded-bucket cap included.

use super::{DedupStage, drop_duplicate};
use crate::dedup::{Deduper, TextKeys, Verdict};
use kcurate_core::{CorpusStage, Out, Record};
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;

mod account;
pub use account::{Claimed, ClaimedKey, meet_codes};

/// One record's dedup keys, as `kcurate stage --dedup-keys` writes them (tagged
/// `{"dedup":{...}}`) and `kcurate dedup-verdicts` reads them back.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyLine {
    /// The record id.
    pub id: String,
    /// Its place in input order: source index in the recipe, file index in the source,
    /// line, and its number among the records that line became.
    pub at: [u64; 4],
    /// The 128-bit hash of its dedup key, 32 hex digits.
    pub exact: String,
    /// Its MinHash signature, 8 hex digits a value; absent when the key is too short for
    /// near dedup (or near dedup is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
    /// What a shuffle groups by: `x` and 24 hex digits for the exact key, `b` and 16 for a
    /// band ([`Deduper::meeting_keys`]).
    pub meet: Vec<String>,
}

/// Why a line is not a key line, or its keys do not fit the recipe's dedup.
#[derive(Debug, thiserror::Error)]
pub enum KeyLineError {
    /// Neither a tagged (`{"dedup":{...}}`) nor a bare key line.
    #[error("not a key line of `stage --dedup-keys`: {0}")]
    NotAKeyLine(serde_json::Error),
    /// The exact key is not 32 hex digits.
    #[error("exact {0:?} is not 32 hex digits")]
    Exact(String),
    /// A signature where the recipe's dedup has near dedup off.
    #[error("a signature, but the recipe's dedup has near dedup off")]
    SignatureWithoutNear,
    /// A signature whose length does not fit the recipe's `num_perm`.
    #[error("signature of {digits} hex digits; the recipe's num_perm {num_perm} needs {}", num_perm * 8)]
    SignatureLength {
        /// Its length.
        digits: usize,
        /// The recipe's `num_perm` (8 hex digits a value).
        num_perm: usize,
    },
    /// The signature's value at this index is not hex.
    #[error("signature value {0} is not hex")]
    SignatureValue(usize),
}

impl KeyLine {
    /// The keys of a record's text under `deduper` (the stage's).
    pub fn new(deduper: &Deduper, id: &str, at: [u64; 4], text: &str) -> Self {
        let k = deduper.keys(text);
        KeyLine {
            id: id.to_string(),
            at,
            exact: exact_hex(&k),
            meet: meet_keys(deduper, &k),
            sig: k
                .sig
                .map(|s| s.iter().map(|v| format!("{v:08x}")).collect()),
        }
    }

    /// A key line as `stage --dedup-keys` writes it (tagged `{"dedup":{...}}`) or bare.
    pub fn parse(line: &str) -> Result<Self, KeyLineError> {
        #[derive(serde::Deserialize)]
        struct Tagged {
            dedup: KeyLine,
        }
        match serde_json::from_str::<Tagged>(line) {
            Ok(t) => Ok(t.dedup),
            Err(_) => serde_json::from_str::<KeyLine>(line).map_err(KeyLineError::NotAKeyLine),
        }
    }

    /// The keys back, checked against the stage's settings.
    fn keys(&self, num_perm: Option<usize>) -> Result<TextKeys, KeyLineError> {
        let hex64 = |s: &str| u64::from_str_radix(s, 16).ok();
        let exact = match (self.exact.len(), self.exact.get(..16), self.exact.get(16..)) {
            (32, Some(a), Some(b)) => hex64(a).zip(hex64(b)),
            _ => None,
        }
        .ok_or_else(|| KeyLineError::Exact(self.exact.clone()))?;
        let sig = match (&self.sig, num_perm) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(KeyLineError::SignatureWithoutNear);
            }
            (Some(s), Some(n)) => {
                if s.len() != n * 8 || !s.is_ascii() {
                    return Err(KeyLineError::SignatureLength {
                        digits: s.len(),
                        num_perm: n,
                    });
                }
                let mut v = Vec::with_capacity(n);
                for i in 0..n {
                    v.push(
                        u32::from_str_radix(&s[i * 8..i * 8 + 8], 16)
                            .map_err(|_| KeyLineError::SignatureValue(i))?,
                    );
                }
                Some(v)
            }
        };
        Ok(TextKeys { exact, sig })
    }
}

/// A text's exact key as a key line writes it: 32 hex digits.
fn exact_hex(k: &TextKeys) -> String {
    format!("{:016x}{:016x}", k.exact.0, k.exact.1)
}

/// A text's meeting keys as a key line writes them: `x` and 24 hex digits for the exact
/// key, `b` and 16 for each band.
fn meet_keys(deduper: &Deduper, k: &TextKeys) -> Vec<String> {
    let m = deduper.meeting_keys(k);
    let mut meet: Vec<String> = m
        .exact
        .iter()
        .map(|(a, b)| format!("x{a:016x}{b:08x}"))
        .collect();
    meet.extend(m.bands.iter().map(|b| format!("b{b:016x}")));
    meet
}

/// A dedup drop decided elsewhere: `kcurate dedup-verdicts` writes one a line and
/// `kcurate finalise --dedup-verdicts` applies them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictLine {
    /// The dropped record.
    pub id: String,
    /// `dedup.exact` or `dedup.near`.
    pub rule: String,
    /// The kept record it duplicates (the first of its group in input order).
    pub twin: String,
    /// 1 for an exact duplicate, the Jaccard estimate for a near one.
    pub score: f64,
}

/// The records that share a meeting key with another, replayed in input order: the
/// verdict of each that is dropped, as the whole corpus's dedup gives it (see the module
/// doc). `lines` are (line number, key line) from `path`; an error names the line.
pub fn resolve(
    stage: &DedupStage,
    mut lines: Vec<(u64, KeyLine)>,
    path: &str,
) -> Result<Vec<VerdictLine>, VerdictsError> {
    let err = |line: u64, message: String| VerdictsError {
        path: path.to_string(),
        line,
        message,
    };
    lines.sort_by_key(|(_, k)| k.at);
    let mut ids: BTreeMap<&str, u64> = BTreeMap::new();
    for w in lines.windows(2) {
        if w[0].1.at == w[1].1.at {
            return Err(err(
                w[1].0,
                format!("the same place {:?} as line {}", w[1].1.at, w[0].0),
            ));
        }
    }
    for (n, k) in &lines {
        if let Some(first) = ids.insert(&k.id, *n) {
            return Err(err(
                *n,
                format!("record {:?} again (first at line {first})", k.id),
            ));
        }
    }
    let num_perm = stage.near.map(|n| n.num_perm);
    let mut replay = Replay::new(stage);
    for (n, k) in &lines {
        let keys = k.keys(num_perm).map_err(|m| err(*n, m.to_string()))?;
        replay.offer(&k.id, &keys);
    }
    Ok(replay.drops)
}

/// Records offered to the stage's index in input order, and the drops it makes.
struct Replay<'a> {
    index: Deduper,
    kept: Vec<&'a str>,
    drops: Vec<VerdictLine>,
}

impl<'a> Replay<'a> {
    fn new(stage: &DedupStage) -> Self {
        Replay {
            index: stage.deduper(),
            kept: Vec::new(),
            drops: Vec::new(),
        }
    }

    fn offer(&mut self, id: &'a str, keys: &TextKeys) {
        let (rule, twin, score) = match self.index.offer_keys(keys) {
            Verdict::Keep => {
                self.kept.push(id);
                return;
            }
            Verdict::Exact { twin } => ("dedup.exact", twin, 1.0),
            Verdict::Near { twin, score } => ("dedup.near", twin, score),
        };
        self.drops.push(VerdictLine {
            id: id.to_string(),
            rule: rule.into(),
            twin: self.kept[twin].to_string(),
            score,
        });
    }
}

/// A key or verdicts file that cannot be used: the file, the line, what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct VerdictsError {
    /// The file.
    pub path: String,
    /// 1-based line (0: the file as a whole).
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// One verdict as read: its line, the twin, and `Some(score)` for a near duplicate.
#[derive(Debug, Clone)]
struct Read {
    line: u64,
    twin: String,
    near: Option<f64>,
}

/// A verdicts file, read and checked line by line against the stage's settings; checked
/// against the records with [`check`](Self::check) before it replaces the stage.
#[derive(Debug)]
pub struct DedupVerdicts {
    path: String,
    by_id: BTreeMap<String, Read>,
}

impl DedupVerdicts {
    /// Reads `path`: one [`VerdictLine`] a line. A line that is no verdict, a rule the
    /// stage's settings cannot give (an exact drop with exact dedup off, a near drop
    /// below the threshold), a score out of range, a record dropped as its own twin or
    /// twice is an error naming the line.
    pub fn read(path: &Path, stage: &DedupStage) -> Result<Self, VerdictsError> {
        let shown = path.display().to_string();
        let err = |line: u64, message: String| VerdictsError {
            path: shown.clone(),
            line,
            message,
        };
        let f = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
        let mut by_id: BTreeMap<String, Read> = BTreeMap::new();
        for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
            let n = i as u64 + 1;
            let line = line.map_err(|e| err(n, e.to_string()))?;
            if line.trim().is_empty() {
                continue;
            }
            let v: VerdictLine =
                serde_json::from_str(&line).map_err(|e| err(n, format!("not a verdict: {e}")))?;
            let near = match v.rule.as_str() {
                "dedup.exact" if !stage.exact => {
                    return Err(err(
                        n,
                        "an exact drop, but the recipe's dedup has exact = false".into(),
                    ));
                }
                "dedup.exact" if v.score != 1.0 => {
                    return Err(err(n, format!("an exact drop scores 1, not {}", v.score)));
                }
                "dedup.exact" => None,
                "dedup.near" if stage.near.is_none() => {
                    return Err(err(
                        n,
                        "a near drop, but the recipe's dedup has near = false".into(),
                    ));
                }
                "dedup.near" if !(stage.threshold()..=1.0).contains(&v.score) => {
                    return Err(err(
                        n,
                        format!(
                            "a near drop scoring {}, outside the recipe's threshold {} to 1",
                            v.score,
                            stage.threshold()
                        ),
                    ));
                }
                "dedup.near" => Some(v.score),
                other => {
                    return Err(err(
                        n,
                        format!("rule {other:?}: a verdict is dedup.exact or dedup.near"),
                    ));
                }
            };
            if v.id == v.twin {
                return Err(err(n, format!("record {:?} named as its own twin", v.id)));
            }
            if let Some(first) = by_id.get(&v.id) {
                return Err(err(
                    n,
                    format!(
                        "record {:?} dropped again (first at line {})",
                        v.id, first.line
                    ),
                ));
            }
            by_id.insert(
                v.id,
                Read {
                    line: n,
                    twin: v.twin,
                    near,
                },
            );
        }
        Ok(DedupVerdicts { path: shown, by_id })
    }

    /// Number of drops.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when nothing is dropped.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Checks the verdicts against the ids the stage is given, in input order: every
    /// verdict names one of them, and its twin is one that came before it and is kept.
    /// The error names the verdict's line.
    pub fn check<'a>(&self, ids: impl Iterator<Item = &'a str>) -> Result<(), VerdictsError> {
        let err = |line: u64, message: String| VerdictsError {
            path: self.path.clone(),
            line,
            message,
        };
        let twins: BTreeSet<&str> = self.by_id.values().map(|r| r.twin.as_str()).collect();
        let mut kept_twins: BTreeSet<&str> = BTreeSet::new();
        let mut found: BTreeSet<&str> = BTreeSet::new();
        for id in ids {
            match self.by_id.get_key_value(id) {
                Some((id, r)) => {
                    found.insert(id.as_str());
                    if !kept_twins.contains(r.twin.as_str()) {
                        return Err(err(
                            r.line,
                            format!(
                                "{id} is dropped as a duplicate of {}, which is not a record kept before it",
                                r.twin
                            ),
                        ));
                    }
                }
                None => {
                    if let Some(t) = twins.get(id) {
                        kept_twins.insert(t);
                    }
                }
            }
        }
        if found.len() < self.by_id.len() {
            let unknown = self
                .by_id
                .iter()
                .filter(|(id, _)| !found.contains(id.as_str()))
                .min_by_key(|(_, r)| r.line)
                .expect("fewer found than verdicts");
            return Err(err(
                unknown.1.line,
                format!(
                    "a verdict for {}, which is not a record dedup is given (unknown id; {} such verdict(s))",
                    unknown.0,
                    self.by_id.len() - found.len()
                ),
            ));
        }
        Ok(())
    }

    /// The stage that applies the verdicts in place of dedup.
    pub fn stage(&self) -> DecidedDedup {
        DecidedDedup {
            by_id: self
                .by_id
                .iter()
                .map(|(id, r)| (id.clone(), (r.twin.clone(), r.near)))
                .collect(),
        }
    }
}

/// The dedup stage with its verdicts decided elsewhere: the records it is given, kept or
/// dropped as the verdicts say, with the decisions dedup writes (same rule, detail, score).
pub struct DecidedDedup {
    by_id: BTreeMap<String, (String, Option<f64>)>,
}

impl CorpusStage for DecidedDedup {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        for rec in recs {
            match self.by_id.get(&rec.id) {
                Some((twin, near)) => drop_duplicate(out, rec, twin, *near),
                None => out.keep(rec),
            }
        }
    }
}
