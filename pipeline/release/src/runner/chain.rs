//! Stages over records: the per-record chain (in parallel chunks, merged in input order),
//! whole-corpus stages with their conservation check, the books, and the `kcurate stage`
//! filter form of the chain.

use super::*;

pub(super) const CHUNK: usize = 2048;

/// The books of one run.
#[derive(Default)]
pub(super) struct Books {
    pub(super) stats: Vec<StageStats>,
    pub(super) metrics: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

impl Books {
    /// Empty books of a run of `stages` stages (with ingest's and the licence gate's).
    pub(super) fn new(stages: usize) -> Self {
        Books {
            stats: vec![StageStats::default(); 2 + stages],
            metrics: BTreeMap::new(),
        }
    }
}

/// Outputs, decisions and per-stage stats of one record's trip through a chain.
pub(super) type ChainOut = (Vec<Record>, Vec<Decision>, Vec<StageStats>);

/// One `Out` per stage of a chain, reused record after record by one worker (a new `Out`
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

/// Runs one record through the per-record stages `stages`. Returns its outputs and
/// decisions, and per-stage stats.
pub(super) fn run_chain(
    rec: Record,
    stages: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    scratch: &mut ChainScratch,
) -> Result<ChainOut, RunError> {
    let mut current = vec![rec];
    let mut decisions = Vec::new();
    let mut stats = vec![StageStats::default(); stages.len()];
    let outs = scratch.outs(stages);
    for (i, (p, out)) in stages.iter().zip(outs.iter_mut()).enumerate() {
        let BuiltStage::Record(stage) = &p.stage else {
            unreachable!("run_chain gets per-record stages only")
        };
        let mut next = Vec::with_capacity(current.len());
        for r in current {
            stats[i].items_in += 1;
            stats[i].unit_in_of(r.kind);
            if !p.applies(&r, sources) {
                stats[i].items_out += 1;
                stats[i].unit_out_of(r.kind);
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
                stats[i].count(d);
            }
            stats[i].dropped += dropped;
            stats[i].items_out += kept as u64;
            if let Some(k) = next.get(kept_from) {
                stats[i].unit_out_of(k.kind);
            }
        }
        current = next;
    }
    Ok((current, decisions, stats))
}

/// Runs a corpus stage and checks conservation by id: each input is dropped, kept under
/// its id, or named as a parent of an output.
/// Outputs, decisions, stats and reported metrics of a corpus stage.
pub(super) type CorpusOut = (
    Vec<Record>,
    Vec<Decision>,
    StageStats,
    BTreeMap<String, serde_json::Value>,
);

/// Conservation of a corpus stage by id: each input is dropped, kept under its id, or named
/// as a parent of an output.
pub(super) fn check_corpus(
    p: &Planned,
    in_ids: &[String],
    kept: &[Record],
    ds: &[Decision],
) -> Result<(), RunError> {
    let dropped_ids: BTreeSet<&str> = ds
        .iter()
        .filter(|d| d.action == kcurate_core::Action::Drop)
        .map(|d| d.item.as_str())
        .collect();
    let mut covered: BTreeSet<&str> = BTreeSet::new();
    for r in kept {
        covered.insert(r.id.as_str());
        covered.extend(r.parents.iter().map(String::as_str));
    }
    for id in in_ids {
        let c = covered.contains(id.as_str());
        let d = dropped_ids.contains(id.as_str());
        if c == d {
            return Err(RunError::Conservation {
                stage: p.name.clone(),
                message: format!(
                    "item {id} is {}",
                    if c {
                        "both kept and dropped"
                    } else {
                        "neither kept nor dropped"
                    }
                ),
            });
        }
    }
    Ok(())
}

pub(super) fn run_corpus(
    p: &Planned,
    recs: Vec<Record>,
    sources: &BTreeMap<String, SourceInfo>,
) -> Result<CorpusOut, RunError> {
    let BuiltStage::Corpus(stage) = &p.stage else {
        unreachable!("corpus stages only")
    };
    let (mine, passed): (Vec<Record>, Vec<Record>) =
        recs.into_iter().partition(|r| p.applies(r, sources));
    let mut stats = StageStats {
        items_in: (mine.len() + passed.len()) as u64,
        ..Default::default()
    };
    if let Some(r) = mine.first().or(passed.first()) {
        stats.unit_in_of(r.kind);
    }
    let in_ids: Vec<String> = mine.iter().map(|r| r.id.clone()).collect();
    let mut out = Out::new(p.name.clone());
    stage.run(mine, &mut out);
    let metrics = out.take_metrics();
    let (kept, ds, dropped) = out.into_parts();
    check_corpus(p, &in_ids, &kept, &ds)?;
    for d in &ds {
        stats.count(d);
    }
    stats.dropped = dropped;
    stats.items_out = (kept.len() + passed.len()) as u64;
    if let Some(r) = kept.first().or(passed.first()) {
        stats.unit_out_of(r.kind);
    }
    let mut all = passed;
    all.extend(kept);
    // Keep a stable order independent of which records the stage saw.
    all.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((all, ds, stats, metrics))
}

/// The leading per-record stages' results, run elsewhere: their books, their decisions (as
/// written: the process that ran the stages scrubbed them) and their records, in input
/// order, in place of reading the sources. Returns the number of records that entered.
pub(super) fn replay_staged(
    staged: crate::parts::Staged,
    streaming: &[Planned],
    all_streaming: bool,
    books: &mut Books,
    release: &mut ReleaseDir,
    held: &mut Vec<Record>,
    recipe: &Recipe,
) -> Result<u64, RunError> {
    let want: Vec<&str> = streaming.iter().map(|p| p.name.as_str()).collect();
    let got: Vec<&str> = staged.stages.iter().map(|(n, _)| n.as_str()).collect();
    if want != got {
        return Err(RunError::Staged(format!(
            "the parts ran the stages [{}]; this recipe's stages before its first whole-corpus stage are [{}] (run `kcurate stage --before-corpus` with this recipe)",
            got.join(", "),
            want.join(", ")
        )));
    }
    books.stats[0] += &staged.ingest;
    for (i, (_, s)) in staged.stages.iter().enumerate() {
        books.stats[2 + i] += s;
    }
    for d in &staged.decisions {
        release.write_scrubbed_decision(d)?;
    }
    if all_streaming {
        for o in &staged.records {
            release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
        }
    } else {
        held.extend(staged.records);
    }
    Ok(staged.ingest.items_out)
}

/// Runs the leading per-record stages over a chunk of items on the current pool; when every
/// stage streams, each output is also given its split and serialised here, in parallel.
pub(super) fn process_chunk(
    chunk: Vec<Item>,
    stages: &[Planned],
    all_streaming: bool,
    sources: &BTreeMap<String, SourceInfo>,
    recipe: &Recipe,
) -> Vec<Result<ChunkOut, RunError>> {
    chunk
        .into_par_iter()
        .map_init(ChainScratch::default, |scratch, item| {
            let mut r = process_item(item, stages, sources, scratch)?;
            if all_streaming && let ChunkOut::Done(outs, _, _, rows) = &mut r {
                *rows = outs
                    .iter()
                    .map(|o| {
                        // A recipe's split names are static: no String per row for them.
                        let split = match o.fields.get("split").and_then(|v| v.as_str()) {
                            Some(s) => Cow::Owned(s.to_string()),
                            None => Cow::Borrowed(recipe.split.assign(recipe.seed, &o.id)),
                        };
                        (split, crate::row::row_bytes(o), o.text.chars().count())
                    })
                    .collect();
                // The rows are serialised: free the records here, in parallel, not in the
                // writing loop.
                *outs = Vec::new();
            }
            Ok(r)
        })
        .collect()
}

pub(super) enum ChunkOut {
    Malformed(Malformed),
    /// Outputs, decisions, stats, and (when streaming) each output's split and row bytes.
    Done(
        Vec<Record>,
        Vec<Decision>,
        Vec<StageStats>,
        Vec<(Cow<'static, str>, Vec<u8>, usize)>,
    ),
}

pub(super) fn process_item(
    item: Item,
    stages: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    scratch: &mut ChainScratch,
) -> Result<ChunkOut, RunError> {
    match item {
        Item::Malformed(m) => Ok(ChunkOut::Malformed(m)),
        Item::Record(r) => {
            let (o, d, s) = run_chain(*r, stages, sources, scratch)?;
            Ok(ChunkOut::Done(o, d, s, Vec::new()))
        }
    }
}

/// Where `kcurate stage` (the Unix-filter form of the per-record chain) sends its results.
pub struct FilterSummary {
    /// Per stage, by name, the books over the input.
    pub stats: Vec<(String, StageStats)>,
    /// Input lines that were not records (written as `ingest.malformed` decisions).
    pub malformed: u64,
}

/// The per-record stages as a filter: Record JSONL in, Record JSONL out, decisions to
/// `decisions`. Lines that are not records become `ingest.malformed` decisions.
pub fn run_filter(
    planned: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    input: impl std::io::BufRead,
    output: impl std::io::Write,
    decisions: impl std::io::Write,
    on_error: OnError,
    scrubber: Option<writer::Scrubber>,
) -> Result<FilterSummary, RunError> {
    run_filter_with(
        planned,
        sources,
        input,
        output,
        decisions,
        on_error,
        scrubber,
        &mut |_, _| Ok(()),
    )
}

/// A line an output record adds after its own in [`run_filter_with`]'s output.
pub type AfterRecord<'a> = dyn FnMut(&Record, &mut dyn std::io::Write) -> std::io::Result<()> + 'a;

/// [`run_filter`] with `after` called on each output record once its line is written, to
/// add lines of its own (`stage --dedup-keys`: the record's dedup keys).
#[allow(clippy::too_many_arguments)]
pub fn run_filter_with(
    planned: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    input: impl std::io::BufRead,
    mut output: impl std::io::Write,
    mut decisions: impl std::io::Write,
    on_error: OnError,
    scrubber: Option<writer::Scrubber>,
    after: &mut AfterRecord<'_>,
) -> Result<FilterSummary, RunError> {
    if let Some(p) = planned
        .iter()
        .find(|p| matches!(p.stage, BuiltStage::Corpus(_)))
    {
        return Err(RunError::Conservation {
            stage: p.name.clone(),
            message: "is a whole-corpus stage and cannot run as a per-record filter".into(),
        });
    }
    let io = |e: std::io::Error| RunError::Io {
        path: "<stdio>".into(),
        source: e,
    };
    let mut stats = vec![StageStats::default(); planned.len()];
    let mut malformed = 0u64;
    let mut scratch = ChainScratch::default();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(io)?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: Record = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                let m = Malformed {
                    file: "<stdin>".into(),
                    line: n as u64 + 1,
                    field: "-".into(),
                    reason: format!("not a record: {e}"),
                    kind: Problem::Record,
                };
                if on_error == OnError::Fail {
                    return Err(RunError::Input(m));
                }
                malformed += 1;
                let mut d =
                    malformed_decision("stdin", &m, Some(line.chars().take(QUOTED_LINE).collect()));
                if let Some(f) = &scrubber {
                    f(&mut d);
                }
                serde_json::to_writer(&mut decisions, &d).map_err(|e| io(e.into()))?;
                decisions.write_all(b"\n").map_err(io)?;
                continue;
            }
        };
        let (outs, ds, st) = run_chain(rec, planned, sources, &mut scratch)?;
        for (i, s) in st.iter().enumerate() {
            stats[i] += s;
        }
        for d in &ds {
            let mut d = d.clone();
            if let Some(f) = &scrubber {
                f(&mut d);
            }
            serde_json::to_writer(&mut decisions, &d).map_err(|e| io(e.into()))?;
            decisions.write_all(b"\n").map_err(io)?;
        }
        for o in &outs {
            serde_json::to_writer(&mut output, o).map_err(|e| io(e.into()))?;
            output.write_all(b"\n").map_err(io)?;
            after(o, &mut output).map_err(io)?;
        }
    }
    output.flush().map_err(io)?;
    decisions.flush().map_err(io)?;
    Ok(FilterSummary {
        stats: planned.iter().map(|p| p.name.clone()).zip(stats).collect(),
        malformed,
    })
}

