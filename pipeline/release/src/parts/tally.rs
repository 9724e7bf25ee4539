//! What a part's lines add up to, checked against the books its stats line claims, and the
//! items seen across parts: a part whose stats line was edited, a record injected into a
//! part, or a part given twice is refused instead of released.
//!
//! The books of a part are those of one `kcurate stage` process (`runner::run_chain`): each
//! item a stage takes in is dropped with exactly one drop decision or passed on as one or
//! more items (the split stage's sentences), each decision is counted under its rule, and a
//! stage takes in what the stage before it passed on. So, per stage: its rules' counts are
//! the part's decisions of that stage, `dropped` is their drops, `items_in ≤ items_out +
//! dropped`; the last stage passes on the part's records; and the first takes in at least
//! one item per input place the part's records and decisions come from.

use super::{Key, LineAt, NamedStats, Problem};
use kcurate_core::stage::RuleCount;
use kcurate_core::{Action, Decision};
use std::collections::{BTreeMap, BTreeSet};

/// The lines of the part being read, counted as its stats line should count them.
#[derive(Default)]
pub(super) struct Tally {
    records: u64,
    /// Per stage name, per rule, the part's decisions by action.
    rules: BTreeMap<String, BTreeMap<String, RuleCount>>,
    /// The input places (source, file, line) the part's records and decisions come from.
    places: BTreeSet<Key>,
}

impl Tally {
    pub(super) fn record(&mut self, place: Key) {
        self.records += 1;
        self.places.insert(place);
    }

    pub(super) fn decision(&mut self, d: &Decision, place: Key) {
        let c = self
            .rules
            .entry(d.stage.clone())
            .or_default()
            .entry(d.rule.as_str().to_string())
            .or_default();
        match d.action {
            Action::Drop => c.drop += 1,
            Action::Edit => c.edit += 1,
            Action::Flag => c.flag += 1,
        }
        self.places.insert(place);
    }

    /// The stats line against the lines; the message says which count disagrees.
    pub(super) fn check(&self, stats: &[NamedStats]) -> Result<(), Problem> {
        if let Some(stage) = self
            .rules
            .keys()
            .find(|s| !stats.iter().any(|n| &n.name == *s))
        {
            return Err(Problem::UnnamedStage {
                stage: stage.clone(),
            });
        }
        let none = BTreeMap::new();
        for (i, n) in stats.iter().enumerate() {
            let s = &n.stats;
            let counted = self.rules.get(&n.name).unwrap_or(&none);
            let claimed: BTreeMap<&String, &RuleCount> = s
                .rules
                .iter()
                .filter(|(_, c)| **c != RuleCount::default())
                .collect();
            if claimed != counted.iter().collect::<BTreeMap<_, _>>() {
                return Err(Problem::RuleCounts {
                    stage: n.name.clone(),
                    claimed: total(claimed.values().copied()),
                    held: total(counted.values()),
                });
            }
            let drops: u64 = counted.values().map(|c| c.drop).sum();
            if s.dropped != drops {
                return Err(Problem::Drops {
                    stage: n.name.clone(),
                    claimed: s.dropped,
                    held: drops,
                });
            }
            // Saturating: a stats line may claim any u64, and a claim past u64 is refused
            // by the count of the part's records below, not by an overflow.
            if s.items_in > s.items_out.saturating_add(s.dropped) || s.dropped > s.items_in {
                return Err(Problem::Unbalanced {
                    stage: n.name.clone(),
                    items_in: s.items_in,
                    items_out: s.items_out,
                    dropped: s.dropped,
                });
            }
            if let Some(before) = i.checked_sub(1).map(|j| &stats[j]) {
                if s.items_in != before.stats.items_out {
                    return Err(Problem::Unchained {
                        stage: n.name.clone(),
                        items_in: s.items_in,
                        before: before.name.clone(),
                        passed: before.stats.items_out,
                    });
                }
            } else if s.items_in < self.places.len() as u64 {
                return Err(Problem::TooFewIn {
                    stage: n.name.clone(),
                    items_in: s.items_in,
                    places: self.places.len(),
                });
            }
        }
        if let Some(last) = stats.last()
            && last.stats.items_out != self.records
        {
            return Err(Problem::Records {
                stage: last.name.clone(),
                claimed: last.stats.items_out,
                held: self.records,
            });
        }
        Ok(())
    }
}

/// Saturating: the counts a stats line claims may be any u64, and only go into a message.
fn total<'a>(counts: impl Iterator<Item = &'a RuleCount>) -> u64 {
    counts.fold(0, |t, c| {
        t.saturating_add(c.drop)
            .saturating_add(c.edit)
            .saturating_add(c.flag)
    })
}

/// Every item the parts have put out (a record) or dropped so far, and where: an item
/// comes out of one partition once, so a second sighting is a part given twice or
/// partitions that overlap.
#[derive(Default)]
pub(super) struct Seen {
    at: BTreeMap<String, LineAt>,
}

impl Seen {
    pub(super) fn once(
        &mut self,
        id: &str,
        what: &'static str,
        at: LineAt,
        parts: &[String],
    ) -> Result<(), Problem> {
        if let Some(first) = self.at.get(id) {
            return Err(Problem::Twice {
                what,
                id: id.to_string(),
                first: format!("{}:{}", parts[first.part], first.line),
            });
        }
        self.at.insert(id.to_string(), at);
        Ok(())
    }
}
