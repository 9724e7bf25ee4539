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

/// A challenge recipe's text with its parent filled in: `release:` paths become files of
/// the parent release and `license = "inherit"` the parent's licence. A split file is named
/// by its role or its default name (`release:sentences/dev.jsonl` or `.../validation.jsonl`)
/// and becomes the file the parent released that split as (its manifest's `split_names`).
pub fn derived_recipe_text(raw: &str, release: &std::path::Path, parent: &Manifest) -> String {
    let dir = release.display().to_string();
    let dir = if dir.is_empty() { ".".to_string() } else { dir };
    let tasks: Vec<&str> = parent.splits.keys().map(String::as_str).collect();
    parent_split_files(raw, &tasks, &parent.split_names)
        .replace("\"release:", &format!("\"{}/", dir.trim_end_matches('/')))
        .replace(
            "license = \"inherit\"",
            &format!("license = \"{}\"", parent.license),
        )
}

/// `release:<task>/<split>.jsonl` paths with the split named by its role or its default name
/// rewritten to the name the parent released it under (`names`: role → name, empty for a
/// release whose names were the roles).
fn parent_split_files(
    raw: &str,
    tasks: &[&str],
    names: &std::collections::BTreeMap<String, String>,
) -> String {
    let mut text = raw.to_string();
    for task in tasks {
        for (written, role) in [
            ("train", "train"),
            ("dev", "dev"),
            ("validation", "dev"),
            ("test", "test"),
        ] {
            let name = names.get(role).map(String::as_str).unwrap_or(role);
            if name != written {
                text = text.replace(
                    &format!("\"release:{task}/{written}.jsonl\""),
                    &format!("\"release:{task}/{name}.jsonl\""),
                );
            }
        }
    }
    text
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
        super::write_batch(
            &items,
            checkers,
            &kcurate_agree::batch::BatchKind::SentiNegCheck,
            label_studio,
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
    let text = derived_recipe_text(&raw, &release_from(&root, &a.release), &parent);
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
        a.output.invocation(&root, Some(pref)),
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

/// The arguments of a derivation, once clap has checked them.
struct Derive {
    release: PathBuf,
    recipe: PathBuf,
    output: super::run::OutputArgs,
}

#[cfg(test)]
mod tests {
    use super::parent_split_files;
    use std::collections::BTreeMap;

    #[test]
    fn split_files_of_the_parent_follow_its_split_names() {
        let raw = r#"a = "release:sentences/dev.jsonl"
b = "release:sentences/validation.jsonl"
c = "release:sentences/train.jsonl"
d = "release:other/dev.jsonl"
e = "release:sentences""#;
        // A release made before split names were recorded: its names are the roles.
        let legacy = parent_split_files(raw, &["sentences"], &BTreeMap::new());
        assert_eq!(legacy.matches("release:sentences/dev.jsonl").count(), 2);
        let names: BTreeMap<String, String> = [("train", "train"), ("dev", "validation")]
            .map(|(r, n)| (r.to_string(), n.to_string()))
            .into();
        let hf = parent_split_files(raw, &["sentences"], &names);
        assert_eq!(hf.matches("release:sentences/validation.jsonl").count(), 2);
        assert!(hf.contains("c = \"release:sentences/train.jsonl\""));
        // Only the parent's task directories are files of its splits.
        assert!(hf.contains("d = \"release:other/dev.jsonl\""));
        assert!(hf.contains("e = \"release:sentences\""));
    }
}
