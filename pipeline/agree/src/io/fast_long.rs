//! The fast path of the long TSV/CSV reader: the file read in large blocks, lines split with
//! `memchr`, fields split on the delimiter in place, no per-row allocation (the
//! [`Collector`] interns what it keeps). It reads only the files where this is exactly what
//! the `csv` crate does: valid UTF-8, no `"` (no quoting) and no `\r` (`\n` line ends only),
//! a header on the first line, no line over `max_line_bytes`. On anything else it stops,
//! before voting any row of the block where it met it, and the plain reader
//! ([`super::delimited::read_delimited_long`], the `csv` crate through core's bounded line reader, the
//! oracle its tests compare with) reads the file from the start.

use super::delimited::{delimiter, flags, long_columns};
use super::{Collector, ReadError, io};
use memchr::{memchr2, memchr2_iter, memrchr};
use std::io::Read;
use std::path::Path;

/// Bytes read at a time.
const BLOCK: usize = 1 << 20;

/// Reads `path` into `c` when the fast path applies: `Ok(true)`; `Ok(false)` when it does
/// not, with `c` untouched (the caller reads the file with the plain reader).
pub(super) fn read(path: &Path, c: &mut Collector<'_>) -> Result<bool, ReadError> {
    let mut fast = Collector::new(path, c.opts).named(c.path());
    if !read_blocks(path, &mut fast)? {
        return Ok(false);
    }
    *c = fast;
    Ok(true)
}

fn read_blocks(path: &Path, c: &mut Collector<'_>) -> Result<bool, ReadError> {
    let max = c.opts.limits.max_line_bytes;
    let delim = delimiter(path);
    let mut file = std::fs::File::open(path).map_err(io(path))?;
    let file_len = file.metadata().map_or(0, |m| m.len());
    let mut read_bytes = 0u64;
    let mut reserved = false;
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut cols: Option<Columns> = None;
    let mut line = 0u64;
    let mut fields: Vec<(usize, usize)> = Vec::new();
    let mut at_end = false;
    while !at_end {
        // Fill the buffer with one more block.
        let old = buf.len();
        buf.resize(old + BLOCK, 0);
        let n = read_full(&mut file, &mut buf[old..]).map_err(io(path))?;
        buf.truncate(old + n);
        at_end = n == 0;
        // The complete lines (at the end: everything).
        let end = if at_end {
            buf.len()
        } else {
            match memrchr(b'\n', &buf[old..]) {
                Some(k) => old + k + 1,
                None if buf.len() > max => return Ok(false),
                None => continue,
            }
        };
        let block = &buf[..end];
        if memchr2(b'"', b'\r', block).is_some() {
            return Ok(false);
        }
        let Ok(text) = std::str::from_utf8(block) else {
            return Ok(false);
        };
        // One scan finds the delimiters and the line ends together (a search per line and
        // per field cost more in call overhead than in bytes scanned).
        let (mut start, mut from) = (0, 0);
        fields.clear();
        let stops = memchr2_iter(delim, b'\n', block)
            .chain((end > 0 && block[end - 1] != b'\n').then_some(end));
        for stop in stops {
            if stop < end && block[stop] == delim {
                fields.push((from - start, stop - start));
                from = stop + 1;
                continue;
            }
            let row = &text[start..stop];
            fields.push((from - start, stop - start));
            start = stop + 1;
            from = start;
            line += 1;
            if row.len() > max {
                return Ok(false);
            }
            let Some(cols) = &cols else {
                if row.is_empty() {
                    return Ok(false);
                }
                let headers: Vec<String> = row
                    .split(delim as char)
                    .map(|h| h.trim_start_matches('\u{feff}').to_string())
                    .collect();
                cols = Some(Columns::of(long_columns(&headers, c.path())?));
                fields.clear();
                continue;
            };
            if row.is_empty() {
                // A blank line is no row (as the csv crate reads it), but it is a line: the
                // rows after it keep their file line numbers, in both readers.
                fields.clear();
                continue;
            }
            let get = |i: usize| fields.get(i).map_or("", |&(a, b)| &row[a..b]);
            let flags = cols.flags.map(|i| flags(get(i))).unwrap_or_default();
            c.vote(
                line,
                get(cols.item),
                get(cols.annotator),
                &cols.field,
                get(cols.value),
                flags,
            )?;
            fields.clear();
        }
        read_bytes += end as u64;
        if !reserved && !at_end {
            // The first block tells how many rows and items the whole file holds, about:
            // room for them now saves growing every table many times over.
            reserved = true;
            c.reserve_like(read_bytes, file_len);
        }
        buf.drain(..end);
    }
    // An empty file: the plain reader says what its header lacks.
    Ok(cols.is_some())
}

/// Where the columns are, from [`long_columns`].
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

    /// The plain reader's result, or its error as text.
    fn plain(p: &Path, opts: &ReadOptions<'_>) -> Result<TableRead, String> {
        let mut c = Collector::new(p, opts);
        read_delimited_long(p, &mut c).map_err(|e| e.to_string())?;
        Ok(c.into_table())
    }

    /// The fast path's result (`None` where it does not apply), or its error as text.
    fn fast(p: &Path, opts: &ReadOptions<'_>) -> Option<Result<TableRead, String>> {
        let mut c = Collector::new(p, opts);
        match read(p, &mut c) {
            Ok(true) => Some(Ok(c.into_table())),
            Ok(false) => None,
            Err(e) => Some(Err(e.to_string())),
        }
    }

    fn same(a: &Result<TableRead, String>, b: &Result<TableRead, String>) -> bool {
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
        /// and it reads every file without quotes, carriage returns or long lines.
        #[test]
        fn fast_equals_plain((dirty, header, rows, last_newline) in file(), scale in 0..3usize, max_line in prop::sample::select(vec![8usize, 1 << 20]), max_ann in 1..4usize, csv in any::<bool>()) {
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
            match fast(&p, &opts) {
                Some(got) => prop_assert!(same(&got, &want), "{text:?}\nfast  {got:?}\nplain {want:?}"),
                None => prop_assert!(dirty || max_line == 8, "the fast path stepped aside: {text:?}"),
            }
            // Through read_table (fast path or not) the result is the plain one.
            let via = super::super::read_table(&p, Format::Long, &opts).map_err(|e| e.to_string());
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
