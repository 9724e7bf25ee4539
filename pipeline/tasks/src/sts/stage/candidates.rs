//! The `sts` stage's candidate pairs: intent groups (paraKQC), Greedy Sentence Matching and
//! round-trip translations, in the order the stage numbers them (`sts-00000`, ...).

use super::StsStage;
use crate::gsm::{match_fast, prepare};
use crate::rouge::{Metric, score, syllables};
use crate::sts::sim::Relation;
use kcurate_core::Record;
use kcurate_core::hash::seeded_u64;
use std::collections::BTreeMap;

pub(super) struct Candidate {
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) source: String,
    /// How the pair was made: picks the simulator's map.
    pub(super) relation: Relation,
    /// Text of sentence2 when it is a translation rather than another record.
    pub(super) translation: Option<String>,
}

impl StsStage {
    /// Every candidate pair: intent pairs, then GSM pairs per GSM source, then round-trip
    /// translations.
    pub(super) fn candidates(&self, recs: &[Record]) -> Vec<Candidate> {
        let mut out = self.intent_pairs(recs);
        // Greedy sentence matching within each GSM source.
        for src in &self.cfg.gsm_sources {
            let idx: Vec<usize> = (0..recs.len())
                .filter(|&i| recs[i].source == *src)
                .collect();
            let texts: Vec<&str> = idx.iter().map(|&i| recs[i].text.as_str()).collect();
            let (pairs, _) =
                match_fast(&prepare(&texts, Metric::Rouge1), Metric::Rouge1, self.seed);
            for (a, b, _) in pairs {
                out.push(Candidate {
                    a: idx[a],
                    b: idx[b],
                    source: format!("{src}-sampled"),
                    relation: Relation::Sampled,
                    translation: None,
                });
            }
        }
        // Round-trip translations.
        for (i, r) in recs.iter().enumerate() {
            if let Some(t) = self.rtt.get(&r.id) {
                out.push(Candidate {
                    a: i,
                    b: i,
                    source: format!("{}-rtt", r.source),
                    relation: Relation::Rtt,
                    translation: Some(t.clone()),
                });
            }
        }
        out
    }

    /// Pairs from intent groups (see [`Self::intent_groups`]), per
    /// intent in order: similar (`paraKQC-para`), less similar (`paraKQC-sampled`) and
    /// unrelated (`paraKQC-random`).
    fn intent_pairs(&self, recs: &[Record]) -> Vec<Candidate> {
        let mut out = Vec::new();
        let intents = self.intent_groups(recs);
        let topic = |i: usize| {
            recs[i]
                .fields
                .get("topic")
                .map(|t| t.to_string())
                .unwrap_or_default()
        };
        let keys: Vec<&(String, u64)> = intents.keys().collect();
        for (k, key) in keys.iter().enumerate() {
            let members = &intents[*key];
            // Similar: consecutive utterances of the intent.
            for w in members.windows(2).take(self.cfg.max_para_per_intent) {
                out.push(Candidate {
                    a: w[0],
                    b: w[1],
                    source: "paraKQC-para".into(),
                    relation: Relation::Para,
                    translation: None,
                });
            }
            // Less similar: the next intents of the same topic, the j-th with utterances j
            // from the end of this intent and j from the start of the other.
            for (j, other) in keys[k + 1..]
                .iter()
                .filter(|o| o.0 == key.0 && topic(intents[**o][0]) == topic(members[0]))
                .take(self.cfg.sampled_per_intent)
                .enumerate()
            {
                let (a, b) = self.sampled_pair(recs, members, &intents[*other], j);
                out.push(Candidate {
                    a,
                    b,
                    source: "paraKQC-sampled".into(),
                    relation: Relation::Sampled,
                    translation: None,
                });
            }
            // Unrelated: seeded intents of another topic.
            for j in 0..self.cfg.random_per_intent {
                let h = seeded_u64(self.seed, format!("random\t{k}\t{j}").as_bytes());
                let other = (0..keys.len())
                    .map(|d| keys[(h as usize + d) % keys.len()])
                    .find(|o| o.0 == key.0 && topic(intents[*o][0]) != topic(members[0]));
                if let Some(o) = other {
                    let o = &intents[o];
                    out.push(Candidate {
                        a: members[(h >> 32) as usize % members.len()],
                        b: o[(h >> 16) as usize % o.len()],
                        source: "paraKQC-random".into(),
                        relation: Relation::Sampled,
                        translation: None,
                    });
                }
            }
        }
        out
    }

    /// Intent groups: (source, intent) → record indices in input order. The intent is the
    /// source's intent map's, else the line's block of `intent_block` lines; a line the map
    /// does not name is in no intent (it leaves as `sts.unpaired`).
    fn intent_groups(&self, recs: &[Record]) -> BTreeMap<(String, u64), Vec<usize>> {
        let mut last_line: BTreeMap<&str, u64> = BTreeMap::new();
        for r in recs {
            let l = last_line.entry(r.source.as_str()).or_default();
            *l = (*l).max(r.origin.line);
        }
        let mut intents: BTreeMap<(String, u64), Vec<usize>> = BTreeMap::new();
        for (i, r) in recs.iter().enumerate() {
            if !self.cfg.intent_sources.contains(&r.source) || r.origin.line == 0 {
                continue;
            }
            let intent = match self.intent_maps.get(&r.source) {
                Some(m) => m.intent(r.origin.line, last_line[r.source.as_str()]),
                None => Some((r.origin.line - 1) / self.cfg.intent_block.max(1)),
            };
            if let Some(intent) = intent {
                intents
                    .entry((r.source.clone(), intent))
                    .or_default()
                    .push(i);
            }
        }
        intents
    }

    /// The `j`-th less similar pair of an intent (`members`) with another intent of its
    /// topic (`o`): with `sampled_most_similar` the two utterances with the highest ROUGE-1
    /// (the first such pair in input order on a tie), else utterance j from the end of this
    /// intent and j from the start of the other.
    fn sampled_pair(
        &self,
        recs: &[Record],
        members: &[usize],
        o: &[usize],
        j: usize,
    ) -> (usize, usize) {
        if !self.cfg.sampled_most_similar {
            return (
                members[members.len() - 1 - j % members.len()],
                o[j % o.len()],
            );
        }
        let mut best = (members[0], o[0]);
        let mut top = None;
        for &x in members {
            let sx = syllables(&recs[x].text);
            for &y in o {
                let f = score(Metric::Rouge1, &sx, &syllables(&recs[y].text));
                if top.is_none_or(|t: crate::rouge::Frac| {
                    f.cmp_exact(t) == std::cmp::Ordering::Greater
                }) {
                    top = Some(f);
                    best = (x, y);
                }
            }
        }
        best
    }
}
