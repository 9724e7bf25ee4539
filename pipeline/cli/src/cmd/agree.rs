//! `agree` (agreement table / aggregated labels) and `simulate` (seeded annotators).

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use kcurate_agree::aggregators::Method;
use kcurate_agree::alpha::Level;
use kcurate_agree::io::{self, Format, LabelStudio, Numbers, ReadOptions, Scale};
use kcurate_agree::report::{Aggregation, render_table, summarize_table, write_aggregate};
use kcurate_agree::simulate;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, ValueEnum)]
pub enum AggregateHow {
    /// k-of-n majority (--min-votes); no gold on a tie.
    Majority,
    /// Mean score rounded to --decimals.
    Mean,
    /// Dawid–Skene EM with a confusion matrix per annotator.
    DawidSkene,
    /// Dawid–Skene with one skill per annotator.
    #[value(alias = "one-coin-dawid-skene")]
    OneCoin,
    /// crowd-kit's Wawa: majority weighted by each annotator's agreement with the majority.
    Wawa,
    /// crowd-kit's Zero-Based Skill: skills learnt from agreement with the weighted majority.
    #[value(alias = "zbs")]
    ZeroBasedSkill,
    /// crowd-kit's MACE (variational Bayes, its seeded start).
    Mace,
    /// crowd-kit's GLAD: annotator ability and item difficulty by EM.
    Glad,
    /// crowd-kit's M-MSR: skills by rank-one completion of the annotators' covariance.
    Mmsr,
    /// crowd-kit's KOS: message passing on binary labels (exactly two; posterior null).
    Kos,
    /// crowd-kit's GoldMajorityVote: skills as accuracy on the items of --gold, weighted vote.
    #[value(alias = "gold-majority-vote")]
    GoldMajority,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct AgreeArgs {
    #[command(subcommand)]
    pub command: Option<super::agree_plan::AgreeCommand>,
    /// Annotations: long TSV/CSV (header: item|task, annotator|worker, label|value[, flags]), JSONL, wide TSV/CSV, or a Label Studio export (JSON, JSON-MIN, or CSV). `-` reads stdin (TSV, or JSONL when it starts with `{`; for label-studio JSON, or CSV when it does not start with `[`), named `-` in messages.
    #[arg(long, required = true)]
    pub input: Option<PathBuf>,
    /// Label Studio: the control whose results are votes (`from_name`). Default: the only
    /// Choices/Number/Rating control of --label-config, else the only one in the export.
    #[arg(long)]
    pub from_name: Option<String>,
    /// Label Studio: the batch's labeling config (XML), naming the vote control (`-`: stdin,
    /// when --input is a file).
    #[arg(long)]
    pub label_config: Option<PathBuf>,
    /// Input layout: long rows (item, annotator, value), wide (one row per item, a column per annotator) or a Label Studio export.
    #[arg(long, default_value = "long", value_parser = ["long", "wide", "label-studio"])]
    pub format: String,
    /// Measurement level of the values (α's distance): nominal, ordinal, interval or ratio.
    #[arg(long, default_value = "nominal", value_parser = ["nominal", "ordinal", "interval", "ratio"])]
    pub level: String,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write aggregated labels as {"item","label"} JSONL instead (label null where no gold).
    #[arg(long, value_enum)]
    pub aggregate: Option<AggregateHow>,
    /// Known labels for --aggregate gold-majority: TSV/CSV with a header naming `item` (or
    /// `task`) and `label` (or `value`, `gold`, `true_label`). Every annotator must have
    /// answered at least one of its items.
    #[arg(long)]
    pub gold: Option<PathBuf>,
    /// k of k-of-n majority (KLUE NLI 3, JNLI 6, MARC-ja 7, TC 2).
    #[arg(long, default_value_t = 1)]
    pub min_votes: usize,
    /// Decimals of mean scores (KLUE STS: 1).
    #[arg(long, default_value_t = 1)]
    pub decimals: usize,
    /// Accept only numbers in MIN..MAX (e.g. 0..5); other rows become decisions.
    #[arg(long)]
    pub scale: Option<String>,
    /// Accept only these labels (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Bootstrap replicates for α's 95% interval (0 = none).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap resampling (the interval is the same for the same seed).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Threads a long TSV/CSV file is read on (0 = all cores; at most 4 × the cores, and at
    /// least 8 allowed). The output bytes do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = super::threads_arg)]
    pub threads: usize,
    /// At most this many annotators per item: a further annotator's annotation of the item
    /// is an `agree.too_many_annotators` decision (file:line; exit 3).
    #[arg(long, default_value_t = kcurate_core::recipe::Limits::default().max_annotators_per_item)]
    pub max_annotators_per_item: usize,
    /// A longer line of a TSV/CSV/JSONL file is an `agree.over_limit` decision, skipped to its
    /// end unread (exit 3).
    #[arg(long, default_value_t = kcurate_core::recipe::Limits::default().max_line_bytes)]
    pub max_line_bytes: usize,
    /// A longer task (array element) of a Label Studio JSON or JSON-MIN export is an
    /// `agree.over_limit` decision naming file:line and the task's index, skipped to its end
    /// unread (exit 3).
    #[arg(long, default_value_t = kcurate_core::recipe::Limits::default().max_record_bytes)]
    pub max_record_bytes: usize,
}

fn scale(a: &AgreeArgs) -> anyhow::Result<Scale> {
    if let Some(s) = &a.scale {
        let (lo, hi) = s.split_once("..").context("--scale is MIN..MAX")?;
        return Ok(Scale::Range(lo.parse()?, hi.parse()?));
    }
    Ok(if a.labels.is_empty() {
        Scale::Any
    } else {
        Scale::Labels(a.labels.clone())
    })
}

pub fn agree(mut a: AgreeArgs) -> anyhow::Result<ExitCode> {
    if let Some(super::agree_plan::AgreeCommand::Plan(p)) = a.command.take() {
        return super::agree_plan::agree_plan(*p);
    }
    let input = a.input.take().context("--input is required")?;
    let format: Format = a.format.parse().map_err(anyhow::Error::msg)?;
    let level: Level = a.level.parse().map_err(anyhow::Error::msg)?;
    if a.gold.is_some() != matches!(a.aggregate, Some(AggregateHow::GoldMajority)) {
        bail!(
            "--aggregate gold-majority needs --gold FILE (item, label), and --gold is for it only"
        );
    }
    let opts = read_options(&a, &input, level)?;
    // stdin is spooled to a temporary file (the readers seek nothing, but pick the format by
    // the file's extension) and named `-` in messages and decisions.
    let spooled;
    let (path, shown) = if input == std::path::Path::new("-") {
        spooled = spool_stdin(format)?;
        (spooled.1.clone(), "-".to_string())
    } else {
        (input.clone(), input.display().to_string())
    };
    let read = io::read_table_named(&path, &shown, format, &opts)?;
    {
        let mut err = std::io::stderr().lock();
        for d in read.rejected.iter().chain(&read.skipped) {
            writeln!(err, "{}: {}", d.rule, d.detail)?;
        }
    }
    let t = &read.table;
    // One label per item: large writes (a system call per 8 KiB cost more than the labels'
    // JSON on a pipe).
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    if let Some(how) = a.aggregate {
        if matches!(how, AggregateHow::Kos) {
            super::agree_gold::check_binary(t, &shown)?;
        }
        match (aggregation(how, &a), &a.gold) {
            (Some(agg), _) => write_aggregate(t, agg, &mut out)?,
            (None, Some(gold)) => super::agree_gold::write_gold_majority(t, gold, &mut out)?,
            (None, None) => bail!("--aggregate gold-majority needs --gold FILE"),
        }
    } else {
        let s = summarize_table(t, level, a.bootstrap, a.seed)?;
        if a.json {
            let mut v = serde_json::to_value(&s)?;
            v["rejected_rows"] = serde_json::json!(read.rejected.len());
            v["cancelled_annotations"] = serde_json::json!(read.skipped.len());
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        } else {
            write!(out, "{}", render_table(&s))?;
            if !read.rejected.is_empty() {
                writeln!(
                    out,
                    "\nrejected rows: {} (listed on stderr)",
                    read.rejected.len()
                )?;
            }
            if !read.skipped.is_empty() {
                writeln!(
                    out,
                    "cancelled annotations: {} (not votes; listed on stderr)",
                    read.skipped.len()
                )?;
            }
        }
    }
    out.flush()?;
    Ok(if read.rejected.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// How `agree` reads its input: the scale, which values must be numbers, the Label Studio
/// control and the limits (the input and config paths checked against stdout first).
fn read_options(
    a: &AgreeArgs,
    input: &std::path::Path,
    level: Level,
) -> anyhow::Result<ReadOptions<'static>> {
    // Values that must be numbers: a mean rejects the others row by row; α at the interval
    // or ratio level is undefined on texts, so the first one is an error (file:line:field).
    let numbers = match a.aggregate {
        Some(AggregateHow::Mean) => Numbers::Reject,
        Some(_) => Numbers::Any,
        None if matches!(level, Level::Interval | Level::Ratio) => Numbers::Require,
        None => Numbers::Any,
    };
    if a.max_annotators_per_item == 0 || a.max_line_bytes == 0 || a.max_record_bytes == 0 {
        bail!(
            "--max-annotators-per-item, --max-line-bytes and --max-record-bytes must be at least 1"
        );
    }
    let mut reads = crate::output_guard::Reads::new();
    reads.add("--input", input);
    if let Some(p) = &a.label_config {
        reads.add("--label-config", p);
    }
    if let Some(p) = &a.gold {
        reads.add("--gold", p);
    }
    reads.stdout_out()?;
    let label_config = match &a.label_config {
        Some(p) => {
            super::one_stdin(&[("--input", input), ("--label-config", p)])?;
            Some(super::read_text(p).context("the labeling config")?)
        }
        None => None,
    };
    Ok(ReadOptions {
        scale: scale(a)?,
        known_items: None,
        numbers,
        label_studio: LabelStudio {
            from_name: a.from_name.clone(),
            label_config,
        },
        limits: kcurate_core::recipe::Limits {
            max_annotators_per_item: a.max_annotators_per_item,
            max_line_bytes: a.max_line_bytes,
            max_record_bytes: a.max_record_bytes,
            ..Default::default()
        },
        threads: a.threads,
    })
}

/// The `--aggregate` method as the report's aggregation (`None`: gold-majority, which needs
/// the --gold labels).
fn aggregation(how: AggregateHow, a: &AgreeArgs) -> Option<Aggregation> {
    Some(match how {
        AggregateHow::Majority => Aggregation::Majority {
            min_votes: a.min_votes,
        },
        AggregateHow::Mean => Aggregation::Mean {
            decimals: a.decimals,
        },
        AggregateHow::DawidSkene => Aggregation::DawidSkene { one_coin: false },
        AggregateHow::OneCoin => Aggregation::DawidSkene { one_coin: true },
        AggregateHow::Wawa => Aggregation::Crowd(Method::Wawa),
        AggregateHow::ZeroBasedSkill => Aggregation::Crowd(Method::ZeroBasedSkill),
        AggregateHow::Mace => Aggregation::Crowd(Method::Mace),
        AggregateHow::Glad => Aggregation::Crowd(Method::Glad),
        AggregateHow::Mmsr => Aggregation::Crowd(Method::Mmsr),
        AggregateHow::Kos => Aggregation::Crowd(Method::Kos),
        AggregateHow::GoldMajority => return None,
    })
}

/// Copies stdin to a temporary file whose extension says its format (see `--input`).
pub(super) fn spool_stdin(format: Format) -> anyhow::Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().context("a temporary directory for stdin")?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).context("stdin")?;
    let first = bytes
        .iter()
        .copied()
        .find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    let name = match (format, first) {
        (Format::LabelStudio, Some(b'[')) => "stdin.json",
        (Format::LabelStudio, _) => "stdin.csv",
        (_, Some(b'{')) => "stdin.jsonl",
        _ => "stdin.tsv",
    };
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).with_context(|| path.display().to_string())?;
    Ok((dir, path))
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SimKind {
    /// Nominal labels (--labels), the truth from --truth-field.
    Nominal,
    /// Integer scores on 0..5, the truth from --truth-field.
    Score,
}

