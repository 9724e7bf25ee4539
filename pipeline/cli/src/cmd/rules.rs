//! `rules`: every rule id a release can cite, with its stage and summary.

use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct RulesArgs {
    /// The rules directory.
    #[arg(long, default_value = "rules", value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub dir: PathBuf,
}

/// Rules the runner itself applies (not from a rule file).
const BUILT_IN: &[(&str, &str, &str)] = &[
    (
        "ingest.malformed",
        "ingest",
        "an input record could not be read (file:line:field and the reason in the detail)",
    ),
    (
        "ingest.duplicate_id",
        "ingest",
        "a second record of a source with an id an earlier record has, ids compared after Unicode NFKC normalisation (file:line of both in the detail)",
    ),
    (
        "ingest.bad_id",
        "ingest",
        "a record whose own id is empty or holds a control character such as a newline (file:line in the detail)",
    ),
    (
        "ingest.over_limit",
        "ingest",
        "an input past a [limits] setting: a line, a record, a nesting depth (file:line and the limit in the detail)",
    ),
    (
        "license.not_allowed",
        "license",
        "the source's licence is not CC0, CC BY, CC BY-SA, public domain or KOGL type 1",
    ),
];

pub fn rules(a: RulesArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for (id, stage, summary) in BUILT_IN {
        writeln!(out, "{id:<32} {stage:<12} {summary}")?;
    }
    for (id, summary) in kcurate_agree::io::RULES {
        writeln!(out, "{id:<32} {:<12} {summary}", "agree")?;
    }
    for e in crate::stages::STAGES {
        for id in e.rules {
            writeln!(
                out,
                "{id:<32} {:<12} a rule of the stage's code (kcurate stages --doc)",
                e.name
            )?;
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&a.dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for f in files {
        let stage = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for r in kcurate_core::rules::load_rules(&f)? {
            writeln!(out, "{:<32} {:<12} {}", r.id, stage, r.description)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
