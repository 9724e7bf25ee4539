//! TSV/CSV through the `csv` crate: quoted fields, CRLF, BOM, header or not; each problem a
//! malformed item naming file, line and column.

use super::csv_lines::{BoundedLines, CountingReader, Newlines, counting_reader};
use super::decode::open_decoded;
use super::fields::map_fields;
use super::{Item, malformed, over_limit, unreadable};
use kcurate_core::recipe::{FieldMap, Format, SourceConfig};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

type CsvReader = csv::Reader<CountingReader<BoundedLines<Box<dyn BufRead + Send>, Newlines>>>;

/// TSV/CSV through the `csv` crate: quoted fields, CRLF, BOM, header or not. Every row
/// that is not a record (too few or many columns, a stray or unclosed quote, a line past
/// the limits, invalid UTF-8) is a malformed item naming its line and column.
pub(super) fn csv_items(
    src: &SourceConfig,
    file: String,
    path: &Path,
) -> impl Iterator<Item = Item> + Send + use<> {
    let file: Arc<str> = file.into();
    let src = src.clone();
    let newlines = Newlines::default();
    let (reader, first) = match open_decoded(path) {
        Err(e) => (
            None,
            Some(unreadable(&file, 0, format!("cannot open: {e}"))),
        ),
        Ok(f) => open_reader(&src, &file, f, &newlines),
    };
    let mut rows = CsvRows {
        reader,
        rows: Rows {
            src,
            file,
            newlines,
            rec: csv::ByteRecord::new(),
            any: false,
            pending: VecDeque::new(),
        },
    };
    first
        .into_iter()
        .chain(std::iter::from_fn(move || rows.next_item()))
}

/// The reader over a file whose header (or configured columns) named every column the
/// fields need, and those columns; or the one decision that stops the file before its rows.
fn open_reader(
    src: &SourceConfig,
    file: &Arc<str>,
    f: Box<dyn BufRead + Send>,
    newlines: &Newlines,
) -> (Option<(CsvReader, Vec<String>)>, Option<Item>) {
    let delimiter = if src.format == Format::Tsv {
        b'\t'
    } else {
        b','
    };
    let quoting = src.quote.unwrap_or(src.format == Format::Csv);
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(quoting)
        .has_headers(src.header)
        .flexible(true)
        .from_reader(counting_reader(
            f,
            newlines,
            src.limits.max_line_bytes,
            quoting.then_some(delimiter),
            src.record_limit() as u64,
        ));
    let (columns, mut first) = if src.header {
        header_columns(file, &mut rdr)
    } else {
        (src.columns.clone(), None)
    };
    if src.header && newlines.first_line_cut() {
        first = Some(over_limit(
            file,
            1,
            "-",
            format!(
                "header line longer than limits.max_line_bytes ({} bytes); the file is not read",
                src.limits.max_line_bytes
            ),
        ));
    }
    if first.is_none() {
        first = missing_columns(src, file, &columns);
    }
    match first {
        None => (Some((rdr, columns)), None),
        Some(_) => (None, first),
    }
}

/// The decision for columns the fields need that the header (or configured columns) lacks:
/// one decision at line 1 naming every missing column, so a recipe is fixed in one pass.
fn missing_columns(src: &SourceConfig, file: &str, columns: &[String]) -> Option<Item> {
    let missing: Vec<&str> = needed_columns(&src.fields)
        .into_iter()
        .filter(|need| !columns.iter().any(|c| c == need))
        .collect();
    let noun = match missing.len() {
        0 => return None,
        1 => "column",
        _ => "columns",
    };
    Some(malformed(
        file,
        1,
        &missing.join(", "),
        format!("no such {noun} (columns: {})", columns.join(", ")),
    ))
}

/// The column names of the header row (a BOM before the first dropped), or the decision
/// for a header that is empty or unreadable.
fn header_columns(file: &Arc<str>, rdr: &mut CsvReader) -> (Vec<String>, Option<Item>) {
    match rdr.byte_headers() {
        Ok(h) if h.is_empty() || (h.len() == 1 && h[0].is_empty()) => (
            Vec::new(),
            Some(unreadable(file, 0, "empty file: no header")),
        ),
        Ok(h) => (
            h.iter()
                .map(|c| {
                    String::from_utf8_lossy(c)
                        .trim_start_matches('\u{feff}')
                        .to_string()
                })
                .collect(),
            None,
        ),
        Err(e) => (
            Vec::new(),
            Some(unreadable(file, 1, format!("unreadable header: {e}"))),
        ),
    }
}

