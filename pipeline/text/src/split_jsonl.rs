//! `kcurate text split`: `{"id","text"}` JSONL in, `{"id","sentences":[...]}` JSONL out.
//!
//! Streams line by line (memory stays flat). A bad line (not JSON, no string `text`) is
//! reported with its line number and skipped; the caller decides the exit status from
//! [`SplitReport::bad`].

use crate::ssplit::split_into;
use std::io::{BufRead, Write};

/// One input line that could not be split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: u64,
    /// Why: not UTF-8, not JSON, or no string `text`.
    pub message: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// What [`split_jsonl`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SplitReport {
    /// Input lines read, blank ones included.
    pub lines: u64,
    /// Output lines written (one per good input line).
    pub written: u64,
    /// Sentences written, over all output lines.
    pub sentences: u64,
    /// Lines skipped, in input order.
    pub bad: Vec<BadLine>,
}

/// An I/O error that stopped [`split_jsonl`].
#[derive(Debug, thiserror::Error)]
pub enum SplitIoError {
    /// Reading the input failed.
    #[error("reading line {line}: {source}")]
    Read {
        /// 1-based line being read.
        line: u64,
        /// Why.
        source: std::io::Error,
    },
    /// Writing the output failed (other than a closed pipe, which ends the run quietly).
    #[error("writing output for line {line}: {source}")]
    Write {
        /// 1-based input line whose output was being written.
        line: u64,
        /// Why.
        source: std::io::Error,
    },
}

#[derive(serde::Deserialize)]
struct InLine<'a> {
    id: Option<serde_json::Value>,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Serialize)]
struct OutLine<'a> {
    id: &'a serde_json::Value,
    sentences: Vec<&'a str>,
}

/// Splits every `{"id","text"}` line of `input` and writes `{"id","sentences"}` lines.
/// Blank lines are skipped silently. A bad line goes into the report and the run goes on;
/// only I/O errors stop it. A broken pipe on output ends the run quietly (a consumer such
/// as `head` or Spark's `pipe` closed it).
pub fn split_jsonl(
    input: impl BufRead,
    mut output: impl Write,
) -> Result<SplitReport, SplitIoError> {
    let mut rep = SplitReport::default();
    let mut ranges = Vec::new();
    let mut buf = Vec::new();
    let mut input = input;
    let mut line_no = 0u64;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| SplitIoError::Read {
                line: line_no + 1,
                source: e,
            })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        rep.lines += 1;
        let line = match std::str::from_utf8(&buf) {
            Ok(s) => s.trim_end_matches(['\n', '\r']),
            Err(e) => {
                rep.bad.push(BadLine {
                    line: line_no,
                    message: format!("not UTF-8: {e}"),
                });
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let rec: InLine = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => {
                rep.bad.push(BadLine {
                    line: line_no,
                    message: format!("not a JSON object with a string `text`: {e}"),
                });
                continue;
            }
        };
        let Some(text) = rec.text else {
            rep.bad.push(BadLine {
                line: line_no,
                message: "field `text`: missing or not a string".into(),
            });
            continue;
        };
        let null = serde_json::Value::Null;
        let id = rec.id.as_ref().unwrap_or(&null);
        split_into(&text, &mut ranges);
        let o = OutLine {
            id,
            sentences: ranges.iter().map(|&(s, e)| &text[s..e]).collect(),
        };
        rep.sentences += o.sentences.len() as u64;
        let w = serde_json::to_writer(&mut output, &o)
            .map_err(std::io::Error::from)
            .and_then(|_| output.write_all(b"\n"));
        match w {
            Ok(()) => rep.written += 1,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(rep),
            Err(e) => {
                return Err(SplitIoError::Write {
                    line: line_no,
                    source: e,
                });
            }
        }
    }
    match output.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(SplitIoError::Write {
            line: line_no,
            source: e,
        }),
        _ => Ok(rep),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_reports_bad_lines() {
        let input = "{\"id\":\"a\",\"text\":\"좋다. 나쁘다.\"}\nnot json\n\n{\"id\":2}\n{\"id\":\"b\",\"text\":\"하나\",\"x\":[1]}\n";
        let mut out = Vec::new();
        let rep = split_jsonl(input.as_bytes(), &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(
            s,
            "{\"id\":\"a\",\"sentences\":[\"좋다.\",\"나쁘다.\"]}\n{\"id\":\"b\",\"sentences\":[\"하나\"]}\n"
        );
        assert_eq!(rep.bad.iter().map(|b| b.line).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(rep.written, 2);
        assert_eq!(rep.sentences, 3);
    }
}
