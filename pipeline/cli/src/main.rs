//! `kcurate`: the binary only wires the libraries (clap subcommands, tracing, progress bars).

mod cmd;
mod signals;
mod stages;

use clap::{Parser, Subcommand};

use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kcurate",
    version,
    about = "Build, verify, rebuild and audit Korean NLU benchmark releases from their source corpora",
    after_help = "Exit status: 0 ok; 1 a check failed (verify, rebuild, check); 2 error; 3 the release was written but input was quarantined or a source refused (see audit/decisions); 130 interrupted (SIGINT; 143 SIGTERM), the unfinished release removed. A closed stdout (`kcurate audit R | head -1`) ends the command quietly by SIGPIPE, as for cat or grep (status 141 in a shell)."
)]
struct Cli {
    /// Log level (error, warn, info, debug, trace); RUST_LOG overrides it.
    #[arg(long, global = true, default_value = "warn")]
    log: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a recipe and write a release directory.
    Run(cmd::run::RunArgs),
    /// Validate a recipe (keys, types, stage settings, licences) without running it.
    Check(cmd::run::CheckArgs),
    /// Re-hash every file of a release against its manifest.
    Verify(cmd::run::VerifyArgs),
    /// Re-run a release's recorded recipe and inputs; the bytes must be identical.
    Rebuild(cmd::run::RebuildArgs),
    /// Read a recipe's sources and print them as Record JSONL (the input of `stage`).
    Ingest(cmd::stage::IngestArgs),
    /// Derive a challenge release (SentiNeg flips, hard subsets, date/unseen splits) from a release.
    Challenge(cmd::challenge::ChallengeArgs),
    /// The lineage of one item: origin, every decision, where it ended.
    Why(cmd::audit::WhyArgs),
    /// Decisions per rule and source, with seeded samples and the stage funnel.
    Audit(cmd::audit::AuditArgs),
    /// Compare two releases: recipe keys, items added/removed/changed, and why.
    Diff(cmd::audit::DiffArgs),
    /// Run the per-record stages of a recipe as a Unix filter (Record JSONL on stdin and stdout).
    Stage(cmd::stage::StageArgs),
    /// List the stages a recipe can name (with --doc, their documentation).
    Stages(cmd::stage::StagesArgs),
    /// Agreement (Krippendorff's α, Fleiss' κ, annotator reliability) or aggregated labels.
    Agree(cmd::agree::AgreeArgs),
    /// Seeded synthetic annotations (skilled, biased and spamming annotators) as long TSV.
    Simulate(cmd::agree::SimulateArgs),
    /// PII: detect spans, pseudonymise text, or check a release for leaks.
    Pii(cmd::pii::PiiArgs),
    /// Toxicity model: train the gender-bias and hate heads, or evaluate them.
    Toxicity(cmd::toxicity::ToxicityArgs),
    /// STS tools: Greedy Sentence Matching with Korean ROUGE.
    Sts(cmd::sts::StsArgs),
    /// NLI tools: hypothesis-only dev/test selection.
    Nli(cmd::nli::NliArgs),
    /// List every rule id (built in and from rules/*.toml) with its stage and summary.
    Rules(cmd::rules::RulesArgs),
    /// Text tools: the Korean sentence splitter as a JSONL filter.
    Text(cmd::text::TextArgs),
}

kcurate_core::global_allocator!();

fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cli.log));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    let result = match cli.command {
        Command::Run(a) => cmd::run::run(a),
        Command::Check(a) => cmd::run::check(a),
        Command::Verify(a) => cmd::run::verify(a),
        Command::Rebuild(a) => cmd::run::rebuild(a),
        Command::Ingest(a) => cmd::stage::ingest(a),
        Command::Stage(a) => cmd::stage::stage(a),
        Command::Challenge(a) => cmd::challenge::challenge(a),
        Command::Why(a) => cmd::audit::why(a),
        Command::Audit(a) => cmd::audit::audit(a),
        Command::Diff(a) => cmd::audit::diff(a),
        Command::Stages(a) => cmd::stage::stages(a),
        Command::Text(a) => cmd::text::text(a),
        Command::Rules(a) => cmd::rules::rules(a),
        Command::Pii(a) => cmd::pii::pii(a),
        Command::Sts(a) => cmd::sts::sts(a),
        Command::Nli(a) => cmd::nli::nli(a),
        Command::Toxicity(a) => cmd::toxicity::toxicity(a),
        Command::Agree(a) => cmd::agree::agree(a),
        Command::Simulate(a) => cmd::agree::simulate(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if cmd::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", error_chain(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, each cause once: typed errors already print their
/// source (`{path}: {source}`), so a cause whose text ends the message so far is not repeated.
fn error_chain(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.ends_with(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}
