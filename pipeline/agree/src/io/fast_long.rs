//! The fast path of the long TSV/CSV reader: the file read in large blocks, lines split with
//! `memchr`, fields split on the delimiter in place, no per-row allocation (the
//! [`Collector`] interns what it keeps). It reads only the files where this is exactly what
//! the `csv` crate does: valid UTF-8, no `"` (no quoting) and no `\r` (`\n` line ends only),
//! a header on the first line, no line over `max_line_bytes`. On anything else it stops,
//! before voting any row of the block where it met it, and the plain reader
//! ([`super::delimited::read_delimited_long`], the `csv` crate through core's bounded line reader, the
//! oracle its tests compare with) reads the file from the start.
//!
//! With two threads or more, a [`Scanner`] thread reads and splits the next block while this
//! thread votes the rows of the last (one block ahead, through a channel), so the rows reach
//! the [`Collector`] in file order and the result is the same on any number of threads.

use super::collector::Row;
use super::delimited::{delimiter, flags, long_columns};
use super::numbering::Numbering;
use super::{Collector, ReadError, io};
use memchr::{memchr2, memchr2_iter, memrchr};
use std::io::Read;
use std::path::Path;

/// Bytes read at a time. Up to three blocks are in flight (scanned, queued, voted), each
/// with its rows' spans at about three times its size: 256 KiB keeps that memory in the
/// cache and its first-touch page faults few (1 MiB blocks took 40% more page faults and
/// 10% more time end to end on 100k items × 5; 128 KiB was no faster).
const BLOCK: usize = 1 << 18;

/// Bytes read first: the voter waits for the first block, so a small one starts it early
/// (and tells [`Collector::reserve_like`] enough about the file).
const FIRST_BLOCK: usize = 64 << 10;

/// Reads `path` into `c` when the fast path applies: `Ok(true)`; `Ok(false)` when it does
/// not, with `c` untouched (the caller reads the file with the plain reader).
pub(super) fn read(path: &Path, c: &mut Collector<'_>) -> Result<bool, ReadError> {
    read_with(path, c, c.opts.thread_count() > 1, BLOCK)
}

/// [`read`] in blocks of `block` bytes, `pipelined` or not.
fn read_with(
    path: &Path,
    c: &mut Collector<'_>,
    pipelined: bool,
    block: usize,
) -> Result<bool, ReadError> {
    let mut fast = Collector::new(path, c.opts).named(c.path());
    if !read_blocks(path, &mut fast, pipelined, block)? {
        return Ok(false);
    }
    *c = fast;
    Ok(true)
}

/// Why a [`Scanner`] stopped early.
enum Stop {
    /// The fast path does not apply: the plain reader reads the file.
    StepAside,
    Error(ReadError),
}

/// Reads the file (`pipelined`: the [`Scanner`] on a thread of its own, one block ahead,
/// while this thread votes the rows; the same rows in the same order either way).
fn read_blocks(
    path: &Path,
    c: &mut Collector<'_>,
    pipelined: bool,
    block: usize,
) -> Result<bool, ReadError> {
    let mut scanner = Scanner::open(path, c, block)?;
    let file_len = scanner.file_len;
    let first = match scanner.next_batch(None) {
        Ok(Some(b)) => b,
        Ok(None) | Err(Stop::StepAside) => return Ok(false),
        Err(Stop::Error(e)) => return Err(e),
    };
    let cols = scanner
        .cols
        .clone()
        .expect("a batch comes after the header");
    let mut voter = Voter {
        c,
        cols: &cols,
        read_bytes: 0,
        file_len,
    };
    let mut spare = Some(voter.vote(first, scanner.at_end)?);
    if !pipelined {
        loop {
            match scanner.next_batch(spare.take()) {
                Ok(Some(b)) => spare = Some(voter.vote(b, scanner.at_end)?),
                Ok(None) => return Ok(true),
                Err(Stop::StepAside) => return Ok(false),
                Err(Stop::Error(e)) => return Err(e),
            }
        }
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        // Voted batches go back to the scanner, whose next blocks reuse their memory.
        let (back, spares) = std::sync::mpsc::channel();
        back.send(spare.take().expect("the first batch was voted"))
            .expect("the receiver is here");
        s.spawn(move || {
            loop {
                let next = scanner
                    .next_batch(spares.try_recv().ok())
                    .map(|b| b.map(|b| (b, scanner.at_end)));
                let last = !matches!(next, Ok(Some(_)));
                // A closed channel: the voter stopped (an error); nothing more to read.
                if tx.send(next).is_err() || last {
                    return;
                }
            }
        });
        for next in rx {
            match next {
                Ok(Some((b, at_end))) => {
                    // A closed channel: the scanner has read its last block.
                    let _ = back.send(voter.vote(b, at_end)?);
                }
                Ok(None) => return Ok(true),
                Err(Stop::StepAside) => return Ok(false),
                Err(Stop::Error(e)) => return Err(e),
            }
        }
        Ok(true)
    })
}

