//! TSV/CSV through the `csv` crate: quoted fields, CRLF, BOM, header or not; each problem a
//! malformed item naming file, line and column.

use super::csv_lines::{BoundedLines, CountingReader, Newlines, counting_reader};
use super::decode::open_decoded;
use super::fields::map_fields;
use super::{Item, malformed, over_limit, unreadable};
use kcurate_core::recipe::{FieldMap, Format, SourceConfig};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

type CsvReader = csv::Reader<CountingReader<BoundedLines<Box<dyn BufRead + Send>, Newlines>>>;

/// TSV/CSV through the `csv` crate: quoted fields, CRLF, BOM, header or not. Every row
/// that is not a record (too few or many columns, a stray or unclosed quote, a line past
/// the limits, invalid UTF-8) is a malformed item naming its line and column.
#[allow(
    clippy::too_many_lines,
    reason = "one iterator over the csv reader: the state it captures (reader, header, pending items) is shared by every step"
)]
pub(super) fn csv_items(
    src: &SourceConfig,
    file: String,
    path: &Path,
) -> impl Iterator<Item = Item> + Send + use<> {
    let delimiter = if src.format == Format::Tsv {
        b'\t'
    } else {
        b','
    };
    let quoting = src.quote.unwrap_or(src.format == Format::Csv);
    let file: Arc<str> = file.into();
    let opened = open_decoded(path);
    let src = src.clone();
    let newlines = Newlines::default();
    let mut state: Option<(CsvReader, Vec<String>)> = None;
    let mut first: Option<Item> = None;
    match opened {
        Err(e) => first = Some(unreadable(&file, 0, format!("cannot open: {e}"))),
        Ok(f) => {
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .quoting(quoting)
                .has_headers(src.header)
                .flexible(true)
                .from_reader(counting_reader(
                    f,
                    &newlines,
                    src.limits.max_line_bytes,
                    quoting.then_some(delimiter),
                    src.record_limit() as u64,
                ));
            let columns = if src.header {
                match rdr.byte_headers() {
                    Ok(h) if h.is_empty() || (h.len() == 1 && h[0].is_empty()) => {
                        first = Some(unreadable(&file, 0, "empty file: no header"));
                        Vec::new()
                    }
                    Ok(h) => h
                        .iter()
                        .map(|c| {
                            String::from_utf8_lossy(c)
                                .trim_start_matches('\u{feff}')
                                .to_string()
                        })
                        .collect(),
                    Err(e) => {
                        first = Some(unreadable(&file, 1, format!("unreadable header: {e}")));
                        Vec::new()
                    }
                }
            } else {
                src.columns.clone()
            };
            if src.header && newlines.first_line_cut() {
                first = Some(over_limit(
                    &file,
                    1,
                    "-",
                    format!(
                        "header line longer than limits.max_line_bytes ({} bytes); the file is not read",
                        src.limits.max_line_bytes
                    ),
                ));
            }
            if first.is_none() {
                for need in needed_columns(&src.fields) {
                    if !columns.iter().any(|c| c == need) {
                        first = Some(malformed(
                            &file,
                            1,
                            need,
                            format!("no such column (columns: {})", columns.join(", ")),
                        ));
                    }
                }
            }
            if first.is_none() {
                state = Some((rdr, columns));
            }
        }
    }
    let mut rec = csv::ByteRecord::new();
    let mut any = false;
    let mut first_done = false;
    let mut pending: std::collections::VecDeque<Item> = std::collections::VecDeque::new();
    std::iter::from_fn(move || {
        if !first_done {
            first_done = true;
            if let Some(f) = first.take() {
                return Some(f);
            }
        }
        loop {
            if let Some(p) = pending.pop_front() {
                return Some(p);
            }
            let (rdr, columns) = state.as_mut()?;
            match rdr.read_byte_record(&mut rec) {
                Ok(false) => {
                    let over = newlines.overlong();
                    state = None;
                    for (l, _) in newlines.cuts_before(0, u64::MAX) {
                        pending.push_back(line_cut(&src, &file, l));
                    }
                    if let Some(l) = over {
                        pending.push_back(quoted_overlong(&src, &file, l));
                    }
                    if !any && pending.is_empty() {
                        any = true;
                        return Some(unreadable(&file, 0, "empty file: no records"));
                    }
                    any = true;
                    continue;
                }
                Err(e) => {
                    let line = e
                        .position()
                        .map(|p| newlines.line_at(p.byte()))
                        .unwrap_or(0);
                    any = true;
                    // An I/O error ends the file (and the run); a parse error only this record.
                    if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                        state = None;
                        return Some(unreadable(&file, line, format!("read error: {e}")));
                    }
                    return Some(malformed(&file, line, "-", format!("unreadable row: {e}")));
                }
                Ok(true) => {}
            }
            // Lines cut for their length: before this record, each a decision of its own; inside
            // it (a quoted field spanning lines), the record's.
            let (start, end) = (
                rec.position().map_or(0, |p| p.byte()),
                rdr.position().byte(),
            );
            let mut cut_inside = None;
            for (l, inside) in newlines.cuts_before(start, end) {
                if inside {
                    cut_inside.get_or_insert(l);
                } else {
                    any = true;
                    pending.push_back(line_cut(&src, &file, l));
                }
            }
            if let Some(l) = newlines.overlong() {
                state = None;
                any = true;
                pending.push_back(quoted_overlong(&src, &file, l));
                continue;
            }
            let line = rec
                .position()
                .map(|p| newlines.line_at(p.byte()))
                .unwrap_or(0);
            if rec.len() == 1 && rec[0].is_empty() {
                continue;
            }
            any = true;
            let item = 'rec: {
                if let Some(l) = cut_inside {
                    break 'rec over_limit(
                        &file,
                        line,
                        "-",
                        format!(
                            "line {l} of this row is longer than limits.max_line_bytes ({} bytes; \
                         skipped to its end, not read)",
                            src.limits.max_line_bytes
                        ),
                    );
                }
                if end - start > src.record_limit() as u64 {
                    break 'rec over_limit(
                        &file,
                        line,
                        "-",
                        format!(
                            "record longer than max_record_bytes ({} bytes)",
                            src.record_limit()
                        ),
                    );
                }
                // A quote opened in this record and never closed took the rest of the file
                // into one field: the rows it swallowed are not read as text.
                if let Some((quote_line, last)) =
                    newlines.unclosed_quote_before(rdr.position().byte())
                {
                    state = None;
                    break 'rec malformed(
                        &file,
                        quote_line,
                        "-",
                        format!(
                            "unclosed quote: the quoted field opened on this line runs to the end of \
                         the file (lines {quote_line}..{last}, in the row starting on line {line}); \
                         that row and the rest of the file are not read"
                        ),
                    );
                }
                let start = rec.position().map_or(0, |p| p.byte());
                if let Some(quote_line) = newlines.stray_quote_in(start, rdr.position().byte()) {
                    break 'rec malformed(
                        &file,
                        quote_line,
                        "-",
                        format!(
                            "text after the closing quote of the field opened on this line (in the \
                         row starting on line {line}): a stray quote paired with a later one, \
                         and the rows between are inside this field"
                        ),
                    );
                }
                if rec.len() < columns.len() {
                    break 'rec malformed(
                        &file,
                        line,
                        &column_field(columns, rec.len()),
                        format!("too few columns: {} of {}", rec.len(), columns.len()),
                    );
                }
                let extra_text = rec
                    .iter()
                    .skip(columns.len())
                    .any(|f| f != b"" && f != b"\r");
                if extra_text {
                    break 'rec malformed(
                        &file,
                        line,
                        "-",
                        format!(
                            "too many columns: {} of {} (a delimiter inside an unquoted field?)",
                            rec.len(),
                            columns.len()
                        ),
                    );
                }
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
                            break 'rec malformed(
                                &file,
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
                map_fields(&src, &file, line, &|n| values.get(n).cloned())
            };
            pending.push_back(item);
        }
    })
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
