//! Dedup through an engine's shuffle: `stage --dedup-keys` writes each record's keys,
//! `dedup-verdicts` replays the records that share one in input order, `finalise
//! --dedup-verdicts` applies the verdicts in place of running dedup over the whole corpus.

use anyhow::{Context, anyhow};
use clap::Args;
use kcurate_core::Record;
use kcurate_core::recipe::Recipe;
use kcurate_release::runner::{self, Planned};
use kcurate_text::stages::dedup::{
    Claimed, ClaimedKey, DedupStage, DedupVerdicts, KeyLine, VerdictsError, from_settings, resolve,
};
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct DedupVerdictsArgs {
    /// The recipe the keys were written with (its dedup settings and seed).
    pub recipe: PathBuf,
    /// The key lines of `kcurate stage --before-corpus --dedup-keys` (tagged
    /// `{"dedup":{...}}` or bare) of at least every record that shares an exact or band key
    /// with another record (an engine's shuffle finds them; more records change nothing), in
    /// any order; `-` for stdin.
    #[arg(long)]
    pub keys: PathBuf,
    /// Where the verdicts go, one JSON line per dropped record (`-`: stdout).
    #[arg(long, default_value = "-")]
    pub out: PathBuf,
}

/// The recipe's first `dedup` stage: its index and settings (without the runner's keys).
fn dedup_table(recipe: &Recipe) -> Option<(usize, toml::Table)> {
    let i = recipe.stages.iter().position(|t| t.name == "dedup")?;
    Some((i, recipe.stages[i].settings.clone()))
}

/// The recipe's dedup stage as its settings build it.
fn dedup_stage(recipe: &Recipe, shown: &str) -> anyhow::Result<DedupStage> {
    let (i, settings) =
        dedup_table(recipe).ok_or_else(|| anyhow!("{shown}: the recipe has no dedup stage"))?;
    from_settings(&settings, recipe.seed).map_err(|e| anyhow!("{shown}: stage[{i}] (dedup): {e}"))
}

/// `stage --dedup-keys`: after each output record dedup is given, its key line. `first`
/// is the recipe's first whole-corpus stage (its plan entry); `None` and a note on stderr
/// when it is not dedup (the shuffle cannot stand for it).
pub struct KeyWriter {
    planned: Planned,
    sources: std::collections::BTreeMap<String, kcurate_core::SourceInfo>,
    deduper: kcurate_text::dedup::Deduper,
    order: kcurate_release::parts::InputOrder,
    last: Option<(usize, usize, u64)>,
    k: u64,
}

impl KeyWriter {
    pub fn new(
        recipe: &Recipe,
        shown: &str,
        root: &Path,
        first: Option<Planned>,
    ) -> anyhow::Result<Option<Self>> {
        let Some(planned) = first.filter(|p| p.name == "dedup") else {
            eprintln!(
                "kcurate stage: --dedup-keys: dedup is not the recipe's first whole-corpus stage; no key lines (finalise runs the whole-corpus stages)"
            );
            return Ok(None);
        };
        let stage = dedup_stage(recipe, shown)?;
        Ok(Some(KeyWriter {
            planned,
            sources: runner::source_infos(recipe),
            deduper: stage.deduper(),
            order: kcurate_release::parts::InputOrder::new(recipe, root),
            last: None,
            k: 0,
        }))
    }

    /// The key line of `r` into `w`, when dedup is given it.
    pub fn write(&mut self, r: &Record, w: &mut dyn Write) -> std::io::Result<()> {
        if !self.planned.applies(r, &self.sources) {
            return Ok(());
        }
        let at = self.order.record_key(r).ok_or_else(|| {
            std::io::Error::other(format!(
                "record {} is from source {:?} file {}: not an input of the recipe",
                r.id, r.source, r.origin.file
            ))
        })?;
        // The records one input line became come one after another.
        if self.last == Some(at) {
            self.k += 1;
        } else {
            self.last = Some(at);
            self.k = 0;
        }
        let line = KeyLine::new(
            &self.deduper,
            &r.id,
            [at.0 as u64, at.1 as u64, at.2, self.k],
            &r.text,
        );
        serde_json::to_writer(&mut *w, &serde_json::json!({ "dedup": line }))?;
        w.write_all(b"\n")
    }
}

