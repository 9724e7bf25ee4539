//! The executor's unit: a segment, a run of per-record stages between whole-corpus stages
//! (or the ends of the recipe), and the plan of a recipe as segments and corpus stages,
//! computed once. Every path that runs per-record stages (reading the sources, the
//! records after a corpus stage, an online stage's survivors, `kcurate stage`) runs them
//! through [`Segment::run_record`] or [`Segment::run`], and counts them through
//! [`Books::add_segment`].

use super::*;

/// The per-record stages `planned[start..end]` (none when `start == end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub(super) start: usize,
    pub(super) end: usize,
}

/// What a segment made of a record, or of a chunk of records (in input order).
#[derive(Default)]
pub(super) struct SegmentOut {
    /// The records that came out of the last stage.
    pub(super) records: Vec<Record>,
    /// Every stage's decisions, in the order they were made.
    pub(super) decisions: Vec<Decision>,
    /// One entry per stage of the segment.
    pub(super) stats: Vec<StageStats>,
}

/// The plan of a recipe: where its whole-corpus stages are, and the segments between them.
pub(super) struct Plan<'p> {
    pub(super) planned: &'p [Planned],
    /// The place of the first whole-corpus stage (`planned.len()` when there is none).
    pub(super) first_corpus: usize,
}

impl<'p> Plan<'p> {
    /// The plan of the built stages `planned`.
    pub(super) fn new(planned: &'p [Planned]) -> Self {
        Plan {
            planned,
            first_corpus: next_corpus(planned, 0),
        }
    }

    /// Whether the stage at `at` is a whole-corpus stage.
    pub(super) fn is_corpus(&self, at: usize) -> bool {
        is_corpus(&self.planned[at])
    }

    /// The leading segment: the stages before the first whole-corpus stage.
    pub(super) fn leading(&self) -> Segment {
        Segment {
            start: 0,
            end: self.first_corpus,
        }
    }

    /// Every stage of the recipe is per-record: rows are written as they come.
    pub(super) fn all_streaming(&self) -> bool {
        self.first_corpus == self.planned.len()
    }

    /// The segment that starts at `start`: up to the next whole-corpus stage.
    pub(super) fn segment_from(&self, start: usize) -> Segment {
        Segment {
            start,
            end: next_corpus(self.planned, start),
        }
    }

    /// Whether `segment` runs to the end of the recipe (its records are the rows).
    pub(super) fn is_last(&self, segment: Segment) -> bool {
        segment.end == self.planned.len()
    }
}

fn is_corpus(p: &Planned) -> bool {
    matches!(p.stage, BuiltStage::Corpus(_))
}

/// The place of the first whole-corpus stage at or after `from` (the end when none).
fn next_corpus(planned: &[Planned], from: usize) -> usize {
    planned[from..]
        .iter()
        .position(is_corpus)
        .map_or(planned.len(), |k| from + k)
}

/// The first whole-corpus stage of `planned`, if any (for `kcurate stage`, which runs none).
pub(super) fn first_corpus_stage(planned: &[Planned]) -> Option<&Planned> {
    planned.iter().find(|p| is_corpus(p))
}

impl Segment {
    /// The places of its stages in the plan.
    pub(super) fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }

    /// Its stages.
    pub(super) fn stages(self, planned: &[Planned]) -> &[Planned] {
        &planned[self.range()]
    }

    /// Runs a chunk of records through the segment on `pool`, a record per task; the
    /// results are merged in input order. `done` is told how many records have been taken.
    pub(super) fn run(
        self,
        chunk: Vec<Record>,
        planned: &[Planned],
        run: &Run,
        done: &(dyn Fn(u64) + Sync),
    ) -> Result<SegmentOut, RunError> {
        let stages = self.stages(planned);
        let taken = std::sync::atomic::AtomicU64::new(0);
        let results: Vec<Result<SegmentOut, RunError>> = run.pool.install(|| {
            chunk
                .into_par_iter()
                .map_init(ChainScratch::default, |scratch, r| {
                    let n = taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    done(n);
                    run_record(r, stages, run.sources, scratch)
                })
                .collect()
        });
        let mut all = SegmentOut {
            stats: vec![StageStats::default(); stages.len()],
            ..SegmentOut::default()
        };
        for r in results {
            let out = r?;
            for (s, x) in all.stats.iter_mut().zip(&out.stats) {
                *s += x;
            }
            all.decisions.extend(out.decisions);
            all.records.extend(out.records);
        }
        Ok(all)
    }

    /// Runs one record through the segment (see [`run_record`]).
    pub(super) fn run_record(
        self,
        rec: Record,
        planned: &[Planned],
        sources: &BTreeMap<String, SourceInfo>,
        scratch: &mut ChainScratch,
    ) -> Result<SegmentOut, RunError> {
        run_record(rec, self.stages(planned), sources, scratch)
    }
}

/// One `Out` per stage of a segment, reused record after record by one worker (a new `Out`
/// per record and stage allocated its name and buffers each time).
#[derive(Default)]
pub(super) struct ChainScratch {
    pub(super) outs: Vec<Out>,
}

