//! `pii detect | pseudonymise | leak-check | keygen`.

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
    /// Write a new secret PII key file: 32 random bytes from the OS as 64 hex characters
    /// and a newline, readable by its owner only; never over an existing file.
    #[command(
        after_help = "The key is the file's text, trimmed (its 64 hex characters are the HMAC key's bytes). Use it as\n  [[stage]] name = \"pii\" key_file = \"pii.key\"   (relative to the recipe's directory)\nor  export KCURATE_PII_KEY=$(cat pii.key)          (the stage's default key_env)\nThe same key gives the same pseudonyms on every run; keep it secret and out of the release (a key that leaks lets anyone test a guessed original against a fingerprint); a new key gives every pseudonym anew."
    )]
    Keygen {
        /// The key file to create (refused when it exists).
        #[arg(value_parser = super::file_arg)]
        file: PathBuf,
    },
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
    if let PiiCommand::Keygen { file } = &a.command {
        return keygen(file);
    }
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
        PiiCommand::Keygen { .. } => unreachable!("answered above"),
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
        eprintln!("{b}");
    }
    Ok(if bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// Bytes of randomness in a key `pii keygen` writes (HMAC-SHA256's block of security).
const KEY_BYTES: usize = 32;

/// Creates `file` holding a new key: [`KEY_BYTES`] bytes from the OS as lower-case hex and
/// a newline, mode 0600. An existing file is never replaced: pseudonyms made under the old
/// key could no longer be reproduced.
fn keygen(file: &std::path::Path) -> anyhow::Result<ExitCode> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("random bytes from the OS: {e}"))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => anyhow::anyhow!(
                "{}: the file exists; a key is never overwritten (pseudonyms made under it could not be made again): choose another name, or remove it yourself",
                file.display()
            ),
            _ => anyhow::anyhow!("{}: {e}", file.display()),
        })?;
    writeln!(f, "{hex}").with_context(|| file.display().to_string())?;
    eprintln!(
        "{}: a new PII key ({KEY_BYTES} random bytes as {} hex characters, mode 0600); use it with `key_file = \"{}\"` in the pii stage, or `export KCURATE_PII_KEY=$(cat {})`",
        file.display(),
        KEY_BYTES * 2,
        file.display(),
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}
