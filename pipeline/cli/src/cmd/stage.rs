//! `stage` (the per-record chain as a Unix filter) and `stages` (the table).

use crate::stages::STAGES;
use anyhow::{Context, bail};
use clap::Args;
use kcurate_core::BuildCtx;
use kcurate_core::recipe::Recipe;
use kcurate_release::runner;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct StageArgs {
    /// The recipe whose stages (and settings) to run.
    #[arg(long)]
    pub recipe: PathBuf,
    /// Only these stages, comma-separated, in recipe order (default: every per-record stage
    /// of the recipe; whole-corpus stages such as dedup are skipped, named on stderr).
    #[arg(long, value_delimiter = ',')]
    pub stages: Vec<String>,
    /// Where decisions go: a JSONL file (locked: a second process writing the same file at
    /// the same time fails instead of interleaving); a path with `{partition}`, or an
    /// existing directory, for one file per process (named after the process's first input
    /// line, so parallel partitions never share a file); or `-` for stdout, each decision as
    /// a tagged line `{"decision":{...}}` between the records.
    #[arg(long, default_value = "decisions.jsonl")]
    pub decisions: PathBuf,
    /// Directory that the recipe's relative paths resolve against (default: the recipe
    /// file's directory).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Run only the per-record stages before the recipe's first whole-corpus stage (those
    /// after it run after dedup, in `kcurate finalise`) and end the output with a
    /// `{"stats":[...]}` line: a part `finalise` reads. Needs `--decisions -`.
    #[arg(long, conflicts_with = "stages")]
    pub before_corpus: bool,
    /// With --before-corpus, when dedup is the recipe's first whole-corpus stage: after each
    /// record dedup is given, a line `{"dedup":{...}}` with its place in input order and its
    /// dedup keys (exact hash, MinHash signature, and the `meet` keys an engine's shuffle
    /// groups by), for `kcurate dedup-verdicts`; keep them in the parts: `finalise
    /// --dedup-verdicts` checks the verdicts against them.
    #[arg(long, requires = "before_corpus")]
    pub dedup_keys: bool,
}

#[derive(Args)]
pub struct StagesArgs {
    /// Print each stage's documentation.
    #[arg(long)]
    pub doc: bool,
}

