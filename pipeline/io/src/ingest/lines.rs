//! Line-oriented formats (JSONL, plain text): one record a line.

use super::bytes::{memchr_nl, utf8};
use super::decode::open_decoded;
use super::fields::{map_fields, map_json_object};
use super::{Item, line_over_limits, malformed, over_limit, unreadable};
use kcurate_core::recipe::SourceConfig;
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

#[derive(Clone, Copy)]
pub(super) enum LineKind {
    Jsonl,
    Txt,
}

/// Line-oriented formats (JSONL, plain text): one record a line, bounded memory per line,
/// CRLF and a leading BOM accepted, invalid UTF-8 reported with its byte offset.
pub(super) struct LineItems {
    src: SourceConfig,
    file: Arc<str>,
    reader: Option<Box<dyn BufRead + Send>>,
    kind: LineKind,
    line: u64,
    offset: u64,
    pending: Option<Item>,
    saw_any: bool,
    buf: Vec<u8>,
}

impl LineItems {
    pub(super) fn open(src: &SourceConfig, file: String, path: &Path, kind: LineKind) -> Self {
        let (reader, pending) = match open_decoded(path) {
            Ok(r) => (Some(r), None),
            Err(e) => (
                None,
                Some(unreadable(&file, 0, format!("cannot open: {e}"))),
            ),
        };
        LineItems {
            src: src.clone(),
            file: file.into(),
            reader,
            kind,
            line: 0,
            offset: 0,
            pending,
            saw_any: false,
            buf: Vec::new(),
        }
    }

    /// Reads one line into `self.buf` (without the newline). Returns `None` at end of file,
    /// else the line's length in bytes when it is past the limits (`[limits]
    /// max_line_bytes`, the record limit): such a line is skipped to its end, never held in
    /// memory beyond the smaller limit.
    fn next_line(&mut self) -> Result<Option<Option<u64>>, std::io::Error> {
        let limit = self.src.limits.max_line_bytes.min(self.src.record_limit());
        let reader = match self.reader.as_mut() {
            Some(r) => r,
            None => return Ok(None),
        };
        self.buf.clear();
        let mut too_long = false;
        let mut len = 0u64;
        let mut read_any = false;
        loop {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            read_any = true;
            let (take, done) = match memchr_nl(chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if done {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            len += body.len() as u64;
            if !too_long {
                if self.buf.len() + body.len() > limit {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(body);
                }
            }
            self.offset += take as u64;
            reader.consume(take);
            if done {
                break;
            }
        }
        if !read_any {
            return Ok(None);
        }
        self.line += 1;
        Ok(Some(too_long.then_some(len)))
    }
}

impl Iterator for LineItems {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(p) = self.pending.take() {
            return Some(p);
        }
        loop {
            let line_start = self.offset;
            let too_long = match self.next_line() {
                Ok(Some(t)) => t,
                Ok(None) => {
                    if !self.saw_any && self.reader.is_some() {
                        self.saw_any = true;
                        self.reader = None;
                        return Some(unreadable(&self.file, 0, "empty file: no records"));
                    }
                    self.reader = None;
                    return None;
                }
                Err(e) => {
                    self.reader = None;
                    return Some(unreadable(
                        &self.file,
                        self.line + 1,
                        format!("read error: {e}"),
                    ));
                }
            };
            let (file, line) = (self.file.clone(), self.line);
            if let Some(len) = too_long {
                self.saw_any = true;
                let reason = line_over_limits(&self.src, len)
                    .unwrap_or_else(|| format!("line of {len} bytes past the limits"));
                return Some(over_limit(&file, line, "-", reason));
            }
            let mut bytes: &[u8] = &self.buf;
            if line == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
                bytes = &bytes[3..];
            }
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
            let text = match utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    self.saw_any = true;
                    let at = line_start
                        + e.valid_up_to() as u64
                        + if line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                            3
                        } else {
                            0
                        };
                    return Some(malformed(
                        &file,
                        line,
                        "-",
                        format!("invalid UTF-8 at byte offset {at}"),
                    ));
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            self.saw_any = true;
            return Some(match self.kind {
                LineKind::Txt => {
                    let owned = text.to_string();
                    map_fields(&self.src, &file, line, &|name: &str| {
                        (name == self.src.fields.text).then(|| Value::String(owned.clone()))
                    })
                }
                LineKind::Jsonl => map_json_object(&self.src, &file, line, text),
            });
        }
    }
}
