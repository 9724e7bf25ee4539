//! `run`, `check`, `verify`, `rebuild`.

use crate::progress::{StageLines, When};
use crate::stages::STAGES;
use anyhow::{Context, bail};
use clap::Args;
use kcurate_core::BuildCtx;
use kcurate_core::recipe::{LoadError, Recipe};
use kcurate_release::manifest::{self, Manifest};
use kcurate_release::runner::{self, RunOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where a release goes and how it is written: `run`, `finalise` and `challenge` share
/// these flags.
#[derive(Args)]
pub struct OutputArgs {
    /// Where releases go: <out>/<name>/<version>.
    #[arg(long, default_value = "releases", value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub out: PathBuf,
    /// Worker threads (0 = all cores; at most 4 × the cores, and at least 8 allowed). The
    /// output bytes do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    pub threads: usize,
    /// Replace an existing release of the same name and version.
    #[arg(long)]
    pub overwrite: bool,
    /// Memory for the records whole-corpus stages hold (dedup's survivors, assign_split's
    /// records) before they spill to encrypted files: 512M, 2G, 1.5GiB or bytes. Default: an
    /// eighth of the machine's memory, at least 16 MiB and at most 32 MiB. The output bytes
    /// do not depend on it.
    #[arg(long, value_name = "SIZE", value_parser = memory_arg)]
    pub memory: Option<u64>,
    /// Progress on stderr, one line per stage (items done / total, rate, ETA): `auto` only
    /// when stderr is a terminal, `always` (also into a pipe), or `never`.
    #[arg(long, value_enum, default_value_t = When::Auto)]
    pub progress: When,
}

impl OutputArgs {
    /// The invocation of a recipe whose relative paths resolve against `root`.
    pub fn invocation<'a>(
        &'a self,
        root: &'a std::path::Path,
        parent: Option<manifest::ParentRef>,
    ) -> Invocation<'a> {
        Invocation {
            out: &self.out,
            threads: self.threads,
            overwrite: self.overwrite,
            root,
            parent,
            progress: self.progress,
            reads: Vec::new(),
            memory: self.memory,
        }
    }
}

fn memory_arg(s: &str) -> Result<u64, String> {
    runner::memory::parse_size(s).map_err(|e| e.to_string())
}

#[derive(Args)]
pub struct RunArgs {
    /// The recipe (configs/*.toml; `-` reads it from stdin).
    pub recipe: PathBuf,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Directory that the recipe's relative paths resolve against (default: the recipe
    /// file's directory; `.` for a recipe read from stdin).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
}

#[derive(Args)]
pub struct FinaliseArgs {
    /// The recipe the parts were staged with.
    pub recipe: PathBuf,
    /// The parts: a directory of files (or one file), each the stdout of
    /// `kcurate stage --recipe RECIPE --before-corpus --decisions -` over some of
    /// `kcurate ingest RECIPE`'s records, in any order; `-`: one part on stdin. A part whose
    /// stats line does not add up to its lines, or an item in two parts, is refused (exit 4).
    #[arg(long)]
    pub parts: PathBuf,
    /// The decisions file(s) of `kcurate ingest` (quarantined lines), a file or a directory;
    /// `-`: stdin (when neither the recipe nor --parts is -).
    #[arg(long)]
    pub decisions: Vec<PathBuf>,
    /// Dedup's verdicts, decided elsewhere (`kcurate dedup-verdicts` over the key lines of
    /// `stage --dedup-keys` that an engine's shuffle found colliding), applied in place of
    /// running dedup over the whole corpus, with the same decisions. Checked first against
    /// the parts' key lines (stage them with `--dedup-keys`): the verdicts must be exactly the
    /// drops dedup makes of the records whose keys collide, replayed in input order with keys
    /// recomputed from their texts. A line that is no verdict, a verdict dedup does not make,
    /// or a drop without its verdict stops finalise (exit 4), naming the file and line.
    #[arg(long, value_parser = super::file_arg, value_hint = clap::ValueHint::FilePath)]
    pub dedup_verdicts: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Directory that the recipe's relative paths resolve against (default: the recipe
    /// file's directory, as for `run`).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
}

