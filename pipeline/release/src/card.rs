//! The dataset card: Hugging Face YAML front matter, then a datasheet (motivation,
//! composition, collection, preprocessing with per-rule counts, uses, distribution,
//! maintenance). Everything in it comes from the recipe and the run's books.

use crate::manifest::Manifest;
use arrow::datatypes::DataType;
use kcurate_core::license::hf_license;
use kcurate_core::recipe::Recipe;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::BufRead;
use std::path::Path;
use text::*;

pub(crate) mod annotations;
mod figures;
mod labels;
mod limits;
mod text;

pub use labels::unmet_lines;

/// The Hub's `size_categories` bucket of `n` rows (its whole list, up to n>1T).
pub fn size_category(n: u64) -> &'static str {
    const K: u64 = 1_000;
    match n {
        0..K => "n<1K",
        K..10_000 => "1K<n<10K",
        10_000..100_000 => "10K<n<100K",
        100_000..1_000_000 => "100K<n<1M",
        1_000_000..10_000_000 => "1M<n<10M",
        10_000_000..100_000_000 => "10M<n<100M",
        100_000_000..1_000_000_000 => "100M<n<1B",
        1_000_000_000..1_000_000_000_000 => "1B<n<1T",
        _ => "n>1T",
    }
}

/// Why the dataset card could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    /// A split file could not be read back.
    #[error("{path}: {message}")]
    Read {
        /// The file or directory at fault.
        path: String,
        /// What went wrong, in the words of the code that found it.
        message: String,
    },
    /// A closed-label column holds a value outside the task's classes.
    #[error(
        "{path}:{line}: {column}: {value:?} is not one of the task's classes ({names}); the card could not declare it a ClassLabel"
    )]
    NotAClass {
        /// The file or directory at fault.
        path: String,
        /// 1-based line in the file.
        line: u64,
        /// The column whose value is at fault.
        column: String,
        /// The value as found.
        value: String,
        /// The class names the task declares.
        names: String,
    },
}

/// A column's Hugging Face feature type.
#[derive(Debug, Clone, PartialEq)]
pub enum Feature {
    /// `dtype: <name>` (`string`, `int64`, `float64`, `bool`, `null`).
    Value(&'static str),
    /// `dtype: class_label` with its names in class-index order.
    ClassLabel(Vec<String>),
    /// A nested object: its fields in key order.
    Struct(Vec<(String, Feature)>),
    /// `sequence` of one feature type.
    List(Box<Feature>),
}

/// What the card says of the written files (beyond the manifest's row counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardFacts {
    /// split → bytes of its JSONL file (the file `configs` points `load_dataset` at).
    pub num_bytes: BTreeMap<String, u64>,
    /// The columns of the task's rows over all splits, in first-seen order.
    pub features: Vec<(String, Feature)>,
    /// split → label → rows (STS scores by 0.5 bin).
    pub labels: BTreeMap<String, BTreeMap<String, u64>>,
}

fn feature_of(t: &DataType) -> Feature {
    match t {
        DataType::Boolean => Feature::Value("bool"),
        DataType::Int8 | DataType::Int16 | DataType::Int32 => Feature::Value("int32"),
        DataType::Int64 | DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => {
            Feature::Value("int64")
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => Feature::Value("float64"),
        DataType::Null => Feature::Value("null"),
        // Dates are ISO strings in the JSONL and date32 in the Parquet twin (the writer's
        // `date` column): `datasets` reads both as date32 with this feature.
        DataType::Date32 => Feature::Value("date32"),
        DataType::Struct(fields) => Feature::Struct(
            fields
                .iter()
                .map(|f| (f.name().clone(), feature_of(f.data_type())))
                .collect(),
        ),
        DataType::List(f) | DataType::LargeList(f) => {
            Feature::List(Box::new(feature_of(f.data_type())))
        }
        _ => Feature::Value("string"),
    }
}

/// A task's splits as HF lists them: train, validation (whatever the recipe named them),
/// test, then any other split by name.
fn in_role_order<'a>(
    m: &Manifest,
    splits: &'a BTreeMap<String, u64>,
) -> Vec<(&'a String, &'a u64)> {
    let rank = |name: &str| {
        ["train", "dev", "test"]
            .iter()
            .position(|r| m.split_name(r) == name)
            .unwrap_or(3)
    };
    let mut v: Vec<_> = splits.iter().collect();
    v.sort_by_key(|(name, _)| rank(name));
    v
}

