//! The export's JSON array, read one element at a time: a line-counting byte reader that
//! cuts each element out by a byte scan, and the walk over the array's separators.

use crate::io::ReadError;
use kcurate_core::json_scan::JsonScan;
use std::io::BufRead;

/// The tasks of one export file: the array's reader and where the walk is.
pub(super) struct TaskArray<R> {
    r: Reader<R>,
    /// The file as decisions and errors name it.
    path: String,
    first: bool,
}

impl<R: BufRead> TaskArray<R> {
    /// Opens the array: a byte-order mark is skipped, and anything but `[` is an error.
    pub(super) fn open(inner: R, path: String) -> Result<Self, ReadError> {
        let mut t = TaskArray {
            r: Reader { inner, line: 1 },
            path,
            first: true,
        };
        t.r.skip_bom().map_err(|e| t.io(e))?;
        match t.r.next_token().map_err(|e| t.io(e))? {
            Some(b'[') => Ok(t),
            _ => Err(t.err(
                t.r.line,
                "not a Label Studio export: expected a JSON array of tasks".into(),
            )),
        }
    }

    /// Moves past the separator to the next task: the line it starts on, or `None` at `]`.
    pub(super) fn next_task(&mut self) -> Result<Option<u64>, ReadError> {
        match self.r.peek_token().map_err(|e| self.io(e))? {
            Some(b']') => return Ok(None),
            Some(b',') if !self.first => {
                self.r.inner.consume(1);
            }
            None => return Err(self.err(self.r.line, "unexpected end of the JSON array".into())),
            Some(_) if self.first => {}
            Some(b) => {
                return Err(self.err(
                    self.r.line,
                    format!("expected `,` or `]` between tasks, found {:?}", b as char),
                ));
            }
        }
        self.first = false;
        if self.r.peek_token().map_err(|e| self.io(e))? == Some(b']') {
            return Err(self.err(self.r.line, "a `,` before `]`".into()));
        }
        Ok(Some(self.r.line))
    }

    /// The task that starts here (see [`Reader::element`]).
    pub(super) fn element(
        &mut self,
        max_bytes: usize,
        max_depth: usize,
    ) -> Result<Element, ReadError> {
        self.r.element(max_bytes, max_depth).map_err(|e| self.io(e))
    }

    /// A format error at `line` of this file.
    pub(super) fn err(&self, line: u64, message: String) -> ReadError {
        ReadError::Format {
            path: self.path.clone(),
            line,
            message,
        }
    }

    fn io(&self, e: std::io::Error) -> ReadError {
        ReadError::Io {
            path: self.path.clone(),
            source: e,
        }
    }
}

/// A buffered reader that counts the lines it has passed, so an element's line is known.
pub(super) struct Reader<R> {
    pub(super) inner: R,
    pub(super) line: u64,
}

impl<R: BufRead> Reader<R> {
    pub(super) fn skip_bom(&mut self) -> std::io::Result<()> {
        if self.inner.fill_buf()?.starts_with("\u{feff}".as_bytes()) {
            self.inner.consume(3);
        }
        Ok(())
    }

    /// The next byte that is not white space, left in the buffer.
    pub(super) fn peek_token(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            let buf = self.inner.fill_buf()?;
            let Some(&b) = buf.first() else {
                return Ok(None);
            };
            if !b.is_ascii_whitespace() {
                return Ok(Some(b));
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.inner.consume(1);
        }
    }

    pub(super) fn next_token(&mut self) -> std::io::Result<Option<u8>> {
        let b = self.peek_token()?;
        if b.is_some() {
            self.inner.consume(1);
        }
        Ok(b)
    }
}

/// One element of the export's array, as [`Reader::element`] cut it out.
#[derive(Debug, PartialEq)]
pub(super) enum Element {
    /// Its bytes; cut short when the input ends inside it (the parser then says where).
    Whole(Vec<u8>),
    /// Longer than the byte cap: skipped to its end, never held whole.
    TooLong,
    /// Nested deeper than the depth cap: skipped to its end.
    TooDeep,
}

impl<R: BufRead> Reader<R> {
    /// Cuts out the JSON value that starts at the next byte (white space already skipped)
    /// by a byte scan that skips strings: an array or object to its closing bracket, a
    /// string to its closing quote, anything else up to `,`, `]` or white space. At most
    /// `max_bytes` bytes are held; past them, or past `max_depth` levels, the value is read
    /// to its end and dropped.
    pub(super) fn element(
        &mut self,
        max_bytes: usize,
        max_depth: usize,
    ) -> std::io::Result<Element> {
        let mut held = Vec::new();
        let mut len = 0usize;
        let mut scan = JsonScan::default();
        let mut too_long = false;
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            // The bytes of this chunk that belong to the value: up to its end, if it is here.
            let end = scan.value_end(chunk);
            let take = end.unwrap_or(chunk.len());
            let part = &chunk[..take];
            self.line += part.iter().filter(|&&b| b == b'\n').count() as u64;
            len += take;
            too_long |= len > max_bytes;
            if too_long || scan.deepest > max_depth {
                held = Vec::new();
            } else {
                held.extend_from_slice(part);
            }
            self.inner.consume(take);
            if end.is_some() {
                break;
            }
        }
        let too_deep = scan.deepest > max_depth;
        Ok(if too_long {
            Element::TooLong
        } else if too_deep {
            Element::TooDeep
        } else {
            Element::Whole(held)
        })
    }
}