/// `dedup-verdicts`: the colliding records' keys → the verdicts of those dedup drops.
pub fn dedup_verdicts(a: DedupVerdictsArgs) -> anyhow::Result<ExitCode> {
    super::one_stdin(&[("RECIPE", a.recipe.as_path()), ("--keys", a.keys.as_path())])?;
    let (recipe, _) = Recipe::load(&a.recipe)?;
    let shown = a.recipe.display().to_string();
    crate::output_guard::Reads::new()
        .recipe(&a.recipe, &recipe, &Recipe::dir(&a.recipe))
        .add("--keys", &a.keys)
        .file_out("--out", &a.out)?;
    let stage = dedup_stage(&recipe, &shown)?;
    let (keys, _tmp) = super::stdin_as_file(&a.keys, "stdin-keys.jsonl")?;
    let keys_shown = a.keys.display().to_string();
    let f = std::fs::File::open(&keys).with_context(|| keys_shown.clone())?;
    let mut lines = Vec::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let n = i as u64 + 1;
        let line = line.with_context(|| format!("{keys_shown}:{n}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let k = KeyLine::parse(&line).map_err(|e| VerdictsError {
            path: keys_shown.clone(),
            line: n,
            message: e.to_string(),
        })?;
        lines.push((n, k));
    }
    let offered = lines.len();
    let verdicts = resolve(&stage, lines, &keys_shown)?;
    let mut out: Box<dyn Write> = if a.out == Path::new("-") {
        Box::new(BufWriter::new(std::io::stdout().lock()))
    } else {
        let f = std::fs::File::create(&a.out).with_context(|| a.out.display().to_string())?;
        Box::new(BufWriter::new(f))
    };
    for v in &verdicts {
        serde_json::to_writer(&mut out, v)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    eprintln!(
        "kcurate dedup-verdicts: {offered} record(s) replayed in input order, {} dropped",
        verdicts.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `finalise --dedup-verdicts`: the verdicts, read and checked against the recipe's dedup
/// settings, as the stage that runs in dedup's place; before it runs, they are checked
/// against the records dedup is given and their key lines (every drop the replay of the
/// colliding records makes has its verdict, and no other). A verdicts file that does not
/// hold together is refused ([`super::Refused`]).
pub fn decided(recipe: &Recipe, shown: &str, path: &Path) -> anyhow::Result<runner::Decided> {
    let stage = dedup_stage(recipe, shown)?;
    let verdicts = DedupVerdicts::read(path, &stage).map_err(|e| {
        if e.line > 0 {
            anyhow::Error::new(super::Refused(e.to_string()))
        } else {
            e.into()
        }
    })?;
    Ok(runner::Decided {
        stands_for: "dedup",
        stage: Box::new(verdicts.stage()),
        check: Box::new(move |given| {
            verdicts
                .check(given.iter().map(|g| g.record.id.as_str()))
                .and_then(|()| verdicts.account(&stage, &claimed(given)))
                .map_err(|e| e.to_string())
        }),
    })
}

fn claimed<'a>(given: &'a [runner::GivenRecord<'a>]) -> Vec<Claimed<'a>> {
    given
        .iter()
        .map(|g| Claimed {
            id: &g.record.id,
            text: &g.record.text,
            part: g.part,
            line: g.line,
            key: g.key.map(|k| ClaimedKey {
                line: k.read_at.line,
                at: k.at,
                exact: &k.exact,
                meet: &k.meet,
            }),
        })
        .collect()
}