#[derive(Args)]
pub struct CheckArgs {
    /// The recipe (configs/*.toml).
    pub recipe: PathBuf,
    /// Directory that the recipe's relative paths resolve against (default: the recipe
    /// file's directory; `.` for a recipe read from stdin).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// For a challenge recipe: the parent release its `release:` paths and
    /// `license = "inherit"` refer to (as `kcurate challenge` resolves them). Without it
    /// those are noted, not checked.
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: Option<PathBuf>,
    /// Fail on warnings too (a source the licence gate will refuse).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// A release directory.
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: PathBuf,
    /// Directory that the recorded input paths resolve against, as for `rebuild` (default:
    /// the directory of the recipe path the manifest records, from the working directory).
    /// Inputs found there are re-hashed; inputs not found are noted and checked through
    /// the manifest's `fields_sha256` only.
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Do not re-hash the input files (a large corpus); their records are still checked
    /// through `fields_sha256`.
    #[arg(long)]
    pub no_inputs: bool,
}

#[derive(Args)]
pub struct RebuildArgs {
    /// The manifest.json of the release to rebuild (a file: its directory is the release's).
    #[arg(value_parser = super::file_arg, value_hint = clap::ValueHint::FilePath)]
    pub manifest: PathBuf,
    /// Where the rebuilt release goes (<out>/<name>/<version>).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub out: PathBuf,
    /// Worker threads (0 = all cores; at most 4 × the cores, and at least 8 allowed). The
    /// output bytes do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    pub threads: usize,
    /// Directory that the recorded input paths resolve against (default: the directory of
    /// the recipe path the manifest records, from the working directory).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Progress on stderr, one line per stage: `auto` only when stderr is a terminal,
    /// `always`, or `never`.
    #[arg(long, value_enum, default_value_t = When::Auto)]
    pub progress: When,
}

/// Where a recipe's relative paths resolve: `--root` when given, else the recipe's directory.
pub fn root_of(root: &Option<PathBuf>, recipe: &std::path::Path) -> PathBuf {
    root.clone().unwrap_or_else(|| Recipe::dir(recipe))
}

pub fn run(a: RunArgs) -> anyhow::Result<ExitCode> {
    let (recipe, text) = Recipe::load(&a.recipe)?;
    let shown = a.recipe.display().to_string();
    let root = root_of(&a.root, &a.recipe);
    let summary = run_loaded(&recipe, &text, &shown, a.output.invocation(&root, None))?;
    Ok(report_release(&summary))
}

/// `finalise`: the release from parts an engine staged; the same bytes as `run`.
pub fn finalise(a: FinaliseArgs) -> anyhow::Result<ExitCode> {
    let mut readers = vec![
        ("RECIPE", a.recipe.as_path()),
        ("--parts", a.parts.as_path()),
    ];
    readers.extend(a.decisions.iter().map(|d| ("--decisions", d.as_path())));
    super::one_stdin(&readers)?;
    let (recipe, text) = Recipe::load(&a.recipe)?;
    let shown = a.recipe.display().to_string();
    let root = root_of(&a.root, &a.recipe);
    let mut inv = a.output.invocation(&root, None);
    inv.reads.push(("--parts", a.parts.clone()));
    inv.reads
        .extend(a.decisions.iter().map(|d| ("--decisions", d.clone())));
    inv.reads.extend(
        a.dedup_verdicts
            .iter()
            .map(|d| ("--dedup-verdicts", d.clone())),
    );
    // A part or a decisions file on stdin is spooled to a temporary file.
    let (parts, _stdin_part) = super::stdin_as_file(&a.parts, "stdin.jsonl")?;
    let mut decisions = Vec::new();
    let mut _stdin_decisions = None;
    for d in &a.decisions {
        let (path, tmp) = super::stdin_as_file(d, "stdin-decisions.jsonl")?;
        decisions.push(path);
        _stdin_decisions = _stdin_decisions.or(tmp);
    }
    let decided = match &a.dedup_verdicts {
        Some(path) => Some(super::dedup::decided(&recipe, &shown, path)?),
        None => None,
    };
    let summary = execute(
        &recipe,
        &text,
        &shown,
        inv,
        Some((&parts, &decisions, decided)),
    )?;
    Ok(report_release(&summary))
}

