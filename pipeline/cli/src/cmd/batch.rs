//! Annotation batches from a release: one item per row of a task's split files, written as
//! a long TSV template (`item, annotator, value` with the value empty, then the texts people
//! need) or as Label Studio tasks. Filled in, a batch goes back through a stage setting in any
//! agreement format (`sts` annotations, `sentineg` verdicts).

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// The item id and the texts shown for it, taken from one release row.
pub type Item = (String, Vec<(String, String)>);

/// Every row of every split of `task` in the release, as items: `id_key` names the id
/// column and `shown` the columns people see (a missing one is an error naming file:line).
pub fn items(
    release: &Path,
    task: &str,
    id_key: &str,
    shown: &[&str],
) -> anyhow::Result<Vec<Item>> {
    let m = kcurate_release::Manifest::load(&release.join("manifest.json"))?;
    let splits = m
        .splits
        .get(task)
        .with_context(|| format!("the release has no `{task}` task"))?;
    let mut items = Vec::new();
    for split in splits.keys() {
        let p = release.join(task).join(format!("{split}.jsonl"));
        let text = std::fs::read_to_string(&p).with_context(|| p.display().to_string())?;
        for (n, l) in text.lines().enumerate() {
            let v: serde_json::Value =
                serde_json::from_str(l).with_context(|| format!("{}:{}", p.display(), n + 1))?;
            let field = |k: &str| {
                v[k].as_str()
                    .map(String::from)
                    .with_context(|| format!("{}:{}: {k}: missing", p.display(), n + 1))
            };
            let texts = shown
                .iter()
                .map(|k| Ok((k.to_string(), field(k)?)))
                .collect::<anyhow::Result<Vec<_>>>()?;
            items.push((field(id_key)?, texts));
        }
    }
    Ok(items)
}

/// Writes the batch: Label Studio tasks, or a long TSV with one row per item and annotator.
pub fn write(
    items: &[Item],
    annotators: usize,
    label_studio: bool,
    mut out: impl Write,
) -> anyhow::Result<()> {
    if label_studio {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&kcurate_agree::io::export_label_studio(items))?
        )?;
        return Ok(());
    }
    let header: Vec<&str> = items
        .first()
        .map(|(_, t)| t.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    writeln!(out, "item\tannotator\tvalue\t{}", header.join("\t"))?;
    for (id, texts) in items {
        let cells: Vec<String> = texts
            .iter()
            .map(|(_, t)| t.replace(['\t', '\n'], " "))
            .collect();
        for a in 0..annotators {
            writeln!(out, "{id}\tannotator{:02}\t\t{}", a + 1, cells.join("\t"))?;
        }
    }
    Ok(())
}
