//! `agree plan`: how many items the next annotation round needs, from a pilot.

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use kcurate_agree::alpha::Level;
use kcurate_agree::io::{self, Format, LabelStudio, ReadOptions, Scale};
use kcurate_agree::plan::{Aggregator, PlanOptions, Target, plan, render};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum AgreeCommand {
    /// Plan the next round from a pilot: items needed for a target α interval width or
    /// aggregated-label accuracy, by simulating studies from a Dawid–Skene fit of the pilot.
    #[command(
        after_help = "Examples:\n  kcurate agree plan --input pilot.tsv --target-width 0.1\n  kcurate agree plan --input pilot.tsv --target-accuracy 0.9 --aggregator dawid-skene --json"
    )]
    Plan(Box<PlanArgs>),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PlanAggregator {
    Majority,
    DawidSkene,
    OneCoin,
}

#[derive(Args)]
pub struct PlanArgs {
    /// The pilot's annotations, in any layout `kcurate agree` reads (`-`: stdin).
    #[arg(long)]
    pub input: PathBuf,
    /// Input layout: long rows (item, annotator, value), wide, or a Label Studio export.
    #[arg(long, default_value = "long", value_parser = ["long", "wide", "label-studio"])]
    pub format: String,
    /// Label Studio: the control whose results are votes (`from_name`).
    #[arg(long)]
    pub from_name: Option<String>,
    /// Label Studio: the batch's labeling config (XML) naming the vote control.
    #[arg(long)]
    pub label_config: Option<PathBuf>,
    /// Accept only these labels (comma-separated); other rows become decisions (exit 3).
    #[arg(long, value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Measurement level of α: nominal, ordinal, interval or ratio.
    #[arg(long, default_value = "nominal", value_parser = ["nominal", "ordinal", "interval", "ratio"])]
    pub level: String,
    /// Target: α's 95% bootstrap interval no wider than this (hi − lo).
    #[arg(
        long,
        conflicts_with = "target_accuracy",
        required_unless_present = "target_accuracy"
    )]
    pub target_width: Option<f64>,
    /// Target: at least this share of items aggregated to their true class.
    #[arg(long)]
    pub target_accuracy: Option<f64>,
    /// The aggregator the study will use (with --target-accuracy).
    #[arg(long, value_enum, default_value = "majority")]
    pub aggregator: PlanAggregator,
    /// k of k-of-n majority (with --aggregator majority).
    #[arg(long, default_value_t = 1)]
    pub min_votes: usize,
    /// Share of simulated studies that must meet the target.
    #[arg(long, default_value_t = 0.8)]
    pub assurance: f64,
    /// Simulated studies per number of items tried.
    #[arg(long, default_value_t = 200)]
    pub studies: usize,
    /// Bootstrap replicates of each α interval.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Annotators per item to plan for besides the pilot's (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "3,5,7")]
    pub redundancy: Vec<usize>,
    /// The most items a plan may ask for.
    #[arg(long, default_value_t = 50_000)]
    pub max_items: usize,
    /// Seed of every simulated draw (same seed, same plan).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Threads the simulated studies run on (0 = all cores). The plan does not depend on it.
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    pub threads: usize,
    /// Print one JSON object (its `items`: the recommended number at the pilot's redundancy).
    #[arg(long)]
    pub json: bool,
}

fn options(a: &PlanArgs) -> anyhow::Result<PlanOptions> {
    let target = match (a.target_width, a.target_accuracy) {
        (Some(width), None) => Target::AlphaCi95Width { width },
        (None, Some(accuracy)) => Target::Accuracy {
            accuracy,
            aggregator: match a.aggregator {
                PlanAggregator::Majority => Aggregator::Majority {
                    min_votes: a.min_votes,
                },
                PlanAggregator::DawidSkene => Aggregator::DawidSkene,
                PlanAggregator::OneCoin => Aggregator::OneCoin,
            },
        },
        _ => bail!("give one of --target-width and --target-accuracy"),
    };
    let threads = match a.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    Ok(PlanOptions {
        level: a.level.parse().map_err(anyhow::Error::msg)?,
        target,
        assurance: a.assurance,
        studies: a.studies,
        bootstrap: a.bootstrap,
        redundancies: a.redundancy.clone(),
        max_items: a.max_items,
        seed: a.seed,
        threads,
    })
}

pub fn agree_plan(a: PlanArgs) -> anyhow::Result<ExitCode> {
    let o = options(&a)?;
    let format: Format = a.format.parse().map_err(anyhow::Error::msg)?;
    let mut reads = crate::output_guard::Reads::new();
    reads.add("--input", &a.input);
    if let Some(p) = &a.label_config {
        reads.add("--label-config", p);
    }
    reads.stdout_out()?;
    let label_config = match &a.label_config {
        Some(p) => {
            super::one_stdin(&[("--input", &a.input), ("--label-config", p)])?;
            Some(super::read_text(p).context("the labeling config")?)
        }
        None => None,
    };
    let opts = ReadOptions {
        scale: match a.labels.is_empty() {
            true => Scale::Any,
            false => Scale::Labels(a.labels.clone()),
        },
        numbers: match o.level {
            Level::Interval | Level::Ratio => io::Numbers::Require,
            _ => io::Numbers::Any,
        },
        label_studio: LabelStudio {
            from_name: a.from_name.clone(),
            label_config,
        },
        ..Default::default()
    };
    let spooled;
    let (path, shown) = if a.input == std::path::Path::new("-") {
        spooled = super::agree::spool_stdin(format)?;
        (spooled.1.clone(), "-".to_string())
    } else {
        (a.input.clone(), a.input.display().to_string())
    };
    let read = io::read_table_named(&path, &shown, format, &opts)?;
    {
        let mut err = std::io::stderr().lock();
        for d in read.rejected.iter().chain(&read.skipped) {
            writeln!(err, "{}: {}", d.rule, d.detail)?;
        }
    }
    let p = plan(&read.table, &o).with_context(|| shown.clone())?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&p)?)?;
    } else {
        write!(out, "{}", render(&p))?;
    }
    out.flush()?;
    Ok(if read.rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
