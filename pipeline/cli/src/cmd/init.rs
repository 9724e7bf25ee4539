//! `kcurate init FILE...`: sniffs each file (format by content), proposes its text, id,
//! date and label fields from the columns' content, reads it once through the real reader
//! (so the proposal is known to hold), and writes a commented recipe with the default stage
//! chain and a licence placeholder `kcurate check` refuses until it is filled in.

mod propose;
mod sniff;
mod write;

use anyhow::Context;
use clap::Args;
use kcurate_core::recipe::Recipe;
use kcurate_io::ingest::{Item, Problem};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use write::SourceDraft;

#[derive(Args)]
pub struct InitArgs {
    /// Data files, one source each (JSONL, JSON array, TSV, CSV or plain text; gzip or zstd).
    #[arg(required = true, value_parser = super::file_arg, value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<PathBuf>,
    /// The recipe to write.
    #[arg(long, default_value = "recipe.toml", value_parser = super::file_arg)]
    pub out: PathBuf,
    /// Replace an existing --out (kept as <out>.bak).
    #[arg(long)]
    pub overwrite: bool,
    /// The release name (default: from the first file's name).
    #[arg(long)]
    pub name: Option<String>,
    /// The kcurate checkout whose rules/ and data-samples/toxicity/ the default stage chain
    /// reads.
    #[arg(long, default_value = ".", value_parser = super::dir_arg)]
    pub kit: PathBuf,
}

/// Most distinct label values declared as a closed set.
const MAX_CLASSES: usize = 20;

