//! `why`, `audit`, `diff`: reading releases back.

use clap::Args;
use kcurate_audit::rules::{Filter, audit as audit_rules, render_csv, render_table};
use kcurate_audit::sample::RuleFilter;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct WhyArgs {
    /// A release directory.
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: PathBuf,
    /// The item id (a document, sentence or example id).
    pub item: Option<String>,
    /// Find the item(s) by text instead: released, dropped or edited (the same text, a
    /// sentence inside a dropped document or line, or the most similar texts), or a line of
    /// a source the licence gate refused.
    #[arg(long)]
    pub text: Option<String>,
    /// Where the recipe's relative input paths resolve (for refused sources' files; default:
    /// the directory of the recipe path the manifest records).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Print the lineage as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "Without a subcommand: decisions per rule and source of RELEASE (`kcurate audit RELEASE --rule R --sample N --seed K --show-text`)."
)]
pub struct AuditArgs {
    #[command(subcommand)]
    pub command: Option<AuditCommand>,
    /// A release directory.
    #[arg(required = true, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: Option<PathBuf>,
    /// Only decisions of this stage (e.g. filter).
    #[arg(long)]
    pub stage: Option<String>,
    /// Only decisions of this rule id (e.g. dedup.exact).
    #[arg(long)]
    pub rule: Option<String>,
    /// Only decisions about items of this source id.
    #[arg(long)]
    pub source: Option<String>,
    /// Sample this many decisions per rule and source (seeded).
    #[arg(long, default_value_t = 0)]
    pub sample: usize,
    /// Seed of the sample (same seed, same sample).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output: an aligned table, JSON or CSV.
    #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
    pub format: String,
    /// Under each sample, what it removed or changed: a drop's text, an edit's before → after.
    #[arg(long)]
    pub show_text: bool,
    /// What computes the counts: a column scan of decisions.parquet, or a polars lazy
    /// query over it (same result).
    #[cfg(feature = "polars")]
    #[arg(long, default_value = "scan", value_parser = ["scan", "polars"])]
    pub engine: String,
}

#[derive(clap::Subcommand)]
pub enum AuditCommand {
    /// Write a stratified sample of each rule's drops and edits for judging: sample.tsv
    /// (judgement column empty), tasks.json (Label Studio tasks) and labeling-config.xml.
    Sample(SampleArgs),
    /// Per-rule precision (Wilson 95% interval) from judgements: the sample's TSV filled in
    /// (correct / wrong) or a Label Studio JSON export.
    Precision(PrecisionArgs),
}

#[derive(Args)]
pub struct SampleArgs {
    /// A release directory.
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: PathBuf,
    /// Decisions per rule.
    #[arg(long, default_value_t = 50)]
    pub per_rule: usize,
    /// Seed of the sample (same seed, same sample).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Directory to write the sample into (created; never inside a release).
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub out: PathBuf,
    /// Replace sample files that exist with other content (a sample.tsv someone filled in);
    /// each replaced file is kept as `<file>.bak` (or `<file>.~N~`).
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub filter: RuleFilterArgs,
}

/// Which rules `audit sample` and `audit precision` cover (both repeatable; none: all).
#[derive(Args)]
pub struct RuleFilterArgs {
    /// Only this rule (repeatable), e.g. `--rule toxicity.slur_political_v3`.
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
    /// Only the rules of this stage (repeatable), e.g. `--stage toxicity`.
    #[arg(long = "stage", value_name = "STAGE")]
    pub stages: Vec<String>,
}

impl RuleFilterArgs {
    /// The filter, refused when it names a rule or stage the release never used (a typo
    /// would otherwise look like "nothing to judge").
    fn for_release(&self, release: &std::path::Path) -> anyhow::Result<RuleFilter> {
        let f = RuleFilter {
            rules: self.rules.clone(),
            stages: self.stages.clone(),
        };
        if f.rules.is_empty() && f.stages.is_empty() {
            return Ok(f);
        }
        let m = kcurate_release::Manifest::load(&release.join("manifest.json"))?;
        let unknown = f.unknown_in(&m);
        if !unknown.is_empty() {
            anyhow::bail!(
                "{} has no {} (`kcurate audit {}` lists its rules and stages)",
                release.display(),
                unknown.join(", "),
                release.display()
            );
        }
        Ok(f)
    }
}

#[derive(Args)]
pub struct PrecisionArgs {
    /// A release directory (the one the sample was drawn from).
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub release: PathBuf,
    /// The judgements: sample.tsv filled in, or a Label Studio JSON export (`-`: stdin).
    #[arg(long)]
    pub labels: PathBuf,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write the judgements TSV to this file with a text_hash column filled from RELEASE
    /// (the release the rows were judged on), so they keep counting after an upstream
    /// change moves item ids; then report as usual. Not --labels itself, nor a file that
    /// exists (unless --overwrite).
    #[arg(long, value_name = "OUT", value_parser = super::file_arg, value_hint = clap::ValueHint::FilePath)]
    pub add_text_hash: Option<PathBuf>,
    /// With --add-text-hash: replace an existing OUT, kept as `OUT.bak` (or `OUT.~N~`).
    #[arg(long, requires = "add_text_hash")]
    pub overwrite: bool,
    #[command(flatten)]
    pub filter: RuleFilterArgs,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The first (older) release directory.
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub a: PathBuf,
    /// The second (newer) release directory.
    #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub b: PathBuf,
    /// Output: text or one JSON object.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
}

