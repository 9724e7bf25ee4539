//! `text split`: the sentence splitter over JSONL on stdin/stdout.

use anyhow::Context;
use clap::{Args, Subcommand};
use std::io::BufWriter;
use std::process::ExitCode;

#[derive(Args)]
pub struct TextArgs {
    #[command(subcommand)]
    pub command: TextCommand,
}

#[derive(Subcommand)]
pub enum TextCommand {
    /// Split `{"id","text"}` JSONL on stdin into `{"id","sentences":[...]}` JSONL on stdout.
    Split,
}

pub fn text(a: TextArgs) -> anyhow::Result<ExitCode> {
    match a.command {
        TextCommand::Split => {
            crate::output_guard::Reads::new().stdin().stdout_out()?;
            let stdin = std::io::stdin().lock();
            let stdout = BufWriter::new(std::io::stdout().lock());
            let report = kcurate_text::split_jsonl(stdin, stdout).context("text split")?;
            for b in &report.bad {
                eprintln!("<stdin>:{b}");
            }
            tracing::info!(
                lines = report.lines,
                sentences = report.sentences,
                "split finished"
            );
            Ok(if report.bad.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(3)
            })
        }
    }
}
