//! The byte-level readers under the `csv` crate: [`CountingReader`] counts newlines and
//! follows the quoting, so a record's line comes from its byte offset (the `csv` crate's
//! own line numbers drift on CRLF files), and [`BoundedLines`] cuts lines past
//! `[limits] max_line_bytes`. The property tests below check them against plain counts.

pub(super) use kcurate_core::lines::BoundedLines;
use std::io::{BufRead, Read};

/// Counts the newlines a reader passes on, so a record's line can be computed from its
/// byte offset (the `csv` crate's own line numbers drift on CRLF files). Only newlines
/// between the current record and the reader's read-ahead are kept. With quoting on, it
/// also follows the quoting as the `csv` crate reads it, to find a quote never closed.
#[derive(Clone, Default)]
pub(super) struct Newlines(std::sync::Arc<std::sync::Mutex<Scan>>);

#[derive(Default)]
struct Scan {
    /// Offsets of newlines not yet passed by a record.
    pending: std::collections::VecDeque<u64>,
    /// Newlines passed.
    passed: u64,
    /// Newlines read in all.
    total: u64,
    quote: QuoteState,
    /// Offset and 1-based line of the quote that opened the current quoted field.
    opened: (u64, u64),
    /// Whether the reader reached the end of the input.
    eof: bool,
    /// Offsets of text right after a closing quote (`"a"b`, which `csv` reads as `ab`), with
    /// the line the quoted field opened on: a stray quote that paired with a later one.
    stray: std::collections::VecDeque<(u64, u64)>,
    /// Lines longer than `[limits] max_line_bytes`, each handed on as its newline alone:
    /// (offset of that newline in what the `csv` crate reads, 1-based line).
    cuts: std::collections::VecDeque<(u64, u64)>,
    /// The line of a quoted field that grew past the record limit: the reader stopped there.
    overlong: Option<u64>,
}

/// Where the bytes read so far leave a CSV field, as `csv_core` parses with its defaults
/// (a quote opens a field only at its start; `""` inside a quoted field is a quote).
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum QuoteState {
    #[default]
    FieldStart,
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: a closing quote, or the first of `""`.
    QuoteInQuoted,
}

impl Newlines {
    /// Whether the first line was cut for its length (a header past the limits).
    pub(super) fn first_line_cut(&self) -> bool {
        let g = self.0.lock().expect("newline counter lock");
        g.cuts.front().is_some_and(|c| c.1 == 1)
    }

    /// 1-based line of byte offset `at` (offsets must not decrease between calls).
    pub(super) fn line_at(&self, at: u64) -> u64 {
        let mut g = self.0.lock().expect("newline counter lock");
        // `<=`: on CRLF files the csv crate places a record at the `\n` ending the line before.
        while g.pending.front().is_some_and(|&nl| nl <= at) {
            g.pending.pop_front();
            g.passed += 1;
        }
        g.passed + 1
    }

    /// The first stray-quote offset in `start..end` (a record's bytes) with its quote's
    /// line; those before `end` are forgotten.
    pub(super) fn stray_quote_in(&self, start: u64, end: u64) -> Option<u64> {
        let mut g = self.0.lock().expect("newline counter lock");
        let mut found = None;
        while let Some(&(at, line)) = g.stray.front() {
            if at >= end {
                break;
            }
            g.stray.pop_front();
            if at >= start && found.is_none() {
                found = Some(line);
            }
        }
        found
    }

    /// Lines cut for their length that start before `end`, with whether each lies strictly
    /// inside the record starting at `start` (a cut line is empty to the `csv` crate, so it
    /// can only be inside a quoted field spanning lines, never a record's start).
    pub(super) fn cuts_before(&self, start: u64, end: u64) -> Vec<(u64, bool)> {
        let mut g = self.0.lock().expect("newline counter lock");
        let mut out = Vec::new();
        while let Some(&(at, line)) = g.cuts.front() {
            if at >= end {
                break;
            }
            g.cuts.pop_front();
            out.push((line, at > start));
        }
        out
    }

    /// The line of a quoted field that grew past the record limit, if one did.
    pub(super) fn overlong(&self) -> Option<u64> {
        self.0.lock().expect("newline counter lock").overlong
    }

    /// When the input ended inside a quoted field that opened before `end`: the quote's
    /// line and the number of lines read in all.
    pub(super) fn unclosed_quote_before(&self, end: u64) -> Option<(u64, u64)> {
        let g = self.0.lock().expect("newline counter lock");
        (g.eof && g.quote == QuoteState::Quoted && g.opened.0 < end)
            .then_some((g.opened.1, g.total + 1))
    }
}

/// The reader the `csv` crate reads a file through: lines past `max_line` bytes cut
/// ([`BoundedLines`]), newlines counted and, when `quoting` names the delimiter, the quoting
/// followed ([`CountingReader`]); `newlines` then answers about both.
pub(super) fn counting_reader<R: BufRead>(
    inner: R,
    newlines: &Newlines,
    max_line: usize,
    quoting: Option<u8>,
    max_record: u64,
) -> CountingReader<BoundedLines<R, Newlines>> {
    CountingReader {
        inner: BoundedLines::with_sink(inner, max_line, newlines.clone()),
        offset: 0,
        newlines: newlines.clone(),
        quoting,
        max_record,
    }
}