/// Prints the funnel and the release path of a written release; its exit status.
fn report_release(summary: &runner::RunSummary) -> ExitCode {
    print_funnel(&summary.manifest);
    println!("release: {}", summary.dir.display());
    let quarantined = summary
        .manifest
        .stage("ingest")
        .map(|s| s.dropped)
        .unwrap_or(0);
    let refused = summary
        .manifest
        .stage("license")
        .map(|s| s.dropped)
        .unwrap_or(0);
    if quarantined + refused > 0 {
        eprintln!(
            "warning: {quarantined} malformed input record(s) quarantined, {refused} source(s) refused; see audit/decisions"
        );
        // The release is complete, but the exit status still reports the bad input
        // (3, distinct from 1 = verification failure and 2 = the run could not finish).
        return ExitCode::from(3);
    }
    ExitCode::SUCCESS
}

/// Where and how a loaded recipe runs.
pub struct Invocation<'a> {
    pub out: &'a std::path::Path,
    pub threads: usize,
    pub overwrite: bool,
    pub root: &'a std::path::Path,
    /// Set for a derived release.
    pub parent: Option<manifest::ParentRef>,
    /// When the progress lines are drawn.
    pub progress: When,
    /// What the command reads besides the recipe and what it names (parts, a parent
    /// release): the release is never written where one of them lies.
    pub reads: Vec<(&'static str, PathBuf)>,
    /// `--memory`: bytes of records the corpus stages may hold (None: the default).
    pub memory: Option<u64>,
}

pub fn run_loaded(
    recipe: &Recipe,
    text: &str,
    shown: &str,
    inv: Invocation,
) -> anyhow::Result<runner::RunSummary> {
    execute(recipe, text, shown, inv, None)
}

/// A run, or with `parts` (the parts and ingest's decisions) a finalise.
fn execute(
    recipe: &Recipe,
    text: &str,
    shown: &str,
    inv: Invocation,
    parts: Option<(&std::path::Path, &[PathBuf], Option<runner::Decided>)>,
) -> anyhow::Result<runner::RunSummary> {
    let Invocation {
        out,
        threads,
        overwrite,
        root,
        parent,
        progress,
        reads: also_read,
        memory,
    } = inv;
    let mut reads = crate::output_guard::Reads::new();
    reads.recipe(std::path::Path::new(shown), recipe, root);
    for (what, p) in &also_read {
        reads.add(what, p);
    }
    reads.release_out(out, &out.join(&recipe.name).join(&recipe.version))?;
    let opts = RunOptions {
        threads,
        root: root.to_path_buf(),
        out: out.to_path_buf(),
        overwrite,
        recipe_path: shown.to_string(),
        progress: StageLines::new(progress).map(|l| l as std::sync::Arc<dyn runner::Progress>),
        scrubber: pii_scrubber(recipe, root)?,
        parent,
        memory,
    };
    let scrub = pii_settings(recipe, root)?;
    let summary = match parts {
        None => runner::run_recipe(recipe, text, STAGES, &opts),
        Some((parts, decisions, decided)) => {
            runner::finalise_recipe(recipe, text, STAGES, &opts, parts, decisions, decided)
        }
    }
    .map_err(|e| {
        let refused = e.is_refusal();
        let e = scrub_error(scrub.as_ref(), e.into());
        if refused {
            anyhow::Error::new(super::Refused(format!("{e:#}")))
        } else {
            e
        }
    })?;
    tracing::info!(release = %summary.dir.display(), "release written");
    Ok(summary)
}

/// The recipe's PII scrubber, when it runs the `pii` stage (its key and settings).
pub fn pii_settings(
    recipe: &Recipe,
    root: &std::path::Path,
) -> anyhow::Result<Option<kcurate_pii::stage::Scrubber>> {
    Ok(kcurate_pii::stage::Scrubber::for_recipe(recipe, root)?)
}

