//! `kcurate`: the binary only wires the libraries (clap subcommands, tracing, progress bars).

#![allow(
    unreachable_pub,
    reason = "a binary exports nothing: `pub` in its modules means visible to the crate"
)]

mod alloc;
mod cmd;
mod output_guard;
mod progress;
mod signals;
mod stages;

use clap::{Parser, Subcommand};

use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kcurate",
    version,
    about = "Build, verify, rebuild and audit Korean NLU benchmark releases from their source corpora",
    after_help = "Exit status:\n  0  ok\n  1  a check failed (check, verify, rebuild, pii leak-check, why: not found)\n  2  error: the command could not finish (e.g. a source path missing, empty or unreadable; an unparsable recipe; an unwritable output)\n  3  run: the release was written, but input was quarantined (ingest.malformed, ingest.duplicate_id, ingest.bad_id, ingest.over_limit) or a source refused (see audit/decisions); ingest, stage: input lines quarantined\n  4  finalise: refused its parts, ingest decisions or dedup verdicts (they do not hold together; the message names the file and line); nothing written\n  130  interrupted (SIGINT; 143 SIGTERM), the unfinished release (if any) removed\nA closed stdout (`kcurate audit R | head -1`) ends the command quietly by SIGPIPE, as for cat or grep (status 141 in a shell)."
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
    #[command(
        after_help = "Examples:\n  kcurate run configs/default.toml --out releases --overwrite\n  kcurate run configs/klue-sts.toml --threads 2"
    )]
    Run(cmd::run::RunArgs),
    /// Validate a recipe (keys, types, stage settings, licences) without running it.
    #[command(after_help = "Examples:\n  kcurate check configs/klue-nli.toml")]
    Check(cmd::run::CheckArgs),
    /// Re-hash every file of a release against its manifest.
    #[command(after_help = "Examples:\n  kcurate verify releases/kcurate-samples/1.0.0")]
    Verify(cmd::run::VerifyArgs),
    /// Re-run a release's recorded recipe and inputs; the bytes must be identical.
    #[command(
        after_help = "Examples:\n  kcurate rebuild releases/kcurate-samples/1.0.0/manifest.json --out /tmp/rebuilt"
    )]
    Rebuild(cmd::run::RebuildArgs),
    /// Write a release from the parts an engine staged (Spark: integrations/spark); same bytes as `run`.
    #[command(
        after_help = "Examples:\n  kcurate ingest configs/default.toml --decisions ingest.jsonl > records.jsonl\n  split -n l/4 records.jsonl p. && for f in p.*; do kcurate stage --recipe configs/default.toml --before-corpus --decisions - < $f > parts/$f; done\n  kcurate finalise configs/default.toml --parts parts --decisions ingest.jsonl --out releases"
    )]
    Finalise(cmd::run::FinaliseArgs),
    /// Dedup's verdicts from the keys of the records that share one (an engine's shuffle), for `finalise --dedup-verdicts`.
    #[command(
        after_help = "Examples:\n  kcurate stage --recipe configs/default.toml --before-corpus --dedup-keys --decisions - < records.jsonl > part\n  grep '^{\"dedup\":' part | kcurate dedup-verdicts configs/default.toml --keys - > verdicts.jsonl\n  kcurate finalise configs/default.toml --parts part --decisions ingest.jsonl --dedup-verdicts verdicts.jsonl --out releases"
    )]
    DedupVerdicts(cmd::dedup::DedupVerdictsArgs),
    /// Read a recipe's sources and print them as Record JSONL (the input of `stage`).
    #[command(
        after_help = "Examples:\n  kcurate ingest configs/default.toml | kcurate stage --recipe configs/default.toml --stages normalize,noise\n  kcurate ingest configs/default.toml --out records.jsonl --decisions - | wc -l"
    )]
    Ingest(cmd::stage::IngestArgs),
    /// Derive a challenge release (SentiNeg flips, hard subsets, date/unseen splits) from a release.
    #[command(
        after_help = "Examples:\n  kcurate challenge releases/kcurate-samples/1.0.0 --recipe configs/challenge-sentineg.toml\n  kcurate challenge export releases/challenge-sentineg/1.0.0 --checkers 3"
    )]
    Challenge(cmd::challenge::ChallengeArgs),
    /// The lineage of one item: origin, every decision, where it ended.
    #[command(
        after_help = "Examples:\n  kcurate why releases/kcurate-samples/1.0.0 intents-0000013-s000\n  kcurate why releases/kcurate-samples/1.0.0 --text \"오늘은 날씨가 좋다.\""
    )]
    Why(cmd::audit::WhyArgs),
    /// Decisions per rule and source, with seeded samples and the stage funnel.
    #[command(
        after_help = "Examples:\n  kcurate audit releases/kcurate-samples/1.0.0 --stage filter\n  kcurate audit releases/kcurate-samples/1.0.0 --rule dedup.exact --sample 5 --seed 1 --format csv"
    )]
    Audit(cmd::audit::AuditArgs),
    /// Compare two releases: recipe keys, items added/removed/changed, and why.
    #[command(
        after_help = "Examples:\n  kcurate diff releases/kcurate-samples/1.0.0 /tmp/rebuilt/kcurate-samples/1.0.0 --format json"
    )]
    Diff(cmd::audit::DiffArgs),
    /// Run the per-record stages of a recipe as a Unix filter (Record JSONL on stdin and stdout).
    #[command(
        after_help = "Examples:\n  kcurate ingest configs/default.toml | kcurate stage --recipe configs/default.toml --decisions d.jsonl > out.jsonl"
    )]
    Stage(cmd::stage::StageArgs),
    /// Write a commented recipe for data files (format, fields and task sniffed from their content).
    #[command(
        after_help = "Examples:\n  kcurate init data/reviews.tsv.gz --out recipe.toml\n  kcurate init a.jsonl b.csv --name my-corpus --out recipe.toml --overwrite"
    )]
    Init(cmd::init::InitArgs),
    /// Every recipe key with its type and default (with --doc, the full reference as Markdown).
    #[command(after_help = "Examples:\n  kcurate recipe --doc > docs/recipe.md")]
    Recipe(cmd::recipe_doc::RecipeArgs),
    /// List the stages a recipe can name (with --doc, their documentation).
    #[command(after_help = "Examples:\n  kcurate stages --doc")]
    Stages(cmd::stage::StagesArgs),
    /// Agreement (Krippendorff's α, Fleiss' κ, annotator reliability) or aggregated labels.
    #[command(
        after_help = "Examples:\n  kcurate agree --input votes.tsv --level nominal --json\n  kcurate agree --input scores.tsv --level interval --aggregate mean --scale 0..5 > gold.jsonl\n  kcurate agree plan --input pilot.tsv --target-width 0.1"
    )]
    Agree(cmd::agree::AgreeArgs),
    /// Seeded synthetic annotations (skilled, biased and spamming annotators) as long TSV.
    #[command(
        after_help = "Examples:\n  kcurate simulate --input items.jsonl --kind nominal --labels entailment,neutral,contradiction > votes.tsv"
    )]
    Simulate(cmd::agree::SimulateArgs),
    /// PII: detect spans, pseudonymise text, or check a release for leaks.
    #[command(
        after_help = "Examples:\n  echo '{\"id\":\"a\",\"text\":\"연락처 010-1234-5678\"}' | kcurate pii detect\n  kcurate pii leak-check releases/kcurate-samples/1.0.0"
    )]
    Pii(cmd::pii::PiiArgs),
    /// Toxicity model: train the gender-bias and hate heads, or evaluate them.
    #[command(
        after_help = "Examples:\n  kcurate toxicity train --data data-samples/toxicity/labeled.tsv --out model.json\n  kcurate toxicity eval --model model.json --data heldout.tsv --json"
    )]
    Toxicity(cmd::toxicity::ToxicityArgs),
    /// STS tools: Greedy Sentence Matching with Korean ROUGE.
    #[command(
        after_help = "Examples:\n  kcurate sts gsm --input sentences.jsonl --metric rougeL --seed 1"
    )]
    Sts(cmd::sts::StsArgs),
    /// NLI tools: hypothesis-only dev/test selection.
    #[command(
        after_help = "Examples:\n  kcurate nli select --input pairs.jsonl --share 0.2\n  kcurate nli fit-votes --klue ../shared/corpora/klue/klue-nli-v1.1/klue-nli-v1.1_dev.json"
    )]
    Nli(cmd::nli::NliArgs),
    /// List every rule id (built in and from rules/*.toml) with its stage and summary.
    #[command(after_help = "Examples:\n  kcurate rules")]
    Rules(cmd::rules::RulesArgs),
    /// Text tools: the Korean sentence splitter as a JSONL filter.
    #[command(
        after_help = "Examples:\n  echo '{\"id\":\"a\",\"text\":\"밥 먹었어요 너는 뭐 했니\"}' | kcurate text split"
    )]
    Text(cmd::text::TextArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  kcurate completions bash > /etc/bash_completion.d/kcurate\n  kcurate completions zsh > ~/.zfunc/_kcurate\n  kcurate completions fish > ~/.config/fish/completions/kcurate.fish"
    )]
    Completions(cmd::shell::CompletionsArgs),
    /// Print the man page (roff), or write one page per subcommand with --dir.
    #[command(after_help = "Examples:\n  kcurate man | man -l -\n  kcurate man --dir target/man")]
    Man(cmd::shell::ManArgs),
}

