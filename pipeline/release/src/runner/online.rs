//! The streaming form of a run whose first whole-corpus stage has an online form
//! ([`kcurate_core::CorpusStage::online`], dedup's): the first pass offers it each chunk
//! as the leading stages finish it, and spills its survivors in sorted runs and its
//! decisions to disk; the second pass merges the survivors back in id order (the order
//! [`run_corpus`] leaves) through the per-record stages that follow. Only the stage's
//! compact keys stay in memory for the whole corpus. The bytes equal the held path's:
//! same records, same decisions, same order.

use super::keyed::KeyedRun;
use super::memory::Budget;
use super::segment::{Plan, absorb};
use super::spill::{DecisionSpill, Merged, SortedRuns, spill_dir};
use super::*;
use kcurate_core::OnlineStage;

/// Where the first pass puts the leading segment's outputs, as the plan says: the rows
/// (every stage streams), or the first corpus stage's input in the form it takes it.
pub(super) enum Hold<'a> {
    /// Written as rows as they come: no corpus stage follows.
    Write,
    /// Held in memory for the corpus stages.
    Records(Vec<Record>),
    /// Offered to the first corpus stage online.
    Online(Box<OnlineRun<'a>>),
    /// Keyed by the first corpus stage, the records on disk.
    Keyed(Box<KeyedRun<'a>>),
}

impl<'a> Hold<'a> {
    /// Where the corpus stage at `at` takes its records: in its online form when it has one,
    /// else its keyed form, else held; rows written when there is no corpus stage.
    pub(super) fn for_stage(
        plan: &Plan<'a>,
        at: usize,
        release: &ReleaseDir,
        budget: &Budget,
    ) -> Self {
        if at == plan.planned.len() {
            return Hold::Write;
        }
        match OnlineRun::start(plan.planned, at, release, budget) {
            Some(o) => Hold::Online(Box::new(o)),
            None => match KeyedRun::start(plan.planned, at, release, budget) {
                Some(k) => Hold::Keyed(Box::new(k)),
                None => Hold::Records(Vec::new()),
            },
        }
    }

    /// Takes the next outputs, in input order (rows go to the writer elsewhere).
    pub(super) fn take(
        &mut self,
        recs: Vec<Record>,
        run: &Run,
        release: &mut ReleaseDir,
    ) -> Result<(), RunError> {
        match self {
            Hold::Write => Ok(()),
            Hold::Records(held) => {
                held.extend(recs);
                Ok(())
            }
            Hold::Online(o) => o.offer(recs, run.sources, release),
            Hold::Keyed(k) => k.take(recs, run),
        }
    }

    /// The books so far of the online stage, when it is one (for progress).
    pub(super) fn online_stats(&self) -> Option<&StageStats> {
        match self {
            Hold::Write | Hold::Records(_) | Hold::Keyed(_) => None,
            Hold::Online(o) => Some(&o.stats),
        }
    }
}

/// An online corpus stage as the first pass drives it, with its books.
pub(super) struct OnlineRun<'a> {
    /// Its place in the plan.
    at: usize,
    planned: &'a Planned,
    stage: Box<dyn OnlineStage + 'a>,
    out: Out,
    stats: StageStats,
    decisions: DecisionSpill,
    survivors: SortedRuns,
    scrubber: Option<writer::Scrubber>,
}

impl<'a> OnlineRun<'a> {
    /// The stage at `at` in its online form, if it has one.
    pub(super) fn start(
        planned: &'a [Planned],
        at: usize,
        release: &ReleaseDir,
        budget: &Budget,
    ) -> Option<Self> {
        let p = planned.get(at)?;
        let BuiltStage::Corpus(stage) = &p.stage else {
            return None;
        };
        let dir = spill_dir(release);
        Some(OnlineRun {
            at,
            planned: p,
            stage: stage.online()?,
            out: Out::new(p.name.clone()),
            stats: StageStats::default(),
            decisions: DecisionSpill::new(&dir, &p.name, budget.clone()),
            survivors: SortedRuns::new(dir, budget.clone()),
            scrubber: release.scrubber.clone(),
        })
    }

