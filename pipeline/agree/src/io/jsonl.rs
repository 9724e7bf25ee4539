//! Long JSONL annotations: one `{"item","annotator","label"}` (or `"value"`) object a line.

use super::{Collector, ReadError, io, open};
use kcurate_core::lines::BoundedLines;
use serde_json::Value;
use std::path::Path;

pub(crate) fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(super) fn read_jsonl(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let mut r = BoundedLines::new(open(path)?, c.opts.limits.max_line_bytes);
    let shown = c.path().to_string();
    let mut n = 0u64;
    loop {
        let l = match r.next_line().map_err(io(path))? {
            None => break,
            Some(None) => {
                n += 1;
                c.reject_long_lines(&[n]);
                continue;
            }
            Some(Some(bytes)) => bytes,
        };
        n += 1;
        let l = std::str::from_utf8(l).map_err(|e| ReadError::Format {
            path: shown.clone(),
            line: n,
            message: format!("invalid UTF-8: {e}"),
        })?;
        if l.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(l.trim_start_matches('\u{feff}')).map_err(|e| {
            ReadError::Format {
                path: shown.clone(),
                line: n,
                message: format!("invalid JSON: {e}"),
            }
        })?;
        let (field, value) = match (v.get("label"), v.get("value")) {
            (Some(x), _) => ("label", scalar(x)),
            (None, Some(x)) => ("value", scalar(x)),
            (None, None) => ("label", String::new()),
        };
        let flags = v
            .get("flags")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(scalar).collect())
            .unwrap_or_default();
        let item = v.get("item").map(scalar).unwrap_or_default();
        let annotator = v.get("annotator").map(scalar).unwrap_or_default();
        c.vote(n, &item, &annotator, field, &value, flags)?;
    }
    Ok(())
}