/// Two splits' types of one column: null gives way, int64 widens to float64, a struct
/// takes the fields of both; otherwise the first split's.
fn merge(a: Feature, b: Feature) -> Feature {
    match (a, b) {
        (Feature::Value("null"), x) | (x, Feature::Value("null")) => x,
        (Feature::Value("int64"), Feature::Value("float64"))
        | (Feature::Value("float64"), Feature::Value("int64")) => Feature::Value("float64"),
        (Feature::Struct(mut xs), Feature::Struct(ys)) => {
            merge_fields(&mut xs, ys);
            Feature::Struct(xs)
        }
        (Feature::List(x), Feature::List(y)) => Feature::List(Box::new(merge(*x, *y))),
        (x, _) => x,
    }
}

fn merge_fields(into: &mut Vec<(String, Feature)>, more: Vec<(String, Feature)>) {
    for (name, f) in more {
        match into.iter_mut().find(|(n, _)| *n == name) {
            Some((_, g)) => *g = merge(g.clone(), f),
            None => into.push((name, f)),
        }
    }
}

/// The facts of a finished release directory `dir` (before the commit): each split's
/// JSONL size (`hashed`: release path → (sha256, size), as the writer recorded them), the
/// columns from its Parquet twin's schema (the footer only), and the recipe's closed label
/// columns as `ClassLabel`s. Every value written in a closed label column is checked to be
/// one of its classes (the JSONL files are read back for that only when the task has
/// such columns), so that `load_dataset` can cast what the card declares.
pub fn facts(
    recipe: &Recipe,
    dir: &Path,
    task: &str,
    splits: &BTreeMap<String, u64>,
    hashed: &BTreeMap<String, (String, u64)>,
) -> Result<CardFacts, CardError> {
    let mut out = CardFacts::default();
    for split in splits.keys() {
        let jsonl = format!("{task}/{split}.jsonl");
        let size = match hashed.get(&jsonl) {
            Some((_, n)) => *n,
            None => std::fs::metadata(dir.join(&jsonl))
                .map_err(|e| CardError::Read {
                    path: jsonl.clone(),
                    message: e.to_string(),
                })?
                .len(),
        };
        out.num_bytes.insert(split.clone(), size);
        let twin = dir.join(format!("{task}/{split}.parquet"));
        let file = match std::fs::File::open(&twin) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(CardError::Read {
                    path: twin.display().to_string(),
                    message: e.to_string(),
                });
            }
        };
        let schema = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| CardError::Read {
                path: twin.display().to_string(),
                message: e.to_string(),
            })?
            .schema()
            .clone();
        merge_fields(
            &mut out.features,
            schema
                .fields()
                .iter()
                .map(|f| (f.name().clone(), feature_of(f.data_type())))
                .collect(),
        );
    }
    out.labels = labels::distribution(dir, task, splits.keys())?;
    let closed = recipe.task.closed_labels();
    let mut checked = Vec::new();
    for (name, f) in &mut out.features {
        if let Some(names) = closed.get(name)
            && matches!(f, Feature::Value("string") | Feature::Value("null"))
        {
            *f = Feature::ClassLabel(names.clone());
            checked.push((name.clone(), names.clone()));
        }
    }
    if !checked.is_empty() {
        for split in splits.keys() {
            check_classes(dir, &format!("{task}/{split}.jsonl"), &checked)?;
        }
    }
    Ok(out)
}

