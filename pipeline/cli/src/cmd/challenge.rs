//! `challenge`: a derived release from a parent release and a challenge recipe.

use anyhow::Context;
use clap::Args;
use kcurate_core::hash::sha256_file;
use kcurate_core::recipe::Recipe;
use kcurate_release::manifest::{Manifest, ParentRef};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ChallengeArgs {
    /// The parent release directory.
    pub release: PathBuf,
    /// A challenge recipe (configs/challenge-*.toml). Source paths starting `release:` are
    /// files of the parent release; `license = "inherit"` takes the parent's licence.
    #[arg(long)]
    pub recipe: PathBuf,
    #[arg(long, default_value = "releases")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    #[arg(long)]
    pub overwrite: bool,
}

pub fn challenge(a: ChallengeArgs) -> anyhow::Result<ExitCode> {
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
    let raw = std::fs::read_to_string(&a.recipe).with_context(|| a.recipe.display().to_string())?;
    let dir = a.release.display().to_string();
    let text = raw
        .replace("\"release:", &format!("\"{}/", dir.trim_end_matches('/')))
        .replace(
            "license = \"inherit\"",
            &format!("license = \"{}\"", parent.license),
        );
    let shown = a.recipe.display().to_string();
    let recipe = Recipe::parse(&shown, &text)?;
    let pref = ParentRef {
        name: parent.recipe.name.clone(),
        version: parent.recipe.version.clone(),
        manifest_sha256: sha,
        license: parent.license.clone(),
    };
    let summary = super::run::run_loaded(
        &recipe,
        &text,
        &shown,
        super::run::Invocation {
            out: &a.out,
            threads: a.threads,
            overwrite: a.overwrite,
            root: std::path::Path::new("."),
            parent: Some(pref),
        },
    )?;
    super::run::print_funnel(&summary.manifest);
    println!(
        "derived release: {} (parent {} {})",
        summary.dir.display(),
        parent.recipe.name,
        parent.recipe.version
    );
    Ok(ExitCode::SUCCESS)
}
