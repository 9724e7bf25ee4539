//! Verdicts held against the records they judge: `finalise` sees every record dedup is
//! given and its key line, so it finds the records whose keys collide, replays them in
//! input order (as [`resolve`](super::resolve) does) from keys recomputed from their texts, and requires the
//! verdicts to be exactly the drops that replay gives. An emptied or cut verdicts file
//! leaves a drop without its verdict; a forged verdict names two texts that do not collide
//! as it says; a key line edited to fit one no longer matches its record's text.

use super::{DedupStage, DedupVerdicts, Replay, VerdictLine, VerdictsError, exact_hex};
use crate::dedup::jaccard_estimate;
use std::collections::BTreeMap;

/// A record dedup is given, as `finalise` read it from a part.
pub struct Claimed<'a> {
    /// The record id.
    pub id: &'a str,
    /// Its text (what dedup keys).
    pub text: &'a str,
    /// The part it was read from.
    pub part: &'a str,
    /// Its line there.
    pub line: u64,
    /// Its key line in the same part, when the part has one.
    pub key: Option<ClaimedKey<'a>>,
}

/// What a record's key line claims (`stage --dedup-keys`).
pub struct ClaimedKey<'a> {
    /// The key line's line in the part.
    pub line: u64,
    /// Its place in input order.
    pub at: [u64; 4],
    /// The hash of its dedup key, 32 hex digits.
    pub exact: &'a str,
    /// The keys a shuffle groups it by, as numbers (an exact key tagged with the top bit,
    /// see [`meet_codes`]).
    pub meet: &'a [u128],
}

impl DedupVerdicts {
    /// Checks that the verdicts are exactly the drops dedup makes of `given` (the records
    /// the stage is given, in input order, each with its key line): every verdict's texts
    /// collide as it says, and every record the replay drops has its verdict. The error
    /// names the verdict's line, or the part and line of the record whose verdict is
    /// missing or whose key line does not match its text.
    pub fn account(&self, stage: &DedupStage, given: &[Claimed]) -> Result<(), VerdictsError> {
        let keyed = key_lines(given)?;
        let deduper = stage.deduper();
        // Given in input order: the colliding records are offered as they come, each keyed
        // from its text, which its key line must match.
        let mut replay = Replay::new(stage);
        for (g, k) in colliding(&keyed) {
            let keys = deduper.keys(g.text);
            let (exact, meet) = (exact_hex(&keys), meet_codes(&deduper, &keys));
            if exact != k.exact || meet != k.meet {
                return Err(VerdictsError {
                    path: g.part.to_string(),
                    line: k.line,
                    message: format!(
                        "the key line of {} does not match its text (exact key {}, the text's {exact}): an edited part",
                        g.id, k.exact
                    ),
                });
            }
            replay.offer(g.id, &keys);
        }
        self.same_as(stage, &replay.drops, given)
    }

    /// The verdicts against the replay's `drops`: one for one, the same rule, twin and score.
    fn same_as(
        &self,
        stage: &DedupStage,
        drops: &[VerdictLine],
        given: &[Claimed],
    ) -> Result<(), VerdictsError> {
        let by_id: BTreeMap<&str, &Claimed> = given.iter().map(|g| (g.id, g)).collect();
        let expected: BTreeMap<&str, &VerdictLine> =
            drops.iter().map(|d| (d.id.as_str(), d)).collect();
        let mut read: Vec<(&String, &super::Read)> = self.by_id.iter().collect();
        read.sort_by_key(|(_, r)| r.line);
        for (id, r) in read {
            let err = |message| VerdictsError {
                path: self.path.clone(),
                line: r.line,
                message,
            };
            let (rule, score) = match r.near {
                Some(s) => ("dedup.near", s),
                None => ("dedup.exact", 1.0),
            };
            match expected.get(id.as_str()) {
                Some(e) if e.rule == rule && e.twin == r.twin && e.score == score => {}
                Some(e) => {
                    return Err(err(format!(
                        "{id} is dropped as {rule} of {} (score {score}); dedup drops it as {} of {} (score {})",
                        r.twin, e.rule, e.twin, e.score
                    )));
                }
                None => return Err(err(why_kept(stage, &by_id, id, rule, &r.twin, score))),
            }
        }
        let missing: Vec<&VerdictLine> = drops
            .iter()
            .filter(|d| !self.by_id.contains_key(&d.id))
            .collect();
        let Some(first) = missing.first() else {
            return Ok(());
        };
        let g = by_id[first.id.as_str()];
        Err(VerdictsError {
            path: g.part.to_string(),
            line: g.line,
            message: format!(
                "dedup drops {} as {} of {} (score {}), but {} has no verdict for it ({} of {} drop(s) without a verdict: an emptied or cut verdicts file?)",
                first.id,
                first.rule,
                first.twin,
                first.score,
                self.path,
                missing.len(),
                drops.len()
            ),
        })
    }
}

