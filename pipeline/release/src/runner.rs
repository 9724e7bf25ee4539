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

/// Keys of a `[[stage]]` table that the runner reads; the rest go to the stage.
const RUNNER_KEYS: [&str; 4] = ["name", "only_sources", "only_styles", "only_domains"];
const CHUNK: usize = 2048;

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

/// A built stage with the runner's own filters.
pub struct Planned {
    pub stage: BuiltStage,
    pub name: String,
    only_sources: Option<BTreeSet<String>>,
    only_styles: Option<BTreeSet<String>>,
    only_domains: Option<BTreeSet<String>>,
}

impl Planned {
    fn applies(&self, rec: &Record, sources: &BTreeMap<String, SourceInfo>) -> bool {
        let info = sources.get(&rec.source);
        let hit = |set: &Option<BTreeSet<String>>, v: Option<&str>| match set {
            None => true,
            Some(s) => v.is_some_and(|v| s.contains(v)),
        };
        hit(&self.only_sources, Some(&rec.source))
            && hit(&self.only_styles, info.map(|i| i.style.as_str()))
            && hit(&self.only_domains, info.map(|i| i.domain.as_str()))
    }
}

pub fn source_infos(recipe: &Recipe) -> BTreeMap<String, SourceInfo> {
    recipe
        .sources
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                SourceInfo {
                    id: s.id.clone(),
                    domain: s.domain.clone(),
                    style: s.style.as_str().to_string(),
                    license: s.license.clone().unwrap_or_default(),
                },
            )
        })
        .collect()
}

/// Builds every stage the recipe names, reporting all problems at once, each located in the
/// recipe file.
pub fn build_stages(
    recipe: &Recipe,
    recipe_path: &str,
    recipe_text: &str,
    registry: &[StageEntry],
    ctx: &mut BuildCtx,
) -> Result<Vec<Planned>, Vec<RecipeError>> {
    let mut planned = Vec::new();
    let mut errors = Vec::new();
    for (i, table) in recipe.stages.iter().enumerate() {
        let line = table_line(recipe_text, "stage", i);
        let name = table
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let err = |key: &str, message: String| RecipeError {
            path: recipe_path.to_string(),
            line,
            key: format!("stage[{i}] ({name}).{key}"),
            message,
        };
        let Some(entry) = registry.iter().find(|e| e.name == name) else {
            let known: Vec<&str> = registry.iter().map(|e| e.name).collect();
            errors.push(err(
                "name",
                format!("unknown stage {name:?}; known: {}", known.join(", ")),
            ));
            continue;
        };
        let mut filters: [Option<BTreeSet<String>>; 3] = [None, None, None];
        for (k, key) in RUNNER_KEYS[1..].iter().enumerate() {
            if let Some(v) = table.get(*key) {
                match v.as_array().map(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(String::from))
                        .collect::<Option<BTreeSet<_>>>()
                }) {
                    Some(Some(set)) => filters[k] = Some(set),
                    _ => errors.push(err(key, "must be a list of strings".into())),
                }
            }
        }
        let settings: toml::Table = table
            .iter()
            .filter(|(k, _)| !RUNNER_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        match (entry.build)(&settings, ctx) {
            Ok(stage) => {
                let [only_sources, only_styles, only_domains] = filters;
                planned.push(Planned {
                    stage,
                    name,
                    only_sources,
                    only_styles,
                    only_domains,
                })
            }
            Err(e) => errors.push(err("settings", e.to_string())),
        }
    }
    if errors.is_empty() {
        Ok(planned)
    } else {
        Err(errors)
    }
}