impl ChainScratch {
    fn outs(&mut self, stages: &[Planned]) -> &mut [Out] {
        let fits = self.outs.len() == stages.len()
            && self
                .outs
                .iter()
                .zip(stages)
                .all(|(o, p)| o.stage() == p.name);
        if !fits {
            self.outs = stages.iter().map(|p| Out::new(p.name.clone())).collect();
        }
        &mut self.outs
    }
}

/// Runs one record through the per-record stages `stages`: its outputs, the decisions and
/// per-stage stats, each stage checked to keep or drop every record it is given.
pub(super) fn run_record(
    rec: Record,
    stages: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    scratch: &mut ChainScratch,
) -> Result<SegmentOut, RunError> {
    let mut current = vec![rec];
    let mut decisions = Vec::new();
    let mut stats = vec![StageStats::default(); stages.len()];
    let outs = scratch.outs(stages);
    for ((p, out), st) in stages.iter().zip(outs.iter_mut()).zip(stats.iter_mut()) {
        let BuiltStage::Record(stage) = &p.stage else {
            unreachable!("a segment holds per-record stages only")
        };
        let mut next = Vec::with_capacity(current.len());
        for r in current {
            st.items_in += 1;
            st.unit_in_of(r.kind);
            if !p.applies(&r, sources) {
                st.items_out += 1;
                st.unit_out_of(r.kind);
                next.push(r);
                continue;
            }
            let id = r.id.clone();
            let (kept_from, decided_from) = (next.len(), decisions.len());
            stage.apply(r, out);
            let dropped = out.drain_into(&mut next, &mut decisions);
            let kept = next.len() - kept_from;
            if dropped > 1 || (dropped == 1) != (kept == 0) {
                return Err(RunError::Conservation {
                    stage: p.name.clone(),
                    message: format!(
                        "item {id}: kept {kept} and dropped {dropped}; exactly one of them must happen"
                    ),
                });
            }
            for d in &decisions[decided_from..] {
                st.count(d);
            }
            st.dropped += dropped;
            st.items_out += kept as u64;
            if let Some(k) = next.get(kept_from) {
                st.unit_out_of(k.kind);
            }
        }
        current = next;
    }
    Ok(SegmentOut {
        records: current,
        decisions,
        stats,
    })
}

/// A segment's results into the run: its books counted, its decisions written (through the
/// release's scrubber). Returns its records for the caller's target.
pub(super) fn absorb(
    segment: Segment,
    out: SegmentOut,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<Vec<Record>, RunError> {
    books.add_segment(segment, &out.stats);
    for d in &out.decisions {
        release.write_decision(d)?;
    }
    Ok(out.records)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drops the records whose id ends in an odd digit.
    struct DropOdd;

    impl kcurate_core::Stage for DropOdd {
        fn apply(&self, rec: Record, out: &mut Out) {
            let odd = rec.id.ends_with(['1', '3', '5', '7', '9']);
            if odd {
                out.drop(rec, rule("test.odd"), "odd", None);
            } else {
                out.keep(rec);
            }
        }
    }

    fn planned(name: &str, corpus: bool) -> Planned {
        Planned {
            stage: match corpus {
                true => BuiltStage::Corpus(Box::new(NoStage)),
                false => BuiltStage::Record(Box::new(DropOdd)),
            },
            name: name.into(),
            only_sources: None,
            only_styles: None,
            only_domains: None,
        }
    }

    /// The plan finds the segments between corpus stages once; a segment's books land on
    /// its own stages and nowhere else.
    #[test]
    fn segments_lie_between_corpus_stages_and_count_on_their_own_stages() {
        let stages = vec![
            planned("a", false),
            planned("dedup", true),
            planned("b", false),
            planned("c", false),
            planned("split", true),
        ];
        let plan = Plan::new(&stages);
        assert_eq!(plan.leading(), Segment { start: 0, end: 1 });
        assert!(!plan.all_streaming());
        assert!(plan.is_corpus(1) && !plan.is_corpus(2));
        let after = plan.segment_from(2);
        assert_eq!(after, Segment { start: 2, end: 4 });
        assert!(!plan.is_last(after));
        assert!(plan.is_last(plan.segment_from(5)));
        assert_eq!(
            first_corpus_stage(&stages).map(|p| p.name.as_str()),
            Some("dedup")
        );

        let mut books = Books::new(stages.len());
        let mut scratch = ChainScratch::default();
        let sources = BTreeMap::new();
        for id in ["r0", "r1", "r2"] {
            let rec = Record {
                id: id.into(),
                ..Record::default()
            };
            let out = after
                .run_record(rec, &stages, &sources, &mut scratch)
                .unwrap();
            assert_eq!(out.stats.len(), 2);
            books.add_segment(after, &out.stats);
        }
        let counts: Vec<(u64, u64, u64)> = books
            .stages()
            .iter()
            .map(|s| (s.items_in, s.items_out, s.dropped))
            .collect();
        // b drops r1; c sees the two b kept.
        assert_eq!(
            counts,
            [(0, 0, 0), (0, 0, 0), (3, 2, 1), (2, 2, 0), (0, 0, 0)]
        );
        assert_eq!(books.ingest, StageStats::default());
    }
}
