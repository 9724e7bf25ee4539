//! Runs a recipe: licence gate, ingest, the stages in recipe order, split assignment, and
//! the release files. Per-record stages run in parallel over chunks of records; results
//! are merged in input order, so the bytes never depend on the thread count.

use crate::manifest::{
    self, InputFile, Manifest, OutputFile, RecipeRef, SourceRef, StageCount, Tool,
};
use crate::writer::{self, ReleaseDir, WriteError};
use kcurate_core::hash::{hex, sha256_file, sha256_hex};
use kcurate_core::ingest::{
    FileDigest, FileItems, FileJob, Item, Malformed, Problem, list_files, path_key,
    read_source_with,
};
use kcurate_core::license::{self, Allowed};
use kcurate_core::recipe::{Format, OnError, Recipe, RecipeError, table_line};
use kcurate_core::{
    BuildCtx, BuiltStage, Decision, Out, Record, RuleId, SourceInfo, StageEntry, StageStats,
};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod chain;
mod finish;
mod inputs;
mod keyed;
mod online;
mod plan;
mod spill;

use chain::*;
pub use chain::{FilterSummary, run_filter};
use finish::finish_release;
use inputs::*;
pub use inputs::{
    QuarantinedLines, license_decision, malformed_decision, read_line_bounded, source_error,
};
use keyed::KeyedRun;
use online::{Hold, OnlineRun, stream_after};
pub use plan::{Planned, build_stages, source_infos};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Recipe(Vec<RecipeError>),
    #[error("{0} (on_error = \"fail\")")]
    Input(Malformed),
    /// A source, or one of its files, cannot be read at all: the run stops whatever
    /// `on_error` says (a release without the source would look complete).
    #[error(transparent)]
    Source(Box<SourceError>),
    #[error("source {source_id}: licence refused: {reason} (on_error = \"fail\")")]
    License { source_id: String, reason: String },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Parquet(#[from] crate::parquet_out::ParquetError),
    #[error("stage {stage} broke conservation: {message}")]
    Conservation { stage: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Card(#[from] crate::card::CardError),
    #[error(transparent)]
    Parts(#[from] crate::parts::PartsError),
    #[error("{0}")]
    Staged(String),
    #[error("{recipe}: [audit] judgements: {source}")]
    Judgements {
        recipe: String,
        source: crate::precision::PrecisionError,
    },
}

/// A source that cannot be read: the recipe file and line, the source, the file and line
/// at fault, the reason, and for a relative path where it was looked for.
#[derive(Debug, thiserror::Error)]
#[error("{recipe}:{line}: source[{index}] {source_id:?}: {file}:{file_line}: {reason}{hint}")]
pub struct SourceError {
    pub recipe: String,
    pub line: usize,
    pub index: usize,
    pub source_id: String,
    pub file: String,
    pub file_line: u64,
    pub reason: String,
    /// Where a relative path was looked for, and where else it exists.
    pub hint: String,
}

pub struct RunOptions {
    /// Worker threads for per-record stages (0 = all cores).
    pub threads: usize,
    /// Directory relative input paths resolve against.
    pub root: PathBuf,
    /// Releases go to `<out>/<name>/<version>`.
    pub out: PathBuf,
    pub overwrite: bool,
    /// The recipe path as the user gave it (recorded in the manifest).
    pub recipe_path: String,
    /// Called with the number of records read so far, for progress bars.
    pub progress: Option<Box<dyn Fn(u64) + Sync>>,
    /// Applied to every decision before it is written (see [`writer::Scrubber`]).
    pub scrubber: Option<writer::Scrubber>,
    /// Set for a derived release: the parent it was made from (its licence is inherited).
    pub parent: Option<manifest::ParentRef>,
}

/// What `run_recipe` returns.
pub struct RunSummary {
    pub dir: PathBuf,
    pub manifest: Manifest,
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
    Staged(crate::parts::Staged),
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
) -> Result<RunSummary, RunError> {
    let order = crate::parts::InputOrder::new(recipe, &opts.root);
    let staged = crate::parts::read_staged(parts, decisions, &order)?;
    build_release(recipe, recipe_text, registry, opts, Feed::Staged(staged))
}

/// The one path of `run` and `finalise`: licence gate, the leading per-record stages (run
/// here over the sources, or replayed from their staged results), the whole-corpus stages
/// and what follows them, the release files.
fn build_release(
    recipe: &Recipe,
    recipe_text: &str,
    registry: &[StageEntry],
    opts: &RunOptions,
    feed: Feed,
) -> Result<RunSummary, RunError> {
    let run_started = std::time::Instant::now();
    let sources = source_infos(recipe);
    let mut ctx = BuildCtx {
        seed: recipe.seed,
        sources: sources.clone(),
        root: opts.root.clone(),
        extra_inputs: Vec::new(),
        input_decisions: Vec::new(),
        split: recipe.split.clone(),
        limits: recipe.limits,
    };
    let planned = build_stages(recipe, &opts.recipe_path, recipe_text, registry, &mut ctx)
        .map_err(RunError::Recipe)?;
    // Curators' judgements of the rules (an input of the run, hashed like the others). They
    // count once the run has shown which of them name a decision of this release.
    let judged = match &recipe.audit.judgements {
        Some(p) => {
            let path = ctx.resolve(p);
            let judged =
                crate::precision::read_judgements(&path).map_err(|e| RunError::Judgements {
                    recipe: opts.recipe_path.clone(),
                    source: e,
                })?;
            ctx.extra_inputs.push(path);
            judged
        }
        None => Vec::new(),
    };
    let pool = std::sync::Arc::new(thread_pool(opts.threads)?);

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
    release.judged = crate::precision::JudgedIndex::new(&judged);

    let mut books = Books {
        stats: vec![StageStats::default(); 2 + planned.len()],
        metrics: BTreeMap::new(),
    };
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
    // The inputs the reader does not hash are hashed on the pool while the sources are
    // read, not before: the hashing fills the pool's idle moments instead of holding up the
    // first read.
    let hashing = {
        let (pool, root) = (pool.clone(), opts.root.clone());
        let others: Vec<(usize, UnhashedInput)> = to_hash
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.read_as.is_none())
            .map(|(i, f)| (i, f.clone()))
            .collect();
        std::thread::spawn(move || pool.install(|| hash_inputs(others, &root)))
    };
    // Per accepted source, the digest of each file its reader read whole, in file order.
    let read_digests = std::sync::Mutex::new(vec![Vec::new(); accepted.len()]);

    // Rows of stage inputs (annotation files) refused while building: decisions as they are.
    if !ctx.input_decisions.is_empty() {
        for d in &ctx.input_decisions {
            release.write_decision(d)?;
        }
        books.metrics.entry("inputs".into()).or_default().insert(
            "refused_rows".into(),
            serde_json::json!(ctx.input_decisions.len()),
        );
    }

    // The leading per-record stages stream; from the first corpus stage on, records are held.
    let streaming_len = planned
        .iter()
        .position(|p| matches!(p.stage, BuiltStage::Corpus(_)))
        .unwrap_or(planned.len());
    let all_streaming = streaming_len == planned.len();
    let streaming = &planned[..streaming_len];
    let run = Run {
        recipe,
        recipe_text,
        opts,
        pool: &pool,
        sources: &sources,
    };
    let read = match feed {
        Feed::Staged(s) => {
            let mut held = Vec::new();
            let read = replay_staged(
                s,
                streaming,
                all_streaming,
                &mut books,
                &mut release,
                &mut held,
                recipe,
            )?;
            if !all_streaming {
                run_rest(
                    &run,
                    &planned,
                    streaming_len,
                    held,
                    &mut books,
                    &mut release,
                )?;
            }
            read
        }
        Feed::Sources => {
            let leading = Leading {
                accepted: &accepted,
                digests: &read_digests,
                stages: streaming,
                all_streaming,
            };
            // A first corpus stage with an online form takes the records as they come;
            // otherwise they are held for it.
            let mut hold = match OnlineRun::start(&planned, streaming_len, &release) {
                Some(o) => Hold::Online(Box::new(o)),
                None => match KeyedRun::start(&planned, streaming_len, &release) {
                    Some(k) => Hold::Keyed(Box::new(k)),
                    None => Hold::Records(Vec::new()),
                },
            };
            let read = read_sources(&run, &leading, &mut books, &mut release, &mut hold)?;
            match hold {
                Hold::Online(o) => {
                    let (at, merged) = o.finish(&mut books, &mut release)?;
                    stream_after(&run, &planned, at, merged, &mut books, &mut release)?;
                }
                Hold::Records(held) if !all_streaming => {
                    run_rest(
                        &run,
                        &planned,
                        streaming_len,
                        held,
                        &mut books,
                        &mut release,
                    )?;
                }
                Hold::Keyed(k) => k.finish(&run, &planned, &mut books, &mut release)?,
                Hold::Records(_) => {}
            }
            read
        }
    };
    let rows = release.finish_rows()?;
    let hashed = hashing.join().map_err(|_| RunError::Io {
        path: "hashing thread".into(),
        source: std::io::Error::other("the hashing thread panicked"),
    })?;
    let read_digests = read_digests.into_inner().unwrap_or_else(|e| e.into_inner());
    let inputs = merge_hashes(to_hash, hashed, read_digests, &opts.root, &pool)?;
    tracing::debug!(
        ms = run_started.elapsed().as_millis() as u64,
        records = read,
        files = inputs.len(),
        "inputs hashed, read, staged and written"
    );
    finish_release(
        recipe,
        recipe_text,
        opts,
        release,
        books,
        &planned,
        source_refs,
        inputs,
        &allowed,
        rows,
        &judged,
        &pool,
    )
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