/// The books of one run.
#[derive(Default)]
struct Books {
    stats: Vec<StageStats>,
    metrics: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

/// What `run_recipe` returns.
pub struct RunSummary {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

fn rule(id: &str) -> RuleId {
    RuleId::new(id)
}

/// Outputs, decisions and per-stage stats of one record's trip through a chain.
type ChainOut = (Vec<Record>, Vec<Decision>, Vec<StageStats>);

/// One `Out` per stage of a chain, reused record after record by one worker (a new `Out`
/// per record and stage allocated its name and buffers each time).
#[derive(Default)]
struct ChainScratch {
    outs: Vec<Out>,
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
fn run_chain(
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
type CorpusOut = (
    Vec<Record>,
    Vec<Decision>,
    StageStats,
    BTreeMap<String, serde_json::Value>,
);

fn run_corpus(
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
    let dropped_ids: BTreeSet<&str> = ds
        .iter()
        .filter(|d| d.action == kcurate_core::Action::Drop)
        .map(|d| d.item.as_str())
        .collect();
    let mut covered: BTreeSet<&str> = BTreeSet::new();
    for r in &kept {
        covered.insert(r.id.as_str());
        covered.extend(r.parents.iter().map(String::as_str));
    }
    for id in &in_ids {
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
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        opts.threads
    };
    let pool = std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| RunError::Io {
                path: "thread pool".into(),
                source: std::io::Error::other(e),
            })?,
    );

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