/// Every row's value in each `(column, names)` is null, absent or one of the names.
fn check_classes(dir: &Path, rel: &str, cols: &[(String, Vec<String>)]) -> Result<(), CardError> {
    let read = |e: &dyn std::fmt::Display| CardError::Read {
        path: rel.to_string(),
        message: e.to_string(),
    };
    let f = std::fs::File::open(dir.join(rel)).map_err(|e| read(&e))?;
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| read(&e))?;
        let row: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&line).map_err(|e| read(&e))?;
        for (col, names) in cols {
            match row.get(col) {
                None | Some(serde_json::Value::Null) => {}
                Some(serde_json::Value::String(v)) if names.contains(v) => {}
                Some(v) => {
                    return Err(CardError::NotAClass {
                        path: rel.to_string(),
                        line: i as u64 + 1,
                        column: col.clone(),
                        value: v.as_str().map_or_else(|| v.to_string(), str::to_string),
                        names: names.join(", "),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The card (`README.md`): Hugging Face front matter, then the datasheet: sources, books,
/// splits, rules and their precision, what the release leaves out.
///
/// Long on purpose: it is the card's template, read top to bottom in the order the card
/// shows its sections; each section is a few `writeln!`s over the manifest.
#[allow(
    clippy::too_many_lines,
    reason = "the card's template, read top to bottom in the order the card shows its sections"
)]
pub fn render(recipe: &Recipe, m: &Manifest, facts: &CardFacts) -> String {
    let mut s = String::new();
    let total: u64 = m.splits.values().flat_map(|v| v.values()).sum();
    let task_categories = if recipe.task.task_categories.is_empty() {
        vec!["text-classification".to_string()]
    } else {
        recipe.task.task_categories.clone()
    };
    let list = |s: &mut String, key: &str, items: &[String]| {
        let _ = writeln!(s, "{key}:");
        for t in items {
            let _ = writeln!(s, "- {}", yaml_key(t));
        }
    };
    s.push_str("---\n");
    let _ = writeln!(s, "license: {}", hf_license(&m.license));
    s.push_str("language:\n- ko\n");
    list(&mut s, "task_categories", &task_categories);
    let task_ids = recipe.task.hf_task_ids();
    if !task_ids.is_empty() {
        list(&mut s, "task_ids", &task_ids);
    }
    list(
        &mut s,
        "annotations_creators",
        &labels::annotations_creators(recipe, m),
    );
    list(
        &mut s,
        "language_creators",
        &recipe.task.hf_language_creators(),
    );
    s.push_str("multilinguality:\n- monolingual\n");
    let _ = writeln!(s, "size_categories:\n- {}", size_category(total));
    // One entry per source: `extended|<hub id>` when the recipe names it, `original` when
    // the recipe says the text was written for this dataset, else `extended|other-<source
    // id>` (the source is described in the Collection table below).
    let mut sources: Vec<String> = Vec::new();
    for src in m.sources.iter().filter(|s| s.status == "used") {
        let own = recipe.sources.iter().find(|r| r.id == src.id);
        let id = match own.and_then(|r| r.hf_id.as_deref()) {
            Some(hf) => format!("extended|{hf}"),
            None if own.is_some_and(|r| r.original) => "original".to_string(),
            None => format!("extended|other-{}", src.id),
        };
        if !sources.contains(&id) {
            sources.push(id);
        }
    }
    sources.sort();
    s.push_str("source_datasets:\n");
    for id in &sources {
        let _ = writeln!(s, "- {}", yaml_str(id));
    }
    let _ = writeln!(
        s,
        "pretty_name: {}",
        yaml_str(&format!("{} {}", m.recipe.name, m.recipe.version))
    );
    s.push_str("dataset_info:\n");
    for (task, splits) in &m.splits {
        let _ = writeln!(s, "- config_name: {}", yaml_key(task));
        if !facts.features.is_empty() {
            s.push_str("  features:\n");
            write_features(&mut s, &facts.features, 2);
        }
        s.push_str("  splits:\n");
        let mut bytes = 0;
        for (name, n) in in_role_order(m, splits) {
            let b = facts.num_bytes.get(name).copied().unwrap_or(0);
            bytes += b;
            let _ = writeln!(
                s,
                "  - name: {}\n    num_bytes: {b}\n    num_examples: {n}",
                yaml_key(name)
            );
        }
        let _ = writeln!(s, "  download_size: {bytes}\n  dataset_size: {bytes}");
    }
    s.push_str("configs:\n");
    for (i, task) in m.splits.keys().enumerate() {
        let _ = writeln!(s, "- config_name: {}", yaml_key(task));
        if i == 0 {
            s.push_str("  default: true\n");
        }
        s.push_str("  data_files:\n");
        for (name, _) in in_role_order(m, &m.splits[task]) {
            let _ = writeln!(
                s,
                "  - split: {}\n    path: {}",
                yaml_key(name),
                yaml_str(&format!("{task}/{name}.jsonl"))
            );
        }
    }
    s.push_str("---\n\n");

    let _ = writeln!(
        s,
        "# {} {}\n",
        md_inline(&m.recipe.name),
        md_inline(&m.recipe.version)
    );
    if !recipe.description.is_empty() {
        let _ = writeln!(s, "{}\n", md_block(recipe.description.trim()));
    }
    let _ = writeln!(
        s,
        "Built by kcurate {} from recipe `{}` (sha256 `{}`), seed {}. `kcurate verify` checks every file \
         against `manifest.json`; `kcurate rebuild manifest.json` re-runs the recipe and must give the same bytes.\n",
        m.tool.version,
        md_inline(&m.recipe.path),
        m.recipe.sha256,
        m.seed
    );

    s.push_str("## Motivation\n\n");
    match recipe.release.motivation.as_deref().map(str::trim) {
        Some(why) if !why.is_empty() => {
            let _ = writeln!(s, "{}\n", md_block(why));
        }
        _ => s.push_str(
            "Not stated: the recipe does not say why this dataset was built (`[release] motivation`).\n\n",
        ),
    }

    s.push_str("## Composition\n\n| task | split | rows |\n| --- | --- | ---: |\n");
    for (task, splits) in &m.splits {
        for (name, n) in splits {
            let _ = writeln!(s, "| {task} | {name} | {n} |");
        }
    }
    s.push('\n');
    if facts
        .features
        .iter()
        .any(|(_, f)| *f == Feature::Value("date32"))
    {
        s.push_str("Dates are calendar dates: ISO `YYYY-MM-DD` strings in the JSONL files and `date32` in the Parquet files; `datasets` reads both as `date32` (the `features` above).\n\n");
    }

    s.push_str(&labels::section(recipe, m, facts));
    s.push_str(&annotations::section(m));

    s.push_str("## Collection\n\n| source | licence | domain | style | status | attribution |\n| --- | --- | --- | --- | --- | --- |\n");
    for src in &m.sources {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            md_inline(&src.id),
            md_inline(&src.license),
            md_inline(&src.domain),
            md_inline(&src.style),
            md_inline(&src.status),
            md_inline(&src.attribution)
        );
    }
    let _ = writeln!(
        s,
        "\nInputs: {}, listed with sha256 and size in `manifest.json`.\n",
        figures::count(m.inputs.len() as u64, "file")
    );

    s.push_str("## Preprocessing\n\nThe stage funnel (items in, out, dropped), in recipe order:\n\n| stage | in | out | dropped |\n| --- | ---: | ---: | ---: |\n");
    for st in &m.stages {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            st.name, st.stats.items_in, st.stats.items_out, st.stats.dropped
        );
    }
    s.push_str("\nDecisions per rule (every one is a row of `audit/decisions.parquet`):\n\n| stage | rule | dropped | edited | flagged |\n| --- | --- | ---: | ---: | ---: |\n");
    let mut any = false;
    for st in &m.stages {
        for (rule, c) in &st.stats.rules {
            any = true;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                st.name, rule, c.drop, c.edit, c.flag
            );
        }
    }
    if !any {
        s.push_str("| - | (no decisions) | 0 | 0 | 0 |\n");
    }
    s.push('\n');

    if !m.by_source.is_empty() {
        s.push_str("Decisions per source and rule:\n\n| source | rule | dropped | edited | flagged |\n| --- | --- | ---: | ---: | ---: |\n");
        for (src, rules) in &m.by_source {
            for (rule, c) in rules {
                let _ = writeln!(
                    s,
                    "| {src} | {rule} | {} | {} | {} |",
                    c.drop, c.edit, c.flag
                );
            }
        }
        s.push('\n');
    }
    if let Some(pii) = m.stages.iter().find(|st| st.name == "pii") {
        let touched: u64 = pii
            .stats
            .rules
            .values()
            .map(|c| c.drop + c.edit + c.flag)
            .sum();
        let share = if pii.stats.items_in == 0 {
            0.0
        } else {
            touched as f64 * 100.0 / pii.stats.items_in as f64
        };
        let _ = writeln!(
            s,
            "Personal information: {} acted on in {} ({share:.2}% as spans per sentence; KLUE reports 1.2% of its pretraining corpus pseudonymised); per type in the `pii.*` rows above. Pseudonyms keep the format of what they replace (a phone number stays phone-shaped) and are not real data.\n",
            figures::count(touched, "PII span"),
            figures::count(pii.stats.items_in, "sentence")
        );
    }
    if recipe.audit.judgements.is_some() {
        s.push_str(
            "Rule precision, from curators' judgements of a sample of each rule's drops and edits \
            (`kcurate audit sample`, then `kcurate audit precision`; Wilson 95% interval). A judgement \
            counts only where this release has the very decision it names (item, rule and text):\n\n",
        );
        for l in crate::report::coverage_lines(m) {
            let _ = writeln!(s, "{}\n", md_inline(&l));
        }
        for l in crate::report::precision_lines(m) {
            let _ = writeln!(s, "- {}", md_inline(&l));
        }
        s.push('\n');
    }
    if !m.metrics.is_empty() {
        s.push_str("## Key figures\n\nFigures the stages reported (agreement, validation statistics, counts):\n\n| stage | figure | value |\n| --- | --- | --- |\n");
        for (stage, figs) in &m.metrics {
            for (k, v) in figs {
                for (name, value) in figures::rows(k, v) {
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} |",
                        md_inline(stage),
                        md_inline(&name),
                        md_inline(&value)
                    );
                }
            }
        }
        s.push('\n');
    }
    limits::settings_section(&mut s, recipe);
    limits::limitations_section(&mut s, recipe, m);
    let _ = writeln!(
        s,
        "## Uses\n\nBenchmarking and studying Korean language understanding models; deriving challenge sets \
        (`kcurate challenge`). Not for identifying people.\n\n{}\n",
        personal_data_line(m, recipe)
    );
    let _ = writeln!(
        s,
        "## Distribution\n\nLicence: {} (the strictest share-alike of the inputs). Keep the attributions above when \
         redistributing.\n",
        md_inline(&m.license)
    );
    s.push_str("## Maintenance\n\nRebuild with `kcurate rebuild <release>/manifest.json --out DIR`; a new recipe version \
        gives a new release directory and `kcurate diff` explains the differences.\n");
    s
}

