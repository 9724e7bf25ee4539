//! `nli select | artifacts | export-writers | export-validators | gold`.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use kcurate_tasks::nli::batches::{gold, validator_batch, validator_items, writer_batch};
use kcurate_tasks::nli::input::{parse_pairs, parse_premises};
use kcurate_tasks::nli::select::{Pair, accuracy, select};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct NliArgs {
    #[command(subcommand)]
    pub command: NliCommand,
}

#[derive(Subcommand)]
pub enum NliCommand {
    /// Score `{"id","premise","hypothesis","label"[,"source"]}` pairs with a cross-fitted
    /// hypothesis-only model (or imported probabilities) and select the lowest-CE premise sets;
    /// writes `{"id","ce","group","selected"}` JSONL to stdout.
    Select {
        /// The pairs (JSONL; `-`: stdin).
        #[arg(long)]
        input: PathBuf,
        /// `{"id","p_entailment","p_neutral","p_contradiction"}` JSONL from an external model
        /// (`-`: stdin, when --input is a file).
        #[arg(long)]
        probs: Option<PathBuf>,
        /// Share of premise sets to select, lowest mean cross-entropy first.
        #[arg(long, default_value_t = 0.2)]
        share: f64,
        /// Cross-fitting folds of the hypothesis-only model.
        #[arg(long, default_value_t = 5)]
        folds: usize,
        /// Seed of the fold assignment.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// Annotation artefacts of a pairs file: top-PMI words per label, words whose label share
    /// passes 70% (KoBEST's review rule), hypothesis-only accuracy on all and selected pairs,
    /// hypothesis length by label.
    Artifacts {
        /// The pairs (JSONL; `-`: stdin).
        #[arg(long)]
        input: PathBuf,
        /// Count words seen at least this many times.
        #[arg(long, default_value_t = 5)]
        min_count: usize,
        /// Top-PMI words listed per label.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Seed of the hypothesis-only model's folds.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// A writer batch from `{"id","text"[,"source"]}` premises: one task per label (JSONL).
    ExportWriters {
        /// The premises (JSONL; `-`: stdin).
        #[arg(long)]
        input: PathBuf,
    },
    /// A validator batch from written pairs: long TSV template or Label Studio tasks.
    ExportValidators {
        /// The written pairs (JSONL; `-`: stdin).
        #[arg(long)]
        input: PathBuf,
        /// Validators per pair (KLUE: 4).
        #[arg(long, default_value_t = 4)]
        validators: usize,
        /// Write a Label Studio batch into DIR instead of the TSV: tasks.json (the tasks to
        /// import) and labeling-config.xml (entailment / neutral / contradiction, control
        /// `nli_label`).
        #[arg(long, value_name = "DIR", value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        label_studio: Option<PathBuf>,
    },
    /// Gold labels from written pairs and validators' labels (long/wide/Label Studio): KLUE NLI
    /// rows on stdout, pairs without gold and Table 5 on stderr.
    Gold {
        /// The written pairs (JSONL; `-`: stdin).
        #[arg(long)]
        input: PathBuf,
        /// The validators' labels (see --format; `-`: stdin, when --input is a file).
        #[arg(long)]
        votes: PathBuf,
        /// Layout of --votes: long rows, wide rows or a Label Studio export.
        #[arg(long, default_value = "long", value_parser = ["long", "wide", "label-studio"])]
        format: String,
        /// KLUE: 3 (writer + 4 validators); JNLI: 6 of 10.
        #[arg(long, default_value_t = 3)]
        min_votes: usize,
    },
    /// Fit the vote simulator of the `nli` and `tc` stages on people's votes: KLUE NLI JSON
    /// with `gold_label` and the validators' `label2`…`label5`. Prints the recipe's
    /// `[stage.votes]` table (P(vote | gold) and the validators' error-scale range).
    FitVotes {
        /// KLUE NLI dev JSON (klue-nli-v1.1_dev.json; `-`: stdin).
        #[arg(long)]
        klue: PathBuf,
    },
}

/// The pairs in `input` (a file, or stdin for `-`).
fn read_pairs(input: &std::path::Path) -> anyhow::Result<Vec<Pair>> {
    let text = super::read_text(input)?;
    Ok(parse_pairs(&input.display().to_string(), &text)?)
}

pub fn nli(a: NliArgs) -> anyhow::Result<ExitCode> {
    let mut reads = crate::output_guard::Reads::new();
    match &a.command {
        NliCommand::FitVotes { klue } => reads.add("--klue", klue),
        NliCommand::Select { input, probs, .. } => {
            probs.iter().for_each(|p| {
                reads.add("--probs", p);
            });
            reads.add("--input", input)
        }
        NliCommand::Artifacts { input, .. }
        | NliCommand::ExportWriters { input }
        | NliCommand::ExportValidators { input, .. } => reads.add("--input", input),
        NliCommand::Gold { input, votes, .. } => reads.add("--input", input).add("--votes", votes),
    };
    reads.stdout_out()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    match a.command {
        NliCommand::FitVotes { klue } => fit_votes(&mut out, &klue)?,
        NliCommand::Select {
            input,
            probs,
            share,
            folds,
            seed,
        } => select_pairs(&mut out, &input, probs.as_deref(), share, folds, seed)?,
        NliCommand::Artifacts {
            input,
            min_count,
            top,
            seed,
            json,
        } => {
            let r = kcurate_tasks::nli::artifacts::report(
                &read_pairs(&input)?,
                min_count,
                0.7,
                top,
                seed,
            );
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
            } else {
                write!(out, "{}", kcurate_tasks::nli::artifacts::render(&r))?;
            }
        }
        NliCommand::ExportWriters { input } => {
            let text = super::read_text(&input)?;
            let premises: Vec<_> = parse_premises(&input.display().to_string(), &text)?
                .into_iter()
                .map(|p| (p.id, p.text, p.source))
                .collect();
            for row in writer_batch(&premises) {
                serde_json::to_writer(&mut out, &row)?;
                out.write_all(b"\n")?;
            }
        }
        NliCommand::ExportValidators {
            input,
            validators,
            label_studio,
        } => export_validators(&mut out, &input, validators, label_studio.as_deref())?,
        NliCommand::Gold {
            input,
            votes,
            format,
            min_votes,
        } => gold_labels(&mut out, &input, votes, &format, min_votes)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `nli select`: the hypothesis-only model's hardest pairs, one JSON line each, and its
/// accuracy on stderr.
fn select_pairs(
    out: &mut impl Write,
    input: &std::path::Path,
    probs: Option<&std::path::Path>,
    share: f64,
    folds: usize,
    seed: u64,
) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&share) || folds < 2 {
        bail!("--share must be in 0..1 and --folds at least 2");
    }
    if let Some(p) = probs {
        super::one_stdin(&[("--input", input), ("--probs", p)])?;
    }
    let pairs = read_pairs(input)?;
    let imported = match probs {
        None => None,
        Some(p) => {
            let (p, _stdin) = super::stdin_as_file(p, "stdin.jsonl")?;
            Some(kcurate_tasks::nli::select::read_probs(&p).map_err(anyhow::Error::msg)?)
        }
    };
    let scored =
        select(&pairs, imported.as_ref(), share, folds, seed).map_err(anyhow::Error::msg)?;
    for s in &scored {
        serde_json::to_writer(&mut *out, s)?;
        out.write_all(b"\n")?;
    }
    let (all, sel, n) = accuracy(&pairs, &scored);
    eprintln!(
        "hypothesis-only accuracy {all:.4} on {} pairs; {sel:.4} on the {n} selected pairs",
        pairs.len()
    );
    Ok(())
}

/// `nli gold`: each pair's gold label from the validators' votes, one JSON line each, and
/// the agreement figures (KLUE's Table 5) on stderr.
fn gold_labels(
    out: &mut impl Write,
    input: &std::path::Path,
    votes: std::path::PathBuf,
    format: &str,
    min_votes: usize,
) -> anyhow::Result<()> {
    super::one_stdin(&[("--input", input), ("--votes", &votes)])?;
    let pairs = read_pairs(input)?;
    let ids: std::collections::BTreeSet<String> = pairs.iter().map(|p| p.id.clone()).collect();
    let scale = kcurate_agree::io::Scale::Labels(
        kcurate_tasks::nli::select::LABELS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    );
    let format = format.parse().map_err(anyhow::Error::msg)?;
    let spooled;
    let votes = if votes == std::path::Path::new("-") {
        spooled = super::agree::spool_stdin(format)?;
        spooled.1.clone()
    } else {
        votes
    };
    let ann = kcurate_agree::io::read(&votes, format, &scale, Some(&ids))?;
    for d in &ann.rejected {
        eprintln!("{}: {}", d.rule, d.detail);
    }
    let g = gold(&pairs, &ann.rows, min_votes);
    for r in &g.rows {
        serde_json::to_writer(&mut *out, r)?;
        out.write_all(b"\n")?;
    }
    for (id, why) in &g.no_gold {
        eprintln!("nli.no_gold: {id}: {why}");
    }
    eprintln!(
        "Table 5: pairs {}, unanimous {:.2}%, individual = gold {:.2}%, no gold {:.2}%",
        g.stats.pairs,
        g.stats.unanimous * 100.0,
        g.stats.individual_equals_gold * 100.0,
        g.stats.no_gold * 100.0
    );
    Ok(())
}

/// `nli export-validators`: the validators' batch on stdout, or a Label Studio project
/// written into a directory (its files' paths on stdout).
fn export_validators(
    out: &mut impl Write,
    input: &std::path::Path,
    validators: usize,
    label_studio: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let pairs = read_pairs(input)?;
    match label_studio {
        Some(dir) => {
            crate::output_guard::Reads::new()
                .add("--input", input)
                .dir_out(
                    "--label-studio",
                    dir,
                    &[
                        kcurate_agree::batch::TASKS_JSON,
                        kcurate_agree::batch::LABEL_CONFIG_XML,
                    ],
                )?;
            let items = validator_items(&pairs);
            let kind = kcurate_agree::batch::BatchKind::NliTriple;
            for f in kcurate_agree::batch::write_label_studio(&items, &kind, dir)? {
                writeln!(out, "{}", f.display())?;
            }
        }
        None => write!(out, "{}", validator_batch(&pairs, validators))?,
    }
    Ok(())
}

/// `nli fit-votes`: the vote model fitted to KLUE NLI's annotations, as a recipe's
/// `[stage.votes]` table.
fn fit_votes(out: &mut impl Write, klue: &std::path::Path) -> anyhow::Result<()> {
    let text = super::read_text(klue)?;
    let name = klue.file_name().map_or_else(
        || klue.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let m = kcurate_tasks::votes::fit_klue_nli(&text, &name)
        .with_context(|| klue.display().to_string())?;
    write!(
        out,
        "# fitted by: kcurate nli fit-votes --klue {}\n{}",
        klue.display(),
        m.to_toml("stage.votes")
    )?;
    Ok(())
}
