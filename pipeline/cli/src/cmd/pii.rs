//! `pii detect | pseudonymise | leak-check`.

use anyhow::Context;
use clap::{Args, Subcommand};
use kcurate_pii::pseudo::PiiKey;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct PiiArgs {
    #[command(subcommand)]
    pub command: PiiCommand,
}

#[derive(Args)]
pub struct KeyArgs {
    /// Environment variable holding the secret key.
    #[arg(long, default_value = "KCURATE_PII_KEY")]
    pub key_env: String,
    /// A file holding the secret key (wins over --key-env; `-`: read from stdin).
    #[arg(long)]
    pub key_file: Option<PathBuf>,
}

impl KeyArgs {
    fn key(&self) -> anyhow::Result<PiiKey> {
        Ok(match &self.key_file {
            Some(f) if f == std::path::Path::new("-") => {
                let text = std::io::read_to_string(std::io::stdin().lock())
                    .context("--key-file -: stdin")?;
                PiiKey::new(text.trim().as_bytes().to_vec())?
            }
            Some(f) => PiiKey::from_file(f)?,
            None => PiiKey::from_env(&self.key_env)?,
        })
    }
}

#[derive(Subcommand)]
pub enum PiiCommand {
    /// `{"id","text"}` JSONL on stdin → `{"id","spans":[{"start","end","type"}]}` on stdout.
    Detect,
    /// `{"id","text"}` JSONL on stdin → `{"id","text","replacements":[...]}` on stdout.
    Pseudonymise(KeyArgs),
    /// Scan a release's outputs for originals (by keyed fingerprint) and unprocessed PII.
    LeakCheck {
        /// A release directory.
        #[arg(value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
        release: PathBuf,
        #[command(flatten)]
        key: KeyArgs,
    },
}

pub fn pii(a: PiiArgs) -> anyhow::Result<ExitCode> {
    if !matches!(a.command, PiiCommand::LeakCheck { .. }) {
        crate::output_guard::Reads::new().stdin().stdout_out()?;
    }
    let stdin = || std::io::stdin().lock();
    let stdout = || BufWriter::new(std::io::stdout().lock());
    let bad = match a.command {
        PiiCommand::Detect => kcurate_pii::jsonl::detect_jsonl(stdin(), stdout())?,
        PiiCommand::Pseudonymise(k) => {
            if k.key_file.as_deref() == Some(std::path::Path::new("-")) {
                anyhow::bail!(
                    "--key-file -: stdin carries the records here; give the key in a file or --key-env"
                );
            }
            kcurate_pii::jsonl::pseudonymise_jsonl(&k.key()?, stdin(), stdout())?
        }
        PiiCommand::LeakCheck { release, key } => {
            let findings = kcurate_pii::jsonl::leak_check(&release, &key.key()?)
                .with_context(|| release.display().to_string())?;
            for f in &findings {
                eprintln!("{}/{f}", release.display());
            }
            if findings.is_empty() {
                println!(
                    "{}: no PII original and no unprocessed PII found",
                    release.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            return Ok(ExitCode::from(1));
        }
    };
    for b in &bad {
        eprintln!("<stdin>:{b}");
    }
    Ok(if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