/// A text's meeting keys as [`ClaimedKey::meet`] holds them: what a key line writes as
/// `x` and 24 hex digits (the exact key) with the top bit set, a band key as it is.
pub fn meet_codes(deduper: &crate::dedup::Deduper, k: &crate::dedup::TextKeys) -> Vec<u128> {
    let m = deduper.meeting_keys(k);
    let exact = m
        .exact
        .map(|(a, b)| 1 << 127 | u128::from(a) << 32 | u128::from(b));
    exact
        .into_iter()
        .chain(m.bands.iter().map(|&b| u128::from(b)))
        .collect()
}

/// Each record with its key line; a record without one is an error naming it.
fn key_lines<'g, 'a>(
    given: &'g [Claimed<'a>],
) -> Result<Vec<(&'g Claimed<'a>, &'g ClaimedKey<'a>)>, VerdictsError> {
    given
        .iter()
        .map(|g| match &g.key {
            Some(k) => Ok((g, k)),
            None => Err(VerdictsError {
                path: g.part.to_string(),
                line: g.line,
                message: format!(
                    "record {} has no key line: dedup's verdicts are checked against the parts' key lines (stage the parts with `kcurate stage --before-corpus --dedup-keys` and keep the key lines in them)",
                    g.id
                ),
            }),
        })
        .collect()
}

/// The records that share a meeting key with another record, in input order.
fn colliding<'g, 'a>(
    keyed: &[(&'g Claimed<'a>, &'g ClaimedKey<'a>)],
) -> Vec<(&'g Claimed<'a>, &'g ClaimedKey<'a>)> {
    let mut count: BTreeMap<u128, u32> = BTreeMap::new();
    for (_, k) in keyed {
        for &m in k.meet {
            *count.entry(m).or_default() += 1;
        }
    }
    keyed
        .iter()
        .filter(|(_, k)| k.meet.iter().any(|m| count[m] > 1))
        .copied()
        .collect()
}

/// Why a verdict dedup does not make is wrong, from the two texts it names.
fn why_kept(
    stage: &DedupStage,
    by_id: &BTreeMap<&str, &Claimed>,
    id: &str,
    rule: &str,
    twin: &str,
    score: f64,
) -> String {
    let said = format!("{id} is dropped as {rule} of {twin} (score {score})");
    let (Some(a), Some(b)) = (by_id.get(id), by_id.get(twin)) else {
        return format!("{said}, but dedup keeps it");
    };
    let d = stage.deduper();
    let (ka, kb) = (d.keys(a.text), d.keys(b.text));
    if rule == "dedup.exact" && ka.exact != kb.exact {
        return format!(
            "{said}, but their texts differ: their dedup keys hash to {:016x}{:016x} and {:016x}{:016x}",
            ka.exact.0, ka.exact.1, kb.exact.0, kb.exact.1
        );
    }
    if rule == "dedup.near" {
        let (Some(sa), Some(sb)) = (&ka.sig, &kb.sig) else {
            return format!("{said}, but one of the texts is too short for near dedup");
        };
        let estimate = jaccard_estimate(sa, sb);
        if estimate != score {
            return format!("{said}, but their texts' Jaccard estimate is {estimate}");
        }
    }
    format!(
        "{said}, but dedup keeps it: replayed in input order, no kept record before it matches it"
    )
}