/// Votes a [`Batch`]'s rows into the collector.
struct Voter<'a, 'o> {
    c: &'a mut Collector<'o>,
    cols: &'a Columns,
    read_bytes: u64,
    file_len: u64,
}

impl Voter<'_, '_> {
    /// Votes the batch's rows; the batch back, to be reused.
    fn vote(&mut self, b: Batch, at_end: bool) -> Result<Batch, ReadError> {
        let cols = self.cols;
        for r in &b.rows {
            let get = |k: usize| &b.text[r.cells[k].0 as usize..r.cells[k].1 as usize];
            let flags = cols.flags.map(|_| flags(get(3))).unwrap_or_default();
            let row = Row {
                line: r.line,
                item: get(0),
                annotator: get(1),
                value: get(2),
            };
            self.c.vote_numbered(row, &cols.field, flags, r.annotator)?;
        }
        let first = self.read_bytes == 0;
        self.read_bytes += b.text.len() as u64;
        if first && !at_end {
            // The first block tells how many rows and items the whole file holds, about:
            // room for them now saves growing every table many times over.
            self.c.reserve_like(self.read_bytes, self.file_len);
        }
        Ok(b)
    }
}

/// A block of whole lines and its rows: per row its line, the spans (in `text`) of its
/// item, annotator, value and flags cells (empty when the row has no such cell) and the
/// number of its annotator.
struct Batch {
    text: String,
    rows: Vec<RowSpans>,
}

struct RowSpans {
    line: u64,
    cells: [(u32, u32); 4],
    annotator: u32,
}

/// Reads the file block by block and splits each block's lines into rows (the header
/// first), stopping where the fast path does not apply.
struct Scanner {
    file: std::fs::File,
    file_len: u64,
    shown: String,
    delim: u8,
    max: usize,
    /// Bytes read at a time.
    block: usize,
    buf: Vec<u8>,
    cols: Option<Columns>,
    line: u64,
    at_end: bool,
    fields: Vec<(usize, usize)>,
    /// Rows of the last block (room for as many in the next).
    last_rows: usize,
    /// Numbers the annotators (see [`Collector::vote_numbered`]).
    annotators: Numbering,
}

impl Scanner {
    fn open(path: &Path, c: &Collector<'_>, block: usize) -> Result<Scanner, ReadError> {
        let file = std::fs::File::open(path).map_err(io(path))?;
        Ok(Scanner {
            file_len: file.metadata().map_or(0, |m| m.len()),
            file,
            shown: c.path().to_string(),
            delim: delimiter(path),
            max: c.opts.limits.max_line_bytes,
            block,
            // Room for the part line a block ends with and the next block: no growth.
            buf: Vec::with_capacity(2 * block),
            cols: None,
            line: 0,
            at_end: false,
            fields: Vec::new(),
            last_rows: 0,
            annotators: Numbering::default(),
        })
    }

    /// The next block's rows; `None` at the end of the file. A `spare` batch (voted) lends
    /// its memory: fresh memory costs a page fault per page, which reading 1 MiB blocks
    /// into new buffers paid for every block.
    fn next_batch(&mut self, spare: Option<Batch>) -> Result<Option<Batch>, Stop> {
        let Some(end) = self.fill()? else {
            return Ok(None);
        };
        let (text, mut rows) = self.take_block(end, spare)?;
        self.split_rows(&text, &mut rows)?;
        self.last_rows = rows.len();
        Ok(Some(Batch { text, rows }))
    }