    // Licence gate, and the manifest's list of inputs.
    let mut books = Books {
        stats: vec![StageStats::default(); 2 + planned.len()],
        metrics: BTreeMap::new(),
    };
    let (ingest_i, license_i) = (0usize, 1usize);
    let mut source_refs = Vec::new();
    // Kept compact: a corpus can be many thousands of small files.
    let mut to_hash = InputList::default();
    let mut allowed = Vec::new();
    let mut accepted = Vec::new();
    for s in &recipe.sources {
        books.stats[license_i].items_in += 1;
        let lic = s.license.clone().unwrap_or_default();
        // JSON-array files of an accepted source are read whole: the reader hashes them.
        let mut read_by = None;
        let status = match license::check(s.license.as_deref()) {
            Ok(a) => {
                allowed.push(a.clone());
                if s.format == Format::Json && matches!(feed, Feed::Sources) {
                    read_by = Some(accepted.len());
                }
                accepted.push(s);
                books.stats[license_i].items_out += 1;
                "used".to_string()
            }
            Err(reason) => {
                if recipe.on_error == OnError::Fail {
                    return Err(RunError::License {
                        source_id: s.id.clone(),
                        reason,
                    });
                }
                let d = license_decision(s, &reason);
                books.stats[license_i].count(&d);
                books.stats[license_i].dropped += 1;
                release.write_decision(&d)?;
                format!("refused: {reason}")
            }
        };
        let shown_license = license::check(s.license.as_deref())
            .map(|a: Allowed| a.spdx())
            .unwrap_or(lic);
        let listed = list_files(s, &opts.root);
        // An accepted source that is not there stops the run before anything is read.
        if status == "used"
            && let Err(m) = &listed
        {
            return Err(source_error(recipe, recipe_text, opts, &s.id, m));
        }
        if let Ok(files) = listed {
            let owner = to_hash.owner(&s.id, &shown_license);
            for (j, (shown, _)) in files.into_iter().enumerate() {
                to_hash.files.push(UnhashedInput {
                    owner,
                    shown: shown.into_boxed_str(),
                    path: None,
                    read_as: read_by.map(|k| (k as u32, j as u32)),
                });
            }
        }
        source_refs.push(SourceRef {
            id: s.id.clone(),
            license: shown_license,
            domain: s.domain.clone(),
            style: s.style.as_str().to_string(),
            attribution: s.attribution.clone(),
            status,
        });
    }
    for p in &ctx.extra_inputs {
        let owner = to_hash.owner("stage", "n/a (tool input)");
        let shown = p.strip_prefix(&opts.root).unwrap_or(p).display();
        to_hash.files.push(UnhashedInput {
            owner,
            shown: shown.to_string().into_boxed_str(),
            path: Some(p.clone().into_boxed_path()),
            read_as: None,
        });
    }
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
    let mut held: Vec<Record> = Vec::new();
    let mut read = 0u64;
    let mut quarantined = QuarantinedLines::default();
    // One thread reads and stages chunks (on the pool) while this one writes the previous
    // chunk's results: writing (hashing included) overlaps the work on the pool. Chunks
    // arrive in input order, so the bytes do not depend on the timing. Up to 4 staged chunks
    // wait, so the reader keeps the pool busy while the writer waits for a Parquet row group.
    let streaming = &planned[..streaming_len];
    let staged = match feed {
        Feed::Sources => None,
        Feed::Staged(s) => Some(s),
    };
    let produced = match staged {
        Some(s) => replay_staged(
            s,
            streaming,
            all_streaming,
            &mut books,
            &mut release,
            &mut held,
            recipe,
        )
        .map(|n| read = n),
        None => std::thread::scope(|scope| -> Result<(), RunError> {
            let (tx, rx) =
                std::sync::mpsc::sync_channel::<(usize, Vec<Result<ChunkOut, RunError>>)>(4);
            let pool_ref = &pool;
            let sources_ref = &sources;
            let accepted_ref = &accepted;
            let digests_ref = &read_digests;
            let producer = scope.spawn(move || {
                for (k, s) in accepted_ref.iter().enumerate() {
                    let run_jobs = |jobs: Vec<FileJob>| -> Vec<Vec<Item>> {
                        let files: Vec<FileItems> =
                            pool_ref.install(|| jobs.into_par_iter().map(|job| job()).collect());
                        let mut digests = digests_ref.lock().unwrap_or_else(|e| e.into_inner());
                        files
                            .into_iter()
                            .map(|f| {
                                digests[k].push(f.digest);
                                f.items
                            })
                            .collect()
                    };
                    let mut items = read_source_with(s, &opts.root, &run_jobs).peekable();
                    while items.peek().is_some() {
                        let mut chunk = Vec::with_capacity(CHUNK);
                        chunk.extend(items.by_ref().take(CHUNK));
                        let results = pool_ref.install(|| {
                            process_chunk(chunk, streaming, all_streaming, sources_ref, recipe)
                        });
                        if tx.send((k, results)).is_err() {
                            // The writer stopped on an error; it reports it.
                            return;
                        }
                    }
                }
            });
            for (k, results) in rx {
                let s = accepted[k];
                read += results.len() as u64;
                for r in results {
                    let r = r?;
                    books.stats[ingest_i].items_in += 1;
                    match r {
                        ChunkOut::Malformed(m) => {
                            if m.kind == Problem::Source {
                                return Err(source_error(recipe, recipe_text, opts, &s.id, &m));
                            }
                            if recipe.on_error == OnError::Fail {
                                return Err(RunError::Input(m));
                            }
                            let text = quarantined.text(&opts.root, &m);
                            let d = malformed_decision(&s.id, &m, text);
                            books.stats[ingest_i].count(&d);
                            books.stats[ingest_i].dropped += 1;
                            release.write_decision(&d)?;
                        }
                        ChunkOut::Done(outs, ds, st, rows) => {
                            books.stats[ingest_i].items_out += 1;
                            for (i, x) in st.iter().enumerate() {
                                books.stats[2 + i] += x;
                            }
                            for d in &ds {
                                release.write_decision(d)?;
                            }
                            if all_streaming {
                                for (split, bytes, chars) in rows {
                                    release.write_row_bytes(&split, &bytes, chars)?;
                                }
                            } else {
                                held.extend(outs);
                            }
                        }
                    }
                }
                if let Some(p) = &opts.progress {
                    p(read);
                }
            }
            producer.join().map_err(|_| RunError::Io {
                path: "reader thread".into(),
                source: std::io::Error::other("the reading thread panicked"),
            })
        }),
    };
    produced?;

