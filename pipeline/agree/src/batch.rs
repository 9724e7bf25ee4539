//! Annotation batches: the items people label (one per row of a release's split files, or
//! given), written as a long TSV template (`item, annotator, value` with the value empty,
//! then the texts people need) or as Label Studio tasks with the labeling config of their
//! kind. Filled in, a batch comes back through a stage setting or `kcurate agree` in any
//! agreement format; the Label Studio reader takes votes from the config's control only
//! ([`BatchKind::control`]), never from the comment box every config carries.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The item id and the texts shown for it (column name, text).
pub type Item = (String, Vec<(String, String)>);

/// What people do with a batch; each kind has its labeling config.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchKind {
    /// One label of `labels` per item (e.g. KLUE TC's topics).
    Classification {
        /// The labels offered, in display order.
        labels: Vec<String>,
    },
    /// KLUE NLI validation: entailment, neutral or contradiction for a premise–hypothesis pair.
    NliTriple,
    /// KLUE STS: a similarity score from 0 to 5 in steps of 0.5 for a sentence pair.
    StsSlider,
    /// SentiNeg: accept or reject a flipped sentence and its reversed label.
    SentiNegCheck,
}

/// Label Studio's files of a batch, as written by [`write_label_studio`]: the tasks.
pub const TASKS_JSON: &str = "tasks.json";
/// The labeling config of the batch's kind, to paste into the Label Studio project.
pub const LABEL_CONFIG_XML: &str = "labeling-config.xml";

impl BatchKind {
    /// The name of the control whose results are votes (`from_name` in every export).
    pub fn control(&self) -> &'static str {
        match self {
            BatchKind::Classification { .. } => "label",
            BatchKind::NliTriple => "nli_label",
            BatchKind::StsSlider => "score",
            BatchKind::SentiNegCheck => "verdict",
        }
    }

    /// The values a vote may take (`None`: the STS scale, 0–5).
    pub fn choices(&self) -> Option<Vec<String>> {
        let own = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
        match self {
            BatchKind::Classification { labels } => Some(labels.clone()),
            BatchKind::NliTriple => own(&kcurate_core::recipe::NLI_LABELS),
            BatchKind::StsSlider => None,
            BatchKind::SentiNegCheck => own(&["accept", "reject"]),
        }
    }

    /// The Label Studio labeling config (XML) for items showing the `shown` columns: a
    /// `Text` per column (`value="$column"`, the task's data key), the vote control and an
    /// optional comment box (a `TextArea`, never read as a vote).
    pub fn label_config(&self, shown: &[&str]) -> String {
        let mut x = String::from("<View>\n");
        let header = match self {
            BatchKind::Classification { .. } => "Choose the label of the text",
            BatchKind::NliTriple => {
                "Is the hypothesis true, possibly true or false given the premise?"
            }
            BatchKind::StsSlider => {
                "How similar are the two sentences in meaning? 0 = unrelated, 5 = equivalent"
            }
            BatchKind::SentiNegCheck => {
                "Accept if the flipped text reads naturally and its label is the reverse of the original's"
            }
        };
        x.push_str(&format!("  <Header value=\"{}\"/>\n", attr(header)));
        for col in shown {
            x.push_str(&format!(
                "  <Header value=\"{}\" size=\"6\"/>\n  <Text name=\"{}\" value=\"${}\"/>\n",
                attr(col),
                attr(&text_name(col)),
                attr(col)
            ));
        }
        let to = text_name(shown.first().copied().unwrap_or("item"));
        let control = self.control();
        match self.choices() {
            Some(choices) => {
                x.push_str(&format!(
                    "  <Choices name=\"{control}\" toName=\"{}\" choice=\"single\" showInLine=\"true\" required=\"true\">\n",
                    attr(&to)
                ));
                for c in choices {
                    x.push_str(&format!("    <Choice value=\"{}\"/>\n", attr(&c)));
                }
                x.push_str("  </Choices>\n");
            }
            None => x.push_str(&format!(
                "  <Number name=\"{control}\" toName=\"{}\" min=\"0\" max=\"5\" step=\"0.5\" slider=\"true\" required=\"true\"/>\n",
                attr(&to)
            )),
        }
        x.push_str(&format!(
            "  <TextArea name=\"comment\" toName=\"{}\" placeholder=\"Comment (optional; not a vote)\" maxSubmissions=\"1\" editable=\"true\"/>\n</View>\n",
            attr(&to)
        ));
        x
    }
}

/// A shown column's `Text` tag name (prefixed, so that it never meets a control's name).
fn text_name(col: &str) -> String {
    format!("show_{col}")
}

/// An XML attribute value, escaped.
fn attr(s: &str) -> String {
    kcurate_core::text::escape_markup(s, kcurate_core::text::Quotes::Both)
}

/// Reading a release's items or writing a batch failed.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// A file or directory cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The manifest or a split file's row is not JSON, or a row lacks a field it needs.
    #[error("{path}:{line}: {message}")]
    Row {
        /// The manifest or split file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The release's manifest lists no splits of the asked task.
    #[error("{path}: the release has no `{task}` task")]
    NoTask {
        /// The release directory.
        path: String,
        /// The task asked for.
        task: String,
    },
}