    /// Reads blocks until the buffer holds a complete line: the end of the complete lines
    /// (at the end of the file: everything); `None` when nothing is left.
    #[inline]
    fn fill(&mut self) -> Result<Option<usize>, Stop> {
        loop {
            if self.at_end && self.buf.is_empty() {
                return Ok(None);
            }
            // Fill the buffer with one more block.
            let old = self.buf.len();
            let block = if self.last_rows == 0 {
                self.block.min(FIRST_BLOCK)
            } else {
                self.block
            };
            self.buf.resize(old + block, 0);
            let n = read_full(&mut self.file, &mut self.buf[old..])
                .map_err(|e| Stop::Error(io(Path::new(&self.shown))(e)))?;
            self.buf.truncate(old + n);
            self.at_end = n == 0;
            if self.at_end {
                return Ok(Some(self.buf.len()));
            }
            match memrchr(b'\n', &self.buf[old..]) {
                Some(k) => return Ok(Some(old + k + 1)),
                None if self.buf.len() > self.max => return Err(Stop::StepAside),
                None => {}
            }
        }
    }

    /// Takes the buffer's first `end` bytes as the block's text (the part line after them
    /// stays for the next block), with an empty row list; the spare batch's memory when
    /// there is one. Steps aside on a quote, a carriage return or invalid UTF-8.
    #[inline]
    fn take_block(
        &mut self,
        end: usize,
        spare: Option<Batch>,
    ) -> Result<(String, Vec<RowSpans>), Stop> {
        let (mut rest, mut rows) = match spare {
            Some(b) => (b.text.into_bytes(), b.rows),
            None => (
                Vec::with_capacity(self.buf.capacity()),
                // The first block's guess: a row per 16 bytes, about twice as many as a
                // line of three short ids holds.
                Vec::with_capacity(if self.last_rows == 0 {
                    self.block / 16
                } else {
                    self.last_rows + self.last_rows / 8
                }),
            ),
        };
        rest.clear();
        rows.clear();
        rest.extend_from_slice(&self.buf[end..]);
        self.buf.truncate(end);
        let block = std::mem::replace(&mut self.buf, rest);
        if block.len() > u32::MAX as usize || memchr2(b'"', b'\r', &block).is_some() {
            return Err(Stop::StepAside);
        }
        let Ok(text) = String::from_utf8(block) else {
            return Err(Stop::StepAside);
        };
        Ok((text, rows))
    }

    /// Splits the block's lines into rows (the header first, once per file).
    #[inline]
    fn split_rows(&mut self, text: &str, rows: &mut Vec<RowSpans>) -> Result<(), Stop> {
        let (delim, max) = (self.delim, self.max);
        let bytes = text.as_bytes();
        let end = bytes.len();
        // One scan finds the delimiters and the line ends together (a search per line and
        // per field cost more in call overhead than in bytes scanned).
        let (mut start, mut from) = (0, 0);
        let fields = &mut self.fields;
        fields.clear();
        let stops = memchr2_iter(delim, b'\n', bytes)
            .chain((end > 0 && bytes[end - 1] != b'\n').then_some(end));
        for stop in stops {
            if stop < end && bytes[stop] == delim {
                fields.push((from, stop));
                from = stop + 1;
                continue;
            }
            let row = &text[start..stop];
            fields.push((from, stop));
            start = stop + 1;
            from = start;
            self.line += 1;
            if row.len() > max {
                return Err(Stop::StepAside);
            }
            let Some(cols) = &self.cols else {
                if row.is_empty() {
                    return Err(Stop::StepAside);
                }
                self.cols = Some(header(row, delim, &self.shown)?);
                fields.clear();
                continue;
            };
            if !row.is_empty() {
                // A blank line is no row (as the csv crate reads it), but it is a line: the
                // rows after it keep their file line numbers, in both readers.
                let cells = cells(cols, fields);
                let (a, b) = cells[1];
                rows.push(RowSpans {
                    line: self.line,
                    cells,
                    annotator: self.annotators.number(&text[a as usize..b as usize]),
                });
            }
            fields.clear();
        }
        Ok(())
    }
}

/// The columns a header line names.
fn header(row: &str, delim: u8, shown: &str) -> Result<Columns, Stop> {
    let headers: Vec<String> = row
        .split(delim as char)
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    let cols = long_columns(&headers, shown).map_err(Stop::Error)?;
    Ok(Columns::of(cols))
}

