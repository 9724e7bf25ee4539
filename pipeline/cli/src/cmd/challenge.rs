//! `challenge`: a derived release from a parent release and a challenge recipe.

use anyhow::Context;
use clap::{Args, Subcommand};
use kcurate_core::hash::sha256_file;
use kcurate_core::recipe::Recipe;
use kcurate_release::manifest::{Manifest, ParentRef};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ChallengeArgs {
    #[command(subcommand)]
    pub command: Option<ChallengeCommand>,
    /// The parent release directory.
    #[arg(required = true, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: Option<PathBuf>,
    /// A challenge recipe (configs/challenge-*.toml). Source paths starting `release:` are
    /// files of the parent release; `license = "inherit"` takes the parent's licence. `-`
    /// reads it from stdin (its relative paths resolve against the working directory).
    #[arg(long, required = true)]
    pub recipe: Option<PathBuf>,
    #[command(flatten)]
    pub output: super::run::OutputArgs,
}

#[derive(Subcommand)]
pub enum ChallengeCommand {
    /// A check batch for the flips of a derived SentiNeg release: long TSV (item, annotator,
    /// value to fill with accept or reject, then original, original_label, text, label,
    /// flip_rule) or Label Studio tasks. Filled in, it returns through the `sentineg` stage's
    /// `verdicts` setting.
    Export {
        /// The derived release directory.
        #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        release: PathBuf,
        /// How many people check each flip.
        #[arg(long, default_value_t = 3)]
        checkers: usize,
        /// Write a Label Studio batch into DIR instead of the TSV: tasks.json (the tasks to
        /// import) and labeling-config.xml (accept / reject, control `verdict`).
        #[arg(long, value_name = "DIR", value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        label_studio: Option<PathBuf>,
    },
}

/// A challenge recipe's text with its parent (the release directory `release`, named from
/// `base` as [`release_from`] does) filled in: see [`super::derived`].
pub fn derived_recipe_text(
    raw: &str,
    shown: &str,
    base: &std::path::Path,
    release: &std::path::Path,
    parent: &Manifest,
) -> anyhow::Result<String> {
    super::derived::derive(
        raw,
        shown,
        &super::derived::Parent {
            named: &release_from(base, release),
            dir: release,
            manifest: parent,
        },
    )
}

/// The parent release's path as a derived recipe's `release:` paths name it: relative to
/// `base` (the recipe's directory, which its paths resolve against) when the release was
/// given as a relative path, so that the derived release's recipe copy and manifest carry
/// no absolute path and rebuild from a checkout; as given when absolute.
pub fn release_from(base: &std::path::Path, release: &std::path::Path) -> std::path::PathBuf {
    if release.is_absolute() {
        return release.to_path_buf();
    }
    let (Ok(b), Ok(r)) = (base.canonicalize(), release.canonicalize()) else {
        return release.to_path_buf();
    };
    let common = b
        .components()
        .zip(r.components())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = std::path::PathBuf::new();
    for _ in b.components().skip(common) {
        out.push("..");
    }
    for c in r.components().skip(common) {
        out.push(c);
    }
    out
}

pub fn challenge(a: ChallengeArgs) -> anyhow::Result<ExitCode> {
    if let Some(ChallengeCommand::Export {
        release,
        checkers,
        label_studio,
    }) = a.command
    {
        let items = kcurate_agree::batch::release_items(
            &release,
            "sentineg",
            "id",
            &["original", "original_label", "text", "label", "flip_rule"],
        )?;
        let mut reads = crate::output_guard::Reads::new();
        reads.add("the release", &release);
        super::write_batch(
            &items,
            checkers,
            &kcurate_agree::batch::BatchKind::SentiNegCheck,
            label_studio,
            &reads,
        )?;
        eprintln!(
            "{} flips exported for {checkers} checkers each",
            items.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(release), Some(recipe_path)) = (a.release, a.recipe) else {
        anyhow::bail!("kcurate challenge needs a parent release and --recipe");
    };
    let a = Derive {
        release,
        recipe: recipe_path,
        output: a.output,
    };
    let problems = kcurate_release::manifest::verify(&a.release)?;
    if !problems.is_empty() {
        anyhow::bail!(
            "{}: the parent release does not verify ({} problem(s)); run kcurate verify",
            a.release.display(),
            problems.len()
        );
    }
    let mpath = a.release.join("manifest.json");
    let parent = Manifest::load(&mpath)?;
    let (sha, _) = sha256_file(&mpath).with_context(|| mpath.display().to_string())?;
    let raw = super::read_text(&a.recipe)?;
    let root = Recipe::dir(&a.recipe);
    let shown = a.recipe.display().to_string();
    let text = derived_recipe_text(&raw, &shown, &root, &a.release, &parent)?;
    let recipe = Recipe::parse(&shown, &text)?;
    let pref = ParentRef {
        name: parent.recipe.name.clone(),
        version: parent.recipe.version.clone(),
        manifest_sha256: sha,
        license: parent.license.clone(),
    };
    let mut inv = a.output.invocation(&root, Some(pref));
    inv.reads.push(("the parent release", a.release.clone()));
    let summary = super::run::run_loaded(&recipe, &text, &shown, inv)?;
    super::run::print_funnel(&summary.manifest);
    println!(
        "derived release: {} (parent {} {})",
        summary.dir.display(),
        parent.recipe.name,
        parent.recipe.version
    );
    Ok(ExitCode::SUCCESS)
}

/// The arguments of a derivation, once clap has checked them.
struct Derive {
    release: PathBuf,
    recipe: PathBuf,
    output: super::run::OutputArgs,
}