/// The card's plain statement of whether the release's text was pseudonymised: by the
/// `pii` stage (with the kinds it acted on), or not, and why not when the recipe says why.
fn personal_data_line(m: &Manifest, recipe: &Recipe) -> String {
    use kcurate_core::recipe::PiiHandling;
    match recipe.pii_handling() {
        PiiHandling::Stage => {
            let mut kinds: Vec<&str> = m
                .stages
                .iter()
                .filter(|st| st.name == "pii")
                .flat_map(|st| st.stats.rules.iter())
                .filter(|(_, c)| c.drop + c.edit + c.flag > 0)
                .map(|(rule, _)| {
                    let kind = rule.strip_prefix("pii.").unwrap_or(rule);
                    kind.split("_v").next().unwrap_or(kind)
                })
                .collect();
            kinds.dedup();
            let found = if kinds.is_empty() {
                "none found".to_string()
            } else {
                kinds.join(", ")
            };
            format!(
                "Personal data: pseudonymised by the `pii` stage, or removed where the recipe's modes \
                 say `drop` (kinds acted on in this release: {found})."
            )
        }
        PiiHandling::Acknowledged(reason) => format!(
            "Personal data: NOT pseudonymised: the recipe has no `pii` stage. Its reason: {}",
            md_inline(reason.trim())
        ),
        PiiHandling::Unstated => {
            "Personal data: NOT pseudonymised: the recipe has no `pii` stage, and it does not say why.".into()
        }
    }
}

#[cfg(test)]
mod tests;
