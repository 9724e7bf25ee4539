//! `why`, `audit`, `diff`: reading releases back.

use clap::Args;
use kcurate_audit::rules::{Filter, audit as audit_rules, render_csv, render_table};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct WhyArgs {
    /// A release directory.
    pub release: PathBuf,
    /// The item id (a document, sentence or example id).
    pub item: Option<String>,
    /// Find the released item(s) with exactly this text instead.
    #[arg(long)]
    pub text: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct AuditArgs {
    pub release: PathBuf,
    #[arg(long)]
    pub stage: Option<String>,
    #[arg(long)]
    pub rule: Option<String>,
    #[arg(long)]
    pub source: Option<String>,
    /// Sample this many decisions per rule and source (seeded).
    #[arg(long, default_value_t = 0)]
    pub sample: usize,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub format: String,
    /// What computes the counts: a column scan of decisions.parquet, or a polars lazy
    /// query over it (same result).
    #[cfg(feature = "polars")]
    #[arg(long, default_value = "scan", value_parser = ["scan", "polars"])]
    pub engine: String,
}

#[derive(Args)]
pub struct DiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
}

pub fn why(a: WhyArgs) -> anyhow::Result<ExitCode> {
    if a.item.is_none() && a.text.is_none() {
        anyhow::bail!("give an item id or --text");
    }
    let found = kcurate_audit::why::why(&a.release, a.item.as_deref(), a.text.as_deref())?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        for l in &found {
            print!("{}", kcurate_audit::why::render(l));
        }
    }
    let missing = found.is_empty() || found.iter().all(|l| l.ended.starts_with("not found"));
    Ok(if missing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn audit(a: AuditArgs) -> anyhow::Result<ExitCode> {
    let rows = audit_rules(
        &a.release,
        &Filter {
            stage: a.stage,
            rule: a.rule,
            source: a.source,
            sample: a.sample,
            seed: a.seed,
            #[cfg(feature = "polars")]
            engine: if a.engine == "polars" {
                kcurate_audit::rules::Engine::Polars
            } else {
                kcurate_audit::rules::Engine::Scan
            },
            #[cfg(not(feature = "polars"))]
            engine: kcurate_audit::rules::Engine::Scan,
        },
    )?;
    match a.format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&rows)?),
        "csv" => print!("{}", render_csv(&rows)),
        _ => {
            let m = kcurate_release::Manifest::load(&a.release.join("manifest.json"))?;
            super::run::print_funnel(&m);
            println!();
            print!("{}", render_table(&rows));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn diff(a: DiffArgs) -> anyhow::Result<ExitCode> {
    let d = kcurate_audit::diff::diff(&a.a, &a.b)?;
    if a.format == "json" {
        println!("{}", serde_json::to_string_pretty(&d)?);
    } else {
        print!("{}", kcurate_audit::diff::render(&d));
    }
    Ok(ExitCode::SUCCESS)
}