pub fn why(a: WhyArgs) -> anyhow::Result<ExitCode> {
    if a.item.is_none() && a.text.is_none() {
        anyhow::bail!("give an item id or --text");
    }
    let root = match &a.root {
        Some(r) => r.clone(),
        None => {
            let m = kcurate_release::manifest::Manifest::load(&a.release.join("manifest.json"))?;
            kcurate_core::recipe::Recipe::dir(std::path::Path::new(&m.recipe.path))
        }
    };
    let found = kcurate_audit::why::why(&a.release, a.item.as_deref(), a.text.as_deref(), &root)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        for l in &found {
            print!("{}", kcurate_audit::why::render(l));
        }
    }
    if found.is_empty() && a.text.is_some() {
        eprintln!("no match: the release holds no text to compare the query with");
    }
    // The nearest texts are shown so the answer is never empty, but they are no match.
    let missing = found.is_empty()
        || found
            .iter()
            .all(|l| l.ended.starts_with("not found") || l.matched.starts_with("nearest "));
    Ok(if missing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn audit(a: AuditArgs) -> anyhow::Result<ExitCode> {
    match a.command {
        Some(AuditCommand::Sample(s)) => return sample(s),
        Some(AuditCommand::Precision(p)) => return precision(p),
        None => {}
    }
    let Some(release) = a.release else {
        anyhow::bail!("give a release directory (or a subcommand: sample, precision)");
    };
    let rows = audit_rules(
        &release,
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
            let m = kcurate_release::Manifest::load(&release.join("manifest.json"))?;
            super::run::print_funnel(&m);
            println!();
            print!("{}", render_table(&rows, a.show_text));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn sample(a: SampleArgs) -> anyhow::Result<ExitCode> {
    let filter = a.filter.for_release(&a.release)?;
    let names: Vec<&str> = kcurate_audit::sample::sample_files(&[])
        .iter()
        .map(|(n, _)| *n)
        .collect();
    crate::output_guard::Reads::new()
        .add("the release", &a.release)
        .dir_out("--out", &a.out, &names)?;
    let rows = kcurate_audit::sample::sample(&a.release, a.per_rule, a.seed, &filter)?;
    let files: Vec<(PathBuf, Vec<u8>)> = kcurate_audit::sample::sample_files(&rows)
        .into_iter()
        .map(|(name, bytes)| (a.out.join(name), bytes))
        .collect();
    for b in crate::output_guard::write_keeping_edits(&files, a.overwrite)? {
        eprintln!("kept the replaced file as {}", b.display());
    }
    let files: Vec<PathBuf> = files.into_iter().map(|(p, _)| p).collect();
    let rules: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.rule.as_str()).collect();
    println!(
        "{} decisions of {} rules (up to {} per rule, seed {})",
        rows.len(),
        rules.len(),
        a.per_rule,
        a.seed
    );
    for f in files {
        println!("{}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn precision(a: PrecisionArgs) -> anyhow::Result<ExitCode> {
    // Judgements on stdin are spooled to a file (the reader tells TSV from JSON by content).
    let (labels, _stdin) = super::stdin_as_file(&a.labels, "stdin-judgements")?;
    if let Some(out) = &a.add_text_hash {
        crate::output_guard::Reads::new()
            .add("the release", &a.release)
            .add("--labels", &a.labels)
            .file_out("--add-text-hash", out)?;
        let kept = crate::output_guard::keep_existing("--add-text-hash", out, a.overwrite)?;
        let f = match kcurate_audit::sample::add_text_hashes(&a.release, &labels, out) {
            Ok(f) => f,
            Err(e) => {
                // Nothing new was made: the person's file goes back where it was.
                if let Some(b) = &kept {
                    let _ = std::fs::rename(b, out);
                }
                return Err(e.into());
            }
        };
        if let Some(b) = kept {
            eprintln!("kept the replaced file as {}", b.display());
        }
        eprintln!(
            "{}: {} rows hashed, {} had a hash, {} name no decision of {} (left to match by id)",
            out.display(),
            f.filled,
            f.kept,
            f.missing,
            a.release.display()
        );
    }
    let labels = a.add_text_hash.as_ref().unwrap_or(&labels);
    let filter = a.filter.for_release(&a.release)?;
    let rows = kcurate_audit::sample::precision_report(&a.release, labels, &filter)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", kcurate_audit::sample::render_precision(&rows));
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
