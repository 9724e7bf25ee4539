//! Runs a recipe: licence gate, ingest, the stages in recipe order, split assignment, and
//! the release files. Per-record stages run in parallel over chunks of records; results
//! are merged in input order, so the bytes never depend on the thread count.

use crate::manifest::{
    self, InputFile, Manifest, OutputFile, RecipeRef, SourceRef, StageCount, Tool,
};
use crate::writer::{self, ReleaseDir, WriteError};
use kcurate_core::hash::{hex, sha256_file, sha256_hex};
use kcurate_core::license::{self, Allowed};
use kcurate_core::recipe::{Format, OnError, Recipe, RecipeError, table_line};
use kcurate_core::{
    BuildCtx, BuiltStage, CorpusStage, Decision, Out, Record, RuleId, SourceInfo, StageEntry,
    StageStats,
};
use kcurate_io::ingest::{
    FileDigest, FileItems, FileJob, Item, Malformed, Problem, list_files, path_key,
    read_source_with,
};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod books;
mod chain;
mod error;
mod finish;
mod inputs;
mod keyed;
pub mod memory;
mod online;
mod plan;
mod progress;
mod read;
mod segment;
mod spill;

use books::Books;
use chain::*;
pub use chain::{AfterRecord, FilterSummary, run_filter, run_filter_with};
pub use error::{RunError, SourceError};
use finish::{Finished, finish_release};
use inputs::*;
pub use inputs::{
    QuarantinedLines, license_decision, malformed_decision, read_line_bounded, source_error,
};
use online::{Hold, stream_after};
pub use plan::{Planned, RUNNER_KEYS, build_stages, source_infos};
use progress::Meters;
pub use progress::{NoProgress, Progress};
use read::{Leading, read_sources};
use segment::Plan;

pub use crate::parts::GivenRecord;

/// How to run a recipe: threads, where inputs and the release live, and what the CLI
/// hooks in (progress, the PII scrubber, a derived release's parent).
pub struct RunOptions {
    /// Worker threads for per-record stages (0 = all cores).
    pub threads: usize,
    /// Directory relative input paths resolve against.
    pub root: PathBuf,
    /// Releases go to `<out>/<name>/<version>`.
    pub out: PathBuf,
    /// Replace an existing release of the same name and version.
    pub overwrite: bool,
    /// The recipe path as the user gave it (recorded in the manifest).
    pub recipe_path: String,
    /// Receives the run's progress events (stage started, advanced, finished), for a
    /// progress display; none when `None`. Outputs do not depend on it.
    pub progress: Option<std::sync::Arc<dyn Progress>>,
    /// Applied to every decision before it is written (see [`writer::Scrubber`]).
    pub scrubber: Option<writer::Scrubber>,
    /// Set for a derived release: the parent it was made from (its licence is inherited).
    pub parent: Option<manifest::ParentRef>,
    /// Bytes of records the whole-corpus stages may hold before they spill to disk
    /// ([`memory`]); `None` takes [`memory::default_budget`]. Outputs do not depend on it.
    pub memory: Option<u64>,
}

impl RunOptions {
    /// Where the run's progress events go.
    pub(crate) fn events(&self) -> &dyn Progress {
        match &self.progress {
            Some(p) => p.as_ref(),
            None => &NoProgress,
        }
    }
}

/// What `run_recipe` returns.
pub struct RunSummary {
    /// The release directory, renamed into place.
    pub dir: PathBuf,
    /// The manifest as written.
    pub manifest: Manifest,
}

/// What a [`Decided`] stage leaves behind once it is moved into the plan (never run).
struct NoStage;

impl CorpusStage for NoStage {
    fn run(&self, recs: Vec<Record>, out: &mut Out) {
        for r in recs {
            out.keep(r);
        }
    }
}

pub(crate) fn rule(id: &str) -> RuleId {
    RuleId::new(id)
}

/// Where the records of a release come from.
pub enum Feed {
    /// `run`: the recipe's sources, read here, through the leading per-record stages.
    Sources,
    /// `finalise`: the outputs, decisions and books of the leading per-record stages, run
    /// elsewhere (an engine's partitions) and gathered in input order.
    Staged(Box<crate::parts::Staged>, Option<Decided>),
}