/// When the recipe runs the `pii` stage, every decision is scrubbed of personal data with
/// the same key, and the ids of earlier stages' decisions become safe ids (see
/// `kcurate_pii::stage::Scrubber::scrub_decision`).
pub fn pii_scrubber(
    recipe: &Recipe,
    root: &std::path::Path,
) -> anyhow::Result<Option<kcurate_release::writer::Scrubber>> {
    Ok(pii_settings(recipe, root)?.map(|s| {
        std::sync::Arc::new(move |d: &mut kcurate_core::Decision| s.scrub_decision(d))
            as kcurate_release::writer::Scrubber
    }))
}

/// An error of a run that pseudonymises PII names no original: ids and text quoted by a
/// message (a conservation error names an item) are scrubbed with the run's key.
pub fn scrub_error(
    scrub: Option<&kcurate_pii::stage::Scrubber>,
    e: anyhow::Error,
) -> anyhow::Error {
    match scrub {
        Some(s) => anyhow::anyhow!(s.scrub_text(&super::error_chain(&e))),
        None => e,
    }
}

pub fn print_funnel(m: &Manifest) {
    println!(
        "{:<14} {:>10} {:>10} {:>10}",
        "stage", "in", "out", "dropped"
    );
    for s in &m.stages {
        println!(
            "{:<14} {:>10} {:>10} {:>10}",
            s.name, s.stats.items_in, s.stats.items_out, s.stats.dropped
        );
    }
    for (task, splits) in &m.splits {
        let parts: Vec<String> = splits.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("{task}: {}", parts.join(", "));
    }
    for l in kcurate_release::card::unmet_lines(m) {
        println!("target not met: {l}");
    }
}

pub fn check(a: CheckArgs) -> anyhow::Result<ExitCode> {
    let shown = a.recipe.display().to_string();
    let root = root_of(&a.root, &a.recipe);
    // A recipe that does not parse or validate is an error (2), as for `run`.
    let (recipe, text) = load_checked(&a, &shown, &root)?;
    let mut ctx = BuildCtx::for_recipe(&recipe, &root);
    let mut f = Findings::default();
    if let Err(errs) = runner::build_stages(&recipe, &shown, STAGES, &mut ctx) {
        f.problems.extend(errs.iter().map(|e| e.to_string()));
    }
    check_sources(&recipe, &text, &shown, &root, &mut f);
    check_statements(&recipe, &text, &shown, &ctx, &mut f);
    for n in &f.notes {
        eprintln!("note: {n}");
    }
    for w in &f.warnings {
        eprintln!("warning: {w}");
    }
    for p in &f.problems {
        eprintln!("{p}");
    }
    if f.problems.is_empty() && (f.warnings.is_empty() || !a.strict) {
        print_checked(&recipe, &text, &shown, &root, f.warnings.len());
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(1))
    }
}

/// What `check` found besides a recipe that does not load: problems fail it, warnings fail
/// it under `--strict`, notes never do.
#[derive(Default)]
struct Findings {
    problems: Vec<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
}

/// The recipe `check` checks: as written, or (with `--release`) as `kcurate challenge`
/// derives it from the parent release.
fn load_checked(a: &CheckArgs, shown: &str, root: &Path) -> anyhow::Result<(Recipe, String)> {
    let Some(rel) = &a.release else {
        return Ok(Recipe::load(&a.recipe)?);
    };
    let parent = Manifest::load(&rel.join(manifest::MANIFEST))?;
    let raw =
        kcurate_core::recipe::read_recipe_text(&a.recipe).with_context(|| shown.to_string())?;
    let text = super::challenge::derived_recipe_text(&raw, shown, root, rel, &parent)?;
    Ok(Recipe::parse(shown, &text)
        .map(|r| (r, text))
        .map_err(LoadError::from)?)
}

