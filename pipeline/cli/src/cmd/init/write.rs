//! The recipe text `kcurate init` writes: commented sources, the stage chain of the bundled
//! `configs/default.toml` (its rule and model paths resolved for the new recipe's
//! directory), and a `[task]` when the data has labels.

use super::propose::Proposal;
use super::sniff::Sniffed;
use anyhow::Context;
use kcurate_core::recipe::onboard::LICENCE_PLACEHOLDER;
use std::path::{Path, PathBuf};

/// The bundled default recipe, whose `[[stage]]` chain a new recipe starts from.
const DEFAULT_RECIPE: &str = include_str!("../../../../../configs/default.toml");

/// One source of the new recipe.
pub struct SourceDraft {
    /// The source id.
    pub id: String,
    /// The path as the recipe writes it (relative to its directory where possible).
    pub path: String,
    /// The file's shape.
    pub sniffed: Sniffed,
    /// Its fields.
    pub fields: Proposal,
}

/// A TOML string literal of `s`.
pub fn lit(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn list(v: &[String]) -> String {
    format!(
        "[{}]",
        v.iter().map(|s| lit(s)).collect::<Vec<_>>().join(", ")
    )
}

/// The top of the recipe and its `[[source]]` tables.
/// (The comment names no file: a release carries its recipe, and paths outside the recipe's
/// directory are the build machine's.)
pub fn head_and_sources(name: &str, sources: &[SourceDraft]) -> String {
    let mut t = format!(
        "# Written by `kcurate init`: check every proposal, fill in each source's\n\
         # `license`, then `kcurate check` this file and `kcurate run` it. Every key:\n\
         # `kcurate recipe --doc` (docs/recipe.md).\n\
         name = {}\nversion = \"0.1.0\"\ndescription = \"\"\nseed = 42\non_error = \"quarantine\"\n",
        lit(name)
    );
    for s in sources {
        t.push_str(&source_table(s));
    }
    t
}

fn source_table(s: &SourceDraft) -> String {
    let f = &s.fields;
    let sn = &s.sniffed;
    let mut t = format!(
        "\n[[source]]\nid = {}\npath = {}\nformat = \"{}\"\n",
        lit(&s.id),
        lit(&s.path),
        sn.format
    );
    if matches!(sn.format, "tsv" | "csv") {
        t.push_str(&format!("header = {}\n", sn.header));
        if !sn.header {
            t.push_str(&format!("columns = {}\n", list(&f.columns)));
        }
        let (q, all) = sn.quoted_cells;
        t.push_str(&format!(
            "# {q} of {all} cells of the most quoted column are in \"...\". With quote = true a quoted\n\
             # field may hold the delimiter and newlines, and \"\" is one quote; with false, \" is text.\n\
             quote = {}\n",
            sn.quote
        ));
    }
    t.push_str(&format!(
        "# Required: the licence of the corpus. `kcurate check` refuses the recipe until it is set;\n\
         # the licence gate admits CC0-1.0, CC-BY-*, CC-BY-SA-*, public-domain and KOGL-Type1.\n\
         license = {}\n\
         attribution = \"\"\n\
         # Stages choose rules by domain (noise's news_domains) and style (guessed from the text).\n\
         domain = \"general\"\nstyle = \"{}\"\n[source.fields]\ntext = {}\n",
        lit(LICENCE_PLACEHOLDER),
        f.style,
        lit(&f.text)
    ));
    for (key, v) in [("id", &f.id), ("date", &f.date), ("label", &f.label)] {
        if let Some(v) = v {
            t.push_str(&format!("{key} = {}\n", lit(v)));
        }
    }
    if !f.extra.is_empty() {
        t.push_str(&format!("extra = {}\n", list(&f.extra)));
    }
    if !f.optional.is_empty() {
        t.push_str(&format!("optional = {}\n", list(&f.optional)));
    }
    t
}

/// The `[[stage]]` chain of the default recipe, its `../` paths (relative to `configs/`)
/// resolved in `kit` and written relative to `recipe_dir`.
pub fn stage_chain(kit: &Path, recipe_dir: &Path) -> anyhow::Result<String> {
    let lines: Vec<&str> = DEFAULT_RECIPE.lines().collect();
    let from = lines
        .iter()
        .position(|l| l.starts_with("[[stage]]"))
        .context("default recipe: no [[stage]]")?;
    // The chain ends at the first table that is not a stage ([release], [task], [split]):
    // those say what the sample release is, not what a user's is.
    let to = lines[from..]
        .iter()
        .position(|l| l.starts_with('[') && !l.starts_with("[[stage]]"))
        .map_or(lines.len(), |i| from + i);
    let mut out = String::from(
        "\n# The default chain (configs/default.toml): KLUE §2.3 cleaning, toxicity, PII.\n\
         # The pii stage's key: `kcurate pii keygen pii.key` makes one; then set\n\
         # `key_file = \"pii.key\"` below, or `export KCURATE_PII_KEY=$(cat pii.key)`.\n",
    );
    for line in &lines[from..to] {
        out.push_str(&resolve_line(line, kit, recipe_dir)?);
        out.push('\n');
    }
    Ok(out.trim_end().to_string() + "\n")
}

/// `key = "../x"` with the path resolved in `kit`, written relative to `recipe_dir`.
fn resolve_line(line: &str, kit: &Path, recipe_dir: &Path) -> anyhow::Result<String> {
    let Some((key, value)) = line.split_once(" = \"../") else {
        return Ok(line.to_string());
    };
    let rel = value.trim_end_matches('"');
    let target = kit.join(rel);
    let target = target.canonicalize().with_context(|| {
        format!(
            "{}: the default stage chain reads it (--kit names the kcurate checkout holding rules/ and data-samples/; the working directory by default)",
            target.display()
        )
    })?;
    Ok(format!("{key} = {}", lit(&relative(recipe_dir, &target))))
}

/// `to` as a path from the directory `from` (both absolute): relative when they share more
/// than the root, else absolute.
pub fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        return to.display().to_string();
    }
    let mut p = PathBuf::new();
    for _ in common..a.len() {
        p.push("..");
    }
    for c in &b[common..] {
        p.push(c);
    }
    p.display().to_string()
}

/// The `[task]` of a labelled release: its closed label set when it is small.
pub fn task_table(label_values: Option<&[String]>) -> String {
    let mut t = String::from(
        "\n# The data has labels: each released sentence carries its document's `label`.\n\
         # annotations_creators: who made the labels (found: they came with the corpus;\n\
         # crowdsourced, expert-generated, machine-generated).\n\
         [task]\nname = \"classification\"\ntask_categories = [\"text-classification\"]\n\
         annotations_creators = [\"found\"]\n",
    );
    match label_values {
        Some(v) => t.push_str(&format!(
            "# Every label value the files hold: the run refuses any other.\nclass_labels = {{ label = {} }}\n",
            list(v)
        )),
        None => t.push_str("# Over 20 distinct labels: no closed set (add class_labels to declare one).\n"),
    }
    t
}

/// The split, written out so a reader sees it.
pub const SPLIT: &str = "\n# Records go to splits by a seeded hash of their id.\n[split]\ntrain = 0.8\ndev = 0.1\ntest = 0.1\n";

/// The card's Motivation, for the user to write (`check` warns while it is missing).
pub const RELEASE: &str = "\n# Why this dataset is built, for whom and for what: the card's Motivation (`kcurate\n# check` warns until it is set). Uncomment both lines and write your own.\n# [release]\n# motivation = \"...\"\n";