fn io_err(p: &Path) -> impl Fn(std::io::Error) -> BatchError + '_ {
    move |e| BatchError::Io {
        path: p.display().to_string(),
        source: e,
    }
}

/// Every row of every split of `task` in the release, as items: `id_key` names the id
/// column and `shown` the columns people see (a missing one is an error naming file:line).
/// The splits are the manifest's, under the names the release gave them.
pub fn release_items(
    release: &Path,
    task: &str,
    id_key: &str,
    shown: &[&str],
) -> Result<Vec<Item>, BatchError> {
    let mpath = release.join("manifest.json");
    let text = std::fs::read_to_string(&mpath).map_err(io_err(&mpath))?;
    let m: Value = serde_json::from_str(&text).map_err(|e| BatchError::Row {
        path: mpath.display().to_string(),
        line: e.line(),
        message: format!("not a manifest: {e}"),
    })?;
    let splits = m["splits"][task]
        .as_object()
        .ok_or_else(|| BatchError::NoTask {
            path: release.display().to_string(),
            task: task.into(),
        })?;
    let mut items = Vec::new();
    for split in splits.keys() {
        let p = release.join(task).join(format!("{split}.jsonl"));
        let text = std::fs::read_to_string(&p).map_err(io_err(&p))?;
        for (n, l) in text.lines().enumerate() {
            let row_err = |message: String| BatchError::Row {
                path: p.display().to_string(),
                line: n + 1,
                message,
            };
            let v: Value = serde_json::from_str(l).map_err(|e| row_err(e.to_string()))?;
            let field = |k: &str| {
                v[k].as_str()
                    .map(String::from)
                    .ok_or_else(|| row_err(format!("{k}: missing")))
            };
            let texts = shown
                .iter()
                .map(|k| Ok((k.to_string(), field(k)?)))
                .collect::<Result<Vec<_>, BatchError>>()?;
            items.push((field(id_key)?, texts));
        }
    }
    Ok(items)
}

/// The long TSV template: one row per item and annotator (`annotator01`, …), `value`
/// empty, then the shown texts (tabs and newlines in them become spaces).
pub fn write_tsv(
    items: &[Item],
    annotators: usize,
    annotator_prefix: &str,
    mut out: impl Write,
) -> std::io::Result<()> {
    let header: Vec<&str> = items
        .first()
        .map(|(_, t)| t.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    let tail = |cells: &[String]| {
        if cells.is_empty() {
            String::new()
        } else {
            format!("\t{}", cells.join("\t"))
        }
    };
    let names: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    writeln!(out, "item\tannotator\tvalue{}", tail(&names))?;
    for (id, texts) in items {
        let cells: Vec<String> = texts
            .iter()
            .map(|(_, t)| t.replace(['\t', '\n'], " "))
            .collect();
        for a in 0..annotators {
            writeln!(
                out,
                "{id}\t{annotator_prefix}{:02}\t{}",
                a + 1,
                tail(&cells)
            )?;
        }
    }
    Ok(())
}

/// Writes `tasks.json` (Label Studio's import format: `{"data": {"item", <shown>…}}` per
/// item) and `labeling-config.xml` (the kind's config over the shown columns) into `dir`
/// (created); returns both paths.
pub fn write_label_studio(
    items: &[Item],
    kind: &BatchKind,
    dir: &Path,
) -> Result<Vec<PathBuf>, BatchError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let shown: Vec<&str> = items
        .first()
        .map(|(_, t)| t.iter().map(|(k, _)| k.as_str()).collect())
        .unwrap_or_default();
    let tasks = dir.join(TASKS_JSON);
    let json = serde_json::to_string_pretty(&crate::io::export_label_studio(items))
        .expect("JSON serialises")
        + "\n";
    std::fs::write(&tasks, json).map_err(io_err(&tasks))?;
    let config = dir.join(LABEL_CONFIG_XML);
    std::fs::write(&config, kind.label_config(&shown)).map_err(io_err(&config))?;
    Ok(vec![tasks, config])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_name_their_control_once_and_escape_what_they_show() {
        let kinds = [
            BatchKind::Classification {
                labels: vec!["a&b".into(), "\"c\"".into()],
            },
            BatchKind::NliTriple,
            BatchKind::StsSlider,
            BatchKind::SentiNegCheck,
        ];
        for k in kinds {
            let x = k.label_config(&["text", "label"]);
            assert_eq!(
                crate::io::label_studio::config_controls(&x),
                vec![k.control().to_string()],
                "{x}"
            );
            assert!(x.contains("value=\"$label\""), "{x}");
            assert!(!x.contains("a&b"), "{x}");
        }
    }

    #[test]
    fn tsv_template_has_a_row_per_item_and_annotator() {
        let items: Vec<Item> = vec![("p1".into(), vec![("text".into(), "가\t나".into())])];
        let mut out = Vec::new();
        write_tsv(&items, 2, "annotator", &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "item\tannotator\tvalue\ttext\np1\tannotator01\t\t가 나\np1\tannotator02\t\t가 나\n"
        );
    }
}