/// Each source's licence and files.
fn check_sources(recipe: &Recipe, text: &str, shown: &str, root: &Path, f: &mut Findings) {
    for (i, s) in recipe.sources.iter().enumerate() {
        let line = kcurate_core::recipe::table_line(text, "source", i);
        let from_parent = s.path.starts_with("release:");
        if kcurate_core::recipe::onboard::licence_unset(s) {
            f.problems.push(format!(
                "{shown}:{line}: source[{i}].license: still the placeholder `kcurate init` writes: set the corpus's licence (an SPDX id such as CC-BY-SA-4.0)"
            ));
        } else if s.license.as_deref() == Some("inherit") {
            f.notes.push(format!(
                "{shown}:{line}: source[{i}].license: inherited from the parent release by `kcurate challenge` (pass --release DIR to check it)"
            ));
        } else if let Err(reason) = kcurate_core::license::check(s.license.as_deref()) {
            // A refused source is a planned outcome (the run records a decision and exits
            // 3), not a broken recipe: a warning, unless --strict.
            f.warnings.push(format!(
                "{shown}:{line}: source[{i}].license: {reason} (the run will refuse this source)"
            ));
        }
        if from_parent {
            f.notes.push(format!(
                "{shown}:{line}: source[{i}].path: {} is a file of the parent release (pass --release DIR to check it)",
                s.path
            ));
            continue;
        }
        match kcurate_io::ingest::list_files(s, root) {
            Err(m) => f.problems.push(format!(
                "{shown}:{line}: source[{i}].path: {}: {} (looked for {}; {})",
                m.file,
                m.reason,
                Recipe::resolve(root, &s.path).display(),
                runner::root_phrase(root)
            )),
            Ok(files) => {
                for (file, path) in files {
                    if let Err(reason) = kcurate_io::ingest::probe_file(&path) {
                        f.problems.push(format!(
                            "{shown}:{line}: source[{i}].path: {file}: {reason}"
                        ));
                    }
                    let at = format!("{shown}:{line}: source[{i}] {file}");
                    f.warnings
                        .extend(kcurate_core::recipe::onboard::quoted_tsv_warning(
                            s, &at, &path,
                        ));
                }
            }
        }
    }
}

/// The `[release]` statements and the `[audit]` judgements file.
fn check_statements(recipe: &Recipe, text: &str, shown: &str, ctx: &BuildCtx, f: &mut Findings) {
    if let Some(w) = recipe.pii_warning() {
        let line = kcurate_core::recipe::key_line(text, Some("release"), "").unwrap_or(1);
        f.warnings.push(format!("{shown}:{line}: {w}"));
    }
    // A missing motivation leaves the card honest ("not stated"), so it is a note that
    // `--strict` does not turn into a failure.
    if let Some(w) = recipe.motivation_warning() {
        let line = kcurate_core::recipe::key_line(text, Some("release"), "").unwrap_or(1);
        f.notes.push(format!("{shown}:{line}: {w}"));
    }
    if let Some(j) = &recipe.audit.judgements
        && let Err(e) = kcurate_release::precision::read_judgements(&ctx.resolve(j))
    {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("judgements"))
            .map_or(1, |i| i + 1);
        f.problems
            .push(format!("{shown}:{line}: audit.judgements: {e}"));
    }
}

/// What a recipe that passes `check` sets: counts, split, limits, quoting, the paths' root.
fn print_checked(recipe: &Recipe, text: &str, shown: &str, root: &Path, warnings: usize) {
    println!(
        "{shown}: ok ({}, {}{})",
        counted(recipe.sources.len(), "source"),
        counted(recipe.stages.len(), "stage"),
        match warnings {
            0 => String::new(),
            n => format!(", {}", counted(n, "warning")),
        }
    );
    let table: toml::Table = toml::from_str(text).unwrap_or_default();
    println!(
        "split: {} {}, {} {}, {} {}{}",
        recipe.split.names.train,
        recipe.split.train,
        recipe.split.names.dev,
        recipe.split.dev,
        recipe.split.names.test,
        recipe.split.test,
        if table.contains_key("split") {
            ""
        } else {
            " (the default: the recipe has no [split])"
        }
    );
    let l = &recipe.limits;
    println!(
        "limits: max_line_bytes {}, max_record_bytes {}, max_depth {}, max_annotators_per_item {}{}",
        l.max_line_bytes,
        l.max_record_bytes,
        l.max_depth,
        l.max_annotators_per_item,
        if table.contains_key("limits") {
            ""
        } else {
            " (the defaults: the recipe has no [limits])"
        }
    );
    for (i, s) in recipe.sources.iter().enumerate() {
        if let Some(q) = kcurate_core::recipe::onboard::quoting_statement(s) {
            println!("quoting: source[{i}] {:?} {q}", s.id);
        }
        if let Some(n) = s.max_record_bytes {
            println!("limits: source[{i}] {:?} max_record_bytes {n}", s.id);
        }
    }
    println!("paths: relative to {}", root.display());
}