/// The rows of an opened file: the reader and its columns while rows remain to be read.
struct CsvRows {
    reader: Option<(CsvReader, Vec<String>)>,
    rows: Rows,
}

/// What the reading of a file's rows carries from one row to the next: the row buffer (one
/// per file), whether anything was read, and the decisions due before the next row.
struct Rows {
    src: SourceConfig,
    file: Arc<str>,
    newlines: Newlines,
    rec: csv::ByteRecord,
    any: bool,
    pending: VecDeque<Item>,
}

impl CsvRows {
    /// The next item of the file: a pending decision, or what the next row reads as.
    #[inline]
    fn next_item(&mut self) -> Option<Item> {
        loop {
            if let Some(p) = self.rows.pending.pop_front() {
                return Some(p);
            }
            let (rdr, columns) = self.reader.as_mut()?;
            match rdr.read_byte_record(&mut self.rows.rec) {
                Ok(false) => {
                    let over = self.rows.newlines.overlong();
                    self.reader = None;
                    if let Some(empty) = self.rows.finish(over) {
                        return Some(empty);
                    }
                }
                Err(e) => {
                    let (item, stop) = self.rows.read_error(&e);
                    if stop {
                        self.reader = None;
                    }
                    return Some(item);
                }
                Ok(true) => {
                    if self.rows.row(columns, rdr.position().byte()) {
                        self.reader = None;
                    }
                }
            }
        }
    }
}

impl Rows {
    /// The decisions at the end of the file: lines cut for their length, a quoted field run
    /// past the record limit (`over`), or, when nothing at all was read, an empty file.
    fn finish(&mut self, over: Option<u64>) -> Option<Item> {
        for (l, _) in self.newlines.cuts_before(0, u64::MAX) {
            self.pending.push_back(line_cut(&self.src, &self.file, l));
        }
        if let Some(l) = over {
            self.pending
                .push_back(quoted_overlong(&self.src, &self.file, l));
        }
        let empty = !self.any && self.pending.is_empty();
        self.any = true;
        empty.then(|| unreadable(&self.file, 0, "empty file: no records"))
    }

    /// The decision for a row the reader could not read, and whether the file stops there:
    /// an I/O error ends the file (and the run); a parse error only this record.
    fn read_error(&mut self, e: &csv::Error) -> (Item, bool) {
        let line = e
            .position()
            .map(|p| self.newlines.line_at(p.byte()))
            .unwrap_or(0);
        self.any = true;
        if matches!(e.kind(), csv::ErrorKind::Io(_)) {
            let item = unreadable(&self.file, line, format!("read error: {e}"));
            return (item, true);
        }
        let item = malformed(&self.file, line, "-", format!("unreadable row: {e}"));
        (item, false)
    }

    /// Queues the decisions of the row just read (ending at byte `end`) and tells whether
    /// the file stops after it.
    #[inline]
    fn row(&mut self, columns: &[String], end: u64) -> bool {
        // Lines cut for their length: before this record, each a decision of its own; inside
        // it (a quoted field spanning lines), the record's.
        let start = self.rec.position().map_or(0, |p| p.byte());
        let mut cut_inside = None;
        for (l, inside) in self.newlines.cuts_before(start, end) {
            if inside {
                cut_inside.get_or_insert(l);
            } else {
                self.any = true;
                self.pending.push_back(line_cut(&self.src, &self.file, l));
            }
        }
        if let Some(l) = self.newlines.overlong() {
            self.any = true;
            self.pending
                .push_back(quoted_overlong(&self.src, &self.file, l));
            return true;
        }
        let line = self
            .rec
            .position()
            .map(|p| self.newlines.line_at(p.byte()))
            .unwrap_or(0);
        if self.rec.len() == 1 && self.rec[0].is_empty() {
            return false;
        }
        self.any = true;
        let at = RowAt {
            start,
            end,
            line,
            cut_inside,
        };
        let (item, stop) = match self.row_problem(columns, &at) {
            Some(problem) => problem,
            None => (self.row_values(columns, line), false),
        };
        self.pending.push_back(item);
        stop
    }
}
/// Where the row just read is: its bytes, the line it starts on, and the first of its lines
/// cut for their length, if any.
struct RowAt {
    start: u64,
    end: u64,
    line: u64,
    cut_inside: Option<u64>,
}