    if !all_streaming {
        let mut i = streaming_len;
        while i < planned.len() {
            match &planned[i].stage {
                BuiltStage::Corpus(_) => {
                    let (recs, ds, st, m) =
                        run_corpus(&planned[i], std::mem::take(&mut held), &sources)?;
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
                    let results: Vec<Result<_, RunError>> = pool.install(|| {
                        std::mem::take(&mut held)
                            .into_par_iter()
                            .map_init(ChainScratch::default, |scratch, r| {
                                run_chain(r, &planned[i..end], &sources, scratch)
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
                    i = end;
                }
            }
        }
        for o in &held {
            release.write_record(o, recipe.split.assign(recipe.seed, &o.id))?;
        }
    }

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

/// The leading per-record stages' results, run elsewhere: their books, their decisions (as
/// written: the process that ran the stages scrubbed them) and their records, in input
/// order, in place of reading the sources. Returns the number of records that entered.
fn replay_staged(
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

/// The manifest's input files before their hashes: per file its owner (a source, or the
/// stages), its path as shown, and where the reader hashes it.
#[derive(Default)]
struct InputList {
    /// (source id, licence as shown) of each owner, shared by its files.
    owners: Vec<(String, String)>,
    files: Vec<UnhashedInput>,
}

impl InputList {
    /// The owner with this id and licence, added if new.
    fn owner(&mut self, id: &str, license: &str) -> u32 {
        let found = self
            .owners
            .iter()
            .position(|(i, l)| i == id && l == license);
        found.unwrap_or_else(|| {
            self.owners.push((id.to_string(), license.to_string()));
            self.owners.len() - 1
        }) as u32
    }
}

/// An input file of the manifest, before its hash.
#[derive(Clone)]
struct UnhashedInput {
    owner: u32,
    /// The path as the manifest shows it.
    shown: Box<str>,
    /// Where the file is, when not at `shown` resolved against the root.
    path: Option<Box<Path>>,
    /// (accepted source, file number) when the reader reads it whole and hashes the bytes
    /// it parses.
    read_as: Option<(u32, u32)>,
}

impl UnhashedInput {
    fn path(&self, root: &Path) -> PathBuf {
        match &self.path {
            Some(p) => p.to_path_buf(),
            None => Recipe::resolve(root, &self.shown),
        }
    }

    fn hashed(self, owners: &[(String, String)], sha256: String, size: u64) -> InputFile {
        let (source, license) = &owners[self.owner as usize];
        InputFile {
            source: source.clone(),
            path: self.shown.into_string(),
            sha256,
            size,
            license: license.clone(),
        }
    }
}

/// An input with its place in the manifest's list and its file's (sha256, size).
type HashedInput = (usize, UnhashedInput, std::io::Result<(String, u64)>);

/// Hashes the inputs (each with its place in the manifest's list) in parallel on the
/// current pool.
fn hash_inputs(files: Vec<(usize, UnhashedInput)>, root: &Path) -> Vec<HashedInput> {
    files
        .into_par_iter()
        .map(|(i, f)| {
            let hashed = sha256_file(&f.path(root));
            (i, f, hashed)
        })
        .collect()
}

/// The manifest's inputs, in their order: the files hashed by the hashing thread, those the
/// reader hashed as it parsed them, and (hashed now) those it was to read and did not read
/// whole (a source's `limit` reached, a file too large or unreadable). The first failure,
/// in input order, is the error.
fn merge_hashes(
    list: InputList,
    hashed: Vec<HashedInput>,
    read: Vec<Vec<Option<FileDigest>>>,
    root: &Path,
    pool: &rayon::ThreadPool,
) -> Result<Vec<InputFile>, RunError> {
    let InputList { owners, files } = list;
    // Matched by place in the source's listing, checked by path (a directory changed
    // between listings is hashed from the file).
    let digest = |f: &UnhashedInput| {
        let (k, j) = f.read_as?;
        let d = read.get(k as usize)?.get(j as usize)?.as_ref()?;
        (d.path_key == path_key(&f.shown)).then_some(d)
    };
    let unread: Vec<(usize, UnhashedInput)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.read_as.is_some() && digest(f).is_none())
        .map(|(i, f)| (i, f.clone()))
        .collect();
    // Both in input order, as `files` is: merged in one pass, without a slot per input.
    let mut hashed = hashed.into_iter().peekable();
    let mut unread = pool
        .install(|| hash_inputs(unread, root))
        .into_iter()
        .peekable();
    let mut inputs = Vec::with_capacity(files.len());
    for (i, f) in files.into_iter().enumerate() {
        let (f, hash) = match digest(&f) {
            Some(d) => (f, Ok((hex(&d.sha256), d.size))),
            None => {
                let next = if hashed.peek().is_some_and(|h| h.0 == i) {
                    hashed.next()
                } else {
                    unread.next_if(|h| h.0 == i)
                };
                let (_, f, hash) = next.expect("every input is hashed once");
                (f, hash)
            }
        };
        match hash {
            Ok((sha256, size)) => inputs.push(f.hashed(&owners, sha256, size)),
            Err(e) => {
                return Err(RunError::Io {
                    path: f.shown.into_string(),
                    source: e,
                });
            }
        }
    }
    Ok(inputs)
}

/// Runs the leading per-record stages over a chunk of items on the current pool; when every
/// stage streams, each output is also given its split and serialised here, in parallel.
fn process_chunk(
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
                        (split, writer::row_bytes(o), o.text.chars().count())
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

enum ChunkOut {
    Malformed(Malformed),
    /// Outputs, decisions, stats, and (when streaming) each output's split and row bytes.
    Done(
        Vec<Record>,
        Vec<Decision>,
        Vec<StageStats>,
        Vec<(Cow<'static, str>, Vec<u8>, usize)>,
    ),
}

fn process_item(
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

/// The decision that records a source the licence gate refused.
pub fn license_decision(s: &kcurate_core::recipe::SourceConfig, reason: &str) -> Decision {
    Decision {
        item: s.id.clone(),
        stage: "license".into(),
        rule: rule("license.not_allowed"),
        action: kcurate_core::Action::Drop,
        detail: format!(
            "licence {:?} refused: {reason}",
            s.license.clone().unwrap_or_default()
        ),
        score: None,
        span: None,
        text: None,
        source: s.id.clone(),
        origin: s.path.clone(),
    }
}

/// The error that stops a run at a source that cannot be read: it names the recipe file
/// and line, the source, the file and, for a relative path, where it was looked for (and
/// whether it exists relative to the recipe's directory instead).
pub fn source_error(
    recipe: &Recipe,
    recipe_text: &str,
    opts: &RunOptions,
    source_id: &str,
    m: &Malformed,
) -> RunError {
    let index = recipe
        .sources
        .iter()
        .position(|s| s.id == source_id)
        .unwrap_or(0);
    let path = &recipe.sources[index].path;
    let mut hint = String::new();
    if Path::new(path).is_relative() {
        let looked = Recipe::resolve(&opts.root, path);
        hint = format!(
            " (looked for {}; {})",
            looked.display(),
            root_phrase(&opts.root)
        );
        // Recipes once resolved from the working directory: say so when that is where the
        // file is.
        if !looked.exists() && opts.root != Path::new(".") && Path::new(path).exists() {
            hint.push_str(&format!(
                "; {path} exists relative to the working directory: write the path relative to the recipe's directory, or pass --root ."
            ));
        }
    }
    RunError::Source(Box::new(SourceError {
        recipe: opts.recipe_path.clone(),
        line: table_line(recipe_text, "source", index),
        index,
        source_id: source_id.to_string(),
        file: m.file.clone(),
        file_line: m.line,
        reason: m.reason.clone(),
        hint,
    }))
}

/// The longest quarantined line a decision quotes, in characters.
const QUOTED_LINE: usize = 500;

/// Reads quarantined input lines back for their decisions' `text`: a malformed line is
/// what the ingest stage removed, and a curator should be able to read it. Lines are read
/// forward through the file (the reader reports them in file order), so reading back costs
/// one pass per file however many of its lines were quarantined. Line 0 (a whole-file
/// problem) and a file that cannot be read quote nothing; bytes that are not UTF-8 are
/// shown as U+FFFD; a long line is cut at [`QUOTED_LINE`] characters.
#[derive(Default)]
pub struct QuarantinedLines {
    open: Option<(String, Box<dyn std::io::BufRead + Send>, u64)>,
}

impl QuarantinedLines {
    pub fn text(&mut self, root: &Path, m: &Malformed) -> Option<String> {
        if m.line == 0 {
            return None;
        }
        let reuse = matches!(&self.open, Some((f, _, at)) if *f == m.file && *at < m.line);
        if !reuse {
            // Decompressed as the reader read it (gzip, zstd).
            let f = kcurate_core::ingest::open_decoded(&Recipe::resolve(root, &m.file)).ok()?;
            self.open = Some((m.file.clone(), f, 0));
        }
        let (_, reader, at) = self.open.as_mut()?;
        let mut buf = Vec::new();
        while *at < m.line {
            buf.clear();
            // At most the bytes of QUOTED_LINE characters are kept: a line quarantined for
            // its length (gigabytes, say) is skipped to its newline, not read into memory.
            if read_line_bounded(reader, &mut buf, QUOTED_LINE * 4).ok()? == 0 {
                self.open = None;
                return None;
            }
            *at += 1;
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        Some(line.chars().take(QUOTED_LINE).collect())
    }
}

/// Reads one line (to its newline or the end) from `r`, keeping at most `cap` bytes of it in
/// `buf` and skipping the rest; returns the bytes the line had (0 at the end of the input).
pub fn read_line_bounded(
    r: &mut dyn std::io::BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<u64> {
    let mut len = 0u64;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(len);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len()).min(take);
        buf.extend_from_slice(&chunk[..room]);
        r.consume(take);
        len += take as u64;
        if done {
            return Ok(len);
        }
    }
}

/// The decision that records a quarantined input line; `text` is the line as read back
/// (see [`QuarantinedLines`]).
pub fn malformed_decision(source: &str, m: &Malformed, text: Option<String>) -> Decision {
    Decision {
        item: format!("{source}@{}:{}", m.file, m.line),
        stage: "ingest".into(),
        rule: rule(m.kind.rule()),
        action: kcurate_core::Action::Drop,
        detail: format!("{}:{}: {}: {}", m.file, m.line, m.field, m.reason),
        score: None,
        span: None,
        text,
        source: source.to_string(),
        origin: format!("{}:{}", m.file, m.line),
    }
}

#[allow(clippy::too_many_arguments)]
fn finish_release(
    recipe: &Recipe,
    recipe_text: &str,
    opts: &RunOptions,
    release: ReleaseDir,
    books: Books,
    planned: &[Planned],
    source_refs: Vec<SourceRef>,
    inputs: Vec<InputFile>,
    allowed: &[Allowed],
    rows: BTreeMap<String, u64>,
    judged: &[crate::precision::Judgement],
    pool: &rayon::ThreadPool,
) -> Result<RunSummary, RunError> {
    let rule_precision = release.judged.precision(judged);
    let tmp = release.tmp_dir.clone();
    let task = release.task().to_string();
    let started = std::time::Instant::now();
    let recipe_copy = tmp.join(manifest::RECIPE_COPY);
    std::fs::write(&recipe_copy, recipe_text).map_err(|e| RunError::Io {
        path: recipe_copy.display().to_string(),
        source: e,
    })?;

    // Ingest counts documents (one per source record), the licence gate sources.
    let counted = |mut s: StageStats, unit: &str| {
        if s.items_in > 0 {
            s.unit_in = unit.to_string();
        }
        if s.items_out > 0 {
            s.unit_out = unit.to_string();
        }
        s
    };
    let mut stages = vec![
        StageCount {
            name: "ingest".into(),
            stats: counted(books.stats[0].clone(), kcurate_core::Kind::Document.unit()),
        },
        StageCount {
            name: "license".into(),
            stats: counted(books.stats[1].clone(), "sources"),
        },
    ];
    for (i, p) in planned.iter().enumerate() {
        stages.push(StageCount {
            name: p.name.clone(),
            stats: books.stats[2 + i].clone(),
        });
    }
    let mut components = BTreeMap::new();
    components.insert("arrow/parquet".into(), "60".into());
    components.insert("rand".into(), "0.10".into());
    let task_name = task.clone();
    let mut manifest = Manifest {
        format_version: manifest::FORMAT_VERSION,
        tool: Tool {
            name: "kcurate".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            components,
        },
        recipe: RecipeRef {
            name: recipe.name.clone(),
            version: recipe.version.clone(),
            path: Recipe::recorded_path(&opts.recipe_path, std::env::current_dir().ok().as_deref()),
            sha256: sha256_hex(recipe_text.as_bytes()),
            copy: manifest::RECIPE_COPY.into(),
        },
        seed: recipe.seed,
        license: match &opts.parent {
            Some(p) => p.license.clone(),
            None => license::release_license(allowed),
        },
        sources: source_refs,
        inputs,
        stages,
        splits: BTreeMap::from([(task, rows)]),
        split_names: recipe.split.names.to_map(),
        by_source: release.by_source.clone(),
        lengths: release.lengths.clone(),
        metrics: books.metrics,
        outputs: Vec::new(),
        rule_precision,
        parent: opts.parent.clone(),
    };
    let examples: BTreeMap<String, Vec<crate::report::RuleExample>> = release
        .examples
        .iter()
        .map(|(r, v)| (r.clone(), v.iter().map(|(_, x)| x.clone()).collect()))
        .collect();
    let split_facts =
        crate::split_facts::collect(&tmp, &task_name, manifest.splits[&task_name].keys()).map_err(
            |e| RunError::Io {
                path: tmp.join(&task_name).display().to_string(),
                source: e,
            },
        )?;
    let report = crate::report::render(
        &manifest,
        &examples,
        recipe.audit.judgements.is_some(),
        &split_facts,
    );
    let report_path = tmp.join("report.html");
    std::fs::write(&report_path, report).map_err(|e| RunError::Io {
        path: report_path.display().to_string(),
        source: e,
    })?;
    let facts = crate::card::facts(
        recipe,
        &tmp,
        &task_name,
        &manifest.splits[&task_name],
        &release.hashed,
    )?;
    let card = crate::card::render(recipe, &manifest, &facts);
    let card_path = tmp.join("README.md");
    std::fs::write(&card_path, card).map_err(|e| RunError::Io {
        path: card_path.display().to_string(),
        source: e,
    })?;
    let files = manifest::list_release_files(&tmp).map_err(|e| RunError::Io {
        path: tmp.display().to_string(),
        source: e,
    })?;
    // The JSONL files and their streamed twins were hashed as they were written; the rest
    // are read back.
    let hashes: Vec<Result<(String, u64), RunError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| match release.hashed.get(f) {
                Some(h) => Ok(h.clone()),
                None => sha256_file(&tmp.join(f)).map_err(|e| RunError::Io {
                    path: f.clone(),
                    source: e,
                }),
            })
            .collect()
    });
    for (f, h) in files.into_iter().zip(hashes) {
        let (sha256, size) = h?;
        manifest.outputs.push(OutputFile {
            path: f,
            sha256,
            size,
        });
    }
    let mpath = tmp.join(manifest::MANIFEST);
    manifest.write_json(&mpath).map_err(|e| RunError::Io {
        path: mpath.display().to_string(),
        source: e,
    })?;
    let dir = release.commit()?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "parquet, card, report, output hashes and manifest written"
    );
    Ok(RunSummary { dir, manifest })
}

/// Where `kcurate stage` (the Unix-filter form of the per-record chain) sends its results.
pub struct FilterSummary {
    pub stats: Vec<(String, StageStats)>,
    pub malformed: u64,
}

/// The per-record stages as a filter: Record JSONL in, Record JSONL out, decisions to
/// `decisions`. Lines that are not records become `ingest.malformed` decisions.
pub fn run_filter(
    planned: &[Planned],
    sources: &BTreeMap<String, SourceInfo>,
    input: impl std::io::BufRead,
    mut output: impl std::io::Write,
    mut decisions: impl std::io::Write,
    on_error: OnError,
    scrubber: Option<writer::Scrubber>,
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
        }
    }
    output.flush().map_err(io)?;
    decisions.flush().map_err(io)?;
    Ok(FilterSummary {
        stats: planned.iter().map(|p| p.name.clone()).zip(stats).collect(),
        malformed,
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
