//! Long and wide TSV/CSV through the `csv` crate (the plain readers; [`super::fast_long`]
//! is tested against the long one), and what the Label Studio CSV reader shares with them.

use super::{Collector, ReadError, open};
use kcurate_core::lines::BoundedLines;
use std::path::Path;

pub(super) fn delimiter(path: &Path) -> u8 {
    if path.extension().is_some_and(|e| e == "csv") {
        b','
    } else {
        b'\t'
    }
}

/// A TSV/CSV annotation file read through core's bounded line reader (cut lines are its
/// [`BoundedLines::cuts`]).
pub(crate) type CsvFile = csv::Reader<BoundedLines<std::io::BufReader<std::fs::File>>>;

pub(crate) fn csv_reader(path: &Path, max_line_bytes: usize) -> Result<CsvFile, ReadError> {
    Ok(csv::ReaderBuilder::new()
        .delimiter(delimiter(path))
        .flexible(true)
        .from_reader(BoundedLines::new(open(path)?, max_line_bytes).numbering_lines()))
}

pub(crate) fn csv_headers(path: &Path, rdr: &mut CsvFile) -> Result<Vec<String>, ReadError> {
    Ok(rdr
        .headers()
        .map_err(|e| ReadError::Format {
            path: path.display().to_string(),
            line: 1,
            message: e.to_string(),
        })?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect())
}

/// The next record into `rec`; `false` at the end.
pub(crate) fn csv_next(
    path: &Path,
    rdr: &mut CsvFile,
    rec: &mut csv::StringRecord,
) -> Result<bool, ReadError> {
    rdr.read_record(rec).map_err(|e| ReadError::Format {
        path: path.display().to_string(),
        line: e.position().map_or(0, |p| rdr.get_mut().line_at(p.byte())),
        message: e.to_string(),
    })
}

/// The file line `rec` (just read by `rdr`) starts on, blank lines counted (the `csv`
/// crate's own `line()` skips them).
pub(crate) fn csv_line(rdr: &mut CsvFile, rec: &csv::StringRecord) -> u64 {
    rec.position()
        .map_or(0, |p| rdr.get_mut().line_at(p.byte()))
}

/// The columns of a long file's header: item, annotator, value, the value column's name
/// and flags (an error naming what the header lacks).
pub(crate) fn long_columns(
    headers: &[String],
    shown: &str,
) -> Result<(usize, usize, usize, String, Option<usize>), ReadError> {
    let col = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| headers.iter().position(|h| h == n))
    };
    let (Some(ci), Some(ca)) = (col(&["item", "task"]), col(&["annotator", "worker"])) else {
        return Err(ReadError::Format {
            path: shown.to_string(),
            line: 1,
            message: format!(
                "the header must name `item` (or `task`) and `annotator` (or `worker`) (found: {})",
                headers.join(", ")
            ),
        });
    };
    let Some(cv) = col(&["label", "value"]) else {
        return Err(ReadError::Format {
            path: shown.to_string(),
            line: 1,
            message: "the header must name `label` or `value`".into(),
        });
    };
    Ok((ci, ca, cv, headers[cv].clone(), col(&["flags"])))
}

/// The flags of a long file's `flags` cell: comma-separated, trimmed, blanks left out.
pub(super) fn flags(cell: &str) -> Vec<String> {
    cell.split(',')
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect()
}

/// The plain long TSV/CSV reader (the `csv` crate): what [`fast_long`] is tested against,
/// and what reads the files it steps aside from (quoted fields, `\r`, long lines).
pub(super) fn read_delimited_long(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let shown = c.path().to_string();
    let named = Path::new(&shown);
    let mut rdr = csv_reader(path, c.opts.limits.max_line_bytes)?;
    let headers = csv_headers(named, &mut rdr)?;
    let (ci, ca, cv, field, cf) = long_columns(&headers, &shown)?;
    let mut rec = csv::StringRecord::new();
    while csv_next(named, &mut rdr, &mut rec)? {
        let line = csv_line(&mut rdr, &rec);
        let get = |i: usize| rec.get(i).unwrap_or("");
        let flags = cf.map(|i| flags(get(i))).unwrap_or_default();
        c.vote(line, get(ci), get(ca), &field, get(cv), flags)?;
    }
    c.reject_long_lines(rdr.get_ref().cuts());
    Ok(())
}

pub(super) fn read_delimited_wide(path: &Path, c: &mut Collector<'_>) -> Result<(), ReadError> {
    let mut rdr = csv_reader(path, c.opts.limits.max_line_bytes)?;
    let shown = c.path().to_string();
    let named = Path::new(&shown);
    let headers = csv_headers(named, &mut rdr)?;
    if headers.first().map(String::as_str) != Some("item") {
        return Err(ReadError::Format {
            path: shown.clone(),
            line: 1,
            message: "a wide file starts with an `item` column, then one column per annotator"
                .into(),
        });
    }
    let mut rec = csv::StringRecord::new();
    while csv_next(named, &mut rdr, &mut rec)? {
        let line = csv_line(&mut rdr, &rec);
        let item = rec.get(0).unwrap_or("");
        for (k, ann) in headers.iter().enumerate().skip(1) {
            // A blank cell is "not annotated", not a value.
            let v = rec.get(k).unwrap_or("").trim();
            if !v.is_empty() {
                c.vote(line, item, ann, ann, v, Vec::new())?;
            }
        }
    }
    c.reject_long_lines(rdr.get_ref().cuts());
    Ok(())
}