impl Rows {
    /// The decision for a row that is not a record (a line of it cut, too long, a quote
    /// problem, the wrong number of columns), and whether the file stops there.
    #[inline]
    fn row_problem(&self, columns: &[String], at: &RowAt) -> Option<(Item, bool)> {
        let (file, line) = (&*self.file, at.line);
        if let Some(l) = at.cut_inside {
            let reason = format!(
                "line {l} of this row is longer than limits.max_line_bytes ({} bytes; \
                 skipped to its end, not read)",
                self.src.limits.max_line_bytes
            );
            return Some((over_limit(file, line, "-", reason), false));
        }
        if at.end - at.start > self.src.record_limit() as u64 {
            let reason = format!(
                "record longer than max_record_bytes ({} bytes)",
                self.src.record_limit()
            );
            return Some((over_limit(file, line, "-", reason), false));
        }
        if let Some(problem) = self.quote_problem(at) {
            return Some(problem);
        }
        let rec = &self.rec;
        if rec.len() < columns.len() {
            let field = column_field(columns, rec.len());
            let reason = format!("too few columns: {} of {}", rec.len(), columns.len());
            return Some((malformed(file, line, &field, reason), false));
        }
        let extra_text = rec
            .iter()
            .skip(columns.len())
            .any(|f| f != b"" && f != b"\r");
        if extra_text {
            let reason = format!(
                "too many columns: {} of {} (a delimiter inside an unquoted field?)",
                rec.len(),
                columns.len()
            );
            return Some((malformed(file, line, "-", reason), false));
        }
        None
    }

    /// The decision for a quote left open to the end of the file (which stops it) or closed
    /// by a later field's opening quote.
    fn quote_problem(&self, at: &RowAt) -> Option<(Item, bool)> {
        let (file, line) = (&*self.file, at.line);
        // A quote opened in this record and never closed took the rest of the file
        // into one field: the rows it swallowed are not read as text.
        if let Some((quote_line, last)) = self.newlines.unclosed_quote_before(at.end) {
            let reason = format!(
                "unclosed quote: the quoted field opened on this line runs to the end of \
                 the file (lines {quote_line}..{last}, in the row starting on line {line}); \
                 that row and the rest of the file are not read"
            );
            return Some((malformed(file, quote_line, "-", reason), true));
        }
        if let Some(quote_line) = self.newlines.stray_quote_in(at.start, at.end) {
            let reason = format!(
                "text after the closing quote of the field opened on this line (in the \
                 row starting on line {line}): a stray quote paired with a later one, \
                 and the rows between are inside this field"
            );
            return Some((malformed(file, quote_line, "-", reason), false));
        }
        None
    }

    /// What a row with the right columns reads as: its fields mapped, or the decision for
    /// the first field that is not UTF-8.
    #[inline]
    fn row_values(&self, columns: &[String], line: u64) -> Item {
        let rec = &self.rec;
        let mut values = BTreeMap::new();
        for (i, name) in columns.iter().enumerate() {
            let mut raw = &rec[i];
            if raw.last() == Some(&b'\r') {
                raw = &raw[..raw.len() - 1];
            }
            match std::str::from_utf8(raw) {
                Ok(s) => {
                    values.insert(name.clone(), Value::String(s.to_string()));
                }
                Err(e) => {
                    let at = rec.position().map(|p| p.byte()).unwrap_or(0);
                    return malformed(
                        &self.file,
                        line,
                        &column_field(columns, i),
                        format!(
                            "invalid UTF-8 at byte {} of the field (row starts at byte offset {at})",
                            e.valid_up_to()
                        ),
                    );
                }
            }
        }
        map_fields(&self.src, &self.file, line, &|n| values.get(n).cloned())
    }
}

