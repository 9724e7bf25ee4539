//! `sts gsm`: Greedy Sentence Matching over `{"id","text"}` JSONL.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use kcurate_agree::batch::{self, BatchKind};
use kcurate_core::jsonl::{self, JsonlError};
use kcurate_tasks::gsm::{match_fast, prepare, write_output};
use kcurate_tasks::rouge::Metric;
use kcurate_tasks::sts::sim::Relation;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct StsArgs {
    #[command(subcommand)]
    pub command: StsCommand,
}

#[derive(Subcommand)]
pub enum StsCommand {
    /// An annotation batch for an STS release's pairs: long TSV (item, annotator, value to fill
    /// with 0–5, and the two sentences) or Label Studio tasks. Filled in, it goes back through
    /// the `sts` stage's `annotations` setting (items are the pair guids).
    Export {
        /// The STS release directory.
        #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        release: PathBuf,
        /// Annotators per pair (KLUE: 7).
        #[arg(long, default_value_t = 7)]
        annotators: usize,
        /// Write a Label Studio batch into DIR instead of the TSV: tasks.json (the tasks to
        /// import) and labeling-config.xml (a 0–5 slider in steps of 0.5, control `score`).
        #[arg(long, value_name = "DIR", value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        label_studio: Option<PathBuf>,
    },
    /// Fit the `sts` stage's annotation simulator on people's scores: a KLUE STS JSON file
    /// with per-annotator scores (KLUE STS v1.1 dev). Prints the recipe's `[stage.simulator]`
    /// table, with the fit's diagnostics as comments.
    FitSim {
        /// KLUE STS dev JSON (klue-sts-v1.1_dev.json: pairs with every annotator's score; `-`:
        /// stdin).
        #[arg(long)]
        klue: PathBuf,
        /// The KLUE relations whose pairs fit the para map, comma-separated: `para` (KLUE's
        /// paraKQC-para pairs), `rtt` (round-trip translations), `sampled`.
        #[arg(long, default_value = "para", value_delimiter = ',', value_parser = ["para", "rtt", "sampled"])]
        para_from: Vec<String>,
    },
    /// Pair every sentence with its most ROUGE-similar partner still unpaired (KLUE §3.2,
    /// Algorithm 1), in a seeded order; writes the reference JSONL format to stdout.
    Gsm {
        /// Sentences as JSONL (`{"id","text"}`), the reference input format (`-`: stdin).
        #[arg(long)]
        input: PathBuf,
        /// The ROUGE variant that measures similarity.
        #[arg(long, default_value = "rouge1", value_parser = ["rouge1", "rouge2", "rougeL"])]
        metric: String,
        /// Seed of the order in which sentences pick partners.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
}

pub fn sts(a: StsArgs) -> anyhow::Result<ExitCode> {
    let (input, metric, seed) = match a.command {
        StsCommand::Export {
            release,
            annotators,
            label_studio,
        } => {
            let items = batch::release_items(&release, "sts", "guid", &["sentence1", "sentence2"])?;
            let mut reads = crate::output_guard::Reads::new();
            reads.add("the release", &release);
            super::write_batch(
                &items,
                annotators,
                &BatchKind::StsSlider,
                label_studio,
                &reads,
            )?;
            eprintln!("{} pairs exported", items.len());
            return Ok(ExitCode::SUCCESS);
        }
        StsCommand::FitSim { klue, para_from } => {
            let text = super::read_text(&klue)?;
            let pairs = kcurate_tasks::sts::sim::read_klue(&text)
                .with_context(|| klue.display().to_string())?;
            let name = klue.file_name().map_or_else(
                || klue.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let from: Vec<Relation> = para_from
                .iter()
                .map(|r| Relation::of_source(&format!("-{r}")))
                .collect();
            let fit = kcurate_tasks::sts::sim::fit(&pairs, &name, &from)
                .with_context(|| klue.display().to_string())?;
            print!(
                "# fitted by: kcurate sts fit-sim --klue {} --para-from {}\n{}{}",
                klue.display(),
                para_from.join(","),
                kcurate_tasks::sts::sim::report(&fit),
                kcurate_tasks::sts::sim::to_toml(&fit.model)
            );
            return Ok(ExitCode::SUCCESS);
        }
        StsCommand::Gsm {
            input,
            metric,
            seed,
        } => (input, metric, seed),
    };
    let metric: Metric = metric.parse().map_err(anyhow::Error::msg)?;
    crate::output_guard::Reads::new()
        .add("--input", &input)
        .stdout_out()?;
    let (ids, texts) = read_gsm_input(&input)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let s = prepare(&refs, metric);
    let (pairs, unmatched) = match_fast(&s, metric, seed);
    write_output(
        BufWriter::new(std::io::stdout().lock()),
        &ids,
        &pairs,
        unmatched,
        metric,
        seed,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The ids and texts of `sts gsm`'s `{"id","text"}` JSONL (blank lines skipped; an id
/// repeated is an error).
fn read_gsm_input(input: &Path) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let text = super::read_text(input)?;
    let shown = input.display().to_string();
    let (mut ids, mut texts) = (Vec::new(), Vec::new());
    let mut seen = std::collections::BTreeSet::new();
    const NOT_STRING: &str = "missing field or not a string";
    for item in jsonl::from_reader(shown.as_str(), text.as_bytes()) {
        let (line, v) = item.map_err(|e| match e {
            JsonlError::Json { path, line, source } => {
                anyhow::Error::new(source).context(format!("{path}:{line}: -: invalid JSON"))
            }
            other => other.into(),
        })?;
        let id = jsonl::str_field(&v, "id", &shown, line, NOT_STRING)?;
        let t = jsonl::str_field(&v, "text", &shown, line, NOT_STRING)?;
        if !seen.insert(id.to_string()) {
            bail!(JsonlError::field(
                &shown,
                line,
                "id",
                format!("duplicate id {id:?}")
            ));
        }
        ids.push(id.to_string());
        texts.push(t.to_string());
    }
    Ok((ids, texts))
}