pub fn verify(a: VerifyArgs) -> anyhow::Result<ExitCode> {
    let opts = kcurate_release::verify::VerifyOptions {
        root: a.root.clone(),
        inputs: !a.no_inputs,
    };
    let found = kcurate_release::verify::verify_release(&a.release, &opts)?;
    for n in &found.notes {
        eprintln!("note: {}: {n}", a.release.display());
    }
    if found.problems.is_empty() {
        println!(
            "{}: ok ({} files and every field match the manifest)",
            a.release.display(),
            found.files
        );
        return Ok(ExitCode::SUCCESS);
    }
    for p in &found.problems {
        eprintln!("{}: {p}", a.release.display());
    }
    Ok(ExitCode::from(1))
}

pub fn rebuild(a: RebuildArgs) -> anyhow::Result<ExitCode> {
    let old = Manifest::load(&a.manifest)?;
    let dir = a
        .manifest
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let copy = manifest::inside(&dir, &old.recipe.copy).with_context(|| {
        format!(
            "{}: recipe.copy {:?} is outside the release directory",
            a.manifest.display(),
            old.recipe.copy
        )
    })?;
    let text = std::fs::read_to_string(&copy).with_context(|| format!("{}", copy.display()))?;
    let recipe = Recipe::parse(&old.recipe.path, &text)?;
    let root = a
        .root
        .clone()
        .unwrap_or_else(|| Recipe::dir(std::path::Path::new(&old.recipe.path)));
    let changed = changed_inputs(&old, &recipe, &root);
    if !changed.is_empty() {
        for c in &changed {
            eprintln!("input changed: {c}");
        }
        bail!(
            "refusing to rebuild: {} input(s) differ from the manifest",
            changed.len()
        );
    }
    let summary = run_loaded(
        &recipe,
        &text,
        &old.recipe.path,
        Invocation {
            out: &a.out,
            threads: a.threads,
            overwrite: false,
            root: &root,
            parent: old.parent.clone(),
            progress: a.progress,
            reads: vec![("the release rebuilt", dir.clone())],
            memory: None,
        },
    )?;
    Ok(compare_rebuilt(&old, &summary.manifest, &summary.dir, &dir))
}

/// The inputs of the release that differ from its manifest (a removed file named once, as
/// removed).
fn changed_inputs(old: &Manifest, recipe: &Recipe, root: &Path) -> Vec<String> {
    let mut changed = manifest::changed_input_lists(old, recipe, root);
    for c in manifest::changed_inputs(old, recipe, root) {
        if !changed
            .iter()
            .any(|n| n.split(": ").next() == c.split(": ").next())
        {
            changed.push(c);
        }
    }
    changed
}

/// Whether the rebuilt release `new` (in `rebuilt`) is the release `old` (in `dir`), byte
/// for byte; what differs is named on stderr.
fn compare_rebuilt(old: &Manifest, new: &Manifest, rebuilt: &Path, dir: &Path) -> ExitCode {
    let differ: Vec<String> = old
        .outputs
        .iter()
        .zip(new.outputs.iter())
        .filter(|(o, n)| o != n)
        .map(|(o, _)| o.path.clone())
        .collect();
    if differ.is_empty() && old.outputs.len() == new.outputs.len() && old == new {
        println!(
            "rebuilt {}: identical to {} ({} files)",
            rebuilt.display(),
            dir.display(),
            new.outputs.len()
        );
        ExitCode::SUCCESS
    } else {
        for d in &differ {
            eprintln!("differs: {d}");
        }
        if old.outputs.len() != new.outputs.len() {
            eprintln!(
                "file count differs: {} vs {}",
                old.outputs.len(),
                new.outputs.len()
            );
        }
        ExitCode::from(1)
    }
}

/// `n noun`, the noun plural unless `n` is one.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
