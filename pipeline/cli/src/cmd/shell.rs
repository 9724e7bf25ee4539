//! `completions` and `man`: shell completion scripts and the man page, generated from the
//! same clap definition as `--help`, so they cannot drift from the flags.

use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Args)]
pub struct ManArgs {
    /// Write one page per subcommand (kcurate.1, kcurate-run.1, ...) into this directory
    /// instead of printing kcurate.1 to stdout.
    #[arg(long, value_parser = super::dir_arg, value_hint = clap::ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

pub fn completions<C: CommandFactory>(a: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = C::command();
    // Generated into memory first: clap_complete panics on a write error, and a closed
    // pipe (`| head`) is not an error here.
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "kcurate", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn man<C: CommandFactory>(a: ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = C::command();
    match a.dir {
        Some(dir) => {
            crate::output_guard::not_in_release("--dir", &dir)?;
            std::fs::create_dir_all(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(cmd).render(&mut out)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
