//! Label Studio exports: JSON (tasks with `annotations[].result[]`), JSON-MIN (one flat
//! object per annotation: the task's data, `id`, one key per control, `annotator`, …) and CSV
//! (the JSON-MIN columns; non-text values JSON-encoded). JSON and JSON-MIN are told apart per
//! element (a task has `annotations`); a `.csv`/`.tsv` file is the CSV export.
//!
//! Votes come only from one control, `from_name`: the one named by
//! [`LabelStudio::from_name`], else the one the batch's labeling config names (its only
//! `Choices`, `Number` or `Rating` tag), else (JSON only) the only choices/number/rating
//! control present in the export; two such controls are an error asking for a name. Comments
//! (TextArea) and other controls are never votes. A cancelled annotation (`was_cancelled` or
//! `skipped`) is an `agree.cancelled` decision, not a vote; an annotation without a choice for
//! the control is an `agree.no_label` rejection, more than one an `agree.multiple_choices`
//! rejection.
//!
//! The JSON array is read one task at a time, so memory does not grow with the export: an
//! element is cut out by a byte scan before it is parsed, and one longer than
//! `limits.max_record_bytes` (`agree --max-record-bytes`) or nested deeper than
//! `limits.max_depth` is skipped to its end unread, an `agree.over_limit` decision naming
//! file:line and the task's index; the elements after it are read.

mod array;
mod config;
use array::{Element, TaskArray};
// The tests cut elements out with the reader itself.
pub use config::config_controls;
#[cfg(test)]
use {array::Reader, std::io::BufRead};

use super::{Collector, ReadError, csv_headers, csv_line, csv_next, csv_reader, open, scalar};
use serde_json::Value;
use std::path::Path;

/// Which control carries the votes.
#[derive(Debug, Clone, Default)]
pub struct LabelStudio {
    /// The control's `name` (`from_name` in results).
    pub from_name: Option<String>,
    /// The labeling config (XML) of the batch, when known.
    pub label_config: Option<String>,
}

/// Result types that carry a vote.
const VOTE_TYPES: &[&str] = &["choices", "number", "rating"];

/// The control named by the options or the config, if any.
fn named_control(opts: &LabelStudio, path: &Path) -> Result<Option<String>, ReadError> {
    if let Some(n) = &opts.from_name {
        return Ok(Some(n.clone()));
    }
    let Some(xml) = &opts.label_config else {
        return Ok(None);
    };
    let names = config_controls(xml);
    match names.as_slice() {
        [one] => Ok(Some(one.clone())),
        [] => Err(ReadError::Format {
            path: path.display().to_string(),
            line: 0,
            message: "the labeling config names no Choices, Number or Rating control".into(),
        }),
        many => Err(ReadError::Format {
            path: path.display().to_string(),
            line: 0,
            message: format!(
                "the labeling config names {} vote controls ({}): choose one with --from-name",
                many.len(),
                many.join(", ")
            ),
        }),
    }
}

pub(super) fn read(
    path: &Path,
    opts: &LabelStudio,
    c: &mut Collector<'_>,
) -> Result<(), ReadError> {
    let shown = c.path().to_string();
    let control = named_control(opts, Path::new(&shown))?;
    if path.extension().is_some_and(|e| e == "csv" || e == "tsv") {
        return read_csv(path, control, c);
    }
    let mut tasks = TaskArray::open(open(path)?, shown)?;
    let mut st = State { control, task: 0 };
    let limits = c.opts.limits;
    while let Some(line) = tasks.next_task()? {
        let element = tasks.element(limits.max_record_bytes, limits.max_depth)?;
        st.task += 1;
        let Some(bytes) = st.whole(line, element, c) else {
            continue;
        };
        let v = serde_json::from_slice::<Value>(&bytes).map_err(|e| {
            tasks.err(
                line + e.line().saturating_sub(1) as u64,
                format!("not a Label Studio export: {e}"),
            )
        })?;
        drop(bytes);
        if v.get("annotations").is_some() || v.get("completions").is_some() {
            st.task_json(line, &v, c)?;
        } else {
            st.min_row(line, &v, c)?;
        }
    }
    Ok(())
}

struct State {
    control: Option<String>,
    /// Elements read so far (1-based index of the current one).
    task: u64,
}

impl State {
    /// The element's bytes; one over a limit is an `agree.over_limit` decision instead.
    fn whole(&self, line: u64, element: Element, c: &mut Collector<'_>) -> Option<Vec<u8>> {
        let limits = c.opts.limits;
        let detail = match element {
            Element::Whole(bytes) => return Some(bytes),
            Element::TooLong => format!(
                "task {}: longer than limits.max_record_bytes ({} bytes; `agree --max-record-bytes`): skipped to its end, not read",
                self.task, limits.max_record_bytes
            ),
            Element::TooDeep => format!(
                "task {}: JSON nested deeper than limits.max_depth ({} levels): skipped to its end, not read",
                self.task, limits.max_depth
            ),
        };
        c.reject(line, "", "agree.over_limit", detail);
        None
    }

