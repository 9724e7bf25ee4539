//! `nli select`: hypothesis-only dev/test selection.

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use kcurate_tasks::nli::select::{Pair, accuracy, select};
use std::collections::BTreeMap;
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
        #[arg(long)]
        input: PathBuf,
        /// `{"id","p_entailment","p_neutral","p_contradiction"}` JSONL from an external model.
        #[arg(long)]
        probs: Option<PathBuf>,
        #[arg(long, default_value_t = 0.2)]
        share: f64,
        #[arg(long, default_value_t = 5)]
        folds: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
}

fn read_jsonl(path: &PathBuf) -> anyhow::Result<Vec<(usize, serde_json::Value)>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            Ok((
                n + 1,
                serde_json::from_str(l)
                    .with_context(|| format!("{}:{}: invalid JSON", path.display(), n + 1))?,
            ))
        })
        .collect()
}

pub fn nli(a: NliArgs) -> anyhow::Result<ExitCode> {
    let NliCommand::Select {
        input,
        probs,
        share,
        folds,
        seed,
    } = a.command;
    if !(0.0..=1.0).contains(&share) || folds < 2 {
        bail!("--share must be in 0..1 and --folds at least 2");
    }
    let mut pairs = Vec::new();
    for (line, v) in read_jsonl(&input)? {
        let field = |k: &str| -> anyhow::Result<String> {
            v[k].as_str().map(String::from).with_context(|| {
                format!(
                    "{}:{line}: {k}: missing field or not a string",
                    input.display()
                )
            })
        };
        pairs.push(Pair {
            id: field("id")?,
            premise: field("premise")?,
            hypothesis: field("hypothesis")?,
            label: field("label")?,
            source: v["source"].as_str().map(String::from),
        });
    }
    let imported = match &probs {
        None => None,
        Some(p) => {
            let mut m = BTreeMap::new();
            for (line, v) in read_jsonl(p)? {
                let num = |k: &str| {
                    v[k].as_f64().with_context(|| {
                        format!("{}:{line}: {k}: missing or not a number", p.display())
                    })
                };
                let id = v["id"]
                    .as_str()
                    .with_context(|| format!("{}:{line}: id: missing field", p.display()))?;
                m.insert(
                    id.to_string(),
                    [
                        num("p_entailment")?,
                        num("p_neutral")?,
                        num("p_contradiction")?,
                    ],
                );
            }
            Some(m)
        }
    };
    let scored =
        select(&pairs, imported.as_ref(), share, folds, seed).map_err(anyhow::Error::msg)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for s in &scored {
        serde_json::to_writer(&mut out, s)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    let (all, sel, n) = accuracy(&pairs, &scored);
    eprintln!(
        "hypothesis-only accuracy {all:.4} on {} pairs; {sel:.4} on the {n} selected pairs",
        pairs.len()
    );
    Ok(ExitCode::SUCCESS)
}