#[derive(Args)]
pub struct SimulateArgs {
    /// Items as JSONL with an `id` and the true label or score in --truth-field (`-`: stdin).
    #[arg(long)]
    pub input: PathBuf,
    /// What the simulated annotators give: nominal labels or 0-5 scores.
    #[arg(long, value_enum)]
    pub kind: SimKind,
    /// The input field holding the true label or score.
    #[arg(long, default_value = "label")]
    pub truth_field: String,
    /// Nominal labels to choose from (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub labels: Vec<String>,
    /// How many simulated annotators label every item.
    #[arg(long, default_value_t = 5)]
    pub annotators: usize,
    /// How many of the annotators answer at random.
    #[arg(long, default_value_t = 1)]
    pub spammers: usize,
    /// Seed of the annotators' noise (same seed, same votes).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// Writes long TSV (`item, annotator, label`) to stdout.
pub fn simulate(a: SimulateArgs) -> anyhow::Result<ExitCode> {
    crate::output_guard::Reads::new()
        .add("--input", &a.input)
        .stdout_out()?;
    let pool = simulate::pool(a.annotators, a.spammers, a.seed);
    let labels: Vec<&str> = a.labels.iter().map(String::as_str).collect();
    if matches!(a.kind, SimKind::Nominal) && labels.len() < 2 {
        bail!("--kind nominal needs --labels with at least two labels");
    }
    let input: Box<dyn BufRead> = if a.input == std::path::Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(&a.input).with_context(|| a.input.display().to_string())?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(out, "item\tannotator\tlabel")?;
    let shown = a.input.display().to_string();
    for item in kcurate_core::jsonl::from_reader(shown.as_str(), input) {
        let (line, v) = item.map_err(|e| match e {
            kcurate_core::jsonl::JsonlError::Json { path, line, source } => {
                anyhow::Error::new(source).context(format!("{path}:{line}: invalid JSON"))
            }
            other => other.into(),
        })?;
        let n = line - 1;
        let id = kcurate_core::jsonl::str_field(&v, "id", &shown, line, "missing field")?;
        let truth = &v[&a.truth_field];
        for ann in &pool {
            let label = match a.kind {
                SimKind::Nominal => {
                    let t = truth.as_str().with_context(|| {
                        format!(
                            "{}:{}: {}: expected a label",
                            a.input.display(),
                            n + 1,
                            a.truth_field
                        )
                    })?;
                    simulate::nominal(a.seed, id, ann, t, &labels)
                }
                SimKind::Score => {
                    let t = truth.as_f64().with_context(|| {
                        format!(
                            "{}:{}: {}: expected a number",
                            a.input.display(),
                            n + 1,
                            a.truth_field
                        )
                    })?;
                    format!("{}", simulate::score(a.seed, id, ann, t, 0.0, 5.0))
                }
            };
            writeln!(out, "{id}\t{}\t{label}", ann.id)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