    /// A full JSON task: votes from `annotations[].result[]` of the control.
    fn task_json(
        &mut self,
        line: u64,
        task: &Value,
        c: &mut Collector<'_>,
    ) -> Result<(), ReadError> {
        let item = task
            .pointer("/data/item")
            .or_else(|| task.get("id"))
            .map(scalar)
            .unwrap_or_default();
        let Some(anns) = self.annotations(line, task, &item, c) else {
            return Ok(());
        };
        for (k, ann) in anns.iter().enumerate() {
            let who = ann
                .get("completed_by")
                .map(|c| c.get("email").map(scalar).unwrap_or_else(|| scalar(c)))
                .unwrap_or_default();
            let at = format!("task {} annotation {}", self.task, k + 1);
            let flag = |key: &str| ann.get(key).and_then(Value::as_bool) == Some(true);
            if flag("was_cancelled") || flag("skipped") {
                c.skip(
                    line,
                    &item,
                    "agree.cancelled",
                    format!("{at}: cancelled by {who:?}, not a vote"),
                );
                continue;
            }
            let Some(results) = results_of(ann) else {
                let detail = format!("{at}: {}: no vote read", odd_annotation(ann));
                c.reject(line, &item, "agree.bad_task", detail);
                continue;
            };
            // Resolve the control from the first vote-carrying result when none is named.
            for r in &results {
                let kind = r.get("type").and_then(Value::as_str).unwrap_or("");
                let name = r.get("from_name").and_then(Value::as_str);
                if let Some(name) = name
                    && VOTE_TYPES.contains(&kind)
                {
                    match &self.control {
                        None => self.control = Some(name.to_string()),
                        Some(n) if n != name && self.inferred(c) => {
                            return Err(ReadError::Format {
                                path: c.path().to_string(),
                                line,
                                message: format!(
                                    "{at}: two controls carry votes ({n:?}, {name:?}): choose one with --from-name"
                                ),
                            });
                        }
                        Some(_) => {}
                    }
                }
            }
            let Some(control) = self.control.clone() else {
                c.reject(
                    line,
                    &item,
                    "agree.no_label",
                    format!("{at}: no choice in the annotation by {who:?}"),
                );
                continue;
            };
            let mine: Vec<&&Value> = results
                .iter()
                .filter(|r| r.get("from_name").and_then(Value::as_str) == Some(&control))
                .collect();
            let field = format!("result.{control}");
            let vote = VoteAt {
                line,
                item: &item,
                who: &who,
                field: &field,
                at: &at,
            };
            match mine.as_slice() {
                [] => vote.no_label(c),
                [r] => value(&vote, &r["value"], c)?,
                many => vote.multiple(c, many.len(), "results"),
            }
        }
        Ok(())
    }

    /// A task's `annotations` (or `completions`) list; anything else is an `agree.bad_task`
    /// rejection naming the task.
    fn annotations<'t>(
        &self,
        line: u64,
        task: &'t Value,
        item: &str,
        c: &mut Collector<'_>,
    ) -> Option<&'t Vec<Value>> {
        let anns = task
            .get("annotations")
            .or_else(|| task.get("completions"))
            .unwrap_or(&Value::Null);
        let list = anns.as_array();
        if list.is_none() {
            let detail = format!(
                "task {}: `annotations` is {}, not a list: no vote read from it",
                self.task,
                shape(anns)
            );
            c.reject(line, item, "agree.bad_task", detail);
        }
        list
    }

    /// Whether the control was inferred from the export (not named by option or config).
    fn inferred(&self, c: &Collector<'_>) -> bool {
        c.opts.label_studio.from_name.is_none() && c.opts.label_studio.label_config.is_none()
    }

    /// A JSON-MIN element: the task's data, `id`, the control's key, `annotator`.
    fn min_row(&mut self, line: u64, row: &Value, c: &mut Collector<'_>) -> Result<(), ReadError> {
        let Some(control) = self.control.clone() else {
            return Err(no_control(c.path(), line, row_keys(row)));
        };
        let item = row
            .get("item")
            .or_else(|| row.get("id"))
            .map(scalar)
            .unwrap_or_default();
        let who = row.get("annotator").map(scalar).unwrap_or_default();
        let at = format!("row {}", self.task);
        let vote = VoteAt {
            line,
            item: &item,
            who: &who,
            field: &control,
            at: &at,
        };
        min_value(&vote, row.get(&control), c)
    }
}

/// The place one annotation's vote comes from, which every decision about it names.
struct VoteAt<'a> {
    line: u64,
    item: &'a str,
    who: &'a str,
    /// The control's field (`result.<control>` in JSON, the column in JSON-MIN/CSV).
    field: &'a str,
    /// `task N annotation K` or `row N`.
    at: &'a str,
}

