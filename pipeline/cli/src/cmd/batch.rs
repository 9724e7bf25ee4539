//! `sts export`: an annotation batch for the pairs of an STS release.

use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// A long TSV template (`item, annotator, value`, values empty) for `annotators` people, or
/// Label Studio tasks, covering every pair of every split of the release's `sts` task.
pub fn export(
    release: &Path,
    annotators: usize,
    label_studio: bool,
    mut out: impl Write,
) -> anyhow::Result<usize> {
    let m = kcurate_release::Manifest::load(&release.join("manifest.json"))?;
    let splits = m
        .splits
        .get("sts")
        .context("the release has no `sts` task")?;
    let mut items: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for split in splits.keys() {
        let p = release.join("sts").join(format!("{split}.jsonl"));
        let text = std::fs::read_to_string(&p).with_context(|| p.display().to_string())?;
        for (n, l) in text.lines().enumerate() {
            let v: serde_json::Value =
                serde_json::from_str(l).with_context(|| format!("{}:{}", p.display(), n + 1))?;
            let field = |k: &str| {
                v[k].as_str()
                    .map(String::from)
                    .with_context(|| format!("{}:{}: {k}: missing", p.display(), n + 1))
            };
            items.push((
                field("guid")?,
                vec![
                    ("sentence1".into(), field("sentence1")?),
                    ("sentence2".into(), field("sentence2")?),
                ],
            ));
        }
    }
    if label_studio {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&kcurate_agree::io::export_label_studio(&items))?
        )?;
    } else {
        writeln!(out, "item\tannotator\tvalue\tsentence1\tsentence2")?;
        for (id, texts) in &items {
            for a in 0..annotators {
                writeln!(
                    out,
                    "{id}\tannotator{:02}\t\t{}\t{}",
                    a + 1,
                    texts[0].1.replace('\t', " "),
                    texts[1].1.replace('\t', " ")
                )?;
            }
        }
    }
    Ok(items.len())
}
