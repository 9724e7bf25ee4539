//! Reading the sources through the leading per-record stages: a reading thread stages
//! chunks on the pool while this one writes their results in input order.

use super::online::Hold;
use super::segment::{Plan, Segment, absorb};
use super::*;
use kcurate_core::recipe::SourceConfig;

/// The leading per-record stages over the accepted sources: what they read and where the
/// readers leave the digests of files they read whole.
pub(super) struct Leading<'a, 'r> {
    pub(super) accepted: &'a [&'r SourceConfig],
    pub(super) digests: &'a std::sync::Mutex<Vec<Vec<Option<FileDigest>>>>,
    /// The size of the sources' files, for the reading pass's progress.
    pub(super) total_bytes: u64,
}

/// Reads the accepted sources and runs the plan's leading segment over them. One thread
/// reads and stages chunks (on the pool) while this one writes the previous chunk's
/// results: writing (hashing included) overlaps the work on the pool. Chunks arrive in
/// input order, so the bytes do not depend on the timing. Up to 4 staged chunks wait, so
/// the reader keeps the pool busy while the writer waits for a Parquet row group. Outputs
/// go where `hold` takes them: written (every stage streams), or to the first corpus stage.
/// Returns the number of items read. `meters` has one meter per leading stage (these end here), then one for the
/// online stage when `hold` is one (the caller ends it).
pub(super) fn read_sources(
    run: &Run,
    plan: &Plan,
    lead: &Leading,
    books: &mut Books,
    release: &mut ReleaseDir,
    hold: &mut Hold,
    meters: &mut Meters,
) -> Result<u64, RunError> {
    let leading = plan.leading();
    let mut read = 0u64;
    let mut quarantined = QuarantinedLines::default();
    let events = run.opts.events();
    let bytes_before = kcurate_io::ingest::bytes_read();
    let bytes = || kcurate_io::ingest::bytes_read().saturating_sub(bytes_before);
    events.start("read", "bytes", Some(lead.total_bytes));
    std::thread::scope(|scope| -> Result<(), RunError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<StagedChunk>(4);
        // The ingest's duplicate-id runs: anonymous files in the release's temporary directory.
        let release_tmp = release.tmp_dir.clone();
        let producer = scope.spawn(move || produce_chunks(run, plan, lead, &release_tmp, tx));
        for (k, results) in rx {
            read += results.len() as u64;
            let source = &lead.accepted[k].id;
            let batch = write_chunk(
                run,
                leading,
                source,
                results,
                books,
                release,
                &mut quarantined,
            )?;
            hold.take(batch, run, release)?;
            events.advance("read", bytes());
            for i in leading.range() {
                meters.update(i, books.stage(i));
            }
            if let Some(s) = hold.online_stats() {
                meters.update(leading.end, s);
            }
        }
        producer.join().map_err(|_| RunError::Io {
            path: "reader thread".into(),
            source: std::io::Error::other("the reading thread panicked"),
        })
    })?;
    events.finish("read", bytes());
    for i in leading.range() {
        meters.finish(i, books.stage(i));
    }
    Ok(read)
}

/// One chunk of a source's items after the leading stages: the source's index among the
/// accepted ones and each item's result.
type StagedChunk = (usize, Vec<Result<ChunkOut, RunError>>);

/// The reading thread of [`read_sources`]: each accepted source read (its files on the pool,
/// their digests kept) in chunks of [`CHUNK`] items, each chunk staged on the pool and sent
/// in input order. Stops early when the writer hangs up.
fn produce_chunks(
    run: &Run,
    plan: &Plan,
    lead: &Leading,
    tmp_dir: &std::path::Path,
    tx: std::sync::mpsc::SyncSender<StagedChunk>,
) {
    let Run {
        recipe,
        opts,
        pool,
        sources,
        ..
    } = *run;
    for (k, s) in lead.accepted.iter().enumerate() {
        let run_jobs = |jobs: Vec<FileJob>| -> Vec<Vec<Item>> {
            let files: Vec<FileItems> =
                pool.install(|| jobs.into_par_iter().map(|job| job()).collect());
            let mut digests = lead.digests.lock().unwrap_or_else(|e| e.into_inner());
            files
                .into_iter()
                .map(|f| {
                    digests[k].push(f.digest);
                    f.items
                })
                .collect()
        };
        let mut items = read_source_with(s, &opts.root, &run_jobs, tmp_dir).peekable();
        while items.peek().is_some() {
            let mut chunk = Vec::with_capacity(CHUNK);
            chunk.extend(items.by_ref().take(CHUNK));
            let results = pool.install(|| process_chunk(chunk, plan, sources, recipe));
            if tx.send((k, results)).is_err() {
                // The writer stopped on an error; it reports it.
                return;
            }
        }
    }
}

/// The writing side of [`read_sources`] for one staged chunk of source `source`: ingest's
/// and the leading segment's books, decisions written, rows written (when every stage
/// streams, the chunk's rows are ready) or returned for the first corpus stage. A
/// malformed item becomes a decision, or stops the run (an unreadable source, or
/// `on_error = "fail"`).
fn write_chunk(
    run: &Run,
    leading: Segment,
    source: &str,
    results: Vec<Result<ChunkOut, RunError>>,
    books: &mut Books,
    release: &mut ReleaseDir,
    quarantined: &mut QuarantinedLines,
) -> Result<Vec<Record>, RunError> {
    let mut batch = Vec::new();
    for r in results {
        match r? {
            ChunkOut::Malformed(m) => {
                let d = quarantine(run, source, &m, quarantined)?;
                books.ingest_malformed(&d);
                release.write_decision(&d)?;
            }
            ChunkOut::Record(RecordOut { out, rows }) => {
                books.ingest_record();
                batch.extend(absorb(leading, out, books, release)?);
                for row in rows {
                    release.write_row_bytes(&row.split, &row.bytes, row.chars)?;
                }
            }
        }
    }
    Ok(batch)
}

/// The decision that quarantines a malformed item of `source`, or the error that stops the
/// run (an unreadable source, or `on_error = "fail"`).
fn quarantine(
    run: &Run,
    source: &str,
    m: &Malformed,
    quarantined: &mut QuarantinedLines,
) -> Result<Decision, RunError> {
    if m.kind == Problem::Source {
        return Err(source_error(
            run.recipe,
            run.recipe_text,
            run.opts,
            source,
            m,
        ));
    }
    if run.recipe.on_error == OnError::Fail {
        return Err(RunError::Input(m.clone()));
    }
    let src = run.recipe.sources.iter().find(|s| s.id == source);
    let text = src.and_then(|src| quarantined.text(src, &run.opts.root, m));
    Ok(malformed_decision(source, m, text))
}