/// What every part of a run reads: the recipe, the options, the pool, the sources.
pub(super) struct Run<'a> {
    pub(super) recipe: &'a Recipe,
    pub(super) recipe_text: &'a str,
    pub(super) opts: &'a RunOptions,
    pub(super) pool: &'a rayon::ThreadPool,
    pub(super) sources: &'a BTreeMap<String, SourceInfo>,
    /// What the whole-corpus stages may hold in memory before they spill.
    pub(super) budget: super::memory::Budget,
}

/// From the first whole-corpus stage on: each corpus stage over all held records, each run
/// of per-record stages between them over the records in parallel, then the rows.
pub(super) fn run_rest(
    run: &Run,
    planned: &[Planned],
    first_corpus: usize,
    mut held: Vec<Record>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(), RunError> {
    let (recipe, sources) = (run.recipe, run.sources);
    let events = run.opts.events();
    let unit = |held: &[Record]| held.first().map_or("items", |r| r.kind.unit());
    let mut i = first_corpus;
    while i < planned.len() {
        match &planned[i].stage {
            BuiltStage::Corpus(_) => {
                let name = planned[i].name.as_str();
                events.start(name, unit(&held), Some(held.len() as u64));
                let (recs, ds, st, m) =
                    run_corpus(&planned[i], std::mem::take(&mut held), sources)?;
                events.finish(name, st.items_in);
                if !m.is_empty() {
                    books.metrics.insert(planned[i].name.clone(), m);
                }
                for d in &ds {
                    release.write_decision(d)?;
                }
                books.stats[2 + i] += &st;
                held = recs;
                i += 1;
            }
            BuiltStage::Record(_) => {
                let end = planned[i..]
                    .iter()
                    .position(|p| matches!(p.stage, BuiltStage::Corpus(_)))
                    .map(|k| i + k)
                    .unwrap_or(planned.len());
                // The first stage of the run counts the records as the workers take them;
                // the others show their books when the run ends.
                let mut meters = Meters::new(
                    events,
                    planned[i..end].iter().map(|p| p.name.as_str()).collect(),
                );
                let first = planned[i].name.as_str();
                events.start(first, unit(&held), Some(held.len() as u64));
                let done = std::sync::atomic::AtomicU64::new(0);
                let results: Vec<Result<_, RunError>> = run.pool.install(|| {
                    std::mem::take(&mut held)
                        .into_par_iter()
                        .map_init(ChainScratch::default, |scratch, r| {
                            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                            if n.is_multiple_of(CHUNK as u64) {
                                events.advance(first, n);
                            }
                            run_chain(r, &planned[i..end], sources, scratch)
                        })
                        .collect()
                });
                for r in results {
                    let (outs, ds, st) = r?;
                    for (k, x) in st.iter().enumerate() {
                        books.stats[2 + i + k] += x;
                    }
                    for d in &ds {
                        release.write_decision(d)?;
                    }
                    held.extend(outs);
                }
                events.finish(first, books.stats[2 + i].items_in);
                for k in 1..end - i {
                    meters.finish(k, &books.stats[2 + i + k]);
                }
                i = end;
            }
        }
    }
    for o in &held {
        release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
    }
    Ok(())
}