pub fn stage(a: StageArgs) -> anyhow::Result<ExitCode> {
    if a.recipe == std::path::Path::new("-") {
        bail!("--recipe -: `stage` reads its records from stdin; give the recipe as a file");
    }
    let (mut recipe, _) = Recipe::load(&a.recipe)?;
    let shown = a.recipe.display().to_string();
    let root = super::run::root_of(&a.root, &a.recipe);
    if !a.stages.is_empty() {
        for s in &a.stages {
            if recipe.stage(s).is_none() {
                bail!("{shown}: the recipe has no stage {s:?}");
            }
        }
        recipe.stages.retain(|t| a.stages.contains(&t.name));
    }
    let mut ctx = BuildCtx::for_recipe(&recipe, &root);
    let sources = ctx.sources.clone();
    let mut planned = runner::build_stages(&recipe, &shown, STAGES, &mut ctx).map_err(|errs| {
        anyhow::anyhow!(
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    let keys = keep_per_record(&a, &recipe, &shown, &root, &mut planned, &mut ctx)?;
    run_stages(a, recipe, root, planned, ctx, sources, keys)
}

/// Leaves the per-record stages in `planned`: with `--before-corpus` those before the
/// first whole-corpus stage (whose dedup keys go out with `--dedup-keys`), else all of
/// them, a whole-corpus stage skipped with a note (or refused when named).
fn keep_per_record(
    a: &StageArgs,
    recipe: &Recipe,
    shown: &str,
    root: &std::path::Path,
    planned: &mut Vec<runner::Planned>,
    ctx: &mut BuildCtx,
) -> anyhow::Result<Option<super::dedup::KeyWriter>> {
    let explicit = !a.stages.is_empty();
    let corpus: Vec<String> = planned
        .iter()
        .filter(|p| matches!(p.stage, kcurate_core::BuiltStage::Corpus(_)))
        .map(|p| p.name.clone())
        .collect();
    let mut keys = None;
    if a.before_corpus {
        if a.decisions.as_os_str() != "-" {
            bail!(
                "--before-corpus writes a part for `kcurate finalise` (records, tagged decisions, a stats line) on stdout: give --decisions -"
            );
        }
        let first = planned
            .iter()
            .position(|p| matches!(p.stage, kcurate_core::BuiltStage::Corpus(_)))
            .unwrap_or(planned.len());
        let first_corpus = planned.drain(first..).next();
        if a.dedup_keys {
            keys = super::dedup::KeyWriter::new(recipe, shown, root, first_corpus)?;
        }
        // `finalise` writes the annotation files' refused rows itself, once.
        ctx.input_decisions.clear();
    } else if !corpus.is_empty() {
        if explicit {
            bail!(
                "{shown}: {} is a whole-corpus stage and cannot run per record",
                corpus.join(", ")
            );
        }
        eprintln!(
            "kcurate stage: skipping whole-corpus stage(s) {} (they need every record: run them on the gathered output)",
            corpus.join(", ")
        );
        planned.retain(|p| !matches!(p.stage, kcurate_core::BuiltStage::Corpus(_)));
    }
    Ok(keys)
}

/// Runs `planned` over the records on stdin, decisions to `--decisions`.
fn run_stages(
    a: StageArgs,
    recipe: Recipe,
    root: PathBuf,
    planned: Vec<runner::Planned>,
    ctx: BuildCtx,
    sources: std::collections::BTreeMap<String, kcurate_core::SourceInfo>,
    mut keys: Option<super::dedup::KeyWriter>,
) -> anyhow::Result<ExitCode> {
    let scrubber = super::run::pii_scrubber(&recipe, &root)?;
    let scrub = super::run::pii_settings(&recipe, &root)?;
    let mut reads = crate::output_guard::Reads::new();
    reads
        .recipe(&a.recipe, &recipe, &root)
        .stdin()
        .stdout_out()?;
    let mut stdin = std::io::stdin().lock();
    let first = super::partition::peek_first_line(&mut stdin)?;
    let stdout = std::io::stdout().lock();
    let target = super::partition::DecisionTarget::parse(&a.decisions);
    let summary = match target {
        super::partition::DecisionTarget::Stdout => {
            let shared = std::rc::Rc::new(std::cell::RefCell::new(BufWriter::new(stdout)));
            let mut decisions = super::partition::Tagged::new(shared.clone());
            write_input_decisions(&mut decisions, &ctx.input_decisions)?;
            let mut after = |r: &kcurate_core::Record, w: &mut dyn Write| match &mut keys {
                Some(k) => k.write(r, w),
                None => Ok(()),
            };
            let summary = runner::run_filter_with(
                &planned,
                &sources,
                first.chain(stdin),
                super::partition::Shared(shared.clone()),
                decisions,
                recipe.on_error,
                scrubber,
                &mut after,
            )
            .map_err(|e| super::run::scrub_error(scrub.as_ref(), e.into()))?;
            if a.before_corpus {
                write_stats_line(&mut *shared.borrow_mut(), &summary)?;
            }
            shared.borrow_mut().flush()?;
            summary
        }
        target => {
            if let Some(path) = target.path(&first.bytes) {
                reads.file_out("--decisions", &path)?;
            }
            let file = target.open(&first.bytes)?;
            let mut decisions = BufWriter::new(file);
            write_input_decisions(&mut decisions, &ctx.input_decisions)?;
            runner::run_filter(
                &planned,
                &sources,
                first.chain(stdin),
                BufWriter::new(stdout),
                decisions,
                recipe.on_error,
                scrubber,
            )
            .map_err(|e| super::run::scrub_error(scrub.as_ref(), e.into()))?
        }
    };
    for (name, s) in &summary.stats {
        tracing::info!(stage = %name, items_in = s.items_in, items_out = s.items_out, dropped = s.dropped, "stage finished");
    }
    if summary.malformed > 0 {
        // The records went on; the exit status and this line say some input did not.
        eprintln!(
            "warning: {} input line(s) could not be read as records: quarantined as ingest.malformed decisions (--decisions {})",
            summary.malformed,
            a.decisions.display()
        );
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// The part's stats line (`{"stats":[...]}`) that `kcurate finalise` adds up.
fn write_stats_line(out: &mut impl Write, summary: &runner::FilterSummary) -> anyhow::Result<()> {
    let stats: Vec<kcurate_release::parts::NamedStats> = summary
        .stats
        .iter()
        .map(|(name, stats)| kcurate_release::parts::NamedStats {
            name: name.clone(),
            stats: stats.clone(),
        })
        .collect();
    serde_json::to_writer(&mut *out, &serde_json::json!({ "stats": stats }))?;
    out.write_all(b"\n")?;
    Ok(())
}

fn write_input_decisions(
    out: &mut impl Write,
    decisions: &[kcurate_core::Decision],
) -> anyhow::Result<()> {
    for d in decisions {
        serde_json::to_writer(&mut *out, d)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

pub fn stages(a: StagesArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for e in STAGES {
        if a.doc {
            writeln!(out, "## {}\n\n{}\n", e.name, e.doc.trim())?;
        } else {
            writeln!(out, "{:<12} {}", e.name, e.summary)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct IngestArgs {
    /// The recipe whose sources to read (the licence gate applies).
    pub recipe: PathBuf,
    /// Where `ingest.malformed` and `license.not_allowed` decisions go (JSONL); `-` for
    /// stdout when the records go to a file (`--out FILE`).
    #[arg(long, default_value = "decisions.jsonl")]
    pub decisions: PathBuf,
    /// Where the records go (Record JSONL): `-` for stdout (the default), or a file.
    #[arg(long, default_value = "-")]
    pub out: PathBuf,
    /// Directory that the recipe's relative paths resolve against (default: the recipe
    /// file's directory).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
}

/// A JSONL destination of `ingest`: stdout for `-`, else a file created (named in errors).
fn jsonl_out(path: &std::path::Path) -> anyhow::Result<Box<dyn Write>> {
    if path == std::path::Path::new("-") {
        return Ok(Box::new(BufWriter::new(std::io::stdout().lock())));
    }
    let f = std::fs::File::create(path).with_context(|| path.display().to_string())?;
    Ok(Box::new(BufWriter::new(f)))
}

/// `ingest`: a recipe's sources as Record JSONL on stdout, the input half of `stage`.
pub fn ingest(a: IngestArgs) -> anyhow::Result<ExitCode> {
    use kcurate_io::ingest::{Item, read_source};
    let dash = std::path::Path::new("-");
    if a.decisions == dash && a.out == dash {
        bail!(
            "--decisions - and --out - (the default) would both write to stdout: give the records a file with --out FILE, or the decisions a file with --decisions FILE"
        );
    }
    if a.decisions != dash && a.out != dash && crate::output_guard::same_file(&a.decisions, &a.out)
    {
        bail!(
            "--decisions and --out name the same file {}: records and decisions go to two files",
            a.out.display()
        );
    }
    let (recipe, text) = Recipe::load(&a.recipe)?;
    let root = super::run::root_of(&a.root, &a.recipe);
    let mut reads = crate::output_guard::Reads::new();
    reads.recipe(&a.recipe, &recipe, &root);
    reads.file_out("--out", &a.out)?;
    reads.file_out("--decisions", &a.decisions)?;
    reads.stdout_out()?;
    let mut out = jsonl_out(&a.out)?;
    let mut dec = jsonl_out(&a.decisions)?;
    let mut bad = 0u64;
    // Quarantined lines are quoted in their decisions, scrubbed as `run` scrubs them.
    let mut quarantined = runner::QuarantinedLines::default();
    let scrubber = super::run::pii_scrubber(&recipe, &root)?;
    for (i, s) in recipe.sources.iter().enumerate() {
        if let Err(reason) = kcurate_core::license::check(s.license.as_deref()) {
            if recipe.on_error == kcurate_core::recipe::OnError::Fail {
                bail!("source {}: licence refused: {reason}", s.id);
            }
            bad += 1;
            let d = runner::license_decision(s, &reason);
            serde_json::to_writer(&mut dec, &d)?;
            dec.write_all(b"\n")?;
            continue;
        }
        for item in read_source(s, &root) {
            match item {
                Item::Record(r) => {
                    serde_json::to_writer(&mut out, &r)?;
                    out.write_all(b"\n")?;
                }
                Item::Malformed(m) => {
                    if m.kind == kcurate_io::ingest::Problem::Source {
                        let line = kcurate_core::recipe::table_line(&text, "source", i);
                        bail!("{}:{line}: source[{i}] {:?}: {m}", a.recipe.display(), s.id);
                    }
                    if recipe.on_error == kcurate_core::recipe::OnError::Fail {
                        bail!("{m}");
                    }
                    bad += 1;
                    let text = quarantined.text(s, &root, &m);
                    let mut d = runner::malformed_decision(&s.id, &m, text);
                    if let Some(f) = &scrubber {
                        f(&mut d);
                    }
                    serde_json::to_writer(&mut dec, &d)?;
                    dec.write_all(b"\n")?;
                }
            }
        }
    }
    out.flush()?;
    dec.flush()?;
    Ok(if bad > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}