/// `finalise`: the recipe's first whole-corpus stage with its decisions made elsewhere (an
/// engine's shuffle, e.g. dedup's verdicts from the Spark driver): run in its place, once
/// its decisions are checked against the records the stage is given.
pub struct Decided {
    /// The registry name of the stage it stands for: the recipe's first whole-corpus stage
    /// must be that stage, else finalise stops.
    pub stands_for: &'static str,
    /// Runs in the stage's place.
    pub stage: Box<dyn CorpusStage>,
    /// Checks the decisions against the records the stage is given, in input order, before
    /// anything runs; the message names the file and line at fault.
    #[allow(clippy::type_complexity)]
    pub check: Box<dyn Fn(&[GivenRecord<'_>]) -> Result<(), String>>,
}

/// `run`: ingest and every stage of the recipe, then the release files.
pub fn run_recipe(
    recipe: &Recipe,
    recipe_text: &str,
    registry: &[StageEntry],
    opts: &RunOptions,
) -> Result<RunSummary, RunError> {
    build_release(recipe, recipe_text, registry, opts, Feed::Sources)
}

/// `finalise`: a release from the parts an engine produced by running the leading
/// per-record stages (`kcurate stage --before-corpus`) over `kcurate ingest`'s records:
/// the licence gate, the whole-corpus stages and everything after them, and the release
/// files, by the same code as [`run_recipe`], so the bytes equal a local run's.
pub fn finalise_recipe(
    recipe: &Recipe,
    recipe_text: &str,
    registry: &[StageEntry],
    opts: &RunOptions,
    parts: &Path,
    decisions: &[PathBuf],
    decided: Option<Decided>,
) -> Result<RunSummary, RunError> {
    let order = crate::parts::InputOrder::new(recipe, &opts.root);
    opts.events().start("parts", "records", None);
    let staged = crate::parts::read_staged(parts, decisions, &order)?;
    opts.events().finish("parts", staged.records.len() as u64);
    build_release(
        recipe,
        recipe_text,
        registry,
        opts,
        Feed::Staged(Box::new(staged), decided),
    )
}

/// The one path of `run` and `finalise`: licence gate, the leading per-record stages (run
/// here over the sources, or replayed from their staged results), the whole-corpus stages
/// and what follows them, the release files.
fn build_release(
    recipe: &Recipe,
    recipe_text: &str,
    registry: &[StageEntry],
    opts: &RunOptions,
    mut feed: Feed,
) -> Result<RunSummary, RunError> {
    let run_started = std::time::Instant::now();
    let sources = source_infos(recipe);
    let (mut planned, mut ctx) = plan_stages(recipe, registry, opts)?;
    take_decided(&mut planned, &mut feed)?;
    let judged = read_judged(recipe, opts, &mut ctx)?;
    let pool = std::sync::Arc::new(thread_pool(opts.threads)?);
    let mut release = open_release(recipe, opts, &pool, &judged)?;
    let mut books = Books::new(planned.len());
    let Gated {
        source_refs,
        to_hash,
        allowed,
        accepted,
    } = gate_sources(
        recipe,
        recipe_text,
        opts,
        matches!(feed, Feed::Sources),
        &ctx.extra_inputs,
        &mut books,
        &mut release,
    )?;
    let hashing = spawn_hashing(&pool, &opts.root, &to_hash);
    // Per accepted source, the digest of each file its reader read whole, in file order.
    let read_digests = std::sync::Mutex::new(vec![Vec::new(); accepted.len()]);
    write_input_decisions(&ctx.input_decisions, &mut books, &mut release)?;
    let run = Run {
        recipe,
        recipe_text,
        opts,
        pool: &pool,
        sources: &sources,
        budget: memory::Budget::new(opts.memory.unwrap_or_else(memory::default_budget)),
    };
    let read = feed_records(
        feed,
        &run,
        &planned,
        &accepted,
        &read_digests,
        &mut books,
        &mut release,
    )?;
    opts.events().start("write", "files", None);
    let rows = release.finish_rows()?;
    let inputs = join_inputs(hashing, to_hash, read_digests, &opts.root, &pool)?;
    tracing::debug!(
        ms = run_started.elapsed().as_millis() as u64,
        records = read,
        files = inputs.len(),
        "inputs hashed, read, staged and written"
    );
    let copy = recipe_copy(recipe, recipe_text, opts, &ctx);
    let summary = finish_release(Finished {
        recipe,
        recipe_text: &copy,
        opts,
        release,
        books,
        planned: &planned,
        source_refs,
        inputs,
        allowed: &allowed,
        rows,
        judged: &judged,
        pool: &pool,
    })?;
    opts.events()
        .finish("write", summary.manifest.outputs.len() as u64);
    Ok(summary)
}

/// With verdicts an engine decided (`finalise --dedup-verdicts`), the stage that applies them
/// takes the place of the recipe's first whole-corpus stage, which must be the one they
/// stand for.
fn take_decided(planned: &mut [Planned], feed: &mut Feed) -> Result<(), RunError> {
    let Feed::Staged(_, Some(d)) = feed else {
        return Ok(());
    };
    let first = Some(Plan::new(planned).first_corpus).filter(|&i| i < planned.len());
    match first {
        Some(i) if planned[i].name == d.stands_for => {
            let stage = std::mem::replace(&mut d.stage, Box::new(NoStage));
            planned[i].stage = BuiltStage::Corpus(stage);
            Ok(())
        }
        _ => Err(RunError::Staged(format!(
            "decisions of {} were given, but the recipe's first whole-corpus stage is {}",
            d.stands_for,
            first.map_or("none", |i| planned[i].name.as_str())
        ))),
    }
}

/// Builds every stage of the recipe (`runner/plan.rs`), with the build context the stages
/// fill as they build: their own input files and the decisions their inputs left.
fn plan_stages(
    recipe: &Recipe,
    registry: &[StageEntry],
    opts: &RunOptions,
) -> Result<(Vec<Planned>, BuildCtx), RunError> {
    let mut ctx = BuildCtx::for_recipe(recipe, &opts.root);
    let planned =
        build_stages(recipe, &opts.recipe_path, registry, &mut ctx).map_err(RunError::Recipe)?;
    Ok((planned, ctx))
}

/// The size on disk of the accepted sources' files (what the reading pass's progress
/// counts up to; a source with a `limit` may stop short of it).
fn source_bytes(accepted: &[&kcurate_core::recipe::SourceConfig], root: &Path) -> u64 {
    accepted
        .iter()
        .filter_map(|s| list_files(s, root).ok())
        .flatten()
        .filter_map(|(_, path)| std::fs::metadata(path).ok())
        .map(|m| m.len())
        .sum()
}

/// Curators' judgements of the rules (`[audit] judgements`): an input of the run, hashed
/// like the others. They count once the run has shown which of them name a decision of this
/// release.
fn read_judged(
    recipe: &Recipe,
    opts: &RunOptions,
    ctx: &mut BuildCtx,
) -> Result<Vec<crate::precision::Judgement>, RunError> {
    let Some(p) = &recipe.audit.judgements else {
        return Ok(Vec::new());
    };
    let path = ctx.resolve(p);
    let judged = crate::precision::read_judgements(&path).map_err(|e| RunError::Judgements {
        recipe: opts.recipe_path.clone(),
        source: e,
    })?;
    ctx.extra_inputs.push(path);
    Ok(judged)
}

/// The temporary release directory, with the scrubber every decision passes through and
/// the index of judged decisions.
fn open_release(
    recipe: &Recipe,
    opts: &RunOptions,
    pool: &std::sync::Arc<rayon::ThreadPool>,
    judged: &[crate::precision::Judgement],
) -> Result<ReleaseDir, RunError> {
    let mut release = ReleaseDir::create(
        &opts.out,
        &recipe.name,
        &recipe.version,
        &recipe.task.name,
        &recipe.split.names,
        opts.overwrite,
        pool.clone(),
    )?;
    release.scrubber = opts.scrubber.clone();
    release.judged = crate::precision::JudgedIndex::new(judged);
    Ok(release)
}

/// Hashes the inputs the reader does not hash on the pool while the sources are read, not
/// before: the hashing fills the pool's idle moments instead of holding up the first read.
fn spawn_hashing(
    pool: &std::sync::Arc<rayon::ThreadPool>,
    root: &Path,
    to_hash: &InputList,
) -> std::thread::JoinHandle<Vec<HashedInput>> {
    let (pool, root) = (pool.clone(), root.to_path_buf());
    let others: Vec<(usize, UnhashedInput)> = to_hash
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.read_as.is_none())
        .map(|(i, f)| (i, f.clone()))
        .collect();
    std::thread::spawn(move || pool.install(|| hash_inputs(others, &root)))
}

/// The manifest's inputs: the digests the readers took of the files they read whole,
/// merged with the hashes `hashing` took meanwhile of the others.
fn join_inputs(
    hashing: std::thread::JoinHandle<Vec<HashedInput>>,
    to_hash: InputList,
    read_digests: std::sync::Mutex<Vec<Vec<Option<FileDigest>>>>,
    root: &Path,
    pool: &rayon::ThreadPool,
) -> Result<Vec<InputFile>, RunError> {
    let hashed = hashing.join().map_err(|_| RunError::Io {
        path: "hashing thread".into(),
        source: std::io::Error::other("the hashing thread panicked"),
    })?;
    let read_digests = read_digests.into_inner().unwrap_or_else(|e| e.into_inner());
    merge_hashes(to_hash, hashed, read_digests, root, pool)
}

/// Rows of stage inputs (annotation files) refused while building: decisions as they are,
/// counted under the `inputs` metrics.
fn write_input_decisions(
    refused: &[Decision],
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(), RunError> {
    if refused.is_empty() {
        return Ok(());
    }
    for d in refused {
        release.write_decision(d)?;
    }
    books
        .metrics
        .entry("inputs".into())
        .or_default()
        .insert("refused_rows".into(), serde_json::json!(refused.len()));
    Ok(())
}

/// Records through every stage into the writer, as `feed` brings them: the leading
/// per-record stages stream (run here over the sources, or replayed from their staged
/// results); from the first corpus stage on, records are held, or fed to its online form.
/// Returns the number of records read.
///
/// `digests` receives, per accepted source, the digest of each file its reader read whole.
fn feed_records(
    feed: Feed,
    run: &Run,
    planned: &[Planned],
    accepted: &[&kcurate_core::recipe::SourceConfig],
    digests: &std::sync::Mutex<Vec<Vec<Option<FileDigest>>>>,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<u64, RunError> {
    let plan = Plan::new(planned);
    // The records held for the whole-corpus stages (none when an online form took them).
    let (read, held) = match feed {
        Feed::Staged(s, decided) => feed_staged(*s, decided.as_ref(), run, &plan, books, release)?,
        Feed::Sources => {
            let leading = Leading {
                accepted,
                digests,
                total_bytes: source_bytes(accepted, &run.opts.root),
            };
            feed_sources(run, &plan, &leading, books, release)?
        }
    };
    if let Some(held) = held
        && !plan.all_streaming()
    {
        run_rest(run, &plan, plan.first_corpus, held, books, release)?;
    }
    Ok(read)
}

/// The leading stages' outputs an engine staged (`finalise`), replayed into the books and
/// the writer; with `decided`, its decisions are first checked against the records the
/// stage it stands for is given. Returns the records read and those held for the corpus
/// stages.
fn feed_staged(
    s: crate::parts::Staged,
    decided: Option<&Decided>,
    run: &Run,
    plan: &Plan,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(u64, Option<Vec<Record>>), RunError> {
    if let Some(d) = decided {
        let p = &plan.planned[plan.first_corpus];
        let given: Vec<GivenRecord> = s
            .records
            .iter()
            .zip(&s.read_at)
            .zip(&s.keys)
            .filter(|((r, _), _)| p.applies(r, run.sources))
            .map(|((record, at), key)| GivenRecord {
                record,
                part: &s.parts[at.part],
                line: at.line,
                key: key.as_ref(),
            })
            .collect();
        (d.check)(&given).map_err(RunError::Staged)?;
    }
    let mut held = Vec::new();
    let read = replay_staged(s, plan, books, release, &mut held, run.recipe)?;
    // The leading stages ran elsewhere: their lines show the parts' books.
    let leading = plan.leading();
    let mut meters = Meters::new(
        run.opts.events(),
        leading
            .stages(plan.planned)
            .iter()
            .map(|p| p.name.as_str())
            .collect(),
    );
    for i in leading.range() {
        meters.finish(i, books.stage(i));
    }
    Ok((read, Some(held)))
}

/// The recipe's sources read here through the leading stages; the first corpus stage
/// takes the records in its online or keyed form when it has one, else they are held.
/// Returns the records read and those held for the corpus stages (none when a form of the
/// stage took them and the rest of the chain ran from it).
fn feed_sources(
    run: &Run,
    plan: &Plan,
    leading: &Leading,
    books: &mut Books,
    release: &mut ReleaseDir,
) -> Result<(u64, Option<Vec<Record>>), RunError> {
    let at = plan.first_corpus;
    let mut hold = Hold::for_stage(plan, at, release, &run.budget);
    // One meter per leading stage, and for the online stage fed beside them.
    let online = matches!(hold, Hold::Online(_));
    let metered = at + usize::from(online);
    let mut meters = Meters::new(
        run.opts.events(),
        plan.planned[..metered]
            .iter()
            .map(|p| p.name.as_str())
            .collect(),
    );
    let read = read_sources(run, plan, leading, books, release, &mut hold, &mut meters)?;
    Ok(match hold {
        Hold::Online(o) => {
            let merged = o.finish(books, release)?;
            meters.finish(at, books.stage(at));
            stream_after(run, plan, at, merged, books, release)?;
            (read, None)
        }
        Hold::Keyed(k) => {
            k.finish(run, plan, books, release)?;
            (read, None)
        }
        Hold::Records(held) => (read, Some(held)),
        Hold::Write => (read, None),
    })
}

/// How a message names the directory relative paths resolved against.
pub fn root_phrase(root: &Path) -> String {
    format!(
        "relative paths resolve against {}, the recipe's directory unless --root is given",
        root.display()
    )
}

/// Resolves a path against the run's root (for callers outside the runner).
pub fn resolve(root: &Path, p: &str) -> PathBuf {
    Recipe::resolve(root, p)
}

/// The run's thread pool: `threads` workers, or one per core when 0.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, RunError> {
    let threads = if threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        threads
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| RunError::Io {
            path: "thread pool".into(),
            source: std::io::Error::other(e),
        })
}