/// A row's item, annotator, value and flags cells as spans of its fields (empty when the
/// row has no such cell).
#[inline]
fn cells(cols: &Columns, fields: &[(usize, usize)]) -> [(u32, u32); 4] {
    let span = |i: Option<usize>| {
        i.and_then(|i| fields.get(i))
            .map_or((0, 0), |&(a, b)| (a as u32, b as u32))
    };
    [
        span(Some(cols.item)),
        span(Some(cols.annotator)),
        span(Some(cols.value)),
        span(cols.flags),
    ]
}

/// Where the columns are, from [`long_columns`].
#[derive(Clone)]
struct Columns {
    item: usize,
    annotator: usize,
    value: usize,
    field: String,
    flags: Option<usize>,
}

impl Columns {
    fn of(
        (item, annotator, value, field, flags): (usize, usize, usize, String, Option<usize>),
    ) -> Self {
        Columns {
            item,
            annotator,
            value,
            field,
            flags,
        }
    }
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::super::delimited::read_delimited_long;
    use super::super::{Format, ReadOptions, TableRead};
    use super::*;
    use proptest::prelude::*;

    /// A reader's error by its message: the fast and the plain reader fail alike when
    /// they say the same (an I/O error inside cannot be compared itself).
    #[derive(Debug, PartialEq, thiserror::Error)]
    #[error("{0}")]
    struct Failed(String);

    impl From<ReadError> for Failed {
        fn from(e: ReadError) -> Self {
            Failed(e.to_string())
        }
    }

    /// The plain reader's result, or its error.
    fn plain(p: &Path, opts: &ReadOptions<'_>) -> Result<TableRead, Failed> {
        let mut c = Collector::new(p, opts);
        read_delimited_long(p, &mut c)?;
        Ok(c.into_table())
    }

    /// The fast path's result (`None` where it does not apply), or its error.
    fn fast(p: &Path, opts: &ReadOptions<'_>) -> Option<Result<TableRead, Failed>> {
        fast_with(p, opts, false, BLOCK)
    }

    /// [`fast`] in blocks of `block` bytes, `pipelined` or not.
    fn fast_with(
        p: &Path,
        opts: &ReadOptions<'_>,
        pipelined: bool,
        block: usize,
    ) -> Option<Result<TableRead, Failed>> {
        let mut c = Collector::new(p, opts);
        match read_with(p, &mut c, pipelined, block) {
            Ok(true) => Some(Ok(c.into_table())),
            Ok(false) => None,
            Err(e) => Some(Err(e.into())),
        }
    }

    fn same(a: &Result<TableRead, Failed>, b: &Result<TableRead, Failed>) -> bool {
        match (a, b) {
            (Ok(x), Ok(y)) => {
                x.table == y.table && x.rejected == y.rejected && x.skipped == y.skipped
            }
            (Err(x), Err(y)) => x == y,
            _ => false,
        }
    }

    /// A cell of a long file, from a small alphabet that hits every rule (blank and padded
    /// values, texts, numbers, NaN, duplicates); when `dirty`, sometimes a quote, a carriage
    /// return or a BOM (where the fast path must step aside or keep the bytes).
    fn cell(dirty: bool) -> impl Strategy<Value = String> {
        let clean = prop::sample::select(vec![
            "i1",
            "i2",
            "i3",
            "w1",
            "w2",
            "w3",
            "1",
            "2",
            " 3 ",
            "4.0",
            "x",
            "",
            "pii",
            "pii,unsure",
            "가",
            "NaN",
            "1e400",
        ])
        .prop_map(str::to_string);
        let odd =
            prop::sample::select(vec!["\"q\"", "a\rb", "\u{feff}i1"]).prop_map(str::to_string);
        prop_oneof![30 => clean, u32::from(dirty) => odd]
    }