/// The decision for a line cut for its length (see [`BoundedLines`]).
fn line_cut(src: &SourceConfig, file: &str, line: u64) -> Item {
    over_limit(
        file,
        line,
        "-",
        format!(
            "line longer than limits.max_line_bytes ({} bytes; skipped to its end, not read)",
            src.limits.max_line_bytes
        ),
    )
}

/// The decision for a quoted field that grew past the record limit: the reader stopped.
fn quoted_overlong(src: &SourceConfig, file: &str, line: u64) -> Item {
    over_limit(
        file,
        line,
        "-",
        format!(
            "the quoted field opened on this line runs past max_record_bytes ({} bytes): an \
             unclosed quote or a field that large; that row and the rest of the file are not read",
            src.record_limit()
        ),
    )
}

/// The field a problem in column `i` names: the column's name, or its 1-based position when
/// the header left the name empty (a trailing delimiter).
fn column_field(columns: &[String], i: usize) -> String {
    match columns[i].as_str() {
        "" => format!("column {}", i + 1),
        name => name.to_string(),
    }
}

fn needed_columns(fm: &FieldMap) -> Vec<&str> {
    let mut v = vec![fm.text.as_str()];
    v.extend(fm.id.as_deref());
    v.extend(fm.date.as_deref());
    v.extend(fm.label.as_deref());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv_problems(bytes: &[u8]) -> (usize, Vec<String>) {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.csv"), bytes).unwrap();
        let src: SourceConfig = toml::from_str(
            "id = \"s\"\npath = \"a.csv\"\nformat = \"csv\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\n[fields]\ntext = \"text\"\n",
        )
        .unwrap();
        let (mut n, mut bad) = (0, Vec::new());
        for item in csv_items(&src, "a.csv".into(), &d.path().join("a.csv")) {
            match item {
                Item::Record(_) => n += 1,
                Item::Malformed(m) => bad.push(format!("{}:{}", m.line, m.reason)),
            }
        }
        (n, bad)
    }

    #[test]
    fn a_header_missing_several_needed_columns_names_every_one_in_one_decision() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.tsv"), "body\tlabel\nx\t1\n").unwrap();
        let src: SourceConfig = toml::from_str(
            "id = \"s\"\npath = \"a.tsv\"\nformat = \"tsv\"\nlicense = \"CC0-1.0\"\n\
             domain = \"d\"\nstyle = \"formal\"\n\
             [fields]\ntext = \"text\"\nid = \"doc_id\"\nlabel = \"label\"\n",
        )
        .unwrap();
        let items: Vec<_> = csv_items(&src, "a.tsv".into(), &d.path().join("a.tsv")).collect();
        let [Item::Malformed(m)] = items.as_slice() else {
            panic!("one decision stops the file: {items:?}")
        };
        assert_eq!(
            m.to_string(),
            "a.tsv:1: text, doc_id: no such columns (columns: body, label)"
        );
    }

    /// The quote tracking agrees with the `csv` crate on what is quoted: escaped quotes,
    /// quotes inside unquoted fields and a BOM are not problems; a quote left open to the end
    /// of the file, or closed by a later field's opening quote, is.
    #[test]
    fn csv_quote_problems_name_the_line_the_quote_opened() {
        let (n, bad) = csv_problems(b"text\n\"a \"\"b\"\" c\"\nx\"y\"\n\"multi\nline\"\n");
        assert_eq!((n, bad.len()), (3, 0), "{bad:?}");
        let (n, bad) = csv_problems(b"\xEF\xBB\xBF\"text\"\r\n\"a\"\r\n");
        assert_eq!((n, bad.len()), (1, 0), "{bad:?}");
        let (n, bad) = csv_problems(b"text\nok\n\"open\nrest\nrest\n");
        assert_eq!(n, 1);
        assert!(
            bad.len() == 1 && bad[0].starts_with("3:unclosed quote"),
            "{bad:?}"
        );
        let (n, bad) = csv_problems(b"text\n\"stray\nx\n\"q\" after\nok\n");
        assert_eq!(n, 1);
        assert!(
            bad.len() == 1 && bad[0].starts_with("2:text after the closing quote"),
            "{bad:?}"
        );
    }
}
