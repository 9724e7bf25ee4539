//! A line reader with a length bound, shared by every reader of line-shaped input (ingest's
//! TSV/CSV, the annotation readers of `kcurate agree`): a line longer than the bound is
//! skipped to its end, never held in memory, and reported to a [`CutSink`] with its 1-based
//! number. Through [`std::io::Read`] (what the `csv` crate reads) a cut line is handed on as
//! its newline alone, an empty line; [`BoundedLines::next_line`] gives lines one at a time.

use std::io::{BufRead, Read};

/// Where a [`BoundedLines`] reports the lines it cut.
pub trait CutSink {
    /// Line `line` (1-based) was cut; `offset` is where its newline lies in the bytes
    /// handed on through [`Read`].
    fn cut(&mut self, offset: u64, line: u64);
}

/// The cut lines' numbers, in order.
impl CutSink for Vec<u64> {
    fn cut(&mut self, _offset: u64, line: u64) {
        self.push(line);
    }
}

/// Hands a reader on line by line, each line whole (with its newline) or, past `max` bytes
/// (newline not counted), cut.
pub struct BoundedLines<R, S = Vec<u64>> {
    inner: R,
    max: usize,
    /// The current line, with its newline, and how much of it is handed on.
    line: Vec<u8>,
    at: usize,
    lineno: u64,
    /// Bytes handed on through `Read` so far.
    out: u64,
    /// Whether the current line was cut.
    was_cut: bool,
    cuts: S,
    /// With [`BoundedLines::numbering_lines`]: the offsets (in the bytes handed on) of the
    /// newlines not yet passed by a [`BoundedLines::line_at`] query, each with whether it
    /// ends a blank line (`\n` or `\r\n` alone, or a cut line), and how many were passed.
    newlines: Option<std::collections::VecDeque<(u64, bool)>>,
    passed: u64,
}

impl<R: BufRead> BoundedLines<R> {
    /// Keeps the cut lines' numbers (see [`BoundedLines::cuts`]).
    pub fn new(inner: R, max: usize) -> Self {
        BoundedLines::with_sink(inner, max, Vec::new())
    }
}

impl<R: BufRead, S: CutSink> BoundedLines<R, S> {
    /// Reports the cut lines to `cuts`.
    pub fn with_sink(inner: R, max: usize, cuts: S) -> Self {
        BoundedLines {
            inner,
            max,
            line: Vec::new(),
            at: 0,
            lineno: 0,
            out: 0,
            was_cut: false,
            cuts,
            newlines: None,
            passed: 0,
        }
    }

    /// Keeps the newlines' offsets for [`BoundedLines::line_at`] (the `csv` crate's own
    /// line numbers skip blank lines, and a cut line is a blank line to it).
    pub fn numbering_lines(mut self) -> Self {
        self.newlines = Some(std::collections::VecDeque::new());
        self
    }

    /// The 1-based line of the record the `csv` crate places at byte `at` of the bytes
    /// handed on through [`Read`] (offsets must not decrease between calls; only the
    /// newlines read ahead of `at` are held). Every line of the input counts, blank and cut
    /// ones included; blank lines right after `at` are skipped, as the `csv` crate skips
    /// them before a record (it places the record where they start). Needs
    /// [`BoundedLines::numbering_lines`] (else 0).
    pub fn line_at(&mut self, at: u64) -> u64 {
        let Some(pending) = &mut self.newlines else {
            return 0;
        };
        // `<=`: on CRLF files the csv crate places a record at the `\n` ending the line
        // before.
        while pending.front().is_some_and(|&(nl, _)| nl <= at) {
            pending.pop_front();
            self.passed += 1;
        }
        while pending.front().is_some_and(|&(_, blank)| blank) {
            pending.pop_front();
            self.passed += 1;
        }
        self.passed + 1
    }

    /// Where the cut lines went.
    pub fn cuts(&self) -> &S {
        &self.cuts
    }

    /// Reads the next line into `self.line`; false at the end of the input.
    fn fill_line(&mut self) -> std::io::Result<bool> {
        self.line.clear();
        self.at = 0;
        let (mut len, mut cut, mut newline) = (0u64, false, false);
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            len += take as u64;
            if !cut {
                if self.line.len() + take - usize::from(done) > self.max {
                    cut = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&chunk[..take]);
                }
            }
            self.inner.consume(take);
            if done {
                newline = true;
                break;
            }
        }
        if len == 0 {
            return Ok(false);
        }
        self.lineno += 1;
        self.was_cut = cut;
        if cut {
            self.cuts.cut(self.out, self.lineno);
            if newline {
                self.line.push(b'\n');
            }
        }
        if let Some(pending) = &mut self.newlines
            && newline
        {
            // All lines before this one are handed on: it starts at `out`.
            let blank = self.line == b"\n" || self.line == b"\r\n";
            pending.push_back((self.out + self.line.len() as u64 - 1, blank));
        }
        Ok(true)
    }

    /// The next line with its newline, `None` at the end; `Some(None)` for a line cut for
    /// its length (already reported to the sink).
    pub fn next_line(&mut self) -> std::io::Result<Option<Option<&[u8]>>> {
        if !self.fill_line()? {
            return Ok(None);
        }
        Ok(Some((!self.was_cut).then_some(&self.line[..])))
    }
}

impl<R: BufRead, S: CutSink> Read for BoundedLines<R, S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.line.len() {
            if !self.fill_line()? {
                return Ok(0);
            }
        }
        let n = (self.line.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        self.out += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_and_numbered() {
        let text = b"ab\nabcdef\n\nxyz";
        let mut r = BoundedLines::new(&text[..], 3);
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push(l.map(<[u8]>::to_vec));
        }
        assert_eq!(
            got,
            [
                Some(b"ab\n".to_vec()),
                None,
                Some(b"\n".to_vec()),
                Some(b"xyz".to_vec())
            ]
        );
        assert_eq!(r.cuts(), &[2]);
        // Through Read, a cut line is its newline alone.
        let mut r = BoundedLines::new(&text[..], 3);
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"ab\n\n\nxyz");
        assert_eq!(r.cuts(), &[2]);
    }

    /// Every line counts in `line_at`, the cut and the blank ones too: of what the reader
    /// hands on ("ab\n\n\nxyz\r\n\r\nq"), a record placed where the blank lines start is
    /// on the line after them ("xyz", line 4), and so is one placed at the `\n` before it.
    #[test]
    fn line_at_counts_cut_and_blank_lines() {
        let text = b"ab\nabcdef\n\nxyz\r\n\r\nq";
        let mut r = BoundedLines::new(&text[..], 4).numbering_lines();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"ab\n\n\nxyz\r\n\r\nq");
        assert_eq!([r.line_at(0), r.line_at(3), r.line_at(10)], [1, 4, 6]);
    }
}