    /// A long file: a header (some lacking a column), rows of 1–4 cells (some missing
    /// fields; a row of one blank cell is a blank line), when `dirty` sometimes an empty row; with or without a final newline.
    fn file() -> impl Strategy<Value = (bool, String, Vec<Vec<String>>, bool)> {
        any::<bool>().prop_flat_map(|dirty| {
            (
                Just(dirty),
                prop::sample::select(vec![
                    "item\tannotator\tvalue",
                    "task\tworker\tlabel",
                    "\u{feff}item\tannotator\tlabel\tflags",
                    "label\tworker\titem\tflags",
                    "item\tannotator",
                ])
                .prop_map(str::to_string),
                prop::collection::vec(
                    prop::collection::vec(cell(dirty), if dirty { 0..5 } else { 1..5 }),
                    0..30,
                ),
                any::<bool>(),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]
        /// Wherever the fast path reads a file, it gives what the plain reader gives: the
        /// table, every rejected and skipped row (rule, detail with file:line), or the error;
        /// and it reads every file without quotes, carriage returns or long lines: in blocks
        /// of any size, on one thread or two (the next block scanned while the last is voted).
        #[test]
        fn fast_equals_plain((dirty, header, rows, last_newline) in file(), scale in 0..3usize, max_line in prop::sample::select(vec![8usize, 1 << 20]), max_ann in 1..4usize, csv in any::<bool>(), pipelined in any::<bool>(), block in prop::sample::select(vec![1usize, 5, 64, BLOCK])) {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join(if csv { "a.csv" } else { "a.tsv" });
            let sep = if csv { "," } else { "\t" };
            let mut text = header.replace('\t', sep);
            for r in &rows {
                text.push('\n');
                text.push_str(&r.join(sep));
            }
            if last_newline {
                text.push('\n');
            }
            std::fs::write(&p, &text).unwrap();
            let opts = ReadOptions {
                scale: match scale {
                    0 => super::super::Scale::Any,
                    1 => super::super::Scale::Range(0.0, 3.0),
                    _ => super::super::Scale::Labels(vec!["1".into(), "x".into()]),
                },
                numbers: if scale == 1 { super::super::Numbers::Require } else { super::super::Numbers::Any },
                limits: kcurate_core::recipe::Limits {
                    max_line_bytes: max_line,
                    max_annotators_per_item: max_ann,
                    ..Default::default()
                },
                ..Default::default()
            };
            let want = plain(&p, &opts);
            match fast_with(&p, &opts, pipelined, block) {
                Some(got) => prop_assert!(same(&got, &want), "{text:?}\nfast  {got:?}\nplain {want:?}"),
                None => prop_assert!(dirty || max_line == 8, "the fast path stepped aside: {text:?}"),
            }
            // Through read_table (fast path or not) the result is the plain one.
            let via = super::super::read_table(&p, Format::Long, &opts).map_err(Failed::from);
            prop_assert!(same(&via, &want), "{text:?}\nread_table {via:?}\nplain {want:?}");
        }
    }

    /// The proptest's files mostly take the fast path (it is not vacuous), and a file with a
    /// quote or a carriage return does not.
    #[test]
    fn the_fast_path_reads_plain_files_and_steps_aside_for_quotes() {
        let d = tempfile::tempdir().unwrap();
        let opts = ReadOptions::default();
        let p = d.path().join("a.tsv");
        std::fs::write(&p, "task\tworker\tlabel\nt1\tw1\t1\nt1\tw2\t2\nt2\tw1\t1").unwrap();
        let got = fast(&p, &opts).expect("a plain file").unwrap();
        assert_eq!((got.table.items.len(), got.table.len()), (2, 3));
        assert!(same(&Ok(got), &plain(&p, &opts)));
        for bad in [
            "task\tworker\tlabel\nt1\t\"w1\"\t1\n",
            "task\tworker\tlabel\r\nt1\tw1\t1\r\n",
        ] {
            std::fs::write(&p, bad).unwrap();
            assert!(fast(&p, &opts).is_none(), "{bad:?}");
        }
    }

    /// Blank lines are no rows but count as lines: both readers name a bad row after them
    /// by its line in the file (the csv crate's own numbering skipped them).
    #[test]
    fn rows_after_blank_lines_keep_their_file_lines() {
        let d = tempfile::tempdir().unwrap();
        let opts = ReadOptions::default();
        let p = d.path().join("a.tsv");
        std::fs::write(
            &p,
            "item\tannotator\tlabel\n\ni1\t\t1\n\n\ni2\ta\t\ni2\tb\t1\n",
        )
        .unwrap();
        let got = fast(&p, &opts).expect("a file without quotes").unwrap();
        let want = plain(&p, &opts).unwrap();
        let lines: Vec<&str> = got.rejected.iter().map(|d| d.origin.as_str()).collect();
        let name = p.display().to_string();
        assert_eq!(lines, [format!("{name}:3"), format!("{name}:6")]);
        assert!(same(&Ok(got), &Ok(want)));
    }
}
