//! Stages over records: whole-corpus stages with their conservation check, the chain from
//! the first of them on, the leading segment over the chunks read, and the `kcurate stage`
//! filter form of a segment.

use super::segment::{self, ChainScratch, Plan, Segment, SegmentOut, absorb};
use super::*;

pub(super) const CHUNK: usize = 2048;

/// What a whole-corpus stage made of the records: all of them in id order, its decisions,
/// its books and the metrics it reported.
pub(super) struct CorpusOut {
    pub(super) records: Vec<Record>,
    pub(super) decisions: Vec<Decision>,
    pub(super) stats: StageStats,
    pub(super) metrics: super::books::Metrics,
}

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

/// Runs a corpus stage over every record and checks conservation by id: each input is
/// dropped, kept under its id, or named as a parent of an output.
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
    Ok(CorpusOut {
        records: all,
        decisions: ds,
        stats,
        metrics,
    })
}

/// The leading per-record stages' results, run elsewhere: their books, their decisions (as
/// written: the process that ran the stages scrubbed them) and their records, in input
/// order, in place of reading the sources. Returns the number of records that entered.
pub(super) fn replay_staged(
    staged: crate::parts::Staged,
    plan: &Plan,
    books: &mut Books,
    release: &mut ReleaseDir,
    held: &mut Vec<Record>,
    recipe: &Recipe,
) -> Result<u64, RunError> {
    let leading = plan.leading();
    let want: Vec<&str> = leading
        .stages(plan.planned)
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let got: Vec<&str> = staged.stages.iter().map(|(n, _)| n.as_str()).collect();
    if want != got {
        return Err(RunError::Staged(format!(
            "the parts ran the stages [{}]; this recipe's stages before its first whole-corpus stage are [{}] (run `kcurate stage --before-corpus` with this recipe)",
            got.join(", "),
            want.join(", ")
        )));
    }
    books.ingest += &staged.ingest;
    let stats: Vec<StageStats> = staged.stages.iter().map(|(_, s)| s.clone()).collect();
    books.add_segment(leading, &stats);
    for d in &staged.decisions {
        release.write_scrubbed_decision(d)?;
    }
    if plan.all_streaming() {
        for o in &staged.records {
            release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
        }
    } else {
        held.extend(staged.records);
    }
    Ok(staged.ingest.items_out)
}

/// Runs the leading segment over a chunk of items on the current pool; when every stage
/// streams, each output is also given its split and serialised here, in parallel.
pub(super) fn process_chunk(
    chunk: Vec<Item>,
    plan: &Plan,
    sources: &BTreeMap<String, SourceInfo>,
    recipe: &Recipe,
) -> Vec<Result<ChunkOut, RunError>> {
    let (leading, all_streaming) = (plan.leading(), plan.all_streaming());
    chunk
        .into_par_iter()
        .map_init(ChainScratch::default, |scratch, item| {
            let rec = match item {
                Item::Malformed(m) => return Ok(ChunkOut::Malformed(m)),
                Item::Record(r) => *r,
            };
            let mut out = leading.run_record(rec, plan.planned, sources, scratch)?;
            let rows = if all_streaming {
                let rows = out.records.iter().map(|o| row_of(o, recipe)).collect();
                // The rows are serialised: free the records here, in parallel, not in the
                // writing loop.
                out.records = Vec::new();
                rows
            } else {
                Vec::new()
            };
            Ok(ChunkOut::Record(RecordOut { out, rows }))
        })
        .collect()
}

/// An output record as the row it is written as.
fn row_of(o: &Record, recipe: &Recipe) -> Row {
    // A recipe's split names are static: no String per row for them.
    let split = match o.fields.get("split").and_then(|v| v.as_str()) {
        Some(s) => Cow::Owned(s.to_string()),
        None => Cow::Borrowed(recipe.split.assign(recipe.seed, &o.id)),
    };
    Row {
        split,
        bytes: crate::row::row_bytes(o),
        chars: o.text.chars().count(),
    }
}

/// An output record serialised as its row of the release.
pub(super) struct Row {
    pub(super) split: Cow<'static, str>,
    pub(super) bytes: Vec<u8>,
    pub(super) chars: usize,
}

/// What the leading segment made of one record read.
pub(super) struct RecordOut {
    /// Its outputs (empty when they are already `rows`), decisions and books.
    pub(super) out: SegmentOut,
    /// When every stage streams: its outputs as rows, ready to write.
    pub(super) rows: Vec<Row>,
}