    /// Offers the next records (in input order) to the stage; checks conservation and keeps
    /// the books as [`run_corpus`] does for the whole corpus.
    fn offer(
        &mut self,
        recs: Vec<Record>,
        sources: &BTreeMap<String, SourceInfo>,
        release: &mut ReleaseDir,
    ) -> Result<(), RunError> {
        let p = self.planned;
        let (mine, passed): (Vec<Record>, Vec<Record>) =
            recs.into_iter().partition(|r| p.applies(r, sources));
        self.stats.items_in += (mine.len() + passed.len()) as u64;
        if let Some(r) = mine.first().or(passed.first()) {
            self.stats.unit_in_of(r.kind);
        }
        let in_ids: Vec<String> = mine.iter().map(|r| r.id.clone()).collect();
        self.stage.offer(mine, &mut self.out);
        let (mut kept, mut ds) = (Vec::new(), Vec::new());
        let dropped = self.out.drain_into(&mut kept, &mut ds);
        check_corpus(p, &in_ids, &kept, &ds)?;
        for d in &ds {
            self.stats.count(d);
            let d = writer::scrubbed(self.scrubber.as_ref(), d);
            // Counted now, written after the decisions of the stages before this one.
            release.note_decision(&d);
            self.decisions.push(&d)?;
        }
        self.stats.dropped += dropped;
        self.stats.items_out += (kept.len() + passed.len()) as u64;
        if let Some(r) = kept.first().or(passed.first()) {
            self.stats.unit_out_of(r.kind);
        }
        for r in passed {
            self.survivors.push(r, false)?;
        }
        for r in kept {
            self.survivors.push(r, true)?;
        }
        Ok(())
    }

    /// Ends the first pass: the stage's books and decisions go to the release; returns its
    /// survivors in id order.
    pub(super) fn finish(
        mut self,
        books: &mut Books,
        release: &mut ReleaseDir,
    ) -> Result<Merged, RunError> {
        books.add_metrics(&self.planned.name, self.out.take_metrics());
        books.add_stage(self.at, &self.stats);
        self.decisions.replay(release)?;
        tracing::debug!(
            stage = %self.planned.name,
            records = self.stats.items_out,
            spilled = self.survivors.spilled(),
            "online corpus stage: survivors merged"
        );
        self.survivors.into_merged()
    }
}

/// The second pass: the survivors of the online stage at `at`, in id order, through the
/// segment after it, a chunk at a time on the pool. Their outputs are written when no
/// corpus stage follows; otherwise the next corpus stage takes them in its keyed form, or
/// they are held for it and [`run_rest`] goes on from there.
pub(super) fn stream_after(
    run: &Run,
    plan: &Plan,
    at: usize,
    mut merged: Merged,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(), RunError> {
    let segment = plan.segment_from(at + 1);
    let stages = segment.stages(plan.planned);
    // The first stage after the online one receives its survivors; the others count as
    // their items come.
    let mut meters = Meters::new(
        run.opts.events(),
        stages.iter().map(|p| p.name.as_str()).collect(),
    );
    if !stages.is_empty() {
        meters = meters.with_total(0, books.stage(at).items_out);
    }
    // A corpus stage that follows takes the records in its keyed form if it has one (their
    // keys in memory, the records on disk); otherwise they are held for it.
    let mut hold = match plan.is_last(segment) {
        true => Hold::Write,
        false => match KeyedRun::start(plan.planned, segment.end, release, &run.budget) {
            Some(k) => Hold::Keyed(Box::new(k)),
            None => Hold::Records(Vec::new()),
        },
    };
    loop {
        let chunk = merged
            .by_ref()
            .take(CHUNK * 4)
            .collect::<Result<Vec<Record>, RunError>>()?;
        if chunk.is_empty() {
            break;
        }
        let out = segment.run(chunk, plan.planned, run, &|_| {})?;
        let next = absorb(segment, out, books, release)?;
        match hold {
            Hold::Write => write_rows(run.recipe, &next, release)?,
            _ => hold.take(next, run, release)?,
        }
        for k in segment.range() {
            meters.update(k - segment.start, books.stage(k));
        }
    }
    for k in segment.range() {
        meters.finish(k - segment.start, books.stage(k));
    }
    drop(merged);
    remove_spill(release)?;
    match hold {
        Hold::Keyed(k) => k.finish(run, plan, books, release),
        Hold::Records(held) => run_rest(run, plan, segment.end, held, books, release),
        Hold::Write | Hold::Online(_) => Ok(()),
    }
}

/// Writes records as the release's rows, each to its split.
pub(super) fn write_rows(
    recipe: &Recipe,
    records: &[Record],
    release: &mut ReleaseDir,
) -> Result<(), RunError> {
    for o in records {
        release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
    }
    Ok(())
}

/// Removes the spill directory once its files are read.
fn remove_spill(release: &ReleaseDir) -> Result<(), RunError> {
    let dir = spill_dir(release);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| RunError::Io {
            path: dir.display().to_string(),
            source: e,
        })?;
    }
    Ok(())
}
