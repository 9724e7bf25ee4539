//! The dataset card: Hugging Face YAML front matter, then a datasheet (motivation,
//! composition, collection, preprocessing with per-rule counts, uses, distribution,
//! maintenance). Everything in it comes from the recipe and the run's books.

use crate::manifest::Manifest;
use kcurate_core::license::hf_license;
use kcurate_core::recipe::Recipe;
use std::fmt::Write;

fn size_category(n: u64) -> &'static str {
    match n {
        0..1_000 => "n<1K",
        1_000..10_000 => "1K<n<10K",
        10_000..100_000 => "10K<n<100K",
        100_000..1_000_000 => "100K<n<1M",
        _ => "1M<n<10M",
    }
}

/// A YAML scalar: a JSON string (valid YAML), so no value can end the front matter or
/// add keys to it.
fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// `&`, `<` and `>` as HTML entities: text from a recipe or input is shown, never rendered
/// as markup.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// A string from a recipe or input inside a Markdown table cell or a line: escaped HTML,
/// `|` escaped, backticks made quotes, line breaks as spaces.
fn md_inline(s: &str) -> String {
    html_escape(s)
        .replace('|', "\\|")
        .replace('`', "'")
        .replace(['\r', '\n'], " ")
}

/// A paragraph from a recipe (the description): escaped HTML, and a line that Markdown or a
/// front-matter reader would take as a rule, a setext underline or a `---` block is
/// escaped.
fn md_block(s: &str) -> String {
    html_escape(s)
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if ["---", "===", "***", "___", "+++"]
                .iter()
                .any(|m| t.starts_with(m))
            {
                format!("\\{t}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn render(recipe: &Recipe, m: &Manifest) -> String {
    let mut s = String::new();
    let total: u64 = m.splits.values().flat_map(|v| v.values()).sum();
    let task_categories = if recipe.task.task_categories.is_empty() {
        vec!["text-classification".to_string()]
    } else {
        recipe.task.task_categories.clone()
    };
    s.push_str("---\n");
    let _ = writeln!(s, "license: {}", hf_license(&m.license));
    s.push_str("language:\n- ko\n");
    s.push_str("task_categories:\n");
    for t in &task_categories {
        // Plain when it is a plain word (as HF's categories are), else quoted.
        if !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            let _ = writeln!(s, "- {t}");
        } else {
            let _ = writeln!(s, "- {}", yaml_str(t));
        }
    }
    let _ = writeln!(s, "size_categories:\n- {}", size_category(total));
    s.push_str("source_datasets:\n");
    for src in m.sources.iter().filter(|s| s.status == "used") {
        let _ = writeln!(s, "- {}", yaml_str(&src.id));
    }
    let _ = writeln!(
        s,
        "pretty_name: {}",
        yaml_str(&format!("{} {}", m.recipe.name, m.recipe.version))
    );
    s.push_str("dataset_info:\n");
    for (task, splits) in &m.splits {
        let _ = writeln!(s, "  config_name: {task}\n  splits:");
        for (name, n) in splits {
            let _ = writeln!(s, "  - name: {name}\n    num_examples: {n}");
        }
    }
    s.push_str("configs:\n");
    for task in m.splits.keys() {
        let _ = writeln!(s, "- config_name: {task}\n  data_files:");
        for name in m.splits[task].keys() {
            let _ = writeln!(s, "  - split: {name}\n    path: {task}/{name}.jsonl");
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
    s.push_str("A Korean NLU dataset rebuilt from licensed source corpora with every preprocessing decision recorded, \
        following the construction of KLUE, so that the release can be audited and rebuilt.\n\n");

    s.push_str("## Composition\n\n| task | split | rows |\n| --- | --- | ---: |\n");
    for (task, splits) in &m.splits {
        for (name, n) in splits {
            let _ = writeln!(s, "| {task} | {name} | {n} |");
        }
    }
    s.push('\n');

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
        "\nInputs: {} files, listed with sha256 and size in `manifest.json`.\n",
        m.inputs.len()
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
            "Personal information: {touched} PII spans acted on in {} sentences ({share:.2}% as spans per sentence; KLUE reports 1.2% of its pretraining corpus pseudonymised); per type in the `pii.*` rows above.\n",
            pii.stats.items_in
        );
    }
    if recipe.audit.judgements.is_some() {
        s.push_str(
            "Rule precision, from curators' judgements of a sample of each rule's drops and edits \
            (`kcurate audit sample`, then `kcurate audit precision`; Wilson 95% interval):\n\n",
        );
        for l in crate::report::precision_lines(m) {
            let _ = writeln!(s, "- {l}");
        }
        s.push('\n');
    }
    if !m.metrics.is_empty() {
        s.push_str("## Key figures\n\nFigures the stages reported (agreement, validation statistics, thresholds):\n\n| stage | figure | value |\n| --- | --- | --- |\n");
        for (stage, figs) in &m.metrics {
            for (k, v) in figs {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} |",
                    md_inline(stage),
                    md_inline(k),
                    md_inline(&v.to_string())
                );
            }
        }
        s.push('\n');
    }
    s.push_str("## Uses\n\nBenchmarking and studying Korean language understanding models; deriving challenge sets \
        (`kcurate challenge`). Not for identifying people: personal information was pseudonymised or removed where \
        the recipe's PII stage ran.\n\n");
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