/// What became of one item read.
pub(super) enum ChunkOut {
    /// Not a record (the reader says why).
    Malformed(Malformed),
    /// A record, through the leading segment.
    Record(RecordOut),
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
    if let Some(p) = segment::first_corpus_stage(planned) {
        return Err(RunError::Conservation {
            stage: p.name.clone(),
            message: "is a whole-corpus stage and cannot run as a per-record filter".into(),
        });
    }
    let io = |e: std::io::Error| RunError::Io {
        path: "<stdio>".into(),
        source: e,
    };
    let mut books = Books::new(planned.len());
    let all = Segment {
        start: 0,
        end: planned.len(),
    };
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
                let d =
                    malformed_decision("stdin", &m, Some(line.chars().take(QUOTED_LINE).collect()));
                let d = writer::scrubbed(scrubber.as_ref(), &d);
                serde_json::to_writer(&mut decisions, &*d).map_err(|e| io(e.into()))?;
                decisions.write_all(b"\n").map_err(io)?;
                continue;
            }
        };
        let out = all.run_record(rec, planned, sources, &mut scratch)?;
        books.add_segment(all, &out.stats);
        for d in &out.decisions {
            let d = writer::scrubbed(scrubber.as_ref(), d);
            serde_json::to_writer(&mut decisions, &*d).map_err(|e| io(e.into()))?;
            decisions.write_all(b"\n").map_err(io)?;
        }
        for o in &out.records {
            serde_json::to_writer(&mut output, o).map_err(|e| io(e.into()))?;
            output.write_all(b"\n").map_err(io)?;
            after(o, &mut output).map_err(io)?;
        }
    }
    output.flush().map_err(io)?;
    decisions.flush().map_err(io)?;
    Ok(FilterSummary {
        stats: planned
            .iter()
            .map(|p| p.name.clone())
            .zip(books.stages().iter().cloned())
            .collect(),
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

/// From the corpus stage at `from` on: each corpus stage over all held records, each
/// segment between them over the records in parallel, then the rows.
pub(super) fn run_rest(
    run: &Run,
    plan: &Plan,
    from: usize,
    mut held: Vec<Record>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(), RunError> {
    let recipe = run.recipe;
    let mut i = from;
    while i < plan.planned.len() {
        if plan.is_corpus(i) {
            held = corpus_held(run, &plan.planned[i], i, held, books, release)?;
            i += 1;
        } else {
            let segment = plan.segment_from(i);
            held = segment_held(run, plan, segment, held, books, release)?;
            i = segment.end;
        }
    }
    for o in &held {
        release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
    }
    Ok(())
}

/// The held records through the corpus stage `p` (at `at` in the plan): its decisions
/// written, its books kept. Returns what it leaves, in id order.
fn corpus_held(
    run: &Run,
    p: &Planned,
    at: usize,
    held: Vec<Record>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<Vec<Record>, RunError> {
    let events = run.opts.events();
    events.start(&p.name, unit(&held), Some(held.len() as u64));
    let out = run_corpus(p, held, run.sources)?;
    events.finish(&p.name, out.stats.items_in);
    books.add_metrics(&p.name, out.metrics);
    for d in &out.decisions {
        release.write_decision(d)?;
    }
    books.add_stage(at, &out.stats);
    Ok(out.records)
}

/// The held records through `segment` on the pool. The first stage of the segment counts
/// the records as the workers take them; the others show their books when it ends.
fn segment_held(
    run: &Run,
    plan: &Plan,
    segment: Segment,
    held: Vec<Record>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<Vec<Record>, RunError> {
    let events = run.opts.events();
    let stages = segment.stages(plan.planned);
    let mut meters = Meters::new(events, stages.iter().map(|p| p.name.as_str()).collect());
    let first = stages[0].name.as_str();
    events.start(first, unit(&held), Some(held.len() as u64));
    let advance = |n: u64| {
        if n.is_multiple_of(CHUNK as u64) {
            events.advance(first, n);
        }
    };
    let out = segment.run(held, plan.planned, run, &advance)?;
    let held = absorb(segment, out, books, release)?;
    events.finish(first, books.stage(segment.start).items_in);
    for k in segment.start + 1..segment.end {
        meters.finish(k - segment.start, books.stage(k));
    }
    Ok(held)
}

/// The unit of the records held, for the progress line.
fn unit(held: &[Record]) -> &'static str {
    held.first().map_or("items", |r| r.kind.unit())
}