impl VoteAt<'_> {
    fn vote(&self, c: &mut Collector<'_>, value: &str) -> Result<(), ReadError> {
        c.vote(
            self.line,
            self.item,
            self.who,
            self.field,
            value,
            Vec::new(),
        )
    }

    /// An `agree.no_label` rejection: the annotation holds no choice for the control.
    fn no_label(&self, c: &mut Collector<'_>) {
        c.reject(
            self.line,
            self.item,
            "agree.no_label",
            format!(
                "{}: {}: no choice in the annotation by {:?}",
                self.at, self.field, self.who
            ),
        );
    }

    /// An `agree.multiple_choices` rejection: `n` results or choices (`what`) where one
    /// vote belongs.
    fn multiple(&self, c: &mut Collector<'_>, n: usize, what: &str) {
        c.reject(
            self.line,
            self.item,
            "agree.multiple_choices",
            format!("{}: {}: {n} {what} by {:?}", self.at, self.field, self.who),
        );
    }
}

/// A result's `value` object (choices, number or rating) as one vote.
fn value(vote: &VoteAt<'_>, v: &Value, c: &mut Collector<'_>) -> Result<(), ReadError> {
    if let Some(ch) = v.get("choices") {
        let ch: Vec<&Value> = ch.as_array().into_iter().flatten().collect();
        return match ch.as_slice() {
            [] => {
                vote.no_label(c);
                Ok(())
            }
            [one] => vote.vote(c, &scalar(one)),
            many => {
                vote.multiple(c, many.len(), "choices");
                Ok(())
            }
        };
    }
    let x = v.get("number").or_else(|| v.get("rating")).map(scalar);
    vote.vote(c, &x.unwrap_or_default())
}

fn row_keys(row: &Value) -> Vec<String> {
    row.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn no_control(path: &str, line: u64, keys: Vec<String>) -> ReadError {
    ReadError::Format {
        path: path.to_string(),
        line,
        message: format!(
            "a JSON-MIN or CSV export does not say which column is the control: name it with --from-name or --label-config (columns: {})",
            keys.join(", ")
        ),
    }
}

/// A JSON-MIN/CSV control value: a choice (text), a number, `[choice, …]` (several choices)
/// or `[{"number"|"rating": x}]`. A row without annotator and without a value is a task
/// nobody annotated: not a row.
fn min_value(vote: &VoteAt<'_>, v: Option<&Value>, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let blank = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    if vote.who.is_empty() && blank(v) {
        return Ok(());
    }
    let missing = Value::Null;
    let v = Some(v.unwrap_or(&missing));
    match v {
        None => Ok(()),
        _ if blank(v) => {
            vote.no_label(c);
            Ok(())
        }
        Some(Value::Array(a)) if a.len() > 1 => {
            vote.multiple(c, a.len(), "choices");
            Ok(())
        }
        Some(Value::Array(a)) => {
            let x = &a[0];
            let x = x
                .get("number")
                .or_else(|| x.get("rating"))
                .or_else(|| x.get("choices").and_then(|c| c.get(0)))
                .unwrap_or(x);
            vote.vote(c, &scalar(x))
        }
        Some(x) => vote.vote(c, &scalar(x)),
    }
}

fn read_csv(path: &Path, control: Option<String>, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let mut rdr = csv_reader(path, c.opts.limits.max_line_bytes)?;
    let shown = c.path().to_string();
    let named = Path::new(&shown);
    let headers = csv_headers(named, &mut rdr)?;
    let Some(control) = control else {
        return Err(no_control(&shown, 1, headers));
    };
    let col = |n: &str| headers.iter().position(|h| h == n);
    let Some(cv) = col(&control) else {
        return Err(ReadError::Format {
            path: shown.clone(),
            line: 1,
            message: format!(
                "no column {control:?} (the control) in the header ({})",
                headers.join(", ")
            ),
        });
    };
    let ci = col("item").or_else(|| col("id"));
    let ca = col("annotator");
    let mut rec = csv::StringRecord::new();
    let mut n = 0u64;
    while csv_next(named, &mut rdr, &mut rec)? {
        n += 1;
        let line = csv_line(&mut rdr, &rec);
        let get = |i: Option<usize>| i.and_then(|i| rec.get(i)).unwrap_or("");
        let raw = get(Some(cv)).trim();
        // Non-text values are JSON-encoded in the CSV export.
        let v = if raw.starts_with('[') || raw.starts_with('{') {
            serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
        } else {
            Value::String(raw.to_string())
        };
        let at = format!("row {n}");
        let vote = VoteAt {
            line,
            item: get(ci),
            who: get(ca),
            field: &control,
            at: &at,
        };
        min_value(&vote, Some(&v), c)?;
    }
    c.reject_long_lines(rdr.get_ref().cuts());
    Ok(())
}

#[cfg(test)]
mod tests;

/// An annotation's results (none without a `result`); `None` when the annotation is not
/// an object or its `result` not a list.
fn results_of(ann: &Value) -> Option<Vec<&Value>> {
    match ann.get("result") {
        _ if !ann.is_object() => None,
        None => Some(Vec::new()),
        Some(Value::Array(a)) => Some(a.iter().collect()),
        Some(_) => None,
    }
}

/// What is odd about an annotation [`results_of`] refused.
fn odd_annotation(ann: &Value) -> String {
    if ann.is_object() {
        format!("`result` is {}, not a list", shape(&ann["result"]))
    } else {
        format!("{}, not an object", shape(ann))
    }
}

/// What kind of JSON value `v` is, for a message.
fn shape(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