/// Whether a file name holds PII by the `pii` stage's detector, read as written and with
/// `_` as a space (names often join their words with it).
fn file_name_holds_pii(name: &str) -> bool {
    !kcurate_pii::detect(name).is_empty()
        || !kcurate_pii::detect(&name.replace('_', " ")).is_empty()
}

fn main() -> ExitCode {
    alloc::one_malloc_arena();
    signals::install();
    // Side inputs read through core's JSONL reader are decoded (gzip, zstd) as sources are.
    kcurate_io::install_decoders();
    // File names reach a release (records' origin, decisions, the manifest): one holding
    // personal data goes by its place in its source's listing instead.
    kcurate_core::names::set_personal_check(file_name_holds_pii);
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cli.log));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on_stderr())
        .with_target(false)
        .init();
    let result = match cli.command {
        Command::Run(a) => cmd::run::run(a),
        Command::Check(a) => cmd::run::check(a),
        Command::Verify(a) => cmd::run::verify(a),
        Command::Rebuild(a) => cmd::run::rebuild(a),
        Command::Finalise(a) => cmd::run::finalise(a),
        Command::DedupVerdicts(a) => cmd::dedup::dedup_verdicts(a),
        Command::Ingest(a) => cmd::stage::ingest(a),
        Command::Stage(a) => cmd::stage::stage(a),
        Command::Challenge(a) => cmd::challenge::challenge(a),
        Command::Why(a) => cmd::audit::why(a),
        Command::Audit(a) => cmd::audit::audit(a),
        Command::Diff(a) => cmd::audit::diff(a),
        Command::Init(a) => cmd::init::init(a),
        Command::Recipe(a) => cmd::recipe_doc::recipe(a),
        Command::Stages(a) => cmd::stage::stages(a),
        Command::Text(a) => cmd::text::text(a),
        Command::Rules(a) => cmd::rules::rules(a),
        Command::Pii(a) => cmd::pii::pii(a),
        Command::Sts(a) => cmd::sts::sts(a),
        Command::Nli(a) => cmd::nli::nli(a),
        Command::Toxicity(a) => cmd::toxicity::toxicity(a),
        Command::Agree(a) => cmd::agree::agree(a),
        Command::Simulate(a) => cmd::agree::simulate(a),
        Command::Completions(a) => cmd::shell::completions::<Cli>(a),
        Command::Man(a) => cmd::shell::man::<Cli>(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if cmd::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            // The signal thread exits with 130 or 143 once the unfinished release is gone.
            while signals::interrupted() {
                std::thread::park_timeout(std::time::Duration::from_millis(100));
            }
            eprintln!("error: {}", cmd::error_chain(&e));
            if e.downcast_ref::<cmd::Refused>().is_some() {
                return ExitCode::from(cmd::REFUSED);
            }
            ExitCode::from(2)
        }
    }
}

/// Colour only for a person at a terminal: never into a pipe or a file, and never when
/// `NO_COLOR` is set (https://no-color.org).
fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every flag and positional argument of every subcommand says what it is in `--help`.
    #[test]
    fn every_argument_is_documented() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments() {
                let id = a.get_id().as_str();
                if id != "help" && id != "version" && a.get_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for s in cmd.get_subcommands() {
                walk(s, &format!("{path} {}", s.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "kcurate", &mut missing);
        assert!(
            missing.is_empty(),
            "arguments without help text:\n{}",
            missing.join("\n")
        );
    }
}