pub fn init(a: InitArgs) -> anyhow::Result<ExitCode> {
    let mut reads = crate::output_guard::Reads::new();
    for f in &a.files {
        reads.add("FILE", f);
    }
    reads.file_out("--out", &a.out)?;
    let dir = match a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    let dir = dir
        .canonicalize()
        .with_context(|| format!("--out {}: its directory", a.out.display()))?;
    let mut drafts = Vec::new();
    let mut ids = BTreeSet::new();
    for f in &a.files {
        drafts.push(draft(f, &dir, &mut ids)?);
    }
    let name = match &a.name {
        Some(n) => n.clone(),
        None => slug(&a.files[0]).unwrap_or_else(|| "corpus".into()),
    };
    let head = write::head_and_sources(&name, &drafts);
    let labels = read_all(&head, &drafts, &dir)?;
    let mut text = head;
    if labels.is_some() {
        text.push_str(&write::task_table(
            labels.as_ref().and_then(|l| l.as_deref()),
        ));
    }
    text.push_str(write::SPLIT);
    text.push_str(write::RELEASE);
    text.push_str(&write::stage_chain(&a.kit, &dir)?);
    // What init writes must parse: a failure here is init's own bug, not the data's.
    Recipe::parse(&a.out.display().to_string(), &text)
        .context("the recipe init wrote does not parse")?;
    crate::output_guard::keep_existing("--out", &a.out, a.overwrite)?;
    std::fs::write(&a.out, &text).with_context(|| a.out.display().to_string())?;
    println!(
        "{}: written. Next: set each source's `license`, then `kcurate check {}` and `kcurate run {}`",
        a.out.display(),
        a.out.display(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Sniffs and proposes one file's source.
fn draft(f: &Path, dir: &Path, ids: &mut BTreeSet<String>) -> anyhow::Result<SourceDraft> {
    let shown = f.display().to_string();
    let abs = f.canonicalize().with_context(|| shown.clone())?;
    if !abs.is_file() {
        anyhow::bail!(
            "{shown}: not a file (init reads files; a directory source can be written by hand)"
        );
    }
    let sniffed = sniff::sniff(&abs)?;
    let fields = propose::propose(&sniffed).with_context(|| shown.clone())?;
    let base = slug(f).unwrap_or_else(|| "source".into());
    let id = (1..)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|c| !ids.contains(c))
        .expect("a free id");
    ids.insert(id.clone());
    let s = &sniffed;
    println!(
        "{shown}: {}{}; {} rows sampled; text = {:?}, id = {:?}, date = {:?}, label = {:?}, style {}",
        s.format,
        match s.format {
            "tsv" | "csv" => format!(" (header {}, quote {})", s.header, s.quote),
            _ => String::new(),
        },
        s.rows.len(),
        fields.text,
        fields.id,
        fields.date,
        fields.label,
        fields.style
    );
    Ok(SourceDraft {
        id,
        path: write::relative(dir, &abs),
        sniffed,
        fields,
    })
}

/// Reads every source once through the real reader: counts records and problems, and
/// returns the label values (`Some(None)`: labels, but more than [`MAX_CLASSES`]; `None`:
/// no labels).
fn read_all(
    head: &str,
    drafts: &[SourceDraft],
    dir: &Path,
) -> anyhow::Result<Option<Option<Vec<String>>>> {
    let recipe = Recipe::parse("recipe", head).context("the sources init proposed do not parse")?;
    let mut labels = BTreeSet::new();
    let mut labelled = false;
    for (src, d) in recipe.sources.iter().zip(drafts) {
        labelled |= d.fields.label.is_some();
        let (mut records, mut bad, mut first) = (0u64, 0u64, None);
        for item in kcurate_io::ingest::read_source(src, dir) {
            match item {
                Item::Record(r) => {
                    records += 1;
                    if let Some(l) = r.label.filter(|_| labels.len() <= MAX_CLASSES) {
                        labels.insert(l);
                    }
                }
                Item::Malformed(m) => {
                    bad += 1;
                    let dup = if m.kind == Problem::DuplicateId {
                        " (a duplicate id: is `id` right?)"
                    } else {
                        ""
                    };
                    first.get_or_insert(format!(
                        "{}:{}: {}: {}{dup}",
                        m.file, m.line, m.field, m.reason
                    ));
                }
            }
        }
        println!(
            "  source {:?}: {records} records read{}",
            src.id,
            match first {
                Some(f) => format!(", {bad} malformed (first: {f})"),
                None => String::new(),
            }
        );
    }
    if !labelled {
        return Ok(None);
    }
    Ok(Some(
        (labels.len() <= MAX_CLASSES).then(|| sorted_labels(labels)),
    ))
}

/// Label values in numeric order when all are numbers, else in byte order.
fn sorted_labels(labels: BTreeSet<String>) -> Vec<String> {
    let mut v: Vec<String> = labels.into_iter().collect();
    if v.iter().all(|l| l.parse::<f64>().is_ok()) {
        v.sort_by(|a, b| {
            a.parse::<f64>()
                .unwrap_or(0.0)
                .total_cmp(&b.parse::<f64>().unwrap_or(0.0))
        });
    }
    v
}

/// File stems that say which split a file is, not what it holds: their directory's name
/// goes before them (`labeled/train.tsv` → `labeled-train`).
const SPLIT_STEMS: &[&str] = &["train", "dev", "valid", "validation", "test", "data", "all"];

/// A source id / release name from a file name: its stem before the first `.`, lower
/// case, `[a-z0-9_-]` only (None when nothing of it is left).
fn slug(f: &Path) -> Option<String> {
    let clean = |s: &str| -> String {
        let s: String = s
            .to_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        s.trim_matches('-').to_string()
    };
    let name = f.file_name()?.to_string_lossy().into_owned();
    let stem = clean(name.split('.').next().unwrap_or(""));
    let dir = f
        .parent()
        .and_then(|p| p.file_name())
        .map(|d| clean(&d.to_string_lossy()))
        .filter(|d| !d.is_empty());
    let s = match dir {
        Some(d) if SPLIT_STEMS.contains(&stem.as_str()) => format!("{d}-{stem}"),
        _ => stem,
    };
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::slug;
    use std::path::Path;

    #[test]
    fn a_split_named_file_takes_its_directory_into_its_id() {
        assert_eq!(
            slug(Path::new("a/labeled/train.tsv.gz")).as_deref(),
            Some("labeled-train")
        );
        assert_eq!(
            slug(Path::new("x/Reviews 2020.jsonl")).as_deref(),
            Some("reviews-2020")
        );
        assert_eq!(slug(Path::new("x/리뷰.txt")), None);
    }
}