/// Passes bytes on to the `csv` crate, counting newlines and following the quoting into the
/// shared [`Newlines`].
pub(super) struct CountingReader<R> {
    inner: R,
    offset: u64,
    newlines: Newlines,
    /// `(delimiter)` when `"` quotes fields.
    quoting: Option<u8>,
    /// The record limit: a quoted field longer than this ends the input here.
    max_record: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        {
            let mut g = self.newlines.0.lock().expect("newline counter lock");
            if matches!(g.quote, QuoteState::Quoted | QuoteState::QuoteInQuoted)
                && self.offset - g.opened.0 > self.max_record
            {
                // A quoted field past the record limit (an unclosed quote, or a field that
                // big): stop here rather than hold the rest of the file in one record.
                g.overlong = Some(g.opened.1);
                g.eof = true;
                return Ok(0);
            }
        }
        let n = self.inner.read(buf)?;
        let mut g = self.newlines.0.lock().expect("newline counter lock");
        if n == 0 && !buf.is_empty() {
            g.eof = true;
        }
        for (i, &b) in buf[..n].iter().enumerate() {
            let at = self.offset + i as u64;
            if let Some(delim) = self.quoting
                // A leading BOM is not part of the first field.
                && !(at < 3 && b == [0xEF, 0xBB, 0xBF][at as usize])
            {
                use QuoteState::*;
                let end = b == b'\n' || b == b'\r';
                g.quote = match (g.quote, b) {
                    (FieldStart, b'"') => {
                        g.opened = (at, g.total + 1);
                        Quoted
                    }
                    (Quoted, b'"') => QuoteInQuoted,
                    (Quoted, _) => Quoted,
                    (QuoteInQuoted, b'"') => Quoted,
                    (_, _) if b == delim || end => FieldStart,
                    (QuoteInQuoted, _) => {
                        let opened = g.opened.1;
                        g.stray.push_back((at, opened));
                        Unquoted
                    }
                    _ => Unquoted,
                };
            }
            if b == b'\n' {
                g.pending.push_back(at);
                g.total += 1;
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// Cut lines (past `[limits] max_line_bytes`) go to the shared [`Scan`] as (output
/// offset, line), where the record reader finds them.
impl kcurate_core::lines::CutSink for Newlines {
    fn cut(&mut self, offset: u64, line: u64) {
        let mut g = self.0.lock().expect("newline counter lock");
        g.cuts.push_back((offset, line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Hands its bytes on in the given chunk sizes, as a file or a decoder might.
    struct Chunked {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        k: usize,
    }

    impl Read for Chunked {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let want = self.sizes[self.k % self.sizes.len()];
            self.k += 1;
            let n = want.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// Everything `data` reads to through the readers, in reads of the given sizes, and the
    /// shared state they leave.
    fn read_through(data: &[u8], max_line: usize, sizes: Vec<usize>) -> (Vec<u8>, Newlines) {
        let inner = std::io::BufReader::with_capacity(
            sizes[0],
            Chunked {
                data: data.to_vec(),
                at: 0,
                sizes: sizes.clone(),
                k: 0,
            },
        );
        let newlines = Newlines::default();
        let mut r = counting_reader(inner, &newlines, max_line, Some(b','), u64::MAX / 2);
        let (mut out, mut k) = (Vec::new(), 0);
        loop {
            let mut buf = vec![0; sizes[k % sizes.len()]];
            k += 1;
            let n = r.read(&mut buf).expect("read");
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        (out, newlines)
    }

    /// The plain cut: each line longer than `max` (without its newline) becomes its
    /// newline alone, at an output offset with its 1-based line.
    fn cut_plainly(data: &[u8], max: usize) -> (Vec<u8>, Vec<(u64, u64)>) {
        let (mut out, mut cuts) = (Vec::new(), Vec::new());
        for (i, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
            let newline = line.last() == Some(&b'\n');
            if line.len() - usize::from(newline) > max {
                cuts.push((out.len() as u64, i as u64 + 1));
                if newline {
                    out.push(b'\n');
                }
            } else {
                out.extend_from_slice(line);
            }
        }
        (out, cuts)
    }

    fn csv_bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just("가"),
                Just("ab"),
                Just(","),
                Just("\""),
                Just("\n"),
                Just("\r\n")
            ],
            0..40,
        )
        .prop_map(|parts| parts.concat().into_bytes())
    }

    proptest! {
        /// Lines are cut as the plain line-by-line cut does, in any read sizes.
        #[test]
        fn bounded_lines_cut_like_the_plain_cut(
            data in csv_bytes(),
            max in 0usize..12,
            sizes in proptest::collection::vec(1usize..9, 1..4),
        ) {
            let (out, newlines) = read_through(&data, max, sizes);
            let cuts: Vec<(u64, u64)> =
                newlines.0.lock().expect("lock").cuts.iter().copied().collect();
            prop_assert_eq!((out, cuts), cut_plainly(&data, max));
        }

        /// The line of an offset is one more than the newlines up to it (included: on CRLF
        /// files the `csv` crate places a record at the newline before it).
        #[test]
        fn line_at_counts_like_a_plain_count(
            data in csv_bytes(),
            sizes in proptest::collection::vec(1usize..9, 1..4),
            mut offsets in proptest::collection::vec(0u64..200, 0..8),
        ) {
            let (out, newlines) = read_through(&data, usize::MAX, sizes);
            prop_assert_eq!(&out, &data);
            offsets.sort();
            for at in offsets {
                let plain = 1 + data
                    .iter()
                    .take(at as usize + 1)
                    .filter(|&&b| b == b'\n')
                    .count() as u64;
                prop_assert_eq!(newlines.line_at(at), plain, "offset {}", at);
            }
        }
    }
}
